//! Clients: a request's start (its operation drawn from the client's mix, when it has one) and
//! what a closed-loop user does after the answer (think, or keep its pace).

use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::*;
use crate::model::Load;

impl Simulation {
    #[inline(always)]
    pub(in crate::engine) fn start_client_request(&mut self, client: u32, user: u32) {
        let c = &self.model.clients[client as usize];
        if c.mix.is_some() {
            return self.start_mixed_request(client, user);
        }
        self.rec.clients[client as usize].requests += 1;
        let deadline = c.deadline.map_or(NO_DEADLINE, |d| self.now + d);
        let spec = SpecId::of(&c.call);
        self.start_call(Parent::Client { client, user }, spec, deadline);
    }

    /// A request of a client with a `mix`: the entry drawn from the client's `mix` stream
    /// gives the call, the deadline and the criticality; it counts on the entry's slot.
    #[inline(never)]
    fn start_mixed_request(&mut self, client: u32, user: u32) {
        let c = &self.model.clients[client as usize];
        let mix = c.mix.as_deref().expect("a client with a mix");
        let state = &mut self.clients[client as usize];
        let u = cascade_policy::random::unit(&mut state.mix_rng);
        let (k, deadline, criticality, spec) = if u < mix.first {
            (0, c.deadline, c.criticality, SpecId::of(&c.call))
        } else {
            let k = mix
                .others
                .iter()
                .position(|e| u < e.until)
                .unwrap_or(mix.others.len() - 1);
            let e = &mix.others[k];
            (k + 1, e.deadline, e.criticality, SpecId::of(&e.call))
        };
        let slot = self.client_metric_slot_base[client as usize] as usize + k;
        state.criticality = criticality;
        state.origin = slot as u32;
        self.rec.clients[slot].requests += 1;
        let deadline = deadline.map_or(NO_DEADLINE, |d| self.now + d);
        self.start_call(Parent::Client { client, user }, spec, deadline);
    }

    /// A client's request, started at `started`, ended. Its outcome and latency are counted
    /// once, on the client's edge, and the recorder reads them from there (see
    /// `Recorder::client_edges`). A closed-loop user then asks again: after a think time, or,
    /// paced, `pace` after this request started (at once if it took longer). Open loop does
    /// nothing here, so pacing costs it nothing.
    pub(in crate::engine) fn client_done(&mut self, client: u32, user: u32, started: u64) {
        if let Load::Closed { think, pace, .. } = &self.model.clients[client as usize].load {
            let at = match pace {
                Some(pace) => started.saturating_add(*pace).max(self.now),
                None => self.now + think.sample(&mut self.clients[client as usize].think_rng),
            };
            self.event_queue.push(at, Event::UserStart { client, user });
        }
    }
}
