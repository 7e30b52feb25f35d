//! The example runs in the suite: a real hyper server on 127.0.0.1, a real client through the
//! stack of a committed scenario's policy table, the first 503 retried.

#[path = "../examples/hyper_client.rs"]
mod example;

#[tokio::test(flavor = "current_thread")]
async fn the_example_retries_a_real_503_from_a_scenarios_table() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/all-features.toml"
    );
    let report = example::run(scenario, "shard")
        .await
        .expect("the example runs");
    assert_eq!(report.status, 200);
    assert_eq!(report.body, "answer 1");
    assert_eq!((report.served, report.attempts), (2, 2));
}
