//! The probability map along a fault's boundary: the share of runs that recover over a grid of
//! load × trigger multipliers, probed only near the boundary. Each trigger column starts where
//! the previous column's boundary was, walks the load rows up (while its probes recover) or
//! down (while they do not) until the outcome flips, and probes one row more on each side of
//! the flip, so a column costs a handful of probes where a full grid would cost every row.
//! The cells are what the CLI writes and draws as a heatmap (`cascade margin --map DIR`).

use super::runs::Runs;
use super::store::Point;
use super::{Verdict, scale};
use crate::error::Result;
use crate::model::Model;

/// One probed cell: `recovered` of `runs` runs recovered at trigger column `trigger` and load
/// row `load`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub trigger: usize,
    pub load: usize,
    pub recovered: u32,
    pub runs: u32,
}

impl Cell {
    pub fn fraction(&self) -> f64 {
        f64::from(self.recovered) / f64::from(self.runs.max(1))
    }

    fn recovers(&self) -> bool {
        2 * self.recovered >= self.runs
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProbabilityMap {
    pub fault: usize,
    /// The multipliers of the fault's duration, one per column, ascending.
    pub triggers: Vec<f64>,
    /// The load multipliers, one per row, ascending.
    pub loads: Vec<f64>,
    /// The cells probed, in the order run.
    pub cells: Vec<Cell>,
}

impl ProbabilityMap {
    /// Runs spent.
    pub fn runs(&self) -> u32 {
        self.cells.iter().map(|c| c.runs).sum()
    }
}

/// The map's rows: load multipliers 2^(k/4) from 1/4 to 4 (steps of 19%).
pub fn load_rows() -> Vec<f64> {
    (-8..=8).map(|k| 2f64.powf(f64::from(k) / 4.0)).collect()
}

/// The map's columns: trigger multipliers 2^(k/2) from 1/4 to 4, up to the longest the fault
/// may last (`scale::longest_trigger`).
pub fn trigger_columns(model: &Model, fault: usize) -> Vec<f64> {
    let longest = scale::longest_trigger(model, fault);
    (-4..=4)
        .map(|k| 2f64.powf(f64::from(k) / 2.0))
        .filter(|&t| t <= longest * (1.0 + 1e-9))
        .collect()
}

/// Fault `fault`'s probability map, `reps` runs a cell, made by (or found in) `runs`.
pub fn map(model: &Model, fault: usize, reps: u32, runs: &mut Runs) -> Result<ProbabilityMap> {
    let verdict = Verdict::new(model, fault);
    let written = runs.replicate(Point::Written, model, reps)?;
    verdict.judged_as_written(fault, written.iter().map(Vec::as_slice))?;
    let written_goodput = (written.iter())
        .map(|s| verdict.goodput_before(s))
        .sum::<f64>()
        / written.len() as f64;
    let (triggers, loads) = (trigger_columns(model, fault), load_rows());
    let mut cells: Vec<Cell> = Vec::new();
    let mut probe = |trigger: usize, load: usize, cells: &mut Vec<Cell>| -> Result<bool> {
        if let Some(c) = cells
            .iter()
            .find(|c| (c.trigger, c.load) == (trigger, load))
        {
            return Ok(c.recovers());
        }
        let scaled = scale::load(
            &scale::trigger(model, fault, triggers[trigger]),
            loads[load],
        );
        let point = Point::Map {
            fault,
            trigger: triggers[trigger],
            load: loads[load],
        };
        let summaries = runs.replicate(point, &scaled, reps)?;
        let recovered = (summaries.iter())
            .filter(|s| verdict.recovered_healthy(s, loads[load], written_goodput))
            .count() as u32;
        let cell = Cell {
            trigger,
            load,
            recovered,
            runs: reps,
        };
        cells.push(cell);
        Ok(cell.recovers())
    };
    // The first column starts at today's load (row 8 is 1×).
    let mut start = loads.len() / 2;
    let top = loads.len() - 1;
    for t in 0..triggers.len() {
        let mut row = start;
        // `row` ends as the lowest row that does not recover (`top + 1`: none).
        if probe(t, row, &mut cells)? {
            while row < top && probe(t, row + 1, &mut cells)? {
                row += 1;
            }
            row += 1;
        } else {
            while row > 0 && !probe(t, row - 1, &mut cells)? {
                row -= 1;
            }
        }
        // One row beyond the flip on each side shows how sharp it is.
        if row < top {
            probe(t, row + 1, &mut cells)?;
        }
        if row >= 2 {
            probe(t, row - 2, &mut cells)?;
        }
        start = row.min(top);
    }
    Ok(ProbabilityMap {
        fault,
        triggers,
        loads,
        cells,
    })
}
