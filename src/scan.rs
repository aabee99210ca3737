//! The per-chunk worker of the scan (SPEC §1, §2): takes a chunk of log
//! lines, parses each in the file's format and keeps, as a `Fetch` record,
//! every line whose user agent claims a crawler or whose client is a
//! crawler's host; gives those records, the addresses they came from, and
//! the tally of lines read and skipped. Runs on many threads at once;
//! `pipeline` decides which.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use crate::accesslog::{self, Chunk, Entry, FileFormat, Line, Skip, TrustedProxies};
use crate::crawler::ptr::CrawlerAddrs;
use crate::crawler::{self, Client, CrawlerId, Identifier};
use crate::fetch::{self, Fetch};
use crate::report::skipped::{SHOWN as SHOWN_SKIPS, Tally};
use crate::text::bound;

/// What the workers found in the lines they read, fetches aside (those go
/// straight to the sorter).
#[derive(Debug, Default)]
pub struct Scan {
    pub lines: u64,
    pub skipped: u64,
    pub outside_period: u64,
    /// The first unparsable lines, by (file, line).
    pub skips: Vec<(usize, u64, Skip)>,
    /// Each file's lines: read, blank, skipped.
    pub tallies: BTreeMap<usize, Tally>,
    /// Fetches per client field as logged, for the order of DNS lookups
    /// (read as addresses once per distinct field: `addresses`).
    pub clients: HashMap<Box<[u8]>, u64>,
}

impl Scan {
    /// Leaves a file out of the counts, as if it had not been read (a copy
    /// of a log read in the same run, `--state`).
    pub fn forget_file(&mut self, file: usize) {
        if let Some(tally) = self.tallies.remove(&file) {
            self.lines -= tally.lines;
            self.skipped -= tally.skipped;
        }
        self.skips.retain(|&(f, _, _)| f != file);
    }

    pub fn merge(mut self, other: Scan) -> Scan {
        self.lines += other.lines;
        self.skipped += other.skipped;
        self.outside_period += other.outside_period;
        self.skips.extend(other.skips);
        self.skips.sort_unstable();
        self.skips.truncate(SHOWN_SKIPS);
        for (file, tally) in other.tallies {
            self.tallies.entry(file).or_default().merge(&tally);
        }
        // The smaller map is folded into the larger.
        let mine = std::mem::take(&mut self.clients);
        let (mut big, small) = if mine.len() >= other.clients.len() {
            (mine, other.clients)
        } else {
            (other.clients, mine)
        };
        for (client, n) in small {
            *big.entry(client).or_default() += n;
        }
        self.clients = big;
        self
    }

    /// Fetches per address, canonical, for the order of DNS lookups.
    pub fn addresses(&self) -> HashMap<IpAddr, u64> {
        let mut addresses: HashMap<IpAddr, u64> = HashMap::new();
        for (client, &n) in &self.clients {
            if let Client::Addr(addr) = crawler::parse_client(client) {
                *addresses.entry(addr.to_canonical()).or_default() += n;
            }
        }
        addresses
    }
}

/// A chunk's lines lowered (ASCII) for the crawler prefilter, a window of
/// whole lines at a time: one pass over 64 KiB, which the compiler
/// vectorizes, costs less than lowering each line apart (the thread-local
/// look-up and copy per line were ~4% of the scan), and a window, unlike
/// the whole chunk, stays in cache and adds no chunk's worth of memory
/// per worker. One per worker thread.
pub(crate) struct Lowered {
    /// `data[from..from + window.len()]` of the chunk, lowered.
    window: Vec<u8>,
    from: usize,
}

/// Bytes lowered at a time (more when a line is longer).
const WINDOW: usize = 64 << 10;

impl Lowered {
    pub(crate) const fn new() -> Lowered {
        Lowered {
            window: Vec::new(),
            from: 0,
        }
    }

    /// Forgets the last chunk's window.
    pub(crate) fn start_chunk(&mut self) {
        self.window.clear();
        self.from = 0;
    }

