//! cascade-policy: the resilience policies cascade simulates, as a library with no engine, no
//! I/O and no scenario language. Each policy is a small state machine over time: it takes
//! `now` (and, where it draws, a random stream its caller provides) and returns a decision,
//! so the simulator drives it in virtual time and a service can drive it with a real clock.
//!
//! The modules: `outcome` (how a call ends, the kinds every policy decides from), `path` (one
//! call path's policies as a stack: the order they admit a call and an attempt in, learn from
//! an attempt's end and a call's, and schedule hedges), `deadline` (a call's deadline, whether
//! an attempt may start, when it expires), the state machines (`backoff`, `retry`, `budget`,
//! `throttle`, `breaker`, `bulkhead`, `limit`, `hedge`, `codel`, `outlier`, `accrual`,
//! `dedup`), the rate limiters (`token_bucket`, `limit_req`, `smooth_bursty`, `cycle_limiter`, and
//! `rate_limiter`, which puts them behind one verdict: pass, hold, refuse), and what they
//! share (`time`'s `Nanos`, `window`'s sliding counts, `hist`'s latency histogram,
//! `random`'s uniform draw), and `table`: the `[policy.NAME]` tables of
//! cascade's scenario language, their validation and the libraries' presets, so a service
//! configures these policies from the same keys. Cargo keeps the wall: this crate depends on
//! rand, humantime and strsim (serde and schemars behind the `serde` and `schema` features),
//! so nothing of the engine can leak into it.
//!
//! Time is `Nanos` (`time`, re-exported here): whole nanoseconds, for instants (from any origin
//! the caller keeps: a simulation's clock, or a monotonic clock's elapsed time) and durations
//! alike. A policy never reads a clock itself.
//!
//! # Example
//!
//! A breaker that opens on five failures in a row, and a retry policy with capped exponential
//! backoff and full jitter, driven by hand the way a service would drive them:
//!
//! ```
//! use cascade_policy::breaker::{Breaker, BreakerPolicy, State, Transition};
//! use cascade_policy::outcome::Outcome;
//! use cascade_policy::retry::{NoRetry, RetryInput, RetryPolicy};
//! use cascade_policy::table::{BackoffKind, Dur, JitterKind, RawBreaker, RawRetry};
//! use cascade_policy::Nanos;
//! use rand::SeedableRng;
//!
//! const MS: Nanos = Nanos::from_ms(1);
//! // Configs come from tables (the keys of cascade's `[policy.NAME]`), checked on the way:
//! // every key left out takes its library's default (resilience4j's, for a breaker).
//! let policy = BreakerPolicy::from_table(&RawBreaker {
//!     consecutive_failures: Some(5),
//!     open: Some(Dur(1_000_000_000)), // 1 s, in nanoseconds
//!     half_open_calls: Some(1),
//!     count: Some(vec!["timeout".into(), "unavailable".into()]),
//!     ..RawBreaker::default()
//! })
//! .expect("a valid breaker table");
//! let mut breaker = Breaker::new(policy.config().clone());
//! let mut now = Nanos::ZERO;
//! for _ in 0..5 {
//!     // Admission hands out a permit; it goes back with the call's result.
//!     let (permit, _) = breaker.try_acquire(now);
//!     let permit = permit.expect("closed: let through");
//!     breaker.record(now + 10 * MS, Outcome::Unavailable, 10 * MS, permit);
//!     now += 20 * MS;
//! }
//! assert_eq!(breaker.state(), State::Open { until: 80 * MS + 10 * MS + 1_000 * MS });
//! assert_eq!(breaker.try_acquire(now), (None, Transition::None));
//! // After its open time, the next call is the half-open probe.
//! let (probe, transition) = breaker.try_acquire(1_100 * MS);
//! assert_eq!(transition, Transition::HalfOpened);
//! breaker.record(1_150 * MS, Outcome::Ok, 50 * MS, probe.unwrap());
//! assert_eq!(breaker.state(), State::Closed);
//!
//! let retry = RetryPolicy::from_table(&RawRetry {
//!     attempts: Some(3),
//!     backoff: Some(BackoffKind::Exponential),
//!     base: Some(Dur(100_000_000)),
//!     max: Some(Dur(1_000_000_000)),
//!     jitter: Some(JitterKind::Full),
//!     ..RawRetry::default()
//! })
//! .expect("a valid retry table");
//! // The caller owns the random stream, so a replay with the same seed waits the same.
//! let mut jitter = rand_pcg::Pcg64Mcg::seed_from_u64(7);
//! let failed = RetryInput {
//!     outcome: Outcome::Unavailable,
//!     attempt: 2,
//!     retry_allowed: true,
//!     retry_after: None,
//!     server_refuses_retry: false,
//!     now: Nanos::ZERO,
//!     deadline: 2_000 * MS,
//!     min_attempt: Nanos::ZERO,
//!     last_delay: Nanos::ZERO,
//! };
//! let wait = retry.decide(&failed, &mut jitter).unwrap();
//! assert!(wait < 200 * MS); // full jitter: U[0, 100 ms · 2)
//! let last = RetryInput { attempt: 3, ..failed };
//! assert_eq!(retry.decide(&last, &mut jitter), Err(NoRetry::AttemptsExhausted));
//! let bad_request = RetryInput { outcome: Outcome::Invalid, ..failed };
//! assert_eq!(retry.decide(&bad_request, &mut jitter), Err(NoRetry::NotRetryable));
//! ```

#[macro_use]
mod getters;

pub mod accrual;
pub mod backoff;
pub mod breaker;
pub mod budget;
pub mod bulkhead;
pub mod codel;
pub mod cycle_limiter;
pub mod deadline;
pub mod dedup;
pub mod hedge;
pub mod hist;
pub mod limit;
pub mod limit_req;
pub mod outcome;
pub mod outlier;
pub mod path;
pub mod random;
pub mod rate_limiter;
pub mod retry;
pub mod smooth_bursty;
pub mod table;
pub mod throttle;
pub mod time;
pub mod token_bucket;
pub mod window;

pub use time::Nanos;
