//! Output safety, through the real binary (SPEC §5): log text written by
//! strangers reaches the CSV escaped (no spreadsheet formulas, no bytes
//! that are not UTF-8) unless `--raw-csv`; a standard output closed early
//! ends the run quietly; an `--out` that cannot be written exits 2 and
//! leaves any earlier report as it was, with no temporary file behind.
//! No link planted by another user is written through, and a second run on
//! the same `--out` waits for the lock (`--lock-wait`) or exits 2.

use crate::support::hostile as common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;

/// Starts that make a spreadsheet run a cell as a formula (SPEC §5).
fn is_formula(field: &str) -> bool {
    field.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// A log whose every attacker-chosen field starts like a formula or holds
/// bytes that are not UTF-8, and a PTR map that makes some of its fetches
/// impostors.
fn hostile_log(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut log = Vec::new();
    let push = |log: &mut Vec<u8>, client: &[u8], time: u32, request: &[u8], ua: &[u8]| {
        log.extend_from_slice(client);
        log.extend_from_slice(format!(" - - [30/Nov/2026:00:00:{time:02} +0100] \"").as_bytes());
        log.extend_from_slice(request);
        log.extend_from_slice(b"\" 200 1 \"=1+1\" \"");
        log.extend_from_slice(ua);
        log.extend_from_slice(b"\"\n");
    };
    // Crawler fetches (user agent claims SeznamBot, address unknown).
    // A client is an address or a host name (SPEC §1): of the formula
    // starters only `-` can lead one; the others make the line skipped.
    // (`-x1` is a negated cell reference to a spreadsheet; `-1`, all
    // digits and dashes, is no host name and would be skipped.)
    push(
        &mut log,
        b"-x1",
        1,
        b"GET /cz/chat/a HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"77.75.77.2",
        2,
        b"+GET /cz/chat/b HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"-y2",
        3,
        b"-X /cz/chat/\xff\\xfe HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"a-b",
        4,
        b"GET /cz/chat/=cmd|' /C calc'!A0 HTTP/1.1",
        b"SeznamBot/4.0",
    );
    // Impostors: the PTR map gives 6.6.6.6 a name that is not Seznam's.
    push(
        &mut log,
        b"6.6.6.6",
        5,
        b"GET /cz/chat/c HTTP/1.1",
        b"=HYPERLINK(\\\"http://evil.example/\\\",\\\"x\\\") SeznamBot/4.0",
    );
    push(
        &mut log,
        b"6.6.6.6",
        6,
        b"GET /cz/chat/d HTTP/1.1",
        b"\tSeznamBot/4.0",
    );
    push(
        &mut log,
        b"6.6.6.6",
        7,
        b"GET /cz/chat/e HTTP/1.1",
        b"-SeznamBot/4.0 \xfe",
    );
    push(
        &mut log,
        b"6.6.6.6",
        8,
        b"GET /cz/chat/f HTTP/1.1",
        b"+SeznamBot/4.0\\r",
    );
    // Formula and binary clients: skipped, never reported.
    push(
        &mut log,
        b"=1+2",
        9,
        b"GET /cz/chat/g HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"@SUM(A1)\xff",
        10,
        b"GET /cz/chat/h HTTP/1.1",
        b"SeznamBot/4.0",
    );
    let log_path = write(dir, "hostile.log", &log);
    let ptr = write(dir, "ptr.txt", "6.6.6.6 evil.example.com\n");
    (log_path, ptr)
}

#[test]
fn every_text_column_is_safe_for_a_spreadsheet() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let (log, ptr) = hostile_log(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let run = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--ptr-map",
        s(&ptr),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    for line in [9, 10] {
        let said = format!("hostile.log:{line}: skipped: client is no address or host name");
        assert!(run.stderr.contains(&said), "{said}: {}", run.stderr);
    }
    for name in ["violations.csv", "impostors.csv", "summary.csv"] {
        // rows() insists that every field is UTF-8.
        let rows = rows(&std::fs::read(out.join(name)).unwrap());
        assert!(rows.len() > 1 || name == "summary.csv", "{name}: {rows:?}");
        for row in &rows {
            for field in row {
                assert!(!is_formula(field), "{name}: {field:?} in {row:?}");
            }
        }
    }
    let violations = rows(&std::fs::read(out.join("violations.csv")).unwrap());
    let cells: Vec<(&str, &str, &str)> = violations[1..]
        .iter()
        .map(|r| (r[3].as_str(), r[7].as_str(), r[8].as_str()))
        .collect();
    assert_eq!(
        cells,
        [
            ("'-x1", "GET", "/cz/chat/a"),
            ("77.75.77.2", "'+GET", "/cz/chat/b"),
            ("'-y2", "'-X", "/cz/chat/\\xFF\\xFE"),
            ("a-b", "GET", "/cz/chat/=cmd|' /C calc'!A0"),
        ]
    );
    let impostors = rows(&std::fs::read(out.join("impostors.csv")).unwrap());
    let cells: Vec<(&str, &str)> = impostors[1..]
        .iter()
        .map(|r| (r[6].as_str(), r[9].as_str()))
        .collect();
    assert_eq!(
        cells,
        [
            (
                "GET",
                "'=HYPERLINK(\"http://evil.example/\",\"x\") SeznamBot/4.0"
            ),
            ("GET", "'\\x09SeznamBot/4.0"),
            ("GET", "'-SeznamBot/4.0 \\xFE"),
            ("GET", "'+SeznamBot/4.0\\x0D"),
        ]
    );

    // --raw-csv writes the bytes as logged.
    let raw = run_within(
        &[
            "--log",
            s(&log),
            "--robots",
            s(&robots),
            "--ptr-map",
            s(&ptr),
            "--raw-csv",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(raw.code(), Some(1), "{}", raw.stderr);
    assert!(raw.stdout.windows(5).any(|w| w == b",-x1,"));
    assert!(raw.stdout.windows(2).any(|w| w == b"\xff\xfe"));
}

/// The `group` column holds user-agent values from robots.txt, and a group
/// may name others besides SeznamBot: `User-agent: =HYPERLINK(…)` then
/// `User-agent: SeznamBot` makes the label `=HYPERLINK(…)|SeznamBot`, which
/// is written without the leading `'`.
#[test]
fn the_group_column_is_safe_for_a_spreadsheet_too() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(
        dir.path(),
        "robots.txt",
        "User-agent: =HYPERLINK(\"http://evil.example/\")\nUser-agent: SeznamBot\nDisallow: /cz/\n",
    );
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/a"));
    let run = run(&["--log", s(&log), "--robots", s(&robots)]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    for row in rows(&run.stdout) {
        for field in &row {
            assert!(!is_formula(field), "{field:?} in {row:?}");
        }
    }
}

/// A crawler's name comes from `--profiles`: the operator's file, yet a
/// name a spreadsheet would run (`=EVIL`) is guarded like log text in
/// every CSV that writes it (SPEC §5).
#[test]
fn crawler_names_from_profiles_are_safe_for_a_spreadsheet_too() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = write(
        dir.path(),
        "profiles.txt",
        "crawler: =EVIL\ntoken: evilbot\nuser-agent: evilbot\nhost: e-<address>.evil.example\n\
         rate-floor: none\nreads: none\nhomepage-exception: no\n",
    );
    let robots = write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /c\n");
    let log = write(
        dir.path(),
        "access.log",
        "2.2.2.2 - - [29/Nov/2026:10:00:02 +0100] \"GET /c HTTP/1.1\" 200 1 \"-\" \"evilbot\"\n\
         2.2.2.3 - - [29/Nov/2026:10:00:03 +0100] \"GET /c HTTP/1.1\" 200 1 \"-\" \"evilbot\"\n",
    );
    let ptr = write(dir.path(), "ptr.txt", "2.2.2.3 x.example.com\n");
    let out = dir.path().join("out");
    let run = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--profiles",
        s(&profiles),
        "--ptr-map",
        s(&ptr),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    for name in [
        "violations.csv",
        "impostors.csv",
        "summary.csv",
        "rules.csv",
        "impostor-addresses.csv",
    ] {
        let text = std::fs::read(out.join(name)).unwrap();
        let written = rows(&text);
        assert!(written.len() > 1, "{name}: {written:?}");
        assert!(
            written.iter().flatten().any(|f| f.contains("EVIL")),
            "{name}: {written:?}"
        );
        for row in &written {
            for field in row {
                assert!(!is_formula(field), "{name}: {field:?} in {row:?}");
            }
        }
    }
}

/// run.json's error messages quote the log (a JSON line's keys): C1 and
/// bidi controls there are escaped as on standard error, so `cat` of the
/// report runs no terminal escape (SPEC §5), and a line break forges no
/// line.
#[test]
fn run_json_errors_run_no_terminal_escape() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /c\n");
    let good = write(dir.path(), "good.log", seznam_fetch(1, "/cz/a"));
    let line = "{\"wh\u{9b}31m\u{202e}o\\nx\":\"1.2.3.4\",\"t\":\"x\"}\n";
    // A tab too: run.json writes file names as the CSVs do (README),
    // where a tab had stayed raw.
    let json = write(dir.path(), "j\u{202e}g\u{9b}\t.log", line.repeat(2));
    let out = dir.path().join("out");
    let run = run(&[
        "--log",
        s(&good),
        "--log",
        s(&json),
        "--robots",
        s(&robots),
        "--out",
        s(&out),
        "--quiet",
    ]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    let text = std::fs::read_to_string(out.join("run.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let file = value["files"][1]["file"].as_str().unwrap();
    assert!(file.ends_with("j\\u{202E}g\\u{009B}\\x09.log"), "{file}");
    for argument in value["arguments"].as_array().unwrap() {
        let argument = argument.as_str().unwrap();
        assert!(
            !argument.contains(['\u{202e}', '\u{9b}', '\t']),
            "{argument:?}"
        );
    }
    let error = value["files"][1]["error"].as_str().unwrap();
    assert!(error.contains("wh\\u{009B}31m\\u{202E}o\\x0Ax"), "{error}");
    // As standard error writes it: a tab (here the file name's) is the
    // one control a message keeps.
    assert!(
        !error
            .chars()
            .any(|c| (c.is_control() && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c)),
        "{error:?}"
    );
}

/// The summary on standard error names the rules broken most, as written
/// in robots.txt: an ESC sequence there reached the terminal as it was.
#[test]
fn rules_on_standard_error_run_no_terminal_escape() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(
        dir.path(),
        "robots.txt",
        "User-agent: SeznamBot\nDisallow: /cz/\x1b]0;owned\x07\u{202E}\n",
    );
    let log = write(
        dir.path(),
        "access.log",
        seznam_fetch(1, "/cz/\\x1b]0;owned\\x07\u{202E}"),
    );
    let run = run(&["--log", s(&log), "--robots", s(&robots)]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(r"line 2: Disallow: /cz/\x1B]0;owned\x07\u{202E} (1 violation)"),
        "{}",
        run.stderr
    );
    assert_eq!(terminal_controls(&run.stderr), [] as [char; 0]);
}

/// Whether a report holds anything a terminal would act on: C0 controls
/// but the line feed, DEL, C1 controls and bidi controls.
fn terminal_controls(report: &str) -> Vec<char> {
    report
        .chars()
        .filter(|&c| {
            matches!(c, '\0'..='\x09' | '\x0B'..='\x1F' | '\x7F' | '\u{80}'..='\u{9F}')
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

/// The bytes a server's `\xHH` and `\\` escapes stand for.
fn log_decoded(logged: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = logged.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = match (b, tail) {
            (b'\\', [b'\\', tail @ ..]) => {
                out.push(b'\\');
                tail
            }
            (b'\\', [b'x', hi, lo, tail @ ..]) => {
                let hex = std::str::from_utf8(&[*hi, *lo]).unwrap().to_string();
                out.push(u8::from_str_radix(&hex, 16).unwrap());
                tail
            }
            _ => {
                out.push(b);
                tail
            }
        };
    }
    out
}

/// `cat violations.csv` used to run the log's ESC sequences (clear the
/// screen, retitle the window) and its bidi overrides; a logged backslash
/// and a `\xNN` written by the escaping could not be told apart; and a
/// `;` before `=` opened a formula cell in Calc or Excel with `;` as the
/// list separator. Every written value now reads back to the bytes logged.
#[test]
fn log_text_reads_back_and_runs_no_terminal_escape() {
    use robots_audit::report::escape::read_back;

    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    // As Apache and nginx log them: control bytes as `\xHH`, a backslash
    // as `\\`; UTF-8 (C1 and bidi controls are UTF-8) as it came.
    let targets = [
        r"/cz/chat/\x1b[2J\x1b]0;owned\x07",
        "/cz/chat/\u{202E}gpj.exe\u{85}\u{9b}31m",
        r"/cz/chat/a\\xFF;=1+1;@SUM(A1)\x7f",
    ];
    let uas = [
        r"\x1b[31mSeznamBot/4.0\x00",
        "SeznamBot/4.0 \u{2066}a;\u{FF1D}1\u{2069}",
        r"SeznamBot/4.0 a\\b;-2\x9b",
    ];
    let mut log = String::new();
    for (i, (target, ua)) in targets.iter().zip(uas).enumerate() {
        log.push_str(&seznam_fetch(i as u32 + 1, target));
        log.push_str(&line(
            "6.6.6.6",
            &format!("30/Nov/2026:00:01:{i:02} +0100"),
            &format!("GET {target} HTTP/1.1"),
            ua,
        ));
    }
    let log = write(dir.path(), "access.log", log);
    let ptr = write(dir.path(), "ptr.txt", "6.6.6.6 evil.example.com\n");
    let out = dir.path().join("out");
    let run = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--ptr-map",
        s(&ptr),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);

    let want_targets: Vec<Vec<u8>> = targets.iter().map(|t| log_decoded(t)).collect();
    let want_uas: Vec<Vec<u8>> = uas.iter().map(|u| log_decoded(u)).collect();

    for name in ["violations.csv", "impostors.csv"] {
        let bytes = std::fs::read(out.join(name)).unwrap();
        let text = String::from_utf8(bytes.clone()).expect("the report is UTF-8");
        assert_eq!(terminal_controls(&text), [] as [char; 0], "{name}: {text}");
        let rows = rows(&bytes);
        let target_column = 8 - usize::from(name == "impostors.csv");
        let got: Vec<Vec<u8>> = rows[1..]
            .iter()
            .map(|r| read_back(&r[target_column]).expect("reads back"))
            .collect();
        assert_eq!(got, want_targets, "{name} targets");
        // Calc and Excel with `;` as list separator start a cell after
        // every `;`: none may start a formula.
        for field in text.split([';', ',', '\n']) {
            assert!(!field.starts_with('='), "{name}: {field:?} in {text}");
        }
    }
    let impostors = rows(&std::fs::read(out.join("impostors.csv")).unwrap());
    let got: Vec<Vec<u8>> = impostors[1..]
        .iter()
        .map(|r| read_back(&r[9]).expect("reads back"))
        .collect();
    assert_eq!(got, want_uas);
    assert_eq!(impostors[1][9], r"\x1B[31mSeznamBot/4.0\x00");
    assert_eq!(impostors[3][9], r"'SeznamBot/4.0 a\\b\x3B-2\x9B");
}

/// A target, user agent or method of 9,000 bytes or more was kept whole for
/// every fetch; now what is kept and written is its first 8 KiB and how
/// much was cut.
#[test]
fn long_targets_and_user_agents_are_cut_and_marked() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let target = format!("/cz/chat/{}", "č".repeat(10_000));
    let ua = format!("SeznamBot/4.0 {}", "x".repeat(20_000));
    let method = "M".repeat(9_000);
    let mut log = seznam_fetch(1, &target);
    log.push_str(&seznam_fetch(3, "/cz/chat/m").replacen("GET", &method, 1));
    log.push_str(&line(
        "6.6.6.6",
        "30/Nov/2026:00:00:02 +0100",
        &format!("GET {target} HTTP/1.1"),
        &ua,
    ));
    let log = write(dir.path(), "access.log", log);
    let ptr = write(dir.path(), "ptr.txt", "6.6.6.6 evil.example.com\n");
    let out = dir.path().join("out");
    let run = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--ptr-map",
        s(&ptr),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    // `/cz/chat/` is 9 bytes, so the limit falls inside a `č`.
    let kept_target = format!(
        "/cz/chat/{}…[cut {} bytes]",
        "č".repeat(4091),
        target.len() - 8191
    );
    let kept_ua = format!(
        "SeznamBot/4.0 {}…[cut {} bytes]",
        "x".repeat(8192 - 14),
        ua.len() - 8192
    );
    let violations = rows(&std::fs::read(out.join("violations.csv")).unwrap());
    assert_eq!(violations[1][8], kept_target);
    // A method is a token of any length: bounded as well.
    assert_eq!(
        violations[2][7],
        format!("{}…[cut 808 bytes]", "M".repeat(8192))
    );
    let impostors = rows(&std::fs::read(out.join("impostors.csv")).unwrap());
    assert_eq!(impostors[1][7], kept_target);
    assert_eq!(impostors[1][9], kept_ua);
}

/// A spoofer whose every fetch has a target of 900 KiB: each impostor kept
/// its own copy until the reports were written, so 120 of them took over
/// 100 MiB. A fetch's target is kept whole until it is judged, but within
/// the sorter's share of `--memory`, and the merge's fan-in shrinks so
/// that the runs' heads fit it too. 240 fetches, 211 MiB of targets, held
/// to the 100 MiB `--memory` allows less a tenth: how many chunks are in
/// flight varies with the machine's load (41 to 49 MiB measured under two
/// busy cores), so the bound is the contract's, not a measured figure's.
#[test]
fn many_long_targets_stay_within_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let target = format!("/cz/chat/{}", "t".repeat(900 << 10));
    let fetch = line(
        "6.6.6.6",
        "30/Nov/2026:00:00:01 +0100",
        &format!("GET {target} HTTP/1.1"),
        SEZNAM_UA,
    );
    let log = write(dir.path(), "access.log", fetch.repeat(240));
    let ptr = write(dir.path(), "ptr.txt", "6.6.6.6 evil.example.com\n");
    // Each --memory once, the same reports from both.
    let audit = |memory: &str| {
        let out = dir.path().join(format!("out-{memory}"));
        let args = [
            "--log",
            s(&log),
            "--robots",
            s(&robots),
            "--ptr-map",
            s(&ptr),
            "--out",
            s(&out),
            "--threads",
            "2",
            "--memory",
            memory,
        ];
        let done = run(&args);
        assert_eq!(done.code(), Some(0), "{}", done.stderr);
        (
            done.peak_rss_kib,
            std::fs::read(out.join("impostors.csv")).unwrap(),
        )
    };
    let (peak, impostors) = audit("100M");
    assert_eq!(rows(&impostors).len(), 241);
    assert!(
        peak < 90 * 1024,
        "peak {peak} KiB for 240 fetches of 900 KiB"
    );
    // Under a small --memory the runs spill, and the merge holds a few
    // heads, not one a run (70 MiB at --memory 16M with 64 heads).
    let (small_peak, small_impostors) = audit("16M");
    assert_eq!(small_impostors, impostors);
    assert!(
        small_peak < 40 * 1024,
        "peak {small_peak} KiB for 240 fetches of 900 KiB under --memory 16M"
    );
}

/// A log with enough violations to fill any pipe buffer.
fn big_log(dir: &Path, rows: u32) -> std::path::PathBuf {
    let mut log = String::new();
    for i in 0..rows {
        log.push_str(&line(
            "77.75.77.123",
            &format!(
                "30/Nov/2026:{:02}:{:02}:{:02} +0100",
                i / 3600 % 24,
                i / 60 % 60,
                i % 60
            ),
            &format!("GET /cz/chat/{i} HTTP/1.1"),
            SEZNAM_UA,
        ));
    }
    write(dir, "big.log", log)
}

#[test]
fn standard_output_closed_early_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = big_log(dir.path(), 20_000);
    let targets: Vec<String> = (0..5_000).map(|i| format!("/cz/chat/{i}")).collect();
    let mut check_args = vec!["check", "--robots", s(&robots)];
    check_args.extend(targets.iter().map(String::as_str));
    for args in [
        vec!["--log", s(&log), "--robots", s(&robots)],
        vec!["--log", s(&log), "--robots", s(&robots), "--quiet"],
        check_args,
    ] {
        // As `robots-audit … | head -c 100`: read a little, then close.
        let mut child = command(&args).spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 100];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let run = finish(child, Duration::from_secs(60));
        assert!(first.starts_with(b"time,file,") || first.starts_with(b"SeznamBot:"));
        // Every run found violations: the closed pipe must not hide them.
        assert_eq!(run.code(), Some(1), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(!run.stderr.contains("cannot write"), "{}", run.stderr);
    }
}

/// `robots-audit --out DIR … 2>&1 | head -3` in a cron job: once `head`
/// has gone, every message to standard error fails, and `eprintln!`
/// panics. The skipped-line messages come before the reports are written,
/// so the reports are lost and the run ends with status 101.
#[test]
fn standard_error_closed_early_still_writes_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = "not a log line\n".repeat(20);
    log.push_str(&seznam_fetch(1, "/cz/chat/a"));
    let log = write(dir.path(), "junk.log", log);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut child = command(&["--log", s(&log), "--robots", s(&robots), "--out", s(&out)])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    assert_no_leftovers(&out);
}

