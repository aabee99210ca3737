//! The audit's inputs end to end (SPEC §1 "Access logs", §5 on damaged and
//! missing logs): every log format, gzip with one or several members,
//! standard input, several files interleaved in time, malformed and binary
//! lines, `--strict`, and logs that cannot be read whole. Each case runs
//! the real binary and compares the whole reports byte for byte.

use crate::support::audit as common;

use common::{
    IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, VIOLATIONS_HEADER, assert_text, clf,
    combined, csv, data, data_text, gunzip_prefix, gzip, rfc3339,
};

/// The fixtures of `tests/data/audit/formats/`: one set of fetches written
/// in each log format, so that each gives the same reports.
fn formats_site() -> Site {
    Site::new()
        .with("robots.txt", data("formats/robots.txt"))
        .with("ptr-map.txt", data("formats/ptr-map.txt"))
}

const FORMAT_ARGS: [&str; 6] = [
    "--log",
    "access.log",
    "--robots",
    "robots.txt",
    "--ptr-map",
    "ptr-map.txt",
];

fn expected(dir: &str) -> [String; 3] {
    ["violations", "impostors", "summary"].map(|name| data_text(&format!("{dir}/{name}.csv")))
}

/// Runs the formats fixture `log` under `--log-format format` and checks
/// the reports against `expected_dir`.
fn check_format(log: &str, format: &str, expected_dir: &str) -> common::Report {
    let site = formats_site().with("access.log", data(&format!("formats/{log}")));
    let mut args = FORMAT_ARGS.to_vec();
    args.extend(["--log-format", format]);
    let report = site.audit(&args);
    report.assert_code(1);
    let [violations, impostors, summary] = expected(expected_dir);
    report.assert_reports(&violations, &impostors, &summary);
    report
}

/// The format string of a fixture, as a user would paste it.
fn format_string(name: &str) -> String {
    data_text(&format!("formats/{name}.format"))
        .trim_end_matches('\n')
        .to_string()
}

#[test]
fn combined_is_the_default_format() {
    let site = formats_site().with("access.log", data("formats/combined.log"));
    let report = site.audit(&FORMAT_ARGS);
    report.assert_code(1);
    let [violations, impostors, summary] = expected("formats/expected");
    report.assert_reports(&violations, &impostors, &summary);
}

#[test]
fn combined_format() {
    check_format("combined.log", "combined", "formats/expected");
}

#[test]
fn vhost_combined_format() {
    check_format("vhost_combined.log", "vhost_combined", "formats/expected");
}

#[test]
fn custom_apache_log_format_pasted_from_httpd_conf() {
    check_format(
        "apache_custom.log",
        &format_string("apache_custom"),
        "formats/expected",
    );
}

#[test]
fn custom_nginx_log_format() {
    check_format(
        "nginx_custom.log",
        &format_string("nginx_custom"),
        "formats/expected-nginx",
    );
}

#[test]
fn custom_nginx_log_format_with_time_iso8601() {
    check_format(
        "nginx_iso.log",
        &format_string("nginx_iso"),
        "formats/expected-nginx",
    );
}

