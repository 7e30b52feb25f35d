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
    /// Refused by a rate limiter (a token bucket out of tokens; Envoy's 429 with
    /// `x-envoy-ratelimited`).
    RateLimited,
}

pub const OUTCOME_COUNT: usize = 15;

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
        Outcome::RateLimited,
    ];

    /// Outcomes that say nothing about the callee's health: answers, a request that was bad,
    /// and the caller's own local rejections. No policy retries them; no breaker counts them.
    pub const NOT_CALLEE_FAILURES: [Outcome; 8] = [
        Outcome::Ok,
        Outcome::Degraded,
        Outcome::Invalid,
        Outcome::BreakerOpen,
        Outcome::BulkheadFull,
        Outcome::Throttled,
        Outcome::Limited,
        Outcome::RateLimited,
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
            Outcome::RateLimited => "rate_limited",
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
    /// adaptive limit, bulkhead, rate limit): the call never reached its callee, so a breaker that admitted
    /// it has nothing to judge. `breaker_open` is not one of them: a breaker around the call
    /// that rejects it never admitted it, and any other `breaker_open` (a fault may answer
    /// with that kind) is the callee's answer.
    #[inline]
    pub fn is_guard_rejection(self) -> bool {
        matches!(
            self,
            Outcome::BulkheadFull | Outcome::Throttled | Outcome::Limited | Outcome::RateLimited
        )
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The kind of an HTTP response status, for a service that maps its answers into the
    /// vocabulary the policies decide on. Read as Envoy's retry conditions read statuses
    /// (`gateway-error` is 502, 503 and 504; `5xx` every 5xx): 1xx–3xx answered; 429
    /// overloaded; 502 and 503 unavailable; 504 a timeout (upstream's, as the gateway saw
    /// it), and 408 too (the server gave up waiting: the AWS SDKs and Google's clients retry
    /// it as a transient failure); other 5xx internal; other 4xx, and anything outside 100–599, invalid (never
    /// retried, never counted by a breaker).
    pub fn from_http_status(status: u16) -> Outcome {
        match status {
            100..=399 => Outcome::Ok,
            429 => Outcome::Overloaded,
            502 | 503 => Outcome::Unavailable,
            408 | 504 => Outcome::Timeout,
            500..=599 => Outcome::Internal,
            _ => Outcome::Invalid,
        }
    }

    /// The kind of a gRPC status code (by number, as in `grpc/status.h`): the four codes
    /// gRPC's retry policy (A6) names map as `cascade import grpc` reads them (14
    /// UNAVAILABLE, 8 RESOURCE_EXHAUSTED → overloaded, 13 INTERNAL, 4 DEADLINE_EXCEEDED);
    /// server-side failures without a kind of their own (2 UNKNOWN, 15 DATA_LOSS) are
    /// internal; 0 OK is answered; every other code (CANCELLED, INVALID_ARGUMENT, NOT_FOUND,
    /// …, and numbers past 16) says the request, not the callee, is at fault: invalid.
    pub fn from_grpc_code(code: i32) -> Outcome {
        match code {
            0 => Outcome::Ok,
            4 => Outcome::DeadlineExceeded,
            8 => Outcome::Overloaded,
            14 => Outcome::Unavailable,
            2 | 13 | 15 => Outcome::Internal,
            _ => Outcome::Invalid,
        }
    }

    /// The kind of a transport error: a refused connection is refused (Envoy's
    /// `connect-failure`), an I/O timeout a timeout, a connection lost or never made
    /// (reset, aborted, broken pipe, not connected, early end of stream) unavailable, any
    /// other error internal.
    pub fn from_io_error_kind(kind: std::io::ErrorKind) -> Outcome {
        use std::io::ErrorKind as K;
        match kind {
            K::ConnectionRefused => Outcome::Refused,
            K::TimedOut => Outcome::Timeout,
            K::ConnectionReset
            | K::ConnectionAborted
            | K::BrokenPipe
            | K::NotConnected
            | K::UnexpectedEof => Outcome::Unavailable,
            _ => Outcome::Internal,
        }
    }
}

/// A set of outcome kinds: what a retry retries (`RetryPolicy::on`), what a breaker counts as a
/// failure (`BreakerConfig::count`), what sends a call to its fallback. One bit per kind, so a
/// test on the hot path is a shift and a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OutcomeSet(u16);

impl OutcomeSet {
    /// No kind at all.
    pub const EMPTY: OutcomeSet = OutcomeSet(0);

    /// The set of `kinds`.
    pub const fn of(kinds: &[Outcome]) -> OutcomeSet {
        let mut bits = 0;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1 << kinds[i] as u16;
            i += 1;
        }
        OutcomeSet(bits)
    }

    #[inline]
    pub fn contains(self, outcome: Outcome) -> bool {
        self.0 & (1 << outcome as u16) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds in both sets.
    pub fn intersection(self, other: OutcomeSet) -> OutcomeSet {
        OutcomeSet(self.0 & other.0)
    }

    /// The kinds in the set, in `Outcome::ALL`'s order.
    pub fn iter(self) -> impl Iterator<Item = Outcome> {
        Outcome::ALL.into_iter().filter(move |o| self.contains(*o))
    }
}

impl FromIterator<Outcome> for OutcomeSet {
    fn from_iter<I: IntoIterator<Item = Outcome>>(kinds: I) -> OutcomeSet {
        OutcomeSet(kinds.into_iter().fold(0, |bits, o| bits | 1 << o as u16))
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
    fn guard_rejections_are_the_bulkhead_throttle_limit_and_rate_limit_ones() {
        let guards: Vec<&str> = Outcome::ALL
            .iter()
            .filter(|o| o.is_guard_rejection())
            .map(|o| o.name())
            .collect();
        assert_eq!(
            guards,
            ["bulkhead_full", "throttled", "limited", "rate_limited"]
        );
        assert!(!Outcome::BreakerOpen.is_guard_rejection());
    }

    #[test]
    fn http_grpc_and_io_errors_map_to_kinds() {
        let http: Vec<(u16, &str)> = [200, 304, 400, 404, 408, 429, 500, 501, 502, 503, 504, 600]
            .into_iter()
            .map(|s| (s, Outcome::from_http_status(s).name()))
            .collect();
        assert_eq!(
            http,
            [
                (200, "ok"),
                (304, "ok"),
                (400, "invalid"),
                (404, "invalid"),
                (408, "timeout"),
                (429, "overloaded"),
                (500, "internal"),
                (501, "internal"),
                (502, "unavailable"),
                (503, "unavailable"),
                (504, "timeout"),
                (600, "invalid"),
            ]
        );
        let grpc: Vec<&str> = (0..=17)
            .map(|c| Outcome::from_grpc_code(c).name())
            .collect();
        assert_eq!(
            grpc,
            [
                "ok",
                "invalid",
                "internal",
                "invalid",
                "deadline_exceeded",
                "invalid",
                "invalid",
                "invalid",
                "overloaded",
                "invalid",
                "invalid",
                "invalid",
                "invalid",
                "internal",
                "unavailable",
                "internal",
                "invalid",
                "invalid",
            ]
        );
        use std::io::ErrorKind as K;
        let io: Vec<&str> = [
            K::ConnectionRefused,
            K::TimedOut,
            K::ConnectionReset,
            K::Other,
        ]
        .into_iter()
        .map(|k| Outcome::from_io_error_kind(k).name())
        .collect();
        assert_eq!(io, ["refused", "timeout", "unavailable", "internal"]);
        // What a mapped error can be is what a policy may decide on: no local rejection.
        for o in http.iter().map(|(s, _)| Outcome::from_http_status(*s)) {
            assert!(!o.is_guard_rejection() && o != Outcome::BreakerOpen);
        }
    }

    #[test]
    fn a_set_holds_exactly_its_kinds() {
        let set = OutcomeSet::of(&[Outcome::Limited, Outcome::Ok, Outcome::Timeout]);
        let held: Vec<&str> = set.iter().map(Outcome::name).collect();
        assert_eq!(held, ["ok", "timeout", "limited"]);
        for o in Outcome::ALL {
            assert_eq!(set.contains(o), held.contains(&o.name()), "{}", o.name());
        }
        assert_eq!(set.iter().collect::<OutcomeSet>(), set);
        let other = OutcomeSet::of(&[Outcome::Timeout, Outcome::Shed]);
        assert_eq!(set.intersection(other), OutcomeSet::of(&[Outcome::Timeout]));
        assert!(OutcomeSet::EMPTY.is_empty() && !set.is_empty());
        assert_eq!(OutcomeSet::of(&Outcome::ALL).iter().count(), OUTCOME_COUNT);
    }
}
