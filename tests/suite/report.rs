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
        "✗ 0.01",
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

/// The rows of the first table of a Markdown report's expectations section, cell by cell.
fn expectation_rows(md: &str) -> Vec<Vec<String>> {
    let section = &md[md.find("Expectations").expect("an expectations section")..];
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|-") && !l.starts_with("| -"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn a_run_report_shows_a_replicated_expectation_as_one_runs_value_not_its_verdict() {
    let dir = scratch("report-reps");
    let mut text = read(&fixture("small.toml"));
    text.push_str(
        "\n[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \">=\"\nvalue = 0.5\nreps = 10\nci = true\n",
    );
    std::fs::write(dir.join("s.toml"), text).unwrap();
    let run = dir.join("run");
    cascade(
        &[
            "run",
            dir.join("s.toml").to_str().unwrap(),
            "--out",
            run.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    report(&run, &["--markdown"]);
    let md = read(&run.join("report.md"));
    let rows = expectation_rows(&md);
    // The header, the three single-run expectations, then the replicated one.
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert_eq!(rows[1][0], "✓ pass");
    assert_eq!(rows[1][1], "client.web.success_ratio >= 0.5");
    let replicated = &rows[4];
    assert_eq!(replicated[0], "– not judged");
    assert!(
        replicated[1].starts_with("client.web.success_ratio >= 0.5: this run's value;")
            && replicated[1].contains("95% CI of mean of 10 replications"),
        "{replicated:?}"
    );
    assert_eq!(replicated[2], rows[1][2], "this run's value, as above");
    assert!(
        !md.contains("95% CI of mean of 10: "),
        "a label of what is not shown"
    );
    assert!(
        md.contains("2 of 3 hold on this run; 1 need replications"),
        "{md}"
    );
}

#[test]
fn a_sweep_report_judges_each_point_as_check_does() {
    let dir = scratch("report-sweep-check");
    sweep_fixture(&dir);
    // Point 1 (base): success_ratio replications 0.98, 0.99, 1 (mean 0.99); point 2 (base):
    // 0.96, 0.97, 0.98, whose 95% interval is 0.97 ± t(2) · 0.01 / √3 = [0.945, 0.995].
    let mut text = read(&dir.join("scenario.toml"));
    text.push_str(concat!(
        "\n[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \">=\"\nvalue = 0.985\n",
        "\n[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \">=\"\nvalue = 0.96\nreps = 3\nci = true\n",
        "\n[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \"<=\"\nvalue = 0.99\nreps = 3\nstat = \"max\"\n",
        "\n[[expect]]\nmetric = \"client.web.success_ratio\"\nop = \">=\"\nvalue = 0.5\nreps = 5\n",
    ));
    std::fs::write(dir.join("scenario.toml"), text).unwrap();
    report(&dir, &["--markdown"]);
    let rows = expectation_rows(&read(&dir.join("report.md")));
    let header = &rows[0];
    let col = |label: &str| {
        header
            .iter()
            .position(|h| h == label)
            .unwrap_or_else(|| panic!("{label}: {header:?}"))
    };
    let row = |point: &str| {
        rows.iter()
            .find(|r| r[0] == point && r[1] == "base")
            .unwrap()
    };
    // Without reps: replication 0 alone (0.98), not the mean (0.99, which would pass).
    let single = col("client.web.success_ratio >= 0.985");
    assert_eq!(row("1")[single], "✗ 0.98");
    // The whole interval, not the mean 0.97, must be at least 0.96.
    let ci = col("95% CI of mean of 3: client.web.success_ratio >= 0.96");
    assert_eq!(row("2")[ci], "✗ 0.97 [0.945, 0.995]");
    assert_eq!(row("1")[ci], "✓ 0.99 [0.965, 1.01]");
    // The worst replication, not the mean.
    let max = col("max of 3: client.web.success_ratio <= 0.99");
    assert_eq!(row("1")[max], "✗ 1");
    assert_eq!(row("2")[max], "✓ 0.98");
    // More replications than the sweep ran: not judged.
    let five = col("mean of 5: client.web.success_ratio >= 0.5");
    assert_eq!(row("1")[five], "– needs 5 replications, the sweep ran 3");
}

/// A service with probes, restarts and a cold start (scenarios/liveness-death-spiral.toml) gets
/// a row in the design part saying what the platform does to its instances, in both formats;
/// a scenario without orchestration has no such table.
#[test]
fn the_report_shows_probes_restart_and_cold_start() {
    let dir = scratch("report-orchestration");
    let out = dir.join("run");
    cascade(
        &[
            "run",
            "scenarios/liveness-death-spiral.toml",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    report(&out, &["--markdown"]);
    report(&out, &[]);
    let md = read(&out.join("report.md"));
    let row = "| api | liveness every 5s (timeout 1s), 3 failures act, 1 success clears, out of band | 5s to listen again, work in flight answered unavailable; CrashLoopBackOff 10s doubling to 300s | 2× slower for 20s | fail open (sent to every instance) | none |";
    let header = "| service | probes | restart | cold start | none ready | autoscaling |";
    assert!(
        md.contains(&format!(
            "{header}\n| --- | --- | --- | --- | --- | --- |\n{row}\n"
        )),
        "{md}"
    );
    let html = read(&out.join("report.html"));
    for cell in [
        "liveness every 5s (timeout 1s), 3 failures act, 1 success clears, out of band",
        "5s to listen again, work in flight answered unavailable; CrashLoopBackOff 10s doubling to 300s",
        "2× slower for 20s",
    ] {
        assert!(
            html.contains(&format!("<td>{cell}</td>")),
            "{cell} not in the HTML"
        );
    }
    let plain = dir.join("plain");
    small_run(&plain);
    report(&plain, &["--markdown"]);
    assert!(!read(&plain.join("report.md")).contains("| service | probes |"));
}
