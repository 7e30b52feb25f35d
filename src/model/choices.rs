//! The closed sets a scenario chooses from and the engine matches on: queue discipline,
//! balancer, what admission control measures, request criticality, a breaker's scope and
//! wrapping, and the curve a `branch` fault warms back along. They live in the model, the contract between parser and engine, so the engine
//! never sees the parser's raw types; the schema deserializes straight into them, their
//! snake_case names being the scenario's words.

use serde::Deserialize;

/// The order a service's queue serves requests in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    #[default]
    Fifo,
    Lifo,
}

/// How a caller picks one of a service's instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BalancerKind {
    Random,
    #[default]
    RoundRobin,
    LeastOutstanding,
    PowerOfTwo,
}

/// What a service's admission control compares with its per-criticality thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AdmissionMeasure {
    /// Requests waiting in the instance's queue.
    #[default]
    Queue,
    /// Requests queued or being served at the instance.
    InFlight,
}

/// Whose bucket a service's admission rate limit (`Service::rate_limit`) takes a token from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RateLimitScope {
    /// One bucket per instance, as Envoy's local rate limit filter in each sidecar keeps it:
    /// N instances admit N times the limit.
    #[default]
    Instance,
    /// One bucket shared by all the service's instances, as a global rate-limit service gives.
    Fleet,
}

/// Which library's limiter a service's admission rate limit is (`RateLimiterConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RateLimiterKind {
    /// Envoy's local rate limit filter (refuses when empty), or with `wait` x/time/rate's
    /// `Wait`.
    #[default]
    TokenBucket,
    /// nginx's `limit_req`: a leaky bucket with a burst, delaying what passes the rate.
    LimitReq,
    /// Guava's `RateLimiter.create(r)`: `acquire()` or `tryAcquire(timeout)`.
    SmoothBursty,
    /// resilience4j's `AtomicRateLimiter`: cycles with reservations, refusals parked first.
    Resilience4j,
    /// tower's `RateLimit`: windows, back-pressure (nothing refused).
    Tower,
}

/// Whose requests share a bucket of a service's admission rate limit, within its `scope`: one
/// for all, one per tenant (the client a request came from, however deep the service), or one
/// per operation of a client's `mix` (a client without a mix is one key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RateLimitKey {
    /// Every arrival takes from the same bucket (Envoy's filter without descriptors).
    #[default]
    None,
    /// A bucket per client: a noisy tenant empties its own bucket, not the others'.
    Client,
    /// A bucket per client and operation of its mix.
    ClientOperation,
}

/// The curve along which a `branch` fault's weight falls back from 1 to 0 after its `end`
/// (compiled with `warm` into `fault::Warm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WarmCurve {
    /// Linearly over `warm`.
    #[default]
    Linear,
    /// exp(−(t − end) / `warm`): `warm` is the time constant.
    Exponential,
}

/// A request's criticality, most important first (the order admission control sheds in
/// reverse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Criticality {
    CriticalPlus,
    #[default]
    Critical,
    SheddablePlus,
    Sheddable,
}

impl Criticality {
    /// The class as a scenario writes it.
    pub fn name(self) -> &'static str {
        match self {
            Criticality::CriticalPlus => "critical_plus",
            Criticality::Critical => "critical",
            Criticality::SheddablePlus => "sheddable_plus",
            Criticality::Sheddable => "sheddable",
        }
    }
}

/// What a breaker or a bulkhead wraps (kept with the bulkhead, whose config names it).
pub use cascade_policy::bulkhead::Wraps;

/// Whom a circuit breaker's state belongs to (kept with the breaker, whose table names it).
pub use cascade_policy::breaker::BreakerScope;

#[cfg(test)]
mod criticality_names {
    use super::Criticality;
    use serde::Deserialize;
    use serde::de::IntoDeserializer;
    use serde::de::value::{Error, StrDeserializer};

    #[test]
    fn each_class_reads_back_from_its_name() {
        for c in [
            Criticality::CriticalPlus,
            Criticality::Critical,
            Criticality::SheddablePlus,
            Criticality::Sheddable,
        ] {
            let de: StrDeserializer<Error> = c.name().into_deserializer();
            assert_eq!(Criticality::deserialize(de), Ok(c));
        }
    }
}
