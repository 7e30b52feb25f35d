//! The `cascade` command: parse the command line, run one subcommand, map its result to an
//! exit code (0 ok, 1 an expectation failed, 2 bad input or usage).

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
