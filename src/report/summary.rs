//! `summary.csv` (SPEC §5) and the short human summary for standard error:
//! per crawler and kind, how many fetches, violations and distinct targets,
//! and the first and last violating fetch.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::io;

use super::Findings;
use super::columns::{SUMMARY, io_error};
use super::skipped::count;
use crate::audit::{Kind, Violation};
use crate::crawler::verify::Verification;

/// What the run saw, beyond the findings, for the human summary.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub lines: u64,
    pub skipped: u64,
    /// JSON lines that are no request (Caddy's runtime messages): neither
    /// skipped nor fetches (SPEC §1).
    pub not_requests: u64,
    pub dns_failures: u64,
    pub outside_period: u64,
}

/// One summary row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub crawler: String,
    pub kind: Kind,
    pub fetches: u64,
    pub violations: u64,
    pub distinct_targets: u64,
    pub first_time: String,
    pub last_time: String,
}

/// Summary rows: crawlers with a counted fetch in name order, each with
/// one row per kind in the kinds' string order.
pub fn lines(findings: &Findings<'_>) -> Vec<Line> {
    let mut fetches: BTreeMap<&str, u64> = BTreeMap::new();
    for fetch in findings.fetches {
        *fetches
            .entry(findings.crawlers[fetch.crawler].as_str())
            .or_default() += 1;
    }
    let mut out = Vec::new();
    for (&crawler, &count) in &fetches {
        for kind in Kind::ALL {
            let rows: Vec<&Violation> = findings
                .violations
                .iter()
                .filter(|v| {
                    v.kind == kind
                        && findings.crawlers[findings.fetches[v.fetch].crawler] == crawler
                })
                .collect();
            let targets: HashSet<&[u8]> = rows
                .iter()
                .map(|v| findings.fetches[v.fetch].target.as_slice())
                .collect();
            let time = |v: Option<&&Violation>| {
                v.map(|v| findings.fetches[v.fetch].time.rfc3339())
                    .unwrap_or_default()
            };
            out.push(Line {
                crawler: crawler.to_string(),
                kind,
                fetches: count,
                violations: rows.len() as u64,
                distinct_targets: targets.len() as u64,
                first_time: time(rows.first()),
                last_time: time(rows.last()),
            });
        }
    }
    out
}

pub fn write_summary(findings: &Findings<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    out.write_record(SUMMARY).map_err(io_error)?;
    for line in lines(findings) {
        out.write_record([
            line.crawler,
            line.kind.as_str().to_string(),
            line.fetches.to_string(),
            line.violations.to_string(),
            line.distinct_targets.to_string(),
            line.first_time,
            line.last_time,
        ])
        .map_err(io_error)?;
    }
    out.flush()
}

/// A few lines for a person reading the cron mail.
pub fn human(findings: &Findings<'_>, totals: &Totals) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "robots-audit: {} read, {} skipped, {}{}, {}, {}",
        count(totals.lines, "line", "lines"),
        totals.skipped,
        if totals.not_requests > 0 {
            format!("{} no request (server messages), ", totals.not_requests)
        } else {
            String::new()
        },
        count(
            findings.fetches.len() as u64,
            "crawler fetch",
            "crawler fetches"
        ),
        count(findings.violations.len() as u64, "violation", "violations"),
        count(
            findings.impostors.len() as u64,
            "impostor fetch",
            "impostor fetches"
        ),
    );
    let lines = lines(findings);
    for crawler in lines
        .iter()
        .map(|l| &l.crawler)
        .collect::<std::collections::BTreeSet<_>>()
    {
        let mine: Vec<_> = findings
            .fetches
            .iter()
            .filter(|f| &findings.crawlers[f.crawler] == crawler)
            .collect();
        // Every level, so the share the report can vouch for is plain.
        let levels: Vec<String> = [
            Verification::Verified,
            Verification::PtrOnly,
            Verification::Unverified,
        ]
        .iter()
        .map(|level| {
            let count = mine.iter().filter(|f| f.verification == *level).count();
            format!("{count} {}", level.as_str())
        })
        .collect();
        let by_kind: Vec<String> = lines
            .iter()
            .filter(|l| &l.crawler == crawler)
            .map(|l| format!("{} {}", l.violations, l.kind.as_str()))
            .collect();
        let _ = writeln!(
            text,
            "  {crawler}: {} ({}); violations: {}",
            count(mine.len() as u64, "fetch", "fetches"),
            levels.join(", "),
            by_kind.join(", ")
        );
    }
    let mut rules: BTreeMap<(usize, &str), u64> = BTreeMap::new();
    for v in findings.violations {
        *rules.entry((v.rule_line, v.rule)).or_default() += 1;
    }
    let mut top: Vec<_> = rules.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if !top.is_empty() {
        let _ = writeln!(text, "  most broken rules:");
    }
    for ((line, rule), n) in top.into_iter().take(5) {
        // Standard error is often a terminal, and robots.txt may be a
        // stranger's text too: escaped as the CSV escapes it.
        let rule = super::escape::escape(rule.as_bytes());
        let _ = writeln!(
            text,
            "    line {line}: {rule} ({})",
            count(n, "violation", "violations")
        );
    }
    if totals.outside_period > 0 {
        let _ = writeln!(
            text,
            "  {} outside --since/--until",
            count(totals.outside_period, "crawler fetch", "crawler fetches")
        );
    }
    if totals.dns_failures > 0 {
        let _ = writeln!(
            text,
            "  {} could not be checked in DNS (left unverified)",
            count(totals.dns_failures, "address", "addresses")
        );
    }
    text
}
