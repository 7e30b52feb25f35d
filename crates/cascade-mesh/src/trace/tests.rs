//! The span building, deterministic: ids and headers, retry and hedge numbering, the
//! limit, and a request as the mesh traces it read back by `cascade import traces`.

use super::*;

const SCENARIO: &str = r#"
[scenario]
name = "t"
duration = "1s"
seed = 3
[[client]]
name = "web"
target = "front"
rate = 10
[[service]]
name = "front"
work = { dist = "constant", value = "2ms" }
calls = [ { to = "back", policy = "p" } ]
[[service]]
name = "back"
work = { dist = "constant", value = "5ms" }
[policy.p]
retry = { attempts = 3, backoff = "constant", base = "1ms" }
"#;

const MS: u64 = 1_000_000;

fn model() -> Model {
    cascade::scenario::load_str("t.toml", SCENARIO, &[])
        .unwrap()
        .model
}

/// A clock the test moves by hand.
fn clock() -> (Arc<AtomicU64>, impl Fn() -> Box<dyn Fn() -> u64 + Send>) {
    let t = Arc::new(AtomicU64::new(0));
    let c = t.clone();
    (t, move || {
        let c = c.clone();
        Box::new(move || c.load(Ordering::Relaxed)) as Box<dyn Fn() -> u64 + Send>
    })
}

fn attr<'s>(span: &'s Span, key: &str) -> Option<&'s Value> {
    span.attributes
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

#[test]
fn traceparent_round_trips_and_refuses_what_is_not_one() {
    let (trace, span) = ([0xab; 16], [0x01, 2, 3, 4, 5, 6, 7, 8]);
    let text = traceparent(&trace, &span);
    assert_eq!(
        text,
        "00-abababababababababababababababab-0102030405060708-01"
    );
    assert_eq!(parse_traceparent(&text), Some((trace, span)));
    for bad in [
        "",
        "01-abababababababababababababababab-0102030405060708-01",
        "00-abab-0102030405060708-01",
        "00-abababababababababababababababab-01020304050607zz-01",
        "00-abababababababababababababababab-0102030405060708-01-x",
    ] {
        assert_eq!(parse_traceparent(bad), None, "{bad}");
    }
}

#[test]
fn attempts_number_retries_mark_hedges_and_end_as_the_simulator_says() {
    let (model, edge) = (model(), 1);
    assert_eq!(
        edge_names(&model, edge),
        Some(("front".into(), "back".into()))
    );
    let sink = Arc::new(Sink::new(model.seed, Options::default()));
    let (t, now) = clock();
    let call = CallTrace::new([7; 16], [9; 8]);
    // Attempts with a 3 ms timeout. A first attempt times out (dropped unanswered at its
    // timeout), a retry is answered with an error, a second retry and a hedge beside it
    // overlap: the hedge answers, the retry is abandoned.
    let timeout = Some(3 * MS);
    let first = sink.attempt(&model, edge, &call, timeout, now());
    t.store(3 * MS, Ordering::Relaxed);
    drop(first);
    let retry = sink.attempt(&model, edge, &call, timeout, now());
    t.store(5 * MS, Ordering::Relaxed);
    retry.answered("unavailable");
    let second = sink.attempt(&model, edge, &call, timeout, now());
    let hedge = sink.attempt(&model, edge, &call, timeout, now());
    t.store(7 * MS, Ordering::Relaxed);
    hedge.answered("ok");
    drop(second);
    // Another call's attempt dropped before its timeout (its deadline passed, or its caller
    // cancelled): abandoned, not timed out.
    let other = CallTrace::new([7; 16], [9; 8]);
    drop(sink.attempt(&model, edge, &other, timeout, now()));
    let spans = sink.take().unwrap();
    let seen: Vec<_> = (spans.iter())
        .map(|s| {
            (
                attr(s, "cascade.retry").cloned(),
                attr(s, "cascade.hedge").cloned(),
                attr(s, "cascade.outcome").cloned(),
                s.error.is_some(),
                s.end,
            )
        })
        .collect();
    let row = |retry: i64, hedge: bool, outcome: &str, error: bool, end: u64| {
        (
            Some(Value::Int(retry)),
            Some(Value::Bool(hedge)),
            Some(Value::Str(outcome.into())),
            error,
            end,
        )
    };
    assert_eq!(
        seen,
        vec![
            row(0, false, "timeout", true, 3 * MS),
            row(1, false, "unavailable", true, 5 * MS),
            row(2, true, "ok", false, 7 * MS),
            row(2, false, "abandoned", false, 7 * MS),
            row(0, false, "abandoned", false, 7 * MS),
        ]
    );
    for s in &spans {
        assert_eq!(
            (s.trace, s.parent, s.kind),
            ([7; 16], Some([9; 8]), Kind::Client)
        );
        assert_eq!((s.service.as_str(), s.name.as_str()), ("front", "back"));
        assert_eq!(attr(s, "peer.service"), Some(&Value::Str("back".into())));
    }
}

