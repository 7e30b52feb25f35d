//! Retry budgets: state shared by every call of one client, limiting retries as a whole.
//!
//! * `Ratio` — Finagle `RetryBudget` / tower `TpsBudget`: over a sliding window (`window`,
//!   ten slots), retries may not exceed `ratio` × calls + `min_per_s` × window seconds. Every
//!   logical call deposits; every retry withdraws. (Finagle's defaults: ratio 0.2, 10/s, 10 s.)
//! * `TokenBucket` — gRPC `retryThrottling`: tokens start at `max_tokens`; a retryable failure
//!   costs 1, a success earns `token_ratio`; retries are allowed only while tokens > max/2.
//! * `Concurrency` — Envoy `retry_budget`: a retry is allowed while retries in progress (in
//!   backoff or in flight) < max(`percent` × calls in progress, `min`). (Envoy: 20%, 3.)
//! * `Adaptive` — Marc Brooker's retry token bucket ("Fixing retries with token buckets and
//!   circuit breakers", 2022): tokens start at `max_tokens`; each success (or, with
//!   `earn_on = "call"`, each logical call, as seed 004 writes it) earns `token_ratio`, up to
//!   the maximum; a retry needs a whole token and spends it. Failures cost nothing by
//!   themselves and no call is capped beyond its retry policy's attempts. Under a total
//!   outage retries fall to `token_ratio` per call (per-call earning) or to none once the
//!   bucket is spent (per-success earning).

/// A retry budget's settings. Its variants are `non_exhaustive` (without the `edit` feature):
/// outside this crate one comes only from a validated table (`retry.budget`), never a literal.
#[derive(Debug, Clone, PartialEq)]
pub enum BudgetConfig {
    #[cfg_attr(not(feature = "edit"), non_exhaustive)]
    Ratio {
        ratio: f64,
        min_per_s: f64,
        window: Nanos,
    },
    #[cfg_attr(not(feature = "edit"), non_exhaustive)]
    TokenBucket { max_tokens: f64, token_ratio: f64 },
    #[cfg_attr(not(feature = "edit"), non_exhaustive)]
    Concurrency { percent: f64, min: u32 },
    #[cfg_attr(not(feature = "edit"), non_exhaustive)]
    Adaptive {
        max_tokens: f64,
        token_ratio: f64,
        earn_on: EarnOn,
    },
}

/// What earns an adaptive bucket its fraction of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarnOn {
    /// Each successful attempt (Brooker).
    Success,
    /// Each logical call, whatever its outcome (seed 004's "each request adds 0.1 token").
    Call,
}

use super::window::SlidingCounts;
use crate::time::Nanos;

/// Counter indices of the ratio budget's window.
const CALLS: usize = 0;
const RETRIES: usize = 1;

#[derive(Debug, Clone)]
pub enum Budget {
    Ratio {
        ratio: f64,
        reserve: f64,
        /// Calls and retries over the window.
        counts: Box<SlidingCounts<2>>,
    },
    TokenBucket {
        max: f64,
        ratio: f64,
        tokens: f64,
    },
    Concurrency {
        percent: f64,
        min: u32,
        active_calls: u32,
        active_retries: u32,
    },
    /// Counted in thousandths of a token (as grpc-java counts gRPC's), so ten earnings of
    /// 0.1 make exactly one token.
    Adaptive {
        max: u64,
        ratio: u64,
        earn_on: EarnOn,
        tokens: u64,
    },
}

/// Thousandths of a token in one token.
const MILLI: u64 = 1000;

fn milli(tokens: f64) -> u64 {
    (tokens * MILLI as f64).round() as u64
}

impl Budget {
    pub fn new(c: &BudgetConfig) -> Budget {
        match *c {
            BudgetConfig::Ratio {
                ratio,
                min_per_s,
                window,
            } => Budget::Ratio {
                ratio,
                reserve: min_per_s * window.0 as f64 / 1e9,
                counts: Box::new(SlidingCounts::new(window)),
            },
            BudgetConfig::TokenBucket {
                max_tokens,
                token_ratio,
            } => Budget::TokenBucket {
                max: max_tokens,
                ratio: token_ratio,
                tokens: max_tokens,
            },
            BudgetConfig::Concurrency { percent, min } => Budget::Concurrency {
                percent,
                min,
                active_calls: 0,
                active_retries: 0,
            },
            BudgetConfig::Adaptive {
                max_tokens,
                token_ratio,
                earn_on,
            } => Budget::Adaptive {
                max: milli(max_tokens),
                ratio: milli(token_ratio),
                earn_on,
                tokens: milli(max_tokens),
            },
        }
    }

