//! An alert's condition at each evaluation, read off the run's time series: a threshold, a
//! ratio and a comparison with the baseline read the last whole bucket before the evaluation,
//! [t − bucket, t); a burn rate reads the buckets of its two windows.

use super::burn::{Totals, burn_rate};
use crate::metrics::RunMetrics;
use crate::model::alert::{Alert, Condition};

/// The evaluation instants of `alert`: t = k · every, k ≥ 1, after the warm-up and at most the
/// run's end (`run_end`, earlier than the model's for a diverged run).
pub fn instants(alert: &Alert, warmup: u64, run_end: u64) -> impl Iterator<Item = u64> {
    let every = alert.every.max(1);
    (warmup / every + 1..=run_end / every)
        .map(move |k| k * every)
        .filter(move |t| *t > warmup)
}

/// The condition of `alert` at each of its evaluation instants; `None` when the run has no
/// series the rule names (a metric emitted only under conditions the run does not meet).
pub fn condition_at(
    alert: &Alert,
    m: &RunMetrics,
    warmup: u64,
    run_end: u64,
) -> Option<Vec<(u64, bool)>> {
    let b = m.bucket_ns.max(1);
    let n = m.buckets();
    // The whole bucket that ends at t.
    let last = move |t: u64| {
        (t / b)
            .checked_sub(1)
            .map(|i| i as usize)
            .filter(|&i| i < n)
    };
    let times: Vec<u64> = instants(alert, warmup, run_end).collect();
    let out = match &alert.condition {
        Condition::Threshold { metric, op, value } => {
            let s = m.series_of(metric)?;
            each(&times, |t| last(t).is_some_and(|i| op.holds(s[i], *value)))
        }
        Condition::Ratio {
            numerator,
            denominator,
            op,
            value,
        } => {
            let (num, den) = (m.series_of(numerator)?, m.series_of(denominator)?);
            each(&times, |t| {
                last(t).is_some_and(|i| op.holds(ratio(num[i], den[i]), *value))
            })
        }
        Condition::Baseline {
            metric,
            span,
            op,
            value,
        } => {
            let s = m.series_of(metric)?;
            let (from, to) = ((span.0 / b) as usize, ((span.1 / b) as usize).min(n));
            let level = mean(s.get(from..to).unwrap_or(&[]));
            each(&times, |t| {
                last(t).is_some_and(|i| op.holds(over_level(s[i], level), *value))
            })
        }
        Condition::Burn {
            of,
            slo,
            long,
            short,
            burn,
        } => {
            let success = m.series_of(&format!("{of}.success"))?;
            let errors = errors_of(m, of)?;
            let totals = Totals::new(&success, &errors);
            let first = (warmup / b) as usize;
            let window = |t: u64, w: u64| {
                let to = (t / b) as usize;
                let from = (t.saturating_sub(w) / b) as usize;
                burn_rate(totals.error_ratio(from.max(first), to), *slo)
            };
            each(&times, |t| {
                window(t, *long) > *burn && window(t, *short) > *burn
            })
        }
    };
    Some(out)
}

fn each(times: &[u64], f: impl Fn(u64) -> bool) -> Vec<(u64, bool)> {
    times.iter().map(|&t| (t, f(t))).collect()
}

