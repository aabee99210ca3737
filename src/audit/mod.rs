//! Judging crawler fetches against robots.txt (SPEC §4): pure functions
//! over fetches already identified and verified. `disallow` asks the
//! compiled matcher; `rate` and `delay` walk each count in time order.

pub mod delay;
pub mod disallow;
pub mod rate;
mod times;

use std::borrow::Cow;

use crate::config::{RateBy, WindowTz};
use crate::crawler::profile::Profile;
use crate::crawler::verify::{IdentifiedBy, Verification};
use crate::fetch::Fetch;
use crate::robots::AgentRules;
use crate::robots::cache::{self, Decision, Standing, Tracker};
use crate::robots::group::Reads;
use crate::robots::parse::Directive;
use crate::robots::versions::Versions;

/// One counted fetch of a crawler: identified, not spoofed. Wraps the
/// record the scan made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    pub fetch: Fetch,
    /// Index into the audit's `Policy` list.
    pub crawler: usize,
    pub verification: Verification,
    pub identified_by: IdentifiedBy,
}

/// The kinds of violation; their declaration order is their string order,
/// which is the order of rows for one fetch and of summary rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    CrawlDelay,
    Disallow,
    RequestRate,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::CrawlDelay, Kind::Disallow, Kind::RequestRate];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::CrawlDelay => "crawl-delay",
            Kind::Disallow => "disallow",
            Kind::RequestRate => "request-rate",
        }
    }
}

/// One row of `violations.csv`, beside the fetch it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation<'r> {
    pub kind: Kind,
    /// The group holding the deciding rule, as reports name it (its
    /// user-agent values, `|`-joined), borrowed from the compiled rules.
    pub group: &'r str,
    pub rule_line: usize,
    /// The deciding line as written, borrowed from the compiled rules (or
    /// made: SPEC §6 `robots.txt unreachable: <status> at <time>`).
    pub rule: Cow<'r, str>,
    /// SPEC §5 `robots_version` of the robots.txt that decided.
    pub robots_version: &'r str,
    pub detail: String,
    pub note: &'static str,
}

/// The note on a row of a rule the crawler does not read (SPEC §3): it
/// informs, it does not accuse.
pub const NOT_READ_BY_CRAWLER: &str = "not-read-by-crawler";

/// The note on a `disallow` row made while robots.txt was unreachable
/// (SPEC §6): the crawler had to assume complete disallow, so it accuses.
pub const ROBOTS_UNREACHABLE: &str = "robots-unreachable";

/// Notes that mark a row as information rather than an accusation: such a
/// row never makes the exit status 1 (SPEC §5).
pub const INFORMING_NOTES: [&str; 2] = [disallow::HOMEPAGE_EXCEPTION, NOT_READ_BY_CRAWLER];

impl Violation<'_> {
    /// True when the row accuses the crawler; false when its note only
    /// informs.
    pub fn accuses(&self) -> bool {
        !INFORMING_NOTES.contains(&self.note)
    }
}

/// How one crawler is judged: its name, the robots.txt rules for its token,
/// and the crawler's own documented habits.
#[derive(Clone)]
pub struct Policy<'r> {
    pub name: String,
    /// The robots.txt token; crawlers sharing it share a rate count.
    pub token: String,
    pub rules: &'r AgentRules,
    /// SPEC §5 `robots_version` of the rows: the version the rules were
    /// compiled for, or another of the same records that shares them.
    pub version: &'r str,
    /// The slowest rate the crawler honours: `(fetches, seconds)`; slower
    /// written rates are read as this (Seznam: 1 per 30 s).
    pub rate_floor: Option<(u32, u64)>,
    /// Seznam fetches `/` even under `User-agent: *` + `Disallow: /`.
    pub homepage_exception: bool,
    /// The extension records the crawler reads; rows of a limit it does
    /// not read carry [`NOT_READ_BY_CRAWLER`].
    pub reads: Reads,
}

impl<'r> Policy<'r> {
    /// How the crawler of `profile` is judged by `rules`, the rules
    /// compiled for its token and the records it reads.
    pub fn new(profile: &Profile, rules: &'r AgentRules) -> Policy<'r> {
        Policy {
            name: profile.name.clone(),
            token: profile.token.clone(),
            rules,
            version: rules.version(),
            rate_floor: profile
                .rate_floor
                .map(|f| (f.fetches, u64::from(f.seconds))),
            homepage_exception: profile.homepage_exception,
            reads: profile.reads,
        }
    }

    /// The note for a row decided by a `directive` line.
    pub(crate) fn limit_note(&self, directive: Directive) -> &'static str {
        if self.reads.reads(directive) {
            ""
        } else {
            NOT_READ_BY_CRAWLER
        }
    }
}

