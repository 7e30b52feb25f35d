//! The search along one axis for the point where a fault stops being recovered from: a
//! bisection whose every probe is a handful of replications, since whether a run recovers is
//! a chance event near the boundary. A probe "recovers" when at least half of its runs did, so
//! the bisection follows the 50% point; the axis is a positive multiplier, searched in ratios
//! (geometric midpoints), since a margin is "1.7× today's load", not "0.7 more".

use crate::error::Result;

/// What one probe found: at multiplier `x`, `recovered` of `runs` runs recovered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    pub x: f64,
    pub recovered: u32,
    pub runs: u32,
}

impl Probe {
    /// At least half of its runs recovered.
    pub fn recovers(&self) -> bool {
        2 * self.recovered >= self.runs
    }
}

/// How far and how finely to search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Replications per probe.
    pub reps: u32,
    /// The most runs the search may spend.
    pub max_runs: u32,
    /// Stop once the bracket's ends are within this ratio of each other (0.02: 2%).
    pub tolerance: f64,
    /// The axis is searched within [min_x, max_x]; 1 (as written) lies inside.
    pub min_x: f64,
    pub max_x: f64,
}

impl Bounds {
    /// `cascade margin`'s defaults, which `cascade check --margin` judges a gate at: 5 runs a
    /// probe, at most 60 runs a search, to 2%, between 1/16 and 16 times as written.
    pub const STANDARD: Bounds = Bounds {
        reps: 5,
        max_runs: 60,
        tolerance: 0.02,
        min_x: 1.0 / 16.0,
        max_x: 16.0,
    };
}

/// Where the search ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// `lo` recovers, `hi` does not (each by its probe's majority); the probes in the order run.
    Bracketed {
        lo: Probe,
        hi: Probe,
        probes: Vec<Probe>,
    },
    /// Even at `max_x` the fault is recovered from.
    RecoversThroughout { probes: Vec<Probe> },
    /// Even at `min_x` it is not.
    FailsThroughout { probes: Vec<Probe> },
    /// The run budget ran out before a probe that does not recover (or one that does) was
    /// found: the last probes, and the budget.
    OutOfRuns { probes: Vec<Probe> },
}

impl Found {
    pub fn probes(&self) -> &[Probe] {
        match self {
            Found::Bracketed { probes, .. }
            | Found::RecoversThroughout { probes }
            | Found::FailsThroughout { probes }
            | Found::OutOfRuns { probes } => probes,
        }
    }

    pub fn runs(&self) -> u32 {
        self.probes().iter().map(|p| p.runs).sum()
    }
}

/// Searches the axis: first at 1 (as written), then doubling (or halving) until the outcome
/// flips, then bisecting the bracket in ratios until it is within `tolerance` or the runs run
/// out. `probe(x)` runs `reps` replications at `x` and says how many recovered.
pub fn search(b: Bounds, mut probe: impl FnMut(f64) -> Result<u32>) -> Result<Found> {
    let mut probes: Vec<Probe> = Vec::new();
    let mut spent = 0;
    let mut at = |x: f64, probes: &mut Vec<Probe>| -> Result<Option<Probe>> {
        if spent + b.reps > b.max_runs {
            return Ok(None);
        }
        spent += b.reps;
        let p = Probe {
            x,
            recovered: probe(x)?,
            runs: b.reps,
        };
        probes.push(p);
        Ok(Some(p))
    };
    let Some(first) = at(1.0, &mut probes)? else {
        return Ok(Found::OutOfRuns { probes });
    };
    // Walk out by doubling (recovering: more of the fault or load) or halving (failing).
    let (mut lo, mut hi) = if first.recovers() {
        let mut lo = first;
        loop {
            if lo.x >= b.max_x {
                return Ok(Found::RecoversThroughout { probes });
            }
            let Some(p) = at((lo.x * 2.0).min(b.max_x), &mut probes)? else {
                return Ok(Found::OutOfRuns { probes });
            };
            if !p.recovers() {
                break (lo, p);
            }
            lo = p;
        }
    } else {
        let mut hi = first;
        loop {
            if hi.x <= b.min_x {
                return Ok(Found::FailsThroughout { probes });
            }
            let Some(p) = at((hi.x / 2.0).max(b.min_x), &mut probes)? else {
                return Ok(Found::OutOfRuns { probes });
            };
            if p.recovers() {
                break (p, hi);
            }
            hi = p;
        }
    };
    while hi.x / lo.x > 1.0 + b.tolerance {
        let Some(p) = at((lo.x * hi.x).sqrt(), &mut probes)? else {
            break;
        };
        if p.recovers() {
            lo = p;
        } else {
            hi = p;
        }
    }
    Ok(Found::Bracketed { lo, hi, probes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Bounds {
        Bounds {
            reps: 3,
            max_runs: 300,
            tolerance: 0.01,
            min_x: 1.0 / 64.0,
            max_x: 64.0,
        }
    }

    /// A sharp boundary at `t`: every run below it recovers, none at or above.
    fn sharp(t: f64) -> impl FnMut(f64) -> Result<u32> {
        move |x| Ok(if x < t { 3 } else { 0 })
    }

    #[test]
    fn a_sharp_boundary_above_today_is_bracketed_within_the_tolerance() {
        let Found::Bracketed { lo, hi, probes } = search(bounds(), sharp(2.7)).unwrap() else {
            panic!("bracketed")
        };
        assert!(lo.x < 2.7 && hi.x >= 2.7, "{lo:?} {hi:?}");
        assert!(hi.x / lo.x <= 1.01);
        // 1, 2, 4, then bisections of [2, 4] in ratios down to 1%: log2(ln 2 / ln 1.01) ≈ 6.
        assert_eq!(
            probes[..3].iter().map(|p| p.x).collect::<Vec<_>>(),
            [1.0, 2.0, 4.0]
        );
        assert_eq!(probes.len(), 3 + 7);
    }

    #[test]
    fn a_boundary_below_today_is_found_by_halving() {
        let Found::Bracketed { lo, hi, .. } = search(bounds(), sharp(0.3)).unwrap() else {
            panic!("bracketed")
        };
        assert!(lo.x < 0.3 && hi.x >= 0.3);
    }

    #[test]
    fn the_ends_of_the_range_and_the_budget_are_said() {
        assert!(matches!(
            search(bounds(), sharp(1000.0)).unwrap(),
            Found::RecoversThroughout { .. }
        ));
        assert!(matches!(
            search(bounds(), sharp(0.0001)).unwrap(),
            Found::FailsThroughout { .. }
        ));
        let tight = Bounds {
            max_runs: 6,
            ..bounds()
        };
        let found = search(tight, sharp(100.0)).unwrap();
        assert!(matches!(found, Found::OutOfRuns { .. }));
        assert_eq!(found.runs(), 6);
    }

    #[test]
    fn a_probe_recovers_when_at_least_half_of_its_runs_do() {
        let p = |recovered, runs| Probe {
            x: 1.0,
            recovered,
            runs,
        };
        assert!(p(2, 4).recovers());
        assert!(!p(2, 5).recovers());
        assert!(p(3, 5).recovers());
    }
}
