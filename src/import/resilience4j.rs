//! `cascade import resilience4j`: a Spring Boot `application.yml` or `application.properties`
//! holding `resilience4j.*` instances. Every instance name becomes a policy gathering its
//! circuit breaker, retry, bulkhead (or thread-pool bulkhead) and time limiter. As
//! resilience4j-spring-boot does (`resolve` below), an instance's `baseConfig` names a `configs`
//! entry its keys override, and without one `configs.default` is the base; keys bind relaxed (`waitDuration`,
//! `wait-duration`); durations are Spring's (`10s`, `PT10S`, bare milliseconds). Where the file
//! is silent, resilience4j's own defaults are written out, each line saying so.

use super::out::{Imported, PolicyOut, Toml};
use super::read::{Ctx, Read, canonical, duration_text, entry as get, policy_name};
use super::resilience4j_breaker::*;
use super::resilience4j_limits::*;
use super::tree::Node;
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC};

/// resilience4j's defaults (`RetryConfig`, `IntervalFunction`, `TimeLimiterConfig`,
/// `BulkheadConfig`, `CircuitBreakerConfig`; docs/policies.md §13).
pub(super) const MAX_ATTEMPTS: u64 = 3;
pub(super) const WAIT_NS: u64 = 500 * NANOS_PER_MS;
pub(super) const MULTIPLIER: f64 = 1.5;
pub(super) const RANDOMIZATION: f64 = 0.5;
pub(super) const TIMEOUT_NS: u64 = NANOS_PER_SEC;
pub(super) const MAX_CONCURRENT: u64 = 25;
pub(super) const TPB_QUEUE: u64 = 100;
/// resilience4j's exponential waits have no cap unless one is written; a day stands for none.
pub(super) const NO_CAP: &str = "24h";
/// resilience4j does not bound a bulkhead's waiters; cascade needs a queue size.
pub(super) const UNBOUNDED_QUEUE: i64 = 1000;
/// A thread-pool bulkhead's queued task waits until a thread is free; the deadline ends it.
pub(super) const TPB_WAIT: &str = "1h";
/// resilience4j retries every exception: every kind cascade may retry.
pub(super) const RETRY_ALL: [&str; 5] = [
    "timeout",
    "unavailable",
    "overloaded",
    "internal",
    "refused",
];

pub(super) const MODULES: [&str; 6] = [
    "circuitbreaker",
    "retry",
    "bulkhead",
    "threadpoolbulkhead",
    "timelimiter",
    "ratelimiter",
];

/// One property of a resolved instance: its canonical name, its source path and its value.
pub(super) struct Prop<'a> {
    pub(super) key: String,
    pub(super) path: String,
    pub(super) node: &'a Node,
}

pub(super) struct Instance<'a> {
    pub(super) name: String,
    pub(super) module: &'static str,
    pub(super) props: Vec<Prop<'a>>,
}

pub fn import(ctx: &mut Ctx, root: &Node) -> Read<Imported> {
    // Spring reads `resilience4j.retry:` as `resilience4j: {retry: …}`.
    let root = &root.expand_dotted();
    let mut r4j = None;
    for (k, v) in root.entries() {
        if canonical(&k.text) == "resilience4j" {
            r4j = Some((k.text.as_str(), v));
        } else {
            ctx.skip(v, &k.text, "outside `resilience4j`");
        }
    }
    let Some((prefix, r4j)) = r4j else {
        return Err(ctx.error(
            root,
            "resilience4j",
            "no `resilience4j` section: nothing to import",
        ));
    };
    let mut instances = Vec::new();
    for (k, v) in r4j.entries() {
        let c = canonical(&k.text);
        let path = format!("{prefix}.{}", k.text);
        match MODULES.iter().find(|m| **m == c) {
            Some(module) => module_instances(ctx, v, &path, module, &mut instances)?,
            None => ctx.skip(v, &path, "not a resilience4j module cascade reads"),
        }
    }
    let mut names: Vec<String> = Vec::new();
    for i in &instances {
        if i.module != "ratelimiter" && !names.contains(&i.name) {
            names.push(i.name.clone());
        }
    }
    let mut out = Imported::default();
    for name in names {
        let mut p = PolicyOut::new(&policy_name(&name));
        let mine: Vec<&Instance> = instances.iter().filter(|i| i.name == name).collect();
        let semaphore = mine.iter().any(|i| i.module == "bulkhead");
        for i in mine {
            match i.module {
                "circuitbreaker" => breaker(ctx, i, &mut p)?,
                "retry" => retry(ctx, i, &mut p)?,
                "bulkhead" => bulkhead(ctx, i, &mut p)?,
                "threadpoolbulkhead" if semaphore => {
                    let at = i.props.first().map_or(root, |q| q.node);
                    ctx.skip(at, &format!("resilience4j.thread-pool-bulkhead.instances.{}", i.name), "a policy has one bulkhead: the semaphore bulkhead of this name is imported (@Bulkhead's default type)");
                }
                "threadpoolbulkhead" => thread_pool(ctx, i, &mut p, root)?,
                _ => time_limiter(ctx, i, &mut p)?,
            }
        }
        out.policies.push(p);
    }
    if out.policies.is_empty() {
        return Err(ctx.error(r4j, prefix, "no instance of a module cascade simulates (circuitbreaker, retry, bulkhead, thread-pool-bulkhead, timelimiter)"));
    }
    Ok(out)
}

