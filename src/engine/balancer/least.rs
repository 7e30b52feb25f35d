//! Least outstanding in logarithmic time: a min-tree (a segment tree) over the instances'
//! outstanding counts, kept as jobs arrive, start, finish and leave, so a pick among
//! hundreds of instances reads a handful of nodes where a scan reads them all. The tie-break
//! is the scan's: the least outstanding instance, ties to the first from a rotating start.

use crate::engine::kernel::simulation::Simulation;

/// The min-tree: leaves hold `outstanding << 32 | instance`, so the least key of a range is
/// its least outstanding instance, ties to the lowest index.
pub struct LeastTree {
    /// Leaves at `width..2 * width`, each inner node the minimum of its two children; leaves
    /// past the instances hold `u64::MAX`, which no instance's key reaches.
    nodes: Vec<u64>,
    width: usize,
}

impl LeastTree {
    /// `slots` instances, none outstanding.
    pub fn new(slots: u32) -> LeastTree {
        let width = (slots as usize).next_power_of_two();
        let mut nodes = vec![u64::MAX; 2 * width];
        for i in 0..slots as usize {
            nodes[width + i] = i as u64;
        }
        for node in (1..width).rev() {
            nodes[node] = nodes[2 * node].min(nodes[2 * node + 1]);
        }
        LeastTree { nodes, width }
    }

    /// Instance `i` now has `outstanding` jobs (busy workers and queued jobs).
    pub fn set(&mut self, i: u32, outstanding: usize) {
        let mut node = self.width + i as usize;
        self.nodes[node] = ((outstanding as u64) << 32) | u64::from(i);
        while node > 1 {
            node /= 2;
            let least = self.nodes[2 * node].min(self.nodes[2 * node + 1]);
            if self.nodes[node] == least {
                // Every ancestor is already the minimum of what lies below it.
                break;
            }
            self.nodes[node] = least;
        }
    }

    /// The least outstanding instance, ties to the first at or after `start` (wrapping
    /// around), exactly as a scan from `start` keeping the first minimum. The padding leaves
    /// never win: every instance's key is below theirs.
    pub fn pick(&self, start: u32) -> u32 {
        let after = self.least(start as usize, self.width);
        let before = self.least(0, start as usize);
        // The part from `start` wins ties: it comes first in the scan's order.
        let key = if before >> 32 < after >> 32 {
            before
        } else {
            after
        };
        key as u32
    }

    /// The least key of leaves `from..to` (`u64::MAX` for none).
    fn least(&self, from: usize, to: usize) -> u64 {
        let (mut lo, mut hi) = (from + self.width, to + self.width);
        let mut least = u64::MAX;
        while lo < hi {
            if lo & 1 == 1 {
                least = least.min(self.nodes[lo]);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                least = least.min(self.nodes[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        least
    }
}

impl Simulation {
    /// Instance `i` of service `s` gained or lost a busy worker or a queued job: its leaf of
    /// the least-outstanding tree follows (a run without one pays one test of a flag).
    #[inline(always)]
    pub(in crate::engine) fn outstanding_changed(&mut self, s: usize, i: usize) {
        if self.any_least {
            self.least_changed(s, i);
        }
    }

    #[inline(never)]
    fn least_changed(&mut self, s: usize, i: usize) {
        let svc = &mut self.services[s];
        if let Some(tree) = svc.least.as_deref_mut() {
            let inst = &svc.instances[i];
            tree.set(i as u32, inst.busy as usize + inst.waiting());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// The scan `balance::choose` made before the tree: the first minimum from `start`.
    fn scan(outstanding: &[usize], start: u32, n: u32) -> u32 {
        (0..n)
            .map(|k| (start + k) % n)
            .min_by_key(|&i| outstanding[i as usize])
            .expect("n > 0")
    }

    #[test]
    fn picks_as_the_scan_over_random_changes() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(47);
        for slots in [1u32, 2, 3, 5, 8, 13, 64, 100] {
            let mut tree = LeastTree::new(slots);
            let mut outstanding = vec![0usize; slots as usize];
            for _ in 0..2_000 {
                let i = rng.random_range(0..slots);
                // Few distinct counts, so ties are the common case.
                outstanding[i as usize] = rng.random_range(0..4);
                tree.set(i, outstanding[i as usize]);
                let start = rng.random_range(0..slots);
                assert_eq!(
                    tree.pick(start),
                    scan(&outstanding, start, slots),
                    "{slots} instances, start {start}, outstanding {outstanding:?}"
                );
            }
        }
    }

    #[test]
    fn a_tie_goes_to_the_first_from_the_start() {
        let mut tree = LeastTree::new(4);
        for i in 0..4 {
            tree.set(i, 2);
        }
        assert_eq!(tree.pick(0), 0);
        assert_eq!(tree.pick(3), 3);
        tree.set(1, 1);
        tree.set(2, 1);
        assert_eq!(tree.pick(3), 1);
        assert_eq!(tree.pick(2), 2);
    }

    #[test]
    fn counts_past_32_bits_of_index_order_by_count() {
        let mut tree = LeastTree::new(3);
        tree.set(0, 70_000);
        tree.set(1, 5);
        tree.set(2, 70_000);
        assert_eq!(tree.pick(2), 1);
    }
}
