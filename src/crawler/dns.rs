//! Live DNS for `--resolve` (SPEC §1 "Address → name", §2 "Verification"):
//! takes the addresses the caller wants checked; for each, a reverse lookup
//! (PTR), then a forward lookup (A or AAAA, the address's own family) of
//! every name that fits a crawler pattern; gives a `DnsAnswer` per address
//! for `Knowledge`, and counts. Answers are kept in a cache file between
//! runs. Concurrency, a per-query timeout and an overall deadline keep a
//! broken resolver from hanging a nightly job: what is not answered in
//! time is a failure, and a failure leaves fetches `unverified`. Addresses
//! in a crawler operator's networks are asked first, then those with the
//! most fetches, so attackers' silent reverse zones cannot spend the
//! deadline; a "no name" answer inside those networks is a broken
//! resolver's, kept as a failure. No usable resolver at all is no error:
//! every fetch stays `unverified` and the stats say why. The lookups
//! themselves are `dns_lookup`'s, the options `dns_options`'; this file
//! chooses what to ask, in which order, and keeps the cache.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::crawler::dns_cache::DnsCache;
pub use crate::crawler::dns_lookup::confirm_given;
use crate::crawler::dns_lookup::{bounded, build_resolver, check_address, guard_of};
pub use crate::crawler::dns_options::{
    DEFAULT_CACHE_DAYS, DEFAULT_DEADLINE_SECS, DEFAULT_TIMEOUT_SECS, DnsOptions,
    default_cache_path, parse_server,
};
use crate::crawler::identify::Identifier;
use crate::crawler::verify::{DnsAnswer, Forward, NameCheck};
use crate::error::{Error, Result};

