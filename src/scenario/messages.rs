//! serde's and toml's error messages in the user's terms: the first line only, an unknown key
//! turned into a suggestion, and the names of internal types (`RawBudget`) replaced by what
//! the user can write.

use super::document::Origin;
use crate::error::closest;

pub(super) fn first_line(msg: &str) -> String {
    msg.lines().next().unwrap_or("").trim().to_string()
}

/// How a duration written as a bare number is refused (the policy crate's `Dur` says it).
use cascade_policy::table::UNITLESS;

/// For a duration written without its unit, the fix with the unit `field` usually takes:
/// `timeout = "500ms"`, `duration = "120s"`, or in the form of the override that wrote it
/// (`origin`; none for a key of the file).
pub(super) fn duration_hint(field: &str, message: &str, origin: Option<&Origin>) -> Option<String> {
    let n = first_line(message)
        .strip_prefix(UNITLESS)?
        .split('`')
        .next()?
        .to_string();
    let unit = usual_unit(field);
    let fix = match origin {
        // An element of an array (a point of `warm_table`) has no key of its own to write.
        None if is_index(last_key(field)) => format!("\"{n}{unit}\""),
        None => format!("{} = \"{n}{unit}\"", last_key(field)),
        Some(Origin::CommandLine) => format!("--set {field}={n}{unit}"),
        Some(Origin::Variant(_)) => format!("\"{field}\" = \"{n}{unit}\""),
        // A `--param` list or range, or a `[sweep]` array: every value of it needs the unit.
        Some(Origin::Sweep) => {
            return Some(format!(
                "did you mean `{n}{unit}`? every value a sweep gives {field} needs a unit: ns, \
                 us, ms, s, m, h (`--param {field}={n}{unit},...`)"
            ));
        }
    };
    Some(format!(
        "did you mean `{fix}`? durations are strings with a unit: ns, us, ms, s, m, h"
    ))
}

/// The last part of a field's path.
fn last_key(field: &str) -> &str {
    field.rsplit('.').next().unwrap_or(field)
}

/// A part of a path that numbers an array's element.
fn is_index(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit())
}

/// The unit a duration field is usually written in: seconds for spans of the run and of
/// recovery (a run's duration, a fault's start, a breaker's open time), milliseconds for the
/// latencies of one request (timeouts, deadlines, work).
fn usual_unit(field: &str) -> &'static str {
    const SECONDS: [&str; 23] = [
        "at",
        "base_ejection_time",
        "bucket",
        "cold_start",
        "dedup_window",
        "duration",
        "end",
        "mark_dead_for",
        "mark_dead_max",
        "max_ejection_time",
        "open",
        "open_max",
        "pace",
        "period",
        "ramp",
        "recovery_hold",
        "restart",
        "retry_after",
        "start",
        "warm",
        "warm_table",
        "warmup",
        "window",
    ];
    // A duration in an array takes the array's unit.
    let key = (field.rsplit('.')).find(|k| !is_index(k)).unwrap_or(field);
    let outlier_interval = key == "interval" && field.contains(".outlier.");
    if SECONDS.contains(&key) || outlier_interval {
        "s"
    } else {
        "ms"
    }
}

/// What to do about a TOML syntax error the parser's own words leave unclear.
pub(super) fn syntax_help(message: &str) -> Option<String> {
    // TOML integers are 64-bit signed; seeds run to 2^64 - 1 (docs/scenario.md, `seed`).
    first_line(message).contains("integer number overflowed").then(|| {
        "TOML integers stop at 9223372036854775807 (2^63 - 1): write a larger number, such as a seed of 2^63 or more, as a string: seed = \"18446744073709551615\"".into()
    })
}

/// Turns serde's "unknown field `x`, expected one of ..." into a short message and a suggestion.
pub(super) fn explain(message: &str) -> (String, Option<String>) {
    let message = first_line(message);
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, expected)) = rest.split_once('`')
    {
        let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let mut help = match closest(field, valid.iter().copied()) {
            Some(best) => format!("did you mean `{best}`? "),
            None => String::new(),
        };
        if !valid.is_empty() {
            help.push_str(&format!("valid keys here: {}", valid.join(", ")));
        }
        return (format!("unknown key `{field}`"), Some(help));
    }
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((variant, expected)) = rest.split_once('`')
    {
        let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let help = closest(variant, valid.iter().copied())
            .map(|best| format!("did you mean `{best}`? valid values: {}", valid.join(", ")))
            .or_else(|| Some(format!("valid values: {}", valid.join(", "))));
        return (format!("unknown value `{variant}`"), help);
    }
    (user_terms(&message), None)
}

/// serde names the Rust type it expected (`struct RawCodel`, `untagged enum RawWindow`); the
/// user should read what to write instead.
fn user_terms(message: &str) -> String {
    const UNTAGGED: &str = "data did not match any variant of untagged enum ";
    if let Some(i) = message.find(UNTAGGED) {
        let ty = message[i + UNTAGGED.len()..]
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        let wanted = match ty {
            "RawWindow" => "a window: a number of calls (like 20) or a duration (like \"10s\")",
            "SetValue" => "a boolean, number, string, array or table",
            _ => "a value of another form",
        };
        return format!("{}expected {wanted}", &message[..i]);
    }
    for (rust, user) in [
        ("expected struct ", "expected a table"),
        (
            "expected enum ",
            "expected the name of one of its values (a string)",
        ),
    ] {
        if let Some(i) = message.find(rust) {
            let rest = &message[i + rust.len()..];
            let after = rest
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(rest.len());
            return format!("{}{user}{}", &message[..i], &rest[after..]);
        }
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cascade_policy::table::unitless;

    #[test]
    fn a_bare_number_gets_the_unit_its_field_usually_takes() {
        let hint = |field: &str, by_set: bool| {
            let origin = by_set.then_some(&Origin::CommandLine);
            duration_hint(field, &unitless("250"), origin).unwrap()
        };
        assert_eq!(
            hint("policy.p.timeout", false),
            "did you mean `timeout = \"250ms\"`? durations are strings with a unit: ns, us, ms, s, m, h"
        );
        assert!(hint("scenario.duration", false).contains("`duration = \"250s\"`"));
        assert!(hint("fault.0.start", false).contains("`start = \"250s\"`"));
        assert!(hint("policy.p.breaker.open", false).contains("\"250s\""));
        assert!(hint("service.db.outlier.interval", false).contains("\"250s\""));
        assert!(hint("service.db.codel.interval", false).contains("\"250ms\""));
        assert!(
            hint("client.web.phases.0.at", true).contains("`--set client.web.phases.0.at=250s`")
        );
        assert!(hint("fault.0.warm_table.1.0", false).starts_with("did you mean `\"250s\"`?"));
        let variant = duration_hint(
            "policy.p.timeout",
            &unitless("150"),
            Some(&Origin::Variant("v".into())),
        );
        assert!(
            variant
                .unwrap()
                .contains("`\"policy.p.timeout\" = \"150ms\"`")
        );
        let swept = duration_hint("scenario.warmup", &unitless("5"), Some(&Origin::Sweep));
        assert_eq!(
            swept.unwrap(),
            "did you mean `5s`? every value a sweep gives scenario.warmup needs a unit: ns, us, \
             ms, s, m, h (`--param scenario.warmup=5s,...`)"
        );
        assert_eq!(
            duration_hint("policy.p.timeout", "invalid type: string", None),
            None
        );
    }
}
