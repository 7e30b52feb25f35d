//! A fault's named `baseline`: the steady span its recovery is judged against
//! (`metrics::recovery`) must be one, so it is checked against the warm-up, the fault and every
//! other fault here, where an error can name its line.

use super::compile::Res;
use super::document::Source;
use crate::model::fault::Fault;
use crate::time::format_duration;

pub(super) fn check(src: &Source, faults: &[Fault], warmup: u64, bucket: u64) -> Res<()> {
    for (i, f) in faults.iter().enumerate() {
        let Some((start, end)) = f.baseline else {
            continue;
        };
        let at = |k: &str| format!("fault.{i}.baseline.{k}");
        if start < warmup {
            return Err(src.error_at(
                &at("start"),
                format!(
                    "must be at or after the warm-up's end ({}): the warm-up is not measured",
                    format_duration(warmup)
                ),
            ));
        }
        if end > f.start {
            return Err(src.error_at(
                &at("end"),
                format!(
                    "must be at or before the fault's start ({})",
                    format_duration(f.start)
                ),
            ));
        }
        if end / bucket <= start.div_ceil(bucket) {
            return Err(src.error_at(
                &at("end"),
                format!(
                    "the span must hold a whole bucket ({}) of the time series",
                    format_duration(bucket)
                ),
            ));
        }
        if let Some((j, o)) = faults
            .iter()
            .enumerate()
            .find(|(_, o)| o.start < end && o.end > start)
        {
            return Err(src.error_at(
                &at("start"),
                format!(
                    "fault {j} is active in it ({}–{}): a baseline must be steady",
                    format_duration(o.start),
                    format_duration(o.end)
                ),
            ));
        }
    }
    Ok(())
}