/// Settings of the rate and delay counts.
#[derive(Debug, Clone)]
pub struct Counting {
    pub rate_by: RateBy,
    pub window_tz: WindowTz,
}

/// Settings of a night's audit (SPEC §6): the versions of robots.txt and
/// how long a crawler may rely on its copy.
#[derive(Debug, Clone, Copy)]
pub struct Nights<'v> {
    pub versions: &'v Versions,
    pub grace_ms: i64,
}

/// The streaming judge: fed counted fetches in the order of SPEC §4 (the
/// instant, then file, then line), it gives each fetch's rows as soon as
/// the fetch comes. Holds, per count, only the times inside the longest
/// period or delay in force and what it knows of the count's fetches of
/// `/robots.txt`, so its memory does not grow with the log.
pub struct Judge<'p, 'r> {
    /// Per robots.txt version (one without `nights`), per crawler.
    policies: &'p [Vec<Policy<'r>>],
    nights: Option<Nights<'p>>,
    /// Which count each crawler feeds.
    count_of: Vec<usize>,
    /// Each count's name: its robots.txt token in lower case, or the
    /// crawler's name with `--rate-by crawler`.
    names: Vec<String>,
    counts: Vec<rate::Count>,
    /// Per count, when the run verifies and a fetch the evidence did not
    /// back (`unverified`) has joined it: the count of the others alone,
    /// which the rates and delays of a verified or named crawler's fetch
    /// are judged by. A flood of requests that only claim the crawler,
    /// from addresses whose reverse zone fails, must not push the genuine
    /// crawler over its rate: they are counted against one another and
    /// the crawler's own, never against the crawler.
    proven: Vec<Option<rate::Count>>,
    trackers: Vec<Tracker>,
    window_tz: WindowTz,
    /// Fetches that the version in force disallows but another version of
    /// the cache window allows (SPEC §6).
    pub excused: u64,
    /// The versions (by `Version::index`) that allowed a fetch so excused:
    /// used by the night though maybe in force only before it.
    pub excused_by: std::collections::BTreeSet<usize>,
    /// The run can tell the crawler's addresses (`--ptr-map`, `--resolve`):
    /// an `unverified` fetch is then one the evidence did not back, whose
    /// fetch of /robots.txt may only spare rows. Without, every fetch is
    /// unverified alike and each counts in full (SPEC §6).
    pub verifies: bool,
}

/// What a count leaves for the next night.
pub struct Memory<'j> {
    pub name: &'j str,
    /// Its fetches of `/robots.txt`.
    pub robots_txt: cache::Memory,
    /// Its latest fetch times, ascending.
    pub times: Vec<i64>,
    /// Those of them by clients the evidence backed, when others joined
    /// the count (`Judge::proven`).
    pub proven: Option<Vec<i64>>,
    /// How far back from the latest it keeps them, in milliseconds
    /// (`Count::kept_ms`).
    pub kept_ms: i64,
}

/// The name of the count a crawler feeds under `rate_by`, as the state
/// keeps it: its robots.txt product token in lower case, or its own name.
fn count_name(policy: &Policy<'_>, rate_by: RateBy) -> String {
    match rate_by {
        RateBy::Token => crate::robots::agent::robot_of(&policy.token),
        RateBy::Crawler => policy.name.clone(),
    }
}

/// The name an older version's state kept a token's count under: the
/// token as written, in lower case (`seznambot/4.0`), where counts now go
/// by the product token (`count_name`).
fn written_token_name(policy: &Policy<'_>) -> String {
    policy.token.to_ascii_lowercase()
}

