//! The `[policy.NAME]` tables as cascade's scenario language writes them, and the one place
//! they are checked: a service configures its policies from the same keys, defaults and
//! presets the simulator runs, without the scenario language.
//!
//! - **As written** (`raw.rs`, `raw_parts.rs`, `raw_service.rs`): `RawPolicy` and every
//!   part, each key optional; durations as `Dur` (`duration.rs`: `parse_duration`). With the
//!   `serde` feature they deserialize from any format (unknown keys refused); with `schema`
//!   they derive their JSON Schema (`schema.rs`).
//! - **Compiled** by constructors that return `Result`, so no invalid policy is built (the
//!   configs' fields are private, read through getters: `getters.rs`):
//!   `PolicyConfig::new` (`policy.rs`) for a whole table, or one part alone
//!   (`RetryPolicy::from_table`, `BudgetConfig::from_table`, `BreakerPolicy::from_table`,
//!   `BulkheadConfig::from_table`, `ThrottleConfig::from_table`, `LimitConfig::from_table`,
//!   `HedgeConfig::from_table`, `AccrualConfig::from_table`; a service's own
//!   `CodelConfig::from_table` and `OutlierConfig::from_table`). Each fills its library's
//!   defaults and checks ranges; a `TableError` (`error.rs`) names the field relative to the
//!   table (`retry.max`) and says why.
//! - **Presets** (`preset.rs`): resilience4j, Envoy, gRPC, Polly, Finagle, the AWS SDKs'
//!   standard mode and tower, as values of the table types, applied by `PolicyConfig::new`.
//!
//! # Example
//!
//! A service builds the policies of its calls to a database from a table (written here in
//! code; with the `serde` feature, read from its configuration file), then drives the
//! breaker and asks the retry policy, as cascade's engine does:
//!
//! ```
//! use cascade_policy::breaker::Breaker;
//! use cascade_policy::table::{Dur, PolicyConfig, Preset, RawBreaker, RawPolicy, RawRetry};
//! use cascade_policy::Nanos;
//!
//! let table = RawPolicy {
//!     preset: Some(Preset::Resilience4j), // fills the keys the parts leave out
//!     timeout: Some(Dur(250_000_000)), // "250ms" as a table writes it: nanoseconds
//!     retry: Some(RawRetry { attempts: Some(2), ..RawRetry::default() }),
//!     breaker: Some(RawBreaker { failure_rate: Some(0.25), ..RawBreaker::default() }),
//!     ..RawPolicy::default()
//! };
//! let policy = PolicyConfig::new(&table).expect("a valid table");
//! let retry = policy.retry().expect("the table has a retry");
//! assert_eq!(retry.attempts(), 2); // written
//! assert_eq!(retry.backoff().base(), Nanos::from_ms(500)); // resilience4j's waitDuration
//! let breaker = policy.breaker().expect("the table has a breaker");
//! assert_eq!(breaker.config().failure_rate(), 0.25);
//! assert_eq!(breaker.config().min_calls(), 100); // resilience4j's minimumNumberOfCalls
//! let mut breaker = Breaker::new(breaker.config().clone());
//! assert!(breaker.try_acquire(Nanos::ZERO).0.is_some()); // closed: the first call passes
//!
//! // An invalid value is refused with the field's path relative to the table.
//! let bad = RawPolicy {
//!     retry: Some(RawRetry { attempts: Some(0), ..RawRetry::default() }),
//!     ..RawPolicy::default()
//! };
//! let error = PolicyConfig::new(&bad).unwrap_err();
//! assert_eq!(error.path, "retry.attempts");
//! assert_eq!(error.message, "must be at least 1 (the first try)");
//! ```

mod breaker;
mod budget;
mod duration;
mod error;
mod guards;
mod hedge;
mod limit;
mod names;
mod outcomes;
mod policy;
pub mod preset;
mod raw;
mod raw_parts;
mod raw_service;
mod retry;
#[cfg(feature = "schema")]
pub mod schema;
mod service;
#[cfg(test)]
mod tests;

pub use breaker::DEFAULT_BREAKER_COUNT;
pub use budget::kind_name;
pub use duration::{Dur, UNITLESS, parse_duration, unitless};
pub use error::{Checked, TableError};
pub use names::{check_name, closest, did_you_mean, parse_name, stray_key};
pub use outcomes::outcomes;
pub use policy::{FallbackConfig, PolicyConfig};
pub use preset::{PRESETS, Preset, PresetDef};
pub use raw::*;
pub use raw_parts::*;
pub use raw_service::*;
pub use retry::{MAX_HOST_RESELECTIONS, retry_and_budget, single_attempt_retry};
