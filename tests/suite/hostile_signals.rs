//! Ctrl-C and SIGTERM during a run (SPEC §5 "each written whole or not at
//! all"; `src/interrupt.rs`): the run ends with status 2, no temporary file
//! is left in the out directory, and every report there is either the
//! earlier one, byte for byte, or a whole new one — never half of one.
//! `kill -9` at each step of the switch leaves one whole set (never a mix),
//! and what the run says about the reports when interrupted is true.

use crate::support::hostile as common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;

const REPORTS: [&str; 7] = REPORT_FILES;

fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("kill -{name} {pid}"))
        .status()
        .expect("sh");
    assert!(status.success(), "kill -{name} {pid}");
}

/// Earlier reports, as a nightly job would have left them.
fn earlier_reports(out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    for name in REPORTS {
        write(out, name, format!("earlier {name}\n"));
    }
}

/// Each report is the earlier one or a whole CSV with the header of its
/// kind (run.json: whole JSON); nothing else is in the directory.
fn assert_whole_or_earlier(out: &Path) {
    assert_no_leftovers(out);
    for name in REPORTS {
        let bytes = std::fs::read(out.join(name)).unwrap();
        if bytes == format!("earlier {name}\n").as_bytes() {
            continue;
        }
        assert_whole(name, &bytes);
    }
}

/// A report is whole: it ends with a line end, and every row is as wide as
/// the header (run.json: it is whole JSON; report.html: it ends with its
/// closing tag).
fn assert_whole(name: &str, bytes: &[u8]) {
    assert!(bytes.ends_with(b"\n"), "{name} is cut short");
    if name.ends_with(".html") {
        assert!(bytes.ends_with(b"</html>\n"), "{name} is cut short");
        return;
    }
    if name.ends_with(".json") {
        let parsed: Result<serde_json::Value, _> = serde_json::from_slice(bytes);
        assert!(parsed.is_ok(), "{name} is not whole JSON");
        return;
    }
    let rows = rows(bytes);
    let width = rows[0].len();
    assert!(rows.iter().all(|r| r.len() == width), "{name} is cut short");
}

/// An audit reading a log from standard input that never ends: the test
/// writes crawler fetches, then holds the pipe open while it signals.
fn interrupted_while_reading(signal_name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let out = dir.path().join("out");
    earlier_reports(&out);
    let mut child = command(&["--log", "-", "--robots", s(&robots), "--out", s(&out)])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut block = String::new();
    for i in 0..2_000 {
        block.push_str(&seznam_fetch(i % 60, &format!("/cz/chat/{i}")));
    }
    for _ in 0..20 {
        stdin.write_all(block.as_bytes()).unwrap();
    }
    // Give the reader time to take in what was written.
    std::thread::sleep(Duration::from_millis(500));
    signal(child.id(), signal_name);
    let run = finish(child, Duration::from_secs(30));
    drop(stdin);
    assert_eq!(run.code(), Some(2), "{signal_name}: {}", run.stderr);
    assert!(run.stderr.contains("interrupted"), "{}", run.stderr);
    assert_whole_or_earlier(&out);
    for name in REPORTS {
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            format!("earlier {name}\n").as_bytes(),
            "{name} changed although the run never got to write it"
        );
    }
}

#[test]
fn sigterm_while_reading_an_endless_log_leaves_the_earlier_reports() {
    interrupted_while_reading("TERM");
}

#[test]
fn ctrl_c_while_reading_an_endless_log_leaves_the_earlier_reports() {
    interrupted_while_reading("INT");
}

/// Signals at spread-out moments of a run that writes reports of some
/// megabytes: whenever it lands — reading, judging, staging, renaming —
/// no report is ever half written and no temporary file stays.
#[test]
fn sigterm_at_any_moment_never_leaves_half_a_report() {
    sigterm_at_any_moment(&[]);
}

/// The same with sorted runs on disk and merge rounds (`--memory 1M`):
/// a run file the interrupt removed under its reader (`cannot read:
/// …/run-925`, `cannot write: $TMPDIR: interrupted`) is the interrupt's
/// doing, and the run says what the interrupt did to the reports.
#[test]
fn sigterm_while_runs_spill_and_merge_says_it_was_interrupted() {
    sigterm_at_any_moment(&["--memory", "1M"]);
}

