//! How `--memory` is shared out (SPEC §5 "peak memory stays within
//! `--memory`"): takes the limit; gives how many fetch records, (rule,
//! target) pairs, identities and addresses each stage may hold before it
//! spills or starts over.

use super::judge::IDENTITY_BYTES;

/// How `--memory` is shared out. The rest of it goes to what does not
/// grow with the log: the program, the chunks in flight, a batch being
/// judged, the merge's read buffers.
pub(super) struct Budget {
    /// Fetch records held before a sorted run spills.
    pub(super) fetches: usize,
    /// (rule, target) pairs held before they spill.
    pub(super) targets: usize,
    /// Identities the judge remembers before it starts over.
    pub(super) identities: usize,
    /// Bytes of (address, fetches) records held before they spill
    /// (`--resolve`).
    pub(super) addresses_sorted: usize,
    /// Addresses outside the crawlers' networks looked up at most
    /// (`--resolve`): each costs its answer, its place in the order of
    /// lookups and in the cache, a few hundred bytes.
    pub(super) addresses_asked: usize,
}

/// Memory one address looked up holds, all told (`Budget::addresses_asked`).
const ADDRESS_ASKED_BYTES: usize = 512;

impl Budget {
    pub(super) fn of(memory: u64) -> Budget {
        let memory = usize::try_from(memory).unwrap_or(usize::MAX);
        // Measured: the program with its chunks in flight stays near
        // 20 MiB whatever the log; the shares leave room for the merge's
        // read buffers and a batch being judged.
        Budget {
            fetches: memory / 20 * 7,
            targets: memory / 10,
            identities: (memory / 20 / IDENTITY_BYTES).max(1024),
            addresses_sorted: memory / 40,
            addresses_asked: (memory / 10 / ADDRESS_ASKED_BYTES).max(1024),
        }
    }
}
