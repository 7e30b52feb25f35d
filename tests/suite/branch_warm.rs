//! A `branch` fault's warm-up after its `end` (`warm_curve`, `warm_table`): a cold cache that
//! refills exponentially or along a table, held to the curve computed by hand, and every bad
//! value refused at its field. The linear warm-up's own test is in `branches.rs`.

use crate::bad_input::{Case, GOOD};
use crate::branches::scenario;
use crate::support::*;
use cascade::metrics::RunMetrics;

/// `api` reads the cache, then the database on a step `miss` that is never made on its own
/// (p = 0); a `branch` fault makes it every time from 1 s to 2 s, then warms back with `warm`.
/// 1,000 constant arrivals a second, work and latency zero: every job reaches `miss` at its
/// arrival, and each 1 s bucket from the second on holds the arrivals at k + j/1000 s,
/// j = 0..999.
fn refilling(warm: &str) -> RunMetrics {
    run(&scenario(
        5,
        r#"{ to = "cache" }, { to = "db", p = 0, name = "miss" }"#,
        &format!(
            "\n[[fault]]\nkind = \"branch\"\ntarget = \"api\"\nstep = \"miss\"\np = 1\nstart = \"1s\"\nend = \"2s\"\n{warm}\n"
        ),
    ))
}

/// The database calls per 1 s bucket, after checking the arrivals the expectations assume:
/// none missed before the fault (p = 0 draws no miss), all of them during it (p = 1).
fn misses(m: &RunMetrics) -> Vec<f64> {
    let requests = m.series_of("client.web.requests").unwrap();
    assert!(requests[1..].iter().all(|&r| r == 1000.0), "{requests:?}");
    let db = m.series_of("edge.api.db.calls").unwrap();
    assert_eq!((db[0], db[1]), (0.0, 1000.0), "{db:?}");
    db
}

/// Each bucket's misses against its expectation, a sum of independent draws each with its
/// own probability: the variance sum p(1 - p) is at most the mean, so 4 sqrt(mean) (plus one
/// for the bucket's edge: an arrival at exactly k s may fall either side) is at least four
/// standard deviations.
fn assert_binomial(got: f64, mean: f64, what: &str) {
    let band = 4.0 * mean.sqrt() + 1.0;
    assert!(
        (got - mean).abs() <= band,
        "{what}: {got} misses, expected {mean:.1} ± {band:.1}"
    );
}

#[test]
fn an_exponential_warm_up_misses_as_exp_of_minus_time_over_tau_until_the_run_ends() {
    // τ = 2 s. An arrival s seconds after the end misses with probability exp(-s / 2), so
    // bucket k (s = k - 2 + j/1000) expects exp(-(k - 2)/2) · Σ_j r^j with r = exp(-1/2000):
    // (1 - exp(-1/2)) / (1 - r) = 787.1 misses times exp(-(k - 2)/2): 787.1, 477.4, 289.6,
    // 175.6, 106.5, 64.6, 39.2, 23.8 in buckets 2 to 9. A linear warm-up over 2 s would have
    // none from bucket 4 on; the exponential acts to the run's end.
    let m = refilling("warm = \"2s\"\nwarm_curve = \"exponential\"");
    let db = misses(&m);
    let per_bucket = (1.0 - (-0.5f64).exp()) / (1.0 - (-1.0f64 / 2000.0).exp());
    let mut total = 0.0;
    for (k, &got) in db.iter().enumerate().skip(2) {
        let mean = per_bucket * (-((k - 2) as f64) / 2.0).exp();
        assert_binomial(got, mean, &format!("bucket {k}"));
        total += mean;
    }
    assert_binomial(db[2..].iter().sum(), total, "buckets 2 to 9");
    assert!(db[9] > 0.0, "still acting in the last bucket: {db:?}");
}

#[test]
fn a_warm_table_misses_along_its_interpolated_weight_and_not_at_all_after_its_last_point() {
    // Weight 1 at the end, 0.5 at 2 s, 0 at 4 s: w(s) = 1 - s/4 for s in [0, 4). Bucket k
    // expects Σ_j (1 - (k - 2 + j/1000)/4) = 1000 (1 - (k - 2)/4) - 124.875 misses: 875.125,
    // 625.125, 375.125, 125.125 in buckets 2 to 5. From 4 s after the end the weight is 0 and
    // the step's own p = 0 draws no miss: exactly none.
    let m = refilling("warm_table = [ [\"0s\", 1], [\"2s\", 0.5], [\"4s\", 0] ]");
    let db = misses(&m);
    for (k, mean) in [(2, 875.125), (3, 625.125), (4, 375.125), (5, 125.125)] {
        assert_binomial(db[k], mean, &format!("bucket {k}"));
    }
    assert_eq!(&db[6..], &[0.0; 4], "{db:?}");
    // A table with a bend: weight 1 to 0.2 over the first second, then 0.2 to 0 over the
    // next three. Bucket 2 expects Σ_j (1 - 0.8 j/1000) = 600.4; bucket 3 Σ_j 0.2 (1 - j/3000)
    // = 166.7, bucket 4 100.0 and bucket 5 33.4.
    let m = refilling("warm_table = [ [\"0s\", 1], [\"1s\", 0.2], [\"4s\", 0] ]");
    let db = misses(&m);
    for (k, mean) in [(2, 600.4), (3, 166.7), (4, 100.0), (5, 33.4)] {
        assert_binomial(db[k], mean, &format!("bucket {k}"));
    }
    assert_eq!(&db[6..], &[0.0; 4], "{db:?}");
}

