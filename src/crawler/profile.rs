//! The table of crawlers as data (SPEC §2 "Who is a crawler"): each profile
//! gives a name, the user-agent patterns that claim it, the reverse-DNS name
//! patterns that prove it, its robots.txt token, a rate floor and the
//! networks its operator crawls from. Gives the
//! built-in table as `Vec<Profile>` in precedence order (`profile_file`
//! reads more from a file).
//! Adding a crawler is a table entry, never new code.

use crate::error::Result;
use crate::robots::group::Reads;
use crate::robots::parse::Directive;
use ipnet::IpNet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The slowest rate a crawler honours: written rates slower than this are
/// read as this (Seznam: 1 fetch per 30 s, SPEC §3 Request-rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateFloor {
    pub fetches: u32,
    pub seconds: u32,
}

/// A user-agent pattern: a literal, case-insensitive substring, optionally
/// followed by a version (`[0-9][0-9.]*`) and a second literal. Written as
/// `SeznamBot` or `SeznamBot/<version>-test`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UaPattern {
    /// Searched for anywhere in the user agent (ASCII case-insensitive).
    pub literal: String,
    /// When present, the literal must be followed by a version and then this.
    pub after_version: Option<String>,
}

/// The placeholder for a version number in a user-agent pattern.
const VERSION: &str = "<version>";
/// The placeholder for the client's own address in a host-name pattern.
const ADDRESS: &str = "<address>";

impl UaPattern {
    /// Reads `Literal` or `Literal<version>Suffix`.
    pub fn parse(text: &str) -> Result<UaPattern, String> {
        let text = text.trim();
        let (literal, after_version) = match text.find(VERSION) {
            Some(i) => {
                let suffix = &text[i + VERSION.len()..];
                if suffix.contains(VERSION) {
                    return Err(format!("more than one {VERSION} in {text:?}"));
                }
                (&text[..i], Some(suffix.to_string()))
            }
            None => (text, None),
        };
        if literal.is_empty() {
            return Err(format!("user-agent pattern {text:?} needs a literal start"));
        }
        if !literal.is_ascii() || after_version.as_deref().is_some_and(|s| !s.is_ascii()) {
            // Case-insensitive matching is ASCII only, as user agents are.
            return Err(format!("user-agent pattern {text:?} is not ASCII"));
        }
        Ok(UaPattern {
            literal: literal.to_string(),
            after_version,
        })
    }

    /// Given the user agent and where an occurrence of `literal` ends, tells
    /// whether the rest of the pattern follows.
    pub fn matches_after(&self, ua: &[u8], literal_end: usize) -> bool {
        self.end_after(ua, literal_end).is_some()
    }

    /// Given the user agent and where an occurrence of `literal` ends,
    /// where the whole pattern's match ends, when the rest follows.
    pub fn end_after(&self, ua: &[u8], literal_end: usize) -> Option<usize> {
        let Some(suffix) = &self.after_version else {
            return Some(literal_end);
        };
        let rest = ua.get(literal_end..).unwrap_or_default();
        if !rest.first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let version = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .count();
        rest[version..]
            .get(..suffix.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(suffix.as_bytes()))
            .then_some(literal_end + version + suffix.len())
    }
}

/// One piece of a host-name pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPart {
    /// Lower-case text that must appear as is.
    Literal(String),
    /// `*`: one or more characters of any label(s).
    Any,
    /// `<address>`: an IPv4 address with `-` for `.`, or an IPv6 address
    /// with `-` for `:`, compared as an address.
    Address,
}

/// A reverse-DNS name pattern such as `fulltextrobot-<address>.seznam.cz`
/// or `*.googlebot.com`. Names are compared case-insensitively, with one
/// trailing dot ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    pub text: String,
    pub parts: Vec<HostPart>,
}

