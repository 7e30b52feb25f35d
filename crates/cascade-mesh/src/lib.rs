//! cascade-mesh: a scenario's topology run as real services on 127.0.0.1 (HTTP/2, hyper,
//! tokio), each call through the cascade-tower stack its `[policy.NAME]` table describes, the
//! simulator's own arrival schedule replayed, and the run written under the simulator's metric
//! names (summary.json, timeseries.csv) so `cascade diff` compares a simulated and a measured
//! run. What the mesh does not run is refused by name (`support.rs`).

pub mod faults;
pub mod hold;
pub mod hop;
pub mod output;
pub mod record;
pub mod server;
pub mod support;
pub mod trace;
pub mod wire;

use cascade::engine::rng::{Stream, stream};
use cascade::model::{Model, Outcome};
use cascade_policy::table::RawPolicy;
use cascade_tower::{CascadeError, CascadeLayer, CascadeService, NoFallback};
use hold::Lateness;
use hop::{Body, Hop, HopError, Net};
use record::{EdgeEvents, Recorder, Request};
use server::Instance;
use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use tower::Service;

/// One call spec's stack at one caller.
pub type Stack = CascadeService<Hop, wire::MeshClassifier, Arc<EdgeEvents>, NoFallback, Stream>;

/// How long past the run's end a request still in flight is waited for before it counts as
/// unanswered; a blackholed request is held at most this long past the end.
pub const GRACE: Duration = Duration::from_millis(500);

/// Arrivals a client may replay: a bound on the schedule's memory.
pub const MAX_ARRIVALS: usize = 5_000_000;

/// The running mesh.
pub struct Mesh {
    pub net: Arc<Net>,
    /// Per (caller service and instance, or none for a client; call spec id).
    stacks: HashMap<(Option<(usize, u32)>, usize), Stack>,
}

impl Mesh {
    fn stack(&self, caller: Option<(usize, u32)>, spec: usize) -> Stack {
        self.stacks[&(caller, spec)].clone()
    }

    /// Waits until the run is over: a request never answered.
    async fn never_answered(&self) {
        let rec = &self.net.rec;
        tokio::time::sleep_until(rec.origin + Duration::from_nanos(rec.end) + GRACE).await;
    }
}

/// The outcome a stack's result ends a call with.
pub fn outcome_of(r: Result<http::Response<()>, CascadeError<HopError>>) -> Outcome {
    match r {
        Ok(answer) => wire::outcome_of(&answer),
        Err(CascadeError::Refused(r)) => r.outcome(),
        Err(CascadeError::Timeout) => Outcome::Timeout,
        Err(CascadeError::DeadlineExceeded) => Outcome::DeadlineExceeded,
        Err(CascadeError::Inner(_)) => Outcome::Unavailable,
    }
}

/// A measured run.
pub struct Measured {
    pub rec: Arc<Recorder>,
    pub lateness: Arc<Lateness>,
    pub wall_s: f64,
    /// With `--traces`: the spans (`Err` with the limit when more ended than it holds).
    pub traces: Option<Result<Vec<cascade::trace_export::spans::Span>, usize>>,
    /// The unix time (ns) of the run's t = 0, the spans' epoch.
    pub epoch_ns: u64,
}

/// The `[policy.NAME]` table as written in the scenario's text (after its overrides).
fn raw_policy(text: &str, name: &str) -> Result<RawPolicy, String> {
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let item = (doc.get("policy").and_then(|p| p.get(name)))
        .ok_or_else(|| format!("no [policy.{name}]"))?;
    let table = match (item.as_table(), item.as_inline_table()) {
        (Some(t), _) => t.to_string(),
        (None, Some(t)) => t.clone().into_table().to_string(),
        _ => return Err(format!("[policy.{name}] is not a table")),
    };
    toml_edit::de::from_str(&table).map_err(|e| format!("[policy.{name}]: {e}"))
}

