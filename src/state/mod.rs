//! The `--state DIR` store (SPEC §6 "State"): what one night leaves for
//! the next. Takes the folder (locked as `--out` is, with
//! `report::lock`); gives the [`State`] read from it — robots.txt
//! versions, each count's fetches of `/robots.txt` and recent fetch
//! times, fingerprints of logs audited, a summary row a night per
//! crawler — and writes it back atomically.
//!
//! Layout of DIR:
//! - `state.json`: everything but the robots.txt bytes, with a `format`
//!   number ([`FORMAT`]); written through a temporary file of an
//!   unguessable name, flushed, then renamed over the old one, so a
//!   reader sees the old state or the new one, whole.
//! - `robots/<sha256>.txt`: each version's bytes, named by their SHA-256.
//!   Written (and checked) before `state.json` names them, removed only
//!   after a new `state.json` stopped naming them: whatever moment a run
//!   is killed at, the `state.json` in force names files that exist.
//! - `dns-cache`: the DNS cache, unless `--dns-cache` names another file.
//! - `.robots-audit/lock`: the lock, the same as an `--out` folder's.
//!
//! How the pipeline is meant to use it: `StateDir::lock` before the first
//! log line is read (with the `--out` lock when both name one folder),
//! `load`; `entries()` joins the sources of `robots::versions`;
//! `counts` resume each count's `robots::cache::Tracker` and rate
//! windows; `fingerprints` make each file's `state::fingerprint::Reading`.
//! Once the night is judged: `remember_versions`, update the counts
//! (`CountMemory::keep_recent` bounds them), `add_fingerprint`,
//! `add_night`, `expire`; then `StateDir::prepare` before the reports are
//! written (a state that cannot be written is known while run.json can
//! still say so) and `commit` once they are whole. A run that exits 2
//! never saves.

mod dir;
pub mod fingerprint;
pub mod heads;
pub mod overlaps;
mod stored;

pub use dir::{PreparedState, StateDir, check_trust};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::accesslog::time::Timestamp;
use crate::accesslog::time_given::parse_rfc3339_or_date;
use crate::robots::cache::Memory;
use crate::robots::versions::{Entry, Origin, Versions};
pub use fingerprint::Fingerprint;

/// The format this version of the tool writes and reads (and every
/// earlier one: format 1 lacks each count's recent fetches of
/// `/robots.txt`, read as none; format 2, since when they were all kept
/// and the count of verified fetches apart, read as not known). A state
/// of a later format is refused, never rewritten in an older one.
pub const FORMAT: u64 = 3;

/// `--state-days`: nights and fingerprints older than this expire.
pub const DEFAULT_DAYS: u64 = 90;

const STATE_FILE: &str = "state.json";
const ROBOTS_DIR: &str = "robots";
/// The DNS cache inside the state, unless `--dns-cache` says otherwise.
pub const DNS_CACHE: &str = "dns-cache";
/// Prefix of this code's temporary files; what a killed run left of them
/// is removed by the next run, which holds the lock.
const TEMP_PREFIX: &str = ".tmp-";

const DAY_MS: i64 = 86_400_000;

/// What one night leaves for the next.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// Every robots.txt version a run was given, oldest first.
    pub versions: Vec<StoredVersion>,
    /// Per count (a robots.txt token, or a crawler with `--rate-by
    /// crawler`, as the judge names it).
    pub counts: BTreeMap<String, CountMemory>,
    pub fingerprints: Vec<Fingerprint>,
    pub nights: Vec<Night>,
}

/// A robots.txt version as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVersion {
    /// Shared with the run's versions (`Versions`).
    pub bytes: Arc<[u8]>,
    pub in_force_from: Timestamp,
    /// The file that holds it (for messages); empty before the first save.
    pub file: PathBuf,
}

/// What the state keeps of one count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountMemory {
    /// Its fetches of `/robots.txt` (`robots::cache`).
    pub robots_txt: Memory,
    /// Its latest fetch instants, ascending: those rates and delays of the
    /// next night can still see.
    pub fetch_times_ms: Vec<i64>,
    /// Those of them by clients the evidence backed, kept when a run that
    /// verifies saw others join the count (`audit::Judge::proven`).
    pub proven_times_ms: Option<Vec<i64>>,
}

impl CountMemory {
    /// Keeps the fetches the next night's judge may need: those within
    /// `horizon_ms` (the longest rate period or crawl delay in force) of
    /// the last one — and always the last, for the next crawl delay. At
    /// most `at_most` are kept: a bound on the state's size that the judge
    /// chooses (a rate N/T decides the same rows from the N latest alone,
    /// but the rows' `detail` counts every fetch of the window, so
    /// identical rows need them all).
    pub fn keep_recent(&mut self, horizon_ms: i64, at_most: usize) {
        keep_recent(&mut self.fetch_times_ms, horizon_ms, at_most);
        if let Some(proven) = &mut self.proven_times_ms {
            keep_recent(proven, horizon_ms, at_most);
        }
    }
}

