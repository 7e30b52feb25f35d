//! One closed trace into the tally: each handler (server) span with its own client spans,
//! the server spans under those (the calls' callees), its self time, how its calls to one
//! callee were made (copies at once, one after another, or retries), which callees it
//! called in parallel, and each edge's network time. Only the caller's own clock measures
//! the caller: self time is its duration minus the union of its client spans' intervals,
//! never its children's server spans, which carry their host's clock skew.

use super::span::{Kind, SHARED_SERVER, Span};
use super::tally::{Op, Report, Tally};
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

#[cfg(test)]
mod tests;
