//! The per-chunk worker of the scan (SPEC §1, §2): takes a chunk of log
//! lines, parses each in the file's format and keeps, as a `Fetch` record,
//! every line whose user agent claims a crawler or whose client is a
//! crawler's host; gives those records, the addresses they came from, and
//! the tally of lines read and skipped. Runs on many threads at once;
//! `pipeline` decides which.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use crate::accesslog::open::GZIP_MEMBER_START;
use crate::accesslog::vhost::{SiteHosts, host_key};
use crate::accesslog::{self, Chunk, Entry, FileFormat, Line, Skip, TrustedProxies};
use crate::crawler::ptr::CrawlerAddrs;
use crate::crawler::{self, Client, CrawlerId, Identifier};
use crate::fetch::{self, Fetch};
use crate::report::skipped::{SHOWN as SHOWN_SKIPS, Tally};
use crate::robots::cache;
use crate::text::bound;

/// What the workers found in the lines they read, fetches aside (those go
/// straight to the sorter).
#[derive(Debug, Default)]
pub struct Scan {
    pub lines: u64,
    pub skipped: u64,
    pub outside_period: u64,
    /// The virtual hosts fetches that may be a crawler's were of, with how many (at most
    /// `HOSTS_KEPT` of them), for the warning of a log of several sites.
    pub hosts: BTreeMap<Box<[u8]>, u64>,
    /// More hosts than `HOSTS_KEPT` were seen.
    pub more_hosts: bool,
    /// The first unparsable lines, by (file, line).
    pub skips: Vec<(usize, u64, Skip)>,
    /// Each file's lines: read, blank, skipped.
    pub tallies: BTreeMap<usize, Tally>,
    /// Fetches per client field as logged in one chunk, for the order of
    /// DNS lookups; kept only with `--resolve` (`Scanner::count_clients`),
    /// and handed on as addresses (`ClientFetches`) when the chunk ends,
    /// so that a million made-up clients never meet in one map.
    clients: HashMap<Box<[u8]>, u64, foldhash::fast::RandomState>,
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
        self.more_hosts |= other.more_hosts;
        for (host, n) in other.hosts {
            self.note_host(&host, n);
        }
        self.skips.extend(other.skips);
        self.skips.sort_unstable();
        self.skips.truncate(SHOWN_SKIPS);
        for (file, tally) in other.tallies {
            self.tallies.entry(file).or_default().merge(&tally);
        }
        self
    }

    /// Counts `n` crawler fetches of `host`; past `HOSTS_KEPT` hosts only
    /// that there were more (a Host header is the client's to write).
    /// `host` is a `host_key`; it is copied only when first counted.
    fn note_host(&mut self, host: &[u8], n: u64) {
        let kept = self.hosts.len();
        match self.hosts.get_mut(host) {
            Some(count) => *count += n,
            None if kept < HOSTS_KEPT => {
                self.hosts.insert(host.into(), n);
            }
            None => self.more_hosts = true,
        }
    }

    /// This chunk's fetches per address, canonical, for the order of DNS
    /// lookups; a client field that is no address is looked up by nobody.
    fn take_addresses(&mut self) -> Vec<ClientFetches> {
        let mut addresses: HashMap<IpAddr, u64> = HashMap::new();
        for (client, n) in self.clients.drain() {
            if let Client::Addr(addr) = crawler::parse_client(&client) {
                *addresses.entry(addr.to_canonical()).or_default() += n;
            }
        }
        addresses
            .into_iter()
            .map(|(addr, fetches)| ClientFetches { addr, fetches })
            .collect()
    }
}

/// An address's fetches in part of the logs, for the order of DNS lookups
/// (`--resolve`): sorted by address and summed across chunks by the
/// pipeline's sorter, which spills them (SPEC §5), so that their number
/// never holds memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientFetches {
    pub addr: IpAddr,
    pub fetches: u64,
}

impl crate::spill::Record for ClientFetches {
    fn order(&self, other: &Self) -> std::cmp::Ordering {
        self.addr.cmp(&other.addr)
    }

    /// As a vector's element, with its share of the buffer's growth.
    fn size(&self) -> usize {
        2 * std::mem::size_of::<ClientFetches>()
    }

