//! Who shares a rate count, and in what order (SPEC §4): `crawl-delay`
//! rows with decimal delays, merged groups, one count per token or per
//! crawler, logs split over files and out of order, spoofed fetches left
//! out, and `--since`/`--until`.

use crate::support::audit as common;

use common::{
    BROWSER_UA, FRESH_UA, GENUINE, IMPOSTORS_HEADER, Log, Row, SEZNAM_UA, SUMMARY_HEADER, Site,
    TEST_UA, VIOLATIONS_HEADER, assert_text, audit_log, clf, combined, csv, delay_detail,
    rate_detail, rfc3339, row_lines, violations,
};

#[test]
fn crawl_delay_with_decimals() {
    let robots = "User-agent: SeznamBot\nCrawl-delay: 2.5\n";
    let mut log = Log::default();
    log.at(0); // the first never breaks it
    log.at(2); // 2 s
    log.at(5); // 3 s
    log.at(7); // 2 s
    log.at(7); // 0 s
    let row = |t: u32, line: u32, gap: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "crawl-delay",
        group: "SeznamBot",
        rule: (2, "Crawl-delay: 2.5"),
        detail: delay_detail(gap, "2.5"),
    };
    let report = audit_log(robots, &log, &[]);
    // Seznam's crawlers do not read Crawl-delay (SPEC §3): the rows are
    // written with a note and accuse no one.
    report.assert_code(0);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[row(2, 2, 2), row(7, 4, 2), row(7, 5, 0)]),
    );
}

#[test]
fn merged_groups_use_the_first_delay_and_rate_in_the_file() {
    // The empty `Disallow:` ends the `*` group's run for every crawler;
    // without it, Crawl-delay (which Seznam does not read) would not, and
    // `*` and `SeznamBot` would be one group (SPEC §3).
    let robots = "\
User-agent: *
Crawl-delay: 60
Disallow:

User-agent: SeznamBot
Crawl-delay: 5
Request-rate: 1/10s

User-agent: seznambot
Crawl-delay: 1
Request-rate: 5/10s
";
    let mut log = Log::default();
    log.at(0);
    log.at(2);
    log.at(8);
    let row = |t: u32, line: u32, kind, rule, detail| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind,
        group: "SeznamBot",
        rule,
        detail,
    };
    let report = audit_log(robots, &log, &[]);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[
            row(
                2,
                2,
                "crawl-delay",
                (6, "Crawl-delay: 5"),
                delay_detail(2, "5"),
            ),
            row(
                2,
                2,
                "request-rate",
                (7, "Request-rate: 1/10s"),
                rate_detail(2, 10, "1/10s"),
            ),
            row(
                8,
                3,
                "request-rate",
                (7, "Request-rate: 1/10s"),
                rate_detail(3, 10, "1/10s"),
            ),
        ]),
    );
}

/// SeznamBot at 0 and 20, FreshBot at 1, SeznamBot-test at 22.
fn three_crawlers() -> Log {
    let mut log = Log::default();
    log.fetch(GENUINE, &clf(0), SEZNAM_UA);
    log.fetch(GENUINE, &clf(1), FRESH_UA);
    log.fetch(GENUINE, &clf(20), SEZNAM_UA);
    log.fetch(GENUINE, &clf(22), TEST_UA);
    log
}

#[test]
fn crawlers_of_one_token_share_one_count() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s\nCrawl-delay: 5\n";
    let row = |t: u32, line: u32, crawler, kind, rule, detail| Row {
        time: rfc3339(t),
        line,
        crawler,
        kind,
        group: "SeznamBot",
        rule,
        detail,
    };
    let delay = (3, "Crawl-delay: 5");
    let rate = (2, "Request-rate: 1/10s");
    for args in [&[][..], &["--rate-by", "token"][..]] {
        let report = audit_log(robots, &three_crawlers(), args);
        report.assert_code(1);
        let summary = csv(
            SUMMARY_HEADER,
            &[
                format!("FreshBot,crawl-delay,1,1,1,{},{}", rfc3339(1), rfc3339(1)),
                "FreshBot,disallow,1,0,0,,".to_string(),
                format!("FreshBot,request-rate,1,1,1,{},{}", rfc3339(1), rfc3339(1)),
                "SeznamBot,crawl-delay,2,0,0,,".to_string(),
                "SeznamBot,disallow,2,0,0,,".to_string(),
                "SeznamBot,request-rate,2,0,0,,".to_string(),
                format!(
                    "SeznamBot-test,crawl-delay,1,1,1,{},{}",
                    rfc3339(22),
                    rfc3339(22)
                ),
                "SeznamBot-test,disallow,1,0,0,,".to_string(),
                format!(
                    "SeznamBot-test,request-rate,1,1,1,{},{}",
                    rfc3339(22),
                    rfc3339(22)
                ),
            ],
        );
        report.assert_reports(
            &violations(&[
                row(1, 2, "FreshBot", "crawl-delay", delay, delay_detail(1, "5")),
                row(
                    1,
                    2,
                    "FreshBot",
                    "request-rate",
                    rate,
                    rate_detail(2, 10, "1/10s"),
                ),
                row(
                    22,
                    4,
                    "SeznamBot-test",
                    "crawl-delay",
                    delay,
                    delay_detail(2, "5"),
                ),
                row(
                    22,
                    4,
                    "SeznamBot-test",
                    "request-rate",
                    rate,
                    rate_detail(2, 10, "1/10s"),
                ),
            ]),
            &csv::<&str>(IMPOSTORS_HEADER, &[]),
            &summary,
        );
    }
}

