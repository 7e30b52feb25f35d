//! The tower `Service`: always ready (admission refuses at once, or waits at most the
//! bulkhead's `max_wait`: never tower's unbounded `poll_ready` back-pressure), each call run
//! by `call.rs` on a clone of the inner service.

use crate::call;
use crate::carrier::CarriesDeadline;
use crate::classify::Classify;
use crate::error::CascadeError;
use crate::events::Events;
use crate::fallback::Fallback;
use crate::stack::Stack;
use cascade_policy::Nanos;
use rand::Rng;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::Service;

/// The inner service `S` behind the whole stack. Clones share one state: one instance of
/// the policies, as one process keeps for one dependency.
pub struct CascadeService<S, C, H, F, R> {
    inner: S,
    stack: Arc<Stack<C, H, F, R>>,
}

impl<S: Clone, C, H, F, R> Clone for CascadeService<S, C, H, F, R> {
    fn clone(&self) -> Self {
        CascadeService {
            inner: self.inner.clone(),
            stack: Arc::clone(&self.stack),
        }
    }
}

impl<S, C, H, F, R> CascadeService<S, C, H, F, R> {
    pub(crate) fn new(inner: S, stack: Arc<Stack<C, H, F, R>>) -> Self {
        CascadeService { inner, stack }
    }
}

impl<S, C, H: Events, F, R: Rng> CascadeService<S, C, H, F, R> {
    /// The service's clock now: `Nanos` since the service was made, the time its events
    /// carry.
    pub fn now(&self) -> Nanos {
        self.stack.clock.now()
    }

    /// The adaptive limit's current value (none without a limit).
    pub fn limit(&self) -> Option<u32> {
        self.stack.lock().policies.limit.as_ref().map(|l| l.limit())
    }

    /// The breaker's state (none without a breaker).
    pub fn breaker_state(&self) -> Option<cascade_policy::breaker::State> {
        self.stack
            .lock()
            .policies
            .breakers
            .first()
            .map(|b| b.state())
    }

    /// Bulkhead permits in use (none without a bulkhead).
    pub fn bulkhead_in_use(&self) -> Option<u32> {
        self.stack.lock().bulkhead.as_ref().map(|b| b.in_use())
    }
}

impl<S, Req, C, H, F, R> Service<Req> for CascadeService<S, C, H, F, R>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Future: Send,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
    Req: Clone + CarriesDeadline + Send + 'static,
    C: Classify<S::Response, S::Error> + Send + Sync + 'static,
    H: Events,
    F: Fallback<S::Response>,
    R: Rng + Send + 'static,
{
    type Response = S::Response;
    type Error = CascadeError<S::Error>;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Req) -> Self::Future {
        let (stack, inner) = (Arc::clone(&self.stack), self.inner.clone());
        Box::pin(async move { call::run(&stack, inner, req).await })
    }
}
