//! The `[[fault]]` tables of a scenario as written.

use super::pair::{self, Pair};
use super::schema::{Dur, RawDist};
use super::schema_json::EnumOf;
use crate::model::WarmCurve;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Deserializer;

/// `[[fault]]`: something that goes wrong, where and when. Besides `kind`, `target`, `start`
/// and `end`, each kind takes only its own keys (docs/scenario.md, section 6).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFault {
    /// What goes wrong.
    pub kind: FaultKind,
    /// A service `auth`, one instance `auth#1`, an edge `gateway->auth`; a client for `overload`.
    pub target: String,
    /// When the fault begins, from t = 0 (warm-up included).
    #[schemars(extend("default" = "0"))]
    pub start: Option<Dur>,
    /// When it ends, after `start` (default: the end of the run).
    pub end: Option<Dur>,
    /// `errors`: each arriving request fails with this probability, in [0, 1].
    #[schemars(extend("default" = 1))]
    pub rate: Option<f64>,
    /// `errors`: the failure kind answered.
    #[schemars(extend("default" = "unavailable"))]
    pub error: Option<String>,
    /// `errors`: Retry-After carried by each failed answer (default: none).
    pub retry_after: Option<Dur>,
    /// `errors`: how long after arrival the failure is answered.
    #[schemars(extend("default" = "0"))]
    pub latency: Option<Dur>,
    /// `latency`: work (or network delay) multiplied by this; `overload`: the rate multiplied.
    pub factor: Option<f64>,
    /// `latency`: work (or network delay) lengthened by this.
    pub add: Option<Dur>,
    /// `latency`: work replaced by a draw from this distribution.
    pub dist: Option<RawDist>,
    /// `outage`, `crash`: refuse at once, or swallow requests and never answer.
    #[schemars(extend("default" = "refuse"))]
    pub mode: Option<OutageMode>,
    /// Linear onset over `[start, start + ramp)` and recovery over `[end - ramp, end)`.
    #[schemars(extend("default" = "0"))]
    pub ramp: Option<Dur>,
    /// `crash`: back this long after `start` (instead of `end`).
    pub restart: Option<Dur>,
    /// `crash`: after coming back, work is `cold_factor` times slower for this long.
    #[schemars(extend("default" = "0"))]
    pub cold_start: Option<Dur>,
    /// `crash`: how much slower work is during `cold_start` (>= 1).
    #[schemars(extend("default" = 2))]
    pub cold_factor: Option<f64>,
    /// `capacity`: workers left per instance.
    pub workers: Option<u32>,
    /// `capacity`: share of each instance's workers removed, in [0, 1].
    pub share: Option<f64>,
    /// `overload` of a closed-loop client: users who join it.
    pub users: Option<u32>,
    /// On a service (or instance) with operations: only this operation's requests.
    pub operation: Option<String>,
    /// A `branch` fault: the named step whose probability it changes, the probability, and
    /// how long it takes to come back after `end`.
    pub step: Option<String>,
    /// `branch`: the step's probability while the fault is active, in [0, 1].
    pub p: Option<f64>,
    /// `branch`: after `end`, the probability comes back over this: linearly, or as the time
    /// constant of `warm_curve = "exponential"`.
    #[schemars(extend("default" = "0"))]
    pub warm: Option<Dur>,
    /// `branch`: how the probability comes back after `end`: `linear` over `warm`, or
    /// `exponential`, the fault's weight exp(-(t - end) / warm) until the run's end.
    #[schemars(with = "Option<EnumOf<WarmCurve>>", extend("default" = "linear"))]
    pub warm_curve: Option<WarmCurve>,
    /// `branch`, instead of `warm`: the fault's weight (1: as during the fault, 0: the step's
    /// own probability) against time since `end`, as [duration, weight] points linearly
    /// interpolated; the first ["0s", 1], times increasing, the last weight 0.
    pub warm_table: Option<Vec<WarmPoint>>,
    /// The steady span whose goodput this fault's recovery is judged against, instead of the
    /// default (from the warm-up's end, or from where the previous fault's goodput came back,
    /// to this fault's start). It must lie after the warm-up, end by this fault's start, hold
    /// a whole bucket, and touch no fault.
    pub baseline: Option<RawBaseline>,
}

/// A fault's `baseline = { start, end }`, from t = 0 (warm-up included).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBaseline {
    pub start: Dur,
    pub end: Dur,
}

/// The kinds of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    Latency,
    Errors,
    Outage,
    Stall,
    Crash,
    Capacity,
    Overload,
    Branch,
}

/// How an `outage` or a down `crash` answers: refused at once, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutageMode {
    #[default]
    Refuse,
    Blackhole,
}

/// A point of a `branch` fault's `warm_table`: [duration since `end`, weight], read whole
/// (`pair.rs`: a third value is an error, not dropped); its JSON Schema is in `schema_json.rs`.
#[derive(Debug, Clone, Copy)]
pub struct WarmPoint(pub Dur, pub f64);

impl<'de> Deserialize<'de> for WarmPoint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WarmPoint, D::Error> {
        let point = Pair::<Dur, f64, pair::Warm>::deserialize(d)?;
        Ok(WarmPoint(point.0, point.1))
    }
}
