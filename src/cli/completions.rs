//! `cascade completions SHELL`: the shell's completion script on stdout, generated from the
//! same clap definitions that parse the command line, so it completes exactly the options that
//! exist (install: `cascade completions bash > /etc/bash_completion.d/cascade`, or see
//! docs/commands.md for each shell).

use cascade::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::process::ExitCode;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn completions(a: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "cascade", &mut script);
    // Printed rather than written to a locked stdout, so that `| head` ends as quietly as
    // every other command's output does (main's broken-pipe hook).
    print!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}
