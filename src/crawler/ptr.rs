//! The `--ptr-map FILE` source of reverse-DNS names (SPEC §1 "Address →
//! name"): one `ADDRESS NAME` pair a line, separated by whitespace or a
//! comma, `#` comments. Takes the file; gives a `PtrMap` keyed by address
//! (compared as addresses) and the lines it could not read. A name is taken
//! as written, whatever bytes it holds (SPEC §2): one that fits no crawler
//! pattern is a known name that does not match, never a skipped line.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::path::Path;

use crate::crawler::address::parse_address;
use crate::crawler::identify::Identifier;
use crate::error::{Error, Result};
use crate::side_file;
use crate::text::{escape_non_utf8, name_text};

/// Reverse-DNS names by address. An address may have several names, as in
/// DNS; they keep file order. Kept flat: every (address, name) pair sorted
/// by address, each name a range of one text. A map of a HashMap of
/// `Vec<String>` cost some 300 bytes a pair: a 16 MB map of a million
/// pairs (SPEC §1's side-file limit) took 310 MB, past `--memory`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PtrMap {
    /// (address, where its name starts in `text`, its length), by address,
    /// each address's names in file order.
    pairs: Vec<(IpAddr, u32, u32)>,
    /// The names, one after another.
    text: String,
    /// How many distinct addresses `pairs` holds.
    addresses: usize,
}

/// A `PtrMap` being read: the pairs in file order, and a hash of each
/// (address, name folded as `same_name` compares) with the first pair of
/// it, so that adding a name costs one look-up, not a compare with every
/// name the address has (a map of 80,000 names for one address took 15 s).
struct Building {
    map: PtrMap,
    seen: HashMap<u64, u32>,
}

impl Building {
    /// Adds a name for an address (a name already there is not repeated).
    fn insert(&mut self, addr: IpAddr, name: &str) {
        use std::hash::{BuildHasher as _, Hash as _, Hasher as _};
        let addr = addr.to_canonical();
        let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
        addr.hash(&mut hasher);
        for b in name.strip_suffix('.').unwrap_or(name).bytes() {
            hasher.write_u8(b.to_ascii_lowercase());
        }
        let (Ok(next), Ok(start), Ok(len)) = (
            u32::try_from(self.map.pairs.len()),
            u32::try_from(self.map.text.len()),
            u32::try_from(name.len()),
        ) else {
            // Past 4 GB of names: no side file holds so many (16 MiB).
            return;
        };
        match self.seen.entry(hasher.finish()) {
            std::collections::hash_map::Entry::Occupied(first) => {
                let (other, from, to) = self.map.pairs[*first.get() as usize];
                let known = &self.map.text[from as usize..(from + to) as usize];
                if other == addr && same_name(known, name) {
                    return;
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(next);
            }
        }
        self.map.text.push_str(name);
        self.map.pairs.push((addr, start, len));
    }

    /// The map, its pairs sorted by address (each address's in file order).
    fn finish(self) -> PtrMap {
        let Building { mut map, seen } = self;
        drop(seen);
        // A pair's name starts later in `text` the later its line: sorted
        // by both, each address's names stay in file order, with no
        // buffer a stable sort would take.
        map.pairs
            .sort_unstable_by_key(|&(addr, start, _)| (addr, start));
        map.addresses = map.pairs.chunk_by(|a, b| a.0 == b.0).count();
        map.text.shrink_to_fit();
        map.pairs.shrink_to_fit();
        map
    }
}

/// The longest DNS name, in characters, without its final dot.
const MAX_NAME: usize = 253;

/// A line of a PTR map that was skipped. Not fatal: the caller shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based.
    pub line: u64,
    /// The line as written, non-UTF-8 bytes as `\xNN`.
    pub text: String,
    pub cause: String,
}

/// The lines of a PTR map that were skipped: the first `BadLines::KEPT`
/// of them, and how many in all. Not every one: a 16 MiB map of `x`
/// lines kept eight million of them, a gigabyte, to show five.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BadLines {
    kept: Vec<BadLine>,
    total: u64,
}

