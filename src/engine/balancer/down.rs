//! What holds each instance out of the balancer's rotation (crashes, the platform's phase and
//! readiness: ARCHITECTURE.md, "Orchestration"), with the number of instances held kept as
//! the holds change, so a pick learns that none is held in one comparison, not a scan of the
//! fleet.

use std::ops::Index;

/// Per instance, the holds keeping it out of rotation (0: none); and how many have any.
pub struct Down {
    holds: Vec<u32>,
    held: u32,
}

impl Down {
    pub fn new(holds: Vec<u32>) -> Down {
        let held = holds.iter().filter(|h| **h != 0).count() as u32;
        Down { holds, held }
    }

    /// Whether any instance is held out.
    pub fn any(&self) -> bool {
        self.held > 0
    }

    pub fn holds(&self) -> &[u32] {
        &self.holds
    }

    /// Adds `amount` to instance `i`'s holds.
    pub fn add(&mut self, i: u32, amount: u32) {
        let h = &mut self.holds[i as usize];
        self.held += u32::from(*h == 0 && amount != 0);
        *h += amount;
    }

    /// Takes `amount` from instance `i`'s holds; what is left.
    pub fn sub(&mut self, i: u32, amount: u32) -> u32 {
        let h = &mut self.holds[i as usize];
        *h -= amount;
        self.held -= u32::from(*h == 0 && amount != 0);
        *h
    }
}

impl Index<usize> for Down {
    type Output = u32;

    fn index(&self, i: usize) -> &u32 {
        &self.holds[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn counts_the_held_as_a_scan_would_over_random_changes() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(47);
        let mut down = Down::new(vec![0, 3, 0, 1 << 16, 0]);
        for _ in 0..5_000 {
            let i = rng.random_range(0..5u32);
            let amount = [1, 1 << 16, 1 << 17][rng.random_range(0..3)];
            if down[i as usize] >= amount && rng.random_bool(0.5) {
                down.sub(i, amount);
            } else if down[i as usize] < 1 << 20 {
                down.add(i, amount);
            }
            let scanned = down.holds().iter().filter(|h| **h != 0).count() as u32;
            assert_eq!(down.held, scanned);
            assert_eq!(down.any(), scanned > 0);
        }
    }
}
