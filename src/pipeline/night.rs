//! Stage 6, what the next night needs (SPEC §6): last night's counts
//! resumed into tonight's judge; the state's counts, fingerprints and
//! nightly rows updated from tonight's run; and the trend and versions
//! report.html shows from them (SPEC §7).

use std::collections::BTreeMap;
use std::path::Path;

use crate::accesslog::Timestamp;
use crate::audit::{Judge, Policy};
use crate::crawler::Identifier;
use crate::report;
use crate::robots::versions::Version;
use crate::scan::Scan;
use crate::state::fingerprint::Finished;
use crate::state::{self, NightRows, State};

/// Whether the tail that a file's last line matched had parsed, on the
/// night it was read: the state's fingerprints the file matched know.
fn previous_tail_parsed(state: &State, done: &Finished) -> Option<bool> {
    // `matched` indexes the fingerprints as the run read them; the ones
    // added since go after them.
    done.matched
        .iter()
        .filter_map(|&i| state.fingerprints.get(i))
        .filter(|f| f.lines + 1 == done.already_audited)
        .find_map(|f| f.tail.as_ref().map(|t| t.parsed))
}

/// The most fetch times a count keeps for the next night: a bound on the
/// state's size far above what a rate period holds of a real crawler.
const KEPT_TIMES: usize = 1_000_000;

/// The trend of report.html (SPEC §7): the last 30 nights of the state,
/// tonight's included.
pub(super) fn trend_of(state: &State, crawlers: &[String]) -> Vec<report::html::Night> {
    let mut nights: BTreeMap<&str, report::html::Night> = BTreeMap::new();
    for crawler in crawlers {
        for row in state.trend(crawler, TREND_NIGHTS) {
            let night = nights
                .entry(row.night.as_str())
                .or_insert_with(|| report::html::Night {
                    date: row.night.clone(),
                    crawlers: Vec::new(),
                });
            night.crawlers.push((
                row.crawler.clone(),
                row.fetches,
                row.violations.values().sum(),
            ));
        }
    }
    let nights: Vec<report::html::Night> = nights.into_values().collect();
    let start = nights.len().saturating_sub(TREND_NIGHTS);
    nights[start..].to_vec()
}

/// Nights in report.html's trend.
const TREND_NIGHTS: usize = 30;

/// When a `--robots FILE` came into force: its modification time, as
/// RFC 3339 in UTC (SPEC §6); `None` when the file system does not say.
pub(super) fn in_force_from(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    let time = Timestamp {
        unix: i64::try_from(since.as_secs()).ok()?,
        millis: 0,
        offset_min: 0,
    };
    Some(time.rfc3339())
}

/// Last night's counts into tonight's judge (SPEC §6: rates and delays
/// judged across midnight as if the nights were one log). Counts kept
/// under the other `--rate-by` cannot be split or merged into tonight's
/// without guessing: only their robots.txt fetches are taken, and a
/// warning says so. The state's fetch times are let go once in the judge
/// (`remember_counts` writes tonight's): a busy count's million are 8 MB
/// held through the night for nothing.
pub(super) fn resume_counts(state: &mut State, judged_by: &mut Judge<'_, '_>) {
    let mut strangers = Vec::new();
    let merged = judged_by.merged_by_upgrade(|name| state.counts.contains_key(name));
    for (name, count) in &mut state.counts {
        let proven = count.proven_times_ms.as_deref();
        if merged.contains(name)
            || !judged_by.resume(name, count.robots_txt, &count.fetch_times_ms, proven)
        {
            strangers.push((name.as_str(), count.robots_txt));
        }
        count.fetch_times_ms = Vec::new();
        count.proven_times_ms = None;
    }
    judged_by.resume_other_rate_by(&strangers);
    let strangers: Vec<&str> = strangers.iter().map(|&(name, _)| name).collect();
    // Said, never silently dropped.
    if !strangers.is_empty() {
        crate::warn!(
            "robots-audit: warning: the state's counts {} were kept under another --rate-by \
             (or, by an older version, under a profile's token as written rather than its \
             product token): rates, crawl delays and robots.txt fetches across midnight \
             start afresh tonight (a 4xx on robots.txt they remember still stands)",
            strangers.join(", ")
        );
    }
}

