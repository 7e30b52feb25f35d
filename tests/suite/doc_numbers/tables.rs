//! The hand-typed tables of results (`TABLES`): each found in its document by its header
//! row, each row naming its run in its first cell (the `--set`s quoted there, or a variant),
//! and how each table's figures are read from its run.

use super::checks::Checks;
use super::reader::{first_number, number_after};
use super::run::{Run, spike_end, step_at};
use crate::support::golden::repo;
use crate::support::read;

/// What a table's row names as its run: `--set`s on the scenario, and a variant to read.
pub(super) struct Names {
    pub(super) sets: Vec<String>,
    pub(super) variant: Option<String>,
}

/// A hand-typed table of results.
pub(super) struct Table {
    pub(super) doc: &'static str,
    /// The table's header row, exactly: it finds the table.
    pub(super) header: &'static str,
    pub(super) scenario: &'static str,
    /// The run a row names, from its first cell.
    pub(super) names: fn(&str) -> Names,
    /// Checks a row's figures (its cells after the first) against its run.
    pub(super) check: fn(&[&str], &Run, Option<&str>, &mut Checks),
}

/// The `--set`s quoted in code spans: `` `--set a=b` `` gives `a=b`; "as written" none.
pub(super) fn quoted_sets(cell: &str) -> Names {
    let sets = cell
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|code| {
            code.split("--set ")
                .skip(1)
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    Names {
        sets,
        variant: None,
    }
}

/// The code spans of a cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// docs/scenario.md's late-autoscaler sweep: a row's first cell is the settings of
/// `service.api.autoscale` it changes, `` `period = "5s"`, `window = "60s"` ``.
pub(super) fn autoscale_sets(cell: &str) -> Names {
    let sets = spans(cell)
        .iter()
        .map(|span| {
            let (key, value) = span.split_once(" = ").expect("`key = \"value\"`");
            format!("service.api.autoscale.{key}={}", value.trim_matches('"'))
        })
        .collect();
    Names {
        sets,
        variant: None,
    }
}

/// docs/validation.md's Brooker table: a row is the base's `f`, another `f` set on the base
/// (as the note under the table says), or a variant named in a code span.
fn brooker_sets(cell: &str) -> Names {
    if let Some(variant) = spans(cell).first() {
        return Names {
            sets: Vec::new(),
            variant: Some(variant.to_string()),
        };
    }
    let f = cell.split_whitespace().next().unwrap();
    Names {
        sets: if cell.contains("(base)") {
            Vec::new()
        } else {
            vec![format!("fault.0.rate={f}")]
        },
        variant: None,
    }
}

pub(super) const TABLES: &[Table] = &[
    // README.md, "Then change one thing and compare".
    Table {
        doc: "README.md",
        header: "| change | success ratio |",
        scenario: "scenarios/quickstart.toml",
        names: quoted_sets,
        check: |cells, run, v, c| {
            let value = run.metric(v, "client.web.success_ratio");
            c.figure("success ratio", cells[0], first_number(cells[0]), value);
        },
    },
    // README.md, the retry storm and its three cures: the share over the scenario's last-20s
    // window, then how soon after the spike (its end, the client's phase back to its rate) the
    // last second under 99% ends, as docs/scenario.md's autoscaler table counts it.
    Table {
        doc: "README.md",
        header: "| change (success ratio over the last 20 s) | |",
        scenario: "scenarios/retry-storm.toml",
        names: quoted_sets,
        check: |cells, run, v, c| {
            let cell = cells[0];
            let value = run.metric(v, "window.last-20s.client.app.success_ratio");
            c.figure("success ratio", cell, first_number(cell), value);
            let spike_end = spike_end(&read(&repo().join("scenarios/retry-storm.toml")));
            let hurt = run.hurt(v, "app", spike_end, 0.99);
            c.verdict(
                cell,
                ("never recovers", hurt.to_the_end),
                ("recovered after", "recovers about "),
                || hurt.last_end.unwrap_or(0.0),
            );
        },
    },
    // docs/scenario.md, "Autoscaling": how late the autoscaler reacts.
    Table {
        doc: "docs/scenario.md",
        header: "| Setting | Recovered after | Seconds hurt | Success |",
        scenario: "scenarios/late-autoscaler.toml",
        names: autoscale_sets,
        check: |cells, run, v, c| {
            let step = step_at(&read(&repo().join("scenarios/late-autoscaler.toml")));
            let hurt = run.hurt(v, "web", step, 0.99);
            let end = hurt.last_end.unwrap_or(0.0);
            c.figure("recovered after", cells[0], first_number(cells[0]), end);
            c.figure(
                "seconds hurt",
                cells[1],
                first_number(cells[1]),
                hurt.seconds,
            );
            let success = run.metric(v, "window.step.client.web.success_ratio");
            c.figure("success", cells[2], first_number(cells[2]), success);
        },
    },
    // docs/scenario.md §7, the storm's recovery verdict under each single change.
    Table {
        doc: "docs/scenario.md",
        header: "| change | recovery |",
        scenario: "docs/examples/storm.toml",
        names: quoted_sets,
        check: |cells, run, v, c| {
            let cell = cells[0];
            let recovered = run.metric(v, "fault.0.recovered") == 1.0;
            c.verdict(
                cell,
                ("NOT RECOVERED", !recovered),
                ("recovery_s", "`"),
                || run.metric(v, "fault.0.recovery_s"),
            );
            for (label, metric) in [
                ("during ", "fault.0.goodput_during_rps"),
                ("after ", "fault.0.goodput_after_rps"),
            ] {
                if let Some(shown) = number_after(cell, label) {
                    c.figure(metric, cell, Some(shown), run.metric(v, metric));
                }
            }
        },
    },
    // docs/validation.md, Brooker's independent failures against his closed forms: the two
    // `cascade` columns.
    Table {
        doc: "docs/validation.md",
        header: "| f | success, closed form 1 − f⁴ | cascade | attempts per call, 1 + f + f² + f³ | cascade |",
        scenario: "scenarios/brooker-retries.toml",
        names: brooker_sets,
        check: |cells, run, v, c| {
            let success = run.metric(v, "client.app.success_ratio");
            c.figure("success", cells[1], first_number(cells[1]), success);
            let attempts = run.metric(v, "edge.app.backend.amplification");
            c.figure(
                "attempts per call",
                cells[3],
                first_number(cells[3]),
                attempts,
            );
        },
    },
];
