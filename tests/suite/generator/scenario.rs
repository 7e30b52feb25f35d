//! One random valid scenario as TOML text, a pure function of its seed: services `s0`…`s4`
//! whose calls only go to later services (so the call graph, fallbacks included, has no
//! cycle), in chains and parallel steps (some made with a probability `p`, some of those
//! named; some calls fanned out with a small `count`), clients `c0`…`c2` open and closed (some
//! closed ones paced), a fresh policy per
//! call, service-side protections, faults and windows.
//!
//! Bounds: runs of 0.5 to 2 s with no warm-up (docs/metrics.md's balances are exact only without
//! one), offered load of at most a few hundred requests per second, and queues bounded but
//! for a fifth of the services. An unbounded queue under overload grows without limit until
//! the engine's divergence limit lands (issue 12, the main engineer's part); with short runs
//! and modest rates it stays small here.

use super::faults::{self, Span, Targets};
use super::policy::{self, FAILURES, Fallbacks};
use crate::support::pick::Pick;

/// The scenario's text.
pub fn generate(seed: u64) -> String {
    let mut p = Pick::new(seed);
    let mut g = Builder {
        // Steps' `p` and `name` draw from a pick of their own, so the rest of each case is
        // the scenario it was before steps had them.
        branch_pick: Some(Pick::new(seed ^ BRANCH_PICK)),
        ..Builder::default()
    };
    // Operations likewise: which services have them (and how many), what callers name, from
    // a pick of their own, so a case whose services have none is the scenario it was before.
    let mut op_pick = Pick::new(seed ^ OPERATION_PICK);
    g.operations = (0..5)
        .map(|_| {
            if op_pick.chance(0.25) {
                op_pick.int(1, 3) as usize
            } else {
                0
            }
        })
        .collect();
    g.op_pick = Some(op_pick);
    g.count_pick = Some(Pick::new(seed ^ COUNT_PICK));
    g.pace_pick = Some(Pick::new(seed ^ PACE_PICK));
    g.policy_pick = Some(Pick::new(seed ^ POLICY_PICK));
    g.overload_pick = Some(Pick::new(seed ^ OVERLOAD_PICK));
    g.propagate_pick = Some(Pick::new(seed ^ PROPAGATE_PICK));
    g.wait_pick = Some(Pick::new(seed ^ WAIT_PICK));
    g.dedup_pick = Some(Pick::new(seed ^ DEDUP_PICK));
    g.preset_pick = Some(Pick::new(seed ^ PRESET_PICK));
    g.life_pick = Some(Pick::new(seed ^ LIFE_PICK));
    g.slow_pick = Some(Pick::new(seed ^ SLOW_PICK));
    g.pool_pick = Some(Pick::new(seed ^ POOL_PICK));
    g.unbounded_pick = Some(Pick::new(seed ^ UNBOUNDED_PICK));
    g.network_pick = Some(Pick::new(seed ^ NETWORK_PICK));
    g.rate_pick = Some(Pick::new(seed ^ RATE_PICK));
    g.warm_pick = Some(Pick::new(seed ^ WARM_PICK));
    g.hosts_pick = Some(Pick::new(seed ^ HOSTS_PICK));
    g.build(&mut p, seed);
    let has_fault = g.text.contains("[[fault]]");
    // A baseline needs a whole measured bucket before the first fault (or the run's end): a
    // fault may start at once, and a 500 ms run holds no whole 1 s bucket.
    let no_whole_bucket =
        g.text.contains("duration = \"500000us\"\n") && g.text.contains("bucket = \"1s\"\n");
    let baseline = !(has_fault || no_whole_bucket);
    g.text
        + &super::expects::expectations(seed)
        + &super::expects::margin_expectation(seed, has_fault)
        + &super::expects::alerts(seed, has_fault, baseline)
}

