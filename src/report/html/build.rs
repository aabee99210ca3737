//! Fills a [`Page`] from the run as it streams: each counted fetch, each
//! row and each impostor fetch passes through a [`Gather`] once, in SPEC
//! §5 order, beside the `Digest` that the CSVs are written from; `build`
//! then takes both, with the run's health and the robots.txt versions.
//! Memory is bounded by days × crawlers (the per-minute series, at most
//! 5.6 KB a day used: `PerMinute`), the
//! robots.txt lines, and what the `Digest` holds (rules with their most
//! fetched targets, spoofing addresses); never by the fetches.

use std::collections::{BTreeMap, HashMap};

use super::clock::window_clock;
use super::render::RULES_SHOWN;
use super::{
    AddressLine, Allowance, CrawlerVerdict, Dns, FileHealth, Health, Night, Page, PerMinute,
    RobotsLine, RobotsText, RuleLine, TargetLine, Traffic,
};
use crate::accesslog::{Skip, Timestamp};
use crate::audit::{Counted, Impostor, Kind, Policy, Violation};
use crate::config::WindowTz;
use crate::crawler::verify::Verification;
use crate::report::digest::Digest;
use crate::report::escape::{Escaping, name_bytes};
use crate::report::tables::joined;
use crate::report::{Names, run};
use crate::robots::parse::{Directive, written_lines};

/// What the page shows beyond the run's totals and health.
pub struct Sources<'a> {
    /// Each robots.txt version judged: its bytes as read and its
    /// `robots_version`.
    pub robots: Vec<(&'a [u8], &'a str)>,
    /// When each of them is in force: from, until (UTC milliseconds, the
    /// end excluded), as `Allowance::in_force_ms`.
    pub in_force_ms: Vec<(i64, i64)>,
    /// Those of them (by index) that allowed a fetch the cache grace
    /// excused: used by the night though maybe in force only before it.
    pub excused_by: std::collections::BTreeSet<usize>,
    /// The Request-rate lines each crawler obeys, by crawler index, of
    /// every version judged, oldest first.
    pub allowed: &'a [Vec<Allowance>],
    /// The clock Request-rate windows are read in (`--window-tz`).
    pub window_tz: &'a WindowTz,
    /// Which count each crawler feeds, by crawler index (`Judge::count_of`).
    pub count_of: &'a [usize],
    /// The last nights, when a state holds them.
    pub trend: Option<Vec<Night>>,
}

/// The Request-rate lines a crawler's merged groups hold in robots.txt
/// `version` that apply at some time of day (one another line always wins
/// over is not what the crawler is allowed: SPEC §4, the first in the
/// file), in force over `in_force_ms` (`Allowance::in_force_ms`), with
/// its floor where the floor raises them.
pub fn allowances(policy: &Policy<'_>, version: &str, in_force_ms: (i64, i64)) -> Vec<Allowance> {
    // A crawler that does not read Request-rate is allowed any rate: its
    // rows of the lines only inform (SPEC §3), and no line is drawn.
    if !policy.reads.reads(Directive::RequestRate) {
        return Vec::new();
    }
    let applying: std::collections::HashSet<usize> = (0..1440u16)
        .filter_map(|minute| policy.rules.rate_at(minute))
        .map(|line| line.line)
        .collect();
    policy
        .rules
        .request_rates()
        .iter()
        .filter(|line| applying.contains(&line.line))
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
                version: version.to_string(),
                in_force_ms,
            })
        })
        .collect()
}

/// The minute an instant falls in, as minutes since the epoch.
fn minute(instant_ms: i64) -> i64 {
    instant_ms.div_euclid(60_000)
}

/// Accusing and informing rows.
type RowCounts = (u64, u64);

/// What the page counts as rows stream out.
#[derive(Debug, Default)]
pub struct Gather {
    verdicts: Vec<CrawlerVerdict>,
    per_minute: Vec<PerMinute>,
    accused_per_minute: Vec<PerMinute>,
    /// Of those, the request-rate rows: the chart marks them on the
    /// fetches line, the others at its foot.
    rated_per_minute: Vec<PerMinute>,
    /// Per line, then robots_version: accusing and informing rows (by
    /// line first, so that a row is counted without a copy of its
    /// version's name).
    by_line: HashMap<usize, Vec<(String, RowCounts)>, foldhash::fast::RandomState>,
    /// The log's offset at the first counted fetch: the charts' clock.
    first_offset: Option<i16>,
    /// The log's offsets as counted fetches come, in time order: from
    /// which minute each holds (`--window-tz local` reads windows in
    /// them). The first and at most `CHANGES_KEPT` changes; `None` past
    /// them.
    offsets: Option<Vec<(i64, i16)>>,
}

