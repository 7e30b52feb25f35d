//! A scenario's `work` distributions as the round-trip test reads them from the scenario's
//! text: their quantiles and densities in closed form (an independent reference, not the
//! simulator's sampler), and the standard error of a sample quantile from them.

use toml_edit::Item;

/// The distributions of the scenarios the round trip uses, in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub enum Dist {
    Constant(f64),
    Exponential {
        mean: f64,
    },
    Lognormal {
        median: f64,
        sigma: f64,
    },
    /// Gamma of an integer shape (Erlang): its CDF is a finite sum.
    Erlang {
        shape: u32,
        scale: f64,
    },
}

/// The standard normal's quantiles the scenarios' `p99` and the test's quantiles need.
fn z(q: f64) -> f64 {
    match (q * 1000.0).round() as u32 {
        500 => 0.0,
        900 => 1.281_551_565_5,
        990 => 2.326_347_874,
        _ => panic!("no z for {q}"),
    }
}

/// A duration as scenarios and imports write it: `"5ms"`, `"300us"`, `"1.5s"`, `"0"`.
pub fn duration_ns(text: &str) -> f64 {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .unwrap_or_else(|_| panic!("not a duration: {text}"));
    n * match unit.trim() {
        "" if n == 0.0 => 1.0,
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        u => panic!("unit {u} in {text}"),
    }
}

impl Dist {
    /// The `work` item of a service or operation (none is no work).
    pub fn of(work: Option<&Item>) -> Dist {
        let Some(work) = work else {
            return Dist::Constant(0.0);
        };
        if let Some(text) = work.as_str() {
            return Dist::Constant(duration_ns(text));
        }
        let t = work.as_inline_table().expect("work is a table");
        let d = |k: &str| duration_ns(t.get(k).and_then(|v| v.as_str()).expect(k));
        match t.get("dist").and_then(|v| v.as_str()).expect("dist") {
            "constant" => Dist::Constant(d("value")),
            "exponential" => Dist::Exponential { mean: d("mean") },
            "lognormal" => Dist::Lognormal {
                median: d("median"),
                sigma: (d("p99") / d("median")).ln() / z(0.99),
            },
            "gamma" => {
                let shape = t.get("shape").and_then(|v| v.as_float()).expect("shape");
                assert_eq!(shape.fract(), 0.0, "an integer gamma shape");
                Dist::Erlang {
                    shape: shape as u32,
                    scale: d("mean") / shape,
                }
            }
            other => panic!("no reference for {other}"),
        }
    }

    fn cdf(&self, x: f64) -> f64 {
        match *self {
            Dist::Erlang { shape, scale } => {
                let y = x / scale;
                let mut term = 1.0;
                let mut sum = 1.0;
                for i in 1..shape {
                    term *= y / f64::from(i);
                    sum += term;
                }
                1.0 - (-y).exp() * sum
            }
            _ => unreachable!("closed-form quantiles"),
        }
    }

    pub fn quantile(&self, q: f64) -> f64 {
        match *self {
            Dist::Constant(v) => v,
            Dist::Exponential { mean } => -mean * (1.0 - q).ln(),
            Dist::Lognormal { median, sigma } => median * (sigma * z(q)).exp(),
            Dist::Erlang { shape, scale } => {
                let (mut lo, mut hi) = (0.0, scale * f64::from(shape) * 50.0);
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if self.cdf(mid) < q {
                        lo = mid
                    } else {
                        hi = mid
                    }
                }
                0.5 * (lo + hi)
            }
        }
    }

    fn density(&self, x: f64) -> f64 {
        match *self {
            Dist::Constant(_) => f64::INFINITY,
            Dist::Exponential { mean } => (-x / mean).exp() / mean,
            Dist::Lognormal { median, sigma } => {
                let u = (x / median).ln() / sigma;
                (-0.5 * u * u).exp() / (x * sigma * (2.0 * std::f64::consts::PI).sqrt())
            }
            Dist::Erlang { shape, scale } => {
                let fact: f64 = (1..shape).map(f64::from).product();
                x.powi(shape as i32 - 1) * (-x / scale).exp() / (fact * scale.powi(shape as i32))
            }
        }
    }

    /// The standard error of the `q` quantile of `n` draws: √(q(1−q)/n) / f(x_q).
    pub fn quantile_se(&self, q: f64, n: u64) -> f64 {
        (q * (1.0 - q) / n as f64).sqrt() / self.density(self.quantile(q))
    }
}

#[test]
fn reference_quantiles_match_hand_computed_values() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs().max(1.0);
    // Exponential of mean 2 ms: median 2 ln 2 ms.
    let e = Dist::Exponential { mean: 2e6 };
    assert!(close(e.quantile(0.5), 2e6 * 2f64.ln()));
    // Lognormal median 8 ms, p99 40 ms: its p99 back.
    let l = Dist::Lognormal {
        median: 8e6,
        sigma: 5f64.ln() / z(0.99),
    };
    assert!(close(l.quantile(0.99), 40e6));
    // Gamma shape 2, mean 2 ms: CDF at the median is one half.
    let g = Dist::Erlang {
        shape: 2,
        scale: 1e6,
    };
    assert!(close(g.cdf(g.quantile(0.5)), 0.5));
    // 1.678347 is the median of a gamma(2, 1) (the root of 1 − e^−x(1 + x) = ½).
    assert!((g.quantile(0.5) / 1e6 - 1.678_347).abs() < 1e-5);
    assert_eq!(duration_ns("300us"), 3e5);
    assert_eq!(duration_ns("1.5s"), 1.5e9);
    assert_eq!(duration_ns("0"), 0.0);
}
