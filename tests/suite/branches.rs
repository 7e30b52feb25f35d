//! Steps made with a probability (`p` on a step of a service's `calls`): binomial counts,
//! the exact cases p = 0 and p = 1, and draws that move no other draw of the run. A scenario
//! without any `p` stays byte-identical: the golden files of `tests/golden/` (run, sweep,
//! check, report) are unchanged by the feature.

use crate::support::*;

pub(crate) fn scenario(seed: u64, api_calls: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "branches"
duration = "10s"
seed = {seed}

[[client]]
name = "web"
target = "api"
arrival = "constant"
rate = 1000

[[service]]
name = "api"
workers = 4
calls = [ {api_calls} ]

[[service]]
name = "cache"
workers = 4

[[service]]
name = "db"
workers = 4
{extra}
"#
    )
}

#[test]
fn a_step_with_p_0_3_is_taken_binomially_and_its_callee_sees_exactly_the_taken_calls() {
    // A cache-aside read: always the cache, then the database with p = 0.3. Every job whose
    // cache call succeeded reaches the second step (work and latency are zero, so none is
    // left in flight between the two). Over n = 9,999 jobs (1000/s for 10 s, constant
    // arrivals) the taken count is Binomial(n, 0.3): mean 0.3 n = 2999.7, standard deviation
    // sqrt(n 0.3 0.7) = 45.8; 4 of them is 183.
    for seed in 1..=3 {
        let m = run(&scenario(
            seed,
            r#"{ to = "cache" }, { to = "db", p = 0.3, name = "miss" }"#,
            "",
        ));
        let reached = metric(&m, "edge.api.cache.success");
        // 9,999: the constant arrivals start one gap in, so the one at 10 s is past the end.
        assert_eq!(metric(&m, "client.web.requests"), 9_999.0);
        assert_eq!(reached, 9_999.0, "seed {seed}");
        let taken = metric(&m, "service.api.step.miss.taken");
        let skipped = metric(&m, "service.api.step.miss.skipped");
        assert_eq!(taken + skipped, reached, "seed {seed}");
        let (mean, sd) = (0.3 * reached, (reached * 0.3 * 0.7).sqrt());
        assert!(
            (taken - mean).abs() <= 4.0 * sd,
            "seed {seed}: taken {taken}, binomial mean {mean} ± 4 × {sd:.1}"
        );
        // The time series carries them too, and with no warm-up its buckets add up to the
        // summary.
        let per_bucket = m.series_of("service.api.step.miss.taken").unwrap();
        assert_eq!(per_bucket.len(), 10);
        assert_eq!(per_bucket.iter().sum::<f64>(), taken, "seed {seed}");
        // A skipped step calls nobody: the database sees the taken ones and no more.
        assert_eq!(metric(&m, "edge.api.db.calls"), taken, "seed {seed}");
        assert_eq!(metric(&m, "service.db.arrivals"), taken, "seed {seed}");
    }
}

#[test]
fn p_0_never_calls_and_p_1_always_calls() {
    let m = run(&scenario(
        1,
        r#"{ to = "db", p = 0 }, { parallel = [ { to = "cache" }, { to = "db" } ], p = 1 }"#,
        "",
    ));
    let jobs = metric(&m, "service.api.arrivals");
    assert_eq!(jobs, 9_999.0);
    assert_eq!(metric(&m, "service.api.step.0.taken"), 0.0);
    assert_eq!(metric(&m, "service.api.step.0.skipped"), jobs);
    assert_eq!(metric(&m, "service.api.step.1.taken"), jobs);
    assert_eq!(metric(&m, "service.api.step.1.skipped"), 0.0);
    // The whole parallel step is made: one call to each of its two callees per job.
    assert_eq!(metric(&m, "edge.api.cache.calls"), jobs);
    assert_eq!(metric(&m, "edge.api.db.calls"), jobs);
}