/// Changes of the log's offset kept for the charts: a night crosses at
/// most one DST change; a log that changes more often (servers writing
/// different offsets, lines interleaved) has no one clock to draw.
const CHANGES_KEPT: usize = 64;

impl Gather {
    pub fn new(crawlers: &[String]) -> Gather {
        Gather {
            verdicts: crawlers
                .iter()
                .map(|name| CrawlerVerdict {
                    crawler: name.clone(),
                    ..CrawlerVerdict::default()
                })
                .collect(),
            per_minute: vec![PerMinute::default(); crawlers.len()],
            accused_per_minute: vec![PerMinute::default(); crawlers.len()],
            rated_per_minute: vec![PerMinute::default(); crawlers.len()],
            by_line: HashMap::default(),
            first_offset: None,
            offsets: Some(Vec::new()),
        }
    }

    pub fn counted(&mut self, counted: &Counted) {
        let verdict = &mut self.verdicts[counted.crawler];
        verdict.fetches += 1;
        let level = match counted.verification {
            Verification::Verified => 0,
            Verification::PtrOnly => 1,
            // A spoofed fetch is an impostor's and never reaches here.
            Verification::Unverified | Verification::Spoofed => 2,
        };
        verdict.verification[level] += 1;
        self.per_minute[counted.crawler].add(minute(counted.fetch.time.instant_ms()), 1);
        let offset = counted.fetch.time.offset_min;
        self.first_offset.get_or_insert(offset);
        if let Some(offsets) = &mut self.offsets
            && offsets.last().is_none_or(|&(_, last)| last != offset)
        {
            if offsets.len() > CHANGES_KEPT {
                self.offsets = None;
            } else {
                offsets.push((minute(counted.fetch.time.instant_ms()), offset));
            }
        }
    }

    pub fn violation(&mut self, counted: &Counted, row: &Violation<'_>) {
        let kind = Kind::ALL.iter().position(|k| *k == row.kind).unwrap_or(0);
        let verdict = &mut self.verdicts[counted.crawler];
        let versions = self.by_line.entry(row.rule_line).or_default();
        let at = match versions
            .iter()
            .position(|(version, _)| version == row.robots_version)
        {
            Some(at) => at,
            None => {
                versions.push((row.robots_version.to_string(), (0, 0)));
                versions.len() - 1
            }
        };
        let counts = &mut versions[at].1;
        if row.accuses() {
            verdict.violations[kind] += 1;
            counts.0 += 1;
            let at = minute(counted.fetch.time.instant_ms());
            self.accused_per_minute[counted.crawler].add(at, 1);
            if row.kind == Kind::RequestRate {
                self.rated_per_minute[counted.crawler].add(at, 1);
            }
        } else {
            verdict.informing[kind] += 1;
            counts.1 += 1;
        }
    }

    pub fn impostor(&mut self, impostor: &Impostor) {
        self.verdicts[impostor.claimed].impostor_fetches += 1;
    }
}

/// Text as a field of the report holds it.
fn text(escaping: Escaping, bytes: &[u8]) -> String {
    String::from_utf8_lossy(&escaping.apply(bytes)).into_owned()
}

