//! `disallow` rows end to end (SPEC §3, §4) and the audit's exit status
//! (SPEC §5): the deciding rule and its group, Seznam's homepage habit,
//! `/robots.txt` always allowed, who a fetch belongs to, and exit 0, 1 and 2
//! for clean runs, findings and runs that cannot be done.

mod common;

use common::{
    BROWSER_UA, FRESH_UA, IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, VIOLATIONS_HEADER,
    clf, combined, csv, rfc3339,
};

/// A log of SeznamBot fetches from one address, one a second from `start`.
fn fetches(start: u32, ua: &str, paths: &[&str]) -> String {
    paths
        .iter()
        .zip(start..)
        .map(|(path, t)| {
            combined(
                "77.75.77.1",
                &clf(t),
                &format!("GET {path} HTTP/1.1"),
                200,
                ua,
            )
        })
        .collect()
}

fn audit(robots: &str, log: &str) -> common::Report {
    Site::new()
        .with("robots.txt", robots)
        .with("access.log", log)
        .audit(&["--log", "access.log", "--robots", "robots.txt"])
}

/// A disallow row of a fetch by `fetches` (line `line`, at second `line`).
fn row(
    line: u32,
    crawler: &str,
    target: &str,
    group: &str,
    rule: (u32, &str),
    note: &str,
) -> String {
    format!(
        "{},access.log,{line},77.75.77.1,{crawler},unverified,ua,GET,{target},200,disallow,{group},{},{},,{note}",
        rfc3339(line),
        rule.0,
        rule.1
    )
}

#[test]
fn the_homepage_under_a_default_disallow_all_is_a_row_with_a_note() {
    let robots = "User-agent: *\nDisallow: /\n";
    let log = [
        fetches(1, SEZNAM_UA, &["/", "/?q=1", "/about", "/robots.txt"]),
        fetches(5, FRESH_UA, &["/"]),
    ]
    .concat();
    let report = audit(robots, &log);
    report.assert_code(1);
    let rule = (2, "Disallow: /");
    let rows = [
        row(1, "SeznamBot", "/", "*", rule, "seznam-homepage-exception"),
        row(2, "SeznamBot", "/?q=1", "*", rule, ""),
        row(3, "SeznamBot", "/about", "*", rule, ""),
        row(5, "FreshBot", "/", "*", rule, "seznam-homepage-exception"),
    ];
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "FreshBot,crawl-delay,1,0,0,,".to_string(),
            format!("FreshBot,disallow,1,1,1,{},{}", rfc3339(5), rfc3339(5)),
            "FreshBot,request-rate,1,0,0,,".to_string(),
            "SeznamBot,crawl-delay,4,0,0,,".to_string(),
            format!("SeznamBot,disallow,4,3,3,{},{}", rfc3339(1), rfc3339(3)),
            "SeznamBot,request-rate,4,0,0,,".to_string(),
        ],
    );
    report.assert_reports(
        &csv(VIOLATIONS_HEADER, &rows),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );
}

#[test]
fn the_homepage_note_needs_the_rule_to_come_from_a_default_group() {
    let robots = "User-agent: SeznamBot\nDisallow: /\n";
    let report = audit(robots, &fetches(1, SEZNAM_UA, &["/"]));
    report.assert_code(1);
    let rows = [row(
        1,
        "SeznamBot",
        "/",
        "SeznamBot",
        (2, "Disallow: /"),
        "",
    )];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

#[test]
fn a_group_is_named_by_all_its_user_agent_lines_in_file_order() {
    let robots = "User-agent: Googlebot\nUser-agent: *\nUser-agent: Bingbot/2.0\nDisallow: /\n";
    let report = audit(robots, &fetches(1, SEZNAM_UA, &["/", "/x"]));
    let rule = (4, "Disallow: /");
    let rows = [
        row(
            1,
            "SeznamBot",
            "/",
            "Googlebot|*|Bingbot/2.0",
            rule,
            "seznam-homepage-exception",
        ),
        row(2, "SeznamBot", "/x", "Googlebot|*|Bingbot/2.0", rule, ""),
    ];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

#[test]
fn robots_txt_is_always_allowed() {
    let robots = "User-agent: SeznamBot\nDisallow: /\nDisallow: /robots.txt\n";
    let report = audit(
        robots,
        &fetches(1, SEZNAM_UA, &["/robots.txt", "/robots.txt?x=1"]),
    );
    report.assert_code(0);
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,2,0,0,,",
            "SeznamBot,disallow,2,0,0,,",
            "SeznamBot,request-rate,2,0,0,,",
        ],
    );
    report.assert_reports(
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );
}

