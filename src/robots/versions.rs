//! The robots.txt versions of a site (SPEC §6 "Versions"): takes the
//! `--robots FILE` (in force from its modification time or
//! `--robots-since`), the files of `--robots-history DIR` (each named by the
//! time it came into force) and the versions kept in `--state`; gives one
//! time line of versions, each with its bytes, its `robots_version`
//! (SPEC §5), the time it came into force and its parsed [`Robots`].
//!
//! How the judge uses it: it compiles each version's rules once per
//! crawler (`version.robots().read_as(reads).rules_for(token)`, kept in a
//! `Vec` indexed by [`Version::index`]); for a fetch at `t` it takes
//! [`Versions::at`] for the rates, delays and the row's `robots_version`,
//! and hands [`Versions::during`] over the cache window
//! (`robots::cache`) to decide a `disallow`.

use std::cmp::Ordering;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::matcher::{Robots, version_of};
use crate::accesslog::time::Timestamp;
use crate::accesslog::time_given::parse_rfc3339_or_date;
use crate::config::RobotsSources;
use crate::error::{Error, Position, Result};

/// Where a version was found; a version merged from several sources
/// keeps them all, so `check --at` can say why it is in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--robots FILE`, in force from its modification time.
    Modified(PathBuf),
    /// `--robots FILE` with `--robots-since TIME`.
    Since(PathBuf),
    /// `--robots FILE` that is a pipe (`<(curl …)`) or another file that
    /// is not a regular one, without `--robots-since`: dated when it was
    /// written, which says nothing of when its bytes came into force.
    Piped(PathBuf),
    /// A file of `--robots-history DIR`, named by its time.
    History(PathBuf),
    /// A version kept in the `--state` folder (the file holding it).
    State(PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Modified(p) => write!(f, "--robots {} (its modification time)", p.display()),
            Origin::Since(p) => write!(f, "--robots {} (--robots-since)", p.display()),
            Origin::Piped(p) => write!(f, "--robots {} (a pipe, dated as read)", p.display()),
            Origin::History(p) => write!(f, "--robots-history {}", p.display()),
            Origin::State(p) => write!(f, "--state {}", p.display()),
        }
    }
}

impl Origin {
    fn path(&self) -> &Path {
        match self {
            Origin::Modified(p)
            | Origin::Since(p)
            | Origin::Piped(p)
            | Origin::History(p)
            | Origin::State(p) => p,
        }
    }
}

/// One robots.txt as a source gave it, before the sources are merged.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The bytes as read: at most one past the 500 KiB limit, so that the
    /// parser still knows whether the file went past it. Shared with the
    /// state that kept it and the version made of it.
    pub bytes: Arc<[u8]>,
    pub in_force_from: Timestamp,
    pub origin: Origin,
}

impl Entry {
    /// `--robots FILE`: in force from `since` when given, else from the
    /// file's modification time (in UTC, to the millisecond); a pipe's is
    /// the time it was written (`Origin::Piped`).
    pub fn from_robots(path: &Path, since: Option<Timestamp>) -> Result<Entry> {
        let (bytes, modified, regular) = read_limited(path)?;
        let (in_force_from, origin) = match since {
            Some(t) => (t, Origin::Since(path.to_path_buf())),
            None if !regular => {
                let now = || {
                    utc_timestamp(std::time::SystemTime::now()).unwrap_or(Timestamp {
                        unix: 0,
                        millis: 0,
                        offset_min: 0,
                    })
                };
                (
                    modified.unwrap_or_else(now),
                    Origin::Piped(path.to_path_buf()),
                )
            }
            None => {
                let modified = modified.ok_or_else(|| Error::Format {
                    path: path.to_path_buf(),
                    at: Position::File,
                    cause: "the file system gives no modification time; \
                            say when it came into force with --robots-since"
                        .into(),
                })?;
                (modified, Origin::Modified(path.to_path_buf()))
            }
        };
        Ok(Entry {
            bytes: Arc::from(bytes),
            in_force_from,
            origin,
        })
    }
}

