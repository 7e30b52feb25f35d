//! Every policy, fault and service setting in one scenario, over several seeds: the run must
//! finish, and every client's and edge's outcomes must add up.

use crate::support::metric;

#[test]
fn every_feature_at_once_runs_and_its_counts_add_up() {
    for seed in 1..=4 {
        let seed_override = cascade::scenario::Override {
            path: "scenario.seed".into(),
            value: seed.to_string(),
        };
        let model = cascade::scenario::load(
            std::path::Path::new("scenarios/all-features.toml"),
            &[seed_override],
        )
        .unwrap()
        .model;
        let m = cascade::simulate(&model).unwrap().metrics;
        for prefix in [
            "client.web",
            "client.batch",
            "client.app",
            "client.app.op.search",
            "edge.shop.index",
            "edge.gw.auth",
            "edge.gw.db",
            "edge.gw.reco",
            "edge.gw.events",
        ] {
            let started = if prefix.starts_with("client") {
                metric(&m, &format!("{prefix}.requests"))
            } else {
                metric(&m, &format!("{prefix}.calls"))
            };
            let errors: f64 = cascade::model::Outcome::failures()
                .iter()
                .map(|o| metric(&m, &format!("{prefix}.errors.{}", o.name())))
                .sum();
            let ended = metric(&m, &format!("{prefix}.success")) + errors;
            // Ended within a few hundred of those started: some straddle the warm-up or the end.
            assert!(
                (ended - started).abs() <= 0.02 * started + 300.0,
                "seed {seed} {prefix}: {ended} vs {started}"
            );
        }
        assert!(metric(&m, "client.web.success_ratio") > 0.5, "seed {seed}");
        assert!(
            metric(&m, "edge.gw.reco.fallbacks") > 0.0 && metric(&m, "edge.gw.auth.hedges") > 0.0
        );
        // The blackholed auth instance is ejected; the three gateways' Gradient2 limits stay in
        // [min, max] = [20, 200] each.
        assert!(metric(&m, "service.auth.ejections") >= 1.0, "seed {seed}");
        // reco's step with p = 0.3 calls the cache once for each time its draw said yes (a
        // bare call: no retry, no hedge), counted in the same instant and so the same bucket.
        let taken = metric(&m, "service.reco.step.warm.taken");
        let reached = taken + metric(&m, "service.reco.step.warm.skipped");
        assert_eq!(metric(&m, "edge.reco.cache.calls"), taken, "seed {seed}");
        assert!(
            (taken - 0.3 * reached).abs() <= 4.0 * (reached * 0.3 * 0.7).sqrt(),
            "seed {seed}: {taken} of {reached}"
        );
        // The stall freezes reco#1 for 4 s: its out-of-band probes go unanswered, readiness
        // takes it out of rotation and liveness restarts it. index's load outgrows its one
        // instance's in-flight target: the autoscaler adds one behind a startup probe.
        assert!(metric(&m, "service.reco.restarts") >= 1.0, "seed {seed}");
        assert!(metric(&m, "service.reco.not_ready_s") > 0.0, "seed {seed}");
        assert!(metric(&m, "service.index.scale_ups") >= 1.0, "seed {seed}");
        assert!(
            metric(&m, "service.index.probes.startup") >= 1.0,
            "seed {seed}"
        );
        assert!(
            metric(&m, "service.index.instances_mean") > 1.0,
            "seed {seed}"
        );
        let reco_limit = metric(&m, "edge.gw.reco.limit_mean");
        assert!(
            (3.0 * 20.0..=3.0 * 200.0).contains(&reco_limit),
            "seed {seed}"
        );
    }
}

#[test]
fn every_count_balances_at_every_client_service_and_edge() {
    // Without a warm-up every request is counted from its start: what started is what ended,
    // one way or another, plus what is still in flight at the end.
    let model = cascade::scenario::load(
        std::path::Path::new("scenarios/all-features.toml"),
        &[cascade::scenario::Override {
            path: "scenario.warmup".into(),
            value: "\"0s\"".into(),
        }],
    )
    .unwrap()
    .model;
    let m = cascade::simulate(&model).unwrap().metrics;
    crate::support::assert_counts_balance(&model, &m);
}
