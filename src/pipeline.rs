//! The order of the stages and where the threads are (STYLE "Shape"):
//!
//! 1. read: one reader thread per log file (at most `--threads` at once)
//!    inflates and cuts the file into line-aligned chunks, sent through a
//!    bounded channel, so memory is chunk size × queue depth;
//! 2. parse + identify: rayon workers parse every line and keep, with its
//!    sort key, each fetch whose user agent or address may be a crawler's;
//! 3. verify: the addresses of those fetches are looked up (PTR map, live
//!    DNS) outside the parallel parse, and each fetch gets its identity;
//! 4. judge: the counted fetches, sorted by (time, file, line), are judged
//!    against robots.txt;
//! 5. report: rows are written, sorted, whatever the number of threads.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::IpAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use rayon::prelude::*;

use crate::Outcome;
use crate::accesslog::{self, Chunk, ChunkReader, Entry, LogFormat, Recycler, Skip, Timestamp};
use crate::audit::{self, Counting, Fetch, Impostor, Policy, SpoofReason, Violation};
use crate::config::{AuditConfig, WindowTz};
use crate::crawler::dns::{self, DnsOptions};
use crate::crawler::{
    self, Client, CrawlerId, DnsAnswer, Identifier, Knowledge, PtrMap, Verification,
};
use crate::error::{Error, Position, Result};
use crate::progress::{self, Progress};
use crate::report::skipped::{self, SHOWN as SHOWN_SKIPS, Tally};
use crate::report::{self, Escaping, Findings, summary::Totals};
use crate::robots::group::Reads;
use crate::robots::{AgentRules, Robots};

/// A line that may be a crawler's fetch, kept whole until verification.
#[derive(Debug, Clone)]
struct Candidate {
    time: Timestamp,
    file: usize,
    line: u64,
    client_raw: Arc<[u8]>,
    client: Client,
    ua_claim: Option<CrawlerId>,
    method: Arc<[u8]>,
    target: Vec<u8>,
    status: Option<u16>,
    user_agent: Arc<[u8]>,
}

/// Shares the text that crawler lines repeat (their address, method and
/// user agent) among the fetches of one chunk, so that a million fetches
/// do not hold a million copies of the same user agent.
#[derive(Default)]
struct Interner {
    recent: Vec<Arc<[u8]>>,
}

impl Interner {
    /// How many distinct values are remembered; crawlers use few.
    const RECENT: usize = 16;

    fn share(&mut self, bytes: &[u8]) -> Arc<[u8]> {
        if let Some(found) = self.recent.iter().find(|r| ***r == *bytes) {
            return Arc::clone(found);
        }
        let made: Arc<[u8]> = Arc::from(bytes);
        if self.recent.len() == Self::RECENT {
            self.recent.remove(0);
        }
        self.recent.push(Arc::clone(&made));
        made
    }
}

/// What the workers found in the lines they read.
#[derive(Debug, Default)]
struct Scan {
    candidates: Vec<Candidate>,
    lines: u64,
    skipped: u64,
    outside_period: u64,
    /// The first unparsable lines, by (file, line).
    skips: Vec<(usize, u64, Skip)>,
    /// Each file's lines: read, blank, skipped.
    tallies: BTreeMap<usize, Tally>,
}

impl Scan {
    fn merge(mut self, other: Scan) -> Scan {
        self.candidates.extend(other.candidates);
        self.lines += other.lines;
        self.skipped += other.skipped;
        self.outside_period += other.outside_period;
        self.skips.extend(other.skips);
        self.skips.sort_unstable();
        self.skips.truncate(SHOWN_SKIPS);
        for (file, tally) in other.tallies {
            self.tallies.entry(file).or_default().merge(&tally);
        }
        self
    }
}

/// Everything the workers need, immutable and shared.
struct Scanner<'a> {
    format: &'a LogFormat,
    ident: &'a Identifier,
    /// Addresses the PTR map names as crawler hosts.
    crawler_addrs: &'a HashSet<IpAddr>,
    since: Option<i64>,
    until: Option<i64>,
}

