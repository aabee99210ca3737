//! Naming the crawler a fetch claims to be (SPEC §2 "Who is a crawler"):
//! takes the profiles once, gives an immutable `Identifier` that threads
//! share, answering from a user agent, from a reverse-DNS name, and — before
//! any parsing — whether a raw log line could concern a crawler at all.

use std::net::IpAddr;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::crawler::profile::Profile;
use crate::error::{Error, Result};
use crate::robots::agent::product_token;

/// Which profile: an index into the identifier's table, in precedence order
/// (a lower id wins when several fit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CrawlerId(u16);

impl CrawlerId {
    /// The position of the profile in `Identifier::profiles()`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The id of the profile at `index`, as `index()` gave it (a record
    /// read back from a sorted run on disk).
    pub fn from_index(index: u16) -> CrawlerId {
        CrawlerId(index)
    }
}

/// The compiled crawler table. Built once; `Send + Sync`.
#[derive(Debug, Clone)]
pub struct Identifier {
    profiles: Vec<Profile>,
    /// One pattern per distinct (lower-case) user-agent literal.
    ua_search: AhoCorasick,
    /// For each pattern of `ua_search`: which profile's user-agent pattern
    /// (profile id, index in `Profile::user_agents`) starts with it.
    ua_owners: Vec<Vec<(CrawlerId, usize)>>,
    prefilter: Prefilter,
    /// Some needle is made of bytes an address is written with alone
    /// (`is_address_text`): only then can a client that is an address
    /// hold one.
    needles_fit_addresses: bool,
}

/// A case-sensitive search for folded needles (`fold`). The packed (SIMD)
/// searcher when the machine has one: aho-corasick's own choice for a
/// handful of needles is a rare-byte prefilter, which these needles
/// (`z`, `\\`) defeat on ordinary traffic.
#[derive(Debug, Clone)]
enum Prefilter {
    Packed(aho_corasick::packed::Searcher),
    Automaton(AhoCorasick),
}

impl Prefilter {
    fn new(needles: &[Vec<u8>]) -> std::result::Result<Prefilter, aho_corasick::BuildError> {
        let packed = aho_corasick::packed::Config::new()
            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(needles)
            .build();
        match packed {
            Some(searcher) => Ok(Prefilter::Packed(searcher)),
            None => AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostFirst)
                .build(needles)
                .map(Prefilter::Automaton),
        }
    }

    fn is_match(&self, haystack: &[u8]) -> bool {
        match self {
            Prefilter::Packed(searcher) => searcher.find(haystack).is_some(),
            Prefilter::Automaton(automaton) => automaton.is_match(haystack),
        }
    }
}

/// Log servers write unusual bytes as `\xHH`; such a line may spell a
/// user agent in escapes, so the prefilter lets it through to a full parse.
const ESCAPE: &str = "\\x";

impl Identifier {
    pub fn new(profiles: Vec<Profile>) -> Result<Identifier> {
        if profiles.len() > usize::from(u16::MAX) {
            return Err(Error::Usage(format!(
                "{} crawler profiles; at most {} are supported",
                profiles.len(),
                u16::MAX
            )));
        }
        let mut literals: Vec<String> = Vec::new();
        let mut ua_owners: Vec<Vec<(CrawlerId, usize)>> = Vec::new();
        for (id, profile) in (0u16..).map(CrawlerId).zip(&profiles) {
            for (k, pattern) in profile.user_agents.iter().enumerate() {
                let literal = pattern.literal.to_ascii_lowercase();
                match literals.iter().position(|l| *l == literal) {
                    Some(i) => ua_owners[i].push((id, k)),
                    None => {
                        literals.push(literal);
                        ua_owners.push(vec![(id, k)]);
                    }
                }
            }
        }
        let build_error = |e: aho_corasick::BuildError| {
            Error::Usage(format!("cannot compile the crawler patterns: {e}"))
        };
        let ua_search = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&literals)
            .map_err(build_error)?;

