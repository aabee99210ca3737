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
//! every fetch stays `unverified` and the stats say why.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError, NoRecords};
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::{Name, RData, RecordType};
use hickory_resolver::{ResolverBuilder, TokioResolver};

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
    /// Leave the writing of the cache to the caller (`DnsStats::unsaved`):
    /// a cache that is part of `--state` is written with it, only by a
    /// run that saves its state (SPEC §6).
    pub defer_save: bool,
    /// How old a cached answer may be and still be used.
    pub max_age: Duration,
}

/// `--dns-timeout`'s default: seconds to wait for one answer.
pub const DEFAULT_TIMEOUT_SECS: f64 = 2.0;
/// `--dns-deadline`'s default: seconds all lookups together may take.
pub const DEFAULT_DEADLINE_SECS: f64 = 60.0;
/// `--dns-cache-days`'s default: days a cached answer stays good.
pub const DEFAULT_CACHE_DAYS: u64 = 7;

impl Default for DnsOptions {
    /// The options the command line gives when no DNS flag is set.
    fn default() -> DnsOptions {
        DnsOptions {
            server: None,
            timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS),
            attempts: 2,
            deadline: Duration::from_secs_f64(DEFAULT_DEADLINE_SECS),
            concurrency: 32,
            cache_path: default_cache_path(),
            defer_save: false,
            max_age: Duration::from_secs(DEFAULT_CACHE_DAYS * 86_400),
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
        let asked = match ask_all(&to_ask, ident, opts, &mut stats) {
            Ok(asked) => asked,
            Err(e) => {
                stats.unusable = Some(match e {
                    Error::Usage(cause) => cause,
                    other => other.to_string(),
                });
                HashMap::new()
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
            .collect();
        stats.denied_in_networks.sort();
        // A resolver that denies a crawler's own address its name is
        // broken, and its other "no name" answers tonight are no evidence
        // either (SPEC §2: a broken resolver never makes an impostor):
        // failures, neither believed nor cached.
        let broken = !stats.denied_in_networks.is_empty();
        for addr in to_ask {
            let mut answer = asked.get(&addr).cloned().unwrap_or(DnsAnswer::Failed);
            if answer == DnsAnswer::NoName && broken {
                answer = DnsAnswer::Failed;
            }
            cache.insert(addr, now, &answer);
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
             networks have no name (first {first}); no \"no name\" answer is believed \
             tonight: their fetches stay unverified",
            stats.denied_in_networks.len()
        ));
    }
    (answers, stats)
}

/// True when a cached answer must be asked again: a name stored unchecked
/// may fit a pattern added since, and "no name" inside an operator's
/// networks (cached by an older version) is a broken resolver's.
fn must_ask_again(answer: &DnsAnswer, ident: &Identifier, addr: IpAddr) -> bool {
    match answer {
        DnsAnswer::Names(checks) => checks.iter().any(|c| {
            c.forward == Forward::NotAsked && ident.by_name(&c.name, Some(addr)).is_some()
        }),
        DnsAnswer::NoName => ident.in_networks(addr),
        DnsAnswer::Failed => false,
    }
}

/// Where the system's resolver configuration is read; the variable lets a
/// test (or a chroot) point at another file.
const RESOLV_CONF_VARIABLE: &str = "ROBOTS_AUDIT_RESOLV_CONF";

/// More than any real resolv.conf holds; a larger file is no resolv.conf.
const RESOLV_CONF_LIMIT: u64 = 1 << 20;

/// The system's resolvers, from `/etc/resolv.conf` (or the file named by
/// `ROBOTS_AUDIT_RESOLV_CONF`). Errors when that file cannot be read or
/// names no server: the caller then asks nobody.
#[cfg(all(unix, not(any(target_os = "android", target_vendor = "apple"))))]
fn system_resolver(
    provider: TokioRuntimeProvider,
) -> Result<ResolverBuilder<TokioRuntimeProvider>> {
    use std::io::Read as _;
    let path = std::env::var_os(RESOLV_CONF_VARIABLE)
        .map_or_else(|| PathBuf::from("/etc/resolv.conf"), PathBuf::from);
    let unusable = |cause: String| {
        Error::Usage(format!(
            "no usable DNS resolver ({}: {cause})",
            path.display()
        ))
    };
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(RESOLV_CONF_LIMIT).read_to_end(&mut bytes))
        .map_err(|e| unusable(e.to_string()))?;
    let (config, options) =
        hickory_resolver::system_conf::parse_resolv_conf(&bytes).map_err(|e| match e {
            NetError::Io(io) => unusable(io.to_string()),
            other => unusable(other.to_string()),
        })?;
    let mut builder = TokioResolver::builder_with_config(config, provider);
    *builder.options_mut() = options;
    Ok(builder)
}

