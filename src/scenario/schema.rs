//! The scenario file as written: serde types that mirror the TOML one to one. Nothing here is
//! validated beyond its type; `compile` turns these into a `Model`.

use super::schema_json::{EnumOf, Seed, SweepSchema};
use crate::model::Criticality;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;

pub use super::schema_fault::{FaultKind, OutageMode, RawFault};
pub use super::schema_service::{
    Overflow, RawAdmission, RawCall, RawContention, RawOperation, RawOption, RawService, RawStep,
};
pub use cascade_policy::table::RawPolicy;

/// A duration written as a string with a unit (`"250ms"`), held as nanoseconds: the policy
/// crate's, whose tables take durations as every other table does.
pub use cascade_policy::table::Dur;

/// `scenario.seed`: any u64. TOML integers are signed 64-bit, so a seed of 2^63 or more (half
/// of the replication seeds a sweep derives) is written as a decimal string,
/// `seed = "9223372036854775808"`; any seed may be. `--seed N` reaches here as such a string
/// (an override that is not a TOML value is taken as text).
fn seed<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct SeedVisitor;
    impl Visitor<'_> for SeedVisitor {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an integer from 0 to 18446744073709551615, or one as a decimal string")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("a seed is 0 or more, got {v}")))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            v.parse::<u64>().map_err(|_| {
                E::custom(format!(
                    "a seed as a string is a decimal integer from 0 to 18446744073709551615, got \"{v}\""
                ))
            })
        }
    }
    d.deserialize_any(SeedVisitor).map(Some)
}

/// A cascade scenario: clients, services, policies, faults, windows, expectations, variants
/// and a sweep grid (docs/scenario.md).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "cascade scenario")]
pub struct RawScenario {
    /// Run-wide settings: name, duration, warm-up, seed, bucket, recovery judgement.
    pub scenario: RawMeta,
    /// Sources of logical requests (at least one).
    #[serde(default)]
    pub client: Vec<RawClient>,
    /// Servers (at least one); a service without `calls` is a leaf dependency.
    #[serde(default)]
    pub service: Vec<RawService>,
    /// Caller-side settings for a call, by name, referenced by `policy = "NAME"`.
    #[serde(default)]
    pub policy: BTreeMap<String, RawPolicy>,
    /// Something that goes wrong, where and when; each gets a recovery verdict.
    #[serde(default)]
    pub fault: Vec<RawFault>,
    /// Spans of the run whose metrics are reported apart as `window.<name>.*`.
    #[serde(default)]
    pub window: Vec<RawWindow>,
    /// A metric compared with a number, judged by `cascade check`.
    #[serde(default)]
    pub expect: Vec<RawExpect>,
    /// An alerting rule evaluated over the run's time series (Prometheus' `for` and
    /// `keep_firing_for`, or the SRE workbook's multi-window burn rate).
    #[serde(default)]
    pub alert: Vec<RawAlert>,
    /// The scenario again with some fields set otherwise, run on the same seed.
    #[serde(default)]
    pub variant: Vec<RawVariant>,
    /// `[sweep]`: `reps`, `constraint` (tune's), and paths with their values (a list, or a range
    /// `"A..B:STEP"`).
    #[schemars(with = "Option<SweepSchema>")]
    pub sweep: Option<BTreeMap<String, SetValue>>,
}

/// `[[variant]]`: the scenario again with some fields set otherwise (`set = { "path" = value }`),
/// run with the same seed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    /// The variant's name: its results go to `<out>/<name>/`.
    pub name: String,
    /// Field paths and their values, as `--set PATH=VALUE` takes them.
    pub set: BTreeMap<String, SetValue>,
}

/// A value in a variant's `set`: any TOML value, kept to be written back as `--set` text.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SetValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Array(Vec<SetValue>),
    Table(BTreeMap<String, SetValue>),
}

impl SetValue {
    /// The overrides it stands for under `path`: a table sets its keys one by one (so
    /// `set = { service.api.workers = 20 }` and `set = { "service.api.workers" = 20 }` agree);
    /// an empty table is itself the value (`codel = {}` turns CoDel on with its defaults, as
    /// `--set service.api.codel={}` does).
    pub fn overrides(&self, path: &str, out: &mut Vec<super::Override>) {
        match self {
            SetValue::Table(t) if !t.is_empty() => {
                for (k, v) in t {
                    v.overrides(&format!("{path}.{k}"), out);
                }
            }
            other => out.push(super::Override {
                path: path.to_string(),
                value: other.toml(),
            }),
        }
    }

