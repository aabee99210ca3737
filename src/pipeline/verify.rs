//! Stage 3, verifying: the names an address has (the PTR map, live DNS
//! with `--resolve` and its cache), asked once the scan is done, the
//! crawlers' networks and the most fetched addresses first (SPEC §2).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::IpAddr;
use std::path::Path;

use crate::config::AuditConfig;
use crate::crawler::dns::{self, DnsOptions};
use crate::crawler::dns_cache::DnsCache;
use crate::crawler::{DnsAnswer, Forward, Identifier, Knowledge, PtrMap};
use crate::error::{Error, Position, Result};
use crate::report;
use crate::report::skipped::SHOWN as SHOWN_SKIPS;
use crate::scan::ClientFetches;
use crate::spill::Sorter;
use crate::state::StateDir;

pub(super) fn load_ptr_map(path: Option<&Path>, quiet: bool) -> Result<PtrMap> {
    let Some(path) = path else {
        return Ok(PtrMap::default());
    };
    let (map, bad) = PtrMap::load(path)?;
    // A map of which no line could be read (UTF-16, `NAME ADDRESS`) was
    // meant to name addresses and names none: every fetch it should have
    // refuted would count as the crawler's. Not a night to report.
    if let (true, Some(first)) = (map.is_empty(), bad.first()) {
        return Err(Error::Format {
            path: path.to_path_buf(),
            at: Position::Line(first.line),
            cause: format!(
                "{}; no line of the PTR map could be read ({} refused), so it names no address: \
                 expected ADDRESS NAME a line",
                first.cause,
                bad.total()
            ),
        });
    }
    // One with no pair at all (empty, or comments only) names nothing
    // either, maybe by mistake: said even under --quiet.
    if map.is_empty() {
        crate::warn!(
            "robots-audit: warning: {}: the PTR map names no address (no ADDRESS NAME line); \
             fetches are judged as without it",
            path.display()
        );
    }
    if quiet && let Some(first) = bad.first() {
        // One line even under --quiet: the addresses of these lines have no
        // name from the map, and their fetches are judged without one.
        crate::warn!(
            "robots-audit: {}: {} line{} of the PTR map could not be read (the first, line {}: {})",
            path.display(),
            bad.total(),
            if bad.total() == 1 { "" } else { "s" },
            first.line,
            first.cause
        );
    }
    if !quiet {
        for line in bad.iter().take(SHOWN_SKIPS) {
            crate::warn!(
                "robots-audit: {}:{}: {}",
                path.display(),
                line.line,
                line.cause
            );
        }
        if bad.total() > SHOWN_SKIPS as u64 {
            crate::warn!(
                "robots-audit: {}: {} more bad lines",
                path.display(),
                bad.total() - SHOWN_SKIPS as u64
            );
        }
    }
    Ok(map)
}

/// What DNS said; how it went (`report::run::DnsHealth`); and the state's
/// DNS cache, to write with the state (SPEC §6: a run that exits 2
/// updates nothing of it).
type Resolved = (
    HashMap<IpAddr, DnsAnswer>,
    report::run::DnsHealth,
    Option<DnsCache>,
);

/// The addresses to look up (`addresses_to_ask`), and how many were left
/// out, outside a crawler's networks and inside them.
struct ToAsk {
    pub(super) wanted: HashMap<IpAddr, u64>,
    pub(super) left_out: u64,
    pub(super) left_out_in_networks: u64,
}

/// The addresses to look up, with their fetches, from every address a
/// kept fetch came from (in address order, each once): every one the DNS
/// cache knows (`cached`: an answer costs no question, and an impostor it
/// named stays one), then, inside a crawler's networks and outside them
/// apart, the `limit` with the most fetches, the lower address first among
/// equals, so that the choice is the same at any `--threads` (SPEC §5: the
/// addresses of a log of made-up clients never outgrow `--memory`; SPEC
/// §2: the genuine crawlers' are asked first, whatever the others).
fn addresses_to_ask(
    addresses: impl Iterator<Item = Result<ClientFetches>>,
    ident: &Identifier,
    limit: usize,
    cached: impl Fn(IpAddr) -> bool,
) -> Result<ToAsk> {
    let mut wanted = HashMap::new();
    // The best `limit` of each side so far, the worst on top.
    let mut inside: BinaryHeap<(Reverse<u64>, IpAddr)> = BinaryHeap::new();
    let mut outside: BinaryHeap<(Reverse<u64>, IpAddr)> = BinaryHeap::new();
    let (mut left_out, mut left_out_in_networks) = (0u64, 0u64);
    for counted in addresses {
        let ClientFetches { addr, fetches } = counted?;
        if cached(addr) {
            wanted.insert(addr, fetches);
            continue;
        }
        let (best, dropped) = if ident.in_networks(addr) {
            (&mut inside, &mut left_out_in_networks)
        } else {
            (&mut outside, &mut left_out)
        };
        best.push((Reverse(fetches), addr));
        if best.len() > limit {
            best.pop();
            *dropped += 1;
        }
    }
    let chosen = inside.into_iter().chain(outside);
    wanted.extend(chosen.map(|(Reverse(fetches), addr)| (addr, fetches)));
    Ok(ToAsk {
        wanted,
        left_out,
        left_out_in_networks,
    })
}

