//! Envoy outlier detection on a balancer over N instances, the consecutive-failure detector
//! (`consecutive_5xx`, enforced 100%), as the current `source/common/upstream/
//! outlier_detection_impl.cc` does it:
//!
//! * Every failure counts up, every success resets. The count *reaching* (==)
//!   `consecutive_failures` asks for an ejection at once, not at the sweep; the count is reset
//!   after the request whether or not it ejected. If the instance is already ejected (late
//!   answers), the request is ignored and the count is not reset, so it runs past the threshold
//!   and asks again only after a reset.
//! * An ejection is allowed when 100 × (ejected + 1) / N ≤ `max_ejection_percent`, or, with
//!   `always_eject_one_host`, when nothing is ejected; otherwise it is an overflow. Older Envoy
//!   compared 100 × ejected / N < max, which always let one host go; the current code counts
//!   the host about to go and leaves the one-host exception to `always_eject_one_host` (added
//!   in 1.31, default off). So with the default 10%, fewer than ten instances eject nothing.
//! * Each ejection bumps a backoff multiplier (while multiplier × base < max + base, so it
//!   tops out one step past the cap) and lasts min(base × multiplier, max). Jitter
//!   (`max_ejection_time_jitter`, default 0) is not modelled.
//! * `sweep`, on Envoy's interval timer (every `interval` from the start), un-ejects every
//!   instance whose time is up and resets its count; then every instance not ejected that was
//!   un-ejected at least `interval` ago has its multiplier lowered by one. So a healthy
//!   instance's next ejection shrinks back towards `base` one interval at a time.
//!
//! Envoy posts the ejection from the worker thread to the main thread; here it is immediate.
//! The success-rate and failure-percentage detectors are not modelled (both need per-interval
//! request volumes; failure percentage is not enforced by default).

use crate::time::Nanos;

config! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct OutlierConfig {
        consecutive_failures: u32,
        interval: Nanos,
        base_ejection_time: Nanos,
        max_ejection_time: Nanos,
        max_ejection_percent: u32,
        always_eject_one_host: bool,
    }
}

getters!(OutlierConfig {
    /// Failures in a row that eject a host.
    consecutive_failures: u32,
    /// How often ejections are reconsidered.
    interval: Nanos,
    /// The first ejection's length, multiplied by the host's ejection count.
    base_ejection_time: Nanos,
    /// The longest ejection.
    max_ejection_time: Nanos,
    /// 0 to 100.
    max_ejection_percent: u32,
    /// Eject one host even when `max_ejection_percent` rounds down to none.
    always_eject_one_host: bool,
});

impl Default for OutlierConfig {
    /// Envoy's `outlier_detection.proto` defaults.
    fn default() -> OutlierConfig {
        const S: Nanos = Nanos::from_secs(1);
        OutlierConfig {
            consecutive_failures: 5,
            interval: 10 * S,
            base_ejection_time: 30 * S,
            max_ejection_time: 300 * S,
            max_ejection_percent: 10,
            always_eject_one_host: false,
        }
    }
}

/// What a recorded result did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detection {
    None,
    Ejected,
    /// An ejection was due but the percentage cap refused it (Envoy's `ejections_overflow`).
    Overflow,
}

#[derive(Debug, Clone, Default)]
struct Instance {
    consecutive: u32,
    /// Times ejected, for the metrics.
    ejections: u32,
    /// Envoy's `ejectTimeBackoff`.
    multiplier: u32,
    /// While ejected: the first sweep at or after this time un-ejects.
    ejected_until: Option<Nanos>,
    last_unejected: Option<Nanos>,
}

#[derive(Debug, Clone)]
pub struct Outlier {
    cfg: OutlierConfig,
    instances: Vec<Instance>,
    ejected: u32,
    /// The hosts that exist, the N of the percentage cap: every slot, unless an autoscaler
    /// keeps some of them empty (`set_hosts`).
    hosts: usize,
}

impl Outlier {
    pub fn new(cfg: OutlierConfig, instances: usize) -> Outlier {
        Outlier {
            cfg,
            instances: vec![Instance::default(); instances],
            ejected: 0,
            hosts: instances,
        }
    }

    /// The number of hosts that exist now (at most the slots it was made with).
    pub fn set_hosts(&mut self, hosts: usize) {
        self.hosts = hosts.min(self.instances.len());
    }

    /// Records the result of a request to `instance` at `now`.
    pub fn record(&mut self, now: Nanos, instance: usize, success: bool) -> Detection {
        let inst = &mut self.instances[instance];
        if success {
            inst.consecutive = 0;
            return Detection::None;
        }
        inst.consecutive = inst.consecutive.saturating_add(1);
        if inst.consecutive != self.cfg.consecutive_failures || inst.ejected_until.is_some() {
            return Detection::None;
        }
        let detection = self.eject(now, instance);
        self.instances[instance].consecutive = 0;
        detection
    }