impl<'p, 'r> Judge<'p, 'r> {
    /// `policies` holds one list of crawlers' policies per robots.txt
    /// version (the versions of `nights`, in their order), or one list
    /// without `nights`: then SPEC §6 does not apply.
    pub fn new(
        policies: &'p [Vec<Policy<'r>>],
        nights: Option<Nights<'p>>,
        counting: &Counting,
    ) -> Judge<'p, 'r> {
        let crawlers = policies.first().map_or(&[][..], |p| &p[..]);
        let mut keys: Vec<String> = Vec::new();
        let count_of: Vec<usize> = crawlers
            .iter()
            .map(|policy| {
                let key = count_name(policy, counting.rate_by);
                keys.iter().position(|k| *k == key).unwrap_or_else(|| {
                    keys.push(key);
                    keys.len() - 1
                })
            })
            .collect();
        let counts = (0..keys.len())
            .map(|count| {
                let feeding = policies.iter().flat_map(|version| {
                    version
                        .iter()
                        .zip(&count_of)
                        .filter(move |&(_, &c)| c == count)
                        .map(|(p, _)| p)
                });
                rate::Count::new(feeding)
            })
            .collect();
        let grace = nights.map_or(0, |n| n.grace_ms);
        Judge {
            policies,
            nights,
            count_of,
            trackers: vec![Tracker::new(grace); keys.len()],
            proven: vec![None; keys.len()],
            names: keys,
            counts,
            window_tz: counting.window_tz.clone(),
            excused: 0,
            excused_by: std::collections::BTreeSet::new(),
            verifies: false,
        }
    }

    /// Takes up a count where an earlier night left it (SPEC §6
    /// "State"): what it knows of its fetches of `/robots.txt`, and its
    /// latest fetch times, ascending, and those of them by clients the
    /// evidence backed when others joined the count (`proven`). Set
    /// `verifies` first: a run that verifies nobody counts every fetch
    /// alike, so it takes up the whole count.
    /// False when no count of this run has that name (the state was kept
    /// under the other `--rate-by`): nothing is carried.
    pub fn resume(
        &mut self,
        name: &str,
        robots_txt: cache::Memory,
        times: &[i64],
        proven: Option<&[i64]>,
    ) -> bool {
        let Some(i) = self.names.iter().position(|n| n == name) else {
            return false;
        };
        let grace = self.nights.map_or(0, |n| n.grace_ms);
        self.trackers[i] = Tracker::resume(robots_txt, grace);
        self.trackers[i].take_over(self.verifies);
        if let Some(proven) = proven.filter(|_| self.verifies) {
            let mut count = self.counts[i].clone();
            count.resume(proven);
            self.proven[i] = Some(count);
        }
        self.counts[i].resume(times);
        true
    }

    /// Tonight's token counts that a state of an older version kept apart
    /// under tokens as written (`seznambot` and `seznambot/4.0`, now one
    /// count), `state_has` telling the names the state holds: none of
    /// their parts may be taken up as if it were the whole (one part's
    /// robots.txt outage would be charged to the other's fetches), so
    /// they go with the counts of another `--rate-by`.
    pub fn merged_by_upgrade(&self, state_has: impl Fn(&str) -> bool) -> Vec<String> {
        let Some(policies) = self.policies.first() else {
            return Vec::new();
        };
        let mut merged: Vec<String> = Vec::new();
        for (policy, &count) in policies.iter().zip(&self.count_of) {
            let name = &self.names[count];
            let written = written_token_name(policy);
            if written != *name
                && *name == count_name(policy, RateBy::Token)
                && state_has(&written)
                && !merged.contains(name)
            {
                merged.push(name.clone());
            }
        }
        merged
    }

    /// Which count each crawler feeds (by crawler index): crawlers of one
    /// count share their rates and delays (SPEC §4).
    pub fn count_of(&self) -> &[usize] {
        &self.count_of
    }

    /// The counts the state kept under the other `--rate-by` (`name` a
    /// token tonight's crawler counts share, or a crawler tonight's token
    /// count holds), with what they remember of robots.txt: their times
    /// cannot be split or merged without guessing, but when the latest
    /// fetch of /robots.txt among those that fed a count of tonight got a
    /// 4xx, it still stands for that count — it may fetch anything until
    /// its next fetch of /robots.txt (RFC 9309 §2.3.1.3) — so that
    /// forgetting it never accuses. L and an outage are left out: unknown,
    /// they can only spare rows.
    pub fn resume_other_rate_by(&mut self, others: &[(&str, cache::Memory)]) {
        let Some(policies) = self.policies.first() else {
            return;
        };
        let mut latest: Vec<Option<cache::RobotsFetch>> = vec![None; self.trackers.len()];
        for (policy, &count) in policies.iter().zip(&self.count_of) {
            let names = [
                count_name(policy, RateBy::Token),
                count_name(policy, RateBy::Crawler),
                written_token_name(policy),
            ];
            for (name, memory) in others {
                if !names.iter().any(|n| n == name) {
                    continue;
                }
                if let Some(fetch) = memory.last_fetch
                    && latest[count]
                        .is_none_or(|known| known.time.instant_ms() < fetch.time.instant_ms())
                {
                    latest[count] = Some(fetch);
                }
            }
        }
        let grace = self.nights.map_or(0, |n| n.grace_ms);
        for (count, fetch) in latest.into_iter().enumerate() {
            if let Some(fetch) = fetch.filter(|f| (400..500).contains(&f.status)) {
                self.trackers[count] = Tracker::resume(
                    cache::Memory {
                        last_fetch: Some(fetch),
                        ..cache::Memory::default()
                    },
                    grace,
                );
                self.trackers[count].take_over(self.verifies);
            }
        }
    }

    /// What each count leaves for the next night (`Memory`). At most
    /// `at_most` times a count.
    pub fn memories(&self, at_most: usize) -> Vec<Memory<'_>> {
        self.names
            .iter()
            .zip(&self.trackers)
            .zip(self.counts.iter().zip(&self.proven))
            .map(|((name, tracker), (count, proven))| Memory {
                name,
                robots_txt: cache::Memory {
                    verifying: Some(self.verifies),
                    ..*tracker.memory()
                },
                times: count.times(at_most),
                proven: proven.as_ref().map(|p| p.times(at_most)),
                kept_ms: count.kept_ms(),
            })
            .collect()
    }

    /// The index of the robots.txt version in force at `instant_ms`.
    pub fn version_at(&self, instant_ms: i64) -> usize {
        self.nights.map_or(0, |n| n.versions.index_at(instant_ms))
    }

    /// Whether what `counted` shows of robots.txt is the crawler's own
    /// (`cache::Tracker::observe_as`): a verified or named crawler's, or
    /// any when the run verifies nobody.
    fn trusted(&self, counted: &Counted) -> bool {
        counted.verification != Verification::Unverified || !self.verifies
    }

    /// Takes in a fetch of `/robots.txt` made before the period judged
    /// (`Fetch::before_period`): what the crawler then learned of
    /// robots.txt stands at the period's start, as it would in a run over
    /// the whole log; the fetch itself is not counted.
    pub fn observe_before(&mut self, counted: &Counted) {
        if self.nights.is_none() {
            return;
        }
        let fetch = &counted.fetch;
        let trusted = self.trusted(counted);
        let which = self.count_of[counted.crawler];
        self.trackers[which].observe_as(fetch.time, fetch.target(), fetch.status, trusted);
    }

    /// Adds the rows of the next fetch to `rows`, in kind order.
    /// `disallow` is its `disallow` row under the version in force at its
    /// time, from `disallow::judge` (computed apart, so that it can be
    /// computed in parallel).
    pub fn judge(
        &mut self,
        counted: &Counted,
        disallow: Option<Violation<'r>>,
        rows: &mut Vec<Violation<'r>>,
    ) {
        let fetch = &counted.fetch;
        let trusted = self.trusted(counted);
        let now = fetch.time.instant_ms();
        let version = self.version_at(now);
        let policy = &self.policies[version][counted.crawler];
        let which = self.count_of[counted.crawler];
        if !trusted && self.proven[which].is_none() {
            // The first fetch of the count the evidence did not back: the
            // fetches before it all were.
            self.proven[which] = Some(self.counts[which].clone());
        }
        let mut previous = self.counts[which].push(now);
        let proven = self.proven[which].as_mut().filter(|_| trusted);
        if let Some(proven) = proven {
            previous = proven.push(now);
        }
        let standing = match self.nights {
            Some(_) => {
                self.trackers[which].judge_as(fetch.time, fetch.target(), fetch.status, trusted)
            }
            None => Standing::Versions {
                window_from_ms: now,
            },
        };
        if !standing.judges_limits() {
            // A 4xx on robots.txt: the crawler may fetch anything (RFC
            // 9309 §2.3.1.3); the fetch still counts for later rates.
            return;
        }
        // Kinds in string order: crawl-delay, disallow, request-rate.
        if let Some(before) = previous {
            rows.extend(delay::judge(policy, now - before));
        }
        let disallow = match self.nights {
            None => disallow,
            Some(nights) => {
                let decision =
                    cache::decide(nights.versions, &standing, now, fetch.target(), |v| {
                        if v.index() == version {
                            disallow.is_some()
                        } else {
                            disallow::judge(
                                &self.policies[v.index()][counted.crawler],
                                fetch.target(),
                            )
                            .is_some()
                        }
                    });
                match decision {
                    Decision::Allowed => None,
                    Decision::Accuse(_) => disallow,
                    Decision::Excused { by, .. } => {
                        self.excused += 1;
                        self.excused_by.extend(by.iter().map(|v| v.index()));
                        None
                    }
                    Decision::Unreachable(rule) => Some(Violation {
                        kind: Kind::Disallow,
                        group: "",
                        rule_line: 0,
                        rule: Cow::Owned(rule),
                        robots_version: "",
                        detail: String::new(),
                        note: ROBOTS_UNREACHABLE,
                    }),
                }
            }
        };
        rows.extend(disallow);
        let count = match &self.proven[which] {
            Some(proven) if trusted => proven,
            _ => &self.counts[which],
        };
        rows.extend(rate::judge(policy, count, &fetch.time, &self.window_tz));
    }
}

