//! Fills a [`Page`] from the run: the findings, the run's health and the
//! robots.txt. Every count here is gathered in one pass over the fetches,
//! the rows and the impostor fetches, each in SPEC §5 order, so the same
//! fills can be fed by a pipeline that streams rows instead of keeping
//! them. Memory is bounded by minutes × crawlers (the per-minute series),
//! the rules and robots.txt lines, the addresses, and — for "targets fetched
//! most against a rule" — one counter per distinct (rule, target) pair
//! among the accusing rows.

use std::collections::{BTreeMap, HashMap};

use super::{
    Allowance, CrawlerVerdict, Dns, FileHealth, Health, Night, Page, RobotsLine, RobotsText,
    TargetLine, Traffic,
};
use crate::accesslog::Skip;
use crate::audit::{Kind, Policy};
use crate::crawler::verify::Verification;
use crate::report::escape::{Escaping, escape};
use crate::report::{Findings, run, tables};
use crate::robots::parse::written_lines;

/// What the page shows beyond the findings and the health.
pub struct Sources<'a> {
    /// The robots.txt as read, and its `robots_version`.
    pub robots_bytes: &'a [u8],
    pub robots_version: &'a str,
    /// The Request-rate lines each crawler obeys, by crawler index.
    pub allowed: &'a [Vec<Allowance>],
    /// The offset Request-rate windows are read in (`--window-tz`), in
    /// minutes east of UTC.
    pub window_offset_min: i16,
    /// The last nights, when a state holds them.
    pub trend: Option<Vec<Night>>,
}

/// The Request-rate lines a crawler's merged groups hold, with its floor
/// where the floor raises them.
pub fn allowances(policy: &Policy<'_>) -> Vec<Allowance> {
    policy
        .rules
        .request_rates()
        .iter()
        .filter_map(|line| {
            let rate = line.rate.as_ref()?;
            let floor = policy
                .rate_floor
                .and_then(|(n, secs)| rate.floored(n, secs))
                .map(|f| (f.requests, f.period_secs));
            Some(Allowance {
                text: line.text.clone(),
                rule_line: line.line,
                requests: rate.requests,
                period_secs: rate.period_secs,
                window: rate.window.map(|w| (w.start_min, w.end_min)),
                floor,
            })
        })
        .collect()
}

/// The minute an instant falls in, as minutes since the epoch.
fn minute(instant_ms: i64) -> i64 {
    instant_ms.div_euclid(60_000)
}