/// The page for this run.
pub fn build(
    gather: Gather,
    digest: &Digest<'_>,
    names: &Names<'_>,
    health: &run::Health<'_>,
    sources: &Sources<'_>,
) -> Page {
    // The page always escapes log text, whatever `--raw-csv` says of the
    // CSVs: it is read in a browser, never read back.
    let escaping = Escaping::Safe;
    let Gather {
        mut verdicts,
        mut per_minute,
        mut accused_per_minute,
        mut rated_per_minute,
        by_line,
        first_offset,
        offsets,
    } = gather;

    // "Broken most" by the rows that accuse: a rule's informing rows
    // (Seznam's home page under `Disallow: /`) are no violations (SPEC
    // §7); ties keep rules.csv's order, and rules that only inform come
    // last.
    let rules: Vec<RuleLine> = digest
        .rules_broken_most(RULES_SHOWN)
        .into_iter()
        .map(|rule| RuleLine {
            robots_version: rule.robots_version.clone(),
            rule_line: rule.rule_line,
            rule: text(escaping, &name_bytes(&rule.rule)),
            group: text(escaping, &name_bytes(&rule.group)),
            kind: rule.kind.as_str().to_string(),
            violations: rule.violations,
            informing: rule.informing,
            distinct_targets: rule.distinct_targets,
            crawlers: joined(names, &rule.crawlers),
            first_time: rule.first.rfc3339(),
            last_time: rule.last.rfc3339(),
        })
        .collect();
    // The targets fetched most against a rule by rows that accuse: each
    // rule's most fetched ones (the Digest keeps the top ones of every
    // rule), counted by accusing rows only.
    let targets_total = digest.accusing_targets();
    let mut targets: Vec<TargetLine> = digest
        .top_targets
        .iter()
        .map(|top| TargetLine {
            target: text(escaping, &top.target),
            robots_version: top.robots_version.clone(),
            rule_line: top.rule_line,
            rule: text(escaping, &name_bytes(&top.rule)),
            kind: top.kind.as_str().to_string(),
            violations: top.times,
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
    let impostors: Vec<AddressLine> = digest
        .top_addresses()
        .iter()
        .map(|address| AddressLine {
            client: text(escaping, &address.client),
            claimed_crawlers: joined(names, &address.claimed),
            fetches: address.fetches,
            ptr: text(
                escaping,
                &crate::report::escape::name_bytes(address.ptr.as_deref().unwrap_or("")),
            ),
            reason: address.reason.as_str().to_string(),
            first_time: address.first.rfc3339(),
            last_time: address.last.rfc3339(),
        })
        .collect();

    // The versions that decided a row, and the last (in force at the end
    // of the night), at most `ROBOTS_VERSIONS_SHOWN` of them, the latest
    // kept: a state that built up a version a night must not make the page
    // grow night after night (SPEC §7: under 5,000,000 bytes).
    let decided: std::collections::BTreeSet<&str> = by_line
        .values()
        .flat_map(|versions| versions.iter().map(|(v, _)| v.as_str()))
        .collect();
    // A version back in force (v1 → v2 → v1, SPEC §6) is one text with
    // one count a line: shown once, where it last came into force.
    let last = sources.robots.len().saturating_sub(1);
    let mut distinct = std::collections::HashSet::new();
    let mut chosen: Vec<&(&[u8], &str)> = sources
        .robots
        .iter()
        .enumerate()
        .rev()
        .filter(|&(i, (_, version))| i == last || decided.contains(version))
        .filter(|(_, (_, version))| distinct.insert(*version))
        .map(|(_, source)| source)
        .collect();
    chosen.reverse();
    let all_versions = sources
        .robots
        .iter()
        .map(|(_, version)| *version)
        .collect::<std::collections::HashSet<_>>()
        .len();
    let versions_left_out = all_versions - chosen.len().min(super::render::ROBOTS_VERSIONS_SHOWN);
    if chosen.len() > super::render::ROBOTS_VERSIONS_SHOWN {
        chosen.drain(..chosen.len() - super::render::ROBOTS_VERSIONS_SHOWN);
    }
    let robots: Vec<RobotsText> = chosen
        .into_iter()
        .map(|(bytes, version)| RobotsText {
            robots_version: version.to_string(),
            lines: written_lines(bytes)
                .map(|(number, line)| {
                    let (accusing, informing) = by_line
                        .get(&number)
                        .and_then(|versions| {
                            versions.iter().find(|(v, _)| v == version).map(|&(_, c)| c)
                        })
                        .unwrap_or_default();
                    RobotsLine {
                        number,
                        // As written: only controls and bytes outside
                        // UTF-8 escaped (a `;` or `\` is the file's own).
                        text: crate::text::visible(&crate::text::escape_non_utf8(line))
                            .into_owned(),
                        accusing,
                        informing,
                    }
                })
                .collect(),
        })
        .collect();

    let mut charts: Vec<Traffic> = Vec::new();
    // Crawlers with a chart that share one count, by count.
    let mut sharing: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (index, verdict) in verdicts.iter().enumerate() {
        if verdict.fetches == 0 {
            continue;
        }
        if let Some(&count) = sources.count_of.get(index) {
            sharing
                .entry(count)
                .or_default()
                .push(verdict.crawler.clone());
        }
        charts.push(Traffic {
            crawler: verdict.crawler.clone(),
            fetches: std::mem::take(&mut per_minute[index]),
            violations: std::mem::take(&mut accused_per_minute[index]),
            rate_violations: std::mem::take(&mut rated_per_minute[index]),
            allowed: sources.allowed.get(index).cloned().unwrap_or_default(),
        });
    }
    charts.extend(count_charts(&charts, &sharing));
    charts.sort_by(|a, b| a.crawler.cmp(&b.crawler));
    // A crawler with nothing to say is left out of the verdict, as
    // summary.csv leaves it out; one that was only impersonated stays.
    verdicts.retain(|v| v.fetches > 0 || v.impostor_fetches > 0);
    verdicts.sort_by(|a, b| a.crawler.cmp(&b.crawler));

    let window_clock = window_clock(sources.window_tz, &charts, first_offset, offsets);
    let (first, last) = span(health);
    let used = versions_used(health, sources, (first, last));
    Page {
        first_time: first.map(|t| t.rfc3339()),
        last_time: last.map(|t| t.rfc3339()),
        offset_min: first_offset.unwrap_or(0),
        window_clock,
        shared_counts: sharing
            .into_values()
            .filter(|names| names.len() > 1)
            .map(|mut names| {
                names.sort();
                names
            })
            .collect(),
        exit_status: health.exit_status,
        crawlers: verdicts,
        health: health_of(names, health, escaping, used),
        charts,
        rules,
        rules_total: digest.rule_count(),
        rules_inform: digest.rules_inform(),
        rules_of_several_versions: digest.rules_of_several_versions(),
        targets,
        impostors,
        impostor_addresses: digest.address_count(),
        targets_total,
        robots,
        robots_versions_left_out: versions_left_out,
        trend: sources.trend.clone(),
    }
}

/// The robots.txt versions the night used (SPEC §7 health): those in
/// force at some moment between its first and last line, and those that
/// allowed a fetch the cache grace excused (`Sources::excused_by`, SPEC
/// §6: in force in the fetch's window, maybe before the night), at most
/// `ROBOTS_VERSIONS_SHOWN` (the latest), each with when it came into force
/// (a version back in force, v1 → v2 → v1, is listed at each coming that
/// the night reached); and how many the run knew besides. Every row names
/// the version in force at its time (SPEC §6), so these are also the ones
/// that decided rows or spared them: a reverted version's earlier coming, over before
/// the night began, is not among them though its text decided rows at a
/// later coming. A state or history of many versions lists them all in
/// run.json, not here. `(first, last)` is the night's `span`.
fn versions_used(
    health: &run::Health<'_>,
    sources: &Sources<'_>,
    (first, last): (Option<Timestamp>, Option<Timestamp>),
) -> VersionsUsed {
    let (first, last) = (first.map(|t| t.instant_ms()), last.map(|t| t.instant_ms()));
    let all = &health.robots_versions;
    let mut used: Vec<(String, String)> = all
        .iter()
        .enumerate()
        .rev()
        .filter(|&(i, _)| {
            let during = match (first, last, sources.in_force_ms.get(i)) {
                (Some(first), Some(last), Some(&(from, until))) => from <= last && first < until,
                // No line parsed: none judged a fetch.
                (None, _, _) | (_, None, _) => false,
                // No range known: the one in force now.
                _ => i + 1 == all.len(),
            };
            during || sources.excused_by.contains(&i)
        })
        .map(|(i, (version, from))| (version.clone(), in_force(i, all.len(), from.as_deref())))
        .collect();
    let more = used
        .len()
        .saturating_sub(super::render::ROBOTS_VERSIONS_SHOWN);
    let unused = health.robots_versions.len() - used.len();
    used.truncate(super::render::ROBOTS_VERSIONS_SHOWN);
    used.reverse();
    VersionsUsed {
        shown: used,
        more,
        unused,
    }
}

/// A chart of each count that several charted crawlers share (SPEC §4:
/// SeznamBot, FreshBot and SeznamBot-test are one count): the rate is
/// judged on their fetches together, which no crawler's own chart shows.
/// Named `A + B (one count)`; drawn only where the crawlers read the same
/// Request-rate lines (they share a robots.txt token, so they do unless
/// their floors differ).
fn count_charts(charts: &[Traffic], sharing: &BTreeMap<usize, Vec<String>>) -> Vec<Traffic> {
    let mut made = Vec::new();
    for names in sharing.values().filter(|names| names.len() > 1) {
        let members: Vec<&Traffic> = charts
            .iter()
            .filter(|t| names.contains(&t.crawler))
            .collect();
        let Some(first) = members.first() else {
            continue;
        };
        if members.iter().any(|t| t.allowed != first.allowed) {
            continue;
        }
        let mut names = names.clone();
        names.sort();
        let sum = |of: fn(&Traffic) -> &PerMinute| {
            let mut sum = PerMinute::default();
            for t in &members {
                for (minute, n) in of(t).iter() {
                    sum.add(minute, n);
                }
            }
            sum
        };
        made.push(Traffic {
            crawler: super::count_chart_name(&names),
            fetches: sum(|t| &t.fetches),
            violations: sum(|t| &t.violations),
            rate_violations: sum(|t| &t.rate_violations),
            allowed: first.allowed.clone(),
        });
    }
    made
}

/// When version `index` of `count` (oldest first), dated `from`, was in
/// force, as the page says it (SPEC §6): the oldest is in force before
/// its time too, and the only one for all time, whatever its date (a
/// `--robots` file edited after the night it judges).
pub(super) fn in_force(index: usize, count: usize, from: Option<&str>) -> String {
    match (count, index, from) {
        (1, _, Some(from)) => format!(" in force throughout (the only version; dated {from})"),
        (1, _, None) => " in force throughout (the only version)".to_string(),
        (_, 0, Some(from)) => format!(" in force from {from} and before (the oldest version)"),
        (_, 0, None) => " (the oldest version)".to_string(),
        (_, _, Some(from)) => format!(" in force from {from}"),
        (_, _, None) => String::new(),
    }
}

/// The robots.txt versions of the page's health: those the night used,
/// the latest `ROBOTS_VERSIONS_SHOWN` of them with when each came into
/// force; how many more it used; and how many more the run knew.
struct VersionsUsed {
    shown: Vec<(String, String)>,
    more: usize,
    unused: usize,
}

/// The period the lines cover: the earliest and latest line that parsed.
fn span(health: &run::Health<'_>) -> (Option<Timestamp>, Option<Timestamp>) {
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
    (first, last)
}

/// The run's health as the page shows it, with the robots.txt versions
/// the night used and how many more there are (`versions_used`).
fn health_of(
    names: &Names<'_>,
    health: &run::Health<'_>,
    escaping: Escaping,
    versions: VersionsUsed,
) -> Health {
    let mut skipped = [0u64; Skip::ALL.len()];
    let mut files = Vec::new();
    let (mut lines_read, mut lines_skipped, mut already_audited) = (0, 0, 0);
    for (index, path) in names.files.iter().enumerate() {
        let tally = health.tallies.get(&index).copied().unwrap_or_default();
        lines_read += tally.lines;
        lines_skipped += tally.skipped;
        let before = health.already_audited.get(&index).copied().unwrap_or(0);
        already_audited += before;
        for (sum, count) in skipped.iter_mut().zip(tally.reasons) {
            *sum += count;
        }
        files.push(FileHealth {
            // As the CSVs write it: standard input is `-`, unguarded.
            file: match path.as_os_str().as_encoded_bytes() {
                b"-" => "-".to_string(),
                name => String::from_utf8_lossy(&escaping.apply(name)).into_owned(),
            },
            format: health
                .formats
                .get(&index)
                .map(|f| text(escaping, f.as_bytes()))
                .unwrap_or_default(),
            lines_read: tally.lines,
            lines_skipped: tally.skipped,
            already_audited: before,
            // An error names log text (a JSON line's keys, a file name):
            // written as the CSVs write text, like the file name above.
            error: health
                .errors
                .get(&index)
                .map(|e| text(escaping, e.as_bytes())),
        });
    }
    Health {
        lines_read,
        lines_skipped,
        already_audited,
        skipped: Skip::ALL
            .iter()
            .zip(skipped)
            .filter(|(_, n)| *n > 0)
            .map(|(skip, n)| (skip.reason().to_string(), n))
            .collect(),
        files,
        dns: Dns {
            asked: health.dns_asked,
            failures: health.dns.failures,
            resolver_unusable: health.dns.unusable,
            resolver_broken: health.dns.broken,
            deadline_reached: health.dns.deadline_reached,
            undecided_fetches: health.dns.undecided_fetches,
        },
        robots_versions: versions.shown,
        robots_versions_used_more: versions.more,
        robots_versions_unused: versions.unused,
        excused_by_cache_grace: health.excused_by_cache_grace,
        left_out: health.left_out,
        state_error: health.state_error.clone(),
    }
}