impl Scanner<'_> {
    fn scan(&self, file: usize, chunk: &Chunk) -> Scan {
        let mut scan = Scan::default();
        let mut interner = Interner::default();
        let mut tally = Tally::default();
        for line in chunk.lines() {
            scan.lines += 1;
            tally.lines += 1;
            let entry = if line.too_long {
                Err(Skip::TooLong)
            } else {
                self.format.parse(line.text)
            };
            match entry {
                Ok(entry) => {
                    tally.saw(entry.time);
                    if let Some(candidate) =
                        self.candidate(file, line.number, line.text, &entry, &mut interner)
                    {
                        let inside = self.since.is_none_or(|s| candidate.time.unix >= s)
                            && self.until.is_none_or(|u| candidate.time.unix < u);
                        if inside {
                            scan.candidates.push(candidate);
                        } else {
                            scan.outside_period += 1;
                        }
                    }
                }
                Err(Skip::Empty) => tally.blank += 1,
                Err(skip) => {
                    scan.skipped += 1;
                    tally.skip(line.number, skip);
                    if scan.skips.len() < SHOWN_SKIPS {
                        scan.skips.push((file, line.number, skip));
                    }
                }
            }
        }
        scan.tallies.insert(file, tally);
        scan
    }

    /// Keeps a line when its user agent claims a crawler, its client field
    /// is a crawler's host name, or its address is a named crawler host.
    fn candidate(
        &self,
        file: usize,
        number: u64,
        text: &[u8],
        entry: &Entry<'_>,
        interner: &mut Interner,
    ) -> Option<Candidate> {
        // The cheap test first: most lines name no crawler anywhere. Only
        // then, when a PTR map names crawler hosts, the address itself.
        let client = if self.ident.may_be_crawler(text) {
            crawler::parse_client(entry.client)
        } else if self.crawler_addrs.is_empty() {
            return None;
        } else {
            match crawler::parse_client(entry.client) {
                Client::Addr(addr) if self.crawler_addrs.contains(&addr) => Client::Addr(addr),
                _ => return None,
            }
        };
        let user_agent = entry
            .user_agent
            .map(accesslog::unescape)
            .unwrap_or_default();
        let ua_claim = self.ident.by_user_agent(&user_agent);
        if ua_claim.is_none() {
            let named = match &client {
                Client::Name(name) => self.ident.by_name(name, None).is_some(),
                Client::Addr(addr) => self.crawler_addrs.contains(addr),
                Client::Other(_) => false,
            };
            if !named {
                return None;
            }
        }
        let request = accesslog::unescape(entry.request);
        let accesslog::Fetch::Target(request) = accesslog::parse_request(&request) else {
            return None;
        };
        Some(Candidate {
            time: entry.time,
            file,
            line: number,
            client_raw: interner.share(entry.client),
            client,
            ua_claim,
            // Kept text is bounded (SPEC §5): a method is as long as the
            // attacker likes too. The user agent was already read whole to
            // identify the crawler.
            method: interner.share(&crate::text::bound(request.method)),
            target: crate::text::bound(&request.target).into_owned(),
            status: entry.status,
            user_agent: interner.share(&crate::text::bound(&user_agent)),
        })
    }
}

