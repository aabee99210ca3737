//! Unit tests of `Knowledge::decide`: one table of (client field, user
//! agent, verdict) rows per situation of SPEC §2 "Verification".

use super::*;
use crate::crawler::address::parse_client;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn checks(list: &[(&str, Forward)]) -> DnsAnswer {
    DnsAnswer::Names(
        list.iter()
            .map(|(name, forward)| NameCheck {
                name: name.to_string(),
                forward: *forward,
            })
            .collect(),
    )
}

const PLAIN: &str = "fulltextrobot-77-75-77-1.seznam.cz";
const FRESH: &str = "fulltextrobot-fresh-77-75-77-2.seznam.cz";
const TEST6: &str = "fulltextrobot-test-2a02-598-64-8a00--3100-0.seznam.cz";

fn knowledge() -> Knowledge {
    let (ptr_map, bad) = PtrMap::parse(
        b"77.75.77.10 fulltextrobot-fresh-77-75-77-10.seznam.cz\n\
          77.75.77.11 host.example.com\n\
          77.75.77.12 fulltextrobot-77-75-77-12.seznam.cz\n\
          77.75.77.13 fulltextrobot-77-75-77-99.seznam.cz\n",
    );
    assert!(bad.is_empty());
    let dns = [
        (ip("77.75.77.1"), checks(&[(PLAIN, Forward::Confirmed)])),
        (ip("77.75.77.2"), checks(&[(FRESH, Forward::Confirmed)])),
        (
            ip("2a02:598:64:8a00::3100:0"),
            checks(&[(TEST6, Forward::Confirmed)]),
        ),
        (
            ip("6.6.6.6"),
            checks(&[("fulltextrobot-6-6-6-6.seznam.cz", Forward::Elsewhere)]),
        ),
        (
            ip("6.6.6.7"),
            checks(&[("fulltextrobot-6-6-6-7.seznam.cz", Forward::Failed)]),
        ),
        (
            ip("6.6.6.8"),
            checks(&[("host.example.com", Forward::NotAsked)]),
        ),
        (ip("6.6.6.9"), DnsAnswer::NoName),
        // Inside Seznam's networks: the resolver is broken.
        (ip("77.75.77.20"), DnsAnswer::NoName),
        (ip("2a02:598:a::20"), DnsAnswer::NoName),
        (ip("6.6.6.10"), DnsAnswer::Failed),
        // Two names: the confirmed one decides.
        (
            ip("77.75.77.3"),
            checks(&[
                (
                    "fulltextrobot-fresh-77-75-77-3.seznam.cz",
                    Forward::Elsewhere,
                ),
                ("fulltextrobot-77-75-77-3.seznam.cz", Forward::Confirmed),
            ]),
        ),
        // DNS refutes the PTR map's name forward.
        (
            ip("77.75.77.12"),
            checks(&[("fulltextrobot-77-75-77-12.seznam.cz.", Forward::Elsewhere)]),
        ),
    ]
    .into_iter()
    .collect();
    Knowledge::new(ptr_map, dns)
}

