//! The autoscaler's stabilization windows: the least recommendation of the scale-up window
//! and the most of the scale-down window (`model/orchestration.rs`, `ScaleBehavior`). Each is
//! a monotonic deque, so a sync costs constant amortized time whatever the window holds: a
//! scan of every recommendation kept cost the window over the period per sync (with a 1 ms
//! sync and the default 300 s window, 300,000 a sync, hours of a run).

use std::collections::VecDeque;

/// The recommendations that may still be a window's extreme, oldest first: each kept one
/// beats every later one by `beats` (at most them for the least, at least them for the most).
struct Extreme {
    kept: VecDeque<(u64, u32)>,
    beats: fn(u32, u32) -> bool,
}

impl Extreme {
    fn new(beats: fn(u32, u32) -> bool) -> Extreme {
        Extreme {
            kept: VecDeque::new(),
            beats,
        }
    }

    /// Records `desired` at `now`; the extreme within `window`, `desired` if it holds none.
    fn record(&mut self, now: u64, desired: u32, window: u64) -> u32 {
        while self
            .kept
            .back()
            .is_some_and(|b| !(self.beats)(b.1, desired))
        {
            self.kept.pop_back();
        }
        self.kept.push_back((now, desired));
        while self.kept.front().is_some_and(|f| !within(f.0, window, now)) {
            self.kept.pop_front();
        }
        self.kept.front().map_or(desired, |f| f.1)
    }
}

/// The scale-up window's least recommendation and the scale-down window's most.
pub struct Stabilizer {
    least: Extreme,
    most: Extreme,
}

impl Default for Stabilizer {
    fn default() -> Stabilizer {
        Stabilizer {
            least: Extreme::new(|kept, new| kept < new),
            most: Extreme::new(|kept, new| kept > new),
        }
    }
}

/// Whether something at `t` is within a window of `w` ending at `now`: the controller keeps
/// recommendations, scale events and metric samples with t + w after now (a window of zero
/// keeps none, and then the new recommendation stands alone); saturating, as a window may be
/// u64::MAX ns.
pub fn within(t: u64, w: u64, now: u64) -> bool {
    t.saturating_add(w) > now
}

impl Stabilizer {
    /// Records `desired` at `now` (no earlier than the last) and returns the least
    /// recommendation within `up_window` and the most within `down_window`, `desired` where a
    /// window holds none.
    pub fn record(
        &mut self,
        now: u64,
        desired: u32,
        up_window: u64,
        down_window: u64,
    ) -> (u32, u32) {
        (
            self.least.record(now, desired, up_window),
            self.most.record(now, desired, down_window),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every recommendation kept and scanned, as the controller's own loop does.
    fn scanned(history: &[(u64, u32)], now: u64, w: u64) -> impl Iterator<Item = u32> + '_ {
        history
            .iter()
            .filter(move |r| within(r.0, w, now))
            .map(|r| r.1)
    }

    #[test]
    fn the_deques_give_the_extremes_a_scan_of_every_recommendation_gives() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for (up_w, down_w) in [
            (0, 0),
            (3, 0),
            (0, 5),
            (4, 9),
            (1, 1),
            (u64::MAX, 7),
            (2, u64::MAX),
        ] {
            let mut s = Stabilizer::default();
            let mut history = Vec::new();
            let mut now = 0;
            for _ in 0..2000 {
                now += next(3);
                let desired = next(12) as u32;
                history.push((now, desired));
                let got = s.record(now, desired, up_w, down_w);
                let least = scanned(&history, now, up_w).min().unwrap_or(desired);
                let most = scanned(&history, now, down_w).max().unwrap_or(desired);
                assert_eq!(got, (least, most), "windows {up_w}/{down_w} at {now}");
            }
        }
    }
}
