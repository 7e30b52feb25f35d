//! `cascade import envoy|grpc|resilience4j FILE [--name NAME]`: prints `[policy.NAME]` tables
//! (and `--set` lines for clients and services) on stdout, every source key not imported on
//! stderr. The mapping lives in `cascade::import`; docs/import.md describes it.

use cascade::Result;
use cascade::import::Format;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum Library {
    /// Envoy v3 clusters and routes (YAML or JSON).
    Envoy,
    /// A gRPC service config (JSON).
    Grpc,
    /// Spring Boot resilience4j (application.yml or .properties).
    Resilience4j,
}

impl Library {
    pub fn format(self) -> Format {
        match self {
            Library::Envoy => Format::Envoy,
            Library::Grpc => Format::Grpc,
            Library::Resilience4j => Format::Resilience4j,
        }
    }
}

#[derive(Args)]
pub struct ImportArgs {
    /// The library whose configuration FILE is.
    #[arg(value_enum)]
    library: Library,
    /// The configuration file.
    file: PathBuf,
    /// The policy's name, when the file yields one policy.
    #[arg(long)]
    name: Option<String>,
}

pub fn import(args: ImportArgs) -> Result<ExitCode> {
    // Under the scenario's cap: `import envoy /dev/zero` once read 2.1 GB before dying.
    let text = cascade::scenario::read_text(&args.file, "config")?;
    let file = args.file.display().to_string();
    let format = args.library.format();
    let imported = cascade::import::import(format, &file, &text, args.name.as_deref())?;
    let command = format!("cascade import {} {file}", format.name());
    print!("{}", imported.toml(&command));
    eprint!("{}", imported.skipped_text());
    Ok(ExitCode::SUCCESS)
}