/// A request logged in parts (nginx `$request_method $request_uri`, or a
/// target without its method) gives the rows the same lines give with the
/// request line whole; a server's decoded reading of the target (Apache
/// `%U`, nginx `$uri`) is refused, never matched against robots.txt.
#[test]
fn a_request_logged_in_parts_is_read_as_the_request_line() {
    let fetches = [
        ("GET", "/private/a?x=1"),
        ("POST", "/private/b"),
        ("GET", "/public/c?y=2"),
        ("HEAD", "/private/d%20e"),
    ];
    let mut whole = String::new();
    let mut no_method = String::new();
    for (n, (method, target)) in fetches.iter().enumerate() {
        let time = format!("[30/Nov/2026:10:00:{n:02} +0100]");
        whole.push_str(&format!(
            "77.75.77.1 {time} \"{method} {target} HTTP/1.1\" 200 \"{SEZNAM_UA}\"\n"
        ));
        no_method.push_str(&format!(
            "77.75.77.1 {time} \"GET {target} HTTP/1.1\" {target} 200 \"{SEZNAM_UA}\"\n"
        ));
    }
    let robots = "User-agent: *\nDisallow: /private/\n";
    let site = Site::new()
        .with("robots.txt", robots)
        .with("whole.log", &whole)
        .with("no-method.log", &no_method);
    let args = |log: &'static str, format: &'static str| {
        [
            "--log",
            log,
            "--robots",
            "robots.txt",
            "--log-format",
            format,
            "--quiet",
        ]
    };
    let audit = |log: &'static str, format: &'static str| {
        let report = site.audit(&args(log, format));
        report.assert_code(1);
        // The rows but for the file they name.
        String::from_utf8_lossy(&report.violations).replace(log, "LOG")
    };
    let expected = audit("whole.log", r#"%h %t "%r" %>s "%{User-Agent}i""#);
    assert_eq!(expected.lines().count(), 4, "{expected}");
    assert!(expected.contains(",POST,/private/b,"), "{expected}");
    assert_eq!(
        audit(
            "whole.log",
            r#"$remote_addr [$time_local] "$request_method $request_uri $server_protocol" $status "$http_user_agent""#
        ),
        expected
    );
    // Without a method, each line is a GET of its target: the HEAD and
    // POST rows say GET, the targets are the same.
    let got = audit(
        "no-method.log",
        r#"$remote_addr [$time_local] "$request_mangled" $request_uri $status "$http_user_agent""#,
    );
    assert_eq!(
        got,
        expected
            .replace(",POST,", ",GET,")
            .replace(",HEAD,", ",GET,")
    );
    for decoded in [
        r#"%h %t "%m %U%q %H" %>s "%{User-Agent}i""#,
        r#"$remote_addr [$time_local] "$request_method $uri$is_args$args" $status "$http_user_agent""#,
    ] {
        let run = site.run(&args("whole.log", decoded));
        assert_eq!(run.code, 2, "{decoded}: {}", run.stderr);
        assert!(
            run.stderr.contains("decoded reading of the target"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn common_format_identifies_by_address_only() {
    // No user agent: only the PTR map's crawler addresses and host-name
    // clients are crawlers; the PTR map's evil.example.com claims nothing.
    check_format("common.log", "common", "formats/expected-common");
}

#[test]
fn a_combined_log_read_as_common_ignores_the_fields_after_the_last() {
    check_format("combined.log", "common", "formats/expected-common");
}

#[test]
fn malformed_and_binary_lines_are_skipped_counted_and_shown() {
    let report = check_format("combined.log", "combined", "formats/expected");
    let shown: Vec<&str> = report
        .stderr
        .lines()
        .filter(|l| l.contains("access.log:") && l.contains(" skipped: "))
        .collect();
    assert_eq!(shown.len(), 2, "{}", report.stderr);
    // 2 of 18 is more than 1%: one warning for the file too.
    assert!(
        report
            .stderr
            .contains("warning: access.log: 2 of 18 lines skipped"),
        "{}",
        report.stderr
    );
    assert!(shown[0].contains("access.log:8: "), "{}", report.stderr);
    assert!(shown[1].contains("access.log:9: "), "{}", report.stderr);
    assert!(report.stderr.contains("2 skipped"), "{}", report.stderr);
}

#[test]
fn gzip_is_recognised_by_content_not_name() {
    let site = formats_site().with("access.log", gzip(&data("formats/combined.log")));
    let report = site.audit(&FORMAT_ARGS);
    report.assert_code(1);
    let [violations, impostors, summary] = expected("formats/expected");
    report.assert_reports(&violations, &impostors, &summary);
}

#[test]
fn multi_member_gzip_as_cat_a_gz_b_gz_makes() {
    let log = data("formats/combined.log");
    // At a line end, as logrotate makes them, and inside a line, as a
    // careless concatenation may.
    let line_end = log
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(8)
        .map(|(i, _)| i + 1)
        .unwrap();
    for cut in [line_end, log.len() / 2 + 7] {
        let mut members = gzip(&log[..cut]);
        members.extend(gzip(&log[cut..]));
        let site = formats_site().with("access.log", members);
        let report = site.audit(&FORMAT_ARGS);
        report.assert_code(1);
        let [violations, impostors, summary] = expected("formats/expected");
        report.assert_reports(&violations, &impostors, &summary);
    }
}

/// The expected reports with the `file` column of standard input.
fn expected_from_stdin() -> [String; 3] {
    expected("formats/expected").map(|text| text.replace(",access.log,", ",-,"))
}

#[test]
fn standard_input_plain_and_gzip() {
    let log = data("formats/combined.log");
    for input in [log.clone(), gzip(&log)] {
        let site = formats_site();
        let report = site.audit_stdin(
            &[
                "--log",
                "-",
                "--robots",
                "robots.txt",
                "--ptr-map",
                "ptr-map.txt",
            ],
            &input,
        );
        report.assert_code(1);
        let [violations, impostors, summary] = expected_from_stdin();
        report.assert_reports(&violations, &impostors, &summary);
        assert!(report.stderr.contains("-:8: "), "{}", report.stderr);
    }
}

#[test]
fn without_out_violations_go_to_standard_output() {
    let site = formats_site().with("access.log", data("formats/combined.log"));
    let run = site.run(&FORMAT_ARGS);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let [violations, _, _] = expected("formats/expected");
    let robots = std::fs::read(site.path("robots.txt")).ok();
    let stdout = common::without_robots_version(&run.stdout, robots.as_deref());
    assert_text("standard output", &stdout, &violations);
    let names: Vec<_> = std::fs::read_dir(site.path("."))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.ends_with(".csv")),
        "no report files without --out: {names:?}"
    );
}

/// A robots.txt that disallows one directory to SeznamBot, for the cases
/// about reading several logs.
const PRIVATE: &str = "User-agent: SeznamBot\nDisallow: /private/\n";

/// Two front-end servers' logs: out of order inside each file and
/// interleaved in time between them, with one instant in both.
fn two_fronts() -> Site {
    let line = |t: u32, path: &str| {
        combined(
            "77.75.77.1",
            &clf(t),
            &format!("GET {path} HTTP/1.1"),
            200,
            SEZNAM_UA,
        )
    };
    Site::new()
        .with("robots.txt", PRIVATE)
        .with(
            "front1.log",
            [
                line(10, "/private/a"),
                line(30, "/private/c"),
                line(20, "/private/b"),
            ]
            .concat(),
        )
        .with(
            "front2.log",
            [
                line(15, "/private/x"),
                line(30, "/private/y"),
                line(5, "/private/z"),
            ]
            .concat(),
        )
}

fn private_row(t: u32, file: &str, line: u32, path: &str) -> String {
    format!(
        "{},{file},{line},77.75.77.1,SeznamBot,unverified,ua,GET,{path},200,disallow,SeznamBot,2,Disallow: /private/,,",
        rfc3339(t)
    )
}

#[test]
fn several_logs_are_merged_by_time_then_file_order_then_line() {
    let site = two_fronts();
    let report = site.audit(&[
        "--log",
        "front1.log",
        "--log",
        "front2.log",
        "--robots",
        "robots.txt",
    ]);
    report.assert_code(1);
    let rows = [
        private_row(5, "front2.log", 3, "/private/z"),
        private_row(10, "front1.log", 1, "/private/a"),
        private_row(15, "front2.log", 1, "/private/x"),
        private_row(20, "front1.log", 3, "/private/b"),
        private_row(30, "front1.log", 2, "/private/c"),
        private_row(30, "front2.log", 2, "/private/y"),
    ];
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,6,0,0,,",
            &format!("SeznamBot,disallow,6,6,6,{},{}", rfc3339(5), rfc3339(30)),
            "SeznamBot,request-rate,6,0,0,,",
        ],
    );
    report.assert_reports(
        &csv(VIOLATIONS_HEADER, &rows),
        &csv(IMPOSTORS_HEADER, &[""; 0]),
        &summary,
    );

    // The order given on the command line is the file order.
    let report = site.audit(&[
        "--log",
        "front2.log",
        "--log",
        "front1.log",
        "--robots",
        "robots.txt",
    ]);
    let violations = String::from_utf8_lossy(&report.violations).into_owned();
    let last_two: Vec<&str> = violations.lines().skip(5).collect();
    assert_eq!(
        last_two,
        [
            private_row(30, "front2.log", 2, "/private/y"),
            private_row(30, "front1.log", 2, "/private/c"),
        ]
    );
}

#[test]
fn a_missing_log_among_several_still_reports_the_others_and_exits_2() {
    let site = two_fronts();
    let report = site.audit(&[
        "--log",
        "front1.log",
        "--log",
        "missing.log",
        "--log",
        "front2.log",
        "--robots",
        "robots.txt",
    ]);
    report.assert_code(2);
    assert!(report.stderr.contains("missing.log"), "{}", report.stderr);
    let rows = [
        private_row(5, "front2.log", 3, "/private/z"),
        private_row(10, "front1.log", 1, "/private/a"),
        private_row(15, "front2.log", 1, "/private/x"),
        private_row(20, "front1.log", 3, "/private/b"),
        private_row(30, "front1.log", 2, "/private/c"),
        private_row(30, "front2.log", 2, "/private/y"),
    ];
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
    assert!(!report.summary.is_empty(), "summary.csv is written");
}

#[test]
fn an_unreadable_log_among_several_exits_2() {
    let site = two_fronts();
    std::fs::create_dir(site.path("a-directory.log")).unwrap();
    let report = site.audit(&[
        "--log",
        "front1.log",
        "--log",
        "a-directory.log",
        "--robots",
        "robots.txt",
    ]);
    report.assert_code(2);
    assert!(
        report.stderr.contains("a-directory.log"),
        "{}",
        report.stderr
    );
    assert_eq!(
        String::from_utf8_lossy(&report.violations).lines().count(),
        4,
        "front1.log's three rows are reported"
    );
}

/// `count` SeznamBot fetches of distinct disallowed paths, one a second,
/// varied enough that gzip cannot shrink them to nothing.
fn many_fetches(count: u32) -> String {
    (1..=count)
        .map(|i| {
            let noise = i.wrapping_mul(2_654_435_761);
            combined(
                "77.75.77.1",
                &clf(i),
                &format!("GET /private/{i}/{noise:08x} HTTP/1.1"),
                200,
                SEZNAM_UA,
            )
        })
        .collect()
}

fn many_rows(count: u32) -> Vec<String> {
    (1..=count)
        .map(|i| {
            let noise = i.wrapping_mul(2_654_435_761);
            private_row(i, "access.log.gz", i, &format!("/private/{i}/{noise:08x}"))
        })
        .collect()
}

#[test]
fn a_truncated_gzip_reports_the_lines_before_the_damage_and_exits_2() {
    let whole = gzip(many_fetches(3000).as_bytes());
    let cut = &whole[..whole.len() / 2];
    // What can be read before the damage, in whole lines.
    let readable = gunzip_prefix(cut);
    let complete = readable.iter().filter(|&&b| b == b'\n').count() as u32;
    assert!(complete > 100, "the cut leaves lines before it");

    let site = Site::new()
        .with("robots.txt", PRIVATE)
        .with("access.log.gz", cut);
    let report = site.audit(&["--log", "access.log.gz", "--robots", "robots.txt"]);
    report.assert_code(2);
    assert!(report.stderr.contains("access.log.gz"), "{}", report.stderr);
    assert!(
        report.stderr.contains(&cut.len().to_string()),
        "the position of the damage: {}",
        report.stderr
    );
    let rows = many_rows(complete);
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &rows),
    );
}

