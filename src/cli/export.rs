//! `cascade export envoy|grpc|resilience4j SCENARIO --policy NAME`: the compiled policy (its
//! presets applied) in the library's format on stdout, what the format cannot express on
//! stderr; `cascade export envoy SCENARIO --service NAME`: a service's admission `rate_limit`
//! as Envoy's local rate limit filter on its inbound listener. The mapping lives in
//! `cascade::export`; docs/import.md describes it.

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
    #[arg(long, required_unless_present = "service", conflicts_with = "service")]
    policy: Option<String>,
    /// The `[[service]]` whose admission `rate_limit` to export (envoy only: the local rate
    /// limit filter of its sidecars' inbound listener).
    #[arg(long, value_name = "NAME")]
    service: Option<String>,
    /// Override a field before validation, by path: `policy.db.retry.attempts=4`. Repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let overrides = super::parse_overrides(&args.set)?;
    let exported = match (&args.policy, &args.service) {
        (Some(name), _) => {
            let policy = cascade::scenario::load_policy(&args.scenario, &overrides, name)?;
            cascade::export::export(args.library.format(), name, &policy)?
        }
        (None, Some(name)) => {
            let scenario = cascade::scenario::load(&args.scenario, &overrides)?;
            cascade::export::service_rate_limit(
                args.library.format(),
                &args.scenario.display().to_string(),
                name,
                &scenario.model,
            )?
        }
        (None, None) => {
            return Err(cascade::Error::Usage(
                "export needs --policy NAME or --service NAME".into(),
            ));
        }
    };
    print!("{}", exported.text);
    for line in &exported.unexpressed {
        eprintln!(
            "not expressible in {}: {line}",
            args.library.format().name()
        );
    }
    Ok(ExitCode::SUCCESS)
}