impl HostPattern {
    pub fn parse(text: &str) -> Result<HostPattern, String> {
        let original = text.trim();
        let lower = original.to_ascii_lowercase();
        let body = lower.strip_suffix('.').unwrap_or(&lower);
        if body.is_empty() {
            return Err("empty host-name pattern".to_string());
        }
        let mut parts = Vec::new();
        let mut rest = body;
        let mut addresses = 0;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix(ADDRESS) {
                addresses += 1;
                parts.push(HostPart::Address);
                rest = r;
            } else if let Some(r) = rest.strip_prefix('*') {
                parts.push(HostPart::Any);
                rest = r;
            } else {
                let end = rest
                    .find(['*', '<'])
                    .filter(|&i| i > 0 || !rest.starts_with('<'))
                    .unwrap_or(rest.len());
                let literal = &rest[..end];
                if let Some(bad) = literal
                    .chars()
                    .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
                {
                    return Err(format!(
                        "character {bad:?} in host-name pattern {original:?}"
                    ));
                }
                parts.push(HostPart::Literal(literal.to_string()));
                rest = &rest[end..];
            }
        }
        if addresses > 1 {
            return Err(format!("more than one {ADDRESS} in {original:?}"));
        }
        if !parts.iter().any(|p| matches!(p, HostPart::Literal(_))) {
            // A pattern of wildcards alone would make every host a crawler.
            return Err(format!("host-name pattern {original:?} has no fixed text"));
        }
        Ok(HostPattern {
            text: original.to_string(),
            parts,
        })
    }

    /// True when `name` (already lower-case, trailing dot removed) has this
    /// form. With `addr`, an embedded address must equal it; without, any
    /// valid address is accepted.
    pub fn matches(&self, name: &str, addr: Option<IpAddr>) -> bool {
        // A pattern that starts or ends with text anchors it there: most
        // names (an attacker's long host names among them) fail at once,
        // without the walk over every position.
        if let Some(HostPart::Literal(first)) = self.parts.first()
            && !name.starts_with(first.as_str())
        {
            return false;
        }
        if let Some(HostPart::Literal(last)) = self.parts.last()
            && !name.ends_with(last.as_str())
        {
            return false;
        }
        let addr = addr.map(|a| a.to_canonical());
        match_parts(&self.parts, name.as_bytes(), addr)
    }

    /// The longest fixed text in the pattern: every matching name holds it,
    /// so a line without it cannot name this host.
    pub fn longest_literal(&self) -> &str {
        self.parts
            .iter()
            .filter_map(|p| match p {
                HostPart::Literal(s) => Some(s.as_str()),
                _ => None,
            })
            .max_by_key(|s| s.len())
            .unwrap_or_default()
    }
}

/// The longest run an `<address>` can take: an IPv6 address written with
/// dashes is at most 39 characters, an IPv4 one 15.
const LONGEST_DASHED_ADDRESS: usize = 39;

/// True when `name` has the form of `parts`. Dynamic programming over
/// (part, position), so that a pattern of many `*` costs time linear in
/// the name times the parts, never exponential (a profile file is input
/// from a stranger too).
fn match_parts(parts: &[HostPart], name: &[u8], addr: Option<IpAddr>) -> bool {
    let len = name.len();
    // `after[i]`: the parts after the current one match `name[i..]`;
    // starts as "nothing left matches only the end".
    let mut after: Vec<bool> = (0..=len).map(|i| i == len).collect();
    let mut here = vec![false; len + 1];
    for part in parts.iter().rev() {
        match part {
            HostPart::Literal(lit) => {
                let lit = lit.as_bytes();
                for i in 0..=len {
                    here[i] = name[i..].starts_with(lit) && after[i + lit.len()];
                }
            }
            HostPart::Any => {
                // One or more characters: some j > i where the rest matches.
                let mut later = false;
                for i in (0..=len).rev() {
                    here[i] = later;
                    later |= after[i];
                }
            }
            HostPart::Address => {
                for i in 0..=len {
                    let run = name[i..]
                        .iter()
                        .take(LONGEST_DASHED_ADDRESS)
                        .take_while(|b| b.is_ascii_hexdigit() || **b == b'-')
                        .count();
                    here[i] = (1..=run).any(|n| {
                        after[i + n]
                            && std::str::from_utf8(&name[i..i + n])
                                .ok()
                                .and_then(parse_dashed_address)
                                .is_some_and(|a| addr.is_none_or(|want| a.to_canonical() == want))
                    });
                }
            }
        }
        std::mem::swap(&mut after, &mut here);
    }
    after[0]
}