/// Mixed into a case's seed for the pick of `[scenario] allow`.
const ALLOW_PICK: u64 = 0x616c_6c6f_7700_0000;
/// Mixed into a case's seed for the pick of its steps' `p` and `name`.
const BRANCH_PICK: u64 = 0x6272_616e_6368_6573;
/// Mixed into a case's seed for the pick of its services' operations.
const OPERATION_PICK: u64 = 0x6f70_6572_6174_696f;
/// Mixed into a case's seed for the pick of its calls' `count` (fan-outs).
const COUNT_PICK: u64 = 0x636f_756e_7473_0000;
/// Mixed into a case's seed for the pick of which closed-loop clients are paced.
const PACE_PICK: u64 = 0x7061_6365_0000_0000;
/// Mixed into a case's seed for the pick of policy keys added later (`retry_after_wait`).
const POLICY_PICK: u64 = 0x706f_6c69_6379_0000;
/// Mixed into a case's seed for the pick of overload physics (`contention`, `reject_work`,
/// `after_work`).
const OVERLOAD_PICK: u64 = 0x6f76_6572_6c6f_6164;
/// Mixed into a case's seed for the pick of a service call's `propagate_deadline`.
const PROPAGATE_PICK: u64 = 0x7072_6f70_6167_6174;
/// Mixed into a case's seed for the pick of fire-and-forget calls (`wait = false`).
const WAIT_PICK: u64 = 0x7761_6974_0000_0000;
/// Mixed into a case's seed for the pick of a service's idempotency store (`dedup_window`).
const DEDUP_PICK: u64 = 0x6465_6475_7000_0000;
/// Mixed into a case's seed for the pick of library presets (`preset = "…"`).
const PRESET_PICK: u64 = 0x7072_6573_6574_0000;
/// Mixed into a case's seed for the pick of a service's orchestration (probes, restart, cold
/// start, readiness, autoscaling).
const LIFE_PICK: u64 = 0x6c69_6665_0000_0000;
/// Mixed into a case's seed for the pick of a service's `slow_start`.
const SLOW_PICK: u64 = 0x736c_6f77_0000_0000;
/// Mixed into a case's seed for the pick of a pool shared by a service's calls.
const POOL_PICK: u64 = 0x706f_6f6c_0000_0000;
/// Mixed into a case's seed for the pick of services with `workers = "unbounded"`.
const UNBOUNDED_PICK: u64 = 0x756e_626f_756e_6400;
/// Mixed into a case's seed for the pick of a client's `network`.
const NETWORK_PICK: u64 = 0x6e65_7477_6f72_6b00;
/// Mixed into a case's seed for the pick of a service's admission `rate_limit`.
const RATE_PICK: u64 = 0x7261_7465_0000_0000;
/// Mixed into a case's seed for the pick of a `branch` fault's `warm_curve` or `warm_table`.
const WARM_PICK: u64 = 0x7761_726d_0000_0000;
/// Mixed into a case's seed for the pick of a retry's `other_host` and `host_reselections`.
const HOSTS_PICK: u64 = 0x686f_7374_7300_0000;
/// Every `preset` value; each defines `retry` defaults.
const PRESETS: &[&str] = &[
    "resilience4j",
    "envoy",
    "grpc",
    "polly",
    "finagle",
    "aws-sdk-standard",
    "tower",
];

#[derive(Default)]
struct Builder {
    text: String,
    policies: Vec<String>,
    edges: Vec<String>,
    branch_pick: Option<Pick>,
    op_pick: Option<Pick>,
    count_pick: Option<Pick>,
    pace_pick: Option<Pick>,
    policy_pick: Option<Pick>,
    overload_pick: Option<Pick>,
    propagate_pick: Option<Pick>,
    wait_pick: Option<Pick>,
    dedup_pick: Option<Pick>,
    preset_pick: Option<Pick>,
    life_pick: Option<Pick>,
    slow_pick: Option<Pick>,
    pool_pick: Option<Pick>,
    unbounded_pick: Option<Pick>,
    network_pick: Option<Pick>,
    rate_pick: Option<Pick>,
    warm_pick: Option<Pick>,
    hosts_pick: Option<Pick>,
    /// Per service index, whether it has `workers = "unbounded"`: faults and autoscalers
    /// that need a finite worker count avoid it.
    unbounded: Vec<bool>,
    /// Per calling service, the bulkhead of its first call whose bulkhead names a pool: a
    /// later call of the same service may take it whole, and so share the pool.
    pools: Vec<(String, String)>,
    /// Per service index, its number of operations (`o0`…), 0 for none.
    operations: Vec<usize>,
    /// Named steps with a `p`: the service's index and the step's name (its operation `o0`'s
    /// when the service has operations).
    named_steps: Vec<(usize, String)>,
}

impl Builder {
    fn build(&mut self, p: &mut Pick, seed: u64) {
        let run_us = *p.one(&[500_000, 1_000_000, 2_000_000]);
        // Rarely, a closed loop whose users never think: with a zero-time path (zero work, an
        // outage, no queue) it asks again at the same instant forever, which the engine must
        // stop as "no progress" (engine/progress.rs) rather than spin.
        let instant = p.chance(0.004);
        // Seeds below 2^63: TOML integers are i64 (accepting every u64 seed is another part
        // of issue 12).
        self.text += &format!(
            "[scenario]\nname = \"gen-{seed}\"\nduration = \"{run_us}us\"\nseed = {}\nbucket = {}\n",
            p.int(0, i64::MAX as u64),
            p.one(&["\"100ms\"", "\"250ms\"", "\"500ms\"", "\"1s\""]),
        );
        // `allow`, from a pick of its own: a few lint ids (the lints run on every case).
        let mut allow_pick = Pick::new(seed ^ ALLOW_PICK);
        if allow_pick.chance(0.2) {
            let ids: Vec<String> = (cascade::lint::LINTS.iter())
                .filter(|_| allow_pick.chance(0.4))
                .map(|l| format!("\"{}\"", l.id))
                .collect();
            self.text += &format!("allow = [{}]\n", ids.join(", "));
        }
        if p.chance(0.2) {
            self.text += &format!(
                "recovery_hold = {}\nrecovery_tolerance = {}\n",
                p.dur(100_000, 1_000_000),
                p.real(0.0, 0.5)
            );
        }
        let n_services = p.int(1, 5) as usize;
        let names: Vec<String> = (0..n_services).map(|i| format!("s{i}")).collect();
        let mut instances = Vec::new();
        for i in 0..n_services {
            instances.push((names[i].clone(), self.service(p, i, &names, instant)));
        }
        let n_clients = p.int(1, 3) as usize;
        let mut clients = Vec::new();
        for c in 0..n_clients {
            let closed = instant || p.chance(0.35);
            clients.push((format!("c{c}"), closed));
            self.client(p, c, closed, &names, instant);
        }
        let instant_outage = instant && p.chance(0.5);
        if instant_outage {
            self.text += "[[fault]]\nkind = \"outage\"\ntarget = \"s0\"\n";
        }
        let targets = Targets {
            services: &instances,
            unbounded: &self.unbounded,
            edges: &self.edges,
            clients: &clients,
        };
        let mut spans: Vec<Span> = Vec::new();
        if instant_outage {
            spans.push(Span {
                start: 0,
                end: None,
            });
        }
        let mut fault_text = String::new();
        for _ in 0..p.int(0, 3) {
            let (t, span) = faults::fault(p, &targets, run_us);
            fault_text += &t;
            spans.push(span);
        }
        self.text += &fault_text;
        for w in 0..p.int(0, 2) {
            if let Some(t) = faults::window(p, &format!("w{w}"), &spans, run_us) {
                self.text += &t;
            }
        }
        let operation_faults = self.operation_faults(&names, run_us);
        self.text += &operation_faults;
        for pol in std::mem::take(&mut self.policies) {
            self.text += &pol;
        }
    }