#[test]
fn a_second_member_cut_in_its_header_keeps_the_first() {
    let first = many_fetches(40);
    let mut bytes = gzip(first.as_bytes());
    let second = gzip(b"more lines that never arrive\n");
    bytes.extend_from_slice(&second[..5]);
    let site = Site::new()
        .with("robots.txt", PRIVATE)
        .with("access.log.gz", &bytes);
    let report = site.audit(&["--log", "access.log.gz", "--robots", "robots.txt"]);
    report.assert_code(2);
    assert!(report.stderr.contains("access.log.gz"), "{}", report.stderr);
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &many_rows(40)),
    );
}

#[test]
fn corrupt_gzip_data_reports_the_lines_before_it_and_exits_2() {
    let whole = gzip(many_fetches(3000).as_bytes());
    let mut damaged = whole.clone();
    let middle = damaged.len() / 2;
    for byte in &mut damaged[middle..middle + 64] {
        *byte ^= 0x5a;
    }
    // Deflate cannot tell garbage from data until the checksum at the end,
    // so only the lines made of the bytes before the damage are known.
    let sound = gunzip_prefix(&whole[..middle])
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let site = Site::new()
        .with("robots.txt", PRIVATE)
        .with("access.log.gz", &damaged);
    let report = site.audit(&["--log", "access.log.gz", "--robots", "robots.txt"]);
    report.assert_code(2);
    assert!(report.stderr.contains("access.log.gz"), "{}", report.stderr);
    // Garbage inflated from the damage may parse as lines too, and sorts
    // among them by its time: look for each sound row.
    let got = String::from_utf8_lossy(&report.violations).into_owned();
    let got: std::collections::HashSet<&str> = got.lines().collect();
    let missing: Vec<String> = many_rows(sound as u32)
        .into_iter()
        .filter(|row| !got.contains(row.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {sound} rows before the damage are missing, first {:?}",
        missing.len(),
        missing.first()
    );
}

/// Damage that deflate finds before the end: every line inflated before
/// it is read and audited, also those inflated by the same read of the
/// file that met the damage — exactly the whole lines a decoder gives one
/// byte at a time before its error, at several places of the file.
#[test]
fn every_line_inflated_before_damage_is_audited() {
    let text = many_fetches(3000);
    let whole = gzip(text.as_bytes());
    let mut places = 0;
    for at in (150..whole.len().min(4000)).step_by(97) {
        let mut damaged = whole.clone();
        damaged[at..at + 4].copy_from_slice(&[0xff; 4]);
        let readable = gunzip_prefix(&damaged);
        // Damage that inflates on as garbage to the end, or is found at
        // once, tells nothing of text inflated just before it.
        let found_early = readable.len() < text.len() * 9 / 10;
        if !found_early || readable.iter().filter(|&&b| b == b'\n').count() < 10 || places == 6 {
            continue;
        }
        places += 1;
        let complete = readable.iter().filter(|&&b| b == b'\n').count();
        // The lines before the damage, as the log has them.
        let sound = readable
            .split_inclusive(|&b| b == b'\n')
            .zip(text.as_bytes().split_inclusive(|&b| b == b'\n'))
            .take_while(|(got, want)| got == want)
            .count();
        let site = Site::new()
            .with("robots.txt", PRIVATE)
            .with("access.log.gz", &damaged);
        let report = site.audit(&["--log", "access.log.gz", "--robots", "robots.txt"]);
        report.assert_code(2);
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(site.path("out-1/run.json")).unwrap()).unwrap();
        assert_eq!(
            run["files"][0]["lines_read"], complete as u64,
            "damage at byte {at}"
        );
        let got = String::from_utf8_lossy(&report.violations).into_owned();
        let got: std::collections::HashSet<&str> = got.lines().collect();
        let missing = many_rows(sound as u32)
            .into_iter()
            .filter(|row| !got.contains(row.as_str()))
            .count();
        assert_eq!(
            missing, 0,
            "damage at byte {at}: of {sound} lines before it"
        );
    }
    assert!(
        places >= 4,
        "{places} places of damage found before the end"
    );
}

