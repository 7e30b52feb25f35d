//! Alerting rules files onto a scenario: the `--map SELECTOR=METRIC` pairs read and checked
//! against the series the scenario records, then each file's rules (`rules`), and the pairs no
//! rule used said on stderr.

use super::Options;
use super::alert_map::Recorded;
use super::promql::{Expr, parse};
use super::rules::{Rules, Seen, read_rules};
use crate::error::{Error, did_you_mean};
use crate::import::out::{Imported, Skipped};

/// Reads `files` (name, text), each an alerting rules file, into `out`.
pub fn import_rules(
    files: &[(String, String)],
    opts: &Options,
    out: &mut Imported,
) -> Result<(), Error> {
    let Some(topology) = &opts.topology else {
        return Err(Error::Usage(
            "an alerting rules file is mapped onto a scenario: give --scenario FILE (its bucket decides which windows map, its clients, services and edges which metrics)".into(),
        ));
    };
    let maps = opts
        .maps
        .iter()
        .map(|m| read_map(m, &topology.series))
        .collect::<Result<Vec<_>, _>>()?;
    let rules = Rules {
        maps: &maps,
        series: &topology.series,
        bucket_ns: topology.bucket_ns,
        evaluation_ns: opts.evaluation_ns,
    };
    let mut seen = Seen::default();
    let mut count = 0;
    for (file, text) in files {
        count += read_rules(file, text, &rules, out, &mut seen)?;
    }
    if count == 0 {
        let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
        return Err(Error::Usage(format!(
            "{}: no alerting rule to import",
            names.join(", ")
        )));
    }
    for (given, (key, _)) in opts.maps.iter().zip(&maps) {
        if !seen.selectors.contains(key) {
            out.skipped.push(Skipped {
                at: "--map".into(),
                key: given.clone(),
                reason: "no rule reads this selector".into(),
            });
        }
    }
    Ok(())
}

/// `SELECTOR=METRIC`: the selector's key and the metric, which the scenario records (or, for a
/// histogram, whose `_p<q>_ms` quantiles it records).
fn read_map(given: &str, series: &[Recorded]) -> Result<(String, String), Error> {
    let bad = |why: String| Error::Usage(format!("--map {given}: {why}"));
    let Some((selector, metric)) = given.rsplit_once('=') else {
        return Err(bad(
            "give SELECTOR=METRIC, `http_requests_total{job=\"api\"}=service.api.arrivals`".into(),
        ));
    };
    let sel = match parse(selector.trim()) {
        Ok(Expr::Sel(s)) if s.range_ns.is_none() && s.shifted.is_none() => s,
        Ok(_) => {
            return Err(bad(format!(
                "`{selector}` is not a plain series selector (a name and label matchers, no range)"
            )));
        }
        Err(e) => return Err(bad(format!("cannot read `{selector}`: {e}"))),
    };
    let metric = metric.trim();
    let recorded = series.iter().any(|r| r.name == metric);
    let quantiles = series.iter().any(|r| {
        r.name
            .strip_prefix(metric)
            .and_then(|rest| rest.strip_prefix("_p"))
            .and_then(|rest| rest.strip_suffix("_ms"))
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    if !(recorded || quantiles) {
        return Err(bad(format!(
            "`{metric}` is not a metric this scenario's time series records (`cascade metrics` lists the catalogue; a histogram maps to a latency without its quantile, `client.web.latency`){}",
            did_you_mean(metric, series.iter().map(|r| r.name.as_str()))
        )));
    }
    Ok((sel.key(), metric.to_string()))
}