/// Every row of `fetches` (sorted as SPEC §4 orders them), with the index
/// of its fetch: the streaming judge run over a slice.
pub fn judge_all<'r>(
    policies: &[Policy<'r>],
    fetches: &[Counted],
    counting: &Counting,
) -> Vec<(usize, Violation<'r>)> {
    debug_assert!(
        fetches
            .windows(2)
            .all(|w| w[0].fetch.key() <= w[1].fetch.key())
    );
    let by_version = [policies.to_vec()];
    let mut judge = Judge::new(&by_version, None, counting);
    let mut rows = Vec::new();
    let mut out = Vec::new();
    for (index, counted) in fetches.iter().enumerate() {
        let disallow = disallow::judge(&policies[counted.crawler], counted.fetch.target());
        judge.judge(counted, disallow, &mut rows);
        out.extend(rows.drain(..).map(|row| (index, row)));
    }
    out
}

pub(crate) use crate::robots::limits::seconds_text;

/// A fetch whose user agent (or PTR name) claims a crawler that its address
/// disproves (SPEC §2 `spoofed`): never counted, listed in `impostors.csv`.
/// Wraps the record the scan made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impostor {
    pub fetch: Fetch,
    /// The address's PTR name when one is known.
    pub ptr: Option<String>,
    /// Index into the audit's `Policy` list: the crawler claimed.
    pub claimed: usize,
    /// Why the address is not the crawler's.
    pub reason: SpoofReason,
}

