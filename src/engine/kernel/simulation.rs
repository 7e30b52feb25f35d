//! The run loop and the event handlers: clients start logical calls, calls make attempts,
//! attempts become jobs at service instances, jobs do their work and their own calls, and
//! replies travel back. Policies (`cascade_policy`) decide; this file only moves requests.
//! A simulation is built from its model in `build.rs`.

use super::arena::Arena;
use super::event_queue::EventQueue;
use super::rng::Stream;
use super::state::*;
use super::watchdog::{CHECK_EVERY, NoProgress, Stop};
use crate::engine::arrivals::next_arrival;
use crate::metrics::RunMetrics;
use crate::metrics::recorder::Recorder;
use crate::model::{CallSpec, Load, Model};

pub struct Simulation {
    pub(in crate::engine) model: Model,
    pub(in crate::engine) specs: Vec<CallSpec>,
    pub(in crate::engine) now: u64,
    pub(in crate::engine) end: u64,
    pub(in crate::engine) event_queue: EventQueue<Event>,
    pub(in crate::engine) calls: Arena<Call>,
    pub(in crate::engine) jobs: Arena<Job>,
    pub(in crate::engine) ops: Arena<Op>,
    pub(in crate::engine) clients: Vec<ClientState>,
    pub(in crate::engine) services: Vec<ServiceState>,
    pub(in crate::engine) edge_rngs: Vec<Stream>,
    pub(in crate::engine) rec: Recorder,
    pub(in crate::engine) events: u64,
    /// Whether any service keeps a least-outstanding tree (`ServiceState::least`): without
    /// one, `outstanding_changed` is this one test, no index into the services.
    pub(in crate::engine) any_least: bool,
    /// Policy state per (call spec, caller instance); `path_base[spec.id]` is the first.
    pub(in crate::engine) policies: Vec<PolicyState>,
    pub(in crate::engine) path_base: Vec<u32>,
    /// Every bulkhead (`PolicyState::bulkhead` indexes it), and the named pools among them.
    pub(in crate::engine) bulkheads: crate::engine::caller::policy_state::Bulkheads,
    pub(in crate::engine) pools: Vec<crate::engine::caller::policy_state::NamedPool>,
    /// Metrics slots (`metrics::slots`): a job of operation `k` of service `s` records on
    /// `metric_slot_base[s] + k`; mix entry `k` of client `c` on `client_metric_slot_base[c] + k`.
    pub(in crate::engine) metric_slot_base: Vec<u32>,
    pub(in crate::engine) client_metric_slot_base: Vec<u32>,
    pub(in crate::engine) faults: crate::engine::faults::per_request::FaultIndex,
    /// Closed-loop users that overload faults add.
    pub(in crate::engine) extra_users: Vec<crate::engine::faults::events::ExtraUsers>,
    /// At services with `overload`, per job slot (`Ref::index`): the current segment of its
    /// work (`overload.rs`). Kept beside the jobs so other jobs carry nothing for it.
    pub(in crate::engine) segments: Vec<crate::engine::service::overload::Segment>,
    /// The hosts each call tried, for a retry with `retry.other_host`; empty otherwise.
    pub(in crate::engine) tried_hosts: crate::engine::balancer::other_host::TriedHosts,
    /// Bulkhead permits held until the callee answers (`bulkhead.release = "answer"`).
    pub(in crate::engine) pool_holds: crate::engine::caller::pool_holds::PoolHolds,
    /// Every event as a CSV row, when asked for (`--trace`).
    pub(in crate::engine) trace: Option<Box<super::trace::Trace>>,
    /// Events handled at instant `instant_at` (counted in strides of `CHECK_EVERY`), against
    /// `instant_limit` (`engine::watchdog`).
    pub(in crate::engine) instant_at: u64,
    pub(in crate::engine) instant_events: u64,
    pub(in crate::engine) instant_limit: u64,
    /// Each closed-loop client's most requests (`engine::work_bound`), looked at with the clock.
    pub(in crate::engine) work_bound: super::work_bound::WorkBound,
    pub(in crate::engine) stopped: Option<Stop>,
    /// Told the simulated time once per stride of events (a progress bar), when asked for.
    pub(in crate::engine) observer: Option<Box<dyn FnMut(u64) + Send>>,
}

pub use crate::metrics::names::RUN_METRICS;

