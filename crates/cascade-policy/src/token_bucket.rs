//! A token bucket as Envoy's local rate limit filter and golang.org/x/time/rate keep one.
//!
//! The bucket holds at most `max_tokens` and starts full (Envoy's `max_tokens` is also the
//! initial fill; x/time/rate's `NewLimiter(r, b)` starts with `b`). It gains
//! `tokens_per_fill` every `fill_interval`, in one of two ways:
//! - `Refill::Continuous`: at the steady rate `tokens_per_fill / fill_interval`, as Envoy since
//!   1.31 (`AtomicTokenBucketImpl`) and x/time/rate do. From full, the bucket admits
//!   `max_tokens + ⌊r·T⌋` over a span T of back-to-back requests.
//! - `Refill::Tick`: `tokens_per_fill` at once on each timer tick, every `fill_interval` from the
//!   bucket's creation, as Envoy before 1.31 did. From full it admits
//!   `max_tokens + ⌊T / fill_interval⌋ · tokens_per_fill` over T.
//!
//! `try_take` is Envoy's check and x/time/rate's `Allow`: a token now or a refusal, never a
//! wait. `reserve` is x/time/rate's `Reserve`/`Wait`: the token is taken now, the count may go
//! below zero, and the caller waits until the bucket would have held it; a wait longer than
//! `max_wait` (the caller's deadline, for `Wait`) takes nothing and is refused at once.
//!
//! Why integers: the count is kept in units of `1 / fill_interval_ns` tokens, so a refill is
//! `elapsed_ns · tokens_per_fill` units and a token is `fill_interval_ns` units, exactly; the
//! closed forms above hold to the request, with no rounding drift over a long run.

use crate::time::Nanos;

/// How a bucket gains its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Refill {
    /// At the steady rate `tokens_per_fill / fill_interval` (Envoy ≥ 1.31, x/time/rate).
    #[default]
    Continuous,
    /// `tokens_per_fill` at once every `fill_interval` from creation (Envoy before 1.31).
    Tick,
}

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct TokenBucketConfig {
        max_tokens: u64,
        tokens_per_fill: u64,
        fill_interval: Nanos,
        refill: Refill,
    }
}

getters!(TokenBucketConfig {
    /// The bucket's size, and its fill at creation.
    max_tokens: u64,
    /// Tokens added per `fill_interval` (Envoy's default 1).
    tokens_per_fill: u64,
    /// The refill period.
    fill_interval: Nanos,
    /// Continuous or by timer ticks.
    refill: Refill,
});

/// Why a bucket's configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BucketError {
    /// A size of 0 admits nothing: Envoy refuses it as well.
    ZeroMaxTokens,
    ZeroTokensPerFill,
    ZeroFillInterval,
}

impl std::fmt::Display for BucketError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BucketError::ZeroMaxTokens => "max_tokens must be at least 1",
            BucketError::ZeroTokensPerFill => "tokens_per_fill must be at least 1",
            BucketError::ZeroFillInterval => "fill_interval must be longer than 0",
        })
    }
}

impl TokenBucketConfig {
    /// A bucket of `max_tokens`, gaining `tokens_per_fill` per `fill_interval`.
    pub fn new(
        max_tokens: u64,
        tokens_per_fill: u64,
        fill_interval: Nanos,
        refill: Refill,
    ) -> Result<TokenBucketConfig, BucketError> {
        if max_tokens == 0 {
            return Err(BucketError::ZeroMaxTokens);
        }
        if tokens_per_fill == 0 {
            return Err(BucketError::ZeroTokensPerFill);
        }
        if fill_interval == Nanos::ZERO {
            return Err(BucketError::ZeroFillInterval);
        }
        Ok(TokenBucketConfig {
            max_tokens,
            tokens_per_fill,
            fill_interval,
            refill,
        })
    }

    /// The steady rate in tokens per second, for a report's fleet-wide figure.
    pub fn per_second(&self) -> f64 {
        self.tokens_per_fill as f64 / self.fill_interval.as_secs_f64()
    }
}

