//! `cascade validate`: every check a run makes before simulating, and nothing else.

use super::ScenarioArgs;
use cascade::Result;
use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
}

pub fn validate(args: ValidateArgs) -> Result<ExitCode> {
    let model = cascade::scenario::load(&args.scenario.scenario, &args.scenario.overrides()?)?;
    println!(
        "{}: ok ({} clients, {} services, {} edges)",
        args.scenario.scenario.display(),
        model.clients.len(),
        model.services.len(),
        model.edges.len()
    );
    Ok(ExitCode::SUCCESS)
}
