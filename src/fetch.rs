//! The one record of a crawler's (or a pretender's) fetch: made once by the
//! scan worker from a parsed log line and carried, unchanged, to the
//! report. Later stages wrap it (`audit::Counted`, `audit::Impostor`)
//! rather than copy its fields. Takes the parsed fields; gives the record,
//! its sort key (SPEC §4: instant, file, line) and its bytes for a sorted
//! run on disk (`spill`).
//!
//! The text a fetch keeps — client, method, target, user agent — lives in
//! one allocation, so a record costs one allocation and its size is known
//! for the memory budget. Each part is bounded (SPEC §5: 8 KiB) but the
//! target, which is kept whole (up to the line's length) until it is
//! judged and cut where it is written.

use std::borrow::Cow;

use crate::accesslog::time::Timestamp;
use crate::crawler::CrawlerId;
use crate::spill::Record;
use crate::text::bound;

/// One fetch that may be a crawler's, as logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    pub time: Timestamp,
    /// Index of the log file in the order given.
    pub file: u32,
    /// 1-based line in that file.
    pub line: u64,
    pub status: Option<u16>,
    /// The crawler the user agent names, if any.
    pub claim: Option<CrawlerId>,
    /// Of another virtual host than `--host` names: judged for who made
    /// it (an impostor is listed whatever the host), never against
    /// robots.txt.
    pub other_host: bool,
    /// Before `--since`: a fetch of `/robots.txt` kept only so that the
    /// crawler's view of robots.txt at the start of the period is the one
    /// the log shows (a 4xx before it frees the fetches after it); never
    /// counted, judged or listed.
    pub before_period: bool,
    /// client, method, target and user agent, one after another.
    text: Box<[u8]>,
    /// Where client, method and target end in `text`.
    ends: [u32; 3],
}

/// The order of SPEC §4 and §5: the instant, then file, then line. Unique
/// for every fetch of a run, so any sort of fetches gives one order.
pub type Key = (i64, u32, u64);

/// The parts of a fetch's text, before they are joined.
pub struct Text<'a> {
    /// The client field as logged (or as chosen behind a trusted proxy).
    pub client: &'a [u8],
    pub method: &'a [u8],
    /// Path and query as logged, escapes decoded, an absolute URL cut.
    pub target: &'a [u8],
    pub user_agent: &'a [u8],
}

impl Fetch {
    pub fn new(
        time: Timestamp,
        file: u32,
        line: u64,
        status: Option<u16>,
        claim: Option<CrawlerId>,
        text: Text<'_>,
    ) -> Fetch {
        let parts = [text.client, text.method, text.target, text.user_agent];
        let mut joined = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
        let mut ends = [0u32; 3];
        for (i, part) in parts.iter().enumerate() {
            joined.extend_from_slice(part);
            if let Some(end) = ends.get_mut(i) {
                // Each part is bounded by the caller (8 KiB), so the sum
                // fits; saturate rather than wrap if a caller forgot.
                *end = u32::try_from(joined.len()).unwrap_or(u32::MAX);
            }
        }
        Fetch {
            time,
            file,
            line,
            status,
            claim,
            other_host: false,
            before_period: false,
            text: joined.into_boxed_slice(),
            ends,
        }
    }

    pub fn key(&self) -> Key {
        (self.time.instant_ms(), self.file, self.line)
    }

    fn part(&self, index: usize) -> &[u8] {
        let start = if index == 0 {
            0
        } else {
            self.ends[index - 1] as usize
        };
        let end = self
            .ends
            .get(index)
            .map_or(self.text.len(), |&e| e as usize);
        self.text.get(start..end).unwrap_or_default()
    }

    /// The client field as logged.
    pub fn client(&self) -> &[u8] {
        self.part(0)
    }

    pub fn method(&self) -> &[u8] {
        self.part(1)
    }

    /// Path and query as logged, escapes decoded, an absolute URL cut:
    /// whole, as the matcher judges it.
    pub fn target(&self) -> &[u8] {
        self.part(2)
    }

