//! The order of the stages and where the threads are (STYLE "Shape"):
//!
//! 1. read: one reader thread per log file (at most `--threads` at once)
//!    inflates and cuts the file into line-aligned chunks, sent through a
//!    bounded channel, so memory is chunk size × queue depth; with
//!    `--state` it fingerprints the file and sends only the lines after
//!    the head a night before audited;
//! 2. scan: rayon workers parse every line (`scan`) and give a `Fetch`
//!    record for each line whose user agent or address may be a crawler's;
//!    the records go into a `spill::Sorter`, which writes sorted runs to
//!    disk whenever they pass their share of `--memory`;
//! 3. verify: the addresses of those fetches are looked up (PTR map, live
//!    DNS) once the scan is done;
//! 4. judge: the runs are merged in SPEC §4's order and judged in batches:
//!    identity, then the `disallow` verdict in parallel while the next
//!    batch is merged, rates and delays in order, one count at a time;
//! 5. report: each row is written as it is judged, into the new report set
//!    (or standard output); the totals of the other reports are gathered
//!    on the way (`report::Digest`) and written at the end;
//! 6. state: with `--state`, what the next night needs (versions, each
//!    count's fetches of robots.txt and recent times, fingerprints, a row a
//!    night per crawler) is saved once the reports are whole, unless the
//!    run exits 2.
//!
//! Memory is bounded by `--memory`, whatever the number of fetches: the
//! chunks in flight, the sorter's buffer, a batch being judged, and totals
//! that grow with crawlers, rules and spoofing addresses only.
//!
//! `run` here calls the stages in that order, and this file alone starts
//! threads: the reader threads and the rayon workers they feed
//! (`read_logs`), the writer beside the judge (`judge`, `write_judged`).
//! What each stage does on them lives in a file of its own under
//! `pipeline/`: `read` (1, 2: a reader's loop), `verify` (3), `judge`
//! (4, 5: identity, verdicts, totals), `night` (6, and last night's
//! counts resumed before 4), with `notices` for what standard error says
//! between them and `budget` for how `--memory` is shared out among them.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use rayon::prelude::*;

use crate::Outcome;
use crate::accesslog::{self, FormatChoice};
use crate::audit::{Counting, Judge, Nights, Policy, Violation};
use crate::config::AuditConfig;

use crate::crawler::{Identifier, Knowledge, Verification};
use crate::error::{Error, Position, Result};
use crate::fetch::Fetch;
use crate::progress::{self, Progress};
use crate::report::skipped;
use crate::report::{self, Digest, Escaping, Names, summary::Totals};
use crate::robots::versions::Versions;
use crate::scan::{ClientFetches, Scan, Scanner};
use crate::spill::{Merged, Sorter, SpillDir};
use crate::state::fingerprint::{Fingerprint, Finished};
use crate::state::overlaps::Overlaps;
use crate::state::{self, NightRows, State, StateDir};

mod budget;
mod judge;
mod night;
mod notices;
mod read;
mod verify;

use budget::Budget;
use judge::{
    BATCH, BATCH_BYTES, BATCHES_IN_FLIGHT, Belied, Compiled, Decided, Identities, Judged,
    Undecided, count_judged, decide, identify,
};
use night::{
    allowances, in_force_from, in_force_spans, remember_counts, remember_logs, remember_nights,
    resume_counts, trend_of,
};
use notices::{warn_after_judging, warn_after_scan};
use read::{Formats, Message, copies_of_earlier, read_one, warn_of_overlaps, yield_to_readers};
use verify::{cached_crawler_addresses, load_ptr_map, verify};

