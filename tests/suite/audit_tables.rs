//! SPEC §7's tables through the real binary: `rules.csv`, one row per rule
//! that decided a violation (informing rows counted), and
//! `impostor-addresses.csv`, one row per spoofing address in canonical
//! form, both whole and byte for byte, in the same set as the other
//! reports.

use crate::support::audit as common;

use common::{FRESH_UA, SEZNAM_UA, Site, clf, combined, fetches, rfc3339, robots_version};

const ROBOTS: &str = "User-agent: *\nDisallow: /\n\nUser-agent: SeznamBot\nRequest-rate: 2/10s\n\
                      Crawl-delay: 3\nDisallow: /private/\nDisallow: /tmp/\n";

fn site() -> Site {
    let genuine = [
        fetches(
            1,
            SEZNAM_UA,
            &["/private/a", "/private/b", "/tmp/x", "/private/a"],
        ),
        fetches(5, FRESH_UA, &["/tmp/y"]),
    ]
    .concat();
    let impostor = |client: &str, t: u32, ua: &str| {
        combined(client, &clf(t), "GET /private/z HTTP/1.1", 200, ua)
    };
    let impostors = [
        impostor("203.0.113.9", 10, SEZNAM_UA),
        impostor("203.0.113.9", 11, SEZNAM_UA),
        impostor("203.0.113.9", 12, FRESH_UA),
        impostor("198.51.100.20", 13, SEZNAM_UA),
        impostor("2001:DB8:0:0::1", 14, SEZNAM_UA),
        impostor("2001:db8::1", 15, SEZNAM_UA),
    ]
    .concat();
    Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", [genuine, impostors].concat())
        .with(
            "ptr-map.txt",
            "203.0.113.9 evil.example.com\n198.51.100.20 crawl-1.googlebot.com\n\
             2001:db8::1 evil6.example.com\n",
        )
}

#[test]
fn rules_and_impostor_addresses_are_whole_tables() {
    let site = site();
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    let version = robots_version(ROBOTS.as_bytes());
    let t = rfc3339;
    let rules = [
        "robots_version,rule_line,rule,group,kind,violations,distinct_targets,crawlers,first_time,last_time".to_string(),
        // Crawl-delay, which Seznam does not read: its informing rows count.
        format!("{version},6,Crawl-delay: 3,SeznamBot,crawl-delay,4,4,FreshBot|SeznamBot,{},{}", t(2), t(5)),
        // Three violations each: the earlier first_time first.
        format!("{version},7,Disallow: /private/,SeznamBot,disallow,3,2,SeznamBot,{},{}", t(1), t(4)),
        format!("{version},5,Request-rate: 2/10s,SeznamBot,request-rate,3,3,FreshBot|SeznamBot,{},{}", t(3), t(5)),
        format!("{version},8,Disallow: /tmp/,SeznamBot,disallow,2,2,FreshBot|SeznamBot,{},{}", t(3), t(5)),
    ];
    let addresses = [
        "client,claimed_crawlers,fetches,ptr,reason,first_time,last_time".to_string(),
        format!(
            "203.0.113.9,FreshBot|SeznamBot,3,evil.example.com,ptr-mismatch,{},{}",
            t(10),
            t(12)
        ),
        // Written two ways in the log, one address.
        format!(
            "2001:db8::1,SeznamBot,2,evil6.example.com,ptr-mismatch,{},{}",
            t(14),
            t(15)
        ),
        format!(
            "198.51.100.20,SeznamBot,1,crawl-1.googlebot.com,ptr-mismatch,{},{}",
            t(13),
            t(13)
        ),
    ];
    for out in ["out-1", "out-4"] {
        let read = |name: &str| std::fs::read(site.path(&format!("{out}/{name}"))).unwrap();
        common::assert_text("rules.csv", &read("rules.csv"), &(rules.join("\n") + "\n"));
        common::assert_text(
            "impostor-addresses.csv",
            &read("impostor-addresses.csv"),
            &(addresses.join("\n") + "\n"),
        );
    }
}

#[test]
fn a_night_without_violations_or_impostors_writes_the_headers() {
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", fetches(1, SEZNAM_UA, &["/public"]));
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(0);
    let read = |name: &str| std::fs::read_to_string(site.path(&format!("out-1/{name}"))).unwrap();
    assert_eq!(
        read("rules.csv"),
        "robots_version,rule_line,rule,group,kind,violations,distinct_targets,crawlers,first_time,last_time\n"
    );
    assert_eq!(
        read("impostor-addresses.csv"),
        "client,claimed_crawlers,fetches,ptr,reason,first_time,last_time\n"
    );
}

