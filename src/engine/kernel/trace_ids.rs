//! The ids of a trace's spans (`--trace-format otlp`), and which client requests
//! `--trace-sample` keeps. Both are derived from the run's seed and a request's id in the trace's
//! `request` column (`c0.1`, `j3.2`), through `rng::name_hash`, never from a counter or the wall
//! clock: the same seed gives the same ids whatever `--jobs`, the filters or the sample, and a
//! request keeps its ids when other requests are left out.

use super::rng::name_hash;

/// The 16 bytes of the trace of client request `root` (the id of its `call_start` row):
/// `name_hash(seed, root, "trace_id")`, both words big-endian. Never all zero (OTLP's invalid
/// id): a zero word would be replaced by 1, at odds of 2^-64.
pub fn trace_id(seed: u64, root: &str) -> [u8; 16] {
    let (a, b) = name_hash(seed, root, "trace_id");
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&nonzero(b).to_be_bytes());
    bytes
}

/// The 8 bytes of the span `role` (`request`, `client`, `server`, `refused.<k>`) of `request`:
/// the first word of `name_hash(seed, request, role)`, big-endian, never zero.
pub fn span_id(seed: u64, request: &str, role: &str) -> [u8; 8] {
    nonzero(name_hash(seed, request, role).0).to_be_bytes()
}

fn nonzero(word: u64) -> u64 {
    if word == 0 { 1 } else { word }
}

/// Whether `--trace-sample fraction` keeps client request `root`: OpenTelemetry's
/// `TraceIdRatioBased` rule, the trace id's last 8 bytes read as a big-endian number below
/// `fraction` × 2^64. Decided by the request's own id, so a request kept at 1% is kept at 2%.
pub fn sampled(seed: u64, root: &str, fraction: f64) -> bool {
    if fraction >= 1.0 {
        return true;
    }
    let id = trace_id(seed, root);
    let low = u64::from_be_bytes(id[8..].try_into().expect("8 bytes"));
    // 2^64 as f64 is exact; the product is below it, so the cast does not saturate.
    (low as f64) < fraction * 18_446_744_073_709_551_616.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_depend_on_seed_and_request_only() {
        assert_eq!(trace_id(1, "c0.1"), trace_id(1, "c0.1"));
        assert_ne!(trace_id(1, "c0.1"), trace_id(2, "c0.1"));
        assert_ne!(trace_id(1, "c0.1"), trace_id(1, "c0.2"));
        assert_ne!(span_id(1, "j0.1", "client"), span_id(1, "j0.1", "server"));
    }

    #[test]
    fn a_sample_keeps_its_share_and_grows_by_inclusion() {
        let ids: Vec<String> = (1..=20_000).map(|n| format!("c{}.{}", n % 7, n)).collect();
        let kept = |f: f64| -> Vec<&String> { ids.iter().filter(|r| sampled(9, r, f)).collect() };
        let (one, ten) = (kept(0.01), kept(0.1));
        // Binomial(20,000, p): 4 sigma is 56 at 1% and 170 at 10%.
        assert!((144..=256).contains(&one.len()), "{}", one.len());
        assert!((1_830..=2_170).contains(&ten.len()), "{}", ten.len());
        assert!(one.iter().all(|r| ten.contains(r)));
        assert_eq!(kept(1.0).len(), ids.len());
    }
}
