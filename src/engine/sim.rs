//! The run loop and the event handlers: clients start logical calls, calls make attempts,
//! attempts become jobs at service instances, jobs do their work and their own calls, and
//! replies travel back. Policies (`crate::policy`) decide; this file only moves requests.

use super::arena::{Arena, Ref};
use super::queue::EventQueue;
use super::rng::{Stream, stream};
use super::state::*;
use crate::metrics::RunMetrics;
use crate::metrics::recorder::Recorder;
use crate::model::{BalancerKind, CallSpec, Discipline, FailAs, Load, Model, Outcome};
use rand::RngExt;
use rand_distr::{Distribution, Exp1};

pub struct Simulation {
    model: Model,
    now: u64,
    end: u64,
    queue: EventQueue<Event>,
    calls: Arena<Call>,
    jobs: Arena<Job>,
    clients: Vec<ClientState>,
    services: Vec<ServiceState>,
    edge_rngs: Vec<Stream>,
    rec: Recorder,
    events: u64,
}

/// What a finished run hands back: its metrics and how much work the engine did.
pub struct RunResult {
    pub metrics: RunMetrics,
    pub events: u64,
    /// Most calls and jobs in flight at once (arena high-water marks).
    pub peak_in_flight: usize,
}

fn spec_of(model: &Model, id: SpecId) -> &CallSpec {
    match id {
        SpecId::Client(c) => &model.clients[c as usize].call,
        SpecId::Step {
            service,
            step,
            index,
        } => &model.services[service as usize].steps[step as usize][index as usize],
    }
}

impl Simulation {
    pub fn new(model: Model) -> Simulation {
        let seed = model.seed;
        let clients = model
            .clients
            .iter()
            .map(|c| ClientState {
                arrival_rng: stream(seed, &format!("client.{}", c.name), "arrivals"),
                think_rng: stream(seed, &format!("client.{}", c.name), "think"),
                rate_cursor: 0,
                last_arrival: 0.0,
            })
            .collect();
        let services = model
            .services
            .iter()
            .map(|s| ServiceState {
                instances: (0..s.instances)
                    .map(|i| InstanceState {
                        busy: 0,
                        queue: std::collections::VecDeque::new(),
                        work_rng: stream(seed, &format!("service.{}#{i}", s.name), "work"),
                    })
                    .collect(),
                balancer_rng: stream(seed, &format!("service.{}", s.name), "balancer"),
                next_rr: 0,
            })
            .collect();
        let edge_rngs = model
            .edges
            .iter()
            .map(|e| stream(seed, &format!("edge.{}", e.name), "latency"))
            .collect();
        let mut sim = Simulation {
            now: 0,
            end: model.end(),
            queue: EventQueue::default(),
            calls: Arena::default(),
            jobs: Arena::default(),
            clients,
            services,
            edge_rngs,
            rec: Recorder::new(&model),
            events: 0,
            model,
        };
        sim.start_clients();
        sim
    }

    fn start_clients(&mut self) {
        for c in 0..self.model.clients.len() {
            match &self.model.clients[c].load {
                Load::Open { .. } => self.schedule_arrival(c as u32),
                Load::Closed { users, think } => {
                    // Users start spread over one think time rather than all at once.
                    for user in 0..*users {
                        let t = think.sample(&mut self.clients[c].think_rng);
                        self.queue.push(
                            t,
                            Event::UserStart {
                                client: c as u32,
                                user,
                            },
                        );
                    }
                }
            }
        }
    }

    /// Current simulated time, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Handles the next event, if there is one before the end of the run; returns its time.
    pub fn step(&mut self) -> Option<u64> {
        let (t, event) = self.queue.pop()?;
        if t >= self.end {
            // Past the end: put it back (in front of its ties, as it was) and stop.
            self.queue.push_front(t, event);
            return None;
        }
        self.rec.advance_to(t);
        self.now = t;
        self.events += 1;
        self.handle(event);
        Some(t)
    }

    /// Handles every event up to and including time `t`. The run covers [0, end): events at
    /// or after the end are never handled.
    pub fn run_until(&mut self, t: u64) {
        let limit = t.min(self.end);
        if limit == self.end {
            while self.step().is_some() {}
        } else {
            while self.queue.peek_time().is_some_and(|next| next <= limit) {
                self.step();
            }
        }
        if limit > self.now {
            self.rec.advance_to(limit);
            self.now = limit;
        }
    }

