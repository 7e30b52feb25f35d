//! The engine against queueing theory: M/M/1, M/M/c (Erlang C), M/G/1 (Pollaczek-Khinchine),
//! M/M/c/c (Erlang B), M/M/1/K, M/M/1 with deadlines and drop_expired, and Little's law.
//! Runs are long (about a million requests or more) so tolerances of a few percent catch an
//! off-by-one in the queue.

use crate::support::*;

const EXP_1MS: &str = r#"{ dist = "exponential", mean = "1ms" }"#;

#[test]
fn mm1_sojourn_wait_number_in_system_and_utilization() {
    // (lambda per s, mu per s, seconds, seed)
    for (lambda, mu, secs, seed) in [
        (500.0, 1000.0, 2000, 1),
        (800.0, 1000.0, 3000, 2),
        (250.0, 500.0, 4000, 3),
    ] {
        let work = format!(r#"{{ dist = "exponential", mean = "{}ms" }}"#, 1000.0 / mu);
        let m = run(&single_queue(lambda, 1, None, &work, secs, seed));
        let rho = lambda / mu;
        let w_ms = 1000.0 / (mu - lambda);
        let label = format!("M/M/1 rho={rho}");
        assert_close(
            &format!("{label} sojourn"),
            metric(&m, "service.server.sojourn_mean_ms"),
            w_ms,
            0.03,
        );
        assert_close(
            &format!("{label} wait"),
            metric(&m, "service.server.wait_mean_ms"),
            rho * w_ms,
            0.03,
        );
        assert_close(
            &format!("{label} L"),
            metric(&m, "service.server.in_system_mean"),
            rho / (1.0 - rho),
            0.03,
        );
        assert_close(
            &format!("{label} Lq"),
            metric(&m, "service.server.queue_mean"),
            rho * rho / (1.0 - rho),
            0.04,
        );
        assert_close(
            &format!("{label} utilization"),
            metric(&m, "service.server.utilization"),
            rho,
            0.01,
        );
        assert_close(
            &format!("{label} throughput"),
            metric(&m, "service.server.throughput_rps"),
            lambda,
            0.01,
        );
        // The client sees the sojourn too (no network latency, no deadline).
        assert_close(
            &format!("{label} client mean"),
            metric(&m, "client.load.latency_mean_ms"),
            w_ms,
            0.03,
        );
        // Sojourn in M/M/1 is exponential with rate mu - lambda: its median is ln 2 / (mu - lambda).
        let median = std::f64::consts::LN_2 * w_ms;
        assert_close(
            &format!("{label} client p50"),
            metric(&m, "client.load.latency_p50_ms"),
            median,
            0.03,
        );
        let p99 = (100.0f64).ln() * w_ms;
        assert_close(
            &format!("{label} client p99"),
            metric(&m, "client.load.latency_p99_ms"),
            p99,
            0.04,
        );
    }
}

/// Erlang C: the probability that an arrival waits in M/M/c with offered load a = lambda/mu.
pub(crate) fn erlang_c(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..c {
        term *= a / k as f64;
        sum += term;
    }
    let top = term * a / c as f64 * (c as f64 / (c as f64 - a));
    top / (sum + top)
}

#[test]
fn mmc_mean_wait_matches_erlang_c() {
    for (lambda, c, secs, seed) in [
        (9000.0, 10, 300, 1),
        (3000.0, 4, 600, 2),
        (1500.0, 2, 1000, 3),
    ] {
        let m = run(&single_queue(lambda, c, None, EXP_1MS, secs, seed));
        let a = lambda / 1000.0;
        let wq_ms = erlang_c(c, a) / (c as f64 * 1000.0 - lambda) * 1000.0;
        assert_close(
            &format!("M/M/{c} lambda={lambda} wait"),
            metric(&m, "service.server.wait_mean_ms"),
            wq_ms,
            0.03,
        );
        assert_close(
            &format!("M/M/{c} utilization"),
            metric(&m, "service.server.utilization"),
            a / c as f64,
            0.01,
        );
    }
    // A hand-checked value: C(2, 1.5) = 0.6428...
    assert!((erlang_c(2, 1.5) - 0.642_857).abs() < 1e-5);
}

/// Pollaczek-Khinchine: Wq = lambda E[S^2] / (2 (1 - rho)).
pub(crate) fn pk_wait_ms(lambda_per_ms: f64, es_ms: f64, es2_ms2: f64) -> f64 {
    let rho = lambda_per_ms * es_ms;
    lambda_per_ms * es2_ms2 / (2.0 * (1.0 - rho))
}

#[test]
fn md1_and_mg1_mean_wait_match_pollaczek_khinchine() {
    // M/D/1 at two loads.
    for (lambda, seed) in [(700.0, 1), (900.0, 2)] {
        let m = run(&single_queue(lambda, 1, None, r#""1ms""#, 2000, seed));
        let want = pk_wait_ms(lambda / 1000.0, 1.0, 1.0);
        assert_close(
            &format!("M/D/1 lambda={lambda}"),
            metric(&m, "service.server.wait_mean_ms"),
            want,
            0.03,
        );
    }
    // M/G/1, uniform service on [0.5, 1.5] ms: E[S^2] = 1 + 1/12 ms^2.
    let m = run(&single_queue(
        800.0,
        1,
        None,
        r#"{ dist = "uniform", min = "0.5ms", max = "1.5ms" }"#,
        2000,
        3,
    ));
    let want = pk_wait_ms(0.8, 1.0, 1.0 + 1.0 / 12.0);
    assert_close(
        "M/G/1 uniform",
        metric(&m, "service.server.wait_mean_ms"),
        want,
        0.03,
    );
    // M/G/1, a two-point mixture (90% 0.5 ms, 10% 5.5 ms): E[S] = 1 ms, E[S^2] = 3.25 ms^2.
    let mix = r#"{ dist = "mixture", of = [ { weight = 0.9, dist = "constant", value = "0.5ms" }, { weight = 0.1, dist = "constant", value = "5.5ms" } ] }"#;
    let m = run(&single_queue(600.0, 1, None, mix, 3000, 4));
    let want = pk_wait_ms(0.6, 1.0, 3.25);
    assert_close(
        "M/G/1 mixture",
        metric(&m, "service.server.wait_mean_ms"),
        want,
        0.04,
    );
}

/// Erlang B: blocking probability of M/M/c/c.
fn erlang_b(c: u32, a: f64) -> f64 {
    (1..=c).fold(1.0, |b, k| a * b / (k as f64 + a * b))
}

fn blocking(m: &cascade::metrics::RunMetrics) -> f64 {
    metric(m, "service.server.rejected") / metric(m, "service.server.arrivals")
}

#[test]
fn mmcc_blocking_matches_erlang_b() {
    assert!(
        (erlang_b(5, 4.0) - 0.199_067).abs() < 1e-5,
        "hand-computed B(5, 4)"
    );
    for (lambda, c, seed) in [(4000.0, 5, 1), (8000.0, 10, 2), (1000.0, 2, 3)] {
        let m = run(&single_queue(lambda, c, Some(0), EXP_1MS, 300, seed));
        let want = erlang_b(c, lambda / 1000.0);
        assert_close(
            &format!("Erlang B c={c} lambda={lambda}"),
            blocking(&m),
            want,
            0.02,
        );
        // Rejections are answered at once as overloaded, and count as the client's errors.
        assert_eq!(
            metric(&m, "service.server.rejected"),
            metric(&m, "client.load.errors.overloaded")
        );
    }
}

#[test]
fn mm1k_blocking_matches_closed_form() {
    // K = capacity in system = 1 worker + (K - 1) queue places.
    for (lambda, k, seed) in [(900.0, 5u64, 1), (1200.0, 3, 2), (500.0, 4, 3)] {
        let m = run(&single_queue(lambda, 1, Some(k - 1), EXP_1MS, 1000, seed));
        let rho: f64 = lambda / 1000.0;
        let want = (1.0 - rho) * rho.powi(k as i32) / (1.0 - rho.powi(k as i32 + 1));
        assert_close(&format!("M/M/1/{k} rho={rho}"), blocking(&m), want, 0.02);
    }
}

#[test]
fn mm1_with_deadline_and_drop_expired_matches_closed_form() {
    // A customer still queued when its deadline tau passes is skipped unserved.
    for (lambda, mu, tau_ms, seed) in [
        (900.0f64, 1000.0f64, 5.0f64, 1),
        (1000.0, 1000.0, 4.0, 2),
        (1200.0, 1000.0, 3.0, 3),
    ] {
        let toml = format!(
            r#"
[scenario]
name = "impatient"
duration = "1000s"
warmup = "10s"
seed = {seed}

[[client]]
name = "load"
target = "server"
rate = {lambda}
deadline = "{tau_ms}ms"

[[service]]
name = "server"
workers = 1
drop_expired = true
work = {{ dist = "exponential", mean = "{}ms" }}
"#,
            1000.0 / mu
        );
        let m = run(&toml);
        let (l, u, tau) = (lambda / 1000.0, mu / 1000.0, tau_ms);
        let rho = l / u;
        let delta = u - l;
        let decay = if delta.abs() < 1e-12 {
            1.0
        } else {
            (-delta * tau).exp()
        };
        let growth = if delta.abs() < 1e-12 {
            l * tau
        } else {
            l * (1.0 - decay) / delta
        };
        let pi0 = 1.0 / (1.0 + growth + rho * decay);
        let want = rho * pi0 * decay;
        let got =
            metric(&m, "service.server.dropped_expired") / metric(&m, "service.server.arrivals");
        assert_close(
            &format!("drop share lambda={lambda} tau={tau_ms}ms"),
            got,
            want,
            0.03,
        );
    }
}

#[test]
fn littles_law_holds_for_every_service_of_a_layered_scenario() {
    let toml = r#"
[scenario]
name = "layers"
duration = "300s"
warmup = "10s"
seed = 9

[[client]]
name = "web"
target = "gateway"
rate = 400

[[client]]
name = "batch"
target = "orders"
arrival = "closed"
users = 20
think = { dist = "exponential", mean = "50ms" }

[[service]]
name = "gateway"
instances = 2
workers = 20
work = { dist = "lognormal", median = "1ms", p99 = "6ms" }
calls = [ { to = "auth", latency = "200us" }, { parallel = [ { to = "orders" }, { to = "catalog", optional = true } ] } ]

[[service]]
name = "auth"
instances = 2
workers = 4
balancer = "least_outstanding"
work = { dist = "exponential", mean = "1ms" }

[[service]]
name = "orders"
instances = 3
workers = 8
balancer = "power_of_two"
work = { dist = "gamma", shape = 2.0, mean = "2ms" }
calls = [ { to = "db" } ]

[[service]]
name = "catalog"
workers = 8
work = { dist = "weibull", shape = 1.5, scale = "3ms" }

[[service]]
name = "db"
instances = 2
workers = 6
balancer = "random"
discipline = "lifo"
work = { dist = "exponential", mean = "1.5ms" }
"#;
    let m = run(toml);
    for s in ["gateway", "auth", "orders", "catalog", "db"] {
        let l = metric(&m, &format!("service.{s}.in_system_mean"));
        let lambda = metric(&m, &format!("service.{s}.throughput_rps"));
        let w = metric(&m, &format!("service.{s}.sojourn_mean_ms")) / 1000.0;
        assert!(lambda > 50.0, "{s} carries traffic");
        assert_close(&format!("Little's law at {s}"), l, lambda * w, 0.02);
    }
    // Every gateway request makes one call to auth, orders and catalog each.
    let gw = metric(&m, "service.gateway.arrivals");
    assert_close(
        "auth calls",
        metric(&m, "edge.gateway.auth.calls"),
        gw,
        0.01,
    );
    assert_close(
        "catalog calls",
        metric(&m, "edge.gateway.catalog.calls"),
        gw,
        0.01,
    );
}
