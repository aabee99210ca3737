//! Live DNS for `--resolve` (SPEC §1 "Address → name", §2 "Verification"):
//! takes the addresses the caller wants checked; for each, a reverse lookup
//! (PTR), then a forward lookup (A or AAAA, the address's own family) of
//! every name that fits a crawler pattern; gives a `DnsAnswer` per address
//! for `Knowledge`, and counts. Answers are kept in a cache file between
//! runs. Concurrency, a per-query timeout and an overall deadline keep a
//! broken resolver from hanging a nightly job: what is not answered in
//! time is a failure, and a failure leaves fetches `unverified`.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError, NoRecords};
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::{Name, RData, RecordType};

use crate::crawler::dns_cache::DnsCache;
use crate::crawler::identify::Identifier;
use crate::crawler::verify::{DnsAnswer, Forward, NameCheck};
use crate::error::{Error, Result};

/// How to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsOptions {
    /// Ask this server (`--dns-server`) instead of the system's
    /// (`/etc/resolv.conf`).
    pub server: Option<SocketAddr>,
    /// How long one query may wait for its answer.
    pub timeout: Duration,
    /// How many times a query is sent before it counts as failed.
    pub attempts: usize,
    /// How long all the lookups together may take; what is unanswered by
    /// then is a failure.
    pub deadline: Duration,
    /// How many addresses are looked up at once.
    pub concurrency: usize,
    /// Where answers are kept between runs; None keeps none.
    pub cache_path: Option<PathBuf>,
    /// How old a cached answer may be and still be used.
    pub max_age: Duration,
}

impl Default for DnsOptions {
    fn default() -> DnsOptions {
        DnsOptions {
            server: None,
            timeout: Duration::from_secs(3),
            attempts: 2,
            deadline: Duration::from_secs(120),
            concurrency: 32,
            cache_path: default_cache_path(),
            max_age: Duration::from_secs(7 * 86_400),
        }
    }
}

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
    /// Things to tell the user on standard error (cache unreadable or
    /// unwritable); none is fatal.
    pub warnings: Vec<String>,
}

/// `$XDG_CACHE_HOME/robots-audit/dns-cache.tsv`, else
/// `~/.cache/robots-audit/dns-cache.tsv`; None when neither is known.
pub fn default_cache_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".cache"))
        })?;
    Some(base.join("robots-audit").join("dns-cache.tsv"))
}

