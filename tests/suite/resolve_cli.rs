//! `--resolve` through the binary, against a DNS server the test starts on
//! 127.0.0.1: genuine crawlers become `verified`, a forged PTR and an
//! address with no name become impostors, silence leaves a fetch
//! `unverified`, and the cache spares the second night's queries; a cache
//! that other users may write is not trusted. SPEC §2's finer points: no
//! name inside Seznam's networks is a broken resolver, another crawler's
//! name refutes a claim, a single word or a logged host name is never
//! confirmed, and no usable resolver still gives the reports (exit 2).

use crate::support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::dns_server::{Behaviour, DnsServer, Zone};

const SEZNAM_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";

fn line(addr: &str, second: u32, target: &str, ua: &str) -> String {
    format!(
        "{addr} - - [30/Nov/2026:00:00:{second:02} +0000] \"GET {target} HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n"
    )
}

/// SPEC §5 `robots_version` of `tests/data/check/robots.txt`: the first 12
/// hex digits of its SHA-256 (`sha256sum tests/data/check/robots.txt`).
const VERSION: &str = "99b903d6607f";

fn zone() -> Zone {
    Zone::default()
        .host("77.75.77.1", "fulltextrobot-77-75-77-1.seznam.cz")
        .host(
            "2a02:598:a::78:91",
            "fulltextrobot-fresh-2a02-598-a--78-91.seznam.cz",
        )
        .ptr("6.6.6.6", "fulltextrobot-6-6-6-6.seznam.cz")
        .addr("fulltextrobot-6-6-6-6.seznam.cz", "77.75.77.66")
        .behave("6.6.6.9", Behaviour::Silent)
}

fn audit(server: &DnsServer, dir: &std::path::Path, log: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("--log")
        .arg(log)
        .args([
            "--robots",
            "tests/data/check/robots.txt",
            "--resolve",
            "--dns-server",
        ])
        .arg(server.addr.to_string())
        .args([
            "--dns-timeout",
            "0.3",
            "--dns-deadline",
            "20",
            "--dns-cache",
        ])
        .arg(dir.join("cache.tsv"))
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("run robots-audit")
}

#[test]
fn live_dns_verifies_and_exposes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let text = [
        line("77.75.77.1", 1, "/cz/chat/a", SEZNAM_UA),
        line("2a02:598:a::78:91", 2, "/cz/chat/b", SEZNAM_UA),
        line("6.6.6.6", 3, "/cz/chat/c", SEZNAM_UA),
        line("6.6.6.8", 4, "/cz/chat/d", SEZNAM_UA),
        line("6.6.6.9", 5, "/cz/chat/e", SEZNAM_UA),
        line("10.1.1.1", 6, "/cz/chat/f", "Mozilla/5.0 Firefox/120.0"),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let server = DnsServer::start(zone());

    let out = audit(&server, dir.path(), &log);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = log.display().to_string();
    let violations = std::fs::read_to_string(dir.path().join("out/violations.csv")).unwrap();
    assert_eq!(
        violations,
        format!(
            "time,file,line,client,crawler,verification,identified_by,method,target,status,kind,group,rule_line,rule,detail,note,robots_version\n\
             2026-11-30T00:00:01+00:00,{file},1,77.75.77.1,SeznamBot,verified,ua+ptr,GET,/cz/chat/a,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:02+00:00,{file},2,2a02:598:a::78:91,FreshBot,verified,ua+ptr,GET,/cz/chat/b,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:05+00:00,{file},5,6.6.6.9,SeznamBot,unverified,ua,GET,/cz/chat/e,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n"
        )
    );
    let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
    assert_eq!(
        impostors,
        format!(
            "time,file,line,client,ptr,claimed_crawler,method,target,status,user_agent\n\
             2026-11-30T00:00:03+00:00,{file},3,6.6.6.6,fulltextrobot-6-6-6-6.seznam.cz,SeznamBot,GET,/cz/chat/c,200,{SEZNAM_UA}\n\
             2026-11-30T00:00:04+00:00,{file},4,6.6.6.8,,SeznamBot,GET,/cz/chat/d,200,{SEZNAM_UA}\n"
        )
    );
    // SPEC §7: one row per spoofing address, with why it is not the
    // crawler's: a crawler's own name whose forward lookup disowns the
    // address, and an address with no name.
    let addresses = std::fs::read_to_string(dir.path().join("out/impostor-addresses.csv")).unwrap();
    assert_eq!(
        addresses,
        "client,claimed_crawlers,fetches,ptr,reason,first_time,last_time\n\
         6.6.6.6,SeznamBot,1,fulltextrobot-6-6-6-6.seznam.cz,forward-mismatch,2026-11-30T00:00:03+00:00,2026-11-30T00:00:03+00:00\n\
         6.6.6.8,SeznamBot,1,,no-ptr,2026-11-30T00:00:04+00:00,2026-11-30T00:00:04+00:00\n"
    );
    let rules = std::fs::read_to_string(dir.path().join("out/rules.csv")).unwrap();
    assert_eq!(
        rules,
        format!(
            "robots_version,rule_line,rule,group,kind,violations,distinct_targets,crawlers,first_time,last_time\n\
             {VERSION},6,Disallow: /cz/chat/,SeznamBot,disallow,3,3,FreshBot|SeznamBot,2026-11-30T00:00:01+00:00,2026-11-30T00:00:05+00:00\n"
        )
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 address could not be checked"),
        "{stderr}"
    );
    let browsers_asked = server
        .log()
        .iter()
        .any(|(name, _)| name.contains("1.1.1.10"));
    assert!(
        !browsers_asked,
        "a browser's address was looked up: {:?}",
        server.log()
    );

    // The next night: the answers that were had come from the cache; only
    // the address that failed is asked again.
    let before = server.queries();
    let again = audit(&server, dir.path(), &log);
    assert_eq!(
        again.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let asked: Vec<String> = server.log()[before..]
        .iter()
        .map(|(name, _)| name.clone())
        .collect();
    assert!(
        asked.iter().all(|name| name.contains("9.6.6.6")),
        "second run asked {asked:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/violations.csv")).unwrap(),
        violations
    );
}

/// SPEC §1: a DNS cache that other users may write is not trusted. A line
/// planted in it would make an impostor's address verified without asking
/// anybody; it is ignored with a warning naming it, and DNS is asked.
#[test]
fn a_dns_cache_others_may_write_is_ignored_with_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("access.log");
    std::fs::write(&log, line("6.6.6.6", 3, "/cz/chat/c", SEZNAM_UA)).unwrap();
    let server = DnsServer::start(zone());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let cache = dir.path().join("cache.tsv");
    let forged = format!(
        "# robots-audit dns cache 1\n6.6.6.6\t{now}\tnames\tfulltextrobot-6-6-6-6.seznam.cz\tconfirmed\n"
    );
    // Trusted (this user's, nobody else may write it), the planted line
    // is believed: the cache does what it is for.
    for (mode, trusted) in [(0o644, true), (0o664, false), (0o646, false)] {
        std::fs::write(&cache, &forged).unwrap();
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = audit(&server, dir.path(), &log);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
        let warned = stderr.contains(&format!(
            "DNS cache {} ignored and left as it is: writable by other users",
            cache.display()
        ));
        assert_eq!(warned, !trusted, "{mode:o}: {stderr}");
        if !trusted {
            // Never replaced: the file is not the run's to write.
            assert_eq!(std::fs::read_to_string(&cache).unwrap(), forged);
            let kept = std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
            assert_eq!(kept, mode, "{mode:o}");
        }
        assert_eq!(
            impostors.contains("6.6.6.6"),
            !trusted,
            "{mode:o}: {impostors}"
        );
    }
}
/// The mail (`robots-audit summary`) of the reports in `out`.
fn mail_of(out: &Path) -> String {
    let mail = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("summary")
        .arg(out)
        .output()
        .expect("run robots-audit summary");
    String::from_utf8_lossy(&mail.stdout).into_owned()
}

