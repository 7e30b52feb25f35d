//! Finagle's failure accrual, per callee host, as `liveness/FailureAccrualFactory.scala` and
//! `FailureAccrualPolicy.consecutiveFailures` (twitter/finagle, 2024) do it:
//!
//! * **Alive**: every success resets the count of consecutive failures, every failure adds
//!   one; the count *reaching* `consecutive_failures` marks the host dead for the next
//!   duration of its backoff.
//! * **Dead** for that duration: the balancer avoids the host (its status is `Busy`). Replies
//!   that still come back from it are not judged, except that a success resets the count
//!   (`policy.recordSuccess()` is called in every state).
//! * **ProbeOpen** when the duration is over (Finagle's revive timer; here read lazily at the
//!   next pick, which is the same instant for every decision): the host is available again,
//!   and the first request sent to it makes it **ProbeClosed**: unavailable again until that
//!   request (or any other to it) answers.
//! * In ProbeClosed a success revives the host (**Alive**, the backoff starts over); a failure
//!   counts as any other, so with the count still at the threshold it marks the host dead at
//!   once for the *next*, longer, duration; a failure that leaves the count short of the
//!   threshold (a success reset it meanwhile) re-opens the probe.
//!
//! The backoff is Finagle's default `Backoff.equalJittered(5.seconds, 300.seconds)`: the first
//! mark lasts `mark_dead_for`, the k-th (k ≥ 1) after it h + U·h with h = `mark_dead_for`·2^(k−1),
//! capped at `mark_dead_max`; equal values give a constant duration.

use crate::time::Nanos;

config! {
    /// `failure_accrual` on a call path.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AccrualConfig {
        consecutive_failures: u32,
        mark_dead_for: Nanos,
        mark_dead_max: Nanos,
    }
}

getters!(AccrualConfig {
    /// Failures in a row that mark a host dead.
    consecutive_failures: u32,
    /// The first mark's duration.
    mark_dead_for: Nanos,
    /// The longest mark.
    mark_dead_max: Nanos,
});

impl Default for AccrualConfig {
    /// Finagle's defaults: `DefaultConsecutiveFailures = 5`, `equalJittered(5s, 300s)`.
    fn default() -> AccrualConfig {
        const S: Nanos = Nanos::from_secs(1);
        AccrualConfig {
            consecutive_failures: 5,
            mark_dead_for: 5 * S,
            mark_dead_max: 300 * S,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Alive,
    /// Marked dead until this instant; a probe may go once it has passed.
    Dead {
        until: Nanos,
    },
    /// A probe is out: nothing else is sent until an answer comes back.
    ProbeClosed,
}

/// What a judged reply did to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    None,
    /// Marked dead for `for_ns`: from alive (`removal`, Finagle's `removals` counter), or
    /// again after a failed probe (not a removal, as Finagle counts them).
    MarkedDead {
        for_ns: Nanos,
        removal: bool,
    },
    /// A probe succeeded: alive again.
    Revived,
}

/// One callee host's failure accrual at one caller.
#[derive(Debug, Clone)]
pub struct Accrual {
    state: State,
    consecutive: u32,
    /// Marks since the last revival: which duration of the backoff comes next.
    marks: u32,
}

impl Default for Accrual {
    fn default() -> Accrual {
        Accrual {
            state: State::Alive,
            consecutive: 0,
            marks: 0,
        }
    }
}

impl Accrual {
    /// Whether the balancer may pick the host at `now` (Finagle's status `Open`).
    pub fn available(&self, now: Nanos) -> bool {
        match self.state {
            State::Alive => true,
            State::Dead { until } => now >= until,
            State::ProbeClosed => false,
        }
    }

    /// Whether the host is marked (dead, or its probe out) at `now`.
    pub fn marked(&self, now: Nanos) -> bool {
        !self.available(now)
    }

    /// A request is sent to the host at `now`: a host whose mark is over takes it as its
    /// probe (`stopProbing`). Returns true when it did.
    pub fn on_send(&mut self, now: Nanos) -> bool {
        match self.state {
            State::Dead { until } if now >= until => {
                self.state = State::ProbeClosed;
                true
            }
            _ => false,
        }
    }