pub(super) fn module_instances<'a>(
    ctx: &mut Ctx,
    node: &'a Node,
    path: &str,
    module: &'static str,
    out: &mut Vec<Instance<'a>>,
) -> Read<()> {
    let configs = get(node, "configs");
    for (k, v) in node.entries() {
        let kpath = format!("{path}.{}", k.text);
        match canonical(&k.text).as_str() {
            "configs" => {}
            "instances" | "backends" => {
                for (ik, iv) in v.entries() {
                    let ipath = format!("{kpath}.{}", ik.text);
                    if module == "ratelimiter" {
                        ctx.skip(iv, &ipath, "a RateLimiter caps calls per period; cascade has no such policy, so its limits are not simulated");
                        continue;
                    }
                    let configs = configs.map(|(n, c)| (format!("{path}.{n}"), c));
                    let props = resolve(ctx, iv, &ipath, &ik.text, configs, module, false, 0)?;
                    out.push(Instance {
                        name: ik.text.clone(),
                        module,
                        props,
                    });
                }
            }
            _ => ctx.skip(v, &kpath, "module-wide setting (aspect order, metrics, tags): cascade keeps Spring's default decorator order, Retry outside CircuitBreaker"),
        }
    }
    Ok(())
}

/// An instance's (or a config's) properties over its base, as resilience4j-spring resolves
/// them. Retry, bulkhead and time limiter (`CommonRetryConfigurationProperties`): `baseConfig`
/// names the base, and any base but `default` sits on `configs.default` in turn; without
/// `baseConfig`, `configs.default`. The circuit breaker
/// (`CommonCircuitBreakerConfigurationProperties`): `baseConfig` names the base, which does
/// not take `default` itself; without one, a config of the instance's own name, else
/// `configs.default`.
#[allow(clippy::too_many_arguments)]
pub(super) fn resolve<'a>(
    ctx: &Ctx,
    node: &'a Node,
    path: &str,
    name: &str,
    configs: Option<(String, &'a Node)>,
    module: &str,
    is_config: bool,
    depth: usize,
) -> Read<Vec<Prop<'a>>> {
    if depth > 8 {
        return Err(ctx.error(node, path, "baseConfig goes round in a circle"));
    }
    let config = |wanted: &str| {
        configs.as_ref().and_then(|(cpath, c)| {
            c.entries()
                .iter()
                .find(|(ck, _)| ck.text == wanted)
                .map(|(ck, cv)| (format!("{cpath}.{}", ck.text), cv))
        })
    };
    let breaker = module == "circuitbreaker";
    let mut props = match get(node, "baseconfig") {
        Some((k, v)) => {
            let b = ctx.text(v, &format!("{path}.{k}"))?;
            let Some((bpath, bnode)) = config(b) else {
                return Err(ctx.error(v, &format!("{path}.{k}"), format!("no config named `{b}` under `configs`, which resilience4j refuses (ConfigurationNotFoundException)")));
            };
            resolve(
                ctx,
                bnode,
                &bpath,
                b,
                configs.clone(),
                module,
                true,
                depth + 1,
            )?
        }
        None if breaker && is_config => Vec::new(),
        None if breaker => match config(name).or_else(|| config("default")) {
            Some((cpath, cnode)) => own_props(cnode, &cpath),
            None => Vec::new(),
        },
        None if name != "default" => match config("default") {
            Some((cpath, cnode)) => resolve(
                ctx,
                cnode,
                &cpath,
                "default",
                configs.clone(),
                module,
                true,
                depth + 1,
            )?,
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    for p in own_props(node, path) {
        props.retain(|q| q.key != p.key);
        props.push(p);
    }
    Ok(props)
}

/// A node's own properties, `baseConfig` left out.
pub(super) fn own_props<'a>(node: &'a Node, path: &str) -> Vec<Prop<'a>> {
    node.entries()
        .iter()
        .filter(|(k, _)| canonical(&k.text) != "baseconfig")
        .map(|(k, v)| Prop {
            key: canonical(&k.text),
            path: format!("{path}.{}", k.text),
            node: v,
        })
        .collect()
}