    /// The value as TOML text, written by toml_edit: strings escaped as TOML escapes them,
    /// keys quoted where they must be, floats as TOML spells them (`nan`, `inf`).
    pub fn toml(&self) -> String {
        self.value().to_string()
    }

    fn value(&self) -> toml_edit::Value {
        match self {
            SetValue::Bool(b) => (*b).into(),
            SetValue::Int(i) => (*i).into(),
            SetValue::Float(f) => (*f).into(),
            SetValue::Text(s) => s.as_str().into(),
            SetValue::Array(a) => {
                let mut arr: toml_edit::Array = a.iter().map(SetValue::value).collect();
                arr.fmt();
                arr.into()
            }
            SetValue::Table(t) => {
                let mut table: toml_edit::InlineTable =
                    t.iter().map(|(k, v)| (k.as_str(), v.value())).collect();
                table.fmt();
                table.into()
            }
        }
    }
}

/// `[[expect]]`: a metric, a comparison and a value, checked by `cascade check`; optionally
/// over a `window` (a span or a fault's phase, as `[[window]]` takes them).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawExpect {
    /// A metric name as summary.json has it (`client.web.success_ratio`, `fault.0.recovered`),
    /// or a margin (`margin.fault.0.load`, `.trigger_s`) that `cascade check --margin` judges.
    pub metric: String,
    /// The comparison: `<`, `<=`, `>`, `>=`, `==` or `!=` (spaces around it are ignored).
    pub op: String,
    /// The number the measured value is compared with (finite).
    pub value: f64,
    /// Over a span or a fault's phase instead of the measured run.
    pub window: Option<RawExpectWindow>,
    /// Replications to judge (default 1).
    #[schemars(extend("default" = 1))]
    pub reps: Option<u32>,
    /// `mean` (default), `min`, `max`, `median` or `pNN`, over the replications.
    #[schemars(extend("default" = "mean"))]
    pub stat: Option<String>,
    /// With the mean: the whole 95% confidence interval must pass.
    #[schemars(extend("default" = false))]
    pub ci: Option<bool>,
    /// The run judged: `base` (default) or a `[[variant]]`'s name.
    #[schemars(extend("default" = "base"))]
    pub variant: Option<String>,
    /// The run `variant` is compared with (`base` or a variant's name), by `compare`.
    pub against: Option<String>,
    /// With `against`: `ratio` (variant / against) or `difference` (variant - against), per
    /// pair of replications on the same seed.
    pub compare: Option<String>,
}

/// An expectation's own window: `{ start, end }` or `{ fault, phase }`, as `[[window]]` takes.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawExpectWindow {
    /// From t = 0 (default: the end of the warm-up).
    pub start: Option<Dur>,
    /// Must be after `start` (default: the end of the run).
    pub end: Option<Dur>,
    /// A fault's position in `[[fault]]`, from 0; with `phase`.
    pub fault: Option<usize>,
    /// With `fault`: `before`, `during` or `after` the fault.
    #[schemars(extend("enum" = ["before", "during", "after"]))]
    pub phase: Option<String>,
}

/// `[[window]]`: a span of the run whose metrics the summary reports apart, given by `start`
/// and `end`, or as a phase (`before`, `during`, `after`) of a fault.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawWindow {
    /// Unique among windows; the metrics are `window.<name>.<metric>`.
    pub name: String,
    /// From t = 0 (default: the end of the warm-up).
    pub start: Option<Dur>,
    /// Must be after `start` (default: the end of the run).
    pub end: Option<Dur>,
    /// A fault's position in `[[fault]]`, from 0; with `phase`, instead of `start`/`end`.
    pub fault: Option<usize>,
    /// With `fault`: `before`, `during` or `after` the fault.
    #[schemars(extend("enum" = ["before", "during", "after"]))]
    pub phase: Option<String>,
}

