//! docs/scenario.md states the limits the parser enforces: its "Limits" table, the `count` row
//! and the rules of "What is rejected" are held to the constants `cascade::scenario::limits`
//! (and the sweep grid's) checks against, and the edge of the `count` limit to the binary.

use crate::support::golden::repo;
use cascade::number::thousands;
use cascade::scenario::grid::{MAX_POINTS, MAX_VALUES};
use cascade::scenario::limits::*;

fn scenario_md() -> String {
    std::fs::read_to_string(repo().join("docs/scenario.md")).unwrap()
}

fn n(v: impl TryInto<i64>) -> String {
    thousands(v.try_into().ok().unwrap())
}

/// Each row of the Limits table, by how its first cell starts, and the limit its second cell
/// must start with.
fn expected_limits() -> Vec<(&'static str, String)> {
    vec![
        (
            "A scenario file",
            format!("{} MiB", cascade::scenario::MAX_SCENARIO_BYTES >> 20),
        ),
        ("Instances of one service", n(MAX_INSTANCES)),
        ("Instances of all services", n(MAX_TOTAL_INSTANCES)),
        ("Closed-loop users", n(MAX_USERS)),
        ("Time-series cells", n(MAX_SERIES_CELLS)),
        ("Windows, counting", n(MAX_WINDOWS)),
        ("Windows ×", n(MAX_WINDOW_CELLS)),
        ("Copies of call policy state", n(MAX_POLICY_COPIES)),
        (
            "Calls remembered by count-window breakers",
            n(MAX_BREAKER_CALLS),
        ),
        (
            "Steps of a service",
            format!("{}; {}", n(MAX_STEPS), n(MAX_CALLS)),
        ),
        ("Values of one sweep parameter", n(MAX_VALUES)),
        ("Points of a sweep's grid", n(MAX_POINTS)),
    ]
}

#[test]
fn the_limits_table_gives_the_limits_the_parser_checks() {
    let doc = scenario_md();
    let table = &doc[doc.find("### Limits").expect("a Limits section")..];
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip_while(|l| !l.starts_with("| What"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    let expected = expected_limits();
    assert_eq!(
        rows.len(),
        expected.len(),
        "a row without a constant here, or one gone: {rows:?}"
    );
    for row in &rows {
        let (_, limit) = expected
            .iter()
            .find(|(what, _)| row[0].starts_with(what))
            .unwrap_or_else(|| panic!("no constant for the Limits row {row:?}"));
        assert!(
            row[1].starts_with(limit.as_str()),
            "the Limits row {row:?} should give {limit}"
        );
    }
}

#[test]
fn the_count_row_and_what_is_rejected_give_the_parsers_count_limit() {
    let doc = scenario_md();
    let calls = n(MAX_CALLS);
    for text in [
        format!("| `count` | integer, 1 to {calls} |"),
        format!("The calls of one step, counts expanded, are at most {calls}"),
        format!(
            "a `count` of 0 or over {calls}, counts in one `parallel` step adding up to over {calls},"
        ),
        format!("count toward the limit of {} steps", n(MAX_STEPS)),
    ] {
        assert!(
            doc.contains(&text),
            "docs/scenario.md does not say {text:?}"
        );
    }
}

/// The limit as the binary holds it: `MAX_CALLS` copies validate, one more is refused at the
/// `count`, and so are counts in one `parallel` step adding up past it.
#[test]
fn a_count_at_the_limit_validates_and_one_more_is_refused() {
    let dir = crate::support::scratch("doc-limits");
    let file = dir.join("fanout.toml");
    let validate = |calls: &str| {
        std::fs::write(
            &file,
            format!(
                "[scenario]\nname = \"fanout\"\nduration = \"1s\"\n\n[[client]]\nname = \"web\"\ntarget = \"root\"\nrate = 1\n\n[[service]]\nname = \"root\"\ncalls = [ {calls} ]\n\n[[service]]\nname = \"leaf\"\n"
            ),
        )
        .unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_cascade"))
            .arg("validate")
            .arg(&file)
            .output()
            .unwrap()
    };
    let at = validate(&format!("{{ to = \"leaf\", count = {MAX_CALLS} }}"));
    assert_eq!(
        at.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&at.stderr)
    );
    let past = validate(&format!("{{ to = \"leaf\", count = {} }}", MAX_CALLS + 1));
    let err = String::from_utf8_lossy(&past.stderr);
    assert_eq!(past.status.code(), Some(2), "{err}");
    assert!(
        err.contains("calls.leaf.count`: 10001 calls, over the limit"),
        "{err}"
    );
    let half = MAX_CALLS / 2;
    let summed = validate(&format!(
        "{{ parallel = [ {{ to = \"leaf\", count = {half} }}, {{ to = \"leaf\", count = {} }} ] }}",
        MAX_CALLS - half + 1
    ));
    let err = String::from_utf8_lossy(&summed.stderr);
    assert_eq!(summed.status.code(), Some(2), "{err}");
    assert!(err.contains("10001 calls with their `count`s"), "{err}");
}
