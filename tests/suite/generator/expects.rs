//! Random `[[variant]]`s and `[[expect]]`s on them: an expectation on the base or on a variant,
//! alone or `against` another run by `ratio` or `difference`, with `reps` and a statistic.
//! `check_expectations` judges them as `cascade check` does, on each named run's replications.

use crate::support::pick::Pick;

/// Mixed into a case's seed for the pick of its variants and expectations, so a case without
/// them is the scenario it was before.
const EXPECT_PICK: u64 = 0x6578_7065_6374_0000;

/// The variants and expectations appended to case `seed`'s scenario (often none). Every
/// scenario has a client `c0`; a variant changes only the seed, which is always valid.
pub fn expectations(seed: u64) -> String {
    let mut p = Pick::new(seed ^ EXPECT_PICK);
    if !p.chance(0.2) {
        return String::new();
    }
    let variants = p.int(1, 2);
    let mut text = String::new();
    for v in 0..variants {
        text += &format!(
            "[[variant]]\nname = \"v{v}\"\nset = {{ \"scenario.seed\" = {} }}\n",
            p.int(2, 1000)
        );
    }
    let runs: Vec<String> = std::iter::once("base".to_string())
        .chain((0..variants).map(|v| format!("v{v}")))
        .collect();
    for _ in 0..p.int(1, 3) {
        let metric = p.one(&[
            "client.c0.success_ratio",
            "client.c0.goodput_rps",
            "client.c0.latency_p99_ms",
        ]);
        let op = p.one(&["<", "<=", ">", ">=", "==", "!="]);
        text += &format!(
            "[[expect]]\nmetric = \"{metric}\"\nop = \"{op}\"\nvalue = {}\n",
            p.real(0.0, 2.0)
        );
        let own = p.one(&runs).clone();
        if own != "base" || p.chance(0.3) {
            text += &format!("variant = \"{own}\"\n");
        }
        if p.chance(0.6) {
            let others: Vec<&String> = runs.iter().filter(|r| **r != own).collect();
            let against = p.one(&others);
            let compare = p.one(&["ratio", "difference"]);
            text += &format!("against = \"{against}\"\ncompare = \"{compare}\"\n");
        }
        if p.chance(0.4) {
            text += &format!(
                "reps = 2\nstat = \"{}\"\n",
                p.one(&["mean", "min", "max", "p50"])
            );
        }
    }
    text
}

/// Mixed into a case's seed for the pick of a margin expectation, apart from the others so
/// that every case without one is the scenario it was before.
const MARGIN_PICK: u64 = 0x6d61_7267_696e_0000;

/// Now and then, on a scenario with a fault, an expectation on fault 0's margin.
pub fn margin_expectation(seed: u64, has_fault: bool) -> String {
    let mut p = Pick::new(seed ^ MARGIN_PICK);
    if !has_fault || !p.chance(0.05) {
        return String::new();
    }
    let metric = p.one(&["margin.fault.0.load", "margin.fault.0.trigger_s"]);
    let op = p.one(&["<", "<=", ">", ">=", "==", "!="]);
    let ci = if p.chance(0.5) { "ci = true\n" } else { "" };
    format!(
        "[[expect]]\nmetric = \"{metric}\"\nop = \"{op}\"\nvalue = {}\n{ci}",
        p.real(0.1, 4.0)
    )
}

/// Judges a margin expectation as `cascade check --margin` does, on a short search (3 runs at
/// most): a fault without a steady baseline or a search out of runs is an error said as
/// documented; any verdict has a number inside its own interval.
fn check_margins(scenario: &cascade::scenario::Scenario) -> Result<(), String> {
    let bounds = cascade::margin::search::Bounds {
        reps: 1,
        max_runs: 3,
        tolerance: 0.5,
        min_x: 0.5,
        max_x: 2.0,
    };
    for e in &scenario.margin_expects {
        match cascade::margin::gate::judge(
            &scenario.model,
            e,
            bounds,
            &mut cascade::margin::runs::Runs::new(1),
        ) {
            Ok((v, _)) => {
                let (lo, hi) = v.interval.ok_or("a margin verdict without its interval")?;
                if v.measured.is_nan() || !(lo <= v.measured && v.measured <= hi) {
                    return Err(format!(
                        "`{}` measured {} outside [{lo}, {hi}]",
                        v.label, v.measured
                    ));
                }
            }
            Err(e) => {
                let said = e.to_string();
                let documented = ["is not judged", "ran out of its", "makes no progress"];
                if !documented.iter().any(|d| said.contains(d)) {
                    return Err(format!("margin: {said}"));
                }
            }
        }
    }
    Ok(())
}

