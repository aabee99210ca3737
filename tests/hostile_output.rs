//! Output safety, through the real binary (SPEC §5): log text written by
//! strangers reaches the CSV escaped (no spreadsheet formulas, no bytes
//! that are not UTF-8) unless `--raw-csv`; a standard output closed early
//! ends the run quietly; an `--out` that cannot be written exits 2 and
//! leaves any earlier report as it was, with no temporary file behind.

#[path = "hostile_common.rs"]
mod common;

use std::io::Read;
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
    push(
        &mut log,
        b"=1+2",
        1,
        b"GET /cz/chat/a HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"@SUM(A1)",
        2,
        b"+GET /cz/chat/b HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"-2+3",
        3,
        b"-X /cz/chat/\xff\\xfe HTTP/1.1",
        b"SeznamBot/4.0",
    );
    push(
        &mut log,
        b"a\xff",
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
            ("'=1+2", "GET", "/cz/chat/a"),
            ("'@SUM(A1)", "'+GET", "/cz/chat/b"),
            ("'-2+3", "'-X", "/cz/chat/\\xFF\\xFE"),
            ("a\\xFF", "GET", "/cz/chat/=cmd|' /C calc'!A0"),
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
            ("GET", "'\tSeznamBot/4.0"),
            ("GET", "'-SeznamBot/4.0 \\xFE"),
            ("GET", "'+SeznamBot/4.0\r"),
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
    assert!(raw.stdout.windows(6).any(|w| w == b",=1+2,"));
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
    assert_eq!(
        entries(&out),
        ["impostors.csv", "summary.csv", "violations.csv"]
    );
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
    assert_eq!(
        entries(fs.path()),
        ["impostors.csv", "summary.csv", "violations.csv"]
    );
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