#[test]
fn rate_by_crawler_counts_each_apart() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s\nCrawl-delay: 5\n";
    let report = audit_log(robots, &three_crawlers(), &["--rate-by", "crawler"]);
    report.assert_code(0);
    assert_text(
        "violations.csv",
        &report.violations,
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
    );
}

/// Rate and delay rows of the interleaving cases: Request-rate 2/10s and
/// Crawl-delay 3 over fetches at 0, 1, 2, 6, 7, 20, 21, 21 s.
const INTERLEAVED_ROBOTS: &str = "User-agent: SeznamBot\nRequest-rate: 2/10s\nCrawl-delay: 3\n";

/// (time, kind, detail) of each row, in row order, for the fetches in
/// time order numbered 0..8.
fn interleaved_rows() -> Vec<(usize, &'static str, String)> {
    vec![
        (1, "crawl-delay", delay_detail(1, "3")),
        (2, "crawl-delay", delay_detail(1, "3")),
        (2, "request-rate", rate_detail(3, 10, "2/10s")),
        (3, "request-rate", rate_detail(4, 10, "2/10s")),
        (4, "crawl-delay", delay_detail(1, "3")),
        (4, "request-rate", rate_detail(5, 10, "2/10s")),
        (6, "crawl-delay", delay_detail(1, "3")),
        (7, "crawl-delay", delay_detail(0, "3")),
        (7, "request-rate", rate_detail(3, 10, "2/10s")),
    ]
}

const INTERLEAVED_TIMES: [u32; 8] = [0, 1, 2, 6, 7, 20, 21, 21];