/// Runs an audit with `--resolve` and no DNS cache; `extra` says how to
/// reach DNS.
fn audit_with(dir: &Path, log: &str, extra: &[&str], env: Option<(&str, &Path)>) -> Output {
    let path = dir.join("access.log");
    std::fs::write(&path, log).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_robots-audit"));
    command
        .arg("--log")
        .arg(&path)
        .args([
            "--robots",
            "tests/data/check/robots.txt",
            "--resolve",
            "--no-dns-cache",
        ])
        .args(extra)
        .arg("--out")
        .arg(&out);
    if let Some((name, value)) = env {
        command.env(name, value);
    }
    command.output().expect("run robots-audit")
}

/// `audit_with` asking `server`, each lookup given 0.3 s, then `extra`.
fn audit_at(server: &DnsServer, dir: &Path, log: &str, extra: &[&str]) -> Output {
    let addr = server.addr.to_string();
    let mut args = vec!["--dns-server", addr.as_str(), "--dns-timeout", "0.3"];
    args.extend_from_slice(extra);
    audit_with(dir, log, &args, None)
}

/// The rows of a report, split on commas (the values used here hold none).
fn report(dir: &Path, name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(dir.join("out").join(name))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// (client, verification) of every `disallow` row, in report order.
fn disallow_rows(dir: &Path) -> Vec<(String, String)> {
    report(dir, "violations.csv")
        .into_iter()
        .filter(|r| r[10] == "disallow")
        .map(|r| (r[3].clone(), r[5].clone()))
        .collect()
}

#[test]
fn single_words_host_names_and_denied_seznam_addresses_are_never_impostors() {
    let dir = tempfile::tempdir().unwrap();
    let server = DnsServer::start(
        Zone::default()
            .host("77.75.77.1", "fulltextrobot-77-75-77-1.seznam.cz")
            .host("77.75.77.2", "fulltextrobot-77-75-77-2.seznam.cz"),
    );
    let log = [
        line("unknown", 1, "/cz/chat/a", SEZNAM_UA),
        line("localhost", 2, "/cz/chat/b", SEZNAM_UA),
        // The server logged a name; DNS would confirm it, but the address
        // it stood for is not in the log.
        line(
            "fulltextrobot-77-75-77-1.seznam.cz",
            3,
            "/cz/chat/c",
            SEZNAM_UA,
        ),
        // Inside 77.75.72.0/21 and 2a02:598::/32, yet "no such name".
        line("77.75.77.9", 4, "/cz/chat/d", SEZNAM_UA),
        line("2a02:598:a::9", 5, "/cz/chat/e", SEZNAM_UA),
        line("77.75.77.2", 6, "/cz/chat/f", SEZNAM_UA),
    ]
    .concat();
    let out = audit_at(&server, dir.path(), &log, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        disallow_rows(dir.path()),
        [
            ("unknown", "unverified"),
            ("localhost", "unverified"),
            ("fulltextrobot-77-75-77-1.seznam.cz", "ptr-only"),
            ("77.75.77.9", "unverified"),
            ("2a02:598:a::9", "unverified"),
            ("77.75.77.2", "verified"),
        ]
        .map(|(c, v)| (c.to_string(), v.to_string()))
    );
    assert!(report(dir.path(), "impostors.csv").is_empty());
    assert!(stderr.contains("looks broken"), "{stderr}");
    assert!(
        stderr.contains("2 addresses could not be checked"),
        "{stderr}"
    );
    // Neither a single word nor a logged name is asked about.
    let asked: Vec<String> = server.log().into_iter().map(|(name, _)| name).collect();
    assert!(
        asked
            .iter()
            .all(|n| n.ends_with(".arpa") || n == "fulltextrobot-77-75-77-2.seznam.cz"),
        "{asked:?}"
    );
}

#[test]
fn a_seznam_user_agent_from_a_googlebot_name_is_seznambots_impostor() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = dir.path().join("profiles.txt");
    std::fs::write(
        &profiles,
        "crawler: Googlebot\nuser-agent: Googlebot\nhost: crawl-<address>.googlebot.com\nnetwork: 66.249.64.0/19\n",
    )
    .unwrap();
    let server =
        DnsServer::start(Zone::default().host("66.249.66.1", "crawl-66-249-66-1.googlebot.com"));
    let log = line("66.249.66.1", 1, "/cz/chat/a", SEZNAM_UA);
    let out = audit_at(
        &server,
        dir.path(),
        &log,
        &["--profiles", profiles.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(report(dir.path(), "violations.csv").is_empty());
    let impostors = report(dir.path(), "impostors.csv");
    let got: Vec<[&str; 3]> = impostors
        .iter()
        .map(|r| [r[3].as_str(), r[4].as_str(), r[5].as_str()])
        .collect();
    assert_eq!(
        got,
        [[
            "66.249.66.1",
            "crawl-66-249-66-1.googlebot.com",
            "SeznamBot"
        ]]
    );
    // Counted for neither crawler.
    assert!(report(dir.path(), "summary.csv").is_empty());
}

/// A `--ptr-map` name of a crawler is put to DNS forward whatever the
/// address's reverse lookup says (SPEC §2 `spoofed`: "the forward lookup of
/// a matching name answered without this address"): confirmed, it is
/// `verified`; answered without the address, an impostor's; inside the
/// crawler's networks a forward "no such name" is a filtering resolver's,
/// which leaves the map's name `ptr-only`.
#[test]
fn a_ptr_map_name_is_confirmed_or_refuted_forward() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("ptr-map.txt");
    std::fs::write(
        &map,
        "6.6.6.20 fulltextrobot-6-6-6-20.seznam.cz\n\
         6.6.6.21 fulltextrobot-6-6-6-21.seznam.cz\n\
         6.6.6.22 FULLTEXTROBOT-6-6-6-22.SEZNAM.CZ.\n\
         77.75.77.23 fulltextrobot-77-75-77-23.seznam.cz\n",
    )
    .unwrap();
    let server = DnsServer::start(
        Zone::default()
            // No reverse name; the map's name leads back.
            .addr("fulltextrobot-6-6-6-20.seznam.cz", "6.6.6.20")
            // Another reverse name; the map's name leads elsewhere.
            .ptr("6.6.6.21", "other-21.example.com")
            .addr("fulltextrobot-6-6-6-21.seznam.cz", "6.6.6.99")
            // The map's name is no name at all (6.6.6.22).
            // Inside Seznam's networks: another reverse name, and the
            // map's name is no name to this resolver.
            .ptr("77.75.77.23", "other-23.example.com"),
    );
    let log = [
        line("6.6.6.20", 1, "/cz/chat/a", SEZNAM_UA),
        line("6.6.6.21", 2, "/cz/chat/b", SEZNAM_UA),
        line("6.6.6.22", 3, "/cz/chat/c", SEZNAM_UA),
        line("77.75.77.23", 4, "/cz/chat/d", SEZNAM_UA),
    ]
    .concat();
    let out = audit_at(
        &server,
        dir.path(),
        &log,
        &["--ptr-map", map.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let violations = report(dir.path(), "violations.csv");
    let counted: Vec<[&str; 3]> = violations
        .iter()
        .map(|r| [r[3].as_str(), r[5].as_str(), r[6].as_str()])
        .collect();
    assert_eq!(
        counted,
        [
            ["6.6.6.20", "verified", "ua+ptr"],
            ["77.75.77.23", "ptr-only", "ua+ptr"],
        ],
        "{stderr}"
    );
    let impostors = report(dir.path(), "impostor-addresses.csv");
    let spoofed: Vec<[&str; 2]> = impostors
        .iter()
        .map(|r| [r[0].as_str(), r[4].as_str()])
        .collect();
    assert_eq!(
        spoofed,
        [
            ["6.6.6.21", "forward-mismatch"],
            ["6.6.6.22", "forward-mismatch"],
        ]
    );
}

/// An address outside the crawlers' networks that the DNS cache of the
/// nights before names a crawler's host (confirmed forward) is known before
/// the scan, as a PTR map's: its fetches whose user agent claims nothing
/// are kept and judged as the crawler's (`identified_by` `ptr`), as SPEC
/// §2 says ("or when its address's PTR name matches").
#[test]
fn an_address_the_dns_cache_names_judges_its_fetches_that_claim_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = DnsServer::start(zone().host("6.6.6.40", "fulltextrobot-6-6-6-40.seznam.cz"));
    let night = |name: &str, log: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, log).unwrap();
        audit(&server, dir.path(), &path)
    };
    // The first night: a claim, so the address is asked and cached.
    let first = night("n1.log", &line("6.6.6.40", 1, "/ok", SEZNAM_UA));
    assert!(
        first.status.code() == Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // The next night: a fetch that claims no crawler.
    let browser = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
    let second = night("n2.log", &line("6.6.6.40", 2, "/cz/chat/a", browser));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    let rows: Vec<[String; 3]> = report(dir.path(), "violations.csv")
        .into_iter()
        .map(|r| [r[3].clone(), r[5].clone(), r[6].clone()])
        .collect();
    assert_eq!(
        rows,
        [[
            "6.6.6.40".to_string(),
            "verified".to_string(),
            "ptr".to_string()
        ]],
        "{stderr}"
    );
}

/// A resolver found broken (it says a Seznam address has no name) is not
/// believed when it says a `--ptr-map` name has no such address either:
/// the map's name stays `ptr-only`, where a working resolver's "no such
/// name" makes the fetch an impostor's.
#[test]
fn a_broken_resolvers_forward_denial_of_a_map_name_accuses_no_one() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("ptr-map.txt");
    std::fs::write(&map, "6.6.6.81 fulltextrobot-6-6-6-81.seznam.cz\n").unwrap();
    let verdict = |log: &str| -> (Vec<String>, Vec<String>, String) {
        let server = DnsServer::start(Zone::default());
        let out = audit_at(
            &server,
            dir.path(),
            log,
            &["--ptr-map", map.to_str().unwrap()],
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let counted = report(dir.path(), "violations.csv")
            .iter()
            .map(|r| format!("{},{}", r[3], r[5]))
            .collect();
        let impostors = report(dir.path(), "impostors.csv")
            .iter()
            .map(|r| r[3].clone())
            .collect();
        (counted, impostors, stderr)
    };
    let alone = line("6.6.6.81", 1, "/cz/chat/a", SEZNAM_UA);
    let (counted, impostors, stderr) = verdict(&alone);
    assert!(counted.is_empty(), "{stderr}");
    assert_eq!(impostors, ["6.6.6.81"], "{stderr}");
    let with_seznam = [alone, line("77.75.77.123", 2, "/cz/chat/b", SEZNAM_UA)].concat();
    let (counted, impostors, stderr) = verdict(&with_seznam);
    assert_eq!(
        counted,
        ["6.6.6.81,ptr-only", "77.75.77.123,unverified"],
        "{stderr}"
    );
    assert!(impostors.is_empty(), "{stderr}");
    assert!(stderr.contains("the DNS resolver looks broken"), "{stderr}");
}

/// A `--ptr-map` name whose forward lookup fails proves nothing (the fetch
/// stays `ptr-only`), and the failure is counted as SPEC §2 asks of every
/// DNS failure: in run.json's `dns.failures` and on standard error.
#[test]
fn a_ptr_map_name_whose_forward_lookup_fails_is_a_dns_failure() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("ptr-map.txt");
    std::fs::write(&map, "6.6.6.32 fulltextrobot-6-6-6-32.seznam.cz\n").unwrap();
    let server = DnsServer::start(
        Zone::default()
            .ptr("6.6.6.32", "static.provider.example")
            .behave("fulltextrobot-6-6-6-32.seznam.cz", Behaviour::ServFail),
    );
    let log = line("6.6.6.32", 1, "/cz/chat/a", SEZNAM_UA);
    let out = audit_at(
        &server,
        dir.path(),
        &log,
        &["--ptr-map", map.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        disallow_rows(dir.path()),
        [("6.6.6.32".to_string(), "ptr-only".to_string())]
    );
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    assert_eq!(run["dns"]["failures"], 1, "{run}");
    assert!(
        stderr.contains("DNS failed to confirm forward the --ptr-map names of 1 of 1 address"),
        "{stderr}"
    );

    // Each address counts once, and one whose map name was confirmed not
    // at all, whatever its reverse lookup did: of two whose reverse
    // lookups fail, one map name is confirmed and the other's forward
    // lookup fails too: one address could not be checked.
    std::fs::write(
        &map,
        "6.6.6.74 fulltextrobot-6-6-6-74.seznam.cz\n\
         6.6.6.75 fulltextrobot-6-6-6-75.seznam.cz\n",
    )
    .unwrap();
    let server = DnsServer::start(
        Zone::default()
            .behave("6.6.6.74", Behaviour::ServFail)
            .behave("6.6.6.75", Behaviour::ServFail)
            .addr("fulltextrobot-6-6-6-74.seznam.cz", "6.6.6.74")
            .behave("fulltextrobot-6-6-6-75.seznam.cz", Behaviour::ServFail),
    );
    let log = [
        line("6.6.6.74", 1, "/cz/chat/a", SEZNAM_UA),
        line("6.6.6.75", 2, "/cz/chat/b", SEZNAM_UA),
    ]
    .concat();
    let out = audit_at(
        &server,
        dir.path(),
        &log,
        &["--ptr-map", map.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        disallow_rows(dir.path()),
        [
            ("6.6.6.74".to_string(), "verified".to_string()),
            ("6.6.6.75".to_string(), "ptr-only".to_string())
        ],
        "{stderr}"
    );
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    assert_eq!(run["dns"]["failures"], 1, "{run}");
}

#[test]
fn no_usable_system_resolver_still_writes_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let log = [
        line("77.75.77.1", 1, "/cz/chat/a", SEZNAM_UA),
        line("6.6.6.6", 2, "/cz/chat/b", SEZNAM_UA),
    ]
    .concat();
    let no_server = dir.path().join("resolv.conf");
    std::fs::write(&no_server, "# no nameserver line\nsearch example.com\n").unwrap();
    for conf in [no_server, dir.path().join("missing/resolv.conf")] {
        std::fs::remove_dir_all(dir.path().join("out")).ok();
        let out = audit_with(
            dir.path(),
            &log,
            &[],
            Some(("ROBOTS_AUDIT_RESOLV_CONF", &conf)),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("no usable DNS resolver"), "{stderr}");
        assert!(stderr.contains(&conf.display().to_string()), "{stderr}");
        assert_eq!(
            disallow_rows(dir.path()),
            [("77.75.77.1", "unverified"), ("6.6.6.6", "unverified")]
                .map(|(c, v)| (c.to_string(), v.to_string()))
        );
        assert!(
            stderr.contains("2 addresses could not be checked"),
            "{stderr}"
        );
    }
}

#[test]
fn a_closed_dns_port_ends_within_the_deadline_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let closed = {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.local_addr().unwrap().to_string()
    };
    let log = [
        line("77.75.77.1", 1, "/cz/chat/a", SEZNAM_UA),
        line("6.6.6.6", 2, "/cz/chat/b", SEZNAM_UA),
    ]
    .concat();
    let started = Instant::now();
    let out = audit_with(
        dir.path(),
        &log,
        &["--dns-server", &closed, "--dns-deadline", "4"],
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(started.elapsed() < Duration::from_secs(15), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        disallow_rows(dir.path()),
        [("77.75.77.1", "unverified"), ("6.6.6.6", "unverified")]
            .map(|(c, v)| (c.to_string(), v.to_string()))
    );
    assert!(
        stderr.contains("2 addresses could not be checked"),
        "{stderr}"
    );
}

/// A fetch from inside a crawler's networks whose user agent names no
/// crawler is the crawler's only when DNS says so (SPEC §2). When that
/// lookup fails nothing is known: the fetch is in no report, and the night
/// is not called clean (exit 2, so that `--state` does not move past it;
/// the README's "never a clean night"). A failure outside the networks,
/// which anyone can cause, leaves the run as it was.
#[test]
fn a_failed_lookup_that_alone_could_name_a_crawler_is_no_clean_night() {
    let dir = tempfile::tempdir().unwrap();
    let closed = {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.local_addr().unwrap().to_string()
    };
    let browser = "Mozilla/5.0 (compatible; Seznam screenshot-generator 2.1)";
    let log = [
        line("77.75.77.1", 1, "/cz/chat/a", browser),
        line("77.75.77.1", 2, "/cz/chat/b", browser),
        line("6.6.6.6", 3, "/cz/chat/c", browser),
    ]
    .concat();
    let out = audit_with(
        dir.path(),
        &log,
        &["--dns-server", &closed, "--dns-deadline", "3"],
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "DNS failed for address(es) inside a crawler's networks (77.75.77.1): their 2 \
             fetch(es) whose user agent names no crawler may be the crawler's"
        ),
        "{stderr}"
    );
    assert!(report(dir.path(), "violations.csv").is_empty());
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    assert_eq!(run["dns"]["undecided_fetches"], 2, "{run}");
    assert_eq!(run["exit_status"], 2, "{run}");
    // The page and the mail say why the night is incomplete.
    let page = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(
        page.contains("2 fetches from inside a crawler's networks could not be named"),
        "{page}"
    );
    let mail = mail_of(&dir.path().join("out"));
    assert!(
        mail.contains("2 FETCHES FROM INSIDE A CRAWLER'S NETWORKS COULD NOT BE NAMED"),
        "{mail}"
    );

    // A crawler's name whose forward lookup fails names no one either.
    let forward = tempfile::tempdir().unwrap();
    std::fs::create_dir(forward.path().join("out")).unwrap();
    let server = DnsServer::start(
        Zone::default()
            .ptr("77.75.77.7", "fulltextrobot-77-75-77-7.seznam.cz")
            .behave("fulltextrobot-77-75-77-7.seznam.cz", Behaviour::ServFail),
    );
    let log = forward.path().join("access.log");
    std::fs::write(&log, line("77.75.77.7", 1, "/cz/chat/a", browser)).unwrap();
    let out = audit(&server, forward.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("inside a crawler's networks (77.75.77.7): their 1 fetch(es)"),
        "{stderr}"
    );

    // Outside the networks a failed lookup decides nothing either way.
    let log = line("6.6.6.6", 3, "/cz/chat/c", browser);
    let out = audit_with(
        dir.path(),
        &log,
        &["--dns-server", &closed, "--dns-deadline", "3"],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_crawlers_address_named_by_live_dns_counts_whatever_its_user_agent() {
    // SPEC §2: a fetch is a crawler's when its address's PTR name matches,
    // also without the crawler's user agent. Live DNS names addresses only
    // after the scan, so fetches from the crawlers' networks are kept and
    // judged once the name is known, as a PTR map's would be. A crawler's
    // name whose forward lookup answers another address of the networks
    // is the operator's own zone answering: no impostor's fetch, no
    // crawler's, and no failure that leaves the night undecided.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let browser = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    let text = [
        line("77.75.77.1", 1, "/cz/chat/a", SEZNAM_UA),
        line("77.75.77.1", 2, "/cz/chat/b", browser),
        line("77.75.77.5", 3, "/cz/chat/c", browser),
        line("77.75.77.6", 4, "/cz/chat/d", browser),
        line("10.1.1.1", 5, "/cz/chat/e", browser),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let server = DnsServer::start(
        zone()
            .ptr("77.75.77.5", "fulltextrobot-77-75-77-5.seznam.cz")
            .addr("fulltextrobot-77-75-77-5.seznam.cz", "77.75.77.99")
            .host("77.75.77.6", "screenshot.seznam.cz"),
    );
    let out = audit(&server, dir.path(), &log);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cells = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.path().join("out").join(name))
            .unwrap()
            .lines()
            .skip(1)
            .map(|row| {
                let cells: Vec<&str> = row.split(',').collect();
                cells[2..7].join(",")
            })
            .collect()
    };
    assert_eq!(
        cells("violations.csv"),
        [
            "1,77.75.77.1,SeznamBot,verified,ua+ptr",
            "2,77.75.77.1,SeznamBot,verified,ptr",
        ]
    );
    assert!(cells("impostors.csv").is_empty());
    // Browsers outside the crawlers' networks are never looked up.
    assert!(
        !server
            .log()
            .iter()
            .any(|(name, _)| name.contains("1.1.1.10")),
        "{:?}",
        server.log()
    );
}

