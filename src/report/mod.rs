//! The reports of SPEC §5: `violations.csv`, `impostors.csv`, `summary.csv`
//! and the short human summary on standard error; and of SPEC §7 `tables`:
//! `rules.csv` and `impostor-addresses.csv`, `run`: `run.json`, `html`:
//! `report.html`, and `mail`: the short text the nightly cron mails. `columns` holds the
//! column lists in one place; `lock` keeps two runs out of one `--out`
//! directory and `atomic` switches the set of reports there as one.

pub mod atomic;
pub mod columns;
pub mod escape;
pub mod html;
pub mod lock;
pub mod mail;
pub mod run;
pub mod skipped;
pub mod summary;
pub mod tables;

use std::io;
use std::path::PathBuf;

use crate::audit::{Fetch, Impostor, Violation};
use crate::error::{Error, Result};
pub use escape::Escaping;
pub use lock::OutDir;

/// Everything the reports are made from, sorted as SPEC §5 orders rows.
pub struct Findings<'a> {
    /// The log files as given on the command line (`-` for standard input).
    pub files: &'a [PathBuf],
    /// Crawler names, indexed like `Fetch::crawler`.
    pub crawlers: &'a [String],
    pub fetches: &'a [Fetch],
    pub violations: &'a [Violation<'a>],
    pub impostors: &'a [Impostor],
    pub escaping: Escaping,
}

/// Writes the reports: into the locked `--out` directory as one set
/// (`atomic`), `run.json` and `report.html` with them, or
/// `violations.csv` alone to standard output.
pub fn write(
    findings: &Findings<'_>,
    health: &run::Health<'_>,
    sources: &html::build::Sources<'_>,
    out: Option<&OutDir>,
) -> Result<()> {
    match out {
        Some(out) => atomic::write_set(
            out,
            &[
                ("violations.csv", &|out: &mut dyn io::Write| {
                    columns::write_violations(findings, out)
                }),
                ("impostors.csv", &|out: &mut dyn io::Write| {
                    columns::write_impostors(findings, out)
                }),
                ("summary.csv", &|out: &mut dyn io::Write| {
                    summary::write_summary(findings, out)
                }),
                ("rules.csv", &|out: &mut dyn io::Write| {
                    tables::write_rules(findings, out)
                }),
                ("impostor-addresses.csv", &|out: &mut dyn io::Write| {
                    tables::write_impostor_addresses(findings, out)
                }),
                ("run.json", &|out: &mut dyn io::Write| {
                    run::write_run(findings, health, out)
                }),
                ("report.html", &|out: &mut dyn io::Write| {
                    let page = html::build(findings, health, sources);
                    out.write_all(html::render(&page).as_bytes())?;
                    out.flush()
                }),
            ],
        ),
        None => {
            let stdout = io::stdout();
            let mut lock = stdout.lock();
            atomic::begin_streaming();
            // A reader that closed early (`| head`) wanted no more; the
            // exit status still follows the findings (SPEC §5).
            let written = columns::write_violations(findings, &mut lock)
                .and_then(|()| io::Write::flush(&mut lock));
            match written {
                Err(source) if source.kind() != io::ErrorKind::BrokenPipe => {
                    return Err(Error::Write {
                        path: PathBuf::from("-"),
                        source,
                    });
                }
                _ => {}
            }
            atomic::end_streaming();
            Ok(())
        }
    }
}
