//! A circuit breaker: closed → open → half-open → closed, over virtual time.
//!
//! * **Window**: the last `n` recorded calls (`window = 100`, resilience4j COUNT_BASED), or a
//!   duration (`window = "10s"`) kept as ten buckets aligned to multiples of a tenth of it
//!   (resilience4j TIME_BASED keeps epoch-aligned one-second buckets).
//! * **Trip**: once at least `min_calls` are in the window (for a count window, at most `n`), the
//!   breaker opens when failures / calls ≥ `failure_rate`, or slow calls / calls ≥
//!   `slow_call_rate` (a call is slow when it took longer than `slow_call_duration`), or on
//!   `consecutive_failures` failures in a row.
//! * **Open** for `open`, then lazily half-open at the first call after that (resilience4j's and
//!   Polly's default). Each re-open from half-open multiplies the open time by `open_multiplier`,
//!   up to `open_max`; closing resets it.
//! * **Half-open**: `half_open_calls` probes are let through, others are rejected; all must
//!   succeed to close, any failure re-opens (`half_open_calls = 1` is Polly's single probe).
//! * Only outcomes in `count` are failures; anything else recorded is a success. Local
//!   rejections and `invalid` never count.
//! * Every change of state starts a new epoch; a result is recorded only in the epoch its call
//!   was let through in, so a late answer from before a trip is never taken for a probe. The
//!   epoch travels in the call's `BreakerPermit`, which only admission makes and which goes
//!   back once, with the result (`record`) or unused (`release_unused`).

use super::window::SlidingCounts;
use crate::outcome::{Outcome, OutcomeSet};
use crate::time::Nanos;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    Calls(u32),
    Time(Nanos),
}

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct BreakerConfig {
        window: Window,
        min_calls: u32,
        failure_rate: f64,
        slow_call_rate: f64,
        slow_call_duration: Nanos,
        consecutive_failures: u32,
        open: Nanos,
        open_multiplier: f64,
        open_max: Nanos,
        half_open_calls: u32,
        count: OutcomeSet,
    }
}

getters!(BreakerConfig {
    /// The calls it judges: the last `n`, or those of a time window.
    window: Window,
    /// Calls the window must hold before a rate can trip it.
    min_calls: u32,
    /// Failures / calls at which it opens, in (0, 1].
    failure_rate: f64,
    /// Slow calls / calls at which it opens; above 1, slow calls are not watched.
    slow_call_rate: f64,
    /// A call that took longer is slow.
    slow_call_duration: Nanos,
    /// 0 = not used.
    consecutive_failures: u32,
    /// How long it stays open the first time.
    open: Nanos,
    /// Each re-open from half-open multiplies the open time by this.
    open_multiplier: f64,
    /// The longest open time.
    open_max: Nanos,
    /// Probes let through while half-open; all must succeed to close.
    half_open_calls: u32,
    /// Failure kinds.
    count: OutcomeSet,
});

/// Whom a circuit breaker's state belongs to: the caller's edge to a service, or each
/// instance of it (`breaker.scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum BreakerScope {
    #[default]
    Edge,
    Instance,
}

config! {
    /// A breaker and where it sits: what a `breaker` table compiles to
    /// (`table::PolicyConfig::new`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct BreakerPolicy {
        config: BreakerConfig,
        wraps: crate::bulkhead::Wraps,
        scope: BreakerScope,
        retries_only: bool,
    }
}

getters!(BreakerPolicy {
    /// The state machine's settings.
    config: &BreakerConfig,
    /// Around each attempt (each retry passes it) or around the whole call.
    wraps: crate::bulkhead::Wraps,
    /// One breaker per call path, or one per callee instance.
    scope: BreakerScope,
    /// Brooker's retry-only breaker: first tries pass it whatever its state (recorded while it
    /// is closed), only retries are asked.
    retries_only: bool,
});

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Closed,
    Open { until: Nanos },
    HalfOpen { admitted: u32, succeeded: u32 },
}

/// What happened on a transition, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    None,
    /// Closed → open.
    Opened,
    /// Half-open → open again: a probe failed.
    Reopened,
    HalfOpened,
    /// Half-open → closed.
    Closed,
}