/// SPEC §2: "A DNS failure (timeout, SERVFAIL, REFUSED) proves nothing:
/// the fetch stays `unverified`", and "a broken or lying resolver never
/// turns a genuine crawler into an impostor". A CNAME chain that loops,
/// forward or reverse, is such a failure, not "no name" or "another
/// address"; a live name whose forward lookup fails is no `ptr-only` (that
/// is for names from the log or the map). A resolver that filters the
/// crawler's names inside its networks is believed on no "not this
/// address" that night.
#[test]
fn garbled_or_failed_answers_never_make_impostors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let test_ua = "Mozilla/5.0 (compatible; SeznamBot/3.2-test4; +http://napoveda.seznam.cz/en/seznambot-intro/)";
    let text = [
        line("77.75.77.192", 1, "/cz/chat/a", SEZNAM_UA),
        line("5.6.7.195", 2, "/cz/chat/b", SEZNAM_UA),
        line("77.75.77.3", 3, "/cz/chat/c", SEZNAM_UA),
        line("77.75.77.4", 4, "/cz/chat/d", "Mozilla/5.0 Firefox/120.0"),
        line("2001:db8::5", 5, "/cz/chat/e", test_ua),
        line("77.75.77.6", 6, "/cz/chat/f", SEZNAM_UA),
        line("77.75.77.7", 7, "/cz/chat/g", SEZNAM_UA),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let zone = Zone::default()
        // A forward lookup that loops: a recursive resolver's SERVFAIL.
        .ptr("77.75.77.192", "fulltextrobot-77-75-77-192.seznam.cz")
        .cname("fulltextrobot-77-75-77-192.seznam.cz", "loop.seznam.cz")
        .cname("loop.seznam.cz", "fulltextrobot-77-75-77-192.seznam.cz")
        // A reverse lookup that loops.
        .cname("195.7.6.5.in-addr.arpa", "195.x.7.6.5.in-addr.arpa")
        .cname("195.x.7.6.5.in-addr.arpa", "195.7.6.5.in-addr.arpa")
        // Matching names whose forward lookups fail.
        .ptr("77.75.77.3", "fulltextrobot-77-75-77-3.seznam.cz")
        .behave("fulltextrobot-77-75-77-3.seznam.cz", Behaviour::ServFail)
        .ptr("77.75.77.4", "fulltextrobot-77-75-77-4.seznam.cz")
        .behave("fulltextrobot-77-75-77-4.seznam.cz", Behaviour::Refused)
        // A SeznamBot-test claim from a SeznamBot name that disowns it.
        .ptr("2001:db8::5", "fulltextrobot-2001-db8--5.seznam.cz")
        .addr("fulltextrobot-2001-db8--5.seznam.cz", "2001:db8::6")
        // Inside Seznam's networks, the name its own reverse zone gave is
        // "no such name" forward, or a sinkhole's 0.0.0.0: a resolver
        // that filters seznam.cz, not an impostor.
        .ptr("77.75.77.6", "fulltextrobot-77-75-77-6.seznam.cz")
        .ptr("77.75.77.7", "fulltextrobot-77-75-77-7.seznam.cz")
        .addr("fulltextrobot-77-75-77-7.seznam.cz", "0.0.0.0");
    let server = DnsServer::start(zone);
    let out = audit(&server, dir.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Line 4 names no crawler and only its name could: the lookup that
    // failed leaves the night incomplete (exit 2), and the fetch is in no
    // report.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("inside a crawler's networks (77.75.77.4): their 1 fetch(es)"),
        "{stderr}"
    );
    let file = log.display().to_string();
    let violations = std::fs::read_to_string(dir.path().join("out/violations.csv")).unwrap();
    assert_eq!(
        violations,
        format!(
            "time,file,line,client,crawler,verification,identified_by,method,target,status,kind,group,rule_line,rule,detail,note,robots_version\n\
             2026-11-30T00:00:01+00:00,{file},1,77.75.77.192,SeznamBot,unverified,ua,GET,/cz/chat/a,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:02+00:00,{file},2,5.6.7.195,SeznamBot,unverified,ua,GET,/cz/chat/b,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:03+00:00,{file},3,77.75.77.3,SeznamBot,unverified,ua,GET,/cz/chat/c,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:05+00:00,{file},5,2001:db8::5,SeznamBot-test,unverified,ua,GET,/cz/chat/e,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:06+00:00,{file},6,77.75.77.6,SeznamBot,unverified,ua,GET,/cz/chat/f,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n\
             2026-11-30T00:00:07+00:00,{file},7,77.75.77.7,SeznamBot,unverified,ua,GET,/cz/chat/g,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,,{VERSION}\n"
        ),
        "{stderr}"
    );
    // The resolver that filters seznam.cz inside the networks is not
    // believed outside them either: the name that disowns 2001:db8::5
    // accuses no one tonight.
    let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
    assert_eq!(
        impostors,
        "time,file,line,client,ptr,claimed_crawler,method,target,status,user_agent\n"
    );
    // Every address could not be checked (the browser's too), and the
    // run warns that the resolver may not be working.
    assert!(
        stderr.contains("7 addresses could not be checked"),
        "{stderr}"
    );
    assert!(
        stderr.contains("DNS failed for 7 of 7 address(es)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the DNS resolver looks broken: it says 2 address(es)"),
        "{stderr}"
    );
}