        let mut needles: Vec<String> = literals.clone();
        needles.extend(
            profiles
                .iter()
                .flat_map(|p| &p.hosts)
                .map(|h| h.longest_literal().to_string()),
        );
        needles.push(ESCAPE.to_string());
        needles.retain(|n| !n.is_empty());
        // Folded needles searched case-sensitively in a folded copy of the
        // line's fields (`fold`): this lets aho-corasick use its packed
        // (SIMD) searcher, several times faster than its case-insensitive
        // automaton, and the prefilter runs on every log line.
        let needles: Vec<Vec<u8>> = needles
            .iter()
            .map(|n| {
                let mut n = n.clone().into_bytes();
                fold(&mut n);
                n
            })
            .collect();
        let prefilter = Prefilter::new(&needles).map_err(build_error)?;
        let needles_fit_addresses = needles.iter().any(|n| is_address_text(n));
        Ok(Identifier {
            profiles,
            ua_search,
            ua_owners,
            prefilter,
            needles_fit_addresses,
        })
    }

    /// The built-in table, with the entries of a `--profiles` file added
    /// or replacing: what the audit and `check` both identify with.
    pub fn with_profiles(file: Option<&std::path::Path>) -> Result<Identifier> {
        let mut table = super::profile::builtin();
        if let Some(path) = file {
            super::profile_file::load_profiles(path, &mut table)?;
        }
        Identifier::new(table)
    }

    /// The built-in table of SPEC §2.
    pub fn builtin() -> Result<Identifier> {
        Identifier::new(crate::crawler::profile::builtin())
    }

    /// Every profile, in id (precedence) order.
    pub fn profiles(&self) -> &[Profile] {
        &self.profiles
    }

    /// Every id, in precedence order.
    pub fn ids(&self) -> impl Iterator<Item = CrawlerId> + '_ {
        (0u16..).map(CrawlerId).take(self.profiles.len())
    }

    /// The profile behind an id this identifier gave.
    pub fn profile(&self, id: CrawlerId) -> &Profile {
        &self.profiles[id.index()]
    }

    /// The id of the crawler with this name (case-insensitive).
    pub fn find(&self, name: &str) -> Option<CrawlerId> {
        self.ids()
            .find(|&id| self.profile(id).name.eq_ignore_ascii_case(name))
    }

    /// True when both obey the same robots.txt product token
    /// (case-insensitive): such crawlers are one robot to the site.
    pub fn same_token(&self, a: CrawlerId, b: CrawlerId) -> bool {
        let product = |id: CrawlerId| product_token(self.profile(id).token.as_bytes());
        product(a).eq_ignore_ascii_case(product(b))
    }

    /// The crawler a user agent names, if any. When several fit, a match
    /// inside a longer one's text gives way to it (an added
    /// `SeznamBot-img` over the built-in `SeznamBot`), then the one first
    /// in the table wins (`SeznamBot/3.2-test4` is SeznamBot-test, not
    /// SeznamBot; `SeznamBot/4.0 FreshBot` is FreshBot).
    pub fn by_user_agent(&self, ua: &[u8]) -> Option<CrawlerId> {
        // Every crawler whose pattern the user agent holds, and where.
        let mut found: Vec<(CrawlerId, usize, usize)> = Vec::new();
        for m in self.ua_search.find_overlapping_iter(ua) {
            for &(id, k) in &self.ua_owners[m.pattern().as_usize()] {
                if let Some(end) = self.profile(id).user_agents[k].end_after(ua, m.end()) {
                    found.push((id, m.start(), end));
                }
            }
        }
        // A match that lies inside a longer one names less: `SeznamBot`
        // inside `SeznamBot-img/1.0` is the added crawler's, not the
        // built-in's. Among the rest, table order.
        outermost(&mut found).min()
    }

    /// The crawler whose host-name pattern `name` fits (case-insensitive,
    /// one trailing dot allowed), first in the table winning. With `addr`,
    /// the address written in the name must be this one; without (the log
    /// gave a host name, not an address) any well-formed name is accepted.
    pub fn by_name(&self, name: &str, addr: Option<IpAddr>) -> Option<CrawlerId> {
        self.by_name_claimed(name, addr, None)
    }

    /// `by_name` for a fetch whose user agent claims `claim`: a name that
    /// fits a pattern of the claimed crawler's token is that token's
    /// crawler's (the first in the table among them), even where an
    /// earlier crawler's pattern fits it too (`*.google.com` for Googlebot
    /// and GoogleOther alike): SPEC §2 calls a claim spoofed only when the
    /// name does not match the crawler's pattern.
    pub fn by_name_claimed(
        &self,
        name: &str,
        addr: Option<IpAddr>,
        claim: Option<CrawlerId>,
    ) -> Option<CrawlerId> {
        let name = name.trim();
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        if name.is_empty() {
            return None;
        }
        let fits = |id: CrawlerId| {
            self.profile(id)
                .hosts
                .iter()
                .any(|h| h.matches(&name, addr))
        };
        claim
            .and_then(|claim| {
                self.ids()
                    .find(|&id| self.same_token(claim, id) && fits(id))
            })
            .or_else(|| self.ids().find(|&id| fits(id)))
    }

    /// True when the address lies in some crawler operator's networks
    /// (SPEC §2): a genuine crawler may live there, so DNS that denies it a
    /// name is broken, and its lookup goes first.
    pub fn in_networks(&self, addr: IpAddr) -> bool {
        self.profiles.iter().any(|p| p.owns(addr))
    }

    /// Whether `addr` is inside the networks of `crawler` or of a crawler
    /// that shares its robots.txt token (SeznamBot's for FreshBot).
    pub fn in_networks_of(&self, crawler: CrawlerId, addr: IpAddr) -> bool {
        self.ids()
            .any(|id| self.same_token(crawler, id) && self.profile(id).owns(addr))
    }

    /// A cheap test of a whole raw log line: false only when neither its
    /// user agent nor a host name in it can identify a crawler, so the line
    /// may be skipped unparsed. (Fetches from addresses that only a PTR map
    /// names must be kept by the caller by address.)
    pub fn may_be_crawler(&self, line: &[u8]) -> bool {
        let mut folded = line.to_vec();
        fold(&mut folded);
        self.may_be_crawler_folded(&folded)
    }

    /// `may_be_crawler` of text already `fold`ed: the scan folds and
    /// searches each line's client and user agent, where alone a crawler's
    /// name can stand.
    pub fn may_be_crawler_folded(&self, folded: &[u8]) -> bool {
        self.prefilter.is_match(folded)
    }

    /// Whether a client field that `is_address_text` (an IPv4 or IPv6
    /// address as logs write it) may hold a needle: with the built-in
    /// crawlers it cannot, every needle holding a letter past `f`.
    pub fn needles_fit_addresses(&self) -> bool {
        self.needles_fit_addresses
    }
}

