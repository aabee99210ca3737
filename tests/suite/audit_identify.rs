//! Who a fetch belongs to, end to end (SPEC §1 "Address → name", §2): PTR
//! names from the PTR map and from host-name clients deciding the crawler,
//! addresses compared as addresses, and impostors listed apart.

use crate::support::audit as common;

use common::{
    BROWSER_UA, IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, VIOLATIONS_HEADER, audit_text,
    clf, combined, csv, rfc3339,
};

#[test]
fn a_ptr_name_decides_the_crawler_and_a_wrong_one_exposes_a_spoofer() {
    let robots = "User-agent: SeznamBot\nDisallow: /private/\n";
    let ptr_map = "\
77.75.77.2 fulltextrobot-fresh-77-75-77-2.seznam.cz
77.75.77.3 fulltextrobot-77-75-77-99.seznam.cz
77.75.77.4 FULLTEXTROBOT-77-75-77-4.SEZNAM.CZ.
";
    let log = [
        // A SeznamBot user agent from a FreshBot name is FreshBot.
        combined(
            "77.75.77.2",
            &clf(1),
            "GET /private/1 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        // A name for another address proves nothing but a lie.
        combined(
            "77.75.77.3",
            &clf(2),
            "GET /private/2 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        // Names compare case-insensitively, a trailing dot allowed; no
        // user agent is needed.
        combined(
            "77.75.77.4",
            &clf(3),
            "GET /private/3 HTTP/1.1",
            200,
            BROWSER_UA,
        ),
        // IPv4-mapped IPv6 is the IPv4 address.
        combined(
            "::ffff:77.75.77.4",
            &clf(4),
            "GET /private/4 HTTP/1.1",
            200,
            BROWSER_UA,
        ),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", robots)
        .with("ptr-map.txt", ptr_map)
        .with("access.log", log);
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    let rule = "disallow,SeznamBot,2,Disallow: /private/,,";
    let violations = csv(
        VIOLATIONS_HEADER,
        &[
            format!(
                "{},access.log,1,77.75.77.2,FreshBot,ptr-only,ua+ptr,GET,/private/1,200,{rule}",
                rfc3339(1)
            ),
            format!(
                "{},access.log,3,77.75.77.4,SeznamBot,ptr-only,ptr,GET,/private/3,200,{rule}",
                rfc3339(3)
            ),
            format!(
                "{},access.log,4,::ffff:77.75.77.4,SeznamBot,ptr-only,ptr,GET,/private/4,200,{rule}",
                rfc3339(4)
            ),
        ],
    );
    let impostors = csv(
        IMPOSTORS_HEADER,
        &[format!(
            "{},access.log,2,77.75.77.3,fulltextrobot-77-75-77-99.seznam.cz,SeznamBot,GET,/private/2,200,{SEZNAM_UA}",
            rfc3339(2)
        )],
    );
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "FreshBot,crawl-delay,1,0,0,,".to_string(),
            format!("FreshBot,disallow,1,1,1,{},{}", rfc3339(1), rfc3339(1)),
            "FreshBot,request-rate,1,0,0,,".to_string(),
            "SeznamBot,crawl-delay,2,0,0,,".to_string(),
            format!("SeznamBot,disallow,2,2,2,{},{}", rfc3339(3), rfc3339(4)),
            "SeznamBot,request-rate,2,0,0,,".to_string(),
        ],
    );
    report.assert_reports(&violations, &impostors, &summary);
}

#[test]
fn ptr_map_addresses_and_names_compare_as_addresses() {
    let robots = "User-agent: SeznamBot\nDisallow: /private/\n";
    // Upper case, a zero group written out, a name with every group and
    // a name for the IPv4 address in upper case with a trailing dot.
    let ptr_map = "\
2A02:598:A:0::78:90, fulltextrobot-2a02-598-a-0-0-0-78-90.seznam.cz
# a comment line
77.75.77.9 FullTextRobot-Test-77-75-77-9.Seznam.CZ. # and a trailing one
";
    let log = [
        combined(
            "2a02:598:a::78:90",
            &clf(1),
            "GET /private/1 HTTP/1.1",
            200,
            BROWSER_UA,
        ),
        combined(
            "77.75.77.9",
            &clf(2),
            "GET /private/2 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", robots)
        .with("ptr-map.txt", ptr_map)
        .with("access.log", log);
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    let rule = "disallow,SeznamBot,2,Disallow: /private/,,";
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(
            VIOLATIONS_HEADER,
            &[
                format!(
                    "{},access.log,1,2a02:598:a::78:90,SeznamBot,ptr-only,ptr,GET,/private/1,200,{rule}",
                    rfc3339(1)
                ),
                format!(
                    "{},access.log,2,77.75.77.9,SeznamBot-test,ptr-only,ua+ptr,GET,/private/2,200,{rule}",
                    rfc3339(2)
                ),
            ],
        ),
    );
}

#[test]
fn a_host_name_client_that_is_no_crawlers_exposes_a_claim() {
    let robots = "User-agent: SeznamBot\nDisallow: /private/\n";
    let log = [
        combined(
            "crawl-7.evil.example.com",
            &clf(1),
            "GET /private/1 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "fulltextrobot-fresh-77-75-77-5.seznam.cz.",
            &clf(2),
            "GET /private/2 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        // Names the reader takes though DNS's rules for labels would not:
        // a label that starts or ends with `-` is still the name the
        // server's reverse lookup gave. Read as no name, the first was an
        // `unverified` SeznamBot row, an accusation.
        combined(
            "-x1.evil.example",
            &clf(3),
            "GET /private/3 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "fulltextrobot-fresh-2a02-598-64-8a00--.seznam.cz",
            &clf(4),
            "GET /private/4 HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
    ]
    .concat();
    let report = audit_text(robots, &log);
    report.assert_code(1);
    report.assert_reports(
        &csv(
            VIOLATIONS_HEADER,
            &[
                format!(
                    "{},access.log,2,fulltextrobot-fresh-77-75-77-5.seznam.cz.,FreshBot,ptr-only,ua+ptr,GET,/private/2,200,disallow,SeznamBot,2,Disallow: /private/,,",
                    rfc3339(2)
                ),
                format!(
                    "{},access.log,4,fulltextrobot-fresh-2a02-598-64-8a00--.seznam.cz,FreshBot,ptr-only,ua+ptr,GET,/private/4,200,disallow,SeznamBot,2,Disallow: /private/,,",
                    rfc3339(4)
                ),
            ],
        ),
        &csv(
            IMPOSTORS_HEADER,
            &[
                format!(
                    "{},access.log,1,crawl-7.evil.example.com,crawl-7.evil.example.com,SeznamBot,GET,/private/1,200,{SEZNAM_UA}",
                    rfc3339(1)
                ),
                format!(
                    "{},access.log,3,'-x1.evil.example,'-x1.evil.example,SeznamBot,GET,/private/3,200,{SEZNAM_UA}",
                    rfc3339(3)
                ),
            ],
        ),
        &csv(
            SUMMARY_HEADER,
            &[
                "FreshBot,crawl-delay,2,0,0,,".to_string(),
                format!("FreshBot,disallow,2,2,2,{},{}", rfc3339(2), rfc3339(4)),
                "FreshBot,request-rate,2,0,0,,".to_string(),
            ],
        ),
    );
}

#[test]
fn impostors_alone_are_not_violations() {
    let robots = "User-agent: *\nDisallow: /\n";
    let site = Site::new()
        .with("robots.txt", robots)
        .with("ptr-map.txt", "203.0.113.9 evil.example.com\n")
        .with(
            "access.log",
            combined("203.0.113.9", &clf(1), "GET /x HTTP/1.1", 200, SEZNAM_UA),
        );
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(0);
    report.assert_reports(
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
        &csv(
            IMPOSTORS_HEADER,
            &[format!(
                "{},access.log,1,203.0.113.9,evil.example.com,SeznamBot,GET,/x,200,{SEZNAM_UA}",
                rfc3339(1)
            )],
        ),
        &csv::<&str>(SUMMARY_HEADER, &[]),
    );
}

#[test]
fn a_crawlers_name_counts_in_the_client_and_the_user_agent_alone() {
    let robots = "User-agent: SeznamBot\nDisallow: /private/\n";
    let log = [
        // The name in the target and the referer claims nothing.
        format!(
            "77.75.77.1 - - [{}] \"GET /private/SeznamBot/1 HTTP/1.1\" 200 512 \"https://search.seznam.cz/?q=SeznamBot\" \"{BROWSER_UA}\"\n",
            clf(1)
        ),
        // An escaped user agent is read decoded.
        format!(
            "77.75.77.1 - - [{}] \"GET /private/2 HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (compatible; \\x53eznamBot/4.0)\"\n",
            clf(2)
        ),
        // A crawler's host name as the client, whatever the user agent.
        format!(
            "fulltextrobot-77-75-77-3.seznam.cz - - [{}] \"GET /private/3 HTTP/1.1\" 200 512 \"-\" \"{BROWSER_UA}\"\n",
            clf(3)
        ),
        // The name in upper case.
        format!(
            "77.75.77.1 - - [{}] \"GET /private/4 HTTP/1.1\" 200 512 \"-\" \"SEZNAMBOT/4.0\"\n",
            clf(4)
        ),
    ]
    .concat();
    let report = audit_text(robots, &log);
    report.assert_code(1);
    assert_eq!(common::row_lines(&report), [2, 3, 4], "{report:?}");
}

/// One SeznamBot fetch of a disallowed target, audited with `map` as the
/// PTR map, quietly, into `out/`.
fn with_ptr_map(map: &[u8]) -> (Site, common::Run) {
    let log = combined(
        "77.75.77.1",
        &clf(1),
        "GET /private/1 HTTP/1.1",
        200,
        SEZNAM_UA,
    );
    let site = Site::new()
        .with("robots.txt", "User-agent: SeznamBot\nDisallow: /private/\n")
        .with("access.log", &log)
        .with("ptr-map.txt", map);
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--quiet",
        "--out",
        "out",
    ]);
    (site, run)
}

#[test]
fn a_ptr_map_of_which_no_line_reads_stops_the_run() {
    // Pairs written the wrong way round, and the map PowerShell's `>`
    // writes (UTF-16): neither names one address.
    let utf16: Vec<u8> = "77.75.77.1 evil.example\r\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for map in [
        b"fulltextrobot-77-75-77-1.seznam.cz 77.75.77.1\nevil.example 77.75.77.1\n".to_vec(),
        [&[0xFF, 0xFE][..], &utf16].concat(),
    ] {
        let (site, run) = with_ptr_map(&map);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("ptr-map.txt:1:")
                && run.stderr.contains("no line of the PTR map could be read"),
            "{}",
            run.stderr
        );
        assert!(!site.path("out/violations.csv").exists());
    }
}