impl BadLines {
    /// Bad lines kept with their text and cause.
    pub const KEPT: usize = 64;

    fn push(&mut self, line: impl FnOnce() -> BadLine) {
        if self.kept.len() < BadLines::KEPT {
            self.kept.push(line());
        }
        self.total += 1;
    }

    /// How many lines were skipped in all.
    pub fn total(&self) -> u64 {
        self.total
    }
}

impl std::ops::Deref for BadLines {
    type Target = [BadLine];

    /// The first bad lines, in file order.
    fn deref(&self) -> &[BadLine] {
        &self.kept
    }
}

impl PtrMap {
    /// Reads a PTR map file. Only an unreadable file is an error, and so
    /// is a FIFO, a device or one past 16 MiB (SPEC §1).
    pub fn load(path: &Path) -> Result<(PtrMap, BadLines)> {
        let (bytes, _) = side_file::read(path).map_err(|refusal| Error::Open {
            path: path.to_path_buf(),
            source: refusal.into_io(),
        })?;
        Ok(PtrMap::parse(&bytes))
    }

    /// Reads the bytes of a PTR map.
    pub fn parse(bytes: &[u8]) -> (PtrMap, BadLines) {
        // Sized for a pair a line at once: grown by doubling, the pairs
        // and the hashes were held twice while they moved.
        let lines = memchr::memchr_iter(b'\n', bytes)
            .count()
            .max(memchr::memchr_iter(b'\r', bytes).count())
            + 1;
        let mut map = Building {
            map: PtrMap {
                pairs: Vec::with_capacity(lines),
                ..PtrMap::default()
            },
            seen: HashMap::with_capacity(lines),
        };
        let mut bad = BadLines::default();
        // LF, CRLF and CR each end a line, as in robots.txt (SPEC §1): a
        // map saved with old Mac line ends is one line, and when it starts
        // with a comment it named nothing without a word.
        for (index, raw) in crate::text::lines(bytes).enumerate() {
            let line = index as u64 + 1;
            let content = &raw[..comment_start(raw)];
            let reject = |cause: &str| BadLine {
                line,
                text: escape_non_utf8(raw).into_owned(),
                cause: cause.to_string(),
            };
            let fields: Vec<&[u8]> = content
                .split(|b| b.is_ascii_whitespace() || *b == b',')
                .filter(|f| !f.is_empty())
                .collect();
            match fields[..] {
                [] => {}
                // No DNS name is longer (253 characters, and a final dot):
                // a longer one is no name a resolver gives, and would only
                // make host patterns cost more.
                [_, name] if name.strip_suffix(b".").unwrap_or(name).len() > MAX_NAME => {
                    bad.push(|| reject("longer than a DNS name can be (253 characters)"));
                }
                [address, name] => {
                    match std::str::from_utf8(address).ok().and_then(parse_address) {
                        // Bytes that are not UTF-8 are kept as `\xNN` (and a
                        // backslash as `\\`, so the name reads back to its
                        // bytes): such a name fits no pattern.
                        Some(addr) => map.insert(addr, &name_text(name)),
                        None => bad.push(|| reject("not an IP address")),
                    }
                }
                _ => bad.push(|| reject("expected ADDRESS NAME")),
            }
        }
        (map.finish(), bad)
    }

    /// The names known for an address, in file order; empty when none.
    pub fn names(&self, addr: IpAddr) -> Vec<&str> {
        let addr = addr.to_canonical();
        let from = self.pairs.partition_point(|&(a, _, _)| a < addr);
        self.pairs[from..]
            .iter()
            .take_while(|&&(a, _, _)| a == addr)
            .map(|&(_, start, len)| self.name_at(start, len))
            .collect()
    }

    fn name_at(&self, start: u32, len: u32) -> &str {
        &self.text[start as usize..(start + len) as usize]
    }

