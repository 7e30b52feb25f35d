//! The scenario file as written: serde types that mirror the TOML one to one. Nothing here is
//! validated beyond its type; `compile` turns these into a `Model`.

use crate::model::{AdmissionMeasure, BalancerKind, Criticality, Discipline};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;

/// A duration written as a string with a unit (`"250ms"`), held as nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dur(pub u64);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dur, D::Error> {
        struct DurVisitor;
        impl Visitor<'_> for DurVisitor {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration with its unit, as a string, like \"250ms\" or \"2s\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
                crate::time::parse_duration(v).map(Dur).map_err(E::custom)
            }
            // A bare number is the common slip: say so (the field's usual unit is added
            // where the field is known, `messages::duration_hint`).
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
                Err(E::custom(super::messages::unitless(&v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
                Err(E::custom(super::messages::unitless(&v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
                Err(E::custom(super::messages::unitless(&v.to_string())))
            }
        }
        d.deserialize_any(DurVisitor)
    }
}

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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub scenario: RawMeta,
    #[serde(default)]
    pub client: Vec<RawClient>,
    #[serde(default)]
    pub service: Vec<RawService>,
    #[serde(default)]
    pub policy: BTreeMap<String, RawPolicy>,
    #[serde(default)]
    pub fault: Vec<RawFault>,
    #[serde(default)]
    pub window: Vec<RawWindow>,
    #[serde(default)]
    pub expect: Vec<RawExpect>,
    #[serde(default)]
    pub variant: Vec<RawVariant>,
    /// `[sweep]`: `reps`, and paths with their values (a list, or a range `"A..B:STEP"`).
    pub sweep: Option<BTreeMap<String, SetValue>>,
}

/// `[[variant]]`: the scenario again with some fields set otherwise (`set = { "path" = value }`),
/// run with the same seed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    pub name: String,
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
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExpect {
    pub metric: String,
    pub op: String,
    pub value: f64,
    pub window: Option<RawExpectWindow>,
    /// Replications to judge (default 1).
    pub reps: Option<u32>,
    /// `mean` (default), `min`, `max`, `median` or `pNN`, over the replications.
    pub stat: Option<String>,
    /// With the mean: the whole 95% confidence interval must pass.
    pub ci: Option<bool>,
    /// The run judged: `base` (default) or a `[[variant]]`'s name.
    pub variant: Option<String>,
    /// The run `variant` is compared with (`base` or a variant's name), by `compare`.
    pub against: Option<String>,
    /// With `against`: `ratio` (variant / against) or `difference` (variant - against), per
    /// pair of replications on the same seed.
    pub compare: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExpectWindow {
    pub start: Option<Dur>,
    pub end: Option<Dur>,
    pub fault: Option<usize>,
    pub phase: Option<String>,
}

/// `[[window]]`: a span of the run whose metrics the summary reports apart, given by `start`
/// and `end`, or as a phase (`before`, `during`, `after`) of a fault.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWindow {
    pub name: String,
    pub start: Option<Dur>,
    pub end: Option<Dur>,
    pub fault: Option<usize>,
    pub phase: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeta {
    pub name: String,
    pub duration: Dur,
    pub warmup: Option<Dur>,
    #[serde(default, deserialize_with = "seed")]
    pub seed: Option<u64>,
    pub bucket: Option<Dur>,
    pub description: Option<String>,
    pub recovery_hold: Option<Dur>,
    pub recovery_tolerance: Option<f64>,
    pub max_in_flight: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalKind {
    Poisson,
    Constant,
    Closed,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawClient {
    pub name: String,
    pub target: String,
    pub arrival: Option<ArrivalKind>,
    pub rate: Option<f64>,
    pub phases: Option<Vec<RawPhase>>,
    pub users: Option<u32>,
    pub think: Option<RawDist>,
    /// Closed loop: each user's requests start this far apart (or back to back when slower).
    pub pace: Option<Dur>,
    pub deadline: Option<Dur>,
    pub criticality: Option<Criticality>,
    pub policy: Option<String>,
    /// The operation of `target` it calls, when the target has operations.
    pub operation: Option<String>,
    /// A weighted mix of the target's operations instead of one.
    pub mix: Option<Vec<RawMixEntry>>,
}

/// One operation of a client's `mix`: its share (`weight`, relative to the others) and,
/// where given, its own deadline and criticality (else the client's).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMixEntry {
    pub operation: String,
    pub weight: f64,
    pub deadline: Option<Dur>,
    pub criticality: Option<Criticality>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPhase {
    pub at: Dur,
    pub rate: f64,
    pub ramp: Option<Dur>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawService {
    pub name: String,
    pub instances: Option<u32>,
    pub workers: Option<u32>,
    pub queue: Option<u64>,
    pub discipline: Option<Discipline>,
    pub drop_expired: Option<bool>,
    pub balancer: Option<BalancerKind>,
    pub work: Option<RawDist>,
    pub calls: Option<Vec<RawStep>>,
    /// Work after the last step's calls, holding the worker.
    pub after_work: Option<RawDist>,
    pub after_work_on_failure: Option<bool>,
    pub admission: Option<RawAdmission>,
    pub codel: Option<super::schema_policy::RawCodel>,
    pub adaptive_lifo: Option<u64>,
    pub outlier: Option<super::schema_policy::RawOutlier>,
    /// `[service.contention]`: work that grows with the instance's concurrency.
    pub contention: Option<RawContention>,
    /// Worker time each refusal occupies.
    pub reject_work: Option<Dur>,
    /// `[[service.operation]]`: named operations sharing the service's workers and queue.
    pub operation: Option<Vec<RawOperation>>,
}

/// `[service.contention]`: a law (`k`, `knee`) or a `table` of (busy, factor) points.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContention {
    pub k: Option<f64>,
    pub knee: Option<f64>,
    pub table: Option<Vec<(f64, f64)>>,
    pub counts: Option<crate::model::overload::ContentionCounts>,
}

/// One operation of a service: its own work and calls, as a service without operations has.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOperation {
    pub name: String,
    pub label: Option<String>,
    pub work: Option<RawDist>,
    pub calls: Option<Vec<RawStep>>,
    pub criticality: Option<Criticality>,
    /// A partition: at most this many of each instance's workers.
    pub workers: Option<u32>,
    /// With `workers`: what a request finding the partition full does.
    pub overflow: Option<Overflow>,
    pub after_work: Option<RawDist>,
    pub after_work_on_failure: Option<bool>,
}

/// What a request does when its operation's partition is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// Waits in the service's queue for a worker of its partition.
    #[default]
    Queue,
    /// Answered at once as overloaded.
    Refuse,
}

/// Shedding by criticality at a service: a request is turned away on arrival when its
/// instance's load (`by`) has reached the threshold of the request's class.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAdmission {
    pub by: Option<AdmissionMeasure>,
    pub critical_plus: Option<u64>,
    pub critical: Option<u64>,
    pub sheddable_plus: Option<u64>,
    pub sheddable: Option<u64>,
    pub retry_after: Option<Dur>,
}

/// One step of a service's calls: a single call (`to = ...`) or `parallel = [ calls ]`; with
/// `p`, made only with that probability (the whole step), its draws keyed by `name`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub to: Option<String>,
    pub parallel: Option<Vec<RawCall>>,
    pub name: Option<String>,
    pub p: Option<f64>,
    /// A weighted choice among sequences of steps, instead of `to` or `parallel`.
    pub choose: Option<Vec<RawOption>>,
    /// With `to`: the callee's operation.
    pub operation: Option<String>,
    pub policy: Option<String>,
    pub optional: Option<bool>,
    pub latency: Option<RawDist>,
    pub fail_as: Option<String>,
    pub idempotent: Option<bool>,
    pub idempotency_key: Option<bool>,
    /// With `to`: the call made this many times at once (a fan-out), each its own call.
    pub count: Option<u32>,
    /// With `to`: `false` makes it fire-and-forget (an event-bus publish).
    pub wait: Option<bool>,
}

