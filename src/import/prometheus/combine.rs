//! The readings of one service and operation made one histogram and a rate: a `rate()` as it
//! is, snapshots differenced, one snapshot without a rate.

use super::*;

/// What the readings of one key measured: the histogram, the request rate if any, where.
pub(super) struct Measured {
    pub(super) hist: Hist,
    pub(super) rate: Option<(f64, String)>,
    pub(super) from: String,
    /// `file:line` of the (last) reading, for the list of what was not imported.
    pub(super) at: String,
    /// Counts since the process started, not over an interval: said beside the work.
    pub(super) since_start: bool,
}

/// The readings of one key made one histogram: a rate as it is, two snapshots or more
/// differenced (first and last), one snapshot as it is, without a rate.
pub(super) fn combine(
    mut rs: Vec<Reading>,
    opts: &Options,
    out: &mut Imported,
) -> Result<Measured, Error> {
    let first = &rs[0];
    if let Some(other) = rs
        .iter()
        .find(|r| r.family != first.family || r.unit != first.unit)
    {
        let units = if other.unit != first.unit {
            format!(" (mixed units: {} and {})", first.unit, other.unit)
        } else {
            String::new()
        };
        return Err(error_at(
            &other.file,
            other.lines.0,
            1,
            &other.family,
            format!(
                "a second histogram of service `{}`{}: {} and {}{units}; choose one with --metric",
                first.key.service,
                first
                    .key
                    .operation
                    .as_ref()
                    .map(|o| format!(" operation `{o}`"))
                    .unwrap_or_default(),
                source(first),
                source(other)
            ),
        ));
    }
    if rs.iter().any(|r| r.what == What::Rate) {
        if rs.len() > 1 {
            let r = &rs[1];
            return Err(error_at(
                &r.file,
                r.lines.0,
                1,
                &r.family,
                format!(
                    "a second reading of a rate() result: {} and {}",
                    source(&rs[0]),
                    source(r)
                ),
            ));
        }
        let r = rs.remove(0);
        let rate = r.hist.count();
        let from = source(&r);
        return Ok(Measured {
            at: format!("{}:{}", r.file, r.lines.0),
            rate: Some((rate, format!("the +Inf bucket's rate, {from}"))),
            hist: r.hist,
            from,
            since_start: false,
        });
    }
    if rs.len() == 1 {
        let r = rs.remove(0);
        out.skipped.push(Skipped {
            at: format!("{}:{}", r.file, r.lines.0),
            key: format!("{}_count", r.family),
            reason: "one snapshot of cumulative counters has no rate (they count since the process started): give two snapshots and the time between them (timestamps or --interval), or a rate() query's JSON".into(),
        });
        return Ok(Measured {
            at: format!("{}:{}", r.file, r.lines.0),
            from: source(&r),
            hist: r.hist,
            rate: None,
            since_start: true,
        });
    }
    // Snapshots in time order: by their timestamps when each has one, else as given.
    let stamps: Vec<Option<i64>> = rs
        .iter()
        .map(|r| match r.what {
            What::Snapshot(t) => t,
            What::Rate => None,
        })
        .collect();
    if stamps.iter().all(Option::is_some) {
        rs.sort_by_key(|r| match r.what {
            What::Snapshot(t) => t,
            What::Rate => None,
        });
    }
    let (a, b) = (&rs[0], &rs[rs.len() - 1]);
    let interval = match (opts.interval_s, a.what, b.what) {
        (Some(s), _, _) => s,
        (None, What::Snapshot(Some(t0)), What::Snapshot(Some(t1))) if t1 > t0 => {
            (t1 - t0) as f64 / 1000.0
        }
        _ => {
            return Err(error_at(
                &b.file,
                b.lines.0,
                1,
                &b.family,
                format!(
                    "two snapshots of service `{}` ({} and {}) need the time between them: give --interval (like 5m), or samples with timestamps",
                    a.key.service,
                    source(a),
                    source(b)
                ),
            ));
        }
    };
    let hist = b
        .hist
        .since(&a.hist)
        .map_err(|e| error_at(&b.file, b.lines.0, 1, &b.family, e))?;
    let rate = hist.count() / interval;
    let from = format!("{} ({} less {})", series(b), place(b), place(a));
    Ok(Measured {
        at: format!("{}:{}", b.file, b.lines.0),
        rate: Some((
            rate,
            format!(
                "_count rose {} over {} s: {from}",
                sig(hist.count()),
                sig(interval)
            ),
        )),
        hist,
        from,
        since_start: false,
    })
}