/// Reads at most one byte past the limit (`source::read`: a pipe that
/// never ends cannot hang the run), with the file's modification time
/// when it has one, and whether it is a regular file.
pub fn read_limited(path: &Path) -> Result<(Vec<u8>, Option<Timestamp>, bool)> {
    let (bytes, metadata) = super::source::read(path)?;
    let modified = metadata.modified().ok().and_then(utc_timestamp);
    Ok((bytes, modified, metadata.is_file()))
}

/// A time of the system as a UTC timestamp to the millisecond; `None`
/// before 1970.
fn utc_timestamp(time: std::time::SystemTime) -> Option<Timestamp> {
    let since = time.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(Timestamp {
        unix: i64::try_from(since.as_secs()).ok()?,
        millis: u16::try_from(since.subsec_millis()).ok()?,
        offset_min: 0,
    })
}

/// The time a `--robots-history` file name stands for: `<time>.txt`, the
/// time in RFC 3339 (`2026-11-29T14:00:00+01:00`), in the basic form
/// (`20261129T130000Z`, `20261129T140000+0100`) or a bare date (midnight
/// UTC, as `--since` reads it).
pub fn history_time(name: &str) -> Option<Timestamp> {
    let stem = name.strip_suffix(".txt")?;
    if let Some(t) = parse_rfc3339_or_date(stem) {
        return Some(t);
    }
    // Basic form: YYYYMMDDTHHMMSS then Z or ±HHMM; rewritten into the
    // extended form so that one parser checks the calendar.
    let b = stem.as_bytes();
    if b.len() < 16 || !b[..8].iter().all(u8::is_ascii_digit) || !matches!(b[8], b'T' | b't') {
        return None;
    }
    if !b[9..15].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let zone = &stem[15..];
    let zone_ok = matches!(zone, "Z" | "z")
        || (zone.len() == 5
            && matches!(zone.as_bytes()[0], b'+' | b'-')
            && zone.as_bytes()[1..].iter().all(u8::is_ascii_digit));
    if !zone_ok {
        return None;
    }
    let extended = format!(
        "{}-{}-{}T{}:{}:{}{}",
        &stem[0..4],
        &stem[4..6],
        &stem[6..8],
        &stem[9..11],
        &stem[11..13],
        &stem[13..15],
        zone
    );
    parse_rfc3339_or_date(&extended)
}

/// True for the names a `--robots-history` folder may hold besides
/// versions: hidden files (`.git`, an editor's `.swp`) and a `README`,
/// which a person keeps beside the files to say where they came from.
fn is_ignored_history_name(name: &str) -> bool {
    name.starts_with('.') || name.to_ascii_lowercase().starts_with("readme")
}

/// Every version in a `--robots-history` folder, in name order. A name
/// that is no time (besides the ignored ones) is an error naming it: a
/// typo must not silently drop a version and accuse a crawler.
pub fn read_history(dir: &Path) -> Result<Vec<Entry>> {
    let entries = fs::read_dir(dir).map_err(|source| Error::Open {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::Read {
            path: dir.to_path_buf(),
            at: Position::File,
            source,
        })?;
        names.push(entry.file_name());
    }
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let path = dir.join(&name);
        let Some(text) = name.to_str() else {
            return Err(bad_history_name(&path));
        };
        if is_ignored_history_name(text) {
            continue;
        }
        let in_force_from = history_time(text).ok_or_else(|| bad_history_name(&path))?;
        regular_file(&path)?;
        let (bytes, _, _) = read_limited(&path)?;
        out.push(Entry {
            bytes: Arc::from(bytes),
            in_force_from,
            origin: Origin::History(path),
        });
    }
    Ok(out)
}