    /// A reply (or a timeout) from the host at `now`; `u` draws a uniform number in [0, 1)
    /// for the backoff's jitter, only when the host is marked.
    pub fn record(
        &mut self,
        cfg: &AccrualConfig,
        now: Nanos,
        failed: bool,
        u: impl FnOnce() -> f64,
    ) -> Change {
        if !failed {
            self.consecutive = 0;
            if self.state == State::ProbeClosed {
                self.state = State::Alive;
                self.marks = 0;
                return Change::Revived;
            }
            return Change::None;
        }
        if matches!(self.state, State::Dead { .. }) {
            return Change::None;
        }
        self.consecutive += 1;
        if self.consecutive >= cfg.consecutive_failures {
            let for_ns = mark_duration(cfg, self.marks, u);
            let removal = self.state == State::Alive;
            self.marks += 1;
            self.state = State::Dead {
                until: now.saturating_add(for_ns),
            };
            Change::MarkedDead { for_ns, removal }
        } else {
            if self.state == State::ProbeClosed {
                // Finagle's `startProbing()`: the probe failed but does not mark; probe again.
                self.state = State::Dead { until: now };
            }
            Change::None
        }
    }
}

/// The duration of mark number `k` (from 0 after a revival): Finagle's `equalJittered`.
pub fn mark_duration(cfg: &AccrualConfig, k: u32, u: impl FnOnce() -> f64) -> Nanos {
    if k == 0 || cfg.mark_dead_for >= cfg.mark_dead_max {
        return cfg.mark_dead_for.min(cfg.mark_dead_max);
    }
    let u = u();
    // Finagle caps the shift (MaxBitShift); past 2^40 the cap has long won anyway.
    let half = Nanos(cfg.mark_dead_for.0.saturating_mul(1u64 << (k - 1).min(40)));
    half.saturating_add(half.mul_f64(u)).min(cfg.mark_dead_max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = Nanos::from_secs(1);

    fn cfg() -> AccrualConfig {
        AccrualConfig::default()
    }

    #[test]
    fn five_consecutive_failures_mark_the_host_dead_for_five_seconds() {
        let mut a = Accrual::default();
        for k in 0..4 {
            assert_eq!(a.record(&cfg(), Nanos(k), true, || 0.5), Change::None);
            assert!(a.available(Nanos(k)));
        }
        assert_eq!(
            a.record(&cfg(), Nanos(4), true, || 0.5),
            Change::MarkedDead {
                for_ns: 5 * S,
                removal: true
            }
        );
        assert!(!a.available(Nanos(4)));
        assert!(!a.available(5 * S + Nanos(3)));
        assert!(a.available(5 * S + Nanos(4)));
    }

    #[test]
    fn a_success_resets_the_count() {
        let mut a = Accrual::default();
        for k in 0..4 {
            a.record(&cfg(), Nanos(k), true, || 0.0);
        }
        a.record(&cfg(), Nanos(4), false, || 0.0);
        for k in 5..9 {
            assert_eq!(a.record(&cfg(), Nanos(k), true, || 0.0), Change::None);
        }
        assert!(matches!(
            a.record(&cfg(), Nanos(9), true, || 0.0),
            Change::MarkedDead { .. }
        ));
    }

    #[test]
    fn replies_while_dead_are_not_judged() {
        let mut a = Accrual::default();
        for k in 0..5 {
            a.record(&cfg(), Nanos(k), true, || 0.0);
        }
        // Late failures neither extend the mark nor count.
        assert_eq!(a.record(&cfg(), S, true, || 0.0), Change::None);
        assert!(a.available(5 * S + Nanos(4)));
    }

    #[test]
    fn one_probe_then_alive_on_success() {
        let mut a = Accrual::default();
        for k in 0..5 {
            a.record(&cfg(), Nanos(k), true, || 0.0);
        }
        let t = 6 * S;
        assert!(
            a.on_send(t),
            "the first request after the mark is the probe"
        );
        assert!(!a.available(t), "nothing else goes while the probe is out");
        assert!(!a.on_send(t));
        assert_eq!(
            a.record(&cfg(), t + Nanos(1), false, || 0.0),
            Change::Revived
        );
        assert!(a.available(t + Nanos(1)));
        // The backoff starts over: the next mark is 5 s again.
        for k in 0..4 {
            a.record(&cfg(), t + Nanos(2) + Nanos(k), true, || 0.9);
        }
        assert_eq!(
            a.record(&cfg(), t + Nanos(9), true, || 0.9),
            Change::MarkedDead {
                for_ns: 5 * S,
                removal: true
            }
        );
    }

    #[test]
    fn a_failed_probe_marks_dead_for_the_next_longer_duration() {
        let mut a = Accrual::default();
        for k in 0..5 {
            a.record(&cfg(), Nanos(k), true, || 0.0);
        }
        a.on_send(6 * S);
        // The count is still at the threshold: marked again at once, for 5 + U·5 s.
        assert_eq!(
            a.record(&cfg(), 6 * S, true, || 0.5),
            Change::MarkedDead {
                for_ns: Nanos(7_500_000_000),
                removal: false
            }
        );
        a.on_send(14 * S);
        assert_eq!(
            a.record(&cfg(), 14 * S, true, || 0.25),
            Change::MarkedDead {
                for_ns: Nanos(12_500_000_000),
                removal: false
            }
        );
    }

    #[test]
    fn a_probe_failure_short_of_the_threshold_probes_again() {
        let mut a = Accrual::default();
        for k in 0..5 {
            a.record(&cfg(), Nanos(k), true, || 0.0);
        }
        // A late success from before the mark resets the count (recordSuccess in any state).
        a.record(&cfg(), S, false, || 0.0);
        a.on_send(6 * S);
        assert_eq!(
            a.record(&cfg(), 6 * S + Nanos(1), true, || 0.0),
            Change::None
        );
        assert!(a.available(6 * S + Nanos(1)), "probing again");
        assert!(a.on_send(6 * S + Nanos(2)));
    }

    #[test]
    fn equal_jitter_doubles_and_caps() {
        let c = cfg();
        assert_eq!(mark_duration(&c, 0, || 0.99), 5 * S);
        assert_eq!(mark_duration(&c, 1, || 0.0), 5 * S);
        assert_eq!(mark_duration(&c, 1, || 0.5), Nanos(7_500_000_000));
        assert_eq!(mark_duration(&c, 3, || 0.5), 30 * S);
        assert_eq!(mark_duration(&c, 7, || 0.5), 300 * S);
        assert_eq!(mark_duration(&c, 60, || 0.5), 300 * S);
        let constant = AccrualConfig {
            mark_dead_max: 5 * S,
            ..cfg()
        };
        assert_eq!(mark_duration(&constant, 4, || 0.9), 5 * S);
    }
}
