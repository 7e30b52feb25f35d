//! A service calling a downstream on 127.0.0.1 through cascade-tower, configured from a
//! policy table of a committed scenario (`[policy.shard]` of `scenarios/all-features.toml`:
//! a 100 ms attempt timeout, two attempts 5 ms apart). The downstream, a hyper server, fails
//! the first request with a 503; the stack retries it and the second answers.
//!
//! `cargo run -p cascade-tower --example hyper_client`; `tests/example.rs` runs it in the suite.

use bytes::Bytes;
use cascade_policy::table::RawPolicy;
use cascade_tower::{CascadeLayer, Event, EventLog};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use tower::{Layer, Service};

/// What a run saw: the answer's status and body, the requests the downstream served, and
/// the attempts the stack sent.
#[derive(Debug)]
pub struct Report {
    pub status: u16,
    pub body: String,
    pub served: u32,
    pub attempts: usize,
}

/// The `[policy.NAME]` table of a scenario file, as the simulator reads it.
pub fn scenario_policy(path: &str, name: &str) -> Result<RawPolicy, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let doc: toml_edit::DocumentMut = text.parse()?;
    let table = (doc.get("policy").and_then(|p| p.get(name)))
        .and_then(|t| t.as_table())
        .ok_or_else(|| format!("{path}: no [policy.{name}]"))?;
    Ok(toml_edit::de::from_str(&table.to_string())?)
}

/// A downstream on 127.0.0.1 that answers 503 to its first request and 200 after; its
/// address and the count of requests served.
async fn downstream() -> std::io::Result<(std::net::SocketAddr, Arc<AtomicU32>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let served = Arc::new(AtomicU32::new(0));
    let count = served.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let count = count.clone();
            let answer = hyper::service::service_fn(move |_: http::Request<Incoming>| {
                let n = count.fetch_add(1, Ordering::SeqCst);
                let status = if n == 0 { 503 } else { 200 };
                let body = Full::new(Bytes::from(format!("answer {n}")));
                let response = http::Response::builder().status(status).body(body);
                async move { response }
            });
            tokio::spawn(async move {
                let connection = hyper::server::conn::http1::Builder::new();
                // A connection's own failure ends only that connection.
                let _ = connection
                    .serve_connection(TokioIo::new(stream), answer)
                    .await;
            });
        }
    });
    Ok((addr, served))
}

/// Calls the downstream once through the stack of `[policy.NAME]` of a scenario (or of any
/// TOML file holding that table).
pub async fn run(scenario: &str, name: &str) -> Result<Report, Box<dyn std::error::Error>> {
    let (addr, served) = downstream().await?;
    let table = scenario_policy(scenario, name)?;
    let events = Arc::new(EventLog::default());
    let layer = CascadeLayer::from_table(&table)?
        .seed(1)
        .events(events.clone());
    let http: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut client = layer.layer(http);
    let request = http::Request::get(format!("http://{addr}/")).body(Full::new(Bytes::new()))?;
    let response = client.call(request).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    let attempts = (events.take().iter())
        .filter(|(_, e)| matches!(e, Event::AttemptSent { .. }))
        .count();
    Ok(Report {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
        served: served.load(Ordering::SeqCst),
        attempts,
    })
}

#[allow(dead_code)] // `tests/example.rs` and `tests/tuned_table.rs` include this file for `run`
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/all-features.toml"
    );
    let report = run(scenario, "shard").await?;
    println!("{report:?}");
    Ok(())
}
