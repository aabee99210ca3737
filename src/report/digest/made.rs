//! The rules a night makes rather than reads: SPEC §6's `robots.txt
//! unreachable: <status> at <time>`, one rule a text (SPEC §7 `rules.csv`).
//! Takes each row of such a rule once, in report order; gives each rule's
//! totals (rows, distinct targets, crawlers, first and last time) in
//! `rules.csv`'s order, the first few kept for the reports for people.
//!
//! Why apart from the rules of robots.txt lines: those are bounded by the
//! robots.txt, these by nothing but the log — every 5xx answer to a
//! crawler's `/robots.txt` followed by a fetch is a rule of its own, and a
//! server that answers 503 to a burst (nginx's `limit_req`) makes one a
//! second. Held in memory they took about 1 KB each (100,000 of them: 119
//! MiB at the default `--memory`). Here each row is a (rule, target)
//! record that spills to disk like the fetches do (SPEC §5 `--memory`):
//! equal records merge, a rule's records come out together, and the ranked
//! rules spill again until `rules.csv` is written.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::codec::{self, crawlers, put_bytes, put_crawlers, put_time, text, time};
use super::{RuleTotals, keep_first};
use crate::accesslog::time::Timestamp;
use crate::audit::Kind;
use crate::error::Result;
use crate::spill::{Merged, Record, Sorter, SpillDir};

/// Made rules kept in memory for the reports for people: the page shows
/// `html::render::RULES_SHOWN` (this), the mail five.
pub(super) const TOP_MADE: usize = 50;

/// A rule's identity (SPEC §7: a made rule is its text, of its version
/// and kind), in an order that only has to bring a rule's records together:
/// by a hash of it first, so that the texts, which differ only at their
/// end (`… 503 at 2026-11-30T00:00:0N+00:00`), are seldom compared.
#[derive(Debug, Clone)]
struct Key {
    hash: u64,
    rule: Arc<str>,
    robots_version: Box<str>,
    kind: Kind,
}

impl Ord for Key {
    /// The rows of one outage share their text (`Made::add`): seen to be
    /// one, it is not compared.
    fn cmp(&self, other: &Key) -> Ordering {
        self.hash
            .cmp(&other.hash)
            .then_with(|| match Arc::ptr_eq(&self.rule, &other.rule) {
                true => Ordering::Equal,
                false => self.rule.cmp(&other.rule),
            })
            .then_with(|| self.robots_version.cmp(&other.robots_version))
            .then(self.kind.cmp(&other.kind))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

impl Key {
    fn new(rule: Arc<str>, robots_version: &str, kind: Kind) -> Key {
        use std::hash::BuildHasher as _;
        // Fixed, so that a record read back from a run sorts as it did.
        let hash =
            foldhash::fast::FixedState::with_seed(0x5eed).hash_one((&*rule, robots_version, kind));
        Key {
            hash,
            rule,
            robots_version: robots_version.into(),
            kind,
        }
    }
}

/// Rows of one made rule with one target: one row as it came, or several
/// merged. `first` and `last` are the places in report order of the first
/// and last of them, with their times.
#[derive(Debug, Clone)]
struct MadeRow {
    key: Key,
    target: Box<[u8]>,
    /// The group of the first row.
    group: Box<str>,
    rows: u64,
    /// Of `rows`, those that accuse (not those whose note only informs).
    accusing: u64,
    crawlers: BTreeSet<usize>,
    first: (u64, Timestamp),
    last: (u64, Timestamp),
}

/// One row of a made rule, as the digest hands it over.
pub(super) struct Row<'a> {
    pub(super) rule: &'a str,
    pub(super) robots_version: &'a str,
    pub(super) kind: Kind,
    pub(super) group: &'a str,
    pub(super) target: &'a [u8],
    pub(super) accuses: bool,
    pub(super) crawler: usize,
    pub(super) time: Timestamp,
}

/// A target fetched against a made rule by accusing rows, for the digest's
/// list of targets fetched most.
pub(super) struct Fetched<'a> {
    pub(super) rule: &'a RuleTotals,
    pub(super) target: Box<[u8]>,
    pub(super) accusing: u64,
}

