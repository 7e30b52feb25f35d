//! A logical call through the stack, step by step as the engine moves one
//! (`cascade/src/engine/caller/`): its deadline from the request, admission of the call, then
//! each attempt (deadline check, guards, a wait in the bulkhead's line, the attempt on the
//! wire), the retry's verdict and its backoff, and the end: the answer, the stack's own
//! failure, or the fallback's answer. Every decision is a call into cascade-policy; this file
//! only waits.
//!
//! Time: decisions take the instants they were computed for (an attempt's expiry, a backoff's
//! end, a wait's limit), not the instant a timer woke up, so tokio's millisecond timer never
//! changes one. What remains is the order of an answer and a timer due within the same wake-up
//! (an answer at or past the expiry counts as the expiry), and an answer's own instant, read
//! from the clock when it comes.

use crate::attempt::{self, Ended};
use crate::call_state::{CallState, Step};
use crate::carrier::CarriesDeadline;
use crate::classify::{Classified, Classify};
use crate::error::CascadeError;
use crate::events::{Event, Events};
use crate::fallback::Fallback;
use crate::stack::Stack;
use cascade_policy::Nanos;
use cascade_policy::deadline::{NO_DEADLINE, attempt_expiry, attempt_may_start};
use cascade_policy::outcome::Outcome;
use cascade_policy::path::{Refusal, RetryVerdict};
use rand::Rng;
use std::future::poll_fn;
use std::pin::pin;
use std::task::Poll;
use tokio::sync::oneshot;
use tokio::time::{Instant, sleep_until};
use tower::Service;

type Answer<T, E> = Option<Result<T, E>>;

/// Runs one call of `req` through `inner`.
pub(crate) async fn run<S, Req, C, H, F, R>(
    stack: &Stack<C, H, F, R>,
    mut inner: S,
    mut req: Req,
) -> Result<S::Response, CascadeError<S::Error>>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Future: Send,
    Req: Clone + CarriesDeadline + Send + 'static,
    C: Classify<S::Response, S::Error>,
    H: Events,
    F: Fallback<S::Response>,
    R: Rng,
{
    let clock = stack.clock;
    let arrival = Instant::now();
    let mut now = clock.nanos_at(arrival);
    let caller_deadline = (req.deadline(arrival)).map_or(NO_DEADLINE, |d| clock.nanos_at(d));
    let mut call = CallState::new(stack, now, caller_deadline);
    stack.emit(now, Event::CallStarted);
    match call.admit_call(now) {
        Step::Go => {}
        Step::Refused(r) => return finish(call, now, r.outcome(), None).await,
        // The first attempt starts when the permit around the whole call is handed over.
        Step::Wait(rx, until) => match wait_in_line(stack, rx, until).await {
            Ok(at) => {
                call.permit_granted();
                now = at;
            }
            Err(at) if call.wait_over(at) => {
                let outcome = waited_too_long(&call, at);
                return finish(call, at, outcome, None).await;
            }
            // Handed the permit at the instant its wait ended.
            Err(at) => now = at,
        },
    }
    let policy = &stack.policy;
    loop {
        call.attempt += 1;
        if !attempt_may_start(now, call.deadline, policy.min_attempt()) {
            // Too little time left to start: fail fast, sending nothing.
            return finish(call, now, Outcome::DeadlineExceeded, None).await;
        }
        match call.admit_attempt(now) {
            Step::Go => {}
            Step::Refused(r) => return finish(call, now, r.outcome(), None).await,
            Step::Wait(rx, until) => {
                let at = match wait_in_line(stack, rx, until).await {
                    Ok(at) => {
                        call.permit_granted();
                        at
                    }
                    Err(at) if call.wait_over(at) => {
                        call.release_unused_breaker();
                        let outcome = waited_too_long(&call, at);
                        return finish(call, at, outcome, None).await;
                    }
                    // Handed the permit at the instant its wait ended.
                    Err(at) => at,
                };
                now = at;
                if !attempt_may_start(now, call.deadline, policy.min_attempt()) {
                    // Never sent: the breaker's pass goes back before any fallback runs.
                    call.release_unused_breaker();
                    return finish(call, now, Outcome::DeadlineExceeded, None).await;
                }
            }
        }
        let retry_timeout = policy.retry().and_then(|r| r.timeout());
        let expiry = attempt_expiry(
            now,
            call.attempt,
            policy.timeout(),
            retry_timeout,
            call.deadline,
        );
        call.attempt_started = now;
        stack.emit(
            now,
            Event::AttemptSent {
                attempt: call.attempt,
            },
        );
        let (at, classified, answer) =
            match attempt::run(stack, &mut inner, &mut req, now, expiry).await {
                Ended::Answered {
                    at,
                    result,
                    classified,
                } => (at, classified, Some(result)),
                Ended::Expired { at } => {
                    let outcome = match call.deadline <= at {
                        true => Outcome::DeadlineExceeded,
                        false => Outcome::Timeout,
                    };
                    (at, Classified::unanswered(outcome), None)
                }
            };
        let outcome = classified.outcome;
        match call.attempt_ended(at, classified) {
            RetryVerdict::After(wait) => {
                now = at.saturating_add(wait);
                if let Some(instant) = clock.instant(now) {
                    sleep_until(instant).await;
                }
            }
            RetryVerdict::BudgetExhausted | RetryVerdict::GiveUp => {
                return finish(call, at, outcome, answer).await;
            }
        }
    }
}

