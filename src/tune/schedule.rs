//! The rounds of successive halving (Jamieson & Talwalkar 2016; the inner loop of Li et al.'s
//! Hyperband), with replications as the resource: every candidate starts with a few
//! replications, and after each round the best third (rounded up) goes on with three times as
//! many, until a round holds three candidates or fewer: the finalists, at `reps` each. The
//! schedule is fixed before the first run from the number of candidates and `reps` alone, so
//! the barriers, and what is decided at them, never depend on timing or `--jobs`.

/// Each round keeps 1/ETA of its candidates and gives them ETA times the replications.
pub const ETA: usize = 3;

/// One round: at most `candidates` candidates, each with `reps` replications in all once it
/// ends (those of earlier rounds kept: replication r of a candidate is the same run whatever
/// the round, on the seed replication r has everywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    pub candidates: usize,
    pub reps: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub rounds: Vec<Round>,
}

impl Schedule {
    /// The rounds for `candidates` candidates and `reps` replications per finalist: round s
    /// holds ⌈n / 3^s⌉ candidates, the last is the first with 3 or fewer, and a candidate in
    /// round s has ⌈reps / 3^(S − s)⌉ replications (S the last round), at least 1.
    pub fn new(candidates: usize, reps: u32) -> Schedule {
        let mut sizes = vec![candidates.max(1)];
        while sizes[sizes.len() - 1] > ETA {
            let last = sizes[sizes.len() - 1];
            sizes.push(last.div_ceil(ETA));
        }
        let last = sizes.len() - 1;
        let rounds = sizes
            .iter()
            .enumerate()
            .map(|(s, &n)| {
                let shrink = (ETA as u64).saturating_pow((last - s) as u32);
                Round {
                    candidates: n,
                    reps: u64::from(reps).div_ceil(shrink).max(1) as u32,
                }
            })
            .collect();
        Schedule { rounds }
    }

    /// The largest schedule whose planned runs (`variants` runs per replication) fit in
    /// `max_runs`: `reps` lowered until they do; `None` when not even one replication each does.
    pub fn within(
        candidates: usize,
        reps: u32,
        variants: usize,
        max_runs: u64,
    ) -> Option<Schedule> {
        // Planned runs grow with `reps` (every round's replications do), so the largest that
        // fits is found by bisection between 1 and `reps`.
        let fits = |r: u32| Schedule::new(candidates, r).planned_runs(variants) <= max_runs;
        if !fits(1) {
            return None;
        }
        let (mut lo, mut hi) = (1u32, reps.max(1));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(Schedule::new(candidates, lo))
    }

    /// The finalists' replications.
    pub fn reps(&self) -> u32 {
        self.rounds[self.rounds.len() - 1].reps
    }

    /// The runs the schedule spends when no candidate is rejected (fewer otherwise): each
    /// round's candidates times the replications it adds, times the runs per replication.
    pub fn planned_runs(&self, variants: usize) -> u64 {
        let mut before = 0u32;
        let mut total = 0u64;
        for r in &self.rounds {
            let added = u64::from(r.reps - before);
            total = total.saturating_add((r.candidates as u64).saturating_mul(added));
            before = r.reps;
        }
        total.saturating_mul(variants as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(s: &Schedule) -> Vec<(usize, u32)> {
        s.rounds.iter().map(|r| (r.candidates, r.reps)).collect()
    }

    #[test]
    fn twenty_five_candidates_at_nine_replications() {
        // 25 → ⌈25/3⌉ = 9 → 3: three rounds; replications ⌈9/9⌉ = 1, ⌈9/3⌉ = 3, 9.
        let s = Schedule::new(25, 9);
        assert_eq!(shape(&s), [(25, 1), (9, 3), (3, 9)]);
        // 25 × 1 + 9 × 2 + 3 × 6 = 61 runs, against 25 × 9 = 225 for the grid.
        assert_eq!(s.planned_runs(1), 61);
        assert_eq!(s.planned_runs(2), 122);
        assert_eq!(s.reps(), 9);
    }

    #[test]
    fn small_grids_and_few_replications() {
        // Three candidates or fewer: one round, the grid itself.
        assert_eq!(shape(&Schedule::new(3, 5)), [(3, 5)]);
        assert_eq!(shape(&Schedule::new(1, 2)), [(1, 2)]);
        // 4 → 2: ⌈4/3⌉ = 2 finalists.
        assert_eq!(shape(&Schedule::new(4, 6)), [(4, 2), (2, 6)]);
        // 100 → 34 → 12 → 4 → 2; one replication at the start, never zero.
        assert_eq!(
            shape(&Schedule::new(100, 9)),
            [(100, 1), (34, 1), (12, 1), (4, 3), (2, 9)]
        );
        assert_eq!(shape(&Schedule::new(9, 1)), [(9, 1), (3, 1)]);
        assert_eq!(Schedule::new(9, 1).planned_runs(1), 9);
    }

    #[test]
    fn a_run_budget_lowers_the_replications_to_the_largest_that_fits() {
        // 25 candidates: reps 9 plan 61 runs; reps 6: 1, 2, 6 → 25 + 9 + 12 = 46;
        // reps 7: 1, 3, 7 → 25 + 18 + 12 = 55; reps 8: 1, 3, 8 → 25 + 18 + 15 = 58.
        assert_eq!(Schedule::new(25, 7).planned_runs(1), 55);
        assert_eq!(Schedule::new(25, 8).planned_runs(1), 58);
        assert_eq!(Schedule::within(25, 9, 1, 61).unwrap().reps(), 9);
        assert_eq!(Schedule::within(25, 9, 1, 57).unwrap().reps(), 7);
        assert_eq!(Schedule::within(25, 9, 1, 25).unwrap().reps(), 1);
        assert_eq!(Schedule::within(25, 9, 1, 24), None);
        assert_eq!(Schedule::within(25, 9, 2, 49), None);
    }
}
