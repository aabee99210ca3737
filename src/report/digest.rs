//! What the reports for people are made of, gathered while rows stream out
//! (SPEC §5 `summary.csv`, §7 `rules.csv`, `impostor-addresses.csv`,
//! `run.json` counts). Takes each counted fetch, each row and each
//! impostor once, in report order; gives per-crawler and per-rule totals.
//! Memory grows with crawlers, rules and spoofing addresses, never with
//! fetches: distinct targets are counted exactly through a `spill::Sorter`
//! of (key, target) pairs that spills to disk like the fetches do
//! (`digest/targets.rs`); the spoofing addresses are `digest/addresses.rs`'s,
//! the rules made for robots.txt outages (`robots.txt unreachable: …`, as
//! many as the log's 5xx answers) `digest/made.rs`'s.

mod addresses;
mod codec;
mod made;
mod targets;

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use crate::accesslog::time::Timestamp;
use crate::audit::{Counted, Impostor, Kind, Violation};
use crate::crawler::verify::Verification;
use crate::crawler::{Client, parse_client};
use crate::error::Result;
use crate::spill::{Sorter, SpillDir};
pub use addresses::{AddressTotals, TOP_ADDRESSES};
use addresses::{Addresses, Ranked};
use made::Made;
use made::{TOP_MADE, page_order, report_order};
use targets::{Fold, Seen, Tag, Targeted};

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
    /// Of those, the targets of rows that accuse.
    pub accusing_targets: u64,
    /// Crawler indices.
    pub crawlers: BTreeSet<usize>,
    pub first: Timestamp,
    pub last: Timestamp,
}

/// (rule, target) pairs kept for the report for people, those fetched most
/// by accusing rows over all rules: the page shows them all
/// (`html::render::TARGETS_SHOWN` is this). Kept over all rules, not per rule, so
/// that ten thousand rules broken with long targets hold 50 targets, not
/// 100,000 (SPEC §5 `--memory`).
pub const TOP_TARGETS: usize = 50;

/// A target fetched against a rule, and the rule as the page names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopTarget {
    pub robots_version: String,
    pub rule_line: usize,
    pub rule: String,
    pub kind: Kind,
    pub target: Box<[u8]>,
    /// Accusing rows.
    pub times: u64,
}

/// The order of `TopTarget`s: most rows first, ties by rule line, kind,
/// target, then version and rule text (rules of no line, as many as a
/// night's robots.txt outages, may tie on all the rest).
fn target_order(
    (a_rule, a_target, a_times): (&RuleTotals, &[u8], u64),
    b: &TopTarget,
) -> std::cmp::Ordering {
    b.times
        .cmp(&a_times)
        .then(a_rule.rule_line.cmp(&b.rule_line))
        .then(a_rule.kind.as_str().cmp(b.kind.as_str()))
        .then(a_target.cmp(&b.target))
        .then(a_rule.robots_version.as_str().cmp(&b.robots_version))
        .then(a_rule.rule.as_str().cmp(&b.rule))
}

/// Keeps `target` of `rule`, fetched `times` by accusing rows, among the
/// `TOP_TARGETS` targets fetched most against a rule.
fn note_target(top: &mut Vec<TopTarget>, rule: &RuleTotals, target: Box<[u8]>, times: u64) {
    let entry = (rule, &target[..], times);
    if top.len() == TOP_TARGETS
        && top
            .last()
            .is_some_and(|last| target_order(entry, last).is_ge())
    {
        return;
    }
    let at = top.partition_point(|kept| target_order(entry, kept).is_gt());
    top.insert(
        at,
        TopTarget {
            robots_version: rule.robots_version.clone(),
            rule_line: rule.rule_line,
            rule: rule.rule.clone(),
            kind: rule.kind,
            target,
            times,
        },
    );
    top.truncate(TOP_TARGETS);
}

/// Keeps `item` among the first `limit` of `top`, which `order` sorts
/// (a clone of it, only when it is among them): the page's first rules and
/// spoofing addresses, kept as they stream past.
fn keep_first<T: Clone>(
    top: &mut Vec<T>,
    limit: usize,
    item: &T,
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
) {
    if top.len() == limit && top.last().is_some_and(|last| order(item, last).is_ge()) {
        return;
    }
    let at = top.partition_point(|kept| order(kept, item).is_le());
    top.insert(at, item.clone());
    top.truncate(limit);
}

