//! `robots-audit summary DIR`: the short plain text the nightly cron mails
//! (SPEC §7 leaves its form to us; README "Nightly cron"). Takes an `--out`
//! directory a finished run wrote — `run.json`, `rules.csv`,
//! `impostor-addresses.csv`, and the notes of `violations.csv` — and gives the verdict per crawler, the rules
//! broken most, the impostor addresses, the run's health and where
//! `report.html` is. It reads the reports, not the logs, so it costs
//! nothing and says exactly what the reports say.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::accesslog::time_given::parse_rfc3339_or_date;
use crate::error::{Error, Position, Result};

use super::skipped::count;

/// Rules and addresses listed in the mail; the CSVs hold the rest.
pub const RULES_LISTED: usize = 5;
pub const ADDRESSES_LISTED: usize = 10;

/// A report file's reader, header included as its first record. Only a
/// regular file is read: a FIFO or a device put in DIR would hang the
/// mail or fill the memory (`/dev/zero`).
fn open_csv(path: &Path) -> Result<csv::Reader<std::fs::File>> {
    let (file, _) = crate::side_file::open_regular(path).map_err(|refusal| Error::Open {
        path: path.to_path_buf(),
        source: refusal.into_io(),
    })?;
    Ok(csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(file))
}

/// A report file's records as text. A `--raw-csv` report holds log bytes
/// as they were, which need not be UTF-8: such a byte is read as `\xNN`,
/// as the escaped reports write it, so the mail of a set the audit wrote
/// is never refused for it.
fn text_records(
    reader: &mut csv::Reader<std::fs::File>,
) -> impl Iterator<Item = std::result::Result<csv::StringRecord, csv::Error>> + '_ {
    reader.byte_records().map(|record| {
        record.map(|record| {
            record
                .iter()
                .map(|field| crate::text::escape_non_utf8(field).into_owned())
                .collect()
        })
    })
}

/// The header must name `columns`: a file of another kind, or cut short,
/// is no report to mail.
fn check_header(path: &Path, header: Option<&csv::StringRecord>, columns: &[&str]) -> Result<()> {
    for column in columns {
        if !header.is_some_and(|h| h.iter().any(|name| name == *column)) {
            return Err(format_error(
                path,
                format!("its header names no {column:?} column: not a robots-audit report"),
            ));
        }
    }
    Ok(())
}

/// A report file's rows, header first, its header naming `columns`.
fn read_csv(path: &Path, columns: &[&str]) -> Result<Vec<csv::StringRecord>> {
    let rows = text_records(&mut open_csv(path)?)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| format_error(path, e))?;
    check_header(path, rows.first(), columns)?;
    Ok(rows)
}

fn format_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        at: Position::File,
        cause: e.to_string(),
    }
}

/// Text from a report as the mail shows it: controls and bidi controls a
/// `--raw-csv` report may hold are written as `\u{NNNN}`, so no mail
/// reader or terminal runs them.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
            let _ = write!(out, "\\u{{{:04X}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// A rule as rules.csv and violations.csv both name it: its version,
/// line and kind, and for a rule of no line (`robots-unreachable`) its
/// text.
type RuleKey = (String, String, String, String);

fn rule_key(header: &csv::StringRecord, row: &csv::StringRecord) -> RuleKey {
    let line = field(header, row, "rule_line");
    (
        field(header, row, "robots_version").to_string(),
        line.to_string(),
        field(header, row, "kind").to_string(),
        if line.is_empty() {
            field(header, row, "rule").to_string()
        } else {
            String::new()
        },
    )
}

/// The rules of violations.csv with a row that accuses (its note is none
/// of the informing ones), with how many rows of each accuse, read a row
/// at a time: the file may be large.
fn accusing_rules(path: &Path) -> Result<std::collections::HashMap<RuleKey, u64>> {
    let mut reader = open_csv(path)?;
    let mut records = text_records(&mut reader);
    let header = records
        .next()
        .transpose()
        .map_err(|e| format_error(path, e))?;
    check_header(
        path,
        header.as_ref(),
        &["robots_version", "rule_line", "kind", "rule", "note"],
    )?;
    let header = header.unwrap_or_default();
    let mut accusing = std::collections::HashMap::new();
    for row in records {
        let row = row.map_err(|e| format_error(path, e))?;
        if !crate::audit::INFORMING_NOTES.contains(&field(&header, &row, "note")) {
            *accusing.entry(rule_key(&header, &row)).or_insert(0) += 1;
        }
    }
    Ok(accusing)
}

/// A row's field by header name; empty when missing.
fn field<'a>(header: &csv::StringRecord, row: &'a csv::StringRecord, name: &str) -> &'a str {
    header
        .iter()
        .position(|h| h == name)
        .and_then(|i| row.get(i))
        .unwrap_or("")
}

