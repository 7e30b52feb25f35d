//! The review scenario of issue 41 (`scenarios/mobile-checkout.toml`): a mobile gateway whose
//! checkout is a tenth of the traffic, under four faults in sequence. The report's first
//! screen must name, for each fault, the operation worst off while it was active and its
//! success then, not only the client's total; its resilience matrix must show the database
//! pool that two operations share and that it is held until the database answers.

use crate::support::*;

fn report() -> String {
    let dir = scratch("mobile-checkout");
    let run = dir.join("run");
    let run = run.to_str().unwrap();
    let scenario = "scenarios/mobile-checkout.toml";
    cascade(&["run", scenario, "--out", run, "--quiet"], 0);
    cascade(&["report", run, "--markdown", "--quiet"], 0);
    read(&dir.join("run/report.md"))
}

#[test]
fn at_a_glance_names_the_worst_operation_under_each_fault() {
    at_a_glance(&report());
}

#[test]
fn the_resilience_matrix_shows_the_shared_pool_and_when_it_releases() {
    resilience_matrix(&report());
}

/// The database calls' bulkheads are one connection pool shared by checkout and catalog, held
/// until the database answers: the matrix says both, not only "24 concurrent".
fn resilience_matrix(md: &str) {
    for call in ["gateway → postgres orders", "gateway → postgres products"] {
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {call} ")))
            .unwrap_or_else(|| panic!("no row for {call}"));
        assert!(
            row.contains("24 concurrent, shared pool pg, held until the callee answers"),
            "{row}"
        );
    }
}

fn at_a_glance(md: &str) {
    let start = md.find("## At a glance\n").expect("at a glance");
    let glance = &md[start..];
    let glance = &glance[..glance[3..].find("\n## ").unwrap_or(glance.len())];
    let client = glance
        .lines()
        .find(|l| l.contains("client mobile:"))
        .unwrap();
    assert!(
        client.contains("92.1% success")
            && client.contains("worst operation checkout: 72.8% success"),
        "{client}"
    );
    // (fault, its window, the operation worst off during it, its success then)
    let faults = [
        ("F0 latency", "20 s to 35 s", "catalog", "48.5%"),
        ("F1 latency", "50 s to 65 s", "checkout", "25.1%"),
        ("F2 outage", "80 s to 95 s", "checkout", "0.531%"),
        ("F3 errors", "110 s to 125 s", "checkout", "59.7%"),
    ];
    for (fault, span, op, success) in faults {
        let line = glance
            .lines()
            .find(|l| l.contains(fault))
            .unwrap_or_else(|| panic!("no {fault} in\n{glance}"));
        let want = format!(
            "while it was active ({span}), the worst off, operation mobile {op}, had {success} success"
        );
        assert!(line.contains(&want), "{want}\nnot in\n{line}");
    }
}
