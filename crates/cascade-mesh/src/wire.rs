//! How an outcome crosses the wire: the HTTP status cascade's classifier reads
//! (`Outcome::from_http_status`), and the exact kind in a header, so a refused connection
//! stays `refused` rather than reading as the status's `unavailable`.

use cascade::model::Outcome;
use cascade_tower::{Classified, Classify, HttpClassifier};

pub const OUTCOME: &str = "x-cascade-outcome";
pub const RETRY_AFTER_NS: &str = "x-cascade-retry-after-ns";
/// Sent by a caller whose policy cancels: the callee's work stops with the stream.
pub const CANCEL: &str = "x-cascade-cancel";

/// The status an outcome is answered with.
pub fn status(outcome: Outcome) -> u16 {
    match outcome {
        Outcome::Ok | Outcome::Degraded => 200,
        Outcome::Overloaded | Outcome::Shed => 429,
        Outcome::Timeout | Outcome::DeadlineExceeded => 504,
        Outcome::Internal => 500,
        Outcome::Invalid => 400,
        _ => 503,
    }
}

/// The answer of an outcome, with its kind and Retry-After.
pub fn answer(outcome: Outcome, retry_after: Option<u64>) -> http::Response<()> {
    let mut r = http::Response::builder()
        .status(status(outcome))
        .header(OUTCOME, outcome.name());
    if let Some(ns) = retry_after {
        r = r.header(RETRY_AFTER_NS, ns.to_string());
    }
    r.body(()).unwrap_or_default()
}

/// Reads the kind header first, the status (and standard Retry-After) without it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MeshClassifier;

impl<E: std::error::Error + 'static> Classify<http::Response<()>, E> for MeshClassifier {
    fn classify(&self, result: Result<&http::Response<()>, &E>) -> Classified {
        let mut c = HttpClassifier.classify(result);
        if let Ok(r) = result {
            let text = |k: &str| r.headers().get(k).and_then(|v| v.to_str().ok());
            if let Some(o) = text(OUTCOME).and_then(Outcome::from_name) {
                c.outcome = o;
            }
            if let Some(ns) = text(RETRY_AFTER_NS).and_then(|t| t.parse::<u64>().ok()) {
                c.retry_after = Some(cascade_policy::Nanos(ns));
            }
        }
        c
    }
}

/// The kind an answer carries.
pub fn outcome_of(r: &http::Response<()>) -> Outcome {
    (r.headers().get(OUTCOME))
        .and_then(|v| v.to_str().ok())
        .and_then(Outcome::from_name)
        .unwrap_or_else(|| Outcome::from_http_status(r.status().as_u16()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_crosses_the_wire_as_itself() {
        for &o in Outcome::ALL.iter() {
            let r = answer(o, Some(7));
            assert_eq!(outcome_of(&r), o);
            let c: Classified = Classify::<_, std::io::Error>::classify(&MeshClassifier, Ok(&r));
            assert_eq!(c.outcome, o, "{}", o.name());
            assert_eq!(c.retry_after, Some(cascade_policy::Nanos(7)));
        }
        // Without the kind's header the status alone decides, as any HTTP client reads it.
        let bare = http::Response::builder().status(503).body(()).unwrap();
        assert_eq!(outcome_of(&bare), Outcome::Unavailable);
    }
}
