//! The `robots-audit` binary: parses flags into a validated command, runs
//! it, and maps the outcome to the exit status of SPEC §5 (0 clean,
//! 1 violations or findings, 2 the run could not be done).

use std::process::ExitCode;

use clap::Parser;
use robots_audit::cli::Cli;

fn main() -> ExitCode {
    let command = match Cli::parse().into_command() {
        Ok(command) => command,
        Err(err) => {
            robots_audit::warn!("robots-audit: {err}");
            return ExitCode::from(2);
        }
    };
    robots_audit::interrupt::install();
    match robots_audit::run(&command) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(err) => {
            robots_audit::interrupt::yield_to_handler();
            robots_audit::warn!("robots-audit: {err}");
            ExitCode::from(2)
        }
    }
}
