//! One closed trace into the tally: each handler (server) span with its own client spans,
//! the server spans under those (the calls' callees), its self time, how its calls to one
//! callee were made (copies at once, one after another, or retries), which callees it
//! called in parallel, and each edge's network time. Only the caller's own clock measures
//! the caller: self time is its duration minus the union of its client spans' intervals,
//! never its children's server spans, which carry their host's clock skew.

use super::span::{Kind, SHARED_SERVER, Span};
use super::tally::{Op, OpTally, Report, Tally};
use std::collections::HashMap;

/// One call group of a handler: every client span to one callee operation.
struct Group {
    callee: Op,
    /// (start, end, failed) of each client span, by start.
    spans: Vec<(u64, u64, bool)>,
}

impl Group {
    fn start(&self) -> u64 {
        self.spans[0].0
    }
    fn end(&self) -> u64 {
        self.spans.iter().map(|s| s.1).max().unwrap_or(0)
    }
    /// Several spans one after the other, each but the last failed: one call retried.
    fn retries(&self) -> bool {
        self.spans.len() > 1
            && !self.overlapping()
            && self.spans[..self.spans.len() - 1].iter().all(|s| s.2)
    }

    fn overlapping(&self) -> bool {
        let mut end = 0;
        for (i, s) in self.spans.iter().enumerate() {
            if i > 0 && s.0 < end {
                return true;
            }
            end = end.max(s.1);
        }
        false
    }
}

