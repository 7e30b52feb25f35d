//! `cascade report`: one self-contained, well-formed HTML file (or Markdown with its charts
//! beside it) for a run with variants or a sweep; the same input gives the same bytes.

use crate::support::*;
use std::path::Path;

fn report(dir: &Path, extra: &[&str]) {
    let mut args = vec!["report", dir.to_str().unwrap(), "--quiet"];
    args.extend(extra);
    cascade(&args, 0);
}

/// No reference leaves the file: no src/href to anything but an in-page anchor, no CSS import
/// or url() other than an in-page id, no script or linked stylesheet.
fn assert_self_contained(html: &str) {
    for bad in ["<script", "<link", "<img", "<iframe", "@import", "src="] {
        assert!(!html.contains(bad), "report holds {bad}");
    }
    for (i, _) in html.match_indices("href=\"") {
        let target = &html[i + 6..];
        assert!(
            target.starts_with('#'),
            "external href: {}",
            &target[..40.min(target.len())]
        );
    }
    for (i, _) in html.match_indices("url(") {
        let target = &html[i + 4..];
        assert!(
            target.starts_with('#'),
            "external url(): {}",
            &target[..40.min(target.len())]
        );
    }
    // Namespaces aside, no address at all.
    let without_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
}

#[test]
fn a_run_report_is_well_formed_self_contained_and_complete() {
    let dir = scratch("report-run");
    small_run(&dir);
    report(&dir, &[]);
    let html = read(&dir.join("report.html"));
    assert_well_formed("report.html", &html);
    assert_self_contained(&html);
    for want in [
        "small — design review",
        "At a glance",
        "over the last 5 s, goodput is",
        // Topology: a diagram with both services and the call's policy highlights.
        "aria-label=\"topology of small\"",
        "timeout 100ms · 3× · breaker",
        // The resilience matrix.
        "api → db",
        "3 attempts, exponential ×2 10ms, full jitter",
        "50% failing over 20 calls, open 1s",
        // Fault schedule with its verdict.
        "every request refused",
        "recovered in",
        // Charts inline.
        "small: timeline",
        "latency distribution of web",
        // Summary tables and expectations, passing and failing.
        "wasted work",
        "client.web.success_ratio &gt;= 0.5",
        "✓ pass",
        "✗ fail",
        // Variants side by side.
        "Variants side by side",
        "policy.db-client.retry.attempts = 1",
        "small — variant no-retry: timeline",
    ] {
        assert!(html.contains(want), "report lacks {want:?}");
    }
    assert_eq!(
        html.matches("<svg").count(),
        4,
        "topology, 2 timelines, 1 latency chart"
    );
}

#[test]
fn markdown_links_its_charts_beside_it() {
    let dir = scratch("report-md");
    small_run(&dir);
    let out = dir.join("review/pr.md");
    report(&dir, &["--markdown", "--out", out.to_str().unwrap()]);
    let md = read(&out);
    assert!(md.starts_with("# small — design review"));
    assert!(md.contains("| call | timeout | retries |"));
    let links: Vec<&str> = md
        .split("](")
        .skip(1)
        .map(|rest| &rest[..rest.find(')').unwrap()])
        .collect();
    assert!(links.contains(&"charts/topology.svg") && links.contains(&"charts/timeline.svg"));
    for l in links {
        let file = dir.join("review").join(l);
        assert!(file.is_file(), "{l} missing");
        assert_well_formed(l, &read(&file));
    }
}

#[test]
fn a_sweep_report_has_its_charts_points_and_expectations() {
    let dir = scratch("report-sweep");
    sweep_fixture(&dir);
    report(&dir, &[]);
    let html = read(&dir.join("report.html"));
    assert_well_formed("sweep report", &html);
    assert_self_contained(&html);
    for want in [
        "small — sweep",
        "client.web.rate = 100, 400",
        "variants: base, budget",
        "heatmap",
        "Points",
        "Expectations per point",
        "99.5/s ± 3/s",
        "✗ 0.03",
    ] {
        assert!(html.contains(want), "sweep report lacks {want:?}");
    }
}

#[test]
fn reporting_again_gives_identical_files() {
    let dir = scratch("report-again");
    small_run(&dir);
    report(&dir, &[]);
    report(&dir, &["--markdown"]);
    let first = snapshot(&dir);
    report(&dir, &[]);
    report(&dir, &["--markdown"]);
    assert!(first == snapshot(&dir));
}

#[test]
fn a_report_of_nothing_is_refused() {
    let dir = scratch("report-nothing");
    let out = cascade(&["report", dir.to_str().unwrap()], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a run's directory"));
}
