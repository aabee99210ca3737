//! Memory within `--memory` (SPEC §5): fetches beyond it are sorted in runs
//! on disk and merged, and that never changes a byte of the reports; the
//! runs' folder is removed at the end, and after a `kill -9` by the next
//! run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::audit::{clf, combined, csv, rfc3339, robots_version};
use crate::support::hostile::spawn_paused;

const BIN: &str = env!("CARGO_BIN_EXE_robots-audit");

const ROBOTS: &str = "User-agent: SeznamBot\nDisallow: /cz/chat/\nAllow: /cz/chat/open\n\
                      Request-rate: 10/1m\nCrawl-delay: 1\n";

const REPORTS: [&str; 5] = [
    "violations.csv",
    "impostors.csv",
    "summary.csv",
    "rules.csv",
    "impostor-addresses.csv",
];

/// A little generator, so the log is the same every time.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

/// Three logs of crawler fetches with long targets, many repeated, times a
/// little out of order within and across files, impostors among them; and
/// the PTR map that names the genuine and the false addresses.
fn write_site(dir: &Path) -> Vec<String> {
    let mut random = Lcg(7);
    let padding = "p".repeat(240);
    let mut files = Vec::new();
    for file in 0..3 {
        let mut log = String::new();
        for i in 0..6000u32 {
            let t = i * 2 + u32::try_from(random.next(9)).unwrap();
            let impostor = random.next(10) == 0;
            let client = if impostor {
                format!("6.6.6.{}", random.next(30) + 1)
            } else {
                format!("77.75.77.{}", random.next(20) + 1)
            };
            let target = match random.next(4) {
                0 => format!("/cz/chat/open/{}", random.next(50)),
                1 => format!("/ok/{}", random.next(1000)),
                _ => format!("/cz/chat/{}/{padding}{file}", random.next(2500)),
            };
            log.push_str(&combined(
                &client,
                &clf(t),
                &format!("GET {target} HTTP/1.1"),
                200,
                "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
            ));
        }
        let name = format!("access-{file}.log");
        std::fs::write(dir.join(&name), log).unwrap();
        files.push(name);
    }
    let mut map = String::new();
    for n in 1..=20 {
        map.push_str(&format!(
            "77.75.77.{n} fulltextrobot-77-75-77-{n}.seznam.cz\n"
        ));
    }
    for n in 1..=30 {
        map.push_str(&format!("6.6.6.{n} host-{n}.example.net\n"));
    }
    std::fs::write(dir.join("ptr-map.txt"), map).unwrap();
    std::fs::write(dir.join("robots.txt"), ROBOTS).unwrap();
    files
}

fn audit(dir: &Path, tmp: &Path, logs: &[String], extra: &[&str]) -> std::process::Output {
    let mut command = Command::new(BIN);
    command.current_dir(dir).env("TMPDIR", tmp);
    for log in logs {
        command.args(["--log", log]);
    }
    command
        .args(["--robots", "robots.txt", "--ptr-map", "ptr-map.txt"])
        .args(extra)
        .output()
        .unwrap()
}

/// `run.json` without the arguments, which name the out dir and --memory.
fn run_json(out: &Path) -> serde_json::Value {
    let mut value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("arguments");
    value
}

fn spill_folders(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("robots-audit-spill-"))
        .collect()
}

