//! Hostile and broken access logs, through the real binary (SPEC §1 "A line
//! that does not parse is skipped and counted", §5 damaged input and exit
//! status): lines of many MiB, NUL and other binary bytes, invalid UTF-8,
//! an empty file, a directory, a missing file among several, a truncated
//! gzip, garbage after the last gzip member, a gzip bomb, and timestamps in
//! the far past and future with odd offsets. Each test says what the tool
//! must do; the README's "Hostile input" table says the same in words.

use crate::support::hostile as common;

use std::io::Write;
use std::time::Duration;

use common::*;

/// Memory a run may use whatever its input: chunk buffers, the queue
/// between reader and workers, and the binary itself. Generous, and far
/// below what holding any of the large inputs below would need.
const MEMORY_BOUND_KIB: u64 = 128 * 1024;

fn violation_lines(stdout: &[u8]) -> Vec<String> {
    rows(stdout)
        .into_iter()
        .skip(1)
        .map(|r| format!("{}:{}:{}", r[1], r[2], r[10]))
        .collect()
}

#[test]
fn a_line_of_several_mib_is_skipped_with_its_reason_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = Vec::new();
    log.extend_from_slice(seznam_fetch(1, "/cz/chat/a").as_bytes());
    // 64 MiB without a line end: far more than the 1 MiB line limit and
    // than any buffer the reader keeps.
    log.extend(std::iter::repeat_n(b'a', 64 << 20));
    log.push(b'\n');
    // Just under the limit: a real fetch with an enormous target is read.
    let target = format!("/cz/chat/{}", "b".repeat((1 << 20) - 300));
    log.extend_from_slice(seznam_fetch(2, &target).as_bytes());
    log.extend_from_slice(seznam_fetch(3, "/cz/chat/c").as_bytes());
    let path = write(dir.path(), "long.log", &log);
    let run = run(&["--log", s(&path), "--robots", s(&robots), "--threads", "2"]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let rows = rows(&run.stdout);
    let found: Vec<(&str, usize)> = rows[1..]
        .iter()
        .map(|r| (r[2].as_str(), r[8].len()))
        .collect();
    // The enormous target is kept as its first 8 KiB and a cut mark.
    let kept = 8192 + format!("…[cut {} bytes]", target.len() - 8192).len();
    assert_eq!(found, [("1", 10), ("3", kept), ("4", 10)], "{}", run.stderr);
    assert!(
        run.stderr.contains("long.log:2: skipped: line too long"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("4 lines read, 1 skipped"),
        "{}",
        run.stderr
    );
    assert!(
        run.peak_rss_kib < MEMORY_BOUND_KIB,
        "peak {} KiB for a 64 MiB line",
        run.peak_rss_kib
    );
}

#[test]
fn nul_binary_bytes_and_invalid_utf8_are_data_not_errors() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = Vec::new();
    log.extend_from_slice(seznam_fetch(1, "/cz/chat/a").as_bytes());
    // Binary junk lines: a TLS hello sent to the plain port, NULs, 0xFF.
    log.extend_from_slice(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n");
    log.extend_from_slice(b"\0\0\0\0\0\0\0\0\n");
    log.extend_from_slice(&[0xff; 300]);
    log.push(b'\n');
    // A fetch whose target, user agent and referer hold NUL, raw invalid
    // UTF-8 and escaped invalid UTF-8.
    log.extend_from_slice(
        b"77.75.77.123 - - [30/Nov/2026:00:00:05 +0100] \"GET /cz/chat/\0\xff\xc3\\xfe HTTP/1.1\" 200 1 \"\xfe\" \"SeznamBot/4.0 \xc0\0\"\n",
    );
    // A client field that is binary garbage with a crawler's user agent:
    // no address or host name, so the line is skipped (SPEC §1).
    log.extend_from_slice(
        format!("\u{1}\u{7f} - - [30/Nov/2026:00:00:06 +0100] \"GET /cz/chat/d HTTP/1.1\" 200 1 \"-\" \"{SEZNAM_UA}\"\n")
            .as_bytes(),
    );
    let path = write(dir.path(), "binary.log", &log);
    let run = run(&["--log", s(&path), "--robots", s(&robots)]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    // Every field is UTF-8 (rows() checks), the CSV is well formed.
    let rows = rows(&run.stdout);
    let targets: Vec<&str> = rows[1..].iter().map(|r| r[8].as_str()).collect();
    assert_eq!(
        targets,
        ["/cz/chat/a", "/cz/chat/\\x00\\xFF\\xC3\\xFE"],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("binary.log:6: skipped: client is no address or host name"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("6 lines read, 4 skipped"),
        "{}",
        run.stderr
    );
}

/// An empty log is a log that was not read: a nightly job pointed at the
/// wrong file, or a server that stopped logging, must not pass for a clean
/// night (SPEC §1 "a file in which no line parsed"; README "Getting started").
#[test]
fn an_empty_log_exits_2_naming_it_with_headers_only() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let empty = write(dir.path(), "empty.log", b"");
    let empty_gz = write(dir.path(), "empty.log.gz", gzip(b""));
    for quiet in [false, true] {
        let mut args = vec![
            "--log",
            s(&empty),
            "--log",
            s(&empty_gz),
            "--robots",
            s(&robots),
        ];
        if quiet {
            args.push("--quiet");
        }
        let run = run(&args);
        assert_eq!(run.code(), Some(2), "{}", run.stderr);
        assert_eq!(rows(&run.stdout).len(), 1, "header only");
        for name in ["empty.log:", "empty.log.gz:"] {
            assert!(
                run.stderr
                    .lines()
                    .any(|l| l.contains(name) && l.contains("the log is empty")),
                "{}",
                run.stderr
            );
        }
    }
}

/// A million worker threads would exhaust the machine: more than the
/// cores are capped to the cores (SPEC §5).
#[test]
fn a_million_threads_are_capped_to_the_cores() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let run = run_within(
        &[
            "--log",
            s(&log),
            "--robots",
            s(&robots),
            "--threads",
            "1000000",
        ],
        Duration::from_secs(30),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(violation_lines(&run.stdout).len(), 1);
}

#[test]
fn a_directory_or_a_missing_file_among_logs_is_reported_and_the_rest_audited() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let first = write(dir.path(), "first.log", seznam_fetch(1, "/cz/chat/1"));
    let last = write(dir.path(), "last.log", seznam_fetch(2, "/cz/chat/2"));
    let missing = dir.path().join("missing.log");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let run = run(&[
        "--log",
        s(&first),
        "--log",
        s(dir.path()),
        "--log",
        s(&missing),
        "--log",
        s(&last),
        "--robots",
        s(&robots),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("is a directory"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("cannot open: {}", missing.display())),
        "{}",
        run.stderr
    );
    // The readable logs were audited and the reports written whole.
    let violations = std::fs::read(out.join("violations.csv")).unwrap();
    let found = violation_lines(&violations);
    assert_eq!(
        found,
        [
            format!("{}:1:disallow", first.display()),
            format!("{}:1:disallow", last.display())
        ]
    );
    assert_no_leftovers(&out);
}

#[test]
fn a_truncated_gzip_is_audited_up_to_the_damage_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut text = String::new();
    for second in 0..40 {
        text.push_str(&seznam_fetch(second, &format!("/cz/chat/{second}")));
    }
    let whole = gzip(text.as_bytes());
    let cut = &whole[..whole.len() * 2 / 3];
    let path = write(dir.path(), "cut.log.gz", cut);
    let run = run(&["--log", s(&path), "--robots", s(&robots)]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    let found = violation_lines(&run.stdout);
    assert!(!found.is_empty() && found.len() < 40, "{found:?}");
    // Lines are audited in order up to the damage, none after a gap.
    for (i, row) in found.iter().enumerate() {
        assert_eq!(*row, format!("{}:{}:disallow", path.display(), i + 1));
    }
    assert!(
        run.stderr
            .contains(&format!("damaged input: {}: at byte", path.display())),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("ends early"), "{}", run.stderr);
}

#[test]
fn garbage_after_the_last_gzip_member_is_reported_after_every_line_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut bytes = gzip(seznam_fetch(1, "/cz/chat/1").as_bytes());
    bytes.extend(gzip(seznam_fetch(2, "/cz/chat/2").as_bytes()));
    for garbage in [&b"GARBAGE"[..], b"<html>not a gzip member at all</html>\n"] {
        let mut damaged = bytes.clone();
        damaged.extend_from_slice(garbage);
        let path = write(dir.path(), "garbage.log.gz", &damaged);
        let run = run(&["--log", s(&path), "--robots", s(&robots)]);
        assert_eq!(run.code(), Some(2), "{}", run.stderr);
        assert_eq!(violation_lines(&run.stdout).len(), 2, "{}", run.stderr);
        // Named for what it is, where it starts.
        assert!(
            run.stderr.contains(&format!(
                "damaged input: {}: at byte {}: garbage after the last gzip member",
                path.display(),
                bytes.len()
            )),
            "{}",
            run.stderr
        );
    }
}

/// A gzip file whose members inflate to `total` bytes of browser traffic,
/// with a SeznamBot fetch of a disallowed path in the first and the last
/// member: a run that reports both read the whole of it. Members are
/// compressed once and repeated, so a file of a few MiB is made in moments.
fn gzip_bomb(total: usize) -> Vec<u8> {
    let browser = line(
        "10.0.0.1",
        "30/Nov/2026:00:00:30 +0100",
        "GET /index.html HTTP/1.1",
        BROWSER_UA,
    );
    let member_size = total.min(32 << 20);
    let block = browser.repeat(member_size / browser.len());
    let member = gzip(block.as_bytes());
    let members = (total / block.len()).max(1);
    let mut bomb = gzip(seznam_fetch(1, "/cz/chat/first").as_bytes());
    for _ in 0..members {
        bomb.extend_from_slice(&member);
    }
    bomb.extend(gzip(seznam_fetch(59, "/cz/chat/last").as_bytes()));
    bomb
}

fn audit_bomb(total: usize, limit: Duration) {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let bomb = gzip_bomb(total);
    let path = write(dir.path(), "bomb.log.gz", &bomb);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let run = run_within(
        &[
            "--log",
            s(&path),
            "--robots",
            s(&robots),
            "--out",
            s(&out),
            "--threads",
            "2",
        ],
        limit,
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let violations = std::fs::read(out.join("violations.csv")).unwrap();
    assert_eq!(violation_lines(&violations).len(), 2, "{}", run.stderr);
    assert!(
        run.peak_rss_kib < MEMORY_BOUND_KIB,
        "peak {} KiB inflating {} MiB from a {} KiB file",
        run.peak_rss_kib,
        total >> 20,
        bomb.len() >> 10
    );
    // Nothing inflated reaches the disk: the out directory holds the three
    // small reports and nothing else.
    let used: u64 = REPORT_FILES
        .iter()
        .map(|name| std::fs::metadata(out.join(name)).unwrap().len())
        .sum();
    assert!(used < 64 * 1024, "{used} bytes written");
    assert_no_leftovers(&out);
}

/// 4 GiB inflated from a file of some 16 MiB in an optimised build (`cargo
/// test --release`, as CI runs: about 3 s), 16 MiB in a debug build, whose
/// inflater is some hundred times slower.
#[test]
fn a_gzip_bomb_is_streamed_in_bounded_memory() {
    let total = if cfg!(debug_assertions) {
        16 << 20
    } else {
        4 << 30
    };
    audit_bomb(total, Duration::from_secs(300));
}

/// A bomb of one endless line: the too-long-line path must drop the bytes
/// as they come.
#[test]
fn a_gzip_bomb_of_one_endless_line_is_skipped_in_bounded_memory() {
    let total: usize = if cfg!(debug_assertions) {
        32 << 20
    } else {
        1 << 30
    };
    let block = vec![b'x'; total.min(32 << 20)];
    let member = gzip(&block);
    let mut bomb = Vec::new();
    for _ in 0..total / block.len() {
        bomb.extend_from_slice(&member);
    }
    let mut tail = b"\n".to_vec();
    tail.extend_from_slice(seznam_fetch(2, "/cz/chat/after").as_bytes());
    bomb.extend(gzip(&tail));
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let path = write(dir.path(), "line-bomb.log.gz", &bomb);
    let run = run_within(
        &["--log", s(&path), "--robots", s(&robots)],
        Duration::from_secs(120),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(
        violation_lines(&run.stdout),
        [format!("{}:2:disallow", path.display())]
    );
    assert!(
        run.stderr.contains(":1: skipped: line too long"),
        "{}",
        run.stderr
    );
    assert!(
        run.peak_rss_kib < MEMORY_BOUND_KIB,
        "peak {} KiB",
        run.peak_rss_kib
    );
}

#[test]
fn timestamps_in_the_far_past_and_future_with_odd_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    // (time as logged, as reported; None: the line is skipped as bad time)
    let cases: &[(&str, Option<&str>)] = &[
        (
            "31/Dec/9999:23:59:59 -2359",
            Some("9999-12-31T23:59:59-23:59"),
        ),
        (
            "01/Jan/0000:00:00:00 +2359",
            Some("0000-01-01T00:00:00+23:59"),
        ),
        (
            "29/Feb/2000:12:00:00 +0545",
            Some("2000-02-29T12:00:00+05:45"),
        ),
        (
            "01/Jan/1970:00:00:00 -0930",
            Some("1970-01-01T00:00:00-09:30"),
        ),
        (
            "30/Jun/2015:23:59:60 +0000",
            Some("2015-07-01T00:00:00+00:00"),
        ),
        (
            "01/Jan/1900:00:00:00 +0000",
            Some("1900-01-01T00:00:00+00:00"),
        ),
        (
            "30/Nov/2026:00:00:01 -0000",
            Some("2026-11-30T00:00:01+00:00"),
        ),
        ("29/Feb/1900:00:00:00 +0000", None),
        ("31/Apr/2026:00:00:00 +0000", None),
        ("30/Nov/2026:24:00:00 +0000", None),
        ("30/Nov/2026:00:00:00 +2400", None),
        ("30/Nov/2026:00:00:00 +0060", None),
        ("30/Nov/10000:00:00:00 +0000", None),
        ("30/Foo/2026:00:00:00 +0000", None),
        ("30/Nov/2026:00:00:00", None),
    ];
    let mut log = String::new();
    for (i, (time, _)) in cases.iter().enumerate() {
        log.push_str(&line(
            "77.75.77.123",
            time,
            &format!("GET /cz/chat/{i} HTTP/1.1"),
            SEZNAM_UA,
        ));
    }
    let path = write(dir.path(), "times.log", &log);
    let run = run(&["--log", s(&path), "--robots", s(&robots)]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let got: Vec<(String, String)> = rows(&run.stdout)[1..]
        .iter()
        .map(|r| (r[0].clone(), r[2].clone()))
        .collect();
    // Rows come in order of the instant, whatever the offset.
    let mut want: Vec<(String, String, i64)> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, (logged, reported))| {
            let reported = (*reported)?;
            let instant = robots_audit::accesslog::time::parse_clf(logged.as_bytes())?.unix;
            Some((reported.to_string(), (i + 1).to_string(), instant))
        })
        .collect();
    want.sort_by_key(|w| w.2);
    let want: Vec<(String, String)> = want.into_iter().map(|(a, b, _)| (a, b)).collect();
    assert_eq!(got, want, "{}", run.stderr);
    let skipped = cases.iter().filter(|c| c.1.is_none()).count();
    assert!(
        run.stderr
            .contains(&format!("{} lines read, {skipped} skipped", cases.len())),
        "{}",
        run.stderr
    );
}

#[test]
fn standard_input_may_be_a_gzip_stream() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut child = command(&["--log", "-", "--robots", s(&robots)])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = gzip(seznam_fetch(1, "/cz/chat/in").as_bytes());
    stdin.write_all(&bytes).unwrap();
    drop(stdin);
    let run = finish(child, Duration::from_secs(60));
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(violation_lines(&run.stdout), ["-:1:disallow"]);
}

