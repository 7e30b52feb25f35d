//! One call's holds on its path's policies, and each step that asks or tells them, in the
//! engine's order (`cascade/src/engine/caller/`: `admit_call`, `try_guarded_attempt`,
//! `finish_attempt_in_policies`, `end_call_in_policies`). Dropping a call that has not ended
//! (its caller went away) ends it for the policies as the engine's `drop_call` does: its
//! permits and its place in the bulkhead's line go back, unjudged.

use crate::classify::Classified;
use crate::events::{Event, Events};
use crate::stack::Stack;
use cascade_policy::Nanos;
use cascade_policy::bulkhead::Wraps;
use cascade_policy::limit::LimitPermit;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::{
    Admitted, AttemptEnd, BreakerAsked, BreakerPass, BulkheadPlace, CallAdmitted, CallEnd, Refusal,
    RetryVerdict,
};
use cascade_policy::retry::RetryInput;
use rand::Rng;
use tokio::sync::oneshot;

/// What admission says.
pub(crate) enum Step {
    /// Go on: the call, or its attempt, may be sent.
    Go,
    /// Wait in the bulkhead's line until the permit is handed over (the receiver says when)
    /// or the instant given, whichever is first.
    Wait(oneshot::Receiver<Nanos>, Nanos),
    Refused(Refusal),
}

pub(crate) struct CallState<'a, C, H: Events, F, R: Rng> {
    pub stack: &'a Stack<C, H, F, R>,
    pub started: Nanos,
    /// Whoever waits for the call must answer by then (C): a fallback answers before it.
    pub caller_deadline: Nanos,
    /// The call's own deadline (D = C less `reserve`).
    pub deadline: Nanos,
    /// The current attempt (1-based; 0 before the first).
    pub attempt: u32,
    pub attempt_started: Nanos,
    pub last_delay: Nanos,
    breaker: Option<BreakerPass>,
    limit: Option<LimitPermit>,
    holds_permit: bool,
    /// The permit held covers the whole call (`bulkhead.wraps = "call"`).
    call_permit: bool,
    /// Its number in the bulkhead's line, while it waits there.
    waiting: Option<u64>,
    retry_active: bool,
    fallback_from: Option<Outcome>,
    over: bool,
}

impl<'a, C, H: Events, F, R: Rng> CallState<'a, C, H, F, R> {
    pub(crate) fn new(stack: &'a Stack<C, H, F, R>, now: Nanos, caller_deadline: Nanos) -> Self {
        let policy = &stack.policy;
        let deadline = cascade_policy::deadline::call_deadline(
            caller_deadline,
            policy.reserve(),
            policy.propagate_deadline(),
        );
        let deadline =
            cascade_policy::deadline::bounded_by_total(deadline, now, policy.total_timeout());
        CallState {
            stack,
            started: now,
            // A call that does not take its caller's deadline has none to answer by either.
            caller_deadline: match policy.propagate_deadline() {
                true => caller_deadline,
                false => cascade_policy::deadline::NO_DEADLINE,
            },
            deadline,
            attempt: 0,
            attempt_started: now,
            last_delay: Nanos::ZERO,
            breaker: None,
            limit: None,
            holds_permit: false,
            call_permit: false,
            waiting: None,
            retry_active: false,
            fallback_from: None,
            over: false,
        }
    }

    /// Tells the events what admission did to a breaker.
    fn asked(&self, now: Nanos, asked: Option<BreakerAsked>) {
        if let Some(BreakerAsked { transition, probe }) = asked {
            if transition != cascade_policy::breaker::Transition::None {
                self.stack.emit(now, Event::Breaker(transition));
            }
            if probe {
                self.stack.emit(now, Event::HalfOpenProbe);
            }
        }
    }

    /// The instant a wait in the bulkhead's line ends at most: `max_wait` from `now`, never
    /// past the deadline, never before now.
    fn wait_until(&self, now: Nanos, max_wait: Nanos) -> Nanos {
        now.saturating_add(max_wait).min(self.deadline).max(now)
    }

