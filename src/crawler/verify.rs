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
    /// Addresses inside a crawler's networks were left unasked (more than
    /// `--memory` keeps): one without an answer is undecided, as one whose
    /// lookup failed.
    networks_unasked: bool,
    /// What DNS said forward of a PTR map's names (`dns::confirm_given`),
    /// by canonical address and the name as the map writes it: a map name
    /// is confirmed or refuted whatever the address's reverse lookup says.
    given_forward: HashMap<(IpAddr, String), Forward>,
}

impl Knowledge {
    /// `dns` keys are canonical addresses (as `parse_client` gives them).
    pub fn new(ptr_map: PtrMap, dns: HashMap<IpAddr, DnsAnswer>) -> Knowledge {
        let dns = dns
            .into_iter()
            .map(|(addr, answer)| (addr.to_canonical(), answer))
            .collect();
        Knowledge {
            ptr_map,
            dns,
            networks_unasked: false,
            given_forward: HashMap::new(),
        }
    }

    /// The same knowledge, with what DNS said forward of the PTR map's
    /// names (`dns::confirm_given`, keyed by canonical address and name).
    pub fn with_given_forward(mut self, forward: HashMap<(IpAddr, String), Forward>) -> Knowledge {
        self.given_forward = forward;
        self
    }

    /// The PTR map's names of crawlers' patterns that DNS may still
    /// confirm or refute forward, for `addresses`: those the reverse
    /// answer did not already check (`dns::confirm_given`).
    pub fn given_to_confirm(
        &self,
        ident: &Identifier,
        addresses: impl Iterator<Item = IpAddr>,
    ) -> Vec<(IpAddr, String)> {
        let mut pairs = Vec::new();
        for addr in addresses {
            let addr = addr.to_canonical();
            let answer = self.dns.get(&addr);
            for name in self.ptr_map.names(addr) {
                if ident.by_name(name, Some(addr)).is_some()
                    && forward_from(answer, name) == Forward::NotAsked
                {
                    pairs.push((addr, name.to_string()));
                }
            }
        }
        pairs.sort();
        pairs.dedup();
        pairs
    }

    /// The same knowledge, where `unasked` says addresses inside a
    /// crawler's networks were left unasked (`undecided`).
    pub fn with_networks_unasked(mut self, unasked: bool) -> Knowledge {
        self.networks_unasked = unasked;
        self
    }

    pub fn ptr_map(&self) -> &PtrMap {
        &self.ptr_map
    }

    /// The addresses whose live DNS answer holds a failure.
    pub fn failed_addresses(&self) -> impl Iterator<Item = IpAddr> + '_ {
        self.dns
            .iter()
            .filter(|(_, answer)| answer.has_failure())
            .map(|(&addr, _)| addr)
    }

    pub fn dns(&self, addr: IpAddr) -> Option<&DnsAnswer> {
        self.dns.get(&addr.to_canonical())
    }

    /// Whether a fetch from `client` whose user agent claims no crawler
    /// might still be a crawler's, unknown because DNS failed: an address
    /// inside a crawler's networks (kept for DNS alone to name), which no
    /// PTR map names, whose reverse lookup failed. Outside the networks
    /// anyone can make lookups fail, so a failure there proves nothing.
    pub fn undecided(&self, ident: &Identifier, client: &Client) -> bool {
        let Client::Addr(addr) = client else {
            return false;
        };
        let addr = addr.to_canonical();
        if !ident.in_networks(addr) || !self.ptr_map.names(addr).is_empty() {
            return false;
        }
        match self.dns.get(&addr) {
            None => self.networks_unasked,
            Some(DnsAnswer::Failed) => true,
            // A crawler's name whose forward lookup failed (or that a
            // filtering resolver answered with no address of the
            // operator's): the name alone names no one (SPEC §2).
            Some(DnsAnswer::Names(checks)) => checks.iter().any(|check| {
                check.forward == Forward::Failed && ident.by_name(&check.name, Some(addr)).is_some()
            }),
            _ => false,
        }
    }

    /// The name live DNS gave `client` that `decide` did not believe
    /// against `ua_claim` (`refuted_from_inside`): for the run's warning.
    pub fn belied(
        &self,
        ident: &Identifier,
        client: &Client,
        ua_claim: Option<CrawlerId>,
    ) -> Option<(IpAddr, String)> {
        let Client::Addr(addr) = client else {
            return None;
        };
        let addr = addr.to_canonical();
        if !self.ptr_map.names(addr).is_empty() {
            return None;
        }
        // An answer that holds a failure is counted among the failures
        // as it is.
        let Some(answer @ DnsAnswer::Names(checks)) = self.dns.get(&addr) else {
            return None;
        };
        if answer.has_failure() {
            return None;
        }
        let first = checks.first()?;
        let judged = judge_names(ident, checks, Some(addr), ua_claim, Source::Live);
        // A claim refuted by a name of its own crawler (`ua+ptr`, see
        // `judge_names`) was refuted by that name's forward lookup: there
        // the operator's zone (a stale record), no lie, and the fetch
        // stays unverified unsaid. A lie is a name not the crawler's
        // (`ua`).
        let lied = judged.as_ref().is_some_and(|identity| {
            identity.identified_by == IdentifiedBy::Ua
                && refuted_from_inside(ident, addr, ua_claim, Some(identity))
        });
        (ua_claim.is_some() && lied).then(|| (addr, first.name.clone()))
    }

    /// Judges one fetch: its client and the crawler its user agent names.
    /// None when the fetch is no crawler's (no claim, no matching name).
    ///
    /// Names are taken in SPEC §1 order: a host name in the log; else the PTR
    /// map (which wins over live DNS, since it may describe the addresses as
    /// they were when the log was written; DNS can still confirm or refute
    /// the map's name forward, whatever the reverse lookup said); else the
    /// reverse lookup.
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
                judge_names(ident, &checks, None, ua_claim, Source::Given)
            }
            Client::Addr(addr) => {
                let addr = addr.to_canonical();
                let answer = self.dns.get(&addr);
                let mapped = self.ptr_map.names(addr);
                if !mapped.is_empty() {
                    let checks: Vec<NameCheck> = mapped
                        .iter()
                        .map(|name| NameCheck {
                            name: name.to_string(),
                            forward: match forward_from(answer, name) {
                                Forward::NotAsked => self
                                    .given_forward
                                    .get(&(addr, name.to_string()))
                                    .copied()
                                    .unwrap_or(Forward::NotAsked),
                                said => said,
                            },
                        })
                        .collect();
                    return judge_names(ident, &checks, Some(addr), ua_claim, Source::Given);
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
                        let judged = judge_names(ident, checks, Some(addr), ua_claim, Source::Live);
                        // Unverified, or nobody's without a claim.
                        if refuted_from_inside(ident, addr, ua_claim, judged.as_ref()) {
                            return unverified();
                        }
                        judged
                    }
                }
            }
        }
    }
}