    fn eject(&mut self, now: Nanos, instance: usize) -> Detection {
        let share = 100.0 * f64::from(self.ejected + 1) / self.hosts.max(1) as f64;
        let allowed = share <= f64::from(self.cfg.max_ejection_percent.min(100))
            || (self.cfg.always_eject_one_host && self.ejected == 0);
        if !allowed {
            return Detection::Overflow;
        }
        let (base, max) = (self.cfg.base_ejection_time.0, self.cfg.max_ejection_time.0);
        let inst = &mut self.instances[instance];
        if u64::from(inst.multiplier).saturating_mul(base) < max.saturating_add(base) {
            inst.multiplier += 1;
        }
        let time = u64::from(inst.multiplier).saturating_mul(base).min(max);
        inst.ejected_until = Some(now.saturating_add(Nanos(time)));
        inst.ejections += 1;
        self.ejected += 1;
        Detection::Ejected
    }

    /// Envoy's interval timer fired at `now`. Returns how many instances came back.
    pub fn sweep(&mut self, now: Nanos) -> u32 {
        let mut back = 0;
        for inst in &mut self.instances {
            if inst.ejected_until.is_some_and(|until| until <= now) {
                inst.ejected_until = None;
                inst.consecutive = 0;
                inst.last_unejected = Some(now);
                back += 1;
            }
        }
        self.ejected -= back;
        for inst in &mut self.instances {
            let healthy_for_an_interval = inst
                .last_unejected
                .is_some_and(|t| now.saturating_sub(t) >= self.cfg.interval);
            if inst.ejected_until.is_none() && healthy_for_an_interval {
                inst.multiplier = inst.multiplier.saturating_sub(1);
            }
        }
        back
    }

    /// A new instance takes the slot (autoscaling): none of the last one's history stays.
    /// True if the last one was ejected.
    pub fn forget(&mut self, instance: usize) -> bool {
        let was_ejected = self.instances[instance].ejected_until.is_some();
        if was_ejected {
            self.ejected -= 1;
        }
        self.instances[instance] = Instance::default();
        was_ejected
    }

    pub fn is_ejected(&self, instance: usize) -> bool {
        self.instances[instance].ejected_until.is_some()
    }

    pub fn ejected_count(&self) -> u32 {
        self.ejected
    }