/// Everything gathered.
pub struct Digest<'d> {
    /// Indexed like the audit's crawlers; `None` for one without a fetch.
    pub crawlers: Vec<Option<CrawlerTotals>>,
    /// The rules of robots.txt lines, in the order rows first named them;
    /// the rules of no line are `made`'s.
    rules: Vec<RuleTotals>,
    made: Made<'d>,
    /// The targets fetched most against a rule by accusing rows, most
    /// first (ties by rule line, kind, target, version and rule text), at
    /// most `TOP_TARGETS`.
    pub top_targets: Vec<TopTarget>,
    /// Rules of a line by (line, kind, a hash of the version): the indexes
    /// in `rules` of those that hash so, compared whole, looked up without
    /// a copy of the row's version.
    rule_index: HashMap<(usize, Kind, u64), Vec<usize>, Fold>,
    /// Spoofing addresses (SPEC §7 `impostor-addresses.csv`): gathered by
    /// client in memory, spilled to a sorter that merges equal clients
    /// when they outgrow their share of `--memory`; ranked at `finish`.
    addresses: Addresses<'d>,
    pub violations: u64,
    /// Rows that accuse (whose note does not only inform).
    pub accusing: u64,
    pub impostor_fetches: u64,
    targets: Option<Sorter<'d, Targeted>>,
    /// Pairs not yet sent to the sorter, equal ones already merged: a
    /// night's rows fetch the same few targets again and again, so the
    /// sorter sees each pair about once a batch, not once a row.
    pending: HashMap<Tag, Seen, Fold>,
    pending_bytes: usize,
    /// Bytes of distinct pairs held before they go to the sorter.
    pending_limit: usize,
}

impl<'d> Digest<'d> {
    pub fn new(crawlers: usize, budget: usize, spill: &'d SpillDir) -> Digest<'d> {
        Digest {
            crawlers: vec![None; crawlers],
            rules: Vec::new(),
            made: Made::new(budget, spill),
            top_targets: Vec::new(),
            rule_index: HashMap::default(),
            addresses: Addresses::new(budget, spill),
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
        let kept = counted.fetch.target_kept();
        let target: &[u8] = &kept;
        let kind_tag = Tag::Kind {
            crawler: counted.crawler,
            kind: kind_index,
        };
        if row.rule_line == 0 {
            // A rule of no line (a robots.txt outage's): as many as the
            // log makes, so spilled with its targets (`made.rs`).
            self.made.add(made::Row {
                rule: &row.rule,
                robots_version: row.robots_version,
                kind: row.kind,
                group: row.group,
                target,
                accuses: row.accuses(),
                crawler: counted.crawler,
                time,
            });
            self.pend(kind_tag, target, row.accuses());
            return;
        }
        let key = {
            use std::hash::BuildHasher as _;
            self.rule_index.hasher().hash_one(row.robots_version)
        };
        let candidates = self
            .rule_index
            .entry((row.rule_line, row.kind, key))
            .or_default();
        let found = candidates
            .iter()
            .copied()
            .find(|&at| self.rules[at].robots_version == row.robots_version);
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
                    accusing_targets: 0,
                    crawlers: BTreeSet::new(),
                    first: time,
                    last: time,
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
        self.pend(kind_tag, target, row.accuses());
        self.pend(Tag::Rule(at), target, row.accuses());
    }

    /// A row's `target` counted towards `tag`.
    fn pend(&mut self, tag: Tag, target: &[u8], accuses: bool) {
        let seen = self.pending.entry(tag).or_default();
        let accusing = u64::from(accuses);
        match seen.get_mut(target) {
            Some((times, accused)) => {
                *times += 1;
                *accused += accusing;
            }
            None => {
                seen.insert(target.into(), (1, accusing));
                self.pending_bytes += Targeted::size_of(target);
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
                    .map(move |(target, (times, accusing))| Targeted {
                        tag,
                        target,
                        times,
                        accusing,
                    })
            }));
        }
    }

    pub fn impostor(&mut self, impostor: &Impostor) {
        self.impostor_fetches += 1;
        // One row an address (SPEC §7, canonical form): a host name is
        // compared case-insensitively, a trailing dot allowed (SPEC §2).
        let client = match parse_client(impostor.fetch.client()) {
            Client::Addr(addr) => addr.to_string().into_bytes(),
            Client::Name(name) => {
                let name = name.strip_suffix('.').unwrap_or(&name);
                name.to_ascii_lowercase().into_bytes()
            }
            Client::Other(_) => impostor.fetch.client().to_vec(),
        };
        self.addresses.add(client, impostor);
    }

