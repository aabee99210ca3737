//! The columns of `violations.csv` and `impostors.csv` (SPEC §5), in one
//! place: their names, their order, and how each cell is written.

use std::borrow::Cow;
use std::io;

use super::Names;
use super::escape::name_bytes;
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

/// One record appended to `out` as the other reports' csv crate writer
/// (`QuoteStyle::Necessary`, a `\n` terminator) writes it: a field that
/// holds a `,`, a `"`, a CR or an LF is quoted, its quotes doubled; a
/// record of one empty field is `""`. The rows of `violations.csv` and
/// `impostors.csv`, the bulk of a bad night's output, are written here,
/// without the crate's byte-at-a-time state machine; a property test
/// holds the two writers to the same bytes.
pub(crate) fn push_record(out: &mut Vec<u8>, fields: &[&[u8]]) {
    if let [only] = fields
        && only.is_empty()
    {
        out.extend_from_slice(b"\"\"\n");
        return;
    }
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if !field.iter().any(|&b| QUOTED_FOR[usize::from(b)]) {
            out.extend_from_slice(field);
            continue;
        }
        out.push(b'"');
        let mut rest: &[u8] = field;
        while let Some(at) = memchr::memchr(b'"', rest) {
            out.extend_from_slice(&rest[..=at]);
            out.push(b'"');
            rest = &rest[at + 1..];
        }
        out.extend_from_slice(rest);
        out.push(b'"');
    }
    out.push(b'\n');
}

/// The bytes that make the csv crate's writer quote a field.
static QUOTED_FOR: [bool; 256] = {
    let mut table = [false; 256];
    table[b',' as usize] = true;
    table[b'"' as usize] = true;
    table[b'\r' as usize] = true;
    table[b'\n' as usize] = true;
    table
};

/// `n` in decimal, written into `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        // A digit: below 10.
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// A status as reports write it: empty when none was logged, else its
/// three digits as logs write them (nginx's `000` of a request answered
/// with nothing is not `0`).
fn status(value: Option<u16>, buf: &mut [u8; 20]) -> &[u8] {
    value.map_or(&b""[..], |s| {
        let digits = decimal(u64::from(s), buf).len();
        let end = buf.len();
        let start = end - digits.max(3);
        buf[start..end - digits].fill(b'0');
        &buf[start..]
    })
}

/// Log `index`'s name as the `file` column writes it: its bytes as given,
/// as log text (escaped and guarded: a name is the operator's, yet may
/// hold any byte, and two names that are not UTF-8 never come out the
/// same), but standard input's `-` as it is, which starts no formula.
fn file_field<'n>(names: &Names<'n>, index: u32) -> Cow<'n, [u8]> {
    let Some(path) = names.files.get(index as usize) else {
        return Cow::Borrowed(b"");
    };
    match path.as_os_str().as_encoded_bytes() {
        b"-" => Cow::Borrowed(b"-"),
        name => names.escaping.apply(name),
    }
}

/// One row of `violations.csv`, appended to `out`.
pub fn write_violation(
    out: &mut Vec<u8>,
    names: &Names<'_>,
    counted: &Counted,
    row: &Violation<'_>,
) {
    let log = |bytes| names.escaping.apply(bytes);
    let fetch = &counted.fetch;
    let (mut line_digits, mut status_digits, mut rule_digits) = ([0u8; 20], [0u8; 20], [0u8; 20]);
    let time = fetch.time.rfc3339_text();
    // robots.txt text is kept as a log's text is (SPEC §5: 8 KiB, then
    // `…[cut N bytes]`): a group of thousands of user agents or a rule of
    // half a megabyte would otherwise be written whole into every row.
    let (group, rule) = (name_bytes(row.group), name_bytes(&row.rule));
    let (group, rule) = (crate::text::bound(&group), crate::text::bound(&rule));
    let target = fetch.target_kept();
    let record: [Cow<'_, [u8]>; 17] = [
        Cow::Borrowed(time.as_bytes()),
        file_field(names, fetch.file),
        Cow::Borrowed(decimal(fetch.line, &mut line_digits)),
        log(fetch.client()),
        // A `--profiles` name is the operator's, yet a spreadsheet would
        // run `=EVIL` as well: the same guard.
        log(names.crawlers[counted.crawler].as_bytes()),
        Cow::Borrowed(counted.verification.as_str().as_bytes()),
        Cow::Borrowed(counted.identified_by.as_str().as_bytes()),
        log(fetch.method()),
        log(&target),
        Cow::Borrowed(status(fetch.status, &mut status_digits)),
        Cow::Borrowed(row.kind.as_str().as_bytes()),
        // robots.txt text may be a stranger's too (a CMS plugin, a
        // compromised site): the same guard.
        log(&group),
        Cow::Borrowed(rule_line(row.rule_line, &mut rule_digits)),
        log(&rule),
        log(row.detail.as_bytes()),
        Cow::Borrowed(row.note.as_bytes()),
        Cow::Borrowed(row.robots_version.as_bytes()),
    ];
    push_record(out, &record.each_ref().map(|field| &**field));
}