/// The made rules of a night.
pub(super) struct Made<'d> {
    /// Rows not yet handed to the sorter (a batch, so that its lock is
    /// taken once a batch, not once a row).
    pending: Vec<MadeRow>,
    /// The key of the last row, shared by the rows after it of its rule.
    last: Option<Key>,
    seq: u64,
    rows: Sorter<'d, MadeRow>,
    budget: usize,
    spill: &'d SpillDir,
    // Filled by `rank`:
    pub(super) count: u64,
    /// Rules with an informing row, and the versions named (at most two
    /// kept: whether there are several is what the page asks).
    pub(super) informing: bool,
    pub(super) versions: Vec<Box<str>>,
    /// Targets of accusing rows, summed over the made rules.
    pub(super) accusing_targets: u64,
    /// The first `TOP_MADE` by the page's order (rows that accuse, then
    /// `rules.csv`'s), and by the mail's (rows that accuse, then text).
    pub(super) top_page: Vec<RuleTotals>,
    pub(super) top_mail: Vec<RuleTotals>,
    ranked: Mutex<Option<Merged<RankedRule>>>,
}

/// Rows held before they go to the sorter.
const BATCH: usize = 1024;

impl<'d> Made<'d> {
    pub(super) fn new(budget: usize, spill: &'d SpillDir) -> Made<'d> {
        Made {
            pending: Vec::new(),
            last: None,
            seq: 0,
            // Half the pairs' share while rows come, the other half for
            // the ranking at the end.
            rows: Sorter::new(budget / 2, spill),
            budget,
            spill,
            count: 0,
            informing: false,
            versions: Vec::new(),
            accusing_targets: 0,
            top_page: Vec::new(),
            top_mail: Vec::new(),
            ranked: Mutex::new(None),
        }
    }

    pub(super) fn add(&mut self, row: Row<'_>) {
        let seq = self.seq;
        self.seq += 1;
        // The rows of an outage come together: its text is shared, not
        // copied a row.
        let key = match &self.last {
            Some(last)
                if *last.rule == *row.rule
                    && *last.robots_version == *row.robots_version
                    && last.kind == row.kind =>
            {
                last.clone()
            }
            _ => {
                let key = Key::new(row.rule.into(), row.robots_version, row.kind);
                self.last = Some(key.clone());
                key
            }
        };
        self.pending.push(MadeRow {
            key,
            target: row.target.into(),
            group: row.group.into(),
            rows: 1,
            accusing: u64::from(row.accuses),
            crawlers: BTreeSet::from([row.crawler]),
            first: (seq, row.time),
            last: (seq, row.time),
        });
        if self.pending.len() >= BATCH {
            self.rows.extend(std::mem::take(&mut self.pending));
        }
    }

    /// Totals every made rule, now that every row is in: calls `fetched`
    /// for each (rule, target) of accusing rows, keeps the first rules for
    /// the page and the mail, and the rest, ranked, for `take_ranked`.
    pub(super) fn rank(&mut self, mut fetched: impl FnMut(Fetched<'_>)) -> Result<()> {
        let rows = std::mem::replace(&mut self.rows, Sorter::new(1, self.spill));
        rows.extend(std::mem::take(&mut self.pending));
        let ranked: Sorter<'d, RankedRule> = Sorter::new(self.budget / 2, self.spill);
        let mut open: Option<Open> = None;
        for row in rows.finish()? {
            let row = row?;
            if open.as_ref().is_some_and(|open| open.key != row.key) {
                self.close(open.take(), &ranked);
            }
            let open = open.get_or_insert_with(|| Open::new(&row));
            open.take_in(&row);
            if row.accusing > 0 {
                fetched(Fetched {
                    rule: &open.totals,
                    target: row.target,
                    accusing: row.accusing,
                });
            }
        }
        self.close(open, &ranked);
        *self.ranked.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(ranked.finish()?);
        Ok(())
    }

    /// A rule whose records are all in: counted, kept among the first, and
    /// handed to the ranking.
    fn close(&mut self, open: Option<Open>, ranked: &Sorter<'d, RankedRule>) {
        let Some(open) = open else { return };
        let totals = open.totals;
        self.count += 1;
        self.informing |= totals.informing > 0;
        if self.versions.len() < 2 && !self.versions.iter().any(|v| **v == *totals.robots_version) {
            self.versions.push(totals.robots_version.as_str().into());
        }
        self.accusing_targets += totals.accusing_targets;
        keep_first(&mut self.top_page, TOP_MADE, &totals, page_order);
        keep_first(&mut self.top_mail, TOP_MADE, &totals, mail_order);
        ranked.extend([RankedRule(totals)]);
    }

    /// Every made rule in `rules.csv`'s order (after `rank`): read once.
    pub(super) fn take_ranked(&self) -> Option<Merged<RankedRule>> {
        self.ranked.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// `rules.csv`'s order (SPEC §7): most violations first, ties by
/// first_time, then robots_version, then rule_line, then kind (and text,
/// which a made rule is).
pub(super) fn report_order(a: &RuleTotals, b: &RuleTotals) -> Ordering {
    b.violations
        .cmp(&a.violations)
        .then(a.first.instant_ms().cmp(&b.first.instant_ms()))
        .then(a.robots_version.cmp(&b.robots_version))
        .then(a.rule_line.cmp(&b.rule_line))
        .then(a.kind.cmp(&b.kind))
        .then(a.rule.cmp(&b.rule))
}

/// The page's order: the rows that accuse, most first, then `rules.csv`'s.
pub(super) fn page_order(a: &RuleTotals, b: &RuleTotals) -> Ordering {
    (b.violations - b.informing)
        .cmp(&(a.violations - a.informing))
        .then_with(|| report_order(a, b))
}

/// The mail's order: the rows that accuse, most first, then line and text.
fn mail_order(a: &RuleTotals, b: &RuleTotals) -> Ordering {
    (b.violations - b.informing)
        .cmp(&(a.violations - a.informing))
        .then(a.rule_line.cmp(&b.rule_line))
        .then(a.rule.cmp(&b.rule))
}

/// The rule whose records are being read, and where its first and last
/// rows stand in report order.
struct Open {
    key: Key,
    totals: RuleTotals,
    first_seq: u64,
    last_seq: u64,
}

impl Open {
    fn new(row: &MadeRow) -> Open {
        Open {
            key: row.key.clone(),
            totals: RuleTotals {
                robots_version: row.key.robots_version.to_string(),
                rule_line: 0,
                rule: row.key.rule.to_string(),
                group: row.group.to_string(),
                kind: row.key.kind,
                violations: 0,
                informing: 0,
                distinct_targets: 0,
                accusing_targets: 0,
                crawlers: BTreeSet::new(),
                first: row.first.1,
                last: row.last.1,
            },
            first_seq: row.first.0,
            last_seq: row.last.0,
        }
    }

    /// One target's rows.
    fn take_in(&mut self, row: &MadeRow) {
        let totals = &mut self.totals;
        totals.violations += row.rows;
        totals.informing += row.rows - row.accusing;
        totals.distinct_targets += 1;
        totals.accusing_targets += u64::from(row.accusing > 0);
        totals.crawlers.extend(row.crawlers.iter().copied());
        if row.first.0 <= self.first_seq {
            self.first_seq = row.first.0;
            totals.first = row.first.1;
            totals.group = row.group.to_string();
        }
        if row.last.0 >= self.last_seq {
            self.last_seq = row.last.0;
            totals.last = row.last.1;
        }
    }
}

impl Record for MadeRow {
    fn order(&self, other: &Self) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| self.target.cmp(&other.target))
    }

    /// The text with the allocator's overhead, the fixed part twice (as
    /// `Targeted::size_of`).
    fn size(&self) -> usize {
        2 * std::mem::size_of::<MadeRow>()
            + self.key.rule.len()
            + self.key.robots_version.len()
            + self.target.len()
            + self.group.len()
            + 48 * (1 + self.crawlers.len())
    }

    fn encode(&self, out: &mut Vec<u8>) {
        put_bytes(out, self.key.rule.as_bytes());
        put_bytes(out, self.key.robots_version.as_bytes());
        out.push(kind_byte(self.key.kind));
        put_bytes(out, &self.target);
        put_bytes(out, self.group.as_bytes());
        out.extend_from_slice(&self.rows.to_le_bytes());
        out.extend_from_slice(&self.accusing.to_le_bytes());
        put_crawlers(out, &self.crawlers);
        for (seq, time) in [self.first, self.last] {
            out.extend_from_slice(&seq.to_le_bytes());
            put_time(out, time);
        }
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (rule, rest) = text(bytes)?;
        let (robots_version, rest) = text(rest)?;
        let (&kind, rest) = rest.split_first()?;
        let (target, rest) = codec::bytes(rest)?;
        let (group, rest) = text(rest)?;
        let (rows, rest) = rest.split_first_chunk::<8>()?;
        let (accusing, rest) = rest.split_first_chunk::<8>()?;
        let (crawlers, mut rest) = crawlers(rest)?;
        let zero = Timestamp {
            unix: 0,
            millis: 0,
            offset_min: 0,
        };
        let mut places = [(0, zero); 2];
        for place in &mut places {
            let (seq, after) = rest.split_first_chunk::<8>()?;
            let (time, after) = time(after)?;
            *place = (u64::from_le_bytes(*seq), time);
            rest = after;
        }
        rest.is_empty().then_some(())?;
        Some(MadeRow {
            key: Key::new(rule.into(), robots_version, kind_of(kind)?),
            target: target.into(),
            group: group.into(),
            rows: u64::from_le_bytes(*rows),
            accusing: u64::from_le_bytes(*accusing),
            crawlers,
            first: places[0],
            last: places[1],
        })
    }

    /// The same rule and target in another stretch of the night: the first
    /// keeps its group and time, the last its time, exactly as if they had
    /// met in memory.
    fn absorb(&mut self, other: Self) {
        self.rows += other.rows;
        self.accusing += other.accusing;
        self.crawlers.extend(other.crawlers);
        if other.first.0 < self.first.0 {
            self.first = other.first;
            self.group = other.group;
        }
        if other.last.0 > self.last.0 {
            self.last = other.last;
        }
    }
}

/// A made rule in `rules.csv`'s order, for the ranking sort.
pub(super) struct RankedRule(pub(super) RuleTotals);

impl Record for RankedRule {
    fn order(&self, other: &Self) -> Ordering {
        report_order(&self.0, &other.0)
    }

    fn size(&self) -> usize {
        let totals = &self.0;
        2 * std::mem::size_of::<RuleTotals>()
            + totals.rule.len()
            + totals.robots_version.len()
            + totals.group.len()
            + 48 * (1 + totals.crawlers.len())
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let totals = &self.0;
        put_bytes(out, totals.rule.as_bytes());
        put_bytes(out, totals.robots_version.as_bytes());
        out.push(kind_byte(totals.kind));
        put_bytes(out, totals.group.as_bytes());
        out.extend_from_slice(&(totals.rule_line as u64).to_le_bytes());
        for n in [
            totals.violations,
            totals.informing,
            totals.distinct_targets,
            totals.accusing_targets,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        put_crawlers(out, &totals.crawlers);
        put_time(out, totals.first);
        put_time(out, totals.last);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (rule, rest) = text(bytes)?;
        let (robots_version, rest) = text(rest)?;
        let (&kind, rest) = rest.split_first()?;
        let (group, rest) = text(rest)?;
        let (rule_line, mut rest) = rest.split_first_chunk::<8>()?;
        let mut counts = [0u64; 4];
        for count in &mut counts {
            let (n, after) = rest.split_first_chunk::<8>()?;
            *count = u64::from_le_bytes(*n);
            rest = after;
        }
        let (crawlers, rest) = crawlers(rest)?;
        let (first, rest) = time(rest)?;
        let (last, rest) = time(rest)?;
        rest.is_empty().then_some(())?;
        Some(RankedRule(RuleTotals {
            robots_version: robots_version.to_string(),
            rule_line: usize::try_from(u64::from_le_bytes(*rule_line)).ok()?,
            rule: rule.to_string(),
            group: group.to_string(),
            kind: kind_of(kind)?,
            violations: counts[0],
            informing: counts[1],
            distinct_targets: counts[2],
            accusing_targets: counts[3],
            crawlers,
            first,
            last,
        }))
    }

    /// Rules are unique by now: never called.
    fn absorb(&mut self, _other: Self) {}
}

fn kind_byte(kind: Kind) -> u8 {
    match kind {
        Kind::CrawlDelay => 0,
        Kind::Disallow => 1,
        Kind::RequestRate => 2,
    }
}

fn kind_of(byte: u8) -> Option<Kind> {
    Kind::ALL.get(usize::from(byte)).copied()
}
