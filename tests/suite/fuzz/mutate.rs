//! Mutations of a scenario file's bytes: lines deleted, duplicated or swapped, numbers and
//! durations made extreme, values of the wrong type, lines past 65,535 columns, truncation,
//! garbage and invalid UTF-8, orchestration keys given to a service (`orchestration`), a
//! `workers` count made `"unbounded"`, a client given a `network` (valid, extreme or wrong), a
//! service given a `rate_limit` of one of its limiters (valid, extreme or of mixed kinds).
//! Each returns the new bytes and a description that names the line it touched.

use crate::support::pick::Pick;

pub const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-1e308",
    "18446744073709551616",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "nan",
    "inf",
    "-inf",
    "1e-308",
    "0.0000001",
    "1.0000000000000002",
];

pub const EXTREME_DURATIONS: &[&str] = &[
    "\"0\"",
    "\"0ns\"",
    "\"1ns\"",
    "\"0.4ns\"",
    "\"100000h\"",
    "\"200y\"",
    "\"18446744073709551615ns\"",
    "\"99999999999999999999s\"",
    "\"1.5\"",
    "\"-1s\"",
    "\"\"",
    "\"1e9s\"",
    "\"1m 1m 1m\"",
];

const WRONG_TYPES: &[&str] = &[
    "\"text\"",
    "true",
    "[1, 2]",
    "{ a = 1 }",
    "1",
    "1.5",
    "[]",
    "{}",
    "1979-05-27T07:32:00Z",
    "\"p101\"",
    "[[1, \"1ms\"]]",
];

const INVALID_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xfe\xff",
    b"\xc3\x28",
    b"\xe2\x82",
    b"\x80",
    b"\xed\xa0\x80",
];

fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split(|&b| b == b'\n').collect()
}

fn join(lines: &[&[u8]]) -> Vec<u8> {
    lines.join(&b'\n')
}

