//! A mutation that gives a service orchestration keys (docs/scenario.md, "Orchestration"):
//! probes, a restart, readiness at the balancer, an autoscaler with its behaviours, slow
//! start and a cold start, written under a `[[service]]` header of the scenario with values
//! drawn from the plausible, the extreme (1 ns, u64::MAX ns, 2^31 instances) and the invalid.
//! The committed scenarios that use orchestration are few; this reaches every shape of
//! service with it.

use super::mutate::{EXTREME_DURATIONS, EXTREME_NUMBERS};
use super::{Tally, check_case};
use crate::support::pick::Pick;
use crate::support::scratch;

const DURATIONS: &[&str] = &[
    "\"1ms\"",
    "\"50ms\"",
    "\"200ms\"",
    "\"1s\"",
    "\"2s\"",
    "\"15s\"",
];
const COUNTS: &[&str] = &["0", "1", "2", "3", "4", "10", "2147483648", "-1"];
const FRACTIONS: &[&str] = &["0.1", "0.5", "0.9", "1", "1.5", "2", "-0.5"];

/// A duration: mostly plausible, one in four extreme.
fn duration(p: &mut Pick) -> String {
    if p.chance(0.75) {
        p.one(DURATIONS).to_string()
    } else {
        p.one(EXTREME_DURATIONS).to_string()
    }
}

/// A number from `plausible`, one in six extreme.
fn number(p: &mut Pick, plausible: &[&str]) -> String {
    if p.chance(0.83) {
        p.one(plausible).to_string()
    } else {
        p.one(EXTREME_NUMBERS).to_string()
    }
}

/// `{ k = v, ... }` of the `(key, value)` pairs, each kept with probability `keep`.
fn table(p: &mut Pick, pairs: Vec<(&str, String)>, keep: f64) -> String {
    let kept: Vec<String> = pairs
        .into_iter()
        .filter(|_| p.chance(keep))
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    format!("{{ {} }}", kept.join(", "))
}

fn probe(p: &mut Pick) -> String {
    let kind = *p.one(&["liveness", "readiness", "startup"]);
    let serve = *p.one(&[
        "\"out_of_band\"",
        "\"out_of_band\"",
        "\"queue\"",
        "\"bogus\"",
    ]);
    let pairs = vec![
        ("serve", serve.to_string()),
        ("work", duration(p)),
        ("period", duration(p)),
        ("timeout", duration(p)),
        ("initial_delay", duration(p)),
        ("failure_threshold", number(p, COUNTS)),
        ("success_threshold", number(p, &["1", "1", "2", "0"])),
    ];
    format!("probe = {{ {kind} = {} }}", table(p, pairs, 0.6))
}

fn behavior(p: &mut Pick) -> String {
    let policy = |p: &mut Pick| {
        let kind = *p.one(&["\"instances\"", "\"percent\"", "\"pods\""]);
        let pairs = vec![
            ("type", kind.to_string()),
            ("value", number(p, COUNTS)),
            ("period", duration(p)),
        ];
        table(p, pairs, 0.9)
    };
    let policies = (0..p.int(0, 2)).map(|_| policy(p)).collect::<Vec<_>>();
    let select = *p.one(&["\"max\"", "\"min\"", "\"disabled\"", "\"bogus\""]);
    let pairs = vec![
        ("stabilization", duration(p)),
        ("policies", format!("[{}]", policies.join(", "))),
        ("select", select.to_string()),
    ];
    table(p, pairs, 0.6)
}

fn autoscale(p: &mut Pick) -> String {
    let metric = *p.one(&["\"utilization\"", "\"in_flight\"", "\"queue\"", "\"cpu\""]);
    let scale_down = *p.one(&["\"drain\"", "\"kill\""]);
    let pairs = vec![
        ("target", number(p, FRACTIONS)),
        ("max", number(p, COUNTS)),
        ("min", number(p, COUNTS)),
        ("metric", metric.to_string()),
        ("period", duration(p)),
        ("window", duration(p)),
        ("tolerance", number(p, FRACTIONS)),
        ("startup", duration(p)),
        ("scale_down", scale_down.to_string()),
        ("drain", duration(p)),
        ("up", behavior(p)),
        ("down", behavior(p)),
    ];
    let mut t = table(p, pairs, 0.6);
    // target and max are required: usually there, so the run is reached.
    if p.chance(0.8) {
        t = t.replacen(
            "{ ",
            &format!(
                "{{ target = {}, max = {}, ",
                number(p, FRACTIONS),
                number(p, COUNTS)
            ),
            1,
        );
    }
    format!("autoscale = {t}")
}