fn sigterm_at_any_moment(extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = String::new();
    // Under a small --memory, long targets: many runs, merged in rounds.
    let (lines, pad) = if extra.is_empty() {
        (40_000u32, 0)
    } else {
        (4_000, 12_000)
    };
    for i in 0..lines {
        log.push_str(&line(
            "77.75.77.123",
            &format!(
                "30/Nov/2026:{:02}:{:02}:{:02} +0100",
                i / 3600 % 24,
                i / 60 % 60,
                i % 60
            ),
            &format!("GET /cz/chat/{i}{} HTTP/1.1", "x".repeat(pad)),
            SEZNAM_UA,
        ));
    }
    let log = write(dir.path(), "big.log", log);
    // How long an uninterrupted run takes, to spread the signals over it.
    // The first run warms the page cache; the second is the one timed.
    let whole = (0..2)
        .map(|_| {
            let out = dir.path().join("whole");
            std::fs::create_dir_all(&out).unwrap();
            let mut args = vec![
                "--log",
                s(&log),
                "--robots",
                s(&robots),
                "--out",
                s(&out),
                "-q",
            ];
            args.extend_from_slice(extra);
            let run = run(&args);
            assert_eq!(run.code(), Some(1), "{}", run.stderr);
            run.elapsed
        })
        .min()
        .unwrap_or_default();
    for step in 1..=8u32 {
        let out = dir.path().join(format!("out-{step}"));
        earlier_reports(&out);
        let mut args = vec![
            "--log",
            s(&log),
            "--robots",
            s(&robots),
            "--out",
            s(&out),
            "-q",
        ];
        args.extend_from_slice(extra);
        let child = command(&args).spawn().unwrap();
        let pid = child.id();
        let delay = whole * step / 9;
        let killer = std::thread::spawn(move || {
            std::thread::sleep(delay);
            // The run may have ended already: then there is nobody to kill.
            let _ = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("kill -TERM {pid} 2>/dev/null"))
                .status();
        });
        let run = finish(child, Duration::from_secs(60));
        killer.join().unwrap();
        assert!(
            matches!(run.code(), Some(1 | 2)),
            "step {step}: {:?} {}",
            run.code(),
            run.stderr
        );
        assert_whole_or_earlier(&out);
        // What the run says about the reports is true (SPEC §5).
        let earlier = REPORTS.iter().all(|name| {
            std::fs::read(out.join(name)).unwrap() == format!("earlier {name}\n").as_bytes()
        });
        if run.stderr.contains("no report written") {
            assert!(earlier, "step {step}: said no report, wrote one");
        } else if run.code() == Some(2) {
            assert!(!earlier, "step {step}: {}", run.stderr);
            assert!(run.stderr.contains("written whole"), "{}", run.stderr);
        }
    }
}

/// The three reports are the earlier set or one whole new set, never a mix
/// of two; true when they are the earlier one.
fn assert_one_set(out: &Path) -> bool {
    let earlier: Vec<bool> = REPORTS
        .iter()
        .map(|name| {
            std::fs::read(out.join(name)).unwrap() == format!("earlier {name}\n").as_bytes()
        })
        .collect();
    if earlier.iter().all(|e| *e) {
        return true;
    }
    assert!(
        earlier.iter().all(|e| !e),
        "a mix of two sets in {}: {earlier:?}",
        out.display()
    );
    assert_whole_or_earlier_files(out);
    false
}

/// Each report is whole: it ends with a line end and every row is as wide
/// as the header.
fn assert_whole_or_earlier_files(out: &Path) {
    for name in REPORTS {
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert_whole(name, &bytes);
    }
}

/// `kill -9` leaves no handler a chance: wherever it lands in the switch of
/// the set — earlier reports adopted as a set, links placed, a report
/// staged, all staged, the new set in force — DIR shows one whole set, and
/// the next run removes what the killed one left.
#[test]
fn kill_9_at_every_step_of_the_switch_leaves_one_whole_set() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = String::new();
    for i in 0..50 {
        log.push_str(&seznam_fetch(i % 60, &format!("/cz/chat/{i}")));
    }
    let log = write(dir.path(), "access.log", log);
    let steps = [
        ("adopted", true),
        ("linked", true),
        ("staging", true),
        ("staged", true),
        ("named", true),
        ("switched", false),
    ];
    for (step, earlier) in steps {
        let out = dir.path().join(step);
        earlier_reports(&out);
        let args = ["--log", s(&log), "--robots", s(&robots), "--out", s(&out)];
        let (mut child, paused) = spawn_paused(&mut command(&args), step, Duration::from_secs(60));
        assert_eq!(
            paused.as_deref(),
            Some(format!("robots-audit: paused at {step}").as_str())
        );
        // A reader while the run stands there, then after it is killed.
        assert_eq!(assert_one_set(&out), earlier, "{step}: while paused");
        signal(child.id(), "KILL");
        let _ = child.wait();
        assert_eq!(assert_one_set(&out), earlier, "{step}: after kill -9");

        let next = run(&args);
        assert_eq!(next.code(), Some(1), "{step}: {}", next.stderr);
        assert!(!assert_one_set(&out), "{step}: the next run's set");
        assert_no_leftovers(&out);
    }
}