/// SPEC §7 `run.json`, compared by parsed value: what the run read (each
/// file's lines, skipped by reason, first and last time), the robots.txt
/// version used and when it came into force, DNS, the counts per crawler
/// and kind, and the exit status.
#[test]
fn run_json_says_what_the_run_read_and_decided() {
    let site = site();
    // Two damaged lines, counted by reason.
    let log = std::fs::read_to_string(site.path("access.log")).unwrap()
        + "garbage\n77.75.77.1 - - [30/Nov/2026:25:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n";
    site.write("access.log", &log);
    // robots.txt came into force when it was last written (SPEC §6).
    let noon = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_953_600);
    std::fs::File::options()
        .write(true)
        .open(site.path("robots.txt"))
        .unwrap()
        .set_modified(noon)
        .unwrap();
    let in_force_from = "2026-11-29T12:00:00+00:00";
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    // Seznam's crawlers do not read Crawl-delay: those rows only inform.
    let count = |crawler: &str, kind: &str, fetches: u64, violations: u64, targets: u64| {
        let informing = if kind == "crawl-delay" { violations } else { 0 };
        serde_json::json!({
            "crawler": crawler, "kind": kind, "fetches": fetches,
            "violations": violations, "informing": informing,
            "distinct_targets": targets,
        })
    };
    for threads in ["1", "4"] {
        let out = format!("out-{threads}");
        let text = std::fs::read_to_string(site.path(&format!("{out}/run.json"))).unwrap();
        let got: serde_json::Value = serde_json::from_str(&text).unwrap();
        let want = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "arguments": ["--log", "access.log", "--robots", "robots.txt",
                          "--ptr-map", "ptr-map.txt", "--out", out, "--threads", threads],
            "files": [{
                "file": "access.log",
                "format": "combined",
                "lines_read": 13,
                "lines_skipped": 2,
                "not_requests": 0,
                "skipped": {"line ends early": 1, "bad time": 1},
                "already_audited": 0,
                "first_time": rfc3339(1),
                "last_time": rfc3339(15),
                "error": null,
            }],
            "robots_versions": [{
                "robots_version": robots_version(ROBOTS.as_bytes()),
                "in_force_from": in_force_from,
            }],
            "dns": {"asked": false, "failures": 0, "resolver_unusable": false, "resolver_broken": 0, "deadline_reached": false, "undecided_fetches": 0},
            "impostor_fetches": 6,
            "excused_by_cache_grace": 0,
            "crawler_fetches_left_out": {"outside_since_until": 0, "other_hosts": 0},
            "counts": [
                count("FreshBot", "crawl-delay", 1, 1, 1),
                count("FreshBot", "disallow", 1, 1, 1),
                count("FreshBot", "request-rate", 1, 1, 1),
                count("SeznamBot", "crawl-delay", 4, 3, 3),
                count("SeznamBot", "disallow", 4, 4, 3),
                count("SeznamBot", "request-rate", 4, 2, 2),
            ],
            "state_error": null,
            "exit_status": 1,
        });
        assert_eq!(got, want, "{text}");
    }
}

/// A spoofing host name (Apache `HostnameLookups On`) written in another
/// case or with its trailing dot is one address (SPEC §2: names compared
/// case-insensitively, a trailing dot allowed): one row, in lower case.
#[test]
fn a_spoofing_host_name_in_any_spelling_is_one_row() {
    let impostor =
        |client: &str, t: u32| combined(client, &clf(t), "GET /private/z HTTP/1.1", 200, SEZNAM_UA);
    let site = Site::new().with("robots.txt", ROBOTS).with(
        "access.log",
        [
            impostor("evil.example.org", 1),
            impostor("EVIL.Example.org", 2),
            impostor("evil.example.org.", 3),
            impostor("other.example.org", 4),
        ]
        .concat(),
    );
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(0);
    let t = rfc3339;
    let expected = [
        "client,claimed_crawlers,fetches,ptr,reason,first_time,last_time".to_string(),
        format!(
            "evil.example.org,SeznamBot,3,evil.example.org,ptr-mismatch,{},{}",
            t(1),
            t(3)
        ),
        format!(
            "other.example.org,SeznamBot,1,other.example.org,ptr-mismatch,{},{}",
            t(4),
            t(4)
        ),
    ];
    common::assert_text(
        "impostor-addresses.csv",
        &std::fs::read(site.path("out-1/impostor-addresses.csv")).unwrap(),
        &(expected.join("\n") + "\n"),
    );
}