/// `CountMemory::keep_recent` of one list of times.
fn keep_recent(times: &mut Vec<i64>, horizon_ms: i64, at_most: usize) {
    times.sort_unstable();
    let Some(&last) = times.last() else {
        return;
    };
    let oldest = last.saturating_sub(horizon_ms);
    let first_kept = times.partition_point(|&t| t <= oldest);
    let first_kept = first_kept.max(times.len().saturating_sub(at_most.max(1)));
    let first_kept = first_kept.min(times.len() - 1);
    times.drain(..first_kept);
}

/// One summary row a night per crawler, for the trend (SPEC §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Night {
    /// The night, `YYYY-MM-DD`.
    pub night: String,
    pub crawler: String,
    pub fetches: u64,
    /// By kind (`crawl-delay`, `disallow`, `request-rate`).
    pub violations: BTreeMap<String, u64>,
    pub impostor_fetches: u64,
}

impl Night {
    /// A row of zeros: a night audited without a crawler's fetch or an
    /// impostor's (`NightRows::covered`).
    fn is_quiet(&self) -> bool {
        self.fetches == 0 && self.impostor_fetches == 0 && self.violations.values().all(|&v| v == 0)
    }
}

/// A run's summary rows a night per crawler (SPEC §6), gathered as the
/// judge goes: the night of a fetch is its date in the log's own offset.
#[derive(Debug, Default)]
pub struct NightRows {
    /// By (day number, crawler index).
    rows: BTreeMap<(i64, usize), NightCounts>,
}

/// One crawler's night as it is gathered.
#[derive(Debug, Default)]
struct NightCounts {
    fetches: u64,
    /// Accusing rows by kind.
    violations: BTreeMap<&'static str, u64>,
    impostor_fetches: u64,
}

impl NightRows {
    fn day(time: &Timestamp) -> i64 {
        (time.unix + i64::from(time.offset_min) * 60).div_euclid(86_400)
    }

    /// A counted fetch of `crawler`.
    pub fn counted(&mut self, crawler: usize, time: &Timestamp) {
        self.rows
            .entry((Self::day(time), crawler))
            .or_default()
            .fetches += 1;
    }

    /// A row that accuses `crawler`, of `kind`.
    pub fn violation(&mut self, crawler: usize, time: &Timestamp, kind: &'static str) {
        *self
            .rows
            .entry((Self::day(time), crawler))
            .or_default()
            .violations
            .entry(kind)
            .or_default() += 1;
    }

    /// The nights of a log's earliest and latest lines (`first`, `last`):
    /// a night whose logs hold no crawler's fetch and no impostor's was
    /// still audited, and the trend shows it as a night of zeros (a row of
    /// `crawler`), never as no night. The nights between are not known to
    /// hold a line (a week's log may skip one). Such rows never set how
    /// far back the state's nights expire (`State::expire`), so a line
    /// dated far ahead pushes no night out.
    pub fn covered(&mut self, first: &Timestamp, last: &Timestamp, crawler: usize) {
        for day in [Self::day(first), Self::day(last)] {
            if self.rows.range((day, 0)..(day + 1, 0)).next().is_none() {
                self.rows.insert((day, crawler), NightCounts::default());
            }
        }
    }

    /// An impostor's fetch claiming `crawler`.
    pub fn impostor(&mut self, crawler: usize, time: &Timestamp) {
        self.rows
            .entry((Self::day(time), crawler))
            .or_default()
            .impostor_fetches += 1;
    }

    /// The rows, the crawlers named by `names`.
    pub fn rows(&self, names: &[String]) -> Vec<Night> {
        self.rows
            .iter()
            .map(|(&(day, crawler), counts)| Night {
                night: night_of(&Timestamp {
                    unix: day * 86_400,
                    millis: 0,
                    offset_min: 0,
                }),
                crawler: names.get(crawler).cloned().unwrap_or_default(),
                fetches: counts.fetches,
                violations: counts
                    .violations
                    .iter()
                    .map(|(k, n)| ((*k).to_string(), *n))
                    .collect(),
                impostor_fetches: counts.impostor_fetches,
            })
            .collect()
    }
}

/// The day number of a `YYYY-MM-DD`.
fn day_of(night: &str) -> Option<i64> {
    let t = parse_rfc3339_or_date(night)?;
    (night.len() == 10).then_some(t.unix.div_euclid(86_400))
}