#[cfg(not(all(unix, not(any(target_os = "android", target_vendor = "apple")))))]
fn system_resolver(
    provider: TokioRuntimeProvider,
) -> Result<ResolverBuilder<TokioRuntimeProvider>> {
    let _ = (RESOLV_CONF_VARIABLE, RESOLV_CONF_LIMIT);
    TokioResolver::builder(provider).map_err(|e| {
        Error::Usage(format!(
            "no usable DNS resolver (the system's DNS configuration: {e})"
        ))
    })
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
        None => system_resolver(provider)?,
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

/// Runs `work` on each of `items`, started in their order and never more
/// than `concurrency` at once (one begins only when an earlier one has
/// finished, so the order is the order of asking), until all are done or
/// `deadline`; gives what finished, and whether the deadline cut the rest
/// off. A task that died gives nothing.
async fn bounded<T, R, Fut>(
    items: impl IntoIterator<Item = T>,
    concurrency: usize,
    deadline: tokio::time::Instant,
    work: impl Fn(T) -> Fut,
) -> (Vec<R>, bool)
where
    Fut: std::future::Future<Output = R> + Send + 'static,
    R: Send + 'static,
{
    let mut tasks = tokio::task::JoinSet::new();
    let mut queue = items.into_iter();
    for item in queue.by_ref().take(concurrency.max(1)) {
        tasks.spawn(work(item));
    }
    let mut done = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, tasks.join_next()).await {
            Ok(Some(finished)) => {
                // A task that died leaves its item unanswered: a failure.
                done.extend(finished.ok());
                if let Some(next) = queue.next() {
                    tasks.spawn(work(next));
                }
            }
            Ok(None) => return (done, false),
            Err(_) => {
                tasks.abort_all();
                return (done, true);
            }
        }
    }
}

/// How long one lookup may take at most: its attempts' timeouts and one
/// more, against a lookup that outlives its own timeouts.
fn guard_of(opts: &DnsOptions) -> Duration {
    opts.timeout
        .saturating_mul(u32::try_from(opts.attempts.max(1) + 1).unwrap_or(u32::MAX))
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
        let guard = guard_of(opts);
        let deadline = tokio::time::Instant::now() + opts.deadline;
        let (done, cut) = bounded(addrs.iter().copied(), opts.concurrency, deadline, |addr| {
            let resolver = Arc::clone(&resolver);
            let ident = Arc::clone(&ident);
            async move {
                let (answer, queries) = check_address(&resolver, &ident, addr, guard).await;
                (addr, answer, queries)
            }
        })
        .await;
        stats.deadline_hit |= cut;
        let mut answers = HashMap::with_capacity(addrs.len());
        for (addr, answer, queries) in done {
            stats.queries += queries;
            answers.insert(addr, answer);
        }
        Ok(answers)
    })
}

