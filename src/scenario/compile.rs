//! Validates a raw scenario into a `Scenario` (its `Model` and what is read beside it): defaults applied, names resolved to dense ids,
//! numbers range-checked, the call graph checked for cycles. Every error names its field.

use super::dist::compile_dist;
use super::document::Source;
use super::schema::*;
use super::service_policy;
use crate::error::did_you_mean;
use crate::model::{self, CallSpec, Edge, Latency, Load, Model, Policy};
use crate::time::NANOS_PER_SEC;
use std::collections::BTreeMap;
use std::sync::Arc;

pub(super) type Res<T> = super::document::Located<T>;

/// Warm-up plus duration stays below this (2^62 ns, about 146 years).
const MAX_END_NS: u64 = 1 << 62;

pub fn compile(raw: &RawScenario, shared: &Arc<Source>) -> Res<super::Scenario> {
    let src: &Source = shared;
    let meta = &raw.scenario;
    check_name(src, "scenario.name", &meta.name)?;
    if meta.duration.0 == 0 {
        return Err(src.error_at("scenario.duration", "must be longer than zero"));
    }
    let bucket = meta.bucket.map_or(NANOS_PER_SEC, |b| b.0);
    if bucket == 0 {
        return Err(src.error_at("scenario.bucket", "must be longer than zero"));
    }
    let warmup = meta.warmup.map_or(0, |w| w.0);
    // The engine's clock counts nanoseconds and converts them through i64 on its hot path:
    // 2^62 ns (146 years) leaves room for every deadline and timer added to the end.
    if warmup
        .checked_add(meta.duration.0)
        .is_none_or(|end| end >= MAX_END_NS)
    {
        return Err(src.error_at(
            "scenario.duration",
            "with the warm-up, must stay below 146 years (the clock counts nanoseconds)",
        ));
    }
    let recovery_hold = meta.recovery_hold.map_or(10 * NANOS_PER_SEC, |h| h.0);
    if recovery_hold == 0 {
        return Err(src.error_at("scenario.recovery_hold", "must be longer than zero"));
    }
    let recovery_tolerance = meta.recovery_tolerance.unwrap_or(0.05);
    if !(0.0..1.0).contains(&recovery_tolerance) {
        return Err(src.error_at(
            "scenario.recovery_tolerance",
            "is a share of the goodput before the fault: at least 0, below 1",
        ));
    }
    let max_in_flight = meta.max_in_flight.unwrap_or(model::DEFAULT_MAX_IN_FLIGHT);
    if max_in_flight == 0 {
        return Err(src.error_at("scenario.max_in_flight", "must be at least 1"));
    }
    if !warmup.is_multiple_of(bucket) {
        return Err(src.error_at(
            "scenario.warmup",
            "must be a whole number of buckets, so that time-series buckets after the warm-up add up to the summary",
        ));
    }
    if raw.service.is_empty() {
        return Err(src.error_at("scenario", "the scenario has no [[service]]"));
    }
    if raw.client.is_empty() {
        return Err(src.error_at(
            "scenario",
            "the scenario has no [[client]] to send requests",
        ));
    }

    let service_ids = index_names(src, "service", raw.service.iter().map(|s| s.name.as_str()))?;
    let client_ids = index_names(src, "client", raw.client.iter().map(|c| c.name.as_str()))?;
    if let Some(name) = client_ids.keys().find(|n| service_ids.contains_key(*n)) {
        return Err(src.error_at(
            &format!("client.{name}.name"),
            format!("`{name}` names both a client and a service; edge metrics need them apart"),
        ));
    }
    for name in raw.policy.keys() {
        check_name(src, &format!("policy.{name}"), name)?;
    }
    let mut ctx = Ctx {
        src,
        raw,
        service_ids,
        edges: Vec::new(),
        call_specs: 0,
        fallbacks: Vec::new(),
    };
    // Every policy is checked, used or not: a broken one must not wait for its first caller.
    for name in raw.policy.keys() {
        let policy = ctx.policy(&format!("policy.{name}"), Some(name))?;
        // A fallback call's policy must exist and not fall back again, used or not.
        if let Some((_, Some(fallback_policy))) = policy.fallback().and_then(|f| f.to()) {
            let path = format!("policy.{name}.fallback.policy");
            if ctx
                .policy(&path, Some(fallback_policy))?
                .fallback()
                .is_some()
            {
                return Err(
                    src.error_at(&path, "a fallback call's own policy cannot fall back again")
                );
            }
        }
    }

    // Clients first, so their edges lead the edge list (and every table of edges).
    let mut clients = Vec::new();
    for c in &raw.client {
        clients.push(ctx.client(c)?);
    }
    let mut services = Vec::new();
    for s in &raw.service {
        services.push(ctx.service(s)?);
    }
    super::graph::check_acyclic(src, &services, &ctx.fallbacks)?;
    let end = warmup + meta.duration.0;
    let scope = super::fault::Scope {
        services: &services,
        edges: &ctx.edges,
        clients: clients.iter().map(|c| c.name.clone()).collect(),
        closed_clients: clients
            .iter()
            .map(|c| matches!(c.load, Load::Closed { .. }))
            .collect(),
    };
    let faults = raw
        .fault
        .iter()
        .enumerate()
        .map(|(i, f)| super::fault::compile_fault(src, i, f, &scope, end))
        .collect::<Res<Vec<_>>>()?;
    super::fault_baseline::check(src, &faults, warmup, bucket)?;
    super::fault::fold_overloads(&mut clients, &faults);
    let mut windows = raw
        .window
        .iter()
        .enumerate()
        .map(|(i, w)| {
            super::window::compile_window(src, &format!("window.{i}"), w, &faults, warmup, end)
        })
        .collect::<Res<Vec<_>>>()?;
    for (i, w) in windows.iter().enumerate() {
        if w.name.starts_with("expect-") {
            return Err(src.error_at(
                &format!("window.{i}.name"),
                "names starting with `expect-` are kept for the windows of [[expect]]",
            ));
        }
        if windows[..i].iter().any(|o| o.name == w.name) {
            return Err(src.error_at(
                &format!("window.{i}.name"),
                format!("a second window named `{}`", w.name),
            ));
        }
    }
    let expects =
        super::expect_compile::compile_expects(src, raw, &faults, warmup, end, &mut windows)?;
    let alerts = super::alert::compile_alerts(
        src,
        &raw.alert,
        &super::alert::Scope {
            clients: &clients,
            services: &services,
            fault_starts: faults.iter().map(|f| f.start).collect(),
            warmup,
            end,
            bucket,
        },
    )?;
    let margin_expects = expects.margins;
    let expects = expects.runs;
    let model = Model {
        faults,
        name: meta.name.clone(),
        seed: meta.seed.unwrap_or(1),
        duration: meta.duration.0,
        warmup,
        bucket,
        recovery_hold,
        recovery_tolerance,
        max_in_flight,
        windows,
        alerts,
        clients,
        services,
        edges: ctx.edges,
        call_specs: ctx.call_specs,
        fallbacks: ctx.fallbacks,
    };
    super::limits::check(&model, src)?;
    super::alert::check_series(src, &model)?;
    super::pools::check(&model, src)?;
    super::unbounded::check(src, raw, &model)?;
    Ok(super::Scenario {
        model,
        expects,
        margin_expects,
        sweep: raw
            .sweep
            .as_ref()
            .map(|s| super::grid::compile_sweep(src, s))
            .transpose()?,
        variants: super::variants_of(src, raw)?,
        allow: super::warnings::allowed(src, meta.allow.as_deref().unwrap_or_default())?,
        source: Arc::clone(shared),
        run: super::expectation::BASE.to_string(),
    })
}

