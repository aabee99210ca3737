//! What the reports for people are made of, gathered while rows stream out
//! (SPEC §5 `summary.csv`, §7 `rules.csv`, `impostor-addresses.csv`,
//! `run.json` counts). Takes each counted fetch, each row and each
//! impostor once, in report order; gives per-crawler and per-rule totals.
//! Memory grows with crawlers, rules and spoofing addresses, never with
//! fetches: distinct targets are counted exactly through a `spill::Sorter`
//! of (key, target) pairs that spills to disk like the fetches do.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

use crate::accesslog::time::Timestamp;
use crate::audit::{Counted, Impostor, Kind, SpoofReason, Violation};
use crate::crawler::verify::Verification;
use crate::crawler::{Client, parse_client};
use crate::error::Result;
use crate::spill::{Record, Sorter, SpillDir};

/// Keys here are log text (targets, clients): a seeded fast hash, as the
/// scan's maps use.
type Fold = foldhash::fast::RandomState;

/// The verification levels a counted fetch may have, in report order.
pub const LEVELS: [Verification; 3] = [
    Verification::Verified,
    Verification::PtrOnly,
    Verification::Unverified,
];

/// One crawler's night.
#[derive(Debug, Clone, Default)]
pub struct CrawlerTotals {
    pub fetches: u64,
    /// Fetches by verification level, as `LEVELS` orders them.
    pub levels: [u64; 3],
    /// By kind, as `Kind::ALL` orders them.
    pub kinds: [KindTotals; 3],
}

/// One crawler's rows of one kind.
#[derive(Debug, Clone, Default)]
pub struct KindTotals {
    pub violations: u64,
    /// Of those, rows whose note only informs.
    pub informing: u64,
    pub distinct_targets: u64,
    pub first: Option<Timestamp>,
    pub last: Option<Timestamp>,
}

/// A rule that decided rows (SPEC §7: (robots_version, rule_line, kind);
/// robots-unreachable rows, which have no line, by rule text).
#[derive(Debug, Clone)]
pub struct RuleTotals {
    pub robots_version: String,
    pub rule_line: usize,
    pub rule: String,
    pub group: String,
    pub kind: Kind,
    pub violations: u64,
    /// Rows whose note only informs.
    pub informing: u64,
    pub distinct_targets: u64,
    /// Crawler indices.
    pub crawlers: BTreeSet<usize>,
    pub first: Timestamp,
    pub last: Timestamp,
    /// The targets fetched most against the rule, most first (ties by
    /// target), at most `TOP_TARGETS`.
    pub top_targets: Vec<(Box<[u8]>, u64)>,
}

/// Targets kept per rule for the report for people.
pub const TOP_TARGETS: usize = 10;

impl RuleTotals {
    fn note_target(&mut self, target: Box<[u8]>, times: u64) {
        let worse = |a: &(Box<[u8]>, u64), b: &(Box<[u8]>, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
        if self.top_targets.len() == TOP_TARGETS
            && self
                .top_targets
                .last()
                .is_some_and(|last| worse(&(target.clone(), times), last) != Ordering::Less)
        {
            return;
        }
        self.top_targets.push((target, times));
        self.top_targets.sort_by(worse);
        self.top_targets.truncate(TOP_TARGETS);
    }
}

/// One spoofing address.
#[derive(Debug, Clone)]
pub struct AddressTotals {
    /// The address in canonical form, or the client field as logged.
    pub client: Vec<u8>,
    /// Crawler indices claimed.
    pub claimed: BTreeSet<usize>,
    pub fetches: u64,
    pub ptr: Option<String>,
    pub reason: SpoofReason,
    pub first: Timestamp,
    pub last: Timestamp,
}

/// Everything gathered.
pub struct Digest<'d> {
    /// Indexed like the audit's crawlers; `None` for one without a fetch.
    pub crawlers: Vec<Option<CrawlerTotals>>,
    pub rules: Vec<RuleTotals>,
    /// Rules by (line, kind): the indexes in `rules` of those of that line
    /// and kind, told apart by version (and text, for a made rule of no
    /// line), looked up without a copy of the row's text.
    rule_index: HashMap<(usize, Kind), Vec<usize>, Fold>,
    pub addresses: Vec<AddressTotals>,
    address_index: HashMap<Vec<u8>, usize, Fold>,
    pub violations: u64,
    /// Rows that accuse (whose note does not only inform).
    pub accusing: u64,
    pub impostor_fetches: u64,
    targets: Option<Sorter<'d, Targeted>>,
    /// Pairs not yet sent to the sorter, equal ones already merged: a
    /// night's rows fetch the same few targets again and again, so the
    /// sorter sees each pair about once a batch, not once a row.
    pending: HashMap<Tag, HashMap<Box<[u8]>, u64, Fold>, Fold>,
    pending_bytes: usize,
    /// Bytes of distinct pairs held before they go to the sorter.
    pending_limit: usize,
}

