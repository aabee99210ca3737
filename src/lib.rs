//! robots-audit: reads web-server access logs, picks out the fetches of
//! Seznam's crawlers, proves or disproves that they are genuine, and reports
//! every fetch that broke the site's robots.txt.
//!
//! ```text
//!  --log files ─► accesslog (open, chunk, format) ─► crawler::identify
//!        (one reader thread per file, rayon workers parse and identify)
//!                                                    │ crawler fetches + sort key
//!  --ptr-map, --resolve ─► crawler::verify ◄─────────┘
//!  --robots ─► robots (parse, group, compile) ─► audit (disallow, rate, delay)
//!                                                    │ sorted rows
//!                                                    ▼
//!                                   report (violations, impostors, summary)
//! ```
//!
//! `pipeline` alone knows the order of the stages and where the threads are.

pub mod accesslog;
pub mod audit;
pub mod check;
pub mod cli;
pub mod config;
pub mod crawler;
pub mod error;
pub mod fetch;
pub mod interrupt;
pub mod lint;
pub mod pipeline;
pub mod progress;
pub mod report;
pub mod robots;
pub mod scan;
pub mod side_file;
pub mod spill;
pub mod state;
pub mod text;

#[cfg(test)]
mod test_rng;

use std::io::Write;

pub use config::Command;
pub use error::{Error, Result};

/// How a command ended, for the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report: exit 0.
    Clean,
    /// Violations, disallowed targets or lint findings: exit 1.
    Findings,
    /// Reports were written, but some input could not be read whole: exit 2.
    Incomplete,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
            Outcome::Incomplete => 2,
        }
    }
}

/// Runs one command.
pub fn run(command: &Command) -> Result<Outcome> {
    match command {
        Command::Audit(config) => pipeline::run(config),
        Command::Check(config) => Ok(if check::run(config)? {
            Outcome::Clean
        } else {
            Outcome::Findings
        }),
        Command::Lint(config) => Ok(if lint::run(config)? {
            Outcome::Clean
        } else {
            Outcome::Findings
        }),
        Command::Summary(dir) => {
            let text = report::mail::summary(dir)?;
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Err(source) if source.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(Error::Write {
                        path: std::path::PathBuf::from("-"),
                        source,
                    })
                }
                _ => Ok(Outcome::Clean),
            }
        }
    }
}

/// Prints a line on standard error. A closed standard error (`2>&1 | head`
/// in a cron line) is ignored: the reports matter more than the messages.
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // Messages may quote a stranger's bytes (a JSON log's keys, a
        // file name): no terminal escape runs from standard error either,
        // and no line break forges a line of its own.
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", $crate::text::message_safe(&text));
    }};
}

/// Writes to standard output. A reader that closed the pipe early
/// (`| head`) wanted no more: that is no error, and the command still ends
/// with the status its findings give (SPEC §5).
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    match lock.write_all(bytes).and_then(|()| lock.flush()) {
        Err(source) if source.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Write {
            path: "-".into(),
            source,
        }),
        _ => Ok(()),
    }
}