/// The addresses the DNS cache names as a crawler's host (a name of a
/// crawler's pattern with the address in it), known before the scan as
/// a PTR map's are: every fetch of theirs is kept for judging whatever its
/// user agent, and DNS's answer then decides (README "Crawlers and
/// verification"). None without `--resolve`.
pub(super) fn cached_crawler_addresses(config: &AuditConfig, ident: &Identifier) -> Vec<IpAddr> {
    if !config.resolve {
        return Vec::new();
    }
    let (cache, _) = dns::load_cache(&dns_options(config));
    cache
        .iter()
        .filter(|(addr, answer)| match answer {
            DnsAnswer::Names(checks) => checks
                .iter()
                .any(|check| ident.by_name(&check.name, Some(*addr)).is_some()),
            DnsAnswer::NoName | DnsAnswer::Failed => false,
        })
        .map(|(addr, _)| addr)
        .collect()
}

/// How `--resolve` asks: the flags, and the DNS cache written with the
/// state when it is the state's (SPEC §6).
fn dns_options(config: &AuditConfig) -> DnsOptions {
    let in_state = match (&config.state, &config.dns_cache) {
        (Some(state), Some(cache)) => *cache == StateDir::dns_cache(state),
        _ => false,
    };
    DnsOptions {
        server: config.dns_server,
        timeout: config.dns_timeout,
        deadline: config.dns_deadline,
        cache_path: config.dns_cache.clone(),
        defer_save: in_state,
        max_age: config.dns_cache_max_age,
        ..DnsOptions::default()
    }
}

/// Live DNS for the addresses that claim a crawler or are named crawler
/// hosts; never for browsers, with the DNS cache already read
/// (`dns::load_cache`). Returns the answers, how many addresses
/// could not be checked, whether no resolver could be used at all (the
/// run then goes on, unverified, and exits 2), and the state's cache.
fn resolve(
    ident: &Identifier,
    addresses: &HashMap<IpAddr, u64>,
    options: &DnsOptions,
    cache: (DnsCache, Option<String>),
) -> Resolved {
    // With their fetches: the most fetched are asked first.
    let addrs = addresses.iter().map(|(&addr, &n)| (addr, n));
    let (answers, stats) = dns::resolve_cached(addrs, ident, options, cache);
    if let Some(cause) = &stats.unusable {
        crate::warn!(
            "robots-audit: --resolve: {cause}; fetches not in the DNS cache are left \
             unverified (give --dns-server)"
        );
    }
    for warning in &stats.warnings {
        crate::warn!("robots-audit: {warning}");
    }
    let health = report::run::DnsHealth {
        failures: stats.failures as u64,
        unusable: stats.unusable.is_some(),
        broken: stats.denied_in_networks.len() as u64,
        deadline_reached: stats.deadline_hit,
        undecided_fetches: 0,
    };
    (answers, health, stats.unsaved)
}

