//! What standard error says once a stage is done, even under `--quiet`,
//! where the reports alone would let a night pass for clean: crawler
//! fetches of several virtual hosts, trusted proxies a log cannot name,
//! addresses DNS could not decide, a `--host` or `--since`/`--until` that
//! left every fetch out, lines dated after the run's clock (SPEC §1: `--quiet` hides all but errors and such
//! warnings; a clean night is never reported when the logs were not read).

use std::collections::BTreeMap;

use crate::config::AuditConfig;
use crate::report::Digest;
use crate::scan::Scan;

use super::judge::{Belied, Undecided};

/// After the scan: what the lines read say of the flags given.
pub(super) fn warn_after_scan(
    config: &AuditConfig,
    scan: &Scan,
    chosen: &BTreeMap<usize, String>,
    unread: &[usize],
) {
    // Crawler fetches of several virtual hosts, all judged by one
    // robots.txt, though each host has its own (RFC 9309 §2.3): said even
    // under --quiet, with the hosts and how to pick the site's.
    if config.hosts.is_empty() && (scan.hosts.len() > 1 || scan.more_hosts) {
        crate::warn!(
            "robots-audit: warning: fetches claiming a crawler name {}{} virtual hosts ({}), \
         all judged by this one robots.txt; give --host NAME for the site it belongs to",
            if scan.more_hosts { "more than " } else { "" },
            scan.hosts.len(),
            hosts_seen(&scan.hosts),
        );
    }
    // Trusted proxies named for a log that writes no forwarded-for value:
    // every client there is the proxy itself, and a crawler's fetch through
    // it cannot be verified. Said even under --quiet, once a file.
    if !config.trusted_proxies.is_empty() {
        for (&file, tally) in &scan.tallies {
            if tally.parsed() > 0 && tally.with_forwarded == 0 && !unread.contains(&file) {
                // The named formats have no forwarded-for field: their
                // lines may well carry one after the user agent (nginx's
                // default `main`), which only a format given can read.
                let format = chosen.get(&file).map(String::as_str).unwrap_or_default();
                let why = if matches!(format, "combined" | "common" | "vhost_combined") {
                    format!(
                        "it is read as {format}, which has no forwarded-for field: give \
                     --log-format with it (nginx's default `main` ends with \
                     \"$http_x_forwarded_for\")"
                    )
                } else {
                    "its lines carry no forwarded-for value".to_string()
                };
                crate::warn!(
                    "robots-audit: warning: {}: --trusted-proxy is given, but {why}: their \
                 clients are the connecting addresses, proxies included",
                    config.logs[file].display()
                );
            }
        }
    }
    // A line dated past tomorrow (a server's clock set years ahead) goes
    // into the state as the latest the count knows: every later night is
    // then older than it, and rates and delays across midnight see only
    // what it lets the state keep. Said even under --quiet, with --state.
    if config.state.is_some() {
        let tomorrow_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(i64::MAX, |now| {
                i64::try_from(now.as_millis()).unwrap_or(i64::MAX)
            })
            .saturating_add(86_400_000);
        for (&file, tally) in &scan.tallies {
            if let Some(last) = tally.last_time.filter(|t| t.instant_ms() > tomorrow_ms) {
                crate::warn!(
                    "robots-audit: warning: {}: lines are dated up to {}, after this run's \
                     clock: a server's clock may be wrong; the state keeps such times as \
                     the latest it knows",
                    config.logs[file].display(),
                    last.rfc3339()
                );
            }
        }
    }
}

