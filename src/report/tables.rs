//! The tables of SPEC §7 a webmaster acts on: `rules.csv`, one row per
//! robots.txt rule that decided a violation, and `impostor-addresses.csv`,
//! one row per address that pretended to be a crawler, ready for a
//! firewall. Takes the sorted findings; gives the two CSV files.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::io;

use super::Findings;
use super::columns::{IMPOSTOR_ADDRESSES, RULES, io_error, stream};
use crate::accesslog::time::Timestamp;
use crate::crawler::{Client, parse_client};

/// One rule's violations: a rule is (robots_version, rule_line, kind).
struct RuleRow<'a> {
    robots_version: &'a str,
    rule_line: usize,
    rule: &'a str,
    group: &'a str,
    kind: &'static str,
    violations: u64,
    targets: BTreeSet<&'a [u8]>,
    crawlers: BTreeSet<&'a str>,
    first: &'a Timestamp,
    last: &'a Timestamp,
}

/// SPEC §7 `rules.csv`: every rule that decided a row (informing rows
/// included), most violations first, ties by first_time, then
/// robots_version, then rule_line.
pub fn write_rules(findings: &Findings<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let mut rows: Vec<RuleRow<'_>> = Vec::new();
    let mut index: HashMap<(&str, usize, &str, &str), usize> = HashMap::new();
    for row in findings.violations {
        let fetch = &findings.fetches[row.fetch];
        let kind = row.kind.as_str();
        // A rule with no line (robots.txt unreachable) is told apart by its
        // text, as SPEC §7 asks; a rule with a line by its line.
        let text = if row.rule_line == 0 { row.rule } else { "" };
        let key = (row.robots_version, row.rule_line, kind, text);
        let at = *index.entry(key).or_insert_with(|| {
            rows.push(RuleRow {
                robots_version: row.robots_version,
                rule_line: row.rule_line,
                rule: row.rule,
                group: row.group,
                kind,
                violations: 0,
                targets: BTreeSet::new(),
                crawlers: BTreeSet::new(),
                first: &fetch.time,
                last: &fetch.time,
            });
            rows.len() - 1
        });
        let entry = &mut rows[at];
        entry.violations += 1;
        entry.targets.insert(&fetch.target);
        entry
            .crawlers
            .insert(findings.crawlers[fetch.crawler].as_str());
        // Rows come in time order: the last seen is the latest.
        entry.last = &fetch.time;
    }
    rows.sort_by(|a, b| {
        b.violations
            .cmp(&a.violations)
            .then(a.first.instant_ms().cmp(&b.first.instant_ms()))
            .then(a.robots_version.cmp(b.robots_version))
            .then(a.rule_line.cmp(&b.rule_line))
            .then(a.kind.cmp(b.kind))
    });
    let mut out = stream(out);
    out.write_record(RULES).map_err(io_error)?;
    let log = |bytes| findings.escaping.apply(bytes);
    for row in &rows {
        let crawlers: Vec<&str> = row.crawlers.iter().copied().collect();
        let record: [Cow<'_, [u8]>; 10] = [
            Cow::Borrowed(row.robots_version.as_bytes()),
            Cow::Owned(line_text(row.rule_line).into_bytes()),
            log(row.rule.as_bytes()),
            log(row.group.as_bytes()),
            Cow::Borrowed(row.kind.as_bytes()),
            Cow::Owned(row.violations.to_string().into_bytes()),
            Cow::Owned(row.targets.len().to_string().into_bytes()),
            Cow::Owned(crawlers.join("|").into_bytes()),
            Cow::Owned(row.first.rfc3339().into_bytes()),
            Cow::Owned(row.last.rfc3339().into_bytes()),
        ];
        out.write_record(&record).map_err(io_error)?;
    }
    out.flush()
}

/// A rule line as the reports write it: empty when there is none.
fn line_text(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        line.to_string()
    }
}

/// One spoofing address.
struct AddressRow<'a> {
    client: String,
    claimed: BTreeSet<&'a str>,
    fetches: u64,
    ptr: Option<&'a str>,
    reason: &'static str,
    first: &'a Timestamp,
    last: &'a Timestamp,
}

/// The address as a firewall rule wants it: an address in canonical form
/// (`2A02:598:0::1` is `2a02:598::1`, `::ffff:1.2.3.4` is `1.2.3.4`);
/// anything else the log wrote there, as written.
fn canonical(client: &[u8]) -> Cow<'_, [u8]> {
    match parse_client(client) {
        Client::Addr(addr) => Cow::Owned(addr.to_string().into_bytes()),
        _ => Cow::Borrowed(client),
    }
}

/// SPEC §7 `impostor-addresses.csv`: one row per spoofing address, most
/// fetches first, ties by first_time, then the address.
pub fn write_impostor_addresses(
    findings: &Findings<'_>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let log = |bytes| findings.escaping.apply(bytes);
    let mut rows: Vec<AddressRow<'_>> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    for fetch in findings.impostors {
        let client = canonical(&fetch.client).into_owned();
        let at = match index.get(&client) {
            Some(&at) => at,
            None => {
                let written = findings.escaping.apply(&client).into_owned();
                rows.push(AddressRow {
                    client: String::from_utf8_lossy(&written).into_owned(),
                    claimed: BTreeSet::new(),
                    fetches: 0,
                    ptr: None,
                    reason: fetch.reason.as_str(),
                    first: &fetch.time,
                    last: &fetch.time,
                });
                index.insert(client, rows.len() - 1);
                rows.len() - 1
            }
        };
        let entry = &mut rows[at];
        entry.fetches += 1;
        entry
            .claimed
            .insert(findings.crawlers[fetch.claimed].as_str());
        if entry.ptr.is_none() {
            entry.ptr = fetch.ptr.as_deref();
        }
        if fetch.time.instant_ms() < entry.first.instant_ms() {
            entry.first = &fetch.time;
        }
        if fetch.time.instant_ms() >= entry.last.instant_ms() {
            entry.last = &fetch.time;
        }
    }
    rows.sort_by(|a, b| {
        b.fetches
            .cmp(&a.fetches)
            .then(a.first.instant_ms().cmp(&b.first.instant_ms()))
            .then(a.client.cmp(&b.client))
    });
    let mut out = stream(out);
    out.write_record(IMPOSTOR_ADDRESSES).map_err(io_error)?;
    for row in &rows {
        let claimed: Vec<&str> = row.claimed.iter().copied().collect();
        let record: [Cow<'_, [u8]>; 7] = [
            Cow::Borrowed(row.client.as_bytes()),
            Cow::Owned(claimed.join("|").into_bytes()),
            Cow::Owned(row.fetches.to_string().into_bytes()),
            log(row.ptr.unwrap_or("").as_bytes()),
            Cow::Borrowed(row.reason.as_bytes()),
            Cow::Owned(row.first.rfc3339().into_bytes()),
            Cow::Owned(row.last.rfc3339().into_bytes()),
        ];
        out.write_record(&record).map_err(io_error)?;
    }
    out.flush()
}