/// A first run into a new folder that dies before its set is in force
/// leaves no report name behind: the links are placed after the first
/// set, never dangling before it.
#[test]
fn a_first_run_killed_before_its_set_leaves_no_dangling_names() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/1"));
    let out = dir.path().join("fresh");
    let args = ["--log", s(&log), "--robots", s(&robots), "--out", s(&out)];
    let (mut child, paused) = spawn_paused(&mut command(&args), "staged", Duration::from_secs(60));
    assert!(paused.is_some());
    signal(child.id(), "KILL");
    let _ = child.wait();
    for name in REPORTS {
        assert!(
            std::fs::symlink_metadata(out.join(name)).is_err(),
            "{name} names nothing yet"
        );
    }
    let next = run(&args);
    assert_eq!(next.code(), Some(1), "{}", next.stderr);
    for name in REPORTS {
        assert!(std::fs::read(out.join(name)).is_ok(), "{name}");
    }
}

/// A first set whose report names cannot all be placed (here a folder put
/// in the way of one while the run stands before its names are placed; in
/// the wild, a disk out of inodes) is never put in force: DIR shows no
/// report at all, never some names without the rest, and the run exits 2.
/// Before, `violations.csv` stood alone in DIR, from a set whose run.json
/// said exit 1.
#[test]
fn a_first_set_whose_names_cannot_all_be_placed_is_never_put_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/1"));
    let out = dir.path().join("fresh");
    let resume = dir.path().join("resume");
    let args = ["--log", s(&log), "--robots", s(&robots), "--out", s(&out)];
    let mut command = command(&args);
    command.env("ROBOTS_AUDIT_RESUME_WHEN", &resume);
    let (child, paused) = spawn_paused(&mut command, "staged", Duration::from_secs(60));
    assert!(paused.is_some());
    std::fs::create_dir(out.join("summary.csv")).unwrap();
    std::fs::write(&resume, "").unwrap();
    let done = finish(child, Duration::from_secs(60));
    assert_eq!(done.code(), Some(2));
    for name in REPORTS.iter().filter(|name| **name != "summary.csv") {
        assert!(
            std::fs::symlink_metadata(out.join(name)).is_err(),
            "{name} is there without the rest of its set"
        );
    }
    assert!(std::fs::symlink_metadata(out.join(".robots-audit/current")).is_err());

    std::fs::remove_dir(out.join("summary.csv")).unwrap();
    let next = run(&args);
    assert_eq!(next.code(), Some(1), "{}", next.stderr);
    for name in REPORTS {
        assert!(std::fs::read(out.join(name)).is_ok(), "{name}");
    }
    assert_no_leftovers(&out);
}

/// An earlier version's reports that are only some of today's names are
/// adopted as a set; the names that set does not hold wait for the new
/// set, so a run interrupted before it leaves no name that opens nothing.
#[test]
fn a_partial_earlier_set_gets_no_dangling_names_from_an_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/1"));
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let kept = ["violations.csv", "summary.csv"];
    for name in kept {
        write(&out, name, format!("earlier {name}\n"));
    }
    let args = ["--log", s(&log), "--robots", s(&robots), "--out", s(&out)];
    let (mut child, paused) = spawn_paused(&mut command(&args), "linked", Duration::from_secs(60));
    assert!(paused.is_some());
    let names_now = |out: &Path| {
        REPORTS
            .iter()
            .filter(|name| std::fs::symlink_metadata(out.join(name)).is_ok())
            .copied()
            .collect::<Vec<_>>()
    };
    assert_eq!(names_now(&out), ["summary.csv", "violations.csv"]);
    signal(child.id(), "TERM");
    let _ = child.wait();
    assert_eq!(names_now(&out), ["summary.csv", "violations.csv"]);
    for name in kept {
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            format!("earlier {name}\n")
        );
    }
    let next = run(&args);
    assert_eq!(next.code(), Some(1), "{}", next.stderr);
    assert_eq!(names_now(&out), REPORTS);
    assert_no_leftovers(&out);
}

/// `kill -9` in the few calls between placing a first set's names and
/// putting it in force: the names open nothing (as before the run, no
/// report can be read), never some reports without the rest; the next run
/// makes them name its set.
#[test]
fn a_first_run_killed_between_its_names_and_its_switch_shows_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/1"));
    let out = dir.path().join("fresh");
    let args = ["--log", s(&log), "--robots", s(&robots), "--out", s(&out)];
    let (mut child, paused) = spawn_paused(&mut command(&args), "named", Duration::from_secs(60));
    assert!(paused.is_some());
    signal(child.id(), "KILL");
    let _ = child.wait();
    for name in REPORTS {
        assert!(std::fs::read(out.join(name)).is_err(), "{name} opens");
    }
    let next = run(&args);
    assert_eq!(next.code(), Some(1), "{}", next.stderr);
    for name in REPORTS {
        assert!(std::fs::read(out.join(name)).is_ok(), "{name}");
    }
    assert_no_leftovers(&out);
}

