//! Slow start at a service's balancer (Envoy's `slow_start_config` of the round-robin and
//! least-request load balancers): an instance that comes into rotation (back from a crash or
//! a restart, ready again, added by the autoscaler) gets a share of the traffic that grows
//! over `window`, as `source/common/upstream/load_balancer_impl.cc`,
//! `EdfLoadBalancerBase::applySlowStartFactor`, weighs it.

/// `slow_start_config`: `slow_start_window`, `aggression`, `min_weight_percent`.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowStart {
    /// ns; an instance is in slow start for this long after it comes into rotation.
    pub window: u64,
    /// The ramp's curvature: 1 is linear, above 1 rises faster at first.
    pub aggression: f64,
    /// The least weight (0..=1) an instance in slow start has, however early.
    pub min_weight: f64,
}

/// 1 ms, Envoy's floor on the time in slow start (its clock counts milliseconds).
const FLOOR: u64 = 1_000_000;

impl SlowStart {
    /// The weight (0..=1) of an instance `elapsed` ns after it came into rotation:
    /// max(min_weight, (elapsed / window)^(1 / aggression)), with `elapsed` at least 1 ms;
    /// 1 once the window is over.
    pub fn weight(&self, elapsed: u64) -> f64 {
        if elapsed >= self.window {
            return 1.0;
        }
        let time_factor = elapsed.max(FLOOR) as f64 / self.window as f64;
        let ramp = if self.aggression == 1.0 {
            time_factor
        } else {
            time_factor.powf(1.0 / self.aggression)
        };
        ramp.max(self.min_weight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn slow(aggression: f64, min_weight: f64) -> SlowStart {
        SlowStart {
            window: 10 * S,
            aggression,
            min_weight,
        }
    }

    #[test]
    fn the_weight_ramps_linearly_over_the_window_from_its_floor() {
        let s = slow(1.0, 0.1);
        assert_eq!(s.weight(0), 0.1);
        assert_eq!(s.weight(S / 2), 0.1);
        assert_eq!(s.weight(4 * S), 0.4);
        assert_eq!(s.weight(10 * S), 1.0);
        assert_eq!(s.weight(60 * S), 1.0);
        // Without a floor the first millisecond still counts (Envoy's max(1 ms, elapsed)).
        assert_eq!(slow(1.0, 0.0).weight(0), 1e-4);
    }

    #[test]
    fn aggression_bends_the_ramp_by_its_inverse_power() {
        // Aggression 2 at a quarter of the window: 0.25^(1/2) = 0.5.
        assert_eq!(slow(2.0, 0.0).weight(10 * S / 4), 0.5);
        // Aggression 0.5: 0.5^2 = 0.25.
        assert_eq!(slow(0.5, 0.0).weight(5 * S), 0.25);
    }
}
