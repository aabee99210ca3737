//! `disallow` rows end to end (SPEC §3, §4): the deciding rule, its line
//! and its group, precedence and normalisation, Seznam's homepage habit,
//! `/robots.txt` always allowed, and robots.txt files of unusual shape.

use crate::support::audit as common;

use common::{
    FRESH_UA, IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, VIOLATIONS_HEADER, audit_text, csv,
    fetches, rfc3339,
};

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
    let report = audit_text(robots, &log);
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
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &["/"]));
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
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &["/", "/x"]));
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
fn robots_txt_is_always_allowed_but_not_with_a_query() {
    // SPEC §3: `/robots.txt`, that path without a query, is always
    // allowed; `/robots.txt?x=1` is another resource and judged.
    let robots = "User-agent: SeznamBot\nDisallow: /\nDisallow: /robots.txt\n";
    let report = audit_text(
        robots,
        &fetches(1, SEZNAM_UA, &["/robots.txt", "/robots.txt?x=1"]),
    );
    report.assert_code(1);
    let rows = [row(
        2,
        "SeznamBot",
        "/robots.txt?x=1",
        "SeznamBot",
        (3, "Disallow: /robots.txt"),
        "",
    )];
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,2,0,0,,".to_string(),
            format!("SeznamBot,disallow,2,1,1,{},{}", rfc3339(2), rfc3339(2)),
            "SeznamBot,request-rate,2,0,0,,".to_string(),
        ],
    );
    report.assert_reports(
        &csv(VIOLATIONS_HEADER, &rows),
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
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &paths));
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
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &["/a/1", "/b/1", "/c/1"]));
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
fn rule_lines_count_every_line_end_and_ignore_a_bom() {
    // CRLF, a lone CR and LF each end a line; Robot-version 2.0 makes
    // patterns match the whole path unless they end with `*`.
    let robots = "\u{feff}User-agent: SeznamBot\r\nRobot-version: 2.0\r\nDisallow: /a\rDisallow: /b*\nDisallow: /c$\n";
    let report = audit_text(
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
    let report = audit_text(&robots, &fetches(1, SEZNAM_UA, &["/early/1", "/late/1"]));
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

#[test]
fn rows_whose_note_only_informs_leave_the_exit_status_zero() {
    // Seznam's documented homepage habit alone.
    let report = audit_text(
        "User-agent: *\nDisallow: /\n",
        &fetches(1, SEZNAM_UA, &["/"]),
    );
    report.assert_code(0);
    assert!(
        String::from_utf8_lossy(&report.violations).contains("seznam-homepage-exception"),
        "{}",
        String::from_utf8_lossy(&report.violations)
    );
    // Crawl-delay, which Seznam's crawlers do not read (SPEC §3): the rows
    // are written, marked, and accuse no one.
    let robots = "User-agent: SeznamBot\nCrawl-delay: 10\nDisallow: /private/\n";
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &["/a", "/b", "/c"]));
    report.assert_code(0);
    let text = String::from_utf8_lossy(&report.violations).into_owned();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows.iter()
            .all(|r| r.contains(",crawl-delay,SeznamBot,2,Crawl-delay: 10,")
                && r.ends_with(",not-read-by-crawler")),
        "{text}"
    );
    // The same night with one real violation exits 1.
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &["/a", "/private/x"]));
    report.assert_code(1);
}

#[test]
fn a_seznam_group_run_ends_at_request_rate_but_not_at_crawl_delay() {
    // SPEC §3: Seznam reads Request-rate, so `*` is a group of its own and
    // its Disallow is not SeznamBot's; it does not read Crawl-delay, so
    // there the run goes on and `Disallow: /b` is SeznamBot's.
    let robots = "User-agent: SeznamBot\nRequest-rate: 100/1m\nUser-agent: *\nDisallow: /a\n\n\
                  User-agent: Googlebot\nCrawl-delay: 5\nUser-agent: SeznamBot\nDisallow: /b\n";
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &["/a", "/b"]));
    report.assert_code(1);
    let rows = [
        // The merged group's Crawl-delay, which SeznamBot does not read.
        format!(
            "{},access.log,2,77.75.77.1,SeznamBot,unverified,ua,GET,/b,200,crawl-delay,\
             Googlebot|SeznamBot,7,Crawl-delay: 5,1 s after the previous fetch; allowed every 5 s,\
             not-read-by-crawler",
            rfc3339(2)
        ),
        row(
            2,
            "SeznamBot",
            "/b",
            "Googlebot|SeznamBot",
            (9, "Disallow: /b"),
            "",
        ),
    ];
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