/// One orchestration key with a drawn value.
fn key(p: &mut Pick) -> String {
    match p.int(0, 6) {
        0 | 1 => probe(p),
        2 => {
            let mode = *p.one(&["\"refuse\"", "\"blackhole\"", "\"bogus\""]);
            let pairs = vec![
                ("time", duration(p)),
                ("backoff", duration(p)),
                ("backoff_max", duration(p)),
                ("mode", mode.to_string()),
            ];
            format!("restart = {}", table(p, pairs, 0.6))
        }
        3 | 4 => autoscale(p),
        5 => {
            let pairs = vec![
                ("window", duration(p)),
                ("aggression", number(p, FRACTIONS)),
                (
                    "min_weight_percent",
                    number(p, &["0", "10", "50", "100", "101"]),
                ),
            ];
            format!("slow_start = {}", table(p, pairs, 0.7))
        }
        _ => match p.int(0, 2) {
            0 => format!("cold_start = {}", duration(p)),
            1 => format!("cold_factor = {}", number(p, FRACTIONS)),
            _ => format!(
                "when_none_ready = {}",
                p.one(&["\"fail_open\"", "\"refuse\"", "\"bogus\""])
            ),
        },
    }
}

/// One to three orchestration keys under one of the file's `[[service]]` headers.
pub fn inject(p: &mut Pick, text: &[u8]) -> (Vec<u8>, String) {
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let headers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with(b"[[service]]"))
        .collect();
    if headers.is_empty() {
        return (text.to_vec(), "unchanged (no [[service]])".to_string());
    }
    let at = *p.one(&headers);
    let keys: Vec<String> = (0..p.int(1, 3)).map(|_| key(p)).collect();
    let added = keys.join("\n");
    let mut out: Vec<&[u8]> = lines.clone();
    out.insert(at + 1, added.as_bytes());
    let what = format!("under line {} ([[service]]): `{}`", at + 1, keys.join("; "));
    (out.join(&b'\n'), what)
}

/// Cases of orchestration keys alone, beside the ones `mutate` draws among its others.
const CASES: u64 = 120;

/// Each case gives orchestration keys to a service of a committed scenario and runs it as the
/// other fuzz cases are (`check_case`). `CASCADE_FUZZ_ORCHESTRATION_CASES=N` runs N cases,
/// `CASCADE_FUZZ_ORCHESTRATION_CASE=I` case I alone.
#[test]
fn fuzz_orchestration_keys() {
    let dir = scratch("fuzz-orchestration");
    let cases: Vec<u64> = match crate::support::env_u64("CASCADE_FUZZ_ORCHESTRATION_CASE") {
        Some(i) => vec![i],
        None => (0..crate::support::env_u64("CASCADE_FUZZ_ORCHESTRATION_CASES").unwrap_or(CASES))
            .collect(),
    };
    let mut tally = Tally::default();
    let only_orchestration: super::Mutation = |p, text| {
        let (bytes, what) = inject(p, text);
        (bytes, vec![what])
    };
    for &i in &cases {
        let replay = "CASCADE_FUZZ_ORCHESTRATION_CASE";
        if let Err(e) = check_case(i, &dir, &mut tally, only_orchestration, replay) {
            panic!("{e}");
        }
    }
    // Both ends are reached: some keys are refused, and some runs simulate them.
    assert!(
        cases.len() == 1 || (tally.validate[2] > 0 && tally.run[0] > 0),
        "validate {:?}, run {:?}",
        tally.validate,
        tally.run
    );
    println!(
        "fuzz orchestration: validate exited 0/1/2 {:?}, run {:?}",
        tally.validate, tally.run
    );
}