/// One bucket's state.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    /// One token, in units (`fill_interval` in ns).
    token: i128,
    /// The cap, `max_tokens` tokens in units.
    cap: i128,
    /// Units gained per ns (continuous) or tokens per tick (tick).
    per_fill: i128,
    refill: Refill,
    /// The count now, in units; below zero after a reservation.
    units: i128,
    /// The instant `units` was last brought up to date.
    last: Nanos,
    /// Creation: ticks fall at `origin + k · fill_interval`.
    origin: Nanos,
}

impl TokenBucket {
    /// A full bucket created at `now`.
    pub fn new(cfg: &TokenBucketConfig, now: Nanos) -> TokenBucket {
        let token = cfg.fill_interval.0 as i128;
        let cap = cfg.max_tokens as i128 * token;
        TokenBucket {
            token,
            cap,
            per_fill: cfg.tokens_per_fill as i128,
            refill: cfg.refill,
            units: cap,
            last: now,
            origin: now,
        }
    }

    /// The count at `now`, in units, with what the refill added since `last`, capped.
    fn refilled(&self, now: Nanos) -> i128 {
        if now <= self.last {
            return self.units;
        }
        let gained = match self.refill {
            Refill::Continuous => (now.0 - self.last.0) as i128 * self.per_fill,
            Refill::Tick => {
                let ticks = |t: Nanos| ((t.0 - self.origin.0) as i128) / self.token;
                (ticks(now) - ticks(self.last)) * self.per_fill * self.token
            }
        };
        (self.units + gained).min(self.cap)
    }

    /// Whole tokens held at `now` (0 while reserved below zero).
    pub fn tokens(&self, now: Nanos) -> u64 {
        (self.refilled(now).max(0) / self.token) as u64
    }

    /// Takes one token at `now` if the bucket holds one: Envoy's check, x/time/rate's `Allow`.
    pub fn try_take(&mut self, now: Nanos) -> bool {
        let units = self.refilled(now);
        self.last = self.last.max(now);
        self.units = units;
        if units < self.token {
            return false;
        }
        self.units -= self.token;
        true
    }

    /// x/time/rate's `Reserve` and `Wait`: takes one token at `now` and returns how long the
    /// caller waits for it, or `None`, taking nothing, when that wait would pass `max_wait`.
    /// Continuous refill only: a tick bucket has no reservations in Envoy.
    pub fn reserve(&mut self, now: Nanos, max_wait: Nanos) -> Option<Nanos> {
        let units = self.refilled(now) - self.token;
        let wait = match units >= 0 {
            true => Nanos::ZERO,
            // The deficit is refilled at `per_fill` units a ns; rounded up, so the token is
            // whole when the wait ends.
            false => Nanos(((-units + self.per_fill - 1) / self.per_fill) as u64),
        };
        if wait > max_wait {
            return None;
        }
        self.last = self.last.max(now);
        self.units = units;
        Some(wait)
    }

