//! `limit = { algorithm, ... }` (Netflix concurrency-limits) into a `LimitConfig`. Each
//! algorithm takes its own keys, with the library's defaults; a key that belongs to another
//! algorithm is an error rather than silently ignored.

use super::error::{Checked, TableError};
use super::names::{parse_name, stray_key};
use super::raw_parts::{RawLimit, RawLimitWindow};
use crate::limit::{
    AimdConfig, Gradient2Config, LimitAlgorithm, LimitConfig, VegasConfig, WindowConfig,
};
use crate::time::Nanos;

/// A limit's algorithm, as `algorithm = "..."` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Aimd,
    Gradient2,
    Vegas,
}

const ALGORITHMS: &[(Algorithm, &str)] = &[
    (Algorithm::Aimd, "aimd"),
    (Algorithm::Gradient2, "gradient2"),
    (Algorithm::Vegas, "vegas"),
];

impl LimitConfig {
    /// The limit a `limit` table describes; errors name the field relative to it.
    pub fn from_table(l: &RawLimit) -> Checked<LimitConfig> {
        let given: [(&str, bool); 10] = [
            ("initial", l.initial.is_some()),
            ("min", l.min.is_some()),
            ("max", l.max.is_some()),
            ("backoff_ratio", l.backoff_ratio.is_some()),
            ("timeout", l.timeout.is_some()),
            ("smoothing", l.smoothing.is_some()),
            ("probe_multiplier", l.probe_multiplier.is_some()),
            ("queue_size", l.queue_size.is_some()),
            ("long_window", l.long_window.is_some()),
            ("rtt_tolerance", l.rtt_tolerance.is_some()),
        ];
        let algorithm = parse_name("limit algorithm", ALGORITHMS, &l.algorithm)
            .map_err(|m| TableError::at("algorithm", m))?;
        let keys: &[&str] = match algorithm {
            Algorithm::Aimd => &["initial", "min", "max", "backoff_ratio", "timeout"],
            Algorithm::Vegas => &["initial", "max", "smoothing", "probe_multiplier"],
            Algorithm::Gradient2 => &[
                "initial",
                "min",
                "max",
                "smoothing",
                "queue_size",
                "long_window",
                "rtt_tolerance",
            ],
        };
        if let Some(key) = stray_key(&given, keys) {
            return Err(TableError::at(
                key,
                format!(
                    "`{key}` does not apply to the {} limit; its keys: {}",
                    l.algorithm,
                    keys.join(", ")
                ),
            ));
        }
        let ratio = |name: &str, v: Option<f64>, default: f64| -> Checked<f64> {
            let v = v.unwrap_or(default);
            if v > 0.0 && v <= 1.0 {
                Ok(v)
            } else {
                Err(TableError::at(name, "must be in (0, 1]"))
            }
        };
        let algorithm = match algorithm {
            Algorithm::Aimd => {
                let d = AimdConfig::default();
                let backoff_ratio = ratio("backoff_ratio", l.backoff_ratio, d.backoff_ratio)?;
                if backoff_ratio >= 1.0 {
                    return Err(TableError::at("backoff_ratio", "must be below 1"));
                }
                LimitAlgorithm::Aimd(AimdConfig {
                    initial_limit: l.initial.unwrap_or(d.initial_limit),
                    min_limit: l.min.unwrap_or(d.min_limit),
                    max_limit: l.max.unwrap_or(d.max_limit),
                    backoff_ratio,
                    timeout: l.timeout.map_or(d.timeout, Nanos::from),
                })
            }
            Algorithm::Vegas => {
                let d = VegasConfig::default();
                LimitAlgorithm::Vegas(VegasConfig {
                    initial_limit: l.initial.unwrap_or(d.initial_limit),
                    max_limit: l.max.unwrap_or(d.max_limit),
                    smoothing: ratio("smoothing", l.smoothing, d.smoothing)?,
                    probe_multiplier: l.probe_multiplier.unwrap_or(d.probe_multiplier),
                })
            }
            Algorithm::Gradient2 => {
                let d = Gradient2Config::default();
                let rtt_tolerance = l.rtt_tolerance.unwrap_or(d.rtt_tolerance);
                if rtt_tolerance < 1.0 || !rtt_tolerance.is_finite() {
                    return Err(TableError::at("rtt_tolerance", "must be at least 1"));
                }
                let long_window = l.long_window.unwrap_or(d.long_window);
                if long_window == 0 {
                    return Err(TableError::at("long_window", "must be at least 1"));
                }
                LimitAlgorithm::Gradient2(Gradient2Config {
                    initial_limit: l.initial.unwrap_or(d.initial_limit),
                    min_limit: l.min.unwrap_or(d.min_limit),
                    max_limit: l.max.unwrap_or(d.max_limit),
                    smoothing: ratio("smoothing", l.smoothing, d.smoothing)?,
                    queue_size: l.queue_size.unwrap_or(d.queue_size),
                    long_window,
                    rtt_tolerance,
                })
            }
        };
        let (min, max, initial) = match &algorithm {
            LimitAlgorithm::Aimd(c) => (c.min_limit, c.max_limit, c.initial_limit),
            LimitAlgorithm::Vegas(c) => (1, c.max_limit, c.initial_limit),
            LimitAlgorithm::Gradient2(c) => (c.min_limit, c.max_limit, c.initial_limit),
        };
        if min == 0 || max < min {
            return Err(TableError::at(
                "",
                format!("needs 1 <= min <= max (got {min} and {max})"),
            ));
        }
        if initial == 0 || initial > max {
            return Err(TableError::at(
                "initial",
                format!("must be between 1 and max ({max})"),
            ));
        }
        let window = l
            .window
            .as_ref()
            .map(|w| WindowConfig::from_table(w).map_err(|e| e.under("window")))
            .transpose()?;
        Ok(LimitConfig { algorithm, window })
    }
}

impl WindowConfig {
    /// `limit.window`: one aggregate sample per window; errors relative to it.
    pub fn from_table(w: &RawLimitWindow) -> Checked<WindowConfig> {
        let d = WindowConfig::default();
        let min_window = w.min.map_or(d.min_window, Nanos::from);
        let max_window = w.max.map_or(d.max_window, Nanos::from);
        if min_window == Nanos::ZERO || max_window < min_window {
            return Err(TableError::at("", "needs 0 < min <= max"));
        }
        let window_size = w.size.unwrap_or(d.window_size);
        if window_size == 0 {
            return Err(TableError::at("size", "must be at least 1"));
        }
        Ok(WindowConfig {
            min_window,
            max_window,
            window_size,
            min_rtt_threshold: w.min_rtt.map_or(d.min_rtt_threshold, Nanos::from),
        })
    }
}
