//! A search's results shown: the trade-off charted beside tune.json (one chart per
//! expectation, its threshold drawn) when no candidate satisfies every expectation, and
//! `cascade report` on a tune directory, HTML and Markdown, with the frontier (table and
//! charts), the winner ready to use, the rejected regions and the parameters with no effect.

use crate::support::{self, assert_well_formed, cascade};
use std::path::Path;

const BROWNOUT: &str = include_str!("../../docs/examples/tune-brownout.toml");
const RETRIES: &str = include_str!("../../docs/examples/tune-retries.toml");

fn tune(dir: &Path, scenario: &str, params: &[&str], objective: &str, code: i32) -> String {
    let path = dir.join("t.toml");
    std::fs::write(&path, scenario).unwrap();
    let out = dir.join("out");
    let mut args = vec!["tune", path.to_str().unwrap()];
    for p in params {
        args.extend(["--param", p]);
    }
    args.extend([
        "--objective",
        objective,
        "--maximize",
        "--out",
        out.to_str().unwrap(),
    ]);
    String::from_utf8(cascade(&args, code).stdout).unwrap()
}

#[test]
fn an_infeasible_goal_charts_its_frontier_and_reports_it() {
    let d = support::scratch("tune-report-brownout");
    let stdout = tune(
        &d,
        BROWNOUT,
        &[
            "policy.pay.retry.attempts=1..5:1",
            "policy.pay.breaker.failure_rate=0.8,0.9",
        ],
        "client.checkout.success_ratio",
        1,
    );
    let out = d.join("out");
    let charts = [
        (
            "frontier-0-client.checkout.success_ratio.svg",
            "expectation &gt;= 0.99",
        ),
        (
            "frontier-1-edge.checkout.payments.amplification_sent.svg",
            "expectation &lt;= 1.25",
        ),
    ];
    for (file, gate) in charts {
        assert!(
            stdout.contains(&format!(
                "the trade-off charted in {}",
                out.join(file).display()
            )),
            "{stdout}"
        );
        let svg = std::fs::read_to_string(out.join(file)).unwrap();
        assert_well_formed(file, &svg);
        assert!(svg.contains(gate), "{file} draws the threshold: {gate}");
        assert!(svg.contains("Pareto frontier"), "{file}");
        assert!(svg.contains("trade-off: "), "{file}");
        // The five attempt counts are the frontier's five points, each a circle.
        assert_eq!(svg.matches("<circle").count(), 5, "{file}");
    }
    // `cascade chart` on the directory draws them too, beside the sweep's charts.
    cascade(&["chart", out.to_str().unwrap()], 0);
    for (file, _) in charts {
        let drawn = std::fs::read_to_string(out.join("charts").join(file)).unwrap();
        assert_eq!(
            drawn,
            std::fs::read_to_string(out.join(file)).unwrap(),
            "{file}"
        );
    }
    let md = d.join("report.md");
    cascade(
        &[
            "report",
            out.to_str().unwrap(),
            "--markdown",
            "--out",
            md.to_str().unwrap(),
        ],
        0,
    );
    let text = std::fs::read_to_string(&md).unwrap();
    for needle in [
        "# tune-brownout — tune",
        "## What the search found",
        "No candidate satisfies every expectation",
        "## The trade-off",
        "| policy.pay.retry.attempts=4 policy.pay.breaker.failure_rate=0.8 (and 1 alike) | 0.991 | 1.41* | 0.991 |",
        "each met alone, never together: client.checkout.success_ratio >= 0.99 and edge.checkout.payments.amplification_sent <= 1.25",
        "](charts/frontier-1-edge.checkout.payments.amplification_sent.svg)",
        "## Rejected, by the expectation broken",
        "- edge.checkout.payments.amplification_sent <= 1.25 (8 of 10): every candidate with policy.pay.retry.attempts = 2, 3, 4, 5",
        "## Parameters with no effect",
        "- policy.pay.breaker.failure_rate (tried 0.8, 0.9; 5 pairs",
        "## Points",
    ] {
        assert!(text.contains(needle), "report.md lacks `{needle}`:\n{text}");
    }
    assert!(
        d.join("charts/frontier-0-client.checkout.success_ratio.svg")
            .is_file()
    );
    let html = d.join("report.html");
    cascade(
        &[
            "report",
            out.to_str().unwrap(),
            "--out",
            html.to_str().unwrap(),
        ],
        0,
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("The trade-off"), "html");
    assert!(page.contains("expectation &lt;= 1.25") || page.contains("expectation <= 1.25"));
    // The same files give the same bytes.
    let again = d.join("again.html");
    cascade(
        &[
            "report",
            out.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(page, std::fs::read_to_string(&again).unwrap());
}

#[test]
fn a_feasible_goal_reports_its_winner_ready_to_use_and_draws_no_frontier() {
    let d = support::scratch("tune-report-retries");
    tune(
        &d,
        RETRIES,
        &[
            "policy.web-api.retry.attempts=2..4:1",
            "policy.web-api.timeout=30ms,100ms",
        ],
        "client.web.success_ratio",
        0,
    );
    let out = d.join("out");
    let frontier: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("frontier")
        })
        .collect();
    assert!(frontier.is_empty(), "no trade-off, no frontier chart");
    let md = d.join("report.md");
    cascade(
        &[
            "report",
            out.to_str().unwrap(),
            "--markdown",
            "--out",
            md.to_str().unwrap(),
        ],
        0,
    );
    let text = std::fs::read_to_string(&md).unwrap();
    let tune: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tune.json")).unwrap()).unwrap();
    let set: Vec<&str> = tune["ready"]["set"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    for needle in [
        "The best: policy.web-api.retry.attempts=3 policy.web-api.timeout=",
        "## The winner, ready to use",
        &format!("- `{}`", set.join(" ")),
        "cascade export envoy",
        "## Rejected, by the expectation broken",
        "edge.web.api.amplification <= 1.8",
        "## Parameters with no effect",
    ] {
        assert!(text.contains(needle), "report.md lacks `{needle}`:\n{text}");
    }
    assert!(!text.contains("## The trade-off"), "{text}");
}
