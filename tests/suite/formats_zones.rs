//! Time zones end to end (SPEC §1 "Times", §3 `--window-tz`): a custom
//! format without an offset read under `--log-tz Europe/Prague` across
//! both DST changes of 2026, the run refused without `--log-tz`, and a
//! windowed Request-rate judged in Prague's clock on both sides of the
//! autumn change; JSON and W3C times without an offset placed by
//! `--log-tz` or refused without it.

use crate::support::audit as common;

use common::{
    GENUINE, Log, Row, SEZNAM_UA, SUMMARY_HEADER, Site, audit_log, csv, row_lines, violations,
};

/// A custom Apache format whose time has no offset.
const LOCAL_FORMAT: &str = r#"%h [%{%Y-%m-%d %H:%M:%S}t] "%r" %>s "%{User-agent}i""#;

/// A log in `LOCAL_FORMAT`, a SeznamBot fetch of `/page/<line>` a line.
fn local_log(times: &[&str]) -> String {
    times
        .iter()
        .zip(1..)
        .map(|(time, line)| {
            format!("{GENUINE} [{time}] \"GET /page/{line} HTTP/1.1\" 200 \"{SEZNAM_UA}\"\n")
        })
        .collect()
}

fn disallow_row(time: &str, line: u32) -> Row<'static> {
    Row {
        time: time.to_string(),
        line,
        crawler: "SeznamBot",
        kind: "disallow",
        group: "SeznamBot",
        rule: (2, "Disallow: /page/"),
        detail: String::new(),
    }
}

const DISALLOW_PAGES: &str = "User-agent: SeznamBot\nDisallow: /page/\n";

#[test]
fn log_tz_prague_across_both_dst_changes() {
    let log = local_log(&[
        // Autumn, 25 October: 02:00–02:59 happen twice; the first is taken.
        "2026-10-25 01:59:59",
        "2026-10-25 02:30:00",
        "2026-10-25 03:00:00",
        // Spring, 29 March: 02:00–02:59 do not exist.
        "2026-03-29 02:30:00",
        "2026-03-29 03:00:00",
        "2026-03-29 01:59:59",
    ]);
    let site = Site::new()
        .with("robots.txt", DISALLOW_PAGES)
        .with("access.log", log);
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--log-format",
        LOCAL_FORMAT,
        "--log-tz",
        "Europe/Prague",
    ]);
    report.assert_code(1);
    // Sorted by the instant: March first, then the autumn night, whose
    // 02:30 (00:30Z, summer time) comes before 03:00 winter time (02:00Z).
    let rows = [
        disallow_row("2026-03-29T01:59:59+01:00", 6),
        disallow_row("2026-03-29T03:00:00+02:00", 5),
        disallow_row("2026-10-25T01:59:59+02:00", 1),
        disallow_row("2026-10-25T02:30:00+02:00", 2),
        disallow_row("2026-10-25T03:00:00+01:00", 3),
    ];
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,5,0,0,,",
            "SeznamBot,disallow,5,5,5,2026-03-29T01:59:59+01:00,2026-10-25T03:00:00+01:00",
            "SeznamBot,request-rate,5,0,0,,",
        ],
    );
    report.assert_reports(
        &violations(&rows),
        &common::csv(common::IMPOSTORS_HEADER, &[] as &[&str]),
        &summary,
    );
    // The hour that does not exist is a bad time, skipped and shown.
    assert!(
        report.stderr.contains("access.log:4: skipped: bad time"),
        "stderr:\n{}",
        report.stderr
    );
}

#[test]
fn log_tz_fixed_offset_and_utc() {
    let log = local_log(&["2026-10-25 02:30:00"]);
    let site = Site::new()
        .with("robots.txt", DISALLOW_PAGES)
        .with("access.log", log);
    for (zone, time) in [
        ("+0530", "2026-10-25T02:30:00+05:30"),
        ("UTC", "2026-10-25T02:30:00+00:00"),
    ] {
        let report = site.audit(&[
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--log-format",
            LOCAL_FORMAT,
            "--log-tz",
            zone,
        ]);
        report.assert_code(1);
        let got = String::from_utf8_lossy(&report.violations).into_owned();
        assert!(
            got.lines().nth(1).is_some_and(|row| row.starts_with(time)),
            "{zone}: {got}"
        );
    }
}

#[test]
fn times_without_offset_need_log_tz() {
    let site = Site::new()
        .with("robots.txt", DISALLOW_PAGES)
        .with("first.log", local_log(&["2026-10-25 01:59:59"]))
        .with("second.log", local_log(&["2026-10-25 01:59:59"]));
    let run = site.run(&[
        "--log",
        "first.log",
        "--log",
        "second.log",
        "--robots",
        "robots.txt",
        "--log-format",
        LOCAL_FORMAT,
    ]);
    assert_eq!(run.code, 2, "stderr:\n{}", run.stderr);
    assert!(run.stdout.is_empty(), "no report: never read as UTC");
    assert!(
        run.stderr.contains("first.log") && run.stderr.contains("--log-tz"),
        "names the file and the flag:\n{}",
        run.stderr
    );
    // A zone that is no zone is refused too, naming the flag.
    let run = site.run(&[
        "--log",
        "first.log",
        "--robots",
        "robots.txt",
        "--log-format",
        LOCAL_FORMAT,
        "--log-tz",
        "Europe/Atlantis",
    ]);
    assert_eq!(run.code, 2, "stderr:\n{}", run.stderr);
    assert!(
        run.stderr.contains("--log-tz") && run.stderr.contains("Europe/Atlantis"),
        "{}",
        run.stderr
    );
    // Formats whose times carry an offset never ask for it.
    let combined = common::combined(
        GENUINE,
        "25/Oct/2026:01:59:59 +0200",
        "GET /x HTTP/1.1",
        200,
        SEZNAM_UA,
    );
    let site = Site::new()
        .with("robots.txt", DISALLOW_PAGES)
        .with("access.log", combined);
    site.audit(&["--log", "access.log", "--robots", "robots.txt"])
        .assert_code(0);
}

