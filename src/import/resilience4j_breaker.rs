//! resilience4j's `circuitbreaker` instances as cascade breakers (docs/import.md).

use super::out::{PolicyOut, Toml};
use super::read::{Ctx, Read, duration_text};
use super::resilience4j::*;
use crate::time::NANOS_PER_SEC;

pub(super) fn breaker(ctx: &mut Ctx, i: &Instance, p: &mut PolicyOut) -> Read<()> {
    let t = "breaker";
    let m = "circuitbreaker";
    if let (Some(e), Some(r)) = (
        prop(i, "enableexponentialbackoff"),
        prop(i, "enablerandomizedwait"),
    ) && ctx.boolean(e.node, &e.path)?
        && ctx.boolean(r.node, &r.path)?
    {
        return Err(ctx.error(
            r.node,
            &r.path,
            "resilience4j refuses exponential and randomized open times together",
        ));
    }
    let d = |k: &str| default_from(i, m, k);
    let time_based = match prop(i, "slidingwindowtype") {
        Some(q) => match ctx.text(q.node, &q.path)?.to_ascii_uppercase().as_str() {
            "COUNT_BASED" => false,
            "TIME_BASED" => true,
            other => {
                return Err(ctx.error(
                    q.node,
                    &q.path,
                    format!("unknown sliding window type `{other}` (COUNT_BASED or TIME_BASED)"),
                ));
            }
        },
        None => false,
    };
    let size = match prop(i, "slidingwindowsize") {
        Some(q) => (ctx.uint(q.node, &q.path)?, from(ctx, q)),
        None => (100, d("slidingWindowSize")),
    };
    if size.0 == 0 || size.0 > u64::from(u32::MAX) {
        let q = prop(i, "slidingwindowsize").expect("the default is 100");
        return Err(ctx.error(q.node, &q.path, "must be at least 1"));
    }
    let wtype = prop(i, "slidingwindowtype").map_or(d("slidingWindowType"), |q| from(ctx, q));
    if time_based {
        p.set(
            t,
            "window",
            Toml::Str(format!("{}s", size.0)),
            format!("{}; {wtype}: {} one-second buckets", size.1, size.0),
        );
    } else {
        p.set(
            t,
            "window",
            Toml::Int(size.0 as i64),
            format!("{}; {wtype}", size.1),
        );
    }
    let count = |key: &str, name: &str, dflt: u64, p: &mut PolicyOut| -> Read<()> {
        let (n, f) = match prop(i, key) {
            Some(q) => (ctx.uint(q.node, &q.path)?, from(ctx, q)),
            None => (dflt, d(name)),
        };
        if n == 0 || n > u64::from(u32::MAX) {
            let q = prop(i, key).expect("defaults are positive");
            return Err(ctx.error(q.node, &q.path, "must be at least 1"));
        }
        p.set(t, name_of(key), Toml::Int(n as i64), f);
        Ok(())
    };
    count("minimumnumberofcalls", "minimumNumberOfCalls", 100, p)?;
    let rate = |key: &str, name: &str, dflt: f64, out: &str, p: &mut PolicyOut| -> Read<()> {
        let (v, f) = match prop(i, key) {
            Some(q) => (percent(ctx, q)?, from(ctx, q)),
            None => (dflt, d(name)),
        };
        p.set(t, out, Toml::Float(v), f);
        Ok(())
    };
    rate(
        "failureratethreshold",
        "failureRateThreshold",
        0.5,
        "failure_rate",
        p,
    )?;
    rate(
        "slowcallratethreshold",
        "slowCallRateThreshold",
        1.0,
        "slow_call_rate",
        p,
    )?;
    let dur = |key: &str, name: &str, out: &str, p: &mut PolicyOut| -> Read<u64> {
        let (ns, f) = match prop(i, key) {
            Some(q) => (duration(ctx, q, true)?, from(ctx, q)),
            None => (60 * NANOS_PER_SEC, d(name)),
        };
        p.set(t, out, Toml::Str(duration_text(ns)), f);
        Ok(ns)
    };
    dur(
        "slowcalldurationthreshold",
        "slowCallDurationThreshold",
        "slow_call_duration",
        p,
    )?;
    dur(
        "waitdurationinopenstate",
        "waitDurationInOpenState",
        "open",
        p,
    )?;
    let half = match prop(i, "permittednumberofcallsinhalfopenstate") {
        Some(q) => (ctx.uint(q.node, &q.path)?, from(ctx, q)),
        None => (10, d("permittedNumberOfCallsInHalfOpenState")),
    };
    if half.0 == 0 || half.0 > u64::from(u32::MAX) {
        let q = prop(i, "permittednumberofcallsinhalfopenstate").expect("the default is 10");
        return Err(ctx.error(q.node, &q.path, "must be at least 1"));
    }
    p.set(
        t,
        "half_open_calls",
        Toml::Int(half.0 as i64),
        format!(
            "{}: cascade closes after all succeed, re-opens at the first failure",
            half.1
        ),
    );
    let mut read = vec![
        "slidingwindowtype",
        "slidingwindowsize",
        "minimumnumberofcalls",
        "failureratethreshold",
        "slowcallratethreshold",
        "slowcalldurationthreshold",
        "waitdurationinopenstate",
        "permittednumberofcallsinhalfopenstate",
        "enableexponentialbackoff",
    ];
    if let Some(q) = prop(i, "automatictransitionfromopentohalfopenenabled")
        && !ctx.boolean(q.node, &q.path)?
    {
        read.push("automatictransitionfromopentohalfopenenabled");
    }
    if let Some(q) = prop(i, "maxwaitdurationinhalfopenstate")
        && ctx.spring_duration(q.node, &q.path)? == 0
    {
        read.push("maxwaitdurationinhalfopenstate");
    }
    if let Some(q) = prop(i, "enableexponentialbackoff")
        && ctx.boolean(q.node, &q.path)?
    {
        read.extend([
            "exponentialbackoffmultiplier",
            "exponentialmaxwaitdurationinopenstate",
        ]);
        let (mult, f) = multiplier(ctx, i, "open time", d("exponentialBackoffMultiplier"))?;
        p.set(
            t,
            "open_multiplier",
            Toml::Float(mult),
            format!("{f}; {}", from(ctx, q)),
        );
        match prop(i, "exponentialmaxwaitdurationinopenstate") {
            Some(q) => p.set(
                t,
                "open_max",
                Toml::Str(duration_text(duration(ctx, q, true)?)),
                from(ctx, q),
            ),
            None => p.set(
                t,
                "open_max",
                Toml::Str(NO_CAP.into()),
                format!(
                    "{}: resilience4j sets no cap; a day stands for none",
                    d("exponentialMaxWaitDurationInOpenState")
                ),
            ),
        }
    }
    skip_rest(ctx, i, &read);
    Ok(())
}

pub(super) fn name_of(key: &str) -> &'static str {
    match key {
        "minimumnumberofcalls" => "min_calls",
        _ => unreachable!("only min_calls goes through `count`"),
    }
}
