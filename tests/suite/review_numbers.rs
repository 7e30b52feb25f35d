//! Numbers in the report and the charts that cannot be misread (issue 41): each unit printed
//! by its own function, breaker totals that say what they sum, an unbounded queue in words, a
//! legend title whole, fault tags apart, and `--metric` refused where it cannot apply.

use crate::support::*;
use std::path::Path;

/// An Envoy-style budget of 25%, a breaker on a three-instance caller, an unbounded queue,
/// and two faults starting together.
const REVIEW: &str = r#"
[scenario]
name = "review"
duration = "10s"
warmup = "1s"
seed = 3
recovery_hold = "2s"

[[client]]
name = "web"
target = "api"
rate = 300
deadline = "1s"

[[service]]
name = "api"
instances = 3
workers = 8
work = { dist = "exponential", mean = "2ms" }
calls = [ { to = "db", policy = "db-client" } ]

[[service]]
name = "db"
workers = 6
queue = 20
work = { dist = "exponential", mean = "5ms" }

[policy.db-client]
timeout = "100ms"
retry = { attempts = 3, base = "10ms", budget = { kind = "concurrency", percent = 25, min = 3 } }
breaker = { window = 20, min_calls = 10, failure_rate = 0.5, open = "1s", half_open_calls = 2 }

[[fault]]
kind = "outage"
target = "db"
start = "4s"
end = "6s"

[[fault]]
kind = "latency"
target = "api"
start = "4s"
end = "5s"
factor = 2.0
"#;

fn review_run(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let toml = dir.join("review.toml");
    std::fs::write(&toml, REVIEW).unwrap();
    let out = dir.join("run");
    cascade(
        &[
            "run",
            toml.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
}

fn markdown_report(run: &Path) -> String {
    cascade(
        &["report", run.to_str().unwrap(), "--markdown", "--quiet"],
        0,
    );
    read(&run.join("report.md"))
}

#[test]
fn an_envoy_budget_of_25_percent_reads_25_percent() {
    let dir = scratch("review-budget");
    review_run(&dir);
    let md = markdown_report(&dir.join("run"));
    assert!(md.contains("25% concurrent (min 3)"), "{md}");
    assert!(!md.contains("0.25% concurrent"));
}

#[test]
fn a_breaker_total_says_it_sums_instances_and_over_how_long() {
    let dir = scratch("review-breaker");
    review_run(&dir);
    let md = markdown_report(&dir.join("run"));
    let line = md
        .lines()
        .find(|l| l.contains("breaker on api → db opened"))
        .unwrap_or_else(|| panic!("no breaker line in\n{md}"));
    assert!(
        line.contains("in all over the 10 s measured")
            && line.contains("3 breakers")
            && line.contains("per breaker"),
        "{line}"
    );
}

#[test]
fn an_unbounded_queue_is_written_in_words() {
    let dir = scratch("review-queue");
    review_run(&dir);
    let run = dir.join("run");
    markdown_report(&run);
    let topology = read(&run.join("charts/topology.svg"));
    assert!(topology.contains("unbounded queue"), "{topology}");
    assert!(!topology.contains('∞'));
}

/// Every `<text>` element of an SVG: its attributes and its trimmed content.
fn texts(svg: &str) -> Vec<(&str, &str)> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let close = t.find('>').unwrap();
            (&t[..close], t[close + 1..t.find("</text>").unwrap()].trim())
        })
        .collect()
}

/// The x of every `<text>` element whose content is exactly `label`.
fn text_x(svg: &str, label: &str) -> Vec<f64> {
    texts(svg)
        .into_iter()
        .filter(|(_, content)| *content == label)
        .map(|(attrs, _)| {
            let x = attrs.split(" x=\"").nth(1).unwrap();
            x[..x.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

#[test]
fn fault_tags_starting_together_do_not_overlap() {
    let dir = scratch("review-tags");
    review_run(&dir);
    let run = dir.join("run");
    cascade(&["chart", run.to_str().unwrap(), "--quiet"], 0);
    let svg = read(&run.join("charts/timeline.svg"));
    let (f0, f1) = (text_x(&svg, "F0"), text_x(&svg, "F1"));
    assert!(!f0.is_empty() && f0.len() == f1.len(), "{f0:?} {f1:?}");
    for (a, b) in f0.iter().zip(&f1) {
        // A tag is about 15 px wide at 11 px.
        assert!((a - b).abs() >= 15.0, "F0 at {a}, F1 at {b}");
    }
}

#[test]
fn report_metric_on_a_run_directory_is_refused() {
    let dir = scratch("review-metric");
    review_run(&dir);
    let run = dir.join("run");
    let out = cascade(
        &[
            "report",
            run.to_str().unwrap(),
            "--metric",
            "client.web.goodput_rps",
        ],
        2,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--metric") && err.contains("sweep"), "{err}");
    assert!(!run.join("report.html").exists());
    cascade(
        &[
            "chart",
            run.to_str().unwrap(),
            "--metric",
            "client.web.goodput_rps",
        ],
        2,
    );
}

#[test]
fn amplification_is_charted_as_a_multiple_not_a_percentage() {
    let dir = scratch("review-amplification");
    let out = dir.join("sweep");
    cascade(
        &[
            "sweep",
            fixture("small.toml").to_str().unwrap(),
            "--param",
            "client.web.rate=100,200",
            "--reps",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    let metric = "edge.api.db.amplification";
    cascade(
        &[
            "chart",
            out.to_str().unwrap(),
            "--metric",
            metric,
            "--quiet",
        ],
        0,
    );
    let svg = read(&out.join(format!("charts/sweep-{metric}.svg")));
    let labels: Vec<&str> = texts(&svg).into_iter().map(|(_, t)| t).collect();
    assert!(
        labels.contains(&"edge.api.db.amplification (×)"),
        "{labels:?}"
    );
    assert!(
        !labels.iter().any(|t| t.ends_with('%') || t.contains("(%)")),
        "{labels:?}"
    );
}

#[test]
fn a_heatmap_legend_title_is_never_truncated() {
    use cascade::chart::axis::ParamAxis;
    use cascade::chart::format::AxisUnit;
    use cascade::chart::heatmap::Heatmap;
    use cascade::chart::{Chart, Kind};
    let metric = "window.after-the-payments-outage.client.mobile.op.checkout.success_ratio";
    let values = ["1".to_string(), "2".to_string()];
    let chart = Chart {
        file: "heatmap".into(),
        caption: String::new(),
        kind: Kind::Heatmap(Heatmap {
            title: "t".into(),
            subtitle: "s".into(),
            x: ParamAxis::new("a", &values),
            y: ParamAxis::new("b", &values),
            unit: AxisUnit::Percent,
            metric: metric.into(),
            cells: vec![(0, 0, 0.5), (1, 1, 0.9)],
            domain: (0.5, 0.9),
            marks: Vec::new(),
            mark_note: None,
            failing: Vec::new(),
            fail_note: None,
        }),
    };
    let svg = chart.svg().unwrap();
    // The title's lines, in order, each short enough for the legend column (250 px at 11 px
    // a glyph: 36 characters at most), make the whole name.
    let lines: Vec<&str> = texts(&svg)
        .into_iter()
        .map(|(_, content)| content)
        .filter(|t| t.len() > 3 && metric.contains(*t))
        .collect();
    assert_eq!(lines.concat(), metric, "{lines:?}");
    assert!(lines.iter().all(|l| l.chars().count() <= 36), "{lines:?}");
}