/// The main job: audit every log against robots.txt and write the reports.
pub fn run(config: &AuditConfig) -> Result<Outcome> {
    accesslog::open::check_distinct(&config.logs)?;
    // A state another user may write is refused before any lock is made or
    // leftover swept, in it or in --out (which may be the same folder).
    if let Some(dir) = &config.state {
        state::check_trust(dir)?;
    }
    // The lock on --out comes before the first log line is read and is
    // held to the end (SPEC §5): a second run waits or gives up before it
    // has done any work. The state's lock is the same (one lock when both
    // name one folder).
    let out = config
        .out
        .as_deref()
        .map(|dir| report::OutDir::lock(dir, config.lock_wait))
        .transpose()?;
    let state_dir = config
        .state
        .as_deref()
        .map(|dir| StateDir::lock(dir, config.lock_wait, out.as_ref()))
        .transpose()?;
    let mut state = state_dir.as_ref().map(StateDir::load).transpose()?;
    let versions = Versions::gather(
        &config.robots_sources,
        state.as_ref().map(State::entries).unwrap_or_default(),
    )?;
    let choice = FormatChoice::new(&config.log_format)
        .map_err(|cause| Error::Usage(format!("--log-format: {cause}")))?
        .with_zone(config.log_tz.clone());
    if choice.needs_zone()
        && let Some(path) = config.logs.first()
    {
        // Never silently UTC (SPEC §1 "Times").
        return Err(Error::Format {
            path: path.clone(),
            at: Position::File,
            cause: "the log format writes times without a UTC offset; give --log-tz ZONE \
                    (an IANA name such as Europe/Prague, or +HHMM)"
                .to_string(),
        });
    }
    let ident = Identifier::with_profiles(config.profiles.as_deref())?;
    let formats = Formats {
        choice: &choice,
        quiet: config.quiet,
        chosen: Mutex::default(),
        ident: &ident,
    };
    let ptr_map = load_ptr_map(config.ptr_map.as_deref(), config.quiet)?;
    let mut crawler_addrs = ptr_map.crawler_addresses(&ident);
    crawler_addrs.extend(cached_crawler_addresses(config, &ident));
    if config.resolve {
        // Live DNS names addresses only after the scan: every fetch from the
        // crawlers' networks is kept, so that one whose address DNS then
        // names a crawler's is judged whatever its user agent (SPEC §2).
        crawler_addrs = crawler_addrs.with_networks(
            ident
                .profiles()
                .iter()
                .flat_map(|p| p.networks.iter().copied()),
        );
    }

    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = config.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool
        .start_handler(|_| yield_to_readers())
        .build()
        .map_err(|e| Error::Usage(format!("cannot start worker threads: {e}")))?;

    let progress = Progress::new(&progress::measure(&config.logs), config.quiet);
    let scanner = Scanner {
        ident: &ident,
        crawler_addrs: &crawler_addrs,
        proxies: &config.trusted_proxies,
        since: config.since,
        until: config.until,
        count_clients: config.resolve,
        hosts: &config.hosts,
    };
    // Runs spill into the state folder, else into $TMPDIR (SPEC §5).
    // Beside the state when it is ours to write (locked), else in $TMPDIR.
    let spill_parent = match &state_dir {
        Some(dir) if dir.is_locked() => dir.path().to_path_buf(),
        // An empty $TMPDIR is unset, as most tools read it.
        _ => match std::env::var_os("TMPDIR") {
            Some(dir) if !dir.is_empty() => std::path::PathBuf::from(dir),
            _ => std::path::PathBuf::from("/tmp"),
        },
    };
    let spill = SpillDir::new(&spill_parent);
    let budget = Budget::of(config.memory);
    let sorter: Sorter<'_, Fetch> = Sorter::new(budget.fetches, &spill);
    let addresses: Option<Sorter<'_, ClientFetches>> = config
        .resolve
        .then(|| Sorter::new(budget.addresses_sorted, &spill));
    let started_ms = now_ms();
    let known = state
        .as_ref()
        .map(|state| (&state.fingerprints[..], started_ms));
    let (mut scan, input_errors, mut finished, copies) = read_logs(
        config,
        &formats,
        &scanner,
        &pool,
        &progress,
        Sorters {
            fetches: &sorter,
            addresses: addresses.as_ref(),
        },
        known,
    );
    // A log given twice in one run (a copy under another name, or the head
    // of a log given before it) is audited once, under the first name, as
    // across nights.
    for &file in &copies {
        scan.forget_file(file);
        if let Some(done) = finished.get_mut(&file) {
            done.already_audited = done.fingerprint.lines_read();
        }
    }
    progress.finish();
    let mut chosen = formats.said();

    if let (true, Some(&(file, line, skip))) = (config.strict, scan.skips.first()) {
        return Err(Error::Format {
            path: config.logs[file].clone(),
            at: Position::Line(line),
            cause: skip.reason().to_string(),
        });
    }
    let mut input_errors = input_errors;
    let unread: Vec<usize> = input_errors.iter().map(|(file, _)| *file).collect();
    let already_audited: BTreeMap<usize, u64> = finished
        .iter()
        .map(|(&file, done)| (file, done.already_audited))
        .collect();
    let notice = skipped::notice(
        &config.logs,
        &scan.tallies,
        &scan.skips,
        &unread,
        &already_audited,
        &chosen,
        config.quiet,
    );
    for line in &notice.lines {
        crate::warn!("{line}");
    }
    warn_after_scan(config, &scan, &chosen, &unread);
    input_errors.extend(notice.failed);
    input_errors.sort_by_key(|(file, _)| *file);

    let (knowledge, mut dns_health, state_dns_cache) =
        verify(config, &ident, ptr_map, addresses, budget.addresses_asked)?;

    // SPEC §6: with one --robots file and no state, nothing of nights
    // applies. With them, the night is judged by the versions in force
    // from the grace before its earliest line on: those of the years
    // before are neither parsed nor compiled (the state keeps them all).
    let earliest_ms = scan
        .tallies
        .values()
        .filter_map(|tally| tally.first_time.as_ref())
        .map(|time| time.instant_ms())
        .min();
    let first_judged = versions
        .index_at(earliest_ms.map_or(i64::MAX, |ms| ms.saturating_sub(config.robots_grace_ms)));
    let night_versions = versions.from_index(first_judged);
    let nights =
        (config.robots_sources.history.is_some() || config.state.is_some()).then_some(Nights {
            versions: &night_versions,
            grace_ms: config.robots_grace_ms,
        });
    // Each version compiled once per selection; without nights only the
    // one version there is. The reports still list every version the run
    // knew (`listed`), whose indices run `first_judged` ahead.
    let (judged, listed, first_judged): (&[_], &[_], usize) = match nights {
        Some(_) => (night_versions.all(), versions.all(), first_judged),
        None => (
            std::slice::from_ref(versions.latest()),
            std::slice::from_ref(versions.latest()),
            0,
        ),
    };
    let compiled = Compiled::new(&ident, judged);
    let policies = compiled.policies(&ident);
    let counting = Counting {
        rate_by: config.rate_by,
        window_tz: config.window_tz.clone(),
    };

    let crawlers: Vec<String> = ident.profiles().iter().map(|p| p.name.clone()).collect();
    let names = Names {
        files: &config.logs,
        crawlers: &crawlers,
        escaping: if config.raw_csv {
            Escaping::Raw
        } else {
            Escaping::Safe
        },
    };
    let spilled_runs = sorter.runs();
    let mut rows = report::Rows::begin(names, out.as_ref())?;
    let digest = Digest::new(crawlers.len(), budget.targets, &spill);
    let mut gather = report::html::build::Gather::new(&crawlers);
    let mut judged_by = Judge::new(&policies, nights, &counting);
    judged_by.verifies = config.ptr_map.is_some() || config.resolve;
    if let Some(state) = &mut state {
        resume_counts(state, &mut judged_by);
    }
    let mut nightly = state.as_ref().map(|_| NightRows::default());
    let deciding = Deciding {
        ident: &ident,
        knowledge: &knowledge,
        policies: &policies,
        versions: nights.map(|n| n.versions),
        copies: &copies,
        identities_kept: budget.identities,
    };
    let written = Written {
        rows: &mut rows,
        digest,
        gather: &mut gather,
        nightly: nightly.as_mut(),
    };
    let (digest, set_aside) = judge(&pool, &deciding, &mut judged_by, sorter, written)?;
    warn_after_judging(
        config,
        &scan,
        &digest,
        &set_aside.undecided,
        &set_aside.belied,
        set_aside.other_hosts,
        &mut dns_health,
    );
    let excused = judged_by.excused;
    let excused_by = std::mem::take(&mut judged_by.excused_by);

    if !input_errors.is_empty() {
        crate::interrupt::yield_to_handler();
    }
    for (_, err) in &input_errors {
        crate::warn!("robots-audit: {err}");
    }
    let outcome =
        if !input_errors.is_empty() || dns_health.unusable || set_aside.undecided.fetches > 0 {
            Outcome::Incomplete
        } else if digest.accusing == 0 {
            // Rows whose note only informs (SPEC §5) are no finding.
            Outcome::Clean
        } else {
            Outcome::Findings
        };
    let arguments: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| crate::text::name_text(a.as_encoded_bytes()).into_owned())
        .collect();
    let errors: BTreeMap<usize, String> = input_errors
        .iter()
        .map(|(file, err)| (*file, err.to_string()))
        .collect();
    let robots_versions: Vec<(String, Option<String>)> = listed
        .iter()
        .map(|version| {
            let from = match (nights, &config.robots_sources.file) {
                // One version: in force as SPEC §6 dates a --robots file.
                (None, Some(file)) if config.robots_sources.since.is_none() => in_force_from(file),
                _ => Some(version.in_force_from().rfc3339()),
            };
            (version.robots_version().to_string(), from)
        })
        .collect();
    for file in 0..config.logs.len() {
        chosen.entry(file).or_insert_with(|| choice.name());
    }
    // What the next night needs (SPEC §6), kept only once the reports are
    // written whole and the run did not fail.
    if let Some(state) = &mut state {
        state.remember_versions(&versions);
        remember_counts(state, &judged_by);
        remember_logs(state, &finished, &scan);
        if let Some(nightly) = nightly {
            remember_nights(state, nightly, &scan, &ident, &crawlers);
        }
        state.expire(started_ms, config.state_days);
    }
    // The state is written before the reports and put in force after them
    // (SPEC §6): a state that cannot be written is known while run.json
    // can still say exit 2. A run that exits 2 never updates the state:
    // running again after the fix gives the same reports.
    let prepared = match (&state_dir, &state) {
        (Some(dir), Some(state)) if outcome != Outcome::Incomplete => Some(dir.prepare(state)),
        _ => None,
    };
    let state_failed = matches!(prepared, Some(Err(_)));
    let state_error = match &prepared {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let health = report::run::Health {
        arguments: &arguments,
        formats: &chosen,
        tallies: &scan.tallies,
        already_audited: &already_audited,
        errors: &errors,
        robots_versions: &robots_versions,
        dns_asked: config.resolve,
        dns: dns_health,
        excused_by_cache_grace: excused,
        left_out: report::run::LeftOut {
            outside_since_until: scan.outside_period,
            other_hosts: set_aside.other_hosts,
        },
        state_error,
        exit_status: if state_failed {
            Outcome::Incomplete.exit_code()
        } else {
            outcome.exit_code()
        },
    };
    // The chart draws, at each minute, the Request-rate of the version in
    // force then (SPEC §6), as the rows were judged.
    let allowed = allowances(judged, &policies, &in_force_spans(judged), crawlers.len());
    let sources = report::html::build::Sources {
        robots: listed
            .iter()
            .map(|version| (version.bytes(), version.robots_version()))
            .collect(),
        in_force_ms: in_force_spans(listed),
        excused_by: excused_by.iter().map(|&v| v + first_judged).collect(),
        allowed: &allowed,
        window_tz: &config.window_tz,
        count_of: judged_by.count_of(),
        trend: state.as_ref().map(|state| trend_of(state, &crawlers)),
    };
    let mut page_data = report::html::build(gather, &digest, &names, &health, &sources);
    let page = report::html::render(&page_data);
    // SPEC §5's human summary, said also when a report or the state
    // could not be written (before the error): the night's findings are
    // known all the same.
    let say_summary = || {
        if !config.quiet {
            let totals = Totals {
                lines: scan.lines,
                skipped: scan.skipped,
                not_requests: scan.tallies.values().map(|t| t.not_requests).sum(),
                dns_failures: dns_health.failures,
                outside_period: scan.outside_period,
                other_hosts: set_aside.other_hosts,
                spilled_runs,
            };
            use std::io::Write as _;
            let _ = std::io::stderr()
                .write_all(report::summary::human(&digest, &names, &totals).as_bytes());
        }
    };
    let whole = match rows.finish(&digest, &health, &page) {
        Ok(whole) => whole,
        Err(e) => {
            say_summary();
            return Err(e);
        }
    };
    match prepared {
        Some(Ok(prepared)) if whole => {
            if let Err(e) = prepared.commit() {
                // The set in force says the night was whole; it is made to
                // say why it was not, as a state that could not be written
                // before the reports is said (run.json, report.html).
                if let Some(out) = &out {
                    let cause = e.to_string();
                    page_data.exit_status = Outcome::Incomplete.exit_code();
                    page_data.health.state_error = Some(cause.clone());
                    let health = report::run::Health {
                        state_error: Some(cause),
                        exit_status: Outcome::Incomplete.exit_code(),
                        ..health
                    };
                    let page = report::html::render(&page_data);
                    if let Err(amend) = report::amend(out, &digest, &names, &health, &page) {
                        crate::warn!(
                            "robots-audit: the reports in {} say the night was audited whole, \
                             but the state was not saved: {amend}",
                            out.path().display()
                        );
                    }
                }
                say_summary();
                return Err(e);
            }
            // The state's DNS cache goes with it; it only saves time, so
            // a cache that cannot be written is a warning.
            if let (Some(cache), Some(path)) = (&state_dns_cache, &config.dns_cache)
                && let Err(e) = cache.save(path)
            {
                crate::warn!(
                    "robots-audit: DNS cache {} not written: {e}",
                    path.display()
                );
            }
        }
        // The reader of standard output closed it part way (`| head`):
        // rows it never read would not come again the next night.
        Some(Ok(_)) => crate::warn!(
            "robots-audit: warning: standard output was closed before the report was written \
             whole: the state is left as it was, so the next night reports these rows again"
        ),
        Some(Err(e)) => {
            say_summary();
            return Err(e);
        }
        None => {}
    }
    say_summary();
    Ok(outcome)
}

