//! `retry.budget`: a ratio (`budget = 0.1`) or a table of one of four kinds, each with its
//! library's defaults (Finagle's ratio, gRPC's token bucket, Envoy's concurrency, Brooker's
//! adaptive bucket); a key of another kind is refused, not ignored.

use super::error::{Checked, TableError};
use super::names::stray_key;
use super::raw::{BudgetKind, EarnOnKind, RawBudget};
use crate::budget::{BudgetConfig, EarnOn};
use crate::time::Nanos;

const S: Nanos = Nanos::from_secs(1);

impl BudgetConfig {
    /// The budget a `retry.budget` value describes; errors name the field relative to it.
    pub fn from_table(b: &RawBudget) -> Checked<BudgetConfig> {
        let fraction = |v: f64, f: &str| {
            if (0.0..=1.0).contains(&v) {
                Ok(v)
            } else {
                Err(TableError::at(f, "must be between 0 and 1"))
            }
        };
        let t = match b {
            RawBudget::Ratio(r) if (0.0..=1.0).contains(r) => {
                return Ok(BudgetConfig::Ratio {
                    ratio: *r,
                    min_per_s: 10.0,
                    window: 10 * S,
                });
            }
            RawBudget::Ratio(_) => {
                return Err(TableError::at("", "a ratio budget must be between 0 and 1"));
            }
            RawBudget::Table(t) => t,
        };
        let kind = t.kind.unwrap_or_default();
        let allowed: &[&str] = match kind {
            BudgetKind::Ratio => &["ratio", "min_per_s", "window"],
            BudgetKind::TokenBucket => &["max_tokens", "token_ratio"],
            BudgetKind::Concurrency => &["percent", "min"],
            BudgetKind::Adaptive => &["max_tokens", "token_ratio", "earn_on"],
        };
        let present = [
            ("ratio", t.ratio.is_some()),
            ("min_per_s", t.min_per_s.is_some()),
            ("window", t.window.is_some()),
            ("max_tokens", t.max_tokens.is_some()),
            ("token_ratio", t.token_ratio.is_some()),
            ("earn_on", t.earn_on.is_some()),
            ("percent", t.percent.is_some()),
            ("min", t.min.is_some()),
        ];
        if let Some(f) = stray_key(&present, allowed) {
            return Err(TableError::at(
                f,
                format!(
                    "does not apply to this budget kind, which takes: {}",
                    allowed.join(", ")
                ),
            ));
        }
        match kind {
            BudgetKind::Ratio => {
                let ratio = fraction(
                    t.ratio
                        .ok_or_else(|| TableError::at("", "a ratio budget needs `ratio`"))?,
                    "ratio",
                )?;
                let min_per_s = t.min_per_s.unwrap_or(10.0);
                if !(min_per_s >= 0.0 && min_per_s.is_finite()) {
                    return Err(TableError::at("min_per_s", "must be zero or more"));
                }
                let window = t.window.map_or(10 * S, Nanos::from);
                if window < Nanos(10) {
                    return Err(TableError::at("window", "must be longer than zero"));
                }
                Ok(BudgetConfig::Ratio {
                    ratio,
                    min_per_s,
                    window,
                })
            }
            BudgetKind::TokenBucket => {
                let max_tokens = bucket_size(t.max_tokens)?;
                let token_ratio = t.token_ratio.unwrap_or(0.1);
                if !(token_ratio > 0.0 && token_ratio.is_finite()) {
                    return Err(TableError::at("token_ratio", "must be positive"));
                }
                Ok(BudgetConfig::TokenBucket {
                    max_tokens,
                    token_ratio,
                })
            }
            BudgetKind::Concurrency => {
                let percent = t.percent.unwrap_or(20.0);
                if !(0.0..=100.0).contains(&percent) {
                    return Err(TableError::at("percent", "must be between 0 and 100"));
                }
                Ok(BudgetConfig::Concurrency {
                    percent: percent / 100.0,
                    min: t.min.unwrap_or(3),
                })
            }
            BudgetKind::Adaptive => {
                let max_tokens = bucket_size(t.max_tokens)?;
                let token_ratio = t.token_ratio.unwrap_or(0.1);
                // Counted in thousandths: a ratio that rounds to none would never earn a token.
                if !(token_ratio >= 0.001 && token_ratio <= max_tokens) {
                    return Err(TableError::at(
                        "token_ratio",
                        "must be from 0.001 (tokens are counted in thousandths) to `max_tokens`",
                    ));
                }
                Ok(BudgetConfig::Adaptive {
                    max_tokens,
                    token_ratio,
                    earn_on: match t.earn_on {
                        None | Some(EarnOnKind::Success) => EarnOn::Success,
                        Some(EarnOnKind::Call) => EarnOn::Call,
                    },
                })
            }
        }
    }
}

/// A token bucket's size (gRPC's `maxTokens` range; the adaptive bucket takes the same).
fn bucket_size(given: Option<f64>) -> Checked<f64> {
    let max_tokens = given.unwrap_or(10.0);
    if !(max_tokens > 0.0 && max_tokens <= 1000.0) {
        return Err(TableError::at(
            "max_tokens",
            "must be in (0, 1000], as gRPC requires",
        ));
    }
    Ok(max_tokens)
}

/// The name a budget kind is written with.
pub fn kind_name(k: BudgetKind) -> &'static str {
    match k {
        BudgetKind::Ratio => "ratio",
        BudgetKind::TokenBucket => "token_bucket",
        BudgetKind::Concurrency => "concurrency",
        BudgetKind::Adaptive => "adaptive",
    }
}
