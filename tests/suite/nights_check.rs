//! `check --at TIME` over robots.txt versions (SPEC §6): from a history
//! folder, from `--robots` dated by `--robots-since`, and from a state
//! folder; and the new flags refused with exit 2 and a clear message.

use std::fs;
use std::process::Command;
use std::time::Duration;

use robots_audit::robots::matcher::version_of;
use robots_audit::robots::versions::Versions;
use robots_audit::state::{State, StateDir};

const V1: &str = "User-agent: *\nDisallow: /a\n";
const V2: &str = "User-agent: *\nDisallow: /a\nDisallow: /b\n";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .args(args)
        .output()
        .expect("run robots-audit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A history of two versions: V1 from 29 Nov, V2 from 30 Nov 12:00 +01:00.
fn history() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("2026-11-29T00:00:00+01:00.txt"), V1).unwrap();
    fs::write(dir.path().join("20261130T110000Z.txt"), V2).unwrap();
    fs::write(dir.path().join("README"), "copies from the web server").unwrap();
    dir
}

#[test]
fn at_a_moment_the_version_then_in_force_answers_and_says_why() {
    let dir = history();
    let h = dir.path().to_str().unwrap();
    let v1 = version_of(V1.as_bytes());
    let v2 = version_of(V2.as_bytes());
    // (at, exit status, the version's two lines)
    let cases = [
        (
            "2026-11-30T11:59:59+01:00",
            0,
            format!(
                "robots.txt at 2026-11-30T11:59:59+01:00: version {v1}, in force from \
                 2026-11-29T00:00:00+01:00 until 2026-11-30T11:00:00+00:00\n  why: the only \
                 one of 2 versions that came into force at or before that time; from \
                 --robots-history {h}/2026-11-29T00:00:00+01:00.txt\n"
            ),
        ),
        (
            "2026-11-30T12:00:00+01:00",
            1,
            format!(
                "robots.txt at 2026-11-30T12:00:00+01:00: version {v2}, in force from \
                 2026-11-30T11:00:00+00:00\n  why: the latest of 2 versions, all in force at \
                 or before that time; from --robots-history {h}/20261130T110000Z.txt\n"
            ),
        ),
        (
            "2026-01-01",
            0,
            format!(
                "robots.txt at 2026-01-01T00:00:00+00:00: version {v1}, in force from \
                 2026-11-29T00:00:00+01:00 until 2026-11-30T11:00:00+00:00\n  why: before the \
                 oldest version known, which is taken to be in force before its time; from \
                 --robots-history {h}/2026-11-29T00:00:00+01:00.txt\n"
            ),
        ),
    ];
    for (at, code, header) in cases {
        let (got_code, stdout, stderr) = run(&["check", "--robots-history", h, "--at", at, "/b"]);
        assert_eq!(got_code, code, "{at}: {stderr}");
        assert!(
            stdout.starts_with(&header),
            "{at}:\n{stdout}\nwanted:\n{header}"
        );
        let verdict = if code == 1 {
            "DISALLOWED  /b"
        } else {
            "allowed     /b"
        };
        assert!(stdout.contains(verdict), "{at}: {stdout}");
    }
}

#[test]
fn robots_since_dates_the_file_and_one_version_holds_for_all_time() {
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    fs::write(&robots, V2).unwrap();
    let robots = robots.to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "check",
        "--robots",
        robots,
        "--robots-since",
        "2026-11-30T12:00:00+01:00",
        "--at",
        "2020-01-01",
        "--format",
        "json",
        "/b",
    ]);
    assert_eq!(code, 1, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["at"], "2020-01-01T00:00:00+00:00");
    assert_eq!(value["robots_version"], &*version_of(V2.as_bytes()));
    assert_eq!(value["in_force_from"], "2026-11-30T12:00:00+01:00");
    assert_eq!(value["until"], serde_json::Value::Null);
    assert_eq!(
        value["why"],
        format!(
            "the only version known, in force for all time; from --robots {robots} \
             (--robots-since)"
        )
    );
    assert_eq!(value["results"][0]["allowed"], false);
}

#[test]
fn the_versions_kept_in_a_state_answer_too() {
    let dir = history();
    let versions = Versions::gather(
        &robots_audit::config::RobotsSources {
            history: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
        Vec::new(),
    )
    .unwrap();
    let state_dir = tempfile::tempdir().unwrap();
    let store = StateDir::lock(state_dir.path(), Duration::ZERO, None).unwrap();
    let mut state = State::default();
    state.remember_versions(&versions);
    store.save(&state).unwrap();
    drop(store);
    let s = state_dir.path().to_str().unwrap();
    let (code, stdout, stderr) =
        run(&["check", "--state", s, "--at", "2026-11-30T06:00:00Z", "/b"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "robots.txt at 2026-11-30T06:00:00+00:00: version {}",
            version_of(V1.as_bytes())
        )),
        "{stdout}"
    );
    assert!(stdout.contains("from --state "), "{stdout}");
    // Without --at: the latest version.
    let (code, stdout, _) = run(&["check", "--state", s, "/b"]);
    assert_eq!(code, 1);
    assert!(stdout.starts_with("robots.txt: version "), "{stdout}");
    // check reads the state without making or locking anything.
    let mut names: Vec<String> = fs::read_dir(state_dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec![".robots-audit", "robots", "state.json"]);
}

#[test]
fn a_state_of_a_later_format_is_refused_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    fs::write(&path, "{\"format\": 99}").unwrap();
    let (code, _, stderr) = run(&["check", "--state", dir.path().to_str().unwrap(), "/"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("later version"), "{stderr}");
    assert!(stderr.contains(path.to_str().unwrap()), "{stderr}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"format\": 99}");
}

#[test]
fn bad_values_exit_2_naming_the_flag_or_file() {
    let dir = history();
    let h = dir.path().to_str().unwrap();
    fs::write(dir.path().join("yesterday.txt"), V1).unwrap();
    let log = dir.path().join("README");
    let log = log.to_str().unwrap();
    let robots = dir.path().join("2026-11-29T00:00:00+01:00.txt");
    let robots = robots.to_str().unwrap();
    // (arguments, words standard error must hold)
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["check", "--robots-history", h, "/"], "yesterday.txt"),
        (vec!["check", "/"], "--robots-history"),
        (
            vec!["check", "--robots", robots, "--at", "noon", "/"],
            "--at",
        ),
        (
            vec![
                "check",
                "--robots-since",
                "2026-11-29",
                "--robots-history",
                h,
                "/",
            ],
            "--robots-since",
        ),
        (
            vec!["--log", log, "--robots", robots, "--robots-grace", "24"],
            "--robots-grace",
        ),
        (
            vec!["--log", log, "--robots", robots, "--robots-grace=-1h"],
            "--robots-grace",
        ),
        (
            vec!["--log", log, "--robots", robots, "--state-days", "0"],
            "--state-days",
        ),
        (
            vec!["--log", log, "--robots", robots, "--robots-since", "soon"],
            "--robots-since",
        ),
        (vec!["--log", log], "--robots FILE is required"),
        // The audit reads its versions from the history alone, and names
        // a file there that is no time.
        (
            vec!["--log", log, "--robots-history", h],
            "a --robots-history file is named by the time",
        ),
    ];
    for (args, words) in cases {
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
    }
}