/// SPEC §3: `check --user-agent` identifies a full user agent exactly as
/// the audit identifies a log's, so the two never disagree on a verdict:
/// for every crawler of the built-in table, the targets the audit reports
/// as `disallow` rows are exactly those `check` calls disallowed, decided
/// by the same line.
#[test]
fn check_and_the_audit_agree_for_every_crawler_of_the_table() {
    let robots = "User-agent: *\nDisallow: /\n\n\
                  User-agent: SeznamBot\nRequest-rate: 10/1m\nUser-agent: Googlebot\nDisallow: /google-only/\n\n\
                  User-agent: Bingbot\nCrawl-delay: 4\nUser-agent: SeznamBot/4.0\nRobot-version: 2.0\n\
                  Disallow: /exact\nDisallow: /*url=http%3A\nDisallow: /a%2A\nAllow: /pub*\nDisallow: /pub/x$\n";
    let targets = [
        "/",
        "/exact",
        "/exact/more",
        "/google-only/x",
        "/out?url=http%3A//x",
        "/out?url=http://x",
        "/a*",
        "/a%2A",
        "/pub/x",
        "/pub/y",
        "/robots.txt",
        "/robots.txt?x",
        "/other",
    ];
    for ua in [SEZNAM_UA, FRESH_UA, common::TEST_UA] {
        let report = audit_text(robots, &fetches(1, ua, &targets));
        let text = String::from_utf8_lossy(&report.violations).into_owned();
        let mut from_audit: Vec<(String, String)> = text
            .lines()
            .skip(1)
            .map(|r| r.split(',').collect::<Vec<_>>())
            .filter(|f| f[10] == "disallow")
            .map(|f| (f[8].to_string(), f[12].to_string()))
            .collect();
        from_audit.sort();

        let site = common::Site::new().with("robots.txt", robots);
        let mut args = vec![
            "check",
            "--format",
            "csv",
            "--user-agent",
            ua,
            "--robots",
            "robots.txt",
        ];
        args.extend(targets);
        let answer = String::from_utf8_lossy(&site.run(&args).stdout).into_owned();
        let mut from_check: Vec<(String, String)> = answer
            .lines()
            .skip(1)
            .map(|r| r.split(',').collect::<Vec<_>>())
            .filter(|f| f[2] == "disallowed")
            .map(|f| (f[0].to_string(), f[4].to_string()))
            .collect();
        from_check.sort();
        assert!(!from_check.is_empty(), "{ua}: {answer}");
        assert_eq!(
            from_audit, from_check,
            "{ua}\naudit:\n{text}\ncheck:\n{answer}"
        );
    }
}

/// SPEC §5 "target: as logged, escapes decoded": a blank the log wrote as
/// an escape at the target's end (Apache's `\t`, nginx's `\x09`, `\x20`,
/// JSON's `\t`) is part of what the client sent, never trimmed as the
/// line's own separator; so the audit judges `/doc.pdf%09`, as `check`
/// does, and neither accuses under `/*.pdf$` nor misses `/t%09`.
#[test]
fn a_blank_written_as_an_escape_stays_in_the_target() {
    let robots = "User-agent: SeznamBot\nDisallow: /*.pdf$\nDisallow: /t%09\nDisallow: /s%20\n";
    let line = |second: u32, request: &str| {
        format!(
            "77.75.77.1 - - [30/Nov/2026:00:00:{second:02} +0000] \"{request}\" 400 1 \"-\" \"{SEZNAM_UA}\"\n"
        )
    };
    let log = [
        line(1, r"GET /doc.pdf\t HTTP/1.1"),
        line(2, r"GET /doc.pdf\x20 HTTP/1.1"),
        line(3, r"GET /t\t HTTP/1.1"),
        line(4, r"GET /t\x09 HTTP/1.1"),
        line(5, r"GET /s\x20 HTTP/1.1"),
        // Raw blanks around the target are the line's own: trimmed.
        line(6, "GET  /doc.pdf  HTTP/1.1"),
    ]
    .concat();
    let report = audit_text(robots, &log);
    let rows: Vec<String> = String::from_utf8_lossy(&report.violations)
        .lines()
        .skip(1)
        .map(|r| {
            let f: Vec<&str> = r.split(',').collect();
            format!("{} {} {}", f[2], f[8], f[12])
        })
        .collect();
    assert_eq!(
        rows,
        ["3 /t\\x09 3", "4 /t\\x09 3", "5 /s  4", "6 /doc.pdf 2"]
    );

    // JSON's escapes alike.
    let json = format!(
        "{{\"remote_addr\":\"77.75.77.1\",\"time_iso8601\":\"2026-11-30T00:00:01+00:00\",\
         \"request\":\"GET /doc.pdf\\t HTTP/1.1\",\"status\":\"400\",\"http_user_agent\":\"{SEZNAM_UA}\"}}\n\
         {{\"remote_addr\":\"77.75.77.1\",\"time_iso8601\":\"2026-11-30T00:00:02+00:00\",\
         \"request\":\"GET /t\\t HTTP/1.1\",\"status\":\"400\",\"http_user_agent\":\"{SEZNAM_UA}\"}}\n"
    );
    let report = audit_text(robots, &json);
    let rows: Vec<String> = String::from_utf8_lossy(&report.violations)
        .lines()
        .skip(1)
        .map(|r| r.split(',').nth(2).unwrap().to_string())
        .collect();
    assert_eq!(rows, ["2"]);
}