/// Reads `--dns-server ADDR[:PORT]`: `192.0.2.1`, `192.0.2.1:5353`,
/// `2001:db8::1`, `[2001:db8::1]:5353`. The port defaults to 53.
pub fn parse_server(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(socket) = text.parse::<SocketAddr>() {
        return Ok(socket);
    }
    let bare = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    bare.parse::<IpAddr>()
        .map(|ip| SocketAddr::new(ip, 53))
        .map_err(|_| format!("{text:?} is not ADDRESS or ADDRESS:PORT"))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Looks up every address (duplicates asked once), using and refreshing the
/// cache. Errors only when no resolver can be set up at all.
pub fn resolve(
    addrs: &[IpAddr],
    ident: &Identifier,
    opts: &DnsOptions,
) -> Result<(HashMap<IpAddr, DnsAnswer>, DnsStats)> {
    let now = unix_now();
    let mut stats = DnsStats::default();
    let mut wanted: Vec<IpAddr> = addrs.iter().map(|a| a.to_canonical()).collect();
    wanted.sort();
    wanted.dedup();
    stats.addresses = wanted.len();

    let mut cache = DnsCache::default();
    if let Some(path) = &opts.cache_path {
        let (loaded, warning) = DnsCache::load(path, now, opts.max_age.as_secs());
        cache = loaded;
        stats.warnings.extend(warning);
    }

    let mut answers: HashMap<IpAddr, DnsAnswer> = HashMap::with_capacity(wanted.len());
    let mut to_ask = Vec::new();
    for addr in wanted {
        match cache.get(addr) {
            // A name stored unchecked may fit a pattern added since.
            Some(answer) if !needs_forward_check(answer, ident, addr) => {
                stats.cache_hits += 1;
                answers.insert(addr, answer.clone());
            }
            _ => to_ask.push(addr),
        }
    }

    if !to_ask.is_empty() {
        let asked = ask_all(&to_ask, ident, opts, &mut stats)?;
        for addr in to_ask {
            let answer = asked.get(&addr).cloned().unwrap_or(DnsAnswer::Failed);
            cache.insert(addr, now, &answer);
            answers.insert(addr, answer);
        }
    }
    stats.failures = answers.values().filter(|a| a.has_failure()).count();

    if let Some(path) = &opts.cache_path
        && cache.is_changed()
        && let Err(e) = cache.save(path)
    {
        stats
            .warnings
            .push(format!("DNS cache {} not written: {e}", path.display()));
    }
    Ok((answers, stats))
}

fn needs_forward_check(answer: &DnsAnswer, ident: &Identifier, addr: IpAddr) -> bool {
    match answer {
        DnsAnswer::Names(checks) => checks.iter().any(|c| {
            c.forward == Forward::NotAsked && ident.by_name(&c.name, Some(addr)).is_some()
        }),
        _ => false,
    }
}

fn build_resolver(opts: &DnsOptions) -> Result<TokioResolver> {
    let provider = TokioRuntimeProvider::default();
    let mut builder = match opts.server {
        Some(server) => {
            let mut udp = ConnectionConfig::udp();
            udp.port = server.port();
            // TCP carries the answers too large for UDP.
            let mut tcp = ConnectionConfig::tcp();
            tcp.port = server.port();
            let config = ResolverConfig::from_name_servers(vec![NameServerConfig::new(
                server.ip(),
                true,
                vec![udp, tcp],
            )]);
            TokioResolver::builder_with_config(config, provider)
        }
        None => TokioResolver::builder(provider).map_err(|e| {
            Error::Usage(format!(
                "cannot read the system's DNS configuration ({e}); give --dns-server"
            ))
        })?,
    };
    let options: &mut ResolverOpts = builder.options_mut();
    options.timeout = opts.timeout;
    options.attempts = opts.attempts.max(1);
    // The hosts file speaks for this machine, not for the crawlers' DNS.
    options.use_hosts_file = ResolveHosts::Never;
    options.num_concurrent_reqs = 1;
    builder
        .build()
        .map_err(|e| Error::Usage(format!("cannot set up the DNS resolver: {e}")))
}

/// Runs the lookups on a private single-threaded runtime: DNS waits on the
/// network, not the CPU, and the caller is not async.
fn ask_all(
    addrs: &[IpAddr],
    ident: &Identifier,
    opts: &DnsOptions,
    stats: &mut DnsStats,
) -> Result<HashMap<IpAddr, DnsAnswer>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the DNS runtime: {e}")))?;
    runtime.block_on(async {
        let resolver = Arc::new(build_resolver(opts)?);
        let ident = Arc::new(ident.clone());
        let permits = Arc::new(tokio::sync::Semaphore::new(opts.concurrency.max(1)));
        // Guards against a lookup that outlives its own timeouts.
        let guard = opts
            .timeout
            .saturating_mul(u32::try_from(opts.attempts.max(1) + 1).unwrap_or(u32::MAX));
        let deadline = tokio::time::Instant::now() + opts.deadline;
        let mut tasks = tokio::task::JoinSet::new();
        for &addr in addrs {
            let resolver = Arc::clone(&resolver);
            let ident = Arc::clone(&ident);
            let permits = Arc::clone(&permits);
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await.ok();
                let (answer, queries) = check_address(&resolver, &ident, addr, guard).await;
                (addr, answer, queries)
            });
        }
        let mut answers = HashMap::with_capacity(addrs.len());
        loop {
            match tokio::time::timeout_at(deadline, tasks.join_next()).await {
                Ok(Some(Ok((addr, answer, queries)))) => {
                    stats.queries += queries;
                    answers.insert(addr, answer);
                }
                // A task that died leaves its address unanswered: a failure.
                Ok(Some(Err(_))) => {}
                Ok(None) => break,
                Err(_) => {
                    stats.deadline_hit = true;
                    tasks.abort_all();
                    break;
                }
            }
        }
        Ok(answers)
    })
}