/// Refuses a file of a folder the tool reads (a `--robots-history`
/// version, a state's) that is no regular file: a FIFO would wait for a
/// writer for ever, holding the state's lock (SPEC §1: never hang on a
/// FIFO or a device).
pub fn regular_file(path: &Path) -> Result<()> {
    let meta = fs::metadata(path).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::Open {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
    })
}

fn bad_history_name(path: &Path) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        at: Position::File,
        cause: "a --robots-history file is named by the time it came into force, \
                e.g. 2026-11-29T14:00:00+01:00.txt or 20261129T130000Z.txt"
            .into(),
    }
}

/// One robots.txt version on the site's time line. It is parsed when
/// first asked for its rules: a state kept for years, or a history of a
/// CMS's snapshots, holds thousands of versions, and a night needs the
/// few in force during its fetches (`Versions::from_index`).
#[derive(Debug, Clone)]
pub struct Version {
    index: usize,
    bytes: Arc<[u8]>,
    /// SPEC §5 `robots_version`, known without parsing.
    robots_version: Arc<str>,
    robots: OnceLock<Robots>,
    in_force_from: Timestamp,
    /// The later times other sources gave these bytes, merged into the
    /// version (a re-deployment, `--robots-since` after a history that
    /// already held them): kept by the state, so that a version learnt
    /// later between them splits the time line as one run given every
    /// source would (v1 → v2 → v1).
    later_times: Vec<Timestamp>,
    origins: Vec<Origin>,
}

/// Two versions are the same when they hold the same bytes for the same
/// stretch of the time line; the parse follows from the bytes.
impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.index == other.index
            && self.in_force_from == other.in_force_from
            && self.bytes == other.bytes
    }
}

impl Eq for Version {}

impl Version {
    /// Its place on the time line, oldest first: an index for the judge's
    /// per-version compiled rules.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The bytes as read (to one past the limit).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The same, shared (the state keeps them without a copy).
    pub fn bytes_shared(&self) -> &Arc<[u8]> {
        &self.bytes
    }

    /// The file parsed, grouped as a crawler that reads every record does;
    /// parsed on the first call and kept.
    pub fn robots(&self) -> &Robots {
        self.robots.get_or_init(|| self.parse())
    }

    /// The file parsed anew, not kept: the judge lets each version's parse
    /// go once its rules are compiled.
    pub fn parse(&self) -> Robots {
        Robots::from_shared(Arc::clone(&self.bytes), Arc::clone(&self.robots_version))
    }

    /// SPEC §5 `robots_version`.
    pub fn robots_version(&self) -> &str {
        &self.robots_version
    }

    /// When it came into force, as its earliest source says.
    pub fn in_force_from(&self) -> Timestamp {
        self.in_force_from
    }

    /// Every time a source gave these bytes for this stretch of the time
    /// line: when it came into force, then the later ones merged into it.
    pub fn source_times(&self) -> impl Iterator<Item = Timestamp> + '_ {
        std::iter::once(self.in_force_from).chain(self.later_times.iter().copied())
    }

    /// Every source that gave these bytes for this stretch of time,
    /// earliest first.
    pub fn origins(&self) -> &[Origin] {
        &self.origins
    }
}

/// The versions of a site, oldest first; never empty.
#[derive(Debug, Clone)]
pub struct Versions {
    list: Vec<Version>,
}

