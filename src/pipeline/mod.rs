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
//! `run` here calls the stages in that order; each stage lives in a file
//! of its own: `read` (1, 2), `verify` (3), `judge` (4, 5), `night` (6),
//! with `notices` for what standard error says between them. Only this
//! module starts threads (the readers in `read`, the writer in `judge`).

use std::collections::BTreeMap;

use std::sync::Mutex;

use crate::Outcome;
use crate::accesslog::{self, FormatChoice};
use crate::audit::{Counting, Judge, Nights};
use crate::config::AuditConfig;

use crate::crawler::Identifier;
use crate::error::{Error, Position, Result};
use crate::fetch::Fetch;
use crate::progress::{self, Progress};
use crate::report::skipped::{self};
use crate::report::{self, Digest, Escaping, Names, summary::Totals};
use crate::robots::versions::Versions;
use crate::scan::{ClientFetches, Scanner};
use crate::spill::{Sorter, SpillDir};
use crate::state::{self, NightRows, State, StateDir};

mod judge;
mod night;
mod notices;
mod read;
mod verify;

use judge::{Compiled, IDENTITY_BYTES, Undecided, judge};
use night::{allowances, in_force_from, in_force_spans, remember_night, trend_of};
use notices::{warn_after_judging, warn_after_scan};
use read::{Formats, Sorters, read_logs, yield_to_readers};
use verify::{load_ptr_map, verify};

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
    // SPEC §6: with one --robots file and no state, nothing of nights
    // applies.
    let nights =
        (config.robots_sources.history.is_some() || config.state.is_some()).then_some(Nights {
            versions: &versions,
            grace_ms: config.robots_grace_ms,
        });
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

    // Each version compiled once per selection; without nights only the
    // one version there is.
    let judged: &[_] = match nights {
        Some(_) => versions.all(),
        None => std::slice::from_ref(versions.latest()),
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
    if let Some(state) = &state {
        let mut strangers = Vec::new();
        let merged = judged_by.merged_by_upgrade(|name| state.counts.contains_key(name));
        for (name, count) in &state.counts {
            if merged.contains(name)
                || !judged_by.resume(name, count.robots_txt, &count.fetch_times_ms)
            {
                strangers.push((name.as_str(), count.robots_txt));
            }
        }
        judged_by.resume_other_rate_by(&strangers);
        let strangers: Vec<&str> = strangers.iter().map(|&(name, _)| name).collect();
        // Counts kept under the other --rate-by cannot be split or merged
        // into tonight's without guessing: said, never silently dropped.
        if !strangers.is_empty() {
            crate::warn!(
                "robots-audit: warning: the state's counts {} were kept under another --rate-by \
                 (or, by an older version, under a profile's token as written rather than its \
                 product token): rates, crawl delays and robots.txt fetches across midnight \
                 start afresh tonight (a 4xx on robots.txt they remember still stands)",
                strangers.join(", ")
            );
        }
    }
    let mut nightly = state.as_ref().map(|_| NightRows::default());
    let mut other_hosts = 0;
    let mut undecided = Undecided::default();
    let digest = judge(
        &pool,
        &ident,
        &knowledge,
        &policies,
        &mut judged_by,
        nights.map(|n| n.versions),
        sorter,
        &mut rows,
        digest,
        &mut gather,
        nightly.as_mut(),
        &copies,
        budget.identities,
        &mut other_hosts,
        &mut undecided,
    )?;
    warn_after_judging(
        config,
        &scan,
        &digest,
        &undecided,
        other_hosts,
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
    let outcome = if !input_errors.is_empty() || dns_health.unusable || undecided.fetches > 0 {
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
    let robots_versions: Vec<(String, Option<String>)> = judged
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
        remember_night(
            state,
            &versions,
            &judged_by,
            &finished,
            &scan,
            nightly,
            &ident,
            started_ms,
            config.state_days,
        );
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
            other_hosts,
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
    let in_force_ms = in_force_spans(judged);
    let allowed = allowances(judged, &policies, &in_force_ms, crawlers.len());
    let sources = report::html::build::Sources {
        robots: judged
            .iter()
            .map(|version| (version.robots().bytes(), version.robots_version()))
            .collect(),
        in_force_ms,
        excused_by,
        allowed: &allowed,
        window_tz: &config.window_tz,
        count_of: judged_by.count_of(),
        trend: state.as_ref().map(|state| trend_of(state, &crawlers)),
    };
    let mut page_data = report::html::build(gather, &digest, &names, &health, &sources);
    let page = report::html::render(&page_data);
    let whole = rows.finish(&digest, &health, &page)?;
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
        Some(Err(e)) => return Err(e),
        None => {}
    }
    if !config.quiet {
        let totals = Totals {
            lines: scan.lines,
            skipped: scan.skipped,
            not_requests: scan.tallies.values().map(|t| t.not_requests).sum(),
            dns_failures: dns_health.failures,
            outside_period: scan.outside_period,
            other_hosts,
            spilled_runs,
        };
        {
            use std::io::Write as _;
            let _ = std::io::stderr()
                .write_all(report::summary::human(&digest, &names, &totals).as_bytes());
        }
    }
    Ok(outcome)
}

/// Milliseconds since the epoch, now.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How `--memory` is shared out. The rest of it goes to what does not
/// grow with the log: the program, the chunks in flight, a batch being
/// judged, the merge's read buffers.
struct Budget {
    /// Fetch records held before a sorted run spills.
    fetches: usize,
    /// (rule, target) pairs held before they spill.
    targets: usize,
    /// Identities the judge remembers before it starts over.
    identities: usize,
    /// Bytes of (address, fetches) records held before they spill
    /// (`--resolve`).
    addresses_sorted: usize,
    /// Addresses outside the crawlers' networks looked up at most
    /// (`--resolve`): each costs its answer, its place in the order of
    /// lookups and in the cache, a few hundred bytes.
    addresses_asked: usize,
}

/// Memory one address looked up holds, all told (`Budget::addresses_asked`).
const ADDRESS_ASKED_BYTES: usize = 512;

impl Budget {
    fn of(memory: u64) -> Budget {
        let memory = usize::try_from(memory).unwrap_or(usize::MAX);
        // Measured: the program with its chunks in flight stays near
        // 20 MiB whatever the log; the shares leave room for the merge's
        // read buffers and a batch being judged.
        Budget {
            fetches: memory / 20 * 7,
            targets: memory / 10,
            identities: (memory / 20 / IDENTITY_BYTES).max(1024),
            addresses_sorted: memory / 40,
            addresses_asked: (memory / 10 / ADDRESS_ASKED_BYTES).max(1024),
        }
    }
}