#[test]
fn out_under_a_regular_file_exits_2_and_leaves_nothing() {
    // Tests run as root, for whom a read-only directory is still writable;
    // a path under a regular file is unwritable for everybody.
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let file = write(dir.path(), "a-file", "keep me\n");
    for out in [
        file.join("reports"),
        file.clone(),
        "/proc/self/nonexistent".into(),
    ] {
        let run = run(&["--log", s(&log), "--robots", s(&robots), "--out", s(&out)]);
        assert_eq!(run.code(), Some(2), "{}: {}", out.display(), run.stderr);
        assert!(run.stderr.contains("cannot write"), "{}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me\n");
    assert_eq!(entries(dir.path()), ["a-file", "access.log", "robots.txt"]);
}

/// A tmpfs of 64 KiB, mounted for the test and unmounted after.
struct TinyFs {
    dir: tempfile::TempDir,
}

impl TinyFs {
    fn mount() -> Option<TinyFs> {
        let dir = tempfile::tempdir().ok()?;
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(TinyFs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TinyFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

/// A folder bound read-only over itself for the test, unbound after.
struct ReadOnly {
    path: std::path::PathBuf,
}

impl ReadOnly {
    fn bind(path: &Path) -> Option<ReadOnly> {
        let status = std::process::Command::new("mount")
            .args(["-o", "bind,ro"])
            .arg(path)
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| ReadOnly {
            path: path.to_path_buf(),
        })
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(&self.path)
            .status();
    }
}

/// SPEC §5: whatever the exit status, every report that could be written
/// is written. A `--state` on a read-only file system can be neither
/// locked nor saved (nobody can change it either): it is read, the
/// night's reports are written, and the run exits 2 leaving it as it was.
#[test]
fn a_read_only_state_still_gets_the_reports_written() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let state = dir.path().join("state");
    let first = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--state",
        s(&state),
        "--out",
        s(&dir.path().join("out1")),
    ]);
    assert_eq!(first.code(), Some(1), "{}", first.stderr);
    let saved = std::fs::read(state.join("state.json")).unwrap();
    let Some(_bound) = ReadOnly::bind(&state) else {
        eprintln!("skipped: cannot bind-mount read-only here (needs root)");
        return;
    };
    let later = write(dir.path(), "later.log", seznam_fetch(5, "/cz/chat/b"));
    reports_written_but_state_not(
        &later,
        &robots,
        &state,
        &dir.path().join("out2"),
        "/cz/chat/b",
    );
    assert_eq!(std::fs::read(state.join("state.json")).unwrap(), saved);
}

