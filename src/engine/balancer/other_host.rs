//! `retry.other_host`, Envoy's `previous_hosts` retry host predicate with
//! `host_selection_retry_max_attempts` (docs/policies.md, "A retry to another instance"): a
//! retry's pick that is a host the call already tried (an earlier attempt's, or a hedged
//! copy's) is made again, at most `host_reselections` times, and the last pick stands, as
//! Envoy's `LoadBalancerBase::chooseHost` does. Re-picks are ordinary balancer picks: they
//! draw from the service's `balancer` stream and move round robin on, as Envoy's do.
//!
//! The hosts a call tried are kept beside the calls, by arena slot, so a `Call` carries nothing
//! for them and a scenario without the key neither allocates nor checks anything here: only a
//! path whose retry has `other_host` reaches this file (`guarded` in `try_attempt`).

use crate::engine::kernel::arena::Ref;
use crate::engine::kernel::simulation::{Simulation, spec_of};
use crate::engine::kernel::state::SpecId;

/// The hosts each call tried, by the call's arena slot (`Ref::index`).
#[derive(Default)]
pub(in crate::engine) struct TriedHosts {
    by_slot: Vec<Tried>,
}

/// One slot's record, for the call whose generation it carries: a reused slot's record is
/// another call's, and is cleared the first time the new call touches it.
#[derive(Default)]
struct Tried {
    generation: u32,
    hosts: Vec<u32>,
}

impl TriedHosts {
    fn of(&mut self, call: Ref) -> &mut Vec<u32> {
        let slot = call.index as usize;
        if slot >= self.by_slot.len() {
            self.by_slot.resize_with(slot + 1, Tried::default);
        }
        let tried = &mut self.by_slot[slot];
        if tried.generation != call.generation.get() {
            tried.generation = call.generation.get();
            tried.hosts.clear();
        }
        &mut tried.hosts
    }

    fn contains(&mut self, call: Ref, host: u32) -> bool {
        self.of(call).contains(&host)
    }

    /// Call `call` sent (or is about to send) a job to `host`.
    pub(in crate::engine) fn record(&mut self, call: Ref, host: u32) {
        let hosts = self.of(call);
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
}

impl Simulation {
    /// The instance attempt `attempt` of call `cr` goes to: the balancer's pick (past failure
    /// accrual, `pick_for`), picked again for a retry with `other_host` while it is a host the
    /// call tried. The host is recorded as tried at once: an attempt that is then refused ends
    /// the call, and one that waits for a bulkhead permit goes to this host.
    pub(in crate::engine) fn pick_attempt_host(
        &mut self,
        cr: Ref,
        spec: SpecId,
        path: u32,
        attempt: u32,
    ) -> u32 {
        let call_spec = spec_of(&self.specs, spec);
        let (to, reselections) = (call_spec.to, other_host(call_spec));
        let mut host = self.pick_for(spec, path);
        let Some(reselections) = reselections else {
            return host;
        };
        // One instance: every pick is the same one, and a re-pick would only count again
        // what the first pick counted (a failure-accrual panic).
        if attempt > 1 && self.services[to].instances.len() > 1 {
            for _ in 0..reselections {
                if !self.tried_hosts.contains(cr, host) {
                    break;
                }
                host = self.pick_for(spec, path);
            }
        }
        self.tried_hosts.record(cr, host);
        host
    }

    /// A hedged copy of call `cr` went to `host`: with `other_host`, a later retry avoids it
    /// too, as Envoy's predicate avoids every host a request's upstream requests went to.
    pub(in crate::engine) fn hedge_host_tried(&mut self, cr: Ref, spec: SpecId, host: u32) {
        if other_host(spec_of(&self.specs, spec)).is_some() {
            self.tried_hosts.record(cr, host);
        }
    }
}

/// The re-picks a retry's host gets on this call spec, `None` without `other_host`.
fn other_host(spec: &crate::model::CallSpec) -> Option<u32> {
    spec.policy.retry().and_then(|r| r.other_host())
}