#[test]
fn p_1_runs_exactly_as_the_step_without_p() {
    // With exponential work the run draws, so any shifted draw would show in a latency.
    let work = r#"work = { dist = "exponential", mean = "3ms" }"#;
    let plain = run(&scenario(5, r#"{ to = "db" }"#, work));
    let always = run(&scenario(5, r#"{ to = "db", p = 1 }"#, work));
    let without_steps: Vec<&(String, f64)> = always
        .summary
        .iter()
        .filter(|(n, _)| !n.contains(".step."))
        .collect();
    assert_eq!(without_steps.len(), plain.summary.len());
    for ((a, x), (b, y)) in without_steps
        .iter()
        .map(|p| (&p.0, p.1))
        .zip(&plain.summary)
    {
        assert_eq!((a, x.to_bits()), (b, y.to_bits()), "{a}");
    }
    assert_eq!(
        metric(&always, "service.api.step.0.taken"),
        metric(&plain, "service.api.arrivals")
    );
}

#[test]
fn a_p_step_moves_no_other_draw() {
    // The client's arrivals are Poisson and the database's work exponential: both draw. A
    // step with p = 0.5 after the database call changes neither: the client sends the same
    // requests in every bucket, and the database sees the same arrivals at the same times
    // and draws the same work, so its latency metrics agree to the bit.
    let base = |calls: &str| {
        scenario(7, calls, r#"work = { dist = "exponential", mean = "3ms" }"#)
            .replace("arrival = \"constant\"\n", "")
    };
    let before = run(&base(r#"{ to = "db" }"#));
    let after = run(&base(r#"{ to = "db" }, { to = "cache", p = 0.5 }"#));
    assert!(metric(&after, "service.api.step.1.taken") > 0.0);
    assert_eq!(
        before.series_of("client.web.requests"),
        after.series_of("client.web.requests")
    );
    for name in [
        "client.web.requests",
        "service.db.arrivals",
        "service.db.sojourn_mean_ms",
        "service.db.wait_mean_ms",
        "edge.api.db.call_latency_mean_ms",
    ] {
        assert_eq!(
            metric(&before, name).to_bits(),
            metric(&after, name).to_bits(),
            "{name}"
        );
    }
}

#[test]
fn a_named_step_keeps_its_draws_when_a_step_is_inserted_before_it() {
    // The stream of a named step is keyed by its name, not its index: a step inserted before
    // it (here one that costs no time, so every job reaches `miss` at the same instant as
    // before) leaves its draws, and so its counts, as they were.
    let miss = r#"{ to = "db", p = 0.3, name = "miss" }"#;
    let alone = run(&scenario(2, miss, ""));
    let inserted = run(&scenario(
        2,
        &format!(r#"{{ to = "cache", p = 0.5 }}, {miss}"#),
        "",
    ));
    for name in ["service.api.step.miss.taken", "service.db.arrivals"] {
        assert_eq!(metric(&alone, name), metric(&inserted, name), "{name}");
    }
    assert!(metric(&inserted, "service.api.step.0.taken") > 0.0);
}

#[test]
fn a_job_whose_earlier_call_failed_never_reaches_the_step() {
    // Every call to the cache fails (an errors fault at rate 1): the job ends at the first
    // step, so the second neither draws nor counts.
    let text = scenario(1, r#"{ to = "cache" }, { to = "db", p = 0.5 }"#, "")
        + "\n[[fault]]\nkind = \"errors\"\ntarget = \"cache\"\nrate = 1.0\n";
    let m = run(&text);
    let failed: f64 = cascade::model::Outcome::failures()
        .iter()
        .map(|o| metric(&m, &format!("edge.api.cache.errors.{}", o.name())))
        .sum();
    assert_eq!(failed, 9_999.0);
    assert_eq!(metric(&m, "service.api.step.1.taken"), 0.0);
    assert_eq!(metric(&m, "service.api.step.1.skipped"), 0.0);
    assert_eq!(metric(&m, "edge.api.db.calls"), 0.0);
}

#[test]
fn a_scenario_without_p_has_no_branches_and_no_step_metrics() {
    let (model, m) = run_model(&scenario(1, r#"{ to = "cache" }, { to = "db" }"#, ""));
    assert!(model.services.iter().all(|s| s.plan.branches.is_empty()));
    assert!(m.summary.iter().all(|(n, _)| !n.contains(".step.")));
    assert!(m.names.iter().all(|n| !n.contains(".step.")));
}

/// The cache-aside step of `api` (a miss 5% of the time) with a `branch` fault's keys.
fn cold_cache(fault: &str) -> String {
    scenario(
        21,
        r#"{ to = "cache" }, { to = "db", p = 0.05, name = "miss" }"#,
        &format!("\n[[fault]]\nkind = \"branch\"\ntarget = \"api\"\nstep = \"miss\"\n{fault}\n"),
    )
}

#[test]
fn a_branch_fault_sends_every_request_down_the_step_while_it_is_full() {
    // A flushed cache: every read misses from 2 s to 4 s (2,000 requests at 1,000/s).
    let m = run(&cold_cache("p = 1\nstart = \"2s\"\nend = \"4s\""));
    let during = metric(&m, "fault.0.goodput_during_rps");
    assert!(during > 900.0, "{during}");
    let series = m.series_of("edge.api.db.calls").unwrap();
    // Buckets of 1 s: buckets 2 and 3 are the fault's, every request calls the database.
    let requests = m.series_of("client.web.requests").unwrap();
    for b in [2, 3] {
        assert_eq!(series[b], requests[b], "bucket {b}");
    }
    // Outside it, the 5% of before: binomial around 50 per bucket.
    for b in [0, 1, 5, 6, 7, 8, 9] {
        assert!(
            (series[b] - 50.0).abs() < 4.0 * (1000.0f64 * 0.05 * 0.95).sqrt(),
            "bucket {b}: {}",
            series[b]
        );
    }
}

#[test]
fn a_warming_cache_comes_back_linearly_after_the_fault() {
    // Full misses for 1 s from 2 s, then back to 5% linearly over 4 s: the misses of 3 s to 7 s
    // are 1,000/s x the mean of the ramp, 4,000 x (0.05 + 0.95 / 2) = 2,100.
    let m = run(&cold_cache(
        "p = 1\nstart = \"2s\"\nend = \"3s\"\nwarm = \"4s\"",
    ));
    let series = m.series_of("edge.api.db.calls").unwrap();
    let warming: f64 = series[3..7].iter().sum();
    // Binomial, each call with its own p: the variance is below 4,000 x 0.25.
    assert!(
        (warming - 2100.0).abs() < 4.0 * 1000.0f64.sqrt(),
        "{warming}"
    );
    // The ramp falls: each second of it misses less than the one before.
    assert!(
        series[3] > series[4] && series[4] > series[5] && series[5] > series[6],
        "{series:?}"
    );
    assert!((series[7] - 50.0).abs() < 30.0, "{}", series[7]);
}

#[test]
fn a_branch_fault_that_changes_nothing_moves_no_draw() {
    // A fault that keeps the step's own p: the run is the run without it, draw for draw.
    let with = run(&cold_cache("p = 0.05\nstart = \"2s\"\nend = \"4s\""));
    let without = run(&scenario(
        21,
        r#"{ to = "cache" }, { to = "db", p = 0.05, name = "miss" }"#,
        "",
    ));
    for (name, v) in &without.summary {
        assert_eq!(with.get(name), Some(*v), "{name}");
    }
}

#[test]
fn the_cold_cache_scenario_holds_its_gate_and_fails_it_without_the_retry_budget() {
    let scenario = crate::support::golden::repo().join("scenarios/cold-cache.toml");
    let path = scenario.to_str().unwrap();
    cascade(&["check", path], 0);
    let o = cascade(&["check", path, "--set", "policy.db.retry.budget=1"], 1);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("amplification") && text.contains("1 failed"),
        "{text}"
    );
}

#[test]
fn a_choice_makes_one_weighted_sequence_and_then_goes_on_after_it() {
    // 60% the cache then (half the time) the database, 20% the database alone, 20% nothing;
    // every job then calls the log, whichever option it took.
    let text = scenario(
        31,
        r#"{ to = "cache" }, { name = "route", choose = [
            { weight = 3, calls = [ { to = "db", p = 0.5, name = "miss" }, { to = "cache" } ] },
            { weight = 1, calls = [ { to = "db" } ] },
            { weight = 1 },
        ] }, { to = "db", name = "log" }"#,
        "",
    );
    let (model, m) = run_model(&text);
    assert_counts_balance(&model, &m);
    let n = metric(&m, "client.web.requests");
    let option = |k: usize| metric(&m, &format!("service.api.step.route.option.{k}"));
    assert_eq!(option(0) + option(1) + option(2), n);
    for (k, share) in [(0, 0.6), (1, 0.2), (2, 0.2)] {
        let sd = (n * share * (1.0 - share)).sqrt();
        assert!(
            (option(k) - n * share).abs() < 4.0 * sd,
            "option {k}: {} of {n}",
            option(k)
        );
    }
    // Option 0's steps, in order: its `miss` is reached by exactly the jobs that took it, and
    // its second cache call by all of them (after a miss or not).
    let miss =
        metric(&m, "service.api.step.miss.taken") + metric(&m, "service.api.step.miss.skipped");
    assert_eq!(miss, option(0));
    assert_eq!(metric(&m, "edge.api.cache.calls"), n + option(0));
    // The database: misses, option 1, and every job's last step (`log`).
    assert_eq!(
        metric(&m, "edge.api.db.calls"),
        metric(&m, "service.api.step.miss.taken") + option(1) + n
    );
}