/// Judges the scenario's expectations as `cascade check` does: each run an expectation names,
/// compiled with its variant, run for the replications asked of it. The verdicts are not
/// asserted (the values are random); that each can be judged, and that a measured value is a
/// number (a ratio over 0 may be infinite, never NaN), is.
pub fn check_expectations(case: u64, text: &str) -> Result<(), String> {
    // `load_with_variants` reads a file, as `cascade check` does.
    let dir = crate::support::scratch(&format!("gen-expects-{case}"));
    let path = dir.join("gen.toml");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let scenarios = cascade::scenario::load_with_variants(&path, &[])
        .map_err(|e| format!("the generator built an invalid scenario: {e}"))?;
    check_margins(&scenarios[0].1)?;
    let expects = &scenarios[0].1.expects;
    let mut ran = Vec::new();
    for (name, reps) in cascade::check::runs_needed(expects) {
        let Some((_, s)) = scenarios
            .iter()
            .find(|(n, _)| n.as_deref().unwrap_or("base") == name)
        else {
            return Err(format!(
                "an expectation names `{name}`, which was not compiled"
            ));
        };
        let runs = match cascade::sweep::exec::replicate(&s.model, reps, 1) {
            Ok(runs) => runs,
            // Stopped as documented, as `check_scenario` accepts: nothing to judge.
            Err(e) if e.to_string().contains("makes no progress") => return Ok(()),
            Err(e) => return Err(format!("run `{name}`: {e}")),
        };
        ran.push((
            name,
            runs.into_iter().map(|r| r.metrics).collect::<Vec<_>>(),
        ));
    }
    let lookup = |name: &str| {
        ran.iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.as_slice())
    };
    let verdicts = cascade::check::evaluate_runs(expects, &lookup)
        .map_err(|e| format!("the expectations could not be judged: {e}"))?;
    for (e, v) in expects.iter().zip(&verdicts) {
        if v.measured.is_nan() {
            return Err(format!("`{}` measured NaN", v.label));
        }
        let names = match &e.against {
            Some(a) => format!("[{} {} {}]", e.variant, a.compare.symbol(), a.run),
            None if e.variant == "base" => String::new(),
            None => format!("[{}]", e.variant),
        };
        if !v.label.contains(&format!("{}{names} ", e.metric)) {
            return Err(format!("`{}` does not name the runs it judges", v.label));
        }
    }
    Ok(())
}

/// Mixed into a case's seed for the pick of its `[[alert]]`s, apart from the others so that
/// every case without one is the scenario it was before.
const ALERT_PICK: u64 = 0x616c_6572_7400_0000;

/// Now and then a few `[[alert]]`s on client `c0` (every scenario has it): a threshold, a
/// ratio, a rise over the baseline (only where a whole bucket is measured before the first
/// fault or the run's end: `baseline`), or a burn rate; `every` whole seconds (a multiple of every bucket the generator
/// picks), `for` and `keep_firing_for` any duration. Evaluated after the run: they must give
/// finite metrics and the same bytes twice, as everything else.
pub fn alerts(seed: u64, has_fault: bool, baseline: bool) -> String {
    let mut p = Pick::new(seed ^ ALERT_PICK);
    if !p.chance(0.15) {
        return String::new();
    }
    let mut text = String::new();
    for k in 0..p.int(1, 3) {
        text += &format!("[[alert]]\nname = \"a{k}\"\n");
        let op = p.one(&[">", ">=", "<", "<="]);
        let kinds: &[&str] = if has_fault {
            &["metric", "ratio", "slo"]
        } else {
            &["metric", "ratio", "slo", "baseline"]
        };
        match *p.one(kinds) {
            "metric" | "baseline" => {
                let metric = p.one(&[
                    "client.c0.success_ratio",
                    "client.c0.goodput_rps",
                    "client.c0.latency_p99_ms",
                    "client.c0.requests",
                ]);
                text += &format!(
                    "metric = \"{metric}\"\nop = \"{op}\"\nvalue = {}\n",
                    p.real(0.0, 2.0)
                );
                if baseline && p.chance(0.5) {
                    text += "baseline = true\n";
                }
            }
            "ratio" => {
                text += &format!(
                    "ratio = [\"client.c0.success\", \"client.c0.requests\"]\nop = \"{op}\"\nvalue = {}\n",
                    p.real(0.0, 1.5)
                );
            }
            _ => {
                text += &format!(
                    "slo = {}\nof = \"client.c0\"\nlong = \"2s\"\nshort = \"1s\"\nburn = {}\n",
                    p.one(&["0.9", "0.99", "0.999"]),
                    p.real(0.5, 20.0)
                );
            }
        }
        if p.chance(0.5) {
            text += "every = \"1s\"\n";
        }
        if p.chance(0.5) {
            text += &format!("for = {}\n", p.dur(0, 1_500_000));
        }
        if p.chance(0.3) {
            text += &format!("keep_firing_for = {}\n", p.dur(0, 1_500_000));
        }
    }
    text
}
