//! `cascade init [TEMPLATE] [FILE]`: a commented starter scenario, printed or written to a new
//! file. The templates are TOML files beside this one (`templates/`), compiled in, so the binary
//! carries them and a test can run each through `cascade check`.

use cascade::error::closest;
use cascade::{Error, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct InitArgs {
    /// The template: basic (the default), retry-storm, overload or cache-aside (see --list).
    pub template: Option<String>,
    /// Where to write it; a file that exists is never overwritten. Without it, stdout.
    pub file: Option<PathBuf>,
    /// List the templates with what each shows, and write nothing.
    #[arg(long, conflicts_with_all = ["template", "file"])]
    pub list: bool,
}

/// A starter scenario: its name on the command line, what it shows, its text.
struct Template {
    name: &'static str,
    about: &'static str,
    text: &'static str,
}

/// In the order `--list` prints them; the first is the default.
const TEMPLATES: &[Template] = &[
    Template {
        name: "basic",
        about: "a client, an API and its database; a timeout and a retry with a budget",
        text: include_str!("templates/basic.toml"),
    },
    Template {
        name: "retry-storm",
        about: "a burst that retries keep going after it ends, and the budget that stops them",
        text: include_str!("templates/retry-storm.toml"),
    },
    Template {
        name: "overload",
        about: "an overload fault triples the traffic; a short queue keeps answers fast",
        text: include_str!("templates/overload.toml"),
    },
    Template {
        name: "cache-aside",
        about: "a cache with a database read on a miss; a flush (branch fault) and its warm-up",
        text: include_str!("templates/cache-aside.toml"),
    },
];

pub fn init(a: InitArgs) -> Result<ExitCode> {
    if a.list {
        let width = TEMPLATES.iter().map(|t| t.name.len()).max().unwrap_or(0);
        for t in TEMPLATES {
            println!("{:width$}  {}", t.name, t.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let template = find(a.template.as_deref().unwrap_or(TEMPLATES[0].name))?;
    match a.file {
        None => print!("{}", template.text),
        Some(path) => {
            write_new(&path, template.text)?;
            eprintln!(
                "wrote the {} template to {}; try `cascade check {}`",
                template.name,
                path.display(),
                path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn find(name: &str) -> Result<&'static Template> {
    if let Some(t) = TEMPLATES.iter().find(|t| t.name == name) {
        return Ok(t);
    }
    let names: Vec<&str> = TEMPLATES.iter().map(|t| t.name).collect();
    let hint = if let Some(near) = closest(name, names.iter().copied()) {
        format!(" (did you mean `{near}`?)")
    } else if name.ends_with(".toml") {
        // `cascade init my.toml`: the one positional argument is the template.
        format!(" (to write the basic template to it: `cascade init basic {name}`)")
    } else {
        String::new()
    };
    Err(Error::Usage(format!(
        "no template `{name}`{hint}; the templates are: {}",
        names.join(", ")
    )))
}

/// Writes `text` to a file that must not exist yet: created with `create_new`, so a file (or a
/// symlink) that appears meanwhile is not overwritten either.
fn write_new(path: &Path, text: &str) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::Usage(format!(
                "{} already exists, and cascade init never overwrites a file: remove it or \
                 name another",
                path.display()
            )));
        }
        Err(e) => return Err(io(e)),
    };
    file.write_all(text.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)
}
