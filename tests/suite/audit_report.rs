//! The reports' format end to end (SPEC §5): CSV quoting of what the log
//! holds, the spreadsheet-formula guard, non-UTF-8 bytes as `\xNN`,
//! `--raw-csv` turning both off, RFC 3339 times in the log's own offset,
//! summary rows, and `--quiet`.

use crate::support::audit as common;

use common::{
    IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, VIOLATIONS_HEADER, assert_bytes,
    assert_text, clf, combined, csv, rfc3339,
};

const ROBOTS: &str = "User-agent: SeznamBot\nDisallow: /\n";

fn site(log: impl AsRef<[u8]>) -> Site {
    Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr-map.txt", "203.0.113.9 evil.example.com\n")
        .with("access.log", log)
}

const ARGS: [&str; 6] = [
    "--log",
    "access.log",
    "--robots",
    "robots.txt",
    "--ptr-map",
    "ptr-map.txt",
];

/// A disallow row of the genuine address; `target` and `method` already
/// as the CSV writes them.
fn row(t: u32, line: u32, method: &str, target: &str) -> String {
    format!(
        "{},access.log,{line},77.75.77.1,SeznamBot,unverified,ua,{method},{target},200,disallow,SeznamBot,2,Disallow: /,,",
        rfc3339(t)
    )
}

/// An impostors.csv row from 203.0.113.9 fetching `/x`.
fn impostor(t: u32, line: u32, user_agent: &str) -> String {
    format!(
        "{},access.log,{line},203.0.113.9,evil.example.com,SeznamBot,GET,/x,200,{user_agent}",
        rfc3339(t)
    )
}

#[test]
fn csv_quotes_commas_quotes_and_line_breaks() {
    let log = [
        combined("77.75.77.1", &clf(1), "GET /a,b HTTP/1.1", 200, SEZNAM_UA),
        combined(
            "77.75.77.1",
            &clf(2),
            r#"GET /q\"x\" HTTP/1.1"#,
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            &clf(3),
            r"GET /line\nbreak HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            &clf(4),
            r"GET /cr\rx HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            &clf(5),
            r"GET /tab\tx HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            &clf(6),
            r"GET /back\\slash HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "203.0.113.9",
            &clf(7),
            "GET /x HTTP/1.1",
            200,
            r#"Mozilla/5.0 (compatible; SeznamBot/4.0, \"like\" Gecko)"#,
        ),
        combined(
            "203.0.113.9",
            &clf(8),
            "GET /x HTTP/1.1",
            200,
            r"SeznamBot\nSecond line",
        ),
    ]
    .concat();
    let site = site(log);
    // Line breaks, tabs and backslashes are escaped (SPEC §5), so only
    // commas and quotes are left for the CSV to quote.
    let report = site.audit(&ARGS);
    report.assert_code(1);
    let violations = csv(
        VIOLATIONS_HEADER,
        &[
            row(1, 1, "GET", "\"/a,b\""),
            row(2, 2, "GET", "\"/q\"\"x\"\"\""),
            row(3, 3, "GET", r"/line\x0Abreak"),
            row(4, 4, "GET", r"/cr\x0Dx"),
            row(5, 5, "GET", r"/tab\x09x"),
            row(6, 6, "GET", r"/back\\slash"),
        ],
    );
    let impostors = csv(
        IMPOSTORS_HEADER,
        &[
            impostor(
                7,
                7,
                "\"Mozilla/5.0 (compatible; SeznamBot/4.0, \"\"like\"\" Gecko)\"",
            ),
            impostor(8, 8, r"SeznamBot\x0ASecond line"),
        ],
    );
    assert_text("violations.csv", &report.violations, &violations);
    assert_text("impostors.csv", &report.impostors, &impostors);

    // With --raw-csv they reach the CSV as they are, quoted where needed.
    let raw = site.audit(&[&ARGS[..], &["--raw-csv"]].concat());
    raw.assert_code(1);
    let violations = csv(
        VIOLATIONS_HEADER,
        &[
            row(1, 1, "GET", "\"/a,b\""),
            row(2, 2, "GET", "\"/q\"\"x\"\"\""),
            row(3, 3, "GET", "\"/line\nbreak\""),
            row(4, 4, "GET", "\"/cr\rx\""),
            row(5, 5, "GET", "/tab\tx"),
            row(6, 6, "GET", r"/back\slash"),
        ],
    );
    let impostors = csv(
        IMPOSTORS_HEADER,
        &[
            impostor(
                7,
                7,
                "\"Mozilla/5.0 (compatible; SeznamBot/4.0, \"\"like\"\" Gecko)\"",
            ),
            impostor(8, 8, "\"SeznamBot\nSecond line\""),
        ],
    );
    assert_text("violations.csv", &raw.violations, &violations);
    assert_text("impostors.csv", &raw.impostors, &impostors);
}