/// Audits `log` with `--state state --out out`, which must exit 2 for a
/// state on a read-only file system and still write the reports, the
/// fetch of `target` among the violations and `state_error` in run.json.
fn reports_written_but_state_not(
    log: &Path,
    robots: &Path,
    state: &Path,
    out: &Path,
    target: &str,
) {
    let ran = run(&[
        "--log",
        s(log),
        "--robots",
        s(robots),
        "--state",
        s(state),
        "--out",
        s(out),
    ]);
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is on a read-only file system"),
        "{}",
        ran.stderr
    );
    let violations = std::fs::read_to_string(out.join("violations.csv")).unwrap();
    assert!(violations.contains(target), "{violations}");
    let run_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["exit_status"], 2);
    assert!(run_json["state_error"].is_string(), "{run_json}");
}

/// SPEC §6: a missing `--state` folder is a fresh state; where it cannot
/// be made (a read-only file system) it is a fresh state that cannot be
/// saved, as an empty folder there is: the reports are written, exit 2.
#[test]
fn a_state_that_cannot_be_made_still_gets_the_reports_written() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let frozen = dir.path().join("frozen");
    std::fs::create_dir(&frozen).unwrap();
    let Some(_bound) = ReadOnly::bind(&frozen) else {
        eprintln!("skipped: cannot bind-mount read-only here (needs root)");
        return;
    };
    let state = frozen.join("state");
    reports_written_but_state_not(&log, &robots, &state, &dir.path().join("out"), "/cz/chat/a");
    assert!(!state.exists());
}

