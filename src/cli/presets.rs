//! `cascade presets`: every `preset = "LIBRARY"` value with the library version, its source
//! and exactly the keys it fills in (the fragments `scenario::preset` applies).

use cascade::Result;
use cascade::scenario::preset::PRESETS;
use std::process::ExitCode;

pub fn presets() -> Result<ExitCode> {
    print!("{}", text());
    Ok(ExitCode::SUCCESS)
}

fn text() -> String {
    let mut out = String::from(
        "# preset = \"NAME\" on a policy or on one of its parts (retry, retry.budget, breaker,\n\
         # bulkhead, throttle, hedge) fills the keys the scenario leaves out of the parts it\n\
         # writes; it never adds a part, nor a timeout. A part's own preset wins over the policy's.\n",
    );
    for d in &PRESETS {
        out.push_str(&format!(
            "\n{}\n  version: {}\n  source:  {}\n",
            d.name, d.version, d.source
        ));
        for line in d.parts.lines() {
            out.push_str(&format!("  {line}\n"));
        }
        if let Some(k) = d.max_times_base {
            out.push_str(&format!("  retry.max = {k} × retry.base, unless written\n"));
        }
        if let Some(b) = d.budget {
            out.push_str(&format!(
                "  retry.budget = {b}  # a budget table written under this preset\n"
            ));
        }
        out.push_str(&format!("  not filled: {}\n", d.not_filled));
    }
    out
}
