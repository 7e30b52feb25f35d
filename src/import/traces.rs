//! `cascade import traces FILE…`: production traces (OTLP JSON and the collector's JSON
//! Lines, Jaeger's query-API JSON, Zipkin v2) into a scenario. Each format is read as a
//! stream (`otlp`, `jaeger`, `zipkin` over `stream`), spans are grouped into traces with a
//! bound on the traces open at once (`group`), and each closed trace is added to a tally
//! (`shape` into `tally`): per operation its self time, its calls (to which operations, how
//! many, in parallel or not, how often), its errors and retries; per edge its network time;
//! the roots give the client's mix and rate. `emit` writes the scenario, every value with a
//! comment naming what it came from and how many spans, and lists what could not be
//! inferred. docs/import.md is the user's page.

use crate::error::Error;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

mod calls;
mod detect;
mod emit;
mod group;
mod jaeger;
mod otlp;
mod plan;
mod samples;
mod shape;
mod skipped;
mod span;
mod stream;
mod tally;
mod zipkin;

pub use detect::TraceFormat;
use group::Grouper;
use span::{Names, Span};
use tally::{Report, Tally};

use super::out::Imported;

/// What the command line chose.
#[derive(Debug, Clone)]
pub struct Options {
    /// Every file is this format (`--format`), else each is told by its first bytes.
    pub format: Option<TraceFormat>,
    /// Traces held open at once while grouping spans (`--open-traces`).
    pub open_traces: usize,
    /// The share of requests the traces hold (`--sampled`): rates and in-flight counts are
    /// divided by it.
    pub sampled: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            format: None,
            open_traces: 10_000,
            sampled: 1.0,
        }
    }
}

/// Everything an import gathers while reading.
pub struct State {
    names: Names,
    group: Grouper,
    tally: Tally,
    report: Report,
}

impl State {
    fn add(&mut self, span: Span) {
        if let Some(closed) = self.group.add(span) {
            shape::analyse(&closed, &mut self.tally, &mut self.report);
        }
    }
}

/// Imports the trace files `paths`, read as streams.
pub fn import(paths: &[&Path], opts: &Options) -> Result<Imported, Error> {
    let mut state = State {
        names: Names::default(),
        group: Grouper::new(opts.open_traces),
        tally: Tally::default(),
        report: Report::default(),
    };
    let mut read = Vec::new();
    for path in paths {
        let file = path.display().to_string();
        let f = File::open(path).map_err(|e| stream::io(&file, e))?;
        let mut input = BufReader::with_capacity(1 << 16, f);
        let format = match opts.format {
            Some(f) => f,
            None => {
                let head = input.fill_buf().map_err(|e| stream::io(&file, e))?;
                detect::detect(&file, head)?
            }
        };
        let mut reading = stream::Reading {
            file: &file,
            state: &mut state,
            failed: None,
            spans: 0,
        };
        match format {
            TraceFormat::Otlp => otlp::read(&mut reading, &mut input)?,
            TraceFormat::Jaeger => jaeger::read(&mut reading, &mut input)?,
            TraceFormat::Zipkin => zipkin::read(&mut reading, &mut input)?,
        }
        read.push((file.clone(), format, reading.spans));
    }
    for trace in state.group.drain() {
        shape::analyse(&trace, &mut state.tally, &mut state.report);
    }
    emit::emit(&read, &state.names, &state.tally, &state.report, opts)
}
