//! Compiles a service's overload physics (`[service.contention]`, `reject_work`) and a plan's
//! work after its calls (`after_work`, `after_work_on_failure`).

use super::compile::{Ctx, Res};
use super::document::Source;
use super::schema::{RawContention, RawDist, RawService};
use crate::model::overload::{AfterWork, Contention, ContentionLaw, Overload};

/// The overload physics of service `s`, whose instances have `workers` workers; `None` when
/// it has no contention and its refusals are free.
pub fn overload(src: &Source, s: &RawService, workers: u32) -> Res<Option<Box<Overload>>> {
    let at = |f: &str| format!("service.{}.{f}", s.name);
    let contention = s
        .contention
        .as_ref()
        .map(|c| contention(src, &at("contention"), c, workers))
        .transpose()?;
    let reject_work = s.reject_work.map_or(0, |d| d.0);
    if contention.is_none() && reject_work == 0 {
        return Ok(None);
    }
    Ok(Some(Box::new(Overload {
        contention,
        reject_work,
    })))
}

fn contention(src: &Source, at: &str, c: &RawContention, workers: u32) -> Res<Contention> {
    let field = |f: &str| format!("{at}.{f}");
    let law = match (&c.table, c.k, c.knee) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(src.error_at(
                &field("table"),
                "gives the factor point by point: leave out `k` and `knee`, which give it by a law",
            ));
        }
        (Some(points), None, None) => table(src, &field("table"), points)?,
        (None, None, _) => {
            return Err(src.error_at(
                at,
                "needs a law (`k`, and `knee`: factor = 1 + k × max(0, busy − knee)) or a `table` of [busy, factor] points",
            ));
        }
        (None, Some(k), knee) => {
            if !k.is_finite() || k < 0.0 {
                return Err(src.error_at(
                    &field("k"),
                    format!("is the work added per busy worker past the knee (a share of the work): at least 0, not {k}"),
                ));
            }
            let knee = knee.unwrap_or(0.0);
            if !knee.is_finite() || !(0.0..=f64::from(workers)).contains(&knee) {
                return Err(src.error_at(
                    &field("knee"),
                    format!("is the number of busy workers where contention begins: between 0 and the instance's {workers} workers, not {knee}"),
                ));
            }
            ContentionLaw::Linear { k, knee }
        }
    };
    Ok(Contention {
        law,
        counts: c.counts.unwrap_or_default(),
    })
}

fn table(src: &Source, at: &str, points: &[(f64, f64)]) -> Res<ContentionLaw> {
    if points.is_empty() {
        return Err(src.error_at(at, "has no point: give [busy, factor] pairs"));
    }
    for (n, &(busy, factor)) in points.iter().enumerate() {
        if !busy.is_finite() || busy < 0.0 {
            return Err(src.error_at(
                at,
                format!("point {n}: busy workers must be at least 0, not {busy}"),
            ));
        }
        if !factor.is_finite() || factor < 1.0 {
            return Err(src.error_at(
                at,
                format!("point {n}: a factor below 1 ({factor}) would make work faster under load: give at least 1"),
            ));
        }
        if n > 0 && busy <= points[n - 1].0 {
            return Err(src.error_at(
                at,
                format!(
                    "point {n}: busy workers must increase from point to point ({busy} follows {})",
                    points[n - 1].0
                ),
            ));
        }
    }
    Ok(ContentionLaw::Table(points.to_vec()))
}

impl Ctx<'_> {
    /// A plan's work after its calls, written at `path`.
    pub(super) fn after_work(
        &self,
        path: &str,
        work: Option<&RawDist>,
        on_failure: Option<bool>,
    ) -> Res<Option<Box<AfterWork>>> {
        let Some(work) = work else {
            if on_failure.is_some() {
                return Err(self.src.error_at(
                    &format!("{path}.after_work_on_failure"),
                    "says whether `after_work` is spent when a required call failed: give `after_work` too",
                ));
            }
            return Ok(None);
        };
        Ok(Some(Box::new(AfterWork {
            work: self.dist(&format!("{path}.after_work"), work)?,
            on_failure: on_failure.unwrap_or(false),
        })))
    }
}
