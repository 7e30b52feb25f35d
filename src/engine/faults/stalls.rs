//! A stall's effect on work in progress: work is paused while any stall holds its instance,
//! and ends when its time outside the stalls reaches its length. The stalls' windows are known
//! from the start, so that end is computed at once (`work_end`), whatever the stall's length:
//! stepping towards it, event by event, cost one event per overshoot and hung on a 1 ns one.
//! Stalls that overlap or touch hold the instance as one: their overlap pauses work once.

use crate::engine::kernel::simulation::Simulation;
use crate::model::fault::Effect;

/// The first stretch from `t` on in which a stall of `windows` ([start, end) ns each) holds,
/// as [start, end): begun at `t` if one holds at `t`, and run on through every window that
/// overlaps or touches it. `None` when no window ends after `t`.
fn next_hold<I>(windows: I, t: u64) -> Option<(u64, u64)>
where
    I: Iterator<Item = (u64, u64)> + Clone,
{
    let start = (windows.clone())
        .filter(|&(_, b)| b > t)
        .map(|(a, _)| a.max(t))
        .min()?;
    let mut end = start;
    // Each pass reaches a later end or stops: at most one pass a window (stalls are few).
    while let Some(later) = (windows.clone())
        .filter(|&(a, b)| a <= end && b > end)
        .map(|(_, b)| b)
        .max()
    {
        end = later;
    }
    Some((start, end))
}

/// How long `windows` held over [from, to), overlaps counted once.
fn held_within<I>(windows: I, from: u64, to: u64) -> u64
where
    I: Iterator<Item = (u64, u64)> + Clone,
{
    let (mut t, mut held) = (from, 0);
    while let Some((a, b)) = next_hold(windows.clone(), t) {
        if a >= to {
            break;
        }
        held += b.min(to) - a;
        t = b;
    }
    held
}

/// When `work` ns run from `from` end, paused while `windows` hold: the first instant its
/// time outside them reaches `work`. Work that reaches its length as a stall begins ends then.
fn run_outside<I>(windows: I, from: u64, work: u64) -> u64
where
    I: Iterator<Item = (u64, u64)> + Clone,
{
    let (mut t, mut left) = (from, work);
    while let Some((a, b)) = next_hold(windows.clone(), t) {
        if a - t >= left {
            break;
        }
        left -= a - t;
        t = b;
    }
    t + left
}

impl Simulation {
    /// The windows of the stalls on instance `instance` of `service`: its own and its
    /// service's.
    fn stall_windows(
        &self,
        service: usize,
        instance: u32,
    ) -> impl Iterator<Item = (u64, u64)> + Clone + '_ {
        self.faults.holds[service]
            .iter()
            .map(|&i| &self.model.faults[i as usize])
            .filter(move |f| matches!(f.effect, Effect::Stall) && f.hits_service(service, instance))
            .map(|f| (f.start, f.end))
    }

    /// How long the stalls on an instance held work that ran over [from, to).
    pub(in crate::engine) fn stalled_for(
        &self,
        service: usize,
        instance: u32,
        from: u64,
        to: u64,
    ) -> u64 {
        held_within(self.stall_windows(service, instance), from, to)
    }

    /// When `work` ns of work at an instance, run from `from`, end with the stalls on it
    /// paused.
    pub(in crate::engine) fn work_end(
        &self,
        service: usize,
        instance: u32,
        from: u64,
        work: u64,
    ) -> u64 {
        run_outside(self.stall_windows(service, instance), from, work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10-20 and 15-25 overlap, 25-30 touches them, 40-50 holds 45-47 within it.
    const W: [(u64, u64); 5] = [(40, 50), (15, 25), (10, 20), (25, 30), (45, 47)];

    fn w() -> impl Iterator<Item = (u64, u64)> + Clone {
        W.into_iter()
    }

    #[test]
    fn overlapping_and_touching_stalls_hold_as_one() {
        assert_eq!(next_hold(w(), 0), Some((10, 30)));
        assert_eq!(next_hold(w(), 22), Some((22, 30)));
        assert_eq!(next_hold(w(), 30), Some((40, 50)));
        assert_eq!(next_hold(w(), 46), Some((46, 50)));
        assert_eq!(next_hold(w(), 50), None);
        assert_eq!(next_hold(std::iter::empty(), 0), None);
    }

    #[test]
    fn held_time_counts_each_instant_once() {
        assert_eq!(held_within(w(), 0, 100), 20 + 10);
        assert_eq!(held_within(w(), 12, 42), 18 + 2);
        assert_eq!(held_within(w(), 30, 40), 0);
        assert_eq!(held_within(w(), 0, 10), 0);
    }

    #[test]
    fn work_runs_only_outside_the_stalls() {
        // Due before any stall, or exactly as one begins: untouched.
        assert_eq!(run_outside(w(), 0, 5), 5);
        assert_eq!(run_outside(w(), 0, 10), 10);
        // Due 1 ns into the first stall: its last ns runs after the three, at 30.
        assert_eq!(run_outside(w(), 0, 11), 31);
        // Across both holds: 10 before, 10 between, 3 after.
        assert_eq!(run_outside(w(), 0, 23), 53);
        // Begun inside a stall: it starts when the stall ends.
        assert_eq!(run_outside(w(), 12, 4), 34);
        assert_eq!(run_outside(w(), 12, 0), 12);
        // No stall at all.
        assert_eq!(run_outside(std::iter::empty(), 7, 3), 10);
    }

    #[test]
    fn a_long_stall_and_a_tiny_overshoot_take_one_step() {
        // One 1 ns overshoot into a stall of 2^40 ns: settled at once, not by 2^40 steps.
        let long = [(1, 1 + (1 << 40))].into_iter();
        assert_eq!(run_outside(long.clone(), 0, 2), 2 + (1 << 40));
        assert_eq!(held_within(long, 0, u64::MAX), 1 << 40);
    }
}