    fn encode(&self, out: &mut Vec<u8>) {
        match self.addr {
            IpAddr::V4(v4) => {
                out.push(4);
                out.extend_from_slice(&v4.octets());
            }
            IpAddr::V6(v6) => {
                out.push(6);
                out.extend_from_slice(&v6.octets());
            }
        }
        out.extend_from_slice(&self.fetches.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (&family, rest) = bytes.split_first()?;
        let (addr, rest) = match family {
            4 => {
                let (octets, rest) = rest.split_first_chunk::<4>()?;
                (IpAddr::from(*octets), rest)
            }
            6 => {
                let (octets, rest) = rest.split_first_chunk::<16>()?;
                (IpAddr::from(*octets), rest)
            }
            _ => return None,
        };
        let fetches = u64::from_le_bytes(*<&[u8; 8]>::try_from(rest).ok()?);
        Some(ClientFetches { addr, fetches })
    }

    /// The same address's fetches in another chunk.
    fn absorb(&mut self, other: Self) {
        self.fetches = self.fetches.saturating_add(other.fetches);
    }
}

/// Virtual hosts of crawler fetches counted at most.
pub const HOSTS_KEPT: usize = 16;

/// The crawler prefilter (`Identifier::may_be_crawler_folded`) on the two
/// fields of a line where a crawler's name can stand — the client (a host
/// name) and the user agent, as logged — each folded (`identify::fold`)
/// and searched on its own: no needle could span the two anyway (a folded
/// needle holds no line break). Searching them, not the whole line, leaves
/// the referer and the request (most of a line's bytes) unread. A client
/// that is an address holds no needle unless a needle is made of an
/// address's bytes; a user agent's answer is remembered for the chunk,
/// since a night's traffic comes from a few hundred of them. One memory
/// a chunk, reused line after line.
#[derive(Default)]
struct Needles {
    folded: Vec<u8>,
    /// `AGENT_SLOTS` user agents of up to `AGENT_BYTES` bytes, one a
    /// slot by hash, each with its answer; allocated at the first.
    agents: Vec<u8>,
    slots: Vec<Option<(u16, bool)>>,
}

/// User agents remembered a chunk, and the longest one remembered: a
/// browser's is about 130 bytes.
const AGENT_SLOTS: usize = 64;
const AGENT_BYTES: usize = 256;
// A slot is the top bits of a mixed word (`agent_slot`).
const _: () = assert!(AGENT_SLOTS.is_power_of_two());

/// The slot of a user agent: a mix of its length and four of its words
/// (its start, its end and two between), which tell a night's few hundred
/// user agents apart for a fraction of hashing every byte. Two that mix
/// alike share a slot and take turns; the slot's whole text is compared
/// before its answer is taken.
fn agent_slot(agent: &[u8]) -> usize {
    let word = |at: usize| {
        agent
            .get(at..)
            .and_then(|rest| rest.first_chunk::<8>())
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let len = agent.len();
    let mixed = (len as u64)
        ^ word(0)
        ^ word(len / 3).rotate_left(16)
        ^ word(2 * len / 3).rotate_left(32)
        ^ word(len.saturating_sub(8)).rotate_left(48);
    (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - AGENT_SLOTS.trailing_zeros())) as usize
}

impl Needles {
    /// Whether the line of `client` and `user_agent` may be a crawler's.
    fn may_be(&mut self, ident: &Identifier, client: &[u8], user_agent: Option<&[u8]>) -> bool {
        let client_may_be = (ident.needles_fit_addresses()
            || !crawler::identify::is_address_text(client))
            && self.search(ident, client);
        client_may_be || user_agent.is_some_and(|agent| self.agent_may_be(ident, agent))
    }

    fn agent_may_be(&mut self, ident: &Identifier, agent: &[u8]) -> bool {
        if agent.len() > AGENT_BYTES {
            return self.search(ident, agent);
        }
        if self.slots.is_empty() {
            self.slots = vec![None; AGENT_SLOTS];
            self.agents = vec![0; AGENT_SLOTS * AGENT_BYTES];
        }
        let slot = agent_slot(agent);
        let kept = &mut self.agents[slot * AGENT_BYTES..][..AGENT_BYTES];
        if let Some((len, answer)) = self.slots[slot]
            && kept[..usize::from(len)] == *agent
        {
            return answer;
        }
        kept[..agent.len()].copy_from_slice(agent);
        let answer = self.search(ident, agent);
        // At most `AGENT_BYTES`, which fits.
        self.slots[slot] = Some((agent.len() as u16, answer));
        answer
    }

