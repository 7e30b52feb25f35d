//! One request rate limiter of several libraries behind one question: pass now, wait this
//! long, or refuse. A service's admission keeps one per bucket (per instance, per key); each
//! kind answers as its library does:
//! - `TokenBucket`: Envoy's local rate limit filter (refuse when empty) or, with `wait`,
//!   golang.org/x/time/rate's `Wait` (reserve the token, wait for it, refuse at once when
//!   the wait would pass the request's deadline) — `token_bucket.rs`;
//! - `LimitReq`: nginx's `limit_req` (a leaky bucket with a burst and a delay) — `limit_req.rs`;
//! - `SmoothBursty`: Guava's `RateLimiter.create(r)`, `acquire()` (waits as long as it takes)
//!   or `tryAcquire(timeout)` — `smooth_bursty.rs`;
//! - `Resilience4j`: resilience4j's `AtomicRateLimiter` (cycles with reservations; a caller
//!   refused is first parked for the timeout) and `TowerRate`: tower's `RateLimit` (windows,
//!   back-pressure: nothing refused) — `cycle_limiter.rs`.

use crate::cycle_limiter::{
    CycleVerdict, Resilience4j, Resilience4jConfig, TowerRate, TowerRateConfig,
};
use crate::limit_req::{LimitReq, LimitReqConfig, LimitReqVerdict};
use crate::smooth_bursty::SmoothBursty;
use crate::time::Nanos;
use crate::token_bucket::{TokenBucket, TokenBucketConfig};

/// Which limiter, configured.
#[derive(Debug, Clone, PartialEq)]
pub enum RateLimiterConfig {
    /// `wait`: x/time/rate's `Wait`; without it, Envoy's (and x/time/rate's `Allow`).
    TokenBucket {
        bucket: TokenBucketConfig,
        wait: bool,
    },
    LimitReq(LimitReqConfig),
    /// Guava at `permits_per_second`; `timeout` for `tryAcquire(timeout)`, none for
    /// `acquire()`.
    SmoothBursty {
        permits_per_second: f64,
        timeout: Option<Nanos>,
    },
    Resilience4j(Resilience4jConfig),
    TowerRate(TowerRateConfig),
}

impl RateLimiterConfig {
    /// The long-run rate one limiter admits, per second.
    pub fn per_second(&self) -> f64 {
        match self {
            RateLimiterConfig::TokenBucket { bucket, .. } => bucket.per_second(),
            RateLimiterConfig::LimitReq(cfg) => cfg.per_second(),
            RateLimiterConfig::SmoothBursty {
                permits_per_second, ..
            } => *permits_per_second,
            RateLimiterConfig::Resilience4j(cfg) => cfg.per_second(),
            RateLimiterConfig::TowerRate(cfg) => cfg.per_second(),
        }
    }

    /// Whether a request can be held rather than only passed or refused.
    pub fn delays(&self) -> bool {
        match self {
            RateLimiterConfig::TokenBucket { wait, .. } => *wait,
            RateLimiterConfig::LimitReq(cfg) => cfg.delays(),
            RateLimiterConfig::SmoothBursty { timeout, .. } => timeout != &Some(Nanos::ZERO),
            RateLimiterConfig::Resilience4j(cfg) => cfg.timeout > Nanos::ZERO,
            RateLimiterConfig::TowerRate(_) => true,
        }
    }

    /// A limiter in its starting state at `now`: a full token bucket, a leaky bucket with no
    /// node yet, a Guava limiter with nothing stored and its first caller free.
    pub fn start(&self, now: Nanos) -> RateLimiter {
        match self {
            RateLimiterConfig::TokenBucket { bucket, .. } => {
                RateLimiter::TokenBucket(TokenBucket::new(bucket, now))
            }
            RateLimiterConfig::LimitReq(_) => RateLimiter::LimitReq(LimitReq::default()),
            RateLimiterConfig::SmoothBursty {
                permits_per_second, ..
            } => RateLimiter::SmoothBursty(
                SmoothBursty::new(*permits_per_second, now)
                    .expect("a rate checked finite and above zero"),
            ),
            RateLimiterConfig::Resilience4j(cfg) => {
                RateLimiter::Resilience4j(Resilience4j::new(cfg, now))
            }
            RateLimiterConfig::TowerRate(cfg) => RateLimiter::TowerRate(TowerRate::new(cfg, now)),
        }
    }
}

