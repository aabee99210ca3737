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

/// Targets seen for one tag, not yet sorted: (rows, rows that accuse).
type Seen = HashMap<Box<[u8]>, (u64, u64), Fold>;

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

/// A target fetched against a rule: (the rule's index in `rules`, the
/// target, accusing rows).
pub type TopTarget = (usize, Box<[u8]>, u64);

/// Keeps `entry` among the `TOP_TARGETS` targets fetched most against a
/// rule (ties by rule line, kind, then target).
fn note_target(top: &mut Vec<TopTarget>, rules: &[RuleTotals], entry: TopTarget) {
    let order = |(a_rule, a_target, a_times): &TopTarget,
                 (b_rule, b_target, b_times): &TopTarget| {
        let (a, b) = (&rules[*a_rule], &rules[*b_rule]);
        b_times
            .cmp(a_times)
            .then(a.rule_line.cmp(&b.rule_line))
            .then(a.kind.as_str().cmp(b.kind.as_str()))
            .then(a_target.cmp(b_target))
    };
    if top.len() == TOP_TARGETS && top.last().is_some_and(|last| order(&entry, last).is_ge()) {
        return;
    }
    let at = top.partition_point(|kept| order(kept, &entry).is_le());
    top.insert(at, entry);
    top.truncate(TOP_TARGETS);
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
    /// The targets fetched most against a rule by accusing rows, most
    /// first (ties by rule line, kind and target), at most `TOP_TARGETS`.
    pub top_targets: Vec<TopTarget>,
    /// Rules by (line, kind, a hash of the version and, for a made rule of
    /// no line, its text): the indexes in `rules` of those that hash so,
    /// compared whole, looked up without a copy of the row's text. A night
    /// of a thousand robots.txt outages is a thousand rules of line 0: each
    /// found by its own key, not by a walk over the others.
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
        let key = {
            use std::hash::{BuildHasher as _, Hash as _, Hasher as _};
            let mut hasher = self.rule_index.hasher().build_hasher();
            row.robots_version.hash(&mut hasher);
            if row.rule_line == 0 {
                row.rule.hash(&mut hasher);
            }
            hasher.finish()
        };
        let candidates = self
            .rule_index
            .entry((row.rule_line, row.kind, key))
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
        let kept = counted.fetch.target_kept();
        let target: &[u8] = &kept;
        for tag in [
            Tag::Kind {
                crawler: counted.crawler,
                kind: kind_index,
            },
            Tag::Rule(at),
        ] {
            let seen = self.pending.entry(tag).or_default();
            let accusing = u64::from(row.accuses());
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
        let client = match parse_client(impostor.fetch.client()) {
            Client::Addr(addr) => addr.to_string().into_bytes(),
            _ => impostor.fetch.client().to_vec(),
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
                            let entry = (at, pair.target, pair.accusing);
                            note_target(&mut self.top_targets, &self.rules, entry);
                        }
                    }
                }
            }
        }
        self.addresses.rank()?;
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

/// Spoofing addresses kept in memory for the report for people.
pub const TOP_ADDRESSES: usize = 100;

/// The order of `impostor-addresses.csv` (SPEC §7): most fetches first,
/// ties by first_time, then client (unique): addresses in numeric order,
/// IPv4 before IPv6 (`10.0.0.2` before `10.0.0.14`, as a firewall list
/// reads), then host names in byte order.
fn report_order(a: &AddressTotals, b: &AddressTotals) -> Ordering {
    b.fetches
        .cmp(&a.fetches)
        .then(a.first.instant_ms().cmp(&b.first.instant_ms()))
        .then_with(|| client_order(&a.client, &b.client))
}

