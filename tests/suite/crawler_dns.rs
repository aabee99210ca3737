//! Forward-confirmed reverse DNS against a real DNS server on 127.0.0.1
//! (SPEC §1 "Address → name", §2 "Verification"): genuine crawlers over
//! IPv4 and IPv6, spoofers, NXDOMAIN, silence, SERVFAIL and REFUSED, the
//! overall deadline, the cache file that spares a second run, "no name"
//! inside Seznam's networks (a broken resolver, never cached), and the
//! order of asking (those networks first, then the most fetched).

use crate::support;

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use robots_audit::crawler::dns::{DnsOptions, resolve};
use robots_audit::crawler::{DnsAnswer, Identifier, Knowledge, PtrMap, Verification, parse_client};
use support::dns_server::{
    Behaviour, DnsServer, QTYPE_A, QTYPE_AAAA, QTYPE_PTR, Zone, reverse_name,
};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn options(server: &DnsServer, cache: Option<std::path::PathBuf>) -> DnsOptions {
    DnsOptions {
        server: Some(server.addr),
        timeout: Duration::from_millis(300),
        attempts: 1,
        deadline: Duration::from_secs(20),
        concurrency: 8,
        cache_path: cache,
        defer_save: false,
        max_age: Duration::from_secs(3600),
    }
}

fn zone() -> Zone {
    Zone::default()
        .host("77.75.77.1", "fulltextrobot-77-75-77-1.seznam.cz")
        .host("77.75.77.2", "fulltextrobot-fresh-77-75-77-2.seznam.cz")
        .host("77.75.77.4", "fulltextrobot-test-77-75-77-4.seznam.cz")
        .host(
            "2a02:598:64:8a00::3100:0",
            "fulltextrobot-test-2a02-598-64-8a00--3100-0.seznam.cz",
        )
        .host(
            "2a02:598:a::78:90",
            "fulltextrobot-2a02-598-a--78-90.seznam.cz",
        )
        .host(
            "2a02:598:a::78:91",
            "fulltextrobot-fresh-2a02-598-a--78-91.seznam.cz",
        )
        // A spoofer's own reverse zone claims Seznam; Seznam's forward zone
        // says otherwise.
        .ptr("6.6.6.6", "fulltextrobot-6-6-6-6.seznam.cz")
        .addr("fulltextrobot-6-6-6-6.seznam.cz", "77.75.77.66")
        // Claims a name Seznam's zone does not have.
        .ptr("6.6.6.7", "fulltextrobot-6-6-6-7.seznam.cz")
        // 6.6.6.8 has no PTR at all: NXDOMAIN.
        .behave("6.6.6.9", Behaviour::Silent)
        .behave("6.6.6.10", Behaviour::ServFail)
        .behave("6.6.6.12", Behaviour::Refused)
        .ptr("6.6.6.11", "host.example.com")
        // Reverse answers, forward never does.
        .ptr("77.75.77.3", "fulltextrobot-77-75-77-3.seznam.cz")
        .behave("fulltextrobot-77-75-77-3.seznam.cz", Behaviour::Silent)
}

