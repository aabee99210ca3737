//! The robots.txt a crawler may rely on (SPEC §6; RFC 9309 §2.3.1 and
//! §2.4): takes one count's fetches in order (time, file, line) and the
//! site's robots.txt versions; gives, for each fetch, its standing — the
//! versions of the cache window [max(L, t − G), t], a 4xx period (no rows)
//! or a 5xx outage (complete disallow) — and the `disallow` decision:
//! accuse, excused by the cache grace, or allowed. Pure: no I/O.
//!
//! How the judge uses it: one [`Tracker`] per count (as rates are
//! counted), resumed from the state's [`Memory`] when there is one. For
//! each counted fetch, in order, `let standing = tracker.judge(time,
//! target, status)`; then [`decide`] with the version's compiled verdict
//! for the disallow row (`Decision::Excused` is counted in run.json), and
//! `standing.judges_limits()` says whether rate and delay rows are made
//! (with the rates of `versions.at(t)`: the grace does not soften them).
//! At the end, `tracker.memory()` goes into the state.

use super::matcher::{is_robots_txt, is_robots_txt_exactly};
use super::versions::{Version, Versions};
use crate::accesslog::time::Timestamp;

/// RFC 9309 §2.3.1.4 via SPEC §6: an outage lets the versions apply again
/// after 30 days from its first 5xx.
pub const OUTAGE_LIMIT_MS: i64 = 30 * 86_400_000;

/// The default `--robots-grace`: RFC 9309 §2.4's 24 hours.
pub const DEFAULT_GRACE_MS: i64 = 86_400_000;

/// A fetch of `/robots.txt` by the count, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RobotsFetch {
    pub time: Timestamp,
    pub status: u16,
}

/// What a count's tracker knows of its fetches of `/robots.txt` so far;
/// what the state keeps for the next night.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// The last fetch of `/robots.txt` whose status says something.
    pub last_fetch: Option<RobotsFetch>,
    /// L: the instant of the last 2xx fetch (a 304 is no 2xx).
    pub last_success_ms: Option<i64>,
    /// The instant of the first 5xx of the outage going on, if one is.
    pub outage_since_ms: Option<i64>,
    /// The last 5xx of that outage: the row's rule names it.
    pub outage_last: Option<RobotsFetch>,
    /// The latest fetches of `/robots.txt` that tell something (those
    /// `last_fetch` would take), older logs' included, in time order: for
    /// a fetch older than what the memory knows, whether the last of them
    /// before it got a 4xx (`standing`), also across nights audited out
    /// of order.
    pub recent: Recent,
    /// Since when `recent` holds every fetch of `/robots.txt` the count
    /// took in that it would keep, but those its full slots let go:
    /// `None` when that is not known (a state of an earlier version, a
    /// count carried over from another `--rate-by`).
    pub whole_since_ms: Option<i64>,
    /// Whether the runs that filled `recent` could verify (an unverified
    /// client's fetch then kept apart, its 2xx not at all); `None`, not
    /// known.
    pub verifying: Option<bool>,
}

/// How many fetches of `/robots.txt` by the crawler's own addresses a
/// count remembers (`Memory::recent`): days of them, at a few an hour.
pub const RECENT: usize = 256;
/// How many 4xx of unverified clients it remembers beside them, apart, so
/// that a flood of them pushes out none of the crawler's own.
pub const RECENT_UNVERIFIED: usize = 64;

/// The newest fetches of `/robots.txt` taken in, oldest first: the
/// crawler's own (`RECENT`), and unverified clients' 4xx
/// (`RECENT_UNVERIFIED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recent {
    own: [Option<RobotsFetch>; RECENT],
    unverified: [Option<RobotsFetch>; RECENT_UNVERIFIED],
}

impl Default for Recent {
    fn default() -> Recent {
        Recent {
            own: [None; RECENT],
            unverified: [None; RECENT_UNVERIFIED],
        }
    }
}

impl Recent {
    /// The crawler's own fetches, oldest first.
    pub fn own(&self) -> impl Iterator<Item = &RobotsFetch> {
        self.own.iter().flatten()
    }

    /// Unverified clients' 4xx, oldest first.
    pub fn unverified(&self) -> impl Iterator<Item = &RobotsFetch> {
        self.unverified.iter().flatten()
    }

    /// Takes in `fetch` (by the crawler's own address when `trusted`) at
    /// its place in time, after those of the same instant, keeping the
    /// newest of its kind.
    pub fn insert(&mut self, fetch: RobotsFetch, trusted: bool) {
        fn put<const N: usize>(slots: &mut [Option<RobotsFetch>; N], fetch: RobotsFetch) {
            let mut all: Vec<RobotsFetch> = slots.iter().flatten().copied().collect();
            let at = all.partition_point(|f| f.time.instant_ms() <= fetch.time.instant_ms());
            all.insert(at, fetch);
            let drop = all.len().saturating_sub(N);
            *slots = [None; N];
            for (slot, fetch) in slots.iter_mut().zip(all.into_iter().skip(drop)) {
                *slot = Some(fetch);
            }
        }
        if trusted {
            put(&mut self.own, fetch);
        } else {
            put(&mut self.unverified, fetch);
        }
    }