pub(super) fn prop<'a>(i: &'a Instance, key: &str) -> Option<&'a Prop<'a>> {
    i.props.iter().find(|p| p.key == key)
}

pub(super) fn from(ctx: &Ctx, p: &Prop) -> String {
    format!("{} ({})", p.path, ctx.at(p.node))
}

pub(super) fn default_from(i: &Instance, module: &str, key: &str) -> String {
    format!(
        "resilience4j.{module}.instances.{}.{key}: resilience4j's default",
        i.name
    )
}

/// Keys each module reads; the rest are skipped with a reason.
pub(super) fn skip_rest(ctx: &mut Ctx, i: &Instance, read: &[&str]) {
    for p in &i.props {
        if read.contains(&p.key.as_str()) {
            continue;
        }
        let reason = match p.key.as_str() {
            "recordexceptions"
            | "ignoreexceptions"
            | "retryexceptions"
            | "recordfailurepredicate"
            | "ignoreexceptionpredicate"
            | "recordresultpredicate"
            | "retryexceptionpredicate"
            | "resultpredicate"
            | "retryonresultpredicate" => {
                "exception classes are not cascade outcome kinds: list the kinds in `retry.on` / `breaker.count`"
            }
            "registerhealthindicator"
            | "allowhealthindicatortofail"
            | "eventconsumerbuffersize"
            | "writablestacktraceenabled"
            | "metricsenabled" => "observability, not behaviour",
            "initialstate" => "a breaker starting in another state than closed is not simulated",
            "failaftermaxattempts" => {
                "the exception thrown after the last attempt is not simulated"
            }
            "intervalbifunction" | "consumeresultbeforeretryattempt" => {
                "custom code is not simulated"
            }
            "maxthreadpoolsize" => {
                "a thread pool growing from core to max threads once its queue is full is not simulated: `max_concurrent` is the core size"
            }
            "keepaliveduration" | "contextpropagators" => "thread-pool details are not simulated",
            "automatictransitionfromopentohalfopenenabled" => {
                "cascade moves to half-open lazily, on the next call (resilience4j's default)"
            }
            "maxwaitdurationinhalfopenstate" => {
                "a time limit on half-open is not simulated (probes end at their timeout)"
            }
            "enablerandomizedwait" | "randomizedwaitfactor" if i.module == "circuitbreaker" => {
                "a randomised open time is not simulated"
            }
            "faircallhandlingenabled" => "cascade's waiters are always served in order (fair)",
            _ => "not a resilience4j property cascade simulates",
        };
        ctx.skip(p.node, &p.path, reason);
    }
}

pub(super) fn duration(ctx: &Ctx, p: &Prop, positive: bool) -> Read<u64> {
    let ns = ctx.spring_duration(p.node, &p.path)?;
    if positive && ns == 0 {
        return Err(ctx.error(p.node, &p.path, "must be longer than zero"));
    }
    Ok(ns)
}

/// `exponentialBackoffMultiplier` (breaker and retry alike): resilience4j's 1.5 unless set,
/// with where it came from; below 1 it would shrink `what`, which cascade's never does.
pub(super) fn multiplier(
    ctx: &Ctx,
    i: &Instance,
    what: &str,
    default: String,
) -> Read<(f64, String)> {
    let Some(q) = prop(i, "exponentialbackoffmultiplier") else {
        return Ok((MULTIPLIER, default));
    };
    let mult = ctx.number(q.node, &q.path)?;
    if mult < 1.0 {
        return Err(ctx.error(
            q.node,
            &q.path,
            format!("cascade's {what} never shrinks: at least 1"),
        ));
    }
    Ok((mult, from(ctx, q)))
}

pub(super) fn percent(ctx: &Ctx, p: &Prop) -> Read<f64> {
    let v = ctx.number(p.node, &p.path)?;
    if !(v > 0.0 && v <= 100.0) {
        return Err(ctx.error(
            p.node,
            &p.path,
            "a percentage in (0, 100], as resilience4j requires",
        ));
    }
    Ok(v / 100.0)
}