    /// Faults that need operations or named steps, from the operations' pick: `branch`
    /// faults on named steps with a `p`, and latency or errors on one operation.
    fn operation_faults(&mut self, names: &[String], run_us: u64) -> String {
        let o = self.op_pick.as_mut().expect("set by generate");
        let mut t = String::new();
        let span = |o: &mut Pick| {
            let start = o.int(0, run_us * 3 / 4);
            (start, o.int(start + 1, run_us))
        };
        for (s, step) in &self.named_steps {
            if !o.chance(0.3) {
                continue;
            }
            let (start, end) = span(o);
            t += &format!(
                "[[fault]]\nkind = \"branch\"\ntarget = \"{}\"\nstep = \"{step}\"\np = {}\nstart = \"{start}us\"\nend = \"{end}us\"\n",
                names[*s],
                o.real(0.0, 1.0)
            );
            if self.operations[*s] > 0 {
                t += "operation = \"o0\"\n";
            }
            // The same draw as `o.dur(0, run_us)` always made, kept to know an exponential's
            // time constant is above 0.
            let warm_us = o.chance(0.5).then(|| o.int(0, run_us));
            if let Some(us) = warm_us {
                t += &format!("warm = \"{us}us\"\n");
            }
            let w = self.warm_pick.as_mut().expect("set by generate");
            t += &faults::warm_keys(w, warm_us, run_us);
            if o.chance(0.3) {
                t += &format!("ramp = \"{}us\"\n", o.int(0, (end - start) / 2));
            }
        }
        for (s, name) in names.iter().enumerate() {
            let ops = self.operations[s];
            if ops == 0 || !o.chance(0.2) {
                continue;
            }
            let (start, end) = span(o);
            let effect = if o.chance(0.5) {
                format!("kind = \"latency\"\nfactor = {}", o.real(0.0, 8.0))
            } else {
                format!("kind = \"errors\"\nrate = {}", o.real(0.0, 1.0))
            };
            t += &format!(
                "[[fault]]\n{effect}\ntarget = \"{name}\"\noperation = \"o{}\"\nstart = \"{start}us\"\nend = \"{end}us\"\n",
                o.int(0, ops as u64 - 1)
            );
        }
        t
    }

