//! The platform around a service's instances (docs/scenario.md, "Orchestration"): Kubernetes
//! health probes, restarts with CrashLoopBackOff, readiness at the balancer and the
//! Horizontal Pod Autoscaler. `None` on a service (the plain path) when it has none of them.

use super::Latency;
use serde::Deserialize;

/// The three probes of a Kubernetes container, in the order the engine keeps their state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    Liveness = 0,
    Readiness = 1,
    Startup = 2,
}

impl ProbeKind {
    pub const ALL: [ProbeKind; 3] = [
        ProbeKind::Liveness,
        ProbeKind::Readiness,
        ProbeKind::Startup,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ProbeKind::Liveness => "liveness",
            ProbeKind::Readiness => "readiness",
            ProbeKind::Startup => "startup",
        }
    }
}

/// One probe (Kubernetes `livenessProbe`, `readinessProbe`, `startupProbe`).
#[derive(Debug, Clone)]
pub struct Probe {
    pub kind: ProbeKind,
    /// The operation a probe in the queue runs (from 1, `Service::plan_of`); 0 for a probe
    /// served out of band.
    pub operation: u16,
    /// Out of band: answered by the process after `work`, with no worker and no queue.
    pub out_of_band: bool,
    pub work: Latency,
    /// `periodSeconds`, `timeoutSeconds`, `initialDelaySeconds` (ns).
    pub period: u64,
    pub timeout: u64,
    pub initial_delay: u64,
    /// `failureThreshold`, `successThreshold`.
    pub failure_threshold: u32,
    pub success_threshold: u32,
}

/// How an instance restarts after its liveness (or startup) probe gave up on it.
#[derive(Debug, Clone)]
pub struct Restart {
    /// From the kill to the process listening again (ns).
    pub time: u64,
    /// Work lost in the kill is never answered (`blackhole`), else answered `unavailable`.
    pub blackhole: bool,
    /// CrashLoopBackOff: the second restart in a row waits `backoff`, each next one twice
    /// the last, at most `backoff_max`; an instance that ran 2 × `backoff_max` is forgiven.
    pub backoff: u64,
    pub backoff_max: u64,
}

/// What the balancer does when no instance is ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NoneReady {
    #[default]
    /// Send to every instance anyway (Envoy's panic routing).
    FailOpen,
    /// Answer `unavailable` at once (no healthy upstream).
    Refuse,
}

/// The per-instance load the autoscaler targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ScaleMetric {
    #[default]
    /// Busy workers over workers.
    Utilization,
    /// Requests in service or queued, per instance.
    InFlight,
    /// Requests queued, per instance.
    Queue,
}

/// How a scale-down removes an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ScaleDown {
    #[default]
    /// Out of the balancer at once; it finishes its work for up to `drain` and is then killed.
    Drain,
    /// Killed at once, as a crash.
    Kill,
}

/// One HPA scaling policy: at most `value` instances (or percent of them) per `period`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalePolicy {
    pub percent: bool,
    pub value: u32,
    pub period: u64,
}

/// `behavior.scaleUp` or `behavior.scaleDown` of an HPA.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleBehavior {
    pub stabilization: u64,
    pub policies: Vec<ScalePolicy>,
    /// `selectPolicy`: Max (the policy allowing the largest change), Min, or Disabled.
    pub select: SelectPolicy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SelectPolicy {
    #[default]
    Max,
    Min,
    Disabled,
}

/// A Kubernetes Horizontal Pod Autoscaler.
#[derive(Debug, Clone)]
pub struct Autoscale {
    pub metric: ScaleMetric,
    pub target: f64,
    pub min: u32,
    pub max: u32,
    /// The controller's sync period (ns) and the span the metric is averaged over.
    pub period: u64,
    pub window: u64,
    pub tolerance: f64,
    /// From the decision to a new instance's process listening (ns).
    pub startup: u64,
    pub scale_down: ScaleDown,
    /// With `Drain`: how long a removed instance may finish its work (ns).
    pub drain: u64,
    pub up: ScaleBehavior,
    pub down: ScaleBehavior,
}

/// Everything of a service's orchestration.
#[derive(Debug, Clone)]
pub struct Orchestration {
    /// At most one of each kind, in `ProbeKind` order.
    pub probes: [Option<Probe>; 3],
    pub restart: Restart,
    /// A (re)started or added instance works `cold_factor` times slower for `cold_start`.
    pub cold_start: u64,
    pub cold_factor: f64,
    pub none_ready: NoneReady,
    pub autoscale: Option<Autoscale>,
}

impl Orchestration {
    pub fn probe(&self, kind: ProbeKind) -> Option<&Probe> {
        self.probes[kind as usize].as_ref()
    }

    /// Instance slots the engine keeps: the autoscaler's maximum, twice (a drained instance
    /// keeps its slot while a new one starts), else the fixed count.
    pub fn instance_slots(&self, instances: u32) -> u32 {
        // Saturating: a max past the limits module's bound is refused by it, not wrapped.
        self.autoscale
            .as_ref()
            .map_or(instances, |a| a.max.saturating_mul(2))
    }
}