pub fn analyse(spans: &[Span], tally: &mut Tally, report: &mut Report) {
    tally.traces += 1;
    let index: HashMap<u128, usize> = spans.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); spans.len()];
    let mut parents: Vec<Option<usize>> = vec![None; spans.len()];
    let mut orphans = 0;
    for (i, s) in spans.iter().enumerate() {
        // Under a Zipkin span shared by client and server, a span of the server's service
        // is the server's child (as Zipkin's own tree builder decides).
        let shared = s
            .parent
            .filter(|p| p & SHARED_SERVER == 0 && s.id & SHARED_SERVER == 0)
            .and_then(|p| index.get(&(p | SHARED_SERVER)))
            .filter(|&&k| spans[k].service == s.service);
        match shared.or_else(|| s.parent.and_then(|p| index.get(&p))) {
            Some(&p) if p != i => {
                children[p].push(i);
                parents[i] = Some(p);
            }
            Some(_) => orphans += 1,
            None if s.parent.is_some() => orphans += 1,
            None => {}
        }
        if matches!(s.kind, Kind::Producer | Kind::Consumer) || s.links > 0 {
            report.asynchronous += 1;
        }
    }
    for c in &mut children {
        c.sort_by_key(|&i| (spans[i].start, spans[i].id));
    }
    report.orphans += orphans;
    if orphans > 0 {
        report.orphan_traces += 1;
    }
    let parent = |i: usize| parents[i];
    // A root INTERNAL span with client spans of its own service under it is a client's
    // request, not a handler: a load generator's or a script's span around its calls (what
    // `cascade run --trace-format otlp` writes for a client). A service's handler of a request
    // is a SERVER span, as instrumentation libraries write it.
    let client_root = |i: usize| {
        let s = &spans[i];
        s.parent.is_none()
            && matches!(s.kind, Kind::Internal | Kind::Unspecified)
            && children[i]
                .iter()
                .any(|&c| spans[c].kind == Kind::Client && spans[c].service == s.service)
    };
    let handler = |i: usize| {
        let s = &spans[i];
        match s.kind {
            Kind::Server | Kind::Consumer => true,
            Kind::Client | Kind::Producer => false,
            Kind::Internal | Kind::Unspecified => match parent(i) {
                None => !client_root(i),
                Some(p) => matches!(spans[p].kind, Kind::Client) || spans[p].service != s.service,
            },
        }
    };
    for (h, hs) in spans.iter().enumerate() {
        if !handler(h) {
            continue;
        }
        // A client's request: the root of a whole trace, or the server span under a root
        // client span (a load generator's), or under the first client span of a client's
        // root span (its later ones are the client's retries); not a hand-off.
        let mut origin = None;
        let entry = orphans == 0
            && hs.links == 0
            && hs.kind != Kind::Consumer
            && match parent(h) {
                None => true,
                Some(p) if spans[p].kind == Kind::Client && spans[p].links == 0 => {
                    match parent(p) {
                        None => true,
                        Some(r) if client_root(r) => {
                            origin = Some(spans[r].service);
                            children[r].iter().find(|&&c| spans[c].kind == Kind::Client) == Some(&p)
                        }
                        Some(_) => false,
                    }
                }
                Some(_) => false,
            };
        let op: Op = (hs.service, hs.name);
        // Its own client spans: under it, through its internal spans, not past another handler.
        let mut clients = Vec::new();
        let mut stack: Vec<usize> = children[h].clone();
        while let Some(c) = stack.pop() {
            if handler(c) {
                // A handler of another service right under this one: a call without a client
                // span, measured on the callee's clock.
                report.no_client_span += 1;
                clients.push((c, Some(c)));
            } else if spans[c].kind == Kind::Client {
                let server = children[c].iter().copied().find(|&k| handler(k));
                clients.push((c, server));
            } else if spans[c].kind != Kind::Producer {
                stack.extend(children[c].iter().copied());
            }
        }
        clients.sort_by_key(|(c, _)| (spans[*c].start, spans[*c].id));
        let mut groups: Vec<Group> = Vec::new();
        let mut failed_call = false;
        // The handler's time spent waiting: its client spans, and the pauses between a
        // failed attempt and its retry (the backoff a policy simulates, not work).
        let mut waiting: Vec<(u64, u64)> = Vec::new();
        for (c, server) in &clients {
            let cs = &spans[*c];
            waiting.push((cs.start, cs.end));
            let Some(k) = server else {
                *report.missing_server.entry((op, cs.name)).or_default() += 1;
                continue;
            };
            let ss = &spans[*k];
            let callee = (ss.service, ss.name);
            if k != c {
                let edge = tally.edges.entry((hs.service, ss.service)).or_default();
                if ss.start < cs.start {
                    // The callee began before it was called: its host's clock is behind.
                    edge.skew += 1;
                }
                if ss.start >= cs.start && ss.end > cs.end {
                    // The caller stopped waiting (a timeout, an abandoned call) while the
                    // callee worked on: detached work, not skew; the two durations no longer
                    // differ by the network, so no network time from it.
                    edge.outlived += 1;
                } else if ss.duration() <= cs.duration() {
                    edge.network.add((cs.duration() - ss.duration()) / 2);
                } else {
                    report.server_longer += 1;
                }
            }
            let failed = cs.error || ss.error;
            match groups.iter_mut().find(|g| g.callee == callee) {
                Some(g) => g.spans.push((cs.start, cs.end, failed)),
                None => groups.push(Group {
                    callee,
                    spans: vec![(cs.start, cs.end, failed)],
                }),
            }
        }
        for g in &groups {
            if g.retries() {
                waiting.extend(g.spans.windows(2).map(|w| (w[0].1, w[1].0)));
            }
        }
        let busy = union(&mut waiting, hs.start, hs.end);
        let t = tally.ops.entry(op).or_default();
        t.spans += 1;
        if hs.error && clients.is_empty() {
            // Failed before doing anything (refused, shed, an injected error): the `errors`
            // fault it becomes answers on arrival, without work or calls, so it is neither
            // work nor a handler that could have called.
            t.failed_alone += 1;
        } else {
            t.self_time.add(hs.duration() - busy);
        }
        if entry {
            t.entries += 1;
            *tally.entries.entry((origin, op)).or_default() += 1;
        }
        for g in &groups {
            let c = t.callees.entry(g.callee).or_default();
            c.present += 1;
            c.offset_sum += u128::from(g.start().saturating_sub(hs.start));
            let n = g.spans.len() as u32;
            if n == 1 {
                *c.count.entry(1).or_default() += 1;
                *c.serial.entry(1).or_default() += 1;
                *c.attempts.entry(1).or_default() += 1;
                c.calls += 1;
                failed_call |= g.spans[0].2;
            } else if g.overlapping() {
                *c.count.entry(n).or_default() += 1;
                *c.serial.entry(1).or_default() += 1;
                *c.attempts.entry(1).or_default() += u64::from(n);
                c.calls += u64::from(n);
                failed_call |= g.spans.iter().any(|s| s.2);
            } else if g.retries() {
                // Retries: one call, several attempts, each after the last one failed.
                *c.count.entry(1).or_default() += 1;
                *c.serial.entry(1).or_default() += 1;
                *c.attempts.entry(n).or_default() += 1;
                c.calls += 1;
                for w in g.spans.windows(2) {
                    c.gaps.add(w[1].0.saturating_sub(w[0].1));
                }
                failed_call |= g.spans[g.spans.len() - 1].2;
            } else {
                *c.count.entry(1).or_default() += 1;
                *c.serial.entry(n).or_default() += 1;
                *c.attempts.entry(1).or_default() += u64::from(n);
                c.calls += u64::from(n);
                failed_call |= g.spans.iter().any(|s| s.2);
            }
        }
        for (i, a) in groups.iter().enumerate() {
            for b in &groups[i + 1..] {
                let key = if a.callee <= b.callee {
                    (a.callee, b.callee)
                } else {
                    (b.callee, a.callee)
                };
                let overlap = a.start() < b.end() && b.start() < a.end();
                let (first, second) = if a.callee <= b.callee { (a, b) } else { (b, a) };
                let p = t.pairs.entry(key).or_default();
                p.both += 1;
                p.overlap += u64::from(overlap);
                p.first_before += u64::from(first.start() < second.start());
                p.second_before += u64::from(second.start() < first.start());
            }
        }
        if hs.error {
            t.errors += 1;
            if !failed_call {
                t.own_errors += 1;
            }
        }
        let svc = tally.services.entry(hs.service).or_default();
        svc.first = if svc.first == 0 {
            hs.start
        } else {
            svc.first.min(hs.start)
        };
        svc.last = svc.last.max(hs.end);
        svc.busy += u128::from(hs.duration());
        if entry {
            tally.roots += 1;
            tally.first_root = if tally.first_root == 0 {
                hs.start
            } else {
                tally.first_root.min(hs.start)
            };
            tally.last_root = tally.last_root.max(hs.start);
        }
    }
}