/// Whether live DNS refuted a fetch from inside the networks of the
/// crawler at stake (the one its user agent claims, else the one its name
/// names), from which no impostor holds a TCP connection: a name that is
/// not the claimed crawler's (a lying or filtering resolver's
/// `blocked.example`, `localhost`), or the crawler's name leading to
/// another address of the networks (the operator's stale record). Either
/// is no evidence (SPEC §2: a lying resolver never makes an impostor): a
/// claim stays `unverified`, a fetch that claims nothing is nobody's, and
/// the run says so of a lie (`Knowledge::belied`).
fn refuted_from_inside(
    ident: &Identifier,
    addr: IpAddr,
    ua_claim: Option<CrawlerId>,
    judged: Option<&Identity>,
) -> bool {
    judged.is_some_and(|identity| {
        identity.verification == Verification::Spoofed
            && ident.in_networks_of(ua_claim.unwrap_or(identity.crawler), addr)
    })
}

/// Where the names judged came from: the log's client field or the PTR
/// map (given), or a reverse lookup (live).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Given,
    Live,
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
    source: Source,
) -> Option<Identity> {
    let strength = |f: Forward| match f {
        Forward::Confirmed => 0,
        Forward::NotAsked | Forward::Failed => 1,
        Forward::Elsewhere => 2,
    };
    let matching: Vec<(CrawlerId, &NameCheck)> = checks
        .iter()
        .filter_map(|c| {
            ident
                .by_name_claimed(&c.name, addr, ua_claim)
                .map(|id| (id, c))
        })
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
        // A name live DNS gave whose forward lookup failed: the failure
        // proves nothing, and `ptr-only` is for names from the log or the
        // map (SPEC §2). The claim stays unverified; without one, nothing
        // makes the fetch a crawler's.
        Some((_, check)) if source == Source::Live && check.forward == Forward::Failed => ua_claim
            .map(|crawler| Identity {
                crawler,
                verification: Verification::Unverified,
                identified_by: IdentifiedBy::Ua,
                ptr: None,
            }),
        // A refuted name decides nothing: the impostor claimed the crawler
        // its user agent names, when it names one (SPEC §2 "spoofed for the
        // claimed crawler"); else the one the name pretends to be.
        Some((crawler, check)) if check.forward == Forward::Elsewhere => Some(Identity {
            crawler: ua_claim.unwrap_or(crawler),
            verification: Verification::Spoofed,
            identified_by: if ua_claim.is_some() {
                IdentifiedBy::UaPtr
            } else {
                IdentifiedBy::Ptr
            },
            ptr: Some(check.name.clone()),
        }),
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
#[path = "verify_tests.rs"]
mod tests;
