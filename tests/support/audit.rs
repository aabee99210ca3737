//! Shared by the `audit_*` integration tests, which name it `common`: takes
//! fixture files and the arguments of one audit, runs the real
//! `robots-audit` binary in a scratch directory, and gives its exit status
//! and whole outputs (SPEC §5), run at `--threads 1` and `--threads 4` and
//! checked to be identical.
//!
//! Below those, the shapes of logs and rows the rate, delay and disallow
//! cases share: `Log` writes one fetch a line, `Row` spells its row.
//!
//! The binary runs inside the scratch directory and is given relative
//! paths, so the `file` column holds short names that expected CSVs can
//! spell out.

// Each test file uses its own share of these helpers.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use flate2::Compression;
use flate2::write::GzEncoder;

/// SeznamBot's documented user agent.
pub const SEZNAM_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";
/// A FreshBot user agent.
pub const FRESH_UA: &str =
    "Mozilla/5.0 (compatible; FreshBot/1.0; +http://napoveda.seznam.cz/seznambot-intro/)";
/// A SeznamBot-test user agent (`SeznamBot/<version>-test…`).
pub const TEST_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/3.2-test4; +http://napoveda.seznam.cz/seznambot-intro/)";
/// A browser: no crawler's.
pub const BROWSER_UA: &str =
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// The columns of violations.csv but the last, `robots_version`, which
/// `Site::audit` checks on every row and takes off (see
/// `without_robots_version`).
pub const VIOLATIONS_HEADER: &str = "time,file,line,client,crawler,verification,identified_by,method,target,status,kind,group,rule_line,rule,detail,note";

/// SPEC §5 `robots_version`: the first 12 hex digits of the SHA-256 of the
/// robots.txt bytes, to the 500 KiB limit.
pub fn robots_version(robots: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(&robots[..robots.len().min(512_000)]);
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks that a violations.csv ends every record with the
/// `robots_version` column, holding the version of `robots` on every row
/// (one robots.txt, one version), and gives the file without it, so that
/// the cases can spell the other columns. Without `robots`, the column is
/// only checked to be last and present.
#[track_caller]
pub fn without_robots_version(violations: &[u8], robots: Option<&[u8]>) -> Vec<u8> {
    if violations.is_empty() {
        return Vec::new();
    }
    let want = robots.map(robots_version);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(violations);
    let mut writer = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for (index, record) in reader.byte_records().enumerate() {
        let record = record.expect("violations.csv reads as CSV");
        let last = record.get(record.len() - 1).unwrap_or_default();
        if index == 0 {
            assert_eq!(last, b"robots_version", "the last column of violations.csv");
        } else if let Some(want) = &want {
            assert_eq!(
                String::from_utf8_lossy(last),
                *want,
                "robots_version of row {index}"
            );
        }
        let kept: Vec<&[u8]> = record.iter().take(record.len() - 1).collect();
        writer.write_record(&kept).expect("a CSV record");
    }
    writer.into_inner().expect("CSV bytes")
}
pub const IMPOSTORS_HEADER: &str =
    "time,file,line,client,ptr,claimed_crawler,method,target,status,user_agent";
pub const SUMMARY_HEADER: &str =
    "crawler,kind,fetches,violations,distinct_targets,first_time,last_time";

/// The thread counts every audit is run at; the outputs must not differ.
pub const THREADS: [&str; 2] = ["1", "4"];

/// A file under `tests/data/audit/`.
pub fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/audit")
        .join(name)
}

