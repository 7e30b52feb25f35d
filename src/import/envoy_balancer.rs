//! An Envoy cluster's load balancing: `lb_policy` and its slow start, printed as `--set` lines
//! for the callee's `[[service]]` (its `balancer` and `slow_start`), since the balancer is the
//! service's, not a policy's (docs/import.md).

use super::envoy::field;
use super::envoy_cluster::positive;
use super::out::Elsewhere;
use super::read::{Ctx, Read, duration_text, policy_name};
use super::tree::{Node, Value};

/// The policies with a config block of their own, and its key.
const CONFIGS: [(&str, &str); 2] = [
    ("ROUND_ROBIN", "round_robin_lb_config"),
    ("LEAST_REQUEST", "least_request_lb_config"),
];

/// Envoy's `least_request_lb_config.choice_count` default: the power of two choices.
const CHOICE_COUNT: u32 = 2;

/// The `--set` lines for cluster `name`'s balancer (written at `node`): none when the cluster
/// leaves Envoy's default round robin without slow start, which is cascade's default too.
pub(super) fn read_balancer(ctx: &mut Ctx, name: &str, node: &Node) -> Read<Vec<Elsewhere>> {
    let service = policy_name(name);
    let written = field(node, "lb_policy");
    let policy = match written {
        Some(v) => Some((lb_policy(ctx, v)?, ctx.at(v))),
        None => None,
    };
    let kind = policy.as_ref().map_or("ROUND_ROBIN", |(p, _)| *p);
    let config_key = CONFIGS.iter().find(|(p, _)| *p == kind).map(|(_, c)| *c);
    // A config block of another policy than the one chosen does nothing in Envoy.
    for (owner, other) in CONFIGS {
        if Some(other) != config_key
            && let Some(v) = field(node, other)
        {
            ctx.skip(v, other, format!("applies only with lb_policy {owner}"));
        }
    }
    // Only a written policy can be one cascade has no balancer for.
    if let Some(v) = written.filter(|_| !matches!(kind, "ROUND_ROBIN" | "LEAST_REQUEST" | "RANDOM"))
    {
        ctx.skip(
            v,
            "lb_policy",
            format!("{kind} is not simulated: cascade's balancers pick without regard to the request (round_robin, random, least_outstanding, power_of_two)"),
        );
        return Ok(Vec::new());
    }
    let slow_start = match config_key.and_then(|k| Some((k, field(node, k)?))) {
        Some((key, c)) => read_config(ctx, c, key, &service)?,
        None => Vec::new(),
    };
    let from = |what: &str| match &policy {
        Some((p, at)) => format!("lb_policy {p} ({at}){what}"),
        None => format!("lb_policy: Envoy's default ROUND_ROBIN{what}"),
    };
    let balancer = match kind {
        "RANDOM" => "random",
        "LEAST_REQUEST" if !slow_start.is_empty() => "least_outstanding",
        "LEAST_REQUEST" => "power_of_two",
        _ => "round_robin",
    };
    if policy.is_none() && slow_start.is_empty() {
        return Ok(Vec::new());
    }
    let note = match balancer {
        "power_of_two" => ": the less loaded of two hosts drawn at random",
        "least_outstanding" => {
            ": with slow start, Envoy weighs hosts by weight / (active + 1) as least_outstanding does; outside the window Envoy draws two, cascade takes the least loaded of all"
        }
        _ => "",
    };
    let mut sets = vec![Elsewhere {
        set: format!("service.{service}.balancer={balancer}"),
        from: from(note),
    }];
    sets.extend(slow_start);
    Ok(sets)
}

/// `lb_policy`, by name or by its number in `cluster.proto`'s `LbPolicy` enum (protobuf's
/// YAML and JSON mappings accept both).
fn lb_policy(ctx: &Ctx, v: &Node) -> Read<&'static str> {
    const POLICIES: [(&str, i64); 7] = [
        ("ROUND_ROBIN", 0),
        ("LEAST_REQUEST", 1),
        ("RING_HASH", 2),
        ("RANDOM", 3),
        ("MAGLEV", 5),
        ("CLUSTER_PROVIDED", 6),
        ("LOAD_BALANCING_POLICY_CONFIG", 7),
    ];
    let found = match &v.value {
        Value::Text(t) => POLICIES.iter().find(|(n, _)| n == t),
        Value::Int(i) => POLICIES.iter().find(|(_, k)| k == i),
        _ => None,
    };
    found.map(|(n, _)| *n).ok_or_else(|| {
        ctx.error(
            v,
            "lb_policy",
            format!("unknown lb_policy {} (ROUND_ROBIN, LEAST_REQUEST, RING_HASH, RANDOM, MAGLEV, CLUSTER_PROVIDED, LOAD_BALANCING_POLICY_CONFIG, or their numbers 0, 1, 2, 3, 5, 6, 7)", v.shown()),
        )
    })
}

