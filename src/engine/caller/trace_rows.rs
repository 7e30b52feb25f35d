//! The `--trace` rows of the caller's decisions, with what a replay of the call path needs in
//! their `detail` column (`key=value`, space-separated): the call's deadlines and the seed of
//! its path's random streams, every answer its attempts got, and what each policy decided.
//! `cascade-tower`'s replay tests feed these inputs through the tower stack and compare its
//! decisions with these rows. Each function is called behind `if self.trace.is_some()` and
//! kept out of line, so a run without a trace pays one branch per call site.

use super::policy_state::{path_number, state_name};
use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::{NO_DEADLINE, NO_PATH, NO_RETRY_AFTER};
use crate::engine::kernel::trace::Id;
use crate::model::Outcome;
use cascade_policy::breaker::Transition;
use cascade_policy::path::{BreakerAsked, Learned, Refusal, RetryVerdict};

/// A deadline as the detail writes it: ns, or `none`.
fn instant(ns: u64) -> String {
    if ns == NO_DEADLINE {
        "none".into()
    } else {
        ns.to_string()
    }
}

/// A breaker's change of state as the `breaker` row's detail names it.
pub fn transition_name(t: Transition) -> &'static str {
    match t {
        Transition::None => "none",
        Transition::Opened => "opened",
        Transition::Reopened => "reopened",
        Transition::HalfOpened => "half_opened",
        Transition::Closed => "closed",
    }
}

/// The policy a refusal names in the `refused` row's detail.
pub fn refusal_name(r: Refusal) -> &'static str {
    match r {
        Refusal::BreakerOpen => "breaker",
        Refusal::Throttled => "throttle",
        Refusal::Limited => "limit",
        Refusal::BulkheadFull => "bulkhead",
        Refusal::RateLimited => "rate_limit",
    }
}

impl Simulation {
    /// `call_start`: the caller's deadline C and the call's D (ns, or `none`), and its path's
    /// state name and the run's seed, from which `engine::rng::stream(seed, path, purpose)`
    /// gives the streams its policies draw from (`jitter`, `throttle`, `limit`, `accrual`).
    #[inline(never)]
    pub(in crate::engine) fn trace_call_start(&mut self, cr: Ref, caller_deadline: u64) {
        let call = self.calls.get(cr).expect("live");
        let spec = spec_of(&self.specs, call.spec);
        let path = match call.path {
            NO_PATH => "none".to_string(),
            _ => match path_number(&self.model, spec) {
                Some(n) => state_name(&self.model.edges[spec.edge].name, n, call.caller_instance),
                None => "none".to_string(),
            },
        };
        let detail = format!(
            "caller_deadline={} deadline={} path={path} seed={}",
            instant(caller_deadline),
            instant(call.deadline),
            self.model.seed
        );
        self.trace_call(cr, "call_start", "", &detail);
    }

    /// `answer`: job `jr`'s reply reaches a call that still waits for it (the attempt or one
    /// of its hedges); the detail has when the job was sent and the Retry-After it carries.
    /// Written before the job is freed.
    #[inline(never)]
    pub(in crate::engine) fn trace_answer(&mut self, jr: Ref) {
        let Some(job) = self.jobs.get(jr) else {
            return;
        };
        let (caller, sent, outcome, retry_after) =
            (job.caller, job.sent, job.outcome, job.retry_after);
        let Some(call) = self.calls.get(caller) else {
            return;
        };
        if call.current != Some(jr) && !call.hedges.contains(&Some(jr)) {
            return;
        }
        let spec = spec_of(&self.specs, call.spec);
        let entity = format!("edge.{}", self.model.edges[spec.edge].name);
        let mut detail = format!("sent={sent}");
        if retry_after != NO_RETRY_AFTER {
            detail.push_str(&format!(" retry_after={retry_after}"));
        }
        let parent = Id::Call(caller).to_string();
        self.trace_row(
            Id::Job(jr),
            &parent,
            &entity,
            "answer",
            outcome.name(),
            &detail,
        );
    }

    /// `attempt_end`: the policies are told that attempt `attempt` ended with `outcome`.
    #[inline(never)]
    pub(in crate::engine) fn trace_attempt_end(&mut self, cr: Ref, attempt: u32, outcome: Outcome) {
        let detail = format!("attempt={attempt}");
        self.trace_call(cr, "attempt_end", outcome.name(), &detail);
    }

    /// What the policies learned from an attempt's end, in the order the stack decides: the
    /// adaptive limit's new value (`limit`), the breaker's change (`breaker`), then the retry
    /// (`retry` with its wait, or `budget_exhausted`).
    #[inline(never)]
    pub(in crate::engine) fn trace_learned(&mut self, cr: Ref, path: u32, learned: &Learned) {
        if learned.limit_moved != 0 {
            let limit = (self.policies[path as usize].limit.as_ref()).map_or(0, |l| l.limit());
            let detail = format!("limit={limit} by={}", learned.limit_moved);
            self.trace_call(cr, "limit", "", &detail);
        }
        self.trace_breaker(cr, learned.breaker);
        match learned.retry {
            RetryVerdict::After(wait) => {
                let attempt = self.calls.get(cr).map_or(0, |c| c.attempt) + 1;
                let detail = format!("attempt={attempt} wait={}", wait.0);
                self.trace_call(cr, "retry", "", &detail);
            }
            RetryVerdict::BudgetExhausted => self.trace_call(cr, "budget_exhausted", "", ""),
            RetryVerdict::GiveUp => {}
        }
    }

    /// `breaker`: the path's breaker changed state (no row for no change).
    #[inline(never)]
    pub(in crate::engine) fn trace_breaker(&mut self, cr: Ref, t: Transition) {
        if t != Transition::None {
            self.trace_call(cr, "breaker", "", transition_name(t));
        }
    }

    /// What admission did to a breaker: its change of state, and a half-open probe let
    /// through (`half_open_probe`).
    #[inline(never)]
    pub(in crate::engine) fn trace_asked(&mut self, cr: Ref, asked: Option<BreakerAsked>) {
        if let Some(BreakerAsked { transition, probe }) = asked {
            self.trace_breaker(cr, transition);
            if probe {
                self.trace_call(cr, "half_open_probe", "", "");
            }
        }
    }

    /// `refused`: a guard turned the call away; the detail names it (`policy=breaker`).
    #[inline(never)]
    pub(in crate::engine) fn trace_refused(&mut self, cr: Ref, refusal: Refusal) {
        let detail = format!("policy={}", refusal_name(refusal));
        self.trace_call(cr, "refused", refusal.outcome().name(), &detail);
    }

    /// `hedge_budget_exhausted`: a hedge was due but its budget did not pay for it.
    #[inline(never)]
    pub(in crate::engine) fn trace_hedge_budget_exhausted(&mut self, cr: Ref) {
        self.trace_call(cr, "hedge_budget_exhausted", "", "");
    }

    /// `fell_back`: the call failed with `from`, and its fallback answers.
    #[inline(never)]
    pub(in crate::engine) fn trace_fell_back(&mut self, cr: Ref, from: Outcome) {
        self.trace_call(cr, "fell_back", from.name(), "");
    }
}