/// A ratio over nothing is 0, as the catalogue's ratios are.
fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 { 0.0 } else { num / den }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// A value over its baseline level: over a level of 0, 0 stays 0 and anything above is
/// infinitely above.
fn over_level(x: f64, level: f64) -> f64 {
    if level != 0.0 {
        x / level
    } else if x > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// Each bucket's errors of `of`: its `errors.<kind>` series summed.
fn errors_of(m: &RunMetrics, of: &str) -> Option<Vec<f64>> {
    let prefix = format!("{of}.errors.");
    let cols: Vec<usize> = (m.names.iter().enumerate())
        .filter(|(_, n)| n.strip_prefix(&prefix).is_some_and(|k| !k.contains('.')))
        .map(|(i, _)| i)
        .collect();
    if cols.is_empty() {
        return None;
    }
    let w = m.names.len();
    Some(
        (0..m.buckets())
            .map(|b| cols.iter().map(|&c| m.series[b * w + c]).sum())
            .collect(),
    )
}

/// The series a rule reads, for the message when the run lacks one.
pub fn series_named(alert: &Alert) -> String {
    match &alert.condition {
        Condition::Threshold { metric, .. } | Condition::Baseline { metric, .. } => metric.clone(),
        Condition::Ratio {
            numerator,
            denominator,
            ..
        } => format!("{numerator} / {denominator}"),
        Condition::Burn { of, .. } => format!("{of}.success and {of}.errors.<kind>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alert::firing_intervals;

    const S: u64 = 1_000_000_000;

    /// One minute buckets of a client's successes and errors: `errors(b)` of 1,000 finished in
    /// bucket b.
    fn client_series(buckets: usize, errors: impl Fn(usize) -> f64) -> RunMetrics {
        let names = vec![
            "client.web.success".to_string(),
            "client.web.errors.internal".to_string(),
            "client.web.errors.timeout".to_string(),
        ];
        let series = (0..buckets)
            .flat_map(|b| {
                let e = errors(b);
                // The errors split between two kinds: summed back.
                [1000.0 - e, e / 2.0, e / 2.0]
            })
            .collect();
        RunMetrics {
            summary: Vec::new(),
            names,
            series,
            bucket_ns: 60 * S,
        }
    }

    fn fast_burn(long: u64, short: u64) -> Alert {
        Alert {
            name: "fast".into(),
            condition: Condition::Burn {
                of: "client.web".into(),
                slo: 0.999,
                long,
                short,
                burn: 14.4,
            },
            every: 60 * S,
            hold: 0,
            keep_firing_for: 0,
        }
    }

    fn fired(alert: &Alert, m: &RunMetrics) -> Vec<(u64, u64)> {
        let end = m.buckets() as u64 * m.bucket_ns;
        let evals = condition_at(alert, m, 0, end).unwrap();
        firing_intervals(evals, alert.hold, alert.keep_firing_for, end)
            .into_iter()
            .map(|(s, e)| (s / S, e / S))
            .collect()
    }

    #[test]
    fn a_constant_error_ratio_fires_iff_it_burns_faster_than_the_factor() {
        // e / (1 − 0.999) against 14.4: e = 0.015 burns at 15 (fires at the first
        // evaluation, 60 s), e = 0.014 at 14 (never).
        let alert = fast_burn(3600 * S, 300 * S);
        assert_eq!(
            fired(&alert, &client_series(180, |_| 15.0)),
            vec![(60, 10_800)]
        );
        assert_eq!(fired(&alert, &client_series(180, |_| 14.0)), vec![]);
    }

    #[test]
    fn a_step_in_errors_fires_when_the_long_windows_mean_crosses_the_threshold() {
        // No errors before 7,200 s, then 5% (burn 50). The short window (5 min) burns from the
        // first bucket after the step. The long one (1 h, 60 buckets of 1,000) holds 50 k errors
        // k buckets after the step: 50k / 60,000 > 0.0144 from k > 17.28, so at k = 18:
        // t = 7,200 + 18 · 60 = 8,280 s (burn 15; at k = 17, 14.17). Errors stop at 9,000 s:
        // the short window's ratio over [t − 300, t) is 0.05 · (9,000 − t + 300)/300, above
        // 0.0144 while t < 9,213.6: last true at 9,180, resolved at 9,240 s, while the long
        // window still burns.
        let step = |b: usize| if (120..150).contains(&b) { 50.0 } else { 0.0 };
        let alert = fast_burn(3600 * S, 300 * S);
        assert_eq!(
            fired(&alert, &client_series(240, step)),
            vec![(8_280, 9_240)]
        );
        // A long window of 10 min (10 buckets) holds 50k / 10,000 > 0.0144 from k = 3: it
        // fires at 7,380 s, and resolves with the short one all the same.
        let both_short = fast_burn(600 * S, 300 * S);
        assert_eq!(
            fired(&both_short, &client_series(240, step)),
            vec![(7_380, 9_240)]
        );
    }

    #[test]
    fn thresholds_read_the_last_whole_bucket_before_each_evaluation() {
        let m = RunMetrics {
            summary: Vec::new(),
            names: vec!["service.db.queue_mean".into()],
            series: vec![0.0, 0.0, 9.0, 9.0, 0.0, 0.0],
            bucket_ns: S,
        };
        let alert = Alert {
            name: "q".into(),
            condition: Condition::Threshold {
                metric: "service.db.queue_mean".into(),
                op: crate::model::alert::Cmp::Ge,
                value: 9.0,
            },
            every: S,
            hold: 0,
            keep_firing_for: 0,
        };
        // Bucket 2 is [2 s, 3 s): seen at t = 3 s; bucket 4 back at t = 5 s.
        assert_eq!(fired(&alert, &m), vec![(3, 5)]);
        // A metric the run did not record: no evaluation at all.
        let mut missing = alert.clone();
        missing.condition = Condition::Threshold {
            metric: "service.db.restarts".into(),
            op: crate::model::alert::Cmp::Ge,
            value: 1.0,
        };
        assert!(condition_at(&missing, &m, 0, 6 * S).is_none());
    }
}
