//! The one place a metric's name is composed. The engine and the model hand over values (a
//! client's name, an operation's, a fault's index, a count); the names they go under
//! (`client.web.goodput_rps`, `service.api.op.login.arrivals`, `window.w.edge.a.b.calls`,
//! `fault.0.client.web.recovered`) are spelt here alone, so a name the catalogue
//! (`catalogue/`) documents cannot drift from the name a run emits (the tests below hold the
//! two together), and a reader of results composes the same name the writer did.
//!
//! A name is a prefix (the entity, or the part of one: `client.<c>`, `service.<s>.op.<o>`,
//! `edge.<from>.<to>`) and, after a dot, what is measured of it (`requests`,
//! `errors.timeout`).

use cascade_policy::outcome::Outcome;
use std::fmt::Display;

/// `client.<c>`: a client's metrics.
pub fn client(c: &str) -> String {
    format!("client.{c}")
}

/// `client.<c>.op.<o>`: the requests of one operation of a client's mix.
pub fn client_op(c: &str, op: &str) -> String {
    format!("client.{c}.op.{op}")
}

/// `rate_limit.<key>.<count>` under a service: a keyed rate limit's count for one key
/// (`client.<c>` or `client.<c>.op.<o>`), `passed` or `refused`.
pub fn rate_key(key: &str, count: &str) -> String {
    format!("rate_limit.{key}.{count}")
}

/// `service.<s>`: a service's metrics.
pub fn service(s: &str) -> String {
    format!("service.{s}")
}

/// `service.<s>.op.<o>`: the jobs of one operation of a service.
pub fn service_op(s: &str, op: &str) -> String {
    format!("service.{s}.op.{op}")
}

/// `edge.<e>`, where `e` is the model's `Edge::name`: `<from>.<to>` for a pair,
/// `<from>.<to>.op.<o>` for its calls to one operation.
pub fn edge(e: &str) -> String {
    format!("edge.{e}")
}

/// `<prefix>.<what>`: what is measured of an entity (or of a part, a fault, a pool).
pub fn metric(prefix: &str, what: &str) -> String {
    let mut name = String::with_capacity(prefix.len() + 1 + what.len());
    write_metric(&mut name, prefix, what);
    name
}

/// `metric` into a buffer that is cleared first: emission names every metric of every bucket
/// this way, reusing one allocation.
pub fn write_metric(into: &mut String, prefix: &str, what: &str) {
    into.clear();
    into.push_str(prefix);
    into.push('.');
    into.push_str(what);
}

/// `client.<c>.<what>`.
pub fn client_metric(c: &str, what: &str) -> String {
    metric(&client(c), what)
}

/// `service.<s>.<what>`.
pub fn service_metric(s: &str, what: &str) -> String {
    metric(&service(s), what)
}

/// `edge.<e>.<what>` (`e` as in `edge`).
pub fn edge_metric(e: &str, what: &str) -> String {
    metric(&edge(e), what)
}

/// What is still in flight when the run ends, after a client's, service's or edge's prefix.
pub const IN_FLIGHT_END: &str = "in_flight_end";

/// `<kind>.<name>`: the prefix of a caller's metrics, `kind` being `client` or `service`
/// (`model::callers::Caller`).
pub fn caller(kind: &str, name: &str) -> String {
    format!("{kind}.{name}")
}

/// `<caller>.pool.<p>`: a named pool (`bulkhead.pool`) of the caller whose prefix is `caller`.
pub fn pool(caller: &str, pool: &str) -> String {
    format!("{caller}.pool.{pool}")
}

/// The metrics of a named pool, after its prefix: permits held and callers waiting, time
/// averages over the measured part of the run, summed over the caller's instances.
pub const POOL_METRICS: [&str; 2] = ["in_use_mean", "waiting_mean"];

/// Every named pool's prefix (`service.api.pool.pg`), in caller then name order, each once.
pub fn named_pools(model: &crate::model::Model) -> Vec<String> {
    let mut pools = std::collections::BTreeSet::new();
    for c in model.callers() {
        let named = c
            .calls
            .iter()
            .filter_map(|call| call.policy.bulkhead()?.pool());
        let who = caller(c.kind, c.name);
        pools.extend(named.map(|p| pool(&who, p)));
    }
    pools.into_iter().collect()
}

