//! An edge's accumulator (`EdgeAcc`): a caller's calls to one callee over a window, their
//! attempts, outcomes and latencies, and what its policies refused; apart from the clients'
//! and services' accumulators (`acc.rs`) because it is the largest.

use super::acc::{Emit, Outcomes, ratio};
use super::level::Area;
use cascade_policy::hist::LatencyHist;

#[derive(Clone, Default)]
pub struct EdgeAcc {
    pub calls: u64,
    pub attempts: u64,
    pub retries: u64,
    pub outcomes: Outcomes,
    /// From a logical call's start to its end, retries and backoff included. In the open
    /// bucket it holds the failed calls alone, the successes being in `success_latency`
    /// (`Recorder::record_call_end`); closing the bucket merges them.
    pub call_latency: LatencyHist,
    /// The same, of the calls that ended ok or degraded: a client's `success_latency_*`.
    pub success_latency: LatencyHist,
    /// From an attempt's sending to its answer or its timeout.
    pub attempt_latency: LatencyHist,
    pub rejected_breaker: u64,
    pub rejected_bulkhead: u64,
    pub budget_exhausted: u64,
    /// Hedges the hedge budget refused.
    pub hedge_budget_exhausted: u64,
    pub throttled: u64,
    pub limited: u64,
    /// Calls the caller's rate limit (a token bucket) refused.
    pub rate_limited: u64,
    pub fallbacks: u64,
    pub hedges: u64,
    pub duplicates: u64,
    /// Calls ended without an outcome: their parent job was cancelled or lost in a crash.
    pub abandoned: u64,
    pub breaker_opens: u64,
    /// Integral over time (ns × breakers) of breakers in the open state.
    pub breaker_open_area: Area,
    pub breaker_half_open_area: Area,
    /// Calls a half-open breaker let through as probes.
    pub half_open_probes: u64,
    /// Integral over time (ns × permits) of the adaptive concurrency limits on the edge.
    pub limit_area: Area,
    /// Failure accrual (`cascade-policy/src/accrual.rs`): hosts marked dead, probes sent, hosts revived,
    /// and picks made with every host marked (panic). Emitted only for an edge with a path
    /// that has `failure_accrual` (`has_accrual`).
    pub accrual_removals: u64,
    pub accrual_probes: u64,
    pub accrual_revivals: u64,
    pub accrual_panics: u64,
    pub has_accrual: bool,
}

impl EdgeAcc {
    pub fn merge(&mut self, o: &EdgeAcc) {
        self.calls += o.calls;
        self.attempts += o.attempts;
        self.retries += o.retries;
        self.outcomes.merge(&o.outcomes);
        self.call_latency.merge(&o.call_latency);
        self.success_latency.merge(&o.success_latency);
        self.attempt_latency.merge(&o.attempt_latency);
        self.rejected_breaker += o.rejected_breaker;
        self.rejected_bulkhead += o.rejected_bulkhead;
        self.budget_exhausted += o.budget_exhausted;
        self.hedge_budget_exhausted += o.hedge_budget_exhausted;
        self.throttled += o.throttled;
        self.limited += o.limited;
        self.rate_limited += o.rate_limited;
        self.limit_area += o.limit_area;
        self.fallbacks += o.fallbacks;
        self.hedges += o.hedges;
        self.duplicates += o.duplicates;
        self.abandoned += o.abandoned;
        self.breaker_opens += o.breaker_opens;
        self.breaker_open_area += o.breaker_open_area;
        self.breaker_half_open_area += o.breaker_half_open_area;
        self.half_open_probes += o.half_open_probes;
        self.accrual_removals += o.accrual_removals;
        self.accrual_probes += o.accrual_probes;
        self.accrual_revivals += o.accrual_revivals;
        self.accrual_panics += o.accrual_panics;
    }
    pub fn reset(&mut self) {
        // Keeps the histograms' allocations.
        let (mut call, mut success, mut attempt) = (
            std::mem::take(&mut self.call_latency),
            std::mem::take(&mut self.success_latency),
            std::mem::take(&mut self.attempt_latency),
        );
        call.reset();
        success.reset();
        attempt.reset();
        *self = EdgeAcc {
            call_latency: call,
            success_latency: success,
            attempt_latency: attempt,
            has_accrual: self.has_accrual,
            ..EdgeAcc::default()
        };
    }
    pub fn emit(&self, span_ns: u64, emit: Emit) {
        emit("calls", self.calls as f64);
        emit("attempts", self.attempts as f64);
        emit("retries", self.retries as f64);
        emit("hedges", self.hedges as f64);
        emit(
            "amplification",
            ratio(self.attempts as f64, self.calls as f64),
        );
        // Calls an open breaker or a full bulkhead refused before any attempt count in `calls`
        // and lower `amplification` (0.31 in a payments outage): per call that sent its first
        // attempt, the load a caller adds is this.
        let first = self.attempts - self.retries - self.hedges;
        emit(
            "amplification_sent",
            ratio(self.attempts as f64, first as f64),
        );
        self.outcomes
            .emit_all(span_ns, self.outcomes.success(), emit);
        let [call_p50, call_p99] = self.call_latency.quantiles_ms([0.5, 0.99]);
        emit("call_latency_p50_ms", call_p50);
        emit("call_latency_p99_ms", call_p99);
        emit("call_latency_mean_ms", self.call_latency.mean_ms());
        let [attempt_p50, attempt_p99] = self.attempt_latency.quantiles_ms([0.5, 0.99]);
        emit("attempt_latency_p50_ms", attempt_p50);
        emit("attempt_latency_p99_ms", attempt_p99);
        emit("attempt_latency_mean_ms", self.attempt_latency.mean_ms());
        emit("rejected_breaker", self.rejected_breaker as f64);
        emit("rejected_bulkhead", self.rejected_bulkhead as f64);
        emit("budget_exhausted", self.budget_exhausted as f64);
        emit("hedge_budget_exhausted", self.hedge_budget_exhausted as f64);
        emit("throttled", self.throttled as f64);
        emit("limited", self.limited as f64);
        emit("limit_mean", ratio(self.limit_area as f64, span_ns as f64));
        emit("rate_limited", self.rate_limited as f64);
        emit("fallbacks", self.fallbacks as f64);
        emit("duplicates", self.duplicates as f64);
        emit("abandoned", self.abandoned as f64);
        emit("breaker_opens", self.breaker_opens as f64);
        emit("breaker_open_s", self.breaker_open_area as f64 / 1e9);
        emit(
            "breaker_half_open_s",
            self.breaker_half_open_area as f64 / 1e9,
        );
        emit("half_open_probes", self.half_open_probes as f64);
        if self.has_accrual {
            emit("accrual_removals", self.accrual_removals as f64);
            emit("accrual_probes", self.accrual_probes as f64);
            emit("accrual_revivals", self.accrual_revivals as f64);
            emit("accrual_panics", self.accrual_panics as f64);
        }
    }
}