/// `node` at `key` is a table: a config block written as a scalar is an error, not silence.
fn expect_map(ctx: &Ctx, node: &Node, key: &str) -> Read<()> {
    match node.value {
        Value::Map(_) => Ok(()),
        _ => Err(ctx.error(
            node,
            key,
            format!("expected a table, found {}", node.shown()),
        )),
    }
}

/// A `round_robin_lb_config` or `least_request_lb_config`: its slow start as `--set` lines, and
/// what cascade's balancer does not take.
fn read_config(ctx: &mut Ctx, node: &Node, key: &str, service: &str) -> Read<Vec<Elsewhere>> {
    expect_map(ctx, node, key)?;
    let mut sets = Vec::new();
    for (k, v) in node.entries() {
        let path = format!("{key}.{}", k.text);
        match k.text.as_str() {
            "slow_start_config" => sets = slow_start(ctx, v, &path, service)?,
            "choice_count" => {
                let n = ctx.count(v, &path)?;
                if n < CHOICE_COUNT {
                    return Err(ctx.error(v, &path, "must be at least 2 (Envoy's minimum)"));
                }
                if n != CHOICE_COUNT {
                    ctx.skip(
                        v,
                        &path,
                        "cascade's power_of_two draws 2 hosts (under slow start, least_outstanding weighs them all)",
                    );
                }
            }
            "active_request_bias" => {
                if runtime_double(ctx, v, &path)? != 1.0 {
                    ctx.skip(
                        v,
                        &path,
                        "cascade weighs a host by 1 / (active + 1), Envoy's default bias of 1",
                    );
                }
            }
            _ => ctx.skip(v, &path, super::envoy::NOT_RESILIENCE),
        }
    }
    Ok(sets)
}

/// `slow_start_config` (`slow_start_window`, `aggression`, `min_weight_percent`) as the
/// service's `slow_start`.
fn slow_start(ctx: &mut Ctx, node: &Node, path: &str, service: &str) -> Read<Vec<Elsewhere>> {
    expect_map(ctx, node, path)?;
    let Some(window) = field(node, "slow_start_window") else {
        ctx.skip(
            node,
            path,
            "no slow_start_window: Envoy's slow start is off without one, and so is cascade's",
        );
        return Ok(Vec::new());
    };
    let mut sets = Vec::new();
    for (k, v) in node.entries() {
        let key = format!("{path}.{}", k.text);
        let at = ctx.at(v);
        let (field, value) = match k.text.as_str() {
            "slow_start_window" => ("window", duration_text(positive(ctx, window, &key)?)),
            "aggression" => {
                let a = runtime_double(ctx, v, &key)?;
                if a <= 0.0 {
                    // Envoy logs the invalid value and ramps with 1.0, cascade's default.
                    ctx.skip(
                        v,
                        &key,
                        "at most 0: Envoy ramps with 1.0 instead, cascade's default",
                    );
                    continue;
                }
                ("aggression", format!("{a:?}"))
            }
            "min_weight_percent" => {
                let pct = ctx.number(v, &key)?;
                if !(0.0..=100.0).contains(&pct) {
                    return Err(ctx.error(v, &key, "a percentage, between 0 and 100"));
                }
                ("min_weight_percent", format!("{pct:?}"))
            }
            _ => {
                ctx.skip(v, &key, "not a field of SlowStartConfig cascade knows");
                continue;
            }
        };
        sets.push(Elsewhere {
            set: format!("service.{service}.slow_start.{field}={value}"),
            from: format!("{key} ({at})"),
        });
    }
    Ok(sets)
}

/// A `RuntimeDouble` (`{default_value, runtime_key}`): its default value; a runtime key is
/// noted, since cascade has no runtime to override it.
fn runtime_double(ctx: &mut Ctx, node: &Node, key: &str) -> Read<f64> {
    let Some(value) = field(node, "default_value") else {
        return Err(ctx.error(
            node,
            key,
            "expected a RuntimeDouble: `{default_value: N, runtime_key: \"...\"}`",
        ));
    };
    if let Some(rk) = field(node, "runtime_key") {
        ctx.skip(
            rk,
            &format!("{key}.runtime_key"),
            "runtime overrides are not simulated: the default_value is imported",
        );
    }
    ctx.number(value, &format!("{key}.default_value"))
}