    /// How many addresses have a name.
    pub fn len(&self) -> usize {
        self.addresses
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The addresses whose name fits some crawler's pattern: their fetches
    /// belong to that crawler even without its user agent, so the pipeline
    /// keeps them.
    pub fn crawler_addresses(&self, ident: &Identifier) -> CrawlerAddrs {
        self.pairs
            .iter()
            .filter(|&&(addr, start, len)| {
                ident
                    .by_name(self.name_at(start, len), Some(addr))
                    .is_some()
            })
            .map(|&(addr, _, _)| addr)
            .collect()
    }
}

/// The addresses a PTR map names as crawler hosts. Every log line's client
/// is looked up in it when a PTR map is given, so it hashes with foldhash,
/// not std's SipHash (measured: SipHash was a few percent of the scan).
/// SipHash's defence against chosen keys is not needed here: the keys come
/// from the PTR map the user gave, and looking up an address an attacker
/// chose cannot slow the set down.
///
/// Beside the set, the address prefixes it holds (an IPv4 address's first
/// two octets, an IPv6 address's first group), one bit each: most clients
/// are told apart by the first bytes of their field, before it is read as
/// an address at all (`may_hold`).
///
/// With `--resolve`, the crawlers' own networks too (`with_networks`):
/// live DNS names an address only after the scan, so every fetch from
/// where a crawler may live is kept, whatever its user agent, and judged
/// once its address's name is known.
#[derive(Debug, Clone, Default)]
pub struct CrawlerAddrs {
    set: HashSet<IpAddr, foldhash::fast::RandomState>,
    networks: Vec<ipnet::IpNet>,
    v4_prefixes: Prefixes,
    v6_prefixes: Prefixes,
}

/// One bit for each 16-bit prefix.
#[derive(Debug, Clone)]
struct Prefixes(Box<[u64; 1024]>);

impl Default for Prefixes {
    fn default() -> Prefixes {
        Prefixes(Box::new([0; 1024]))
    }
}

impl Prefixes {
    fn insert(&mut self, prefix: u16) {
        self.0[usize::from(prefix >> 6)] |= 1 << (prefix & 63);
    }