fn interleaved_csv(place: &dyn Fn(usize) -> (&'static str, u32)) -> String {
    let rows: Vec<String> = interleaved_rows()
        .into_iter()
        .map(|(fetch, kind, detail)| {
            let (file, line) = place(fetch);
            // Seznam does not read Crawl-delay: those rows only inform.
            let (rule, note) = if kind == "crawl-delay" {
                ("3,Crawl-delay: 3", "not-read-by-crawler")
            } else {
                ("2,Request-rate: 2/10s", "")
            };
            format!(
                "{},{file},{line},{GENUINE},SeznamBot,unverified,ua,GET,/f{fetch},200,{kind},SeznamBot,{rule},{detail},{note}",
                rfc3339(INTERLEAVED_TIMES[fetch])
            )
        })
        .collect();
    csv(VIOLATIONS_HEADER, &rows)
}

fn fetch_line(fetch: usize) -> String {
    combined(
        GENUINE,
        &clf(INTERLEAVED_TIMES[fetch]),
        &format!("GET /f{fetch} HTTP/1.1"),
        200,
        SEZNAM_UA,
    )
}

#[test]
fn one_sorted_log_gives_the_rate_and_delay_rows() {
    let log: String = (0..8).map(fetch_line).collect();
    let site = Site::new()
        .with("robots.txt", INTERLEAVED_ROBOTS)
        .with("all.log", log);
    let report = site.audit(&["--log", "all.log", "--robots", "robots.txt"]);
    report.assert_code(1);
    let want = interleaved_csv(&|fetch| ("all.log", fetch as u32 + 1));
    assert_text("violations.csv", &report.violations, &want);
}

#[test]
fn logs_split_over_files_and_out_of_order_give_the_same_rows() {
    // Fetches by time order: front1 holds 4, 0, 6, 2 and front2 1, 7, 3, 5,
    // so both instants of 21 s (6 and 7) are in different files.
    let front1 = [4, 0, 6, 2];
    let front2 = [1, 7, 3, 5];
    let site = Site::new()
        .with("robots.txt", INTERLEAVED_ROBOTS)
        .with(
            "front1.log",
            front1.iter().map(|&f| fetch_line(f)).collect::<String>(),
        )
        .with(
            "front2.log",
            front2.iter().map(|&f| fetch_line(f)).collect::<String>(),
        );
    let report = site.audit(&[
        "--log",
        "front1.log",
        "--log",
        "front2.log",
        "--robots",
        "robots.txt",
    ]);
    report.assert_code(1);
    let place = |fetch: usize| -> (&'static str, u32) {
        match front1.iter().position(|&f| f == fetch) {
            Some(i) => ("front1.log", i as u32 + 1),
            None => (
                "front2.log",
                front2.iter().position(|&f| f == fetch).unwrap() as u32 + 1,
            ),
        }
    };
    assert_text(
        "violations.csv",
        &report.violations,
        &interleaved_csv(&place),
    );
}

#[test]
fn spoofed_fetches_are_never_counted() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s\nCrawl-delay: 5\n";
    let mut log = Log::default();
    log.at(0);
    for t in 1..=3 {
        log.fetch("203.0.113.9", &clf(t), SEZNAM_UA);
    }
    log.at(11); // alone in (1, 11] once the impostor is left out
    // An unknown address claiming SeznamBot is unverified, and counted.
    log.fetch("198.51.100.7", &clf(12), SEZNAM_UA);
    log.fetch("198.51.100.8", &clf(13), BROWSER_UA);
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", &log.text)
        .with("ptr-map.txt", "203.0.113.9 evil.example.com\n");
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    let unverified = |kind: &str, rule, detail| {
        let note = if kind == "crawl-delay" {
            "not-read-by-crawler"
        } else {
            ""
        };
        format!(
            "{},access.log,6,198.51.100.7,SeznamBot,unverified,ua,GET,/page/6,200,{kind},SeznamBot,{rule},{detail},{note}",
            rfc3339(12)
        )
    };
    let violations = csv(
        VIOLATIONS_HEADER,
        &[
            unverified("crawl-delay", "3,Crawl-delay: 5", delay_detail(1, "5")),
            unverified(
                "request-rate",
                "2,Request-rate: 1/10s",
                rate_detail(2, 10, "1/10s"),
            ),
        ],
    );
    let impostors: Vec<String> = (1..=3)
        .map(|t| {
            format!(
                "{},access.log,{},203.0.113.9,evil.example.com,SeznamBot,GET,/page/{},200,{SEZNAM_UA}",
                rfc3339(t),
                t + 1,
                t + 1
            )
        })
        .collect();
    let summary = csv(
        SUMMARY_HEADER,
        &[
            format!(
                "SeznamBot,crawl-delay,3,1,1,{},{}",
                rfc3339(12),
                rfc3339(12)
            ),
            "SeznamBot,disallow,3,0,0,,".to_string(),
            format!(
                "SeznamBot,request-rate,3,1,1,{},{}",
                rfc3339(12),
                rfc3339(12)
            ),
        ],
    );
    report.assert_reports(&violations, &csv(IMPOSTORS_HEADER, &impostors), &summary);
}

#[test]
fn since_and_until_bound_the_audit() {
    let robots = "User-agent: SeznamBot\nDisallow: /\n";
    let mut log = Log::default();
    for t in [5, 10, 15, 20] {
        log.at(t);
    }
    log.at(86_400); // 2026-12-01T00:00:00Z
    let row = |t: u32, line: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "disallow",
        group: "SeznamBot",
        rule: (2, "Disallow: /"),
        detail: String::new(),
    };
    let report = audit_log(
        robots,
        &log,
        &[
            "--since",
            "2026-11-30T00:00:10+00:00",
            "--until",
            "2026-11-30T01:00:20+01:00",
        ],
    );
    report.assert_code(1);
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,2,0,0,,".to_string(),
            format!("SeznamBot,disallow,2,2,2,{},{}", rfc3339(10), rfc3339(15)),
            "SeznamBot,request-rate,2,0,0,,".to_string(),
        ],
    );
    report.assert_reports(
        &violations(&[row(10, 2), row(15, 3)]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );

    // A date is midnight UTC.
    let report = audit_log(robots, &log, &["--since", "2026-12-01"]);
    assert_eq!(row_lines(&report), [5]);
    let report = audit_log(robots, &log, &["--until", "2026-12-01"]);
    assert_eq!(row_lines(&report), [1, 2, 3, 4]);

    // To the millisecond: 10 s is before 10.001 s, 20 s before 20.5 s.
    let report = audit_log(
        robots,
        &log,
        &[
            "--since",
            "2026-11-30T00:00:10.001+00:00",
            "--until",
            "2026-11-30T00:00:20.5+00:00",
        ],
    );
    assert_eq!(row_lines(&report), [3, 4]);
    // A period within one second holds instants: no error, and the fetch
    // logged at 15 s is before it.
    let report = audit_log(
        robots,
        &log,
        &[
            "--since",
            "2026-11-30T00:00:15.2+00:00",
            "--until",
            "2026-11-30T00:00:15.8+00:00",
        ],
    );
    report.assert_code(0);
    assert_eq!(row_lines(&report), Vec::<u32>::new());
}

