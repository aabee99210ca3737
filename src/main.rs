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
            // An error met while an interrupt removes the run's files
            // (a sorted run gone under its reader) is the interrupt's:
            // the handler says what became of the reports, and exits 2.
            for _ in 0..100 {
                if !robots_audit::interrupt::in_progress() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            robots_audit::warn!("robots-audit: {err}");
            ExitCode::from(2)
        }
    }
}
