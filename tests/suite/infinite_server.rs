//! `workers = "unbounded"` against the infinite-server station's closed forms: M/M/∞ holds
//! λ/μ requests on average, Poisson(λ/μ) distributed; M/D/∞ answers every request in exactly
//! its work (nobody waits); and the same scenario cut to one worker is M/D/1, whose wait
//! Pollaczek–Khinchine gives, so the unbounded numbers are not the engine ignoring the
//! queue altogether.
//!
//! Tolerances come from the run length. The number in system of M/M/∞ decorrelates as
//! e^(−μt), so a time average over T has a standard error of about √(2·Var·(1/μ)/T): for
//! λ/μ = 3 over 200 s, √(2·3·0.001/200) = 0.0055, 0.2% of 3; 1% is about 5 errors.

use crate::support::*;

/// One open client into one service with `work`, with `workers` as written.
fn station(rate: f64, workers: &str, work: &str, duration_s: u64, seed: u64) -> String {
    format!(
        r#"
[scenario]
name = "infinite-server"
duration = "{duration_s}s"
warmup = "1s"
seed = {seed}

[[client]]
name = "load"
target = "server"
rate = {rate}

[[service]]
name = "server"
workers = {workers}
work = {work}
"#
    )
}

const EXP_1MS: &str = r#"{ dist = "exponential", mean = "1ms" }"#;

#[test]
fn mm_infinity_holds_lambda_over_mu_and_nobody_waits() {
    // λ = 3000/s, μ = 1000/s: L = λ/μ = 3, and the sojourn is the work, 1 ms on average.
    let m = run(&station(3000.0, "\"unbounded\"", EXP_1MS, 200, 1));
    assert_close(
        "M/M/∞ L",
        metric(&m, "service.server.in_system_mean"),
        3.0,
        0.01,
    );
    // 600,000 exponential works of mean 1 ms: their mean's standard error is 0.13%.
    assert_close(
        "M/M/∞ sojourn",
        metric(&m, "service.server.sojourn_mean_ms"),
        1.0,
        0.01,
    );
    assert_eq!(metric(&m, "service.server.wait_mean_ms"), 0.0);
    assert_eq!(metric(&m, "service.server.wait_p99_ms"), 0.0);
    assert_eq!(metric(&m, "service.server.queue_mean"), 0.0);
    // Busy over infinitely many workers measures nothing: not emitted at all.
    assert_eq!(m.get("service.server.utilization"), None);
}

/// The time-average share of [from, to) that `service.server` held k jobs, from a trace's
/// rows: a job arrives at `attempt` and leaves at `reply`.
fn occupancy(rows: &[Vec<String>], from: u64, to: u64) -> Vec<f64> {
    let mut shares = vec![0.0; 64];
    let (mut n, mut last) = (0_usize, from);
    for r in rows.iter().filter(|r| r[3] == "service.server#0") {
        let delta: i64 = match r[4].as_str() {
            "attempt" => 1,
            "reply" => -1,
            _ => continue,
        };
        let t: u64 = r[0].parse().unwrap();
        if t > to {
            break;
        }
        if t > from {
            shares[n.min(63)] += (t - last) as f64;
            last = t;
        }
        n = (n as i64 + delta) as usize;
    }
    shares[n.min(63)] += (to - last) as f64;
    shares.iter().map(|s| s / (to - from) as f64).collect()
}

#[test]
fn mm_infinity_occupancy_is_poisson() {
    // Poisson(3): p_k = e^-3 3^k / k!. Over 30 s each share's standard error is about
    // √(2·p(1−p)·(1/μ)/T) ≤ √(2·0.25·0.001/30) = 0.0041 (at p = 1/2, its largest); an
    // absolute 0.02 is about 5 errors, and each p_k of 0..=7 is at least 0.008 apart from
    // its neighbours' mistakes that size (Poisson(2.8) moves p_3 by 0.014).
    let dir = scratch("infinite-server");
    let rows = traced_rows(&dir, &station(3000.0, "\"unbounded\"", EXP_1MS, 30, 2));
    let shares = occupancy(&rows, 1_000_000_000, 31_000_000_000);
    let mut p = (-3.0_f64).exp();
    let (mut mean, mut second) = (0.0, 0.0);
    for (k, share) in shares.iter().enumerate() {
        if k < 8 {
            assert!(
                (share - p).abs() < 0.02,
                "P(N = {k}): got {share:.4}, Poisson(3) has {p:.4}"
            );
        }
        mean += k as f64 * share;
        second += (k * k) as f64 * share;
        p *= 3.0 / (k + 1) as f64;
    }
    // A Poisson's variance is its mean: a queue would make it larger, a cap smaller.
    assert_close("occupancy mean", mean, 3.0, 0.03);
    assert_close("occupancy variance", second - mean * mean, 3.0, 0.06);
}

