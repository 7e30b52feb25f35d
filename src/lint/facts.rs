//! What the lints know of a model before it runs: every place a call is made (a site), the
//! longest the call can have (its caller's deadline passed down, or the caller's own attempt
//! timeout), and the rate of calls it is offered (first attempts only).

use super::dur;
use crate::model::fault::{Effect, Target};
use crate::model::{CallSpec, Load, Model, Plan, Rule};

/// Who makes a call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Caller {
    Client(usize),
    /// A service, in one of its plans (0: its own, k: its operation k).
    Service {
        service: usize,
        plan: usize,
    },
}

/// One place a call spec is made.
#[derive(Debug, Clone)]
pub struct Site<'m> {
    pub spec: &'m CallSpec,
    pub caller: Caller,
    /// The share of the caller's requests that make this call (a step's `p`, a choice's
    /// option, a client's mix share).
    pub share: f64,
    /// The largest share a `branch` fault can raise that to (`share` when none targets it).
    pub peak_share: f64,
    /// A fallback call, made only when the call it backs fails.
    pub fallback: bool,
    /// The client's deadline for this request (a client's call only).
    pub client_deadline: Option<u64>,
    /// Where that deadline is written: `client.<c>.deadline`, or `client.<c>.mix.<i>.deadline`
    /// for an operation of a mix (which falls back to the client's when it has none).
    pub deadline_field: Option<String>,
}

/// The longest something can last (ns; `None`: no bound), and where that bound comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub ns: Option<u64>,
    pub why: String,
}

impl Bound {
    fn none() -> Bound {
        Bound {
            ns: None,
            why: String::new(),
        }
    }
}

/// Calls per second: a lower bound (the clients' base rates, 0 where unknown) and an upper
/// bound (their peaks; `None` where nothing bounds it, as for a closed loop without think
/// time). First attempts only: retries and hedges come on top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub base: f64,
    pub peak: Option<f64>,
}

impl Rate {
    const ZERO: Rate = Rate {
        base: 0.0,
        peak: Some(0.0),
    };

    fn add(self, other: Rate) -> Rate {
        Rate {
            base: self.base + other.base,
            peak: self.peak.zip(other.peak).map(|(a, b)| a + b),
        }
    }
}

pub struct Facts<'m> {
    pub model: &'m Model,
    pub sites: Vec<Site<'m>>,
    /// Services, callers before callees.
    pub order: Vec<usize>,
    /// Per service and plan: the longest any caller waits for one of its requests.
    waits: Vec<Vec<Option<Bound>>>,
    /// Per service and plan: requests per second offered to it.
    rates: Vec<Vec<Rate>>,
}

