//! `request-rate` rows end to end (SPEC §3, §4): the limit and the
//! (t − T, t] window, time-of-day windows and the clock they are read in,
//! changes of UTC offset, Seznam's 1/30s floor, rate units, and the group
//! that holds the rule.

use crate::support::audit as common;

use common::{
    GENUINE, IMPOSTORS_HEADER, Log, Row, SEZNAM_UA, SUMMARY_HEADER, VIOLATIONS_HEADER, assert_text,
    audit_log, clf, combined, csv, delay_detail, rate_detail, rfc3339, row_lines, violations,
};

#[test]
fn at_the_limit_is_allowed_one_more_is_not() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 3/10s\n";
    let mut log = Log::default();
    for _ in 0..4 {
        log.at(100);
    }
    log.at(109); // 5 in (99, 109]
    log.at(110); // the four at 100 have left (100, 110]
    log.at(111); // 3 in (101, 111]
    log.at(112); // 4 in (102, 112]
    let rule = (2, "Request-rate: 3/10s");
    let row = |t: u32, line: u32, n: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "request-rate",
        group: "SeznamBot",
        rule,
        detail: rate_detail(n, 10, "3/10s"),
    };
    let report = audit_log(robots, &log, &[]);
    report.assert_code(1);
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,8,0,0,,".to_string(),
            "SeznamBot,disallow,8,0,0,,".to_string(),
            format!(
                "SeznamBot,request-rate,8,3,3,{},{}",
                rfc3339(100),
                rfc3339(112)
            ),
        ],
    );
    report.assert_reports(
        &violations(&[row(100, 4, 4), row(109, 5, 5), row(112, 8, 4)]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );
}

#[test]
fn robots_txt_fetches_count_in_rates() {
    let robots = "User-agent: *\nRequest-rate: 1/10s\n";
    let mut log = Log::default();
    log.at(0);
    log.text.push_str(&combined(
        GENUINE,
        &clf(1),
        "GET /robots.txt HTTP/1.1",
        200,
        SEZNAM_UA,
    ));
    log.lines += 1;
    let report = audit_log(robots, &log, &[]);
    let row = format!(
        "{},access.log,2,{GENUINE},SeznamBot,unverified,ua,GET,/robots.txt,200,request-rate,*,2,Request-rate: 1/10s,{},",
        rfc3339(1),
        rate_detail(2, 10, "1/10s")
    );
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &[row]),
    );
}

#[test]
fn a_windowed_rate_wins_inside_its_window_and_counts_fetches_from_before_it() {
    let robots = "\
User-agent: SeznamBot
Request-rate: 1/10s 0100-0200
Request-rate: 3/10s
";
    let hm = |h: u32, m: u32, s: u32| h * 3600 + m * 60 + s;
    let mut log = Log::default();
    log.at(hm(0, 59, 58));
    log.at(hm(0, 59, 59));
    log.at(hm(1, 0, 0)); // the window opens: 3 in (00:59:50, 01:00:00]
    log.at(hm(1, 59, 50));
    log.at(hm(1, 59, 59)); // 2 in (01:59:49, 01:59:59]
    log.at(hm(2, 0, 0)); // the window has closed: 2 of 3 allowed
    log.at(hm(2, 0, 1)); // 3 of 3
    let windowed = |t: u32, line: u32, n: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "request-rate",
        group: "SeznamBot",
        rule: (2, "Request-rate: 1/10s 0100-0200"),
        detail: rate_detail(n, 10, "1/10s"),
    };
    let report = audit_log(robots, &log, &[]);
    report.assert_code(1);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[windowed(hm(1, 0, 0), 3, 3), windowed(hm(1, 59, 59), 5, 2)]),
    );
}