    /// The line of `len` bytes at `start` in the chunk's `data`, lowered.
    /// Lines are asked for in order; a line past the window moves it on.
    /// `None` only when the line lies outside `data`.
    pub(crate) fn line(&mut self, data: &[u8], start: usize, len: usize) -> Option<&[u8]> {
        let end = start.checked_add(len)?;
        if start < self.from || end > self.from + self.window.len() {
            let until = end.max(start.saturating_add(WINDOW)).min(data.len());
            let fresh = data.get(start..until)?;
            self.window.clear();
            self.window.extend(fresh.iter().map(u8::to_ascii_lowercase));
            self.from = start;
        }
        self.window.get(start - self.from..end - self.from)
    }
}

/// The crawler each user agent of a chunk claims, as found: a crawler
/// sends the same few user agents all night, and searching one for the
/// crawlers' names costs some forty times as much as looking it up. Kept
/// for one chunk (one `Identifier`), at most `CLAIMS_KEPT` of them.
#[derive(Default)]
struct Claims {
    found: HashMap<Box<[u8]>, Option<CrawlerId>, foldhash::fast::RandomState>,
}

/// User agents remembered at most; past that, the memory starts over (a
/// flood of made-up user agents costs a search each, as without it).
const CLAIMS_KEPT: usize = 1024;

impl Claims {
    fn of(&mut self, ident: &Identifier, user_agent: &[u8]) -> Option<CrawlerId> {
        if let Some(&claim) = self.found.get(user_agent) {
            return claim;
        }
        let claim = ident.by_user_agent(user_agent);
        if self.found.len() >= CLAIMS_KEPT {
            self.found.clear();
        }
        self.found.insert(user_agent.into(), claim);
        claim
    }
}

/// Everything the workers need, immutable and shared.
pub struct Scanner<'a> {
    pub ident: &'a Identifier,
    /// Addresses the PTR map names as crawler hosts.
    pub crawler_addrs: &'a CrawlerAddrs,
    /// Whose forwarded-for field names the client (SPEC §1).
    pub proxies: &'a TrustedProxies,
    pub since: Option<i64>,
    pub until: Option<i64>,
}