pub(super) fn retry(ctx: &mut Ctx, i: &Instance, p: &mut PolicyOut) -> Read<()> {
    let t = "retry";
    let d = |k: &str| default_from(i, "retry", k);
    let attempts = match prop(i, "maxattempts") {
        // resilience4j ignores 0 (`getMaxAttempts() != 0`) and keeps its default.
        Some(q) if ctx.uint(q.node, &q.path)? != 0 => (
            ctx.uint(q.node, &q.path)?,
            format!("{}: the first call counted", from(ctx, q)),
        ),
        _ => (MAX_ATTEMPTS, d("maxAttempts")),
    };
    if attempts.0 > u64::from(u32::MAX) {
        let q = prop(i, "maxattempts").expect("the default is 3");
        return Err(ctx.error(q.node, &q.path, "too many attempts"));
    }
    p.set(t, "attempts", Toml::Int(attempts.0 as i64), attempts.1);
    p.set(
        t,
        "on",
        Toml::List(RETRY_ALL.iter().map(|s| s.to_string()).collect()),
        format!(
            "{}: resilience4j retries every exception",
            d("retryExceptions")
        ),
    );
    let flag = |key: &str| -> Read<bool> {
        match prop(i, key) {
            Some(q) => ctx.boolean(q.node, &q.path),
            None => Ok(false),
        }
    };
    let wait = match prop(i, "waitduration") {
        Some(q) => Some((duration(ctx, q, false)?, from(ctx, q))),
        None => None,
    };
    // resilience4j builds an interval function only when waitDuration is set; otherwise the
    // default fixed 500 ms stands, whatever the other flags say.
    let (exponential, randomized) = match wait {
        Some(_) => (
            flag("enableexponentialbackoff")?,
            flag("enablerandomizedwait")?,
        ),
        None => (false, false),
    };
    let (base, base_from) = wait.unwrap_or((WAIT_NS, d("waitDuration")));
    p.set(t, "base", Toml::Str(duration_text(base)), base_from);
    let mut read = vec![
        "maxattempts",
        "waitduration",
        "enableexponentialbackoff",
        "enablerandomizedwait",
    ];
    if exponential {
        read.extend(["exponentialbackoffmultiplier", "exponentialmaxwaitduration"]);
        let q = prop(i, "enableexponentialbackoff").expect("set, since true");
        p.set(t, "backoff", Toml::Str("exponential".into()), from(ctx, q));
        let (mult, f) = multiplier(ctx, i, "backoff", d("exponentialBackoffMultiplier"))?;
        p.set(t, "multiplier", Toml::Float(mult), f);
        match prop(i, "exponentialmaxwaitduration") {
            Some(q) => {
                let max = duration(ctx, q, false)?;
                if max < base {
                    return Err(ctx.error(q.node, &q.path, "shorter than waitDuration"));
                }
                p.set(t, "max", Toml::Str(duration_text(max)), from(ctx, q));
            }
            None => p.set(
                t,
                "max",
                Toml::Str(NO_CAP.into()),
                format!(
                    "{}: resilience4j sets no cap; a day stands for none",
                    d("exponentialMaxWaitDuration")
                ),
            ),
        }
    } else {
        let f = prop(i, "waitduration").map_or(d("waitDuration"), |q| from(ctx, q));
        p.set(
            t,
            "backoff",
            Toml::Str("constant".into()),
            format!("{f}: a fixed wait"),
        );
        p.set(
            t,
            "max",
            Toml::Str(duration_text(base.max(1))),
            format!("{f}: a fixed wait"),
        );
    }
    if randomized {
        read.push("randomizedwaitfactor");
        let q = prop(i, "enablerandomizedwait").expect("set, since true");
        p.set(t, "jitter", Toml::Str("proportional".into()), from(ctx, q));
        let (f, ffrom) = match prop(i, "randomizedwaitfactor") {
            Some(q) => (ctx.number(q.node, &q.path)?, from(ctx, q)),
            None => (RANDOMIZATION, d("randomizedWaitFactor")),
        };
        if !(0.0..=1.0).contains(&f) {
            let q = prop(i, "randomizedwaitfactor").expect("the default is 0.5");
            return Err(ctx.error(q.node, &q.path, "must be between 0 and 1"));
        }
        p.set(t, "jitter_factor", Toml::Float(f), ffrom);
    } else {
        p.set(
            t,
            "jitter",
            Toml::Str("none".into()),
            d("enableRandomizedWait"),
        );
    }
    p.set(
        t,
        "retry_after",
        Toml::Bool(false),
        format!(
            "{}: resilience4j reads no Retry-After",
            d("intervalBiFunction")
        ),
    );
    skip_rest(ctx, i, &read);
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn retry_all_is_retryable() {
        use cascade_policy::outcome::Outcome;
        for k in super::RETRY_ALL {
            let o = Outcome::from_name(k).unwrap();
            assert!(!cascade_policy::retry::NEVER_RETRIED.contains(&o), "{k}");
        }
    }
}
