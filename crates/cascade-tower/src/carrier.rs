//! How a request carries its caller's deadline in and its callee's out: a `grpc-timeout`
//! header (what crosses a process boundary) and a `Deadline` extension (an exact instant,
//! within one process).

use crate::grpc_timeout::{GRPC_TIMEOUT, decode, encode};
use http::HeaderValue;
use tokio::time::Instant;

/// The instant by which whoever sent a request wants its answer, as a request extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline(pub Instant);

/// A request that carries a deadline: the caller's when it comes in, the callee's when an
/// attempt goes out. A request type that carries none can return `None` and ignore the
/// callee's.
pub trait CarriesDeadline {
    /// The deadline this request carries, read at `now` (a relative timeout counts from it).
    fn deadline(&self, now: Instant) -> Option<Instant>;
    /// Makes the request carry `deadline` (none: no deadline), written at `now`.
    fn set_deadline(&mut self, deadline: Option<Instant>, now: Instant);
}

/// An HTTP request's deadline: the earlier of its `Deadline` extension and its
/// `grpc-timeout` header (a malformed header is ignored). Going out, both are written: the
/// header rounded up to its unit, the extension exact.
impl<B> CarriesDeadline for http::Request<B> {
    fn deadline(&self, now: Instant) -> Option<Instant> {
        let header = (self.headers().get(GRPC_TIMEOUT))
            .and_then(|v| v.to_str().ok())
            .and_then(decode)
            .and_then(|left| now.checked_add(left));
        let extension = self.extensions().get::<Deadline>().map(|d| d.0);
        match (header, extension) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn set_deadline(&mut self, deadline: Option<Instant>, now: Instant) {
        match deadline {
            Some(at) => {
                let value = encode(at.saturating_duration_since(now));
                // Digits and a unit: always a valid header value.
                if let Ok(value) = HeaderValue::from_str(&value) {
                    self.headers_mut().insert(GRPC_TIMEOUT, value);
                }
                self.extensions_mut().insert(Deadline(at));
            }
            None => {
                self.headers_mut().remove(GRPC_TIMEOUT);
                self.extensions_mut().remove::<Deadline>();
            }
        }
    }
}
