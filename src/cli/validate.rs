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
}

pub fn validate(args: ValidateArgs) -> Result<ExitCode> {
    let path = &args.scenario.scenario;
    let overrides = args.scenario.overrides()?;
    let models = cascade::scenario::load_with_variants(path, &overrides)?;
    for (_, model) in &models {
        super::check::expects_name_metrics(model)?;
    }
    let model = &models[0].1;
    if let Some((params, reps)) = model.sweep.clone().filter(|(p, _)| !p.is_empty()) {
        let variants = cascade::scenario::variants(path, &overrides)?;
        super::refuse_variant_overlap(&params, &[], &variants)?;
        Plan::new(path, &overrides, params, reps.unwrap_or(1))?;
    }
    println!(
        "{}: ok ({} clients, {} services, {} edges)",
        path.display(),
        model.clients.len(),
        model.services.len(),
        model.edges.len()
    );
    Ok(ExitCode::SUCCESS)
}