/// One option of a `choose` step: its share (relative to the other options) and the steps it
/// makes in turn (none: the option does nothing).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOption {
    pub weight: f64,
    pub calls: Option<Vec<RawStep>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCall {
    pub to: String,
    /// Known only to be refused with a pointer to `p` beside `parallel`: a probability per
    /// call of a parallel step is not simulated.
    pub p: Option<f64>,
    pub operation: Option<String>,
    pub policy: Option<String>,
    pub optional: Option<bool>,
    pub latency: Option<RawDist>,
    pub fail_as: Option<String>,
    pub idempotent: Option<bool>,
    pub idempotency_key: Option<bool>,
    /// The call made this many times at once, each its own call (its own policy state).
    pub count: Option<u32>,
    /// `false`: the caller does not wait for it (fire-and-forget).
    pub wait: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    pub timeout: Option<Dur>,
    pub reserve: Option<Dur>,
    pub min_attempt: Option<Dur>,
    pub cancel: Option<bool>,
    /// `false`: the call takes no deadline from its caller's request (gRPC without a
    /// propagated Context).
    pub propagate_deadline: Option<bool>,
    pub retry: Option<super::schema_policy::RawRetry>,
    pub breaker: Option<super::schema_policy::RawBreaker>,
    pub bulkhead: Option<super::schema_policy::RawBulkhead>,
    pub throttle: Option<super::schema_policy::RawThrottle>,
    pub limit: Option<super::schema_policy::RawLimit>,
    pub fallback: Option<super::schema_policy::RawFallback>,
    pub hedge: Option<super::schema_policy::RawHedge>,
}

