//! `cascade report DIR`: one self-contained HTML file for a design review, or Markdown with
//! the charts beside it for a pull request.

use cascade::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ReportArgs {
    /// A directory `cascade run`, `cascade sweep` or `cascade tune` wrote (a tune's report adds
    /// what the search found: the best, the trade-off, the rejected and no-effect parameters).
    dir: PathBuf,
    /// Write Markdown (report.md, with the chart SVGs in charts/ beside it) instead of HTML.
    #[arg(long)]
    markdown: bool,
    /// The report file [default: DIR/report.html, or DIR/report.md with --markdown].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// A sweep's metrics to chart (`*` matches any run of characters), after the
    /// expectations' metrics; repeatable [default: the expectations' metrics, then the key
    /// ones, six in all, as `cascade chart`]
    #[arg(long = "metric", value_name = "NAME")]
    metrics: Vec<String>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let format = if args.markdown {
        cascade::report::Format::Markdown
    } else {
        cascade::report::Format::Html
    };
    let written =
        cascade::report::report_dir(&args.dir, format, args.out.as_deref(), &args.metrics)?;
    if !args.quiet {
        super::chart::print_written(&written);
    }
    Ok(ExitCode::SUCCESS)
}
