//! What every generated run must keep, checked from its own summary and time series, apart
//! from the code that computes them: shares, ratios and utilizations in [0, 1], window counts
//! within the whole run's, and fault verdicts that agree with the goodput series they judge
//! (docs/scenario.md §7).

use cascade::Model;
use cascade::metrics::RunMetrics;

pub fn check(model: &Model, m: &RunMetrics, fault_table: &str) -> Result<(), String> {
    ranges(m)?;
    windows_within_the_run(m)?;
    verdicts_agree_with_goodput(model, m, fault_table)
}

/// Shares, ratios and utilizations are in [0, 1]; levels are never negative.
fn ranges(m: &RunMetrics) -> Result<(), String> {
    for (name, v) in &m.summary {
        let leaf = name.rsplit('.').next().unwrap_or(name);
        let unit = leaf.ends_with("_ratio") || leaf.ends_with("_share") || leaf == "utilization";
        if unit && !(-1e-9..=1.0 + 1e-9).contains(v) {
            return Err(format!("{name} = {v}, outside [0, 1]"));
        }
        let level = leaf.ends_with("_mean") && !leaf.contains("_ms");
        if level && *v < -1e-9 {
            return Err(format!("{name} = {v}, a level below zero"));
        }
    }
    Ok(())
}

/// A count over a window is at most the count over the whole run.
fn windows_within_the_run(m: &RunMetrics) -> Result<(), String> {
    const COUNTS: [&str; 6] = [
        "arrivals", "served", "requests", "attempts", "calls", "success",
    ];
    for (name, v) in &m.summary {
        let Some((_, whole)) = name
            .strip_prefix("window.")
            .and_then(|rest| rest.split_once('.'))
        else {
            continue;
        };
        if !COUNTS.iter().any(|c| whole.ends_with(&format!(".{c}"))) {
            continue;
        }
        if let Some(run) = m.get(whole)
            && *v > run + 1e-9
        {
            return Err(format!("{name} = {v} is more than {whole} = {run}"));
        }
    }
    Ok(())
}

/// Faults merged by overlap, as [start, end) in ns, each with its faults.
fn episodes(model: &Model) -> Vec<(u64, u64, Vec<usize>)> {
    let mut order: Vec<usize> = (0..model.faults.len()).collect();
    order.sort_by_key(|&i| (model.faults[i].start, i));
    let mut out: Vec<(u64, u64, Vec<usize>)> = Vec::new();
    for i in order {
        let f = &model.faults[i];
        match out.last_mut() {
            Some(e) if f.start <= e.1 => {
                e.1 = e.1.max(f.end);
                e.2.push(i);
            }
            _ => out.push((f.start, f.end, vec![i])),
        }
    }
    out
}

/// For each judged fault: recovered ⇒ the hold from `recovery_s` is all at or above the floor;
/// the last hold of its watch all at or above the floor ⇒ recovered; "metastable" printed ⇒
/// goodput after below the baseline. The floor is computed here from the definition.
fn verdicts_agree_with_goodput(model: &Model, m: &RunMetrics, table: &str) -> Result<(), String> {
    let n = m.buckets();
    let mut goodput = vec![0.0; n];
    for c in &model.clients {
        if let Some(s) = m.series_of(&format!("client.{}.goodput_rps", c.name)) {
            goodput.iter_mut().zip(s).for_each(|(g, v)| *g += v);
        }
    }
    let b = m.bucket_ns;
    let hold = model.recovery_hold.div_ceil(b).max(1) as usize;
    let all = episodes(model);
    for (k, (_, end, faults)) in all.iter().enumerate() {
        let i = faults[0];
        if m.get(&format!("fault.{i}.judged")) != Some(1.0) {
            continue;
        }
        let get = |what: &str| m.get(&format!("fault.{i}.{what}")).unwrap_or(f64::NAN);
        let before = get("goodput_before_rps");
        let bucket_s = b as f64 / 1e9;
        let floor =
            before - (model.recovery_tolerance * before).max(3.0 * (before / bucket_s).sqrt());
        let watch_end = all
            .get(k + 1)
            .map_or(n, |next| ((next.0 / b) as usize).min(n));
        let first_after = (end.div_ceil(b) as usize).min(watch_end);
        let at_floor = |r: std::ops::Range<usize>| goodput[r].iter().all(|g| *g >= floor - 1e-9);
        if get("recovered") == 1.0 {
            let j = ((*end as f64 + get("recovery_s") * 1e9) / b as f64).round() as usize;
            if j + hold > watch_end || !at_floor(j..j + hold) {
                return Err(format!(
                    "fault {i}: recovered at {} s, but the hold from bucket {j} is not all at or above {floor}",
                    get("recovery_s")
                ));
            }
        } else if watch_end >= first_after + hold && at_floor(watch_end - hold..watch_end) {
            return Err(format!(
                "fault {i}: not recovered, though the last {hold} buckets it watched are all at or above {floor}"
            ));
        }
        let ids: Vec<String> = faults.iter().map(|f| f.to_string()).collect();
        let said = table.lines().any(|l| {
            l.contains("metastable failure")
                && l.split(':')
                    .next()
                    .is_some_and(|head| head.ends_with(&ids.join("+")))
        });
        if said && get("goodput_after_rps") >= before {
            return Err(format!(
                "fault {i}: called metastable with goodput after ({}) at or above before ({before})",
                get("goodput_after_rps")
            ));
        }
    }
    Ok(())
}
