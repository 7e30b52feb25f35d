//! One attempt on the wire: its copies (the attempt and its hedges) raced against its expiry
//! (`deadline::attempt_expiry`: its timeout or the call's deadline) and the hedge timer, as
//! the engine's `send_attempt`, `send_hedge`, `deliver_reply` and `attempt_expired` do. Each
//! copy carries the attempt's expiry to the callee (`CarriesDeadline`). Copies no longer
//! awaited are dropped, which cancels them: tower's way, `cancel = true` whatever the table.

use crate::carrier::CarriesDeadline;
use crate::classify::{Classified, Classify};
use crate::events::{Event, Events};
use crate::stack::Stack;
use cascade_policy::Nanos;
use cascade_policy::deadline::NO_DEADLINE;
use cascade_policy::path::HedgeVerdict;
use rand::Rng;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;
use tokio::time::{Instant, Sleep, sleep_until};
use tower::Service;

type Copy<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

/// How an attempt ended.
pub(crate) enum Ended<T, E> {
    /// A copy answered at `at`: the first success, or the last failure.
    Answered {
        at: Nanos,
        result: Result<T, E>,
        classified: Classified,
    },
    /// No answer by the attempt's expiry.
    Expired { at: Nanos },
}

/// A timer for instant `at` on the stack's clock; none for an instant that never comes.
fn timer<C, H, F, R>(stack: &Stack<C, H, F, R>, at: Nanos) -> Option<(Pin<Box<Sleep>>, Nanos)> {
    if at == NO_DEADLINE {
        return None;
    }
    let instant = stack.clock.instant(at)?;
    Some((Box::pin(sleep_until(instant)), at))
}

/// Sends a copy of `req` through `inner`, carrying the attempt's `expiry` as its deadline.
fn send_copy<S, Req, C, H, F, R>(
    stack: &Stack<C, H, F, R>,
    inner: &mut S,
    req: &mut Req,
    expiry: Nanos,
) -> Copy<S::Response, S::Error>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Future: Send,
    Req: Clone + CarriesDeadline + Send + 'static,
{
    let (mut svc, mut req) = (inner.clone(), req.clone());
    let deadline = (expiry != NO_DEADLINE)
        .then(|| stack.clock.instant(expiry))
        .flatten();
    req.set_deadline(deadline, Instant::now());
    Box::pin(async move {
        // The inner service's readiness (a connection pool's, say) is part of the attempt:
        // the attempt's expiry bounds it, as it bounds the answer.
        poll_fn(|cx| svc.poll_ready(cx)).await?;
        svc.call(req).await
    })
}

/// Runs attempt `attempt`, sent at `sent`, until a copy ends it or `expiry` passes; hedges
/// go as `PathPolicies::first_hedge` and `hedge_due` say.
pub(crate) async fn run<S, Req, C, H, F, R>(
    stack: &Stack<C, H, F, R>,
    // `&mut`: a shared reference would make the call's future `Send` only for `Sync`
    // services and requests.
    inner: &mut S,
    req: &mut Req,
    sent: Nanos,
    expiry: Nanos,
) -> Ended<S::Response, S::Error>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Future: Send,
    Req: Clone + CarriesDeadline + Send + 'static,
    C: Classify<S::Response, S::Error>,
    H: Events,
    R: Rng,
{
    let mut copies = vec![(send_copy(stack, inner, req, expiry), sent)];
    let mut expiry_timer = timer(stack, expiry);
    let hedge_cfg = stack.policy.hedge();
    let first_hedge = hedge_cfg.and_then(|cfg| {
        let mut shared = stack.lock();
        shared
            .policies
            .first_hedge(sent, cfg, stack.retry_allowed, expiry)
    });
    let mut hedge_timer = first_hedge.and_then(|at| timer(stack, at));
    let mut hedges_sent = 0u32;
    poll_fn(|cx| {
        loop {
            let mut i = 0;
            while i < copies.len() {
                let Poll::Ready(result) = copies[i].0.as_mut().poll(cx) else {
                    i += 1;
                    continue;
                };
                let copy_sent = copies.remove(i).1;
                let now = stack.clock.now();
                // An answer past the expiry came after the timer would have fired: the
                // attempt expired (the timer's wake-up is all that was late).
                if now >= expiry {
                    return Poll::Ready(Ended::Expired { at: expiry });
                }
                if let Some(tracker) = stack.lock().policies.hedge.as_mut() {
                    tracker.record(now, now - copy_sent);
                }
                let classified = stack.classifier.classify(result.as_ref());
                // The first success wins (or the last failure stands); a failed copy while
                // others run leaves the attempt waiting for them.
                if classified.outcome.is_success() || copies.is_empty() {
                    return Poll::Ready(Ended::Answered {
                        at: now,
                        result,
                        classified,
                    });
                }
            }
            if let Some((sleep, at)) = expiry_timer.as_mut()
                && sleep.as_mut().poll(cx).is_ready()
            {
                return Poll::Ready(Ended::Expired { at: *at });
            }
            // A hedge timer is only set with a hedge policy.
            let Some(((sleep, at), cfg)) = hedge_timer.as_mut().zip(hedge_cfg) else {
                return Poll::Pending;
            };
            if sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            // The hedge is decided at the instant it was due, not at the timer's wake-up.
            let at = *at;
            hedge_timer = None;
            let verdict = stack
                .lock()
                .policies
                .hedge_due(at, cfg, hedges_sent, expiry);
            match verdict {
                HedgeVerdict::Enough => {}
                HedgeVerdict::BudgetExhausted => stack.emit(at, Event::HedgeBudgetExhausted),
                HedgeVerdict::Send { next } => {
                    hedge_timer = next.and_then(|n| timer(stack, n));
                    hedges_sent += 1;
                    stack.emit(at, Event::HedgeSent);
                    copies.push((send_copy(stack, inner, req, expiry), at));
                }
            }
        }
    })
    .await
}