/// Why a fetch is an impostor's (SPEC §7 `impostor-addresses.csv` `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpoofReason {
    /// The address's name is known and is none of the claimed crawler's.
    PtrMismatch,
    /// The address has no name (NXDOMAIN), which no genuine crawler lacks.
    NoPtr,
    /// The name is the crawler's, but its forward lookup disowns the
    /// address.
    ForwardMismatch,
}

impl SpoofReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SpoofReason::PtrMismatch => "ptr-mismatch",
            SpoofReason::NoPtr => "no-ptr",
            SpoofReason::ForwardMismatch => "forward-mismatch",
        }
    }
}

/// A verified SeznamBot fetch (crawler 0) of `target`, `ms` milliseconds
/// into 2025-12-01 UTC, for the judges' tests.
#[cfg(test)]
pub(crate) fn counted_at(line: u64, ms: i64, target: &str) -> Counted {
    use crate::accesslog::time::Timestamp;
    Counted {
        fetch: Fetch::new(
            Timestamp {
                unix: 1_764_547_200 + ms.div_euclid(1000),
                millis: u16::try_from(ms.rem_euclid(1000)).unwrap_or(0),
                offset_min: 0,
            },
            0,
            line,
            Some(200),
            None,
            crate::fetch::Text {
                client: b"77.75.79.147",
                method: b"GET",
                target: target.as_bytes(),
                user_agent: b"SeznamBot/4.0",
            },
        ),
        crawler: 0,
        verification: Verification::Verified,
        identified_by: IdentifiedBy::UaPtr,
    }
}
