//! Named pools on the timeline: each pool's permits held and callers waiting as time
//! averages per bucket, summed over its caller's instances, under the same names as the
//! summary's means (`<caller>.pool.<p>.in_use_mean`, `.waiting_mean`).
//!
//! The engine tells `moved` a bulkhead's counts after every change; a bulkhead that is not a
//! named pool's costs one comparison there, and a scenario without bulkheads nothing.

use super::level::{Area, Level};
use super::names;
use cascade_policy::bulkhead::Bulkhead;

/// Not a named pool's bulkhead.
const NONE: u32 = u32::MAX;

#[derive(Default)]
pub struct PoolSeries {
    /// Per bulkhead (`engine::caller::policy_state::Bulkheads` order), its pool or `NONE`.
    pool_of: Vec<u32>,
    /// Per bulkhead, the counts last told (in use, waiting).
    told: Vec<[u32; 2]>,
    /// Per pool, its levels (in use, waiting) summed over instances, and their areas in the
    /// open bucket.
    levels: Vec<[Level; 2]>,
    areas: Vec<[Area; 2]>,
}

impl PoolSeries {
    /// Tracks `pools` (each a prefix and the bulkheads of its caller's instances) among
    /// `bulkheads` bulkheads; the names of their series, in the order `close` writes them.
    pub fn new<'a>(
        bulkheads: usize,
        pools: impl Iterator<Item = (&'a str, &'a [u32])>,
    ) -> (PoolSeries, Vec<String>) {
        let mut series = PoolSeries {
            pool_of: vec![NONE; bulkheads],
            told: vec![[0; 2]; bulkheads],
            ..PoolSeries::default()
        };
        let mut columns = Vec::new();
        for (p, (prefix, members)) in pools.enumerate() {
            for &b in members {
                series.pool_of[b as usize] = p as u32;
            }
            series.levels.push([Level::default(); 2]);
            series.areas.push([0; 2]);
            columns.extend(names::POOL_METRICS.map(|m| names::metric(prefix, m)));
        }
        (series, columns)
    }

    /// Bulkhead `b` (`bulkhead`) may have changed its counts at `now`: read only if it is a
    /// named pool's.
    #[inline]
    pub fn moved<T: PartialEq>(&mut self, b: u32, now: u64, bulkhead: &Bulkhead<T>) {
        if self.pool_of.get(b as usize).is_some_and(|&p| p != NONE) {
            self.count(b as usize, now, [bulkhead.in_use(), bulkhead.waiting()]);
        }
    }

    #[cold]
    #[inline(never)]
    fn count(&mut self, b: usize, now: u64, counts: [u32; 2]) {
        let p = self.pool_of[b] as usize;
        let (levels, areas) = (&mut self.levels[p], &mut self.areas[p]);
        for ((level, area), (count, told)) in
            (levels.iter_mut().zip(areas)).zip(counts.iter().zip(&self.told[b]))
        {
            level.add(now, i64::from(*count) - i64::from(*told), area);
        }
        self.told[b] = counts;
    }

    /// Closes the bucket ending at `boundary`, `span` ns long: each pool's means, in column
    /// order, into `out`.
    pub fn close(&mut self, boundary: u64, span: u64, out: &mut Vec<f64>) {
        for (levels, areas) in self.levels.iter_mut().zip(&mut self.areas) {
            for k in 0..2 {
                levels[k].close(boundary, &mut areas[k]);
                out.push(areas[k] as f64 / span.max(1) as f64);
                areas[k] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cascade_policy::Nanos;
    use cascade_policy::bulkhead::BulkheadConfig;

    #[test]
    fn sums_a_pools_instances_and_averages_each_bucket() {
        // Bulkheads 0 and 2 are pool `p`'s two instances; bulkhead 1 is no pool's.
        let members = [0u32, 2];
        let (mut s, columns) =
            PoolSeries::new(3, [("service.api.pool.p", &members[..])].into_iter());
        assert_eq!(
            columns,
            [
                "service.api.pool.p.in_use_mean",
                "service.api.pool.p.waiting_mean"
            ]
        );
        let cfg = BulkheadConfig {
            max_concurrent: 2,
            queue: 4,
            max_wait: Nanos(100),
            release: Default::default(),
            wraps: Default::default(),
            pool: Some("p".into()),
        };
        let mut b: Vec<Bulkhead<u32>> = (0..3).map(|_| Bulkhead::new(cfg.clone())).collect();
        let mut at = |s: &mut PoolSeries, i: usize, now: u64, f: &dyn Fn(&mut Bulkhead<u32>)| {
            f(&mut b[i]);
            s.moved(i as u32, now, &b[i]);
        };
        let acquire = |who| {
            move |b: &mut Bulkhead<u32>| {
                b.acquire(Nanos(0), who);
            }
        };
        at(&mut s, 0, 0, &acquire(1)); // 1 in use over [0, 4)
        at(&mut s, 1, 1, &acquire(2)); // not a pool's: ignored
        for who in 3..6 {
            at(&mut s, 2, 4, &acquire(who)); // 3 in use, 1 waiting over [4, 10)
        }
        // 2 in use, 1 waiting from 10.
        at(&mut s, 0, 10, &|b| {
            b.release(Nanos(0));
        });
        let mut out = Vec::new();
        s.close(10, 10, &mut out);
        // in use: (1·4 + 3·6) / 10; waiting: (1·6) / 10.
        assert_eq!(out, [2.2, 0.6]);
        s.close(20, 10, &mut out);
        assert_eq!(out[2..], [2.0, 1.0]);
    }
}
