//! Judging crawler fetches against robots.txt (SPEC §4): pure functions
//! over fetches already identified and verified. `disallow` asks the
//! compiled matcher; `rate` and `delay` walk each count in time order.

pub mod delay;
pub mod disallow;
pub mod rate;

use std::sync::Arc;

use crate::accesslog::time::Timestamp;
use crate::config::{RateBy, WindowTz};
use crate::crawler::profile::Profile;
use crate::crawler::verify::{IdentifiedBy, Verification};
use crate::robots::AgentRules;
use crate::robots::group::Reads;
use crate::robots::parse::Directive;

/// One counted fetch of a crawler: identified, not spoofed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    pub time: Timestamp,
    /// Index of the log file in the order given.
    pub file: usize,
    /// 1-based line in that file.
    pub line: u64,
    /// The client field as logged.
    pub client: Arc<[u8]>,
    /// Index into the audit's `Policy` list.
    pub crawler: usize,
    pub verification: Verification,
    pub identified_by: IdentifiedBy,
    pub method: Arc<[u8]>,
    /// Path and query as logged, escapes decoded, an absolute URL cut.
    pub target: Vec<u8>,
    pub status: Option<u16>,
}

impl Fetch {
    /// The order of SPEC §4 and §5: the instant, then file, then line.
    pub fn key(&self) -> (i64, usize, u64) {
        (self.time.instant_ms(), self.file, self.line)
    }
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

/// One row of `violations.csv`, pointing at its fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation<'r> {
    /// Index into the sorted fetches.
    pub fetch: usize,
    pub kind: Kind,
    /// The group holding the deciding rule, as reports name it (its
    /// user-agent values, `|`-joined), borrowed from the compiled rules.
    pub group: &'r str,
    pub rule_line: usize,
    /// The deciding line as written, borrowed from the compiled rules.
    pub rule: &'r str,
    /// SPEC §5 `robots_version` of the robots.txt that decided.
    pub robots_version: &'r str,
    pub detail: String,
    pub note: &'static str,
}

/// The note on a row of a rule the crawler does not read (SPEC §3): it
/// informs, it does not accuse.
pub const NOT_READ_BY_CRAWLER: &str = "not-read-by-crawler";

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
pub struct Policy<'r> {
    pub name: String,
    /// The robots.txt token; crawlers sharing it share a rate count.
    pub token: String,
    pub rules: &'r AgentRules,
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

/// Judges every fetch, which must be sorted by `Fetch::key`. Returns the
/// violations sorted as SPEC §5 orders the rows.
pub fn judge<'r>(
    policies: &[Policy<'r>],
    fetches: &[Fetch],
    counting: &Counting,
) -> Vec<Violation<'r>> {
    debug_assert!(fetches.windows(2).all(|w| w[0].key() <= w[1].key()));
    let mut rows = disallow::judge(policies, fetches);
    for count in counts(policies, fetches, counting.rate_by) {
        rows.extend(rate::judge(policies, fetches, &count, &counting.window_tz));
        rows.extend(delay::judge(policies, fetches, &count));
    }
    rows.sort_by(|a, b| {
        fetches[a.fetch]
            .key()
            .cmp(&fetches[b.fetch].key())
            .then(a.kind.cmp(&b.kind))
    });
    rows
}

/// The fetches that share one rate count, as indices in time order.
pub(crate) fn counts(
    policies: &[Policy<'_>],
    fetches: &[Fetch],
    rate_by: RateBy,
) -> Vec<Vec<usize>> {
    // Which count each crawler feeds, decided once per crawler.
    let mut keys: Vec<String> = Vec::new();
    let count_of: Vec<usize> = policies
        .iter()
        .map(|policy| {
            let key = match rate_by {
                RateBy::Token => policy.token.to_ascii_lowercase(),
                RateBy::Crawler => policy.name.clone(),
            };
            keys.iter().position(|k| *k == key).unwrap_or_else(|| {
                keys.push(key);
                keys.len() - 1
            })
        })
        .collect();
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); keys.len()];
    for (index, fetch) in fetches.iter().enumerate() {
        groups[count_of[fetch.crawler]].push(index);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// Seconds as the report writes them: whole numbers plainly, others with
/// up to three decimals.
pub(crate) fn seconds_text(millis: u64) -> String {
    if millis.is_multiple_of(1000) {
        (millis / 1000).to_string()
    } else {
        let text = format!("{}.{:03}", millis / 1000, millis % 1000);
        text.trim_end_matches('0').to_string()
    }
}

/// A fetch whose user agent (or PTR name) claims a crawler that its address
/// disproves (SPEC §2 `spoofed`): never counted, listed in `impostors.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impostor {
    pub time: Timestamp,
    pub file: usize,
    pub line: u64,
    pub client: Arc<[u8]>,
    /// The address's PTR name when one is known.
    pub ptr: Option<String>,
    /// Index into the audit's `Policy` list: the crawler claimed.
    pub claimed: usize,
    pub method: Arc<[u8]>,
    pub target: Vec<u8>,
    pub status: Option<u16>,
    pub user_agent: Arc<[u8]>,
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

impl Impostor {
    pub fn key(&self) -> (i64, usize, u64) {
        (self.time.instant_ms(), self.file, self.line)
    }
}
