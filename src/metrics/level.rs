//! A quantity that holds its value between changes (queue length, busy workers), integrated
//! over time so its time-average over any window is exact.

#[derive(Debug, Clone, Copy, Default)]
pub struct Level {
    pub value: i64,
    since: u64,
}

impl Level {
    /// Changes the level at `now`, adding the area under the old level to `area`.
    #[inline]
    pub fn add(&mut self, now: u64, delta: i64, area: &mut f64) {
        *area += self.value as f64 * (now - self.since) as f64;
        self.since = now;
        self.value += delta;
    }

    /// Adds the area up to `boundary` (a bucket's end) to `area` without changing the level.
    pub fn close(&mut self, boundary: u64, area: &mut f64) {
        self.add(boundary, 0, area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_piecewise_constant_values() {
        let mut l = Level::default();
        let mut area = 0.0;
        l.add(10, 2, &mut area); // 0 over [0,10)
        l.add(20, -1, &mut area); // 2 over [10,20)
        l.close(40, &mut area); // 1 over [20,40)
        assert_eq!(area, 40.0);
        assert_eq!(l.value, 1);
    }
}
