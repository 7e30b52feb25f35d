//! What `cascade check` says about one verdict besides pass or fail: what had to hold, which
//! runs were judged, the command that reaches the same verdict again, and the seconds its runs
//! took. JUnit XML carries it (`junit.rs`), so a CI failure can be acted on without the log.

use super::baseline::BaselineArgs;
use super::check::Case;
use super::check_runs::Ran;
use cascade::baseline::DEFAULT_DIR;
use cascade::margin::Margin;
use cascade::scenario::{BASE, Expect, MarginAlong, MarginExpect, Op};
use std::path::Path;

/// The case of the expectation `e`, judged on `ran`.
pub fn of_expect(e: &Expect, ran: &Ran, reproduce: String) -> Case {
    let reps = e.reps as usize;
    let against = e.against.as_ref();
    let target = format!("{} {}", e.op.symbol(), e.value);
    let threshold = match (reps, e.whole_interval) {
        (1, _) => format!("the measured value {target}"),
        (_, true) if e.op == Op::Ne => format!("the whole 95% CI of the mean excludes {}", e.value),
        (_, true) => format!("the whole 95% CI of the mean {target}"),
        (n, false) => format!("the {} of {n} replications {target}", e.stat.name()),
    };
    let run = match against {
        Some(a) => format!(
            "`{}` {} `{}`, pair by pair",
            e.variant,
            a.compare.symbol(),
            a.run
        ),
        None => format!("`{}`", e.variant),
    };
    let seconds =
        ran.seconds_of(&e.variant, reps) + against.map_or(0.0, |a| ran.seconds_of(&a.run, reps));
    Case {
        threshold,
        judged: format!("{run}, {}", replications(reps)),
        reproduce,
        seconds,
    }
}

/// The case of a metric gated against a baseline, judged on the base run's `reps` replications.
pub fn of_baseline(args: &BaselineArgs, reps: usize, ran: &Ran, reproduce: String) -> Case {
    let name = args.baseline.as_deref().unwrap_or_default();
    Case {
        threshold: format!(
            "no regression from baseline `{name}` beyond a relative change of {} (and Welch's p < {} when both sides have replications)",
            args.noise, args.significance
        ),
        judged: format!("`{BASE}`, {}", replications(reps)),
        reproduce,
        seconds: ran.seconds_of(BASE, reps),
    }
}

/// The case of the margin expectation `e`, judged on the search `m`, which took `seconds`.
pub fn of_margin(e: &MarginExpect, m: &Margin, reproduce: String, seconds: f64) -> Case {
    let what = match e.along {
        MarginAlong::Load => format!(
            "the load multiplier at which fault {} is no longer recovered from",
            e.fault
        ),
        MarginAlong::Trigger => format!(
            "the duration in seconds at which fault {} is no longer recovered from",
            e.fault
        ),
    };
    let target = format!("{} {}", e.op.symbol(), e.value);
    let threshold = match e.whole_interval {
        true => format!("the whole 95% interval of {what} (where half the runs recover) {target}"),
        false => format!("{what} (where half the runs recover) {target}"),
    };
    Case {
        threshold,
        judged: format!(
            "`{BASE}` scaled, a search of {} runs ({} a probe)",
            m.found.runs(),
            m.found.probes().first().map_or(0, |p| p.runs)
        ),
        reproduce,
        seconds,
    }
}

fn replications(reps: usize) -> String {
    match reps {
        1 => "1 replication, on the scenario's seed".into(),
        n => format!("{n} replications, the first on the scenario's seed"),
    }
}

/// `cascade check FILE --set …`, with the baseline options when `baseline` is given and
/// names one: the shell line that checks this file again as it was checked.
pub fn command(file: &Path, set: &[String], baseline: Option<&BaselineArgs>) -> String {
    let mut words = vec![
        "cascade".to_string(),
        "check".into(),
        quote(&file.to_string_lossy()),
    ];
    for s in set {
        words.extend(["--set".into(), quote(s)]);
    }
    if let Some(b) = baseline.filter(|b| b.baseline.is_some()) {
        let defaults = BaselineArgs::default();
        words.extend(["--baseline".into(), quote(b.baseline.as_deref().unwrap())]);
        if b.baseline_dir != Path::new(DEFAULT_DIR) {
            words.extend([
                "--baseline-dir".into(),
                quote(&b.baseline_dir.to_string_lossy()),
            ]);
        }
        if b.noise != defaults.noise {
            words.extend(["--noise".into(), b.noise.to_string()]);
        }
        if b.significance != defaults.significance {
            words.extend(["--significance".into(), b.significance.to_string()]);
        }
        for g in &b.gates {
            words.extend(["--gate".into(), quote(g)]);
        }
    }
    words.join(" ")
}

/// `cascade check FILE --set … --margin`: the line that judges this file's margins again.
pub fn margin_command(file: &Path, set: &[String]) -> String {
    format!("{} --margin", command(file, set, None))
}

/// `word` as a POSIX shell reads it back: bare when it holds only characters no shell
/// interprets, else in single quotes.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_a_shell_would_split_or_expand_are_quoted() {
        assert_eq!(quote("scenarios/a.toml"), "scenarios/a.toml");
        assert_eq!(quote("service.db.workers=4"), "service.db.workers=4");
        assert_eq!(quote("my file.toml"), "'my file.toml'");
        assert_eq!(quote("edge.*.amplification"), "'edge.*.amplification'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn the_command_repeats_the_sets_and_only_the_baseline_options_that_differ() {
        let set = ["client.web.rate=300".to_string()];
        assert_eq!(
            command(Path::new("a b.toml"), &set, None),
            "cascade check 'a b.toml' --set client.web.rate=300"
        );
        let b = BaselineArgs {
            baseline: Some("main".into()),
            noise: 0.02,
            gates: vec!["client.*".into()],
            ..BaselineArgs::default()
        };
        assert_eq!(
            command(Path::new("a.toml"), &[], Some(&b)),
            "cascade check a.toml --baseline main --noise 0.02 --gate 'client.*'"
        );
        // Without --baseline the options do not change the verdicts of the expectations.
        assert_eq!(
            command(Path::new("a.toml"), &[], Some(&BaselineArgs::default())),
            "cascade check a.toml"
        );
    }
}
