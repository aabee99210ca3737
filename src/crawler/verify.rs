//! The verdict on each crawler fetch (SPEC §2 "Verification", column
//! `identified_by`): takes what is known of the client — a host name in the
//! log, the PTR map, live DNS answers — and the crawler its user agent
//! claims; gives which crawler the fetch belongs to and how sure that is.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;

use crate::crawler::address::Client;
use crate::crawler::identify::{CrawlerId, Identifier};
use crate::crawler::ptr::{PtrMap, same_name};

/// Column `verification`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verification {
    /// Forward-confirmed reverse DNS matched the crawler's pattern.
    Verified,
    /// A PTR name matches the pattern but was not forward-confirmed.
    PtrOnly,
    /// The user agent claims the crawler; nothing is known of the address,
    /// or DNS failed.
    Unverified,
    /// The claim is refuted: the fetch is an impostor's.
    Spoofed,
}

impl Verification {
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::Verified => "verified",
            Verification::PtrOnly => "ptr-only",
            Verification::Unverified => "unverified",
            Verification::Spoofed => "spoofed",
        }
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Column `identified_by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdentifiedBy {
    /// The user agent claims a crawler of the same token and a PTR name
    /// matches.
    UaPtr,
    Ua,
    Ptr,
}

impl IdentifiedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            IdentifiedBy::UaPtr => "ua+ptr",
            IdentifiedBy::Ua => "ua",
            IdentifiedBy::Ptr => "ptr",
        }
    }
}

impl fmt::Display for IdentifiedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a crawler fetch belongs to. When `verification` is `Spoofed`,
/// `crawler` is the crawler claimed (impostors.csv `claimed_crawler`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    pub crawler: CrawlerId,
    pub verification: Verification,
    pub identified_by: IdentifiedBy,
    /// The PTR name the verdict rests on, as found (column `ptr`).
    pub ptr: Option<String>,
}

impl Identity {
    pub fn is_spoofed(&self) -> bool {
        self.verification == Verification::Spoofed
    }
}

/// The forward lookup (A/AAAA) of a reverse-DNS name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Forward {
    /// It returned the client's address.
    Confirmed,
    /// It answered (also NXDOMAIN or no records) without the address.
    Elsewhere,
    /// Timeout, SERVFAIL, REFUSED: proves nothing.
    Failed,
    /// Not asked: the name fits no crawler pattern.
    NotAsked,
}

/// One name from a reverse lookup and what its forward lookup said.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NameCheck {
    pub name: String,
    pub forward: Forward,
}

/// What live DNS said about one address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DnsAnswer {
    /// The reverse lookup gave these names.
    Names(Vec<NameCheck>),
    /// The reverse lookup answered that the address has no name (NXDOMAIN,
    /// or an empty answer).
    NoName,
    /// The reverse lookup failed (timeout, SERVFAIL, REFUSED, deadline).
    Failed,
}

impl DnsAnswer {
    /// True when the answer holds a failure somewhere (a later run should
    /// ask again rather than trust a cache).
    pub fn has_failure(&self) -> bool {
        match self {
            DnsAnswer::Failed => true,
            DnsAnswer::NoName => false,
            DnsAnswer::Names(checks) => checks.iter().any(|c| c.forward == Forward::Failed),
        }
    }
}

/// Everything known about client addresses, gathered before judging.
/// Immutable once built; threads share it.
#[derive(Debug, Clone, Default)]
pub struct Knowledge {
    ptr_map: PtrMap,
    dns: HashMap<IpAddr, DnsAnswer>,
}

impl Knowledge {
    /// `dns` keys are canonical addresses (as `parse_client` gives them).
    pub fn new(ptr_map: PtrMap, dns: HashMap<IpAddr, DnsAnswer>) -> Knowledge {
        let dns = dns
            .into_iter()
            .map(|(addr, answer)| (addr.to_canonical(), answer))
            .collect();
        Knowledge { ptr_map, dns }
    }

    pub fn ptr_map(&self) -> &PtrMap {
        &self.ptr_map
    }

    pub fn dns(&self, addr: IpAddr) -> Option<&DnsAnswer> {
        self.dns.get(&addr.to_canonical())
    }

    /// Judges one fetch: its client and the crawler its user agent names.
    /// None when the fetch is no crawler's (no claim, no matching name).
    ///
    /// Names are taken in SPEC §1 order: a host name in the log; else the PTR
    /// map (which wins over live DNS, since it may describe the addresses as
    /// they were when the log was written; DNS can still confirm or refute
    /// the same name forward); else the reverse lookup.
    pub fn decide(
        &self,
        ident: &Identifier,
        client: &Client,
        ua_claim: Option<CrawlerId>,
    ) -> Option<Identity> {
        let unverified = || {
            ua_claim.map(|crawler| Identity {
                crawler,
                verification: Verification::Unverified,
                identified_by: IdentifiedBy::Ua,
                ptr: None,
            })
        };
        match client {
            Client::Other(_) => unverified(),
            Client::Name(name) => {
                let checks = [NameCheck {
                    name: name.clone(),
                    forward: Forward::NotAsked,
                }];
                judge_names(ident, &checks, None, ua_claim)
            }
            Client::Addr(addr) => {
                let addr = addr.to_canonical();
                let answer = self.dns.get(&addr);
                let mapped = self.ptr_map.names(addr);
                if !mapped.is_empty() {
                    let checks: Vec<NameCheck> = mapped
                        .iter()
                        .map(|name| NameCheck {
                            name: name.clone(),
                            forward: forward_from(answer, name),
                        })
                        .collect();
                    return judge_names(ident, &checks, Some(addr), ua_claim);
                }
                match answer {
                    None | Some(DnsAnswer::Failed) => unverified(),
                    // Every address a crawler operator names as its own has
                    // a name: a resolver that denies it one is broken, and a
                    // broken resolver never makes an impostor.
                    Some(DnsAnswer::NoName) if ident.in_networks(addr) => unverified(),
                    Some(DnsAnswer::NoName) => ua_claim.map(|crawler| Identity {
                        crawler,
                        verification: Verification::Spoofed,
                        identified_by: IdentifiedBy::Ua,
                        ptr: None,
                    }),
                    Some(DnsAnswer::Names(checks)) if checks.is_empty() => unverified(),
                    Some(DnsAnswer::Names(checks)) => {
                        judge_names(ident, checks, Some(addr), ua_claim)
                    }
                }
            }
        }
    }
}

/// What DNS said forward about a name that came from elsewhere.
fn forward_from(answer: Option<&DnsAnswer>, name: &str) -> Forward {
    match answer {
        Some(DnsAnswer::Names(checks)) => checks
            .iter()
            .find(|c| same_name(&c.name, name))
            .map_or(Forward::NotAsked, |c| c.forward),
        _ => Forward::NotAsked,
    }
}

/// Judges a non-empty list of names for one client. A matching name decides
/// the crawler (the first in the table among several); a confirmed one is
/// preferred to an unconfirmed one, which is preferred to a refuted one.
/// A user agent that claims a crawler is judged only by names of crawlers
/// that share its token: a name of another crawler (a Seznam user agent
/// from a `googlebot.com` name) refutes the claim, and the fetch is counted
/// for neither (SPEC §2).
fn judge_names(
    ident: &Identifier,
    checks: &[NameCheck],
    addr: Option<IpAddr>,
    ua_claim: Option<CrawlerId>,
) -> Option<Identity> {
    let strength = |f: Forward| match f {
        Forward::Confirmed => 0,
        Forward::NotAsked | Forward::Failed => 1,
        Forward::Elsewhere => 2,
    };
    let matching: Vec<(CrawlerId, &NameCheck)> = checks
        .iter()
        .filter_map(|c| ident.by_name(&c.name, addr).map(|id| (id, c)))
        .collect();
    let best = matching
        .iter()
        .filter(|(id, _)| ua_claim.is_none_or(|ua| ident.same_token(ua, *id)))
        .min_by_key(|(id, c)| (strength(c.forward), *id))
        .copied();
    // Without a name of the claimed crawler, the name shown is the one that
    // refutes the claim: another crawler's if there is one.
    let refuting = matching.first().map(|(_, c)| *c).or_else(|| checks.first());
    match best {
        Some((crawler, check)) => Some(Identity {
            crawler,
            verification: match check.forward {
                Forward::Confirmed => Verification::Verified,
                Forward::NotAsked | Forward::Failed => Verification::PtrOnly,
                Forward::Elsewhere => Verification::Spoofed,
            },
            identified_by: if ua_claim.is_some_and(|ua| ident.same_token(ua, crawler)) {
                IdentifiedBy::UaPtr
            } else {
                IdentifiedBy::Ptr
            },
            ptr: Some(check.name.clone()),
        }),
        None => ua_claim.map(|crawler| Identity {
            crawler,
            verification: Verification::Spoofed,
            identified_by: IdentifiedBy::Ua,
            ptr: refuting.map(|c| c.name.clone()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawler::address::parse_client;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn checks(list: &[(&str, Forward)]) -> DnsAnswer {
        DnsAnswer::Names(
            list.iter()
                .map(|(name, forward)| NameCheck {
                    name: name.to_string(),
                    forward: *forward,
                })
                .collect(),
        )
    }

    const PLAIN: &str = "fulltextrobot-77-75-77-1.seznam.cz";
    const FRESH: &str = "fulltextrobot-fresh-77-75-77-2.seznam.cz";
    const TEST6: &str = "fulltextrobot-test-2a02-598-64-8a00--3100-0.seznam.cz";

    fn knowledge() -> Knowledge {
        let (ptr_map, bad) = PtrMap::parse(
            b"77.75.77.10 fulltextrobot-fresh-77-75-77-10.seznam.cz\n\
              77.75.77.11 host.example.com\n\
              77.75.77.12 fulltextrobot-77-75-77-12.seznam.cz\n\
              77.75.77.13 fulltextrobot-77-75-77-99.seznam.cz\n",
        );
        assert!(bad.is_empty());
        let dns = [
            (ip("77.75.77.1"), checks(&[(PLAIN, Forward::Confirmed)])),
            (ip("77.75.77.2"), checks(&[(FRESH, Forward::Confirmed)])),
            (
                ip("2a02:598:64:8a00::3100:0"),
                checks(&[(TEST6, Forward::Confirmed)]),
            ),
            (
                ip("6.6.6.6"),
                checks(&[("fulltextrobot-6-6-6-6.seznam.cz", Forward::Elsewhere)]),
            ),
            (
                ip("6.6.6.7"),
                checks(&[("fulltextrobot-6-6-6-7.seznam.cz", Forward::Failed)]),
            ),
            (
                ip("6.6.6.8"),
                checks(&[("host.example.com", Forward::NotAsked)]),
            ),
            (ip("6.6.6.9"), DnsAnswer::NoName),
            // Inside Seznam's networks: the resolver is broken.
            (ip("77.75.77.20"), DnsAnswer::NoName),
            (ip("2a02:598:a::20"), DnsAnswer::NoName),
            (ip("6.6.6.10"), DnsAnswer::Failed),
            // Two names: the confirmed one decides.
            (
                ip("77.75.77.3"),
                checks(&[
                    (
                        "fulltextrobot-fresh-77-75-77-3.seznam.cz",
                        Forward::Elsewhere,
                    ),
                    ("fulltextrobot-77-75-77-3.seznam.cz", Forward::Confirmed),
                ]),
            ),
            // DNS refutes the PTR map's name forward.
            (
                ip("77.75.77.12"),
                checks(&[("fulltextrobot-77-75-77-12.seznam.cz.", Forward::Elsewhere)]),
            ),
        ]
        .into_iter()
        .collect();
        Knowledge::new(ptr_map, dns)
    }

    #[test]
    fn decides_per_spec() {
        let ident = Identifier::builtin().unwrap();
        let k = knowledge();
        use IdentifiedBy::*;
        use Verification::*;
        // (client field, user agent, want: (crawler, verification, by, ptr))
        type Want = Option<(
            &'static str,
            Verification,
            IdentifiedBy,
            Option<&'static str>,
        )>;
        let cases: &[(&str, &str, Want)] = &[
            // Genuine, forward-confirmed.
            (
                "77.75.77.1",
                "SeznamBot/4.0",
                Some(("SeznamBot", Verified, UaPtr, Some(PLAIN))),
            ),
            (
                "77.75.77.1",
                "Mozilla/5.0",
                Some(("SeznamBot", Verified, Ptr, Some(PLAIN))),
            ),
            // The name decides the crawler, also against the user agent.
            (
                "77.75.77.2",
                "SeznamBot/4.0",
                Some(("FreshBot", Verified, UaPtr, Some(FRESH))),
            ),
            (
                "77.75.77.2",
                "SeznamBot/3.2-test4",
                Some(("FreshBot", Verified, UaPtr, Some(FRESH))),
            ),
            (
                "2a02:598:64:8a00:0:0:3100:0",
                "SeznamBot/4.0",
                Some(("SeznamBot-test", Verified, UaPtr, Some(TEST6))),
            ),
            (
                "77.75.77.3",
                "-",
                Some((
                    "SeznamBot",
                    Verified,
                    Ptr,
                    Some("fulltextrobot-77-75-77-3.seznam.cz"),
                )),
            ),
            // Forward lookup answered without the address.
            (
                "6.6.6.6",
                "SeznamBot/4.0",
                Some((
                    "SeznamBot",
                    Spoofed,
                    UaPtr,
                    Some("fulltextrobot-6-6-6-6.seznam.cz"),
                )),
            ),
            (
                "6.6.6.6",
                "curl/8",
                Some((
                    "SeznamBot",
                    Spoofed,
                    Ptr,
                    Some("fulltextrobot-6-6-6-6.seznam.cz"),
                )),
            ),
            // Forward lookup failed: the name stands unconfirmed.
            (
                "6.6.6.7",
                "SeznamBot/4.0",
                Some((
                    "SeznamBot",
                    PtrOnly,
                    UaPtr,
                    Some("fulltextrobot-6-6-6-7.seznam.cz"),
                )),
            ),
            // A name that is not Seznam's.
            (
                "6.6.6.8",
                "SeznamBot/4.0",
                Some(("SeznamBot", Spoofed, Ua, Some("host.example.com"))),
            ),
            ("6.6.6.8", "curl/8", None),
            // NXDOMAIN: every genuine address has a name.
            ("6.6.6.9", "FreshBot", Some(("FreshBot", Spoofed, Ua, None))),
            ("6.6.6.9", "curl/8", None),
            (
                "77.75.77.20",
                "SeznamBot/4.0",
                Some(("SeznamBot", Unverified, Ua, None)),
            ),
            (
                "2a02:598:a::20",
                "FreshBot",
                Some(("FreshBot", Unverified, Ua, None)),
            ),
            ("77.75.77.20", "curl/8", None),
            // DNS failure proves nothing.
            (
                "6.6.6.10",
                "SeznamBot/4.0",
                Some(("SeznamBot", Unverified, Ua, None)),
            ),
            ("6.6.6.10", "curl/8", None),
            // Nothing known.
            (
                "1.2.3.4",
                "SeznamBot/4.0",
                Some(("SeznamBot", Unverified, Ua, None)),
            ),
            ("1.2.3.4", "curl/8", None),
            (
                "-",
                "SeznamBot/3.2-test1",
                Some(("SeznamBot-test", Unverified, Ua, None)),
            ),
            // PTR map names.
            (
                "77.75.77.10",
                "SeznamBot/4.0",
                Some((
                    "FreshBot",
                    PtrOnly,
                    UaPtr,
                    Some("fulltextrobot-fresh-77-75-77-10.seznam.cz"),
                )),
            ),
            (
                "::ffff:77.75.77.10",
                "-",
                Some((
                    "FreshBot",
                    PtrOnly,
                    Ptr,
                    Some("fulltextrobot-fresh-77-75-77-10.seznam.cz"),
                )),
            ),
            (
                "77.75.77.11",
                "SeznamBot/4.0",
                Some(("SeznamBot", Spoofed, Ua, Some("host.example.com"))),
            ),
            (
                "77.75.77.12",
                "SeznamBot/4.0",
                Some((
                    "SeznamBot",
                    Spoofed,
                    UaPtr,
                    Some("fulltextrobot-77-75-77-12.seznam.cz"),
                )),
            ),
            // The name in the map is another address's.
            (
                "77.75.77.13",
                "SeznamBot/4.0",
                Some((
                    "SeznamBot",
                    Spoofed,
                    Ua,
                    Some("fulltextrobot-77-75-77-99.seznam.cz"),
                )),
            ),
            ("77.75.77.13", "-", None),
            // A host name in the log's client field.
            (
                "fulltextrobot-test-77-75-77-5.seznam.cz",
                "SeznamBot/4.0",
                Some((
                    "SeznamBot-test",
                    PtrOnly,
                    UaPtr,
                    Some("fulltextrobot-test-77-75-77-5.seznam.cz"),
                )),
            ),
            (
                "FULLTEXTROBOT-77-75-77-5.SEZNAM.CZ.",
                "-",
                Some((
                    "SeznamBot",
                    PtrOnly,
                    Ptr,
                    Some("FULLTEXTROBOT-77-75-77-5.SEZNAM.CZ."),
                )),
            ),
            (
                "crawler.example.com",
                "SeznamBot",
                Some(("SeznamBot", Spoofed, Ua, Some("crawler.example.com"))),
            ),
            ("crawler.example.com", "-", None),
        ];
        for (field, ua, want) in cases {
            let client = parse_client(field.as_bytes());
            let got = k.decide(&ident, &client, ident.by_user_agent(ua.as_bytes()));
            let got = got.map(|i| {
                (
                    ident.profile(i.crawler).name.clone(),
                    i.verification,
                    i.identified_by,
                    i.ptr,
                )
            });
            let want = want.map(|(c, v, b, p)| (c.to_string(), v, b, p.map(str::to_string)));
            assert_eq!(got, want, "{field} / {ua}");
        }
    }

    #[test]
    fn another_crawlers_name_refutes_the_claim() {
        use crate::crawler::profile::builtin;
        use crate::crawler::profile_file::{merge_profiles, parse_profiles};
        let mut profiles = builtin();
        let google =
            "crawler: Googlebot\nuser-agent: Googlebot\nhost: crawl-<address>.googlebot.com\n";
        merge_profiles(&mut profiles, parse_profiles(google).unwrap());
        let ident = Identifier::new(profiles).unwrap();
        const GOOGLE: &str = "crawl-66-249-66-1.googlebot.com";
        let (ptr_map, _) = PtrMap::parse(b"66.249.66.2 crawl-66-249-66-2.googlebot.com\n");
        let dns = [
            (ip("66.249.66.1"), checks(&[(GOOGLE, Forward::Confirmed)])),
            (
                ip("77.75.77.1"),
                checks(&[(GOOGLE, Forward::Elsewhere), (PLAIN, Forward::Confirmed)]),
            ),
        ]
        .into_iter()
        .collect();
        let k = Knowledge::new(ptr_map, dns);
        use IdentifiedBy::*;
        use Verification::*;
        type Want = (
            &'static str,
            Verification,
            IdentifiedBy,
            Option<&'static str>,
        );
        let cases: &[(&str, &str, Want)] = &[
            // A Seznam claim from Google's name: SeznamBot's impostor.
            (
                "66.249.66.1",
                "SeznamBot/4.0",
                ("SeznamBot", Spoofed, Ua, Some(GOOGLE)),
            ),
            (
                "66.249.66.2",
                "FreshBot/1.0",
                (
                    "FreshBot",
                    Spoofed,
                    Ua,
                    Some("crawl-66-249-66-2.googlebot.com"),
                ),
            ),
            (
                "crawl-66-249-66-3.googlebot.com",
                "SeznamBot/4.0",
                (
                    "SeznamBot",
                    Spoofed,
                    Ua,
                    Some("crawl-66-249-66-3.googlebot.com"),
                ),
            ),
            // Without a claim, or with Google's own, the name decides.
            (
                "66.249.66.1",
                "curl/8",
                ("Googlebot", Verified, Ptr, Some(GOOGLE)),
            ),
            (
                "66.249.66.1",
                "Googlebot/2.1",
                ("Googlebot", Verified, UaPtr, Some(GOOGLE)),
            ),
            // A name of the claimed crawler among others still decides.
            (
                "77.75.77.1",
                "SeznamBot/4.0",
                ("SeznamBot", Verified, UaPtr, Some(PLAIN)),
            ),
        ];
        for (field, ua, (crawler, verification, by, ptr)) in cases {
            let client = parse_client(field.as_bytes());
            let got = k
                .decide(&ident, &client, ident.by_user_agent(ua.as_bytes()))
                .unwrap();
            assert_eq!(
                (
                    ident.profile(got.crawler).name.as_str(),
                    got.verification,
                    got.identified_by,
                    got.ptr.as_deref()
                ),
                (*crawler, *verification, *by, *ptr),
                "{field} / {ua}"
            );
        }
    }

    #[test]
    fn column_spellings() {
        assert_eq!(
            [
                Verification::Verified,
                Verification::PtrOnly,
                Verification::Unverified,
                Verification::Spoofed
            ]
            .map(Verification::as_str),
            ["verified", "ptr-only", "unverified", "spoofed"]
        );
        assert_eq!(
            [IdentifiedBy::UaPtr, IdentifiedBy::Ua, IdentifiedBy::Ptr].map(IdentifiedBy::as_str),
            ["ua+ptr", "ua", "ptr"]
        );
    }
}
