//! What the traces add up to, kept per operation, per call and per edge as they are closed:
//! counts and bounded samples, never the spans themselves. Keys are interned names, which
//! number in order of first appearance, so iteration (and the output) is reproducible.

use super::samples::Samples;
use std::collections::BTreeMap;

/// An operation: (service, normalised span name), interned.
pub type Op = (u32, u32);

#[derive(Debug, Default)]
pub struct Tally {
    pub ops: BTreeMap<Op, OpTally>,
    /// (caller service, callee service).
    pub edges: BTreeMap<(u32, u32), EdgeTally>,
    pub services: BTreeMap<u32, ServiceTally>,
    /// Requests by (the client's service when a client's root span sent them, entry
    /// operation).
    pub entries: BTreeMap<(Option<u32>, Op), u64>,
    /// Entry operations of whole traces (their root), and when the first and last began.
    pub roots: u64,
    pub first_root: u64,
    pub last_root: u64,
    pub traces: u64,
}

#[derive(Debug, Default)]
pub struct OpTally {
    /// Server spans (handlers) of the operation.
    pub spans: u64,
    /// Duration minus the union of its own client spans, on its own clock.
    pub self_time: Samples,
    pub errors: u64,
    /// Errors not explained by a failed call: its own.
    pub own_errors: u64,
    /// Errors with no client span at all (refused, shed): no work, and no call they could
    /// have made, so left out of the self time and of the calls' shares.
    pub failed_alone: u64,
    /// As the root of a trace: a client's request.
    pub entries: u64,
    pub callees: BTreeMap<Op, CalleeTally>,
    /// For each pair of callees (the smaller first), how the handlers that called both did.
    pub pairs: BTreeMap<(Op, Op), Pair>,
}

#[derive(Debug, Default)]
pub struct Pair {
    /// Handlers that called both.
    pub both: u64,
    /// Those whose calls to the two overlapped in time (parallel).
    pub overlap: u64,
    /// Those that called the pair's first callee first, and its second first.
    pub first_before: u64,
    pub second_before: u64,
}

impl OpTally {
    /// Server spans that got as far as their work: those a call's share is of.
    pub fn handlers(&self) -> u64 {
        self.spans - self.failed_alone
    }
}

#[derive(Debug, Default)]
pub struct CalleeTally {
    /// Handlers that called it at least once.
    pub present: u64,
    /// Copies at once (parallel calls to it), by handler.
    pub count: BTreeMap<u32, u64>,
    /// Calls one after the other that were not retries, by handler.
    pub serial: BTreeMap<u32, u64>,
    /// Start of the first call after the handler's start, summed (to order the steps).
    pub offset_sum: u128,
    /// Calls, and those with more than one attempt (retries), by attempts.
    pub calls: u64,
    pub attempts: BTreeMap<u32, u64>,
    /// Between one failed attempt's end and the next attempt's start.
    pub gaps: Samples,
}

#[derive(Debug, Default)]
pub struct EdgeTally {
    /// (client span − server span) / 2, one way.
    pub network: Samples,
    /// Server spans that began before their client span: the callee's clock is behind.
    pub skew: u64,
    /// Server spans that ended after their client span (begun within it): the caller stopped
    /// waiting first, a timeout or an abandoned call, and the callee worked on.
    pub outlived: u64,
}

#[derive(Debug, Default)]
pub struct ServiceTally {
    pub first: u64,
    pub last: u64,
    /// Server time summed (Little's law: in flight = busy / time span).
    pub busy: u128,
}

/// What could not be used, counted.
#[derive(Debug, Default)]
pub struct Report {
    /// Spans without an end (still running when the file was written).
    pub unfinished: u64,
    /// Spans whose parent is not in the file (cut by the file's start, or their trace was
    /// closed by the open-traces bound), and the traces they were in.
    pub orphans: u64,
    pub orphan_traces: u64,
    /// Client spans with no server span under them, by (caller operation, client span name).
    pub missing_server: BTreeMap<(Op, u32), u64>,
    /// Producer and consumer spans, and links other than the parent: hand-offs, not calls.
    pub asynchronous: u64,
    /// Server spans longer than their client span (clock or instrumentation at odds).
    pub server_longer: u64,
    /// A handler directly under a handler of another service, no client span between.
    pub no_client_span: u64,
}
