//! Live DNS lookups: takes `DnsOptions` (the server given, or the system's
//! resolv.conf) and an address, or a PTR map's name for one, and gives its
//! `DnsAnswer`, or the name's `Forward`: a reverse lookup (PTR), then a
//! forward lookup (A or AAAA, the address's own family) of every name that
//! fits a crawler pattern, each within its guard, many at once until the
//! deadline (SPEC §1 "Address → name", §2 "Verification").

use std::collections::HashMap;
use std::net::IpAddr;
// Only the resolv.conf reader names a path; elsewhere the system is asked.
#[cfg(all(unix, not(any(target_os = "android", target_vendor = "apple"))))]
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError, NoRecords};
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::{Name, RData, RecordType};
use hickory_resolver::{ResolverBuilder, TokioResolver};

use crate::crawler::dns_options::DnsOptions;
use crate::crawler::identify::Identifier;
use crate::crawler::verify::{DnsAnswer, Forward, NameCheck};
use crate::error::{Error, Result};

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

pub(super) fn build_resolver(opts: &DnsOptions) -> Result<TokioResolver> {
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
pub(super) async fn bounded<T, R, Fut>(
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
pub(super) fn guard_of(opts: &DnsOptions) -> Duration {
    opts.timeout
        .saturating_mul(u32::try_from(opts.attempts.max(1) + 1).unwrap_or(u32::MAX))
}

/// The forward half of forward-confirmed reverse DNS for names that came
/// from elsewhere (a `--ptr-map` name of a crawler's pattern): does each
/// name lead back to its address? Asked as `confirm` asks a name a reverse
/// lookup gave, the fewest first by the caller's order, within `deadline`
/// (what the reverse lookups left of `--dns-deadline`). A name that is no
/// DNS name, a failure, or a name left unasked at the deadline is missing
/// from the answer (nothing known). Never fails and never touches the
/// cache: these names are the map's, not what DNS said of the address.
/// Also gives the addresses DNS failed for (a failure, the deadline, no
/// resolver), for the run's DNS failures (SPEC §2: the summary counts
/// them).
pub fn confirm_given(
    pairs: &[(IpAddr, String)],
    ident: &Identifier,
    opts: &DnsOptions,
    deadline: Duration,
) -> (
    HashMap<(IpAddr, String), Forward>,
    std::collections::HashSet<IpAddr>,
) {
    let answers = forward_of_given(pairs, ident, opts, deadline);
    // Every address of a DNS name that got no answer.
    let failed: std::collections::HashSet<IpAddr> = pairs
        .iter()
        .filter(|(addr, text)| {
            Name::from_ascii(text).is_ok() && !answers.contains_key(&(*addr, text.clone()))
        })
        .map(|(addr, _)| *addr)
        .collect();
    (answers, failed)
}

/// `confirm_given`'s answers.
fn forward_of_given(
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
                            let (mut queries, mut denied) = (0, false);
                            Some(
                                confirm(
                                    &resolver,
                                    name,
                                    addr,
                                    guard,
                                    &ident,
                                    &mut queries,
                                    &mut denied,
                                )
                                .await,
                            )
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

pub(super) async fn check_address(
    resolver: &TokioResolver,
    ident: &Identifier,
    addr: IpAddr,
    guard: Duration,
) -> (DnsAnswer, usize, bool) {
    let mut queries = 1;
    // Whether a crawler name's forward lookup, inside the networks, said
    // "no such name" or gave no address of them (`confirm`).
    let mut denied = false;
    let started = tokio::time::Instant::now();
    let reverse = tokio::time::timeout(guard, resolver.reverse_lookup(addr)).await;
    let asked = Name::from(addr);
    let lookup = match reverse {
        Ok(Ok(lookup)) => lookup,
        // A chain the answer shows ending on another name is a failure,
        // inside the networks too: "no name" only for the name asked.
        Ok(Err(e)) if ended_in_a_chain(&e, &asked) => {
            return (DnsAnswer::Failed, queries, false);
        }
        // Inside a crawler's networks "no name", whatever lies behind it (a
        // chain that loops back to the name asked too), is the broken
        // resolver's mark (SPEC §2): the fetch is unverified either way,
        // and the night's other "no name" answers are disbelieved. No
        // further question may wipe the mark out.
        Ok(Err(e)) if is_no_record(&e) && ident.in_networks(addr) => {
            return (DnsAnswer::NoName, queries, false);
        }
        Ok(Err(e)) if is_no_record(&e) => {
            let answer =
                if no_record_stands(resolver, &e, &asked, guard, started, &mut queries).await {
                    DnsAnswer::NoName
                } else {
                    DnsAnswer::Failed
                };
            return (answer, queries, false);
        }
        _ => return (DnsAnswer::Failed, queries, false),
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
            return (DnsAnswer::NoName, queries, false);
        }
        return (DnsAnswer::Failed, queries, false);
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
            confirm(
                resolver,
                name,
                addr,
                guard,
                ident,
                &mut queries,
                &mut denied,
            )
            .await
        } else {
            Forward::NotAsked
        };
        checks.push(NameCheck {
            name: text,
            forward,
        });
    }
    (DnsAnswer::Names(checks), queries, denied)
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
/// there), and `denied` says so. Another address of the networks is the
/// operator's zone answering: `Elsewhere`, which there accuses no one
/// (`Knowledge::decide`), nor leaves a night undecided.
async fn confirm(
    resolver: &TokioResolver,
    mut name: Name,
    addr: IpAddr,
    guard: Duration,
    ident: &Identifier,
    queries: &mut usize,
    denied: &mut bool,
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
                // Not the operator's zone speaking (no address of its
                // networks): a filtering or lying resolver.
                *denied = true;
                Forward::Failed
            } else {
                // Outside the networks, a refutation; inside them another
                // address of theirs, an answer (asked again the next
                // night) that accuses no one (`Knowledge::decide`).
                Forward::Elsewhere
            }
        }
        // Inside the networks a "no such name" that stands is a denial
        // (the end of a CNAME chain that loops is a failure only).
        Ok(Err(e)) if is_no_record(&e) => {
            match no_record_stands(resolver, &e, &asked, guard, started, queries).await {
                true if in_networks => {
                    *denied = true;
                    Forward::Failed
                }
                true => Forward::Elsewhere,
                false => Forward::Failed,
            }
        }
        _ => Forward::Failed,
    }
}