#[test]
fn verdicts_from_live_dns() {
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    // (client field, user agent, crawler and verification)
    type Case = (
        &'static str,
        &'static str,
        Option<(&'static str, Verification)>,
    );
    let cases: &[Case] = &[
        (
            "77.75.77.1",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Verified)),
        ),
        (
            "77.75.77.1",
            "Mozilla/5.0",
            Some(("SeznamBot", Verification::Verified)),
        ),
        (
            "77.75.77.2",
            "SeznamBot/4.0",
            Some(("FreshBot", Verification::Verified)),
        ),
        (
            "77.75.77.4",
            "SeznamBot/3.2-test4",
            Some(("SeznamBot-test", Verification::Verified)),
        ),
        (
            "2a02:598:64:8a00:0:0:3100:0",
            "SeznamBot/3.2-test4",
            Some(("SeznamBot-test", Verification::Verified)),
        ),
        (
            "2A02:598:A:0::78:90",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Verified)),
        ),
        (
            "[2a02:598:a::78:91]",
            "SeznamBot/4.0",
            Some(("FreshBot", Verification::Verified)),
        ),
        (
            "6.6.6.6",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Spoofed)),
        ),
        (
            "6.6.6.7",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Spoofed)),
        ),
        (
            "6.6.6.8",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Spoofed)),
        ),
        ("6.6.6.8", "Mozilla/5.0", None),
        (
            "6.6.6.9",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Unverified)),
        ),
        (
            "6.6.6.10",
            "FreshBot",
            Some(("FreshBot", Verification::Unverified)),
        ),
        (
            "6.6.6.12",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Unverified)),
        ),
        (
            "6.6.6.11",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Spoofed)),
        ),
        // A live name whose forward lookup failed proves nothing: the
        // claim stays unverified (SPEC §2; `ptr-only` is for names from the
        // log or the map).
        (
            "77.75.77.3",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verification::Unverified)),
        ),
    ];
    let addrs: Vec<IpAddr> = cases
        .iter()
        .filter_map(|(field, _, _)| match parse_client(field.as_bytes()) {
            robots_audit::crawler::Client::Addr(a) => Some(a),
            _ => None,
        })
        .collect();
    let (answers, stats) = resolve(addrs.iter().copied(), &ident, &options(&server, None));
    assert_eq!(stats.addresses, 14);
    assert_eq!(stats.cache_hits, 0);
    assert_eq!(
        stats.failures, 4,
        "silent, SERVFAIL, REFUSED, silent forward"
    );
    assert!(!stats.deadline_hit);
    assert_eq!(answers.get(&ip("6.6.6.8")), Some(&DnsAnswer::NoName));
    assert_eq!(answers.get(&ip("6.6.6.9")), Some(&DnsAnswer::Failed));

    let knowledge = Knowledge::new(PtrMap::default(), answers);
    for (field, ua, want) in cases {
        let got = knowledge
            .decide(
                &ident,
                &parse_client(field.as_bytes()),
                ident.by_user_agent(ua.as_bytes()),
            )
            .map(|i| (ident.profile(i.crawler).name.as_str(), i.verification));
        assert_eq!(got, *want, "{field} / {ua}");
    }
}

#[test]
fn forward_lookups_ask_the_address_family_only_for_crawler_names() {
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    let addrs = [ip("77.75.77.1"), ip("2a02:598:a::78:90"), ip("6.6.6.11")];
    let (_, stats) = resolve(addrs.iter().copied(), &ident, &options(&server, None));
    let mut log = server.log();
    log.sort();
    let mut want = vec![
        (reverse_name(ip("77.75.77.1")), QTYPE_PTR),
        ("fulltextrobot-77-75-77-1.seznam.cz".to_string(), QTYPE_A),
        (reverse_name(ip("2a02:598:a::78:90")), QTYPE_PTR),
        (
            "fulltextrobot-2a02-598-a--78-90.seznam.cz".to_string(),
            QTYPE_AAAA,
        ),
        (reverse_name(ip("6.6.6.11")), QTYPE_PTR),
    ];
    want.sort();
    assert_eq!(log, want);
    assert_eq!(stats.queries, 5);
}

#[test]
fn second_run_is_served_from_the_cache() {
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("robots-audit/dns-cache.tsv");
    let addrs: Vec<IpAddr> = [
        "77.75.77.1",
        "77.75.77.2",
        "2a02:598:64:8a00::3100:0",
        "6.6.6.6",
        "6.6.6.8",
        "6.6.6.11",
    ]
    .iter()
    .map(|a| ip(a))
    .collect();
    let opts = options(&server, Some(cache.clone()));

    let (first, stats) = resolve(addrs.iter().copied(), &ident, &opts);
    // Four crawler names: PTR + forward each; two more PTR queries.
    assert_eq!(server.queries(), 10);
    assert_eq!(stats.queries, 10);
    assert_eq!(stats.cache_hits, 0);
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    assert!(cache.exists());

    let (second, stats) = resolve(addrs.iter().copied(), &ident, &opts);
    assert_eq!(server.queries(), 10, "nothing asked again");
    assert_eq!(stats.queries, 0);
    assert_eq!(stats.cache_hits, 6);
    assert_eq!(first, second);

    // An expired cache is asked again.
    let stale = DnsOptions {
        max_age: Duration::ZERO,
        ..opts.clone()
    };
    std::thread::sleep(Duration::from_millis(1100));
    let (_, stats) = resolve(addrs.iter().copied(), &ident, &stale);
    assert_eq!(stats.cache_hits, 0);
    assert_eq!(server.queries(), 20);
}

