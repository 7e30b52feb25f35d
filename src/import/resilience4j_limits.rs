//! resilience4j's `bulkhead`, `thread-pool-bulkhead` and `timelimiter` instances as cascade
//! bulkheads and timeouts (docs/import.md).

use super::out::{PolicyOut, Toml};
use super::read::{Ctx, Read, duration_text};
use super::resilience4j::*;
use super::tree::Node;

pub(super) fn bulkhead(ctx: &mut Ctx, i: &Instance, p: &mut PolicyOut) -> Read<()> {
    let t = "bulkhead";
    let d = |k: &str| default_from(i, "bulkhead", k);
    let (n, f) = match prop(i, "maxconcurrentcalls") {
        Some(q) => (ctx.uint(q.node, &q.path)?, from(ctx, q)),
        None => (MAX_CONCURRENT, d("maxConcurrentCalls")),
    };
    if n == 0 || n > u64::from(u32::MAX) {
        let q = prop(i, "maxconcurrentcalls").expect("the default is 25");
        return Err(ctx.error(q.node, &q.path, "cascade's bulkhead needs at least 1"));
    }
    p.set(t, "max_concurrent", Toml::Int(n as i64), f);
    let mut read = vec!["maxconcurrentcalls", "maxwaitduration"];
    let wait = match prop(i, "maxwaitduration") {
        Some(q) => (duration(ctx, q, false)?, from(ctx, q)),
        None => (0, d("maxWaitDuration")),
    };
    if wait.0 > 0 {
        p.set(
            t,
            "queue",
            Toml::Int(UNBOUNDED_QUEUE),
            format!("{}: resilience4j does not bound its waiters", wait.1),
        );
        p.set(t, "max_wait", Toml::Str(duration_text(wait.0)), wait.1);
    } else {
        p.set(
            t,
            "max_wait",
            Toml::Str("0".into()),
            format!("{}: no waiting", wait.1),
        );
    }
    if let Some(q) = prop(i, "faircallhandlingenabled")
        && ctx.boolean(q.node, &q.path)?
    {
        read.push("faircallhandlingenabled");
    }
    skip_rest(ctx, i, &read);
    Ok(())
}

pub(super) fn thread_pool(ctx: &mut Ctx, i: &Instance, p: &mut PolicyOut, root: &Node) -> Read<()> {
    let t = "bulkhead";
    let Some(core) = prop(i, "corethreadpoolsize") else {
        let at = i.props.first().map_or(root, |q| q.node);
        return Err(ctx.error(at, &format!("resilience4j.thread-pool-bulkhead.instances.{}.coreThreadPoolSize", i.name), "resilience4j's default is the CPU count of the machine it runs on, minus one: write it"));
    };
    let n = ctx.uint(core.node, &core.path)?;
    if n == 0 || n > u64::from(u32::MAX) {
        return Err(ctx.error(core.node, &core.path, "cascade's bulkhead needs at least 1"));
    }
    p.set(
        t,
        "max_concurrent",
        Toml::Int(n as i64),
        format!("{}: the core threads", from(ctx, core)),
    );
    let (queue, f) = match prop(i, "queuecapacity") {
        Some(q) => (ctx.uint(q.node, &q.path)?, from(ctx, q)),
        None => (
            TPB_QUEUE,
            default_from(i, "thread-pool-bulkhead", "queueCapacity"),
        ),
    };
    if queue > u64::from(u32::MAX) {
        let q = prop(i, "queuecapacity").expect("the default is 100");
        return Err(ctx.error(q.node, &q.path, "too large"));
    }
    p.set(t, "queue", Toml::Int(queue as i64), f.clone());
    if queue > 0 {
        p.set(
            t,
            "max_wait",
            Toml::Str(TPB_WAIT.into()),
            format!("{f}: a queued task waits for a thread; the deadline ends the wait"),
        );
    }
    skip_rest(ctx, i, &["corethreadpoolsize", "queuecapacity"]);
    Ok(())
}

pub(super) fn time_limiter(ctx: &mut Ctx, i: &Instance, p: &mut PolicyOut) -> Read<()> {
    let d = |k: &str| default_from(i, "timelimiter", k);
    let (ns, f) = match prop(i, "timeoutduration") {
        Some(q) => (duration(ctx, q, true)?, from(ctx, q)),
        None => (TIMEOUT_NS, d("timeoutDuration")),
    };
    p.set("", "timeout", Toml::Str(duration_text(ns)), f);
    let (cancel, f) = match prop(i, "cancelrunningfuture") {
        Some(q) => (ctx.boolean(q.node, &q.path)?, from(ctx, q)),
        None => (true, d("cancelRunningFuture")),
    };
    p.set(
        "",
        "cancel",
        Toml::Bool(cancel),
        format!("{f}: cascade's cancel also stops the callee's work"),
    );
    skip_rest(ctx, i, &["timeoutduration", "cancelrunningfuture"]);
    Ok(())
}