/// A CNAME chain that loops back to the name asked (a name that is its
/// own CNAME, or two names each other's, ending where it began): the
/// resolver gives up on the name it began with, which read as "no such
/// record". That made a crawler outside Seznam's networks a `no-ptr` or
/// `forward-mismatch` impostor, listed for the firewall and cached for a
/// week. It is a failure that proves nothing (SPEC §2): the fetches stay
/// `unverified`. Inside the networks "no name" is the broken resolver's
/// mark, whatever lies behind it.
#[test]
fn a_cname_chain_that_loops_back_to_the_name_asked_is_a_failure() {
    let zone = Zone::default()
        // Reverse: a name that is its own CNAME.
        .cname("1.1.10.185.in-addr.arpa", "1.1.10.185.in-addr.arpa")
        // Forward: the same.
        .ptr("185.10.1.3", "fulltextrobot-185-10-1-3.seznam.cz")
        .cname(
            "fulltextrobot-185-10-1-3.seznam.cz",
            "fulltextrobot-185-10-1-3.seznam.cz",
        )
        // Forward: two names each other's, the resolver's last hop on the
        // name asked.
        .ptr("185.10.1.5", "fulltextrobot-185-10-1-5.seznam.cz")
        .cname("fulltextrobot-185-10-1-5.seznam.cz", "twin.seznam.cz")
        .cname("twin.seznam.cz", "fulltextrobot-185-10-1-5.seznam.cz")
        // Inside the networks: a reverse name that is its own CNAME.
        .cname("9.77.75.77.in-addr.arpa", "9.77.75.77.in-addr.arpa")
        // Inside the networks: a reverse name whose alias does not exist
        // (an RFC 2317 delegation gone wrong), which the answer shows.
        .cname("12.77.75.77.in-addr.arpa", "12.0-63.77.75.77.in-addr.arpa");
    let server = DnsServer::start(zone);
    // Outside the networks, then inside them, each a night of its own: a
    // resolver found broken inside them would spare the others unasked.
    let nights: [&[(&str, u32)]; 3] = [
        &[("185.10.1.1", 1), ("185.10.1.3", 2), ("185.10.1.5", 3)],
        &[("77.75.77.9", 4)],
        &[("77.75.77.12", 5)],
    ];
    for (night, fetches) in nights.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        let log = dir.path().join("access.log");
        let text: String = fetches
            .iter()
            .map(|&(addr, second)| line(addr, second, "/cz/chat/a", SEZNAM_UA))
            .collect();
        std::fs::write(&log, text).unwrap();
        let out = audit(&server, dir.path(), &log);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let violations = std::fs::read_to_string(dir.path().join("out/violations.csv")).unwrap();
        let rows: Vec<&str> = violations.lines().skip(1).collect();
        assert_eq!(rows.len(), fetches.len(), "{violations}\n{stderr}");
        for row in rows {
            assert!(row.contains(",SeznamBot,unverified,ua,"), "{row}");
        }
        let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
        assert_eq!(impostors.lines().count(), 1, "{impostors}");
        // Inside the networks a loop back to the name asked is "no name"
        // there, the broken resolver's mark; outside them, and a chain
        // that ends on another name anywhere, a failure that marks
        // nothing.
        assert_eq!(stderr.contains("looks broken"), night == 1, "{stderr}");
        let cache = std::fs::read_to_string(dir.path().join("cache.tsv")).unwrap_or_default();
        assert!(
            !cache.contains("noname") && !cache.contains("elsewhere"),
            "{cache}"
        );
    }
}