/// Leave for one call to pass the breaker, made only by `try_acquire` (or `first_try_permit`)
/// and handed back exactly once: to `record` with the call's result, or to `release_unused`
/// when the call was never sent. It carries the epoch the call was let through in, so the
/// result is judged by the state that admitted it.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "a breaker permit goes back through `record` or `release_unused`"]
pub struct BreakerPermit {
    epoch: u32,
}

#[derive(Debug, Clone)]
pub struct Breaker {
    cfg: BreakerConfig,
    state: State,
    /// The open duration to use next (grows while probes fail).
    next_open: Nanos,
    /// Bumped on every change of state.
    epoch: u32,
    consecutive: u32,
    /// Count window: ring of (failed, slow) for the last n calls, and how many of the live
    /// entries failed and were slow (kept up to date, not recounted).
    ring: Vec<(bool, bool)>,
    ring_pos: usize,
    ring_len: usize,
    ring_failures: u32,
    ring_slows: u32,
    /// Time window: calls, failures and slow calls.
    buckets: SlidingCounts<3>,
}

impl Breaker {
    pub fn new(cfg: BreakerConfig) -> Breaker {
        let (ring, window) = match cfg.window {
            Window::Calls(n) => (vec![(false, false); n as usize], Nanos(1)),
            Window::Time(w) => (Vec::new(), w),
        };
        Breaker {
            next_open: cfg.open,
            cfg,
            state: State::Closed,
            epoch: 0,
            consecutive: 0,
            ring,
            ring_pos: 0,
            ring_len: 0,
            ring_failures: 0,
            ring_slows: 0,
            buckets: SlidingCounts::new(window),
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn is_open(&self) -> bool {
        matches!(self.state, State::Open { .. })
    }

    /// Asks to let a call through at `now`: its permit if it may pass (none: rejected), and
    /// any transition (open → half-open happens here, lazily).
    pub fn try_acquire(&mut self, now: Nanos) -> (Option<BreakerPermit>, Transition) {
        let (admitted, transition) = self.admit(now);
        let permit = admitted.then_some(BreakerPermit { epoch: self.epoch });
        (permit, transition)
    }

    /// Admission's decision, before the permit is made (in the epoch admission ends in).
    #[inline]
    fn admit(&mut self, now: Nanos) -> (bool, Transition) {
        match self.state {
            State::Closed => (true, Transition::None),
            State::Open { until } if now < until => (false, Transition::None),
            State::Open { .. } => {
                self.state = State::HalfOpen {
                    admitted: 1,
                    succeeded: 0,
                };
                self.epoch += 1;
                (true, Transition::HalfOpened)
            }
            State::HalfOpen {
                admitted,
                succeeded,
            } => {
                if admitted < self.cfg.half_open_calls {
                    self.state = State::HalfOpen {
                        admitted: admitted + 1,
                        succeeded,
                    };
                    (true, Transition::None)
                } else {
                    (false, Transition::None)
                }
            }
        }
    }

    /// Brooker's retry-only breaker sends a first try without asking: while closed, a permit
    /// to record its outcome with, so the failure rate counts first tries too; none while
    /// open or half-open, where only retries (the probes) are judged.
    pub fn first_try_permit(&self) -> Option<BreakerPermit> {
        (self.state == State::Closed).then_some(BreakerPermit { epoch: self.epoch })
    }

    /// Gives back the permit of a call that was let through but never sent (a bulkhead
    /// refused it): a half-open probe's place is free again.
    pub fn release_unused(&mut self, permit: BreakerPermit) {
        if permit.epoch != self.epoch {
            return;
        }
        if let State::HalfOpen {
            admitted,
            succeeded,
        } = self.state
        {
            self.state = State::HalfOpen {
                admitted: admitted.saturating_sub(1),
                succeeded,
            };
        }
    }

    /// Records the outcome of a call that was let through with `permit`, `took` after it
    /// started; a permit from an earlier epoch (before a change of state) records nothing.
    pub fn record(
        &mut self,
        now: Nanos,
        outcome: Outcome,
        took: Nanos,
        permit: BreakerPermit,
    ) -> Transition {
        if permit.epoch != self.epoch {
            return Transition::None;
        }
        let failed = self.cfg.count.contains(outcome);
        let slow = took > self.cfg.slow_call_duration;
        match self.state {
            State::HalfOpen {
                admitted,
                succeeded,
            } => {
                if failed || (slow && self.detects_slow_calls()) {
                    return self.open(now, true);
                }
                let succeeded = succeeded + 1;
                if succeeded >= self.cfg.half_open_calls {
                    self.close();
                    return Transition::Closed;
                }
                self.state = State::HalfOpen {
                    admitted,
                    succeeded,
                };
                Transition::None
            }
            // Results that arrive while open (calls let through before it opened) are dropped.
            State::Open { .. } => Transition::None,
            State::Closed => {
                self.consecutive = if failed { self.consecutive + 1 } else { 0 };
                let (calls, failures, slows) = self.push(now, failed, slow);
                let cfg = &self.cfg;
                let enough = calls >= self.min_calls();
                let calls_f = f64::from(calls);
                let trip = (cfg.consecutive_failures > 0
                    && self.consecutive >= cfg.consecutive_failures)
                    || (enough && f64::from(failures) >= cfg.failure_rate * calls_f)
                    || (enough && f64::from(slows) >= cfg.slow_call_rate * calls_f);
                if trip {
                    self.open(now, false)
                } else {
                    Transition::None
                }
            }
        }
    }

    /// Whether slow calls are watched at all (a slow probe then fails like a failed one).
    fn detects_slow_calls(&self) -> bool {
        self.cfg.slow_call_rate <= 1.0 && self.cfg.slow_call_duration < Nanos::MAX
    }

    fn min_calls(&self) -> u32 {
        match self.cfg.window {
            Window::Calls(n) => self.cfg.min_calls.min(n).max(1),
            Window::Time(_) => self.cfg.min_calls.max(1),
        }
    }

    fn open(&mut self, now: Nanos, from_half_open: bool) -> Transition {
        if from_half_open {
            let grown = self.next_open.0 as f64 * self.cfg.open_multiplier;
            self.next_open = Nanos(grown.min(self.cfg.open_max.0 as f64) as u64)
                .max(self.cfg.open.min(self.cfg.open_max));
        }
        self.state = State::Open {
            until: now.saturating_add(self.next_open),
        };
        self.epoch += 1;
        self.reset_window();
        if from_half_open {
            Transition::Reopened
        } else {
            Transition::Opened
        }
    }

    fn close(&mut self) {
        self.state = State::Closed;
        self.epoch += 1;
        self.next_open = self.cfg.open;
        self.reset_window();
    }

    fn reset_window(&mut self) {
        self.consecutive = 0;
        self.ring_pos = 0;
        self.ring_len = 0;
        self.ring_failures = 0;
        self.ring_slows = 0;
        self.buckets.clear();
    }

    /// Adds a result to the window; returns (calls, failures, slow calls) in it.
    fn push(&mut self, now: Nanos, failed: bool, slow: bool) -> (u32, u32, u32) {
        match self.cfg.window {
            Window::Calls(n) => {
                // The ring fills from slot 0 after every reset: an entry is live (and leaves as
                // the new one comes in) once the ring is full.
                if self.ring_len == n as usize {
                    let (old_failed, old_slow) = self.ring[self.ring_pos];
                    self.ring_failures -= u32::from(old_failed);
                    self.ring_slows -= u32::from(old_slow);
                }
                self.ring[self.ring_pos] = (failed, slow);
                self.ring_failures += u32::from(failed);
                self.ring_slows += u32::from(slow);
                self.ring_pos = (self.ring_pos + 1) % n as usize;
                self.ring_len = (self.ring_len + 1).min(n as usize);
                (self.ring_len as u32, self.ring_failures, self.ring_slows)
            }
            Window::Time(_) => {
                self.buckets.add(now, 0, 1.0);
                self.buckets.add(now, 1, f64::from(u8::from(failed)));
                self.buckets.add(now, 2, f64::from(u8::from(slow)));
                let [calls, failures, slows] = self.buckets.totals(now);
                (calls as u32, failures as u32, slows as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);
    const S: Nanos = Nanos::from_secs(1);

    fn cfg() -> BreakerConfig {
        BreakerConfig {
            window: Window::Calls(10),
            min_calls: 4,
            failure_rate: 0.5,
            slow_call_rate: 2.0, // off
            slow_call_duration: Nanos::MAX,
            consecutive_failures: 0,
            open: 5 * S,
            open_multiplier: 1.0,
            open_max: 60 * S,
            half_open_calls: 2,
            count: OutcomeSet::of(&[Outcome::Timeout, Outcome::Unavailable]),
        }
    }

    fn feed(b: &mut Breaker, now: Nanos, outcomes: &[Outcome]) -> Vec<Transition> {
        outcomes
            .iter()
            .map(|o| {
                let permit = b.try_acquire(now).0.expect("call let through");
                b.record(now, *o, MS, permit)
            })
            .collect()
    }

    use Outcome::{Internal, Ok as Good, Timeout as Bad};

    #[test]
    fn a_retry_only_breaker_judges_first_tries_only_while_closed() {
        let mut b = Breaker::new(cfg());
        // Closed: first tries are recorded without asking; four failures of four trip it.
        let mut last = Transition::None;
        for _ in 0..4 {
            let permit = b.first_try_permit().expect("closed: recorded");
            last = b.record(Nanos::ZERO, Bad, MS, permit);
        }
        assert_eq!(last, Transition::Opened);
        // Open: a first try is still sent but judged by nothing; a retry is refused.
        assert_eq!(b.first_try_permit(), None);
        assert!(b.try_acquire(S).0.is_none(), "retries stop while open");
        // After `open` the next retry is a half-open probe; first tries are still not judged,
        // so they can neither close nor re-open it.
        let (first, t) = b.try_acquire(5 * S);
        assert_eq!(t, Transition::HalfOpened);
        assert_eq!(b.first_try_permit(), None);
        // Two successful retry probes close it, and first tries count again.
        let second = b.try_acquire(5 * S).0.expect("second probe");
        assert_eq!(b.record(5 * S, Good, MS, first.unwrap()), Transition::None);
        assert_eq!(b.record(5 * S, Good, MS, second), Transition::Closed);
        assert!(b.first_try_permit().is_some());
    }

    #[test]
    fn stays_closed_below_min_calls_and_trips_at_the_failure_rate() {
        let mut b = Breaker::new(cfg());
        // Three failures: below min_calls (4), no decision.
        assert_eq!(
            feed(&mut b, Nanos::ZERO, &[Bad, Bad, Bad]),
            vec![Transition::None; 3]
        );
        // The fourth call makes 3 of 4 failed: 75% >= 50%.
        assert_eq!(feed(&mut b, Nanos::ZERO, &[Good]), vec![Transition::Opened]);
        assert!(b.is_open());
    }

    #[test]
    fn uncounted_kinds_are_successes() {
        let mut b = Breaker::new(cfg());
        feed(
            &mut b,
            Nanos::ZERO,
            &[Internal, Internal, Internal, Internal, Bad],
        );
        assert_eq!(b.state(), State::Closed, "1 of 5 failed");
    }

    #[test]
    fn count_window_keeps_only_the_last_n() {
        let mut b = Breaker::new(BreakerConfig {
            min_calls: 10,
            ..cfg()
        });
        feed(
            &mut b,
            Nanos::ZERO,
            &[Bad, Bad, Bad, Bad, Good, Good, Good, Good, Good, Good],
        );
        assert_eq!(b.state(), State::Closed, "4 of 10");
        // Two more successes push two failures out: 2 of 10. One more failure: 3 of 10.
        feed(&mut b, Nanos::ZERO, &[Good, Good, Bad]);
        assert_eq!(b.state(), State::Closed);
        // The next failures overwrite the oldest results (a failure, then successes): 4 of 10
        // after three, 5 of 10 after four, which trips at 50%.
        let t = feed(&mut b, Nanos::ZERO, &[Bad, Bad, Bad, Bad]);
        assert_eq!(
            t,
            vec![
                Transition::None,
                Transition::None,
                Transition::None,
                Transition::Opened
            ]
        );
    }

    #[test]
    fn open_rejects_then_half_opens_lazily_and_closes_when_probes_succeed() {
        let mut b = Breaker::new(cfg());
        feed(&mut b, Nanos::ZERO, &[Bad, Bad, Bad, Bad]);
        assert_eq!(b.try_acquire(4 * S), (None, Transition::None));
        let (first, t) = b.try_acquire(5 * S);
        assert_eq!(t, Transition::HalfOpened);
        let (second, t) = b.try_acquire(5 * S);
        assert_eq!(t, Transition::None, "second probe");
        assert_eq!(
            b.try_acquire(5 * S),
            (None, Transition::None),
            "beyond half_open_calls"
        );
        assert_eq!(b.record(5 * S, Good, MS, first.unwrap()), Transition::None);
        assert_eq!(
            b.record(5 * S, Good, MS, second.unwrap()),
            Transition::Closed
        );
        assert_eq!(b.state(), State::Closed);
    }

    #[test]
    fn a_failed_probe_reopens_with_growing_open_time() {
        let mut b = Breaker::new(BreakerConfig {
            open_multiplier: 2.0,
            open_max: 15 * S,
            half_open_calls: 1,
            ..cfg()
        });
        feed(&mut b, Nanos::ZERO, &[Bad, Bad, Bad, Bad]);
        assert_eq!(b.state(), State::Open { until: 5 * S });
        let probe = b.try_acquire(5 * S).0.unwrap();
        assert_eq!(b.record(5 * S, Bad, MS, probe), Transition::Reopened);
        assert_eq!(
            b.state(),
            State::Open { until: 15 * S },
            "5 s doubled to 10 s"
        );
        let probe = b.try_acquire(15 * S).0.unwrap();
        b.record(15 * S, Bad, MS, probe);
        assert_eq!(
            b.state(),
            State::Open { until: 30 * S },
            "20 s capped at 15 s"
        );
        let probe = b.try_acquire(30 * S).0.unwrap();
        assert_eq!(b.record(30 * S, Good, MS, probe), Transition::Closed);
        // Closing resets the open time.
        feed(&mut b, 31 * S, &[Bad, Bad, Bad, Bad]);
        assert_eq!(b.state(), State::Open { until: 36 * S });
    }

    #[test]
    fn results_from_before_a_trip_are_not_taken_for_probes() {
        let mut b = Breaker::new(BreakerConfig {
            half_open_calls: 1,
            ..cfg()
        });
        let stale = b.try_acquire(Nanos::ZERO).0.unwrap();
        let stale_unsent = b.try_acquire(Nanos::ZERO).0.unwrap();
        feed(&mut b, Nanos::ZERO, &[Bad, Bad, Bad, Bad]);
        let probe = b.try_acquire(5 * S).0.expect("the probe");
        // The call admitted before the trip answers late: ignored.
        assert_eq!(b.record(5 * S, Good, MS, stale), Transition::None);
        assert_eq!(
            b.state(),
            State::HalfOpen {
                admitted: 1,
                succeeded: 0
            }
        );
        // Nor does one admitted before the trip and never sent free the probe's place.
        b.release_unused(stale_unsent);
        assert_eq!(
            b.state(),
            State::HalfOpen {
                admitted: 1,
                succeeded: 0
            }
        );
        assert_eq!(b.record(5 * S, Good, MS, probe), Transition::Closed);
    }

    #[test]
    fn consecutive_failures_trip_without_a_rate() {
        let mut b = Breaker::new(BreakerConfig {
            consecutive_failures: 3,
            min_calls: 100,
            ..cfg()
        });
        feed(&mut b, Nanos::ZERO, &[Bad, Bad, Good, Bad, Bad]);
        assert_eq!(b.state(), State::Closed);
        assert_eq!(feed(&mut b, Nanos::ZERO, &[Bad]), vec![Transition::Opened]);
    }

    #[test]
    fn slow_calls_trip_at_the_slow_rate() {
        let mut b = Breaker::new(BreakerConfig {
            slow_call_rate: 0.5,
            slow_call_duration: 100 * MS,
            ..cfg()
        });
        for took in [200, 10, 200, 10] {
            let permit = b.try_acquire(Nanos::ZERO).0.unwrap();
            b.record(Nanos::ZERO, Good, took * MS, permit);
        }
        assert!(b.is_open(), "2 of 4 slow");
    }

    #[test]
    fn time_window_forgets_old_buckets() {
        let mut b = Breaker::new(BreakerConfig {
            window: Window::Time(10 * S),
            min_calls: 4,
            ..cfg()
        });
        feed(&mut b, Nanos::ZERO, &[Bad, Bad, Bad]);
        // 10 s later those three are out of the window: 1 failure in 4 does not trip.
        feed(&mut b, 10 * S, &[Bad, Good, Good, Good]);
        assert_eq!(b.state(), State::Closed);
        feed(&mut b, 11 * S, &[Bad, Bad]);
        assert!(b.is_open(), "3 of 6 within the window");
    }
}