/// Runs `model` (whose scenario text is `text`) on 127.0.0.1 to its end, tracing it when
/// `traces` says how.
pub async fn run(
    model: Model,
    text: &str,
    traces: Option<trace::Options>,
) -> Result<Measured, String> {
    let model = Arc::new(model);
    let seed = model.seed;
    let lateness = Arc::new(Lateness::default());
    // Every queue bound, plus the workers, fits in one connection's streams.
    let streams = (model.services.iter())
        .map(|s| (u64::from(s.workers) + s.queue.min(u64::from(u32::MAX))) * u64::from(s.instances))
        .fold(1024_u64, |a, b| a.saturating_add(b))
        .min(u64::from(u32::MAX)) as u32;
    let slot: Arc<std::sync::OnceLock<Arc<Mesh>>> = Arc::default();
    let mut conns = Vec::new();
    for (s, svc) in model.services.iter().enumerate() {
        let mut row = Vec::new();
        for i in 0..svc.instances {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| format!("binding 127.0.0.1:0: {e}"))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            let inst = Arc::new(Instance {
                service: s,
                index: i,
                workers: Arc::new(tokio::sync::Semaphore::new(svc.workers as usize)),
                queued: Default::default(),
                work_rng: Mutex::new(stream(seed, &format!("service.{}#{i}", svc.name), "work")),
                branch_rng: Mutex::new(stream(
                    seed,
                    &format!("service.{}#{i}", svc.name),
                    "mesh.branch",
                )),
                fault_rng: Mutex::new(stream(
                    seed,
                    &format!("service.{}#{i}", svc.name),
                    "mesh.fault",
                )),
            });
            tokio::spawn(accept(listener, slot.clone(), inst, streams));
            let tcp = tokio::net::TcpStream::connect(addr)
                .await
                .map_err(|e| format!("connecting to {addr}: {e}"))?;
            let _ = tcp.set_nodelay(true);
            let (sender, conn) =
                hyper::client::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                    .max_concurrent_reset_streams(usize::MAX)
                    .handshake(hyper_util::rt::TokioIo::new(tcp))
                    .await
                    .map_err(|e| format!("HTTP/2 handshake with {addr}: {e}"))?;
            tokio::spawn(conn);
            row.push((addr, sender));
        }
        conns.push(row);
    }
    let origin = Instant::now() + Duration::from_millis(200);
    let rec = Arc::new(Recorder::new(&model, origin));
    // The wall clock read once, at the run's t = 0, for the spans' times (the run itself
    // measures with the monotonic clock).
    let unix_now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| format!("the system clock: {e}"))?;
    let epoch_ns = (unix_now + origin.saturating_duration_since(Instant::now())).as_nanos() as u64;
    let sink = traces.map(|o| Arc::new(trace::Sink::new(seed, o)));
    let net = Arc::new(Net {
        model: model.clone(),
        rec: rec.clone(),
        lateness: lateness.clone(),
        next: conns.iter().map(|_| AtomicUsize::new(0)).collect(),
        conns,
        latency_rng: Mutex::new(stream(seed, "mesh", "network")),
        traces: sink.clone(),
    });
    let mut tables: HashMap<String, RawPolicy> = HashMap::new();
    let mut stacks = HashMap::new();
    let callers = (model
        .clients
        .iter()
        .flat_map(|c| c.calls().map(|spec| (None, spec))))
    .chain(model.services.iter().enumerate().flat_map(|(s, svc)| {
        (0..svc.instances).flat_map(move |i| svc.calls().map(move |spec| (Some((s, i)), spec)))
    }));
    for (caller, spec) in callers {
        let raw = match &spec.policy.name {
            Some(name) => match tables.get(name) {
                Some(t) => t.clone(),
                None => {
                    let t = raw_policy(text, name)?;
                    tables.insert(name.clone(), t.clone());
                    t
                }
            },
            None => RawPolicy::default(),
        };
        let edge = &model.edges[spec.edge];
        let mut prefixes = vec![format!("edge.{}", edge.name)];
        if let Some(t) = edge.total {
            prefixes.push(format!("edge.{}", model.edges[t].name));
        }
        let events = Arc::new(EdgeEvents {
            recorder: rec.clone(),
            prefixes: prefixes.clone(),
        });
        let instance = caller.map_or(0, |(s, i)| (s as u64 + 1) << 32 | u64::from(i));
        let streams =
            cascade_tower::seeded_streams(seed ^ instance.rotate_left(17) ^ spec.id as u64);
        let layer = CascadeLayer::from_table(&raw)
            .map_err(|e| {
                format!(
                    "[policy.{}]: {e:?}",
                    spec.policy.name.as_deref().unwrap_or("")
                )
            })?
            .streams(streams)
            .classifier(wire::MeshClassifier)
            .events(events)
            .idempotent(spec.retry_allowed());
        // The limit's level starts at its initial value, summed over the caller's instances as
        // the simulator sums them (`limit_mean`); its moves are the stack's `LimitMoved`.
        if let Some(l) = layer.policy().limit() {
            let initial = cascade_policy::limit::Limiter::new(l).limit();
            for p in &prefixes {
                rec.level(&format!("{p}.limit_mean"), 0, f64::from(initial));
            }
        }
        let hop = Hop {
            net: net.clone(),
            to: spec.to,
            edge: spec.edge,
            operation: spec.operation,
            latency: spec.latency.clone(),
            cancel: spec.policy.cancel(),
            timeout: layer.policy().timeout().map(|t| t.0),
        };
        stacks.insert((caller, spec.id), tower::Layer::layer(&layer, hop));
    }
    let mesh = Arc::new(Mesh { net, stacks });
    let _ = slot.set(mesh.clone());
    let wall = std::time::Instant::now();
    let mut clients = tokio::task::JoinSet::new();
    for c in 0..model.clients.len() {
        let times =
            cascade::engine::arrivals::open_arrivals(&model, c, MAX_ARRIVALS).ok_or_else(|| {
                format!(
                    "client `{}`: more than {MAX_ARRIVALS} arrivals",
                    model.clients[c].name
                )
            })?;
        clients.spawn(load(mesh.clone(), c, times));
    }
    // Bounded: one join per client, each of whose loops ends with its schedule.
    while clients.join_next().await.is_some() {}
    tokio::time::sleep_until(origin + Duration::from_nanos(model.end()) + GRACE).await;
    Ok(Measured {
        rec,
        lateness,
        wall_s: wall.elapsed().as_secs_f64(),
        traces: sink.map(|s| s.take()),
        epoch_ns,
    })
}

