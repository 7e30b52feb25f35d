//! `cascade run --metric PATTERN`: the variant comparison's rows are the metrics the patterns
//! select (the same `selects` as `diff --metric`), with the values of each run's summary.json;
//! a pattern naming nothing, or a scenario without variants, is refused before any run.

use crate::support::{cascade, read, scratch};
use cascade::number::sig3;
use std::path::Path;

const SCENARIO: &str = r#"[scenario]
name = "pick"
duration = "20s"
seed = 5

[[client]]
name = "app"
target = "api"
rate = 400
policy = "p"

[policy.p]
timeout = "40ms"
retry = { attempts = 3 }

[[service]]
name = "api"
workers = 5
work = { dist = "exponential", mean = "10ms" }
calls = [ { to = "db" } ]

[[service]]
name = "db"
workers = 8
work = { dist = "exponential", mean = "2ms" }

[[variant]]
name = "wider"
set = { service.api.workers = 10 }
"#;

fn summary(dir: &Path, name: &str) -> f64 {
    let json: serde_json::Value =
        serde_json::from_str(&read(&dir.join("summary.json"))).expect("summary.json");
    json["metrics"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("{name}"))
}

/// The comparison's rows: (metric, base, variant) as printed.
fn rows(stdout: &str) -> Vec<(String, String, String)> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("variants (same seed"))
        .skip(3)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells[0].into(), cells[1].into(), cells[2].into())
        })
        .collect()
}

#[test]
fn the_patterns_pick_the_rows_with_each_runs_values() {
    let d = scratch("run-metric");
    std::fs::write(d.join("s.toml"), SCENARIO).unwrap();
    let out = d.join("out");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "run".to_string(),
            d.join("s.toml").to_str().unwrap().to_string(),
        ];
        a.extend(["--out".into(), out.to_str().unwrap().to_string()]);
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        String::from_utf8(cascade(&a, 0).stdout).unwrap()
    };
    let picked = rows(&run(&[
        "--metric",
        "service.*.served",
        "--metric",
        "edge.app.api.retries",
    ]));
    let names: Vec<&str> = picked.iter().map(|r| r.0.as_str()).collect();
    // In summary order: both services' counts, then the edge's; nothing else.
    assert_eq!(
        names,
        [
            "service.api.served",
            "service.db.served",
            "edge.app.api.retries"
        ]
    );
    for (name, base, variant) in &picked {
        assert_eq!(*base, sig3(summary(&out, name)), "{name} base");
        assert_eq!(*variant, sig3(summary(&out.join("wider"), name)), "{name}");
    }
    // The wider API serves more and retries less: the rows carry the runs' real differences.
    assert!(
        summary(&out.join("wider"), "edge.app.api.retries") < summary(&out, "edge.app.api.retries")
    );
    // Without --metric, the default rows, the first being the client's goodput.
    let default = rows(&run(&[]));
    assert_eq!(default[0].0, "client.app.goodput_rps");
    assert!(default.iter().all(|r| r.0 != "service.api.served"));
    assert_eq!(default.len(), 3 + 2 + 2 * 2, "{default:?}");
}

#[test]
fn a_pattern_naming_nothing_or_a_scenario_without_variants_is_refused_before_running() {
    let d = scratch("run-metric-bad");
    std::fs::write(d.join("s.toml"), SCENARIO).unwrap();
    let file = d.join("s.toml");
    let out = d.join("out");
    let (file, out_s) = (file.to_str().unwrap(), out.to_str().unwrap());
    let err = cascade(
        &[
            "run",
            file,
            "--out",
            out_s,
            "--metric",
            "edge.app.api.retrys",
        ],
        2,
    );
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(err.contains("--metric edge.app.api.retrys"), "{err}");
    assert!(
        err.contains("did you mean `edge.app.api.retries`?"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    let plain = SCENARIO.split("[[variant]]").next().unwrap();
    std::fs::write(d.join("plain.toml"), plain).unwrap();
    let plain = d.join("plain.toml");
    let err = cascade(
        &[
            "run",
            plain.to_str().unwrap(),
            "--out",
            out_s,
            "--metric",
            "client.*",
        ],
        2,
    );
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(err.contains("has no [[variant]]"), "{err}");
    assert!(!out.exists(), "nothing written");
}