/// What compiling needs across entities: names resolved so far, edges and call specs numbered.
pub(super) struct Ctx<'a> {
    pub(super) src: &'a Source,
    pub(super) raw: &'a RawScenario,
    pub(super) service_ids: BTreeMap<String, usize>,
    pub(super) edges: Vec<Edge>,
    pub(super) call_specs: usize,
    pub(super) fallbacks: Vec<CallSpec>,
}

impl Ctx<'_> {
    fn service(&mut self, s: &RawService) -> Res<model::Service> {
        let at = |f: &str| format!("service.{}.{f}", s.name);
        let instances = positive_u32(self.src, &at("instances"), s.instances.unwrap_or(1))?;
        // Its range is the parser's (`workers.rs`): a count ≥ 1 or `Service::UNBOUNDED`.
        let workers = s.workers.map_or(1, |w| w.0);
        let operations = self.operations(s, workers)?;
        let plan = match &operations {
            Some(_) => model::Plan {
                work: Latency::Constant(0),
                steps: Vec::new(),
                branches: Vec::new(),
                publishes: Vec::new(),
                after: None,
            },
            None => {
                let path = format!("service.{}", s.name);
                let mut plan = self.plan(
                    &s.name,
                    &path,
                    "",
                    s.work.as_ref(),
                    s.calls.as_deref().unwrap_or_default(),
                )?;
                plan.after =
                    self.after_work(&path, s.after_work.as_ref(), s.after_work_on_failure)?;
                plan
            }
        };
        let overload = super::overload::overload(self.src, s, workers)?;
        let operations = operations.unwrap_or_default();
        let partitioned = operations.iter().any(|o| o.partition.is_some());
        let discipline = s.discipline.unwrap_or_default();
        let drop_expired = s.drop_expired.unwrap_or(false);
        let adaptive_lifo = service_policy::adaptive_lifo(self.src, &at("adaptive_lifo"), s)?;
        let dedup_window = s.dedup_window.map(|d| d.0).filter(|&w| w > 0);
        let balancer = s.balancer.unwrap_or_default();
        let slow_start = s
            .slow_start
            .as_ref()
            .map(|r| super::slow_start::slow_start(self.src, &at("slow_start"), r, balancer))
            .transpose()?;
        Ok(model::Service {
            name: s.name.clone(),
            instances,
            workers,
            queue: s.queue.unwrap_or(u64::MAX),
            discipline,
            drop_expired,
            balancer,
            plan,
            partitioned,
            operations,
            admission: s
                .admission
                .as_ref()
                .map(|a| self.admission(&at("admission"), a))
                .transpose()?,
            rate_limit: s
                .rate_limit
                .as_ref()
                .map(|r| super::rate_limit::rate_limit(self.src, &at("rate_limit"), r))
                .transpose()?,
            codel: s
                .codel
                .as_ref()
                .map(|c| service_policy::codel(self.src, &at("codel"), c))
                .transpose()?,
            adaptive_lifo,
            outlier: s
                .outlier
                .as_ref()
                .map(|o| service_policy::outlier(self.src, &at("outlier"), o))
                .transpose()?,
            slow_start,
            overload,
            dedup_window,
            orchestration: super::orchestration::orchestration(self.src, s)?,
        })
    }

    fn admission(&self, path: &str, a: &RawAdmission) -> Res<model::Admission> {
        // A class without a threshold is shed where the class above it is.
        let mut above = u64::MAX;
        let thresholds = [a.critical_plus, a.critical, a.sheddable_plus, a.sheddable].map(|t| {
            above = t.unwrap_or(above);
            above
        });
        if thresholds.iter().all(|t| *t == u64::MAX) {
            return Err(self.src.error_at(path, "give a threshold for at least one class (sheddable, sheddable_plus, critical, critical_plus)"));
        }
        if thresholds.windows(2).any(|w| w[0] < w[1]) {
            return Err(self.src.error_at(path, "lower classes must be shed first: thresholds may not rise from critical_plus down to sheddable"));
        }
        Ok(model::Admission {
            by: a.by.unwrap_or_default(),
            thresholds,
            retry_after: a.retry_after.map(|d| d.0),
        })
    }

    pub(super) fn policy(&self, path: &str, name: Option<&str>) -> Res<Policy> {
        let Some(name) = name else {
            return Ok(Policy::default());
        };
        let Some(p) = self.raw.policy.get(name) else {
            let hint = did_you_mean(name, self.raw.policy.keys().map(String::as_str));
            return Err(self.src.error_at(path, format!("no [policy.{name}]{hint}")));
        };
        super::policy::compile_policy(self.src, name, p, &self.service_ids)
    }

    pub(super) fn service_id(&self, path: &str, name: &str) -> Res<usize> {
        self.service_ids.get(name).copied().ok_or_else(|| {
            let hint = did_you_mean(name, self.service_ids.keys().map(String::as_str));
            self.src
                .error_at(path, format!("no service named `{name}`{hint}"))
        })
    }

    pub(super) fn next_spec_id(&mut self) -> usize {
        self.call_specs += 1;
        self.call_specs - 1
    }

    pub(super) fn edge(&mut self, from: &str, to: usize) -> usize {
        let name = format!("{from}.{}", self.raw.service[to].name);
        if let Some(i) = self.edges.iter().position(|e| e.name == name) {
            return i;
        }
        self.edges.push(Edge {
            name,
            to,
            total: None,
        });
        self.edges.len() - 1
    }

    /// The edge a call from `from` to operation `operation` of `to` records on: the pair's,
    /// or for an operation its own, `from.to.op.<operation>`, the pair's edge made first.
    pub(super) fn edge_to(&mut self, from: &str, to: usize, operation: u16) -> usize {
        let pair = self.edge(from, to);
        if operation == 0 {
            return pair;
        }
        let op = &self.raw.service[to]
            .operation
            .as_deref()
            .unwrap_or_default()[usize::from(operation) - 1];
        let name = format!("{}.op.{}", self.edges[pair].name, op.name);
        if let Some(i) = self.edges.iter().position(|e| e.name == name) {
            return i;
        }
        self.edges.push(Edge {
            name,
            to,
            total: Some(pair),
        });
        self.edges.len() - 1
    }

    pub(super) fn dist(&self, path: &str, d: &RawDist) -> Res<Latency> {
        compile_dist(d).map_err(|msg| self.src.error_at(path, msg))
    }
}

pub(super) fn positive_u32(src: &Source, path: &str, v: u32) -> Res<u32> {
    if v == 0 {
        Err(src.error_at(path, "must be at least 1"))
    } else {
        Ok(v)
    }
}

pub(super) fn check_name(src: &Source, path: &str, name: &str) -> Res<()> {
    cascade_policy::table::check_name(name).map_err(|m| src.error_at(path, m))
}

fn index_names<'a>(
    src: &Source,
    kind: &str,
    names: impl Iterator<Item = &'a str>,
) -> Res<BTreeMap<String, usize>> {
    let mut ids = BTreeMap::new();
    for (i, name) in names.enumerate() {
        check_name(src, &format!("{kind}.{name}.name"), name)?;
        if ids.insert(name.to_string(), i).is_some() {
            return Err(src.error_at(
                &format!("{kind}.{name}.name"),
                format!("two {kind}s are named `{name}`"),
            ));
        }
    }
    Ok(ids)
}
