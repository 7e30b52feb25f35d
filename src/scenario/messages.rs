//! serde's and toml's error messages in the user's terms: the first line only, an unknown key
//! turned into a suggestion, and the names of internal types (`RawBudget`) replaced by what
//! the user can write.

use crate::error::closest;

pub(super) fn first_line(msg: &str) -> String {
    msg.lines().next().unwrap_or("").trim().to_string()
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

/// serde names the Rust type it expected (`struct RawCodel`, `untagged enum RawBudget`); the
/// user should read what to write instead.
fn user_terms(message: &str) -> String {
    const UNTAGGED: &str = "data did not match any variant of untagged enum ";
    if let Some(i) = message.find(UNTAGGED) {
        let ty = message[i + UNTAGGED.len()..]
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        let wanted = match ty {
            "RawBudget" => "a budget: a ratio (like 0.1) or a table (like { ratio = 0.1 })",
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