fn number(value: &Value) -> u64 {
    value.as_u64().unwrap_or(0)
}

/// One crawler's line of the mail.
#[derive(Default)]
struct Verdict {
    fetches: u64,
    /// (kind, accusing rows), in run.json's order.
    kinds: Vec<(String, u64)>,
    informing: u64,
}

/// The summary of the reports in `dir`.
pub fn summary(dir: &Path) -> Result<String> {
    let run_path = dir.join("run.json");
    // A side file's rule: a regular file of at most 16 MiB (a run.json
    // is a few kilobytes), never a FIFO to wait on.
    let (bytes, _) = crate::side_file::read(&run_path).map_err(|refusal| Error::Open {
        path: run_path.clone(),
        source: refusal.into_io(),
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let run: Value = serde_json::from_str(&text).map_err(|e| format_error(&run_path, e))?;
    // A run.json without what every run writes is no report of this tool
    // (or one cut short): read as zeros it would mail a clean night.
    for (key, holds) in [
        ("exit_status", run["exit_status"].is_u64()),
        ("files", run["files"].is_array()),
        ("counts", run["counts"].is_array()),
        ("impostor_fetches", run["impostor_fetches"].is_u64()),
    ] {
        if !holds {
            return Err(format_error(
                &run_path,
                format!("it holds no {key:?} as robots-audit writes it: not a run's report"),
            ));
        }
    }
    let rules = read_csv(
        &dir.join("rules.csv"),
        &[
            "rule_line",
            "rule",
            "kind",
            "violations",
            "distinct_targets",
            "crawlers",
        ],
    )?;
    let addresses = read_csv(
        &dir.join("impostor-addresses.csv"),
        &["client", "claimed_crawlers", "fetches", "ptr", "reason"],
    )?;
    let accusing = accusing_rules(&dir.join("violations.csv"))?;
    let mut out = String::new();
    // A report written without --raw-csv puts a `'` before any field that
    // starts like a formula (or with `'`), for spreadsheets: the mail is
    // no spreadsheet, and shows the value.
    let raw = run["arguments"]
        .as_array()
        .is_some_and(|args| args.iter().any(|a| a == "--raw-csv"));
    let unguarded = |text: &'_ str| -> String {
        match text.strip_prefix('\'') {
            Some(value) if !raw => value.to_string(),
            _ => text.to_string(),
        }
    };

    let files = run["files"].as_array().cloned().unwrap_or_default();
    // Compared as instants: files of several servers or either side of a
    // DST change write different offsets.
    let instant = |text: &&str| parse_rfc3339_or_date(text).map(|t| t.instant_ms());
    let first = files
        .iter()
        .filter_map(|f| f["first_time"].as_str())
        .filter(|t| instant(t).is_some())
        .min_by_key(instant);
    let last = files
        .iter()
        .filter_map(|f| f["last_time"].as_str())
        .filter(|t| instant(t).is_some())
        .max_by_key(instant);
    let status = number(&run["exit_status"]);
    let left_out = &run["crawler_fetches_left_out"];
    let (outside, other_hosts) = (
        number(&left_out["outside_since_until"]),
        number(&left_out["other_hosts"]),
    );
    let audited: u64 = run["counts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["kind"] == "disallow")
        .map(|c| number(&c["fetches"]))
        .sum();
    let _ = writeln!(
        out,
        "robots-audit {}: {}",
        match (first, last) {
            (Some(first), Some(last)) => format!("{first} to {last}"),
            _ => "no dated line".to_string(),
        },
        match status {
            // Nothing audited is no clean night (SPEC §1).
            0 if audited == 0 && outside + other_hosts > 0 => {
                "no crawler fetch audited: fetches claiming a crawler were left out by \
                 --since/--until or --host (exit 0)"
            }
            // Every line audited on a night before (the same night run
            // again): that night's reports hold its rows.
            0 if files.iter().all(|f| number(&f["lines_read"]) == 0)
                && files.iter().any(|f| number(&f["already_audited"]) > 0) =>
            {
                "no new line: every line of the logs given was audited on a night before \
                 (exit 0)"
            }
            0 => "no crawler broke robots.txt (exit 0)",
            1 => "violations found (exit 1)",
            _ => "the run could not be done whole (exit 2)",
        }
    );
    if outside > 0 {
        let _ = writeln!(
            out,
            "  {outside} fetches claiming a crawler outside --since/--until, in no report"
        );
    }
    if other_hosts > 0 {
        let _ = writeln!(
            out,
            "  {other_hosts} crawler fetches of other hosts than --host, in no report"
        );
    }

    // Verdict per crawler, from run.json's counts.
    let mut crawlers: BTreeMap<String, Verdict> = BTreeMap::new();
    for count in run["counts"].as_array().into_iter().flatten() {
        let entry = crawlers
            .entry(plain(count["crawler"].as_str().unwrap_or("")))
            .or_default();
        entry.fetches = number(&count["fetches"]);
        let informing = number(&count["informing"]);
        let accusing = number(&count["violations"]).saturating_sub(informing);
        entry
            .kinds
            .push((plain(count["kind"].as_str().unwrap_or("")), accusing));
        entry.informing += informing;
    }
    let _ = writeln!(out, "\nVerdict per crawler");
    if crawlers.is_empty() {
        let _ = writeln!(out, "  no crawler fetch");
    }
    for (crawler, verdict) in &crawlers {
        let (fetches, informing) = (verdict.fetches, verdict.informing);
        let total: u64 = verdict.kinds.iter().map(|(_, n)| n).sum();
        let by_kind: Vec<String> = verdict
            .kinds
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        let _ = write!(out, "  {crawler}: {fetches} fetches, {total} violations");
        if !by_kind.is_empty() {
            let _ = write!(out, " ({})", by_kind.join(", "));
        }
        if informing > 0 {
            let _ = write!(out, "; {informing} informing rows");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "  impostor fetches: {} from {} addresses",
        number(&run["impostor_fetches"]),
        addresses.len().saturating_sub(1)
    );

    if let Some((header, rows)) = rules.split_first() {
        // A rule none of whose rows accuses (a Crawl-delay Seznam does
        // not read, Seznam's home page under `Disallow: /`) is listed
        // apart, after the rules broken: it is no accusation (SPEC §3,
        // §7). violations.csv's notes tell, row by row.
        let accusing_rows = |row: &csv::StringRecord| accusing.get(&rule_key(header, row)).copied();
        let (informing, mut broken): (Vec<_>, Vec<_>) =
            rows.iter().partition(|row| accusing_rows(row).is_none());
        // Ranked by the rows that accuse: a rule's informing rows (Seznam's
        // home page under `Disallow: /`) are no violations (SPEC §7).
        broken.sort_by_key(|row| std::cmp::Reverse(accusing_rows(row).unwrap_or(0)));
        for (title, listed) in [
            ("Rules broken most", broken),
            ("Rules whose rows only inform (no accusation)", informing),
        ] {
            if listed.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title}");
            // A rule is of its version (SPEC §7): the same line of two
            // versions is two rules, told apart by the version when the
            // list holds more than one.
            let versions: std::collections::BTreeSet<&str> = listed
                .iter()
                .take(RULES_LISTED)
                .map(|row| field(header, row, "robots_version"))
                .collect();
            for row in listed.iter().take(RULES_LISTED) {
                let line = field(header, row, "rule_line");
                let all: u64 = field(header, row, "violations").parse().unwrap_or(0);
                let (shown, informing) = match accusing_rows(row) {
                    Some(accusing) => (accusing, all.saturating_sub(accusing)),
                    None => (all, 0),
                };
                // rules.csv's distinct targets are of all the rule's
                // rows: beside a count of accusing rows alone, said so.
                let (targets_of, mut apart) = if informing > 0 {
                    (
                        " in all its rows",
                        format!("; and {informing} informing rows"),
                    )
                } else {
                    ("", String::new())
                };
                let version = field(header, row, "robots_version");
                if versions.len() > 1 && !version.is_empty() {
                    apart.push_str(&format!("; robots.txt version {}", plain(version)));
                }
                let _ = writeln!(
                    out,
                    "  {:>6}  {}{}  ({}; {}{targets_of}; {}{apart})",
                    shown,
                    if line.is_empty() {
                        String::new()
                    } else {
                        format!("line {line}: ")
                    },
                    plain(&unguarded(field(header, row, "rule"))),
                    field(header, row, "kind"),
                    count(
                        field(header, row, "distinct_targets").parse().unwrap_or(0),
                        "distinct target",
                        "distinct targets"
                    ),
                    plain(&unguarded(field(header, row, "crawlers"))),
                );
            }
            if listed.len() > RULES_LISTED {
                let _ = writeln!(out, "  … {} more in rules.csv", listed.len() - RULES_LISTED);
            }
        }
    }

    if let Some((header, rows)) = addresses.split_first()
        && !rows.is_empty()
    {
        let _ = writeln!(out, "\nImpostor addresses (block these)");
        for row in rows.iter().take(ADDRESSES_LISTED) {
            let ptr = unguarded(field(header, row, "ptr"));
            let _ = writeln!(
                out,
                "  {}  {} claiming {}, {}{}",
                plain(&unguarded(field(header, row, "client"))),
                count(
                    field(header, row, "fetches").parse().unwrap_or(0),
                    "fetch",
                    "fetches"
                ),
                plain(&unguarded(field(header, row, "claimed_crawlers"))),
                field(header, row, "reason"),
                if ptr.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", plain(&ptr))
                },
            );
        }
        if rows.len() > ADDRESSES_LISTED {
            let _ = writeln!(
                out,
                "  … {} more in impostor-addresses.csv",
                rows.len() - ADDRESSES_LISTED
            );
        }
    }

    let _ = writeln!(out, "\nHealth");
    for file in &files {
        let skipped: Vec<String> = file["skipped"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(reason, n)| format!("{} {}", plain(reason), number(n)))
            .collect();
        let _ = write!(
            out,
            "  {} ({}): {} read, {} skipped",
            plain(file["file"].as_str().unwrap_or("")),
            plain(file["format"].as_str().unwrap_or("")),
            count(number(&file["lines_read"]), "line", "lines"),
            number(&file["lines_skipped"]),
        );
        if !skipped.is_empty() {
            let _ = write!(out, " ({})", skipped.join(", "));
        }
        if file["already_audited"].as_u64().is_some_and(|n| n > 0) {
            let _ = write!(
                out,
                ", {} audited on an earlier night",
                number(&file["already_audited"])
            );
        }
        if let Some(error) = file["error"].as_str() {
            let _ = write!(out, "; NOT READ WHOLE: {}", plain(error));
        }
        out.push('\n');
    }
    if let Some(error) = run["state_error"].as_str() {
        let _ = writeln!(out, "  STATE NOT SAVED: {}", plain(error));
    }
    let dns = &run["dns"];
    let _ = writeln!(
        out,
        "  DNS: {}",
        if dns["resolver_unusable"].as_bool() == Some(true) {
            "no usable resolver; crawler fetches left unverified".to_string()
        } else if dns["asked"].as_bool() == Some(true) {
            let mut said = format!(
                "asked; {} addresses that could not be checked",
                number(&dns["failures"])
            );
            // Older run.json files have neither field: nothing is said.
            if dns["resolver_broken"].as_u64().is_some_and(|n| n > 0) {
                said.push_str(&format!(
                    "; THE RESOLVER LOOKS BROKEN ({} addresses inside a crawler's networks \
                     denied a name or an address, or named as no crawler they claim)",
                    number(&dns["resolver_broken"])
                ));
            }
            if dns["deadline_reached"].as_bool() == Some(true) {
                said.push_str("; stopped at --dns-deadline");
            }
            if dns["undecided_fetches"].as_u64().is_some_and(|n| n > 0) {
                said.push_str(&format!(
                    "; {} FETCHES FROM INSIDE A CRAWLER'S NETWORKS COULD NOT BE NAMED (their \
                     lookups failed: the night is incomplete, run again)",
                    number(&dns["undecided_fetches"])
                ));
            }
            said
        } else {
            "not asked (no --resolve)".to_string()
        }
    );
    let versions = run["robots_versions"]
        .as_array()
        .map_or(&[][..], |v| &v[..]);
    for version in versions {
        let dated = version["in_force_from"].as_str().map(plain);
        // The only version is in force for all time (SPEC §6): its date,
        // maybe after the night (a file edited since), judged nothing.
        let when = match (versions.len(), dated) {
            (1, Some(t)) => format!(", the only version, so in force all night (dated {t})"),
            (1, None) => ", the only version, so in force all night".to_string(),
            (_, Some(t)) => format!(", in force from {t}"),
            (_, None) => String::new(),
        };
        let _ = writeln!(
            out,
            "  robots.txt {}{when}",
            plain(version["robots_version"].as_str().unwrap_or("")),
        );
    }

    // The folder's name is the operator's, but may hold anything: written
    // as the rest of the mail, no control reaching the terminal.
    let page = report_path(dir);
    let page = crate::text::name_text(page.as_os_str().as_encoded_bytes());
    let _ = writeln!(out, "\nThe whole report: {}", plain(&page));
    Ok(out)
}

/// Where `report.html` is, as a path a mail reader can open: absolute
/// when the directory can be resolved.
fn report_path(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir)
        .unwrap_or_else(|_| dir.to_path_buf())
        .join("report.html")
}