    /// Times `instance` was ejected so far.
    pub fn ejections(&self, instance: usize) -> u32 {
        self.instances[instance].ejections
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Nanos = Nanos::from_secs(1);

    /// `n` failures of `instance` at `now`; the detection of each.
    fn fail(o: &mut Outlier, now: Nanos, instance: usize, n: usize) -> Vec<Detection> {
        (0..n).map(|_| o.record(now, instance, false)).collect()
    }

    fn all_hosts() -> OutlierConfig {
        OutlierConfig {
            max_ejection_percent: 100,
            ..OutlierConfig::default()
        }
    }

    use Detection::{Ejected, None as Nothing, Overflow};

    #[test]
    fn ejects_at_once_on_the_fifth_failure_in_a_row() {
        let mut o = Outlier::new(OutlierConfig::default(), 10);
        assert_eq!(fail(&mut o, Nanos::ZERO, 3, 4), vec![Nothing; 4]);
        assert!(!o.is_ejected(3));
        assert_eq!(
            fail(&mut o, Nanos::ZERO, 3, 1),
            vec![Ejected],
            "1 of 10 is 10%"
        );
        assert!(o.is_ejected(3));
        assert_eq!((o.ejected_count(), o.ejections(3)), (1, 1));
        assert_eq!(o.instances[3].ejected_until, Some(30 * S));
    }

    #[test]
    fn a_success_resets_the_count() {
        let mut o = Outlier::new(OutlierConfig::default(), 10);
        fail(&mut o, Nanos::ZERO, 0, 4);
        assert_eq!(o.record(Nanos::ZERO, 0, true), Nothing);
        assert_eq!(fail(&mut o, Nanos::ZERO, 0, 4), vec![Nothing; 4]);
        assert_eq!(fail(&mut o, Nanos::ZERO, 0, 1), vec![Ejected]);
    }

    #[test]
    fn the_percentage_cap_counts_the_host_to_be_ejected() {
        let mut o = Outlier::new(OutlierConfig::default(), 20);
        assert_eq!(fail(&mut o, Nanos::ZERO, 0, 5)[4], Ejected, "5%");
        assert_eq!(fail(&mut o, Nanos::ZERO, 1, 5)[4], Ejected, "10%");
        assert_eq!(fail(&mut o, Nanos::ZERO, 2, 5)[4], Overflow, "15% > 10%");
        assert!(!o.is_ejected(2));
        assert_eq!(o.ejected_count(), 2);
        // The count was reset even though nothing was ejected: five more to ask again.
        assert_eq!(
            fail(&mut o, Nanos::ZERO, 2, 5),
            [vec![Nothing; 4], vec![Overflow]].concat()
        );
    }

    #[test]
    fn small_clusters_eject_nothing_unless_one_host_is_always_allowed() {
        let mut o = Outlier::new(OutlierConfig::default(), 5);
        assert_eq!(
            fail(&mut o, Nanos::ZERO, 0, 5)[4],
            Overflow,
            "1 of 5 is 20% > 10%"
        );
        let mut o = Outlier::new(
            OutlierConfig {
                always_eject_one_host: true,
                ..OutlierConfig::default()
            },
            5,
        );
        assert_eq!(
            fail(&mut o, Nanos::ZERO, 0, 5)[4],
            Ejected,
            "the first one always may go"
        );
        assert_eq!(
            fail(&mut o, Nanos::ZERO, 1, 5)[4],
            Overflow,
            "only the first"
        );
        o.sweep(30 * S);
        assert_eq!(fail(&mut o, 31 * S, 1, 5)[4], Ejected, "none ejected again");
    }

    #[test]
    fn ejection_time_grows_by_base_and_stops_at_max() {
        let mut o = Outlier::new(all_hosts(), 1);
        let mut now = Nanos::ZERO;
        let mut times = Vec::new();
        for _ in 0..13 {
            assert_eq!(fail(&mut o, now, 0, 5)[4], Ejected);
            let until = o.instances[0].ejected_until.unwrap();
            times.push((until - now).0 / S.0);
            assert_eq!(o.sweep(until - Nanos(1)), 0, "not yet");
            assert_eq!(o.sweep(until), 1, "time is up");
            now = until; // failing again right away: no sweep has lowered the multiplier
        }
        let want = [30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 300, 300, 300];
        assert_eq!(times, want);
        assert_eq!(
            o.instances[0].multiplier, 11,
            "one past the cap: 11 × 30 s < 330 s stops"
        );
        assert_eq!(o.ejections(0), 13);
    }

    #[test]
    fn un_ejects_at_the_first_sweep_after_the_time_and_resets_the_count() {
        let mut o = Outlier::new(all_hosts(), 2);
        fail(&mut o, 5 * S, 0, 5);
        assert_eq!(o.sweep(10 * S), 0);
        assert_eq!(o.sweep(30 * S), 0, "until 35 s");
        assert!(o.is_ejected(0));
        assert_eq!(o.sweep(40 * S), 1);
        assert!(!o.is_ejected(0));
        assert_eq!(o.ejected_count(), 0);
        // Late failures while it is out run the count past 5 without asking again; un-ejecting
        // clears it.
        let mut o = Outlier::new(all_hosts(), 2);
        fail(&mut o, Nanos::ZERO, 0, 5);
        assert_eq!(fail(&mut o, S, 0, 7), vec![Nothing; 7], "already ejected");
        assert_eq!(o.ejections(0), 1);
        o.sweep(30 * S);
        assert_eq!(fail(&mut o, 31 * S, 0, 4), vec![Nothing; 4]);
        assert_eq!(fail(&mut o, 31 * S, 0, 1), vec![Ejected]);
    }

    #[test]
    fn the_multiplier_falls_by_one_per_sweep_an_interval_after_un_ejection() {
        let mut o = Outlier::new(all_hosts(), 1);
        fail(&mut o, Nanos::ZERO, 0, 5); // multiplier 1, until 30 s
        o.sweep(30 * S);
        fail(&mut o, 35 * S, 0, 5); // multiplier 2, until 95 s
        assert_eq!(o.instances[0].ejected_until, Some(95 * S));
        o.sweep(100 * S);
        assert_eq!(o.instances[0].multiplier, 2, "not at the un-ejecting sweep");
        o.sweep(105 * S);
        assert_eq!(o.instances[0].multiplier, 2, "5 s < one interval");
        o.sweep(110 * S);
        assert_eq!(o.instances[0].multiplier, 1);
        o.sweep(120 * S);
        o.sweep(130 * S);
        assert_eq!(o.instances[0].multiplier, 0, "and not below");
        fail(&mut o, 131 * S, 0, 5);
        assert_eq!(o.instances[0].ejected_until, Some(161 * S), "back to 30 s");
    }
}
