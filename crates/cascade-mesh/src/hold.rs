//! Work as a hold with a timer finer than tokio's: its wheel rounds a sleep up to the next
//! millisecond, which biases a 10 ms exponential hold by 5–10% of capacity. A hold sleeps
//! until `SPIN` before its end, then spins (yielding to other tasks) to the instant; how late
//! each hold ended is kept, and written into mesh.json, so the error is stated, not assumed.

use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// The part of a hold spun rather than slept: past tokio's 1 ms rounding, with room for a
/// busy scheduler's wake-up delay.
const SPIN: Duration = Duration::from_micros(2_000);

/// Holds kept for the lateness figures: a bound on memory, the first ones of the run.
const KEPT: usize = 1_000_000;

/// The lateness of every hold so far (ns), up to `KEPT`.
#[derive(Debug, Default)]
pub struct Lateness(Mutex<Vec<u64>>);

impl Lateness {
    fn note(&self, late_ns: u64) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() < KEPT {
            v.push(late_ns);
        }
    }

    /// The mean lateness in ms: what a hold adds to a span's duration on average, the tail
    /// included (the traces' test allows for it).
    pub fn mean_ms(&self) -> f64 {
        let v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if v.is_empty() {
            return 0.0;
        }
        v.iter().map(|&ns| ns as f64).sum::<f64>() / v.len() as f64 / 1e6
    }

    /// (holds, p50, p99, max) in ms.
    pub fn figures(&self) -> (usize, f64, f64, f64) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        v.sort_unstable();
        let at = |q: f64| {
            v.get(((v.len() as f64 * q) as usize).min(v.len().saturating_sub(1)))
                .map_or(0.0, |&ns| ns as f64 / 1e6)
        };
        (
            v.len(),
            at(0.5),
            at(0.99),
            v.last().map_or(0.0, |&ns| ns as f64 / 1e6),
        )
    }
}

/// Holds for `ns` nanoseconds from now, and notes how late it ended.
pub async fn hold(ns: u64, lateness: &Lateness) {
    if ns == 0 {
        return;
    }
    let end = Instant::now() + Duration::from_nanos(ns);
    if let Some(wake) = end.checked_sub(SPIN)
        && wake > Instant::now()
    {
        tokio::time::sleep_until(wake).await;
    }
    // Bounded by `end`: the loop stops once the clock passes it.
    while Instant::now() < end {
        tokio::task::yield_now().await;
    }
    let late = Instant::now().saturating_duration_since(end);
    lateness.note(late.as_nanos() as u64);
}