#[test]
fn a_limit_refuses_the_whole_trace() {
    let model = model();
    let sink = Arc::new(Sink::new(
        model.seed,
        Options {
            sample: 1.0,
            limit: 1,
        },
    ));
    let (_, now) = clock();
    let call = CallTrace::new([7; 16], [9; 8]);
    sink.attempt(&model, 1, &call, None, now()).answered("ok");
    sink.attempt(&model, 1, &call, None, now()).answered("ok");
    assert_eq!(sink.take().err(), Some(1));
}

/// A request as the mesh traces it (a root, the front's job, two attempts at the back, the
/// first failed) reads back through `cascade import traces` as the scenario's topology and
/// policy.
#[test]
fn mesh_spans_import_as_the_scenario() {
    let model = model();
    let sink = Arc::new(Sink::new(model.seed, Options::default()));
    let (t, now) = clock();
    let at = |ns: u64| t.store(ns, Ordering::Relaxed);
    for n in 1..=20u64 {
        let base = n * 100_000_000;
        at(base);
        let (id, ctx) = sink.root(0, n);
        let ctx = ctx.expect("a sample of 1 keeps every request");
        let to_front = sink.attempt(&model, 0, &ctx, None, now());
        let (parent, front_attempt) = to_front.headers().unwrap();
        let (trace, front_client) = parse_traceparent(&parent).unwrap();
        assert_eq!(
            (trace, front_client),
            (ctx.trace, span_id(model.seed, &front_attempt, "client"))
        );
        let front = CallTrace::new(trace, sink.server_id(&front_attempt));
        at(base + 2_000_000);
        // Every other request's first attempt at the back fails and is retried.
        let tries = if n % 2 == 0 { 2 } else { 1 };
        for k in 0..tries {
            let a = sink.attempt(&model, 1, &front, None, now());
            let (_, back_attempt) = a.headers().unwrap();
            let start = t.load(Ordering::Relaxed);
            let failed = k + 1 < tries;
            at(start + if failed { 10_000 } else { 5_000_000 });
            let outcome = if failed { "unavailable" } else { "ok" };
            sink.job(
                &model,
                (1, 0, 0),
                (trace, front.parent),
                &back_attempt,
                (start, t.load(Ordering::Relaxed)),
                outcome,
            );
            a.answered(outcome);
            at(t.load(Ordering::Relaxed) + 1_000_000);
        }
        let end = t.load(Ordering::Relaxed);
        sink.job(
            &model,
            (0, 0, 0),
            (trace, front_client),
            &front_attempt,
            (base, end),
            "ok",
        );
        to_front.answered("ok");
        sink.request(&model, 0, 0, &id, &ctx, (base, end), "ok");
    }
    let spans = sink.take().unwrap();
    // Per request a root, the front's client and server spans, two per attempt at the back.
    assert_eq!(spans.len(), 20 * 5 + 10 * 2);
    let dir = std::env::temp_dir().join(format!("cascade-mesh-trace-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(FILE);
    let text = cascade::trace_export::encode::request(&spans, 1_796_547_600_000_000_000);
    std::fs::write(&path, text).unwrap();
    let imported = cascade::import::traces::import(
        &[path.as_path()],
        &cascade::import::traces::Options::default(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    let imported = imported.unwrap().toml("import");
    let got = cascade::scenario::load_str("imported.toml", &imported, &[])
        .unwrap_or_else(|e| panic!("{e}\n{imported}"))
        .model;
    let names: Vec<_> = got.services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["back", "front"], "{imported}");
    let front = &got.services[1].operations[0].plan;
    assert_eq!(front.steps.len(), 1, "{imported}");
    assert_eq!(got.services[front.steps[0][0].to].name, "back");
    assert!(
        imported.contains("retried `back` on 10 of 20 calls, 1.5 attempts a call"),
        "{imported}"
    );
    assert!(imported.contains("retry = { attempts = 2"), "{imported}");
    // The back's work: 5 ms exactly (the failed attempts answered before any work).
    let back = &got.services[0].operations[0].plan;
    assert!((back.work.mean() - 5e6).abs() < 1e3, "{imported}");
    assert_eq!(got.services[got.clients[0].call.to].name, "front");
}