impl<'m> Facts<'m> {
    pub fn of(model: &'m Model) -> Facts<'m> {
        let sites = sites(model);
        let order = callers_first(model, &sites);
        let plans = |s: &crate::model::Service| 1 + s.operations.len();
        let mut facts = Facts {
            model,
            order,
            waits: model
                .services
                .iter()
                .map(|s| vec![None; plans(s)])
                .collect(),
            rates: model
                .services
                .iter()
                .map(|s| vec![Rate::ZERO; plans(s)])
                .collect(),
            sites,
        };
        for k in 0..facts.order.len() {
            let s = facts.order[k];
            for plan in 0..facts.waits[s].len() {
                let incoming: Vec<&Site> = (facts.sites.iter())
                    .filter(|site| site.spec.to == s && usize::from(site.spec.operation) == plan)
                    .collect();
                let mut wait: Option<Bound> = None;
                let mut rate = Rate::ZERO;
                for site in incoming {
                    let w = reached(facts.attempt_window(site), site.spec);
                    let longer = match (&wait, w.ns) {
                        (None, _) => true,
                        (Some(b), ns) => b.ns.is_some() && ns.is_none_or(|n| Some(n) > b.ns),
                    };
                    if longer {
                        wait = Some(w);
                    }
                    rate = rate.add(facts.site_rate(site));
                }
                facts.waits[s][plan] = wait;
                facts.rates[s][plan] = rate;
            }
        }
        facts
    }

    /// "web -> api", or "web -> payment (charge)" for a call to an operation.
    pub fn call_name(&self, site: &Site) -> String {
        let from = match site.caller {
            Caller::Client(c) => &self.model.clients[c].name,
            Caller::Service { service, .. } => &self.model.services[service].name,
        };
        format!("{from} -> {}", self.callee_name(site.spec))
    }

    /// The service a call goes to, with its operation.
    pub fn callee_name(&self, spec: &CallSpec) -> String {
        let to = &self.model.services[spec.to];
        match spec.operation {
            0 => to.name.clone(),
            op => format!("{} ({})", to.name, to.operations[usize::from(op) - 1].name),
        }
    }

    /// How many copies of the call's policy state run: one per caller instance.
    pub fn caller_instances(&self, site: &Site) -> u32 {
        match site.caller {
            Caller::Client(_) => 1,
            Caller::Service { service, .. } => self.model.services[service].instances,
        }
    }

    /// Requests per second offered to `service`, all its plans together (first attempts).
    pub fn offered(&self, service: usize) -> Rate {
        (self.rates[service].iter()).fold(Rate::ZERO, |sum, &r| sum.add(r))
    }

    /// The longest any caller of `service`'s plan waits for one request.
    pub fn wait(&self, service: usize, plan: usize) -> Option<&Bound> {
        self.waits[service][plan].as_ref()
    }

    /// The time a call has from its start to its deadline, at most: the caller's deadline (or
    /// its own attempt's end) passed down, less the call's `reserve`, or its own
    /// `total_timeout` if that is shorter; no bound when it has neither.
    pub fn deadline(&self, site: &Site) -> Bound {
        let inherited = self.inherited_deadline(site);
        match site.spec.policy.total_timeout() {
            Some(t) if inherited.ns.is_none_or(|d| t.0 < d) => Bound {
                ns: Some(t.0),
                why: format!("its {} total_timeout", dur(t.0)),
            },
            _ => inherited,
        }
    }

    /// The part of `deadline` the caller passes down: none when the call does not take it.
    fn inherited_deadline(&self, site: &Site) -> Bound {
        let policy = &site.spec.policy;
        if !policy.propagate_deadline() {
            return Bound::none();
        }
        let caller = match site.caller {
            Caller::Client(c) => match site.client_deadline {
                Some(d) => Bound {
                    ns: Some(d),
                    why: format!(
                        "{} {} deadline",
                        possessive(&format!("client {}", self.model.clients[c].name)),
                        dur(d)
                    ),
                },
                None => Bound::none(),
            },
            Caller::Service { service, plan } => match self.wait(service, plan) {
                Some(b) if b.ns.is_some() => b.clone(),
                _ => Bound::none(),
            },
        };
        match (caller.ns, policy.reserve().0) {
            (Some(d), r) if r > 0 => Bound {
                ns: Some(d.saturating_sub(r)),
                why: format!("{} less the {} reserve", caller.why, dur(r)),
            },
            _ => caller,
        }
    }

    /// The longest one attempt of the call can last: its longest timeout, cut at its deadline.
    pub fn attempt_window(&self, site: &Site) -> Bound {
        let deadline = self.deadline(site);
        let longest = longest_timeout(site.spec);
        let name = self.call_name(site);
        let caller = match site.caller {
            Caller::Service { service, .. } => {
                format!("{} callers", possessive(&self.model.services[service].name))
            }
            Caller::Client(c) => format!("client {}", self.model.clients[c].name),
        };
        match (longest, deadline.ns) {
            (Some(t), d) if d.is_none_or(|d| t <= d) => Bound {
                ns: Some(t),
                why: format!("{} {} timeout", possessive(&name), dur(t)),
            },
            (_, Some(d)) => Bound {
                ns: Some(d),
                why: format!("{}, passed on by {name}", deadline.why),
            },
            _ => Bound {
                ns: None,
                why: format!("{caller} wait without bound"),
            },
        }
    }

    /// Calls per second the site makes (first attempts only).
    pub fn site_rate(&self, site: &Site) -> Rate {
        let caller = match site.caller {
            Caller::Client(c) => client_rate(self.model, c),
            Caller::Service { service, plan } => self.rates[service][plan],
        };
        let rate = Rate {
            base: caller.base * site.share,
            peak: caller.peak.map(|p| p * site.peak_share),
        };
        if site.fallback {
            // At most one fallback call per call, but how many fail is not known beforehand.
            Rate { base: 0.0, ..rate }
        } else {
            rate
        }
    }
}

/// What is left of an attempt's window when its request reaches the callee: the caller's
/// deadline is an instant at the caller, and the request spends at least the network's least
/// one-way delay (a client's `network`, a call's `latency`) on the way, time the callee
/// cannot have. The least, not the median: the callee's calls may be given no more than this.
fn reached(window: Bound, spec: &CallSpec) -> Bound {
    let least = spec.latency.as_ref().map_or(0, |l| l.least() as u64);
    match window.ns {
        Some(ns) if least > 0 => Bound {
            ns: Some(ns.saturating_sub(least)),
            why: format!("{} less the {} network on the way", window.why, dur(least)),
        },
        _ => window,
    }
}

/// `api's`, `payments'`.
pub fn possessive(name: &str) -> String {
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

/// The longest timeout any attempt of the call has (`retry.timeout` for the later ones);
/// `None` when some attempt has none.
pub fn longest_timeout(spec: &CallSpec) -> Option<u64> {
    let first = spec.policy.timeout()?.0;
    match spec.policy.retry() {
        Some(r) if r.attempts() > 1 => r.timeout().map_or(Some(first), |t| Some(t.0.max(first))),
        _ => Some(first),
    }
}

/// The timeout of attempt `k` (1-based).
pub fn attempt_timeout(spec: &CallSpec, k: u32) -> Option<u64> {
    let retry = spec.policy.retry().and_then(|r| r.timeout().map(|t| t.0));
    if k > 1 {
        retry.or(spec.policy.timeout().map(|t| t.0))
    } else {
        spec.policy.timeout().map(|t| t.0)
    }
}

/// A client's requests per second: an open loop's base and peak; a closed loop at most one
/// request per user per think time (or pace), its base not known beforehand.
fn client_rate(model: &Model, c: usize) -> Rate {
    match &model.clients[c].load {
        Load::Open { rate, .. } => Rate {
            base: rate.base_per_s(),
            peak: Some(rate.peak_per_s(model.end())),
        },
        Load::Closed { users, think, pace } => {
            let gap = pace.map_or_else(|| think.mean(), |p| p as f64);
            // An overload fault on a closed loop adds users for its span.
            let extra = (model.faults.iter())
                .filter(|f| f.target == Target::Client(c))
                .map(|f| match f.effect {
                    Effect::Overload { users, .. } => users,
                    _ => 0,
                })
                .sum::<u32>();
            Rate {
                base: 0.0,
                peak: (gap > 0.0).then(|| f64::from(users + extra) * 1e9 / gap),
            }
        }
    }
}

/// Every place a call is made: clients' calls (with their mix shares), services' steps (with
/// the share of requests that make each), and the fallback call behind each.
fn sites(model: &Model) -> Vec<Site<'_>> {
    let mut out = Vec::new();
    for (c, client) in model.clients.iter().enumerate() {
        let first = client.mix.as_ref().map_or(1.0, |m| m.first);
        let field = |i: usize| match client.mix {
            Some(_) => format!("client.{}.mix.{i}.deadline", client.name),
            None => format!("client.{}.deadline", client.name),
        };
        out.push(Site {
            spec: &client.call,
            caller: Caller::Client(c),
            share: first,
            peak_share: first,
            fallback: false,
            client_deadline: client.deadline,
            deadline_field: Some(field(0)),
        });
        if let Some(mix) = &client.mix {
            let mut before = first;
            for (i, e) in mix.others.iter().enumerate() {
                out.push(Site {
                    spec: &e.call,
                    caller: Caller::Client(c),
                    share: e.until - before,
                    peak_share: e.until - before,
                    fallback: false,
                    client_deadline: e.deadline,
                    deadline_field: Some(field(i + 1)),
                });
                before = e.until;
            }
        }
    }
    for (s, service) in model.services.iter().enumerate() {
        for (plan, p) in service.plans().enumerate() {
            let raised = raised_steps(model, s, plan);
            let peaks = step_shares_with(p, &raised);
            for ((step, share), peak_share) in p.steps.iter().zip(step_shares(p)).zip(peaks) {
                for spec in step {
                    out.push(Site {
                        spec,
                        caller: Caller::Service { service: s, plan },
                        share,
                        peak_share: peak_share.max(share),
                        fallback: false,
                        client_deadline: None,
                        deadline_field: None,
                    });
                }
            }
        }
    }
    let backed: Vec<Site> = (out.iter())
        .filter_map(|site| {
            let f = site.spec.fallback?;
            Some(Site {
                spec: &model.fallbacks[f],
                fallback: true,
                ..site.clone()
            })
        })
        .collect();
    out.extend(backed);
    out
}

/// Per step of a plan, the share of its requests that reach it and make its calls: 1 for a
/// plain step, `p` for a step with one, an option's share inside a choice.
pub fn step_shares(plan: &Plan) -> Vec<f64> {
    step_shares_with(plan, &[])
}

/// The `(step, p)` of every `branch` fault on a plan of a service: the step made with that
/// probability while the fault lasts.
fn raised_steps(model: &Model, service: usize, plan: usize) -> Vec<(usize, f64)> {
    (model.faults.iter())
        .filter(|f| f.target == Target::Service(service) && usize::from(f.operation) == plan)
        .filter_map(|f| match f.effect {
            Effect::Branch { step, p, .. } => Some((step, p)),
            _ => None,
        })
        .collect()
}

/// `step_shares`, each step in `raised` made with the larger of its own `p` and the one given.
fn step_shares_with(plan: &Plan, raised: &[(usize, f64)]) -> Vec<f64> {
    let n = plan.steps.len();
    if plan.branches.is_empty() {
        return vec![1.0; n];
    }
    let mut reach = vec![0.0; n + 1];
    let mut made = vec![0.0; n];
    reach[0] = 1.0;
    for i in 0..n {
        let m = reach[i];
        let branch = plan.branches.get(i).and_then(Option::as_ref);
        let next = branch.and_then(|b| b.exit).unwrap_or(i + 1).min(n);
        match branch.map(|b| &b.rule) {
            Some(Rule::Choose { until, starts }) => {
                let mut before = 0.0;
                for (u, &start) in until.iter().zip(starts) {
                    reach[start.min(n)] += m * (u - before);
                    before = *u;
                }
            }
            Some(Rule::Maybe(p)) => {
                let by_fault = raised.iter().filter(|(step, _)| *step == i);
                made[i] = m * by_fault.fold(*p, |p, (_, q)| p.max(*q));
                reach[next] += m;
            }
            Some(Rule::Always) | None => {
                made[i] = m;
                reach[next] += m;
            }
        }
    }
    made
}

/// Services ordered callers first (the call graph has no cycle: the compiler refuses one).
fn callers_first(model: &Model, sites: &[Site]) -> Vec<usize> {
    let n = model.services.len();
    let edges: Vec<(usize, usize)> = (sites.iter())
        .filter_map(|site| match site.caller {
            Caller::Service { service, .. } => Some((service, site.spec.to)),
            Caller::Client(_) => None,
        })
        .collect();
    let mut callers = vec![0usize; n];
    for &(_, to) in &edges {
        callers[to] += 1;
    }
    let mut ready: Vec<usize> = (0..n).filter(|&s| callers[s] == 0).rev().collect();
    let mut order = Vec::with_capacity(n);
    while let Some(s) = ready.pop() {
        order.push(s);
        for &(from, to) in &edges {
            if from == s {
                callers[to] -= 1;
                if callers[to] == 0 {
                    ready.push(to);
                }
            }
        }
    }
    // A cycle cannot reach here; whatever it left out is still visited, last.
    let left: Vec<usize> = (0..n).filter(|s| !order.contains(s)).collect();
    order.extend(left);
    order
}