impl Versions {
    /// Merges the sources into one time line: sorted by time; entries
    /// next to each other in time with the same bytes are one version in
    /// force from the earliest of their times, while a revert
    /// (v1 → v2 → v1) stays three versions. Two different files in force
    /// from the same instant are an error naming both: which one the
    /// crawler had cannot be told.
    pub fn merge(mut entries: Vec<Entry>) -> Result<Versions> {
        entries.sort_by(|a, b| {
            a.in_force_from
                .instant_ms()
                .cmp(&b.in_force_from.instant_ms())
                .then_with(|| a.bytes.cmp(&b.bytes))
        });
        let mut list: Vec<Version> = Vec::new();
        // The instant of the entry taken before: a version's own time is
        // its earliest source's, and a later source of the same bytes
        // (merged into it) may tie with a different file all the same.
        let mut previous_ms: Option<i64> = None;
        for entry in entries {
            let entry_ms = entry.in_force_from.instant_ms();
            let same_time = previous_ms == Some(entry_ms);
            previous_ms = Some(entry_ms);
            if let Some(last) = list.last_mut() {
                // The last source taken is the last version's last origin.
                let same_bytes = *last.bytes == *entry.bytes;
                if same_bytes {
                    last.origins.push(entry.origin);
                    let known = std::iter::once(&last.in_force_from)
                        .chain(&last.later_times)
                        .any(|t| t.instant_ms() == entry_ms);
                    if !known {
                        last.later_times.push(entry.in_force_from);
                    }
                    continue;
                }
                if same_time {
                    return Err(Error::Format {
                        path: entry.origin.path().to_path_buf(),
                        at: Position::File,
                        cause: format!(
                            "differs from {}, yet both came into force at {}: \
                             give one of them another time",
                            last.origins.last().map_or(String::new(), |o| o.to_string()),
                            entry.in_force_from.rfc3339()
                        ),
                    });
                }
            }
            list.push(Version {
                index: list.len(),
                robots_version: version_of(&entry.bytes),
                bytes: entry.bytes,
                robots: OnceLock::new(),
                in_force_from: entry.in_force_from,
                later_times: Vec::new(),
                origins: vec![entry.origin],
            });
        }
        if list.is_empty() {
            return Err(Error::Usage(
                "no robots.txt: give --robots FILE, --robots-history DIR, \
                 or a --state that holds versions"
                    .into(),
            ));
        }
        Ok(Versions { list })
    }

    /// The versions of every source: `--robots` (dated by
    /// `--robots-since` or its modification time), `--robots-history`,
    /// and those kept in the state (`kept`), merged.
    pub fn gather(sources: &RobotsSources, kept: Vec<Entry>) -> Result<Versions> {
        let mut entries = kept;
        if let Some(dir) = &sources.history {
            entries.extend(read_history(dir)?);
        }
        if let Some(file) = &sources.file {
            let entry = Entry::from_robots(file, sources.since)?;
            let latest = entries.iter().max_by_key(|e| e.in_force_from.instant_ms());
            match latest {
                Some(latest) if matches!(entry.origin, Origin::Modified(_)) => {
                    if latest.bytes == entry.bytes {
                        // The latest version known (the state, the
                        // history) with the file's very bytes. An earlier
                        // modification time is the earliest of the times
                        // these bytes have (SPEC §6) when it falls after
                        // the version before them; one before that version
                        // would put these bytes in force before it too (a
                        // copy that kept an old time), so the known date
                        // stands. A later one adds nothing. A date the
                        // state keeps stands too: the night that saved it
                        // had the file as it is, or a --robots-since that
                        // corrected its time.
                        let latest_ms = latest.in_force_from.instant_ms();
                        let modified_ms = entry.in_force_from.instant_ms();
                        let kept = entries.iter().any(|e| {
                            matches!(e.origin, Origin::State(_))
                                && e.bytes == entry.bytes
                                && e.in_force_from.instant_ms() == latest_ms
                        });
                        let earlier = !kept && modified_ms < latest_ms;
                        let after_previous = entries
                            .iter()
                            .filter(|e| e.bytes != entry.bytes)
                            .map(|e| e.in_force_from.instant_ms())
                            .filter(|&t| t < latest_ms)
                            .max()
                            .is_none_or(|previous| previous < modified_ms);
                        if earlier && after_previous {
                            entries.push(entry);
                        }
                    } else if latest.in_force_from.instant_ms() > entry.in_force_from.instant_ms() {
                        // Dated by a modification time older than a later
                        // version with other bytes (deployed by `rsync -a`,
                        // `cp -p` or from a backup, which keep the old
                        // time), it would never be in force: every night
                        // would be judged by the later one. Its time is
                        // unknown, and no verdict is given on a guess.
                        return Err(Error::Format {
                            path: file.clone(),
                            at: Position::File,
                            cause: format!(
                                "its modification time, {}, is older than the version from {} \
                                 in force from {}, whose bytes differ: as dated, it would never \
                                 be in force. Say when it came into force with --robots-since \
                                 TIME (once: the state keeps the date), or `touch` it if it \
                                 came into force just now",
                                entry.in_force_from.rfc3339(),
                                latest.origin,
                                latest.in_force_from.rfc3339()
                            ),
                        });
                    } else {
                        entries.push(entry);
                    }
                }
                // A pipe gives no time its bytes came into force: the same
                // bytes as the latest version add nothing, and other bytes
                // are refused rather than dated by the moment they were
                // read, which would judge the hours before by the old
                // version, the crawler's re-read of the new one or not.
                Some(latest) if matches!(entry.origin, Origin::Piped(_)) => {
                    if latest.bytes != entry.bytes {
                        return Err(Error::Format {
                            path: file.clone(),
                            at: Position::File,
                            cause: format!(
                                "it is a pipe, which does not say when its robots.txt came into \
                                 force, and its bytes differ from the version from {} in force \
                                 from {}: say when they came into force with --robots-since TIME \
                                 (once: the state keeps the date), or give the deployed file",
                                latest.origin,
                                latest.in_force_from.rfc3339()
                            ),
                        });
                    }
                }
                _ => entries.push(entry),
            }
        }
        Versions::merge(entries)
    }