/// What the lookups cost and how they went, for the run's summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsStats {
    /// Distinct addresses asked about.
    pub addresses: usize,
    /// Of those, answered from the cache file.
    pub cache_hits: usize,
    /// Lookups sent (reverse and forward; retries not counted).
    pub queries: usize,
    /// Addresses whose answer holds a failure (timeout, SERVFAIL, REFUSED,
    /// deadline): their fetches stay unverified.
    pub failures: usize,
    /// True when the overall deadline cut the lookups short.
    pub deadline_hit: bool,
    /// Addresses inside a crawler operator's networks that the resolver
    /// said have no name: it looks broken, and they count as failures.
    pub denied_in_networks: Vec<IpAddr>,
    /// Why no resolver could be set up (no usable `/etc/resolv.conf`);
    /// then nothing was asked and every uncached address failed.
    pub unusable: Option<String>,
    /// Things to tell the user on standard error (cache unreadable or
    /// unwritable); none is fatal.
    pub warnings: Vec<String>,
    /// With `defer_save`, the cache to write where it was read from, when
    /// it changed and may be replaced.
    pub unsaved: Option<DnsCache>,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Looks up every address, one item per fetch (an address given more often
/// is asked sooner, and once), using and refreshing the cache. Never fails:
/// what could not be asked is a failure in the answers and the stats.
pub fn resolve(
    addrs: impl IntoIterator<Item = IpAddr>,
    ident: &Identifier,
    opts: &DnsOptions,
) -> (HashMap<IpAddr, DnsAnswer>, DnsStats) {
    resolve_counted(addrs.into_iter().map(|addr| (addr, 1)), ident, opts)
}

/// `resolve`, given each address once with its number of fetches.
pub fn resolve_counted(
    addrs: impl IntoIterator<Item = (IpAddr, u64)>,
    ident: &Identifier,
    opts: &DnsOptions,
) -> (HashMap<IpAddr, DnsAnswer>, DnsStats) {
    resolve_cached(addrs, ident, opts, load_cache(opts))
}

/// The cache `opts` names, its entries older than `opts.max_age` dropped,
/// with the warning of a cache that could not be read whole; an empty one
/// without a path.
pub fn load_cache(opts: &DnsOptions) -> (DnsCache, Option<String>) {
    match &opts.cache_path {
        Some(path) => DnsCache::load(path, unix_now(), opts.max_age.as_secs()),
        None => (DnsCache::default(), None),
    }
}

/// `resolve_counted` with the cache already read (`load_cache`): a caller
/// that chose the addresses by what the cache knows reads it once.
pub fn resolve_cached(
    addrs: impl IntoIterator<Item = (IpAddr, u64)>,
    ident: &Identifier,
    opts: &DnsOptions,
    (mut cache, warning): (DnsCache, Option<String>),
) -> (HashMap<IpAddr, DnsAnswer>, DnsStats) {
    let now = unix_now();
    let mut stats = DnsStats::default();
    stats.warnings.extend(warning);
    let mut fetches: HashMap<IpAddr, u64> = HashMap::new();
    for (addr, n) in addrs {
        *fetches.entry(addr.to_canonical()).or_default() += n;
    }
    let mut wanted: Vec<IpAddr> = fetches.keys().copied().collect();
    wanted.sort();
    stats.addresses = wanted.len();

    let mut answers: HashMap<IpAddr, DnsAnswer> = HashMap::with_capacity(wanted.len());
    let mut to_ask = Vec::new();
    for addr in wanted {
        match cache.get(addr) {
            Some(answer) if !must_ask_again(answer, ident, addr) => {
                stats.cache_hits += 1;
                answers.insert(addr, answer.clone());
            }
            _ => to_ask.push(addr),
        }
    }

    // Addresses sent to DNS tonight: a failing resolver is measured by
    // them, not by the answers the cache held (with a week's cache, a dead
    // resolver would otherwise fail one new address in ten, unsaid).
    let sent = to_ask.len();
    if !to_ask.is_empty() {
        // Genuine crawlers first: inside an operator's networks, then by
        // fetches, so that hundreds of addresses with silent reverse zones
        // cannot use up the deadline before them (SPEC §2).
        to_ask.sort_by_key(|&addr| {
            (
                !ident.in_networks(addr),
                Reverse(fetches.get(&addr).copied().unwrap_or(0)),
                addr,
            )
        });
        let Asked {
            answers: asked,
            denied,
        } = match ask_all(&to_ask, ident, opts, &mut stats) {
            Ok(asked) => asked,
            Err(e) => {
                stats.unusable = Some(match e {
                    Error::Usage(cause) => cause,
                    other => other.to_string(),
                });
                Asked::default()
            }
        };
        if stats.deadline_hit {
            let unanswered = to_ask.iter().filter(|a| !asked.contains_key(a)).count();
            stats.warnings.push(format!(
                "DNS lookups stopped at the --dns-deadline with {unanswered} address(es) \
                 unanswered; their fetches stay unverified"
            ));
        }
        stats.denied_in_networks = to_ask
            .iter()
            .copied()
            .filter(|&addr| ident.in_networks(addr) && asked.get(&addr) == Some(&DnsAnswer::NoName))
            .chain(denied)
            .collect();
        stats.denied_in_networks.sort();
        stats.denied_in_networks.dedup();
        // A resolver that denies a crawler's own address its name, or the
        // crawler's own name its address, is broken (or filters the
        // operator's domain), and its other "no name" and "not there"
        // answers tonight are no evidence either (SPEC §2: a broken or
        // lying resolver never makes an impostor): failures, neither
        // believed nor cached.
        let broken = !stats.denied_in_networks.is_empty();
        for addr in to_ask {
            let mut answer = asked.get(&addr).cloned().unwrap_or(DnsAnswer::Failed);
            if broken {
                answer = disbelieved(answer, ident.in_networks(addr));
            }
            // Inside a crawler's networks, names none of which is a
            // crawler's may be a lying resolver's (`Knowledge::decide`):
            // asked again each night rather than kept for a week.
            if unnamed_in_networks(&answer, ident, addr) {
                cache.forget(addr);
            } else {
                cache.insert(addr, now, &answer);
            }
            answers.insert(addr, answer);
        }
    }
    stats.failures = answers.values().filter(|a| a.has_failure()).count();
    // Said even under --quiet: a resolver that fails most lookups every
    // night would otherwise leave only unverified rows behind it.
    if stats.unusable.is_none() && stats.failures > 0 && stats.failures * 2 >= sent {
        let cached = if stats.cache_hits > 0 {
            format!(
                " asked tonight ({} more answered from the cache)",
                stats.cache_hits
            )
        } else {
            String::new()
        };
        stats.warnings.push(format!(
            "DNS failed for {} of {sent} address(es){cached} (timeout, SERVFAIL, REFUSED or a \
             garbled answer); their fetches stay unverified: is the resolver working?",
            stats.failures
        ));
    }

    if opts.defer_save {
        if cache.is_changed() && cache.may_replace() {
            stats.unsaved = Some(cache);
        }
    } else if let Some(path) = &opts.cache_path
        && cache.is_changed()
        && cache.may_replace()
        && let Err(e) = cache.save(path)
    {
        stats
            .warnings
            .push(format!("DNS cache {} not written: {e}", path.display()));
    }
    if let Some(&first) = stats.denied_in_networks.first() {
        stats.warnings.push(format!(
            "the DNS resolver looks broken: it says {} address(es) inside crawler \
             networks have no name, or that their crawler names have no address there \
             (first {first}); no \"no name\" or \"not this address\" answer is believed \
             tonight: their fetches stay unverified",
            stats.denied_in_networks.len()
        ));
    }
    (answers, stats)
}

/// Whether `answer` names an address inside a crawler's networks with
/// names none of which is a crawler's.
fn unnamed_in_networks(answer: &DnsAnswer, ident: &Identifier, addr: IpAddr) -> bool {
    match answer {
        DnsAnswer::Names(checks) => {
            ident.in_networks(addr)
                && !checks
                    .iter()
                    .any(|c| ident.by_name(&c.name, Some(addr)).is_some())
        }
        _ => false,
    }
}

/// An answer of a resolver found broken, its denials taken for failures:
/// "no name", and a forward lookup that answered without the address.
fn disbelieved(answer: DnsAnswer, in_networks: bool) -> DnsAnswer {
    match answer {
        DnsAnswer::NoName => DnsAnswer::Failed,
        // Inside the networks another address of theirs accuses no one
        // already, and as a failure it would leave a fetch that claims
        // nothing undecided (exit 2).
        DnsAnswer::Names(checks) if !in_networks => DnsAnswer::Names(
            checks
                .into_iter()
                .map(|check| NameCheck {
                    forward: match check.forward {
                        Forward::Elsewhere => Forward::Failed,
                        other => other,
                    },
                    ..check
                })
                .collect(),
        ),
        other => other,
    }
}

/// True when a cached answer must be asked again: a name stored unchecked
/// may fit a pattern added since, and "no name" inside an operator's
/// networks (cached by an older version) is a broken resolver's.
fn must_ask_again(answer: &DnsAnswer, ident: &Identifier, addr: IpAddr) -> bool {
    match answer {
        DnsAnswer::Names(checks) => {
            unnamed_in_networks(answer, ident, addr)
                || checks.iter().any(|c| {
                    (c.forward == Forward::NotAsked
                        || (c.forward == Forward::Elsewhere && ident.in_networks(addr)))
                        && ident.by_name(&c.name, Some(addr)).is_some()
                })
        }
        DnsAnswer::NoName => ident.in_networks(addr),
        DnsAnswer::Failed => false,
    }
}

/// Runs the lookups on a private single-threaded runtime: DNS waits on the
/// network, not the CPU, and the caller is not async.
fn ask_all(
    addrs: &[IpAddr],
    ident: &Identifier,
    opts: &DnsOptions,
    stats: &mut DnsStats,
) -> Result<Asked> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the DNS runtime: {e}")))?;
    runtime.block_on(async {
        let resolver = Arc::new(build_resolver(opts)?);
        let ident = Arc::new(ident.clone());
        let guard = guard_of(opts);
        let deadline = tokio::time::Instant::now() + opts.deadline;
        let (done, cut) = bounded(addrs.iter().copied(), opts.concurrency, deadline, |addr| {
            let resolver = Arc::clone(&resolver);
            let ident = Arc::clone(&ident);
            async move {
                let (answer, queries, denied) = check_address(&resolver, &ident, addr, guard).await;
                (addr, answer, queries, denied)
            }
        })
        .await;
        stats.deadline_hit |= cut;
        let mut asked = Asked {
            answers: HashMap::with_capacity(addrs.len()),
            denied: Vec::new(),
        };
        for (addr, answer, queries, denied) in done {
            stats.queries += queries;
            if denied {
                asked.denied.push(addr);
            }
            asked.answers.insert(addr, answer);
        }
        Ok(asked)
    })
}