/// What a finished run measured, and how much work the engine did. The verdicts on its
/// faults are computed from it above the engine (`cascade::judge`): the engine measures.
pub struct Measured {
    pub metrics: RunMetrics,
    pub events: u64,
    /// Most calls and jobs in flight at once (arena high-water marks).
    pub peak_in_flight: usize,
    /// When the run stopped (ns): its end, or the instant it diverged.
    pub stopped_at: u64,
    /// The trace's CSV text, when one was asked for; `Err(rows)` when it had more rows than
    /// its limit.
    pub trace: Option<Result<String, u64>>,
}

#[inline(always)]
pub(in crate::engine) fn spec_of(specs: &[CallSpec], id: SpecId) -> &CallSpec {
    &specs[id.0 as usize]
}

impl Simulation {
    /// Keeps every event as a CSV row (at most `limit` rows; see `engine::trace`).
    pub fn with_trace(mut self, limit: u64) -> Simulation {
        self.trace = Some(Box::new(super::trace::Trace::new(limit)));
        self
    }

    /// Calls `observe` with the simulated time (ns) once per `CHECK_EVERY` events, on the
    /// stride's cold path: for progress shown while a long run goes on. It sees the clock
    /// only and can change nothing.
    pub fn with_observer(mut self, observe: Box<dyn FnMut(u64) + Send>) -> Simulation {
        self.observer = Some(observe);
        self
    }

    /// Current simulated time, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Handles the next event, if there is one before the end of the run; returns its time.
    pub fn step(&mut self) -> Option<u64> {
        let (t, event) = self.event_queue.pop()?;
        if t >= self.end {
            // Past the end: put it back (in front of its ties, as it was) and stop.
            self.event_queue.push_front(t, event);
            return None;
        }
        if t < self.now {
            time_ran_backwards(t, self.now);
        }
        self.rec.advance_to(t);
        self.now = t;
        self.events += 1;
        self.handle(event);
        Some(t)
    }

    /// Called every `CHECK_EVERY` events: whether the run has diverged (more requests in
    /// flight than `max_in_flight`) or its clock has stood at one instant for more events than
    /// the scenario's limit (`engine::watchdog`). Checking in strides keeps both off the path
    /// of every event; the instant count undercounts by less than one stride.
    #[cold]
    #[inline(never)]
    fn must_stop(&mut self) -> bool {
        let t = self.now;
        if let Some(observe) = self.observer.as_mut() {
            observe(t);
        }
        // Timers are never removed from the queue (a finished call's deadline timer waits for
        // its time), so at a high enough rate they pile up with few requests in flight: the
        // queue is bounded too, at `PENDING_PER_IN_FLIGHT` events per request allowed.
        let pending_limit = self
            .model
            .max_in_flight
            .saturating_mul(crate::model::PENDING_PER_IN_FLIGHT);
        if (self.calls.len() + self.jobs.len()) as u64 > self.model.max_in_flight
            || self.event_queue.len() as u64 > pending_limit
        {
            self.stopped = Some(Stop::Diverged(t));
            return true;
        }
        if t == self.instant_at {
            self.instant_events += CHECK_EVERY;
        } else {
            self.instant_at = t;
            self.instant_events = 0;
            // Only while the clock moves: a clock standing still is the instant guard's.
            if let Some(past) = self.work_bound.past(&self.rec, t) {
                self.stopped = Some(Stop::WorkBound(past));
                return true;
            }
        }
        if self.instant_events > self.instant_limit {
            self.stopped = Some(Stop::NoProgress(NoProgress {
                at: t,
                events: self.instant_events,
            }));
        }
        self.stopped.is_some()
    }

