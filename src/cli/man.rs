//! `cascade man`: the manual as roff on stdout (`cascade man | man -l -`), generated from the
//! clap definitions: cascade(1) with its list of subcommands, then one page per subcommand
//! (cascade-run(1), cascade-sweep(1), ...) with its synopsis and every option, in one stream.

use cascade::Result;
use clap::CommandFactory;
use clap_mangen::Man;
use std::process::ExitCode;

pub fn man() -> Result<ExitCode> {
    print!("{}", String::from_utf8_lossy(&render()));
    Ok(ExitCode::SUCCESS)
}

/// The whole manual. Built once so that each subcommand knows its full name (`cascade run`,
/// shown as `cascade-run`), as clap_mangen's own `generate_to` does; `help` gets no page, as
/// there.
fn render() -> Vec<u8> {
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    let pages = std::iter::once(&cmd).chain(cmd.get_subcommands().filter(|s| !s.is_hide_set()));
    for page in pages {
        // Each page's footer names the program and its version, as cascade(1)'s does (a
        // subcommand has no version of its own). Only the writer can fail, and it is memory.
        Man::new(page.clone())
            .source(format!("cascade {}", env!("CARGO_PKG_VERSION")))
            .render(&mut out)
            .expect("a man page rendered to memory");
    }
    out
}
