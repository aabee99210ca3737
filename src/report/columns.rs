//! The columns of `violations.csv` and `impostors.csv` (SPEC §5), in one
//! place: their names, their order, and how each cell is written.

use std::borrow::Cow;
use std::io;

use super::Names;
use crate::audit::{Counted, Impostor, Violation};
use crate::error::{Error, Result};

pub const VIOLATIONS: [&str; 17] = [
    "time",
    "file",
    "line",
    "client",
    "crawler",
    "verification",
    "identified_by",
    "method",
    "target",
    "status",
    "kind",
    "group",
    "rule_line",
    "rule",
    "detail",
    "note",
    "robots_version",
];

pub const IMPOSTORS: [&str; 10] = [
    "time",
    "file",
    "line",
    "client",
    "ptr",
    "claimed_crawler",
    "method",
    "target",
    "status",
    "user_agent",
];

/// SPEC §7 `rules.csv`.
pub const RULES: [&str; 10] = [
    "robots_version",
    "rule_line",
    "rule",
    "group",
    "kind",
    "violations",
    "distinct_targets",
    "crawlers",
    "first_time",
    "last_time",
];

/// SPEC §7 `impostor-addresses.csv`.
pub const IMPOSTOR_ADDRESSES: [&str; 7] = [
    "client",
    "claimed_crawlers",
    "fetches",
    "ptr",
    "reason",
    "first_time",
    "last_time",
];

pub const SUMMARY: [&str; 7] = [
    "crawler",
    "kind",
    "fetches",
    "violations",
    "distinct_targets",
    "first_time",
    "last_time",
];

/// A CSV writer into memory; the caller decides where the bytes go.
pub(crate) fn writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new())
}

pub(crate) fn finish(writer: csv::Writer<Vec<u8>>) -> Result<Vec<u8>> {
    writer.into_inner().map_err(|e| Error::Write {
        path: "-".into(),
        source: std::io::Error::other(e.to_string()),
    })
}

pub(crate) fn csv_error(e: csv::Error) -> Error {
    Error::Write {
        path: "-".into(),
        source: std::io::Error::other(e.to_string()),
    }
}

fn file_name(names: &Names<'_>, index: u32) -> Cow<'static, [u8]> {
    Cow::Owned(
        names
            .files
            .get(index as usize)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
            .into_bytes(),
    )
}

fn status(value: Option<u16>) -> Vec<u8> {
    value
        .map(|s| s.to_string())
        .unwrap_or_default()
        .into_bytes()
}

/// Writes one report into `out`; the caller decides where the bytes go.
pub type Report<'f> = dyn Fn(&mut dyn io::Write) -> io::Result<()> + 'f;

/// The I/O error inside a CSV error, kept as it is so that a closed pipe
/// still reads as one.
pub(crate) fn io_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// A CSV writer straight into `out`, so a large report is never held whole
/// in memory.
pub(crate) fn stream(out: &mut dyn io::Write) -> csv::Writer<&mut dyn io::Write> {
    csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// A CSV writer that owns where it writes.
pub(crate) fn stream_owned<W: io::Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// One row of `violations.csv`.
pub fn write_violation<W: io::Write>(
    out: &mut csv::Writer<W>,
    names: &Names<'_>,
    counted: &Counted,
    row: &Violation<'_>,
) -> io::Result<()> {
    let log = |bytes| names.escaping.apply(bytes);
    let fetch = &counted.fetch;
    let record: [Cow<'_, [u8]>; 17] = [
        Cow::Owned(fetch.time.rfc3339().into_bytes()),
        file_name(names, fetch.file),
        Cow::Owned(fetch.line.to_string().into_bytes()),
        log(fetch.client()),
        Cow::Borrowed(names.crawlers[counted.crawler].as_bytes()),
        Cow::Borrowed(counted.verification.as_str().as_bytes()),
        Cow::Borrowed(counted.identified_by.as_str().as_bytes()),
        log(fetch.method()),
        log(fetch.target()),
        Cow::Owned(status(fetch.status)),
        Cow::Borrowed(row.kind.as_str().as_bytes()),
        // robots.txt text may be a stranger's too (a CMS plugin, a
        // compromised site): the same guard.
        log(row.group.as_bytes()),
        Cow::Owned(rule_line(row.rule_line).into_bytes()),
        log(row.rule.as_bytes()),
        log(row.detail.as_bytes()),
        Cow::Borrowed(row.note.as_bytes()),
        Cow::Borrowed(row.robots_version.as_bytes()),
    ];
    out.write_record(&record).map_err(io_error)
}

/// One row of `impostors.csv`.
pub fn write_impostor<W: io::Write>(
    out: &mut csv::Writer<W>,
    names: &Names<'_>,
    impostor: &Impostor,
) -> io::Result<()> {
    let log = |bytes| names.escaping.apply(bytes);
    let fetch = &impostor.fetch;
    let record: [Cow<'_, [u8]>; 10] = [
        Cow::Owned(fetch.time.rfc3339().into_bytes()),
        file_name(names, fetch.file),
        Cow::Owned(fetch.line.to_string().into_bytes()),
        log(fetch.client()),
        log(impostor.ptr.as_deref().unwrap_or("").as_bytes()),
        Cow::Borrowed(names.crawlers[impostor.claimed].as_bytes()),
        log(fetch.method()),
        log(fetch.target()),
        Cow::Owned(status(fetch.status)),
        log(fetch.user_agent()),
    ];
    out.write_record(&record).map_err(io_error)
}

/// A rule line as reports write it: empty for a row of no line (SPEC §6
/// `robots-unreachable`).
pub(crate) fn rule_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        line.to_string()
    }
}