    /// The latest version.
    pub fn latest(&self) -> &Version {
        // Never empty: `merge` refuses an empty time line.
        &self.list[self.list.len() - 1]
    }

    /// Every version, oldest first.
    pub fn all(&self) -> &[Version] {
        &self.list
    }

    /// The time line from the version at `first` on, indexed anew from 0:
    /// from the version in force at an instant (`index_at`), the same
    /// versions in force at every moment from then (the first of them,
    /// now the oldest, was in force then already or is the oldest of
    /// all). A night is judged by this part, so that the versions of years
    /// before are neither parsed nor compiled.
    pub fn from_index(&self, first: usize) -> Versions {
        let first = first.min(self.list.len() - 1);
        let list = self.list[first..]
            .iter()
            .enumerate()
            .map(|(index, version)| Version {
                index,
                ..version.clone()
            })
            .collect();
        Versions { list }
    }

    /// The index of the version in force at `instant_ms`: the latest that
    /// came into force at or before it; before the oldest, the oldest.
    pub fn index_at(&self, instant_ms: i64) -> usize {
        self.list
            .partition_point(|v| v.in_force_from.instant_ms() <= instant_ms)
            .saturating_sub(1)
    }

    /// The version in force at `instant_ms`.
    pub fn at(&self, instant_ms: i64) -> &Version {
        &self.list[self.index_at(instant_ms)]
    }

    /// Every version in force at some moment of `[from_ms, to_ms]`, oldest
    /// first (the two ends in either order).
    pub fn during(&self, from_ms: i64, to_ms: i64) -> impl Iterator<Item = &Version> {
        let (from, to) = match from_ms.cmp(&to_ms) {
            Ordering::Greater => (to_ms, from_ms),
            _ => (from_ms, to_ms),
        };
        self.list[self.index_at(from)..=self.index_at(to)].iter()
    }

    /// The version after `version`, if any: when it stops being in force.
    pub fn next(&self, version: &Version) -> Option<&Version> {
        self.list.get(version.index + 1)
    }
}

#[cfg(test)]
#[path = "versions_tests.rs"]
mod tests;
