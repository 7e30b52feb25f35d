//! Charts of a run's or a sweep's files, drawn with plotters into SVG (and PNG): a run's
//! timeline, latency percentile curves comparing variants, a metric against swept parameters
//! with its confidence band, and a heatmap over two parameters. Charts read result files,
//! never the engine, and the same files always give byte-identical charts.

pub mod axis;
mod bitmap;
pub mod canvas;
pub mod client_panels;
mod emphasis;
pub mod font;
pub mod format;
pub mod gates;
pub mod glyphs;
pub mod heatmap;
pub mod latency;
pub mod overlap;
pub mod palette;
mod pool_panel;
mod select;
pub mod strip_rows;
pub mod strips;
pub mod style;
pub mod sweep_line;
pub mod timeline;

use crate::atomic::write_atomic;
use crate::error::{Error, Result};
use crate::output::read_dir::{Results, read_results};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

pub use select::{run_charts, sweep_charts};

/// What a chart draws.
#[derive(Debug, Clone)]
pub enum Kind {
    Timeline(timeline::Timeline),
    Latency(latency::LatencyChart),
    SweepLine(sweep_line::SweepLine),
    Heatmap(heatmap::Heatmap),
}

/// One chart: the file name it is written under (without extension), what it draws, and the
/// caption a report gives it, which names the run or variant and the points it shows.
#[derive(Debug, Clone)]
pub struct Chart {
    pub file: String,
    pub kind: Kind,
    pub caption: String,
}

impl Chart {
    pub fn title(&self) -> &str {
        match &self.kind {
            Kind::Timeline(c) => &c.title,
            Kind::Latency(c) => &c.title,
            Kind::SweepLine(c) => &c.title,
            Kind::Heatmap(c) => &c.title,
        }
    }

    pub fn size(&self) -> (u32, u32) {
        match &self.kind {
            Kind::Timeline(c) => c.size(),
            Kind::Latency(_) => latency::SIZE,
            Kind::SweepLine(_) => sweep_line::SIZE,
            Kind::Heatmap(_) => heatmap::SIZE,
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> canvas::DrawResult<DB> {
        root.fill(&WHITE)?;
        match &self.kind {
            Kind::Timeline(c) => timeline::draw(c, root)?,
            Kind::Latency(c) => latency::draw(c, root)?,
            Kind::SweepLine(c) => sweep_line::draw(c, root)?,
            Kind::Heatmap(c) => heatmap::draw(c, root)?,
        }
        root.present()
    }

    /// The chart as SVG text.
    pub fn svg(&self) -> Result<String> {
        font::ensure_registered();
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, self.size()).into_drawing_area();
            self.draw(&root)
                .map_err(|e| draw_error(&self.file, e.to_string()))?;
        }
        Ok(out)
    }

    /// The chart as PNG bytes at `scale` (a whole number, at least 1): drawn into memory as
    /// 8-bit RGB, `scale` pixels for each of the SVG's in each direction, then encoded.
    pub fn png(&self, scale: u32) -> Result<Vec<u8>> {
        font::ensure_registered();
        let scale = scale.max(1);
        let (w, h) = self.size();
        let (w, h) = (w * scale, h * scale);
        let mut pixels = vec![0u8; w as usize * h as usize * 3];
        {
            let root = bitmap::Scaled::new(&mut pixels, self.size(), scale).into_drawing_area();
            self.draw(&root)
                .map_err(|e| draw_error(&self.file, e.to_string()))?;
        }
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut writer| writer.write_image_data(&pixels))
            .map_err(|e| draw_error(&self.file, format!("PNG encoding: {e}")))?;
        Ok(bytes)
    }

    /// Writes the chart as PNG at `scale` to `path`, whole (`atomic::write_atomic`).
    pub fn write_png(&self, path: &Path, scale: u32) -> Result<()> {
        write_atomic(path, &self.png(scale)?)
    }
}

fn draw_error(chart: &str, msg: String) -> Error {
    Error::Usage(format!("chart `{chart}` could not be drawn: {msg}"))
}

/// The PNG scale without `--scale`: one pixel for each of the SVG's, so a chart is 960 px
/// wide (a timeline 1,100) and fits a laptop screen at its natural size.
pub const DEFAULT_SCALE: u32 = 1;
/// The largest `--scale`: a timeline at 8x is already 8,800 px wide.
pub const MAX_SCALE: u32 = 8;