#[test]
fn a_window_may_wrap_midnight() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s 2300-0100\n";
    let day = 86_400;
    let mut log = Log::default();
    log.at(82_798); // 22:59:58, before the window: no rate at all
    log.at(82_799);
    log.at(82_800); // 23:00:00: 3 in 10 s
    log.at(day + 3_595); // 00:59:55 the next day
    log.at(day + 3_599); // 00:59:59: 2 in 10 s
    log.at(day + 3_600); // 01:00:00: the window has closed
    let row = |t: u32, line: u32, n: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "request-rate",
        group: "SeznamBot",
        rule: (2, "Request-rate: 1/10s 2300-0100"),
        detail: rate_detail(n, 10, "1/10s"),
    };
    let report = audit_log(robots, &log, &[]);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[row(82_800, 3, 3), row(day + 3_599, 5, 2)]),
    );
}

/// Two fetches a second apart at each of `times` (CLF with offsets).
fn pairs(times: &[(&str, &str)]) -> Log {
    let mut log = Log::default();
    for (first, second) in times {
        log.fetch(GENUINE, first, SEZNAM_UA);
        log.fetch(GENUINE, second, SEZNAM_UA);
    }
    log
}

#[test]
fn window_times_are_utc_unless_told_otherwise() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s 0100-0200\n";
    let log = pairs(&[
        // 00:00 UTC, 01:00 at +0100.
        ("30/Nov/2026:00:00:00 +0000", "30/Nov/2026:00:00:01 +0000"),
        // 01:00 UTC, 02:00 at +0100.
        ("30/Nov/2026:01:00:00 +0000", "30/Nov/2026:01:00:01 +0000"),
    ]);
    assert_eq!(row_lines(&audit_log(robots, &log, &[])), [4]);
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "+0100"])),
        [2]
    );
    // 01:00:01 UTC is 01:30:01 at +0030, and 00:30:01 at -0030.
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "+0030"])),
        [4]
    );
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "-0030"])),
        Vec::<u32>::new()
    );
}

#[test]
fn window_tz_local_reads_each_line_in_its_own_offset() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s 0100-0200\n";
    let log = pairs(&[
        // 01:00 local, 00:00 UTC.
        ("30/Nov/2026:01:00:00 +0100", "30/Nov/2026:01:00:01 +0100"),
        // 02:30 local, 00:30 UTC, 01:30 at +0100.
        ("30/Nov/2026:02:30:00 +0200", "30/Nov/2026:02:30:01 +0200"),
    ]);
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "local"])),
        [2]
    );
    assert_eq!(row_lines(&audit_log(robots, &log, &[])), Vec::<u32>::new());
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "+0100"])),
        [2, 4]
    );
}

#[test]
fn a_change_of_utc_offset_is_ordered_by_the_instant() {
    // The night the clocks go back: 02:59:55 summer time comes before
    // 02:00:02 winter time, seven seconds later.
    let robots = "User-agent: SeznamBot\nCrawl-delay: 10\nRequest-rate: 1/10s\n";
    let mut log = Log::default();
    log.fetch(GENUINE, "25/Oct/2026:02:00:02 +0100", SEZNAM_UA);
    log.fetch(GENUINE, "25/Oct/2026:02:59:55 +0200", SEZNAM_UA);
    log.fetch(GENUINE, "25/Oct/2026:02:00:30 +0100", SEZNAM_UA);
    let report = audit_log(robots, &log, &[]);
    report.assert_code(1);
    let row = |kind, rule, detail| Row {
        time: "2026-10-25T02:00:02+01:00".to_string(),
        line: 1,
        crawler: "SeznamBot",
        kind,
        group: "SeznamBot",
        rule,
        detail,
    };
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,3,1,1,2026-10-25T02:00:02+01:00,2026-10-25T02:00:02+01:00",
            "SeznamBot,disallow,3,0,0,,",
            "SeznamBot,request-rate,3,1,1,2026-10-25T02:00:02+01:00,2026-10-25T02:00:02+01:00",
        ],
    );
    report.assert_reports(
        &violations(&[
            row("crawl-delay", (2, "Crawl-delay: 10"), delay_detail(7, "10")),
            row(
                "request-rate",
                (3, "Request-rate: 1/10s"),
                rate_detail(2, 10, "1/10s"),
            ),
        ]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );
}