/// Inside Seznam's networks a reverse answer with no record is "no name",
/// the broken resolver's mark, whatever lies behind it: no question asked
/// to tell a CNAME loop from it may wipe the mark out (one refused, one
/// unanswered, one that finds a CNAME, as in RFC 2317 delegation through
/// a resolver that strips PTR answers). So the night's other "no name"
/// answers are disbelieved, and a genuine crawler outside the networks
/// whose reverse zone the resolver denies is no `no-ptr` impostor, cached
/// for a week.
#[test]
fn no_loop_question_wipes_out_the_broken_resolvers_mark() {
    for behaviour in [Some(Behaviour::Refused), Some(Behaviour::Silent), None] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        let log = dir.path().join("access.log");
        let text = [
            line("77.75.77.8", 1, "/cz/chat/a", SEZNAM_UA),
            line("185.10.0.70", 2, "/cz/chat/b", SEZNAM_UA),
        ]
        .concat();
        std::fs::write(&log, text).unwrap();
        // A reverse name with a record, but no PTR: NOERROR, no answer.
        let zone = Zone::default().addr("8.77.75.77.in-addr.arpa", "192.0.2.8");
        let zone = match behaviour {
            Some(behaviour) => zone.behave_for_cname("77.75.77.8", behaviour),
            None => zone.cname_to_cname_question("77.75.77.8", "8.0-63.77.75.77.in-addr.arpa"),
        };
        // 185.10.0.70 has no reverse name at all: NXDOMAIN.
        let server = DnsServer::start(zone);
        let out = audit(&server, dir.path(), &log);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{behaviour:?}: {stderr}");
        assert!(stderr.contains("looks broken"), "{behaviour:?}: {stderr}");
        let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
        assert_eq!(impostors.lines().count(), 1, "{behaviour:?}: {impostors}");
        let cache = std::fs::read_to_string(dir.path().join("cache.tsv")).unwrap_or_default();
        assert!(!cache.contains("185.10.0.70"), "{behaviour:?}: {cache}");
    }
}