#[test]
fn a_full_filesystem_leaves_the_earlier_report_untouched() {
    let Some(fs) = TinyFs::mount() else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root); covered by the test above");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let small = write(dir.path(), "small.log", seznam_fetch(1, "/cz/chat/a"));
    let first = run(&[
        "--log",
        s(&small),
        "--robots",
        s(&robots),
        "--out",
        s(fs.path()),
    ]);
    assert_eq!(first.code(), Some(1), "{}", first.stderr);
    let before: Vec<Vec<u8>> = ["violations.csv", "impostors.csv", "summary.csv"]
        .iter()
        .map(|n| std::fs::read(fs.path().join(n)).unwrap())
        .collect();
    // A report of some 3 MB cannot fit in what is left of 64 KiB.
    let big = big_log(dir.path(), 20_000);
    let second = run(&[
        "--log",
        s(&big),
        "--robots",
        s(&robots),
        "--out",
        s(fs.path()),
    ]);
    assert_eq!(second.code(), Some(2), "{}", second.stderr);
    assert!(
        second.stderr.contains("No space left on device"),
        "{}",
        second.stderr
    );
    let after: Vec<Vec<u8>> = ["violations.csv", "impostors.csv", "summary.csv"]
        .iter()
        .map(|n| std::fs::read(fs.path().join(n)).unwrap())
        .collect();
    assert!(before == after, "the earlier report changed");
    assert_no_leftovers(fs.path());
}