/// `[[alert]]`: a rule evaluated after the run over its time series, as Prometheus evaluates an
/// alerting rule: a condition on `metric`, on `ratio` or, with `slo`, a multi-window burn rate.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAlert {
    /// Unique among alerts; its metrics are `alert.<name>.*`.
    pub name: String,
    /// A client's, service's or edge's metric from the catalogue, read per bucket: the
    /// condition is `metric op value` on the last whole bucket before each evaluation.
    pub metric: Option<String>,
    /// Two such metrics, `[numerator, denominator]`: the condition is `numerator / denominator
    /// op value` (0 when the denominator is 0); instead of `metric`.
    pub ratio: Option<Vec<String>>,
    /// With `metric`: compare the metric over its baseline (its mean over the measured buckets
    /// before the first fault; the warm-up's when none is left) instead of the metric itself.
    #[schemars(extend("default" = false))]
    pub baseline: Option<bool>,
    /// The comparison: `>`, `>=`, `<` or `<=`; with `metric` or `ratio`.
    #[schemars(extend("enum" = [">", ">=", "<", "<="]))]
    pub op: Option<String>,
    /// The number compared with (finite); with `metric` or `ratio`.
    pub value: Option<f64>,
    /// A burn-rate alert's objective, the share of requests of `of` that succeed (0.999).
    pub slo: Option<f64>,
    /// With `slo`: `client.<c>` or `client.<c>.op.<o>`, whose success the objective is on.
    pub of: Option<String>,
    /// With `slo`: the long window (a whole number of buckets).
    pub long: Option<Dur>,
    /// With `slo`: the short window, shorter than `long` (a whole number of buckets).
    pub short: Option<Dur>,
    /// With `slo`: the burn-rate factor both windows must exceed (14.4).
    pub burn: Option<f64>,
    /// The evaluation interval: evaluated at every whole multiple of it after the warm-up (a
    /// whole number of buckets; default: scenario.bucket).
    pub every: Option<Dur>,
    /// How long the condition must hold, from the evaluation that first saw it, before the
    /// alert fires (Prometheus' `for`; default 0: at once).
    #[serde(rename = "for")]
    #[schemars(extend("default" = "0s"))]
    pub hold: Option<Dur>,
    /// How long a firing alert keeps firing once its condition is false (Prometheus'
    /// `keep_firing_for`; default 0).
    #[schemars(extend("default" = "0s"))]
    pub keep_firing_for: Option<Dur>,
}

/// `[scenario]`: run-wide settings.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMeta {
    /// The scenario's name; `cascade run` writes to `results/<name>` unless `--out` is given.
    pub name: String,
    /// Measured time, after the warm-up (> 0).
    pub duration: Dur,
    /// Simulated before measuring; a whole multiple of `bucket`.
    #[schemars(extend("default" = "0"))]
    pub warmup: Option<Dur>,
    /// Seeds every random stream: an integer, or a decimal string for 2^63 and above.
    #[serde(default, deserialize_with = "seed")]
    #[schemars(with = "Option<Seed>", extend("default" = 1))]
    pub seed: Option<u64>,
    /// Time-series resolution (> 0).
    #[schemars(extend("default" = "1s"))]
    pub bucket: Option<Dur>,
    /// Free text for humans; not used by the simulator.
    pub description: Option<String>,
    /// How long goodput must stay back at its level before a fault for it to count as recovered.
    #[schemars(extend("default" = "10s"))]
    pub recovery_hold: Option<Dur>,
    /// How close "back" is: within this share of the level before the fault (0 <= x < 1).
    #[schemars(extend("default" = 0.05))]
    pub recovery_tolerance: Option<f64>,
    /// Requests in flight past which the run counts as diverged and stops (>= 1).
    #[schemars(extend("default" = 1000000))]
    pub max_in_flight: Option<u64>,
    /// Lint ids not to warn about (docs/lints.md describes each), for a scenario that breaks a
    /// rule on purpose.
    #[schemars(with = "Option<super::schema_json::LintIds>", extend("default" = []))]
    pub allow: Option<Vec<String>>,
}

/// How a client's requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalKind {
    Poisson,
    Constant,
    Closed,
}

/// `[[client]]`: a source of logical requests to one service.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawClient {
    /// Client name (unique, not also a service name).
    pub name: String,
    /// Name of the service that receives every request.
    pub target: String,
    /// Open loop with Poisson or evenly spaced arrivals, or closed loop.
    #[schemars(extend("default" = "poisson"))]
    pub arrival: Option<ArrivalKind>,
    /// Requests per second from t = 0; required for an open loop, rejected for a closed one.
    pub rate: Option<f64>,
    /// Rate changes over time (open loop only).
    pub phases: Option<Vec<RawPhase>>,
    /// Number of closed-loop users; required for a closed loop.
    pub users: Option<u32>,
    /// Closed loop only: pause before each request.
    #[schemars(extend("default" = "0"))]
    pub think: Option<RawDist>,
    /// Closed loop: each user's requests start this far apart (or back to back when slower).
    pub pace: Option<Dur>,
    /// User patience: the request's deadline, relative to its start (default: none).
    pub deadline: Option<Dur>,
    /// Carried by the request and every downstream call it causes.
    #[schemars(with = "Option<EnumOf<Criticality>>", extend("default" = "critical"))]
    pub criticality: Option<Criticality>,
    /// Name of a `[policy.NAME]` applied to the client -> target call.
    pub policy: Option<String>,
    /// The operation of `target` it calls, when the target has operations.
    pub operation: Option<String>,
    /// A weighted mix of the target's operations instead of one.
    pub mix: Option<Vec<RawMixEntry>>,
    /// One-way network latency between the client and its target (a mobile radio, the
    /// internet), drawn for each attempt's request and again for its reply (default: zero).
    pub network: Option<RawDist>,
}