/// A target past the 8 KiB the reports keep (SPEC §5) is judged whole, as
/// `check` judges it (SPEC §3): a rule whose match reaches past the cut
/// (`Allow: /x*zz`, `Allow: /x*.html$`) decides, and the row, when there
/// is one, shows the target cut and marked.
#[test]
fn a_target_longer_than_the_reports_keep_is_judged_whole() {
    let robots = "User-agent: *\nDisallow: /x\nAllow: /x*zz\nAllow: /x*.html$\n";
    let long = |tail: &str| format!("/x{}{tail}", "a".repeat(9_000));
    let targets = [long("zz"), long(".html"), long("b")];
    let refs: Vec<&str> = targets.iter().map(String::as_str).collect();
    let report = audit_text(robots, &fetches(1, SEZNAM_UA, &refs));
    report.assert_code(1);
    let text = String::from_utf8_lossy(&report.violations).into_owned();
    let rows: Vec<(String, String)> = text
        .lines()
        .skip(1)
        .map(|r| r.split(',').collect::<Vec<_>>())
        .map(|f| (f[2].to_string(), f[12].to_string()))
        .collect();
    assert_eq!(rows, [("3".to_string(), "2".to_string())], "{text}");
    let kept = format!("{}…[cut 811 bytes]", &targets[2][..8192]);
    assert!(text.contains(&format!(",GET,{kept},200,")), "{text}");

    let site = common::Site::new().with("robots.txt", robots);
    let mut args = vec!["check", "--format", "csv", "--robots", "robots.txt"];
    args.extend(&refs);
    let answer = String::from_utf8_lossy(&site.run(&args).stdout).into_owned();
    let verdicts: Vec<&str> = answer
        .lines()
        .skip(1)
        .map(|r| r.split(',').nth(2).unwrap_or_default())
        .collect();
    assert_eq!(verdicts, ["allowed", "allowed", "disallowed"], "{answer}");
}

/// `Robot-version: 2.0` after a record Seznam does not read (`Sitemap`, an
/// unknown line, `Visit-time`), not right after the group's User-agent
/// lines: SPEC §3 takes 2.0 as the group's second line and says such
/// records neither end the run nor the group, so whether Seznam reads the
/// group as 2.0 is unknown. A fetch is a row only when both readings
/// disallow it: `/ab` is allowed under 2.0 (`Disallow: /a` is then the
/// whole path), `/a` is disallowed either way; `check` says the same.
#[test]
fn robot_version_after_records_seznam_does_not_read_accuses_only_what_both_readings_do() {
    for between in [
        "Sitemap: https://example.cz/s.xml",
        "Foo: bar",
        "Visit-time: 0100-0200",
    ] {
        let robots =
            format!("User-agent: SeznamBot\n{between}\nRobot-version: 2.0\nDisallow: /a\n");
        let report = audit_text(&robots, &fetches(1, SEZNAM_UA, &["/ab", "/a"]));
        report.assert_code(1);
        let rule = (4, "Disallow: /a");
        let rows = [row(2, "SeznamBot", "/a", "SeznamBot", rule, "")];
        assert_eq!(
            String::from_utf8_lossy(&report.violations),
            csv(VIOLATIONS_HEADER, &rows),
            "{between}"
        );
    }
}