/// Clients as `report_order` ranks them: addresses by number, before
/// anything else, which goes by its bytes.
fn client_order(a: &[u8], b: &[u8]) -> Ordering {
    let address = |client: &[u8]| {
        std::str::from_utf8(client)
            .ok()
            .and_then(|text| text.parse::<std::net::IpAddr>().ok())
    };
    match (address(a), address(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// The spoofing addresses, gathered by client.
struct Addresses<'d> {
    live: HashMap<Vec<u8>, Spoofer, Fold>,
    live_bytes: usize,
    /// Bytes of `live` past which it goes to `by_client`.
    limit: usize,
    /// Impostors seen, in report order: decides which one's reason and
    /// name an address keeps when its records meet.
    seq: u64,
    by_client: Option<Sorter<'d, Spoofer>>,
    budget: usize,
    spill: &'d SpillDir,
    // Filled by `rank`:
    count: u64,
    top: Vec<AddressTotals>,
    ranked: std::sync::Mutex<Option<Ranked>>,
}

/// The ranked addresses, held or read back from sorted runs.
enum Ranked {
    Memory(Vec<AddressTotals>),
    Disk(crate::spill::Merged<RankedAddress>),
}

impl<'d> Addresses<'d> {
    fn new(budget: usize, spill: &'d SpillDir) -> Addresses<'d> {
        Addresses {
            live: HashMap::default(),
            live_bytes: 0,
            // As the pending pairs: an eighth of the share.
            limit: (budget / 8).max(64 * 1024),
            seq: 0,
            by_client: None,
            budget,
            spill,
            count: 0,
            top: Vec::new(),
            ranked: std::sync::Mutex::new(None),
        }
    }

    fn add(&mut self, client: Vec<u8>, impostor: &Impostor) {
        let seq = self.seq;
        self.seq += 1;
        let time = impostor.fetch.time;
        // One fetch as a record of its own, met in memory exactly as
        // records of two stretches of the night meet on disk (`absorb`).
        let one = |client: Vec<u8>| Spoofer {
            totals: AddressTotals {
                client,
                claimed: BTreeSet::from([impostor.claimed]),
                fetches: 1,
                ptr: impostor.ptr.clone(),
                reason: impostor.reason,
                first: time,
                last: time,
            },
            first_seq: seq,
            last_seq: seq,
            ptr_seq: if impostor.ptr.is_some() {
                seq
            } else {
                u64::MAX
            },
        };
        match self.live.get_mut(&client) {
            Some(spoofer) => spoofer.absorb(one(Vec::new())),
            None => {
                let spoofer = one(client.clone());
                self.live_bytes += spoofer.size() + client.len() + 32;
                self.live.insert(client, spoofer);
            }
        }
        if self.live_bytes >= self.limit {
            self.send_live();
        }
    }

    /// Hands the addresses held to the sorter that merges them by client.
    fn send_live(&mut self) {
        self.live_bytes = 0;
        let live = std::mem::take(&mut self.live);
        let sorter = self
            .by_client
            .get_or_insert_with(|| Sorter::new(self.budget / 8, self.spill));
        sorter.extend(live.into_values());
    }

    /// Merges, counts and ranks every address; keeps the first
    /// `TOP_ADDRESSES`, and the rest for `take_addresses`.
    fn rank(&mut self) -> Result<()> {
        let Some(sorter) = self.by_client.take() else {
            let mut all: Vec<AddressTotals> = std::mem::take(&mut self.live)
                .into_values()
                .map(|s| s.totals)
                .collect();
            all.sort_by(report_order);
            self.count = all.len() as u64;
            self.top = all.iter().take(TOP_ADDRESSES).cloned().collect();
            *self.ranked.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(Ranked::Memory(all));
            return Ok(());
        };
        sorter.extend(std::mem::take(&mut self.live).into_values());
        let ranked: Sorter<'d, RankedAddress> = Sorter::new(self.budget / 2, self.spill);
        let mut top: Vec<AddressTotals> = Vec::new();
        let mut count = 0u64;
        for spoofer in sorter.finish()? {
            let totals = spoofer?.totals;
            count += 1;
            // The first `TOP_ADDRESSES` in report order, kept as they come.
            if top.len() < TOP_ADDRESSES
                || top
                    .last()
                    .is_some_and(|last| report_order(&totals, last) == Ordering::Less)
            {
                let at = top.partition_point(|t| report_order(t, &totals) == Ordering::Less);
                top.insert(at, totals.clone());
                top.truncate(TOP_ADDRESSES);
            }
            ranked.extend([RankedAddress(totals)]);
        }
        self.count = count;
        self.top = top;
        *self.ranked.get_mut().unwrap_or_else(|e| e.into_inner()) =
            Some(Ranked::Disk(ranked.finish()?));
        Ok(())
    }
}

/// One address's impostors so far, with the places in report order of
/// its first and last, and of the first that gave a name.
#[derive(Debug, Clone)]
struct Spoofer {
    totals: AddressTotals,
    first_seq: u64,
    last_seq: u64,
    ptr_seq: u64,
}

impl Record for Spoofer {
    fn order(&self, other: &Self) -> Ordering {
        self.totals.client.cmp(&other.totals.client)
    }

    fn size(&self) -> usize {
        address_size(&self.totals) + 24
    }

    fn encode(&self, out: &mut Vec<u8>) {
        encode_address(&self.totals, out);
        for seq in [self.first_seq, self.last_seq, self.ptr_seq] {
            out.extend_from_slice(&seq.to_le_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (totals, rest) = decode_address(bytes)?;
        let (first_seq, rest) = rest.split_first_chunk::<8>()?;
        let (last_seq, rest) = rest.split_first_chunk::<8>()?;
        let (ptr_seq, rest) = rest.split_first_chunk::<8>()?;
        rest.is_empty().then(|| Spoofer {
            totals,
            first_seq: u64::from_le_bytes(*first_seq),
            last_seq: u64::from_le_bytes(*last_seq),
            ptr_seq: u64::from_le_bytes(*ptr_seq),
        })
    }

    /// The same address's impostors of another stretch of the night: the
    /// first keeps its reason and time, the last its time, the first that
    /// gave a name its name, exactly as if they had met in memory.
    fn absorb(&mut self, other: Self) {
        let mine = &mut self.totals;
        let theirs = other.totals;
        mine.fetches += theirs.fetches;
        mine.claimed.extend(theirs.claimed);
        if other.first_seq < self.first_seq {
            self.first_seq = other.first_seq;
            mine.first = theirs.first;
            mine.reason = theirs.reason;
        }
        if other.last_seq > self.last_seq {
            self.last_seq = other.last_seq;
            mine.last = theirs.last;
        }
        if other.ptr_seq < self.ptr_seq {
            self.ptr_seq = other.ptr_seq;
            mine.ptr = theirs.ptr;
        }
    }
}

/// An address in report order, for the ranking sort.
struct RankedAddress(AddressTotals);

impl Record for RankedAddress {
    fn order(&self, other: &Self) -> Ordering {
        report_order(&self.0, &other.0)
    }

    fn size(&self) -> usize {
        address_size(&self.0)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        encode_address(&self.0, out);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (totals, rest) = decode_address(bytes)?;
        rest.is_empty().then_some(RankedAddress(totals))
    }

    /// Clients are unique by now: never called.
    fn absorb(&mut self, _other: Self) {}
}

/// What an address holds, with the allocator's overhead, its fixed part
/// twice (as `Targeted::size_of`).
fn address_size(totals: &AddressTotals) -> usize {
    let text = totals.client.len() + totals.ptr.as_ref().map_or(0, String::len);
    2 * std::mem::size_of::<AddressTotals>() + text + 48 * (1 + totals.claimed.len())
}

fn encode_address(totals: &AddressTotals, out: &mut Vec<u8>) {
    let bytes = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b);
    };
    bytes(out, &totals.client);
    out.extend_from_slice(&(totals.claimed.len() as u32).to_le_bytes());
    for &crawler in &totals.claimed {
        out.extend_from_slice(&(crawler as u64).to_le_bytes());
    }
    out.extend_from_slice(&totals.fetches.to_le_bytes());
    match &totals.ptr {
        Some(ptr) => {
            out.push(1);
            bytes(out, ptr.as_bytes());
        }
        None => out.push(0),
    }
    out.push(match totals.reason {
        SpoofReason::PtrMismatch => 0,
        SpoofReason::NoPtr => 1,
        SpoofReason::ForwardMismatch => 2,
    });
    for time in [totals.first, totals.last] {
        out.extend_from_slice(&time.unix.to_le_bytes());
        out.extend_from_slice(&time.millis.to_le_bytes());
        out.extend_from_slice(&time.offset_min.to_le_bytes());
    }
}

fn decode_address(bytes: &[u8]) -> Option<(AddressTotals, &[u8])> {
    fn bytes_of(rest: &[u8]) -> Option<(&[u8], &[u8])> {
        let (len, rest) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        (rest.len() >= len).then(|| rest.split_at(len))
    }
    let (client, mut rest) = bytes_of(bytes)?;
    let (count, after) = rest.split_first_chunk::<4>()?;
    rest = after;
    let mut claimed = BTreeSet::new();
    for _ in 0..u32::from_le_bytes(*count) {
        let (crawler, after) = rest.split_first_chunk::<8>()?;
        claimed.insert(usize::try_from(u64::from_le_bytes(*crawler)).ok()?);
        rest = after;
    }
    let (fetches, rest) = rest.split_first_chunk::<8>()?;
    let (&has_ptr, mut rest) = rest.split_first()?;
    let ptr = match has_ptr {
        0 => None,
        1 => {
            let (ptr, after) = bytes_of(rest)?;
            rest = after;
            Some(String::from_utf8(ptr.to_vec()).ok()?)
        }
        _ => return None,
    };
    let (&reason, mut rest) = rest.split_first()?;
    let reason = match reason {
        0 => SpoofReason::PtrMismatch,
        1 => SpoofReason::NoPtr,
        2 => SpoofReason::ForwardMismatch,
        _ => return None,
    };
    let zero = Timestamp {
        unix: 0,
        millis: 0,
        offset_min: 0,
    };
    let mut times = [zero; 2];
    for time in &mut times {
        let (unix, after) = rest.split_first_chunk::<8>()?;
        let (millis, after) = after.split_first_chunk::<2>()?;
        let (offset, after) = after.split_first_chunk::<2>()?;
        *time = Timestamp {
            unix: i64::from_le_bytes(*unix),
            millis: u16::from_le_bytes(*millis),
            offset_min: i16::from_le_bytes(*offset),
        };
        rest = after;
    }
    Some((
        AddressTotals {
            client: client.to_vec(),
            claimed,
            fetches: u64::from_le_bytes(*fetches),
            ptr,
            reason,
            first: times[0],
            last: times[1],
        },
        rest,
    ))
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
    /// Of `times`, the rows that accuse (not those whose note only
    /// informs): the report for people ranks targets by these.
    accusing: u64,
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
        out.extend_from_slice(&self.accusing.to_le_bytes());
        out.extend_from_slice(&self.target);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (&which, rest) = bytes.split_first()?;
        let (a, rest) = rest.split_first_chunk::<8>()?;
        let (b, rest) = rest.split_first_chunk::<8>()?;
        let (times, rest) = rest.split_first_chunk::<8>()?;
        let (accusing, target) = rest.split_first_chunk::<8>()?;
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
            accusing: u64::from_le_bytes(*accusing),
        })
    }

    fn absorb(&mut self, other: Self) {
        self.times += other.times;
        self.accusing += other.accusing;
    }
}

#[cfg(test)]
mod tests {
    use super::client_order;
    use std::cmp::Ordering;

    /// Addresses by number, IPv4 before IPv6, then names by their bytes.
    #[test]
    fn clients_rank_as_a_firewall_list_reads() {
        let mut clients: Vec<&[u8]> = vec![
            b"evil.example.net",
            b"2001:db8::10",
            b"10.0.0.14",
            b"2001:db8::9",
            b"10.0.0.2",
            b"9.255.255.255",
            b"a.example",
        ];
        clients.sort_by(|a, b| client_order(a, b));
        let want: Vec<&[u8]> = vec![
            b"9.255.255.255",
            b"10.0.0.2",
            b"10.0.0.14",
            b"2001:db8::9",
            b"2001:db8::10",
            b"a.example",
            b"evil.example.net",
        ];
        assert_eq!(clients, want);
        assert_eq!(client_order(b"10.0.0.2", b"10.0.0.2"), Ordering::Equal);
    }
}