/// The page for this run.
pub fn build(findings: &Findings<'_>, health: &run::Health<'_>, sources: &Sources<'_>) -> Page {
    // The page always escapes log text, whatever `--raw-csv` says of the
    // CSVs: it is read in a browser, never read back.
    let escaping = Escaping::Safe;
    let crawlers = findings.crawlers.len();
    let mut verdicts: Vec<CrawlerVerdict> = findings
        .crawlers
        .iter()
        .map(|name| CrawlerVerdict {
            crawler: name.clone(),
            ..CrawlerVerdict::default()
        })
        .collect();
    let mut per_minute: Vec<BTreeMap<i64, u32>> = vec![BTreeMap::new(); crawlers];
    let mut accused_per_minute: Vec<BTreeMap<i64, u32>> = vec![BTreeMap::new(); crawlers];

    for fetch in findings.fetches {
        let verdict = &mut verdicts[fetch.crawler];
        verdict.fetches += 1;
        let level = match fetch.verification {
            Verification::Verified => 0,
            Verification::PtrOnly => 1,
            // A spoofed fetch is an impostor's and never reaches here.
            Verification::Unverified | Verification::Spoofed => 2,
        };
        verdict.verification[level] += 1;
        *per_minute[fetch.crawler]
            .entry(minute(fetch.time.instant_ms()))
            .or_default() += 1;
    }

    // Per robots.txt line (of the version in force) the rows it decided;
    // per (rule, target) the accusing rows.
    let mut by_line: HashMap<(&str, usize), (u64, u64)> = HashMap::new();
    let mut by_target: HashMap<(usize, &str, Kind, &[u8]), u64> = HashMap::new();
    for row in findings.violations {
        let fetch = &findings.fetches[row.fetch];
        let kind = Kind::ALL.iter().position(|k| *k == row.kind).unwrap_or(0);
        let verdict = &mut verdicts[fetch.crawler];
        let counts = by_line
            .entry((row.robots_version, row.rule_line))
            .or_default();
        if row.accuses() {
            verdict.violations[kind] += 1;
            counts.0 += 1;
            *accused_per_minute[fetch.crawler]
                .entry(minute(fetch.time.instant_ms()))
                .or_default() += 1;
            *by_target
                .entry((row.rule_line, row.rule, row.kind, &fetch.target))
                .or_default() += 1;
        } else {
            verdict.informing[kind] += 1;
            counts.1 += 1;
        }
    }
    for impostor in findings.impostors {
        verdicts[impostor.claimed].impostor_fetches += 1;
    }

    let mut targets: Vec<TargetLine> = by_target
        .into_iter()
        .map(|((rule_line, rule, kind, target), count)| TargetLine {
            target: String::from_utf8_lossy(&escaping.apply(target)).into_owned(),
            rule_line,
            rule: String::from_utf8_lossy(&escaping.apply(rule.as_bytes())).into_owned(),
            kind: kind.as_str().to_string(),
            violations: count,
        })
        .collect();
    // Most first; the rest only so that the order never depends on a hash.
    targets.sort_by(|a, b| {
        b.violations
            .cmp(&a.violations)
            .then(a.rule_line.cmp(&b.rule_line))
            .then(a.kind.cmp(&b.kind))
            .then(a.target.cmp(&b.target))
    });

    let robots = RobotsText {
        robots_version: sources.robots_version.to_string(),
        lines: written_lines(sources.robots_bytes)
            .map(|(number, text)| {
                let (accusing, informing) = by_line
                    .get(&(sources.robots_version, number))
                    .copied()
                    .unwrap_or_default();
                RobotsLine {
                    number,
                    text: escape(text).into_owned(),
                    accusing,
                    informing,
                }
            })
            .collect(),
    };

    let mut charts: Vec<Traffic> = Vec::new();
    for (index, verdict) in verdicts.iter().enumerate() {
        if verdict.fetches == 0 {
            continue;
        }
        charts.push(Traffic {
            crawler: verdict.crawler.clone(),
            fetches: std::mem::take(&mut per_minute[index]),
            violations: std::mem::take(&mut accused_per_minute[index]),
            allowed: sources.allowed.get(index).cloned().unwrap_or_default(),
        });
    }
    charts.sort_by(|a, b| a.crawler.cmp(&b.crawler));
    // A crawler with nothing to say is left out of the verdict, as
    // summary.csv leaves it out; one that was only impersonated stays.
    verdicts.retain(|v| v.fetches > 0 || v.impostor_fetches > 0);
    verdicts.sort_by(|a, b| a.crawler.cmp(&b.crawler));

    // The period the lines cover, as run.json and the mail say it.
    let first = findings.fetches.first().map(|f| &f.time);
    let (first_time, last_time) = period(health);
    Page {
        first_time,
        last_time,
        offset_min: first.map_or(0, |t| t.offset_min),
        window_offset_min: sources.window_offset_min,
        exit_status: health.exit_status,
        crawlers: verdicts,
        health: health_of(findings, health, escaping),
        charts,
        rules: tables::rule_lines(findings, escaping),
        targets,
        impostors: tables::address_lines(findings, escaping),
        robots: vec![robots],
        trend: sources.trend.clone(),
    }
}

/// The period the lines cover: the earliest and latest line that parsed.
fn period(health: &run::Health<'_>) -> (Option<String>, Option<String>) {
    let first = health
        .tallies
        .values()
        .filter_map(|t| t.first_time)
        .min_by_key(|t| t.instant_ms());
    let last = health
        .tallies
        .values()
        .filter_map(|t| t.last_time)
        .max_by_key(|t| t.instant_ms());
    (first.map(|t| t.rfc3339()), last.map(|t| t.rfc3339()))
}

fn health_of(findings: &Findings<'_>, health: &run::Health<'_>, escaping: Escaping) -> Health {
    let mut skipped = [0u64; Skip::ALL.len()];
    let mut files = Vec::new();
    let (mut lines_read, mut lines_skipped) = (0, 0);
    for (index, path) in findings.files.iter().enumerate() {
        let tally = health.tallies.get(&index).copied().unwrap_or_default();
        lines_read += tally.lines;
        lines_skipped += tally.skipped;
        for (sum, count) in skipped.iter_mut().zip(tally.reasons) {
            *sum += count;
        }
        files.push(FileHealth {
            file: String::from_utf8_lossy(&escaping.apply(path.as_os_str().as_encoded_bytes()))
                .into_owned(),
            format: health.format.to_string(),
            lines_read: tally.lines,
            lines_skipped: tally.skipped,
            error: health.errors.get(&index).cloned(),
        });
    }
    Health {
        lines_read,
        lines_skipped,
        skipped: Skip::ALL
            .iter()
            .zip(skipped)
            .filter(|(_, n)| *n > 0)
            .map(|(skip, n)| (skip.reason().to_string(), n))
            .collect(),
        files,
        dns: Dns {
            asked: health.dns_asked,
            failures: health.dns_failures,
            resolver_unusable: health.dns_unusable,
        },
        robots_versions: health.robots_versions.to_vec(),
        excused_by_cache_grace: 0,
    }
}
