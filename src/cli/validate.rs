//! `cascade validate`: every check a run makes before simulating, and nothing else: the base
//! scenario, each `[[variant]]`, every point of the `[sweep]` grid, and the metrics the
//! `[[expect]]` name.

use super::ScenarioArgs;
use cascade::Result;
use cascade::sweep::Plan;
use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    #[command(flatten)]
    lints: super::lints::LintArgs,
}

pub fn validate(args: ValidateArgs) -> Result<ExitCode> {
    let path = &args.scenario.scenario;
    let overrides = args.scenario.overrides()?;
    let scenarios = cascade::scenario::load_with_variants(path, &overrides)?;
    super::check::expects_name_metrics(&scenarios)?;
    args.lints.warn(&scenarios)?;
    let base = &scenarios[0].1;
    if let Some(sweep) = base.sweep.clone().filter(|s| !s.params.is_empty()) {
        super::refuse_variant_overlap(&sweep.params, &[], &base.variants)?;
        Plan::new(path, &overrides, sweep.params, sweep.reps.unwrap_or(1))?;
    }
    let model = &base.model;
    println!(
        "{}: ok ({} clients, {} services, {} edges)",
        path.display(),
        model.clients.len(),
        model.services.len(),
        model.edges.len()
    );
    Ok(ExitCode::SUCCESS)
}