#[test]
fn spilling_never_changes_a_byte_of_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let logs = write_site(dir.path());
    let runs = [
        ("1G", "2", "out-1g"),
        ("1M", "1", "out-1m-1"),
        ("1M", "2", "out-1m-2"),
    ];
    let mut outs = Vec::new();
    for (memory, threads, out) in runs {
        let output = audit(
            dir.path(),
            tmp.path(),
            &logs,
            &["--memory", memory, "--threads", threads, "--out", out],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{memory}: {stderr}");
        let spilled = stderr.contains("runs on disk to stay within --memory");
        assert_eq!(spilled, memory == "1M", "{memory}: {stderr}");
        assert_eq!(spill_folders(tmp.path()), Vec::<String>::new(), "{memory}");
        outs.push(dir.path().join(out));
    }
    let first = &outs[0];
    let violations = std::fs::read(first.join("violations.csv")).unwrap();
    assert!(violations.len() > 1_000_000, "a log that spills many runs");
    for out in &outs[1..] {
        for name in REPORTS {
            let want = std::fs::read(first.join(name)).unwrap();
            let got = std::fs::read(out.join(name)).unwrap();
            assert!(got == want, "{name} differs in {}", out.display());
        }
        assert_eq!(run_json(out), run_json(first));
    }
    // The counts are exact: every distinct target of the rows, counted by
    // a plain reading of violations.csv.
    let mut reader = csv::Reader::from_reader(&violations[..]);
    let mut targets =
        std::collections::BTreeMap::<(String, String), std::collections::BTreeSet<String>>::new();
    for row in reader.records() {
        let row = row.unwrap();
        targets
            .entry((row[4].to_string(), row[10].to_string()))
            .or_default()
            .insert(row[8].to_string());
    }
    let summary = std::fs::read_to_string(first.join("summary.csv")).unwrap();
    for line in summary.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let want = targets
            .get(&(cells[0].to_string(), cells[1].to_string()))
            .map_or(0, |t| t.len());
        assert_eq!(cells[4], want.to_string(), "{line}");
    }
}