/// User agents that a spreadsheet would run, each claiming SeznamBot: as
/// the log holds them (escaped as Apache writes them), as decoded, and as
/// the CSV writes them after the leading `'`.
const FORMULAS: [(&str, &str, &str); 6] = [
    (
        r#"=HYPERLINK(\"http://evil\",\"SeznamBot\")"#,
        r#"=HYPERLINK("http://evil","SeznamBot")"#,
        r#"=HYPERLINK("http://evil","SeznamBot")"#,
    ),
    ("+SeznamBot", "+SeznamBot", "+SeznamBot"),
    ("-SeznamBot", "-SeznamBot", "-SeznamBot"),
    ("@SeznamBot", "@SeznamBot", "@SeznamBot"),
    (r"\tSeznamBot", "\tSeznamBot", r"\x09SeznamBot"),
    (r"\rSeznamBot", "\rSeznamBot", r"\x0DSeznamBot"),
];

fn formula_log() -> String {
    let mut log: String = FORMULAS
        .iter()
        .zip(1..)
        .map(|((logged, _, _), t)| combined("203.0.113.9", &clf(t), "GET /x HTTP/1.1", 200, logged))
        .collect();
    // Methods are tokens, and a token may start with + or -.
    log.push_str(&combined(
        "77.75.77.1",
        &clf(7),
        "+X /a HTTP/1.1",
        200,
        SEZNAM_UA,
    ));
    log.push_str(&combined(
        "77.75.77.1",
        &clf(8),
        "-X /b HTTP/1.1",
        200,
        SEZNAM_UA,
    ));
    log
}

