//! Collects a run's metrics as the engine reports them: counters and histograms per time
//! bucket, levels integrated over time, buckets closed in order as simulated time passes.

use super::RunMetrics;
use super::acc::{ClientAcc, EdgeAcc, Outcomes, ServiceAcc, StepCount};
use super::emission::{EmissionOrder, StepMetric, emit_entities, reaching_clients, step_metrics};
use super::level::Level;
use crate::metrics::level::Area;
use crate::model::Model;
use cascade_policy::hist::LatencyHist;
use cascade_policy::outcome::Outcome;

/// The time-integrated levels of one service, summed over its instances.
#[derive(Default, Clone, Copy)]
pub struct ServiceLevels {
    pub busy: Level,
    pub queue: Level,
    /// Workers whose job's caller has given up (`ServiceAcc::wasted_area`).
    pub wasted: Level,
    /// Instances ejected by outlier detection.
    pub ejected: Level,
}

/// The levels of an orchestrated service's slot (`model/orchestration.rs`), apart from
/// `ServiceLevels` so the plain path's stay small.
#[derive(Default, Clone, Copy)]
pub struct LifeLevels {
    /// Instances that exist (starting, running, draining).
    pub instances: Level,
    /// Existing instances out of the balancer's rotation (not ready, starting, draining).
    pub not_ready: Level,
}

pub struct Recorder {
    /// The open bucket's accumulators; the engine records into these.
    pub clients: Vec<ClientAcc>,
    /// Each client's edge to its target. Every call on it is one of the client's requests,
    /// ended with the same outcome at the same instant, so the client's outcomes and latency
    /// are the edge's: copied once per bucket rather than recorded twice per request.
    client_edges: Vec<usize>,
    /// Edges a client's fallback also calls (its fallback goes to its own target), each with
    /// the ends of those fallback calls: kept apart until the client's outcomes have been
    /// copied from the edge, so each request counts once, then merged into the edge.
    fallback_ends: Vec<(usize, CallEnds)>,
    pub services: Vec<ServiceAcc>,
    pub edges: Vec<EdgeAcc>,
    pub levels: Vec<ServiceLevels>,
    /// Per edge: how many of its breakers are open.
    pub breakers_open: Vec<Level>,
    /// Sum of the adaptive concurrency limits on each edge.
    pub limits: Vec<Level>,
    /// Per edge: how many of its breakers are half-open.
    pub breakers_half_open: Vec<Level>,
    totals: (Vec<ClientAcc>, Vec<ServiceAcc>, Vec<EdgeAcc>),
    names_of: EmissionOrder,
    /// Per service slot, the clients whose calls can reach its service.
    reach: Vec<Vec<usize>>,
    /// (part, whole) of the edges, service slots and client slots that are parts of a whole.
    edge_totals: Vec<(usize, usize)>,
    service_parts: Vec<(usize, usize)>,
    client_parts: Vec<(usize, usize)>,
    bucket_ns: u64,
    bucket_start: u64,
    warmup: u64,
    end: u64,
    names: Vec<String>,
    /// Bucket-major: `series[b * names.len() + m]`.
    series: Vec<f64>,
    /// Named spans measured apart: their own totals of the buckets starting inside them.
    windows: Vec<WindowTotals>,
    /// Per service slot, its orchestration's levels (`LifeLevels`; unused elsewhere).
    pub life_levels: Vec<LifeLevels>,
    /// Per service slot, the busy, queue and instances areas of the buckets closed so far, recorded on
    /// that slot itself (before an operation's are added into its service's): what the
    /// autoscaler reads the run's integrals from (`service_integrals`).
    cumulative: Vec<[Area; 3]>,
    /// Per client, its requests in the buckets closed so far (every bucket, warm-up included):
    /// what the work bound reads (`engine::work_bound`), once per stride of events.
    requests_closed: Vec<u64>,
    /// Named pools' levels, as series after the entities' (`track_pools`).
    pub pools: super::pool_series::PoolSeries,
}