/// True when every byte of `text` is a hex digit (either case), `:` or
/// `.`: an address's bytes, folded or not (folding keeps them in the set).
pub fn is_address_text(text: &[u8]) -> bool {
    // A fold without an early exit: a client is short, and a look-up a
    // byte costs less than the compares and branches of `all`.
    text.iter()
        .fold(true, |address, &b| address & ADDRESS_BYTES[usize::from(b)])
}

static ADDRESS_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_hexdigit() || b == b':' as usize || b == b'.' as usize;
        b += 1;
    }
    table
};

/// Folds `text` for the crawler prefilter: every byte with its 0x20 bit
/// set, which lowers ASCII letters and changes some other bytes alike
/// (a backslash and `|` both become `|`). The needles are folded the same way,
/// so text that holds a needle in any case holds it folded: the fold can
/// add a match (a prefilter's match is only a reason to look closer),
/// never lose one. One OR a byte, which the compiler does 32 bytes at a
/// time, where lowering only the letters went a byte at a time.
#[inline]
pub fn fold(text: &mut [u8]) {
    // Eight bytes a word, so that what the vector loop leaves is at most
    // a few words and seven bytes.
    const SPACES: u64 = u64::from_ne_bytes([0x20; 8]);
    let (words, tail) = text.as_chunks_mut::<8>();
    for word in words {
        *word = (u64::from_ne_bytes(*word) | SPACES).to_ne_bytes();
    }
    for byte in tail {
        *byte |= 0x20;
    }
}