/// What to draw, beyond what the results hold.
#[derive(Debug, Clone)]
pub struct ChartOptions {
    /// Also write PNG beside each SVG.
    pub png: bool,
    /// PNG pixels for each SVG pixel, in each direction (`--scale`).
    pub scale: u32,
    /// A sweep's charted metrics (`*` wildcards); none: the expectations' metrics, then the
    /// key ones (each client's goodput, success and p99, each fault's recovery, amplification).
    pub metrics: Vec<String>,
    /// A fixed colour scale for heatmaps, instead of the data's range.
    pub range: Option<(f64, f64)>,
}

impl Default for ChartOptions {
    fn default() -> ChartOptions {
        ChartOptions {
            png: false,
            scale: DEFAULT_SCALE,
            metrics: Vec::new(),
            range: None,
        }
    }
}

/// Every chart for these results.
pub fn charts(results: &Results, options: &ChartOptions) -> Vec<Chart> {
    match results {
        Results::Run(runs) => run_charts(runs),
        Results::Sweep(s) => sweep_charts(s, options),
    }
}

/// Writes each chart as `<out>/<file>.svg`, and `.png` at the given scale when `png` is some;
/// returns the paths written.
pub fn write_charts(charts: &[Chart], out: &Path, png: Option<u32>) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for c in charts {
        let svg = out.join(format!("{}.svg", c.file));
        write_atomic(&svg, c.svg()?.as_bytes())?;
        written.push(svg);
        if let Some(scale) = png {
            let path = out.join(format!("{}.png", c.file));
            c.write_png(&path, scale)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Charts a run's or a sweep's directory into `DIR/charts/`, telling them apart by their
/// files; returns the paths written. `cascade chart`, `run --chart` and `sweep --chart` call
/// this.
pub fn chart_dir(dir: &Path, options: &ChartOptions) -> Result<Vec<PathBuf>> {
    let results = read_results(dir)?;
    check_metric_options(&results, &options.metrics)?;
    let png = options.png.then_some(options.scale);
    let mut all = charts(&results, options);
    if let Results::Sweep(s) = &results
        && crate::output::read_tune::is_tune_dir(dir)
    {
        all.extend(frontier_charts(
            s,
            &crate::output::read_tune::read_tune(dir)?,
        ));
    }
    write_charts(&all, &dir.join("charts"), png)
}

/// A search's frontier charts (`select/frontier.rs`), none when a candidate satisfied every
/// expectation: the report shows them, and `cascade tune` writes them into its directory.
pub fn frontier_charts(
    s: &crate::output::read_sweep::SweepData,
    t: &crate::output::read_tune::TuneData,
) -> Vec<Chart> {
    select::frontier::frontier_charts(s, t)
}

/// Writes a search's frontier charts into its directory, beside `tune.json`, as
/// `frontier-<i>-<metric>.svg`; returns the paths written.
pub fn frontier_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let s = crate::output::read_sweep::read_sweep(dir)?;
    let t = crate::output::read_tune::read_tune(dir)?;
    write_charts(&frontier_charts(&s, &t), dir, None)
}

/// `--metric` picks a sweep's charts: on a run's directory, whose charts are fixed, it is
/// refused rather than silently ignored; on a sweep's, each pattern must match a metric.
pub fn check_metric_options(results: &Results, patterns: &[String]) -> Result<()> {
    match results {
        Results::Sweep(s) => check_patterns(patterns, &s.metrics()),
        Results::Run(_) if !patterns.is_empty() => Err(Error::Usage(format!(
            "--metric {}: a run's directory has a fixed set of charts; --metric chooses a sweep's (give it a directory `cascade sweep` wrote)",
            patterns[0]
        ))),
        Results::Run(_) => Ok(()),
    }
}

/// A `--metric` pattern that matches none of the sweep's metrics is a mistake, not an empty
/// chart list.
pub fn check_patterns(patterns: &[String], metrics: &[&str]) -> Result<()> {
    for p in patterns {
        if !metrics.iter().any(|m| crate::wildcard::matches(p, m)) {
            return Err(Error::Usage(format!(
                "--metric {p}: the sweep has no such metric (`cascade metrics` lists the names)"
            )));
        }
    }
    Ok(())
}

/// A name safe as a file name: letters, digits, `.`, `_` and `-`; anything else becomes `-`.
pub fn file_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}
