//! What a logical call's end teaches the path's policies: the adaptive limit forgets a
//! permit no answer came back for, the budgets stop counting the call, and a breaker pass the
//! call still holds is judged (a breaker around the whole call) or given back (an attempt's,
//! never sent).

use super::{BreakerPass, PathPolicies};
use crate::breaker::Transition;
use crate::limit::LimitPermit;
use crate::outcome::Outcome;
use crate::time::Nanos;
use rand::Rng;

/// A call over, as its path's policies learn it.
#[derive(Debug)]
pub struct CallEnd {
    pub now: Nanos,
    /// How the call ended; `None` for a call dropped because whoever waited for it is gone
    /// (nothing to judge).
    pub outcome: Option<Outcome>,
    /// The failure a fallback answered: a breaker judges the dependency, not the rescue.
    pub fell_back_from: Option<Outcome>,
    /// From the call's start to its end.
    pub took: Nanos,
    /// The breaker pass the call still holds: a breaker's around the whole call
    /// (`breaker_wraps_call`), or an attempt's that was let through but never sent (a
    /// deadline or `min_attempt` ended the call while it waited for a bulkhead permit).
    pub breaker: Option<BreakerPass>,
    pub breaker_wraps_call: bool,
    /// A limit permit taken for an attempt that was never answered.
    pub limit: Option<LimitPermit>,
    /// The call's current attempt is a retry a concurrency budget counts.
    pub retry_active: bool,
}

impl<R: Rng> PathPolicies<R> {
    /// The call is over for its policies, in order: the limit permit is forgotten, the
    /// budget ends the call (and its retry), then the breaker it holds judges it or takes
    /// its pass back. A call the caller turned away itself (a bulkhead, throttle or limit
    /// refused it) never reached the dependency: a breaker around it takes its pass back
    /// unjudged. The breaker's change of state, for the caller to count.
    #[inline]
    pub fn call_ended(&mut self, end: CallEnd) -> Transition {
        if let (Some(permit), Some(limiter)) = (end.limit, self.limit.as_mut()) {
            limiter.ignore(permit);
        }
        if let Some(b) = self.budget.as_mut() {
            if end.retry_active {
                b.on_retry_end();
            }
            b.on_call_end();
        }
        let Some(BreakerPass { index, permit }) = end.breaker else {
            return Transition::None;
        };
        let breaker = &mut self.breakers[index as usize];
        let judged = end.outcome.map(|o| end.fell_back_from.unwrap_or(o));
        match judged {
            Some(judged) if end.breaker_wraps_call && !judged.is_guard_rejection() => {
                breaker.record(end.now, judged, end.took, permit)
            }
            _ => {
                breaker.release_unused(permit);
                Transition::None
            }
        }
    }
}