#[test]
fn failures_are_asked_again() {
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = options(&server, Some(dir.path().join("cache.tsv")));
    let addrs = [ip("6.6.6.10"), ip("77.75.77.1")];
    let (answers, stats) = resolve(addrs.iter().copied(), &ident, &opts);
    assert_eq!(answers.get(&ip("6.6.6.10")), Some(&DnsAnswer::Failed));
    assert_eq!(stats.failures, 1);
    let before = server.queries();
    let (_, stats) = resolve(addrs.iter().copied(), &ident, &opts);
    assert_eq!(stats.cache_hits, 1);
    assert_eq!(stats.failures, 1);
    assert!(
        server.queries() > before,
        "the failed address is asked again"
    );
}

#[test]
fn damaged_cache_is_ignored_with_a_warning() {
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.tsv");
    std::fs::write(&path, b"\x00\x01 not a cache").unwrap();
    let opts = options(&server, Some(path.clone()));
    let (answers, stats) = resolve([ip("77.75.77.1")], &ident, &opts);
    assert_eq!(stats.warnings.len(), 1, "{:?}", stats.warnings);
    assert!(!answers[&ip("77.75.77.1")].has_failure());
    // A file that is no cache of ours may be anyone's: it is left as it
    // is, and said so again the next night.
    assert!(
        stats.warnings[0].contains("left as it is"),
        "{:?}",
        stats.warnings
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"\x00\x01 not a cache");
    let (_, stats) = resolve([ip("77.75.77.1")], &ident, &opts);
    assert_eq!(stats.warnings.len(), 1, "{:?}", stats.warnings);
    assert_eq!(stats.cache_hits, 0);
    // Damaged lines of a cache of ours are dropped, and the cache
    // written again without them.
    std::fs::write(&path, b"# robots-audit dns cache 1\nnot a line\n").unwrap();
    let (_, stats) = resolve([ip("77.75.77.1")], &ident, &opts);
    assert_eq!(stats.warnings.len(), 1, "{:?}", stats.warnings);
    let (_, stats) = resolve([ip("77.75.77.1")], &ident, &opts);
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    assert_eq!(stats.cache_hits, 1);
}

#[test]
fn a_dead_server_cannot_outlast_the_deadline() {
    // Answers nothing at all.
    let zone = Zone::default()
        .behave("77.75.77.1", Behaviour::Silent)
        .behave("77.75.77.2", Behaviour::Silent)
        .behave("2a02:598:a::78:90", Behaviour::Silent);
    let server = DnsServer::start(zone);
    let ident = Identifier::builtin().unwrap();
    let opts = DnsOptions {
        timeout: Duration::from_secs(10),
        attempts: 3,
        deadline: Duration::from_millis(400),
        ..options(&server, None)
    };
    let addrs = [ip("77.75.77.1"), ip("77.75.77.2"), ip("2a02:598:a::78:90")];
    let started = Instant::now();
    let (answers, stats) = resolve(addrs.iter().copied(), &ident, &opts);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(stats.deadline_hit);
    assert_eq!(stats.failures, 3);
    assert!(
        stats
            .warnings
            .iter()
            .any(|w| w.contains("--dns-deadline with 3 address(es) unanswered")),
        "{:?}",
        stats.warnings
    );
    let want: HashMap<IpAddr, DnsAnswer> = addrs.iter().map(|a| (*a, DnsAnswer::Failed)).collect();
    assert_eq!(answers, want);
}