impl Scanner<'_> {
    /// Reads one chunk of file `file` in `format` (the one in force at its
    /// first line): the fetches it holds, in line order, and what it read.
    pub fn scan(&self, file: usize, chunk: &Chunk, format: &FileFormat) -> (Scan, Vec<Fetch>) {
        thread_local! {
            static LOWERED: RefCell<Lowered> = const { RefCell::new(Lowered::new()) };
        }
        LOWERED.with_borrow_mut(|lowered| self.scan_lowered(file, chunk, lowered, format))
    }

    /// `scan`, with `lowered` to lower the chunk's lines for the prefilter.
    fn scan_lowered(
        &self,
        file: usize,
        chunk: &Chunk,
        lowered: &mut Lowered,
        format: &FileFormat,
    ) -> (Scan, Vec<Fetch>) {
        lowered.start_chunk();
        let mut parser = format.parser();
        let mut scan = Scan::default();
        let mut fetches = Vec::new();
        let mut tally = Tally::default();
        let mut claims = Claims::default();
        for line in chunk.lines() {
            scan.lines += 1;
            tally.lines += 1;
            let entry = if line.too_long {
                Err(Skip::TooLong)
            } else {
                parser.parse(line.text)
            };
            match entry {
                Ok(entry) => {
                    tally.saw(entry.time);
                    tally.with_user_agent += u64::from(entry.user_agent.is_some());
                    let lowered = lowered.line(&chunk.data, line.start, line.text.len());
                    if let Some(fetch) = self.fetch(file, &line, lowered, &entry, &mut claims) {
                        let inside = self.since.is_none_or(|s| fetch.time.unix >= s)
                            && self.until.is_none_or(|u| fetch.time.unix < u);
                        if inside {
                            match scan.clients.get_mut(fetch.client()) {
                                Some(n) => *n += 1,
                                None => {
                                    scan.clients.insert(fetch.client().into(), 1);
                                }
                            }
                            fetches.push(fetch);
                        } else {
                            scan.outside_period += 1;
                        }
                    }
                }
                Err(Skip::Empty | Skip::Directive) => tally.blank += 1,
                Err(Skip::NotRequest) => tally.not_requests += 1,
                Err(skip) => {
                    scan.skipped += 1;
                    tally.skip(line.number, skip);
                    if scan.skips.len() < SHOWN_SKIPS {
                        scan.skips.push((file, line.number, skip));
                    }
                }
            }
        }
        scan.tallies.insert(file, tally);
        (scan, fetches)
    }

    /// Keeps a line when its user agent claims a crawler, its client field
    /// is a crawler's host name, or its address is a named crawler host.
    /// `lowered` is the line's text lowered, when the caller has it.
    fn fetch(
        &self,
        file: usize,
        line: &Line<'_>,
        lowered: Option<&[u8]>,
        entry: &Entry<'_>,
        claims: &mut Claims,
    ) -> Option<Fetch> {
        // The client behind trusted proxies, as the forwarded-for field
        // names it (SPEC §1); the connecting address otherwise.
        // A server that logs its own reading of the client (Caddy's
        // `client_ip`, Traefik's `ClientHost`) and no chain: that reading
        // is walked as a chain of one, so it is believed only when a
        // trusted proxy connected.
        let chain = entry.forwarded_for.or(entry.forwarded_client);
        let client_text = self.proxies.client(entry.client, chain);
        // The cheap test first: most lines name no crawler anywhere. Only
        // then, when a PTR map names crawler hosts, the address itself.
        let named_host = |client: &Client| match client {
            Client::Name(name) => self.ident.by_name(name, None).is_some(),
            Client::Addr(addr) => self.crawler_addrs.contains(addr),
            Client::Other(_) => false,
        };
        let may_be = match lowered {
            Some(lowered) => self.ident.may_be_crawler_lowered(lowered),
            None => self.ident.may_be_crawler(line.text),
        };
        if !may_be {
            if self.crawler_addrs.is_empty() || !self.crawler_addrs.may_hold(client_text) {
                return None;
            }
            match crawler::client_address(client_text) {
                Some(addr) if self.crawler_addrs.contains(&addr) => {}
                _ => return None,
            }
        }
        let user_agent = entry.user_agent_text().unwrap_or_default();
        let claim = claims.of(self.ident, &user_agent);
        // The client is read only when the user agent claims no crawler:
        // then its name or address must be a crawler host's.
        if claim.is_none() && may_be && !named_host(&crawler::parse_client(client_text)) {
            return None;
        }
        let request = entry.request_line();
        let accesslog::Fetch::Target(request) = accesslog::parse_request(&request) else {
            return None;
        };
        // Kept text is bounded (SPEC §5): a method is as long as the
        // attacker likes too. The user agent was already read whole to
        // identify the crawler.
        Some(Fetch::new(
            entry.time,
            u32::try_from(file).unwrap_or(u32::MAX),
            line.number,
            entry.status,
            claim,
            fetch::Text {
                client: client_text,
                method: &bound(request.method),
                target: &bound(&request.target),
                user_agent: &bound(&user_agent),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every line, asked for in order, is its own text lowered,
        /// whatever the lengths of the lines against the window.
        #[test]
        fn lowered_lines_are_the_lines_lowered(
            lengths in prop::collection::vec(
                prop_oneof![0usize..300, (WINDOW - 3)..(WINDOW + 3), 0..(3 * WINDOW)],
                1..12,
            ),
            seed in any::<u8>(),
        ) {
            let total: usize = lengths.iter().map(|n| n + 1).sum();
            let data: Vec<u8> = (0..total)
                .map(|i| b"aBzZ-\\x@["[(i + usize::from(seed)) % 9])
                .collect();
            let mut lowered = Lowered::new();
            // A first chunk leaves a window behind; a new chunk starts over.
            lowered.line(b"XYZ", 0, 3);
            lowered.start_chunk();
            let mut start = 0;
            for &len in &lengths {
                let want = data[start..start + len].to_ascii_lowercase();
                prop_assert_eq!(lowered.line(&data, start, len), Some(&want[..]));
                start += len + 1;
            }
            prop_assert_eq!(lowered.line(&data, total, 1), None);
        }
    }
}
