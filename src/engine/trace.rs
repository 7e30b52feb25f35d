//! `--trace`: every event of a run as CSV rows, for debugging small runs.
//!
//! Columns: `time_ns,request,parent,entity,event,outcome`. A request is a logical call
//! (`c<slot>.<n>`, the n-th use of that arena slot) or one attempt's job at a service
//! (`j<slot>.<n>`); its parent is the job that made the call (or `client.<name>`), and a
//! job's parent is its call.
//! Rows stop being kept past `limit`; the run then reports that the trace overflowed and
//! nothing is written, so a trace is never silently cut short.

use super::arena::Ref;
use std::fmt::Write as _;

pub const DEFAULT_LIMIT: u64 = 1_000_000;

pub struct Trace {
    rows: String,
    count: u64,
    limit: u64,
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
            rows: String::from("time_ns,request,parent,entity,event,outcome\n"),
            count: 0,
            limit,
        }
    }

    pub fn row(
        &mut self,
        now: u64,
        request: Id,
        parent: &str,
        entity: &str,
        event: &str,
        outcome: &str,
    ) {
        self.count += 1;
        if self.count <= self.limit {
            let _ = writeln!(
                self.rows,
                "{now},{request},{parent},{entity},{event},{outcome}"
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

impl super::sim::Simulation {
    /// Keeps a row for an event about to be handled.
    pub(super) fn trace_event(&mut self, event: &super::state::Event) {
        use super::state::Event;
        let (request, name) = match *event {
            Event::Arrival(c) | Event::UserStart { client: c, .. } => {
                let entity = format!("client.{}", self.model.clients[c as usize].name);
                self.trace_row(Id::None, "", &entity, "arrival", "");
                return;
            }
            Event::Deliver(j) => (Id::Job(j), "deliver"),
            Event::WorkDone(j) => (Id::Job(j), "work_done"),
            // An answer given after a delay (a fault's latency, a dropped request) is then
            // replied to; a reply crossing a network arrives later.
            Event::Answer(j) => (Id::Job(j), "answer_due"),
            Event::Reply(j) => (Id::Job(j), "reply_arrives"),
            Event::AttemptTimer { call, .. } => (Id::Call(call), "attempt_timer"),
            Event::Resume { call, .. } => (Id::Call(call), "resume"),
            Event::PermitTimeout { call, .. } => (Id::Call(call), "permit_timeout"),
            Event::Hedge { call, .. } => (Id::Call(call), "hedge_due"),
            Event::OutlierSweep(s) => {
                let entity = format!("service.{}", self.model.services[s as usize].name);
                self.trace_row(Id::None, "", &entity, "outlier_sweep", "");
                return;
            }
            Event::RefusalDone {
                service, instance, ..
            } => {
                let name = &self.model.services[service as usize].name;
                let entity = format!("service.{name}#{instance}");
                self.trace_row(Id::None, "", &entity, "refusal_paid", "");
                return;
            }
            Event::FaultStart(f) | Event::FaultEnd(f) => {
                let what = if matches!(event, Event::FaultStart(_)) {
                    "fault_start"
                } else {
                    "fault_end"
                };
                self.trace_row(Id::None, "", &format!("fault.{f}"), what, "");
                return;
            }
        };
        match request {
            Id::Job(j) => self.trace_job(j, name),
            Id::Call(c) => self.trace_call(c, name, ""),
            Id::None => {}
        }
    }

    /// A row about job `j` (stale references, already gone, are skipped).
    pub(super) fn trace_job(&mut self, j: Ref, event: &str) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        let entity = format!(
            "service.{}#{}",
            self.model.services[job.service as usize].name, job.instance
        );
        let parent = Id::Call(job.caller).to_string();
        let outcome = match job.state {
            super::state::JobState::Replying => job.outcome.name(),
            _ => "",
        };
        self.trace_row(Id::Job(j), &parent, &entity, event, outcome);
    }

    /// A row about logical call `c`.
    pub(super) fn trace_call(&mut self, c: Ref, event: &str, outcome: &str) {
        let Some(call) = self.calls.get(c) else {
            return;
        };
        let spec = super::sim::spec_of(&self.specs, call.spec);
        let entity = format!("edge.{}", self.model.edges[spec.edge].name);
        let parent = match call.parent {
            super::state::Parent::Client { client, .. } => {
                format!("client.{}", self.model.clients[client as usize].name)
            }
            super::state::Parent::Job(j) => Id::Job(j).to_string(),
            super::state::Parent::Fallback(o) => Id::Call(o).to_string(),
        };
        self.trace_row(Id::Call(c), &parent, &entity, event, outcome);
    }

    fn trace_row(&mut self, request: Id, parent: &str, entity: &str, event: &str, outcome: &str) {
        let now = self.now;
        if let Some(t) = self.trace.as_mut() {
            t.row(now, request, parent, entity, event, outcome);
        }
    }
}
