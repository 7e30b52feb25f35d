//! `cascade margin --axis magnitude`: how large a fault may grow before the system stays down,
//! on a boundary derived by hand. Constant arrivals at 300/s into one worker whose work is
//! exactly 1 ms (mu = 1,000/s), a 100 ms timeout and three immediate retries (4 x 300 > 1,000:
//! once every attempt times out, the retries alone keep the queue growing). A slowdown of x
//! for 10 s queues (300 - 1,000/x) requests a second while it lasts:
//! - below x = 10,100/3,001 = 3.3655 the longest time in the system, (3,000x - 10,000) ms of
//!   wait plus x ms of work, stays under 100 ms: no attempt ever times out, it recovers;
//! - above x = 1,000/290.1 = 3.447 the backlog left at the fault's end, (300 - 1,000/x) x 10 s
//!   requests at 1 ms each, is 99 ms or more: every later attempt times out, it stays down.
//!
//! The fault is written as x = 2, and the magnitude multiplier m scales its excess (x = 1 + m),
//! so the boundary lies in m = [2.3655, 2.447].

use cascade::margin::runs::Runs;
use cascade::margin::search::{Bounds, Found};
use cascade::margin::{Axis, find};
use std::process::Command;

const SCENARIO: &str = r#"
[scenario]
name = "slowdown-margin"
duration = "90s"
warmup = "10s"

[[client]]
name = "app"
target = "api"
arrival = "constant"
rate = 300
policy = "app-api"

[policy.app-api]
timeout = "100ms"
retry = { attempts = 4, backoff = "constant", base = "1ms", jitter = "none" }

[[service]]
name = "api"
workers = 1
work = "1ms"

[[fault]]
kind = "latency"
factor = 2
target = "api"
start = "30s"
end = "40s"

[[fault]]
kind = "outage"
target = "api"
start = "70s"
end = "71s"
"#;

#[test]
fn the_magnitude_boundary_of_a_slowdown_lies_where_the_hand_derived_bounds_put_it() {
    let model = cascade::scenario::load_str("slowdown.toml", SCENARIO, &[])
        .unwrap()
        .model;
    let bounds = Bounds {
        reps: 1,
        ..Bounds::STANDARD
    };
    let m = find(&model, 0, Axis::Magnitude, bounds, &mut Runs::new(2)).unwrap();
    let Found::Bracketed { lo, hi, .. } = m.found else {
        panic!("{:?}", m.found)
    };
    // The search's bracket (to its 2%) overlaps the derived interval.
    assert!(
        hi.x / lo.x <= 1.0 + Bounds::STANDARD.tolerance,
        "{lo:?} {hi:?}"
    );
    assert!(hi.x >= 2.3655 && lo.x <= 2.447, "{lo:?} {hi:?}");
}

fn margin(args: &[&str]) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("cascade-margin-mag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("slowdown.toml");
    std::fs::write(&path, SCENARIO).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .arg("margin")
        .arg(&path)
        .args(args)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

#[test]
fn the_words_give_the_size_at_the_boundary_and_a_fault_without_a_size_is_refused() {
    let out = margin(&["--fault", "0", "--axis", "magnitude", "--reps", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("magnitude: recovers up to 2.37× its size (work ×3.37)"),
        "{text}"
    );
    let out = margin(&["--fault", "1", "--axis", "magnitude"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fault 1 (outage: every request refused on api) has no magnitude axis"),
        "{err}"
    );
}