    /// The call starts: budgets count it, a breaker and a bulkhead around the whole call are
    /// asked (`PathPolicies::admit_call`).
    pub(crate) fn admit_call(&mut self, now: Nanos) -> Step {
        let stack = self.stack;
        let policy = &stack.policy;
        let mut shared = stack.lock();
        let id = shared.next_waiter;
        shared.next_waiter += 1;
        let s = &mut *shared;
        let bulkhead = (s.bulkhead.as_mut())
            .filter(|_| policy.bulkhead_wraps_call())
            .map(|b| (b, id));
        let mut asked = None;
        let admitted =
            s.policies
                .admit_call(now, policy.breaker_wraps(Wraps::Call), bulkhead, &mut asked);
        self.asked(now, asked);
        match admitted {
            Ok(CallAdmitted { breaker, bulkhead }) => {
                self.breaker = breaker;
                self.place(&mut shared, now, bulkhead, id)
            }
            Err(refusal) => {
                stack.emit(now, Event::Refused(refusal));
                Step::Refused(refusal)
            }
        }
    }

    /// Attempt `self.attempt` asks the guards in order (`PathPolicies::admit`): breaker,
    /// throttle, adaptive limit, bulkhead. One downstream: a breaker per host is one breaker.
    pub(crate) fn admit_attempt(&mut self, now: Nanos) -> Step {
        let stack = self.stack;
        let policy = &stack.policy;
        let ask = (policy.breaker()).and_then(|b| b.ask_for(self.attempt, 0));
        let mut shared = stack.lock();
        let id = shared.next_waiter;
        shared.next_waiter += 1;
        let s = &mut *shared;
        // A permit around the whole call is already held.
        let bulkhead = (s.bulkhead.as_mut())
            .filter(|_| !policy.bulkhead_wraps_call())
            .map(|b| (b, id));
        let mut asked = None;
        let admitted = s.policies.admit(now, ask, bulkhead, &mut asked);
        self.asked(now, asked);
        match admitted {
            Ok(Admitted {
                breaker,
                limit,
                bulkhead,
            }) => {
                self.limit = limit;
                // A breaker around the whole call keeps the pass `admit_call` gave it.
                if ask.is_some() {
                    self.breaker = breaker;
                }
                self.place(&mut shared, now, bulkhead, id)
            }
            Err(refusal) => {
                stack.emit(now, Event::Refused(refusal));
                Step::Refused(refusal)
            }
        }
    }

    /// Where the bulkhead put the call: a permit held, or a place in line as waiter `id`.
    fn place(
        &mut self,
        shared: &mut crate::stack::Shared<R>,
        now: Nanos,
        place: BulkheadPlace,
        id: u64,
    ) -> Step {
        match place {
            BulkheadPlace::Unasked => Step::Go,
            BulkheadPlace::Held => {
                self.permit_granted();
                Step::Go
            }
            BulkheadPlace::Waiting => {
                let (tx, rx) = oneshot::channel();
                shared.waiters.insert(id, tx);
                self.waiting = Some(id);
                let max_wait = shared
                    .bulkhead
                    .as_ref()
                    .map_or(Nanos::ZERO, |b| b.max_wait());
                Step::Wait(rx, self.wait_until(now, max_wait))
            }
        }
    }

    /// The bulkhead's permit is the call's: for the whole call before its first attempt, else
    /// for the current attempt.
    pub(crate) fn permit_granted(&mut self) {
        self.waiting = None;
        self.holds_permit = true;
        if self.attempt == 0 {
            self.call_permit = true;
        }
    }

    /// The wait in line is over at `at`: true if the call left the line, false if the
    /// bulkhead handed it the permit at that very instant (it holds it now).
    pub(crate) fn wait_over(&mut self, at: Nanos) -> bool {
        let Some(id) = self.waiting else {
            return false;
        };
        let left = self.stack.lock().leave_line(at, id);
        self.waiting = None;
        if !left {
            self.permit_granted();
        }
        left
    }

    /// The attempt was let through but is never sent: a per-attempt breaker takes its pass
    /// back (a half-open probe's place).
    pub(crate) fn release_unused_breaker(&mut self) {
        if self.stack.policy.breaker_wraps(Wraps::Attempt) {
            let pass = self.breaker.take();
            self.stack.lock().policies.release_unused(pass);
        }
    }

