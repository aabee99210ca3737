//! `request-rate` and `crawl-delay` rows end to end (SPEC §3, §4): the
//! limit and the (t − T, t] window, time-of-day windows and their clock,
//! changes of UTC offset, Seznam's 1/30s floor, decimal delays, one count
//! per token or per crawler, logs out of order and split over files,
//! spoofed fetches left out, and `--since`/`--until`.

mod common;

use common::{
    BROWSER_UA, FRESH_UA, IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, TEST_UA,
    VIOLATIONS_HEADER, assert_text, clf, combined, csv, rfc3339,
};

const GENUINE: &str = "77.75.77.1";

/// A log being written: each fetch is the next line.
#[derive(Default)]
struct Log {
    text: String,
    lines: u32,
}

impl Log {
    /// Adds a fetch of `/page/<line>` at `time` (CLF); gives its line.
    fn fetch(&mut self, client: &str, time: &str, ua: &str) -> u32 {
        self.lines += 1;
        let request = format!("GET /page/{} HTTP/1.1", self.lines);
        self.text
            .push_str(&combined(client, time, &request, 200, ua));
        self.lines
    }

    /// SeznamBot from the genuine address at `t` seconds after midnight UTC.
    fn at(&mut self, t: u32) -> u32 {
        self.fetch(GENUINE, &clf(t), SEZNAM_UA)
    }
}

/// A row of a fetch made by `Log::fetch` from the genuine address.
struct Row<'a> {
    time: String,
    line: u32,
    crawler: &'a str,
    kind: &'a str,
    group: &'a str,
    rule: (u32, &'a str),
    detail: String,
}

impl Row<'_> {
    fn text(&self, file: &str) -> String {
        format!(
            "{},{file},{},{GENUINE},{},unverified,ua,GET,/page/{},200,{},{},{},{},{},",
            self.time,
            self.line,
            self.crawler,
            self.line,
            self.kind,
            self.group,
            self.rule.0,
            self.rule.1,
            self.detail
        )
    }
}

fn violations(rows: &[Row<'_>]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| r.text("access.log")).collect();
    csv(VIOLATIONS_HEADER, &rows)
}

/// `n fetches in T s; allowed written`.
fn rate_detail(n: u32, period: u32, written: &str) -> String {
    format!("{n} fetches in {period} s; allowed {written}")
}

fn delay_detail(gap: u32, delay: &str) -> String {
    format!("{gap} s after the previous fetch; allowed every {delay} s")
}

fn run(robots: &str, log: &Log, extra: &[&str]) -> common::Report {
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", &log.text);
    let mut args = vec!["--log", "access.log", "--robots", "robots.txt"];
    args.extend(extra);
    site.audit(&args)
}

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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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

/// The lines of the rows in a violations.csv.
fn row_lines(report: &common::Report) -> Vec<u32> {
    String::from_utf8_lossy(&report.violations)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect()
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
    assert_eq!(row_lines(&run(robots, &log, &[])), [4]);
    assert_eq!(
        row_lines(&run(robots, &log, &["--window-tz", "+0100"])),
        [2]
    );
    // 01:00:01 UTC is 01:30:01 at +0030, and 00:30:01 at -0030.
    assert_eq!(
        row_lines(&run(robots, &log, &["--window-tz", "+0030"])),
        [4]
    );
    assert_eq!(
        row_lines(&run(robots, &log, &["--window-tz", "-0030"])),
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
        row_lines(&run(robots, &log, &["--window-tz", "local"])),
        [2]
    );
    assert_eq!(row_lines(&run(robots, &log, &[])), Vec::<u32>::new());
    assert_eq!(
        row_lines(&run(robots, &log, &["--window-tz", "+0100"])),
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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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
fn a_rate_at_the_floor_is_not_floored() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 2/1m\n";
    let mut log = Log::default();
    log.at(0);
    log.at(30);
    log.at(59); // 3 in (−1, 59]: 2/1m is exactly 1/30s
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
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
    let report = run(robots, &log, &[]);
    report.assert_code(1);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[row(2, 2, 2), row(7, 4, 2), row(7, 5, 0)]),
    );
}

#[test]
fn merged_groups_use_the_first_delay_and_rate_in_the_file() {
    let robots = "\
User-agent: *
Crawl-delay: 60

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
    let report = run(robots, &log, &[]);
    assert_text(
        "violations.csv",
        &report.violations,
        &violations(&[
            row(
                2,
                2,
                "crawl-delay",
                (5, "Crawl-delay: 5"),
                delay_detail(2, "5"),
            ),
            row(
                2,
                2,
                "request-rate",
                (6, "Request-rate: 1/10s"),
                rate_detail(2, 10, "1/10s"),
            ),
            row(
                8,
                3,
                "request-rate",
                (6, "Request-rate: 1/10s"),
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
        let report = run(robots, &three_crawlers(), args);
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
    let report = run(robots, &three_crawlers(), &["--rate-by", "crawler"]);
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
            let rule = if kind == "crawl-delay" {
                "3,Crawl-delay: 3"
            } else {
                "2,Request-rate: 2/10s"
            };
            format!(
                "{},{file},{line},{GENUINE},SeznamBot,unverified,ua,GET,/f{fetch},200,{kind},SeznamBot,{rule},{detail},",
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
    let unverified = |kind, rule, detail| {
        format!(
            "{},access.log,6,198.51.100.7,SeznamBot,unverified,ua,GET,/page/6,200,{kind},SeznamBot,{rule},{detail},",
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
    let report = run(
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
    let report = run(robots, &log, &["--since", "2026-12-01"]);
    assert_eq!(row_lines(&report), [5]);
    let report = run(robots, &log, &["--until", "2026-12-01"]);
    assert_eq!(row_lines(&report), [1, 2, 3, 4]);
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
#[ignore = "bug: sub-second log times ($msec, %{msec}t, %{usec}t) are cut to whole seconds \
            (accesslog::Timestamp has no fraction), so gaps and windows are off by up to 1 s"]
fn sub_second_times_are_kept_for_delays_and_windows() {
    // 1796083200 is 2026-12-01T00:00:00Z.
    let robots = "User-agent: SeznamBot\nCrawl-delay: 0.5\n";
    let log = msec_log(&[
        "1796083200.900",
        "1796083201.100", // 0.2 s after: breaks it
        "1796083202.100",
        "1796083202.900", // 0.8 s after: does not
    ]);
    let report = run(robots, &log, &["--log-format", MSEC_FORMAT]);
    assert_eq!(row_lines(&report), [2]);

    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s\n";
    let log = msec_log(&["1796083200.900", "1796083210.500"]); // 9.6 s apart
    let report = run(robots, &log, &["--log-format", MSEC_FORMAT]);
    assert_eq!(row_lines(&report), [2]);
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
    let report = run(robots, &log, &[]);
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