/// One SeznamBot fetch that breaks a rule, audited into `out` with
/// `state`, the run standing at a pause point until `resume` exists.
struct PausedNight {
    _dir: tempfile::TempDir,
    log: std::path::PathBuf,
    robots: std::path::PathBuf,
    out: std::path::PathBuf,
    state: std::path::PathBuf,
    resume: std::path::PathBuf,
}

impl PausedNight {
    fn new() -> PausedNight {
        let dir = tempfile::tempdir().unwrap();
        PausedNight {
            robots: write(dir.path(), "robots.txt", ROBOTS),
            log: write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/1")),
            out: dir.path().join("out"),
            state: dir.path().join("state"),
            resume: dir.path().join("resume"),
            _dir: dir,
        }
    }

    fn args(&self) -> [&str; 8] {
        [
            "--log",
            s(&self.log),
            "--robots",
            s(&self.robots),
            "--out",
            s(&self.out),
            "--state",
            s(&self.state),
        ]
    }

    /// The run, standing at `step`.
    fn start(&self, step: &str) -> std::process::Child {
        let mut command = command(&self.args());
        command.env("ROBOTS_AUDIT_RESUME_WHEN", &self.resume);
        let (child, paused) = spawn_paused(&mut command, step, Duration::from_secs(60));
        assert!(paused.is_some());
        child
    }

    fn resume(&self) {
        std::fs::write(&self.resume, "").unwrap();
    }
}

/// SIGTERM once the new set is in force, before the state is saved: the
/// run is let finish, so the state is saved and the run exits with the
/// status its set's run.json gives (1). Before, the run exited 2 with the
/// state left as it was while the set in force said the night was whole.
#[test]
fn sigterm_after_the_switch_lets_the_run_save_its_state() {
    let night = PausedNight::new();
    let child = night.start("switched");
    signal(child.id(), "TERM");
    // The handler has said its piece before the run goes on.
    std::thread::sleep(Duration::from_millis(300));
    night.resume();
    let done = finish(child, Duration::from_secs(60));
    assert_eq!(done.code(), Some(1));
    let run_json = std::fs::read_to_string(night.out.join("run.json")).unwrap();
    assert!(run_json.contains("\"exit_status\": 1"), "{run_json}");
    assert!(night.state.join("state.json").is_file());
    // The night's line is audited: the next run has nothing new.
    let next = run(&night.args());
    assert_eq!(next.code(), Some(0), "{}", next.stderr);
}

/// A state whose final rename fails once the set is in force (here a
/// folder put where state.json goes while the run stands after the
/// switch): the run exits 2, and the set in force says so — run.json's
/// exit status and `state_error`, report.html's cause — with the night's
/// rows as they were. Before, the set said exit 1 and no state error.
#[test]
fn a_state_that_cannot_be_put_in_place_after_the_switch_is_said_by_the_set() {
    let night = PausedNight::new();
    let child = night.start("switched");
    let violations = std::fs::read(night.out.join("violations.csv")).unwrap();
    std::fs::create_dir_all(night.state.join("state.json").join("in-the-way")).unwrap();
    night.resume();
    let done = finish(child, Duration::from_secs(60));
    assert_eq!(done.code(), Some(2));
    let run_json = std::fs::read_to_string(night.out.join("run.json")).unwrap();
    assert!(run_json.contains("\"exit_status\": 2"), "{run_json}");
    assert!(!run_json.contains("\"state_error\": null"), "{run_json}");
    let page = std::fs::read_to_string(night.out.join("report.html")).unwrap();
    assert!(
        page.contains("state.json"),
        "report.html names the state's failure"
    );
    assert_eq!(
        std::fs::read(night.out.join("violations.csv")).unwrap(),
        violations
    );
    assert_whole_or_earlier(&night.out);
}

/// Without `--out` the report streams to standard output. A SIGTERM while
/// it does must not claim "no report written": part of one was.
#[test]
fn sigterm_while_streaming_to_standard_output_says_the_report_is_incomplete() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = String::new();
    for i in 0..20_000u32 {
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
    let log = write(dir.path(), "big.log", log);
    let mut child = command(&["--log", s(&log), "--robots", s(&robots), "-q"])
        .spawn()
        .unwrap();
    // The first bytes prove the report has begun; some 3 MB cannot fit in
    // the pipe, so the run is still writing when the signal comes.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    signal(child.id(), "TERM");
    let drain = std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let run = finish(child, Duration::from_secs(60));
    let _ = drain.join();
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("interrupted; the report on standard output is incomplete"),
        "{}",
        run.stderr
    );
}