/// A CSV cell as the writer quotes it.
fn cell(text: &str) -> String {
    if text.contains(['"', ',', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[test]
fn formulas_get_a_leading_apostrophe() {
    let report = site(formula_log()).audit(&ARGS);
    report.assert_code(1);
    let impostors: Vec<String> = FORMULAS
        .iter()
        .zip(1..)
        .map(|((_, _, written), t)| impostor(t, t, &cell(&format!("'{written}"))))
        .collect();
    assert_text(
        "impostors.csv",
        &report.impostors,
        &csv(IMPOSTORS_HEADER, &impostors),
    );
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(
            VIOLATIONS_HEADER,
            &[row(7, 7, "'+X", "/a"), row(8, 8, "'-X", "/b")],
        ),
    );
}

#[test]
fn raw_csv_keeps_formulas_as_they_are() {
    let mut args = ARGS.to_vec();
    args.push("--raw-csv");
    let report = site(formula_log()).audit(&args);
    let impostors: Vec<String> = FORMULAS
        .iter()
        .zip(1..)
        .map(|((_, ua, _), t)| impostor(t, t, &cell(ua)))
        .collect();
    assert_text(
        "impostors.csv",
        &report.impostors,
        &csv(IMPOSTORS_HEADER, &impostors),
    );
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(
            VIOLATIONS_HEADER,
            &[row(7, 7, "+X", "/a"), row(8, 8, "-X", "/b")],
        ),
    );
}

/// Raw bytes that are not UTF-8 in a target and a user agent, and the
/// same bytes as nginx escapes them.
fn non_utf8_log() -> Vec<u8> {
    let mut log = Vec::new();
    log.extend_from_slice(b"77.75.77.1 - - [");
    log.extend_from_slice(clf(1).as_bytes());
    log.extend_from_slice(b"] \"GET /caf\xe9 HTTP/1.1\" 200 512 \"-\" \"");
    log.extend_from_slice(SEZNAM_UA.as_bytes());
    log.extend_from_slice(b"\"\n");
    log.extend_from_slice(
        combined(
            "77.75.77.1",
            &clf(2),
            r"GET /\xFF\xC3\xA9 HTTP/1.1",
            200,
            SEZNAM_UA,
        )
        .as_bytes(),
    );
    log.extend_from_slice(b"203.0.113.9 - - [");
    log.extend_from_slice(clf(3).as_bytes());
    log.extend_from_slice(b"] \"GET /x HTTP/1.1\" 200 512 \"-\" \"SeznamBot \xfe\xff\"\n");
    log.extend_from_slice(
        combined(
            "203.0.113.9",
            &clf(4),
            "GET /x HTTP/1.1",
            200,
            r"=SeznamBot \x80",
        )
        .as_bytes(),
    );
    log
}

#[test]
fn bytes_that_are_not_utf8_are_written_as_escapes() {
    let report = site(non_utf8_log()).audit(&ARGS);
    report.assert_code(1);
    report.assert_reports(
        &csv(
            VIOLATIONS_HEADER,
            &[row(1, 1, "GET", r"/caf\xE9"), row(2, 2, "GET", r"/\xFFé")],
        ),
        &csv(
            IMPOSTORS_HEADER,
            &[
                impostor(3, 3, r"SeznamBot \xFE\xFF"),
                impostor(4, 4, r"'=SeznamBot \x80"),
            ],
        ),
        &csv(
            SUMMARY_HEADER,
            &[
                "SeznamBot,crawl-delay,2,0,0,,".to_string(),
                format!("SeznamBot,disallow,2,2,2,{},{}", rfc3339(1), rfc3339(2)),
                "SeznamBot,request-rate,2,0,0,,".to_string(),
            ],
        ),
    );
}

#[test]
fn raw_csv_writes_the_bytes_as_they_are() {
    let mut args = ARGS.to_vec();
    args.push("--raw-csv");
    let report = site(non_utf8_log()).audit(&args);
    let mut violations = csv::<&str>(VIOLATIONS_HEADER, &[]).into_bytes();
    for (t, target) in [(1, &b"/caf\xe9"[..]), (2, b"/\xff\xc3\xa9")] {
        let text = row(t, t, "GET", "TARGET");
        let (before, after) = text.split_once("TARGET").unwrap();
        violations.extend_from_slice(before.as_bytes());
        violations.extend_from_slice(target);
        violations.extend_from_slice(after.as_bytes());
        violations.push(b'\n');
    }
    assert_bytes("violations.csv", &report.violations, &violations);
    let mut impostors = csv::<&str>(IMPOSTORS_HEADER, &[]).into_bytes();
    for (t, ua) in [(3, &b"SeznamBot \xfe\xff"[..]), (4, b"=SeznamBot \x80")] {
        impostors.extend_from_slice(impostor(t, t, "").as_bytes());
        impostors.extend_from_slice(ua);
        impostors.push(b'\n');
    }
    assert_bytes("impostors.csv", &report.impostors, &impostors);
}

#[test]
fn times_are_rfc3339_in_the_logs_own_offset() {
    let times = [
        ("30/Nov/2026:00:00:01 +0000", "2026-11-30T00:00:01+00:00"),
        ("30/Nov/2026:05:30:02 +0530", "2026-11-30T05:30:02+05:30"),
        ("29/Nov/2026:19:00:03 -0500", "2026-11-29T19:00:03-05:00"),
        ("30/Nov/2026:14:00:04 +1400", "2026-11-30T14:00:04+14:00"),
        ("29/Nov/2026:14:30:05 -0930", "2026-11-29T14:30:05-09:30"),
    ];
    let log: String = times
        .iter()
        .zip(1..)
        .map(|((logged, _), n)| {
            combined(
                "77.75.77.1",
                logged,
                &format!("GET /t{n} HTTP/1.1"),
                200,
                SEZNAM_UA,
            )
        })
        .collect();
    let report = site(log).audit(&ARGS);
    let rows: Vec<String> = times
        .iter()
        .zip(1..)
        .map(|((_, written), n)| {
            format!(
                "{written},access.log,{n},77.75.77.1,SeznamBot,unverified,ua,GET,/t{n},200,disallow,SeznamBot,2,Disallow: /,,"
            )
        })
        .collect();
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
    let text = String::from_utf8_lossy(&report.summary).into_owned();
    assert!(!text.contains('Z'), "{text}");
}

#[test]
fn a_status_logged_as_dash_is_an_empty_cell() {
    let log = "77.75.77.1 - - [30/Nov/2026:00:00:01 +0000] \"GET /a HTTP/1.1\" - 0 \"-\" \"SeznamBot/4.0\"\n";
    let report = site(log).audit(&ARGS);
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(
            VIOLATIONS_HEADER,
            &[format!(
                "{},access.log,1,77.75.77.1,SeznamBot,unverified,ua,GET,/a,,disallow,SeznamBot,2,Disallow: /,,",
                rfc3339(1)
            )],
        ),
    );
}

