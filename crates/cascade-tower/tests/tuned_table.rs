//! README.md, "From a tuned table to a running service": the `[policy.app-api]` table that
//! `cascade tune` picked for `scenarios/storm-guarded.toml`, committed as
//! `examples/storm-guarded-tuned.toml`, builds the stack unchanged and serves a call through it:
//! a real hyper downstream on 127.0.0.1 whose first answer is a 503, retried within the
//! table's budget.

#[path = "../examples/hyper_client.rs"]
mod example;

const TUNED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/storm-guarded-tuned.toml"
);

#[test]
fn the_committed_table_is_the_scenarios_with_the_tuned_budget_alone() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/storm-guarded.toml"
    );
    let tuned = example::scenario_policy(TUNED, "app-api").expect("the committed table");
    let mut base = example::scenario_policy(scenario, "app-api").expect("the scenario's");
    let budget = |t: &cascade_policy::table::RawPolicy| t.retry.as_ref().unwrap().budget.clone();
    assert_ne!(budget(&tuned), budget(&base), "the tuned setting differs");
    base.retry.as_mut().unwrap().budget = budget(&tuned);
    assert_eq!(tuned, base, "and nothing else does");
}

#[tokio::test(flavor = "current_thread")]
async fn the_tuned_table_serves_a_call_unchanged() {
    let report = example::run(TUNED, "app-api")
        .await
        .expect("the call is served");
    assert_eq!(report.status, 200);
    assert_eq!(report.body, "answer 1");
    assert_eq!((report.served, report.attempts), (2, 2));
}
