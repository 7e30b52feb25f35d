//! Golden outputs of `cascade diff`: two runs of the small scenario, and two sweeps of it,
//! the second of each with half the database's workers. They pin the table's layout and every
//! verdict, so a change in the comparison (or in the runs it reads) shows up as a diff to
//! review; `CASCADE_BLESS=1 cargo test --profile test-release` regenerates them.

use crate::support::golden::{assert_golden, command_text};
use crate::support::{cascade, fixture, scratch};

const SLOWER: &str = "service.db.workers=2";

fn small() -> String {
    fixture("small.toml").display().to_string()
}

#[test]
fn golden_diff_of_two_runs() {
    let dir = scratch("golden-diff-runs");
    let (a, b) = (dir.join("a"), dir.join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    cascade(&["run", &small(), "--out", a, "--quiet"], 0);
    cascade(
        &["run", &small(), "--out", b, "--quiet", "--set", SLOWER],
        0,
    );
    let o = cascade(&["diff", a, b], 0);
    assert_golden("diff/runs.txt", &command_text(&o, &dir));
}

#[test]
fn golden_diff_of_two_sweeps() {
    let dir = scratch("golden-diff-sweeps");
    let (a, b) = (dir.join("a"), dir.join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let sweep = |out: &str, set: &[&str]| {
        let small = small();
        let mut args = vec![
            "sweep",
            &*small,
            "--param",
            "client.web.rate=100,200",
            "--reps",
            "2",
            "--jobs",
            "1",
            "--out",
            out,
        ];
        args.extend(set);
        cascade(&args, 0);
    };
    sweep(a, &[]);
    sweep(b, &["--set", SLOWER]);
    let o = cascade(&["diff", a, b, "--metric", "service.db.*"], 0);
    assert_golden("diff/sweeps.txt", &command_text(&o, &dir));
}
