//! Metrics: what a run measured, under the public names of `cascade metrics`.

pub mod acc;
pub mod catalogue;
pub mod direction;
mod edge_acc;
mod emission;
pub mod level;
pub mod names;
pub mod pool_series;
pub mod rate_keys;
pub mod recorder;
pub mod recovery;
pub mod select;
pub mod slots;

/// A run's measurements: the summary over the measured window, and one value per metric per
/// time bucket (warm-up buckets included).
#[derive(Debug, Clone, PartialEq)]
pub struct RunMetrics {
    pub summary: Vec<(String, f64)>,
    /// The time-series metric names, in column order of `series`.
    pub names: Vec<String>,
    /// Bucket-major values: bucket `b`, metric `m` at `b * names.len() + m`.
    pub series: Vec<f64>,
    pub bucket_ns: u64,
}

impl RunMetrics {
    /// The summary value of `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.summary
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    pub fn buckets(&self) -> usize {
        if self.names.is_empty() {
            0
        } else {
            self.series.len() / self.names.len()
        }
    }

    /// The per-bucket values of one metric.
    pub fn series_of(&self, name: &str) -> Option<Vec<f64>> {
        let m = self.names.iter().position(|n| n == name)?;
        Some(
            (0..self.buckets())
                .map(|b| self.series[b * self.names.len() + m])
                .collect(),
        )
    }
}