/// The length of the union of `intervals` within [`from`, `to`).
fn union(intervals: &mut [(u64, u64)], from: u64, to: u64) -> u64 {
    intervals.sort_unstable();
    let mut total = 0;
    let mut cursor = from;
    for &(s, e) in intervals.iter() {
        let (s, e) = (s.max(cursor), e.min(to));
        if e > s {
            total += e - s;
            cursor = e;
        }
    }
    total
}

/// The callees of an operation in the order its handlers called them: by mean start offset,
/// then two neighbours swapped where the handlers that called both mostly called them the
/// other way round. The offsets alone misorder a rare call (a `p` step of a few percent): its
/// few handlers' mean offset can fall below that of a call always made before it.
pub fn ordered(t: &OpTally) -> Vec<Op> {
    let mut v: Vec<(u128, Op)> = t
        .callees
        .iter()
        .map(|(k, c)| (c.offset_sum / u128::from(c.present.max(1)), *k))
        .collect();
    v.sort();
    let mut order: Vec<Op> = v.into_iter().map(|(_, k)| k).collect();
    let before = |a: Op, b: Op| -> bool {
        let (key, flip) = if a <= b {
            ((a, b), false)
        } else {
            ((b, a), true)
        };
        t.pairs.get(&key).is_some_and(|p| {
            let (a_first, b_first) = if flip {
                (p.second_before, p.first_before)
            } else {
                (p.first_before, p.second_before)
            };
            a_first > b_first
        })
    };
    // A bounded bubble sort: the majority order need not be transitive, so no comparison sort.
    for _ in 0..order.len() {
        let mut moved = false;
        for i in 1..order.len() {
            if before(order[i], order[i - 1]) {
                order.swap(i, i - 1);
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
