//! The builder: `CascadeLayer` from a `[policy.NAME]` table (the scenario language's keys and
//! presets, checked by cascade-policy's `PolicyConfig::new`), with the service's classifier,
//! events, fallback answer and random streams; each `layer` call makes one service instance
//! with a fresh `PathPolicies`, as the engine gives each caller instance its own.

use crate::classify::HttpClassifier;
use crate::clock::Clock;
use crate::fallback::{FallbackFn, NoFallback};
use crate::service::CascadeService;
use crate::stack::{Shared, Stack};
use cascade_policy::breaker::BreakerScope;
use cascade_policy::bulkhead::Bulkhead;
use cascade_policy::outcome::Outcome;
use cascade_policy::path::{PathPolicies, PathStreams};
use cascade_policy::table::{PolicyConfig, RawPolicy, TableError};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tower::Layer;

/// The whole stack of one `[policy.NAME]` table as a tower layer.
#[derive(Debug, Clone)]
pub struct CascadeLayer<C = HttpClassifier, H = (), F = NoFallback, R = Pcg64Mcg> {
    policy: PolicyConfig,
    retry_allowed: bool,
    streams: PathStreams<R>,
    classifier: C,
    events: H,
    fallback: F,
}

/// The four streams of a path from one seed, each its own: the stream's name picks its
/// seed, so adding a stream never shifts another's draws.
pub fn seeded_streams(seed: u64) -> PathStreams<Pcg64Mcg> {
    let stream = |name: &str| {
        // FNV-1a of the name, mixed with the seed.
        let h = (name.bytes()).fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Pcg64Mcg::seed_from_u64(seed ^ h)
    };
    PathStreams {
        throttle: stream("throttle"),
        limit: stream("limit"),
        jitter: stream("jitter"),
        accrual: stream("accrual"),
    }
}

impl CascadeLayer {
    /// The stack a table describes, checked as the simulator checks it; a `TableError` names
    /// the field relative to the table (`retry.max`) and why. HTTP answers, no events, streams
    /// seeded with 0, calls idempotent. A table with a `fallback` is refused here: its answer
    /// is the service's to give (`from_table_with_fallback`).
    pub fn from_table(table: &RawPolicy) -> Result<CascadeLayer, TableError> {
        CascadeLayer::new(PolicyConfig::new(table)?)
    }

    /// The stack of a config already checked, as `from_table`.
    pub fn new(policy: PolicyConfig) -> Result<CascadeLayer, TableError> {
        if policy.fallback().is_some() {
            return Err(TableError::at("fallback", FALLBACK_WITHOUT_ANSWER));
        }
        CascadeLayer::checked(policy, NoFallback)
    }
}

/// Why `from_table` refuses a table with a `fallback`: the table says which failures fall back
/// and after how long, but only the service can say with what.
const FALLBACK_WITHOUT_ANSWER: &str = "the table falls back, but a layer has no answer of its own to fall back to: build it with `from_table_with_fallback` (or `new_with_fallback`) and the answer, or leave `fallback` out";

impl<G> CascadeLayer<HttpClassifier, (), FallbackFn<G>, Pcg64Mcg> {
    /// The stack a table describes, as `from_table`, answering the failures its `fallback`
    /// takes (`on`, after its `latency`) with `answer(failure)`. A table without `fallback`
    /// is taken too (the answer is then never asked for), so one service can read any table.
    pub fn from_table_with_fallback<Resp>(table: &RawPolicy, answer: G) -> Result<Self, TableError>
    where
        G: Fn(Outcome) -> Resp + Send + Sync + 'static,
    {
        CascadeLayer::new_with_fallback(PolicyConfig::new(table)?, answer)
    }

    /// The stack of a config already checked, as `from_table_with_fallback`.
    pub fn new_with_fallback<Resp>(policy: PolicyConfig, answer: G) -> Result<Self, TableError>
    where
        G: Fn(Outcome) -> Resp + Send + Sync + 'static,
    {
        CascadeLayer::checked(policy, FallbackFn(answer))
    }
}

