//! The `cascade` command: parse the command line, run one subcommand, map its result to an
//! exit code (0 ok, 1 an expectation failed, 2 bad input or usage).

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `cascade sweep ... | head`: when the reader goes away, stop quietly with 0 as ripgrep does,
/// instead of the panic that `print!` raises on a closed stdout.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