/// Client `c`'s requests, each started at its instant of the schedule; every one ends, or
/// counts as unanswered, by the run's end plus `GRACE`.
async fn load(mesh: Arc<Mesh>, c: usize, times: Vec<u64>) {
    let rec = mesh.net.rec.clone();
    let model = mesh.net.model.clone();
    let client = &model.clients[c];
    // The simulator's own mix draws, one per request in arrival order: each request is the
    // same operation in both runs.
    let mut mix_rng = stream(model.seed, &format!("client.{}", client.name), "mix");
    let stop = rec.origin + Duration::from_nanos(rec.end);
    let mut requests = tokio::task::JoinSet::new();
    for (n, t) in (1..).zip(times) {
        let (op, call, deadline) = match client.mix.as_deref() {
            None => (0, &client.call, client.deadline),
            Some(mix) => {
                let u = cascade_policy::random::unit(&mut mix_rng);
                if u < mix.first {
                    (0, &client.call, client.deadline)
                } else {
                    let k = (mix.others.iter().position(|e| u < e.until))
                        .unwrap_or(mix.others.len() - 1);
                    (k + 1, &mix.others[k].call, mix.others[k].deadline)
                }
            }
        };
        let (spec, edge) = (call.id, call.edge);
        tokio::time::sleep_until(rec.origin + Duration::from_nanos(t)).await;
        let mut stack = mesh.stack(None, spec);
        let rec = rec.clone();
        let (model, sink) = (model.clone(), mesh.net.traces.clone());
        requests.spawn(async move {
            let mut req = http::Request::new(Body::default());
            if let Some(d) = deadline {
                req.extensions_mut().insert(cascade_tower::Deadline(
                    Instant::now() + Duration::from_nanos(d),
                ));
            }
            let traced = sink.as_ref().map(|s| s.root(c, n));
            if let Some((_, Some(ctx))) = &traced {
                req.extensions_mut().insert(ctx.clone());
            }
            let end = match tokio::time::timeout_at(stop, stack.call(req)).await {
                Ok(r) => Some((rec.now(), outcome_of(r))),
                Err(_) => None,
            };
            if let (Some(sink), Some((id, Some(ctx)))) = (&sink, &traced) {
                let (at, outcome) = end.map_or((rec.end, "unfinished"), |(at, o)| (at, o.name()));
                sink.request(&model, c, edge, id, ctx, (t, at), outcome);
            }
            rec.request(c, Request { start: t, op, end });
        });
        // Reap finished ones as we go, so the set stays small.
        while requests.try_join_next().is_some() {}
    }
    while requests.join_next().await.is_some() {}
}

/// Accepts HTTP/2 connections for `inst` until the runtime stops.
async fn accept(
    listener: tokio::net::TcpListener,
    mesh: Arc<std::sync::OnceLock<Arc<Mesh>>>,
    inst: Arc<Instance>,
    streams: u32,
) {
    while let Ok((tcp, _)) = listener.accept().await {
        let _ = tcp.set_nodelay(true);
        let (mesh, inst) = (mesh.clone(), inst.clone());
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let (mesh, inst) = (mesh.get().cloned(), inst.clone());
                async move {
                    Ok::<_, std::convert::Infallible>(match mesh {
                        Some(mesh) => server::serve(mesh, inst, req).await,
                        None => http::Response::new(Body::default()),
                    })
                }
            });
            let mut builder =
                hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
            builder
                .max_concurrent_streams(streams)
                .max_pending_accept_reset_streams(usize::MAX)
                .max_local_error_reset_streams(None);
            let _ = builder
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), svc)
                .await;
        });
    }
}