    /// The current attempt ended at `at` with `outcome`: its bulkhead permit goes back (one
    /// around the whole call stays), the policies learn in order and the retry decides
    /// (`PathPolicies::attempt_ended`).
    pub(crate) fn attempt_ended(&mut self, at: Nanos, answer: Classified) -> RetryVerdict {
        let Classified {
            outcome,
            retry_after,
            server_refuses_retry,
        } = answer;
        let stack = self.stack;
        let policy = &stack.policy;
        let mut shared = stack.lock();
        if self.holds_permit && !self.call_permit {
            shared.hand_back_permit(at);
        }
        self.holds_permit = self.call_permit;
        let end = AttemptEnd {
            now: at,
            outcome,
            took: at.saturating_sub(self.attempt_started),
            breaker: match policy.breaker_wraps(Wraps::Attempt) {
                true => self.breaker.take(),
                false => None,
            },
            limit: self.limit.take(),
            was_retry: std::mem::take(&mut self.retry_active),
        };
        let retry = (policy.retry().filter(|_| !outcome.is_success())).map(|r| {
            let input = RetryInput {
                outcome,
                attempt: self.attempt,
                retry_allowed: stack.retry_allowed,
                retry_after,
                server_refuses_retry,
                now: at,
                deadline: self.deadline,
                min_attempt: policy.min_attempt(),
                last_delay: self.last_delay,
            };
            (r, input)
        });
        let learned = shared.policies.attempt_ended(end, retry);
        if learned.limit_moved != 0 {
            let limit = shared.policies.limit.as_ref().map_or(0, |l| l.limit());
            let by = learned.limit_moved;
            stack.emit(at, Event::LimitMoved { limit, by });
        }
        if learned.breaker != cascade_policy::breaker::Transition::None {
            stack.emit(at, Event::Breaker(learned.breaker));
        }
        match learned.retry {
            RetryVerdict::After(wait) => {
                self.last_delay = wait;
                // A budget counts the retry as active until its attempt ends.
                self.retry_active = shared.policies.budget.is_some();
                let attempt = self.attempt + 1;
                stack.emit(at, Event::RetryScheduled { attempt, wait });
            }
            RetryVerdict::BudgetExhausted => stack.emit(at, Event::BudgetExhausted),
            RetryVerdict::GiveUp => {}
        }
        learned.retry
    }

    /// The call fell back at `now` from `outcome`: a permit around the whole call goes back
    /// first (the fallback stands outside the bulkhead).
    pub(crate) fn fall_back(&mut self, now: Nanos, outcome: Outcome) {
        if self.call_permit {
            self.stack.lock().hand_back_permit(now);
            (self.holds_permit, self.call_permit) = (false, false);
        }
        self.fallback_from = Some(outcome);
        self.stack.emit(now, Event::FellBack { from: outcome });
    }

    /// Whether the call already fell back (a fallback answers once).
    pub(crate) fn fell_back(&self) -> bool {
        self.fallback_from.is_some()
    }

    /// The call ended at `now` with `outcome`.
    pub(crate) fn complete(&mut self, now: Nanos, outcome: Outcome) {
        self.end(now, Some(outcome));
        let took = now.saturating_sub(self.started);
        self.stack.emit(now, Event::CallEnded { outcome, took });
    }

    /// The call is over for its policies (`PathPolicies::call_ended`), with `outcome` (none:
    /// dropped): its place in line or its permit goes back, then the limit, budgets and the
    /// breaker it holds settle.
    fn end(&mut self, now: Nanos, outcome: Option<Outcome>) {
        self.over = true;
        let stack = self.stack;
        let mut shared = stack.lock();
        let handed = match self.waiting.take() {
            Some(id) => !shared.leave_line(now, id),
            None => false,
        };
        if handed || self.holds_permit {
            shared.hand_back_permit(now);
        }
        (self.holds_permit, self.call_permit) = (false, false);
        let transition = shared.policies.call_ended(CallEnd {
            now,
            outcome,
            fell_back_from: self.fallback_from,
            took: now.saturating_sub(self.started),
            breaker: self.breaker.take(),
            breaker_wraps_call: stack.policy.breaker_wraps(Wraps::Call),
            limit: self.limit.take(),
            retry_active: self.retry_active,
        });
        if transition != cascade_policy::breaker::Transition::None {
            stack.emit(now, Event::Breaker(transition));
        }
    }
}

impl<C, H: Events, F, R: Rng> Drop for CallState<'_, C, H, F, R> {
    fn drop(&mut self) {
        if !self.over {
            let now = self.stack.clock.now();
            self.end(now, None);
        }
    }
}
