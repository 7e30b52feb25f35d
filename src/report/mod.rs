//! `cascade report`: a design-review report of a run's or a sweep's directory — one
//! self-contained HTML file (inline SVG and CSS, no external assets), or Markdown with the chart
//! SVGs beside it for a pull request. Like the charts, it reads result files, never the engine,
//! and the same files always give the same bytes.

mod build;
mod expectations;
pub mod html;
pub mod markdown;
pub mod orchestration;
pub mod summary;
pub mod tables;
pub mod topology;
pub mod tune;

use crate::atomic::write_atomic;
use crate::chart::{self, Chart};
use crate::error::Result;
use crate::output::text_table::Table;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Html,
    Markdown,
}

/// A report, independent of its format.
#[derive(Debug, Clone)]
pub struct Doc {
    pub title: String,
    pub subtitle: String,
    pub sections: Vec<Section>,
}

#[derive(Debug, Clone)]
pub struct Section {
    /// The anchor, for the table of contents.
    pub id: String,
    pub title: String,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    /// A bulleted list; items starting with ✓ or ✗ are marked as passing or failing.
    List(Vec<String>),
    Table(Table),
    /// A hand-made SVG diagram, written as `<file>.svg` beside a Markdown report.
    Diagram {
        file: String,
        svg: String,
    },
    /// Charts by index into the report's chart list; several side by side when there is room.
    Charts(Vec<usize>),
}

/// Writes the report of `dir` (`DIR/report.html` or `DIR/report.md` unless `out` is given);
/// returns the paths written (the report, and for Markdown the SVGs beside it). A sweep's
/// charts are those of `metrics` (`*` wildcards) after the expectations' metrics, or without
/// any the key ones, as `cascade chart` picks them.
pub fn report_dir(
    dir: &Path,
    format: Format,
    out: Option<&Path>,
    metrics: &[String],
) -> Result<Vec<PathBuf>> {
    let results = crate::output::read_dir::read_results(dir)?;
    let options = chart::ChartOptions {
        metrics: metrics.to_vec(),
        ..chart::ChartOptions::default()
    };
    chart::check_metric_options(&results, &options.metrics)?;
    let mut charts = chart::charts(&results, &options);
    let doc = match &results {
        crate::output::read_dir::Results::Run(runs) => build::run_doc(runs, &charts),
        crate::output::read_dir::Results::Sweep(s)
            if crate::output::read_tune::is_tune_dir(dir) =>
        {
            let t = crate::output::read_tune::read_tune(dir)?;
            let frontier = chart::frontier_charts(s, &t);
            let at = charts.len();
            charts.extend(frontier);
            tune::tune_doc(s, &t, &charts, (at..charts.len()).collect())
        }
        crate::output::read_dir::Results::Sweep(s) => build::sweep_doc(s, &charts),
    };
    let default = match format {
        Format::Html => "report.html",
        Format::Markdown => "report.md",
    };
    let path = out.map_or_else(|| dir.join(default), Path::to_path_buf);
    match format {
        Format::Html => {
            let svgs = charts.iter().map(Chart::svg).collect::<Result<Vec<_>>>()?;
            write_atomic(&path, html::render(&doc, &charts, &svgs).as_bytes())?;
            Ok(vec![path])
        }
        Format::Markdown => {
            let beside = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .join("charts");
            let mut written = chart::write_charts(&charts, &beside, None)?;
            for s in &doc.sections {
                for b in &s.blocks {
                    if let Block::Diagram { file, svg } = b {
                        let p = beside.join(format!("{file}.svg"));
                        write_atomic(&p, svg.as_bytes())?;
                        written.push(p);
                    }
                }
            }
            write_atomic(&path, markdown::render(&doc, &charts, "charts").as_bytes())?;
            written.insert(0, path);
            Ok(written)
        }
    }
}
