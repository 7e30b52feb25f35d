//! `--trace`: every event of a run as CSV rows, for debugging small runs.
//!
//! Columns: `time_ns,request,parent,entity,event,outcome,detail`. A request is a logical call
//! (`c<slot>.<n>`, the n-th use of that arena slot) or one attempt's job at a service
//! (`j<slot>.<n>`); its parent is the job that made the call (or `client.<name>`), and a
//! job's parent is its call. `detail` holds what a replay of the call path needs, as
//! space-separated `key=value` pairs (`engine/caller/trace_rows.rs` writes them; the row kinds
//! are listed in docs/guide.md, "Tracing a run").
//! A `Filter` (`--trace-entity`, `--trace-request`, `--trace-from`/`--trace-to`) keeps only the
//! rows it selects; it lives inside the trace, so a run without `--trace` never consults it.
//! Rows stop being kept past `limit` (counted after the filter); the run then reports that the
//! trace overflowed and nothing is written, so a trace is never silently cut short.

use super::arena::Ref;
use crate::error::did_you_mean;
use crate::model::Model;
use std::collections::HashSet;
use std::fmt::Write as _;

pub const DEFAULT_LIMIT: u64 = 1_000_000;

pub struct Trace {
    rows: String,
    count: u64,
    limit: u64,
    filter: Option<Filter>,
    /// `--trace-sample`, and the time window of a trace of spans: whole trees of requests.
    trees: Option<super::trace_trees::Trees>,
}

/// Which rows a trace keeps: all of these that are given must hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// The row's entity is one of these (`client.web`, `service.api#0`, `edge.web.api`).
    entities: Option<HashSet<String>>,
    request: Option<Family>,
    /// `from <= time_ns < to`.
    from: u64,
    to: u64,
}

/// One request and everything it caused: the jobs of its attempts, the calls those jobs made,
/// its fallback calls, and theirs, down the tree. A child's first row names its parent, which
/// is already a member by then, so the family is followed as the rows are written.
#[derive(Debug, Clone, PartialEq)]
struct Family {
    pick: Pick,
    /// Client requests started so far (for `Pick::Nth`).
    started: u64,
    members: HashSet<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Pick {
    /// A request as the trace's `request` column names it: `c3.1` (a call) or `j7.2` (a job).
    Id(String),
    /// The n-th request a client started (from 1), in trace order.
    Nth(u64),
}

impl Filter {
    /// The filter `--trace-entity` (each a client, a service, an instance `api#1` or an edge
    /// `web->api`), `--trace-request` (a trace id such as `c0.1`, or N for the N-th client
    /// request) and `--trace-from`/`--trace-to` (ns) ask for on `model`; `None` when none is
    /// given. The error says what is wrong, with the closest name.
    pub fn new(
        model: &Model,
        entities: &[String],
        request: Option<&str>,
        from: Option<u64>,
        to: Option<u64>,
    ) -> Result<Option<Filter>, String> {
        if entities.is_empty() && request.is_none() && from.is_none() && to.is_none() {
            return Ok(None);
        }
        let (from, to) = (from.unwrap_or(0), to.unwrap_or(u64::MAX));
        if to <= from {
            return Err(format!(
                "--trace-to must be after --trace-from ({} is not after {})",
                crate::time::format_duration(to),
                crate::time::format_duration(from)
            ));
        }
        let entities = if entities.is_empty() {
            None
        } else {
            let mut set = HashSet::new();
            for name in entities {
                set.extend(entity_rows(model, name)?);
            }
            Some(set)
        };
        let request = request.map(parse_pick).transpose()?.map(|pick| Family {
            pick,
            started: 0,
            members: HashSet::new(),
        });
        Ok(Some(Filter {
            entities,
            request,
            from,
            to,
        }))
    }