    /// Counts the distinct targets and ranks the spoofing addresses, now
    /// that every row is in.
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
                        // Ranked by the rows that accuse: a target fetched
                        // only under an informing note is no target
                        // fetched against the rule.
                        if pair.accusing > 0 {
                            rule.accusing_targets += 1;
                            note_target(&mut self.top_targets, rule, pair.target, pair.accusing);
                        }
                    }
                }
            }
        }
        let top_targets = &mut self.top_targets;
        self.made.rank(|fetched| {
            note_target(top_targets, fetched.rule, fetched.target, fetched.accusing);
        })?;
        self.addresses.rank()?;
        Ok(self)
    }

    /// Every rule, as `rules.csv` orders them (after `finish`): most
    /// violations first, ties by first_time, then robots_version, then
    /// rule_line, then kind. Read once: the rules of no line come back from
    /// disk.
    pub fn rules_in_order(&self) -> impl Iterator<Item = Result<Cow<'_, RuleTotals>>> + '_ {
        let mut lines: Vec<&RuleTotals> = self.rules.iter().collect();
        lines.sort_by(|a, b| report_order(a, b));
        let mut lines = lines.into_iter().peekable();
        let mut made = self.made.take_ranked().into_iter().flatten().peekable();
        std::iter::from_fn(move || {
            let made_first = match (lines.peek(), made.peek()) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                // A made rule that failed to read comes out at once.
                (Some(line), Some(Ok(made))) => report_order(&made.0, line).is_lt(),
                (Some(_), Some(Err(_))) => true,
            };
            if made_first {
                made.next().map(|rule| rule.map(|rule| Cow::Owned(rule.0)))
            } else {
                lines.next().map(|rule| Ok(Cow::Borrowed(rule)))
            }
        })
    }

    /// How many rules decided rows (after `finish`).
    pub fn rule_count(&self) -> u64 {
        self.rules.len() as u64 + self.made.count
    }

    /// The first `n` rules by the rows that accuse, most first, ties in
    /// `rules.csv`'s order (after `finish`): the page's table.
    pub fn rules_broken_most(&self, n: usize) -> Vec<&RuleTotals> {
        let mut rules: Vec<&RuleTotals> =
            self.rules.iter().chain(self.made.top_page.iter()).collect();
        rules.sort_by(|a, b| page_order(a, b));
        rules.truncate(n.min(TOP_MADE));
        rules
    }

    /// Rules enough for the mail's five rules broken most (after
    /// `finish`): every rule of a line, and the first rules of no line by
    /// the rows that accuse, then text.
    pub fn rules_for_mail(&self) -> impl Iterator<Item = &RuleTotals> {
        self.rules.iter().chain(self.made.top_mail.iter())
    }

    /// Whether some rule has a row whose note only informs (after
    /// `finish`).
    pub fn rules_inform(&self) -> bool {
        self.made.informing || self.rules.iter().any(|rule| rule.informing > 0)
    }

    /// Whether the rules name more than one robots.txt version (after
    /// `finish`).
    pub fn rules_of_several_versions(&self) -> bool {
        let mut versions = self
            .rules
            .iter()
            .map(|rule| rule.robots_version.as_str())
            .chain(self.made.versions.iter().map(|v| &**v));
        match versions.next() {
            Some(first) => versions.any(|v| v != first),
            None => false,
        }
    }

    /// (Rule, target) pairs of accusing rows, over all rules (after
    /// `finish`).
    pub fn accusing_targets(&self) -> u64 {
        self.made.accusing_targets
            + self
                .rules
                .iter()
                .map(|rule| rule.accusing_targets)
                .sum::<u64>()
    }

    /// How many spoofing addresses there are (after `finish`).
    pub fn address_count(&self) -> u64 {
        self.addresses.count
    }

    /// The first `TOP_ADDRESSES` spoofing addresses in report order (after
    /// `finish`), for the report for people.
    pub fn top_addresses(&self) -> &[AddressTotals] {
        &self.addresses.top
    }

    /// Every spoofing address, most fetches first, ties by first_time, then
    /// client (after `finish`): read once, for `impostor-addresses.csv`.
    pub fn take_addresses(&self) -> impl Iterator<Item = Result<AddressTotals>> + use<> {
        let ranked = self
            .addresses
            .ranked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let (memory, disk) = match ranked {
            Some(Ranked::Memory(all)) => (Some(all.into_iter().map(Ok)), None),
            Some(Ranked::Disk(merged)) => (None, Some(merged.map(|r| r.map(|r| r.0)))),
            None => (None, None),
        };
        memory
            .into_iter()
            .flatten()
            .chain(disk.into_iter().flatten())
    }
}