    /// `[[service]]` number `i`; returns its instance count.
    fn service(&mut self, p: &mut Pick, i: usize, names: &[String], instant: bool) -> u64 {
        let name = &names[i];
        let instances = p.int(1, 3);
        // An unbounded service still draws its count, so the rest of its case is as before;
        // the count then bounds what is sized from it (a contention knee, a partition).
        let workers = p.int(1, 8);
        let u = self.unbounded_pick.as_mut().expect("set by generate");
        let unbounded = u.chance(0.15);
        self.unbounded.push(unbounded);
        let written = if unbounded {
            "\"unbounded\"".to_string()
        } else {
            workers.to_string()
        };
        let mut t = format!(
            "[[service]]\nname = \"{name}\"\ninstances = {instances}\nworkers = {written}\n"
        );
        if p.chance(0.8) {
            t += &format!("queue = {}\n", p.int(0, 30));
        }
        let lifo = p.chance(0.2);
        if lifo {
            t += "discipline = \"lifo\"\n";
        } else if p.chance(0.2) {
            t += "discipline = \"fifo\"\n";
        }
        if p.chance(0.3) {
            t += &format!("drop_expired = {}\n", p.chance(0.7));
        }
        let mut balancer = "round_robin";
        if instances > 1 || p.chance(0.2) {
            balancer = *p.one(&["round_robin", "random", "least_outstanding", "power_of_two"]);
            t += &format!("balancer = \"{balancer}\"\n");
        }
        let sp = self.slow_pick.as_mut().expect("set by generate");
        if matches!(balancer, "round_robin" | "least_outstanding") && sp.chance(0.3) {
            t += &format!(
                "slow_start = {{ window = {}, aggression = {}, min_weight_percent = {} }}\n",
                sp.dur(1, 5_000_000),
                sp.real(0.2, 4.0),
                sp.int(0, 100)
            );
        }
        let mut work = String::new();
        if instant {
            work = "work = \"0\"\n".to_string();
        } else if p.chance(0.9) {
            let scale = *p.one(&[200, 2_000, 10_000]);
            work = format!("work = {}\n", p.dist(scale));
        }
        let ops = self.operations[i];
        if ops == 0 {
            t += &work;
        }
        if p.chance(0.2) {
            t += &admission(p);
        }
        if p.chance(0.2) {
            let target = p.int(100, 10_000);
            t += &format!(
                "codel = {{ target = \"{target}us\", interval = {} }}\n",
                p.dur(target, target * 20)
            );
        }
        if !lifo && p.chance(0.2) {
            t += &format!("adaptive_lifo = {}\n", p.int(1, 10));
        }
        if p.chance(0.2) {
            let base = p.int(10_000, 500_000);
            t += &format!(
                "outlier = {{ consecutive_failures = {}, interval = {}, base_ejection_time = \"{base}us\", max_ejection_time = {}, max_ejection_percent = {}, always_eject_one = {} }}\n",
                p.int(1, 5),
                p.dur(10_000, 500_000),
                p.dur(base, base * 5),
                p.int(0, 100),
                p.chance(0.5)
            );
        }
        t += &self.overload(workers, ops == 0);
        let d = self.dedup_pick.as_mut().expect("set by generate");
        if d.chance(0.3) {
            t += &format!("dedup_window = {}\n", d.dur(0, 2_000_000));
        }
        let r = self.rate_pick.as_mut().expect("set by generate");
        if r.chance(0.2) {
            t += &format!("rate_limit = {}\n", admission_rate_limit(r));
        }
        let (life, slots) = self.orchestration(instances, ops, unbounded);
        t += &life;
        let later = &names[i + 1..];
        if !later.is_empty() && p.chance(0.7) {
            let steps: Vec<String> = (0..p.int(1, 3))
                .map(|_| self.step(p, name, later, names))
                .collect();
            let steps: Vec<String> = steps
                .into_iter()
                .enumerate()
                .map(|(j, step)| self.branch(i, j, step))
                .collect();
            let calls = format!("calls = [\n  {},\n]\n", steps.join(",\n  "));
            if ops == 0 {
                t += &calls;
            } else {
                work += &calls;
            }
        }
        if ops > 0 {
            t += &self.operation_tables(ops, workers, work, instant);
        }
        self.text += &t;
        slots
    }

    /// A service's orchestration, from a pick of its own, and the instance numbers faults
    /// may name (up to an autoscaler's maximum): probes (in the queue, of an operation, when
    /// it has some; else out of band), restart, cold start, readiness rule, autoscaler.
    fn orchestration(&mut self, instances: u64, ops: usize, unbounded: bool) -> (String, u64) {
        let l = self.life_pick.as_mut().expect("set by generate");
        if !l.chance(0.25) {
            return (String::new(), instances);
        }
        let mut t = String::new();
        for kind in ["liveness", "readiness", "startup"] {
            if !l.chance(0.5) {
                continue;
            }
            let serve = if ops > 0 && l.chance(0.7) {
                format!("operation = \"o{}\"", l.int(0, ops as u64 - 1))
            } else {
                format!("serve = \"out_of_band\", work = {}", l.dist(2_000))
            };
            let success = if kind == "readiness" { l.int(1, 3) } else { 1 };
            let period = l.int(20_000, 300_000);
            t += &format!(
                "probe.{kind} = {{ {serve}, period = \"{period}us\", timeout = {}, failure_threshold = {}, success_threshold = {success}, initial_delay = {} }}\n",
                l.dur(1_000, period * 2),
                l.int(1, 4),
                l.dur(0, 200_000)
            );
        }
        if l.chance(0.5) {
            let backoff = l.int(1_000, 200_000);
            t += &format!(
                "restart = {{ time = {}, mode = \"{}\", backoff = \"{backoff}us\", backoff_max = {} }}\n",
                l.dur(0, 200_000),
                l.one(&["refuse", "blackhole"]),
                l.dur(backoff, backoff * 8)
            );
        }
        if l.chance(0.4) {
            t += &format!(
                "cold_start = {}\ncold_factor = {}\n",
                l.dur(0, 500_000),
                l.real(1.0, 4.0)
            );
        }
        if l.chance(0.4) {
            t += &format!(
                "when_none_ready = \"{}\"\n",
                l.one(&["fail_open", "refuse"])
            );
        }
        let mut slots = instances;
        if l.chance(0.5) {
            let min = l.int(1, instances);
            let max = l.int(instances, instances + 3);
            slots = max;
            let period = l.int(50_000, 300_000);
            t += &format!(
                "autoscale = {{ metric = \"{}\", target = {}, min = {min}, max = {max}, period = \"{period}us\", window = \"{}us\", tolerance = {}, startup = {}, scale_down = \"{}\", drain = {}",
                match *l.one(&["utilization", "in_flight", "queue"]) {
                    // Utilization is no measure of unbounded workers (refused).
                    "utilization" if unbounded => "in_flight",
                    m => m,
                },
                l.real(0.1, 1.0),
                period * l.int(1, 3),
                l.real(0.0, 0.5),
                l.dur(0, 300_000),
                l.one(&["drain", "kill"]),
                l.dur(0, 300_000)
            );
            for side in ["up", "down"] {
                if l.chance(0.5) {
                    t += &format!(
                        ", {side} = {{ stabilization = {}, policies = [{{ type = \"{}\", value = {}, period = {} }}], select = \"{}\" }}",
                        l.dur(0, 500_000),
                        l.one(&["instances", "percent"]),
                        l.int(1, 100),
                        l.dur(10_000, 500_000),
                        l.one(&["max", "min", "disabled"])
                    );
                }
            }
            t += " }\n";
        }
        (t, slots)
    }

