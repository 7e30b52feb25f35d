//! Metrics per operation and per window of the entities' above, and of the run and its faults
//! (`run.*`, `fault.<i>.*`).

use super::{MetricDoc, doc};

pub(super) const WHOLE_RUN: &[MetricDoc] = &[
    doc(
        "client.<c>.op.<o>.<metric>",
        "as <metric>",
        "any client metric above, over the requests of one operation of a client's `mix` (the client's own metrics are their sum)",
    ),
    doc(
        "service.<s>.op.<o>.<metric>",
        "as <metric>",
        "any service metric above, over the requests of operation o alone (the service's own metrics are the sum over its operations; utilization is the share of all the service's workers that o holds)",
    ),
    doc(
        "edge.<from>.<to>.op.<o>.<metric>",
        "as <metric>",
        "any edge metric above, over the calls to operation o of the callee (the pair's edge.<from>.<to>.* metrics are the sum over its operations)",
    ),
    doc(
        "window.<w>.<metric>",
        "as <metric>",
        "any metric above measured over [[window]] <w> alone: the buckets that start inside it (a fault's phase, or a start and end)",
    ),
    doc(
        "run.diverged",
        "0/1",
        "1 when the run stopped early because more than scenario.max_in_flight requests (logical calls plus jobs at services; default 1,000,000) were in flight: an overloaded open system growing without bound. Every other metric then covers the run up to run.stopped_at_s (summary only)",
    ),
    doc(
        "run.stopped_at_s",
        "s",
        "simulated time at which the run stopped, from the start of the warm-up: warm-up plus duration, or earlier when it diverged (summary only)",
    ),
    doc(
        "fault.<i>.judged",
        "0/1",
        "1 when fault i's episode (it and the faults active at overlapping times, judged as one) has a baseline: a steady span of at least one whole measured bucket that no fault touches, from the warm-up's end or from where the previous episode's goodput came back (or the fault's own `baseline`) to its start. 0: no other fault.<i>.* verdict metric exists (the fault table says why)",
    ),
    doc(
        "fault.<i>.baseline_s",
        "s",
        "the length of that baseline span (0 when there is none)",
    ),
    doc(
        "fault.<i>.goodput_before_rps",
        "1/s",
        "all clients' goodput over the baseline's buckets: the level to come back to",
    ),
    doc(
        "fault.<i>.goodput_during_rps",
        "1/s",
        "all clients' goodput while the episode was active",
    ),
    doc(
        "fault.<i>.goodput_after_rps",
        "1/s",
        "all clients' goodput from the episode's end to the next episode's start (or the end of the run)",
    ),
    doc(
        "fault.<i>.recovered",
        "0/1",
        "1 when goodput came back to at least the floor (the baseline less the wider of recovery_tolerance, 5%, of it and three standard deviations of Poisson counting noise over one bucket) and held there for recovery_hold (10 s) before the next episode: one-sided, so goodput above the baseline is back",
    ),
    doc(
        "fault.<i>.recovery_s",
        "s",
        "from the episode's end to the start of the first bucket of that hold (bucket resolution); when not recovered, the time watched after the end",
    ),
    doc(
        "fault.<i>.client.<c>.goodput_before_rps",
        "1/s",
        "client c's own goodput over the baseline; the fault.<i>.client.<c>.* verdict exists only for a client that sent requests in the baseline's buckets",
    ),
    doc(
        "fault.<i>.client.<c>.goodput_during_rps",
        "1/s",
        "client c's goodput while the episode was active",
    ),
    doc(
        "fault.<i>.client.<c>.goodput_after_rps",
        "1/s",
        "client c's goodput after the episode, as fault.<i>.goodput_after_rps",
    ),
    doc(
        "fault.<i>.client.<c>.recovered",
        "0/1",
        "fault.<i>.recovered judged on client c's goodput alone: 0 for a client still down behind others that recovered",
    ),
    doc(
        "fault.<i>.client.<c>.recovery_s",
        "s",
        "fault.<i>.recovery_s judged on client c's goodput alone",
    ),
    doc(
        "fault.<i>.client.<c>.op.<o>.<verdict>",
        "as <verdict>",
        "each fault.<i>.client.<c>.* verdict metric judged on the goodput of operation o of client c's mix alone, over the same baseline span: a small operation's collapse moves the client's verdict only by its share",
    ),
    doc(
        "alert.<name>.fired",
        "0/1",
        "1 when [[alert]] <name> fired at least once in the run: its condition held at every evaluation for `for`, as a Prometheus alerting rule (summary only)",
    ),
    doc(
        "alert.<name>.firing_s",
        "s",
        "time the alert spent firing, summed over its firing intervals (alerts.csv), each from the evaluation that fired it to the one that resolved it or the run's end (summary only)",
    ),
    doc(
        "alert.<name>.first_fire_s",
        "s",
        "simulated time, from the start of the warm-up, of the evaluation at which the alert first fired; absent when it never fired, which [[expect]] judges as +∞ (summary only)",
    ),
    doc(
        "alert.<name>.false_pages",
        "count",
        "firing intervals that started outside every fault's window (a fault's start to the first bucket of its episode's recovery hold, or the next episode's start or the run's end when it did not recover): pages with nothing to find (summary only)",
    ),
    doc(
        "fault.<i>.alert.<name>.detect_s",
        "s",
        "from fault i's start to the first firing of alert <name> that started in fault i's window; absent when none did (the fault went undetected), which [[expect]] judges as +∞ (summary only)",
    ),
];