/// The bytes of a file under `tests/data/audit/`.
pub fn data(name: &str) -> Vec<u8> {
    let path = data_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A file under `tests/data/audit/` as text.
pub fn data_text(name: &str) -> String {
    String::from_utf8(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One gzip member holding `text`.
pub fn gzip(text: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(text).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// What `gzip -dc` would give of `bytes` before it met damage: every byte
/// the inflater could produce from several members until an error. One
/// byte a read, so that the read that meets the damage holds no text that
/// came before it (a read's output is lost with its error).
pub fn gunzip_prefix(bytes: &[u8]) -> Vec<u8> {
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
    let mut out = Vec::new();
    let mut buf = [0u8; 1];
    loop {
        match decoder.read(&mut buf) {
            Ok(0) | Err(_) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// A `combined` log line (with its LF): `client - - [time] "request"
/// status 512 "-" "ua"`. Quotes inside `request` and `ua` must already be
/// escaped as the server would.
pub fn combined(client: &str, time: &str, request: &str, status: u16, ua: &str) -> String {
    format!("{client} - - [{time}] \"{request}\" {status} 512 \"-\" \"{ua}\"\n")
}

/// A SeznamBot fetch from 77.75.77.1 (unverified unless a test gives its
/// PTR) `seconds` after 2026-11-30T00:00:00Z.
pub fn seznambot_fetch(seconds: u32, target: &str, status: u16) -> String {
    combined(
        "77.75.77.1",
        &clf(seconds),
        &format!("GET {target} HTTP/1.1"),
        status,
        "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
    )
}

/// `30/Nov/2026:HH:MM:SS +0000` for a number of seconds after midnight
/// UTC, 2026-11-30 (may pass into the next days).
pub fn clf(seconds: u32) -> String {
    let (day, rest) = (30 + seconds / 86_400, seconds % 86_400);
    let (h, m, s) = (rest / 3600, rest / 60 % 60, rest % 60);
    if day == 30 {
        format!("30/Nov/2026:{h:02}:{m:02}:{s:02} +0000")
    } else {
        format!("{:02}/Dec/2026:{h:02}:{m:02}:{s:02} +0000", day - 30)
    }
}

/// The report's spelling of `clf(seconds)`: `2026-11-30THH:MM:SS+00:00`.
pub fn rfc3339(seconds: u32) -> String {
    let (day, rest) = (30 + seconds / 86_400, seconds % 86_400);
    let (h, m, s) = (rest / 3600, rest / 60 % 60, rest % 60);
    if day == 30 {
        format!("2026-11-30T{h:02}:{m:02}:{s:02}+00:00")
    } else {
        format!("2026-12-{:02}T{h:02}:{m:02}:{s:02}+00:00", day - 30)
    }
}

/// A whole CSV file: the header and the rows, each ending with LF.
pub fn csv<S: AsRef<str>>(header: &str, rows: &[S]) -> String {
    let mut text = String::from(header);
    text.push('\n');
    for row in rows {
        text.push_str(row.as_ref());
        text.push('\n');
    }
    text
}

/// Fails when `got` is not byte for byte `want`, showing the first line
/// that differs, and both texts whole when they are short.
#[track_caller]
pub fn assert_bytes(what: &str, got: &[u8], want: &[u8]) {
    if got == want {
        return;
    }
    let got_text = String::from_utf8_lossy(got);
    let want_text = String::from_utf8_lossy(want);
    let got_lines: Vec<&str> = got_text.split_inclusive('\n').collect();
    let want_lines: Vec<&str> = want_text.split_inclusive('\n').collect();
    let first = got_lines
        .iter()
        .zip(&want_lines)
        .position(|(g, w)| g != w)
        .unwrap_or(got_lines.len().min(want_lines.len()));
    let whole = if got.len() + want.len() < 8_000 {
        format!("\n--- got ---\n{got_text}--- want ---\n{want_text}---")
    } else {
        String::new()
    };
    panic!(
        "{what} differs at line {} ({} lines, {} wanted):\n  got:  {:?}\n  want: {:?}{whole}",
        first + 1,
        got_lines.len(),
        want_lines.len(),
        got_lines.get(first).unwrap_or(&""),
        want_lines.get(first).unwrap_or(&""),
    );
}

#[track_caller]
pub fn assert_text(what: &str, got: &[u8], want: &str) {
    assert_bytes(what, got, want.as_bytes());
}

/// How one run of the binary ended.
#[derive(Debug, Clone)]
pub struct Run {
    /// The exit status; -1 when killed by a signal.
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: output.stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// The outcome of an audit with `--out`: the three reports, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub code: i32,
    pub violations: Vec<u8>,
    pub impostors: Vec<u8>,
    pub summary: Vec<u8>,
    pub stderr: String,
}

impl Report {
    /// Checks the three reports byte for byte.
    #[track_caller]
    pub fn assert_reports(&self, violations: &str, impostors: &str, summary: &str) {
        assert_text("violations.csv", &self.violations, violations);
        assert_text("impostors.csv", &self.impostors, impostors);
        assert_text("summary.csv", &self.summary, summary);
    }

    #[track_caller]
    pub fn assert_code(&self, code: i32) {
        assert_eq!(self.code, code, "exit status; stderr:\n{}", self.stderr);
    }
}

/// A scratch directory holding one site's robots.txt, logs and PTR map;
/// the binary runs inside it.
pub struct Site {
    dir: tempfile::TempDir,
}

impl Default for Site {
    fn default() -> Site {
        Site::new()
    }
}

impl Site {
    pub fn new() -> Site {
        Site {
            dir: tempfile::tempdir().expect("a scratch directory"),
        }
    }

    /// Adds a file (builder form).
    /// Sets the modification time of file `name` to `secs` after the
    /// epoch (a robots.txt is in force from it).
    pub fn set_mtime(&self, name: &str, secs: u64) {
        std::fs::File::options()
            .write(true)
            .open(self.path(name))
            .expect("the file is there")
            .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
            .expect("the time is set");
    }

    pub fn with(self, name: &str, contents: impl AsRef<[u8]>) -> Site {
        self.write(name, contents);
        self
    }

    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a fixture directory");
        }
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The binary's command with `args`, run in the site's folder, for a
    /// test that drives the process itself.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_robots-audit"));
        command.current_dir(self.dir.path()).args(args);
        command
    }

    /// Runs the binary once with exactly `args`.
    pub fn run(&self, args: &[&str]) -> Run {
        self.command(args)
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs")
            .into()
    }

    /// Runs the binary once with `stdin` on standard input.
    pub fn run_with_stdin(&self, args: &[&str], stdin: &[u8]) -> Run {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut pipe = child.stdin.take().expect("a stdin pipe");
        let input = stdin.to_vec();
        // Write from a thread so a full stdout pipe cannot deadlock us.
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
        let output = child.wait_with_output().expect("the binary ends");
        let _ = writer.join();
        output.into()
    }

    /// Runs an audit with `--out` at every count of `THREADS`, checks that
    /// the outputs and the exit status do not depend on it, that nothing
    /// went to standard output and that the out directory holds the three
    /// reports and nothing else; gives the outcome.
    #[track_caller]
    pub fn audit(&self, args: &[&str]) -> Report {
        self.audit_with(args, None)
    }

    /// As `audit`, with `stdin` on standard input.
    #[track_caller]
    pub fn audit_stdin(&self, args: &[&str], stdin: &[u8]) -> Report {
        self.audit_with(args, Some(stdin))
    }

    #[track_caller]
    fn audit_with(&self, args: &[&str], stdin: Option<&[u8]>) -> Report {
        let mut reports: Vec<Report> = Vec::new();
        for threads in THREADS {
            let out = format!("out-{threads}");
            let out_path = self.path(&out);
            let _ = std::fs::remove_dir_all(&out_path);
            std::fs::create_dir_all(&out_path).expect("an out directory");
            let mut full: Vec<&str> = args.to_vec();
            full.extend(["--out", &out, "--threads", threads]);
            let run = match stdin {
                Some(bytes) => self.run_with_stdin(&full, bytes),
                None => self.run(&full),
            };
            assert!(
                run.stdout.is_empty(),
                "with --out nothing goes to standard output, got:\n{}",
                String::from_utf8_lossy(&run.stdout)
            );
            let mut names: Vec<String> = std::fs::read_dir(&out_path)
                .expect("the out directory")
                .map(|e| {
                    e.expect("a directory entry")
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            names.sort();
            let read = |name: &str| std::fs::read(out_path.join(name)).unwrap_or_default();
            let robots = args
                .iter()
                .position(|a| *a == "--robots")
                .and_then(|i| args.get(i + 1))
                .map(|name| std::fs::read(self.path(name)).unwrap_or_default());
            let report = Report {
                code: run.code,
                violations: without_robots_version(&read("violations.csv"), robots.as_deref()),
                impostors: read("impostors.csv"),
                summary: read("summary.csv"),
                stderr: run.stderr,
            };
            if report.code != 2 {
                assert_eq!(
                    names,
                    [
                        ".robots-audit",
                        "impostor-addresses.csv",
                        "impostors.csv",
                        "report.html",
                        "rules.csv",
                        "run.json",
                        "summary.csv",
                        "violations.csv"
                    ],
                    "the out directory; stderr:\n{}",
                    report.stderr
                );
            }
            reports.push(report);
        }
        let first = reports.remove(0);
        for (other, threads) in reports.iter().zip(&THREADS[1..]) {
            assert_eq!(
                other.code, first.code,
                "exit status at --threads {threads} and 1"
            );
            assert_bytes(
                &format!("violations.csv at --threads {threads} against 1"),
                &other.violations,
                &first.violations,
            );
            assert_bytes(
                &format!("impostors.csv at --threads {threads} against 1"),
                &other.impostors,
                &first.impostors,
            );
            assert_bytes(
                &format!("summary.csv at --threads {threads} against 1"),
                &other.summary,
                &first.summary,
            );
            assert_eq!(
                other.stderr, first.stderr,
                "standard error at --threads {threads} and 1"
            );
        }
        first
    }
}

// Logs and rows of the rate, delay and disallow cases.

/// The client of most cases: SeznamBot by user agent, with no PTR name, so
/// its fetches are `unverified` and `identified_by` `ua`.
pub const GENUINE: &str = "77.75.77.1";

/// A PTR map naming `GENUINE` as SeznamBot's host: its fetches are
/// `ptr-only`, its fetches of /robots.txt its own.
pub const GENUINE_PTR_MAP: &str = "77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\n";

/// A log being written: each fetch is the next line.
#[derive(Default)]
pub struct Log {
    pub text: String,
    pub lines: u32,
}

impl Log {
    /// Adds a fetch of `/page/<line>` at `time` (CLF); gives its line.
    pub fn fetch(&mut self, client: &str, time: &str, ua: &str) -> u32 {
        self.lines += 1;
        let request = format!("GET /page/{} HTTP/1.1", self.lines);
        self.text
            .push_str(&combined(client, time, &request, 200, ua));
        self.lines
    }

    /// SeznamBot from the genuine address at `t` seconds after midnight UTC.
    pub fn at(&mut self, t: u32) -> u32 {
        self.fetch(GENUINE, &clf(t), SEZNAM_UA)
    }
}

/// A row of a fetch made by `Log::fetch` from the genuine address.
pub struct Row<'a> {
    pub time: String,
    pub line: u32,
    pub crawler: &'a str,
    pub kind: &'a str,
    pub group: &'a str,
    pub rule: (u32, &'a str),
    pub detail: String,
}

impl Row<'_> {
    /// The row as violations.csv writes it, for a log named `file`. Every
    /// crawler of these rows is one of Seznam's, which do not read
    /// Crawl-delay: its rows carry the note `not-read-by-crawler` (SPEC §3).
    pub fn text(&self, file: &str) -> String {
        let note = if self.kind == "crawl-delay" {
            "not-read-by-crawler"
        } else {
            ""
        };
        format!(
            "{},{file},{},{GENUINE},{},unverified,ua,GET,/page/{},200,{},{},{},{},{},{note}",
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

/// A whole violations.csv of `rows` from `access.log`.
pub fn violations(rows: &[Row<'_>]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| r.text("access.log")).collect();
    csv(VIOLATIONS_HEADER, &rows)
}

/// `n fetches in T s; allowed written`.
pub fn rate_detail(n: u32, period: u32, written: &str) -> String {
    format!("{n} fetches in {period} s; allowed {written}")
}

/// `gap s after the previous fetch; allowed every D s`.
pub fn delay_detail(gap: u32, delay: &str) -> String {
    format!("{gap} s after the previous fetch; allowed every {delay} s")
}

/// Audits `log` as `access.log` against `robots` with `extra` arguments.
pub fn audit_log(robots: &str, log: &Log, extra: &[&str]) -> Report {
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", &log.text);
    let mut args = vec!["--log", "access.log", "--robots", "robots.txt"];
    args.extend(extra);
    site.audit(&args)
}

/// The lines of the rows in a violations.csv.
pub fn row_lines(report: &Report) -> Vec<u32> {
    String::from_utf8_lossy(&report.violations)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect()
}

/// A log of SeznamBot fetches from one address, one a second from `start`.
pub fn fetches(start: u32, ua: &str, paths: &[&str]) -> String {
    paths
        .iter()
        .zip(start..)
        .map(|(path, t)| combined(GENUINE, &clf(t), &format!("GET {path} HTTP/1.1"), 200, ua))
        .collect()
}

/// Audits `log` as `access.log` against `robots`.
pub fn audit_text(robots: &str, log: &str) -> Report {
    Site::new()
        .with("robots.txt", robots)
        .with("access.log", log)
        .audit(&["--log", "access.log", "--robots", "robots.txt"])
}
