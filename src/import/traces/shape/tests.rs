use super::*;
use crate::import::traces::plan::ordered;

#[allow(clippy::too_many_arguments)]
fn span(
    id: u128,
    parent: Option<u128>,
    service: u32,
    name: u32,
    kind: Kind,
    start: u64,
    end: u64,
    error: bool,
) -> Span {
    Span {
        trace: 1,
        id,
        parent,
        service,
        name,
        kind,
        start,
        end,
        error,
        links: 0,
    }
}

#[test]
fn self_time_leaves_out_parallel_calls_once_and_the_pause_before_a_retry() {
    use Kind::*;
    // api (0) at 1000..1100: calls a and b in parallel over 1010..1060, then c twice:
    // a failed attempt 1070..1075 and its retry 1085..1095.
    let spans = [
        span(1, None, 0, 0, Server, 1000, 1100, false),
        span(2, Some(1), 0, 1, Client, 1010, 1040, false),
        span(3, Some(2), 1, 1, Server, 1012, 1038, false),
        span(4, Some(1), 0, 2, Client, 1030, 1060, false),
        span(5, Some(4), 2, 2, Server, 1031, 1059, false),
        span(6, Some(1), 0, 3, Client, 1070, 1075, true),
        span(7, Some(6), 3, 3, Server, 1071, 1074, true),
        span(8, Some(1), 0, 3, Client, 1085, 1095, false),
        span(9, Some(8), 3, 3, Server, 1086, 1094, false),
    ];
    let (mut tally, mut report) = (Tally::default(), Report::default());
    analyse(&spans, &mut tally, &mut report);
    let api = &tally.ops[&(0, 0)];
    // 100 − (1010..1060: 50) − (1070..1095: 25).
    assert_eq!(api.self_time.sorted(), [25]);
    assert_eq!(api.entries, 1);
    // a and b overlapped; c was one call of two attempts, 10 after the failure.
    let pair = |a, b| {
        let p = &api.pairs[&(a, b)];
        (p.both, p.overlap, p.first_before, p.second_before)
    };
    assert_eq!(pair((1, 1), (2, 2)), (1, 1, 1, 0));
    assert_eq!(pair((1, 1), (3, 3)), (1, 0, 1, 0));
    let c = &api.callees[&(3, 3)];
    assert_eq!((c.calls, c.attempts.get(&2)), (1, Some(&1)));
    assert_eq!(c.gaps.sorted(), [10]);
    // One way: (30 − 26) / 2 on api → 1.
    assert_eq!(tally.edges[&(0, 1)].network.sorted(), [2]);
    // The callee's own failure is its own; api's status is fine.
    assert_eq!(tally.ops[&(3, 3)].own_errors, 1);
    assert_eq!(tally.roots, 1);
}

#[test]
fn a_server_span_before_its_client_span_is_skew_and_a_lone_client_span_has_no_callee() {
    use Kind::*;
    let spans = [
        span(1, None, 0, 0, Server, 1000, 1100, false),
        span(2, Some(1), 0, 1, Client, 1010, 1040, false),
        span(3, Some(2), 1, 1, Server, 1005, 1030, false),
        span(4, Some(1), 0, 2, Client, 1050, 1060, false),
    ];
    let (mut tally, mut report) = (Tally::default(), Report::default());
    analyse(&spans, &mut tally, &mut report);
    assert_eq!(tally.edges[&(0, 1)].skew, 1);
    assert_eq!(report.missing_server[&((0, 0), 2)], 1);
    // Both client spans are waiting: 100 − 30 − 10.
    assert_eq!(tally.ops[&(0, 0)].self_time.sorted(), [60]);
}

