//! Picking the instance a request goes to: the balancer (round robin, random, least
//! outstanding, power of two) among the instances outlier detection has not ejected, weighed
//! by slow start (`slow_start.rs`) while an instance is in its window.

use super::ejection::{Marked, eligible};
use crate::engine::kernel::simulation::Simulation;
use crate::engine::kernel::state::ServiceState;
use crate::model::BalancerKind;
use cascade_policy::Nanos;
use rand::RngExt;

impl Simulation {
    /// The balancer's choice among the instances outlier detection has not ejected. With
    /// none ejected it draws exactly as it would without a detector.
    #[inline(always)]
    pub(in crate::engine) fn pick_instance(&mut self, s: usize) -> u32 {
        // A single instance is the only choice: no call, no draw.
        if self.services[s].instances.len() == 1 {
            0
        } else {
            self.balance(s)
        }
    }

    #[inline(never)]
    fn balance(&mut self, s: usize) -> u32 {
        let kind = self.model.services[s].balancer;
        choose(&mut self.services[s], kind, self.now, None).0
    }

    /// The balancer's choice for a call path with failure accrual (`cascade-policy/src/accrual.rs`): the
    /// hosts this caller marked dead, or whose probe is out, are avoided; when every host left
    /// is marked, the pick goes to one anyway (Finagle's panic mode), counted as
    /// `accrual_panics` on the edge.
    #[inline(never)]
    pub(in crate::engine) fn pick_past_accrual(&mut self, s: usize, path: u32, edge: usize) -> u32 {
        let marked = Marked {
            hosts: &self.policies[path as usize].accrual,
            now: self.now,
        };
        let kind = self.model.services[s].balancer;
        let (instance, panic) = choose(&mut self.services[s], kind, self.now, Some(marked));
        if panic {
            self.rec.edges[edge].accrual_panics += 1;
        }
        instance
    }
}

/// The balancer's pick among the eligible instances (`ejection::eligible`), and whether it was
/// a failure-accrual panic.
fn choose(
    state: &mut ServiceState,
    kind: BalancerKind,
    now: u64,
    marked: Option<Marked>,
) -> (u32, bool) {
    let ServiceState {
        instances,
        balancer_rng,
        next_rr,
        outlier,
        down,
        ramp,
        least,
        ..
    } = state;
    let n = instances.len() as u32;
    if n == 1 {
        return (
            0,
            marked.is_some_and(|m| !m.hosts[0].available(Nanos(m.now))),
        );
    }
    let ok = eligible(outlier, down, n, marked);
    let outstanding = |i: u32| {
        let inst = &instances[i as usize];
        inst.busy as usize + inst.waiting()
    };
    // Slow start is a setting of round robin and least outstanding only (`scenario/slow_start.rs`).
    if let Some(ramp) = ramp.as_deref_mut().filter(|r| now < r.until) {
        let start = *next_rr;
        let pick = match kind {
            // Envoy's least request with weights: weight / (active requests + 1).
            BalancerKind::LeastOutstanding => {
                ramp.pick(now, &ok, start, |i, w| w / (outstanding(i) + 1) as f64)
            }
            _ => ramp.pick(now, &ok, start, |_, w| w),
        };
        *next_rr = (pick + 1) % n;
        return (pick, ok.panic);
    }
    let pick = match kind {
        BalancerKind::RoundRobin => {
            let start = *next_rr;
            let i = (0..n)
                .map(|k| (start + k) % n)
                .find(|&i| ok.allows(i))
                .expect("at least one instance is eligible");
            *next_rr = (i + 1) % n;
            i
        }
        BalancerKind::Random => ok.nth(balancer_rng.random_range(0..ok.count)),
        BalancerKind::LeastOutstanding => {
            // Ties go to the first instance after a rotating start, so equal instances share.
            let start = *next_rr;
            *next_rr = (start + 1) % n;
            match least {
                // Every instance eligible: the min-tree holds the answer (`least.rs`).
                Some(tree) if ok.count == n => tree.pick(start),
                _ => (0..n)
                    .map(|k| (start + k) % n)
                    .filter(|&i| ok.allows(i))
                    .min_by_key(|&i| outstanding(i))
                    .expect("at least one instance is eligible"),
            }
        }
        BalancerKind::PowerOfTwo if ok.count == 1 => ok.nth(0),
        BalancerKind::PowerOfTwo => {
            let a = balancer_rng.random_range(0..ok.count);
            let b = (a + 1 + balancer_rng.random_range(0..ok.count - 1)) % ok.count;
            let (a, b) = (ok.nth(a), ok.nth(b));
            if outstanding(b) < outstanding(a) {
                b
            } else {
                a
            }
        }
    };
    (pick, ok.panic)
}
