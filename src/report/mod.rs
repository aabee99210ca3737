//! The reports of SPEC §5: `violations.csv`, `impostors.csv`, `summary.csv`
//! and the short human summary on standard error; and of SPEC §7 `tables`:
//! `rules.csv` and `impostor-addresses.csv`, `run`: `run.json`, `html`:
//! `report.html`, and `mail`: the short text the nightly cron mails. `columns` holds the
//! column lists in one place; `lock` keeps two runs out of one `--out`
//! directory and `atomic` switches the set of reports there as one.

pub mod atomic;
pub mod columns;
pub mod digest;
pub mod escape;
pub mod html;
pub mod lock;
pub mod mail;
pub mod run;
pub mod skipped;
pub mod summary;
pub mod tables;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use crate::audit::{Counted, Impostor, Violation};
use crate::error::{Error, Result};
pub use digest::Digest;
pub use escape::Escaping;
pub use lock::OutDir;

/// How the reports name things: the log files as given (`-` for standard
/// input), the crawlers (indexed like `Counted::crawler`), and how log text
/// is written.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub files: &'a [PathBuf],
    pub crawlers: &'a [String],
    pub escaping: Escaping,
}

/// The report files of a set, in the order they are written.
pub const FILES: [&str; 7] = [
    "violations.csv",
    "impostors.csv",
    "summary.csv",
    "rules.csv",
    "impostor-addresses.csv",
    "run.json",
    "report.html",
];

/// A row file: rows arrive as CSV text (`Formatted`).
type RowsOut = BufWriter<Sink>;

/// Where rows go: a file of the new set, or standard output.
enum Sink {
    File(File),
    Stdout(io::Stdout),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(file) => file.write(buf),
            // Written through the descriptor itself: the standard
            // library's stdout takes EBADF (standard output opened for
            // reading, `1<file`) as written, which would pass rows that
            // reached no one for a whole report.
            Sink::Stdout(out) => {
                rustix::io::write(std::os::fd::AsFd::as_fd(out), buf).map_err(io::Error::from)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(file) => file.flush(),
            Sink::Stdout(out) => out.flush(),
        }
    }
}

/// The reports while the audit streams rows into them: `violations.csv`
/// and `impostors.csv` written as rows are judged, formatted on the workers
/// and written in order (into the new set of `--out`, or
/// `violations.csv` alone to standard output), the rest gathered in a
/// `Digest` and written by `finish`.
pub struct Rows<'a, 'o> {
    names: Names<'a>,
    staging: Option<atomic::Staging<'o>>,
    violations: Option<RowsOut>,
    impostors: Option<RowsOut>,
    /// Standard output was closed by its reader: rows are no longer
    /// written, the audit goes on.
    closed: bool,
}

/// Rows of `violations.csv` and `impostors.csv` formatted apart from the
/// files (on other threads), as CSV text to be written in order.
#[derive(Debug, Default)]
pub struct Formatted {
    violations: Vec<u8>,
    impostors: Vec<u8>,
}

impl Formatted {
    pub fn violation(&mut self, names: &Names<'_>, counted: &Counted, row: &Violation<'_>) {
        columns::write_violation(&mut self.violations, names, counted, row);
    }

    pub fn impostor(&mut self, names: &Names<'_>, impostor: &Impostor) {
        columns::write_impostor(&mut self.impostors, names, impostor);
    }
}

/// The text a CSV writer into memory made.
fn csv_text(out: csv::Writer<Vec<u8>>) -> io::Result<Vec<u8>> {
    out.into_inner()
        .map_err(|e| io::Error::new(e.error().kind(), e.error().to_string()))
}

impl<'a, 'o> Rows<'a, 'o> {
    pub fn begin(names: Names<'a>, out: Option<&'o OutDir>) -> Result<Rows<'a, 'o>> {
        let mut rows = Rows {
            names,
            staging: None,
            violations: None,
            impostors: None,
            closed: false,
        };
        match out {
            Some(out) => {
                let staging = atomic::Staging::begin(out, &FILES)?;
                let violations = staging.create("violations.csv")?;
                let impostors = staging.create("impostors.csv")?;
                rows.violations = Some(csv_out(Sink::File(violations)));
                rows.impostors = Some(csv_out(Sink::File(impostors)));
                rows.staging = Some(staging);
            }
            None => {
                atomic::begin_streaming();
                rows.violations = Some(csv_out(Sink::Stdout(io::stdout())));
            }
        }
        rows.header("violations.csv", &columns::VIOLATIONS)?;
        rows.header("impostors.csv", &columns::IMPOSTORS)?;
        Ok(rows)
    }