/// One limiter's state.
#[derive(Debug, Clone)]
pub enum RateLimiter {
    TokenBucket(TokenBucket),
    LimitReq(LimitReq),
    SmoothBursty(SmoothBursty),
    Resilience4j(Resilience4j),
    TowerRate(TowerRate),
}

/// What a limiter does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateVerdict {
    Pass,
    /// Held this long, then passed.
    Delay(Nanos),
    Refuse,
    /// Refused after being held this long (resilience4j parks a refused caller for its
    /// whole timeout before `RequestNotPermitted`).
    RefuseAfter(Nanos),
}

impl RateLimiter {
    /// A request at `now` that may wait at most `max_wait` (its deadline's distance; a
    /// waiting limiter refuses at once what it could not grant within it, as x/time/rate's
    /// `Wait` does; nginx and Guava's `acquire()` do not look).
    pub fn admit(&mut self, cfg: &RateLimiterConfig, now: Nanos, max_wait: Nanos) -> RateVerdict {
        let held = |wait: Nanos| match wait {
            Nanos::ZERO => RateVerdict::Pass,
            wait => RateVerdict::Delay(wait),
        };
        match (self, cfg) {
            (RateLimiter::TokenBucket(b), RateLimiterConfig::TokenBucket { wait: false, .. }) => {
                match b.try_take(now) {
                    true => RateVerdict::Pass,
                    false => RateVerdict::Refuse,
                }
            }
            (RateLimiter::TokenBucket(b), RateLimiterConfig::TokenBucket { wait: true, .. }) => {
                b.reserve(now, max_wait).map_or(RateVerdict::Refuse, held)
            }
            (RateLimiter::LimitReq(node), RateLimiterConfig::LimitReq(cfg)) => {
                match node.admit(cfg, now) {
                    LimitReqVerdict::Pass => RateVerdict::Pass,
                    LimitReqVerdict::Delay(d) => RateVerdict::Delay(d),
                    LimitReqVerdict::Refuse => RateVerdict::Refuse,
                }
            }
            (RateLimiter::SmoothBursty(g), RateLimiterConfig::SmoothBursty { timeout, .. }) => {
                match timeout {
                    None => held(g.acquire(now, 1)),
                    Some(t) => g.try_acquire(now, 1, *t).map_or(RateVerdict::Refuse, held),
                }
            }
            (RateLimiter::Resilience4j(l), RateLimiterConfig::Resilience4j(cfg)) => {
                match l.acquire(cfg, now) {
                    CycleVerdict::Pass => RateVerdict::Pass,
                    CycleVerdict::Wait(w) => RateVerdict::Delay(w),
                    CycleVerdict::RefuseAfter(Nanos::ZERO) => RateVerdict::Refuse,
                    CycleVerdict::RefuseAfter(t) => RateVerdict::RefuseAfter(t),
                }
            }
            (RateLimiter::TowerRate(l), RateLimiterConfig::TowerRate(cfg)) => {
                held(l.acquire(cfg, now))
            }
            _ => unreachable!("a limiter is started from its own config"),
        }
    }