#[test]
fn seznam_reads_a_rate_slower_than_1_per_30s_as_1_per_30s() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/60s\n";
    let mut log = Log::default();
    log.at(0);
    log.at(40); // breaks 1/60s as written, not 1/30s
    log.at(60); // 2 in (30, 60]
    log.at(61); // 3 in (31, 61]
    let row = |t: u32, line: u32, n: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "request-rate",
        group: "SeznamBot",
        rule: (2, "Request-rate: 1/60s"),
        detail: format!(
            "{}; effective 1/30s (written 1/60s)",
            rate_detail(n, 30, "1/60s")
        ),
    };
    let report = audit_log(robots, &log, &[]);
    report.assert_code(1);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[row(60, 3, 2), row(61, 4, 3)]),
    );
    for line in String::from_utf8_lossy(&report.violations).lines().skip(1) {
        assert!(line.contains("effective 1/30s (written 1/60s)"), "{line}");
    }
}

#[test]
fn a_rate_slower_than_the_floor_is_judged_as_the_floor() {
    // 3/1h is slower than 1/30s, so Seznam reads it as 1/30s (SPEC §3): a
    // burst breaks it though the hour holds fewer than the 3 written.
    let robots = "User-agent: SeznamBot\nRequest-rate: 3/1h\n";
    let mut log = Log::default();
    for t in [0, 1, 2, 10, 100, 140] {
        log.at(t);
    }
    let report = audit_log(robots, &log, &[]);
    report.assert_code(1);
    // In (t − 30, t]: 2 at 1 s, 3 at 2 s, 4 at 10 s; at 100 s and 140 s
    // one each, though the hour holds 5 and 6.
    let row = |t: u32, line: u32, inside: u32| Row {
        time: rfc3339(t),
        line,
        crawler: "SeznamBot",
        kind: "request-rate",
        group: "SeznamBot",
        rule: (2, "Request-rate: 3/1h"),
        detail: format!(
            "{}; effective 1/30s (written 3/1h)",
            rate_detail(inside, 30, "3/1h")
        ),
    };
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[row(1, 2, 2), row(2, 3, 3), row(10, 4, 4)]),
    );
}

#[test]
fn a_rate_at_the_floor_is_not_floored() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 2/1m\n";
    let mut log = Log::default();
    log.at(0);
    log.at(30);
    log.at(59); // 3 in (−1, 59]: 2/1m is exactly 1/30s
    let report = audit_log(robots, &log, &[]);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[Row {
            time: rfc3339(59),
            line: 3,
            crawler: "SeznamBot",
            kind: "request-rate",
            group: "SeznamBot",
            rule: (2, "Request-rate: 2/1m"),
            detail: rate_detail(3, 60, "2/1m"),
        }]),
    );
}

#[test]
fn rate_units_and_omissions() {
    // `1/5` is one per 5 s; `10/m` is ten per minute.
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/5\n";
    let mut log = Log::default();
    log.at(0);
    log.at(4); // 2 in (−1, 4]
    log.at(9); // 1 in (4, 9]
    let report = audit_log(robots, &log, &[]);
    assert_eq!(row_lines(&report), [2]);
    assert!(
        String::from_utf8_lossy(&report.violations).contains(&rate_detail(2, 5, "1/5")),
        "{}",
        String::from_utf8_lossy(&report.violations)
    );

    let robots = "User-agent: SeznamBot\nRequest-rate: 10/m\n";
    let mut log = Log::default();
    for t in 0..11 {
        log.at(t * 5); // the eleventh at 50 s
    }
    log.at(60); // (0, 60] holds 5..60: 11 fetches
    log.at(66); // (6, 66] holds 10..66: 12 − 1 = 11
    let report = audit_log(robots, &log, &[]);
    assert_eq!(row_lines(&report), [11, 12, 13]);
    assert!(
        String::from_utf8_lossy(&report.violations).contains(&rate_detail(11, 60, "10/m")),
        "{}",
        String::from_utf8_lossy(&report.violations)
    );
}