    /// The prefilter on `text`, folded in a copy.
    fn search(&mut self, ident: &Identifier, text: &[u8]) -> bool {
        self.folded.clear();
        self.folded.extend_from_slice(text);
        crawler::identify::fold(&mut self.folded);
        ident.may_be_crawler_folded(&self.folded)
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
    /// `--since` and `--until`, in UTC milliseconds.
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// Count fetches per client field (`Scan::clients`): only DNS needs
    /// them, and a map of every made-up client grows with the log.
    pub count_clients: bool,
    /// The site's host names (`--host`); empty, every host is judged.
    pub hosts: &'a SiteHosts,
}

impl Scanner<'_> {
    /// Reads one chunk of file `file` in `format` (the one in force at its
    /// first line): the fetches it holds, in line order, and what it read.
    /// With `count_clients`, also the chunk's fetches per address.
    pub fn scan(
        &self,
        file: usize,
        chunk: &Chunk,
        format: &FileFormat,
    ) -> (Scan, Vec<Fetch>, Vec<ClientFetches>) {
        let mut parser = format.parser();
        let mut scan = Scan::default();
        let mut fetches = Vec::new();
        let mut tally = Tally::default();
        let mut claims = Claims::default();
        let mut needles = Needles::default();
        for line in chunk.lines() {
            scan.lines += 1;
            tally.lines += 1;
            let entry = if line.too_long {
                Err(Skip::TooLong)
            } else {
                parser.parse(line.text)
            };
            match &entry {
                Ok(entry) => {
                    tally.saw(entry.time);
                    tally.with_user_agent += u64::from(entry.user_agent.is_some());
                    tally.with_forwarded += u64::from(
                        entry.forwarded_for.is_some() || entry.forwarded_client.is_some(),
                    );
                    if let Some(fetch) = self.fetch(file, &line, entry, &mut needles, &mut claims) {
                        let at = fetch.time.instant_ms();
                        let before = self.since.is_some_and(|s| at < s);
                        let inside = !before && self.until.is_none_or(|u| at < u);
                        // A fetch of robots.txt before the period still
                        // tells what the crawler knew when it began.
                        let kept = inside || (before && cache::is_robots_fetch(fetch.target()));
                        let mut fetch = fetch;
                        fetch.before_period = before;
                        if let Some(vhost) = entry.vhost {
                            let key = host_key(vhost);
                            fetch.other_host = !self.hosts.is_empty() && !self.hosts.holds(&key);
                            // The hosts judged by the one robots.txt: those
                            // of fetches inside --since/--until.
                            if inside {
                                scan.note_host(&key, 1);
                            }
                        }
                        if !inside {
                            scan.outside_period += 1;
                        }
                        if kept {
                            if self.count_clients {
                                match scan.clients.get_mut(fetch.client()) {
                                    Some(n) => *n += 1,
                                    None => {
                                        scan.clients.insert(fetch.client().into(), 1);
                                    }
                                }
                            }
                            fetches.push(fetch);
                        }
                    }
                }
                Err(Skip::Empty | Skip::Directive) => tally.blank += 1,
                Err(Skip::NotRequest) => tally.not_requests += 1,
                &Err(skip) => {
                    scan.skipped += 1;
                    tally.skip(line.number, skip);
                    if memchr::memmem::find(line.text, &GZIP_MEMBER_START).is_some() {
                        tally.gzip_at(line.number);
                    }
                    if scan.skips.len() < SHOWN_SKIPS {
                        scan.skips.push((file, line.number, skip));
                    }
                }
            }
        }
        scan.tallies.insert(file, tally);
        let addresses = scan.take_addresses();
        (scan, fetches, addresses)
    }