#[test]
fn quiet_leaves_standard_error_to_errors() {
    let log = combined("77.75.77.1", &clf(1), "GET /a HTTP/1.1", 200, SEZNAM_UA);
    let mut args = ARGS.to_vec();
    args.push("--quiet");
    let report = site(&log).audit(&args);
    report.assert_code(1);
    assert_eq!(report.stderr, "", "nothing but errors");
    // Without it, a short summary goes to standard error.
    let report = site(&log).audit(&ARGS);
    assert!(report.stderr.contains("SeznamBot"), "{}", report.stderr);

    let site = site(&common::gzip(log.as_bytes())[..30]);
    let run = site.run(&args);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("access.log"), "{}", run.stderr);
}

/// `n` browser lines, with the lines numbered in `bad` replaced by junk.
fn log_with_bad_lines(n: u32, bad: &[u32]) -> String {
    (1..=n)
        .map(|i| {
            if bad.contains(&i) {
                format!("junk line {i}\n")
            } else {
                combined("198.51.100.7", &clf(i), "GET /a HTTP/1.1", 200, "Firefox")
            }
        })
        .collect()
}

#[test]
fn quiet_prints_nothing_on_a_clean_run() {
    // One bad line in 200 is 0.5%: below the warning, so quiet stays quiet.
    let mut args = ARGS.to_vec();
    args.push("--quiet");
    let report = site(log_with_bad_lines(200, &[7])).audit(&args);
    report.assert_code(0);
    assert_eq!(report.stderr, "", "a clean quiet run says nothing");
    // Without --quiet the line is shown.
    let report = site(log_with_bad_lines(200, &[7])).audit(&ARGS);
    assert!(
        report.stderr.contains("access.log:7: skipped:"),
        "{}",
        report.stderr
    );
}

#[test]
fn quiet_still_warns_once_of_a_file_with_more_than_1_percent_skipped() {
    let mut args = ARGS.to_vec();
    args.push("--quiet");
    let report = site(log_with_bad_lines(100, &[30, 60])).audit(&args);
    report.assert_code(0);
    let lines: Vec<&str> = report.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one warning line: {lines:?}");
    assert!(
        lines[0].contains("warning")
            && lines[0].contains("access.log")
            && lines[0].contains("2 of 100 lines skipped")
            && lines[0].contains("line 30"),
        "{lines:?}"
    );
}

#[test]
fn five_bad_lines_are_shown_then_how_many_more() {
    let bad = [3, 5, 8, 13, 21, 34, 55];
    let report = site(log_with_bad_lines(60, &bad)).audit(&ARGS);
    report.assert_code(0);
    let shown: Vec<&str> = report
        .stderr
        .lines()
        .filter(|l| l.contains("skipped"))
        .collect();
    let want: Vec<String> = bad[..5]
        .iter()
        .map(|n| format!("robots-audit: access.log:{n}: skipped: line ends early"))
        .chain(["robots-audit: 2 more lines skipped (not shown)".to_string()])
        .collect();
    assert_eq!(shown[..6], want, "{}", report.stderr);
}

#[test]
fn the_summary_says_violations_and_counts_one_in_the_singular() {
    let log = combined("77.75.77.1", &clf(1), "GET /a HTTP/1.1", 200, SEZNAM_UA);
    let report = site(&log).audit(&ARGS);
    report.assert_code(1);
    let stderr = &report.stderr;
    for said in [
        "1 line read, 0 skipped, 1 crawler fetch, 1 violation, 0 impostor fetches",
        "SeznamBot: 1 fetch (0 verified, 0 ptr-only, 1 unverified); violations: 0 crawl-delay, 1 disallow, 0 request-rate",
        "line 2: Disallow: / (1 violation)",
    ] {
        assert!(stderr.contains(said), "{said:?} in:\n{stderr}");
    }
    let log = [log.clone(), log].concat();
    let report = site(&log).audit(&ARGS);
    assert!(
        report
            .stderr
            .contains("2 lines read, 0 skipped, 2 crawler fetches, 2 violations,"),
        "{}",
        report.stderr
    );
}