struct WindowTotals {
    name: String,
    start: u64,
    end: u64,
    /// Time covered by the buckets merged so far, ns.
    span: u64,
    totals: (Vec<ClientAcc>, Vec<ServiceAcc>, Vec<EdgeAcc>),
}

/// How some logical calls ended: their outcomes and latencies.
#[derive(Clone, Default)]
struct CallEnds {
    outcomes: Outcomes,
    latency: LatencyHist,
    success_latency: LatencyHist,
}

impl Recorder {
    pub fn new(model: &Model) -> Recorder {
        let slots = super::slots::MetricSlots::of(model);
        let clients = vec![ClientAcc::default(); slots.clients.len()];
        // A client's whole reads the pair's edge (for a mix, the sum of its operations'
        // edges), each mix entry its operation's edge.
        let pair = |edge: usize| model.edges[edge].total.unwrap_or(edge);
        let mut client_edges: Vec<usize> =
            model.clients.iter().map(|c| pair(c.call.edge)).collect();
        client_edges.extend(
            model
                .clients
                .iter()
                .filter(|c| c.mix.is_some())
                .flat_map(|c| c.calls().map(|call| call.edge)),
        );
        let mut fallback_ends: Vec<(usize, CallEnds)> = Vec::new();
        for call in model.clients.iter().map(|c| &c.call) {
            let shared = call
                .fallback
                .is_some_and(|f| model.fallbacks[f].edge == call.edge);
            if shared && !fallback_ends.iter().any(|(e, _)| *e == call.edge) {
                fallback_ends.push((call.edge, CallEnds::default()));
            }
        }
        // A slot's plan: a whole's is its service's own (empty for one with operations).
        let plan_of = |slot: usize| match slots.services[slot].1 {
            None => &model.services[slot].plan,
            Some(s) => {
                let k = slot as u32 - slots.service_base[s];
                &model.services[s].operations[k as usize - 1].plan
            }
        };
        let service_of = |slot: usize| slots.services[slot].1.unwrap_or(slot);
        let steps: Vec<Vec<StepMetric>> = (0..slots.services.len())
            .map(|slot| step_metrics(plan_of(slot)))
            .collect();
        let rate_key_names: Vec<Vec<Option<[String; 2]>>> = (0..slots.services.len())
            .map(|slot| super::rate_keys::emitted_at(model, &slots, slot))
            .collect();
        let services: Vec<ServiceAcc> = (0..slots.services.len())
            .map(|slot| {
                let s = &model.services[service_of(slot)];
                let options = steps[slot]
                    .iter()
                    .filter(|m| matches!(m, StepMetric::Option(..)))
                    .count();
                let overload = s.overload.as_deref();
                let o = s.orchestration.as_deref();
                let own = slot < model.services.len();
                ServiceAcc {
                    capacity: f64::from(s.instances) * f64::from(s.workers),
                    capacity_varies: o.is_some(),
                    unbounded: s.unbounded(),
                    workers: f64::from(s.workers),
                    has_orchestration: own && o.is_some(),
                    probe_kinds: o.map_or([false; 3], |o| o.probes.each_ref().map(Option::is_some)),
                    has_autoscale: own && o.is_some_and(|o| o.autoscale.is_some()),
                    has_contention: overload.is_some_and(|o| o.contention.is_some()),
                    has_refusal_work: overload.is_some_and(|o| o.reject_work > 0),
                    has_dedup: s.dedup_window.is_some(),
                    has_rate_limit: s.rate_limit.is_some(),
                    rate_limit_delays: (s.rate_limit.as_ref()).is_some_and(|r| r.limiter.delays()),
                    steps: vec![StepCount::default(); plan_of(slot).branches.len()],
                    options: vec![0; options],
                    rate_keys: vec![[0; 2]; rate_key_names[slot].len()],
                    ..Default::default()
                }
            })
            .collect();
        let mut edges = vec![EdgeAcc::default(); model.edges.len()];
        for (spec, _) in model.specs_with_callers() {
            if spec.policy.failure_accrual().is_some() {
                edges[spec.edge].has_accrual = true;
                if let Some(whole) = model.edges[spec.edge].total {
                    edges[whole].has_accrual = true;
                }
            }
        }
        let by_service = reaching_clients(model);
        let order = slots.order(model);
        let names_of = EmissionOrder {
            clients: order.clients,
            services: order.services,
            edges: order.edges,
            steps,
            rate_keys: rate_key_names,
        };
        let edge_totals: Vec<(usize, usize)> = model
            .edges
            .iter()
            .enumerate()
            .filter_map(|(e, edge)| edge.total.map(|t| (e, t)))
            .collect();
        let service_parts: Vec<(usize, usize)> = (model.services.len()..slots.services.len())
            .map(|slot| (slot, service_of(slot)))
            .collect();
        let client_parts: Vec<(usize, usize)> = (model.clients.len()..slots.clients.len())
            .filter_map(|slot| slots.clients[slot].1.map(|c| (slot, c)))
            .collect();
        let reach = (0..slots.services.len())
            .map(|slot| by_service[service_of(slot)].clone())
            .collect();
        let mut rec = Recorder {
            totals: (clients.clone(), services.clone(), edges.clone()),
            levels: vec![ServiceLevels::default(); services.len()],
            life_levels: vec![LifeLevels::default(); services.len()],
            cumulative: vec![[0; 3]; services.len()],
            requests_closed: vec![0; model.clients.len()],
            breakers_open: vec![Level::default(); edges.len()],
            limits: vec![Level::default(); edges.len()],
            breakers_half_open: vec![Level::default(); edges.len()],
            clients,
            client_edges,
            fallback_ends,
            services,
            edges,
            names_of,
            reach,
            edge_totals,
            service_parts,
            client_parts,
            bucket_ns: model.bucket,
            bucket_start: 0,
            warmup: model.warmup,
            end: model.end(),
            names: Vec::new(),
            series: Vec::new(),
            windows: Vec::new(),
            pools: Default::default(),
        };
        rec.windows = model
            .windows
            .iter()
            .map(|w| WindowTotals {
                name: w.name.clone(),
                start: w.start,
                end: w.end,
                span: 0,
                totals: rec.totals.clone(),
            })
            .collect();
        let mut names = Vec::new();
        rec.emit_current(1, &mut |name, _| names.push(name.to_string()));
        let buckets = model.end().div_ceil(model.bucket) as usize;
        rec.series.reserve_exact(buckets * names.len());
        rec.names = names;
        rec
    }