#[test]
fn an_hourly_rate_counts_the_whole_hour() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 400/1h\n";
    let mut log = Log::default();
    for i in 0..=450u32 {
        log.at(8 * i);
    }
    let report = audit_log(robots, &log, &[]);
    // Fetch i (line i + 1) at 8 i s: through i = 450 (3600 s) the window
    // (8 i − 3600, 8 i] holds every fetch from max(0, i − 449).
    let expected: Vec<u32> = (400..=450).map(|i| i + 1).collect();
    assert_eq!(row_lines(&report), expected);
    let text = String::from_utf8_lossy(&report.violations).into_owned();
    assert!(
        text.contains(&rate_detail(401, 3600, "400/1h")),
        "first row"
    );
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains(&rate_detail(450, 3600, "400/1h")),
        "last row"
    );
}

#[test]
fn the_group_column_names_the_group_that_holds_the_rule() {
    let robots = "\
User-agent: SeznamBot
Disallow: /x

User-agent: Googlebot
User-agent: seznambot/4.0
Request-rate: 1/10s
";
    let mut log = Log::default();
    log.at(0);
    log.at(1);
    let report = audit_log(robots, &log, &[]);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[Row {
            time: rfc3339(1),
            line: 2,
            crawler: "SeznamBot",
            kind: "request-rate",
            group: "Googlebot|seznambot/4.0",
            rule: (6, "Request-rate: 1/10s"),
            detail: rate_detail(2, 10, "1/10s"),
        }]),
    );
}

/// A log in nginx `$msec` (seconds with milliseconds since the epoch).
const MSEC_FORMAT: &str = r#"$remote_addr $msec "$request" $status "$http_user_agent""#;

fn msec_log(times: &[&str]) -> Log {
    let mut log = Log::default();
    for time in times {
        log.lines += 1;
        log.text.push_str(&format!(
            "{GENUINE} {time} \"GET /page/{} HTTP/1.1\" 200 \"{SEZNAM_UA}\"\n",
            log.lines
        ));
    }
    log
}

#[test]
fn sub_second_times_are_kept_for_delays_and_windows() {
    // 1796083200 is 2026-12-01T00:00:00Z.
    let robots = "User-agent: SeznamBot\nCrawl-delay: 0.5\n";
    let log = msec_log(&[
        "1796083200.900",
        "1796083201.100", // 0.2 s after: breaks it
        "1796083202.100",
        "1796083202.900", // 0.8 s after: does not
    ]);
    let report = audit_log(robots, &log, &["--log-format", MSEC_FORMAT]);
    assert_eq!(row_lines(&report), [2]);

    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s\n";
    let log = msec_log(&["1796083200.900", "1796083210.500"]); // 9.6 s apart
    let report = audit_log(robots, &log, &["--log-format", MSEC_FORMAT]);
    assert_eq!(row_lines(&report), [2]);
}

/// Numbers too large to hold saturate instead of making the line
/// malformed (SPEC §3 sets no upper bound): a night line allowing more
/// fetches than fit still covers its window, so the stricter day line does
/// not accuse; a period longer than fits is slower than Seznam's floor,
/// so it is judged as 1/30s; and a Crawl-delay longer than fits is kept.
#[test]
fn numbers_past_what_fits_saturate() {
    let mut log = Log::default();
    for t in [3 * 3600, 3 * 3600 + 1, 3 * 3600 + 2] {
        log.at(t);
    }
    let night = "User-agent: SeznamBot\nRequest-rate: 9999999999/1s 0000-0600\n\
                 Request-rate: 99999999999999999999999/1s 0000-0600\nRequest-rate: 1/10s\n";
    let report = audit_log(night, &log, &[]);
    report.assert_code(0);
    assert_eq!(row_lines(&report), Vec::<u32>::new());

    let slow = "User-agent: SeznamBot\nRequest-rate: 1/300000000000000d\n";
    let report = audit_log(slow, &log, &[]);
    report.assert_code(1);
    assert_eq!(row_lines(&report), vec![2, 3]);
    let text = String::from_utf8_lossy(&report.violations).into_owned();
    assert!(
        text.contains("effective 1/30s (written 1/300000000000000d)"),
        "{text}"
    );

    let delay = "User-agent: *\nCrawl-delay: 99999999999999999999\n";
    let report = audit_log(delay, &log, &[]);
    assert_eq!(row_lines(&report), vec![2, 3]);
}