    /// Whether the row is kept. Called for every row, in order, so that a request's family
    /// grows even through rows that other conditions leave out.
    fn keeps(&mut self, now: u64, request: &Id, parent: &str, entity: &str, event: &str) -> bool {
        let in_family = match &mut self.request {
            None => true,
            Some(family) => family.admits(request, parent, event),
        };
        in_family
            && (self.from..self.to).contains(&now)
            && self
                .entities
                .as_ref()
                .is_none_or(|set| set.contains(entity))
    }
}

impl Family {
    fn admits(&mut self, request: &Id, parent: &str, event: &str) -> bool {
        if matches!(request, Id::None) {
            return false;
        }
        let id = request.to_string();
        if self.members.contains(&id) {
            return true;
        }
        let root = match &self.pick {
            Pick::Id(want) => *want == id,
            Pick::Nth(n) => {
                let started = event == "call_start" && parent.starts_with("client.");
                if started {
                    self.started += 1;
                }
                started && self.started == *n
            }
        };
        // The root is taken once: an id is never reused (its use number grows).
        if (root && self.members.is_empty()) || self.members.contains(parent) {
            self.members.insert(id);
            return true;
        }
        false
    }
}

fn parse_pick(text: &str) -> Result<Pick, String> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        return if n == 0 {
            Err("--trace-request 0: requests are counted from 1".into())
        } else {
            Ok(Pick::Nth(n))
        };
    }
    let well_formed = t
        .strip_prefix(['c', 'j'])
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(slot, uses)| {
            [slot, uses]
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        });
    if well_formed {
        Ok(Pick::Id(t.to_string()))
    } else {
        Err(format!(
            "--trace-request {text}: expected a request as the trace's request column names it \
             (a call `c0.1` or a job `j0.1`), or a number N for the N-th request a client started"
        ))
    }
}

/// The `entity` values of the rows about `name`: a client's `client.<c>`; a service's
/// `service.<s>` and every instance's `service.<s>#<i>`; one instance's; an edge's
/// `edge.<from>.<to>`, and those of its operations' edges.
fn entity_rows(model: &Model, name: &str) -> Result<Vec<String>, String> {
    let name = name.trim();
    if let Some((from, to)) = name.split_once("->") {
        let (from, to) = (from.trim(), to.trim());
        let pair = format!("{from}.{to}");
        let rows: Vec<String> = model
            .edges
            .iter()
            .filter(|e| e.name == pair || e.name.starts_with(&format!("{pair}.op.")))
            .map(|e| format!("edge.{}", e.name))
            .collect();
        if rows.is_empty() {
            let edges: Vec<String> = model
                .edges
                .iter()
                .filter(|e| e.total.is_none())
                .map(|e| e.name.replacen('.', "->", 1))
                .collect();
            return Err(format!(
                "--trace-entity {name}: no calls go that way{}; edges: {}",
                did_you_mean(&format!("{from}->{to}"), edges.iter().map(String::as_str)),
                edges.join(", ")
            ));
        }
        return Ok(rows);
    }
    let (service, instance) = match name.split_once('#') {
        Some((s, i)) => (s, Some(i)),
        None => (name, None),
    };
    if let Some(s) = model.services.iter().find(|s| s.name == service) {
        return match instance {
            None => Ok(std::iter::once(format!("service.{}", s.name))
                .chain((0..s.instance_slots()).map(|i| format!("service.{}#{i}", s.name)))
                .collect()),
            Some(i) => match i.parse::<u32>() {
                Ok(i) if i < s.instance_slots() => Ok(vec![format!("service.{}#{i}", s.name)]),
                _ => Err(format!(
                    "--trace-entity {name}: `{}` has instances #0 to #{}",
                    s.name,
                    s.instance_slots() - 1
                )),
            },
        };
    }
    if instance.is_none()
        && let Some(c) = model.clients.iter().find(|c| c.name == name)
    {
        return Ok(vec![format!("client.{}", c.name)]);
    }
    let names: Vec<&str> = model
        .clients
        .iter()
        .map(|c| c.name.as_str())
        .chain(model.services.iter().map(|s| s.name.as_str()))
        .collect();
    Err(format!(
        "--trace-entity {name}: no client or service has that name{}; an edge is written \
         `from->to`",
        did_you_mean(service, names.iter().copied())
    ))
}