/// A latency distribution: a bare duration string (constant) or a table with `dist`.
#[derive(Debug, Clone, PartialEq)]
pub enum RawDist {
    Constant(Dur),
    Table(Box<RawDistTable>),
}

/// Every parameter any distribution takes; `compile` checks which apply to `dist`.
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RawDistTable {
    pub dist: String,
    pub value: Option<Dur>,
    pub mean: Option<Dur>,
    pub median: Option<Dur>,
    pub p99: Option<Dur>,
    pub stddev: Option<Dur>,
    pub min: Option<Dur>,
    pub max: Option<Dur>,
    pub scale: Option<Dur>,
    pub mu: Option<f64>,
    pub sigma: Option<f64>,
    pub shape: Option<f64>,
    pub percentiles: Option<Vec<(f64, Dur)>>,
    pub of: Option<Vec<RawDistTable>>,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFault {
    pub kind: FaultKind,
    pub target: String,
    pub start: Option<Dur>,
    pub end: Option<Dur>,
    pub rate: Option<f64>,
    pub error: Option<String>,
    pub retry_after: Option<Dur>,
    pub latency: Option<Dur>,
    pub factor: Option<f64>,
    pub add: Option<Dur>,
    pub dist: Option<RawDist>,
    pub mode: Option<OutageMode>,
    pub ramp: Option<Dur>,
    pub restart: Option<Dur>,
    pub cold_start: Option<Dur>,
    pub cold_factor: Option<f64>,
    pub workers: Option<u32>,
    pub share: Option<f64>,
    pub users: Option<u32>,
    /// On a service (or instance) with operations: only this operation's requests.
    pub operation: Option<String>,
    /// A `branch` fault: the named step whose probability it changes, the probability, and
    /// how long it takes to come back after `end`.
    pub step: Option<String>,
    pub p: Option<f64>,
    pub warm: Option<Dur>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OutageMode {
    #[default]
    Refuse,
    Blackhole,
}
