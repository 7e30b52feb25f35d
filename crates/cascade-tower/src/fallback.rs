//! A fallback's answer. The table's `fallback` says which failures fall back and how long a
//! canned answer takes (`latency`); the answer itself is the service's, given when the stack
//! is built (`CascadeLayer::from_table_with_fallback`), so a table that falls back always has
//! an answer: `from_table` refuses a `fallback` without one. It also stands for a fallback that
//! calls another service (`to`): call it yourself inside the function if you need to.

use cascade_policy::outcome::Outcome;

/// Answers a call that failed with `failed`; `None`: no fallback (the call ends failed).
pub trait Fallback<Resp>: Send + Sync + 'static {
    fn answer(&self, failed: Outcome) -> Option<Resp>;
}

/// No fallback answer: the stack of a table without `fallback` (`from_table` refuses one
/// with), so it is never asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFallback;

impl<Resp> Fallback<Resp> for NoFallback {
    fn answer(&self, _: Outcome) -> Option<Resp> {
        None
    }
}

/// A function of the failure: always an answer.
#[derive(Debug, Clone, Copy)]
pub struct FallbackFn<F>(pub F);

impl<Resp, F> Fallback<Resp> for FallbackFn<F>
where
    F: Fn(Outcome) -> Resp + Send + Sync + 'static,
{
    fn answer(&self, failed: Outcome) -> Option<Resp> {
        Some((self.0)(failed))
    }
}