/// One operation of a client's `mix`: its share (`weight`, relative to the others) and,
/// where given, its own deadline and criticality (else the client's).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMixEntry {
    /// An operation of the target, at most once in the mix.
    pub operation: String,
    /// Its share of the requests, relative to the others (> 0).
    pub weight: f64,
    /// This operation's requests' deadline (default: the client's).
    pub deadline: Option<Dur>,
    /// This operation's requests' class (default: the client's).
    #[schemars(with = "Option<EnumOf<Criticality>>")]
    pub criticality: Option<Criticality>,
}

/// A change of an open-loop client's rate.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPhase {
    /// When the change starts, from t = 0 (warm-up included).
    pub at: Dur,
    /// The new rate, requests per second.
    pub rate: f64,
    /// `"0"`: a step at `at`; otherwise linear over `[at, at + ramp]`.
    #[schemars(extend("default" = "0"))]
    pub ramp: Option<Dur>,
}

/// A latency distribution: a bare duration string (constant) or a table with `dist`.
#[derive(Debug, Clone, PartialEq)]
pub enum RawDist {
    Constant(Dur),
    Table(Box<RawDistTable>),
}

/// Every parameter any distribution takes; `compile` checks which apply to `dist`.
#[derive(Debug, Clone, Deserialize, PartialEq, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDistTable {
    /// The distribution; which other keys it takes is checked at validation.
    #[schemars(extend("enum" = ["constant", "uniform", "exponential", "normal", "lognormal", "gamma", "weibull", "pareto", "mixture", "empirical"]))]
    pub dist: String,
    /// `constant`: the value.
    pub value: Option<Dur>,
    /// `exponential`, `normal`, `gamma`: the mean.
    pub mean: Option<Dur>,
    /// `lognormal` by quantiles: the median (with `p99`).
    pub median: Option<Dur>,
    /// `lognormal` by quantiles: the 99th percentile (with `median`).
    pub p99: Option<Dur>,
    /// `normal`: the standard deviation (truncated at zero).
    pub stddev: Option<Dur>,
    /// `uniform`: the lower end.
    pub min: Option<Dur>,
    /// `uniform`: the upper end.
    pub max: Option<Dur>,
    /// `gamma`, `weibull`, `pareto`: the scale (pareto: the minimum).
    pub scale: Option<Dur>,
    /// `lognormal` by parameters: mean of ln(X in ms).
    pub mu: Option<f64>,
    /// `lognormal` by parameters: standard deviation of ln(X in ms).
    pub sigma: Option<f64>,
    /// `gamma`, `weibull`, `pareto`: the shape.
    pub shape: Option<f64>,
    /// `empirical`: `[percent, duration]` rows, from 0 to 100.
    #[serde(
        default,
        // Not serialized: only keeps the JSON Schema from giving `null` as its default.
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::pair::pairs::<_, f64, Dur, super::pair::Percentile>"
    )]
    pub percentiles: Option<Vec<(f64, Dur)>>,
    /// `mixture`: the parts, each a distribution table with a `weight`.
    pub of: Option<Vec<RawDistTable>>,
    /// A mixture part's share, relative to the others (> 0).
    pub weight: Option<f64>,
}

impl<'de> Deserialize<'de> for RawDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawDist, D::Error> {
        struct DistVisitor;
        impl<'de> Visitor<'de> for DistVisitor {
            type Value = RawDist;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration string like \"5ms\" or a table like { dist = \"exponential\", mean = \"5ms\" }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawDist, E> {
                crate::time::parse_duration(v)
                    .map(|ns| RawDist::Constant(Dur(ns)))
                    .map_err(E::custom)
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<RawDist, M::Error> {
                let table = RawDistTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(RawDist::Table(Box::new(table)))
            }
        }
        d.deserialize_any(DistVisitor)
    }
}