/// Reads every log: reader threads feed chunks to rayon workers. Inputs
/// that cannot be read whole leave their error in the list, after their
/// readable lines were scanned.
fn read_logs(
    config: &AuditConfig,
    scanner: &Scanner<'_>,
    pool: &rayon::ThreadPool,
    progress: &Progress,
) -> (Scan, Vec<(usize, Error)>) {
    let errors: Mutex<Vec<(usize, Error)>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let workers = pool.current_num_threads();
    let readers = config.logs.len().min(workers).max(1);
    // A few chunks in flight keep every worker busy; the cap keeps memory
    // bounded on machines with many cores.
    let (tx, rx) = mpsc::sync_channel::<(usize, Chunk, Recycler)>((workers * 2).clamp(2, 8));

    let scan = std::thread::scope(|scope| {
        for _ in 0..readers {
            let tx = tx.clone();
            let (next, errors) = (&next, &errors);
            scope.spawn(move || {
                loop {
                    let file = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = config.logs.get(file) else {
                        break;
                    };
                    if let (Err(err), Ok(mut errors)) =
                        (read_one(file, path, &tx, progress), errors.lock())
                    {
                        errors.push((file, err));
                    }
                }
            });
        }
        drop(tx);
        pool.install(|| {
            rx.into_iter()
                .par_bridge()
                .map(|(file, chunk, recycler)| {
                    let scan = scanner.scan(file, &chunk);
                    progress.add_lines(scan.lines);
                    recycler.recycle(chunk.data);
                    scan
                })
                .reduce(Scan::default, Scan::merge)
        })
    });
    let mut errors = errors.into_inner().unwrap_or_default();
    errors.sort_by_key(|(file, _)| *file);
    (scan, errors)
}

/// Reads one log into the channel; the error, if any, comes after every
/// line before the damage was sent.
fn read_one(
    file: usize,
    path: &Path,
    tx: &mpsc::SyncSender<(usize, Chunk, Recycler)>,
    progress: &Progress,
) -> Result<()> {
    let input = accesslog::open(path)?;
    let consumed = input.progress.consumed.clone();
    let compression = input.compression;
    let mut reader = ChunkReader::new(input);
    let recycler = reader.recycler();
    let mut reported = 0;
    while let Some(chunk) = reader.next_chunk() {
        let chunk = chunk?;
        let now = consumed.load(Ordering::Relaxed);
        progress.add_read(
            compression,
            now.saturating_sub(reported),
            chunk.data.len() as u64,
        );
        reported = now;
        if tx.send((file, chunk, recycler.clone())).is_err() {
            break;
        }
    }
    Ok(())
}

/// Who each candidate is, once every address's names are known.
struct Verdicts {
    fetches: Vec<Fetch>,
    impostors: Vec<Impostor>,
}

fn verify(ident: &Identifier, knowledge: &Knowledge, candidates: Vec<Candidate>) -> Verdicts {
    let mut fetches = Vec::new();
    let mut impostors = Vec::new();
    for c in candidates {
        let Some(identity) = knowledge.decide(ident, &c.client, c.ua_claim) else {
            continue;
        };
        if identity.verification == Verification::Spoofed {
            // A name of the claimed crawler's own form is refuted only by
            // its forward lookup; any other name, by being another's.
            let addr = match c.client {
                Client::Addr(addr) => Some(addr),
                _ => None,
            };
            let reason = match identity.ptr.as_deref() {
                None => SpoofReason::NoPtr,
                Some(name) => match ident.by_name(name, addr) {
                    Some(id) if ident.same_token(id, identity.crawler) => {
                        SpoofReason::ForwardMismatch
                    }
                    _ => SpoofReason::PtrMismatch,
                },
            };
            impostors.push(Impostor {
                reason,
                time: c.time,
                file: c.file,
                line: c.line,
                client: c.client_raw,
                ptr: identity.ptr,
                claimed: identity.crawler.index(),
                method: c.method,
                target: c.target,
                status: c.status,
                user_agent: c.user_agent,
            });
        } else {
            fetches.push(Fetch {
                time: c.time,
                file: c.file,
                line: c.line,
                client: c.client_raw,
                crawler: identity.crawler.index(),
                verification: identity.verification,
                identified_by: identity.identified_by,
                method: c.method,
                target: c.target,
                status: c.status,
            });
        }
    }
    fetches.sort_unstable_by_key(Fetch::key);
    impostors.sort_unstable_by_key(Impostor::key);
    Verdicts { fetches, impostors }
}