impl<F> CascadeLayer<HttpClassifier, (), F, Pcg64Mcg> {
    /// Refuses what a layer over one downstream cannot do as the simulator does: a breaker per
    /// callee host (`breaker.scope = "instance"`), failure accrual and a retry's choice of
    /// another host (`retry.other_host`) are the balancer's, below tower.
    fn checked(policy: PolicyConfig, fallback: F) -> Result<Self, TableError> {
        if policy
            .breaker()
            .is_some_and(|b| b.scope() == BreakerScope::Instance)
        {
            return Err(TableError::at(
                "breaker.scope",
                "a breaker per callee host needs the balancer that picks the host, below tower; a layer over one downstream keeps one breaker (leave `scope` out)",
            ));
        }
        if policy.failure_accrual().is_some() {
            return Err(TableError::at(
                "failure_accrual",
                "failure accrual marks callee hosts dead, which is the balancer's to do, below tower; leave it to the balancer (Finagle's, or your client's)",
            ));
        }
        if policy.retry().is_some_and(|r| r.other_host().is_some()) {
            return Err(TableError::at(
                "retry.other_host",
                "which host a retry goes to is the balancer's choice, below tower; leave it to the balancer (Envoy's previous_hosts retry host predicate, or your client's)",
            ));
        }
        Ok(CascadeLayer {
            policy,
            retry_allowed: true,
            streams: seeded_streams(0),
            classifier: HttpClassifier,
            events: (),
            fallback,
        })
    }

    /// Seeds the four random streams from `seed` (`seeded_streams`).
    pub fn seed(self, seed: u64) -> Self {
        CascadeLayer {
            streams: seeded_streams(seed),
            ..self
        }
    }
}

impl<C, H, F, R> CascadeLayer<C, H, F, R> {
    /// The config the stack runs.
    pub fn policy(&self) -> &PolicyConfig {
        &self.policy
    }

    /// Whether a call may be sent again (retries, hedges): an idempotent call, or one with an
    /// idempotency key. True by default; false turns retries and hedges off as the
    /// simulator's `idempotent = false` does.
    pub fn idempotent(self, retry_allowed: bool) -> Self {
        CascadeLayer {
            retry_allowed,
            ..self
        }
    }

    /// Your own random streams (each cloned into every service the layer makes): a replay
    /// seeded alike draws alike.
    pub fn streams<R2>(self, streams: PathStreams<R2>) -> CascadeLayer<C, H, F, R2> {
        let CascadeLayer {
            policy,
            retry_allowed,
            classifier,
            events,
            fallback,
            ..
        } = self;
        CascadeLayer {
            policy,
            retry_allowed,
            streams,
            classifier,
            events,
            fallback,
        }
    }

    /// How answers read as outcomes (`Classify`).
    pub fn classifier<C2>(self, classifier: C2) -> CascadeLayer<C2, H, F, R> {
        let CascadeLayer {
            policy,
            retry_allowed,
            streams,
            events,
            fallback,
            ..
        } = self;
        CascadeLayer {
            policy,
            retry_allowed,
            streams,
            classifier,
            events,
            fallback,
        }
    }

    /// Who hears the stack's events (`Events`; an `Arc` shares one receiver).
    pub fn events<H2>(self, events: H2) -> CascadeLayer<C, H2, F, R> {
        let CascadeLayer {
            policy,
            retry_allowed,
            streams,
            classifier,
            fallback,
            ..
        } = self;
        CascadeLayer {
            policy,
            retry_allowed,
            streams,
            classifier,
            events,
            fallback,
        }
    }
}

impl<S, C: Clone, H: Clone, F: Clone, R: Clone> Layer<S> for CascadeLayer<C, H, F, R> {
    type Service = CascadeService<S, C, H, F, R>;

    /// One service instance: its own policies' state, bulkhead and clock origin, shared by
    /// its clones.
    fn layer(&self, inner: S) -> Self::Service {
        let policies = PathPolicies::new(&self.policy, 1, self.streams.clone());
        let bulkhead = (self.policy.bulkhead()).map(|b| Bulkhead::new(b.clone()));
        let stack = Stack {
            policy: self.policy.clone(),
            retry_allowed: self.retry_allowed,
            clock: Clock::starting_now(),
            classifier: self.classifier.clone(),
            events: self.events.clone(),
            fallback: self.fallback.clone(),
            shared: Mutex::new(Shared {
                policies,
                bulkhead,
                waiters: HashMap::new(),
                next_waiter: 0,
            }),
        };
        CascadeService::new(inner, Arc::new(stack))
    }
}