/// The run's own facts in every summary: whether it diverged, and when it stopped.
pub const RUN_METRICS: [&str; 2] = ["run.diverged", "run.stopped_at_s"];

/// `window.<w>.<metric>`: a metric measured over a `[[window]]` alone.
pub fn window_metric(w: &str, metric: &str) -> String {
    format!("window.{w}.{metric}")
}

/// `fault.<i>`: the verdicts on fault `i`'s episode.
pub fn fault(i: impl Display) -> String {
    format!("fault.{i}")
}

/// `fault.<i>.<what>`: a verdict on the whole episode (`recovered`, `recovery_s`, …).
pub fn fault_metric(i: impl Display, what: &str) -> String {
    metric(&fault(i), what)
}

/// The metrics of each `[[alert]]`, `alert.<name>.<what>`, in the order the summary lists
/// them: `first_fire_s` only for an alert that fired.
pub const ALERT_METRICS: [&str; 4] = ["fired", "firing_s", "first_fire_s", "false_pages"];

/// `alert.<name>.<what>`.
pub fn alert_metric(name: &str, what: &str) -> String {
    format!("alert.{name}.{what}")
}

/// `fault.<i>.alert.<name>.detect_s`: from fault i's start to the alert's first firing in its
/// window.
pub fn fault_alert_detect(i: impl Display, name: &str) -> String {
    format!("fault.{i}.alert.{name}.detect_s")
}

/// `fault.<i>.<part>`: the verdict on one part's goodput (`part` a `client` or `client_op`
/// prefix).
pub fn fault_part(i: impl Display, part: &str) -> String {
    format!("fault.{i}.{part}")
}

/// Emitted for every fault, judged or not, after `fault.<i>.`.
pub const JUDGED_METRICS: [&str; 2] = ["judged", "baseline_s"];

/// The metrics of one verdict, after `fault.<i>.` (or `fault.<i>.client.<c>.`, or
/// `fault.<i>.client.<c>.op.<o>.`), in order: only for a judged episode.
pub const VERDICT_METRICS: [&str; 5] = [
    "goodput_before_rps",
    "goodput_during_rps",
    "goodput_after_rps",
    "recovered",
    "recovery_s",
];

/// `step.<label>.taken`: how often a step with a `p` made its calls.
pub fn step_taken(label: &str) -> String {
    format!("step.{label}.taken")
}

/// `step.<label>.skipped`: how often a step with a `p` was skipped.
pub fn step_skipped(label: &str) -> String {
    format!("step.{label}.skipped")
}

/// `step.<label>.option.<k>`: how often option `k` of a `choose` step was drawn.
pub fn step_option(label: &str, k: impl Display) -> String {
    format!("step.{label}.option.{k}")
}

/// `errors.<kind>` for a failure kind.
pub fn error_metric(o: Outcome) -> &'static str {
    match o {
        Outcome::Ok => "errors.ok",
        Outcome::Degraded => "errors.degraded",
        Outcome::Timeout => "errors.timeout",
        Outcome::DeadlineExceeded => "errors.deadline_exceeded",
        Outcome::Unavailable => "errors.unavailable",
        Outcome::Overloaded => "errors.overloaded",
        Outcome::Internal => "errors.internal",
        Outcome::Invalid => "errors.invalid",
        Outcome::Refused => "errors.refused",
        Outcome::BreakerOpen => "errors.breaker_open",
        Outcome::BulkheadFull => "errors.bulkhead_full",
        Outcome::Throttled => "errors.throttled",
        Outcome::Shed => "errors.shed",
        Outcome::Limited => "errors.limited",
        Outcome::RateLimited => "errors.rate_limited",
    }
}

/// `shed.<class>`: arrivals shed per criticality class, critical_plus first
/// (`ServiceAcc::shed`'s order).
pub const SHED_METRICS: [&str; 4] = [
    "shed.critical_plus",
    "shed.critical",
    "shed.sheddable_plus",
    "shed.sheddable",
];

/// The kinds of health probe, in `Orchestration::probes`' order.
pub const PROBE_KINDS: [&str; 3] = ["liveness", "readiness", "startup"];

/// `probes.<kind>`: probes of a kind sent.
pub fn probes(kind: &str) -> String {
    format!("probes.{kind}")
}