    /// A service's overload physics, from a pick of its own: contention by a law or a table,
    /// a refusal's cost, and (`own_plan`: it has no operations) work after its calls.
    fn overload(&mut self, workers: u64, own_plan: bool) -> String {
        let o = self.overload_pick.as_mut().expect("set by generate");
        let mut t = String::new();
        if o.chance(0.2) {
            let counts = *o.one(&["", ", counts = \"held\"", ", counts = \"working\""]);
            if o.chance(0.5) {
                t += &format!(
                    "contention = {{ k = {}, knee = {}{counts} }}\n",
                    o.real(0.0, 1.0),
                    o.int(0, workers)
                );
            } else {
                let mid = o.int(1, 10);
                t += &format!(
                    "contention = {{ table = [[0, 1.0], [{mid}, {}], [{}, {}]]{counts} }}\n",
                    o.real(1.0, 2.0),
                    mid + o.int(1, 10),
                    o.real(2.0, 4.0)
                );
            }
        }
        if o.chance(0.2) {
            t += &format!("reject_work = {}\n", o.dur(0, 2_000));
        }
        if own_plan && o.chance(0.2) {
            t += &format!("after_work = {}\n", o.dist(1_000));
            if o.chance(0.5) {
                t += &format!("after_work_on_failure = {}\n", o.chance(0.5));
            }
        }
        t
    }

    /// A service's `ops` operations: `o0` does what the service would have (`first`: its
    /// work and calls), the others their own work; some partitioned, labelled or classed.
    fn operation_tables(
        &mut self,
        ops: usize,
        workers: u64,
        first: String,
        instant: bool,
    ) -> String {
        let o = self.op_pick.as_mut().expect("set by generate");
        let x = self.overload_pick.as_mut().expect("set by generate");
        let mut t = String::new();
        for k in 0..ops {
            t += &format!("[[service.operation]]\nname = \"o{k}\"\n");
            if k == 0 {
                t += &first;
            } else if instant {
                t += "work = \"0\"\n";
            } else if o.chance(0.9) {
                let scale = *o.one(&[200, 2_000, 10_000]);
                t += &format!("work = {}\n", o.dist(scale));
            }
            if o.chance(0.3) {
                t += &format!("label = \"GET /o{k}\"\n");
            }
            if x.chance(0.15) {
                t += &format!("after_work = {}\n", x.dist(1_000));
            }
            if o.chance(0.3) {
                t += &format!(
                    "criticality = \"{}\"\n",
                    o.one(&["critical_plus", "critical", "sheddable_plus", "sheddable"])
                );
            }
            if o.chance(0.3) {
                t += &format!("workers = {}\n", o.int(1, workers));
                if o.chance(0.6) {
                    t += &format!("overflow = \"{}\"\n", o.one(&["queue", "refuse"]));
                }
            }
        }
        t
    }

    /// ` operation = "oK"` for a call to service `to` when it has operations, else nothing.
    fn operation_key(&mut self, names: &[String], to: &str) -> Option<String> {
        let i = names.iter().position(|n| n == to)?;
        let ops = self.operations[i];
        (ops > 0).then(|| {
            let o = self.op_pick.as_mut().expect("set by generate");
            format!("operation = \"o{}\"", o.int(0, ops as u64 - 1))
        })
    }

    /// The services in `names` a fallback may call: those without operations.
    fn without_operations(&self, names: &[String]) -> Vec<String> {
        names
            .iter()
            .filter(|n| {
                let i: usize = n[1..].parse().expect("services are s<i>");
                self.operations[i] == 0
            })
            .cloned()
            .collect()
    }

    /// Step `j` (`{ to = … }` or `{ parallel = … }`), sometimes made with a probability `p`
    /// (0, 1 or between) beside its other keys, and then sometimes named (`b<j>`: unique among
    /// the service's steps).
    fn branch(&mut self, service: usize, j: usize, step: String) -> String {
        let b = self.branch_pick.as_mut().expect("set by generate");
        // Now and then the step becomes the first option of a weighted choice whose others
        // make nothing; inside it, a step with a `p` must be named.
        let choice = b
            .chance(0.15)
            .then(|| (b.real(0.1, 5.0), b.real(0.1, 5.0), b.chance(0.5)));
        let step = if !b.chance(0.3) {
            step
        } else {
            let mut keys = match b.int(0, 5) {
                0 => "p = 0".to_string(),
                1 => "p = 1".to_string(),
                _ => format!("p = {}", b.real(0.0, 1.0)),
            };
            if choice.is_some() || b.chance(0.5) {
                keys += &format!(", name = \"b{j}\"");
                self.named_steps.push((service, format!("b{j}")));
            }
            let rest = step.strip_prefix("{ ").expect("a step is an inline table");
            format!("{{ {keys}, {rest}")
        };
        match choice {
            None => step,
            Some((w0, w1, named)) => {
                let name = if named {
                    format!("name = \"c{j}\", ")
                } else {
                    String::new()
                };
                format!(
                    "{{ {name}choose = [ {{ weight = {w0}, calls = [ {step} ] }}, {{ weight = {w1} }} ] }}"
                )
            }
        }
    }