    /// Handles every event up to and including time `t`. The run covers [0, end): events at
    /// or after the end are never handled.
    pub fn run_until(&mut self, t: u64) {
        let limit = t.min(self.end);
        if limit == self.end {
            // The clock is looked at once per stride of events, off the path of each one.
            'run: loop {
                for _ in 0..CHECK_EVERY {
                    if self.step().is_none() {
                        break 'run;
                    }
                }
                if self.must_stop() {
                    break;
                }
            }
        } else {
            while self
                .event_queue
                .peek_time()
                .is_some_and(|next| next <= limit)
            {
                if self.step().is_none()
                    || (self.events.is_multiple_of(CHECK_EVERY) && self.must_stop())
                {
                    return;
                }
            }
        }
        // A stopped run's clock stays where it stopped: its metrics end there.
        if limit > self.now && self.stopped.is_none() {
            self.rec.advance_to(limit);
            self.now = limit;
        }
    }

    /// Runs to the end and returns the metrics; an error when the run stopped making progress
    /// in simulated time (`engine::watchdog`).
    pub fn run(mut self) -> crate::Result<Measured> {
        self.run_until(self.end);
        let stop_ns = match self.stopped {
            Some(Stop::NoProgress(stuck)) => {
                return Err(crate::Error::NoProgress {
                    run: Box::new(crate::error::RunPlace {
                        scenario: self.model.name.clone(),
                        seed: self.model.seed,
                        ..Default::default()
                    }),
                    at_ns: stuck.at,
                    events: stuck.events,
                });
            }
            Some(Stop::WorkBound(past)) => {
                let error = self.work_bound.error(&self.model, past);
                return Err(crate::Error::WorkBound(Box::new(error)));
            }
            Some(Stop::Diverged(at)) => at,
            None => self.end,
        };
        let peak_in_flight = self.calls.capacity() + self.jobs.capacity();
        let unfinished = self.unfinished();
        let pools = self.pool_means(stop_ns);
        let mut metrics = self.rec.finish(stop_ns);
        metrics.summary.extend(unfinished);
        metrics.summary.extend(pools);
        let facts = [
            f64::from(u8::from(stop_ns < self.end)),
            stop_ns as f64 / 1e9,
        ];
        metrics
            .summary
            .extend((RUN_METRICS.iter().zip(facts)).map(|(name, v)| (name.to_string(), v)));
        Ok(Measured {
            events: self.events,
            peak_in_flight,
            metrics,
            stopped_at: stop_ns,
            trace: self.trace.take().map(|t| t.finish()),
        })
    }

    /// Requests (logical calls and jobs) in flight right now.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.calls.len(), self.jobs.len())
    }

    // Forced inline into `step`, its one caller: when it grew (the bulkhead scope's `Resume`
    // arm), LLVM made it a call of its own, +43 instructions a request on bench-mmc.
    #[inline(always)]
    fn handle(&mut self, event: Event) {
        if self.trace.is_some() {
            self.trace_event(&event);
        }
        match event {
            Event::Arrival(c) => {
                self.start_client_request(c, 0);
                self.schedule_arrival(c);
            }
            Event::UserStart { client, user } => {
                if self.user_active(client, user) {
                    self.start_client_request(client, user)
                }
            }
            Event::Deliver(job) => self.arrive(job),
            Event::WorkDone(job) => self.work_done(job),
            Event::Answer(job) => self.send_reply(job),
            Event::RefusalDone {
                service,
                instance,
                acc,
            } => self.refusal_done(service as usize, instance as usize, acc as usize),
            Event::Reply(job) => self.deliver_reply(job),
            Event::AttemptTimer { call, attempt } => self.attempt_expired(call, attempt),
            Event::Resume { call, attempt } => self.resume(call, attempt),
            Event::PermitTimeout { call, attempt } => self.permit_timeout(call, attempt),
            Event::Hedge { call, attempt } => self.send_hedge(call, attempt),
            Event::OutlierSweep(service) => self.outlier_sweep(service),
            Event::Life {
                service,
                instance,
                action,
            } => self.life_event(service, instance, action),
            Event::FaultStart(fault) => self.fault_started(fault),
            Event::FaultEnd(fault) => self.fault_ended(fault),
        }
    }

    pub(in crate::engine) fn schedule_arrival(&mut self, c: u32) {
        let Load::Open { poisson, rate } = &self.model.clients[c as usize].load else {
            return;
        };
        let st = &mut self.clients[c as usize];
        let (last, cursor) = (&mut st.last_arrival, &mut st.rate_cursor);
        let next = next_arrival(*poisson, rate, &mut st.arrival_rng, last, cursor, self.end);
        if let Some(t) = next {
            self.event_queue.push_lane(c as usize, t, Event::Arrival(c));
        }
    }
}

/// An event scheduled before the instant being handled is a bug in the engine (a timer put at a
/// deadline already past): the recorder's level areas would run backwards and wrap (a
/// utilization of 2.6e9). Stopped here, in every profile, rather than reported as numbers.
#[cold]
#[inline(never)]
fn time_ran_backwards(t: u64, now: u64) -> ! {
    panic!("engine bug: an event at {t} ns handled at {now} ns (scheduled in the past)")
}