/// Who a row is about.
pub enum Id {
    Call(Ref),
    Job(Ref),
    None,
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Id::Call(r) => write!(f, "c{}.{}", r.index, r.use_number()),
            Id::Job(r) => write!(f, "j{}.{}", r.index, r.use_number()),
            Id::None => Ok(()),
        }
    }
}

impl Trace {
    pub fn new(limit: u64) -> Trace {
        Trace {
            rows: String::from("time_ns,request,parent,entity,event,outcome,detail\n"),
            count: 0,
            limit,
            filter: None,
            trees: None,
        }
    }

    #[allow(clippy::too_many_arguments)] // one per column
    pub fn row(
        &mut self,
        now: u64,
        request: Id,
        parent: &str,
        entity: &str,
        event: &str,
        outcome: &str,
        detail: &str,
    ) {
        // Both see every row, since each follows its trees as the rows come.
        let filtered = self
            .filter
            .as_mut()
            .is_some_and(|f| !f.keeps(now, &request, parent, entity, event));
        let outside = self
            .trees
            .as_mut()
            .is_some_and(|t| !t.admits(now, &request, parent, event));
        if filtered || outside {
            return;
        }
        self.count += 1;
        if self.count <= self.limit {
            let _ = writeln!(
                self.rows,
                "{now},{request},{parent},{entity},{event},{outcome},{detail}"
            );
        }
    }

    /// The CSV text, or `Err(rows)` when there were more rows than the limit.
    pub fn finish(self) -> Result<String, u64> {
        if self.count > self.limit {
            Err(self.count)
        } else {
            Ok(self.rows)
        }
    }
}

impl super::simulation::Simulation {
    /// Keeps only the rows `filter` selects, of the trace `with_trace` asked for (without one,
    /// there is no trace to filter and this does nothing).
    pub fn with_trace_filter(mut self, filter: Filter) -> super::simulation::Simulation {
        if let Some(t) = self.trace.as_mut() {
            t.filter = Some(filter);
        }
        self
    }

    /// Keeps only the rows of the request trees `trees` selects (`--trace-sample`), of the
    /// trace `with_trace` asked for.
    pub fn with_trace_trees(
        mut self,
        trees: super::trace_trees::Trees,
    ) -> super::simulation::Simulation {
        if let Some(t) = self.trace.as_mut() {
            t.trees = Some(trees);
        }
        self
    }