    /// Runs to the end and returns the metrics.
    pub fn run(mut self) -> RunResult {
        self.run_until(self.end);
        RunResult {
            events: self.events,
            peak_in_flight: self.calls.capacity() + self.jobs.capacity(),
            metrics: self.rec.finish(),
        }
    }

    /// Requests (logical calls and jobs) in flight right now.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.calls.len(), self.jobs.len())
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrival(c) => {
                self.start_client_request(c, 0);
                self.schedule_arrival(c);
            }
            Event::UserStart { client, user } => self.start_client_request(client, user),
            Event::Deliver(job) => self.arrive(job),
            Event::WorkDone(job) => self.advance_job(job),
            Event::Answer(job) => self.send_reply(job),
            Event::Reply(job) => self.deliver_reply(job),
            Event::AttemptTimer { call, attempt } => self.attempt_expired(call, attempt),
        }
    }

    fn schedule_arrival(&mut self, c: u32) {
        let Load::Open { poisson, rate } = &self.model.clients[c as usize].load else {
            return;
        };
        let st = &mut self.clients[c as usize];
        let e = if *poisson {
            Exp1.sample(&mut st.arrival_rng)
        } else {
            1.0
        };
        let Some(exact) = rate.next_after(st.last_arrival, e, &mut st.rate_cursor) else {
            return;
        };
        st.last_arrival = exact;
        // Scheduled at the exact time rounded up to a nanosecond; the next gap counts from the
        // exact time, so rounding never accumulates into the rate.
        let t = exact.ceil();
        if t < self.end as f64 {
            self.queue.push(t as u64, Event::Arrival(c));
        }
    }

    // ---- calls and attempts -------------------------------------------------------------

    fn start_client_request(&mut self, client: u32, user: u32) {
        self.rec.clients[client as usize].requests += 1;
        let deadline = self.model.clients[client as usize]
            .deadline
            .map_or(NO_DEADLINE, |d| self.now + d);
        self.start_call(
            Parent::Client { client, user },
            SpecId::Client(client),
            deadline,
        );
    }

    fn start_call(&mut self, parent: Parent, spec_id: SpecId, caller_deadline: u64) {
        let spec = spec_of(&self.model, spec_id);
        self.rec.edges[spec.edge].calls += 1;
        let deadline = if caller_deadline == NO_DEADLINE {
            NO_DEADLINE
        } else {
            caller_deadline.saturating_sub(spec.policy.reserve)
        };
        let call = Call {
            parent,
            spec: spec_id,
            deadline,
            started: self.now,
            attempt: 0,
            current: None,
        };
        let r = self.calls.insert(call);
        self.start_attempt(r);
    }

    fn start_attempt(&mut self, cr: Ref) {
        let now = self.now;
        let call = self.calls.get(cr).expect("attempt of a live call");
        let spec_id = call.spec;
        let spec = spec_of(&self.model, spec_id);
        if call.deadline <= now {
            // Too little time left to start: fail fast without sending anything.
            self.finish_call(cr, Outcome::DeadlineExceeded);
            return;
        }
        let expiry = spec
            .policy
            .timeout
            .map_or(NO_DEADLINE, |t| now.saturating_add(t))
            .min(call.deadline);
        let (to, edge) = (spec.to, spec.edge);
        let attempt = call.attempt + 1;
        let criticality = match call.parent {
            Parent::Client { client, .. } => self.model.clients[client as usize].criticality,
            Parent::Job(j) => self
                .jobs
                .get(j)
                .map_or(Default::default(), |j| j.criticality),
        };
        let edge_acc = &mut self.rec.edges[edge];
        edge_acc.attempts += 1;
        if attempt > 1 {
            edge_acc.retries += 1;
        }
        let instance = self.pick_instance(to);
        let job = Job {
            service: to as u32,
            instance,
            caller: cr,
            spec: spec_id,
            deadline: expiry,
            criticality,
            arrived: now,
            started: now,
            busy_ns: 0,
            step: 0,
            pending: 0,
            failure: None,
            degraded: false,
            outcome: Outcome::Ok,
        };
        let jr = self.jobs.insert(job);
        let call = self.calls.get_mut(cr).expect("checked above");
        call.attempt = attempt;
        call.current = Some(jr);
        if expiry != NO_DEADLINE {
            self.queue
                .push(expiry, Event::AttemptTimer { call: cr, attempt });
        }
        match self.network_delay(spec_id) {
            0 => self.arrive(jr),
            d => self.queue.push(now + d, Event::Deliver(jr)),
        }
    }

    /// One-way network latency of the call, drawn from the edge's stream.
    fn network_delay(&mut self, spec_id: SpecId) -> u64 {
        let spec = spec_of(&self.model, spec_id);
        match &spec.latency {
            Some(l) => l.sample(&mut self.edge_rngs[spec.edge]),
            None => 0,
        }
    }

    fn attempt_expired(&mut self, cr: Ref, attempt: u32) {
        let Some(call) = self.calls.get_mut(cr) else {
            return;
        };
        if call.attempt != attempt || call.current.is_none() {
            return;
        }
        // The caller stops waiting; the job carries on and its reply will be discarded.
        call.current = None;
        let outcome = if call.deadline <= self.now {
            Outcome::DeadlineExceeded
        } else {
            Outcome::Timeout
        };
        self.finish_attempt(cr, outcome);
    }

    fn finish_attempt(&mut self, cr: Ref, outcome: Outcome) {
        self.finish_call(cr, outcome);
    }

    fn finish_call(&mut self, cr: Ref, outcome: Outcome) {
        let call = self.calls.remove(cr).expect("finishing a live call");
        let spec = spec_of(&self.model, call.spec);
        let (edge, optional, fail_as) = (spec.edge, spec.optional, spec.fail_as);
        self.rec.edges[edge].outcomes.record(outcome);
        match call.parent {
            Parent::Client { client, user } => {
                self.client_done(client, user, call.started, outcome)
            }
            Parent::Job(jr) => self.child_done(jr, optional, fail_as, outcome),
        }
    }

    fn client_done(&mut self, client: u32, user: u32, started: u64, outcome: Outcome) {
        let acc = &mut self.rec.clients[client as usize];
        acc.outcomes.record(outcome);
        acc.latency.record(self.now - started);
        if let Load::Closed { think, .. } = &self.model.clients[client as usize].load {
            let t = think.sample(&mut self.clients[client as usize].think_rng);
            self.queue
                .push(self.now + t, Event::UserStart { client, user });
        }
    }

    // ---- jobs at service instances --------------------------------------------------------

    fn pick_instance(&mut self, s: usize) -> u32 {
        let st = &mut self.services[s];
        let n = st.instances.len() as u32;
        if n == 1 {
            return 0;
        }
        let outstanding = |st: &ServiceState, i: u32| {
            let inst = &st.instances[i as usize];
            inst.busy as usize + inst.queue.len()
        };
        match self.model.services[s].balancer {
            BalancerKind::RoundRobin => {
                let i = st.next_rr;
                st.next_rr = (i + 1) % n;
                i
            }
            BalancerKind::Random => st.balancer_rng.random_range(0..n),
            BalancerKind::LeastOutstanding => {
                // Ties go to the first instance after a rotating start, so equal instances share.
                let start = st.next_rr;
                st.next_rr = (start + 1) % n;
                (0..n)
                    .map(|k| (start + k) % n)
                    .min_by_key(|&i| outstanding(st, i))
                    .expect("n > 1")
            }
            BalancerKind::PowerOfTwo => {
                let a = st.balancer_rng.random_range(0..n);
                let b = (a + 1 + st.balancer_rng.random_range(0..n - 1)) % n;
                if outstanding(st, b) < outstanding(st, a) {
                    b
                } else {
                    a
                }
            }
        }
    }

    fn arrive(&mut self, jr: Ref) {
        let now = self.now;
        let job = self.jobs.get_mut(jr).expect("arriving job");
        job.arrived = now;
        let (s, i) = (job.service as usize, job.instance as usize);
        let svc = &self.model.services[s];
        let inst = &mut self.services[s].instances[i];
        let acc = &mut self.rec.services[s];
        let levels = &mut self.rec.levels[s];
        acc.arrivals += 1;
        if inst.busy < svc.workers {
            inst.busy += 1;
            levels.busy.add(now, 1, &mut acc.busy_area);
            self.start_work(jr);
        } else if (inst.queue.len() as u64) < svc.queue {
            inst.queue.push_back(jr);
            levels.queue.add(now, 1, &mut acc.queue_area);
        } else {
            acc.rejected += 1;
            job.outcome = Outcome::Overloaded;
            self.send_reply(jr);
        }
    }

    /// Starts a job on a worker already taken for it.
    fn start_work(&mut self, jr: Ref) {
        let now = self.now;
        let job = self.jobs.get_mut(jr).expect("job to start");
        job.started = now;
        let (s, i) = (job.service as usize, job.instance as usize);
        self.rec.services[s].wait.record(now - job.arrived);
        let work = self.model.services[s]
            .work
            .sample(&mut self.services[s].instances[i].work_rng);
        self.queue.push(now + work, Event::WorkDone(jr));
    }

    /// After the job's work, or after a step of its calls: start the next step or finish.
    fn advance_job(&mut self, jr: Ref) {
        let job = self.jobs.get(jr).expect("job to advance");
        let s = job.service as usize;
        let step = job.step as usize;
        let steps = self.model.services[s].steps.len();
        if job.failure.is_some() || step >= steps {
            self.complete_job(jr);
            return;
        }
        let deadline = job.deadline;
        let n = self.model.services[s].steps[step].len();
        self.jobs.get_mut(jr).expect("live").pending = n as u16;
        // Calls can finish at once (a deadline already spent, a full queue); the job advances
        // when the last one does, which can only happen during the last start below.
        for index in 0..n {
            let spec = SpecId::Step {
                service: s as u32,
                step: step as u16,
                index: index as u16,
            };
            self.start_call(Parent::Job(jr), spec, deadline);
        }
    }

    fn child_done(&mut self, jr: Ref, optional: bool, fail_as: FailAs, outcome: Outcome) {
        let job = self
            .jobs
            .get_mut(jr)
            .expect("parent job waits for its calls");
        if outcome == Outcome::Degraded || (optional && !outcome.is_success()) {
            job.degraded = true;
        } else if !outcome.is_success() && job.failure.is_none() {
            job.failure = Some(match fail_as {
                FailAs::Kind(k) => k,
                FailAs::Propagate => outcome,
            });
        }
        job.pending -= 1;
        if job.pending == 0 {
            job.step += 1;
            self.advance_job(jr);
        }
    }

    fn complete_job(&mut self, jr: Ref) {
        let now = self.now;
        let job = self.jobs.get_mut(jr).expect("job to complete");
        job.outcome = match (job.failure, job.degraded) {
            (Some(f), _) => f,
            (None, true) => Outcome::Degraded,
            (None, false) => Outcome::Ok,
        };
        job.busy_ns = now - job.started;
        let (s, i, arrived) = (job.service as usize, job.instance as usize, job.arrived);
        let acc = &mut self.rec.services[s];
        let levels = &mut self.rec.levels[s];
        acc.served += 1;
        acc.sojourn_sum_ns += (now - arrived) as f64;
        self.services[s].instances[i].busy -= 1;
        levels.busy.add(now, -1, &mut acc.busy_area);
        self.dispatch_next(s, i);
        self.send_reply(jr);
    }

    /// Gives a freed worker the next queued job, skipping those already expired if asked to.
    fn dispatch_next(&mut self, s: usize, i: usize) {
        let now = self.now;
        loop {
            let svc = &self.model.services[s];
            let inst = &mut self.services[s].instances[i];
            if inst.busy >= svc.workers {
                return;
            }
            let next = match svc.discipline {
                Discipline::Fifo => inst.queue.pop_front(),
                Discipline::Lifo => inst.queue.pop_back(),
            };
            let Some(next) = next else { return };
            let acc = &mut self.rec.services[s];
            let levels = &mut self.rec.levels[s];
            levels.queue.add(now, -1, &mut acc.queue_area);
            let job = self.jobs.get_mut(next).expect("queued job");
            if svc.drop_expired && job.deadline <= now {
                acc.dropped_expired += 1;
                job.outcome = Outcome::DeadlineExceeded;
                // Answered through the queue, not inline, so its caller cannot re-enter this
                // instance while the worker is being handed out.
                self.queue.push(now, Event::Answer(next));
                continue;
            }
            inst.busy += 1;
            levels.busy.add(now, 1, &mut acc.busy_area);
            self.start_work(next);
            return;
        }
    }

    fn send_reply(&mut self, jr: Ref) {
        let spec = self.jobs.get(jr).expect("replying job").spec;
        match self.network_delay(spec) {
            0 => self.deliver_reply(jr),
            d => self.queue.push(self.now + d, Event::Reply(jr)),
        }
    }

    fn deliver_reply(&mut self, jr: Ref) {
        let job = self.jobs.remove(jr).expect("reply of a live job");
        match self.calls.get_mut(job.caller) {
            Some(call) if call.current == Some(jr) => {
                call.current = None;
                self.finish_attempt(job.caller, job.outcome);
            }
            // The caller gave up on this attempt: its work was for nothing.
            _ => self.rec.services[job.service as usize].wasted_ns += job.busy_ns as f64,
        }
    }
}