#[test]
fn the_summary_keeps_informing_rows_apart_from_violations() {
    // `/` is Seznam's home-page exception and Crawl-delay a rule Seznam
    // does not read: every row informs, none accuses, and exit is 0.
    let robots = "User-agent: *\nDisallow: /\nCrawl-delay: 10\n";
    let log = [
        combined("77.75.77.1", &clf(1), "GET / HTTP/1.1", 200, SEZNAM_UA),
        combined("77.75.77.1", &clf(2), "GET / HTTP/1.1", 200, SEZNAM_UA),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", &log);
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(0);
    let stderr = &report.stderr;
    for said in [
        "2 crawler fetches, 0 violations (3 informing rows apart), 0 impostor fetches",
        "violations: 0 crawl-delay, 0 disallow, 0 request-rate; informing: 1 crawl-delay, 2 disallow",
    ] {
        assert!(stderr.contains(said), "{said:?} in:\n{stderr}");
    }
    assert!(!stderr.contains("most broken rules"), "{stderr}");
}

/// The most broken rules on standard error are written as the reports
/// write them: a backslash as `\\` and a byte that is no UTF-8 as `\xNN`,
/// once (they were escaped a second time).
#[test]
fn the_summarys_rules_are_escaped_once() {
    for (robots, target, want) in [
        (
            &b"User-agent: *\nDisallow: /a\\\n"[..],
            "/a%5Cb",
            r"line 2: Disallow: /a\\ (1 violation)",
        ),
        (
            &b"User-agent: *\nDisallow: /\xe9\n"[..],
            "/%E9",
            r"line 2: Disallow: /\xE9 (1 violation)",
        ),
    ] {
        let log = combined(
            "77.75.77.1",
            &clf(1),
            &format!("GET {target} HTTP/1.1"),
            200,
            SEZNAM_UA,
        );
        let site = Site::new()
            .with("robots.txt", robots)
            .with("access.log", &log);
        let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
        report.assert_code(1);
        assert!(
            report.stderr.contains(want),
            "{want:?} in:\n{}",
            report.stderr
        );
    }
}

#[test]
fn a_closed_standard_output_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let log: String = (1..=4000)
        .map(|t| {
            combined(
                "77.75.77.1",
                &clf(t),
                &format!("GET /p/{t} HTTP/1.1"),
                200,
                SEZNAM_UA,
            )
        })
        .collect();
    let site = site(log);
    let mut child = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .current_dir(site.path("."))
        .args(["--log", "access.log", "--robots", "robots.txt", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(
        first.trim_end(),
        format!("{VIOLATIONS_HEADER},robots_version")
    );
    // The reader is gone: as `robots-audit … | head -1`.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr, "", "no complaint about the closed pipe");
    assert_eq!(output.status.code(), Some(1), "violations were found");
}

/// As `robots-audit … | head -1`: reads the header, closes the pipe, and
/// gives the exit status and standard error.
fn audit_into_head(site: &Site, log: &str) -> (Option<i32>, String) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .current_dir(site.path("."))
        .args(["--log", log, "--robots", "robots.txt", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(
        first.trim_end(),
        format!("{VIOLATIONS_HEADER},robots_version")
    );
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_closed_standard_output_never_changes_the_exit_status() {
    // Far more rows than a pipe holds, so writing meets the closed pipe.
    let log: String = (1..=4000)
        .map(|t| {
            combined(
                "77.75.77.1",
                &clf(t),
                &format!("GET /p/{t} HTTP/1.1"),
                200,
                SEZNAM_UA,
            )
        })
        .collect();
    let gz = common::gzip(log.as_bytes());
    let site = site(&log).with("damaged.log.gz", &gz[..gz.len() - 8]);
    let (code, stderr) = audit_into_head(&site, "access.log");
    assert_eq!(code, Some(1), "violations: {stderr}");
    let (code, stderr) = audit_into_head(&site, "damaged.log.gz");
    assert_eq!(code, Some(2), "a damaged log: {stderr}");
    assert!(stderr.contains("damaged.log.gz"), "{stderr}");
}

/// robots.txt text in a row is escaped once, like log text: a byte of a
/// robots.txt saved in windows-1250 (`á` is 0xE1) as `\xE1`, a literal
/// backslash as `\\`, so that each reads back to the file's own bytes;
/// `--raw-csv` gives the bytes themselves.
#[test]
fn robots_text_that_is_not_utf8_is_escaped_once() {
    let robots = b"User-agent: Seznam\xe1Bot\nUser-agent: SeznamBot\nDisallow: /hled\xe1n\xed\nDisallow: /a\\b\n";
    let log = [
        combined(
            "77.75.77.1",
            &clf(1),
            "GET /hled%E1n%ED HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined("77.75.77.1", &clf(2), r"GET /a\\b HTTP/1.1", 200, SEZNAM_UA),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", &robots[..])
        .with("access.log", log);
    let fields = |raw: bool| {
        let mut args = vec![
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--out",
            "out",
        ];
        if raw {
            args.push("--raw-csv");
        }
        assert_eq!(site.run(&args).code, 1);
        let rows = |name: &str, columns: [usize; 2]| -> Vec<Vec<u8>> {
            csv::ReaderBuilder::new()
                .from_reader(&std::fs::read(site.path("out").join(name)).unwrap()[..])
                .byte_records()
                .flat_map(|row| columns.map(|at| row.as_ref().unwrap()[at].to_vec()))
                .collect()
        };
        // violations.csv: group, rule; rules.csv: rule, group.
        (rows("violations.csv", [11, 13]), rows("rules.csv", [3, 2]))
    };
    let group = &b"Seznam\\xE1Bot|SeznamBot"[..];
    let (violations, rules) = fields(false);
    let want: Vec<Vec<u8>> = [
        group,
        br"Disallow: /hled\xE1n\xED",
        group,
        br"Disallow: /a\\b",
    ]
    .map(<[u8]>::to_vec)
    .into();
    assert_eq!(violations, want);
    assert_eq!(rules, want);
    let raw_group = &b"Seznam\xe1Bot|SeznamBot"[..];
    let (violations, rules) = fields(true);
    let want: Vec<Vec<u8>> = [
        raw_group,
        b"Disallow: /hled\xe1n\xed",
        raw_group,
        b"Disallow: /a\\b",
    ]
    .map(<[u8]>::to_vec)
    .into();
    assert_eq!(violations, want);
    assert_eq!(rules, want);
}

/// Two logs whose names differ only in a byte outside UTF-8 stay two in
/// run.json (SPEC §7 `file` as given), written as the CSVs write them,
/// `\xFE` and `\xFF`, in `files[]` and in `arguments`.
#[test]
fn run_json_keeps_file_names_that_are_not_utf8_apart() {
    use std::os::unix::ffi::OsStrExt as _;
    let site = Site::new().with("robots.txt", ROBOTS);
    let line = combined("77.75.77.1", &clf(1), "GET /a HTTP/1.1", 200, SEZNAM_UA);
    for name in [&b"m\xfe.log"[..], b"m\xff.log"] {
        std::fs::write(site.path("").join(std::ffi::OsStr::from_bytes(name)), &line).unwrap();
    }
    let output = site
        .command(&["--robots", "robots.txt", "--out", "out", "--log"])
        .arg(std::ffi::OsStr::from_bytes(b"m\xfe.log"))
        .arg("--log")
        .arg(std::ffi::OsStr::from_bytes(b"m\xff.log"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.path("out/run.json")).unwrap()).unwrap();
    let strings = |list: &serde_json::Value, key: Option<&str>| -> Vec<String> {
        let list = list.as_array().unwrap().iter();
        list.map(|v| key.map_or(v, |key| &v[key]).as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        strings(&run["files"], Some("file")),
        [r"m\xFE.log", r"m\xFF.log"]
    );
    let arguments = strings(&run["arguments"], None);
    assert!(arguments.iter().any(|a| a == r"m\xFE.log"));
    assert!(arguments.iter().any(|a| a == r"m\xFF.log"));
}
