//! The tables of SPEC §7 a webmaster acts on: `rules.csv`, one row per
//! robots.txt rule that decided a violation, and `impostor-addresses.csv`,
//! one row per address that pretended to be a crawler, ready for a
//! firewall. Takes the sorted findings; gives the rows (which `report.html`
//! shows too, so its numbers are the CSVs') and the two CSV files.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::io;

use super::Findings;
use super::columns::{IMPOSTOR_ADDRESSES, RULES, io_error, stream};
use super::escape::Escaping;
use super::html::{AddressLine, RuleLine};
use crate::accesslog::time::Timestamp;
use crate::crawler::{Client, parse_client};

/// One rule's violations while they are counted: a rule is
/// (robots_version, rule_line, kind).
struct RuleRow<'a> {
    robots_version: &'a str,
    rule_line: usize,
    rule: &'a str,
    group: &'a str,
    kind: &'static str,
    violations: u64,
    informing: u64,
    targets: BTreeSet<&'a [u8]>,
    crawlers: BTreeSet<&'a str>,
    first: &'a Timestamp,
    last: &'a Timestamp,
}

/// Text as a field of the report holds it: escaped as `escaping` says.
fn text(escaping: Escaping, bytes: &[u8]) -> String {
    String::from_utf8_lossy(&escaping.apply(bytes)).into_owned()
}

/// SPEC §7 `rules.csv` rows: every rule that decided a row (informing rows
/// included, and counted apart in `informing`), most violations first,
/// ties by first_time, then robots_version, then rule_line. Rule and group
/// text is written as `escaping` says.
pub fn rule_lines(findings: &Findings<'_>, escaping: Escaping) -> Vec<RuleLine> {
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
                informing: 0,
                targets: BTreeSet::new(),
                crawlers: BTreeSet::new(),
                first: &fetch.time,
                last: &fetch.time,
            });
            rows.len() - 1
        });
        let entry = &mut rows[at];
        entry.violations += 1;
        if !row.accuses() {
            entry.informing += 1;
        }
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
    rows.into_iter()
        .map(|row| RuleLine {
            robots_version: row.robots_version.to_string(),
            rule_line: row.rule_line,
            rule: text(escaping, row.rule.as_bytes()),
            group: text(escaping, row.group.as_bytes()),
            kind: row.kind.to_string(),
            violations: row.violations,
            informing: row.informing,
            distinct_targets: row.targets.len() as u64,
            crawlers: row.crawlers.into_iter().collect::<Vec<_>>().join("|"),
            first_time: row.first.rfc3339(),
            last_time: row.last.rfc3339(),
        })
        .collect()
}

/// SPEC §7 `rules.csv`.
pub fn write_rules(findings: &Findings<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let mut out = stream(out);
    out.write_record(RULES).map_err(io_error)?;
    for row in rule_lines(findings, findings.escaping) {
        let record: [Cow<'_, str>; 10] = [
            Cow::Borrowed(&row.robots_version),
            Cow::Owned(line_text(row.rule_line)),
            Cow::Borrowed(&row.rule),
            Cow::Borrowed(&row.group),
            Cow::Borrowed(&row.kind),
            Cow::Owned(row.violations.to_string()),
            Cow::Owned(row.distinct_targets.to_string()),
            Cow::Borrowed(&row.crawlers),
            Cow::Borrowed(&row.first_time),
            Cow::Borrowed(&row.last_time),
        ];
        out.write_record(record.iter().map(|f| f.as_bytes()))
            .map_err(io_error)?;
    }
    out.flush()
}

/// A rule line as the reports write it: empty when there is none.
pub fn line_text(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        line.to_string()
    }
}

/// One spoofing address while its fetches are counted.
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

/// SPEC §7 `impostor-addresses.csv` rows: one per spoofing address, most
/// fetches first, ties by first_time, then the address. Log text is
/// written as `escaping` says.
pub fn address_lines(findings: &Findings<'_>, escaping: Escaping) -> Vec<AddressLine> {
    let mut rows: Vec<AddressRow<'_>> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    for fetch in findings.impostors {
        let client = canonical(&fetch.client).into_owned();
        let at = match index.get(&client) {
            Some(&at) => at,
            None => {
                rows.push(AddressRow {
                    client: text(escaping, &client),
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
    rows.into_iter()
        .map(|row| AddressLine {
            client: row.client,
            claimed_crawlers: row.claimed.into_iter().collect::<Vec<_>>().join("|"),
            fetches: row.fetches,
            ptr: text(escaping, row.ptr.unwrap_or("").as_bytes()),
            reason: row.reason.to_string(),
            first_time: row.first.rfc3339(),
            last_time: row.last.rfc3339(),
        })
        .collect()
}

/// SPEC §7 `impostor-addresses.csv`.
pub fn write_impostor_addresses(
    findings: &Findings<'_>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut out = stream(out);
    out.write_record(IMPOSTOR_ADDRESSES).map_err(io_error)?;
    for row in address_lines(findings, findings.escaping) {
        let record: [Cow<'_, str>; 7] = [
            Cow::Borrowed(&row.client),
            Cow::Borrowed(&row.claimed_crawlers),
            Cow::Owned(row.fetches.to_string()),
            Cow::Borrowed(&row.ptr),
            Cow::Borrowed(&row.reason),
            Cow::Borrowed(&row.first_time),
            Cow::Borrowed(&row.last_time),
        ];
        out.write_record(record.iter().map(|f| f.as_bytes()))
            .map_err(io_error)?;
    }
    out.flush()
}
