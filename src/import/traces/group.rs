//! Spans into traces, with a bound on the traces open at once: a span joins its trace's
//! group; when more than `bound` traces are open the oldest-opened one is closed and handed
//! on, so memory holds at most `bound` traces whatever the file's size. A collector writes a
//! trace's spans close together, so the oldest-opened trace is almost always complete; if a
//! late span of a closed trace arrives it opens a group without its parent, which inference
//! reports with the spans cut by the file's ends.

use super::span::Span;
use std::collections::{HashMap, VecDeque};

pub struct Grouper {
    open: HashMap<u128, Vec<Span>>,
    /// Trace ids in the order they were opened.
    order: VecDeque<u128>,
    bound: usize,
}

impl Grouper {
    pub fn new(bound: usize) -> Grouper {
        Grouper {
            open: HashMap::new(),
            order: VecDeque::new(),
            bound: bound.max(1),
        }
    }

    /// Adds a span; returns the trace the bound closed, if any.
    pub fn add(&mut self, span: Span) -> Option<Vec<Span>> {
        let trace = span.trace;
        match self.open.get_mut(&trace) {
            Some(spans) => {
                spans.push(span);
                None
            }
            None => {
                self.open.insert(trace, vec![span]);
                self.order.push_back(trace);
                if self.order.len() > self.bound {
                    let oldest = self.order.pop_front()?;
                    return self.open.remove(&oldest);
                }
                None
            }
        }
    }

    /// Every trace still open, in the order they were opened (a run is reproducible).
    pub fn drain(&mut self) -> Vec<Vec<Span>> {
        let mut out = Vec::with_capacity(self.order.len());
        while let Some(t) = self.order.pop_front() {
            if let Some(spans) = self.open.remove(&t) {
                out.push(spans);
            }
        }
        out
    }

    #[cfg(test)]
    fn open(&self) -> usize {
        self.open.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::traces::span::Kind;

    fn span(trace: u128, id: u128) -> Span {
        Span {
            trace,
            id,
            parent: None,
            service: 0,
            name: 0,
            kind: Kind::Server,
            start: 0,
            end: 1,
            error: false,
            links: 0,
        }
    }

    #[test]
    fn the_oldest_trace_closes_when_the_bound_is_passed() {
        let mut g = Grouper::new(2);
        assert!(g.add(span(1, 1)).is_none());
        assert!(g.add(span(2, 2)).is_none());
        assert!(g.add(span(1, 3)).is_none());
        let closed = g.add(span(3, 4)).expect("trace 1 closes");
        assert_eq!(closed.iter().map(|s| s.id).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(g.open(), 2);
        let rest: Vec<u128> = g.drain().iter().map(|t| t[0].trace).collect();
        assert_eq!(rest, [2, 3]);
    }
}