    /// Whether no fetch taken in at or after `from_ms` was let go: a kind
    /// whose slots are all taken may have let go older ones, and those of
    /// the instant of its oldest.
    fn kept_since(&self, from_ms: i64) -> bool {
        fn kept<const N: usize>(slots: &[Option<RobotsFetch>; N], from_ms: i64) -> bool {
            match slots.first() {
                Some(Some(oldest)) if slots.iter().all(Option::is_some) => {
                    oldest.time.instant_ms() < from_ms
                }
                _ => true,
            }
        }
        kept(&self.own, from_ms) && kept(&self.unverified, from_ms)
    }

    /// How many fetches are kept at the instant `ms`, of both kinds.
    fn at_instant(&self, ms: i64) -> usize {
        self.own()
            .chain(self.unverified())
            .filter(|f| f.time.instant_ms() == ms)
            .count()
    }

    /// The last fetch at or before `t_ms` (of the two kinds, the later;
    /// at one instant, the crawler's own).
    pub fn last_at_or_before(&self, t_ms: i64) -> Option<RobotsFetch> {
        let last = |fetches: &mut dyn Iterator<Item = &RobotsFetch>| {
            fetches
                .filter(|f| f.time.instant_ms() <= t_ms)
                .last()
                .copied()
        };
        later(last(&mut self.own()), last(&mut self.unverified()))
    }
}

/// The later of two fetches; at one instant, `first`.
fn later(first: Option<RobotsFetch>, second: Option<RobotsFetch>) -> Option<RobotsFetch> {
    match (first, second) {
        (Some(first), Some(second)) if second.time.instant_ms() > first.time.instant_ms() => {
            Some(second)
        }
        (first, second) => first.or(second),
    }
}

/// How a fetch stands, from the count's fetches of `/robots.txt` before
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// The versions in force during `[window_from_ms, t]` decide.
    Versions { window_from_ms: i64 },
    /// The last fetch of `/robots.txt` got this 4xx: the crawler may fetch
    /// anything (RFC 9309 §2.3.1.3); no rows of any kind.
    Unrestricted(RobotsFetch),
    /// robots.txt is unreachable (RFC 9309 §2.3.1.4), as this last 5xx
    /// showed: everything but `/robots.txt` is disallowed.
    Unreachable(RobotsFetch),
}

impl Standing {
    /// Whether `request-rate` and `crawl-delay` rows may be made: not in a
    /// 4xx period (the fetch still counts for later ones).
    pub fn judges_limits(&self) -> bool {
        !matches!(self, Standing::Unrestricted(_))
    }
}

/// The `rule` text of a `robots-unreachable` row.
pub fn unreachable_rule(last: &RobotsFetch) -> String {
    format!(
        "robots.txt unreachable: {} at {}",
        last.status,
        last.time.rfc3339()
    )
}

/// True when a fetch refreshes the crawler's copy of robots.txt (SPEC §6):
/// the target `/robots.txt` exactly, no query, an absolute URL cut down;
/// any method counts. Not an escaped spelling (`/robots%2Etxt`): no
/// crawler asks for robots.txt so, and SPEC says "exactly". Such a fetch
/// is still always allowed (`is_robots_txt`, SPEC §3's normalisation).
pub fn is_robots_fetch(target: &[u8]) -> bool {
    is_robots_txt_exactly(target)
}

/// The statuses that say nothing about robots.txt: none logged, or one
/// outside 100–599. nginx's 499 (the client closed the connection) is a
/// 4xx as SPEC §6 words it: it starts a 4xx period, which only ever
/// spares rows.
fn tells(status: Option<u16>) -> Option<u16> {
    status.filter(|s| (100..=599).contains(s))
}

/// One count's view of robots.txt over time.
#[derive(Debug, Clone)]
pub struct Tracker {
    grace_ms: i64,
    memory: Memory,
    /// The last fetch of `/robots.txt` this run took in that was older
    /// than what the memory knew: the older log's own, which the memory's
    /// `recent` may not keep past its bounds.
    older_last: Option<RobotsFetch>,
}

impl Tracker {
    /// A count with no known fetch of `/robots.txt` (L = −∞): every one
    /// it takes in is remembered.
    pub fn new(grace_ms: i64) -> Tracker {
        Tracker::resume(
            Memory {
                whole_since_ms: Some(i64::MIN),
                ..Memory::default()
            },
            grace_ms,
        )
    }