#[test]
fn md_infinity_answers_in_exactly_the_work() {
    let m = run(&station(3000.0, "\"unbounded\"", "\"2ms\"", 60, 3));
    assert_eq!(metric(&m, "service.server.sojourn_mean_ms"), 2.0);
    assert_eq!(metric(&m, "service.server.wait_mean_ms"), 0.0);
    assert_eq!(metric(&m, "client.load.latency_max_ms"), 2.0);
    // M/D/∞'s L is λ·S = 6 exactly in expectation; the arrivals' count carries the error
    // (Poisson: 0.07% over 180,000 of them).
    assert_close(
        "M/D/∞ L",
        metric(&m, "service.server.in_system_mean"),
        6.0,
        0.01,
    );
}

#[test]
fn the_same_station_cut_to_one_worker_waits_as_pollaczek_khinchine_says() {
    // M/D/1 at λ = 250/s, S = 2 ms: ρ = 0.5, Wq = ρS / (2(1 − ρ)) = 1 ms, sojourn 3 ms.
    // 500,000 requests at ρ = 0.5 hold the mean wait within about 1% (the M/G/1 tests of
    // queueing.rs hold 3% at ρ = 0.8 over similar counts).
    let unbounded = run(&station(250.0, "\"unbounded\"", "\"2ms\"", 2000, 4));
    let one = run(&station(250.0, "1", "\"2ms\"", 2000, 4));
    assert_eq!(metric(&unbounded, "service.server.sojourn_mean_ms"), 2.0);
    assert_close(
        "M/D/1 wait",
        metric(&one, "service.server.wait_mean_ms"),
        1.0,
        0.03,
    );
    assert_close(
        "M/D/1 sojourn",
        metric(&one, "service.server.sojourn_mean_ms"),
        3.0,
        0.01,
    );
    assert_close(
        "M/D/1 utilization",
        metric(&one, "service.server.utilization"),
        0.5,
        0.01,
    );
}

/// What needs a finite worker count is refused at its field, not simulated as a number.
#[test]
fn what_needs_a_worker_count_is_refused_at_its_field() {
    let base = station(100.0, "\"unbounded\"", "\"2ms\"", 10, 1);
    let cases = [
        (
            "\n[[fault]]\nkind = \"capacity\"\ntarget = \"server#0\"\nshare = 0.5\nstart = \"2s\"\nend = \"3s\"\n",
            "fault.0.kind",
            "a capacity fault removes workers",
        ),
        (
            "instances = 2\nautoscale = { max = 4, target = 0.5 }\n",
            "service.server.autoscale.metric",
            "scale on `in_flight` instead",
        ),
        (
            "\n[[expect]]\nmetric = \"service.server.utilization\"\nop = \"<\"\nvalue = 0.5\n",
            "expect.0.metric",
            "so no utilization",
        ),
    ];
    for (added, field, why) in cases {
        let e = cascade::scenario::load_str("test.toml", &(base.clone() + added), &[])
            .err()
            .unwrap_or_else(|| panic!("accepted: {added}"))
            .to_string();
        assert!(e.contains(field) && e.contains(why), "{added}: {e}");
    }
    // Scaling on what is in flight, or gating the time in system, is fine.
    let fine = base.clone()
        + "instances = 2\nautoscale = { metric = \"in_flight\", max = 4, target = 5 }\n"
        + "\n[[expect]]\nmetric = \"service.server.sojourn_mean_ms\"\nop = \"<\"\nvalue = 3\n";
    assert!(cascade::scenario::load_str("test.toml", &fine, &[]).is_ok());
}