    /// How long from `now` until the bucket holds a whole token again: a refusal's
    /// `Retry-After` when the option is on.
    pub fn until_next(&self, now: Nanos) -> Nanos {
        let short = self.token - self.refilled(now);
        if short <= 0 {
            return Nanos::ZERO;
        }
        match self.refill {
            Refill::Continuous => Nanos(((short + self.per_fill - 1) / self.per_fill) as u64),
            Refill::Tick => {
                // The next tick after `now`, and as many after it as the shortfall needs.
                let since = (now.0.max(self.origin.0) - self.origin.0) as i128;
                let per_tick = self.per_fill * self.token;
                let ticks = (short + per_tick - 1) / per_tick;
                let next = (since / self.token + ticks) * self.token;
                Nanos((next - since) as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);

    fn bucket(max: u64, per_fill: u64, interval: Nanos, refill: Refill) -> TokenBucket {
        TokenBucket::new(
            &TokenBucketConfig::new(max, per_fill, interval, refill).unwrap(),
            Nanos::ZERO,
        )
    }

    /// Requests every millisecond from 0 to `span` inclusive, far above the refill: how many
    /// the bucket lets through.
    fn admitted_over(b: &mut TokenBucket, span: Nanos) -> u64 {
        (0..=span.0 / MS.0)
            .filter(|k| b.try_take(Nanos(k * MS.0)))
            .count() as u64
    }

    #[test]
    fn continuous_from_full_admits_b_plus_r_t() {
        // b = 5, r = 10/s, T = 10 s: 5 + 100.
        let mut b = bucket(5, 1, 100 * MS, Refill::Continuous);
        assert_eq!(admitted_over(&mut b, Nanos::from_secs(10)), 105);
        // r = 3/s is a token every 333.3… ms, not a whole number of ns: still exactly 5 + 30.
        let mut b = bucket(5, 3, Nanos::from_secs(1), Refill::Continuous);
        assert_eq!(admitted_over(&mut b, Nanos::from_secs(10)), 35);
    }

    #[test]
    fn tick_from_full_admits_max_plus_whole_ticks() {
        // 5 + ⌊10.5 s / 1 s⌋ · 2 = 25.
        let mut b = bucket(5, 2, Nanos::from_secs(1), Refill::Tick);
        assert_eq!(admitted_over(&mut b, Nanos::from_ms(10_500)), 25);
    }

    #[test]
    fn tick_adds_nothing_between_ticks_where_continuous_does() {
        let mut tick = bucket(1, 2, Nanos::from_secs(1), Refill::Tick);
        let mut cont = bucket(1, 2, Nanos::from_secs(1), Refill::Continuous);
        assert!(tick.try_take(Nanos::ZERO) && cont.try_take(Nanos::ZERO));
        // Half a second: continuous has gained 1 token, tick none until the tick at 1 s.
        assert!(cont.try_take(500 * MS));
        assert!(!tick.try_take(500 * MS));
        assert_eq!(tick.until_next(500 * MS), 500 * MS);
        // The tick adds 2, but the bucket holds at most 1.
        assert!(tick.try_take(Nanos::from_secs(1)));
        assert!(!tick.try_take(Nanos::from_secs(1)));
    }

    #[test]
    fn a_refused_request_takes_nothing_and_a_full_bucket_stays_capped() {
        let mut b = bucket(2, 1, Nanos::from_secs(1), Refill::Continuous);
        assert!(b.try_take(Nanos::ZERO) && b.try_take(Nanos::ZERO));
        assert!(!b.try_take(Nanos::ZERO));
        assert_eq!(b.until_next(Nanos::ZERO), Nanos::from_secs(1));
        assert_eq!(b.until_next(250 * MS), 750 * MS);
        // An hour idle: two tokens, not 3,600.
        assert_eq!(b.tokens(Nanos::from_secs(3_600)), 2);
    }

    #[test]
    fn reserve_waits_as_x_time_rate_does() {
        // NewLimiter(1, 2): two now, then one a second; a wait past max_wait takes nothing.
        let mut b = bucket(2, 1, Nanos::from_secs(1), Refill::Continuous);
        let max = Nanos::from_ms(2_500);
        assert_eq!(b.reserve(Nanos::ZERO, max), Some(Nanos::ZERO));
        assert_eq!(b.reserve(Nanos::ZERO, max), Some(Nanos::ZERO));
        assert_eq!(b.reserve(Nanos::ZERO, max), Some(Nanos::from_secs(1)));
        assert_eq!(b.reserve(Nanos::ZERO, max), Some(Nanos::from_secs(2)));
        assert_eq!(b.reserve(Nanos::ZERO, max), None);
        // Half a second on, the fifth waits 2.5 s: just within.
        assert_eq!(b.reserve(500 * MS, max), Some(Nanos::from_ms(2_500)));
        // Allow sees a debt, not a token.
        assert!(!b.try_take(Nanos::from_secs(2)));
        assert!(b.try_take(Nanos::from_secs(4)));
    }

    #[test]
    fn a_bucket_of_nothing_is_refused() {
        let s = Nanos::from_secs(1);
        assert_eq!(
            TokenBucketConfig::new(0, 1, s, Refill::Continuous),
            Err(BucketError::ZeroMaxTokens)
        );
        assert_eq!(
            TokenBucketConfig::new(1, 0, s, Refill::Tick),
            Err(BucketError::ZeroTokensPerFill)
        );
        assert_eq!(
            TokenBucketConfig::new(1, 1, Nanos::ZERO, Refill::Tick),
            Err(BucketError::ZeroFillInterval)
        );
        assert_eq!(
            TokenBucketConfig::new(10, 5, s, Refill::Continuous)
                .unwrap()
                .per_second(),
            5.0
        );
    }
}
