//! Picking the instance a request goes to: the balancer (round robin, random, least
//! outstanding, power of two) among the instances outlier detection has not ejected.

use super::adaptive::eligible;
use super::sim::Simulation;
use super::state::ServiceState;
use crate::model::BalancerKind;
use rand::RngExt;

impl Simulation {
    /// The balancer's choice among the instances outlier detection has not ejected. With
    /// none ejected it draws exactly as it would without a detector.
    #[inline(always)]
    pub(super) fn pick_instance(&mut self, s: usize) -> u32 {
        // A single instance is the only choice: no call, no draw.
        if self.services[s].instances.len() == 1 {
            0
        } else {
            self.balance(s)
        }
    }

    #[inline(never)]
    fn balance(&mut self, s: usize) -> u32 {
        let ServiceState {
            instances,
            balancer_rng,
            next_rr,
            outlier,
            down,
            ..
        } = &mut self.services[s];
        let n = instances.len() as u32;
        if n == 1 {
            return 0;
        }
        let ok = eligible(outlier, down, n);
        let outstanding = |i: u32| {
            let inst = &instances[i as usize];
            inst.busy as usize + inst.waiting()
        };
        match self.model.services[s].balancer {
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
                (0..n)
                    .map(|k| (start + k) % n)
                    .filter(|&i| ok.allows(i))
                    .min_by_key(|&i| outstanding(i))
                    .expect("at least one instance is eligible")
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
        }
    }
}