impl<'d> Digest<'d> {
    pub fn new(crawlers: usize, budget: usize, spill: &'d SpillDir) -> Digest<'d> {
        Digest {
            crawlers: vec![None; crawlers],
            rules: Vec::new(),
            rule_index: HashMap::default(),
            addresses: Vec::new(),
            address_index: HashMap::default(),
            violations: 0,
            accusing: 0,
            impostor_fetches: 0,
            targets: Some(Sorter::new(budget, spill)),
            pending: HashMap::default(),
            pending_bytes: 0,
            // An eighth of the pairs' share, so that the pairs held here,
            // those the sorter holds and the run it writes stay within it.
            pending_limit: (budget / 8).max(64 * 1024),
        }
    }

    pub fn counted(&mut self, counted: &Counted) {
        let totals = self.crawlers[counted.crawler].get_or_insert_with(Default::default);
        totals.fetches += 1;
        if let Some(level) = LEVELS.iter().position(|&l| l == counted.verification) {
            totals.levels[level] += 1;
        }
    }

    /// A row about `counted`, which `counted()` was given first.
    pub fn violation(&mut self, counted: &Counted, row: &Violation<'_>) {
        let time = counted.fetch.time;
        self.violations += 1;
        if row.accuses() {
            self.accusing += 1;
        }
        let kind_index = Kind::ALL.iter().position(|&k| k == row.kind).unwrap_or(0);
        if let Some(totals) = self.crawlers[counted.crawler].as_mut() {
            let kind = &mut totals.kinds[kind_index];
            kind.violations += 1;
            if !row.accuses() {
                kind.informing += 1;
            }
            kind.first.get_or_insert(time);
            kind.last = Some(time);
        }
        let candidates = self
            .rule_index
            .entry((row.rule_line, row.kind))
            .or_default();
        let found = candidates.iter().copied().find(|&at| {
            let rule = &self.rules[at];
            rule.robots_version == row.robots_version
                && (row.rule_line != 0 || rule.rule == row.rule)
        });
        let at = match found {
            Some(at) => at,
            None => {
                let at = self.rules.len();
                candidates.push(at);
                self.rules.push(RuleTotals {
                    robots_version: row.robots_version.to_string(),
                    rule_line: row.rule_line,
                    rule: row.rule.to_string(),
                    group: row.group.to_string(),
                    kind: row.kind,
                    violations: 0,
                    informing: 0,
                    distinct_targets: 0,
                    crawlers: BTreeSet::new(),
                    first: time,
                    last: time,
                    top_targets: Vec::new(),
                });
                at
            }
        };
        let rule = &mut self.rules[at];
        rule.violations += 1;
        if !row.accuses() {
            rule.informing += 1;
        }
        rule.crawlers.insert(counted.crawler);
        rule.last = time;
        let target = counted.fetch.target();
        for tag in [
            Tag::Kind {
                crawler: counted.crawler,
                kind: kind_index,
            },
            Tag::Rule(at),
        ] {
            let seen = self.pending.entry(tag).or_default();
            match seen.get_mut(target) {
                Some(times) => *times += 1,
                None => {
                    seen.insert(target.into(), 1);
                    self.pending_bytes += Targeted::size_of(target);
                }
            }
        }
        if self.pending_bytes >= self.pending_limit {
            self.send_pending();
        }
    }

    /// Hands the pending pairs to the sorter.
    fn send_pending(&mut self) {
        self.pending_bytes = 0;
        let pending = std::mem::take(&mut self.pending);
        if let Some(targets) = &self.targets {
            targets.extend(pending.into_iter().flat_map(|(tag, seen)| {
                seen.into_iter()
                    .map(move |(target, times)| Targeted { tag, target, times })
            }));
        }
    }

    pub fn impostor(&mut self, impostor: &Impostor) {
        self.impostor_fetches += 1;
        let time = impostor.fetch.time;
        let client = match parse_client(impostor.fetch.client()) {
            Client::Addr(addr) => addr.to_string().into_bytes(),
            _ => impostor.fetch.client().to_vec(),
        };
        let next = self.addresses.len();
        let at = *self.address_index.entry(client.clone()).or_insert(next);
        if at == next {
            self.addresses.push(AddressTotals {
                client,
                claimed: BTreeSet::new(),
                fetches: 0,
                ptr: None,
                reason: impostor.reason,
                first: time,
                last: time,
            });
        }
        let address = &mut self.addresses[at];
        address.fetches += 1;
        address.claimed.insert(impostor.claimed);
        if address.ptr.is_none() {
            address.ptr.clone_from(&impostor.ptr);
        }
        address.last = time;
    }

    /// Counts the distinct targets, now that every row is in.
    pub fn finish(mut self) -> Result<Digest<'d>> {
        self.send_pending();
        let Some(targets) = self.targets.take() else {
            return Ok(self);
        };
        for pair in targets.finish()? {
            let pair = pair?;
            match pair.tag {
                Tag::Kind { crawler, kind } => {
                    if let Some(totals) = self.crawlers.get_mut(crawler).and_then(Option::as_mut) {
                        totals.kinds[kind].distinct_targets += 1;
                    }
                }
                Tag::Rule(at) => {
                    if let Some(rule) = self.rules.get_mut(at) {
                        rule.distinct_targets += 1;
                        rule.note_target(pair.target, pair.times);
                    }
                }
            }
        }
        Ok(self)
    }

