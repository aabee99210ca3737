//! `run.json` (SPEC §7): what the run read and decided, for monitoring —
//! the tool's version and arguments, each log file with its format, lines
//! read and skipped by reason, first and last time and error, the
//! robots.txt versions used, DNS outcomes, the counts per crawler and kind,
//! and the exit status. Takes the findings and the run's health; gives one
//! JSON object.

use std::collections::BTreeMap;
use std::io;

use serde_json::{Map, Value, json};

use super::Names;
use super::digest::Digest;
use super::skipped::Tally;
use super::summary;
use crate::accesslog::{Skip, Timestamp};

/// How live DNS went, for `run.json`, the page and the mail: addresses it
/// could not check (their fetches stay unverified), whether no resolver
/// could be used, how many "no name" answers inside a crawler's networks
/// showed the resolver broken (counted among the failures), and whether
/// `--dns-deadline` cut the lookups short.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DnsHealth {
    pub failures: u64,
    pub unusable: bool,
    pub broken: u64,
    pub deadline_reached: bool,
    /// Fetches from inside a crawler's networks, with no crawler's user
    /// agent, that only DNS could name and whose lookup failed: in no
    /// report, and the run is incomplete (`Knowledge::undecided`).
    pub undecided_fetches: u64,
}

/// What the run knows about itself beyond the findings.
pub struct Health<'a> {
    /// The command line as typed, program name left out.
    pub arguments: &'a [String],
    /// The format each file was read in, by file index (`auto` chooses
    /// one for each file).
    pub formats: &'a BTreeMap<usize, String>,
    /// Each file's lines, by file index.
    pub tallies: &'a BTreeMap<usize, Tally>,
    /// Lines at the head of each file that a run audited before (SPEC §6),
    /// by file index.
    pub already_audited: &'a BTreeMap<usize, u64>,
    /// The error that kept a file from being read whole, by file index.
    pub errors: &'a BTreeMap<usize, String>,
    /// (robots_version, in force from) of every robots.txt version used.
    pub robots_versions: &'a [(String, Option<String>)],
    /// Whether `--resolve` asked DNS, and how it went.
    pub dns_asked: bool,
    pub dns: DnsHealth,
    /// SPEC §6: fetches the cache grace excused.
    pub excused_by_cache_grace: u64,
    /// Crawler fetches left out by `--since`/`--until` and by `--host`.
    pub left_out: LeftOut,
    /// Why the state could not be saved (`--state`), which alone makes
    /// the run exit 2; `None` when it was, or there is none.
    pub state_error: Option<String>,
    pub exit_status: u8,
}

/// Crawler fetches the run was told to leave out: they are in no report,
/// and a night of nothing else is no clean one (SPEC §1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Outside `--since`/`--until`: counted before they are judged, so
    /// the fetches that claim a crawler, spoofed ones included.
    pub outside_since_until: u64,
    /// Of another host than `--host` names.
    pub other_hosts: u64,
}

fn time(value: Option<Timestamp>) -> Value {
    value.map_or(Value::Null, |t| Value::String(t.rfc3339()))
}

/// The object, as `run.json` holds it.
pub fn value(digest: &Digest<'_>, names: &Names<'_>, health: &Health<'_>) -> Value {
    let files: Vec<Value> = names
        .files
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let tally = health.tallies.get(&index).copied().unwrap_or_default();
            let mut skipped = Map::new();
            for (skip, count) in Skip::ALL.iter().zip(tally.reasons) {
                if count > 0 {
                    skipped.insert(skip.reason().to_string(), json!(count));
                }
            }
            json!({
                // As the CSVs write it: a byte outside UTF-8 as `\xNN`, so
                // that two names stay two (`\u{FFFD}` would merge them), a
                // backslash doubled, every control and bidi control (a
                // tab too) escaped.
                "file": crate::text::visible(&crate::text::name_text(
                    path.as_os_str().as_encoded_bytes()
                ))
                .into_owned(),
                "format": health.formats.get(&index),
                "lines_read": tally.lines,
                "lines_skipped": tally.skipped,
                "not_requests": tally.not_requests,
                "skipped": skipped,
                "already_audited": health.already_audited.get(&index).copied().unwrap_or(0),
                "first_time": time(tally.first_time),
                "last_time": time(tally.last_time),
                // As standard error writes it: the message may quote the
                // log (a JSON line's keys), and serde_json escapes only C0.
                "error": health
                    .errors
                    .get(&index)
                    .map(|e| crate::text::message_safe(e).into_owned()),
            })
        })
        .collect();
    let robots_versions: Vec<Value> = health
        .robots_versions
        .iter()
        .map(|(version, from)| json!({"robots_version": version, "in_force_from": from}))
        .collect();
    // Rows whose note only informs, apart: the mail and the page leave
    // them out of the verdict (SPEC §7).
    let informing = |crawler: &str, kind: crate::audit::Kind| -> u64 {
        names
            .crawlers
            .iter()
            .position(|c| c == crawler)
            .and_then(|i| digest.crawlers.get(i)?.as_ref())
            .map_or(0, |t| {
                t.kinds[crate::audit::Kind::ALL
                    .iter()
                    .position(|&k| k == kind)
                    .unwrap_or(0)]
                .informing
            })
    };
    let counts: Vec<Value> = summary::rows(digest, names)
        .into_iter()
        .map(|line| {
            let kind = line.kind.as_str();
            json!({
                "crawler": line.crawler,
                "kind": kind,
                "fetches": line.fetches,
                "violations": line.violations,
                "informing": informing(&line.crawler, line.kind),
                "distinct_targets": line.distinct_targets,
            })
        })
        .collect();
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "arguments": health
            .arguments
            .iter()
            .map(|argument| crate::text::visible(argument).into_owned())
            .collect::<Vec<_>>(),
        "files": files,
        "robots_versions": robots_versions,
        "dns": {
            "asked": health.dns_asked,
            "failures": health.dns.failures,
            "resolver_unusable": health.dns.unusable,
            "resolver_broken": health.dns.broken,
            "deadline_reached": health.dns.deadline_reached,
            "undecided_fetches": health.dns.undecided_fetches,
        },
        "impostor_fetches": digest.impostor_fetches,
        "excused_by_cache_grace": health.excused_by_cache_grace,
        "crawler_fetches_left_out": {
            "outside_since_until": health.left_out.outside_since_until,
            "other_hosts": health.left_out.other_hosts,
        },
        "counts": counts,
        "state_error": health
            .state_error
            .as_deref()
            .map(|e| crate::text::message_safe(e).into_owned()),
        "exit_status": health.exit_status,
    })
}

pub fn write_run(
    digest: &Digest<'_>,
    names: &Names<'_>,
    health: &Health<'_>,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &value(digest, names, health))
        .map_err(io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()
}
