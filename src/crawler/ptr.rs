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
use crate::crawler::side_file;
use crate::error::{Error, Result};
use crate::text::escape_non_utf8;

/// Reverse-DNS names by address. An address may have several names, as in
/// DNS; they keep file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PtrMap {
    names: HashMap<IpAddr, Vec<String>>,
}

/// A line of a PTR map that was skipped. Not fatal: the caller shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based.
    pub line: u64,
    /// The line as written, non-UTF-8 bytes as `\xNN`.
    pub text: String,
    pub cause: String,
}

impl PtrMap {
    /// Reads a PTR map file. Only an unreadable file is an error, and so
    /// is a FIFO, a device or one past 16 MiB (SPEC §1).
    pub fn load(path: &Path) -> Result<(PtrMap, Vec<BadLine>)> {
        let (bytes, _) = side_file::read(path).map_err(|refusal| Error::Open {
            path: path.to_path_buf(),
            source: refusal.into_io(),
        })?;
        Ok(PtrMap::parse(&bytes))
    }

    /// Reads the bytes of a PTR map.
    pub fn parse(bytes: &[u8]) -> (PtrMap, Vec<BadLine>) {
        let mut map = PtrMap::default();
        let mut bad = Vec::new();
        for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = index as u64 + 1;
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let content = match memchr::memchr(b'#', raw) {
                Some(i) => &raw[..i],
                None => raw,
            };
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
                [address, name] => {
                    match std::str::from_utf8(address).ok().and_then(parse_address) {
                        // Bytes that are not UTF-8 are kept as `\xNN`, as
                        // log text is: such a name fits no pattern.
                        Some(addr) => map.insert(addr, &escape_non_utf8(name)),
                        None => bad.push(reject("not an IP address")),
                    }
                }
                _ => bad.push(reject("expected ADDRESS NAME")),
            }
        }
        (map, bad)
    }

    /// Adds a name for an address (a name already there is not repeated).
    pub fn insert(&mut self, addr: IpAddr, name: &str) {
        let names = self.names.entry(addr.to_canonical()).or_default();
        if !names.iter().any(|n| same_name(n, name)) {
            names.push(name.to_string());
        }
    }

    /// The names known for an address, in file order; empty when none.
    pub fn names(&self, addr: IpAddr) -> &[String] {
        self.names
            .get(&addr.to_canonical())
            .map_or(&[], Vec::as_slice)
    }

    /// How many addresses have a name.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The addresses whose name fits some crawler's pattern: their fetches
    /// belong to that crawler even without its user agent, so the pipeline
    /// keeps them.
    pub fn crawler_addresses(&self, ident: &Identifier) -> CrawlerAddrs {
        self.names
            .iter()
            .filter(|(addr, names)| {
                names
                    .iter()
                    .any(|n| ident.by_name(n, Some(**addr)).is_some())
            })
            .map(|(addr, _)| *addr)
            .collect()
    }
}

/// The addresses a PTR map names as crawler hosts. Every log line's client
/// is looked up in it when a PTR map is given, so it hashes with foldhash,
/// not std's SipHash (measured: SipHash was a few percent of the scan).
/// SipHash's defence against chosen keys is not needed here: the keys come
/// from the PTR map the user gave, and looking up an address an attacker
/// chose cannot slow the set down.
pub type CrawlerAddrs = HashSet<IpAddr, foldhash::fast::RandomState>;

/// Host names compare case-insensitively, one trailing dot ignored.
pub fn same_name(a: &str, b: &str) -> bool {
    let a = a.strip_suffix('.').unwrap_or(a);
    let b = b.strip_suffix('.').unwrap_or(b);
    a.eq_ignore_ascii_case(b)
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
            9.9.9.9 localhost\n";
        let (map, bad) = PtrMap::parse(text);
        assert_eq!(map.len(), 5);
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

    #[test]
    fn missing_file_is_an_error() {
        assert!(matches!(
            PtrMap::load(Path::new("/nonexistent/ptr-map")),
            Err(Error::Open { .. })
        ));
    }
}