    /// A count as the state left it after an earlier night.
    pub fn resume(memory: Memory, grace_ms: i64) -> Tracker {
        Tracker {
            grace_ms: grace_ms.max(0),
            memory,
            older_last: None,
        }
    }

    /// Takes up a memory for a run that verifies or not (`verifies`).
    /// What an earlier version kept, or a run that verified nobody (its
    /// every fetch of `/robots.txt` the crawler's own, an unverified
    /// client's 2xx among them), tells nothing to a run that verifies of
    /// the fetches before the latest it knows.
    pub fn take_over(&mut self, verifies: bool) {
        let alike = match self.memory.verifying {
            Some(verifying) => verifying || !verifies,
            None => false,
        };
        if self.memory.whole_since_ms.is_none() || !alike {
            self.memory.whole_since_ms = Some(self.latest_ms().unwrap_or(i64::MIN));
        }
        self.memory.verifying = Some(verifies);
    }

    /// What to keep for the next night.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The instant of the latest fetch of `/robots.txt` the memory
    /// knows of.
    fn latest_ms(&self) -> Option<i64> {
        let m = &self.memory;
        [
            m.last_fetch.map(|f| f.time.instant_ms()),
            m.last_success_ms,
            m.outage_since_ms,
            m.outage_last.map(|f| f.time.instant_ms()),
        ]
        .into_iter()
        .flatten()
        .max()
    }

    /// The standing of the count's next fetch if it comes at `t_ms`.
    pub fn standing(&self, t_ms: i64) -> Standing {
        let m = &self.memory;
        if self.latest_ms().is_some_and(|latest| latest > t_ms) {
            // A fetch from before what the state remembers (a line written
            // late at the end of last night's log, a backlog, a line of a
            // server whose clock ran years ahead): the fetches of
            // /robots.txt before it may be forgotten, so what stood at t
            // is known only in part. Nothing is assumed against the
            // crawler: L is the last 2xx known before t (below), no
            // outage. What is remembered of the fetches of /robots.txt
            // before t (the older log's own, and those of nights audited
            // before) may only spare rows: the last of them got a 4xx, so
            // no rows (RFC 9309 §2.3.1.3), as one run over all the logs
            // would have it.
            let own_log = self.older_last.filter(|f| f.time.instant_ms() <= t_ms);
            let known = later(own_log, m.recent.last_at_or_before(t_ms));
            if let Some(fetch) = known
                && (400..500).contains(&fetch.status)
            {
                return Standing::Unrestricted(fetch);
            }
            // A 4xx remembered from after t may have begun before it, with
            // the fetches before it forgotten: no rows. Not when the
            // remembered fetches tell that none stood at t: the last at or
            // before it a 2xx (no 4xx period, no outage), none let go since
            // and none beside it at its instant (whose order the memory
            // does not keep). A 4xx after t, a future-dated line's among
            // them, then began after it.
            let told = known.is_some_and(|f| {
                let at = f.time.instant_ms();
                (200..300).contains(&f.status)
                    && m.whole_since_ms.is_some_and(|since| since <= at)
                    && m.recent.kept_since(at)
                    && m.recent.at_instant(at) <= 1
            });
            if !told
                && let Some(fetch) = m.last_fetch
                && (400..500).contains(&fetch.status)
            {
                return Standing::Unrestricted(fetch);
            }
            // L: the last 2xx known at or before t, the state's own or
            // one remembered among the crawler's fetches. One forgotten
            // between it and t would only narrow the window, so the one
            // known can only spare rows; none known, the whole grace.
            let known_success = m
                .recent
                .own()
                .filter(|f| (200..300).contains(&f.status))
                .map(|f| f.time.instant_ms())
                .chain(m.last_success_ms)
                .filter(|&l| l <= t_ms)
                .max();
            let by_grace = t_ms.saturating_sub(self.grace_ms);
            return Standing::Versions {
                window_from_ms: known_success.map_or(by_grace, |l| l.max(by_grace)),
            };
        }
        if let (Some(first), Some(last)) = (m.outage_since_ms, m.outage_last)
            && t_ms.saturating_sub(first) <= OUTAGE_LIMIT_MS
        {
            return Standing::Unreachable(last);
        }
        if let Some(fetch) = m.last_fetch
            && (400..500).contains(&fetch.status)
        {
            return Standing::Unrestricted(fetch);
        }
        let by_grace = t_ms.saturating_sub(self.grace_ms);
        Standing::Versions {
            window_from_ms: m.last_success_ms.map_or(by_grace, |l| l.max(by_grace)),
        }
    }

    /// Takes in a fetch of the count, if it is one of `/robots.txt`.
    pub fn observe(&mut self, time: Timestamp, target: &[u8], status: Option<u16>) {
        self.observe_as(time, target, status, true);
    }