#[test]
fn garbage_after_the_last_member_keeps_every_line_and_exits_2() {
    let mut bytes = gzip(many_fetches(40).as_bytes());
    bytes.extend_from_slice(b"this is not a gzip member\n");
    let site = Site::new()
        .with("robots.txt", PRIVATE)
        .with("access.log.gz", &bytes);
    let report = site.audit(&["--log", "access.log.gz", "--robots", "robots.txt"]);
    report.assert_code(2);
    assert!(report.stderr.contains("access.log.gz"), "{}", report.stderr);
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &many_rows(40)),
    );
}

#[test]
fn strict_makes_the_first_malformed_line_fatal() {
    let site = formats_site().with("access.log", data("formats/combined.log"));
    let mut args = FORMAT_ARGS.to_vec();
    args.push("--strict");
    let run = site.run(&args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("access.log:8"), "{}", run.stderr);
    assert!(!run.stderr.contains("access.log:9"), "{}", run.stderr);

    // A clean log is not affected.
    let clean = Site::new()
        .with("robots.txt", PRIVATE)
        .with("access.log", many_fetches(3));
    let report = clean.audit(&["--log", "access.log", "--robots", "robots.txt", "--strict"]);
    report.assert_code(1);
}

#[test]
fn strict_stops_at_the_first_bad_line_of_the_first_file() {
    let site = two_fronts()
        .with("bad1.log", "fine? no\n")
        .with("bad2.log", "\x00\x01\n");
    let run = site.run(&[
        "--log",
        "front1.log",
        "--log",
        "bad2.log",
        "--log",
        "bad1.log",
        "--robots",
        "robots.txt",
        "--strict",
        "--threads",
        "4",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("bad2.log:1"), "{}", run.stderr);
}

#[test]
fn the_first_few_bad_lines_of_a_large_log_are_shown_in_order() {
    // Several chunks' worth of lines, so that workers share the file.
    let mut log = String::new();
    let mut bad = Vec::new();
    for i in 1..=40_000u32 {
        if i % 7_919 == 0 {
            log.push_str("not a log line\n");
            bad.push(i);
        } else {
            log.push_str(&combined(
                "198.51.100.7",
                &clf(i),
                &format!("GET /page/{i} HTTP/1.1"),
                200,
                common::BROWSER_UA,
            ));
        }
    }
    log.push_str(&combined(
        "77.75.77.1",
        &clf(50_000),
        "GET /private/last HTTP/1.1",
        200,
        SEZNAM_UA,
    ));
    assert!(log.len() > 3 << 20);
    let site = Site::new()
        .with("robots.txt", PRIVATE)
        .with("access.log", &log);
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(1);
    let shown: Vec<String> = report
        .stderr
        .lines()
        .filter_map(|l| {
            let at = l.find("access.log:")? + "access.log:".len();
            Some(l[at..].split(':').next()?.to_string())
        })
        .collect();
    let wanted: Vec<String> = bad.iter().take(shown.len()).map(u32::to_string).collect();
    assert!(
        !shown.is_empty() && shown.len() <= bad.len(),
        "{}",
        report.stderr
    );
    assert_eq!(shown, wanted, "{}", report.stderr);
    assert!(
        report.stderr.contains(&format!("{} skipped", bad.len())),
        "{}",
        report.stderr
    );
    let row = private_row(50_000, "access.log", 40_001, "/private/last");
    assert_text(
        "violations.csv",
        &report.violations,
        &csv(VIOLATIONS_HEADER, &[row]),
    );
}

/// A gzip log joined to a plain one (`cat access.log access.log.1.gz`):
/// its compressed lines are a handful of skipped ones against a long plain
/// log, under the skipped-lines warning, and the crawler's fetches inside
/// them were never read. Exit 2 for that file, naming the line where the
/// gzip member starts, never a clean night.
#[test]
fn a_gzip_log_joined_to_a_plain_one_is_damaged_input_not_a_clean_night() {
    let plain: String = (0..5_000)
        .map(|i| {
            combined(
                "6.6.6.6",
                &clf(i),
                &format!("GET /page/{i} HTTP/1.1"),
                200,
                "curl/8.0",
            )
        })
        .collect();
    let crawled: String = (0..50)
        .map(|i| {
            combined(
                "77.75.77.123",
                &clf(6_000 + i),
                "GET /private/x HTTP/1.1",
                200,
                SEZNAM_UA,
            )
        })
        .collect();
    let mut joined = plain.into_bytes();
    joined.extend(gzip(crawled.as_bytes()));
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /private/\n")
        .with("access.log", joined);
    let run = site.run(&["--log", "access.log", "--robots", "robots.txt", "--quiet"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("damaged input: access.log:5001: gzip data inside the log"),
        "{}",
        run.stderr
    );
}