impl State {
    /// The versions kept, as a source for `robots::versions`.
    pub fn entries(&self) -> Vec<Entry> {
        self.versions
            .iter()
            .map(|v| Entry {
                bytes: Arc::clone(&v.bytes),
                in_force_from: v.in_force_from,
                origin: Origin::State(v.file.clone()),
            })
            .collect()
    }

    /// Keeps every version of the run's time line, so that the history
    /// builds itself night by night: each with every time a source gave
    /// its bytes, so that a version learnt on a later night between two
    /// of them splits it as one run would have.
    pub fn remember_versions(&mut self, versions: &Versions) {
        self.versions = versions
            .all()
            .iter()
            .flat_map(|v| {
                v.source_times().map(|in_force_from| StoredVersion {
                    bytes: Arc::clone(v.bytes_shared()),
                    in_force_from,
                    file: PathBuf::new(),
                })
            })
            .collect();
    }

    /// Keeps a log's fingerprint; one already kept (the same log met
    /// again, renamed or compressed) only has its time renewed.
    pub fn add_fingerprint(&mut self, fingerprint: Fingerprint) {
        match self.fingerprints.iter_mut().find(|f| {
            f.lines == fingerprint.lines
                && f.bytes == fingerprint.bytes
                && f.sha256 == fingerprint.sha256
                && f.tail == fingerprint.tail
        }) {
            Some(kept) => kept.audited_ms = kept.audited_ms.max(fingerprint.audited_ms),
            None => self.fingerprints.push(fingerprint),
        }
    }

    /// Adds a night's row; a second run over the same night adds its
    /// counts to the row (the fingerprints keep it from counting a line
    /// twice). Rows stay sorted by night, then crawler.
    pub fn add_night(&mut self, row: Night) {
        // A row of zeros marks a night audited without a fetch: one is
        // enough, and none beside rows with fetches, so that a night read
        // in two runs keeps the rows of one run over both.
        if row.is_quiet() {
            if self.nights.iter().any(|n| n.night == row.night) {
                return;
            }
        } else {
            self.nights
                .retain(|n| n.night != row.night || !n.is_quiet());
        }
        match self
            .nights
            .iter_mut()
            .find(|n| n.night == row.night && n.crawler == row.crawler)
        {
            // Saturating: a state edited to huge counts (they are the
            // trend's, judging nothing) never wraps around to small ones.
            Some(kept) => {
                kept.fetches = kept.fetches.saturating_add(row.fetches);
                kept.impostor_fetches = kept.impostor_fetches.saturating_add(row.impostor_fetches);
                for (kind, n) in row.violations {
                    let count = kept.violations.entry(kind).or_default();
                    *count = count.saturating_add(n);
                }
            }
            None => self.nights.push(row),
        }
        self.nights
            .sort_by(|a, b| (&a.night, &a.crawler).cmp(&(&b.night, &b.crawler)));
    }

    /// Bounds the state: fingerprints of logs not met in the `days`
    /// before `now_ms` go, and so do the nights more than `days` before the
    /// newest night kept (the last `days` nights of the logs stay, whenever
    /// they are audited). Versions stay (a log of any age may need them),
    /// and so do the counts (already bounded by `keep_recent`).
    pub fn expire(&mut self, now_ms: i64, days: u64) {
        let days = i64::try_from(days).unwrap_or(i64::MAX);
        let oldest_ms = now_ms.saturating_sub(days.saturating_mul(DAY_MS));
        self.fingerprints.retain(|f| f.audited_ms >= oldest_ms);
        // Counted back from the newest night that holds a fetch: a quiet
        // night's row of zeros (a stray browser line beside a backlog of
        // old logs) must not push the real nights out.
        let newest_of = |only_real: bool| {
            self.nights
                .iter()
                .filter(|n| !only_real || !n.is_quiet())
                .filter_map(|n| day_of(&n.night))
                .max()
        };
        let Some(newest) = newest_of(true).or_else(|| newest_of(false)) else {
            return;
        };
        let oldest_day = newest.saturating_sub(days);
        // A row whose night cannot be read is kept: it is not ours to drop.
        self.nights
            .retain(|n| day_of(&n.night).is_none_or(|d| d >= oldest_day));
    }

    /// The last `n` nights' rows of a crawler, oldest first (the trend).
    pub fn trend(&self, crawler: &str, n: usize) -> Vec<&Night> {
        let rows: Vec<&Night> = self
            .nights
            .iter()
            .filter(|r| r.crawler == crawler)
            .collect();
        rows[rows.len().saturating_sub(n)..].to_vec()
    }
}

/// The night of a fetch: its date in the log's own offset, so that a
/// night means the same to the tool as to the webmaster reading the log.
pub fn night_of(time: &Timestamp) -> String {
    // RFC 3339 in the log's own offset begins with that date.
    time.rfc3339().chars().take(10).collect()
}

#[cfg(test)]
mod tests;