/// SPEC §2: "a broken or lying resolver never turns a genuine crawler into
/// an impostor". Inside Seznam's networks the forward zone is Seznam's: a
/// forward answer with none of its addresses (a filter's block page, a
/// walled garden's private address, a ULA) is the resolver's, and the
/// fetch stays `unverified`, uncached, so that a mended resolver verifies
/// it the next night. Another Seznam address proves nothing either (the
/// name holds the client's own address, and no impostor is inside the
/// networks). A resolver found filtering Seznam's names so is not believed
/// outside the networks that night either: its block page for a Seznam
/// name there accuses no one.
#[test]
fn a_filtering_resolvers_forward_answer_makes_no_impostor() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let text = [
        line("77.75.77.11", 1, "/cz/chat/a", SEZNAM_UA),
        line("77.75.77.12", 2, "/cz/chat/b", SEZNAM_UA),
        line("2a02:598:64:8a00::3100:0", 3, "/cz/chat/c", SEZNAM_UA),
        line("77.75.77.14", 4, "/cz/chat/d", SEZNAM_UA),
        line("6.6.6.15", 5, "/cz/chat/e", SEZNAM_UA),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let lying = Zone::default()
        // A block page.
        .ptr("77.75.77.11", "fulltextrobot-77-75-77-11.seznam.cz")
        .addr("fulltextrobot-77-75-77-11.seznam.cz", "146.112.61.104")
        // A walled garden, through a CNAME.
        .ptr("77.75.77.12", "fulltextrobot-77-75-77-12.seznam.cz")
        .cname(
            "fulltextrobot-77-75-77-12.seznam.cz",
            "walled-garden.isp.example",
        )
        .addr("walled-garden.isp.example", "10.10.10.10")
        // A ULA for an IPv6 crawler.
        .ptr(
            "2a02:598:64:8a00::3100:0",
            "fulltextrobot-2a02-598-64-8a00--3100-0.seznam.cz",
        )
        .addr(
            "fulltextrobot-2a02-598-64-8a00--3100-0.seznam.cz",
            "fd00::53",
        )
        // Seznam's own zone naming another of its addresses.
        .ptr("77.75.77.14", "fulltextrobot-77-75-77-14.seznam.cz")
        .addr("fulltextrobot-77-75-77-14.seznam.cz", "77.75.77.200")
        // Outside the networks, the same block page.
        .ptr("6.6.6.15", "fulltextrobot-6-6-6-15.seznam.cz")
        .addr("fulltextrobot-6-6-6-15.seznam.cz", "146.112.61.104");
    let server = DnsServer::start(lying);
    let out = audit(&server, dir.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let rows = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.path().join("out").join(name))
            .unwrap()
            .lines()
            .skip(1)
            .map(|row| row.split(',').skip(2).take(4).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(
        rows("violations.csv"),
        [
            "1,77.75.77.11,SeznamBot,unverified",
            "2,77.75.77.12,SeznamBot,unverified",
            "3,2a02:598:64:8a00::3100:0,SeznamBot,unverified",
            "4,77.75.77.14,SeznamBot,unverified",
            "5,6.6.6.15,SeznamBot,unverified",
        ],
        "{stderr}"
    );
    assert!(rows("impostors.csv").is_empty(), "{stderr}");
    assert!(
        stderr.contains("the DNS resolver looks broken: it says 3 address(es) inside crawler"),
        "{stderr}"
    );
    // The mended resolver is asked again: the lies were not cached.
    let mended = Zone::default()
        .host("77.75.77.11", "fulltextrobot-77-75-77-11.seznam.cz")
        .host("77.75.77.12", "fulltextrobot-77-75-77-12.seznam.cz")
        .host(
            "2a02:598:64:8a00::3100:0",
            "fulltextrobot-2a02-598-64-8a00--3100-0.seznam.cz",
        );
    let server = DnsServer::start(mended);
    let out = audit(&server, dir.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        rows("violations.csv")[..3],
        [
            "1,77.75.77.11,SeznamBot,verified",
            "2,77.75.77.12,SeznamBot,verified",
            "3,2a02:598:64:8a00::3100:0,SeznamBot,verified",
        ],
        "{stderr}"
    );
}

/// SPEC §2: "a broken or lying resolver never turns a genuine crawler into
/// an impostor". A resolver that names the crawler's own addresses
/// otherwise (a filter's `blocked.dns-filter.example`, `localhost`) is
/// not believed there: no impostor holds a connection from inside the
/// networks. The fetches stay `unverified`, the run says why (even under
/// --quiet) and counts them as failures, and the answers are not cached,
/// so a mended resolver verifies them the next night. Outside the
/// networks a name that is not the crawler's is an impostor's, and a
/// browser inside them with a name of the operator's is nobody's, said
/// of by no warning.
#[test]
fn a_lying_resolver_makes_no_impostor_of_the_crawlers_own_addresses() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let browser = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    let text = [
        line("77.75.77.123", 1, "/cz/chat/a", SEZNAM_UA),
        line("2a02:598:64:8a00::3100:0", 2, "/cz/chat/b", SEZNAM_UA),
        line("6.6.6.20", 3, "/cz/chat/c", SEZNAM_UA),
        line("77.75.77.6", 4, "/cz/chat/d", browser),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let lying = Zone::default()
        .ptr("77.75.77.123", "blocked.dns-filter.example")
        .ptr("2a02:598:64:8a00::3100:0", "localhost")
        .ptr("6.6.6.20", "blocked.dns-filter.example")
        .host("77.75.77.6", "screenshot.seznam.cz");
    let server = DnsServer::start(lying);
    let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("--log")
        .arg(&log)
        .args(["--robots", "tests/data/check/robots.txt", "--resolve", "-q"])
        .arg("--dns-server")
        .arg(server.addr.to_string())
        .args([
            "--dns-timeout",
            "0.3",
            "--dns-deadline",
            "20",
            "--dns-cache",
        ])
        .arg(dir.path().join("cache.tsv"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .expect("run robots-audit");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let rows = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.path().join("out").join(name))
            .unwrap()
            .lines()
            .skip(1)
            .map(|row| row.split(',').skip(2).take(4).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(
        rows("violations.csv"),
        [
            "1,77.75.77.123,SeznamBot,unverified",
            "2,2a02:598:64:8a00::3100:0,SeznamBot,unverified",
        ],
        "{stderr}"
    );
    assert_eq!(
        rows("impostors.csv"),
        ["3,6.6.6.20,blocked.dns-filter.example,SeznamBot"],
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "the DNS resolver looks lying or filtering: it names 2 address(es) inside a \
             crawler's own networks"
        ) && stderr.contains("blocked.dns-filter.example"),
        "{stderr}"
    );
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/run.json")).unwrap())
            .unwrap();
    assert_eq!(run["dns"]["failures"], 2, "{run}");
    assert_eq!(run["dns"]["resolver_broken"], 2, "{run}");
    let cache = std::fs::read_to_string(dir.path().join("cache.tsv")).unwrap();
    assert!(
        cache.contains("6.6.6.20")
            && !cache.contains("77.75.77.123")
            && !cache.contains("2a02:598:64:8a00::3100:0"),
        "{cache}"
    );
    // The mended resolver is asked again and verifies both.
    let mended = Zone::default()
        .host("77.75.77.123", "fulltextrobot-77-75-77-123.seznam.cz")
        .host(
            "2a02:598:64:8a00::3100:0",
            "fulltextrobot-2a02-598-64-8a00--3100-0.seznam.cz",
        )
        .ptr("6.6.6.20", "blocked.dns-filter.example")
        .host("77.75.77.6", "screenshot.seznam.cz");
    let server = DnsServer::start(mended);
    let out = audit(&server, dir.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        rows("violations.csv"),
        [
            "1,77.75.77.123,SeznamBot,verified",
            "2,2a02:598:64:8a00::3100:0,SeznamBot,verified",
        ],
        "{stderr}"
    );
    assert!(!stderr.contains("lying"), "{stderr}");
}

/// Inside Seznam's networks a crawler's name whose forward lookup answers
/// another address of theirs is the operator's own zone (a stale record):
/// a fetch that claims the crawler stays `unverified`, one that claims
/// nothing is nobody's, and neither is a lie to warn of nor a failure
/// that leaves the night undecided — also on a night the resolver is
/// found broken by another address.
#[test]
fn a_stale_record_inside_the_networks_accuses_no_one_and_fails_no_night() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let browser = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    let stale = || {
        Zone::default()
            .ptr("77.75.77.60", "fulltextrobot-77-75-77-60.seznam.cz")
            .addr("fulltextrobot-77-75-77-60.seznam.cz", "77.75.77.160")
            .ptr("77.75.77.61", "fulltextrobot-77-75-77-61.seznam.cz")
            .addr("fulltextrobot-77-75-77-61.seznam.cz", "77.75.77.161")
    };
    let lines = [
        line("77.75.77.60", 1, "/cz/chat/a", browser),
        line("77.75.77.61", 2, "/cz/chat/b", SEZNAM_UA),
    ];
    for broken in [false, true] {
        // 77.75.77.20 has no name: the resolver is found broken.
        let mut text = lines.concat();
        if broken {
            text.push_str(&line("77.75.77.20", 3, "/cz/chat/c", SEZNAM_UA));
        }
        std::fs::write(&log, text).unwrap();
        let server = DnsServer::start(stale());
        let out = audit(&server, dir.path(), &log);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{broken}: {stderr}");
        let counted: Vec<(String, String)> = disallow_rows(dir.path());
        let mut expected = vec![("77.75.77.61".to_string(), "unverified".to_string())];
        if broken {
            expected.push(("77.75.77.20".to_string(), "unverified".to_string()));
        }
        assert_eq!(counted, expected, "{broken}: {stderr}");
        assert!(report(dir.path(), "impostors.csv").is_empty(), "{stderr}");
        assert!(!stderr.contains("lying"), "{stderr}");
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap())
                .unwrap();
        assert_eq!(run["dns"]["resolver_broken"], u64::from(broken), "{run}");
        assert_eq!(run["dns"]["undecided_fetches"], 0, "{run}");
    }
}