/// When the run can verify (`--ptr-map`), a fetch the evidence did not
/// back (an address the map does not name: only its user agent says
/// SeznamBot, which anyone can write) is counted against the others and
/// the crawler's own, never against the crawler: ten such fetches just
/// before the genuine crawler's do not push it over `10/1m` nor make its
/// first fetch come too soon after another; its own eleventh within the
/// minute does, and a claim after them is judged with every fetch before
/// it. Without `--ptr-map` every fetch is the crawler's alike (SPEC §4).
#[test]
fn claims_the_evidence_did_not_back_never_push_the_crawler_over_its_limits() {
    let site = common::Site::new();
    site.write(
        "robots.txt",
        "User-agent: SeznamBot\nRequest-rate: 10/1m\nCrawl-delay: 2\n",
    );
    site.write("ptr-map.txt", common::GENUINE_PTR_MAP);
    let fetch = |client: &str, second: u32| {
        combined(
            client,
            &clf(second),
            &format!("GET /{second} HTTP/1.1"),
            200,
            SEZNAM_UA,
        )
    };
    let mut log: String = (0..10).map(|i| fetch("7.7.7.7", 20 + 2 * i)).collect();
    log.extend((0..11).map(|i| fetch(GENUINE, 39 + 2 * i)));
    log.push_str(&fetch("7.7.7.7", 60));
    site.write("access.log", &log);
    let rows = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--log", "access.log", "--robots", "robots.txt"];
        all.extend_from_slice(&["--robots-since", "2020-01-01", "-q"]);
        all.extend_from_slice(args);
        let run = site.run(&all);
        assert_eq!(run.code, 1, "{}", run.stderr);
        String::from_utf8_lossy(&run.stdout)
            .lines()
            .skip(1)
            .map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                format!("{} {} {} {}", fields[3], fields[8], fields[10], fields[14])
            })
            .collect()
    };
    let genuine = GENUINE;
    assert_eq!(
        rows(&["--ptr-map", "ptr-map.txt"]),
        [
            format!("{genuine} /59 request-rate 11 fetches in 60 s; allowed 10/1m"),
            "7.7.7.7 /60 crawl-delay 1 s after the previous fetch; allowed every 2 s".to_string(),
            "7.7.7.7 /60 request-rate 22 fetches in 60 s; allowed 10/1m".to_string(),
        ]
    );
    // The same as two nights with a state, the claims on the first.
    let lines: Vec<&str> = log.split_inclusive('\n').collect();
    site.write("night1.log", lines[..10].concat());
    site.write("night2.log", lines[10..].concat());
    let night = |log: &str| {
        let run = site.run(&[
            "--log",
            log,
            "--robots",
            "robots.txt",
            "--robots-since",
            "2020-01-01",
            "--ptr-map",
            "ptr-map.txt",
            "--state",
            "state",
            "-q",
        ]);
        String::from_utf8_lossy(&run.stdout).into_owned()
    };
    assert_eq!(night("night1.log").lines().count(), 1);
    let second: Vec<String> = night("night2.log")
        .lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            format!("{} {} {} {}", fields[3], fields[8], fields[10], fields[14])
        })
        .collect();
    assert_eq!(second, rows(&["--ptr-map", "ptr-map.txt"]));
    // Without a map, the crawler's first fetch comes 1 s after another
    // of the count and is its eleventh in the minute.
    let unmapped = rows(&[]);
    assert!(
        unmapped.contains(&format!(
            "{genuine} /39 crawl-delay 1 s after the previous fetch; allowed every 2 s"
        )),
        "{unmapped:?}"
    );
    assert!(
        unmapped.contains(&format!(
            "{genuine} /39 request-rate 11 fetches in 60 s; allowed 10/1m"
        )),
        "{unmapped:?}"
    );
}