/// A log's bytes quoted in a message (here a JSON log's keys, which the
/// exit-2 message lists) never reach standard error raw: a cron mail read
/// in a terminal runs no escape sequence.
#[test]
fn messages_quoting_a_log_run_no_terminal_escape() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(
        dir.path(),
        "keys.log",
        "{\"\\u001b]0;pwned\\u0007\\u001b[31mred\":1,\"ts\":1}\n",
    );
    let run = run(&["--log", s(&log), "--robots", s(&robots)]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("\\x1B]0;pwned\\x07"), "{}", run.stderr);
    assert!(
        !run.stderr.contains(['\u{1b}', '\u{7}']),
        "{:?}",
        run.stderr
    );
}

/// A log whose records end in CR alone is read as one line: the first
/// record, the rest of the file swallowed into its last field when that
/// runs to the line's end (an unquoted user agent, W3C's
/// `cs(User-Agent)` last). Servers escape control bytes, so the raw CR
/// skips the line: "no line parsed", exit 2, never a clean night.
#[test]
fn records_ending_in_cr_alone_are_no_clean_night_whatever_the_last_field() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let w3c = write(
        dir.path(),
        "cr.w3c",
        "#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n\
         2026-11-29 10:00:00 77.75.77.1 GET /ok 200 SeznamBot/4.0\r\
         2026-11-29 10:00:01 77.75.77.1 GET /cz/chat/a 200 SeznamBot/4.0\r",
    );
    let custom = write(
        dir.path(),
        "cr.log",
        "77.75.77.1 - - [29/Nov/2026:10:00:01 +0100] \"GET /ok HTTP/1.1\" 200 5 SeznamBot/4.0\r\
         77.75.77.1 - - [29/Nov/2026:10:00:02 +0100] \"GET /cz/chat/a HTTP/1.1\" 200 5 SeznamBot/4.0\r",
    );
    let format = "%h %l %u %t \"%r\" %>s %b %{User-agent}i";
    for args in [
        vec!["--log", s(&w3c), "--robots", s(&robots)],
        vec![
            "--log",
            s(&custom),
            "--log-format",
            format,
            "--robots",
            s(&robots),
        ],
    ] {
        let cr = run(&args);
        assert_eq!(cr.code(), Some(2), "{}", cr.stderr);
        assert!(cr.stderr.contains("no line parsed"), "{}", cr.stderr);
        // The same records ending in LF are read, every one.
        let lf = std::fs::read(args[1]).unwrap();
        let lf: Vec<u8> = lf
            .iter()
            .map(|&b| if b == b'\r' { b'\n' } else { b })
            .collect();
        let lf_path = write(dir.path(), "lf.log", lf);
        let mut lf_args = args.clone();
        lf_args[1] = s(&lf_path);
        let read = run(&lf_args);
        assert_eq!(read.code(), Some(1), "{}", read.stderr);
        assert_eq!(rows(&read.stdout).len(), 2, "{}", read.stderr);
    }
}