/// Reads an address as written inside a host name: `77-75-77-123` or
/// `2a02-598-64-8a00--3100-0`.
pub fn parse_dashed_address(text: &str) -> Option<IpAddr> {
    if text.bytes().filter(|&b| b == b'-').count() == 3
        && let Ok(v4) = text.replace('-', ".").parse::<Ipv4Addr>()
    {
        return Some(IpAddr::V4(v4));
    }
    text.replace('-', ":")
        .parse::<Ipv6Addr>()
        .ok()
        .map(IpAddr::V6)
}

/// One crawler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// As reports show it: `SeznamBot`, `FreshBot`, `SeznamBot-test`.
    pub name: String,
    /// The robots.txt product token whose groups it obeys.
    pub token: String,
    pub user_agents: Vec<UaPattern>,
    pub hosts: Vec<HostPattern>,
    pub rate_floor: Option<RateFloor>,
    /// The robots.txt extension records the crawler reads as rules of its
    /// group (SPEC §3): they end a run of user-agent lines for it, and rows
    /// of a limit it does not read only inform.
    pub reads: Reads,
    /// The crawler fetches `/` even under `User-agent: *` + `Disallow: /`
    /// and documents it (Seznam, SPEC §4): such rows only inform.
    pub homepage_exception: bool,
    /// Where the operator's crawlers live (SPEC §2): a "no name" answer
    /// for an address in them is a broken resolver, not an impostor, and
    /// these addresses are looked up first.
    pub networks: Vec<IpNet>,
}

impl Profile {
    /// True when the address lies in one of the operator's networks.
    pub fn owns(&self, addr: IpAddr) -> bool {
        let addr = addr.to_canonical();
        self.networks.iter().any(|n| n.contains(&addr))
    }
}

/// A profile as written in the built-in table.
struct ProfileText {
    name: &'static str,
    token: &'static str,
    user_agents: &'static [&'static str],
    hosts: &'static [&'static str],
    rate_floor: Option<RateFloor>,
    reads: Reads,
    homepage_exception: bool,
    networks: &'static [&'static str],
}

/// Seznam documents `Request-rate` and `Robot-version`, not `Crawl-delay`.
const SEZNAM_READS: Reads = Reads::RULES_ONLY
    .with(Directive::RequestRate)
    .with(Directive::RobotVersion);

const SEZNAM_FLOOR: Option<RateFloor> = Some(RateFloor {
    fetches: 1,
    seconds: 30,
});

/// The networks Seznam documents for its crawlers.
const SEZNAM_NETWORKS: &[&str] = &["77.75.72.0/21", "2a02:598::/32"];

/// SPEC §2. Order is precedence: when a user agent or a name fits several
/// profiles, the first wins, so fresh and test come before plain SeznamBot.
const BUILTIN: &[ProfileText] = &[
    ProfileText {
        name: "FreshBot",
        token: "SeznamBot",
        user_agents: &["FreshBot"],
        hosts: &["fulltextrobot-fresh-<address>.seznam.cz"],
        rate_floor: SEZNAM_FLOOR,
        reads: SEZNAM_READS,
        homepage_exception: true,
        networks: SEZNAM_NETWORKS,
    },
    ProfileText {
        name: "SeznamBot-test",
        token: "SeznamBot",
        // SPEC §2's table: only `SeznamBot/<version>-test…`. A bare
        // `SeznamBot-test` holds `SeznamBot`, so it is SeznamBot's.
        user_agents: &["SeznamBot/<version>-test"],
        hosts: &["fulltextrobot-test-<address>.seznam.cz"],
        rate_floor: SEZNAM_FLOOR,
        reads: SEZNAM_READS,
        homepage_exception: true,
        networks: SEZNAM_NETWORKS,
    },
    ProfileText {
        name: "SeznamBot",
        token: "SeznamBot",
        user_agents: &["SeznamBot"],
        hosts: &["fulltextrobot-<address>.seznam.cz"],
        rate_floor: SEZNAM_FLOOR,
        reads: SEZNAM_READS,
        homepage_exception: true,
        networks: SEZNAM_NETWORKS,
    },
];