/// When a rename fails after another report file was already renamed (here
/// because `impostors.csv` is a directory), the out directory holds a new
/// violations.csv beside an old summary.csv: a mixed set of reports.
#[test]
fn a_failed_rename_leaves_every_earlier_report_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("impostors.csv").join("in-the-way")).unwrap();
    write(&out, "violations.csv", "old\n");
    write(&out, "summary.csv", "old\n");
    let run = run(&["--log", s(&log), "--robots", s(&robots), "--out", s(&out)]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert_eq!(std::fs::read(out.join("violations.csv")).unwrap(), b"old\n");
    assert_eq!(std::fs::read(out.join("summary.csv")).unwrap(), b"old\n");
}

/// Every name the earlier version wrote through, planted by "another user"
/// as a link to a file of theirs choosing, before the run starts: the run
/// writes its reports and leaves the victims alone. The names held the
/// PID, so the links are planted by a shell that then becomes the run
/// (`exec` keeps the PID).
#[test]
fn links_planted_at_predictable_temporary_names_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let victim = write(dir.path(), "victim", "keep me\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    write(&out, "violations.csv", "earlier\n");
    let mut plant = String::new();
    // The names earlier versions of the tool gave their temporary files:
    // the reports they wrote, each `.NAME.PID.tmp` and `.NAME.PID.old`.
    for name in ["impostors.csv", "summary.csv", "violations.csv"] {
        for kind in ["tmp", "old"] {
            plant.push_str(&format!(
                "ln -s {victim} {out}/.{name}.$$.{kind}; ",
                victim = s(&victim),
                out = s(&out)
            ));
        }
    }
    let script = format!(
        "{plant}exec {BIN} --log {} --robots {} --out {}",
        s(&log),
        s(&robots),
        s(&out)
    );
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = finish(child, Duration::from_secs(60));
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me\n");
    let violations = std::fs::read_to_string(out.join("violations.csv")).unwrap();
    assert!(violations.contains("/cz/chat/a"), "{violations}");
    // The planted links were leftovers of nobody's run; they are gone.
    assert_no_leftovers(&out);
}