/// After judging: fetches left undecided, and flags that left every
/// crawler fetch out. Counts the undecided fetches into `dns_health`.
pub(super) fn warn_after_judging(
    config: &AuditConfig,
    scan: &Scan,
    digest: &Digest,
    undecided: &Undecided,
    belied: &Belied,
    other_hosts: u64,
    dns_health: &mut crate::report::run::DnsHealth,
) {
    // Said even under --quiet: a resolver that lies about the crawler's
    // own addresses would otherwise leave only unverified rows behind it.
    if let Some((addr, name)) = &belied.first {
        let count = belied.addresses.len() as u64;
        dns_health.failures += count;
        dns_health.broken += count;
        crate::warn!(
            "robots-audit: the DNS resolver looks lying or filtering: it names {count} \
             address(es) inside a crawler's own networks, whose fetches claim that crawler, \
             with names that are not its (first {addr}: {}); no impostor holds a \
             connection from there, so their fetches stay unverified and the answers are not \
             cached",
            crate::text::escape_non_utf8(name.as_bytes())
        );
    }
    // Said even under --quiet, and the night is not whole: with --state
    // these fetches would otherwise never be looked at again.
    dns_health.undecided_fetches = undecided.fetches;
    if undecided.fetches > 0 {
        let shown: Vec<String> = undecided
            .addresses
            .iter()
            .map(ToString::to_string)
            .collect();
        crate::warn!(
            "robots-audit: DNS failed for address(es) inside a crawler's networks ({}{}): their \
         {} fetch(es) whose user agent names no crawler may be the crawler's, and only DNS \
         could tell; they are in no report and the run is incomplete (exit 2, the state \
         left as it was): run again when the resolver answers",
            shown.join(", "),
            if undecided.addresses.len() == Undecided::SHOWN {
                ", …"
            } else {
                ""
            },
            undecided.fetches
        );
    }
    // A --host that names none of the fetches claiming a crawler (the log writes
    // `site.cz`, the flag says `www.site.cz`), or a --since/--until that
    // holds none of them (a cron line a day off, a window in the wrong
    // zone): every fetch was left out, which must not pass for a clean
    // night. Said even under --quiet. Fetches outside the window are
    // counted before they are judged (spoofed ones too, as claims), those
    // of other hosts after.
    // Said of the crawler's own fetches: a spoofed fetch audited inside
    // the window is none of them (SPEC §2), and the window's count, taken
    // before fetches are judged, holds spoofed claims too.
    let outside = scan.outside_period;
    let none_audited = digest.crawlers.iter().flatten().all(|c| c.fetches == 0);
    // A --host among several, or beside a log with no host field, that
    // names none of the hosts the crawler's fetches were of (a typo): the
    // night still audits the others, so the typo would pass unseen. Only
    // when every host seen is known (at most `HOSTS_KEPT` of them), and
    // not when the warning below says it of every fetch already.
    let said_below = none_audited && outside == 0 && other_hosts > 0;
    if !config.hosts.is_empty() && !scan.hosts.is_empty() && !scan.more_hosts && !said_below {
        for name in config.hosts.names() {
            if !scan.hosts.contains_key(name) {
                crate::warn!(
                    "robots-audit: warning: --host {} names none of the fetches claiming a \
                 crawler, whose virtual hosts are {}: is the name written as the log's \
                 virtual-host field writes it?",
                    crate::text::escape_non_utf8(name),
                    hosts_seen(&scan.hosts),
                );
            }
        }
    }
    if none_audited {
        match (outside, other_hosts) {
            (0, 0) => {}
            (0, hosts) => crate::warn!(
                "robots-audit: warning: every crawler fetch ({hosts}) was of another host than \
             --host names{}: is the name written as the log's virtual-host field writes it?",
                if scan.hosts.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (the virtual hosts of fetches claiming a crawler, spoofed ones \
                     too: {}{})",
                        hosts_seen(&scan.hosts),
                        if scan.more_hosts { " and more" } else { "" }
                    )
                }
            ),
            (outside, 0) => crate::warn!(
                "robots-audit: warning: no crawler fetch was audited: {outside} fetches claiming \
             a crawler were outside --since/--until; is the window the night's?"
            ),
            (outside, hosts) => crate::warn!(
                "robots-audit: warning: no crawler fetch was audited: {outside} fetches claiming \
             a crawler were outside --since/--until, and the crawler's {hosts} within it of \
             another host than --host names"
            ),
        }
    }
}

/// The virtual hosts the crawler's fetches were of, as warnings name them:
/// the three with the most fetches, each with its count, then `…` when
/// there were more; each kept to 8 KiB as log text is in the reports (a
/// Host header is the client's to write).
fn hosts_seen(hosts: &BTreeMap<Box<[u8]>, u64>) -> String {
    let mut seen: Vec<(&[u8], u64)> = hosts.iter().map(|(h, &n)| (&h[..], n)).collect();
    seen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<String> = seen
        .iter()
        .take(3)
        .map(|(host, n)| {
            let kept = crate::text::bound(host);
            format!("{} {n}", crate::text::escape_non_utf8(&kept))
        })
        .collect();
    format!(
        "{}{}",
        named.join(", "),
        if seen.len() > 3 { ", …" } else { "" }
    )
}
