//! Limiters by fixed cycles: a number of permits per period, handed out with reservations.
//!
//! - `Resilience4j`: resilience4j's `AtomicRateLimiter` (resilience4j-ratelimiter 2.x,
//!   `calculateNextState`, `nanosToWaitForPermission`, `reservePermissions`,
//!   `waitForPermissionIfNecessary`). Cycles of `limitRefreshPeriod` counted from the limiter's
//!   creation; each starts with `limitForPeriod` permits (unused ones do not carry past it). A
//!   caller whose permit comes within `timeoutDuration` reserves it (the count may go below
//!   zero) and waits until its cycle; one whose permit does not is refused
//!   (`RequestNotPermitted`) — and `acquirePermission` keeps it parked for the whole timeout
//!   before it is refused.
//! - `TowerRate`: tower's `RateLimit` (`tower::limit::rate`): `num` requests per window of
//!   `per`, a window starting with the first request after the last one ended; once a window's
//!   `num` are used the service is not ready until it ends (back-pressure: the callers wait in
//!   line, FIFO, each next window starting when the last ends while the line lasts).

use crate::time::Nanos;

/// resilience4j's `RateLimiterConfig`: `limitForPeriod`, `limitRefreshPeriod`,
/// `timeoutDuration` (defaults 50, 500 ns, 5 s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resilience4jConfig {
    pub limit_for_period: u64,
    pub limit_refresh_period: Nanos,
    pub timeout: Nanos,
}

impl Resilience4jConfig {
    /// resilience4j's defaults.
    pub const DEFAULT: Resilience4jConfig = Resilience4jConfig {
        limit_for_period: 50,
        limit_refresh_period: Nanos(500),
        timeout: Nanos::from_secs(5),
    };

    /// Permits per second.
    pub fn per_second(&self) -> f64 {
        self.limit_for_period as f64 / self.limit_refresh_period.as_secs_f64()
    }
}

/// What `acquirePermission` does with a caller: through now, through after a wait, or refused
/// after being parked for the timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CycleVerdict {
    Pass,
    Wait(Nanos),
    RefuseAfter(Nanos),
}

/// resilience4j's `AtomicRateLimiter.State`: the active cycle and its permissions (negative
/// once reserved ahead).
#[derive(Debug, Clone)]
pub struct Resilience4j {
    cycle: u64,
    permissions: i64,
    /// `nanoTimeStart`: cycles count from here.
    origin: Nanos,
}

impl Resilience4j {
    /// Created at `now` with a full first cycle.
    pub fn new(cfg: &Resilience4jConfig, now: Nanos) -> Resilience4j {
        Resilience4j {
            cycle: 0,
            permissions: cfg.limit_for_period as i64,
            origin: now,
        }
    }

    /// `acquirePermission(1)` at `now`.
    pub fn acquire(&mut self, cfg: &Resilience4jConfig, now: Nanos) -> CycleVerdict {
        let period = cfg.limit_refresh_period.0;
        let per_cycle = cfg.limit_for_period as i64;
        let current = now.0.saturating_sub(self.origin.0);
        let cycle = current / period;
        if cycle != self.cycle {
            let accumulated = (cycle - self.cycle).saturating_mul(cfg.limit_for_period);
            let accumulated = i64::try_from(accumulated).unwrap_or(i64::MAX);
            self.permissions = self.permissions.saturating_add(accumulated).min(per_cycle);
            self.cycle = cycle;
        }
        let wait = match self.permissions >= 1 {
            true => 0,
            false => {
                let to_next = (cycle + 1) * period - current;
                let at_next = self.permissions + per_cycle;
                // divCeil(-(at_next - 1), per_cycle): the full cycles past the next one.
                let full = ((1 - at_next) + per_cycle - 1).max(0) / per_cycle;
                full as u64 * period + to_next
            }
        };
        if wait > cfg.timeout.0 {
            return CycleVerdict::RefuseAfter(cfg.timeout);
        }
        self.permissions -= 1;
        match wait {
            0 => CycleVerdict::Pass,
            w => CycleVerdict::Wait(Nanos(w)),
        }
    }

    /// How long from `now` until a caller would not be refused: until the wait for a permit
    /// is within the timeout.
    pub fn until_within(&self, cfg: &Resilience4jConfig, now: Nanos) -> Nanos {
        let mut probe = self.clone();
        match probe.acquire(cfg, now) {
            CycleVerdict::RefuseAfter(_) => {
                // Each later cycle brings `limit_for_period` more; the reservation's wait
                // falls by a period a cycle, so the first instant it fits is the next cycle
                // boundary at which it does.
                let period = cfg.limit_refresh_period.0;
                let current = now.0.saturating_sub(self.origin.0);
                let mut t = (current / period + 1) * period;
                loop {
                    let mut p = self.clone();
                    if !matches!(
                        p.acquire(cfg, Nanos(t + self.origin.0)),
                        CycleVerdict::RefuseAfter(_)
                    ) {
                        return Nanos(t - current);
                    }
                    t += period;
                }
            }
            _ => Nanos::ZERO,
        }
    }
}

/// tower's `Rate`: `num` requests per `per`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TowerRateConfig {
    pub num: u64,
    pub per: Nanos,
}