/// A first line of nearly a mebibyte that parses as nothing (the run of
/// NULs logrotate's copytruncate leaves) fills the first chunk alone: the
/// format is chosen from the lines after it too, read ahead, never from
/// that one line, so the log is audited and the line skipped and counted
/// (SPEC §1: one odd line never decides a file's format).
#[test]
fn a_first_line_that_fills_the_first_chunk_does_not_choose_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut lines = String::new();
    for second in 0..300 {
        lines.push_str(&line(
            "77.75.77.1",
            &format!("29/Nov/2026:10:{:02}:{:02} +0100", second / 60, second % 60),
            "GET /cz/chat/a HTTP/1.1",
            "Mozilla/5.0 (compatible; SeznamBot/4.0)",
        ));
    }
    let whole = write(dir.path(), "whole.log", lines.as_bytes());
    let expected = run(&["--log", s(&whole), "--robots", s(&robots)]);
    assert_eq!(expected.code(), Some(1), "{}", expected.stderr);
    for hole in [1_048_318, 1_048_500, 1_048_576] {
        let mut text = vec![0u8; hole];
        text.push(b'\n');
        text.extend_from_slice(lines.as_bytes());
        let log = write(dir.path(), "hole.log", text);
        let audited = run(&["--log", s(&log), "--robots", s(&robots)]);
        assert_eq!(audited.code(), Some(1), "{hole}: {}", audited.stderr);
        assert!(
            audited.stderr.contains("is read as combined"),
            "{}",
            audited.stderr
        );
        assert!(audited.stderr.contains("1 skipped"), "{}", audited.stderr);
        // The same rows, a line further down.
        let path = s(&log);
        let shifted: Vec<String> = violation_lines(&expected.stdout)
            .iter()
            .map(|row| {
                let (_, rest) = row.split_once(':').unwrap();
                let (number, kind) = rest.split_once(':').unwrap();
                let number = number.parse::<u64>().unwrap() + 1;
                format!("{path}:{number}:{kind}")
            })
            .collect();
        assert_eq!(shifted.len(), 300);
        assert_eq!(violation_lines(&audited.stdout), shifted, "{hole}");
    }
}
