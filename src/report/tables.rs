//! The tables of SPEC §7 a webmaster acts on: `rules.csv`, one row per
//! robots.txt rule that decided a violation, and `impostor-addresses.csv`,
//! one row per address that pretended to be a crawler, ready for a
//! firewall. Takes the run's `Digest`; gives the two CSV files.

use std::borrow::Cow;
use std::io;

use super::Names;
use super::columns::{IMPOSTOR_ADDRESSES, RULES, io_error, rule_line, stream};
use super::digest::Digest;

/// `joined`, as a CSV field: guarded as log text is, since a `--profiles`
/// name may start a formula (`=EVIL`).
fn joined_field(
    names: &Names<'_>,
    crawlers: &std::collections::BTreeSet<usize>,
) -> Cow<'static, [u8]> {
    Cow::Owned(
        names
            .escaping
            .apply(joined(names, crawlers).as_bytes())
            .into_owned(),
    )
}

/// Crawler names of a set of indices, in string order, `|`-joined.
pub(crate) fn joined(names: &Names<'_>, crawlers: &std::collections::BTreeSet<usize>) -> String {
    let mut named: Vec<&str> = crawlers
        .iter()
        .map(|&c| names.crawlers[c].as_str())
        .collect();
    named.sort_unstable();
    named.dedup();
    named.join("|")
}

pub fn write_rules(
    digest: &Digest<'_>,
    names: &Names<'_>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut out = stream(out);
    out.write_record(RULES).map_err(io_error)?;
    for row in digest.rules_in_order() {
        let row = row.map_err(io::Error::other)?;
        let mut line = [0u8; 20];
        // robots.txt text is held as `name_text`: its bytes back, then
        // escaped once.
        let (rule, group) = (
            super::escape::name_bytes(&row.rule),
            super::escape::name_bytes(&row.group),
        );
        // Kept as violations.csv keeps them (8 KiB, then `…[cut N
        // bytes]`), so that the two files name a rule alike.
        let (rule, group) = (crate::text::bound(&rule), crate::text::bound(&group));
        let log = |bytes| names.escaping.apply(bytes);
        let record: [Cow<'_, [u8]>; 10] = [
            Cow::Borrowed(row.robots_version.as_bytes()),
            Cow::Borrowed(rule_line(row.rule_line, &mut line)),
            log(&rule),
            log(&group),
            Cow::Borrowed(row.kind.as_str().as_bytes()),
            Cow::Owned(row.violations.to_string().into_bytes()),
            Cow::Owned(row.distinct_targets.to_string().into_bytes()),
            joined_field(names, &row.crawlers),
            Cow::Owned(row.first.rfc3339().into_bytes()),
            Cow::Owned(row.last.rfc3339().into_bytes()),
        ];
        out.write_record(&record).map_err(io_error)?;
    }
    out.flush()
}

pub fn write_impostor_addresses(
    digest: &Digest<'_>,
    names: &Names<'_>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut out = stream(out);
    out.write_record(IMPOSTOR_ADDRESSES).map_err(io_error)?;
    for row in digest.take_addresses() {
        let row = row.map_err(|e| io::Error::other(e.to_string()))?;
        let ptr = super::escape::name_bytes(row.ptr.as_deref().unwrap_or(""));
        let record: [Cow<'_, [u8]>; 7] = [
            names.escaping.apply(&row.client),
            joined_field(names, &row.claimed),
            Cow::Owned(row.fetches.to_string().into_bytes()),
            names.escaping.apply(&ptr),
            Cow::Borrowed(row.reason.as_str().as_bytes()),
            Cow::Owned(row.first.rfc3339().into_bytes()),
            Cow::Owned(row.last.rfc3339().into_bytes()),
        ];
        out.write_record(&record).map_err(io_error)?;
    }
    out.flush()
}
