//! gRPC answers (the `grpc` feature): `GrpcClassifier` reads a `tonic::Status` as the outcome
//! kind cascade-policy's `Outcome::from_grpc_code` gives its code (the mapping `cascade import
//! grpc` and docs/policies.md use: UNAVAILABLE `unavailable`, RESOURCE_EXHAUSTED `overloaded`,
//! DEADLINE_EXCEEDED `deadline_exceeded`, INTERNAL, UNKNOWN and DATA_LOSS `internal`, every
//! other code `invalid`), so a table's `on = [...]` means the same for a gRPC dependency as for
//! an HTTP one; and its `grpc-retry-pushback-ms` as the wait the server asks for, which the
//! retry honours as it honours an HTTP `Retry-After` (`retry.retry_after`,
//! `retry.retry_after_wait`: `"replace"` is gRFC A6's pushback). A pushback that is not a
//! whole number of milliseconds (negative, or malformed) is gRFC A6's "do not retry": the call
//! ends with that answer whatever the table's `retry.on` says.

use crate::classify::{Classified, Classify};
use cascade_policy::Nanos;
use cascade_policy::outcome::Outcome;

/// The metadata key of gRFC A6's server pushback: milliseconds to wait before a retry.
pub const PUSHBACK: &str = "grpc-retry-pushback-ms";

/// For a service answering `tonic::Response<T>` or failing with `tonic::Status` (a generated
/// client's method, wrapped as a tower service).
#[derive(Debug, Clone, Copy, Default)]
pub struct GrpcClassifier;

impl<T> Classify<tonic::Response<T>, tonic::Status> for GrpcClassifier {
    fn classify(&self, result: Result<&tonic::Response<T>, &tonic::Status>) -> Classified {
        match result {
            Ok(_) => Classified::unanswered(Outcome::Ok),
            Err(status) => classify_status(status),
        }
    }
}

/// A status as the policies read it: its code's outcome kind, and its pushback: a wait, or
/// (any other value, gRFC A6) a refusal of every retry.
pub fn classify_status(status: &tonic::Status) -> Classified {
    let wait = (status.metadata().get(PUSHBACK)).map(|v| v.to_str().ok().and_then(pushback));
    Classified {
        outcome: Outcome::from_grpc_code(i32::from(status.code())),
        retry_after: wait.flatten(),
        server_refuses_retry: wait.is_some_and(|w| w.is_none()),
    }
}

/// A pushback value as the wait it asks for: a whole number of milliseconds; `None` for any
/// other value (negative, or malformed), which gRFC A6 reads as "do not retry".
pub fn pushback(value: &str) -> Option<Nanos> {
    let value = value.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Past u64's milliseconds, the longest wait there is: a server's number never overflows.
    let ms: u64 = value.parse().unwrap_or(u64::MAX);
    Some(Nanos(ms.saturating_mul(1_000_000)))
}