/// A link planted in place of the state folder or of its lock file is
/// never followed: the run refuses, exits 2 naming it, and the directory
/// the link points to stays empty.
#[test]
fn a_link_planted_as_the_state_folder_or_the_lock_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let victim = write(dir.path(), "victim", "keep me\n");

    let out = dir.path().join("out-state");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join(".robots-audit")).unwrap();
    let run = run(&["--log", s(&log), "--robots", s(&robots), "--out", s(&out)]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains(".robots-audit"), "{}", run.stderr);
    assert!(entries(&elsewhere).is_empty());

    let out = dir.path().join("out-lock");
    std::fs::create_dir_all(out.join(".robots-audit")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join(".robots-audit").join("lock")).unwrap();
    let run = common::run(&["--log", s(&log), "--robots", s(&robots), "--out", s(&out)]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("lock"), "{}", run.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me\n");
    assert_eq!(entries(&out), [".robots-audit"]);
}

/// Waits until another process holds the lock of `out`.
fn wait_for_holder(out: &Path) {
    let lock = out.join(".robots-audit").join("lock");
    for _ in 0..6000 {
        if let Ok(file) = std::fs::File::open(&lock)
            && let Err(std::fs::TryLockError::WouldBlock) = file.try_lock()
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the first run never took the lock of {}", out.display());
}

/// Two runs on one `--out`: the lock, taken before the first log line is
/// read, keeps the second out. With `--lock-wait 0` it exits 2 at once,
/// saying why and leaving DIR as it was; with time to wait it gets the
/// lock when the first run ends and writes its own set.
#[test]
fn a_second_run_on_the_same_out_waits_for_the_lock_or_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "second.log", seznam_fetch(2, "/cz/chat/second"));
    let out = dir.path().join("out");
    // The first run reads a log from a pipe that the test holds open.
    let mut holder = command(&["--log", "-", "--robots", s(&robots), "--out", s(&out)])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_holder(&out);
    let args = ["--log", s(&log), "--robots", s(&robots), "--out", s(&out)];

    let mut refused = args.to_vec();
    refused.extend(["--lock-wait", "0"]);
    let second = run_within(&refused, Duration::from_secs(30));
    assert_eq!(second.code(), Some(2), "{}", second.stderr);
    assert!(
        second.stderr.contains("another robots-audit run holds"),
        "{}",
        second.stderr
    );
    assert!(second.stderr.contains(s(&out)), "{}", second.stderr);
    assert_eq!(entries(&out), [".robots-audit"], "the second run wrote");

    // The first run ends a moment after the second starts waiting.
    let mut stdin = holder.stdin.take().unwrap();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        stdin
            .write_all(seznam_fetch(1, "/cz/chat/first").as_bytes())
            .unwrap();
    });
    let mut patient = args.to_vec();
    patient.extend(["--lock-wait", "30"]);
    let second = run_within(&patient, Duration::from_secs(60));
    releaser.join().unwrap();
    let first = finish(holder, Duration::from_secs(60));
    assert_eq!(first.code(), Some(1), "{}", first.stderr);
    assert_eq!(second.code(), Some(1), "{}", second.stderr);
    let violations = std::fs::read_to_string(out.join("violations.csv")).unwrap();
    assert!(violations.contains("/cz/chat/second"), "{violations}");
    assert!(!violations.contains("/cz/chat/first"), "{violations}");
    assert_no_leftovers(&out);
}

