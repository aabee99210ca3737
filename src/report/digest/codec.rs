//! How the digest's spilled records write their parts (texts, crawler
//! sets, times) and read them back: shared by the spoofing addresses
//! (`addresses.rs`) and the rules of robots.txt outages (`made.rs`), whose
//! runs live only while the audit runs.

use std::collections::BTreeSet;

use crate::accesslog::time::Timestamp;

/// Bytes with their length in front.
pub(super) fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// What `put_bytes` wrote, and the rest.
pub(super) fn bytes(rest: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = rest.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// `bytes`, as the text it was.
pub(super) fn text(rest: &[u8]) -> Option<(&str, &[u8])> {
    let (bytes, rest) = bytes(rest)?;
    Some((std::str::from_utf8(bytes).ok()?, rest))
}

/// Crawler indices, their count in front.
pub(super) fn put_crawlers(out: &mut Vec<u8>, crawlers: &BTreeSet<usize>) {
    out.extend_from_slice(&(crawlers.len() as u32).to_le_bytes());
    for &crawler in crawlers {
        out.extend_from_slice(&(crawler as u64).to_le_bytes());
    }
}

pub(super) fn crawlers(rest: &[u8]) -> Option<(BTreeSet<usize>, &[u8])> {
    let (count, mut rest) = rest.split_first_chunk::<4>()?;
    let mut crawlers = BTreeSet::new();
    for _ in 0..u32::from_le_bytes(*count) {
        let (crawler, after) = rest.split_first_chunk::<8>()?;
        crawlers.insert(usize::try_from(u64::from_le_bytes(*crawler)).ok()?);
        rest = after;
    }
    Some((crawlers, rest))
}

pub(super) fn put_time(out: &mut Vec<u8>, time: Timestamp) {
    out.extend_from_slice(&time.unix.to_le_bytes());
    out.extend_from_slice(&time.millis.to_le_bytes());
    out.extend_from_slice(&time.offset_min.to_le_bytes());
}

pub(super) fn time(rest: &[u8]) -> Option<(Timestamp, &[u8])> {
    let (unix, rest) = rest.split_first_chunk::<8>()?;
    let (millis, rest) = rest.split_first_chunk::<2>()?;
    let (offset, rest) = rest.split_first_chunk::<2>()?;
    Some((
        Timestamp {
            unix: i64::from_le_bytes(*unix),
            millis: u16::from_le_bytes(*millis),
            offset_min: i16::from_le_bytes(*offset),
        },
        rest,
    ))
}