/// Tonight's counts into the state (SPEC §6): each count's robots.txt
/// fetches and recent fetch times, resumed and carried on; counts kept
/// under another `--rate-by` (warned about) go.
pub(super) fn remember_counts(state: &mut State, judged_by: &Judge<'_, '_>) {
    state.counts.clear();
    for count in judged_by.memories(KEPT_TIMES) {
        let mut memory = state::CountMemory {
            robots_txt: count.robots_txt,
            fetch_times_ms: count.times,
            proven_times_ms: count.proven,
        };
        memory.keep_recent(count.kept_ms, KEPT_TIMES);
        state.counts.insert(count.name.to_string(), memory);
    }
}

/// Each log's fingerprint into the state (SPEC §6), with whether its last
/// line was read.
pub(super) fn remember_logs(state: &mut State, finished: &BTreeMap<usize, Finished>, scan: &Scan) {
    // An empty log matches nothing: no fingerprint to keep.
    for (file, done) in finished
        .iter()
        .filter(|(_, done)| done.fingerprint.lines_read() > 0)
    {
        let mut fingerprint = done.fingerprint.clone();
        if let Some(tail) = &mut fingerprint.tail {
            // Its line is the file's last: read, unless skipped (a
            // tail met again is read as it was the night before).
            let last = fingerprint.lines + 1;
            let tally = scan.tallies.get(file).copied().unwrap_or_default();
            let before = done.already_audited >= last;
            tail.parsed = if before {
                previous_tail_parsed(state, done).unwrap_or(false)
            } else {
                tally.last_skip != Some(last)
            };
        }
        state.add_fingerprint(fingerprint);
    }
}

/// A row a night per crawler into the state (SPEC §6): tonight's rows,
/// and the spans the logs covered, quiet ones included.
pub(super) fn remember_nights(
    state: &mut State,
    mut nightly: NightRows,
    scan: &Scan,
    ident: &Identifier,
    crawlers: &[String],
) {
    // Quiet nights are kept under the first crawler named as its
    // robots.txt token (SeznamBot), whatever fetched.
    let quiet = ident
        .profiles()
        .iter()
        .position(|p| p.name == p.token)
        .unwrap_or(0);
    for tally in scan.tallies.values() {
        if let (Some(first), Some(last)) = (&tally.first_time, &tally.last_time) {
            nightly.covered(first, last, quiet);
        }
    }
    for row in nightly.rows(crawlers) {
        state.add_night(row);
    }
}

/// When each version judged was in force, in milliseconds: from its
/// `in_force_from` (the first from the beginning of time) until the
/// next one's.
pub(super) fn in_force_spans(judged: &[Version]) -> Vec<(i64, i64)> {
    (0..judged.len())
        .map(|at| {
            let from = match at {
                0 => i64::MIN,
                _ => judged[at].in_force_from().instant_ms(),
            };
            let until = judged
                .get(at + 1)
                .map_or(i64::MAX, |next| next.in_force_from().instant_ms());
            (from, until)
        })
        .collect()
}

/// By crawler, the Request-rate lines of each version while it was in
/// force, as report.html's chart draws them.
pub(super) fn allowances(
    judged: &[Version],
    policies: &[Vec<Policy<'_>>],
    in_force_ms: &[(i64, i64)],
    crawlers: usize,
) -> Vec<Vec<report::html::Allowance>> {
    let mut allowed: Vec<Vec<report::html::Allowance>> = vec![Vec::new(); crawlers];
    for ((version, policies), &in_force) in judged.iter().zip(policies).zip(in_force_ms) {
        for (crawler, policy) in policies.iter().enumerate() {
            if let Some(lines) = allowed.get_mut(crawler) {
                lines.extend(report::html::build::allowances(
                    policy,
                    version.robots_version(),
                    in_force,
                ));
            }
        }
    }
    allowed
}