    /// The rules, as `rules.csv` orders them: most violations first, ties
    /// by first_time, then robots_version, then rule_line, then kind.
    pub fn rules_in_order(&self) -> Vec<&RuleTotals> {
        let mut rules: Vec<&RuleTotals> = self.rules.iter().collect();
        rules.sort_by(|a, b| {
            b.violations
                .cmp(&a.violations)
                .then(a.first.instant_ms().cmp(&b.first.instant_ms()))
                .then(a.robots_version.cmp(&b.robots_version))
                .then(a.rule_line.cmp(&b.rule_line))
                .then(a.kind.cmp(&b.kind))
                .then(a.rule.cmp(&b.rule))
        });
        rules
    }

    /// The spoofing addresses, most fetches first, ties by first_time.
    pub fn addresses_in_order(&self) -> Vec<&AddressTotals> {
        let mut addresses: Vec<&AddressTotals> = self.addresses.iter().collect();
        addresses.sort_by(|a, b| {
            b.fetches
                .cmp(&a.fetches)
                .then(a.first.instant_ms().cmp(&b.first.instant_ms()))
                .then(a.client.cmp(&b.client))
        });
        addresses
    }
}

/// What a (key, target) pair counts towards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Tag {
    Kind { crawler: usize, kind: usize },
    Rule(usize),
}

/// A target of a row, with what it counts towards and how often it came.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Targeted {
    tag: Tag,
    target: Box<[u8]>,
    times: u64,
}

impl Targeted {
    /// What a pair of `target` holds in memory (`Record::size`).
    fn size_of(target: &[u8]) -> usize {
        2 * std::mem::size_of::<Targeted>() + target.len() + 16
    }
}

impl Record for Targeted {
    fn order(&self, other: &Self) -> Ordering {
        self.tag
            .cmp(&other.tag)
            .then_with(|| self.target.cmp(&other.target))
    }

    /// As `Fetch::size`: the text with the allocator's overhead, the fixed
    /// part twice.
    fn size(&self) -> usize {
        Targeted::size_of(&self.target)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let (which, a, b) = match self.tag {
            Tag::Kind { crawler, kind } => (0u8, crawler as u64, kind as u64),
            Tag::Rule(at) => (1u8, at as u64, 0),
        };
        out.push(which);
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
        out.extend_from_slice(&self.times.to_le_bytes());
        out.extend_from_slice(&self.target);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (&which, rest) = bytes.split_first()?;
        let (a, rest) = rest.split_first_chunk::<8>()?;
        let (b, rest) = rest.split_first_chunk::<8>()?;
        let (times, target) = rest.split_first_chunk::<8>()?;
        let a = usize::try_from(u64::from_le_bytes(*a)).ok()?;
        let b = usize::try_from(u64::from_le_bytes(*b)).ok()?;
        let tag = match which {
            0 => Tag::Kind {
                crawler: a,
                kind: b,
            },
            1 => Tag::Rule(a),
            _ => return None,
        };
        Some(Targeted {
            tag,
            target: target.into(),
            times: u64::from_le_bytes(*times),
        })
    }

    fn absorb(&mut self, other: Self) {
        self.times += other.times;
    }
}