    /// `observe`, for a fetch whose client is `trusted` (its PTR name
    /// matches the crawler's) or not (`unverified`: only its user agent
    /// says it is the crawler, which anyone can write). An untrusted fetch
    /// of /robots.txt may only spare rows: its 4xx starts a 4xx period
    /// (no rows) and its 2xx ends an outage (no `robots-unreachable`
    /// rows), but it neither sets L (a narrower grace), nor ends a 4xx
    /// period, nor starts an outage: one request with a made-up user
    /// agent (`FOO /robots.txt` answered 501) must not accuse the genuine
    /// crawler.
    pub fn observe_as(
        &mut self,
        time: Timestamp,
        target: &[u8],
        status: Option<u16>,
        trusted: bool,
    ) {
        if !is_robots_fetch(target) {
            return;
        }
        let Some(status) = tells(status) else {
            return;
        };
        if self
            .latest_ms()
            .is_some_and(|latest| latest > time.instant_ms())
        {
            // Older than what the memory holds: it would overwrite later
            // knowledge with earlier. Remembered in its place in time, for
            // the older fetches after it (`standing`).
            if trusted || (400..500).contains(&status) {
                let fetch = RobotsFetch { time, status };
                self.memory.recent.insert(fetch, trusted);
                self.older_last = Some(fetch);
            }
            return;
        }
        let fetch = RobotsFetch { time, status };
        let m = &mut self.memory;
        // An untrusted fetch's last status stands only when it is a 4xx:
        // any other would end a 4xx period.
        if trusted || (400..500).contains(&status) {
            m.last_fetch = Some(fetch);
            m.recent.insert(fetch, trusted);
        }
        match status {
            200..=299 => {
                if trusted {
                    m.last_success_ms = Some(time.instant_ms());
                }
                m.outage_since_ms = None;
                m.outage_last = None;
            }
            400..=499 => {
                m.outage_since_ms = None;
                m.outage_last = None;
            }
            500..=599 if trusted => {
                m.outage_since_ms.get_or_insert(time.instant_ms());
                m.outage_last = Some(fetch);
            }
            // 1xx and 3xx (a 304 too): the last fetch is no longer a 4xx,
            // which ends a 4xx period; an outage goes on.
            _ => {}
        }
    }

    /// The standing of a fetch (from the fetches of `/robots.txt` before
    /// it in order), then takes it in. A fetch of `/robots.txt` is thus
    /// judged by what came before it; it is always allowed anyway.
    pub fn judge(&mut self, time: Timestamp, target: &[u8], status: Option<u16>) -> Standing {
        self.judge_as(time, target, status, true)
    }

    /// `judge`, for a fetch `trusted` or not (`observe_as`).
    pub fn judge_as(
        &mut self,
        time: Timestamp,
        target: &[u8],
        status: Option<u16>,
        trusted: bool,
    ) -> Standing {
        let standing = self.standing(time.instant_ms());
        self.observe_as(time, target, status, trusted);
        standing
    }
}

/// The `disallow` decision for a fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision<'v> {
    /// No row.
    Allowed,
    /// Every version of the window disallows it: a row naming the deciding
    /// rule of this version, the one in force at t.
    Accuse(&'v Version),
    /// The version in force at t (`now`) disallows it but others of the
    /// window allow it (`by`, oldest first): no row, counted as excused by
    /// the cache grace; the versions that allowed it were used that night.
    Excused {
        now: &'v Version,
        by: Vec<&'v Version>,
    },
    /// A `robots-unreachable` row with this rule text.
    Unreachable(String),
}

/// Decides a fetch of `target` at `t_ms` with its `standing`;
/// `disallows(version)` is that version's verdict for the crawler (the
/// judge's compiled rules, by [`Version::index`]). Asks only the versions
/// it needs, the one in force at t first.
pub fn decide<'v>(
    versions: &'v Versions,
    standing: &Standing,
    t_ms: i64,
    target: &[u8],
    mut disallows: impl FnMut(&Version) -> bool,
) -> Decision<'v> {
    match standing {
        Standing::Unrestricted(_) => Decision::Allowed,
        Standing::Unreachable(_) if is_robots_txt(target) => Decision::Allowed,
        Standing::Unreachable(last) => Decision::Unreachable(unreachable_rule(last)),
        Standing::Versions { window_from_ms } => {
            let now = versions.at(t_ms);
            if !disallows(now) {
                return Decision::Allowed;
            }
            // Every other version of the window is asked, so that the
            // page can name each one that excused a fetch.
            let by: Vec<&Version> = versions
                .during(*window_from_ms, t_ms)
                .filter(|v| v.index() != now.index() && !disallows(v))
                .collect();
            if by.is_empty() {
                Decision::Accuse(now)
            } else {
                Decision::Excused { now, by }
            }
        }
    }
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