#[test]
fn a_linear_warm_curve_is_the_default_draw_for_draw() {
    let cold = |curve: &str| {
        scenario(
            21,
            r#"{ to = "cache" }, { to = "db", p = 0.05, name = "miss" }"#,
            &format!(
                "\n[[fault]]\nkind = \"branch\"\ntarget = \"api\"\nstep = \"miss\"\np = 1\nstart = \"2s\"\nend = \"3s\"\nwarm = \"4s\"\n{curve}\n"
            ),
        )
    };
    let (default, linear) = (run(&cold("")), run(&cold("warm_curve = \"linear\"")));
    assert_eq!(default.summary, linear.summary);
    assert_eq!(
        default.series_of("edge.api.db.calls"),
        linear.series_of("edge.api.db.calls")
    );
}

#[test]
fn warm_curves_and_tables_are_checked() {
    let c = Case::new("branch-warm");
    let text = GOOD.replace(
        "calls = [ { to = \"db\", policy = \"db-client\" } ]",
        "calls = [ { to = \"db\", policy = \"db-client\", p = 0.1, name = \"miss\" } ]",
    );
    let with = |keys: &str| {
        format!(
            "{text}\n[[fault]]\nkind = \"branch\"\ntarget = \"api\"\nstep = \"miss\"\np = 1\nend = \"2s\"\n{keys}\n"
        )
    };
    c.rejects(
        &with("warm_curve = \"exponential\""),
        &[
            "scenario.toml:",
            "fault.0.warm_curve",
            "needs `warm`, its time constant",
        ],
    );
    c.rejects(
        &with("warm = \"0s\"\nwarm_curve = \"exponential\""),
        &["fault.0.warm", "must be more than 0"],
    );
    c.rejects(
        &with("warm = \"2s\"\nwarm_curve = \"cubic\""),
        &["fault.0.warm_curve", "linear", "exponential"],
    );
    c.rejects(
        &with("warm = \"2s\"\nwarm_table = [ [\"0s\", 1], [\"2s\", 0] ]"),
        &["fault.0.warm`", "or `warm` (with `warm_curve`), not both"],
    );
    c.rejects(
        &with("warm_curve = \"linear\"\nwarm_table = [ [\"0s\", 1], [\"2s\", 0] ]"),
        &["fault.0.warm_curve", "not both"],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 1] ]"),
        &["fault.0.warm_table", "at least two points"],
    );
    c.rejects(
        &with("warm_table = [ [\"1s\", 1], [\"2s\", 0] ]"),
        &["fault.0.warm_table.0.0", "the first point is at \"0s\""],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 0.8], [\"2s\", 0] ]"),
        &["fault.0.warm_table.0.1", "weight is 1", "got 0.8"],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 1], [\"1s\", 1.5], [\"2s\", 0] ]"),
        &["fault.0.warm_table.1.1", "from 0 to 1, got 1.5"],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 1], [\"1s\", nan], [\"2s\", 0] ]"),
        &["fault.0.warm_table.1.1", "got NaN"],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 1], [\"3s\", 0.5], [\"3s\", 0] ]"),
        &["fault.0.warm_table.2.0", "times must increase"],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 1], [\"3s\", 0.5] ]"),
        &[
            "fault.0.warm_table.1.1",
            "last point's weight is 0",
            "got 0.5",
        ],
    );
    c.rejects(
        &with("warm_table = [ [0, 1], [5, 0] ]"),
        &["fault.0.warm_table.0.0", "did you mean `\"0s\"`?"],
    );
    c.rejects(
        &with("warm_table = [ [\"0s\", 1], [\"3s\"] ]"),
        &["fault.0.warm_table"],
    );
    // TOML would let serde's tuples drop a third value unread: refused instead.
    c.rejects(
        &with("warm_table = [ [\"0s\", 1], [\"3s\", 0, 1] ]"),
        &["fault.0.warm_table.1", "more than two values"],
    );
    c.rejects(
        &format!("{text}\n[[fault]]\nkind = \"latency\"\ntarget = \"api\"\nfactor = 2\nwarm_curve = \"exponential\"\n"),
        &["fault.0.warm_curve", "does not apply", "which takes: factor, add, dist, ramp"],
    );
    for good in [
        "warm = \"2s\"\nwarm_curve = \"exponential\"",
        "warm_table = [ [\"0s\", 1], [\"500ms\", 0.9], [\"1m\", 0] ]",
    ] {
        let path = c.file(&with(good));
        cascade(&["validate", path.to_str().unwrap()], 0);
    }
}

#[test]
fn each_warm_up_is_described_as_it_comes_back() {
    let effect = |warm: &str| {
        let text = scenario(
            5,
            r#"{ to = "cache" }, { to = "db", p = 0, name = "miss" }"#,
            &format!(
                "\n[[fault]]\nkind = \"branch\"\ntarget = \"api\"\nstep = \"miss\"\np = 1\nend = \"2s\"\n{warm}\n"
            ),
        );
        let (model, _) = run_model(&text);
        cascade::output::describe::fault_effect(&model.faults[0])
    };
    assert_eq!(effect(""), "a step made 100% of the time");
    assert_eq!(
        effect("warm = \"4s\""),
        "a step made 100% of the time, back over 4s"
    );
    assert_eq!(
        effect("warm = \"4s\"\nwarm_curve = \"exponential\""),
        "a step made 100% of the time, back with time constant 4s"
    );
    assert_eq!(
        effect("warm_table = [ [\"0s\", 1], [\"2s\", 0.5], [\"30s\", 0] ]"),
        "a step made 100% of the time, back over 30s along 3 points"
    );
}