/// True for an answer that says "no such name" or "no such record":
/// NXDOMAIN, or NOERROR with nothing in it.
fn is_no_record(error: &NetError) -> bool {
    matches!(
        error,
        NetError::Dns(DnsError::NoRecordsFound(NoRecords {
            response_code: ResponseCode::NXDomain | ResponseCode::NoError,
            ..
        }))
    )
}

async fn check_address(
    resolver: &TokioResolver,
    ident: &Identifier,
    addr: IpAddr,
    guard: Duration,
) -> (DnsAnswer, usize) {
    let mut queries = 1;
    let reverse = tokio::time::timeout(guard, resolver.reverse_lookup(addr)).await;
    let lookup = match reverse {
        Ok(Ok(lookup)) => lookup,
        Ok(Err(e)) if is_no_record(&e) => return (DnsAnswer::NoName, queries),
        _ => return (DnsAnswer::Failed, queries),
    };
    let mut names: Vec<Name> = Vec::new();
    for record in lookup.answers() {
        if let RData::PTR(ptr) = &record.data
            && !names.contains(&ptr.0)
        {
            names.push(ptr.0.clone());
        }
    }
    if names.is_empty() {
        return (DnsAnswer::NoName, queries);
    }
    let mut checks = Vec::with_capacity(names.len());
    for name in names {
        let text = name.to_ascii();
        let text = text.strip_suffix('.').unwrap_or(&text).to_string();
        let forward = if ident.by_name(&text, Some(addr)).is_some() {
            queries += 1;
            confirm(resolver, name, addr, guard).await
        } else {
            Forward::NotAsked
        };
        checks.push(NameCheck {
            name: text,
            forward,
        });
    }
    (DnsAnswer::Names(checks), queries)
}

/// The forward half of forward-confirmed reverse DNS: does the name lead
/// back to the address? Only the address's own family is asked.
async fn confirm(
    resolver: &TokioResolver,
    mut name: Name,
    addr: IpAddr,
    guard: Duration,
) -> Forward {
    // The name came from a PTR record: absolute, never a search-list suffix.
    name.set_fqdn(true);
    let record_type = match addr {
        IpAddr::V4(_) => RecordType::A,
        IpAddr::V6(_) => RecordType::AAAA,
    };
    match tokio::time::timeout(guard, resolver.lookup(name, record_type)).await {
        Ok(Ok(lookup)) => {
            let found = lookup.answers().iter().any(|record| match &record.data {
                RData::A(a) => IpAddr::V4(a.0) == addr,
                RData::AAAA(aaaa) => IpAddr::V6(aaaa.0) == addr,
                _ => false,
            });
            if found {
                Forward::Confirmed
            } else {
                Forward::Elsewhere
            }
        }
        Ok(Err(e)) if is_no_record(&e) => Forward::Elsewhere,
        _ => Forward::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_spellings() {
        let cases: &[(&str, Option<&str>)] = &[
            ("192.0.2.1", Some("192.0.2.1:53")),
            ("192.0.2.1:5353", Some("192.0.2.1:5353")),
            ("2001:db8::1", Some("[2001:db8::1]:53")),
            ("[2001:db8::1]", Some("[2001:db8::1]:53")),
            ("[2001:db8::1]:5353", Some("[2001:db8::1]:5353")),
            ("dns.example", None),
            ("192.0.2.1:x", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                parse_server(text).ok(),
                want.map(|w| w.parse::<SocketAddr>().unwrap()),
                "{text}"
            );
        }
    }

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
        let (answers, stats) = resolve(&addrs, &ident, &opts).unwrap();
        assert_eq!(answers.len(), 2);
        assert_eq!(stats.addresses, 2);
        assert_eq!(stats.cache_hits, 2);
        assert_eq!(stats.queries, 0);
        assert_eq!(stats.failures, 0);
        assert!(stats.warnings.is_empty());
    }
}