/// The forward half of forward-confirmed reverse DNS for names that came
/// from elsewhere (a `--ptr-map` name of a crawler's pattern): does each
/// name lead back to its address? Asked as `confirm` asks a name a reverse
/// lookup gave, the fewest first by the caller's order, within `deadline`
/// (what the reverse lookups left of `--dns-deadline`). A name that is no
/// DNS name, a failure, or a name left unasked at the deadline is missing
/// from the answer (nothing known). Never fails and never touches the
/// cache: these names are the map's, not what DNS said of the address.
pub fn confirm_given(
    pairs: &[(IpAddr, String)],
    ident: &Identifier,
    opts: &DnsOptions,
    deadline: Duration,
) -> HashMap<(IpAddr, String), Forward> {
    if pairs.is_empty() || deadline.is_zero() {
        return HashMap::new();
    }
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return HashMap::new();
    };
    runtime.block_on(async {
        let Ok(resolver) = build_resolver(opts) else {
            return HashMap::new();
        };
        let resolver = Arc::new(resolver);
        let ident = Arc::new(ident.clone());
        let guard = guard_of(opts);
        let deadline = tokio::time::Instant::now() + deadline;
        let (done, _) = bounded(
            pairs.iter().cloned(),
            opts.concurrency,
            deadline,
            |(addr, text)| {
                let resolver = Arc::clone(&resolver);
                let ident = Arc::clone(&ident);
                async move {
                    let forward = match Name::from_ascii(&text) {
                        Ok(name) => {
                            let mut queries = 0;
                            Some(confirm(&resolver, name, addr, guard, &ident, &mut queries).await)
                        }
                        Err(_) => None,
                    };
                    (addr, text, forward)
                }
            },
        )
        .await;
        done.into_iter()
            .filter_map(|(addr, text, forward)| {
                forward
                    .filter(|&f| f != Forward::Failed)
                    .map(|f| ((addr, text), f))
            })
            .collect()
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

/// True when `is_no_record` is the end of a CNAME chain the resolver
/// followed from `asked`: a chain that loops (the resolver gives up after
/// a few hops) or ends at a name without the record. A recursive resolver
/// answers a loop with SERVFAIL; either way it is a garbled answer, which
/// proves nothing (SPEC §2), not "no such record".
fn ended_in_a_chain(error: &NetError, asked: &Name) -> bool {
    match error {
        NetError::Dns(DnsError::NoRecordsFound(no_records)) => no_records.query.name() != asked,
        _ => false,
    }
}

/// Whether the "no such record" answer `error` to the question for `asked`
/// stands; false for the end of a CNAME chain, or where that cannot be
/// told. A chain that ends on another name is told by the answer itself
/// (`ended_in_a_chain`). One that loops back to the name asked ends, in the
/// resolver, as "NOERROR, no record" for that very name: that answer alone
/// is checked with one more question, the name's CNAME (a name with one
/// has no other record; a question that fails proves nothing), in what is
/// left of `guard` since `started`, so that it adds no time past the first
/// question's guard.
async fn no_record_stands(
    resolver: &TokioResolver,
    error: &NetError,
    asked: &Name,
    guard: Duration,
    started: tokio::time::Instant,
    queries: &mut usize,
) -> bool {
    if ended_in_a_chain(error, asked) {
        return false;
    }
    let NetError::Dns(DnsError::NoRecordsFound(no_records)) = error else {
        return true;
    };
    if no_records.response_code != ResponseCode::NoError {
        return true;
    }
    let left = guard.saturating_sub(started.elapsed());
    if left.is_zero() {
        return false;
    }
    *queries += 1;
    match tokio::time::timeout(left, resolver.lookup(asked.clone(), RecordType::CNAME)).await {
        Ok(Ok(lookup)) => !lookup
            .answers()
            .iter()
            .any(|r| matches!(r.data, RData::CNAME(_))),
        Ok(Err(e)) => is_no_record(&e),
        Err(_) => false,
    }
}

async fn check_address(
    resolver: &TokioResolver,
    ident: &Identifier,
    addr: IpAddr,
    guard: Duration,
) -> (DnsAnswer, usize) {
    let mut queries = 1;
    let started = tokio::time::Instant::now();
    let reverse = tokio::time::timeout(guard, resolver.reverse_lookup(addr)).await;
    let asked = Name::from(addr);
    let lookup = match reverse {
        Ok(Ok(lookup)) => lookup,
        // A chain the answer shows ending on another name is a failure,
        // inside the networks too: "no name" only for the name asked.
        Ok(Err(e)) if ended_in_a_chain(&e, &asked) => {
            return (DnsAnswer::Failed, queries);
        }
        // Inside a crawler's networks "no name", whatever lies behind it (a
        // chain that loops back to the name asked too), is the broken
        // resolver's mark (SPEC §2): the fetch is unverified either way,
        // and the night's other "no name" answers are disbelieved. No
        // further question may wipe the mark out.
        Ok(Err(e)) if is_no_record(&e) && ident.in_networks(addr) => {
            return (DnsAnswer::NoName, queries);
        }
        Ok(Err(e)) if is_no_record(&e) => {
            let answer =
                if no_record_stands(resolver, &e, &asked, guard, started, &mut queries).await {
                    DnsAnswer::NoName
                } else {
                    DnsAnswer::Failed
                };
            return (answer, queries);
        }
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
        // Records, but no PTR among them (a CNAME chain that ends nowhere
        // or loops, another type): a garbled answer, which proves nothing.
        // Only an empty answer says the address has no name.
        if lookup.answers().is_empty() {
            return (DnsAnswer::NoName, queries);
        }
        return (DnsAnswer::Failed, queries);
    }
    let mut checks = Vec::with_capacity(names.len());
    for name in names {
        let text = name.to_ascii();
        // The root name `.` stays written: empty, it would read as no name.
        let text = match text.strip_suffix('.') {
            Some(bare) if !bare.is_empty() => bare.to_string(),
            _ => text,
        };
        let forward = if ident.by_name(&text, Some(addr)).is_some() {
            queries += 1;
            confirm(resolver, name, addr, guard, ident, &mut queries).await
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
///
/// When the address is inside a crawler operator's networks, whose
/// reverse and forward zones are both the operator's (and from which no
/// impostor can hold a TCP connection), a forward "no such name", or an
/// answer with no address of those networks (a sinkhole's `0.0.0.0` or
/// loopback, a block page, a walled garden's private address), for the
/// name its own reverse zone gave is a broken or filtering resolver, which
/// never makes an impostor (SPEC §2, as "no name" for the reverse lookup
/// there). Another address of the networks is the operator's own zone
/// speaking: `Elsewhere`.
async fn confirm(
    resolver: &TokioResolver,
    mut name: Name,
    addr: IpAddr,
    guard: Duration,
    ident: &Identifier,
    queries: &mut usize,
) -> Forward {
    let in_networks = ident.in_networks(addr);
    // The name came from a PTR record: absolute, never a search-list suffix.
    name.set_fqdn(true);
    let record_type = match addr {
        IpAddr::V4(_) => RecordType::A,
        IpAddr::V6(_) => RecordType::AAAA,
    };
    let asked = name.clone();
    let started = tokio::time::Instant::now();
    match tokio::time::timeout(guard, resolver.lookup(name, record_type)).await {
        Ok(Ok(lookup)) => {
            let addresses: Vec<IpAddr> = lookup
                .answers()
                .iter()
                .filter_map(|record| match &record.data {
                    RData::A(a) => Some(IpAddr::V4(a.0)),
                    RData::AAAA(aaaa) => Some(IpAddr::V6(aaaa.0)),
                    _ => None,
                })
                .collect();
            if addresses.contains(&addr) {
                Forward::Confirmed
            } else if addresses.is_empty() && !lookup.answers().is_empty() {
                // Only CNAMEs that end nowhere or loop, or records of
                // another type: garbled, proves nothing (SPEC §2).
                Forward::Failed
            } else if in_networks
                && !addresses
                    .iter()
                    .any(|&a| ident.in_networks(a.to_canonical()))
            {
                // Not the operator's zone speaking: a filtering or lying
                // resolver.
                Forward::Failed
            } else {
                Forward::Elsewhere
            }
        }
        Ok(Err(e)) if is_no_record(&e) && !in_networks => {
            if no_record_stands(resolver, &e, &asked, guard, started, queries).await {
                Forward::Elsewhere
            } else {
                Forward::Failed
            }
        }
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
        let (answers, stats) = resolve(addrs, &ident, &opts);
        assert_eq!(answers.len(), 2);
        assert_eq!(stats.addresses, 2);
        assert_eq!(stats.cache_hits, 2);
        assert_eq!(stats.queries, 0);
        assert_eq!(stats.failures, 0);
        assert!(stats.warnings.is_empty());
    }
}