/// SPEC §2: "no name" inside the operator's networks proves a broken
/// resolver, and a broken resolver never makes an impostor: its "no name"
/// for an address outside them that same night is no evidence either.
/// Neither is cached; the next run asks all three again.
#[test]
fn no_name_inside_the_operators_networks_is_a_broken_resolver_and_not_cached() {
    // None has a PTR record: NXDOMAIN for all.
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = options(&server, Some(dir.path().join("cache.tsv")));
    let inside = [ip("77.75.77.50"), ip("2a02:598:a::50")];
    let addrs = [inside[0], inside[1], ip("6.6.6.8")];
    let (answers, stats) = resolve(addrs, &ident, &opts);
    assert_eq!(answers[&inside[0]], DnsAnswer::Failed);
    assert_eq!(answers[&inside[1]], DnsAnswer::Failed);
    assert_eq!(answers[&ip("6.6.6.8")], DnsAnswer::Failed);
    assert_eq!(stats.failures, 3);
    assert_eq!(stats.denied_in_networks, inside);
    assert!(
        stats.warnings.iter().any(|w| w.contains("looks broken")),
        "{:?}",
        stats.warnings
    );

    let knowledge = Knowledge::new(PtrMap::default(), answers);
    let claim = ident.by_user_agent(b"SeznamBot/4.0");
    for (field, want) in [
        ("77.75.77.50", Verification::Unverified),
        ("2a02:598:a::50", Verification::Unverified),
        ("6.6.6.8", Verification::Unverified),
    ] {
        let got = knowledge
            .decide(&ident, &parse_client(field.as_bytes()), claim)
            .map(|i| i.verification);
        assert_eq!(got, Some(want), "{field}");
    }

    // Not cached: the next run asks all three again.
    let before = server.log().len();
    let (_, stats) = resolve(addrs, &ident, &opts);
    assert_eq!(stats.cache_hits, 0);
    let mut asked: Vec<String> = server.log()[before..]
        .iter()
        .map(|(name, _)| name.clone())
        .collect();
    asked.sort();
    let mut want: Vec<String> = addrs.iter().map(|a| reverse_name(*a)).collect();
    want.sort();
    assert_eq!(asked, want);

    // A resolver that answers the operator's addresses says "no name"
    // outside them truly: believed and cached.
    let server =
        DnsServer::start(zone().host("77.75.77.50", "fulltextrobot-77-75-77-50.seznam.cz"));
    let opts = options(&server, Some(dir.path().join("cache2.tsv")));
    let (answers, stats) = resolve([inside[0], ip("6.6.6.8")], &ident, &opts);
    assert_eq!(answers[&ip("6.6.6.8")], DnsAnswer::NoName);
    assert!(stats.denied_in_networks.is_empty());
}

#[test]
fn lookups_go_first_inside_the_networks_then_by_fetches() {
    let server = DnsServer::start(zone());
    let ident = Identifier::builtin().unwrap();
    let opts = DnsOptions {
        // One at a time: the order of the queries is the order of asking.
        concurrency: 1,
        ..options(&server, None)
    };
    // One item per fetch.
    let mut fetches = Vec::new();
    for (addr, count) in [
        ("6.6.6.8", 2),
        ("6.6.6.11", 5),
        ("77.75.77.1", 1),
        ("1.2.3.4", 3),
        ("2a02:598:a::78:90", 1),
    ] {
        fetches.extend(std::iter::repeat_n(ip(addr), count));
    }
    resolve(fetches, &ident, &opts);
    let reverse: Vec<String> = server
        .log()
        .into_iter()
        .filter(|(_, qtype)| *qtype == QTYPE_PTR)
        .map(|(name, _)| name)
        .collect();
    let want: Vec<String> = [
        "77.75.77.1",
        "2a02:598:a::78:90",
        "6.6.6.11",
        "1.2.3.4",
        "6.6.6.8",
    ]
    .iter()
    .map(|a| reverse_name(ip(a)))
    .collect();
    assert_eq!(reverse, want);
}