/// A wait in the bulkhead's line that ended at `at` without a permit: the deadline's failure
/// if it came first, else the bulkhead's refusal.
fn waited_too_long<C, H: Events, F, R: Rng>(
    call: &CallState<'_, C, H, F, R>,
    at: Nanos,
) -> Outcome {
    if call.deadline <= at {
        Outcome::DeadlineExceeded
    } else {
        call.stack.emit(at, Event::Refused(Refusal::BulkheadFull));
        Outcome::BulkheadFull
    }
}

/// Waits for the permit the bulkhead hands over (`Ok`, with the instant it was handed) until
/// `until` (`Err(until)`).
async fn wait_in_line<C, H, F, R>(
    stack: &Stack<C, H, F, R>,
    rx: oneshot::Receiver<Nanos>,
    until: Nanos,
) -> Result<Nanos, Nanos> {
    let mut rx = pin!(rx);
    let mut timer = stack.clock.instant(until).map(|i| Box::pin(sleep_until(i)));
    poll_fn(|cx| {
        if let Poll::Ready(handed) = rx.as_mut().poll(cx) {
            // A sender dropped unsent means the line is gone: the wait is over.
            return Poll::Ready(handed.map_err(|_| until));
        }
        match timer.as_mut().map(|t| t.as_mut().poll(cx)) {
            Some(Poll::Ready(())) => Poll::Ready(Err(until)),
            _ => Poll::Pending,
        }
    })
    .await
}

/// The call ends at `now` with `outcome` (and the last attempt's answer, if one ended it),
/// unless its fallback answers this failure: then after the fallback's `latency`, unless the
/// caller's own deadline comes first.
async fn finish<T, E, C, H, F, R>(
    mut call: CallState<'_, C, H, F, R>,
    now: Nanos,
    outcome: Outcome,
    answer: Answer<T, E>,
) -> Result<T, CascadeError<E>>
where
    H: Events,
    F: Fallback<T>,
    R: Rng,
{
    let stack = call.stack;
    let fallback = (stack.policy.fallback()).filter(|f| f.answers(outcome, call.fell_back()));
    if let Some(f) = fallback
        && let Some(response) = stack.fallback.answer(outcome)
    {
        call.fall_back(now, outcome);
        let at = (now.saturating_add(f.latency()))
            .min(call.caller_deadline)
            .max(now);
        if let Some(instant) = stack.clock.instant(at) {
            sleep_until(instant).await;
        }
        if call.caller_deadline <= at {
            call.complete(at, Outcome::DeadlineExceeded);
            return Err(CascadeError::DeadlineExceeded);
        }
        call.complete(at, Outcome::Degraded);
        return Ok(response);
    }
    call.complete(now, outcome);
    match answer {
        Some(Ok(response)) => Ok(response),
        Some(Err(e)) => Err(CascadeError::Inner(e)),
        None => Err(match outcome {
            Outcome::BreakerOpen => CascadeError::Refused(Refusal::BreakerOpen),
            Outcome::Throttled => CascadeError::Refused(Refusal::Throttled),
            Outcome::Limited => CascadeError::Refused(Refusal::Limited),
            Outcome::BulkheadFull => CascadeError::Refused(Refusal::BulkheadFull),
            Outcome::RateLimited => CascadeError::Refused(Refusal::RateLimited),
            Outcome::Timeout => CascadeError::Timeout,
            _ => CascadeError::DeadlineExceeded,
        }),
    }
}