impl TowerRateConfig {
    /// Requests per second.
    pub fn per_second(&self) -> f64 {
        self.num as f64 / self.per.as_secs_f64()
    }
}

/// tower's `RateLimit` state, with its line of waiting callers kept as the windows they are
/// given: the window being filled (`start` .. `until`, `used` of its `num`).
#[derive(Debug, Clone)]
pub struct TowerRate {
    start: Nanos,
    until: Nanos,
    used: u64,
}

impl TowerRate {
    /// Created at `now`: `until = now`, so the first request opens a window.
    pub fn new(cfg: &TowerRateConfig, now: Nanos) -> TowerRate {
        TowerRate {
            start: now,
            until: now,
            used: cfg.num,
        }
    }

    /// A request at `now`: how long it waits for its window (0: now). Nothing is refused.
    pub fn acquire(&mut self, cfg: &TowerRateConfig, now: Nanos) -> Nanos {
        if now >= self.until {
            // The last window is over and nobody waits: a window opens now.
            (self.start, self.until, self.used) = (now, now.saturating_add(cfg.per), 0);
        } else if self.used == cfg.num {
            // This window is full: the next opens when it ends (the line is not empty).
            self.start = self.until;
            self.until = self.until.saturating_add(cfg.per);
            self.used = 0;
        }
        self.used += 1;
        self.start.saturating_sub(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = Nanos::from_ms(1);

    fn r4j(limit: u64, period_ms: u64, timeout_ms: u64) -> Resilience4jConfig {
        Resilience4jConfig {
            limit_for_period: limit,
            limit_refresh_period: period_ms * MS,
            timeout: timeout_ms * MS,
        }
    }

    #[test]
    fn resilience4j_reserves_within_the_timeout_and_parks_the_rest() {
        use CycleVerdict::*;
        // Two permits per 100 ms cycle, 250 ms timeout; six callers at 30 ms. The cycle
        // (0..100 ms) has 2: two pass; the third waits to the next cycle (70 ms), the fourth
        // too (count -2); the fifth needs the cycle after: 170 ms; the sixth too; the seventh
        // 270 ms > 250: parked 250 ms, then refused, taking nothing.
        let cfg = r4j(2, 100, 250);
        let mut l = Resilience4j::new(&cfg, Nanos::ZERO);
        let got: Vec<_> = (0..7).map(|_| l.acquire(&cfg, 30 * MS)).collect();
        assert_eq!(
            got,
            [
                Pass,
                Pass,
                Wait(70 * MS),
                Wait(70 * MS),
                Wait(170 * MS),
                Wait(170 * MS),
                RefuseAfter(250 * MS)
            ]
        );
        // At 130 ms (cycle 1) the count is -4 + 2 = -2: the next waits 170 ms (cycle 3 at
        // 300 ms), within the timeout; until then a refused caller would fit after 0.
        assert_eq!(l.until_within(&cfg, 130 * MS), Nanos::ZERO);
        assert_eq!(l.acquire(&cfg, 130 * MS), Wait(170 * MS));
    }

    #[test]
    fn resilience4j_cycles_count_from_creation_and_unused_permits_do_not_carry() {
        use CycleVerdict::*;
        // Created at 10 ms: cycles are 10..110, 110..210 ms. Idle for ten cycles: still 2.
        let cfg = r4j(2, 100, 0);
        let mut l = Resilience4j::new(&cfg, 10 * MS);
        let at = 1_050 * MS;
        assert_eq!(l.acquire(&cfg, at), Pass);
        assert_eq!(l.acquire(&cfg, at), Pass);
        // timeoutDuration 0: the third is refused at once (parked for 0), and its cycle
        // boundary is 1,110 ms: 60 ms on.
        assert_eq!(l.acquire(&cfg, at), RefuseAfter(Nanos::ZERO));
        assert_eq!(l.until_within(&cfg, at), 60 * MS);
        assert_eq!(l.acquire(&cfg, 1_110 * MS), Pass);
        assert_eq!(Resilience4jConfig::DEFAULT.per_second(), 1e8);
    }

    #[test]
    fn tower_rate_limit_windows_open_with_the_first_request_and_queue_the_rest() {
        // Rate::new(2, 100 ms). At 5 ms a window opens (5..105): two pass; the third waits
        // for the next window (105 ms), the fourth too; the fifth for the one after (205).
        let cfg = TowerRateConfig {
            num: 2,
            per: 100 * MS,
        };
        let mut l = TowerRate::new(&cfg, Nanos::ZERO);
        let got: Vec<_> = (0..5).map(|_| l.acquire(&cfg, 5 * MS)).collect();
        assert_eq!(
            got,
            [Nanos::ZERO, Nanos::ZERO, 100 * MS, 100 * MS, 200 * MS]
        );
        // At 250 ms the line is still in the window 205..305, which has room for one.
        assert_eq!(l.acquire(&cfg, 250 * MS), Nanos::ZERO);
        // After it ends and a pause, the next request opens a fresh window at its own time.
        assert_eq!(l.acquire(&cfg, 400 * MS), Nanos::ZERO);
        assert_eq!(l.acquire(&cfg, 401 * MS), Nanos::ZERO);
        assert_eq!(l.acquire(&cfg, 402 * MS), 98 * MS);
        assert_eq!(cfg.per_second(), 20.0);
    }
}