#[test]
fn the_longest_match_decides_and_allow_wins_a_tie() {
    let robots = "\
User-agent: SeznamBot
Disallow: /shop/
Allow: /shop/public/
Disallow: /shop/public/secret
Allow: /page
Disallow: /page
Disallow: /*.php$
Allow: /*.PHP$
Disallow: /cz/chat/
Disallow: /a/b
";
    let paths = [
        "/shop/x",
        "/shop/public/x",
        "/shop/public/secret/1",
        "/page",
        "/index.php",
        "/index.php?x=1",
        "/INDEX.PHP",
        "/cz/%63hat/",
        "/a%2fb",
        "/a%2Fb",
    ];
    let report = audit(robots, &fetches(1, SEZNAM_UA, &paths));
    report.assert_code(1);
    let rows = [
        row(
            1,
            "SeznamBot",
            "/shop/x",
            "SeznamBot",
            (2, "Disallow: /shop/"),
            "",
        ),
        row(
            3,
            "SeznamBot",
            "/shop/public/secret/1",
            "SeznamBot",
            (4, "Disallow: /shop/public/secret"),
            "",
        ),
        row(
            5,
            "SeznamBot",
            "/index.php",
            "SeznamBot",
            (7, "Disallow: /*.php$"),
            "",
        ),
        row(
            8,
            "SeznamBot",
            "/cz/%63hat/",
            "SeznamBot",
            (9, "Disallow: /cz/chat/"),
            "",
        ),
    ];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

#[test]
fn a_crawler_without_its_own_group_obeys_the_default_groups_merged() {
    let robots = "\
User-agent: *
Disallow: /a/

User-agent: Googlebot
Disallow: /

User-agent: *
Disallow: /b/
";
    let report = audit(robots, &fetches(1, SEZNAM_UA, &["/a/1", "/b/1", "/c/1"]));
    let rows = [
        row(1, "SeznamBot", "/a/1", "*", (2, "Disallow: /a/"), ""),
        row(2, "SeznamBot", "/b/1", "*", (8, "Disallow: /b/"), ""),
    ];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

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
fn exit_0_when_nothing_was_broken() {
    let robots = "User-agent: SeznamBot\nDisallow: /private/\n";
    let log = [
        fetches(1, SEZNAM_UA, &["/", "/public"]),
        combined(
            "198.51.100.7",
            &clf(9),
            "GET /private/x HTTP/1.1",
            200,
            BROWSER_UA,
        ),
    ]
    .concat();
    let report = audit(robots, &log);
    report.assert_code(0);
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,2,0,0,,",
            "SeznamBot,disallow,2,0,0,,",
            "SeznamBot,request-rate,2,0,0,,",
        ],
    );
    report.assert_reports(
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );
}

#[test]
fn a_log_without_crawlers_gives_headers_only() {
    let log = combined("198.51.100.7", &clf(1), "GET / HTTP/1.1", 200, BROWSER_UA);
    let report = audit("User-agent: *\nDisallow: /\n", &log);
    report.assert_code(0);
    report.assert_reports(
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &csv::<&str>(SUMMARY_HEADER, &[]),
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
fn a_missing_robots_txt_exits_2() {
    let site = Site::new().with("access.log", fetches(1, SEZNAM_UA, &["/"]));
    let run = site.run(&["--log", "access.log", "--robots", "missing-robots.txt"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("missing-robots.txt"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn bad_arguments_exit_2() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/"]));
    let base = ["--log", "access.log", "--robots", "robots.txt"];
    let cases: &[&[&str]] = &[
        &["--robots", "robots.txt"],
        &["--log", "access.log"],
        &["--threads", "0"],
        &["--threads", "many"],
        &["--window-tz", "Europe/Prague"],
        &["--window-tz", "+2500"],
        &["--since", "yesterday"],
        &["--until", "2026-13-01"],
        &["--rate-by", "address"],
        &["--log-format", "%h %J \"%r\""],
        &["--log-format", "$remote_addr \"$request\""],
        &["--ptr-map", "missing-map.txt"],
        &["--frobnicate"],
    ];
    for (index, extra) in cases.iter().enumerate() {
        let args: Vec<&str> = if index < 2 {
            extra.to_vec()
        } else {
            base.iter().chain(extra.iter()).copied().collect()
        };
        let run = site.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.is_empty(), "{args:?} says why");
        assert!(run.stdout.is_empty(), "{args:?} writes no report");
    }
}

#[test]
fn an_unwritable_out_directory_exits_2() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]));
    // A directory cannot be made under a regular file.
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "access.log/reports",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("access.log/reports"), "{}", run.stderr);
}

#[test]
fn a_missing_out_directory_is_made() {
    // As the README's quick start runs it: `--out samples-report`.
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]));
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "reports/2026-11-30",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for name in ["violations.csv", "impostors.csv", "summary.csv"] {
        assert!(
            site.path("reports/2026-11-30").join(name).is_file(),
            "{name}"
        );
    }
}

#[test]
fn reports_replace_old_ones_whole() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]))
        .with("out/violations.csv", "stale\n")
        .with("out/summary.csv", "stale\n");
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let mut names: Vec<String> = std::fs::read_dir(site.path("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["impostors.csv", "summary.csv", "violations.csv"]);
    let violations = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert!(violations.starts_with(VIOLATIONS_HEADER), "{violations}");
    assert_eq!(violations.lines().count(), 2);
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
    ]
    .concat();
    let report = audit(robots, &log);
    report.assert_code(1);
    report.assert_reports(
        &csv(
            VIOLATIONS_HEADER,
            &[format!(
                "{},access.log,2,fulltextrobot-fresh-77-75-77-5.seznam.cz.,FreshBot,ptr-only,ua+ptr,GET,/private/2,200,disallow,SeznamBot,2,Disallow: /private/,,",
                rfc3339(2)
            )],
        ),
        &csv(
            IMPOSTORS_HEADER,
            &[format!(
                "{},access.log,1,crawl-7.evil.example.com,crawl-7.evil.example.com,SeznamBot,GET,/private/1,200,{SEZNAM_UA}",
                rfc3339(1)
            )],
        ),
        &csv(
            SUMMARY_HEADER,
            &[
                "FreshBot,crawl-delay,1,0,0,,".to_string(),
                format!("FreshBot,disallow,1,1,1,{},{}", rfc3339(2), rfc3339(2)),
                "FreshBot,request-rate,1,0,0,,".to_string(),
            ],
        ),
    );
}

#[test]
fn the_file_column_holds_the_path_as_given() {
    let site = Site::new()
        .with("robots.txt", "User-agent: SeznamBot\nDisallow: /\n")
        .with("logs/2026-11-30/access.log", fetches(1, SEZNAM_UA, &["/x"]));
    let report = site.audit(&[
        "--log",
        "./logs/2026-11-30/access.log",
        "--robots",
        "robots.txt",
    ]);
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(
            VIOLATIONS_HEADER,
            &[format!(
                "{},./logs/2026-11-30/access.log,1,77.75.77.1,SeznamBot,unverified,ua,GET,/x,200,disallow,SeznamBot,2,Disallow: /,,",
                rfc3339(1)
            )],
        ),
    );
}

#[test]
fn rule_lines_count_every_line_end_and_ignore_a_bom() {
    // CRLF, a lone CR and LF each end a line; Robot-version 2.0 makes
    // patterns match the whole path unless they end with `*`.
    let robots = "\u{feff}User-agent: SeznamBot\r\nRobot-version: 2.0\r\nDisallow: /a\rDisallow: /b*\nDisallow: /c$\n";
    let report = audit(
        robots,
        &fetches(1, SEZNAM_UA, &["/a", "/a/x", "/bx", "/c", "/cx"]),
    );
    let rows = [
        row(1, "SeznamBot", "/a", "SeznamBot", (3, "Disallow: /a"), ""),
        row(3, "SeznamBot", "/bx", "SeznamBot", (4, "Disallow: /b*"), ""),
        row(4, "SeznamBot", "/c", "SeznamBot", (5, "Disallow: /c$"), ""),
    ];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

#[test]
fn rules_past_500_kib_are_ignored() {
    let mut robots = String::from("User-agent: SeznamBot\nDisallow: /early/\n");
    robots.push('#');
    robots.push_str(&"x".repeat(512_000 - robots.len() - 1));
    robots.push('\n');
    assert_eq!(robots.len(), 512_000);
    robots.push_str("Disallow: /late/\n");
    let report = audit(&robots, &fetches(1, SEZNAM_UA, &["/early/1", "/late/1"]));
    let rows = [row(
        1,
        "SeznamBot",
        "/early/1",
        "SeznamBot",
        (2, "Disallow: /early/"),
        "",
    )];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}