    /// A logical call starts.
    pub fn on_call(&mut self, now: Nanos) {
        match self {
            Budget::Ratio { counts, .. } => counts.add(now, CALLS, 1.0),
            Budget::TokenBucket { .. } => {}
            Budget::Concurrency { active_calls, .. } => *active_calls += 1,
            Budget::Adaptive {
                max,
                ratio,
                earn_on: EarnOn::Call,
                tokens,
            } => *tokens = (*tokens + *ratio).min(*max),
            Budget::Adaptive { .. } => {}
        }
    }

    /// A logical call ends.
    pub fn on_call_end(&mut self) {
        if let Budget::Concurrency { active_calls, .. } = self {
            *active_calls = active_calls.saturating_sub(1);
        }
    }

    /// An attempt ended: successes refill a token bucket, retryable failures drain it; an
    /// adaptive bucket earning on success is refilled.
    pub fn on_attempt(&mut self, success: bool, retryable_failure: bool) {
        match self {
            Budget::TokenBucket { max, ratio, tokens } => {
                if success {
                    *tokens = (*tokens + *ratio).min(*max);
                } else if retryable_failure {
                    *tokens = (*tokens - 1.0).max(0.0);
                }
            }
            Budget::Adaptive {
                max,
                ratio,
                earn_on: EarnOn::Success,
                tokens,
            } if success => *tokens = (*tokens + *ratio).min(*max),
            _ => {}
        }
    }

    /// Asks for one retry; on success the retry is counted (withdrawn or made active).
    pub fn try_retry(&mut self, now: Nanos) -> bool {
        match self {
            Budget::Ratio {
                ratio,
                reserve,
                counts,
            } => {
                let [calls, retries] = counts.totals(now);
                if retries + 1.0 > *ratio * calls + *reserve {
                    return false;
                }
                counts.add(now, RETRIES, 1.0);
                true
            }
            Budget::TokenBucket { max, tokens, .. } => *tokens > *max / 2.0,
            Budget::Concurrency {
                percent,
                min,
                active_calls,
                active_retries,
            } => {
                let limit = (*percent * f64::from(*active_calls)).max(f64::from(*min));
                if f64::from(*active_retries) >= limit {
                    return false;
                }
                *active_retries += 1;
                true
            }
            Budget::Adaptive { tokens, .. } => {
                if *tokens < MILLI {
                    return false;
                }
                *tokens -= MILLI;
                true
            }
        }
    }