/// Milliseconds since the epoch, now.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// What reading the logs gave: the scan, the inputs that could not be
/// read whole with their errors, each file's fingerprint (with
/// `--state`), and the files whose every line another file of the run
/// holds (`copies_of_earlier`).
type LogsRead = (
    Scan,
    Vec<(usize, Error)>,
    BTreeMap<usize, Finished>,
    Vec<usize>,
);

/// Where the scan's workers hand what they keep: the fetches, and with
/// `--resolve` the fetches per address.
#[derive(Clone, Copy)]
struct Sorters<'s, 'd> {
    fetches: &'s Sorter<'d, Fetch>,
    addresses: Option<&'s Sorter<'d, ClientFetches>>,
}

/// Reads every log: reader threads feed chunks to rayon workers. Inputs
/// that cannot be read whole leave their error in the list, after their
/// readable lines were scanned.
fn read_logs(
    config: &AuditConfig,
    formats: &Formats<'_>,
    scanner: &Scanner<'_>,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    sorters: Sorters<'_, '_>,
    known: Option<(&[Fingerprint], i64)>,
) -> LogsRead {
    let Sorters {
        fetches: sorter,
        addresses,
    } = sorters;
    let errors: Mutex<Vec<(usize, Error)>> = Mutex::new(Vec::new());
    let finished: Mutex<BTreeMap<usize, Finished>> = Mutex::default();
    let next = AtomicUsize::new(0);
    let overlaps = Overlaps::new(config.logs.len());
    let state_known = known.map_or(0, |(known, _)| known.len());
    let workers = pool.current_num_threads();
    let readers = config.logs.len().min(workers).max(1);
    // A few chunks in flight keep every worker busy; the cap keeps memory
    // bounded on machines with many cores.
    let (tx, rx) = mpsc::sync_channel::<Message>((workers * 2).clamp(2, 8));

    let scan = std::thread::scope(|scope| {
        for _ in 0..readers {
            let tx = tx.clone();
            let (next, errors, finished, overlaps) = (&next, &errors, &finished, &overlaps);
            scope.spawn(move || {
                loop {
                    let file = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = config.logs.get(file) else {
                        break;
                    };
                    match read_one(file, path, formats, &tx, progress, known, overlaps) {
                        Ok(None) => overlaps.done(file, None),
                        Ok(Some(mut done)) => {
                            overlaps.done(file, Some(done.fingerprint.clone()));
                            // Heads that were files of this run are none
                            // of the state's.
                            done.matched.retain(|&i| i < state_known);
                            if let Ok(mut finished) = finished.lock() {
                                finished.insert(file, done);
                            }
                        }
                        Err(err) => {
                            overlaps.done(file, None);
                            if let Ok(mut errors) = errors.lock() {
                                errors.push((file, err));
                            }
                        }
                    }
                }
            });
        }
        drop(tx);
        pool.install(|| {
            rx.into_iter()
                .par_bridge()
                .map(|(file, chunk, recycler, format)| {
                    let (scan, fetches, counted) = scanner.scan(file, &chunk, &format);
                    progress.add_lines(scan.lines);
                    recycler.recycle(chunk.data);
                    sorter.extend(fetches);
                    if let Some(addresses) = addresses {
                        addresses.extend(counted);
                    }
                    scan
                })
                .reduce(Scan::default, Scan::merge)
        })
    });
    let mut errors = errors.into_inner().unwrap_or_default();
    let finished = finished.into_inner().unwrap_or_default();
    if known.is_none() {
        warn_of_overlaps(&overlaps, &config.logs);
    }
    let (copies, unknowable) = copies_of_earlier(&finished, &overlaps, &config.logs);
    for (file, earlier) in unknowable {
        errors.push((
            file,
            Error::Format {
                path: config.logs[file].clone(),
                at: Position::File,
                cause: format!(
                    "its first lines are those of {0}, and {0} (standard input or a pipe) \
                     cannot be read again to tell whether this log is its head, read twice; \
                     it was left out so that no fetch counts twice: give the logs by their \
                     file names",
                    config.logs[earlier].display()
                ),
            },
        ));
    }
    errors.sort_by_key(|(file, _)| *file);
    (scan, errors, finished, copies)
}