/// The crawlers of the matches `found` (crawler, start, end) that lie
/// inside no longer match: sorted by start, then longest first, and swept
/// once, so that a user agent of a hundred thousand crawler names costs as
/// many steps, not their square (SPEC §5). A match (s, e) lies inside a
/// longer one when one sorted before it, with another span, ends at e or
/// later: that one starts before s, or at s and ends after e.
fn outermost(found: &mut [(CrawlerId, usize, usize)]) -> impl Iterator<Item = CrawlerId> + '_ {
    found.sort_unstable_by_key(|&(_, start, end)| (start, std::cmp::Reverse(end)));
    let mut reach: Option<usize> = None;
    found
        .chunk_by(|a, b| (a.1, a.2) == (b.1, b.2))
        .flat_map(move |same| {
            let (_, _, end) = same[0];
            let inside = reach.is_some_and(|r| r >= end);
            reach = Some(reach.map_or(end, |r| r.max(end)));
            same.iter().filter(move |_| !inside).map(|&(id, _, _)| id)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawler::profile::builtin;
    use crate::crawler::profile_file::parse_profiles;

    fn ident() -> Identifier {
        Identifier::builtin().unwrap()
    }

    fn name_of(ident: &Identifier, id: Option<CrawlerId>) -> Option<&str> {
        id.map(|id| ident.profile(id).name.as_str())
    }

    /// `outermost` against the rule read literally: a match is kept
    /// unless some match holds it and is longer, on every small set of
    /// spans (three crawlers, starts and ends up to five).
    #[test]
    fn the_outermost_sweep_keeps_what_the_literal_rule_keeps() {
        let literal = |found: &[(CrawlerId, usize, usize)]| -> Vec<CrawlerId> {
            let mut kept: Vec<CrawlerId> = found
                .iter()
                .filter(|&&(_, start, end)| {
                    !found
                        .iter()
                        .any(|&(_, s, e)| s <= start && end <= e && e - s > end - start)
                })
                .map(|&(id, _, _)| id)
                .collect();
            kept.sort_unstable();
            kept
        };
        let spans: Vec<(usize, usize)> = (0..5)
            .flat_map(|s| (s + 1..=5).map(move |e| (s, e)))
            .collect();
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut found = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut bits = seed;
            for _ in 0..(bits % 6) {
                bits /= 6;
                let (start, end) = spans[(bits % spans.len() as u64) as usize];
                bits /= spans.len() as u64;
                found.push((CrawlerId::from_index((bits % 3) as u16), start, end));
                bits /= 3;
            }
            let want = literal(&found);
            let mut got: Vec<CrawlerId> = outermost(&mut found).collect();
            got.sort_unstable();
            assert_eq!(got, want, "{found:?}");
        }
    }

    /// A user agent of a hundred thousand crawler names names the first
    /// (SPEC §5: its cost grows with its length; the pairwise check it
    /// replaced took about ten seconds for a 1 MB one).
    #[test]
    fn a_user_agent_of_many_crawler_names_is_identified() {
        let ua = "FreshBot".repeat(100_000) + "SeznamBot/4.0";
        assert_eq!(
            name_of(&ident(), ident().by_user_agent(ua.as_bytes())),
            Some("FreshBot")
        );
    }

    #[test]
    fn is_shareable() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Identifier>();
    }

    #[test]
    fn user_agents() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
                Some("SeznamBot"),
            ),
            (
                "Mozilla/5.0 (compatible; SeznamBot/3.2-test4; +http://napoveda.seznam.cz/en/seznambot-intro/)",
                Some("SeznamBot-test"),
            ),
            ("seznambot/3.2-TEST1", Some("SeznamBot-test")),
            // SPEC §2: SeznamBot-test's user agent is
            // `SeznamBot/<version>-test…`; this one holds only `SeznamBot`.
            ("SeznamBot-test", Some("SeznamBot")),
            ("SeznamBot/3.2", Some("SeznamBot")),
            ("SeznamBot/-test", Some("SeznamBot")),
            ("SeznamBot/3.2-tes", Some("SeznamBot")),
            ("Mozilla/5.0 (compatible; FreshBot/1.0)", Some("FreshBot")),
            ("FRESHBOT", Some("FreshBot")),
            ("SeznamBot/4.0 FreshBot", Some("FreshBot")),
            ("Mozilla/5.0 (compatible; Googlebot/2.1)", None),
            ("Seznam Bot", None),
            ("", None),
        ];
        let ident = ident();
        for (ua, want) in cases {
            assert_eq!(
                name_of(&ident, ident.by_user_agent(ua.as_bytes())),
                *want,
                "{ua}"
            );
        }
    }

    #[test]
    fn names() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let cases: &[(&str, Option<&str>, Option<&str>)] = &[
            (
                "fulltextrobot-77-75-77-123.seznam.cz",
                Some("77.75.77.123"),
                Some("SeznamBot"),
            ),
            (
                "FullTextRobot-77-75-77-123.Seznam.CZ.",
                Some("77.75.77.123"),
                Some("SeznamBot"),
            ),
            (
                "fulltextrobot-77-75-77-123.seznam.cz",
                None,
                Some("SeznamBot"),
            ),
            (
                "fulltextrobot-77-75-77-123.seznam.cz",
                Some("77.75.77.12"),
                None,
            ),
            (
                "fulltextrobot-fresh-77-75-77-1.seznam.cz",
                Some("77.75.77.1"),
                Some("FreshBot"),
            ),
            (
                "fulltextrobot-test-77-75-77-1.seznam.cz",
                None,
                Some("SeznamBot-test"),
            ),
            (
                "fulltextrobot-2a02-598-64-8a00--3100-0.seznam.cz",
                Some("2a02:598:64:8a00:0:0:3100:0"),
                Some("SeznamBot"),
            ),
            (
                "fulltextrobot-fresh-2a02-598-a--78-90.seznam.cz",
                Some("2A02:598:A:0::78:90"),
                Some("FreshBot"),
            ),
            (
                "fulltextrobot-77-75-77-123.seznam.cz.example.com",
                None,
                None,
            ),
            ("fulltextrobot-x.seznam.cz", None, None),
            ("crawl-66-249-66-1.googlebot.com", None, None),
            ("", None, None),
            (".", None, None),
        ];
        let ident = ident();
        for (name, addr, want) in cases {
            assert_eq!(
                name_of(&ident, ident.by_name(name, addr.map(ip))),
                *want,
                "{name} {addr:?}"
            );
        }
    }

    #[test]
    fn added_profiles_need_no_code() {
        let mut profiles = builtin();
        profiles.extend(
            parse_profiles(
                "crawler: Googlebot\nuser-agent: Googlebot\n\
                 host: *.googlebot.com\nhost: *.google.com\n\
                 crawler: bingbot\nuser-agent: bingbot\nhost: msnbot-<address>.search.msn.com\n",
            )
            .unwrap(),
        );
        let ident = Identifier::new(profiles).unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().ok();
        assert_eq!(
            name_of(
                &ident,
                ident.by_name("crawl-66-249-66-1.googlebot.com", ip("66.249.66.1"))
            ),
            Some("Googlebot")
        );
        assert_eq!(
            name_of(
                &ident,
                ident.by_name("msnbot-157-55-39-1.search.msn.com", ip("157.55.39.1"))
            ),
            Some("bingbot")
        );
        assert_eq!(
            name_of(
                &ident,
                ident.by_user_agent(b"Mozilla/5.0 (compatible; bingbot/2.0)")
            ),
            Some("bingbot")
        );
        let google = ident.find("googlebot").unwrap();
        let seznam = ident.find("SeznamBot").unwrap();
        let fresh = ident.find("FreshBot").unwrap();
        assert!(!ident.same_token(google, seznam));
        assert!(ident.same_token(fresh, seznam));
        assert!(ident.may_be_crawler(b"1.2.3.4 - - \"GET / HTTP/1.1\" 200 1 \"-\" \"bingbot\""));
    }

    #[test]
    fn a_longer_user_agent_names_its_own_crawler() {
        let mut profiles = builtin();
        profiles.extend(
            parse_profiles(
                "crawler: SeznamBot-img\ntoken: SeznamBot-img\nuser-agent: SeznamBot-img\n\
                 host: fulltextrobot-img-<address>.seznam.cz\n\
                 crawler: Seznam\nuser-agent: Seznam\nhost: *.example.cz\n",
            )
            .unwrap(),
        );
        let ident = Identifier::new(profiles).unwrap();
        let cases: &[(&str, &str)] = &[
            (
                "Mozilla/5.0 (compatible; SeznamBot-img/1.0)",
                "SeznamBot-img",
            ),
            ("seznambot-IMG", "SeznamBot-img"),
            // The built-ins keep their order among themselves.
            ("Mozilla/5.0 (compatible; SeznamBot/4.0)", "SeznamBot"),
            ("SeznamBot/3.2-test4", "SeznamBot-test"),
            ("SeznamBot-test", "SeznamBot"),
            ("SeznamBot/4.0 FreshBot", "FreshBot"),
            (
                "Mozilla/5.0 (compatible; FreshBot/1.0; +https://o-seznam.cz/seznambot-crawler/)",
                "FreshBot",
            ),
            // A shorter added literal inside a built-in's gives way to it,
            // and names its crawler alone.
            ("Mozilla/5.0 (compatible; SeznamBot/4.0)", "SeznamBot"),
            ("Seznam Email Checker", "Seznam"),
            // Apart, the first in the table.
            ("SeznamBot-img/1.0 FreshBot/1.0", "FreshBot"),
        ];
        for (ua, want) in cases {
            assert_eq!(
                name_of(&ident, ident.by_user_agent(ua.as_bytes())),
                Some(*want),
                "{ua}"
            );
        }
    }

    proptest::proptest! {
        /// A line and the same line lowered are told apart alike, and a
        /// needle in any case is found.
        #[test]
        fn prefilter_reads_every_line_lowered(
            filler in proptest::collection::vec(
                proptest::sample::select(b"aZ .\\x\"/-".to_vec()),
                0..600,
            ),
            needle in proptest::sample::select(vec![
                &b""[..], b"SeznamBot", b"sEzNaMbOt", b"freshbot", b"FullTextRobot-", b"\\x4",
            ]),
            at in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let ident = ident();
            let mut line = filler.clone();
            let at = at.index(line.len() + 1);
            line.splice(at..at, needle.iter().copied());
            let mut folded = line.clone();
            fold(&mut folded);
            proptest::prop_assert_eq!(
                ident.may_be_crawler(&line),
                ident.may_be_crawler_folded(&folded)
            );
            if !needle.is_empty() {
                proptest::prop_assert!(ident.may_be_crawler(&line));
            }
        }
    }

    #[test]
    fn prefilter_has_no_false_negatives() {
        let ident = ident();
        let keep: &[&[u8]] = &[
            b"77.75.77.1 - - [30/Nov/2026:00:00:01 +0100] \"GET / HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (compatible; SeznamBot/4.0)\"",
            b"fulltextrobot-77-75-77-1.seznam.cz - - [30/Nov/2026:00:00:01 +0100] \"GET / HTTP/1.1\" 200 5",
            b"x - - \"GET / HTTP/1.1\" 200 5 \"-\" \"FRESHBOT\"",
            b"x - - \"GET / HTTP/1.1\" 200 5 \"-\" \"\\x53eznamBot\"",
            b"FullTextRobot-Fresh-1-2-3-4.Seznam.cz - - [...]",
        ];
        for line in keep {
            assert!(
                ident.may_be_crawler(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        let skip: &[&[u8]] = &[
            b"1.2.3.4 - - [30/Nov/2026:00:00:01 +0100] \"GET /seznam HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (Windows NT 10.0)\"",
            b"",
        ];
        for line in skip {
            assert!(
                !ident.may_be_crawler(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
