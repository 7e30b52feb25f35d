//! `cascade check`: runs scenarios and checks their `[[expect]]`; a ✓/✗ table, JUnit XML, and
//! exit code 1 when an expectation fails (2 on bad input).

use cascade::check::{Verdict, evaluate};
use cascade::output::files::write_atomic;
use cascade::output::table::{Table, sig3};
use cascade::{Error, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct CheckArgs {
    /// Scenario files, directories (every .toml file in them) or globs (`scenarios/*.toml`).
    #[arg(required = true, value_name = "SCENARIO")]
    paths: Vec<PathBuf>,
    /// Also write the verdicts as JUnit XML (one testcase per expectation).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
}

struct Checked {
    name: String,
    verdicts: Vec<Verdict>,
}

pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let files = expand(&args.paths)?;
    let mut checked = Vec::new();
    let mut table = Table::new(&["", "scenario", "expectation", "measured"]);
    for file in &files {
        let model = cascade::scenario::load(file, &[])?;
        if model.expects.is_empty() {
            continue;
        }
        let result = cascade::simulate(&model);
        let verdicts = evaluate(&model.expects, &result.metrics).map_err(Error::Scenario)?;
        for v in &verdicts {
            table.row(vec![
                if v.passed { "✓" } else { "✗" }.into(),
                model.name.clone(),
                v.label.clone(),
                sig3(v.measured),
            ]);
        }
        checked.push(Checked {
            name: model.name.clone(),
            verdicts,
        });
    }
    let total: usize = checked.iter().map(|c| c.verdicts.len()).sum();
    if total == 0 {
        // A gate that checks nothing must not pass quietly.
        return Err(Error::Usage(format!(
            "nothing to check: none of the {} scenario files has an [[expect]]",
            files.len()
        )));
    }
    let failed: usize = checked
        .iter()
        .map(|c| c.verdicts.iter().filter(|v| !v.passed).count())
        .sum();
    if let Some(path) = &args.junit {
        write_atomic(path, junit(&checked).as_bytes())?;
    }
    print!("{}", table.render());
    let skipped = files.len() - checked.len();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    println!(
        "{} in {}: {} passed, {failed} failed{}",
        plural(total, "expectation"),
        plural(checked.len(), "scenario"),
        total - failed,
        if skipped > 0 {
            format!(
                " ({} without [[expect]] not run)",
                plural(skipped, "scenario")
            )
        } else {
            String::new()
        }
    );
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Files named, every `.toml` in a directory named, and the files a `*` pattern in the last
/// component matches; sorted, each once.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        let text = p.to_string_lossy();
        if p.is_dir() {
            files.extend(list(p, "*.toml")?);
        } else if text.contains('*') {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            let pattern = p.file_name().map(|f| f.to_string_lossy().to_string());
            let matched = list(dir.unwrap_or(Path::new(".")), &pattern.unwrap_or_default())?;
            if matched.is_empty() {
                return Err(Error::Usage(format!("no scenario matches `{text}`")));
            }
            files.extend(matched);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(Error::Usage(format!(
                "no such scenario file or directory: `{text}`"
            )));
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn list(dir: &Path, pattern: &str) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    Ok(entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| cascade::wildcard::matches(pattern, &n.to_string_lossy()))
        })
        .collect())
}

fn junit(checked: &[Checked]) -> String {
    let total: usize = checked.iter().map(|c| c.verdicts.len()).sum();
    let failed: usize = checked
        .iter()
        .map(|c| c.verdicts.iter().filter(|v| !v.passed).count())
        .sum();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cascade check\" tests=\"{total}\" failures=\"{failed}\">\n"
    );
    for c in checked {
        let f = c.verdicts.iter().filter(|v| !v.passed).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\">\n",
            xml(&c.name),
            c.verdicts.len()
        ));
        for v in &c.verdicts {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(&c.name),
                xml(&v.label)
            ));
            if v.passed {
                out.push_str("/>\n");
            } else {
                out.push_str(&format!(
                    ">\n      <failure message=\"measured {}\"/>\n    </testcase>\n",
                    xml(&cascade::output::files::number(v.measured))
                ));
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