/// A $TMPDIR that does not exist is the user's to fix: the run that must
/// spill says so (exit 2) and makes no folder there.
#[test]
fn a_missing_tmpdir_is_said_never_made() {
    let dir = tempfile::tempdir().unwrap();
    let logs = write_site(dir.path());
    let gone = dir.path().join("no-such-tmp");
    let output = audit(
        dir.path(),
        &gone,
        &logs,
        &["--memory", "1M", "--out", "out"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no such folder to spill sorted runs into"),
        "{stderr}"
    );
    assert!(stderr.contains("no-such-tmp"), "{stderr}");
    assert!(!gone.exists(), "the missing $TMPDIR was made");
}

/// An empty $TMPDIR is unset, as most tools read it: the runs spill into
/// /tmp, and the run is whole.
#[test]
fn an_empty_tmpdir_is_unset() {
    let dir = tempfile::tempdir().unwrap();
    let logs = write_site(dir.path());
    let output = audit(
        dir.path(),
        Path::new(""),
        &logs,
        &["--memory", "1M", "--out", "out"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("runs on disk to stay within --memory"),
        "{stderr}"
    );
}

#[test]
fn a_killed_runs_sorted_runs_are_removed_by_the_next_run() {
    killed_run_then_next(&[], "KILL");
}

/// With `--state`, the runs spill inside the state folder, not $TMPDIR.
#[test]
fn with_a_state_the_runs_spill_in_its_folder() {
    killed_run_then_next(&["--state", "state"], "KILL");
}

/// Ctrl-C or SIGTERM: the run removes its sorted runs itself on the way
/// out, without waiting for the next run.
#[test]
fn an_interrupted_run_removes_its_sorted_runs() {
    killed_run_then_next(&[], "TERM");
    killed_run_then_next(&["--state", "state"], "INT");
}

fn killed_run_then_next(extra: &[&str], signal: &str) {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let logs = write_site(dir.path());
    // Where the runs go: the state folder when there is one.
    let spill = if extra.is_empty() {
        tmp.path().to_path_buf()
    } else {
        dir.path().join("state")
    };
    let mut command = Command::new(BIN);
    command.current_dir(dir.path()).env("TMPDIR", tmp.path());
    for log in &logs {
        command.args(["--log", log]);
    }
    command
        .args(["--robots", "robots.txt", "--ptr-map", "ptr-map.txt"])
        .args(["--memory", "1M", "--out", "out"])
        .args(extra)
        .stdout(Stdio::null());
    let (mut child, paused) = spawn_paused(&mut command, "adopted", Duration::from_secs(120));
    assert!(paused.is_some());
    assert_eq!(spill_folders(&spill).len(), 1, "the runs are on disk");
    if !extra.is_empty() {
        assert_eq!(spill_folders(tmp.path()), Vec::<String>::new());
    }
    let _ = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    if signal == "KILL" {
        assert_eq!(spill_folders(&spill).len(), 1, "kill -9 leaves them");
    } else {
        assert_eq!(status.code(), Some(2), "{signal}");
        assert_eq!(spill_folders(&spill), Vec::<String>::new(), "{signal}");
    }

    let mut args = vec!["--memory", "1M", "--out", "out"];
    args.extend_from_slice(extra);
    let next = audit(dir.path(), tmp.path(), &logs, &args);
    assert_eq!(
        next.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert_eq!(spill_folders(&spill), Vec::<String>::new());
}

/// SPEC §5 `--memory` holds whatever the number of spoofing addresses:
/// with host names in the client field (Apache `HostnameLookups On`) an
/// attacker chooses a new name for every request. The addresses spill to
/// sorted runs and are merged and ranked from them, and that never changes
/// a byte of `impostor-addresses.csv`: each address once, its fetches
/// summed over the whole night, its first reason and name kept.
#[test]
fn spoofing_addresses_beyond_memory_spill_without_changing_a_byte() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut random = Lcg(11);
    let mut log = String::new();
    let mut fetches = std::collections::BTreeMap::<String, u64>::new();
    for i in 0..12_000u32 {
        // Most names once, a few hundred again and again all night.
        let host = if random.next(4) == 0 {
            format!("h{}.again.example.net", random.next(300))
        } else {
            format!("h{i}.{}.example.net", "a".repeat(40))
        };
        *fetches.entry(host.clone()).or_default() += 1;
        log.push_str(&combined(
            &host,
            &clf(i * 3),
            "GET /x HTTP/1.1",
            200,
            "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
        ));
    }
    std::fs::write(dir.path().join("access.log"), log).unwrap();
    std::fs::write(dir.path().join("ptr-map.txt"), "").unwrap();
    std::fs::write(dir.path().join("robots.txt"), ROBOTS).unwrap();
    let logs = vec!["access.log".to_string()];
    let mut outs = Vec::new();
    for (memory, out) in [("1G", "out-1g"), ("1M", "out-1m")] {
        let output = audit(
            dir.path(),
            tmp.path(),
            &logs,
            &["--memory", memory, "--out", out],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Impostors alone are no violation of robots.txt: exit 0.
        assert_eq!(output.status.code(), Some(0), "{memory}: {stderr}");
        assert_eq!(spill_folders(tmp.path()), Vec::<String>::new(), "{memory}");
        outs.push(dir.path().join(out));
    }
    for name in ["impostor-addresses.csv", "impostors.csv", "summary.csv"] {
        let want = std::fs::read(outs[0].join(name)).unwrap();
        let got = std::fs::read(outs[1].join(name)).unwrap();
        assert!(got == want, "{name} differs when spilled");
    }
    assert_eq!(run_json(&outs[1]), run_json(&outs[0]));
    // Every address once, with all its fetches, most first.
    let text = std::fs::read_to_string(outs[1].join("impostor-addresses.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut seen = std::collections::BTreeMap::<String, u64>::new();
    let mut last = u64::MAX;
    for row in reader.records() {
        let row = row.unwrap();
        let n: u64 = row[2].parse().unwrap();
        assert!(n <= last, "most fetches first: {row:?}");
        last = n;
        assert_eq!(&row[4], "ptr-mismatch");
        assert!(
            seen.insert(row[0].to_string(), n).is_none(),
            "{row:?} twice"
        );
    }
    assert_eq!(seen, fetches);
    let html = std::fs::read_to_string(outs[1].join("report.html")).unwrap();
    let more = format!("{} more addresses not shown here", fetches.len() - 100);
    assert!(html.contains(&more), "{more}");
}

/// A robots.txt outage is a rule of its own text (SPEC §6, §7: `robots.txt
/// unreachable: <status> at <time>`, one `rules.csv` row a text), so a
/// server that answers a crawler's `/robots.txt` with 503 now and then
/// makes as many rules as the log likes. Their rows spill to sorted runs
/// like the fetches, are totalled and ranked from them, and that never
/// changes a byte of the reports; `rules.csv` holds every rule, ranked
/// as SPEC §7 says, with exact counts.
#[test]
fn robots_txt_outages_beyond_memory_spill_without_changing_a_byte() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let agent =
        "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";
    let line = |second: u32, target: &str, status: u16| {
        combined(
            "77.75.77.1",
            &clf(second),
            &format!("GET {target} HTTP/1.1"),
            status,
            agent,
        )
    };
    let outages = 4000u32;
    let mut log = String::new();
    // Rule text, violations, first and last row's time, by outage.
    let mut want: Vec<(String, u32, u32, u32)> = Vec::new();
    for i in 0..outages {
        let t = 10 * i;
        log.push_str(&line(t, "/robots.txt", 503));
        let rows = 1 + i % 3;
        for j in 0..rows {
            log.push_str(&line(t + 1 + j, &format!("/page/{}/{j}", i % 7), 200));
        }
        want.push((
            format!("robots.txt unreachable: 503 at {}", rfc3339(t)),
            rows,
            t + 1,
            t + rows,
        ));
    }
    // Then robots.txt again, and a rule of a line broken most of all.
    let end = 10 * outages;
    log.push_str(&line(end, "/robots.txt", 200));
    for j in 0..5 {
        log.push_str(&line(end + 2 + 2 * j, &format!("/private/{j}"), 200));
    }
    std::fs::write(dir.path().join("access.log"), log).unwrap();
    // A run that can verify takes robots.txt's answers from verified
    // clients only (the README's "Nights and state").
    std::fs::write(
        dir.path().join("ptr-map.txt"),
        "77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("robots.txt"),
        "User-agent: *\nDisallow: /private\n",
    )
    .unwrap();
    let logs = vec!["access.log".to_string()];
    let mut outs = Vec::new();
    for (memory, threads, out) in [
        ("1G", "2", "out-1g"),
        ("1M", "1", "out-1m"),
        ("1M", "2", "out-1m-2"),
    ] {
        let state = format!("state-{out}");
        let output = audit(
            dir.path(),
            tmp.path(),
            &logs,
            &[
                "--memory",
                memory,
                "--threads",
                threads,
                "--state",
                &state,
                "--out",
                out,
            ],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{memory}: {stderr}");
        assert_eq!(spill_folders(tmp.path()), Vec::<String>::new(), "{memory}");
        outs.push(dir.path().join(out));
    }
    for out in &outs[1..] {
        for name in REPORTS.iter().chain(&["report.html"]) {
            let want = std::fs::read(outs[0].join(name)).unwrap();
            let got = std::fs::read(out.join(name)).unwrap();
            assert!(got == want, "{name} differs in {}", out.display());
        }
    }
    // Most violations first, ties by first_time (SPEC §7): the line's rule
    // of five rows, then the outages of three rows, two, one, each in
    // time order. Every target of an outage is its own.
    want.sort_by_key(|&(_, rows, first, _)| (std::cmp::Reverse(rows), first));
    let mut rows = vec![format!(
        "{},2,Disallow: /private,*,disallow,5,5,SeznamBot,{},{}",
        robots_version(b"User-agent: *\nDisallow: /private\n"),
        rfc3339(end + 2),
        rfc3339(end + 10)
    )];
    rows.extend(want.iter().map(|(rule, n, first, last)| {
        format!(
            ",,{rule},,disallow,{n},{n},SeznamBot,{},{}",
            rfc3339(*first),
            rfc3339(*last)
        )
    }));
    let text = std::fs::read_to_string(outs[1].join("rules.csv")).unwrap();
    assert!(
        text == csv(
            "robots_version,rule_line,rule,group,kind,violations,distinct_targets,crawlers,first_time,last_time",
            &rows
        ),
        "rules.csv is not as SPEC §7 ranks the rules; its first lines:\n{}",
        text.lines().take(8).collect::<Vec<_>>().join("\n")
    );
    let html = std::fs::read_to_string(outs[1].join("report.html")).unwrap();
    let more = format!("{} more rules not shown here", outages as usize + 1 - 50);
    assert!(html.contains(&more), "{more}");
}
