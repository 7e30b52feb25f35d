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

/// The fault table judges each operation of the mix on its own goodput beneath the whole's
/// verdict: under the payments outage (F2) checkout's goodput fell from 155/s to 0.8/s while
/// the clients' total went from 1,505/s to 1,361/s, and both tables, Markdown and HTML, say
/// so. (Numbers: the run's `fault.2.client.mobile.op.checkout.*`, seed 41.)
#[test]
fn the_fault_table_gives_each_operation_its_own_verdict() {
    let md = report();
    let header = (md.lines())
        .find(|l| l.starts_with("|  | kind | target |"))
        .expect("the fault table");
    assert!(
        header.ends_with("| goodput of | goodput before → during → after | verdict |"),
        "{header}"
    );
    let lines: Vec<&str> = md.lines().collect();
    let f2 = (lines.iter())
        .position(|l| l.starts_with("| F2 | outage | payments |"))
        .expect("F2's row");
    assert!(
        lines[f2].ends_with("| all clients | 1,505/s → 1,361/s → 1,465/s | ✓ recovered in 4 s |"),
        "{}",
        lines[f2]
    );
    let blank = "|  |  |  |  |  |  |  | ";
    let want = [
        "mobile checkout | 155/s → 0.8/s → 99.8/s | ✓ recovered in 5 s |",
        "mobile catalog | 893/s → 910/s → 908/s | ✓ recovered in 0 s |",
        "mobile profile | 456/s → 451/s → 457/s | ✓ recovered in 0 s |",
    ];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(lines[f2 + 1 + k], format!("{blank}{w}"));
    }
    // Every fault has its three operations' rows.
    let rows = (lines.iter())
        .filter(|l| l.starts_with(blank) && l.contains("| mobile "))
        .count();
    assert_eq!(rows, 4 * 3);
    let dir = scratch("mobile-checkout-html");
    let run = dir.join("run");
    cascade(
        &[
            "run",
            "scenarios/mobile-checkout.toml",
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ],
        0,
    );
    cascade(&["report", run.to_str().unwrap(), "--quiet"], 0);
    let html = read(&run.join("report.html"));
    assert!(html.contains("<th>goodput of</th>"), "no goodput-of column");
    assert!(html.contains(">mobile checkout</td>"), "no checkout row");
    assert!(
        html.contains("155/s → 0.8/s → 99.8/s"),
        "no checkout verdict under F2"
    );
}

/// The client's deadlines per operation (2 s for checkout, 800 ms for catalog and profile),
/// with each operation's share of the requests, are in the design part of the report.
#[test]
fn the_report_shows_each_operations_deadline() {
    let md = report();
    let start = md
        .find("| client | operation | share | deadline |")
        .expect("the deadlines table");
    let table: Vec<&str> = md[start..].lines().take(5).collect();
    assert_eq!(
        table[2..],
        [
            "| mobile | checkout (POST /checkout) | 10% | 2s |",
            "|  | catalog (GET /product) | 60% | 800ms |",
            "|  | profile (GET /me) | 30% | 800ms |",
        ]
    );
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
