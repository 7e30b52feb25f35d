//! The random choices of the scenario generator and the fuzzer: a seeded PCG and the few shapes of draw the scenario
//! builder needs (a count in a range, a yes/no, one of a list, a duration, a distribution).
//! Its own code rather than proptest: each case is a pure function of one seed, printed on
//! failure, so replaying a case needs nothing but that number.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub struct Pick(Pcg64Mcg);

impl Pick {
    pub fn new(seed: u64) -> Pick {
        Pick(Pcg64Mcg::seed_from_u64(seed))
    }

    /// A uniform integer in `lo..=hi`.
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.0.next_u64() % (hi - lo + 1)
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform float in [lo, hi), written with three decimals so the TOML shows the value
    /// that runs.
    pub fn real(&mut self, lo: f64, hi: f64) -> f64 {
        let x = lo + (hi - lo) * self.unit();
        (x * 1000.0).round() / 1000.0
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn one<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.int(0, xs.len() as u64 - 1) as usize]
    }

    /// A non-empty subset of `xs`, in their order, quoted as a TOML array of strings.
    pub fn subset(&mut self, xs: &[&str]) -> String {
        let mut chosen: Vec<String> = xs
            .iter()
            .filter(|_| self.chance(0.5))
            .map(|x| format!("\"{x}\""))
            .collect();
        if chosen.is_empty() {
            chosen.push(format!("\"{}\"", self.one(xs)));
        }
        format!("[{}]", chosen.join(", "))
    }

    /// A duration in `lo_us..=hi_us` microseconds, as a TOML string.
    pub fn dur(&mut self, lo_us: u64, hi_us: u64) -> String {
        format!("\"{}us\"", self.int(lo_us, hi_us))
    }

    /// A latency distribution with values around `scale_us` microseconds: every `dist` of
    /// docs/scenario.md §10 (a mixture nests at most once).
    pub fn dist(&mut self, scale_us: u64) -> String {
        self.dist_at(scale_us, true)
    }

    fn dist_at(&mut self, s: u64, may_mix: bool) -> String {
        let kinds: &[&str] = if may_mix {
            &[
                "bare",
                "constant",
                "uniform",
                "exponential",
                "normal",
                "lognormal",
                "lognormal_mu",
                "gamma",
                "weibull",
                "pareto",
                "empirical",
                "mixture",
            ]
        } else {
            &["constant", "uniform", "exponential", "gamma", "weibull"]
        };
        let s = s.max(2);
        match *self.one(kinds) {
            "bare" => self.dur(0, 2 * s),
            "constant" => format!("{{ dist = \"constant\", value = {} }}", self.dur(0, 2 * s)),
            "uniform" => {
                let lo = self.int(0, s);
                format!(
                    "{{ dist = \"uniform\", min = \"{lo}us\", max = {} }}",
                    self.dur(lo, lo + 2 * s)
                )
            }
            "exponential" => format!("{{ dist = \"exponential\", mean = {} }}", self.dur(1, s)),
            "normal" => format!(
                "{{ dist = \"normal\", mean = {}, stddev = {} }}",
                self.dur(1, s),
                self.dur(0, s)
            ),
            "lognormal" => {
                let median = self.int(1, s);
                format!(
                    "{{ dist = \"lognormal\", median = \"{median}us\", p99 = {} }}",
                    self.dur(median + 1, median * 8 + 1)
                )
            }
            "lognormal_mu" => format!(
                "{{ dist = \"lognormal\", mu = {}, sigma = {} }}",
                self.real(-3.0, 1.0),
                self.real(0.05, 1.2)
            ),
            "gamma" if self.chance(0.5) => format!(
                "{{ dist = \"gamma\", shape = {}, scale = {} }}",
                self.real(0.3, 4.0),
                self.dur(1, s)
            ),
            "gamma" => format!(
                "{{ dist = \"gamma\", shape = {}, mean = {} }}",
                self.real(0.3, 4.0),
                self.dur(1, s)
            ),
            "weibull" => format!(
                "{{ dist = \"weibull\", scale = {}, shape = {} }}",
                self.dur(1, s),
                self.real(0.5, 3.0)
            ),
            // A tail index above 1.1: a finite mean, so a run's work stays bounded.
            "pareto" => format!(
                "{{ dist = \"pareto\", scale = {}, shape = {} }}",
                self.dur(1, s),
                self.real(1.1, 3.0)
            ),
            "empirical" => {
                let a = self.int(0, s);
                let b = a + self.int(0, s);
                let c = b + self.int(0, 4 * s);
                format!(
                    "{{ dist = \"empirical\", percentiles = [[0, \"{a}us\"], [{}, \"{b}us\"], [100, \"{c}us\"]] }}",
                    self.int(1, 99)
                )
            }
            _ => {
                let parts: Vec<String> = (0..self.int(1, 3))
                    .map(|_| {
                        let part = self.dist_at(s, false);
                        // A part is a table with an extra `weight`.
                        format!("{{ weight = {}, {}", self.real(0.1, 10.0), &part[2..])
                    })
                    .collect();
                format!("{{ dist = \"mixture\", of = [{}] }}", parts.join(", "))
            }
        }
    }
}