#[test]
fn a_callee_working_on_after_its_caller_timed_out_is_not_skew() {
    use Kind::*;
    // api calls db at 1010; db starts at 1020, the call times out at 1050 and db works
    // on until 1080: detached work. A second call, 1060..1070, is answered normally.
    let spans = [
        span(1, None, 0, 0, Server, 1000, 1100, false),
        span(2, Some(1), 0, 1, Client, 1010, 1050, true),
        span(3, Some(2), 1, 1, Server, 1020, 1080, false),
        span(4, Some(1), 0, 1, Client, 1085, 1095, false),
        span(5, Some(4), 1, 1, Server, 1087, 1093, false),
    ];
    let (mut tally, mut report) = (Tally::default(), Report::default());
    analyse(&spans, &mut tally, &mut report);
    let edge = &tally.edges[&(0, 1)];
    assert_eq!((edge.skew, edge.outlived), (0, 1));
    // Network time from the answered call alone: (10 − 6) / 2.
    assert_eq!(edge.network.sorted(), [2]);
    assert_eq!(report.server_longer, 0);
}

#[test]
fn a_rare_call_keeps_its_place_after_the_call_always_made_before_it() {
    use Kind::*;
    // api (0) calls cache (1) after its work, then db (2) in one handler of ten. The
    // handler that called db had little work, so db's mean start offset (2) is below
    // cache's ((9 × 50 + 1) / 10): the offsets alone put db first.
    let (mut tally, mut report) = (Tally::default(), Report::default());
    for k in 0..10u128 {
        let t0 = 1_000 * k as u64;
        let work = if k == 0 { 1 } else { 50 };
        let mut spans = vec![
            span(10 * k + 1, None, 0, 0, Server, t0, t0 + 100, false),
            span(
                10 * k + 2,
                Some(10 * k + 1),
                0,
                1,
                Client,
                t0 + work,
                t0 + work + 1,
                false,
            ),
            span(
                10 * k + 3,
                Some(10 * k + 2),
                1,
                1,
                Server,
                t0 + work,
                t0 + work + 1,
                false,
            ),
        ];
        if k == 0 {
            spans.push(span(
                10 * k + 4,
                Some(10 * k + 1),
                0,
                2,
                Client,
                t0 + 2,
                t0 + 3,
                false,
            ));
            spans.push(span(
                10 * k + 5,
                Some(10 * k + 4),
                2,
                2,
                Server,
                t0 + 2,
                t0 + 3,
                false,
            ));
        }
        analyse(&spans, &mut tally, &mut report);
    }
    assert_eq!(ordered(&tally.ops[&(0, 0)]), [(1, 1), (2, 2)]);
}

#[test]
fn a_handler_refused_before_any_work_is_no_caller_and_no_work() {
    use Kind::*;
    // api (0) calls db (1) in three handlers; a fourth is refused at once (ERROR, no
    // client span): db is called in every handler that worked, and the refusal's zero
    // self time is not work.
    let (mut tally, mut report) = (Tally::default(), Report::default());
    for k in 0..3u128 {
        let t0 = 1_000 * k as u64;
        analyse(
            &[
                span(10 * k + 1, None, 0, 0, Server, t0, t0 + 100, false),
                span(
                    10 * k + 2,
                    Some(10 * k + 1),
                    0,
                    1,
                    Client,
                    t0 + 50,
                    t0 + 90,
                    false,
                ),
                span(
                    10 * k + 3,
                    Some(10 * k + 2),
                    1,
                    1,
                    Server,
                    t0 + 55,
                    t0 + 85,
                    false,
                ),
            ],
            &mut tally,
            &mut report,
        );
    }
    analyse(
        &[span(99, None, 0, 0, Server, 5_000, 5_000, true)],
        &mut tally,
        &mut report,
    );
    let api = &tally.ops[&(0, 0)];
    assert_eq!((api.spans, api.failed_alone, api.handlers()), (4, 1, 3));
    assert_eq!(api.self_time.sorted(), [60, 60, 60]);
    assert_eq!(api.own_errors, 1);
    let steps = crate::import::traces::plan::steps(api, |_| true);
    assert_eq!(steps[0].share, 1.0);
}