/// A profile's token is its product token wherever it counts: a crawler
/// added with `token: SeznamBot/4.0` reads SeznamBot's groups, so it is
/// the same robot and shares SeznamBot's count, as with `token:
/// SeznamBot`. Counted apart, two fetches 10 s apart under `1/60s` made
/// no row.
#[test]
fn a_profile_token_with_a_version_shares_its_robots_count() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/60s\n";
    let mut log = Log::default();
    log.fetch(GENUINE, &clf(0), SEZNAM_UA);
    log.fetch(GENUINE, &clf(10), "SeznamBot-img/1.0");
    let mut text = String::new();
    for token in ["SeznamBot", "SeznamBot/4.0", "seznambot;x"] {
        let site = Site::new()
            .with("robots.txt", robots)
            .with("access.log", &log.text)
            .with(
                "profiles.txt",
                format!(
                    "crawler: SeznamBot-img\ntoken: {token}\nuser-agent: SeznamBot-img\n\
                     reads: Request-rate\n"
                ),
            );
        let report = site.audit(&[
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--profiles",
            "profiles.txt",
        ]);
        report.assert_code(1);
        let rows = String::from_utf8_lossy(&report.violations).into_owned();
        assert_eq!(rows.lines().count(), 2, "{token}: {rows}");
        assert!(
            rows.contains(",SeznamBot-img,") && rows.contains(",request-rate,"),
            "{token}: {rows}"
        );
        text = rows;
    }
    assert!(text.contains("2 fetches in 60 s"), "{text}");
}

/// A window that holds none of the night's crawler fetches (a cron line a
/// day off) audits nothing: said on standard error even under --quiet,
/// counted in run.json, and report.html and the mail never call it a night
/// no crawler broke robots.txt.
#[test]
fn a_window_that_leaves_out_every_crawler_fetch_is_said_so() {
    let robots = "User-agent: SeznamBot\nDisallow: /\n";
    let mut log = Log::default();
    for t in [5, 10] {
        log.at(t);
    }
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", &log.text);
    let since = |since: &str, out: &str| {
        site.run(&[
            "--quiet",
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--since",
            since,
            "--out",
            out,
        ])
    };
    let run = since("2026-12-01", "o");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no crawler fetch was audited: 2 fetches claiming a crawler were outside"),
        "{}",
        run.stderr
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.path("o/run.json")).unwrap()).unwrap();
    assert_eq!(
        json["crawler_fetches_left_out"]["outside_since_until"], 2,
        "{json}"
    );
    let page = std::fs::read_to_string(site.path("o/report.html")).unwrap();
    assert!(!page.contains("No crawler broke robots.txt."), "{page}");
    assert!(page.contains("No crawler fetch was audited"), "{page}");
    let mail = site.run(&["summary", "o"]);
    let mail = String::from_utf8_lossy(&mail.stdout);
    assert!(
        mail.contains("no crawler fetch audited")
            && mail.contains("2 fetches claiming a crawler outside --since/--until"),
        "{mail}"
    );
    // A window that holds some of them says nothing more on stderr.
    // A spoofed fetch inside the window is none of the crawler's (SPEC
    // §2): still nothing of the crawler's was audited (regression review).
    site.write(
        "access.log",
        format!(
            "{}{}",
            log.text,
            combined(
                "6.6.6.6",
                &clf(86_400 + 60),
                "GET / HTTP/1.1",
                200,
                SEZNAM_UA
            )
        ),
    );
    site.write("ptr.txt", "6.6.6.6 evil.example\n");
    let run = site.run(&[
        "--quiet",
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr.txt",
        "--since",
        "2026-12-01",
        "--out",
        "o3",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("no crawler fetch was audited"),
        "{}",
        run.stderr
    );
    let page = std::fs::read_to_string(site.path("o3/report.html")).unwrap();
    assert!(page.contains("No crawler fetch was audited"), "{page}");
    site.write("access.log", &log.text);
    let run = since("2026-11-30T00:00:08Z", "o2");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        !run.stderr.contains("outside --since/--until"),
        "{}",
        run.stderr
    );
}