#[test]
fn bad_lines_of_a_ptr_map_are_told_even_under_quiet() {
    let (_, run) =
        with_ptr_map(b"77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\nevil.example 6.6.6.6\n");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("ptr-map.txt: 1 line of the PTR map could not be read (the first, line 2: not an IP address)"),
        "{}",
        run.stderr
    );
}

/// Two crawlers of other tokens whose name patterns overlap (Googlebot's
/// `*.google.com` and GoogleOther's): a name that fits the claimed
/// crawler's pattern is its own, though an earlier crawler's fits it too.
/// SPEC §2 calls a claim spoofed only when the name does not match the
/// crawler's pattern; a name of neither still exposes the claim.
#[test]
fn a_name_that_fits_the_claimed_crawlers_pattern_is_its_own() {
    let profiles = "crawler: Googlebot\ntoken: Googlebot\nuser-agent: Googlebot\n\
                    host: crawl-<address>.googlebot.com\nhost: *.google.com\n\n\
                    crawler: GoogleOther\ntoken: GoogleOther\nuser-agent: GoogleOther\n\
                    host: *.google.com\n";
    let other_ua = "Mozilla/5.0 (compatible; GoogleOther)";
    let log = [
        combined(
            "66.249.90.1",
            &clf(1),
            "GET /private HTTP/1.1",
            200,
            other_ua,
        ),
        combined(
            "203.0.113.5",
            &clf(2),
            "GET /private HTTP/1.1",
            200,
            other_ua,
        ),
    ]
    .concat();
    let site = Site::new()
        .with("profiles.txt", profiles)
        .with(
            "robots.txt",
            "User-agent: GoogleOther\nDisallow: /private\n",
        )
        .with("access.log", &log)
        .with(
            "ptr-map.txt",
            "66.249.90.1 rate-limited-proxy-66-249-90-1.google.com\n\
             203.0.113.5 host-5.example.net\n",
        );
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--profiles",
        "profiles.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--quiet",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert!(
        violations.contains(
            ",access.log,1,66.249.90.1,GoogleOther,ptr-only,ua+ptr,GET,/private,200,disallow,GoogleOther,2,"
        ),
        "{violations}"
    );
    assert_eq!(violations.lines().count(), 2, "{violations}");
    let impostors = std::fs::read_to_string(site.path("out/impostors.csv")).unwrap();
    assert!(
        impostors.contains(",access.log,2,203.0.113.5,host-5.example.net,GoogleOther,"),
        "{impostors}"
    );
    assert_eq!(impostors.lines().count(), 2, "{impostors}");
}