/// A resolver that dies after a night that filled the cache: the next
/// night asks only its new addresses, and when those fail the warning
/// comes even under --quiet, measured by the addresses asked, not by the
/// cache's answers (a week's cache would hide a dead resolver).
#[test]
fn a_dead_resolver_behind_a_full_cache_is_said() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let genuine: Vec<String> = (1..=4).map(|n| format!("77.75.77.{n}")).collect();
    let mut zone = Zone::default();
    for addr in &genuine {
        zone = zone.host(
            addr,
            &format!("fulltextrobot-{}.seznam.cz", addr.replace('.', "-")),
        );
    }
    let first: String = genuine
        .iter()
        .zip(1..)
        .map(|(addr, second)| line(addr, second, "/cz/chat/a", SEZNAM_UA))
        .collect();
    std::fs::write(&log, &first).unwrap();
    let server = DnsServer::start(zone.behave("1.2.3.5", Behaviour::ServFail));
    let night = |text: &str| {
        std::fs::write(&log, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
            .arg("--log")
            .arg(&log)
            .args([
                "--robots",
                "tests/data/check/robots.txt",
                "--resolve",
                "--quiet",
            ])
            .arg("--dns-server")
            .arg(server.addr.to_string())
            .args(["--dns-timeout", "0.3", "--dns-cache"])
            .arg(dir.path().join("cache.tsv"))
            .arg("--out")
            .arg(dir.path().join("out"))
            .output()
            .expect("run robots-audit");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = night(&first);
    assert!(!said.contains("DNS failed"), "{said}");
    let second = format!("{first}{}", line("1.2.3.5", 9, "/cz/chat/b", SEZNAM_UA));
    let said = night(&second);
    assert!(
        said.contains(
            "DNS failed for 1 of 1 address(es) asked tonight (4 more answered from the cache)"
        ),
        "{said}"
    );
}

/// A PTR record naming the root `.` is a name that is no crawler's: the
/// impostor's `ptr` column shows it, rather than an empty name that reads
/// as none.
#[test]
fn a_root_name_is_shown_as_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    std::fs::write(&log, line("1.2.3.92", 1, "/cz/chat/a", SEZNAM_UA)).unwrap();
    let server = DnsServer::start(Zone::default().ptr("1.2.3.92", "."));
    let out = audit(&server, dir.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
    assert!(
        impostors.contains(",1.2.3.92,.,SeznamBot,"),
        "{impostors}\n{stderr}"
    );
}

/// A resolver that says a Seznam address has no name is broken, not a
/// sign of an impostor: besides the warning on standard error, run.json
/// says so, for whatever reads it in the morning (the mail, a monitor).
#[test]
fn a_broken_resolver_is_in_run_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    std::fs::write(&log, line("77.75.77.50", 1, "/cz/chat/a", SEZNAM_UA)).unwrap();
    let server = DnsServer::start(Zone::default());
    let out = audit(&server, dir.path(), &log);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    assert_eq!(
        run["dns"],
        serde_json::json!({
            "asked": true,
            "failures": 1,
            "resolver_unusable": false,
            "resolver_broken": 1,
            "deadline_reached": false,
            "undecided_fetches": 0
        }),
        "{stderr}"
    );
    // The mail says it too.
    let mail = mail_of(&dir.path().join("out"));
    assert!(
        mail.contains("THE RESOLVER LOOKS BROKEN (1 addresses"),
        "{mail}"
    );
}