    /// A step: one call or a parallel group of calls to services in `later`.
    fn step(&mut self, p: &mut Pick, from: &str, later: &[String], names: &[String]) -> String {
        if p.chance(0.4) {
            let calls: Vec<String> = (0..p.int(1, 3))
                .map(|_| self.call(p, from, later, names))
                .collect();
            format!("{{ parallel = [ {} ] }}", calls.join(", "))
        } else {
            self.call(p, from, later, names)
        }
    }

    fn call(&mut self, p: &mut Pick, from: &str, later: &[String], names: &[String]) -> String {
        let to = p.one(later).clone();
        let edge = format!("{from}->{to}");
        if !self.edges.contains(&edge) {
            self.edges.push(edge);
        }
        let mut k = vec![format!("to = \"{to}\"")];
        k.extend(self.operation_key(names, &to));
        // Now and then fire-and-forget, from a pick of its own: the other keys are drawn as
        // before, and those it refuses (optional, fail_as, a fallback, a hedge) left out.
        let waited = !self
            .wait_pick
            .as_mut()
            .expect("set by generate")
            .chance(0.1);
        if p.chance(0.7) {
            // Fallback calls go to services after the callee's caller, never back up, and
            // never to a service with operations (a fallback cannot name one).
            let from_index = names.iter().position(|n| n == from).unwrap();
            let fallback_to = self.without_operations(&names[from_index + 1..]);
            let policy = self.policy(p, &fallback_to, true);
            if !waited {
                self.drop_answer_keys(&policy);
            }
            self.share_pool(from, &policy);
            k.push(format!("policy = \"{policy}\""));
        }
        if !waited {
            k.push("wait = false".into());
        }
        if p.chance(0.3) {
            let optional = p.chance(0.7);
            if waited {
                k.push(format!("optional = {optional}"));
            }
        }
        if p.chance(0.4) {
            // From well below the callee's work to above it: a crash's answer may then still
            // be crossing the network when the lost work would have ended.
            let scale = *p.one(&[200, 2_000, 20_000]);
            k.push(format!("latency = {}", p.dist(scale)));
        }
        if p.chance(0.3) {
            let kinds: Vec<&str> = FAILURES.iter().copied().chain(["propagate"]).collect();
            let fail_as = p.one(&kinds);
            if waited {
                k.push(format!("fail_as = \"{fail_as}\""));
            }
        }
        if p.chance(0.2) {
            k.push(format!("idempotent = {}", p.chance(0.3)));
            k.push(format!("idempotency_key = {}", p.chance(0.5)));
        } else if self
            .dedup_pick
            .as_mut()
            .expect("set by generate")
            .chance(0.2)
        {
            // Keyed payments, from the store's pick: what `dedup_window` deduplicates.
            k.push("idempotent = false".into());
            k.push("idempotency_key = true".into());
        }
        // Now and then a small fan-out, from a pick of its own (so a case without one is the
        // scenario it was before `count`); small, as counts multiply down a chain.
        let c = self.count_pick.as_mut().expect("set by generate");
        if c.chance(0.1) {
            k.push(format!("count = {}", c.int(1, 4)));
        }
        format!("{{ {} }}", k.join(", "))
    }

    /// The first of `from`'s calls whose bulkhead names a pool is remembered; a later one of
    /// its calls with a bulkhead takes that line whole, now and then (from a pick of its own),
    /// so two paths, or two operations, of one caller share one pool with the same settings.
    fn share_pool(&mut self, from: &str, name: &str) {
        let head = format!("[policy.{name}]\n");
        let text = (self.policies.iter_mut())
            .find(|t| t.starts_with(&head))
            .expect("the policy just made");
        let Some(line) = text.lines().find(|l| l.starts_with("bulkhead = ")) else {
            return;
        };
        let line = line.to_string();
        let pick = self.pool_pick.as_mut().expect("set by generate");
        match self.pools.iter().find(|(f, _)| f == from) {
            Some((_, shared)) if pick.chance(0.5) => *text = text.replacen(&line, shared, 1),
            Some(_) => {}
            None if line.contains("pool = ") => self.pools.push((from.to_string(), line)),
            None => {}
        }
    }

    /// Takes `fallback` and `hedge` out of policy `name`, for a fire-and-forget call (a
    /// fallback's own policy, if it had one, stays, unused).
    fn drop_answer_keys(&mut self, name: &str) {
        let head = format!("[policy.{name}]\n");
        let text = (self.policies.iter_mut())
            .find(|t| t.starts_with(&head))
            .expect("the policy just made");
        *text = text
            .lines()
            .filter(|l| !l.starts_with("fallback =") && !l.starts_with("hedge ="))
            .map(|l| format!("{l}\n"))
            .collect();
    }

