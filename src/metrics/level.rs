//! A quantity that holds its value between changes (queue length, busy workers), integrated
//! over time so its time-average over any window is exact. The area is kept in whole
//! count·nanoseconds (u128 never overflows and integer arithmetic is cheaper on the hot path
//! than two int-to-float conversions per change); it becomes a float only when reported.

/// Area under a level, in count·ns.
pub type Area = u128;

#[derive(Debug, Clone, Copy, Default)]
pub struct Level {
    pub value: u64,
    since: u64,
}

impl Level {
    /// Changes the level at `now`, adding the area under the old level to `area`.
    #[inline]
    pub fn add(&mut self, now: u64, delta: i64, area: &mut Area) {
        *area += u128::from(self.value) * u128::from(now - self.since);
        self.since = now;
        self.value = self
            .value
            .checked_add_signed(delta)
            .expect("a level never goes below zero");
    }

    /// The area from the last change to `now`, not yet added anywhere.
    pub fn pending(&self, now: u64) -> Area {
        u128::from(self.value) * u128::from(now - self.since)
    }

    /// Adds the area up to `boundary` (a bucket's end) to `area` without changing the level.
    pub fn close(&mut self, boundary: u64, area: &mut Area) {
        self.add(boundary, 0, area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_piecewise_constant_values() {
        let mut l = Level::default();
        let mut area: Area = 0;
        l.add(10, 2, &mut area); // 0 over [0,10)
        l.add(20, -1, &mut area); // 2 over [10,20)
        l.close(40, &mut area); // 1 over [20,40)
        assert_eq!(area, 40);
        assert_eq!(l.value, 1);
    }
}