/// A `--profiles` entry that replaces SeznamBot to give it another host
/// pattern keeps what it does not say: Seznam's home-page exception (SPEC
/// §4: the `/` fetch under `User-agent: *` + `Disallow: /` only informs)
/// and its 1/30s floor (SPEC §3: `Request-rate: 1/120s` is read as 1/30s,
/// so two fetches a minute apart break nothing).
#[test]
fn a_replaced_seznambot_keeps_its_floor_and_home_page_exception() {
    let profiles = "crawler: SeznamBot\nuser-agent: SeznamBot\n\
                    host: robot-<address>.seznam.cz\n";
    let home = combined("77.75.77.1", &clf(0), "GET / HTTP/1.1", 200, SEZNAM_UA);
    let paced = [
        combined("77.75.77.1", &clf(0), "GET /a HTTP/1.1", 200, SEZNAM_UA),
        combined("77.75.77.1", &clf(60), "GET /b HTTP/1.1", 200, SEZNAM_UA),
    ]
    .concat();
    let site = Site::new()
        .with("profiles.txt", profiles)
        .with("rate.txt", "User-agent: SeznamBot\nRequest-rate: 1/120s\n")
        .with("home.txt", "User-agent: *\nDisallow: /\n")
        .with("home.log", &home)
        .with("paced.log", &paced);
    let audit = |log: &str, robots: &str| {
        site.run(&[
            "--log",
            log,
            "--robots",
            robots,
            "--robots-since",
            "2020-01-01",
            "--profiles",
            "profiles.txt",
            "--quiet",
            "--out",
            "out",
        ])
    };
    let run = audit("home.log", "home.txt");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert!(
        violations.contains(",GET,/,200,disallow,*,2,Disallow: /,,seznam-homepage-exception,"),
        "{violations}"
    );
    let run = audit("paced.log", "rate.txt");
    let violations = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert_eq!(run.code, 0, "{}\n{violations}", run.stderr);
    assert!(!violations.contains("request-rate"), "{violations}");
}