/// What `ask_all` got: an answer an address, and the addresses inside a
/// crawler's networks whose crawler name the resolver said has no address
/// there (`confirm`'s `denied`).
#[derive(Default)]
struct Asked {
    answers: HashMap<IpAddr, DnsAnswer>,
    denied: Vec<IpAddr>,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn everything_cached_asks_nobody() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.tsv");
        let now = unix_now();
        std::fs::write(
            &path,
            format!(
                "# robots-audit dns cache 1\n\
                 77.75.77.1\t{now}\tnames\tfulltextrobot-77-75-77-1.seznam.cz\tconfirmed\n\
                 6.6.6.6\t{now}\tnoname\n"
            ),
        )
        .unwrap();
        let ident = Identifier::builtin().unwrap();
        let opts = DnsOptions {
            // Nothing listens here: asking would fail.
            server: Some("127.0.0.1:9".parse().unwrap()),
            cache_path: Some(path),
            ..DnsOptions::default()
        };
        let addrs: Vec<IpAddr> = ["77.75.77.1", "6.6.6.6", "::ffff:6.6.6.6"]
            .iter()
            .map(|a| a.parse().unwrap())
            .collect();
        let (answers, stats) = resolve(addrs, &ident, &opts);
        assert_eq!(answers.len(), 2);
        assert_eq!(stats.addresses, 2);
        assert_eq!(stats.cache_hits, 2);
        assert_eq!(stats.queries, 0);
        assert_eq!(stats.failures, 0);
        assert!(stats.warnings.is_empty());
    }
}
