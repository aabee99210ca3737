//! The spoofing addresses of a night: takes each impostor once, in report
//! order, and gives one total per address (the crawlers it claimed, its
//! fetches, the first name and reason), ranked as `impostor-addresses.csv`
//! orders them, the first `TOP_ADDRESSES` kept for the report for people
//! (SPEC §7 `impostor-addresses.csv`). Memory grows with the addresses held
//! before they spill to a sorter that merges equal clients, never with
//! fetches.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

use super::codec::{bytes, crawlers, put_bytes, put_crawlers, put_time, text, time};
use super::keep_first;
use super::targets::Fold;
use crate::accesslog::time::Timestamp;
use crate::audit::{Impostor, SpoofReason};
use crate::error::Result;
use crate::spill::{Record, Sorter, SpillDir};

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
pub(super) struct Addresses<'d> {
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
    pub(super) count: u64,
    pub(super) top: Vec<AddressTotals>,
    pub(super) ranked: std::sync::Mutex<Option<Ranked>>,
}

/// The ranked addresses, held or read back from sorted runs.
pub(super) enum Ranked {
    Memory(Vec<AddressTotals>),
    Disk(crate::spill::Merged<RankedAddress>),
}

impl<'d> Addresses<'d> {
    pub(super) fn new(budget: usize, spill: &'d SpillDir) -> Addresses<'d> {
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

    pub(super) fn add(&mut self, client: Vec<u8>, impostor: &Impostor) {
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
    pub(super) fn rank(&mut self) -> Result<()> {
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
            keep_first(&mut top, TOP_ADDRESSES, &totals, report_order);
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
pub(super) struct RankedAddress(pub(super) AddressTotals);

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
    put_bytes(out, &totals.client);
    put_crawlers(out, &totals.claimed);
    out.extend_from_slice(&totals.fetches.to_le_bytes());
    match &totals.ptr {
        Some(ptr) => {
            out.push(1);
            put_bytes(out, ptr.as_bytes());
        }
        None => out.push(0),
    }
    out.push(match totals.reason {
        SpoofReason::PtrMismatch => 0,
        SpoofReason::NoPtr => 1,
        SpoofReason::ForwardMismatch => 2,
    });
    put_time(out, totals.first);
    put_time(out, totals.last);
}

fn decode_address(bytes_in: &[u8]) -> Option<(AddressTotals, &[u8])> {
    let (client, rest) = bytes(bytes_in)?;
    let (claimed, rest) = crawlers(rest)?;
    let (fetches, rest) = rest.split_first_chunk::<8>()?;
    let (&has_ptr, mut rest) = rest.split_first()?;
    let ptr = match has_ptr {
        0 => None,
        1 => {
            let (ptr, after) = text(rest)?;
            rest = after;
            Some(ptr.to_string())
        }
        _ => return None,
    };
    let (&reason, rest) = rest.split_first()?;
    let reason = match reason {
        0 => SpoofReason::PtrMismatch,
        1 => SpoofReason::NoPtr,
        2 => SpoofReason::ForwardMismatch,
        _ => return None,
    };
    let (first, rest) = time(rest)?;
    let (last, rest) = time(rest)?;
    Some((
        AddressTotals {
            client: client.to_vec(),
            claimed,
            fetches: u64::from_le_bytes(*fetches),
            ptr,
            reason,
            first,
            last,
        },
        rest,
    ))
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