/// The spans of `text` where a value of the wanted kind starts and ends: numbers (digits with
/// an optional sign, point and exponent, outside strings) or quoted strings.
fn spans(line: &[u8], strings: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b == b'"' {
            let end = line[i + 1..]
                .iter()
                .position(|&c| c == b'"')
                .map_or(line.len(), |e| i + 2 + e);
            if strings {
                out.push((i, end));
            }
            i = end;
        } else if !strings && b.is_ascii_digit() && (i == 0 || !line[i - 1].is_ascii_alphabetic()) {
            let end = line[i..]
                .iter()
                .position(|c| !(c.is_ascii_digit() || b".eE_".contains(c)))
                .map_or(line.len(), |e| i + e);
            out.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Replaces one value of `line` (a number or a string) with `with`.
fn replace_value(p: &mut Pick, line: &[u8], strings: bool, with: &str) -> Option<Vec<u8>> {
    let found = spans(line, strings);
    if found.is_empty() {
        return None;
    }
    let (a, b) = *p.one(&found);
    Some([&line[..a], with.as_bytes(), &line[b..]].concat())
}

/// One mutation of `text`.
pub fn mutate_once(p: &mut Pick, text: &[u8]) -> (Vec<u8>, String) {
    let ls = lines(text);
    let n = ls.len() as u64;
    let at = p.int(0, n - 1) as usize;
    let show = |l: &[u8]| String::from_utf8_lossy(l).into_owned();
    match p.int(0, 14) {
        0 => {
            let mut out = ls.clone();
            out.remove(at);
            (
                join(&out),
                format!("line {} deleted: `{}`", at + 1, show(ls[at])),
            )
        }
        1 => {
            let mut out = ls.clone();
            out.insert(at, ls[at]);
            (
                join(&out),
                format!("line {} duplicated: `{}`", at + 1, show(ls[at])),
            )
        }
        2 => {
            let other = p.int(0, n - 1) as usize;
            let mut out = ls.clone();
            out.swap(at, other);
            (
                join(&out),
                format!("lines {} and {} swapped", at + 1, other + 1),
            )
        }
        kind @ 3..=5 => {
            // A value on a line that has one: try a few lines.
            for _ in 0..20 {
                let i = p.int(0, n - 1) as usize;
                let (strings, with) = match kind {
                    3 => (false, *p.one(EXTREME_NUMBERS)),
                    4 => (true, *p.one(EXTREME_DURATIONS)),
                    _ => (p.chance(0.5), *p.one(WRONG_TYPES)),
                };
                if let Some(line) = replace_value(p, ls[i], strings, with) {
                    let what = format!("line {}: `{}` -> `{}`", i + 1, show(ls[i]), show(&line));
                    let mut out: Vec<Vec<u8>> = ls.iter().map(|l| l.to_vec()).collect();
                    out[i] = line;
                    return (out.join(&b'\n'), what);
                }
            }
            (text.to_vec(), "unchanged (no value found)".to_string())
        }
        6 => {
            let cut = p.int(0, text.len() as u64) as usize;
            (text[..cut].to_vec(), format!("truncated to {cut} bytes"))
        }
        7 => {
            let garbage: Vec<u8> = (0..p.int(1, 16))
                .map(|_| *p.one(b"\"'[]{}=#.,\\\n\t\r\x00\x07\x1bz9 -+_"))
                .collect();
            let pos = p.int(0, text.len() as u64) as usize;
            let what = format!("garbage {garbage:?} at byte {pos}");
            ([&text[..pos], &garbage, &text[pos..]].concat(), what)
        }
        8 => {
            let bad = *p.one(INVALID_UTF8);
            let pos = p.int(0, text.len() as u64) as usize;
            let what = format!("invalid UTF-8 {bad:?} at byte {pos}");
            ([&text[..pos], bad, &text[pos..]].concat(), what)
        }
        11 => super::orchestration::inject(p, text),
        12 => unbounded(p, &ls, at)
            .unwrap_or_else(|| (text.to_vec(), "unchanged (no `workers` line)".to_string())),
        13 => network(p, &ls, at)
            .unwrap_or_else(|| (text.to_vec(), "unchanged (no `[[client]]`)".to_string())),
        14 => rate_limit(p, &ls, at)
            .unwrap_or_else(|| (text.to_vec(), "unchanged (no `[[service]]`)".to_string())),
        10 => {
            // A line longer than 65,535 columns, its value sometimes of the wrong type: an
            // error located past that column.
            let Some(eq) = ls[at].iter().position(|&b| b == b'=') else {
                return (text.to_vec(), "unchanged (no `=` on the line)".to_string());
            };
            let value: &[u8] = if p.chance(0.5) {
                &ls[at][eq + 1..]
            } else {
                p.one(WRONG_TYPES).as_bytes()
            };
            let line = [&ls[at][..=eq], &vec![b' '; 70_000][..], value].concat();
            let what = format!(
                "line {} padded to {} columns: `{}`",
                at + 1,
                line.len(),
                show(&[&ls[at][..=eq], b" ... ", value].concat())
            );
            let mut out: Vec<Vec<u8>> = ls.iter().map(|l| l.to_vec()).collect();
            out[at] = line;
            (out.join(&b'\n'), what)
        }
        _ => {
            // A line's key given to another table: `key = value` appended after a header.
            let headers: Vec<usize> = (0..ls.len()).filter(|&i| ls[i].starts_with(b"[")).collect();
            if headers.is_empty() {
                return (text.to_vec(), "unchanged (no table header)".to_string());
            }
            let h = *p.one(&headers);
            let mut out = ls.clone();
            out.insert(h + 1, ls[at]);
            let what = format!(
                "line {} `{}` copied under line {}",
                at + 1,
                show(ls[at]),
                h + 1
            );
            (join(&out), what)
        }
    }
}

/// A `workers = N` line, from line `at` on (wrapping), made `workers = "unbounded"`: a
/// service's becomes an infinite-server station (whose capacity faults, utilization
/// autoscaler and gates must be refused, not simulated); an operation's partition or a
/// capacity fault's count must refuse the word.
fn unbounded(p: &mut Pick, ls: &[&[u8]], at: usize) -> Option<(Vec<u8>, String)> {
    let n = ls.len();
    let i = (0..n)
        .map(|k| (at + k) % n)
        .find(|&i| ls[i].starts_with(b"workers"))?;
    let line = replace_value(p, ls[i], false, "\"unbounded\"")?;
    let what = format!(
        "line {}: `{}` -> `{}`",
        i + 1,
        String::from_utf8_lossy(ls[i]),
        String::from_utf8_lossy(&line)
    );
    let mut out: Vec<Vec<u8>> = ls.iter().map(|l| l.to_vec()).collect();
    out[i] = line;
    Some((out.join(&b'\n'), what))
}

/// Networks a client may be given: valid ones (the run must take them), extreme durations and
/// distributions with no mean (a huge or endless delay each way), and wrong ones (an error).
const NETWORKS: &[&str] = &[
    "\"40ms\"",
    "{ dist = \"exponential\", mean = \"20ms\" }",
    "{ dist = \"lognormal\", median = \"40ms\", p99 = \"300ms\" }",
    "{ dist = \"pareto\", scale = \"1ms\", shape = 0.5 }",
    "{ dist = \"exponential\" }",
    "{ dist = \"uniform\", min = \"2s\", max = \"1s\" }",
];

/// `network = …` inserted under a `[[client]]` header, from line `at` on (wrapping).
fn network(p: &mut Pick, ls: &[&[u8]], at: usize) -> Option<(Vec<u8>, String)> {
    insert_under(p, ls, at, b"[[client]]", |p| {
        let value = if p.chance(0.5) {
            *p.one(NETWORKS)
        } else {
            *p.one(EXTREME_DURATIONS)
        };
        format!("network = {value}")
    })
}

/// A line made by `line` (drawn only when there is a header) inserted under the first line
/// starting with `header`, from line `at` on (wrapping).
fn insert_under(
    p: &mut Pick,
    ls: &[&[u8]],
    at: usize,
    header: &[u8],
    line: impl FnOnce(&mut Pick) -> String,
) -> Option<(Vec<u8>, String)> {
    let n = ls.len();
    let i = (0..n)
        .map(|k| (at + k) % n)
        .find(|&i| ls[i].starts_with(header))?;
    let line = line(p);
    let what = format!("`{line}` inserted under line {}", i + 1);
    let mut out: Vec<&[u8]> = ls.to_vec();
    out.insert(i + 1, line.as_bytes());
    Some((join(&out), what))
}

/// Rate limits a service may be given: each limiter valid (the run must take them, holding
/// or refusing), at extremes (a rate of one a minute, a huge burst, a zero timeout), and
/// wrong (keys of two limiters, a delay past the burst, a bad rate or status: an error).
const RATE_LIMITS: &[&str] = &[
    "{ max_tokens = 3, fill_interval = \"10ms\", wait = true }",
    "{ limiter = \"limit_req\", rate = \"50r/s\", burst = 10, delay = 4 }",
    "{ limiter = \"limit_req\", rate = \"1r/m\", burst = 100000, key = \"client\" }",
    "{ limiter = \"limit_req\", rate = \"100000r/s\", nodelay = true, scope = \"fleet\" }",
    "{ limiter = \"smooth_bursty\", permits_per_second = 0.001 }",
    "{ limiter = \"smooth_bursty\", permits_per_second = 20, timeout = \"0s\", retry_after = true }",
    "{ limiter = \"limit_req\", rate = \"5r/s\", max_tokens = 3 }",
    "{ limiter = \"limit_req\", rate = \"5r/s\", burst = 1, delay = 2 }",
    "{ limiter = \"limit_req\", rate = \"5r/h\" }",
    "{ limiter = \"smooth_bursty\", permits_per_second = -1 }",
    "{ max_tokens = 3, fill_interval = \"10ms\", status = 99 }",
    "{ limiter = \"resilience4j\" }",
    "{ limiter = \"resilience4j\", limit_for_period = 1, limit_refresh_period = \"1s\", timeout_duration = \"100000h\" }",
    "{ limiter = \"tower\", num = 1, per = \"1ns\" }",
    "{ limiter = \"tower\", num = 5 }",
];

/// `rate_limit = …` inserted under a `[[service]]` header, from line `at` on (wrapping).
fn rate_limit(p: &mut Pick, ls: &[&[u8]], at: usize) -> Option<(Vec<u8>, String)> {
    insert_under(p, ls, at, b"[[service]]", |p| {
        format!("rate_limit = {}", p.one(RATE_LIMITS))
    })
}

/// One to three mutations of `text` (mostly one: a single change leaves more files valid,
/// so more of them reach the simulation), with what each did.
pub fn mutate(p: &mut Pick, text: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut bytes = text.to_vec();
    let mut what = Vec::new();
    let count = *p.one(&[1, 1, 1, 1, 1, 1, 1, 2, 2, 3]);
    for _ in 0..count {
        if bytes.is_empty() {
            break;
        }
        let (b, w) = mutate_once(p, &bytes);
        bytes = b;
        what.push(w);
    }
    (bytes, what)
}
