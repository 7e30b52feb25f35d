//! `cascade export envoy|grpc|resilience4j SCENARIO --policy NAME`: the compiled policy (its
//! presets applied) in the library's format on stdout, what the format cannot express on
//! stderr. The mapping lives in `cascade::export`; docs/import.md describes it.

use super::import::Library;
use cascade::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ExportArgs {
    /// The library whose format to write.
    #[arg(value_enum)]
    library: Library,
    /// The scenario file (TOML).
    scenario: PathBuf,
    /// The `[policy.NAME]` to export.
    #[arg(long)]
    policy: String,
    /// Override a field before validation, by path: `policy.db.retry.attempts=4`. Repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let overrides = super::parse_overrides(&args.set)?;
    let policy = cascade::scenario::load_policy(&args.scenario, &overrides, &args.policy)?;
    let exported = cascade::export::export(args.library.format(), &args.policy, &policy)?;
    print!("{}", exported.text);
    for line in &exported.unexpressed {
        eprintln!(
            "not expressible in {}: {line}",
            args.library.format().name()
        );
    }
    Ok(ExitCode::SUCCESS)
}