/// What deciding a fetch reads: the same for every fetch of the night.
struct Deciding<'a, 'r> {
    ident: &'a Identifier,
    knowledge: &'a Knowledge,
    /// Each robots.txt version's rules, by crawler.
    policies: &'a [Vec<Policy<'r>>],
    versions: Option<&'a Versions>,
    /// Logs that are another log's head, read twice: their fetches go.
    copies: &'a [usize],
    /// Identities remembered at most (`--memory`).
    identities_kept: usize,
}

/// Where the judged rows go, on the writer's thread: the reports, the
/// other reports' totals, report.html's, and the night's counts.
struct Written<'a, 'n, 'o, 'd> {
    rows: &'a mut report::Rows<'n, 'o>,
    digest: Digest<'d>,
    gather: &'a mut report::html::build::Gather,
    nightly: Option<&'a mut NightRows>,
}

/// The fetches judging left out of every report: of other virtual hosts,
/// and of addresses no evidence tells apart (`Undecided`).
#[derive(Debug, Default)]
struct SetAside {
    other_hosts: u64,
    undecided: Undecided,
    belied: Belied,
}

/// Merges the sorted fetches and judges them, writing every row as it is
/// made; gives the totals for the other reports. The judging (merge,
/// identity, `disallow` in parallel, then rates and delays in order) and
/// the writing of its rows (reports, totals, the night's counts) run on
/// two threads, a batch apart, in the same order as one would.
fn judge<'d, 'r>(
    pool: &rayon::ThreadPool,
    deciding: &Deciding<'_, 'r>,
    judge: &mut Judge<'_, 'r>,
    sorter: Sorter<'_, Fetch>,
    written: Written<'_, '_, '_, 'd>,
) -> Result<(Digest<'d>, SetAside)> {
    let Deciding {
        ident,
        knowledge,
        policies,
        versions,
        copies,
        identities_kept,
    } = *deciding;
    let mut set_aside = SetAside::default();
    // On the pool: the last buffer's sort is shared by the workers.
    let mut merged = pool.install(|| sorter.finish())?;
    let (tx, rx) = mpsc::sync_channel::<Vec<Judged<'r>>>(BATCHES_IN_FLIGHT);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || write_judged(pool, rx, written));
        let judged = (|| -> Result<()> {
            // The next batch, in the merge's order.
            let fill = |merged: &mut Merged<Fetch>| -> Result<Vec<Fetch>> {
                let mut batch = Vec::with_capacity(BATCH);
                let mut bytes = 0;
                while batch.len() < BATCH && bytes < BATCH_BYTES {
                    match merged.next() {
                        Some(fetch) => {
                            let fetch = fetch?;
                            if copies.contains(&(fetch.file as usize)) {
                                continue;
                            }
                            bytes += fetch.size();
                            batch.push(fetch);
                        }
                        None => break,
                    }
                }
                Ok(batch)
            };
            let mut batch = fill(&mut merged)?;
            let mut made: Vec<Violation<'r>> = Vec::new();
            let mut identities = Identities::default();
            loop {
                if batch.is_empty() {
                    return Ok(());
                }
                // A cache: bounded, so that a million made-up clients
                // cannot hold a million identities (SPEC §5 `--memory`).
                if identities.values().map(HashMap::len).sum::<usize>() > identities_kept {
                    identities.clear();
                }
                for fetch in &batch {
                    let clients = identities.entry(fetch.claim).or_default();
                    let known = match clients.get(fetch.client()) {
                        Some(who) => who.is_some(),
                        None => {
                            let who = identify(ident, knowledge, fetch.client(), fetch.claim);
                            if who.as_ref().is_some_and(|(identity, _)| {
                                identity.verification == Verification::Unverified
                            }) {
                                set_aside.belied.note(
                                    ident,
                                    knowledge,
                                    fetch.client(),
                                    fetch.claim,
                                );
                            }
                            let known = who.is_some();
                            clients.insert(fetch.client().into(), who);
                            known
                        }
                    };
                    if !known && fetch.claim.is_none() && !fetch.before_period && !fetch.other_host
                    {
                        set_aside.undecided.note(ident, knowledge, fetch.client());
                    }
                }
                // The next batch is merged while this one is decided: the
                // merge is the one thing here that waits on nothing else.
                let (decided, next): (Vec<Decided<'r>>, _) = pool.install(|| {
                    rayon::join(
                        || {
                            batch
                                .par_drain(..)
                                .map(|fetch| decide(&identities, policies, versions, fetch))
                                .collect()
                        },
                        || fill(&mut merged),
                    )
                });
                let mut out = Vec::with_capacity(decided.len());
                for decided in decided {
                    match decided {
                        Decided::Counted(counted, disallow) => {
                            judge.judge(&counted, disallow, &mut made);
                            out.push(Judged::Counted(counted, std::mem::take(&mut made)));
                        }
                        Decided::Impostor(impostor) => out.push(Judged::Impostor(impostor)),
                        Decided::Nobody => {}
                        Decided::OtherHost => set_aside.other_hosts += 1,
                        Decided::Before(counted) => judge.observe_before(&counted),
                    }
                }
                if tx.send(out).is_err() {
                    // The writer stopped on an error, which it gives.
                    return Ok(());
                }
                batch = next?;
            }
        })();
        drop(tx);
        let digest = match writer.join() {
            Ok(digest) => digest,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        judged?;
        Ok((digest?, set_aside))
    })
}