fn load_ptr_map(path: Option<&Path>, quiet: bool) -> Result<PtrMap> {
    let Some(path) = path else {
        return Ok(PtrMap::default());
    };
    let (map, bad) = PtrMap::load(path)?;
    if !quiet {
        for line in bad.iter().take(SHOWN_SKIPS) {
            crate::warn!(
                "robots-audit: {}:{}: {}",
                path.display(),
                line.line,
                line.cause
            );
        }
        if bad.len() > SHOWN_SKIPS {
            crate::warn!(
                "robots-audit: {}: {} more bad lines",
                path.display(),
                bad.len() - SHOWN_SKIPS
            );
        }
    }
    Ok(map)
}

/// The main job: audit every log against robots.txt and write the reports.
pub fn run(config: &AuditConfig) -> Result<Outcome> {
    accesslog::open::check_distinct(&config.logs)?;
    let robots = Robots::read(&config.robots)?;
    let format = LogFormat::new(&config.log_format)
        .map_err(|cause| Error::Usage(format!("--log-format: {cause}")))?;
    let ident = Identifier::with_profiles(config.profiles.as_deref())?;
    let ptr_map = load_ptr_map(config.ptr_map.as_deref(), config.quiet)?;
    let crawler_addrs = ptr_map.crawler_addresses(&ident);

    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = config.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool
        .build()
        .map_err(|e| Error::Usage(format!("cannot start worker threads: {e}")))?;

    let progress = Progress::new(&progress::measure(&config.logs), config.quiet);
    let scanner = Scanner {
        format: &format,
        ident: &ident,
        crawler_addrs: &crawler_addrs,
        since: config.since,
        until: config.until,
    };
    // The lock on --out comes before the first log line is read and is
    // held to the end (SPEC §5): a second run waits or gives up before it
    // has done any work.
    let out = config
        .out
        .as_deref()
        .map(|dir| report::OutDir::lock(dir, config.lock_wait))
        .transpose()?;
    let (scan, input_errors) = read_logs(config, &scanner, &pool, &progress);
    progress.finish();

    if let (true, Some(&(file, line, skip))) = (config.strict, scan.skips.first()) {
        return Err(Error::Format {
            path: config.logs[file].clone(),
            at: Position::Line(line),
            cause: skip.reason().to_string(),
        });
    }
    let mut input_errors = input_errors;
    let unread: Vec<usize> = input_errors.iter().map(|(file, _)| *file).collect();
    let notice = skipped::notice(
        &config.logs,
        &scan.tallies,
        &scan.skips,
        &unread,
        config.quiet,
    );
    for line in &notice.lines {
        crate::warn!("{line}");
    }
    input_errors.extend(notice.failed);
    input_errors.sort_by_key(|(file, _)| *file);

    let (dns, dns_failures, dns_unusable) = if config.resolve {
        resolve(config, &ident, &scan.candidates)
    } else {
        (Default::default(), 0, false)
    };
    let knowledge = Knowledge::new(ptr_map, dns);
    let verdicts = verify(&ident, &knowledge, scan.candidates);

    // One compiled selection per robots.txt token and the records read:
    // SeznamBot, FreshBot and SeznamBot-test all read the SeznamBot groups
    // alike.
    let mut selections: Vec<(String, Reads)> = Vec::new();
    let token_of: Vec<usize> = ident
        .profiles()
        .iter()
        .map(|p| {
            let key = (p.token.to_ascii_lowercase(), p.reads);
            selections
                .iter()
                .position(|s| *s == key)
                .unwrap_or_else(|| {
                    selections.push(key);
                    selections.len() - 1
                })
        })
        .collect();
    let rules: Vec<AgentRules> = selections
        .iter()
        .map(|(token, reads)| robots.read_as(*reads).rules_for(token.as_bytes()))
        .collect();
    let policies: Vec<Policy<'_>> = ident
        .profiles()
        .iter()
        .zip(&token_of)
        .map(|(profile, &selection)| Policy::new(profile, &rules[selection]))
        .collect();
    let counting = Counting {
        rate_by: config.rate_by,
        window_tz: config.window_tz,
    };
    let violations = pool.install(|| audit::judge(&policies, &verdicts.fetches, counting));

    let crawlers: Vec<String> = policies.iter().map(|p| p.name.clone()).collect();
    let findings = Findings {
        files: &config.logs,
        crawlers: &crawlers,
        fetches: &verdicts.fetches,
        violations: &violations,
        impostors: &verdicts.impostors,
        escaping: if config.raw_csv {
            Escaping::Raw
        } else {
            Escaping::Safe
        },
    };
    for (_, err) in &input_errors {
        crate::warn!("robots-audit: {err}");
    }
    let outcome = if !input_errors.is_empty() || dns_unusable {
        Outcome::Incomplete
    } else if !violations.iter().any(Violation::accuses) {
        // Rows whose note only informs (SPEC §5) are no finding.
        Outcome::Clean
    } else {
        Outcome::Findings
    };
    let arguments: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let errors: BTreeMap<usize, String> = input_errors
        .iter()
        .map(|(file, err)| (*file, err.to_string()))
        .collect();
    let robots_versions = [(robots.version().to_string(), in_force_from(&config.robots))];
    let health = report::run::Health {
        arguments: &arguments,
        format: if config.log_format.is_empty() {
            "combined"
        } else {
            &config.log_format
        },
        tallies: &scan.tallies,
        errors: &errors,
        robots_versions: &robots_versions,
        dns_asked: config.resolve,
        dns_failures,
        dns_unusable,
        exit_status: outcome.exit_code(),
    };
    let allowed: Vec<_> = policies
        .iter()
        .map(report::html::build::allowances)
        .collect();
    let sources = report::html::build::Sources {
        robots_bytes: robots.bytes(),
        robots_version: robots.version(),
        allowed: &allowed,
        window_offset_min: match config.window_tz {
            WindowTz::Utc => 0,
            WindowTz::Fixed(minutes) => minutes,
            // Each timestamp's own offset: the chart reads windows in the
            // offset of the first fetch.
            WindowTz::Local => verdicts.fetches.first().map_or(0, |f| f.time.offset_min),
        },
        trend: None,
    };
    report::write(&findings, &health, &sources, out.as_ref())?;
    if !config.quiet {
        let totals = Totals {
            lines: scan.lines,
            skipped: scan.skipped,
            dns_failures,
            outside_period: scan.outside_period,
        };
        {
            use std::io::Write as _;
            let _ =
                std::io::stderr().write_all(report::summary::human(&findings, &totals).as_bytes());
        }
    }
    Ok(outcome)
}