    /// How long from `now` until a request would not be refused: a refusal's Retry-After
    /// when the option is on (none of these libraries sends one by default).
    pub fn until_room(&self, cfg: &RateLimiterConfig, now: Nanos) -> Nanos {
        match (self, cfg) {
            (RateLimiter::TokenBucket(b), _) => b.until_next(now),
            (RateLimiter::LimitReq(node), RateLimiterConfig::LimitReq(cfg)) => {
                node.until_room(cfg, now)
            }
            (RateLimiter::SmoothBursty(g), RateLimiterConfig::SmoothBursty { timeout, .. }) => {
                g.until_within(now, timeout.unwrap_or(Nanos::ZERO))
            }
            (RateLimiter::Resilience4j(l), RateLimiterConfig::Resilience4j(cfg)) => {
                l.until_within(cfg, now)
            }
            (RateLimiter::TowerRate(_), _) => Nanos::ZERO,
            _ => unreachable!("a limiter is started from its own config"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token_bucket::Refill;

    const S: Nanos = Nanos::from_secs(1);

    fn verdicts(cfg: &RateLimiterConfig, at: &[Nanos], max_wait: Nanos) -> Vec<RateVerdict> {
        let mut l = cfg.start(Nanos::ZERO);
        at.iter().map(|&t| l.admit(cfg, t, max_wait)).collect()
    }

    #[test]
    fn each_kind_answers_as_its_library() {
        use RateVerdict::*;
        let bucket = TokenBucketConfig::new(2, 1, S, Refill::Continuous).unwrap();
        let envoy = RateLimiterConfig::TokenBucket {
            bucket: bucket.clone(),
            wait: false,
        };
        assert_eq!(
            verdicts(&envoy, &[Nanos::ZERO; 3], 10 * S),
            [Pass, Pass, Refuse]
        );
        // x/time/rate's Wait: the third waits 1 s, the fourth 2 s, past a 1.5 s deadline.
        let wait = RateLimiterConfig::TokenBucket { bucket, wait: true };
        let max = Nanos::from_ms(1_500);
        assert_eq!(
            verdicts(&wait, &[Nanos::ZERO; 4], max),
            [Pass, Pass, Delay(S), Refuse]
        );
        let nginx = RateLimiterConfig::LimitReq(LimitReqConfig::new("1r/s", 1, 0, false).unwrap());
        assert_eq!(
            verdicts(&nginx, &[Nanos::ZERO; 3], Nanos::ZERO),
            [Pass, Delay(S), Refuse]
        );
        // Guava's acquire(): 0, 0.5, 1 s at 2/s, never refused; tryAcquire(0.6 s) refuses the
        // third (granted at 1 s).
        let guava = |timeout| RateLimiterConfig::SmoothBursty {
            permits_per_second: 2.0,
            timeout,
        };
        let half = Nanos::from_ms(500);
        assert_eq!(
            verdicts(&guava(None), &[Nanos::ZERO; 3], Nanos::ZERO),
            [Pass, Delay(half), Delay(S)]
        );
        assert_eq!(
            verdicts(
                &guava(Some(Nanos::from_ms(600))),
                &[Nanos::ZERO; 3],
                Nanos::ZERO
            ),
            [Pass, Delay(half), Refuse]
        );
        assert!(guava(None).delays() && !guava(Some(Nanos::ZERO)).delays());
        assert_eq!(guava(None).per_second(), 2.0);
    }

    #[test]
    fn until_room_is_when_a_refused_request_would_pass() {
        let guava = RateLimiterConfig::SmoothBursty {
            permits_per_second: 2.0,
            timeout: Some(Nanos::ZERO),
        };
        let mut g = guava.start(Nanos::ZERO);
        assert_eq!(g.admit(&guava, Nanos::ZERO, S), RateVerdict::Pass);
        assert_eq!(g.admit(&guava, Nanos::ZERO, S), RateVerdict::Refuse);
        // Next free at 0.5 s: tryAcquire() passes from then on.
        assert_eq!(g.until_room(&guava, Nanos::ZERO), Nanos::from_ms(500));
        assert_eq!(g.until_room(&guava, Nanos::from_ms(600)), Nanos::ZERO);
    }
}
