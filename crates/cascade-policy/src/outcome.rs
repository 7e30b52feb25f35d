//! How a call ends. Every policy decides from the outcome kind.

/// The outcome of a request, an attempt or a logical call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Outcome {
    /// Answered in full.
    Ok = 0,
    /// Answered, but an optional call failed or a fallback answered.
    Degraded,
    /// An attempt's own timeout ran out.
    Timeout,
    /// The caller's deadline ran out (or had too little left to start).
    DeadlineExceeded,
    /// 503: a required dependency failed, or the service is unavailable.
    Unavailable,
    /// 429: the service had no room (its queue was full).
    Overloaded,
    /// 500.
    Internal,
    /// 400: never retried.
    Invalid,
    /// Connection refused.
    Refused,
    /// Rejected locally by an open circuit breaker.
    BreakerOpen,
    /// Rejected locally by a full bulkhead.
    BulkheadFull,
    /// Rejected locally by client-side throttling.
    Throttled,
    /// Rejected by the callee's load shedding.
    Shed,
    /// Rejected locally by an adaptive concurrency limit.
    Limited,
}

pub const OUTCOME_COUNT: usize = 14;

impl Outcome {
    pub const ALL: [Outcome; OUTCOME_COUNT] = [
        Outcome::Ok,
        Outcome::Degraded,
        Outcome::Timeout,
        Outcome::DeadlineExceeded,
        Outcome::Unavailable,
        Outcome::Overloaded,
        Outcome::Internal,
        Outcome::Invalid,
        Outcome::Refused,
        Outcome::BreakerOpen,
        Outcome::BulkheadFull,
        Outcome::Throttled,
        Outcome::Shed,
        Outcome::Limited,
    ];

    /// Outcomes that say nothing about the callee's health: answers, a request that was bad,
    /// and the caller's own local rejections. No policy retries them; no breaker counts them.
    pub const NOT_CALLEE_FAILURES: [Outcome; 7] = [
        Outcome::Ok,
        Outcome::Degraded,
        Outcome::Invalid,
        Outcome::BreakerOpen,
        Outcome::BulkheadFull,
        Outcome::Throttled,
        Outcome::Limited,
    ];

    /// The failure kinds: every outcome but ok and degraded.
    pub fn failures() -> &'static [Outcome] {
        &Self::ALL[2..]
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Degraded => "degraded",
            Outcome::Timeout => "timeout",
            Outcome::DeadlineExceeded => "deadline_exceeded",
            Outcome::Unavailable => "unavailable",
            Outcome::Overloaded => "overloaded",
            Outcome::Internal => "internal",
            Outcome::Invalid => "invalid",
            Outcome::Refused => "refused",
            Outcome::BreakerOpen => "breaker_open",
            Outcome::BulkheadFull => "bulkhead_full",
            Outcome::Throttled => "throttled",
            Outcome::Shed => "shed",
            Outcome::Limited => "limited",
        }
    }

    pub fn from_name(name: &str) -> Option<Outcome> {
        Self::ALL.iter().copied().find(|o| o.name() == name)
    }

    /// Answered ok or degraded.
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Ok | Outcome::Degraded)
    }

    /// Turned away by one of the caller's own guards that stand behind the breaker (throttle,
    /// adaptive limit, bulkhead): the call never reached its callee, so a breaker that admitted
    /// it has nothing to judge. `breaker_open` is not one of them: a breaker around the call
    /// that rejects it never admitted it, and any other `breaker_open` (a fault may answer
    /// with that kind) is the callee's answer.
    #[inline]
    pub fn is_guard_rejection(self) -> bool {
        matches!(
            self,
            Outcome::BulkheadFull | Outcome::Throttled | Outcome::Limited
        )
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_index_matches_position() {
        for (i, o) in Outcome::ALL.iter().enumerate() {
            assert_eq!(Outcome::from_name(o.name()), Some(*o));
            assert_eq!(o.index(), i);
        }
        assert_eq!(Outcome::failures().len(), OUTCOME_COUNT - 2);
        assert!(!Outcome::failures().iter().any(|o| o.is_success()));
    }

    #[test]
    fn guard_rejections_are_the_bulkhead_throttle_and_limit_ones() {
        let guards: Vec<&str> = Outcome::ALL
            .iter()
            .filter(|o| o.is_guard_rejection())
            .map(|o| o.name())
            .collect();
        assert_eq!(guards, ["bulkhead_full", "throttled", "limited"]);
        assert!(!Outcome::BreakerOpen.is_guard_rejection());
    }
}
