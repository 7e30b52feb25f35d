//! `cascade merge DIR...`: joins the directories of a sweep's shards (or of interrupted
//! sittings) into one, which then holds exactly the files an unsharded sweep writes; or those
//! of a margin's shards (`cascade margin --store DIR --shard K/N`) into one store, from which
//! `cascade margin --store` then finds every margin without a run.

use super::sweep_out::{ExportArgs, default_dir, finish};
use cascade::atomic::write_atomic;
use cascade::margin::store as margin_store;
use cascade::sweep::store;
use cascade::{Error, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct MergeArgs {
    /// Directories written by `cascade sweep --shard K/N` (or any sittings of one sweep), or
    /// by `cascade margin --store DIR --shard K/N`.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Directory of the joined sweep [default: results/<scenario name>-sweep] or margin store
    /// [default: results/<scenario name>-margin]; it may be one of the DIRs.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    export: ExportArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

pub fn merge(args: MergeArgs) -> Result<ExitCode> {
    if margin_store::is_margin(&args.dirs[0]) {
        return merge_margin(args);
    }
    args.export.check_destinations()?;
    let first = &args.dirs[0];
    let manifest = store::read_manifest(first)?;
    for dir in &args.dirs[1..] {
        let other = store::read_manifest(dir)?;
        if other != manifest {
            return Err(Error::Usage(format!(
                "{} and {} hold different sweeps ({}): only shards of one sweep can be merged",
                first.display(),
                dir.display(),
                store::difference(&other, &manifest)
            )));
        }
    }
    let source = store::read_scenario(first, &manifest)?;
    let out = args.out.unwrap_or_else(|| default_dir(&manifest.scenario));
    store::prepare(&out, &manifest, &source)?;
    let mut have = store::completed(&out, manifest.runs)?;
    for dir in &args.dirs {
        let found = store::completed(dir, manifest.runs)?;
        for index in 0..manifest.runs {
            if !found[index] || have[index] {
                continue;
            }
            // Checked, not copied blind: a record from elsewhere must be this sweep's run.
            let text = store::read_record_text(dir, index)?;
            store::read_record(dir, index)?;
            write_atomic(&store::record_path(&out, index), text.as_bytes())?;
            have[index] = true;
        }
    }
    let recorded = have.iter().filter(|h| **h).count();
    if recorded < manifest.runs {
        // The records found are kept in OUT: merging the missing shards later completes it.
        let missing: Vec<String> = (0..manifest.runs)
            .filter(|&i| !have[i])
            .take(5)
            .map(|i| i.to_string())
            .collect();
        return Err(Error::Usage(format!(
            "{} of the sweep's {} runs are missing (runs {}{}): is a shard's directory left out? The {recorded} found are in {}; merge the rest into it to finish",
            manifest.runs - recorded,
            manifest.runs,
            missing.join(", "),
            if manifest.runs - recorded > 5 {
                ", ..."
            } else {
                ""
            },
            out.display()
        )));
    }
    finish(&out, recorded, manifest.runs, &args.export, args.quiet)
}

/// Joins a margin's stores. The margins themselves are found by running the margin again on
/// the joined store, which holds every run they need.
fn merge_margin(args: MergeArgs) -> Result<ExitCode> {
    if args.export.any() || !args.export.metrics.is_empty() {
        return Err(Error::Usage(format!(
            "{} is a margin's store: --metric and the --export options are a sweep's; run `cascade margin SCENARIO --store OUT` on the joined store for its margins",
            args.dirs[0].display()
        )));
    }
    let manifest = margin_store::read_manifest(&args.dirs[0])?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-margin", manifest.scenario)));
    let gained = margin_store::merge(&args.dirs, &out)?;
    if !args.quiet {
        eprintln!(
            "merged {gained} run(s) into {}: `cascade margin SCENARIO --store {}` finds the margins from them",
            out.display(),
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