#[test]
fn decides_per_spec() {
    let ident = Identifier::builtin().unwrap();
    let k = knowledge();
    use IdentifiedBy::*;
    use Verification::*;
    // (client field, user agent, want: (crawler, verification, by, ptr))
    type Want = Option<(
        &'static str,
        Verification,
        IdentifiedBy,
        Option<&'static str>,
    )>;
    let cases: &[(&str, &str, Want)] = &[
        // Genuine, forward-confirmed.
        (
            "77.75.77.1",
            "SeznamBot/4.0",
            Some(("SeznamBot", Verified, UaPtr, Some(PLAIN))),
        ),
        (
            "77.75.77.1",
            "Mozilla/5.0",
            Some(("SeznamBot", Verified, Ptr, Some(PLAIN))),
        ),
        // The name decides the crawler, also against the user agent.
        (
            "77.75.77.2",
            "SeznamBot/4.0",
            Some(("FreshBot", Verified, UaPtr, Some(FRESH))),
        ),
        (
            "77.75.77.2",
            "SeznamBot/3.2-test4",
            Some(("FreshBot", Verified, UaPtr, Some(FRESH))),
        ),
        (
            "2a02:598:64:8a00:0:0:3100:0",
            "SeznamBot/4.0",
            Some(("SeznamBot-test", Verified, UaPtr, Some(TEST6))),
        ),
        (
            "77.75.77.3",
            "-",
            Some((
                "SeznamBot",
                Verified,
                Ptr,
                Some("fulltextrobot-77-75-77-3.seznam.cz"),
            )),
        ),
        // Forward lookup answered without the address.
        (
            "6.6.6.6",
            "SeznamBot/4.0",
            Some((
                "SeznamBot",
                Spoofed,
                UaPtr,
                Some("fulltextrobot-6-6-6-6.seznam.cz"),
            )),
        ),
        (
            "6.6.6.6",
            "curl/8",
            Some((
                "SeznamBot",
                Spoofed,
                Ptr,
                Some("fulltextrobot-6-6-6-6.seznam.cz"),
            )),
        ),
        // Forward lookup of a live name failed: that proves nothing, and
        // `ptr-only` is for names from the log or the map.
        (
            "6.6.6.7",
            "SeznamBot/4.0",
            Some(("SeznamBot", Unverified, Ua, None)),
        ),
        ("6.6.6.7", "curl/8", None),
        // A refuted name decides nothing: the claim is the user agent's.
        (
            "6.6.6.6",
            "SeznamBot/3.2-test4",
            Some((
                "SeznamBot-test",
                Spoofed,
                UaPtr,
                Some("fulltextrobot-6-6-6-6.seznam.cz"),
            )),
        ),
        (
            "77.75.77.3",
            "FreshBot/1.0",
            Some((
                "SeznamBot",
                Verified,
                UaPtr,
                Some("fulltextrobot-77-75-77-3.seznam.cz"),
            )),
        ),
        // A name that is not Seznam's.
        (
            "6.6.6.8",
            "SeznamBot/4.0",
            Some(("SeznamBot", Spoofed, Ua, Some("host.example.com"))),
        ),
        ("6.6.6.8", "curl/8", None),
        // NXDOMAIN: every genuine address has a name.
        ("6.6.6.9", "FreshBot", Some(("FreshBot", Spoofed, Ua, None))),
        ("6.6.6.9", "curl/8", None),
        (
            "77.75.77.20",
            "SeznamBot/4.0",
            Some(("SeznamBot", Unverified, Ua, None)),
        ),
        (
            "2a02:598:a::20",
            "FreshBot",
            Some(("FreshBot", Unverified, Ua, None)),
        ),
        ("77.75.77.20", "curl/8", None),
        // DNS failure proves nothing.
        (
            "6.6.6.10",
            "SeznamBot/4.0",
            Some(("SeznamBot", Unverified, Ua, None)),
        ),
        ("6.6.6.10", "curl/8", None),
        // Nothing known.
        (
            "1.2.3.4",
            "SeznamBot/4.0",
            Some(("SeznamBot", Unverified, Ua, None)),
        ),
        ("1.2.3.4", "curl/8", None),
        (
            "-",
            "SeznamBot/3.2-test1",
            Some(("SeznamBot-test", Unverified, Ua, None)),
        ),
        // PTR map names.
        (
            "77.75.77.10",
            "SeznamBot/4.0",
            Some((
                "FreshBot",
                PtrOnly,
                UaPtr,
                Some("fulltextrobot-fresh-77-75-77-10.seznam.cz"),
            )),
        ),
        (
            "::ffff:77.75.77.10",
            "-",
            Some((
                "FreshBot",
                PtrOnly,
                Ptr,
                Some("fulltextrobot-fresh-77-75-77-10.seznam.cz"),
            )),
        ),
        (
            "77.75.77.11",
            "SeznamBot/4.0",
            Some(("SeznamBot", Spoofed, Ua, Some("host.example.com"))),
        ),
        (
            "77.75.77.12",
            "SeznamBot/4.0",
            Some((
                "SeznamBot",
                Spoofed,
                UaPtr,
                Some("fulltextrobot-77-75-77-12.seznam.cz"),
            )),
        ),
        // The name in the map is another address's.
        (
            "77.75.77.13",
            "SeznamBot/4.0",
            Some((
                "SeznamBot",
                Spoofed,
                Ua,
                Some("fulltextrobot-77-75-77-99.seznam.cz"),
            )),
        ),
        ("77.75.77.13", "-", None),
        // A host name in the log's client field.
        (
            "fulltextrobot-test-77-75-77-5.seznam.cz",
            "SeznamBot/4.0",
            Some((
                "SeznamBot-test",
                PtrOnly,
                UaPtr,
                Some("fulltextrobot-test-77-75-77-5.seznam.cz"),
            )),
        ),
        (
            "FULLTEXTROBOT-77-75-77-5.SEZNAM.CZ.",
            "-",
            Some((
                "SeznamBot",
                PtrOnly,
                Ptr,
                Some("FULLTEXTROBOT-77-75-77-5.SEZNAM.CZ."),
            )),
        ),
        (
            "crawler.example.com",
            "SeznamBot",
            Some(("SeznamBot", Spoofed, Ua, Some("crawler.example.com"))),
        ),
        ("crawler.example.com", "-", None),
    ];
    for (field, ua, want) in cases {
        let client = parse_client(field.as_bytes());
        let got = k.decide(&ident, &client, ident.by_user_agent(ua.as_bytes()));
        let got = got.map(|i| {
            (
                ident.profile(i.crawler).name.clone(),
                i.verification,
                i.identified_by,
                i.ptr,
            )
        });
        let want = want.map(|(c, v, b, p)| (c.to_string(), v, b, p.map(str::to_string)));
        assert_eq!(got, want, "{field} / {ua}");
    }
}