    /// Keeps a line when its user agent claims a crawler, its client field
    /// is a crawler's host name, or its address is a named crawler host.
    fn fetch(
        &self,
        file: usize,
        line: &Line<'_>,
        entry: &Entry<'_>,
        needles: &mut Needles,
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
        let agent = entry.user_agent_to_search();
        let may_be = needles.may_be(self.ident, client_text, agent.as_deref());
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
        let parts = entry.request_parts()?;
        let accesslog::Fetch::Target(request) =
            accesslog::fetch_of(&parts.method, &parts.target, parts.protocol)
        else {
            return None;
        };
        // Kept text is bounded (SPEC §5): a method is as long as the
        // attacker likes too. The user agent was already read whole to
        // identify the crawler. The target is kept whole until it is
        // judged, so that the audit's verdict is `check`'s (SPEC §3), and
        // cut where it is written (`Fetch::target_kept`); the line's
        // length bounds it, and the sorter counts its bytes.
        Some(Fetch::new(
            entry.time,
            u32::try_from(file).unwrap_or(u32::MAX),
            line.number,
            entry.status,
            claim,
            fetch::Text {
                client: client_text,
                method: &bound(request.method),
                target: &request.target,
                user_agent: &bound(&user_agent),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::Needles;
    use crate::crawler::Identifier;

    /// The prefilter as it was first asked: on the client and the user
    /// agent folded together, a line break between them.
    fn prefilter_of_both(ident: &Identifier, client: &[u8], agent: Option<&[u8]>) -> bool {
        let folded = |text: &[u8]| {
            let mut text = text.to_vec();
            crate::crawler::identify::fold(&mut text);
            text
        };
        let mut text = folded(client);
        if let Some(agent) = agent {
            text.push(b'\n');
            text.extend_from_slice(&folded(agent));
        }
        ident.may_be_crawler_folded(&text)
    }

    #[test]
    fn needles_are_folded_and_none_spans_the_client_and_the_user_agent() {
        let ident = Identifier::builtin().unwrap();
        let mut needles = Needles::default();
        assert!(!ident.needles_fit_addresses());
        // A client, a user agent, and whether the line may be a crawler's.
        type Case = (&'static [u8], Option<&'static [u8]>, bool);
        let cases: &[Case] = &[
            (b"1.2.3.4", Some(b"x SEZNAMBOT/4.0"), true),
            (b"FullTextRobot-1-2-3-4.SEZNAM.CZ", None, true),
            (b"Host-1.Example.CZ", Some(b"Mozilla/5.0 (SeznamBot)"), true),
            // `seznam` ending the client and `bot` starting the user agent:
            // no `seznambot` across the break.
            (b"my.seznam", Some(b"bot/1.0"), false),
            (b"1.2.3.4", Some(b"Mozilla/5.0"), false),
            (b"2a02:598:a::78:90", Some(b"Mozilla/5.0"), false),
            (b"", Some(b"SeznamBot"), true),
            (b"", None, false),
        ];
        for _ in 0..2 {
            for &(client, agent, may_be) in cases {
                assert_eq!(
                    needles.may_be(&ident, client, agent),
                    may_be,
                    "{client:?} {agent:?}"
                );
                assert_eq!(prefilter_of_both(&ident, client, agent), may_be);
            }
        }
    }

    /// Many user agents, more than the memory holds, each asked several
    /// times in turn, long ones and ones that differ in a byte: every
    /// answer the search's.
    #[test]
    fn remembered_user_agents_answer_as_the_search() {
        let ident = Identifier::builtin().unwrap();
        let mut needles = Needles::default();
        let mut agents: Vec<Vec<u8>> = Vec::new();
        for i in 0..300 {
            let mut agent =
                format!("Mozilla/5.0 (X11; Linux) Chrome/{i}.0 Safari/537.36").into_bytes();
            if i % 7 == 0 {
                agent.extend_from_slice(b" SeznamBot/4.0");
            }
            if i % 11 == 0 {
                agent.resize(super::AGENT_BYTES + i % 3, b'a');
            }
            agents.push(agent);
        }
        // The same text but for one byte, which turns a crawler's into none.
        agents.push(b"Mozilla/5.0 (compatible; SeznamBot/4.0)".to_vec());
        agents.push(b"Mozilla/5.0 (compatible; SeznamBXt/4.0)".to_vec());
        for round in 0..4 {
            for (i, agent) in agents.iter().enumerate() {
                if (i + round) % 3 == 0 {
                    continue;
                }
                assert_eq!(
                    needles.may_be(&ident, b"1.2.3.4", Some(agent)),
                    prefilter_of_both(&ident, b"1.2.3.4", Some(agent)),
                    "{}",
                    String::from_utf8_lossy(agent)
                );
            }
        }
    }

    /// A crawler whose host names end in `.bad.cafe`, which is written
    /// with an address's bytes alone: a client made of those bytes is then
    /// searched too.
    #[test]
    fn an_address_like_needle_has_clients_searched() {
        let mut profiles = crate::crawler::profile::builtin();
        profiles.extend(
            crate::crawler::profile_file::parse_profiles(
                "crawler: Cafe\nuser-agent: CafeBot\nhost: *.bad.cafe\n",
            )
            .unwrap(),
        );
        let ident = Identifier::new(profiles).unwrap();
        assert!(ident.needles_fit_addresses());
        let mut needles = Needles::default();
        for (client, may_be) in [
            (&b"1.2.3.4"[..], false),
            (b"fe80::1", false),
            (b"12.bad.cafe", true),
            (b"12.BAD.CAFE", true),
        ] {
            assert_eq!(needles.may_be(&ident, client, Some(b"Mozilla/5.0")), may_be);
            assert_eq!(
                prefilter_of_both(&ident, client, Some(b"Mozilla/5.0")),
                may_be
            );
        }
    }

    /// An address's count reads back as written, both families, and two
    /// chunks' counts of one address add up.
    #[test]
    fn client_fetches_read_back_and_add_up() {
        use super::ClientFetches;
        use crate::spill::Record;
        for addr in ["77.75.77.1", "2a02:598:a::78:91", "::", "255.255.255.255"] {
            let record = ClientFetches {
                addr: addr.parse().expect("an address"),
                fetches: u64::MAX - 3,
            };
            let mut bytes = Vec::new();
            record.encode(&mut bytes);
            assert_eq!(ClientFetches::decode(&bytes), Some(record), "{addr}");
            assert_eq!(ClientFetches::decode(&bytes[..bytes.len() - 1]), None);
            let mut summed = record;
            summed.absorb(ClientFetches {
                fetches: 2,
                ..record
            });
            assert_eq!(summed.fetches, u64::MAX - 1);
        }
    }
}