/// What is known of the addresses that claim a crawler or are named one:
/// the PTR map's names and, with `--resolve` (`addresses`, each with its
/// fetches), DNS's answers for at most `asked_at_most` addresses outside
/// what the cache knows, then the map's crawler names confirmed forward
/// in what is left of `--dns-deadline`. Also how DNS went, and the
/// state's DNS cache to write with the state.
pub(super) fn verify(
    config: &AuditConfig,
    ident: &Identifier,
    ptr_map: PtrMap,
    addresses: Option<Sorter<'_, ClientFetches>>,
    asked_at_most: usize,
) -> Result<(Knowledge, report::run::DnsHealth, Option<DnsCache>)> {
    let mut left_out_in_networks = false;
    // The addresses asked, and when asking began: a PTR map's names are
    // put to DNS forward in what is left of --dns-deadline.
    let mut asked: Option<(Vec<IpAddr>, DnsOptions, std::time::Instant)> = None;
    let (dns, mut dns_health, state_dns_cache) = match addresses {
        Some(addresses) => {
            let started = std::time::Instant::now();
            // What the DNS cache knows is known whatever the bound: an
            // impostor it named stays one.
            let options = dns_options(config);
            let cache = dns::load_cache(&options);
            let chosen = addresses_to_ask(addresses.finish()?, ident, asked_at_most, |addr| {
                cache.0.get(addr).is_some()
            })?;
            let mut resolved = resolve(ident, &chosen.wanted, &options, cache);
            let left_out = chosen.left_out + chosen.left_out_in_networks;
            if left_out > 0 {
                crate::warn!(
                    "robots-audit: warning: --resolve: {left_out} address(es) were not looked \
                     up, more than --memory keeps ({} were: those the DNS cache knows, then \
                     inside a crawler's networks and outside them apart, those with the most \
                     fetches); their fetches stay unverified",
                    chosen.wanted.len()
                );
                // Addresses it could not check, as those past the deadline.
                resolved.1.failures += left_out;
            }
            left_out_in_networks = chosen.left_out_in_networks > 0;
            asked = Some((chosen.wanted.keys().copied().collect(), options, started));
            resolved
        }
        None => (Default::default(), report::run::DnsHealth::default(), None),
    };
    let mut knowledge = Knowledge::new(ptr_map, dns).with_networks_unasked(left_out_in_networks);
    if let Some((addresses, options, started)) = asked {
        // A map's name of a crawler is confirmed or refuted forward
        // (SPEC §2: "the forward lookup of a matching name answered
        // without this address"), whatever the reverse lookup said.
        let pairs = knowledge.given_to_confirm(ident, addresses.into_iter());
        let left = options.deadline.saturating_sub(started.elapsed());
        let (mut forward, failed_given) = dns::confirm_given(&pairs, ident, &options, left);
        let failed = failed_given.len();
        // A resolver found broken tonight is not believed when it says a
        // map's name has no such address either (`dns::resolve_cached`):
        // the name stays as the map gives it, `ptr-only`.
        if dns_health.broken > 0 {
            forward.retain(|_, said| *said != Forward::Elsewhere);
        }
        if failed > 0 {
            let named = pairs
                .iter()
                .map(|(addr, _)| *addr)
                .collect::<std::collections::HashSet<_>>()
                .len();
            // Said even under --quiet, as the reverse lookups' failures.
            crate::warn!(
                "robots-audit: DNS failed to confirm forward the --ptr-map names of {failed} of \
                 {named} address(es) (timeout, SERVFAIL, REFUSED or the --dns-deadline); \
                 their fetches stay ptr-only"
            );
        }
        // An address counts once among the failures, and not at all when
        // a map's name of it was confirmed or refuted forward: it was
        // checked, whatever its reverse lookup did.
        let checked: std::collections::HashSet<IpAddr> =
            forward.keys().map(|&(addr, _)| addr).collect();
        let reverse: Vec<IpAddr> = knowledge.failed_addresses().collect();
        let reverse_failures = reverse.len() as u64;
        let mut failing: std::collections::HashSet<IpAddr> = reverse
            .into_iter()
            .filter(|addr| !checked.contains(addr))
            .collect();
        // With the map's names DNS could not answer, and those a broken
        // resolver's denial left unanswered.
        failing.extend(
            pairs
                .iter()
                .map(|&(addr, _)| addr)
                .filter(|addr| !checked.contains(addr))
                .filter(|addr| failed_given.contains(addr) || dns_health.broken > 0),
        );
        dns_health.failures =
            dns_health.failures.saturating_sub(reverse_failures) + failing.len() as u64;
        knowledge = knowledge.with_given_forward(forward);
    }
    Ok((knowledge, dns_health, state_dns_cache))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `addresses_to_ask` against its plain reading: every address the
    /// cache knows, and of the others, inside the networks and outside
    /// apart, the `limit` first by most fetches, then lower address; the
    /// rest counted.
    #[test]
    fn addresses_to_ask_keeps_the_cached_and_the_most_fetched_of_each_side() {
        let ident = Identifier::with_profiles(None).expect("built-in profiles");
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..300 {
            let mut counted: Vec<ClientFetches> = Vec::new();
            for _ in 0..next() % 60 {
                let r = next();
                // Some inside Seznam's 77.75.72.0/21, most outside; fetch
                // counts that tie often.
                let addr = if r % 3 == 0 {
                    IpAddr::from([77, 75, 72 + (r >> 8) as u8 % 8, (r >> 16) as u8])
                } else {
                    IpAddr::from([10, 0, (r >> 8) as u8 % 4, (r >> 16) as u8])
                };
                if counted.iter().all(|c| c.addr != addr) {
                    counted.push(ClientFetches {
                        addr,
                        fetches: 1 + (r >> 24) % 4,
                    });
                }
            }
            counted.sort_by_key(|c| c.addr);
            let limit = (round % 20) as usize;
            // The cache knows addresses whose last octet is a multiple of 7.
            let cached = |addr: IpAddr| match addr {
                IpAddr::V4(v4) => v4.octets()[3] % 7 == 0,
                IpAddr::V6(_) => false,
            };
            let chosen = addresses_to_ask(counted.iter().copied().map(Ok), &ident, limit, cached)
                .expect("no error");

            let mut expected: HashMap<IpAddr, u64> = HashMap::new();
            let mut left = [0u64; 2];
            for (side, inside) in [false, true].into_iter().enumerate() {
                let mut others: Vec<ClientFetches> = counted
                    .iter()
                    .copied()
                    .filter(|c| !cached(c.addr) && ident.in_networks(c.addr) == inside)
                    .collect();
                others.sort_by_key(|c| (Reverse(c.fetches), c.addr));
                expected.extend(others.iter().take(limit).map(|c| (c.addr, c.fetches)));
                left[side] = others.len().saturating_sub(limit) as u64;
            }
            expected.extend(
                counted
                    .iter()
                    .filter(|c| cached(c.addr))
                    .map(|c| (c.addr, c.fetches)),
            );
            assert_eq!(chosen.wanted, expected, "round {round}");
            assert_eq!(
                [chosen.left_out, chosen.left_out_in_networks],
                left,
                "round {round}"
            );
        }
    }
}