/// When a `--robots FILE` came into force: its modification time, as
/// RFC 3339 in UTC (SPEC §6); `None` when the file system does not say.
fn in_force_from(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    let time = Timestamp {
        unix: i64::try_from(since.as_secs()).ok()?,
        millis: 0,
        offset_min: 0,
    };
    Some(time.rfc3339())
}

/// Live DNS for the addresses that claim a crawler or are named crawler
/// hosts; never for browsers. Returns the answers, how many addresses
/// could not be checked, and whether no resolver could be used at all (the
/// run then goes on, unverified, and exits 2).
fn resolve(
    config: &AuditConfig,
    ident: &Identifier,
    candidates: &[Candidate],
) -> (HashMap<IpAddr, DnsAnswer>, u64, bool) {
    // One address per fetch: the most fetched are asked first.
    let addrs = candidates.iter().filter_map(|c| match c.client {
        Client::Addr(addr) => Some(addr),
        _ => None,
    });
    let options = DnsOptions {
        server: config.dns_server,
        timeout: config.dns_timeout,
        deadline: config.dns_deadline,
        cache_path: config.dns_cache.clone(),
        max_age: config.dns_cache_max_age,
        ..DnsOptions::default()
    };
    let (answers, stats) = dns::resolve(addrs, ident, &options);
    if let Some(cause) = &stats.unusable {
        crate::warn!(
            "robots-audit: --resolve: {cause}; fetches not in the DNS cache are left \
             unverified (give --dns-server)"
        );
    }
    for warning in &stats.warnings {
        crate::warn!("robots-audit: {warning}");
    }
    (answers, stats.failures as u64, stats.unusable.is_some())
}