#[test]
fn another_crawlers_name_refutes_the_claim() {
    use crate::crawler::profile::builtin;
    use crate::crawler::profile_file::{merge_profiles, parse_entries};
    let mut profiles = builtin();
    let google = "crawler: Googlebot\nuser-agent: Googlebot\nhost: crawl-<address>.googlebot.com\n";
    merge_profiles(&mut profiles, parse_entries(google).unwrap());
    let ident = Identifier::new(profiles).unwrap();
    const GOOGLE: &str = "crawl-66-249-66-1.googlebot.com";
    let (ptr_map, _) = PtrMap::parse(b"66.249.66.2 crawl-66-249-66-2.googlebot.com\n");
    let dns = [
        (ip("66.249.66.1"), checks(&[(GOOGLE, Forward::Confirmed)])),
        (
            ip("77.75.77.1"),
            checks(&[(GOOGLE, Forward::Elsewhere), (PLAIN, Forward::Confirmed)]),
        ),
    ]
    .into_iter()
    .collect();
    let k = Knowledge::new(ptr_map, dns);
    use IdentifiedBy::*;
    use Verification::*;
    type Want = (
        &'static str,
        Verification,
        IdentifiedBy,
        Option<&'static str>,
    );
    let cases: &[(&str, &str, Want)] = &[
        // A Seznam claim from Google's name: SeznamBot's impostor.
        (
            "66.249.66.1",
            "SeznamBot/4.0",
            ("SeznamBot", Spoofed, Ua, Some(GOOGLE)),
        ),
        (
            "66.249.66.2",
            "FreshBot/1.0",
            (
                "FreshBot",
                Spoofed,
                Ua,
                Some("crawl-66-249-66-2.googlebot.com"),
            ),
        ),
        (
            "crawl-66-249-66-3.googlebot.com",
            "SeznamBot/4.0",
            (
                "SeznamBot",
                Spoofed,
                Ua,
                Some("crawl-66-249-66-3.googlebot.com"),
            ),
        ),
        // Without a claim, or with Google's own, the name decides.
        (
            "66.249.66.1",
            "curl/8",
            ("Googlebot", Verified, Ptr, Some(GOOGLE)),
        ),
        (
            "66.249.66.1",
            "Googlebot/2.1",
            ("Googlebot", Verified, UaPtr, Some(GOOGLE)),
        ),
        // A name of the claimed crawler among others still decides.
        (
            "77.75.77.1",
            "SeznamBot/4.0",
            ("SeznamBot", Verified, UaPtr, Some(PLAIN)),
        ),
    ];
    for (field, ua, (crawler, verification, by, ptr)) in cases {
        let client = parse_client(field.as_bytes());
        let got = k
            .decide(&ident, &client, ident.by_user_agent(ua.as_bytes()))
            .unwrap();
        assert_eq!(
            (
                ident.profile(got.crawler).name.as_str(),
                got.verification,
                got.identified_by,
                got.ptr.as_deref()
            ),
            (*crawler, *verification, *by, *ptr),
            "{field} / {ua}"
        );
    }
}

#[test]
fn column_spellings() {
    assert_eq!(
        [
            Verification::Verified,
            Verification::PtrOnly,
            Verification::Unverified,
            Verification::Spoofed
        ]
        .map(Verification::as_str),
        ["verified", "ptr-only", "unverified", "spoofed"]
    );
    assert_eq!(
        [IdentifiedBy::UaPtr, IdentifiedBy::Ua, IdentifiedBy::Ptr].map(IdentifiedBy::as_str),
        ["ua+ptr", "ua", "ptr"]
    );
}