    /// A fresh `[policy.pN]` (one per call: a shared policy's fallback could close a cycle).
    /// A service's call (`service_call`) may leave its caller's deadline behind; a client's
    /// may not (it has none to pass on).
    fn policy(&mut self, p: &mut Pick, fallback_to: &[String], service_call: bool) -> String {
        let name = format!("p{}", self.policies.len());
        let mut extra = Vec::new();
        let fb = Fallbacks {
            services: fallback_to,
        };
        let later = self.policy_pick.as_mut().expect("set by generate");
        let mut text = policy::policy(p, later, &name, &fb, &mut extra);
        // A library's defaults under the keys written: on the policy, on its retry, or both.
        let presets = self.preset_pick.as_mut().expect("set by generate");
        if presets.chance(0.25) {
            let header = format!("[policy.{name}]\n");
            let preset = presets.one(PRESETS);
            text = text.replacen(&header, &format!("{header}preset = \"{preset}\"\n"), 1);
        }
        if presets.chance(0.15) {
            let preset = presets.one(PRESETS);
            text = text.replacen(
                "retry = { ",
                &format!("retry = {{ preset = \"{preset}\", "),
                1,
            );
        }
        let hosts = self.hosts_pick.as_mut().expect("set by generate");
        if let Some(keys) = policy::other_host(hosts) {
            text = text.replacen("retry = { ", &format!("retry = {{ {keys}"), 1);
        }
        let propagate = self.propagate_pick.as_mut().expect("set by generate");
        if service_call && propagate.chance(0.2) {
            text += &format!("propagate_deadline = {}\n", propagate.chance(0.3));
        }
        self.policies.push(text);
        self.policies.extend(extra);
        name
    }

    fn client(&mut self, p: &mut Pick, c: usize, closed: bool, names: &[String], instant: bool) {
        let target = if p.chance(0.7) {
            names[0].clone()
        } else {
            p.one(names).clone()
        };
        self.edges.push(format!("c{c}->{target}"));
        let mut t = format!("[[client]]\nname = \"c{c}\"\ntarget = \"{target}\"\n");
        if closed {
            t += &format!("arrival = \"closed\"\nusers = {}\n", p.int(1, 10));
            if instant {
                t += "think = \"0\"\n";
            } else {
                // Think times above zero: a closed loop with no think and a zero-time path
                // is the rare `instant` case only. Drawn even when the user is paced instead
                // (from a pick of its own), so the rest of the case stays as it was.
                let think = positive_dist(p);
                let pace = self.pace_pick.as_mut().expect("set by generate");
                if pace.chance(0.3) {
                    t += &format!("pace = {}\n", pace.dur(1_000, 300_000));
                } else {
                    t += &format!("think = {think}\n");
                }
            }
        } else {
            if p.chance(0.5) {
                t += &format!("arrival = \"{}\"\n", p.one(&["poisson", "constant"]));
            }
            // Now and then no traffic at all: ratios of nothing must still be numbers.
            let rate = if p.chance(0.05) {
                0.0
            } else {
                p.real(0.0, 300.0)
            };
            t += &format!("rate = {rate}\n");
            if p.chance(0.3) {
                t += &phases(p);
            }
        }
        if p.chance(0.4) {
            t += &format!("deadline = {}\n", p.dur(1_000, 300_000));
        }
        if p.chance(0.4) {
            t += &format!(
                "criticality = \"{}\"\n",
                p.one(&["critical_plus", "critical", "sheddable_plus", "sheddable"])
            );
        }
        if p.chance(0.7) {
            // A client's fallback may call any service without operations, its own target
            // too: none calls a client back, so the graph stays acyclic.
            let fallback_to = self.without_operations(names);
            t += &format!("policy = \"{}\"\n", self.policy(p, &fallback_to, false));
        }
        // A client's network, from a pick of its own so the rest of the case stays as it was:
        // from well below the services' work to above it, as a call's `latency`.
        let n = self.network_pick.as_mut().expect("set by generate");
        if n.chance(0.3) {
            let scale = *n.one(&[200, 2_000, 20_000]);
            t += &format!(
                "network = {}
",
                n.dist(scale)
            );
        }
        t += &self.client_operations(names, &target);
        self.text += &t;
    }
}

impl Builder {
    /// A client's `operation`, or a `mix` of them, when its target has operations.
    fn client_operations(&mut self, names: &[String], target: &str) -> String {
        let i: usize = target[1..].parse().expect("services are s<i>");
        let ops = self.operations[i];
        if ops == 0 {
            return String::new();
        }
        let o = self.op_pick.as_mut().expect("set by generate");
        if o.chance(0.4) {
            return format!(
                "{}\n",
                self.operation_key(names, target).expect("has operations")
            );
        }
        let chosen: Vec<usize> = (0..ops).filter(|_| o.chance(0.8)).collect();
        let entries: Vec<String> = chosen
            .into_iter()
            .map(|k| {
                let mut e = format!("operation = \"o{k}\", weight = {}", o.real(0.1, 5.0));
                if o.chance(0.3) {
                    e += &format!(", deadline = {}", o.dur(1_000, 300_000));
                }
                if o.chance(0.3) {
                    e += &format!(
                        ", criticality = \"{}\"",
                        o.one(&["critical_plus", "critical", "sheddable_plus", "sheddable"])
                    );
                }
                format!("{{ {e} }}")
            })
            .collect();
        if entries.is_empty() {
            return "operation = \"o0\"\n".to_string();
        }
        format!("mix = [ {} ]\n", entries.join(", "))
    }
}

