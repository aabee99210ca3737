//! `summary.csv` (SPEC §5) and the short human summary for standard error:
//! per crawler and kind, how many fetches, violations and distinct targets,
//! and the first and last violating fetch.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;

use super::Names;
use super::columns::{SUMMARY, io_error};
use super::digest::{CrawlerTotals, Digest, LEVELS};
use super::skipped::count;
use crate::accesslog::time::Timestamp;
use crate::audit::Kind;

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
    /// Crawler fetches of other virtual hosts than `--host` names.
    pub other_hosts: u64,
    /// Sorted runs of fetches written to disk to stay within `--memory`.
    pub spilled_runs: usize,
}

/// One summary row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRow {
    pub crawler: String,
    pub kind: Kind,
    pub fetches: u64,
    pub violations: u64,
    pub distinct_targets: u64,
    pub first_time: String,
    pub last_time: String,
}

/// Every crawler with a counted fetch and its totals, in name order.
fn counted_crawlers<'d>(
    digest: &'d Digest<'_>,
    names: &Names<'d>,
) -> Vec<(&'d str, &'d CrawlerTotals)> {
    let mut crawlers: Vec<(&str, &CrawlerTotals)> = digest
        .crawlers
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((names.crawlers[i].as_str(), t.as_ref()?)))
        .collect();
    crawlers.sort_by_key(|(name, _)| *name);
    crawlers
}

/// The rows of `summary.csv`: every crawler with a counted fetch, in name
/// order, each with a row for every kind.
pub fn rows(digest: &Digest<'_>, names: &Names<'_>) -> Vec<SummaryRow> {
    let crawlers = counted_crawlers(digest, names);
    let mut out = Vec::new();
    for (crawler, totals) in crawlers {
        for (kind, of_kind) in Kind::ALL.iter().zip(&totals.kinds) {
            let time = |t: Option<Timestamp>| t.map(|t| t.rfc3339()).unwrap_or_default();
            out.push(SummaryRow {
                crawler: crawler.to_string(),
                kind: *kind,
                fetches: totals.fetches,
                violations: of_kind.violations,
                distinct_targets: of_kind.distinct_targets,
                first_time: time(of_kind.first),
                last_time: time(of_kind.last),
            });
        }
    }
    out
}

pub fn write_summary(
    digest: &Digest<'_>,
    names: &Names<'_>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    out.write_record(SUMMARY).map_err(io_error)?;
    for line in rows(digest, names) {
        // A `--profiles` name may start a formula (`=EVIL`): guarded as
        // log text is.
        let crawler = names.escaping.apply(line.crawler.as_bytes()).into_owned();
        out.write_record([
            crawler,
            line.kind.as_str().as_bytes().to_vec(),
            line.fetches.to_string().into_bytes(),
            line.violations.to_string().into_bytes(),
            line.distinct_targets.to_string().into_bytes(),
            line.first_time.into_bytes(),
            line.last_time.into_bytes(),
        ])
        .map_err(io_error)?;
    }
    out.flush()
}

/// The short summary for standard error: totals, each crawler's fetches by
/// verification level and rows by kind, and the rules broken most.
pub fn human(digest: &Digest<'_>, names: &Names<'_>, totals: &Totals) -> String {
    let mut text = String::new();
    let fetches: u64 = digest.crawlers.iter().flatten().map(|c| c.fetches).sum();
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
        count(fetches, "crawler fetch", "crawler fetches"),
        // Rows whose note only informs are no violation (SPEC §5, §7):
        // counted apart, as `summary` and report.html count them.
        if digest.violations > digest.accusing {
            format!(
                "{} ({} apart)",
                count(digest.accusing, "violation", "violations"),
                count(
                    digest.violations - digest.accusing,
                    "informing row",
                    "informing rows"
                )
            )
        } else {
            count(digest.accusing, "violation", "violations")
        },
        count(
            digest.impostor_fetches,
            "impostor fetch",
            "impostor fetches"
        ),
    );
    let crawlers = counted_crawlers(digest, names);
    for (crawler, totals) in crawlers {
        let levels: Vec<String> = LEVELS
            .iter()
            .zip(totals.levels)
            .map(|(level, n)| format!("{n} {}", level.as_str()))
            .collect();
        let by_kind: Vec<String> = Kind::ALL
            .iter()
            .zip(&totals.kinds)
            .map(|(kind, k)| format!("{} {}", k.violations - k.informing, kind.as_str()))
            .collect();
        let informing: Vec<String> = Kind::ALL
            .iter()
            .zip(&totals.kinds)
            .filter(|(_, k)| k.informing > 0)
            .map(|(kind, k)| format!("{} {}", k.informing, kind.as_str()))
            .collect();
        let _ = writeln!(
            text,
            "  {crawler}: {} ({}); violations: {}{}",
            count(totals.fetches, "fetch", "fetches"),
            levels.join(", "),
            by_kind.join(", "),
            if informing.is_empty() {
                String::new()
            } else {
                format!("; informing: {}", informing.join(", "))
            }
        );
    }
    // The same rule line may decide rows of several versions or kinds:
    // counted together here, as the line a webmaster would edit.
    let mut rules: BTreeMap<(usize, &str), u64> = BTreeMap::new();
    for rule in digest.rules_for_mail() {
        *rules
            .entry((rule.rule_line, rule.rule.as_str()))
            .or_default() += rule.violations - rule.informing;
    }
    rules.retain(|_, accusing| *accusing > 0);
    let mut top: Vec<_> = rules.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if !top.is_empty() {
        let _ = writeln!(text, "  most broken rules:");
    }
    for ((line, rule), n) in top.into_iter().take(5) {
        // The rule text keeps its bytes as `text::name_text` does: back to
        // them, then escaped as the reports write them (not twice).
        let bytes = super::escape::name_bytes(rule);
        let rule = super::escape::escape(&bytes);
        // A robots-unreachable row has no line (SPEC §6).
        let place = if line == 0 {
            String::new()
        } else {
            format!("line {line}: ")
        };
        let _ = writeln!(
            text,
            "    {place}{rule} ({})",
            count(n, "violation", "violations")
        );
    }
    if totals.outside_period > 0 {
        let _ = writeln!(
            text,
            "  {} outside --since/--until",
            count(
                totals.outside_period,
                "fetch claiming a crawler",
                "fetches claiming a crawler"
            )
        );
    }
    if totals.other_hosts > 0 {
        let _ = writeln!(
            text,
            "  {} of other hosts than --host left out",
            count(totals.other_hosts, "crawler fetch", "crawler fetches")
        );
    }
    if totals.spilled_runs > 0 {
        let _ = writeln!(
            text,
            "  crawler fetches sorted in {} on disk to stay within --memory",
            count(totals.spilled_runs as u64, "run", "runs")
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
