//! `admission-limit-below-offered` (docs/lints.md): a service's rate limit below the rate
//! offered to it whose refusals a caller retries without waiting for a Retry-After; quiet when
//! nobody retries them, when the limit sends Retry-After and the retries honour it, and for a
//! limit keyed by tenant.

use crate::lints::{of, scenario};

/// web at 150/s (its call to api under `policy`) -> api, whose admission has `limit`.
fn below(limit: &str, policy: &str) -> Vec<String> {
    let toml = scenario(
        "rate = 150",
        &format!("work = \"1ms\"\nrate_limit = {{ {limit} }}"),
        "work = \"1ms\"",
        policy,
    );
    of(&toml, "admission-limit-below-offered")
}

#[test]
fn a_limit_below_the_offered_rate_whose_refusals_are_retried_blindly_is_found() {
    // 10 tokens every 100 ms is 100/s against 150/s: a third refused (429, overloaded), and
    // web's retry re-sends them 10 ms later.
    let bucket = r#"max_tokens = 10, tokens_per_fill = 10, fill_interval = "100ms""#;
    let retry =
        r#"retry = { attempts = 3, on = ["overloaded"], backoff = "constant", base = "10ms" }"#;
    let found = below(bucket, retry);
    assert_eq!(
        found,
        [
            "api's rate limit admits 100 calls/s in all in the long run, below the base rate of \
          150 calls/s offered to it (first attempts): in steady state it refuses 33.3% of them \
          (answered 429), and web -> api retries them on its own backoff, and the limit sends \
          no Retry-After (`retry_after = true` sends when it would pass one), into a limiter \
          already over its rate"
        ]
    );
    // The limit sends Retry-After but the retry is told not to read it (it does by default).
    let sends = format!("{bucket}, retry_after = true");
    let deaf = r#"retry = { attempts = 3, on = ["overloaded"], retry_after = false }"#;
    let found = below(&sends, deaf);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("web -> api retries them without honouring their Retry-After"));
    // Sent and honoured (the retry's default): quiet.
    assert!(below(&sends, retry).is_empty());
    // Nobody retries a 429: the limit holds web to its rate, which is its work.
    assert!(below(bucket, "").is_empty());
    let other = r#"retry = { attempts = 3, on = ["timeout"] }"#;
    assert!(below(bucket, other).is_empty());
    // nginx answers 503: a retry on `unavailable` re-sends it.
    let nginx = r#"limiter = "limit_req", rate = "100r/s", burst = 10, nodelay = true"#;
    let on_503 = r#"retry = { attempts = 2, on = ["unavailable"] }"#;
    assert_eq!(below(nginx, on_503).len(), 1);
    // At or above the offered rate, or keyed by tenant: quiet.
    let enough = r#"max_tokens = 10, tokens_per_fill = 15, fill_interval = "100ms""#;
    assert!(below(enough, retry).is_empty());
    assert!(below(&format!("{bucket}, key = \"client\""), retry).is_empty());
}