    fn contains(&self, prefix: u16) -> bool {
        self.0[usize::from(prefix >> 6)] & (1 << (prefix & 63)) != 0
    }
}

impl FromIterator<IpAddr> for CrawlerAddrs {
    fn from_iter<I: IntoIterator<Item = IpAddr>>(addresses: I) -> CrawlerAddrs {
        let mut crawler = CrawlerAddrs::default();
        crawler.extend(addresses);
        crawler
    }
}

impl Extend<IpAddr> for CrawlerAddrs {
    fn extend<I: IntoIterator<Item = IpAddr>>(&mut self, addresses: I) {
        for address in addresses {
            match address {
                IpAddr::V4(v4) => {
                    let [a, b, _, _] = v4.octets();
                    self.v4_prefixes.insert(u16::from_be_bytes([a, b]));
                }
                IpAddr::V6(v6) => self.v6_prefixes.insert(v6.segments()[0]),
            }
            self.set.insert(address);
        }
    }
}

impl PartialEq for CrawlerAddrs {
    fn eq(&self, other: &CrawlerAddrs) -> bool {
        self.set == other.set && self.networks == other.networks
    }
}

impl CrawlerAddrs {
    /// Also every address of `networks` (canonical, as client addresses
    /// are compared).
    pub fn with_networks(mut self, networks: impl IntoIterator<Item = ipnet::IpNet>) -> Self {
        for net in networks {
            match net {
                ipnet::IpNet::V4(v4) => {
                    let first = u32::from(v4.network()) >> 16;
                    let last = u32::from(v4.broadcast()) >> 16;
                    for prefix in first..=last {
                        self.v4_prefixes.insert(prefix as u16);
                    }
                }
                ipnet::IpNet::V6(v6) => {
                    let first = v6.network().segments()[0];
                    let last = v6.broadcast().segments()[0];
                    for group in first..=last {
                        self.v6_prefixes.insert(group);
                    }
                }
            }
            if !self.networks.contains(&net) {
                self.networks.push(net);
            }
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.networks.is_empty()
    }

    pub fn contains(&self, address: &IpAddr) -> bool {
        self.set.contains(address)
            || (!self.networks.is_empty() && {
                let address = address.to_canonical();
                self.networks.iter().any(|net| net.contains(&address))
            })
    }

    /// False when no address read from the client field `field` (as
    /// `address::client_address` reads it) can be in the set; true when
    /// one may be. Only two shapes are ruled out, those whose every reading
    /// keeps the prefix in view: a field that starts `A.B.` (decimal, no
    /// leading zero: an IPv4 address, with a port or not, starts with
    /// those octets) and one that starts with a non-zero hex group and a
    /// `:` with no `.` anywhere (an IPv6 address, which no reading maps to
    /// IPv4, starts with that group). Everything else may be held.
    #[inline]
    pub fn may_hold(&self, field: &[u8]) -> bool {
        if let Some(prefix) = ipv4_prefix(field) {
            return self.v4_prefixes.contains(prefix);
        }
        if let Some(group) = ipv6_first_group(field) {
            return self.v6_prefixes.contains(group);
        }
        true
    }
}

/// `A.B.` at the start of `field`: two decimal octets, each up to 255 and
/// without a leading zero, each followed by a `.`.
#[inline]
fn ipv4_prefix(field: &[u8]) -> Option<u16> {
    let mut at = 0;
    let mut octets = [0u8; 2];
    for octet in &mut octets {
        let digits = field[at..]
            .iter()
            .take(4)
            .position(|b| !b.is_ascii_digit())?;
        if digits == 0 || digits > 3 || (digits > 1 && field[at] == b'0') {
            return None;
        }
        let value = field[at..at + digits]
            .iter()
            .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
        *octet = u8::try_from(value).ok()?;
        at += digits;
        if field.get(at) != Some(&b'.') {
            return None;
        }
        at += 1;
    }
    Some(u16::from_be_bytes(octets))
}

/// The first group of a field that starts with one to four hex digits and
/// a `:`, holds no `.`, and whose first group is not zero (`0:…` and `::…`
/// may spell an IPv4-mapped address).
#[inline]
fn ipv6_first_group(field: &[u8]) -> Option<u16> {
    let digits = field.iter().take(5).position(|&b| b == b':')?;
    if digits == 0 || memchr::memchr(b'.', field).is_some() {
        return None;
    }
    let mut group = 0u16;
    for &b in &field[..digits] {
        group = group << 4 | u16::from(char::from(b).to_digit(16)? as u8);
    }
    (group != 0).then_some(group)
}

/// Host names compare case-insensitively, one trailing dot ignored.
pub fn same_name(a: &str, b: &str) -> bool {
    let a = a.strip_suffix('.').unwrap_or(a);
    let b = b.strip_suffix('.').unwrap_or(b);
    a.eq_ignore_ascii_case(b)
}

/// Where a `#` comment starts in a line of the map: at the line's start or
/// after a blank or comma, never inside a field. A DNS name may hold any
/// byte: `fulltextrobot-….seznam.cz#.evil.example` is the attacker's whole
/// name, not a Seznam name with a comment after it.
fn comment_start(raw: &[u8]) -> usize {
    memchr::memchr_iter(b'#', raw)
        .find(|&i| i == 0 || raw[i - 1].is_ascii_whitespace() || raw[i - 1] == b',')
        .unwrap_or(raw.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn reads_pairs_and_reports_bad_lines() {
        let text = b"# address name\n\
            77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz\n\
            2A02:598:A:0::78:90,fulltextrobot-fresh-2a02-598-a--78-90.seznam.cz.\r\n\
            \n\
            \t1.2.3.4 ,  host.example.com   # trailing comment\n\
            1.2.3.4 other.example.com\n\
            1.2.3.4 HOST.example.com.\n\
            1.2.3 host.example.com\n\
            5.6.7.8\n\
            5.6.7.8 a b\n\
            5.6.7.8 bad..name\n\
            5.6.7.8 \xff\n\
            \xff 5.6.7.8\n\
            9.9.9.9 localhost\n\
            6.6.6.6 fulltextrobot-6-6-6-6.seznam.cz#.evil.example. #a comment\n";
        let (map, bad) = PtrMap::parse(text);
        assert_eq!(map.len(), 6);
        assert_eq!(
            map.names(ip("77.75.77.123")),
            ["fulltextrobot-77-75-77-123.seznam.cz"]
        );
        assert_eq!(
            map.names(ip("2a02:598:a::78:90")),
            ["fulltextrobot-fresh-2a02-598-a--78-90.seznam.cz."]
        );
        assert_eq!(
            map.names(ip("::ffff:1.2.3.4")),
            ["host.example.com", "other.example.com"]
        );
        // Taken as written: names that are no host names, too.
        assert_eq!(map.names(ip("5.6.7.8")), ["bad..name", "\\xFF"]);
        assert_eq!(map.names(ip("9.9.9.9")), ["localhost"]);
        // A `#` inside a field is the name's own byte, not a comment.
        assert_eq!(
            map.names(ip("6.6.6.6")),
            ["fulltextrobot-6-6-6-6.seznam.cz#.evil.example."]
        );
        let lines: Vec<(u64, &str)> = bad.iter().map(|b| (b.line, b.cause.as_str())).collect();
        assert_eq!(
            lines,
            [
                (8, "not an IP address"),
                (9, "expected ADDRESS NAME"),
                (10, "expected ADDRESS NAME"),
                (13, "not an IP address"),
            ]
        );
        assert_eq!(bad[3].text, "\\xFF 5.6.7.8");
        assert_eq!(bad.total(), 4);
    }

    /// LF, CRLF and CR each end a line: a map saved with CR alone is not
    /// one line (read whole, its first `#` made it a comment naming
    /// nothing, and a spoofer it named was counted as the crawler).
    #[test]
    fn every_kind_of_line_end_ends_a_line() {
        let text = b"# map\r5.188.166.58 spoofer.example.net\r\n\
            77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz\n\r\rx\r";
        let (map, bad) = PtrMap::parse(text);
        assert_eq!(map.names(ip("5.188.166.58")), ["spoofer.example.net"]);
        assert_eq!(
            map.names(ip("77.75.77.123")),
            ["fulltextrobot-77-75-77-123.seznam.cz"]
        );
        let lines: Vec<u64> = bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, [6]);
    }

    /// A map of many bad lines keeps the first few to show and counts
    /// the rest: its memory is the map's, not the file's lines'.
    #[test]
    fn many_bad_lines_are_counted_not_kept() {
        let mut text = b"1.2.3.4 host.example.com\n".to_vec();
        for _ in 0..10_000 {
            text.extend_from_slice(b"x\n");
        }
        let (map, bad) = PtrMap::parse(&text);
        assert_eq!(map.len(), 1);
        assert_eq!(bad.total(), 10_000);
        assert_eq!(bad.len(), BadLines::KEPT);
        assert_eq!(bad.first().map(|b| b.line), Some(2));
    }

    /// A name is kept once however written (case, final dot), however
    /// many names the address has; one longer than DNS allows is a bad
    /// line.
    #[test]
    fn names_are_kept_once_and_no_longer_than_dns_allows() {
        let mut text = String::new();
        for i in 0..50_000 {
            text.push_str(&format!("77.75.77.123 host{i}.example.com\n"));
        }
        text.push_str("77.75.77.123 HOST7.example.com.\n");
        text.push_str(&format!("77.75.77.124 {}.example\n", "a".repeat(250)));
        text.push_str(&format!("77.75.77.125 {}.cz.\n", "b".repeat(250)));
        // 254 characters without a final dot: one too many.
        text.push_str(&format!("77.75.77.126 {}.cz\n", "c".repeat(251)));
        text.push_str(&format!("77.75.77.127 {}.cz.\n", "d".repeat(251)));
        let (map, bad) = PtrMap::parse(text.as_bytes());
        assert_eq!(map.names(ip("77.75.77.123")).len(), 50_000);
        assert_eq!(map.names(ip("77.75.77.123"))[7], "host7.example.com");
        let lines: Vec<u64> = bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, [50_002, 50_004, 50_005]);
        assert_eq!(map.names(ip("77.75.77.125")).len(), 1);
    }

