//! An operation's calls as scenario steps, from its tally: callees in the order its handlers
//! called them; two callees whose calls overlapped in most of the handlers that made both
//! share a `parallel` step; a step present in fewer than 99% of the handlers gets a `p`; a
//! callee called several times at once gets a `count`, several times one after the other
//! (not retries) a step repeated.

use super::tally::{Op, OpTally};
use std::collections::BTreeMap;

/// At or above this share of handlers, a step is made always (no `p`).
pub const ALWAYS: f64 = 0.99;

pub struct Call {
    pub callee: Op,
    /// Copies at once, the most usual number.
    pub count: u32,
    /// Handlers that called it.
    pub present: u64,
}

pub struct Step {
    pub calls: Vec<Call>,
    /// Share of the handlers that made the step (the most present of its calls).
    pub share: f64,
    /// Made this many times one after the other.
    pub repeat: u32,
}

/// The most frequent key (the smallest among ties).
pub fn mode(h: &BTreeMap<u32, u64>) -> u32 {
    let mut best = (1, 0);
    for (k, n) in h {
        if *n > best.1 {
            best = (*k, *n);
        }
    }
    best.0
}

/// Whether `a` and `b` overlapped in most of the handlers that called both.
fn parallel(t: &OpTally, a: Op, b: Op) -> bool {
    let key = if a <= b { (a, b) } else { (b, a) };
    t.pairs.get(&key).is_some_and(|p| 2 * p.overlap > p.both)
}

/// The steps of `t`, leaving out callees `keep` refuses (a call that would close a cycle).
pub fn steps(t: &OpTally, keep: impl Fn(Op) -> bool) -> Vec<Step> {
    let n = t.handlers().max(1) as f64;
    let mut out: Vec<Step> = Vec::new();
    for callee in ordered(t).into_iter().filter(|c| keep(*c)) {
        let c = &t.callees[&callee];
        let call = Call {
            callee,
            count: mode(&c.count),
            present: c.present,
        };
        let joins = out.last().is_some_and(|s| {
            s.repeat == 1 && s.calls.iter().any(|m| parallel(t, m.callee, callee))
        });
        let repeat = mode(&c.serial);
        if joins && repeat == 1 {
            let s = out.last_mut().expect("a step");
            s.share = s.share.max(c.present as f64 / n);
            s.calls.push(call);
        } else {
            out.push(Step {
                calls: vec![call],
                share: c.present as f64 / n,
                repeat,
            });
        }
    }
    out
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
