//! The reports of SPEC §5: `violations.csv`, `impostors.csv`, `summary.csv`
//! and the short human summary on standard error. `columns` holds the
//! column lists in one place; `atomic` writes files whole or not at all.

pub mod atomic;
pub mod columns;
pub mod escape;
pub mod skipped;
pub mod summary;

use std::io;
use std::path::{Path, PathBuf};

use crate::audit::{Fetch, Impostor, Violation};
use crate::error::{Error, Result};
pub use escape::Escaping;

/// Everything the reports are made from, sorted as SPEC §5 orders rows.
pub struct Findings<'a> {
    /// The log files as given on the command line (`-` for standard input).
    pub files: &'a [PathBuf],
    /// Crawler names, indexed like `Fetch::crawler`.
    pub crawlers: &'a [String],
    pub fetches: &'a [Fetch],
    pub violations: &'a [Violation<'a>],
    /// Each robots.txt group's user-agent values, `|`-joined, indexed like
    /// `Violation::group`.
    pub group_labels: &'a [String],
    pub impostors: &'a [Impostor],
    pub escaping: Escaping,
}

/// Writes the reports: into `dir` (all three, each atomically), or
/// `violations.csv` alone to standard output. A missing `dir` is made
/// first, parents and all, so that a nightly job can name a fresh
/// directory per run.
pub fn write(findings: &Findings<'_>, dir: Option<&Path>) -> Result<()> {
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|source| Error::Write {
                path: dir.to_path_buf(),
                source,
            })?;
            atomic::write_all(&[
                (dir.join("violations.csv"), &|out: &mut dyn io::Write| {
                    columns::write_violations(findings, out)
                }),
                (dir.join("impostors.csv"), &|out: &mut dyn io::Write| {
                    columns::write_impostors(findings, out)
                }),
                (dir.join("summary.csv"), &|out: &mut dyn io::Write| {
                    summary::write_summary(findings, out)
                }),
            ])
        }
        None => {
            let stdout = io::stdout();
            let mut lock = stdout.lock();
            // A reader that closed early (`| head`) wanted no more; the
            // exit status still follows the findings (SPEC §5).
            match columns::write_violations(findings, &mut lock) {
                Err(source) if source.kind() != io::ErrorKind::BrokenPipe => Err(Error::Write {
                    path: PathBuf::from("-"),
                    source,
                }),
                _ => Ok(()),
            }
        }
    }
}