/// One row of `impostors.csv`, appended to `out`.
pub fn write_impostor(out: &mut Vec<u8>, names: &Names<'_>, impostor: &Impostor) {
    let log = |bytes| names.escaping.apply(bytes);
    let fetch = &impostor.fetch;
    let (mut line_digits, mut status_digits) = ([0u8; 20], [0u8; 20]);
    let time = fetch.time.rfc3339_text();
    let ptr = super::escape::name_bytes(impostor.ptr.as_deref().unwrap_or(""));
    let target = fetch.target_kept();
    let record: [Cow<'_, [u8]>; 10] = [
        Cow::Borrowed(time.as_bytes()),
        file_field(names, fetch.file),
        Cow::Borrowed(decimal(fetch.line, &mut line_digits)),
        log(fetch.client()),
        log(&ptr),
        log(names.crawlers[impostor.claimed].as_bytes()),
        log(fetch.method()),
        log(&target),
        Cow::Borrowed(status(fetch.status, &mut status_digits)),
        log(fetch.user_agent()),
    ];
    push_record(out, &record.each_ref().map(|field| &**field));
}

/// A rule line as reports write it: empty for a row of no line (SPEC §6
/// `robots-unreachable`).
pub(crate) fn rule_line(line: usize, buf: &mut [u8; 20]) -> &[u8] {
    match line {
        0 => b"",
        n => decimal(n as u64, buf),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The record as the csv crate's writer of the other reports writes it.
    fn crate_record(fields: &[Vec<u8>]) -> Vec<u8> {
        let mut out = stream_owned(Vec::new());
        out.write_record(fields).unwrap();
        out.into_inner().unwrap()
    }

    proptest! {
        #[test]
        fn records_are_written_as_the_csv_crate_writes_them(
            fields in proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![
                        6 => proptest::sample::select(b"aZ0 /.-;'=".to_vec()),
                        1 => proptest::sample::select(b",\"\r\n\\\t#\x00\xff".to_vec()),
                    ],
                    0..12,
                ),
                1..20,
            )
        ) {
            let mut ours = Vec::new();
            let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
            push_record(&mut ours, &refs);
            prop_assert_eq!(ours, crate_record(&fields));
        }
    }

    #[test]
    fn one_empty_field_and_quotes() {
        for fields in [
            vec![b"".to_vec()],
            vec![b"".to_vec(), b"".to_vec()],
            vec![
                b"a\"b".to_vec(),
                b"\"".to_vec(),
                b"x,y".to_vec(),
                b"\r".to_vec(),
            ],
        ] {
            let mut ours = Vec::new();
            let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
            push_record(&mut ours, &refs);
            assert_eq!(ours, crate_record(&fields), "{fields:?}");
        }
    }

    #[test]
    fn decimals_are_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 404, 65_535, 1_000_000, u64::MAX] {
            assert_eq!(decimal(n, &mut [0; 20]), n.to_string().as_bytes());
        }
        assert_eq!(rule_line(0, &mut [0; 20]), b"");
        assert_eq!(rule_line(22, &mut [0; 20]), b"22");
        assert_eq!(status(None, &mut [0; 20]), b"");
        assert_eq!(status(Some(404), &mut [0; 20]), b"404");
        assert_eq!(status(Some(0), &mut [0; 20]), b"000");
        assert_eq!(status(Some(99), &mut [0; 20]), b"099");
    }
}