/// The built-in crawler of that name (`SeznamBot`), as the table holds it.
pub fn builtin_named(name: &str) -> Option<Profile> {
    builtin().into_iter().find(|p| p.name == name)
}

/// The built-in crawlers of SPEC §2, in precedence order.
pub fn builtin() -> Vec<Profile> {
    BUILTIN
        .iter()
        .filter_map(|p| {
            Some(Profile {
                name: p.name.to_string(),
                token: p.token.to_string(),
                user_agents: p
                    .user_agents
                    .iter()
                    .map(|u| UaPattern::parse(u))
                    .collect::<Result<_, _>>()
                    .ok()?,
                hosts: p
                    .hosts
                    .iter()
                    .map(|h| HostPattern::parse(h))
                    .collect::<Result<_, _>>()
                    .ok()?,
                rate_floor: p.rate_floor,
                reads: p.reads,
                homepage_exception: p.homepage_exception,
                networks: p
                    .networks
                    .iter()
                    .map(|n| n.parse::<IpNet>().map(|n| n.trunc()))
                    .collect::<Result<_, _>>()
                    .ok()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn builtin_table_is_complete() {
        let names: Vec<_> = builtin().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["FreshBot", "SeznamBot-test", "SeznamBot"]);
        assert!(builtin().iter().all(|p| p.token == "SeznamBot"
            && p.rate_floor == SEZNAM_FLOOR
            && p.reads == SEZNAM_READS
            && p.homepage_exception));
    }

    #[test]
    fn seznam_owns_its_networks() {
        let cases: &[(&str, bool)] = &[
            ("77.75.72.0", true),
            ("77.75.77.123", true),
            ("77.75.79.255", true),
            ("::ffff:77.75.74.1", true),
            ("77.75.80.0", false),
            ("77.75.71.255", false),
            ("2a02:598:64:8a00::3100:0", true),
            ("2a02:599::1", false),
            ("6.6.6.6", false),
        ];
        for profile in builtin() {
            assert_eq!(profile.networks.len(), 2, "{}", profile.name);
            for (addr, want) in cases {
                assert_eq!(profile.owns(ip(addr)), *want, "{} {addr}", profile.name);
            }
        }
    }

    #[test]
    fn dashed_addresses() {
        let cases: &[(&str, Option<&str>)] = &[
            ("77-75-77-123", Some("77.75.77.123")),
            ("2a02-598-64-8a00--3100-0", Some("2a02:598:64:8a00::3100:0")),
            ("2a02-598-a--78-90", Some("2a02:598:a::78:90")),
            ("--1", Some("::1")),
            ("1-2-3-4-5-6-7-8", Some("1:2:3:4:5:6:7:8")),
            ("77-75-77", None),
            ("77-75-77-256", None),
            ("fresh-1-2-3-4", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_dashed_address(text), want.map(ip), "{text}");
        }
    }

    #[test]
    fn host_patterns() {
        let seznam = HostPattern::parse("fulltextrobot-<address>.seznam.cz").unwrap();
        let google = HostPattern::parse("*.googlebot.com").unwrap();
        let crawl = HostPattern::parse("crawl-<address>.googlebot.com").unwrap();
        let cases: &[(&HostPattern, &str, Option<&str>, bool)] = &[
            (&seznam, "fulltextrobot-77-75-77-123.seznam.cz", None, true),
            (
                &seznam,
                "fulltextrobot-77-75-77-123.seznam.cz",
                Some("77.75.77.123"),
                true,
            ),
            (
                &seznam,
                "fulltextrobot-77-75-77-123.seznam.cz",
                Some("::ffff:77.75.77.123"),
                true,
            ),
            (
                &seznam,
                "fulltextrobot-77-75-77-123.seznam.cz",
                Some("77.75.77.124"),
                false,
            ),
            (
                &seznam,
                "fulltextrobot-2a02-598-64-8a00--3100-0.seznam.cz",
                Some("2a02:598:64:8a00::3100:0"),
                true,
            ),
            (
                &seznam,
                "fulltextrobot-2a02-0598-0064-8a00-0-0-3100-0.seznam.cz",
                Some("2a02:598:64:8a00::3100:0"),
                true,
            ),
            (
                &seznam,
                "fulltextrobot-fresh-77-75-77-1.seznam.cz",
                None,
                false,
            ),
            (&seznam, "fulltextrobot-77-75-77.seznam.cz", None, false),
            (
                &seznam,
                "fulltextrobot-77-75-77-1.seznam.cz.evil",
                None,
                false,
            ),
            (&seznam, "xfulltextrobot-77-75-77-1.seznam.cz", None, false),
            (&google, "crawl-66-249-66-1.googlebot.com", None, true),
            (&google, "googlebot.com", None, false),
            (&google, "evilgooglebot.com", None, false),
            (
                &crawl,
                "crawl-66-249-66-1.googlebot.com",
                Some("66.249.66.1"),
                true,
            ),
        ];
        for (pattern, name, addr, want) in cases {
            assert_eq!(
                pattern.matches(name, addr.map(ip)),
                *want,
                "{} {name} {addr:?}",
                pattern.text
            );
        }
        assert_eq!(seznam.longest_literal(), "fulltextrobot-");
        assert_eq!(google.longest_literal(), ".googlebot.com");
    }

    /// The plain recursive reading of a host pattern, exponential in the
    /// number of `*`: what `match_parts` must agree with on small inputs.
    fn naive(parts: &[HostPart], name: &[u8], addr: Option<IpAddr>) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return name.is_empty();
        };
        match first {
            HostPart::Literal(lit) => name
                .strip_prefix(lit.as_bytes())
                .is_some_and(|tail| naive(rest, tail, addr)),
            HostPart::Any => (1..=name.len()).any(|i| naive(rest, &name[i..], addr)),
            HostPart::Address => (1..=name.len()).any(|n| {
                std::str::from_utf8(&name[..n])
                    .ok()
                    .and_then(parse_dashed_address)
                    .is_some_and(|a| addr.is_none_or(|w| a.to_canonical() == w))
                    && naive(rest, &name[n..], addr)
            }),
        }
    }

    proptest::proptest! {
        #[test]
        fn host_patterns_agree_with_the_plain_reading(
            pattern in "([a-c.-]{1,3}|\\*|<address>){1,6}",
            name in "[a-c0-9.-]{0,24}",
        ) {
            if let Ok(parsed) = HostPattern::parse(&pattern) {
                for addr in [None, Some(ip("1.2.3.4"))] {
                    proptest::prop_assert_eq!(
                        parsed.matches(&name, addr),
                        naive(&parsed.parts, name.as_bytes(), addr.map(|a| a.to_canonical())),
                        "{} on {}", pattern, name
                    );
                }
            }
        }
    }

    #[test]
    fn many_stars_cost_linear_time() {
        // Exponential before: seven `*` against a 249-octet name that
        // almost fits took minutes.
        let pattern = HostPattern::parse("a*a*a*a*a*a*a*b.cz").unwrap();
        let name = "a".repeat(249);
        assert!(!pattern.matches(&name, None));
        let pattern = HostPattern::parse(&"*a".repeat(100)).unwrap();
        assert!(!pattern.matches(&format!("{}b", "a".repeat(250)), None));
        assert!(pattern.matches(&"a".repeat(200), None));
    }

    #[test]
    fn bad_host_patterns() {
        for text in [
            "",
            "*",
            "<address>",
            "a<address>b<address>",
            "a b.cz",
            "*.<x>.cz",
        ] {
            assert!(HostPattern::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn ua_patterns() {
        let test = UaPattern::parse("SeznamBot/<version>-test").unwrap();
        let cases: &[(&[u8], bool)] = &[
            (b"3.2-test4)", true),
            (b"4-TEST", true),
            (b"3.2; +http", false),
            (b"-test", false),
            (b"3.2-tes", false),
        ];
        for (tail, want) in cases {
            assert_eq!(test.matches_after(tail, 0), *want, "{tail:?}");
        }
        assert!(UaPattern::parse("<version>x").is_err());
        assert!(UaPattern::parse("a<version>b<version>").is_err());
    }
}
