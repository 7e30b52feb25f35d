//! A duration written without its unit gets its fix in the form the user wrote it in: a key of
//! the file (`timeout = "500ms"`, tests/golden/errors/duration.txt), `--set` (same file), a
//! variant's `set` entry, or a value of a sweep's grid (`--param` or `[sweep]`), which used to
//! be named and fixed as a `--set` the user never wrote.

use crate::support::{cascade, scratch};

const SCENARIO: &str = r#"[scenario]
name = "hints"
duration = "2s"

[[client]]
name = "web"
target = "api"
rate = 50
policy = "p"

[[service]]
name = "api"
work = "1ms"

[policy.p]
timeout = "100ms"
"#;

fn refused(args: &[&str]) -> String {
    let out = cascade(args, 2);
    assert!(out.stdout.is_empty());
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn a_swept_duration_without_a_unit_is_named_as_the_sweeps_value() {
    let d = scratch("hints-sweep");
    let file = d.join("s.toml");
    std::fs::write(&file, SCENARIO).unwrap();
    let out = d.join("out");
    let err = refused(&[
        "sweep",
        file.to_str().unwrap(),
        "--param",
        "policy.p.timeout=100,200",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("field `policy.p.timeout`: the sweep's value policy.p.timeout=100: a duration needs a unit"),
        "{err}"
    );
    assert!(
        err.contains(
            "did you mean `100ms`? every value a sweep gives policy.p.timeout needs a unit"
        ),
        "{err}"
    );
    assert!(
        err.contains("`--param policy.p.timeout=100ms,...`"),
        "{err}"
    );
    assert!(!err.contains("--set"), "{err}");
    assert!(!out.exists());
    // The same from the file's [sweep], and found by validate; seconds for a run's span.
    let swept = format!("{SCENARIO}\n[sweep]\n\"scenario.warmup\" = [1, 2]\n");
    std::fs::write(&file, swept).unwrap();
    let err = refused(&["validate", file.to_str().unwrap()]);
    assert!(err.contains("the sweep's value scenario.warmup=1"), "{err}");
    assert!(err.contains("did you mean `1s`?"), "{err}");
}

#[test]
fn a_variants_duration_without_a_unit_gets_the_fix_as_a_set_entry() {
    let d = scratch("hints-variant");
    let file = d.join("s.toml");
    let text = format!(
        "{SCENARIO}\n[[variant]]\nname = \"slow\"\nset = {{ \"policy.p.timeout\" = 150 }}\n"
    );
    std::fs::write(&file, text).unwrap();
    let err = refused(&["validate", file.to_str().unwrap()]);
    // Pointed at the entry, line 20, and fixed as that entry.
    assert!(
        err.contains("s.toml:20:9: field `policy.p.timeout`: variant `slow` set"),
        "{err}"
    );
    assert!(
        err.contains("did you mean `\"policy.p.timeout\" = \"150ms\"`?"),
        "{err}"
    );
}