/// Fetches of a disallowed page with user agent `ua` from the addresses
/// `addr` numbers: 1,000 addresses of two fetches, then 30 of one, so
/// that at `--memory 1M` (1,024 addresses a side) the last six are left
/// out.
fn past_the_bound(addr: impl Fn(u32) -> String, ua: &str) -> String {
    let mut log = String::new();
    for i in 0..1000 {
        log.push_str(&line(&addr(i), 1, "/cz/chat/a", ua));
        log.push_str(&line(&addr(i), 2, "/cz/chat/a", ua));
    }
    for i in 1000..1030 {
        log.push_str(&line(&addr(i), 3, "/cz/chat/a", ua));
    }
    log
}

/// SPEC §5: the addresses of a log of made-up clients never outgrow
/// `--memory`. Past what it keeps (1,024 a side at `--memory 1M`), the
/// addresses looked up are those the DNS cache knows, then, inside a
/// crawler's networks and outside them apart, those with the most
/// fetches, the lower address first among equals; the others are never
/// asked, their fetches stay `unverified`, the run says so, and run.json
/// counts them among the addresses that could not be checked. An impostor
/// the cache named stays one, whatever the bound.
#[test]
fn addresses_past_what_memory_keeps_are_not_asked_and_stay_unverified() {
    let dir = tempfile::tempdir().unwrap();
    // No name for any address but Seznam's: an answered one is an
    // impostor.
    let server = DnsServer::start(zone());
    let addr = |i: u32| format!("10.0.{}.{}", i / 200, i % 200 + 1);
    let mut log = past_the_bound(addr, SEZNAM_UA);
    // Seznam's own, one fetch, last in the log: asked all the same.
    log.push_str(&line("77.75.77.1", 4, "/cz/chat/a", SEZNAM_UA));
    let path = dir.path().join("access.log");
    std::fs::write(&path, log).unwrap();
    // The cache already names the last of them, an impostor.
    let cache = dir.path().join("cache.tsv");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    std::fs::write(
        &cache,
        format!(
            "# robots-audit dns cache 1\n{}\t{now}\tnames\tevil.example.com\tnot-asked\n",
            addr(1029)
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cache, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("--log")
        .arg(&path)
        .args(["--robots", "tests/data/check/robots.txt", "--resolve"])
        .args(["--dns-server", &server.addr.to_string()])
        .args([
            "--dns-timeout",
            "1",
            "--dns-deadline",
            "60",
            "--memory",
            "1M",
        ])
        .arg("--dns-cache")
        .arg(&cache)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .expect("run robots-audit");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "--resolve: 5 address(es) were not looked up, more than --memory keeps (1026 \
             were: those the DNS cache knows, then inside a crawler's networks and outside \
             them apart, those with the most fetches); their fetches stay unverified"
        ),
        "{stderr}"
    );
    let left_out: Vec<String> = (1024..1029).map(addr).collect();
    let mut rows = disallow_rows(dir.path());
    rows.sort();
    let mut expected: Vec<(String, String)> = left_out
        .iter()
        .map(|a| (a.clone(), "unverified".to_string()))
        .collect();
    expected.push(("77.75.77.1".to_string(), "verified".to_string()));
    expected.sort();
    assert_eq!(rows, expected);
    let impostors = report(dir.path(), "impostors.csv");
    assert_eq!(impostors.len(), 2 * 1000 + 24 + 1);
    assert!(
        impostors
            .iter()
            .any(|r| r[3] == addr(1029) && r[4] == "evil.example.com")
    );
    // Never asked.
    let asked: Vec<String> = server.log().into_iter().map(|(name, _)| name).collect();
    for addr in left_out.iter().chain([&addr(1029)]) {
        let reverse = support::dns_server::reverse_name(addr.parse().unwrap());
        assert!(!asked.contains(&reverse), "{addr} was asked");
    }
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    assert_eq!(run["dns"]["failures"], 5, "{run}");
}

/// Inside a crawler's networks the bound holds too (a log may hold any
/// address): the addresses left unasked there are undecided, as those
/// whose lookups failed, so their fetches that only DNS could name make
/// the night incomplete (exit 2), never a quiet clean one.
#[test]
fn addresses_inside_the_networks_past_the_bound_leave_the_night_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let addr = |i: u32| format!("77.75.{}.{}", 72 + i / 200, i % 200 + 1);
    let mut zone = Zone::default();
    for i in 0..1030 {
        let a = addr(i);
        zone = zone.host(
            &a,
            &format!("fulltextrobot-{}.seznam.cz", a.replace('.', "-")),
        );
    }
    let server = DnsServer::start(zone);
    let log = past_the_bound(addr, "Mozilla/5.0 (X11; Linux x86_64)");
    let server_addr = server.addr.to_string();
    let out = audit_with(
        dir.path(),
        &log,
        &[
            "--dns-server",
            &server_addr,
            "--dns-timeout",
            "1",
            "--dns-deadline",
            "60",
            "--memory",
            "1M",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("6 address(es) were not looked up"),
        "{stderr}"
    );
    // The genuine crawler's asked fetches are judged, by its name.
    let rows = disallow_rows(dir.path());
    assert_eq!(rows.len(), 2 * 1000 + 24, "{stderr}");
    assert!(
        rows.iter()
            .all(|(_, verification)| verification == "verified")
    );
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    assert_eq!(run["dns"]["undecided_fetches"], 6, "{run}");
}
