//! A scenario feature the mesh does not run is refused by name with exit 2, before anything
//! listens: a measured run that silently left a fault out would compare as if it had run it.

use std::process::Command;

const BASE: &str = r#"
[scenario]
name = "refused"
duration = "2s"
warmup = "0s"

[[client]]
name = "web"
target = "api"
rate = 10

[[service]]
name = "api"
workers = 2
work = "1ms"
"#;

fn refusal(extra: &str) -> (Option<i32>, String) {
    refusal_of(&format!("{BASE}{extra}"))
}

/// Runs the mesh on `text`, in a directory of its own (tests run in parallel).
fn refusal_of(text: &str) -> (Option<i32>, String) {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("cascade-mesh-refuse-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scenario.toml");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cascade-mesh"))
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(!dir.join("out").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_capacity_fault_is_refused_by_name() {
    let (code, err) = refusal(
        "[[fault]]\nkind = \"capacity\"\ntarget = \"api\"\nstart = \"1s\"\nend = \"2s\"\nworkers = 1\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("[[fault]] 1 (kind = \"capacity\")"), "{err}");
}

#[test]
fn a_lifo_queue_is_refused_by_name() {
    let (code, err) = refusal("discipline = \"lifo\"\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("service `api`: `discipline = \"lifo\"`"),
        "{err}"
    );
}

#[test]
fn closed_loop_users_are_refused_by_name() {
    let (code, err) = refusal_of(&BASE.replace("rate = 10", "arrival = \"closed\"\nusers = 3"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("client `web`: closed-loop `users`"), "{err}");
}

#[test]
fn a_bad_scenario_is_exit_2_naming_the_file() {
    let (code, err) = refusal(
        "[[fault]]\nkind = \"errors\"\ntarget = \"nowhere\"\nstart = \"1s\"\nend = \"2s\"\nrate = 0.5\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(".toml"), "{err}");
}