/// With a umask of 002 (usual where each user has a group of their own)
/// the state folder would come out group-writable, which the run itself
/// refuses to trust; its mode is set whatever the umask.
#[test]
fn a_umask_of_002_still_gives_a_trusted_state_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let out = dir.path().join("out");
    let script = format!(
        "umask 002; exec {BIN} --log {} --robots {} --out {}",
        s(&log),
        s(&robots),
        s(&out)
    );
    for _ in 0..2 {
        let child = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let run = finish(child, Duration::from_secs(60));
        assert_eq!(run.code(), Some(1), "{}", run.stderr);
    }
    let state = out.join(".robots-audit");
    let mode = std::fs::metadata(&state).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    assert_no_leftovers(&out);
}

/// A log's name is the operator's, yet may hold a terminal escape or start
/// like a formula: the `file` column writes it as log text is written.
#[test]
fn the_file_column_is_escaped_like_log_text() {
    use crate::support::audit::{SEZNAM_UA, Site, clf, combined};
    let line = combined(
        "77.75.77.1",
        &clf(1),
        "GET /private/a HTTP/1.1",
        200,
        SEZNAM_UA,
    );
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /private/\n")
        .with("e\u{1b}[2Jx.log", &line)
        .with("-1+1.log", &line);
    let run = site.run(&[
        "--log",
        "e\u{1b}[2Jx.log",
        "--log=-1+1.log",
        "--robots",
        "robots.txt",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let rows = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert!(!rows.contains('\u{1b}'), "{rows:?}");
    assert!(rows.contains(",e\\x1B[2Jx.log,"), "{rows:?}");
    assert!(rows.contains(",'-1+1.log,"), "{rows:?}");
}

/// Two log names that are not UTF-8 and differ only there come out as
/// different `\xNN` escapes, never both as U+FFFD.
#[test]
fn file_names_that_are_not_utf8_stay_apart() {
    use crate::support::audit::{SEZNAM_UA, Site, clf, combined};
    use std::os::unix::ffi::OsStrExt;
    let line = combined(
        "77.75.77.1",
        &clf(1),
        "GET /private/a HTTP/1.1",
        200,
        SEZNAM_UA,
    );
    let site = Site::new().with("robots.txt", "User-agent: *\nDisallow: /private/\n");
    let names = [
        std::ffi::OsStr::from_bytes(b"a\xfe.log"),
        std::ffi::OsStr::from_bytes(b"a\xff.log"),
    ];
    for name in names {
        std::fs::write(site.path("").join(name), &line).unwrap();
    }
    let out = site
        .command(&[])
        .arg("--log")
        .arg(names[0])
        .arg("--log")
        .arg(names[1])
        .args(["--robots", "robots.txt", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert!(
        rows.contains(",a\\xFE.log,") && rows.contains(",a\\xFF.log,"),
        "{rows:?}"
    );
}