    /// A retry that was granted has finished (its attempt ended or its call gave up).
    pub fn on_retry_end(&mut self) {
        if let Budget::Concurrency { active_retries, .. } = self {
            *active_retries = active_retries.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);
    const S: Nanos = Nanos::from_secs(1);

    #[test]
    fn ratio_budget_allows_ratio_of_calls_plus_the_floor() {
        // 10% of calls, no floor, 10 s window.
        let mut b = Budget::new(&BudgetConfig::Ratio {
            ratio: 0.1,
            min_per_s: 0.0,
            window: 10 * S,
        });
        for i in 0..100 {
            b.on_call(i * 10 * MS);
        }
        let granted = (0..50).filter(|_| b.try_retry(S)).count();
        assert_eq!(granted, 10);
        // A floor of 1/s over 10 s adds 10 more.
        let mut b = Budget::new(&BudgetConfig::Ratio {
            ratio: 0.1,
            min_per_s: 1.0,
            window: 10 * S,
        });
        for i in 0..100 {
            b.on_call(i * 10 * MS);
        }
        assert_eq!((0..50).filter(|_| b.try_retry(S)).count(), 20);
    }

    #[test]
    fn ratio_budget_forgets_what_left_the_window() {
        let mut b = Budget::new(&BudgetConfig::Ratio {
            ratio: 0.5,
            min_per_s: 0.0,
            window: 10 * S,
        });
        for _ in 0..10 {
            b.on_call(Nanos::ZERO);
        }
        assert_eq!((0..10).filter(|_| b.try_retry(S)).count(), 5);
        // 11 s later the calls and retries of slot 0 and 1 have left the window.
        assert!(
            !b.try_retry(10 * S + 500 * MS),
            "slot 1's retries still count"
        );
        b.on_call(12 * S);
        b.on_call(12 * S);
        assert!(b.try_retry(12 * S));
        assert!(!b.try_retry(12 * S));
    }

    #[test]
    fn token_bucket_follows_grpc_throttling() {
        let mut b = Budget::new(&BudgetConfig::TokenBucket {
            max_tokens: 10.0,
            token_ratio: 0.1,
        });
        assert!(b.try_retry(Nanos::ZERO));
        // Five failures bring 10 to 5: retries need more than half.
        for _ in 0..5 {
            b.on_attempt(false, true);
        }
        assert!(!b.try_retry(Nanos::ZERO));
        b.on_attempt(true, false);
        assert!(b.try_retry(Nanos::ZERO), "5.1 > 5");
        // Non-retryable failures cost nothing; tokens never exceed the maximum.
        b.on_attempt(false, false);
        assert!(b.try_retry(Nanos::ZERO));
        for _ in 0..200 {
            b.on_attempt(true, false);
        }
        if let Budget::TokenBucket { tokens, .. } = b {
            assert_eq!(tokens, 10.0);
        }
    }

    fn adaptive(earn_on: EarnOn) -> Budget {
        Budget::new(&BudgetConfig::Adaptive {
            max_tokens: 10.0,
            token_ratio: 0.1,
            earn_on,
        })
    }

    /// An adaptive bucket's tokens, in thousandths.
    fn tokens(b: &Budget) -> u64 {
        match b {
            Budget::Adaptive { tokens, .. } => *tokens,
            _ => unreachable!("not an adaptive bucket"),
        }
    }

    #[test]
    fn adaptive_bucket_starts_full_and_a_retry_spends_a_whole_token() {
        let mut b = adaptive(EarnOn::Success);
        // Full: ten retries in a row, then none (unlike gRPC's, which stops at half).
        assert_eq!((0..15).filter(|_| b.try_retry(Nanos::ZERO)).count(), 10);
        assert_eq!(tokens(&b), 0);
        // Failures cost nothing; calls earn nothing when earning is per success.
        b.on_attempt(false, true);
        b.on_call(Nanos::ZERO);
        assert_eq!(tokens(&b), 0);
        // Nine successes make 0.9 of a token: still no retry; the tenth makes one.
        for _ in 0..9 {
            b.on_attempt(true, false);
        }
        assert!(!b.try_retry(Nanos::ZERO), "0.9 is not a whole token");
        b.on_attempt(true, false);
        assert!(b.try_retry(Nanos::ZERO), "1.0 is");
        assert!(!b.try_retry(Nanos::ZERO));
        // Never above the bucket's size.
        for _ in 0..500 {
            b.on_attempt(true, false);
        }
        assert_eq!(tokens(&b), 10_000);
    }

    #[test]
    fn adaptive_bucket_earning_per_call_allows_a_tenth_of_a_retry_per_call_in_an_outage() {
        // A total outage: every call fails and wants its retries; the retries granted over
        // 1,000 calls.
        let outage = |b: &mut Budget| {
            let mut granted = 0;
            for _ in 0..1000 {
                b.on_call(Nanos::ZERO);
                b.on_attempt(false, true);
                while b.try_retry(Nanos::ZERO) {
                    granted += 1;
                }
            }
            granted
        };
        let mut b = adaptive(EarnOn::Call);
        // The full bucket's 10, then the 999 later calls' 0.1 each = 99 more (the first call's
        // earning finds the bucket full), 109 in all: L -> 1.1 L (seed 004's L_max).
        assert_eq!(outage(&mut b), 109);
        // Successes earn nothing more when earning is per call.
        b.on_attempt(true, false);
        assert!(!b.try_retry(Nanos::ZERO));
        // The same outage with per-success earning: the first 10, then nothing.
        assert_eq!(outage(&mut adaptive(EarnOn::Success)), 10);
    }

    #[test]
    fn concurrency_budget_follows_envoy() {
        let mut b = Budget::new(&BudgetConfig::Concurrency {
            percent: 0.2,
            min: 3,
        });
        for _ in 0..10 {
            b.on_call(Nanos::ZERO);
        }
        // max(0.2 * 10, 3) = 3 retries at once.
        assert_eq!((0..10).filter(|_| b.try_retry(Nanos::ZERO)).count(), 3);
        b.on_retry_end();
        assert!(b.try_retry(Nanos::ZERO));
        for _ in 0..40 {
            b.on_call(Nanos::ZERO);
        }
        // 50 active calls: up to 10 active retries.
        assert_eq!((0..20).filter(|_| b.try_retry(Nanos::ZERO)).count(), 7);
    }
}