    /// Adds the named pools' series (`pool_series`): `pools` are each a prefix and the
    /// bulkheads of its caller's instances, among `bulkheads` bulkheads. Before the run starts.
    pub fn track_pools<'a>(
        &mut self,
        bulkheads: usize,
        pools: impl ExactSizeIterator<Item = (&'a str, &'a [u32])>,
    ) {
        if pools.len() == 0 {
            return;
        }
        let (series, columns) = super::pool_series::PoolSeries::new(bulkheads, pools);
        let buckets = self.end.div_ceil(self.bucket_ns) as usize;
        self.series.reserve_exact(buckets * columns.len());
        self.names.extend(columns);
        self.pools = series;
    }

    /// Closes every bucket that ends at or before `now`. Call before handling an event at `now`.
    #[inline]
    pub fn advance_to(&mut self, now: u64) {
        while now >= self.bucket_start + self.bucket_ns
            && self.bucket_start + self.bucket_ns <= self.end
        {
            self.close_bucket(self.bucket_start + self.bucket_ns);
        }
    }

    /// A logical call on `edge` ended.
    #[inline(always)]
    pub fn record_call_end(&mut self, edge: usize, outcome: Outcome, latency_ns: u64) {
        let acc = &mut self.edges[edge];
        acc.outcomes.record(outcome);
        // One record per call end, whatever the outcome (the instruction budget): a success
        // goes to the successes' histogram, a failure to the calls', and `close_bucket` folds
        // the first into the second before anything reads them.
        if outcome.is_success() {
            acc.success_latency.record(latency_ns);
        } else {
            acc.call_latency.record(latency_ns);
        }
    }

    /// A fallback call on `edge` ended: apart from the edge's other calls if a client's
    /// outcomes are copied from it (`fallback_ends`).
    #[inline(never)]
    pub fn record_fallback_end(&mut self, edge: usize, outcome: Outcome, latency_ns: u64) {
        match self.fallback_ends.iter_mut().find(|(e, _)| *e == edge) {
            Some((_, ends)) => {
                ends.outcomes.record(outcome);
                ends.latency.record(latency_ns);
                if outcome.is_success() {
                    ends.success_latency.record(latency_ns);
                }
            }
            None => self.record_call_end(edge, outcome, latency_ns),
        }
    }

    /// The busy and queue areas recorded on service slot `slot` from the start to `now`
    /// (kept only for orchestrated services' slots).
    pub fn service_integrals(&self, slot: usize, now: u64) -> [Area; 2] {
        let (acc, l, sum) = (
            &self.services[slot],
            &self.levels[slot],
            &self.cumulative[slot],
        );
        [
            sum[0] + acc.busy_area + l.busy.pending(now),
            sum[1] + acc.queue_area + l.queue.pending(now),
        ]
    }

    /// The integral of service `s`'s existing instances from the start to `now`.
    pub fn instance_integral(&self, s: usize, now: u64) -> Area {
        self.cumulative[s][2]
            + self.services[s].instances_area
            + self.life_levels[s].instances.pending(now)
    }

    /// Client `c`'s requests from the start of the run to now: the closed buckets', then the
    /// open bucket's on its own slot and on its mix entries' (merged only when it closes).
    pub fn client_requests(&self, c: usize) -> u64 {
        let parts = (self.client_parts.iter())
            .filter(|(_, whole)| *whole == c)
            .map(|(part, _)| self.clients[*part].requests);
        self.requests_closed[c] + self.clients[c].requests + parts.sum::<u64>()
    }

    /// True once the warm-up is over: what is recorded now counts in the summary.
    pub fn measuring(&self) -> bool {
        self.bucket_start >= self.warmup
    }

    fn close_bucket(&mut self, boundary: u64) {
        for (e, acc) in self.edges.iter_mut().enumerate() {
            // The bucket's successes join its failures: call_latency is every call's again.
            acc.call_latency.merge(&acc.success_latency);
            self.breakers_open[e].close(boundary, &mut acc.breaker_open_area);
            self.breakers_half_open[e].close(boundary, &mut acc.breaker_half_open_area);
            self.limits[e].close(boundary, &mut acc.limit_area);
        }
        for &(part, whole) in &self.edge_totals {
            let (part, whole) = two(&mut self.edges, part, whole);
            whole.merge(part);
        }
        for (client, &edge) in self.clients.iter_mut().zip(&self.client_edges) {
            let calls = &self.edges[edge];
            client.outcomes = calls.outcomes.clone();
            client.latency.merge(&calls.call_latency);
            client.success_latency.merge(&calls.success_latency);
        }
        for &(part, whole) in &self.client_parts {
            self.clients[whole].requests += self.clients[part].requests;
        }
        for (closed, acc) in self.requests_closed.iter_mut().zip(&self.clients) {
            *closed += acc.requests;
        }
        for (edge, ends) in &mut self.fallback_ends {
            let acc = &mut self.edges[*edge];
            acc.outcomes.merge(&ends.outcomes);
            acc.call_latency.merge(&ends.latency);
            acc.success_latency.merge(&ends.success_latency);
            *ends = CallEnds::default();
        }
        for (acc, l) in self.services.iter_mut().zip(self.levels.iter_mut()) {
            l.busy.close(boundary, &mut acc.busy_area);
            l.queue.close(boundary, &mut acc.queue_area);
            l.wasted.close(boundary, &mut acc.wasted_area);
            l.ejected.close(boundary, &mut acc.ejected_area);
        }
        for ((acc, l), sum) in self
            .services
            .iter_mut()
            .zip(self.life_levels.iter_mut())
            .zip(self.cumulative.iter_mut())
        {
            if acc.capacity_varies {
                l.instances.close(boundary, &mut acc.instances_area);
                l.not_ready.close(boundary, &mut acc.not_ready_area);
                sum[0] += acc.busy_area;
                sum[1] += acc.queue_area;
                sum[2] += acc.instances_area;
            }
        }
        for &(part, whole) in &self.service_parts {
            let (part, whole) = two(&mut self.services, part, whole);
            whole.merge_part(part);
        }
        let span = boundary - self.bucket_start;
        let mut values = std::mem::take(&mut self.series);
        self.emit_current(span, &mut |_, v| values.push(v));
        self.pools.close(boundary, span, &mut values);
        self.series = values;
        if self.measuring() {
            merge_all(&mut self.totals.0, &self.clients, ClientAcc::merge);
            merge_all(&mut self.totals.1, &self.services, ServiceAcc::merge);
            merge_all(&mut self.totals.2, &self.edges, EdgeAcc::merge);
        }
        let start = self.bucket_start;
        for w in self
            .windows
            .iter_mut()
            .filter(|w| w.start <= start && start < w.end)
        {
            merge_all(&mut w.totals.0, &self.clients, ClientAcc::merge);
            merge_all(&mut w.totals.1, &self.services, ServiceAcc::merge);
            merge_all(&mut w.totals.2, &self.edges, EdgeAcc::merge);
            w.span += span;
        }
        self.clients.iter_mut().for_each(ClientAcc::reset);
        self.services.iter_mut().for_each(ServiceAcc::reset);
        self.edges.iter_mut().for_each(EdgeAcc::reset);
        self.bucket_start = boundary;
    }

    fn emit_current(&self, span: u64, out: &mut dyn FnMut(&str, f64)) {
        emit_entities(
            &self.names_of,
            &self.reach,
            &self.clients,
            &self.services,
            &self.edges,
            span,
            out,
        );
    }

    /// Closes the last (possibly partial) bucket and returns the run's metrics. `stop` is the
    /// run's end, or the instant it stopped early (a diverged run): the series ends there and
    /// the summary measures from the warm-up's end to it.
    pub fn finish(mut self, stop: u64) -> RunMetrics {
        self.end = stop.min(self.end);
        self.advance_to(self.end);
        if self.bucket_start < self.end {
            self.close_bucket(self.end);
        }
        let mut summary = Vec::with_capacity(self.names.len());
        let duration = self.end.saturating_sub(self.warmup);
        emit_entities(
            &self.names_of,
            &self.reach,
            &self.totals.0,
            &self.totals.1,
            &self.totals.2,
            duration,
            &mut |n, v| summary.push((n.to_string(), v)),
        );
        for w in &self.windows {
            emit_entities(
                &self.names_of,
                &self.reach,
                &w.totals.0,
                &w.totals.1,
                &w.totals.2,
                w.span,
                &mut |n, v| summary.push((super::names::window_metric(&w.name, n), v)),
            );
        }
        RunMetrics {
            summary,
            names: self.names,
            series: self.series,
            bucket_ns: self.bucket_ns,
        }
    }
}

/// Two distinct elements of `v`, the first shared, the second mutable.
fn two<T>(v: &mut [T], a: usize, b: usize) -> (&T, &mut T) {
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&lo[a], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&hi[0], &mut lo[b])
    }
}

fn merge_all<T>(into: &mut [T], from: &[T], merge: fn(&mut T, &T)) {
    for (a, b) in into.iter_mut().zip(from) {
        merge(a, b);
    }
}