/// `probe_failures.<kind>`: probes of a kind failed.
pub fn probe_failures(kind: &str) -> String {
    format!("probe_failures.{kind}")
}

#[cfg(test)]
mod tests {
    //! The names composed here, with the catalogue's placeholders as values, are the
    //! catalogue's own patterns: the documentation and the emitter spell each name alike.

    use super::*;
    use crate::metrics::catalogue::{CATALOGUE, matches};

    fn documented(name: &str) {
        assert!(
            CATALOGUE.iter().any(|d| d.pattern == name),
            "`{name}` is composed but no catalogue entry has that pattern"
        );
    }

    fn matched(name: &str) {
        assert!(
            CATALOGUE.iter().any(|d| matches(d.pattern, name)),
            "`{name}` is composed but no catalogue entry describes it"
        );
    }

    #[test]
    fn in_flight_and_pools_are_named_as_the_catalogue_names_them() {
        for prefix in [client("<c>"), service("<s>"), edge("<from>.<to>")] {
            documented(&metric(&prefix, IN_FLIGHT_END));
        }
        for kind in ["client", "service"] {
            let placeholder = if kind == "client" { "<c>" } else { "<s>" };
            let p = pool(&caller(kind, placeholder), "<p>");
            for m in POOL_METRICS {
                documented(&metric(&p, m));
            }
        }
    }

    #[test]
    fn parts_and_windows_are_named_as_the_catalogue_names_them() {
        documented(&metric(&client_op("<c>", "<o>"), "<metric>"));
        documented(&metric(&service_op("<s>", "<o>"), "<metric>"));
        documented(&metric(&edge("<from>.<to>.op.<o>"), "<metric>"));
        documented(&window_metric("<w>", "<metric>"));
        for key in [client("<c>"), client_op("<c>", "<o>")] {
            for count in ["passed", "refused"] {
                documented(&metric(&service("<s>"), &rate_key(&key, count)));
            }
        }
        assert_eq!(client_metric("web", "requests"), "client.web.requests");
        assert_eq!(service_metric("db", "served"), "service.db.served");
        assert_eq!(edge_metric("web.api", "calls"), "edge.web.api.calls");
    }

    #[test]
    fn the_run_and_fault_verdicts_are_named_as_the_catalogue_names_them() {
        for m in RUN_METRICS {
            documented(m);
        }
        for m in JUDGED_METRICS.iter().chain(&VERDICT_METRICS) {
            documented(&metric(&fault("<i>"), m));
        }
        for m in VERDICT_METRICS {
            documented(&metric(&fault_part("<i>", &client("<c>")), m));
        }
        documented(&metric(
            &fault_part("<i>", &client_op("<c>", "<o>")),
            "<verdict>",
        ));
    }

    #[test]
    fn alerts_are_named_as_the_catalogue_names_them() {
        for m in ALERT_METRICS {
            documented(&alert_metric("<name>", m));
        }
        documented(&fault_alert_detect("<i>", "<name>"));
        assert_eq!(alert_metric("pager", "fired"), "alert.pager.fired");
        assert_eq!(
            fault_alert_detect(2, "pager"),
            "fault.2.alert.pager.detect_s"
        );
    }

    #[test]
    fn the_suffixes_composed_with_values_are_described_by_the_catalogue() {
        let s = service("<s>");
        documented(&metric(&s, &step_taken("<step>")));
        documented(&metric(&s, &step_skipped("<step>")));
        documented(&metric(&s, &step_option("<step>", "<k>")));
        for kind in PROBE_KINDS {
            matched(&metric(&service("db"), &probes(kind)));
            matched(&metric(&service("db"), &probe_failures(kind)));
        }
        for m in SHED_METRICS {
            matched(&metric(&service("db"), m));
        }
        for o in Outcome::failures() {
            // The tables after a run name a kind as `Outcome::name` does.
            assert_eq!(error_metric(*o), format!("errors.{}", o.name()));
            for prefix in [client("web"), service("db"), edge("web.db")] {
                matched(&metric(&prefix, error_metric(*o)));
            }
        }
    }

    #[test]
    fn write_metric_reuses_its_buffer() {
        let mut buf = String::from("left over");
        write_metric(&mut buf, "client.web", "success");
        assert_eq!(buf, "client.web.success");
        assert_eq!(metric("edge.a.b", "calls"), "edge.a.b.calls");
    }
}
