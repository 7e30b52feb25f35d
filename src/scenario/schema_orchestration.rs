//! A service's orchestration as written (docs/scenario.md, "Orchestration"): `probe.*`,
//! `restart`, `when_none_ready` and `[service.autoscale]`, each with the Kubernetes or Envoy
//! field it mirrors.

use super::schema::{Dur, RawDist};
use super::schema_json::EnumOf;
use crate::model::orchestration::{ScaleDown, ScaleMetric, SelectPolicy};
use schemars::JsonSchema;
use serde::Deserialize;

/// `probe = { liveness = ..., readiness = ..., startup = ... }`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawProbes {
    /// `livenessProbe`: failing it restarts the instance.
    pub liveness: Option<RawProbe>,
    /// `readinessProbe`: failing it takes the instance out of the balancer.
    pub readiness: Option<RawProbe>,
    /// `startupProbe`: liveness and readiness wait for its first success; failing it restarts.
    pub startup: Option<RawProbe>,
}

/// Where a probe is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProbeServe {
    /// A request to `operation`: it waits in the queue and takes a worker.
    #[default]
    Queue,
    /// By the process itself (a listener of its own): no queue, no worker; after `work`.
    OutOfBand,
}

/// One Kubernetes probe.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawProbe {
    /// The service's operation the probe requests (with `serve = "queue"`).
    pub operation: Option<String>,
    /// Served in the request queue or out of band.
    #[schemars(extend("default" = "queue"))]
    pub serve: Option<ProbeServe>,
    /// With `serve = "out_of_band"`: the time the process takes to answer.
    #[schemars(extend("default" = "0"))]
    pub work: Option<RawDist>,
    /// `periodSeconds`: one probe every period (at least 1ms).
    #[schemars(extend("default" = "10s"))]
    pub period: Option<Dur>,
    /// `timeoutSeconds`: an answer later than this is a failure (the probe is abandoned).
    #[schemars(extend("default" = "1s"))]
    pub timeout: Option<Dur>,
    /// `failureThreshold`: failures in a row that fail the probe.
    #[schemars(extend("default" = 3))]
    pub failure_threshold: Option<u32>,
    /// `successThreshold`: successes in a row that pass it again (1 for liveness and startup).
    #[schemars(extend("default" = 1))]
    pub success_threshold: Option<u32>,
    /// `initialDelaySeconds`: from the process start to its first probe.
    #[schemars(extend("default" = "0s"))]
    pub initial_delay: Option<Dur>,
}

/// How an instance whose liveness or startup probe failed comes back.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRestart {
    /// From the kill to the process listening again.
    #[schemars(extend("default" = "0s"))]
    pub time: Option<Dur>,
    /// What the work lost in the kill gets: `refuse` (answered unavailable) or `blackhole`.
    #[schemars(extend("default" = "refuse"))]
    pub mode: Option<RestartMode>,
    /// CrashLoopBackOff's first delay (the second restart in a row waits this long).
    #[schemars(extend("default" = "10s"))]
    pub backoff: Option<Dur>,
    /// CrashLoopBackOff's longest delay.
    #[schemars(extend("default" = "300s"))]
    pub backoff_max: Option<Dur>,
}

/// What the work lost in a restart gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestartMode {
    /// Answered `unavailable` (the connection reset).
    #[default]
    Refuse,
    /// Never answered: callers wait for their timeouts.
    Blackhole,
}

/// What an HPA policy's `value` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// Instances (HPA's `Pods`).
    Instances,
    /// A percentage of the instances at the period's start (HPA's `Percent`).
    Percent,
}

/// `[service.autoscale]`: a Kubernetes Horizontal Pod Autoscaler.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAutoscale {
    /// The per-instance load it targets.
    #[schemars(with = "Option<EnumOf<ScaleMetric>>", extend("default" = "utilization"))]
    pub metric: Option<ScaleMetric>,
    /// The metric's target value per instance (> 0; utilization at most 1).
    pub target: f64,
    /// `minReplicas`.
    #[schemars(extend("default" = 1))]
    pub min: Option<u32>,
    /// `maxReplicas`.
    pub max: u32,
    /// The controller's sync period (`--horizontal-pod-autoscaler-sync-period`; at least 1ms).
    #[schemars(extend("default" = "15s"))]
    pub period: Option<Dur>,
    /// The span the metric is averaged over (default: the period).
    pub window: Option<Dur>,
    /// No change while |metric / target - 1| is at most this.
    #[schemars(extend("default" = 0.1))]
    pub tolerance: Option<f64>,
    /// From the decision to a new instance's process listening.
    #[schemars(extend("default" = "0s"))]
    pub startup: Option<Dur>,
    /// How a removed instance goes: drained, or killed at once.
    #[schemars(with = "Option<EnumOf<ScaleDown>>", extend("default" = "drain"))]
    pub scale_down: Option<ScaleDown>,
    /// With `drain`: how long it may finish its work (`terminationGracePeriodSeconds`).
    #[schemars(extend("default" = "30s"))]
    pub drain: Option<Dur>,
    /// `behavior.scaleUp`.
    pub up: Option<RawBehavior>,
    /// `behavior.scaleDown`.
    pub down: Option<RawBehavior>,
}

/// `behavior.scaleUp` / `behavior.scaleDown`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBehavior {
    /// `stabilizationWindowSeconds` (up: 0s, down: 300s).
    pub stabilization: Option<Dur>,
    /// `policies` (up: 100 percent or 4 instances per 15s; down: 100 percent per 15s).
    pub policies: Option<Vec<RawScalePolicy>>,
    /// `selectPolicy`.
    #[schemars(with = "Option<EnumOf<SelectPolicy>>", extend("default" = "max"))]
    pub select: Option<SelectPolicy>,
}

/// One HPA policy: at most `value` instances (or percent) per `period`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawScalePolicy {
    /// `instances` (HPA's `Pods`) or `percent`.
    #[serde(rename = "type")]
    pub kind: PolicyKind,
    /// Instances, or percent of the count at the period's start (>= 1).
    pub value: u32,
    /// The span over which the changes are counted (> 0).
    pub period: Dur,
}