    /// The open row file named `name` (`violations.csv` or
    /// `impostors.csv`); `None` when it is not written.
    fn row_file(&mut self, name: &str) -> Option<&mut RowsOut> {
        if name == "violations.csv" {
            self.violations.as_mut()
        } else {
            self.impostors.as_mut()
        }
    }

    fn header(&mut self, name: &str, columns: &[&str]) -> Result<()> {
        let Some(out) = self.row_file(name) else {
            return Ok(());
        };
        let mut line = columns::stream_owned(Vec::new());
        let written = line
            .write_record(columns)
            .map_err(columns::io_error)
            .and_then(|()| csv_text(line))
            .and_then(|text| out.write_all(&text));
        self.check(name, written)
    }

    /// Turns a write error into the run's error, except a closed standard
    /// output, which only stops the rows.
    fn check(&mut self, name: &str, written: io::Result<()>) -> Result<()> {
        let Err(source) = written else {
            return Ok(());
        };
        match &self.staging {
            Some(staging) => Err(staging.fail(name)(source)),
            None if source.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                self.violations = None;
                Ok(())
            }
            None => Err(Error::Write {
                path: PathBuf::from("-"),
                source,
            }),
        }
    }

    /// How the rows name things, to format rows elsewhere (`Formatted`).
    pub fn names(&self) -> Names<'a> {
        self.names
    }

    /// Writes rows formatted ahead (`Formatted`) after those written
    /// before, in the order given.
    pub fn formatted(&mut self, rows: &Formatted) -> Result<()> {
        for (name, bytes) in [
            ("violations.csv", &rows.violations),
            ("impostors.csv", &rows.impostors),
        ] {
            if bytes.is_empty() {
                continue;
            }
            let Some(out) = self.row_file(name) else {
                continue;
            };
            let written = out.write_all(bytes);
            self.check(name, written)?;
        }
        Ok(())
    }

    /// Writes the rest of the set from `digest`, with `page` (the text of
    /// `report.html`), and puts it in force; or ends the rows on standard
    /// output.
    /// Writes the rest of the set and puts it in force. True when the
    /// reports reached their reader whole: false when standard output was
    /// closed part way (not an error: SPEC §5 keeps the exit status).
    pub fn finish(
        mut self,
        digest: &Digest<'_>,
        health: &run::Health<'_>,
        page: &str,
    ) -> Result<bool> {
        let names = self.names;
        for name in ["violations.csv", "impostors.csv"] {
            let out = if name == "violations.csv" {
                self.violations.take()
            } else {
                self.impostors.take()
            };
            let Some(out) = out else {
                continue;
            };
            let inner = out.into_inner().map_err(|e| e.into_error());
            match inner {
                Ok(Sink::File(file)) => {
                    if let Some(staging) = &self.staging {
                        staging.seal(name, file)?;
                    }
                }
                Ok(Sink::Stdout(_)) => {}
                Err(e) => self.check(name, Err(e))?,
            }
        }
        let Some(staging) = self.staging.take() else {
            // A report whose reader closed standard output part way is not
            // whole: an interrupt from here on must not say it is.
            if !self.closed {
                atomic::end_streaming();
            }
            return Ok(!self.closed);
        };
        let rest: [(&str, &columns::Report<'_>); 5] = [
            ("summary.csv", &|out: &mut dyn Write| {
                summary::write_summary(digest, &names, out)
            }),
            ("rules.csv", &|out: &mut dyn Write| {
                tables::write_rules(digest, &names, out)
            }),
            ("impostor-addresses.csv", &|out: &mut dyn Write| {
                tables::write_impostor_addresses(digest, &names, out)
            }),
            ("run.json", &|out: &mut dyn Write| {
                run::write_run(digest, &names, health, out)
            }),
            ("report.html", &|out: &mut dyn Write| {
                out.write_all(page.as_bytes())?;
                out.flush()
            }),
        ];
        for (name, report) in rest {
            staging.write(name, report)?;
        }
        staging.finish()?;
        Ok(true)
    }
}

/// Puts in force, in `out`, the set in force with `run.json` and
/// `report.html` written anew from `health` and `page`: for a run that
/// failed after its set was put in force, so that the set says so.
pub fn amend(
    out: &OutDir,
    digest: &Digest<'_>,
    names: &Names<'_>,
    health: &run::Health<'_>,
    page: &str,
) -> Result<()> {
    atomic::amend(
        out,
        &[
            ("run.json", &|out: &mut dyn Write| {
                run::write_run(digest, names, health, out)
            }),
            ("report.html", &|out: &mut dyn Write| {
                out.write_all(page.as_bytes())?;
                out.flush()
            }),
        ],
    )
}

fn csv_out(out: Sink) -> RowsOut {
    BufWriter::with_capacity(256 * 1024, out)
}