    #[test]
    fn crawler_addresses_need_a_matching_name() {
        let ident = Identifier::builtin().unwrap();
        let (map, bad) = PtrMap::parse(
            b"77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz\n\
              77.75.77.124 fulltextrobot-77-75-77-123.seznam.cz\n\
              2a02:598:64:8a00::3100:0 fulltextrobot-test-2a02-598-64-8a00--3100-0.seznam.cz\n\
              1.2.3.4 host.example.com\n",
        );
        assert!(bad.is_empty());
        let want: CrawlerAddrs = [ip("77.75.77.123"), ip("2a02:598:64:8a00::3100:0")]
            .into_iter()
            .collect();
        assert_eq!(map.crawler_addresses(&ident), want);
    }

    /// Whatever address `client_address` reads from a field, a set that
    /// holds it may hold the field: the prefix test never rules out a
    /// crawler's fetch.
    fn held_by_its_own_set(field: &[u8]) -> Result<(), proptest::test_runner::TestCaseError> {
        if let Some(address) = crate::crawler::address::client_address(field) {
            let addrs: CrawlerAddrs = [address].into_iter().collect();
            proptest::prop_assert!(
                addrs.may_hold(field),
                "{:?} reads as {address}",
                String::from_utf8_lossy(field)
            );
        }
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn prefixes_never_rule_out_a_held_address(
            field in proptest::collection::vec(
                proptest::sample::select(b"0123456789abcdefABCDEF.:%[] f".to_vec()),
                0..42,
            )
        ) {
            held_by_its_own_set(&field)?;
        }

        #[test]
        fn prefixes_never_rule_out_a_written_address(
            groups in proptest::prelude::any::<[u16; 8]>(),
            v4 in proptest::prelude::any::<u32>(),
            form in 0usize..9,
        ) {
            let v4 = std::net::Ipv4Addr::from(v4);
            let v6 = std::net::Ipv6Addr::from(groups);
            let field = match form {
                0 => v4.to_string(),
                1 => format!("{v4}:8080"),
                2 => v6.to_string(),
                3 => format!("[{v6}]:443"),
                4 => format!("{v6}%eth0"),
                5 => v4.to_ipv6_mapped().to_string(),
                6 => format!("0:0:0:0:0:ffff:{v4}"),
                7 => format!("0::ffff:{v4}"),
                _ => format!(" {v4} "),
            };
            held_by_its_own_set(field.as_bytes())?;
        }
    }

    #[test]
    fn prefixes_rule_out_other_networks() {
        let addrs: CrawlerAddrs = [ip("77.75.77.123"), ip("2a02:598:64:8a00::3100:0")]
            .into_iter()
            .collect();
        for other in ["89.24.212.157", "77.76.1.1", "2a01:510::1", "2a03:598::1"] {
            assert!(!addrs.may_hold(other.as_bytes()), "{other}");
        }
        for same in [
            "77.75.1.2",
            "2a02:598::1",
            "2A02:1::2",
            "host.example.cz",
            "::ffff:1.2.3.4",
        ] {
            assert!(addrs.may_hold(same.as_bytes()), "{same}");
        }
    }

    #[test]
    fn missing_file_is_an_error() {
        assert!(matches!(
            PtrMap::load(Path::new("/nonexistent/ptr-map")),
            Err(Error::Open { .. })
        ));
    }
}
