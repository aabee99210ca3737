//! Helpers shared by the `hostile_*` integration tests, which name it
//! `common` (`use crate::support::hostile as common;`): running the real
//! binary with a time limit (a hang becomes a failure, never a stuck CI),
//! watching its peak memory, writing logs, robots.txt files and gzip
//! members. It holds no tests.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::GzEncoder;

pub const BIN: &str = env!("CARGO_BIN_EXE_robots-audit");

/// SeznamBot's user agent as SPEC §2 quotes it.
pub const SEZNAM_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";

pub const BROWSER_UA: &str =
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";

/// A robots.txt with one rule for SeznamBot and one for everybody.
pub const ROBOTS: &str =
    "User-agent: *\nDisallow: /private/\n\nUser-agent: SeznamBot\nDisallow: /cz/chat/\n";

/// A combined-format line.
pub fn line(client: &str, time: &str, request: &str, ua: &str) -> String {
    format!("{client} - - [{time}] \"{request}\" 200 512 \"-\" \"{ua}\"\n")
}

/// A SeznamBot fetch of `target` at second `second` of a fixed minute.
pub fn seznam_fetch(second: u32, target: &str) -> String {
    line(
        "77.75.77.123",
        &format!("30/Nov/2026:00:00:{second:02} +0100"),
        &format!("GET {target} HTTP/1.1"),
        SEZNAM_UA,
    )
}

pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write fixture");
    path
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

/// What a finished run left.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// The highest peak resident size seen in `/proc/PID/status`, in KiB.
    pub peak_rss_kib: u64,
    pub elapsed: Duration,
}

impl Run {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// The peak resident set size of a running process (`VmHWM`), in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Waits for a spawned binary, reading its output and sampling its memory,
/// and kills it past `limit`.
pub fn finish(mut child: Child, limit: Duration) -> Run {
    let started = Instant::now();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(rss) = peak_rss_kib(pid) {
            peak = peak.max(rss);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("robots-audit ran longer than {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    eprintln!("robots-audit: {status}, peak {peak} KiB, {elapsed:?}");
    Run {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned(),
        peak_rss_kib: peak,
        elapsed,
    }
}

/// A command for the binary with piped output and no input.
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Starts `command` told to stop at `step` of its report switch
/// (`ROBOTS_AUDIT_PAUSE_AT`, `report::atomic::pause_at`) and waits, at most
/// `wait`, until it says so on standard error: the child, and the line it
/// said (`None` when it did not in time). Standard error is piped to a
/// thread that reads it to the end, so the child never blocks on it.
pub fn spawn_paused(
    command: &mut Command,
    step: &str,
    wait: Duration,
) -> (std::process::Child, Option<String>) {
    use std::io::BufRead;
    let mut child = command
        .env("ROBOTS_AUDIT_PAUSE_AT", step)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn robots-audit");
    let stderr = child.stderr.take().expect("piped standard error");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("paused at") {
                let _ = tx.send(line);
            }
        }
    });
    (child, rx.recv_timeout(wait).ok())
}

/// Runs the binary to its end, within `limit`.
pub fn run_within(args: &[&str], limit: Duration) -> Run {
    finish(command(args).spawn().expect("spawn robots-audit"), limit)
}

/// Runs the binary to its end, within a minute.
pub fn run(args: &[&str]) -> Run {
    run_within(args, Duration::from_secs(60))
}

/// Parses CSV text into rows of fields.
pub fn rows(csv_text: &[u8]) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv_text)
        .byte_records()
        .map(|r| {
            r.expect("well-formed CSV")
                .iter()
                .map(|f| String::from_utf8(f.to_vec()).expect("CSV fields are UTF-8"))
                .collect()
        })
        .collect()
}

/// Path as `&str` for argument lists.
pub fn s(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Names of the entries of a directory, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The report files of an `--out` directory, sorted.
pub const REPORT_FILES: [&str; 7] = [
    "impostor-addresses.csv",
    "impostors.csv",
    "report.html",
    "rules.csv",
    "run.json",
    "summary.csv",
    "violations.csv",
];

/// An `--out` directory holds the reports and the tool's state folder, and
/// that folder nothing but the lock and at most one set with the link that
/// puts it in force: nothing a run left half made (SPEC §5).
pub fn assert_no_leftovers(out: &Path) {
    let mut want = vec![".robots-audit".to_string()];
    want.extend(REPORT_FILES.iter().map(|n| n.to_string()));
    assert_eq!(entries(out), want, "in {}", out.display());
    let state = out.join(".robots-audit");
    let names = entries(&state);
    let sets: Vec<&String> = names.iter().filter(|n| n.starts_with("set-")).collect();
    let others: Vec<&String> = names.iter().filter(|n| !n.starts_with("set-")).collect();
    match sets[..] {
        [] => assert_eq!(others, ["lock"], "in {}", state.display()),
        [set] => {
            assert_eq!(others, ["current", "lock"], "in {}", state.display());
            assert_eq!(
                std::fs::read_link(state.join("current")).expect("current"),
                Path::new(set)
            );
            for name in entries(&state.join(set)) {
                assert!(REPORT_FILES.contains(&name.as_str()), "{set}/{name}");
            }
        }
        _ => panic!("several sets in {}: {names:?}", state.display()),
    }
}