#[test]
fn window_tz_prague_follows_the_clock_across_the_autumn_change() {
    // 18:00–19:00 in Prague is 16:00–17:00 UTC in summer time and
    // 17:00–18:00 UTC in winter time; the clocks go back on 25 October.
    let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s 1800-1900\n";
    let mut log = Log::default();
    for time in [
        "24/Oct/2026:18:30:00 +0200", // 16:30Z: inside in Prague
        "24/Oct/2026:18:30:01 +0200",
        "24/Oct/2026:19:30:00 +0200", // 17:30Z: outside
        "24/Oct/2026:19:30:01 +0200",
        "25/Oct/2026:17:30:00 +0100", // 16:30Z: outside, now winter time
        "25/Oct/2026:17:30:01 +0100",
        "25/Oct/2026:18:30:00 +0100", // 17:30Z: inside
        "25/Oct/2026:18:30:01 +0100",
    ] {
        log.fetch(GENUINE, time, SEZNAM_UA);
    }
    let prague = audit_log(robots, &log, &["--window-tz", "Europe/Prague"]);
    prague.assert_code(1);
    assert_eq!(row_lines(&prague), [2, 8]);
    // A fixed offset is right on one side of the change only.
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "+0200"])),
        [2, 6]
    );
    assert_eq!(
        row_lines(&audit_log(robots, &log, &["--window-tz", "+0100"])),
        [4, 8]
    );
    // In UTC (the default) no pair falls in 18:00–19:00.
    assert_eq!(row_lines(&audit_log(robots, &log, &[])), Vec::<u32>::new());
    // An unknown zone is a usage error naming the flag.
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", &log.text);
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--window-tz",
        "Mars/Olympus",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--window-tz"), "{}", run.stderr);
}

/// A JSON mapping whose time field is written without an offset.
const LOCAL_JSON: &str = "json:client=ip,time=time,request=req,status=status,user_agent=ua";

/// JSON lines of `LOCAL_JSON`, a SeznamBot fetch of `/page/<line>` a line.
fn local_json_log(times: &[&str]) -> String {
    times
        .iter()
        .zip(1..)
        .map(|(time, line)| {
            format!(
                "{{\"ip\":\"{GENUINE}\",\"time\":\"{time}\",\"req\":\"GET /page/{line} HTTP/1.1\",\"status\":200,\"ua\":\"{SEZNAM_UA}\"}}\n"
            )
        })
        .collect()
}

#[track_caller]
fn assert_violations(report: &common::Report, rows: &[Row<'_>]) {
    assert_eq!(
        String::from_utf8_lossy(&report.violations),
        violations(rows),
        "stderr:\n{}",
        report.stderr
    );
}

#[test]
fn json_times_without_an_offset_are_read_in_log_tz_or_refused() {
    let site = Site::new().with("robots.txt", DISALLOW_PAGES).with(
        "access.log",
        local_json_log(&["2026-10-25 02:30:00", "2026-10-25T03:00:00.500"]),
    );
    let args = [
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--log-format",
        LOCAL_JSON,
    ];
    let run = site.run(&args);
    assert_eq!(run.code, 2, "stderr:\n{}", run.stderr);
    // An error for that file, as a file that fits no format: the others
    // would be audited; this one gives no row, never one read as UTC.
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).lines().count(),
        1,
        "only the header:\n{}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert!(
        run.stderr.contains("access.log:1:") && run.stderr.contains("--log-tz"),
        "names the file, the line and the flag:\n{}",
        run.stderr
    );
    let mut args = args.to_vec();
    args.extend(["--log-tz", "Europe/Prague"]);
    let report = site.audit(&args);
    report.assert_code(1);
    // 02:30 happens twice that night: the earlier, summer time.
    assert_violations(
        &report,
        &[
            disallow_row("2026-10-25T02:30:00+02:00", 1),
            disallow_row("2026-10-25T03:00:00.500+01:00", 2),
        ],
    );
}

#[test]
fn w3c_local_times_are_read_in_log_tz_or_refused() {
    let ua = SEZNAM_UA.replace(' ', "+");
    let log = format!(
        "#Software: Microsoft IIS Advanced Logging\n\
         #Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n\
         2026-10-25 02:30:00 {GENUINE} GET /page/3 200 {ua}\n\
         2026-10-25 03:00:00 {GENUINE} GET /page/4 200 {ua}\n"
    );
    let site = Site::new()
        .with("robots.txt", DISALLOW_PAGES)
        .with("access.log", log);
    let args = ["--log", "access.log", "--robots", "robots.txt"];
    let run = site.run(&args);
    assert_eq!(run.code, 2, "stderr:\n{}", run.stderr);
    assert!(
        run.stderr.contains("access.log:3:") && run.stderr.contains("--log-tz"),
        "{}",
        run.stderr
    );
    let mut args = args.to_vec();
    args.extend(["--log-tz", "Europe/Prague"]);
    let report = site.audit(&args);
    report.assert_code(1);
    assert!(
        !report.stderr.contains("carry no user agent"),
        "{}",
        report.stderr
    );
    assert_violations(
        &report,
        &[
            disallow_row("2026-10-25T02:30:00+02:00", 3),
            disallow_row("2026-10-25T03:00:00+01:00", 4),
        ],
    );
}