    /// Keeps a row for an event about to be handled.
    pub(in crate::engine) fn trace_event(&mut self, event: &super::state::Event) {
        use super::state::Event;
        let (request, name) = match *event {
            Event::Arrival(c) | Event::UserStart { client: c, .. } => {
                let entity = format!("client.{}", self.model.clients[c as usize].name);
                self.trace_row(Id::None, "", &entity, "arrival", "", "");
                return;
            }
            Event::Deliver(j) => {
                use super::state::JobState;
                let name = match self.jobs.get(j).map(|job| job.state) {
                    Some(JobState::Awaiting) => "readmit",
                    Some(JobState::Delayed) => "delay_over",
                    _ => "deliver",
                };
                (Id::Job(j), name)
            }
            Event::WorkDone(j) => (Id::Job(j), "work_done"),
            // An answer given after a delay (a fault's latency, a dropped request) is then
            // replied to; a reply crossing a network arrives later.
            Event::Answer(j) => (Id::Job(j), "answer_due"),
            Event::Reply(j) => (Id::Job(j), "reply_arrives"),
            // Timers are cancelled lazily: one outlived by its attempt fires and does nothing,
            // and gets no row, so a replay may read every timer row as the timer acting.
            Event::AttemptTimer { call, attempt } if self.attempt_timer_acts(call, attempt) => {
                (Id::Call(call), "attempt_timer")
            }
            Event::Resume { call, attempt } if self.resume_acts(call, attempt) => {
                (Id::Call(call), "resume")
            }
            Event::PermitTimeout { call, attempt }
                if self.permit_timeout_may_act(call, attempt) =>
            {
                (Id::Call(call), "permit_timeout")
            }
            Event::Hedge { call, attempt } if self.hedge_may_act(call, attempt) => {
                (Id::Call(call), "hedge_due")
            }
            Event::AttemptTimer { .. }
            | Event::Resume { .. }
            | Event::PermitTimeout { .. }
            | Event::Hedge { .. } => return,
            // Its handlers write the rows that say what it did (`trace_instance`).
            Event::Life { .. } => return,
            Event::OutlierSweep(s) => {
                let entity = format!("service.{}", self.model.services[s as usize].name);
                self.trace_row(Id::None, "", &entity, "outlier_sweep", "", "");
                return;
            }
            Event::RefusalDone {
                service, instance, ..
            } => {
                let name = &self.model.services[service as usize].name;
                let entity = format!("service.{name}#{instance}");
                self.trace_row(Id::None, "", &entity, "refusal_paid", "", "");
                return;
            }
            Event::FaultStart(f) | Event::FaultEnd(f) => {
                let what = if matches!(event, Event::FaultStart(_)) {
                    "fault_start"
                } else {
                    "fault_end"
                };
                self.trace_row(Id::None, "", &format!("fault.{f}"), what, "", "");
                return;
            }
        };
        match request {
            Id::Job(j) => self.trace_job(j, name),
            Id::Call(c) => self.trace_call(c, name, "", ""),
            Id::None => {}
        }
    }

    /// A row about job `j` (stale references, already gone, are skipped).
    pub(in crate::engine) fn trace_job(&mut self, j: Ref, event: &str) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        let entity = format!(
            "service.{}#{}",
            self.model.services[job.service as usize].name, job.instance
        );
        let parent = if job.caller == crate::engine::platform::probes::PROBE_CALLER {
            "probe".to_string()
        } else {
            Id::Call(job.caller).to_string()
        };
        let outcome = match job.state {
            super::state::JobState::Replying => job.outcome.name(),
            _ => "",
        };
        self.trace_row(Id::Job(j), &parent, &entity, event, outcome, "");
    }

    /// A row about instance `i` of service `s` itself (its probes, restarts, rotation and
    /// scaling), with no request.
    pub(in crate::engine) fn trace_instance(&mut self, s: usize, i: u32, event: &str) {
        let entity = format!("service.{}#{i}", self.model.services[s].name);
        self.trace_row(Id::None, "", &entity, event, "", "");
    }

    /// A row about logical call `c`, with its `detail`.
    pub(in crate::engine) fn trace_call(
        &mut self,
        c: Ref,
        event: &str,
        outcome: &str,
        detail: &str,
    ) {
        let Some(call) = self.calls.get(c) else {
            return;
        };
        let spec = super::simulation::spec_of(&self.specs, call.spec);
        let entity = format!("edge.{}", self.model.edges[spec.edge].name);
        let parent = match call.parent {
            super::state::Parent::Client { client, .. } => {
                format!("client.{}", self.model.clients[client as usize].name)
            }
            super::state::Parent::Job(j) | super::state::Parent::Detached(j) => {
                Id::Job(j).to_string()
            }
            super::state::Parent::Fallback(o) => Id::Call(o).to_string(),
        };
        self.trace_row(Id::Call(c), &parent, &entity, event, outcome, detail);
    }

    pub(in crate::engine) fn trace_row(
        &mut self,
        request: Id,
        parent: &str,
        entity: &str,
        event: &str,
        outcome: &str,
        detail: &str,
    ) {
        let now = self.now;
        if let Some(t) = self.trace.as_mut() {
            t.row(now, request, parent, entity, event, outcome, detail);
        }
    }
}