    /// The target as the reports keep it: cut past 8 KiB, marked
    /// `…[cut N bytes]` (SPEC §5).
    pub fn target_kept(&self) -> Cow<'_, [u8]> {
        bound(self.target())
    }

    pub fn user_agent(&self) -> &[u8] {
        self.part(3)
    }

    /// Bytes of memory the record costs, for the memory budget: its text
    /// with the allocator's overhead, and its fixed part twice, for the
    /// room a growing buffer keeps and the scratch space of its sort.
    pub fn size(&self) -> usize {
        2 * std::mem::size_of::<Fetch>() + self.text.len() + 16
    }

    /// Appends the record's bytes, as `decode` reads them back.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.time.unix.to_le_bytes());
        out.extend_from_slice(&self.time.millis.to_le_bytes());
        out.extend_from_slice(&self.time.offset_min.to_le_bytes());
        out.extend_from_slice(&self.file.to_le_bytes());
        out.extend_from_slice(&self.line.to_le_bytes());
        out.extend_from_slice(&self.status.map_or(u32::MAX, u32::from).to_le_bytes());
        out.extend_from_slice(
            &self
                .claim
                .map_or(u32::MAX, |c| c.index() as u32)
                .to_le_bytes(),
        );
        out.push(u8::from(self.other_host) | u8::from(self.before_period) << 1);
        for end in self.ends {
            out.extend_from_slice(&end.to_le_bytes());
        }
        out.extend_from_slice(&(self.text.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.text);
    }

    /// Reads a record that `encode` wrote; `None` when the bytes are not
    /// one (a run file damaged under the run's feet).
    pub fn decode(bytes: &[u8]) -> Option<Fetch> {
        let mut input = Reader(bytes);
        let unix = i64::from_le_bytes(input.take()?);
        let millis = u16::from_le_bytes(input.take()?);
        let offset_min = i16::from_le_bytes(input.take()?);
        let file = u32::from_le_bytes(input.take()?);
        let line = u64::from_le_bytes(input.take()?);
        let status = u32::from_le_bytes(input.take()?);
        let claim = u32::from_le_bytes(input.take()?);
        let [flags] = input.take::<1>()?;
        let mut ends = [0u32; 3];
        for end in &mut ends {
            *end = u32::from_le_bytes(input.take()?);
        }
        let len = u32::from_le_bytes(input.take()?) as usize;
        let text = input.0.get(..len)?;
        if input.0.len() != len || ends.iter().any(|&e| e as usize > len) {
            return None;
        }
        Some(Fetch {
            time: Timestamp {
                unix,
                millis,
                offset_min,
            },
            file,
            line,
            status: u16::try_from(status).ok(),
            claim: u16::try_from(claim).ok().map(CrawlerId::from_index),
            other_host: flags & 1 != 0,
            before_period: flags & 2 != 0,
            text: text.into(),
            ends,
        })
    }
}

impl Record for Fetch {
    fn order(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }

    fn size(&self) -> usize {
        Fetch::size(self)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        Fetch::encode(self, out);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        Fetch::decode(bytes)
    }

    /// Keys are unique (one file, one line), so two records never meet.
    fn absorb(&mut self, _other: Self) {}
}

/// Fixed-size fields off the front of a byte string.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
}

#[cfg(test)]
mod tests {
    use super::{Fetch, Text};
    use crate::accesslog::time::Timestamp;
    use crate::crawler::CrawlerId;

    fn sample(ua: &[u8], status: Option<u16>, claim: Option<CrawlerId>) -> Fetch {
        Fetch::new(
            Timestamp {
                unix: -5,
                millis: 999,
                offset_min: -570,
            },
            3,
            u64::MAX,
            status,
            claim,
            Text {
                client: b"2a02:598::1",
                method: b"GET",
                target: b"/a?b=\xff",
                user_agent: ua,
            },
        )
    }

    #[test]
    fn parts_read_back_as_given() {
        let fetch = sample(b"SeznamBot/4.0", Some(200), None);
        assert_eq!(fetch.client(), b"2a02:598::1");
        assert_eq!(fetch.method(), b"GET");
        assert_eq!(fetch.target(), b"/a?b=\xff");
        assert_eq!(fetch.user_agent(), b"SeznamBot/4.0");
    }

    #[test]
    fn encode_then_decode_is_the_same_record() {
        for fetch in [
            sample(b"", None, None),
            sample(b"x", Some(0), Some(CrawlerId::from_index(2))),
            sample(&[0u8; 300], Some(65_535), Some(CrawlerId::from_index(0))),
            Fetch {
                other_host: true,
                ..sample(b"y", Some(200), None)
            },
            Fetch {
                before_period: true,
                ..sample(b"z", Some(404), None)
            },
        ] {
            let mut bytes = Vec::new();
            fetch.encode(&mut bytes);
            assert_eq!(Fetch::decode(&bytes), Some(fetch.clone()));
            // Every cut of the bytes is refused, never misread.
            for cut in 0..bytes.len() {
                assert_eq!(Fetch::decode(&bytes[..cut]), None, "cut at {cut}");
            }
        }
    }

    #[test]
    fn key_orders_by_instant_then_file_then_line() {
        let a = sample(b"", None, None);
        let mut b = a.clone();
        b.time.offset_min = 60;
        assert_eq!(a.key(), b.key());
        b.line -= 1;
        assert!(b.key() < a.key());
    }
}
