//! What the stack costs a request: serves N requests, one after another, on a `current_thread`
//! runtime, through a bare tower service (`bare`) or through the whole stack of `TABLE` around
//! that same service (`stack`). The downstream answers at once, so what is left is the
//! layers' own work: reading the deadline header, every policy's admission and learning, the
//! per-try timer, the hedge timer, the attempt's header.
//!
//! `cargo run -p cascade-tower --example overhead -- stack 10000`. `benches/instructions`
//! counts its instructions under callgrind for two values of N in each mode and reports the
//! difference per request, so the process's start and the table's parsing cancel out.

use cascade_policy::outcome::Outcome;
use cascade_policy::table::RawPolicy;
use cascade_tower::CascadeLayer;
use std::convert::Infallible;
use tower::{Layer, Service, ServiceExt};

/// Every layer of the stack, as a scenario writes a `[policy.NAME]` table. The downstream
/// always answers 200, so no retry, hedge or fallback is sent: the figure is the price of a
/// request that needs none of them, which is most requests.
const TABLE: &str = r#"
timeout = "100ms"
reserve = "5ms"
min_attempt = "1ms"
retry = { attempts = 3, backoff = "exponential", base = "10ms", jitter = "full", budget = 0.2 }
breaker = { window = 100, min_calls = 20, failure_rate = 0.5, open = "1s" }
throttle = { k = 2.0, window = "120s" }
limit = { algorithm = "aimd", initial = 20, min = 10, max = 200 }
bulkhead = { max_concurrent = 32, queue = 16, max_wait = "5ms" }
hedge = { delay = "50ms", budget = 0.1 }
fallback = { on = ["unavailable", "breaker_open"], latency = "1ms" }
"#;

type Request = http::Request<()>;
type Response = http::Response<()>;

/// The downstream: a 200 at once.
fn downstream()
-> impl Service<Request, Response = Response, Error = Infallible, Future: Send> + Clone {
    tower::service_fn(|_: Request| async { Ok::<_, Infallible>(http::Response::new(())) })
}

/// A request as a caller sends it: with its deadline in the `grpc-timeout` header.
fn request() -> Request {
    let mut r = http::Request::new(());
    (r.headers_mut()).insert("grpc-timeout", http::HeaderValue::from_static("1S"));
    r
}

/// Serves `n` requests through `service`, each awaited before the next; the answers that were
/// a 200.
async fn serve<S>(mut service: S, n: u64) -> u64
where
    S: Service<Request, Response = Response>,
    S::Error: std::fmt::Debug,
{
    let mut ok = 0;
    for _ in 0..n {
        let answer = service.ready().await.expect("ready").call(request()).await;
        ok += u64::from(answer.expect("an answer").status() == 200);
    }
    ok
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mode, n) = match (args.next(), args.next().map(|n| n.parse::<u64>())) {
        (Some(mode), Some(Ok(n))) if mode == "bare" || mode == "stack" => (mode, n),
        _ => return Err("usage: overhead (bare|stack) N".into()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let ok = runtime.block_on(async {
        if mode == "bare" {
            return Ok::<_, Box<dyn std::error::Error>>(serve(downstream(), n).await);
        }
        let table: RawPolicy = toml_edit::de::from_str(TABLE)?;
        let fallback = |_: Outcome| http::Response::new(());
        let layer = CascadeLayer::from_table_with_fallback(&table, fallback)?.seed(1);
        Ok(serve(layer.layer(downstream()), n).await)
    })?;
    println!("{mode}: {ok} of {n} requests answered 200");
    Ok(())
}