/// A think time that is never exactly zero.
fn positive_dist(p: &mut Pick) -> String {
    match p.int(0, 2) {
        0 => format!(
            "{{ dist = \"exponential\", mean = {} }}",
            p.dur(5_000, 100_000)
        ),
        1 => p.dur(5_000, 100_000),
        _ => {
            let lo = p.int(5_000, 20_000);
            format!(
                "{{ dist = \"uniform\", min = \"{lo}us\", max = {} }}",
                p.dur(lo + 1, lo + 50_000)
            )
        }
    }
}

fn phases(p: &mut Pick) -> String {
    let mut at = 0;
    let items: Vec<String> = (0..p.int(1, 3))
        .map(|_| {
            at += p.int(0, 600_000);
            let ramp = if p.chance(0.5) { p.int(0, 300_000) } else { 0 };
            let text = format!(
                "{{ at = \"{at}us\", rate = {}, ramp = \"{ramp}us\" }}",
                p.real(0.0, 300.0)
            );
            at += ramp;
            text
        })
        .collect();
    format!("phases = [ {} ]\n", items.join(", "))
}

fn admission(p: &mut Pick) -> String {
    // Thresholds that never rise from critical_plus down to sheddable.
    let mut level = p.int(0, 40);
    let mut k = vec![format!("by = \"{}\"", p.one(&["queue", "in_flight"]))];
    for class in ["critical_plus", "critical", "sheddable_plus", "sheddable"] {
        if p.chance(0.5) {
            k.push(format!("{class} = {level}"));
            level = p.int(0, level);
        }
    }
    if k.len() == 1 {
        k.push(format!("sheddable = {level}"));
    }
    if p.chance(0.4) {
        k.push(format!("retry_after = {}", p.dur(0, 50_000)));
    }
    format!("admission = {{ {} }}\n", k.join(", "))
}

/// A service's admission `rate_limit`: a token bucket of one to fifty, from one token a second
/// to thousands, by instance or for the fleet, per tenant or not, with or without Retry-After;
/// then (drawn last, so the draws before stay as they were) maybe x/time/rate's `Wait`, or
/// nginx's, Guava's, resilience4j's or tower's limiter in the bucket's place, and a refusal
/// status.
fn admission_rate_limit(p: &mut Pick) -> String {
    let mut k = policy::bucket_keys(p);
    let bucket = k.len();
    if p.chance(0.5) {
        k.push(format!("scope = \"{}\"", p.one(&["instance", "fleet"])));
    }
    if p.chance(0.5) {
        k.push(format!("retry_after = {}", p.chance(0.5)));
    }
    if p.chance(0.5) {
        let key = p.one(&["none", "client", "client_operation"]);
        k.push(format!("key = \"{key}\""));
    }
    let held = match p.int(0, 5) {
        0 => Vec::new(),
        1 if k.iter().any(|key| key.contains("tick")) => Vec::new(),
        1 => vec![format!("wait = {}", p.chance(0.7))],
        2 => limit_req(p),
        3 => smooth_bursty(p),
        4 => vec![
            "limiter = \"resilience4j\"".into(),
            format!("limit_for_period = {}", p.int(1, 100)),
            format!("limit_refresh_period = {}", p.dur(1, 1_000_000)),
            format!("timeout_duration = {}", p.dur(0, 2_000_000)),
        ],
        _ => vec![
            "limiter = \"tower\"".into(),
            format!("num = {}", p.int(1, 100)),
            format!("per = {}", p.dur(100, 1_000_000)),
        ],
    };
    if held.iter().any(|key| !key.starts_with("wait")) {
        k.drain(..bucket);
    }
    k.extend(held);
    if p.chance(0.2) {
        k.push(format!("status = {}", p.one(&["429", "503", "500"])));
    }
    format!("{{ {} }}", k.join(", "))
}

/// nginx's `limit_req` keys: a rate per second or minute, a burst, and what of it is held.
fn limit_req(p: &mut Pick) -> Vec<String> {
    let unit = p.one(&["r/s", "r/m"]);
    let mut k = vec![
        "limiter = \"limit_req\"".to_string(),
        format!("rate = \"{}{unit}\"", p.int(1, 5_000)),
    ];
    let burst = p.int(0, 50);
    if p.chance(0.7) {
        k.push(format!("burst = {burst}"));
    }
    match p.int(0, 2) {
        0 => {}
        1 => k.push("nodelay = true".into()),
        _ if k.len() == 3 => k.push(format!("delay = {}", p.int(0, burst))),
        _ => {}
    }
    k
}

/// Guava's `RateLimiter` keys: a rate, and `acquire()` or `tryAcquire(timeout)`.
fn smooth_bursty(p: &mut Pick) -> Vec<String> {
    let mut k = vec![
        "limiter = \"smooth_bursty\"".to_string(),
        format!("permits_per_second = {}", p.int(1, 5_000) as f64 / 10.0),
    ];
    if p.chance(0.6) {
        k.push(format!("timeout = {}", p.dur(0, 2_000_000)));
    }
    k
}