/// Judged fetches whose rows one worker formats at a time.
const FORMAT_SPAN: usize = 512;

/// Writes what the judge made, batch by batch in its order: each row into
/// the reports (formatted by the workers, written here in order), the
/// totals of the others, and the night's counts. A batch's rows are
/// formatted while its totals are counted: both only read the batch, and
/// on two cores the one runs beside the other rather than after it.
fn write_judged<'d>(
    pool: &rayon::ThreadPool,
    batches: mpsc::Receiver<Vec<Judged<'_>>>,
    written: Written<'_, '_, '_, 'd>,
) -> Result<Digest<'d>> {
    let Written {
        rows,
        mut digest,
        gather,
        mut nightly,
    } = written;
    let names = rows.names();
    for batch in batches {
        let format = || -> Vec<report::Formatted> {
            batch
                .par_chunks(FORMAT_SPAN)
                .map(|span| {
                    let mut out = report::Formatted::default();
                    for judged in span {
                        match judged {
                            Judged::Counted(counted, made) => {
                                for row in made {
                                    out.violation(&names, counted, row);
                                }
                            }
                            Judged::Impostor(impostor) => out.impostor(&names, impostor),
                        }
                    }
                    out
                })
                .collect()
        };
        let count = || count_judged(&batch, &mut digest, gather, nightly.as_deref_mut());
        let (formatted, ()) = pool.install(|| rayon::join(format, count));
        for span in formatted {
            rows.formatted(&span)?;
        }
    }
    // On the pool: the sort of the last (rule, target) pairs is shared.
    pool.install(|| digest.finish())
}
