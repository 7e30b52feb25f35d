//! `cascade run --trace-format otlp`: the run's trace as OpenTelemetry spans in OTLP/JSON, for
//! the trace viewers teams already use (Jaeger, Grafana Tempo, Zipkin through a collector).
//! Built after the run from the rows `--trace` keeps (`rows.rs`), so a run pays for spans only
//! what it pays for a CSV trace: `spans.rs` makes the spans, `active_faults.rs` names the faults
//! in force, `encode.rs` writes the JSON, `epoch.rs` reads `--trace-epoch`. Span and trace ids
//! come from the seed and the request ids (`engine::trace_ids`).

pub mod active_faults;
pub mod encode;
pub mod epoch;
pub mod rows;
pub mod spans;

use crate::model::Model;

/// The OTLP/JSON text of the trace `csv` of a run of `model`, simulated t = 0 at `epoch_ns`
/// (unix ns); an error names a row that is not a trace row.
pub fn otlp_json(csv: &str, model: &Model, epoch_ns: u64) -> Result<String, String> {
    let rows = rows::parse(csv)?;
    let spans = spans::build(&rows, model);
    Ok(encode::request(&spans, epoch_ns))
}
