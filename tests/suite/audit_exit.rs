//! The audit's exit status and where its reports go (SPEC §5): exit 0,
//! 1 and 2, bad arguments, the `--out` directory, and the `file` column as
//! given on the command line.

use crate::support::audit as common;

use common::{
    BROWSER_UA, IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, VIOLATIONS_HEADER, audit_text,
    clf, combined, csv, fetches, rfc3339,
};

#[test]
fn exit_0_when_nothing_was_broken() {
    let robots = "User-agent: SeznamBot\nDisallow: /private/\n";
    let log = [
        fetches(1, SEZNAM_UA, &["/", "/public"]),
        combined(
            "198.51.100.7",
            &clf(9),
            "GET /private/x HTTP/1.1",
            200,
            BROWSER_UA,
        ),
    ]
    .concat();
    let report = audit_text(robots, &log);
    report.assert_code(0);
    let summary = csv(
        SUMMARY_HEADER,
        &[
            "SeznamBot,crawl-delay,2,0,0,,",
            "SeznamBot,disallow,2,0,0,,",
            "SeznamBot,request-rate,2,0,0,,",
        ],
    );
    report.assert_reports(
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &summary,
    );
}

#[test]
fn a_log_without_crawlers_gives_headers_only() {
    let log = combined("198.51.100.7", &clf(1), "GET / HTTP/1.1", 200, BROWSER_UA);
    let report = audit_text("User-agent: *\nDisallow: /\n", &log);
    report.assert_code(0);
    report.assert_reports(
        &csv::<&str>(VIOLATIONS_HEADER, &[]),
        &csv::<&str>(IMPOSTORS_HEADER, &[]),
        &csv::<&str>(SUMMARY_HEADER, &[]),
    );
}

#[test]
fn a_missing_robots_txt_exits_2() {
    let site = Site::new().with("access.log", fetches(1, SEZNAM_UA, &["/"]));
    let run = site.run(&["--log", "access.log", "--robots", "missing-robots.txt"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("missing-robots.txt"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn bad_arguments_exit_2() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/"]));
    let base = ["--log", "access.log", "--robots", "robots.txt"];
    let cases: &[&[&str]] = &[
        &["--robots", "robots.txt"],
        &["--log", "access.log"],
        &["--threads", "0"],
        &["--threads", "many"],
        // IANA names are zones now; one that names none is still refused.
        &["--window-tz", "Europe/Atlantis"],
        &["--window-tz", "+2500"],
        &["--log-tz", "Europe/Atlantis"],
        &["--log-tz", "+01"],
        &["--trusted-proxy", "cdn.example"],
        &["--trusted-proxy", "10.0.0.0/33"],
        &["--since", "yesterday"],
        &["--until", "2026-13-01"],
        &["--rate-by", "address"],
        &["--log-format", "%h %J \"%r\""],
        &["--log-format", "$remote_addr \"$request\""],
        &["--ptr-map", "missing-map.txt"],
        &["--frobnicate"],
        // An empty or reversed period would audit nothing: never a clean night.
        &["--since", "2026-11-30", "--until", "2026-11-30"],
        &[
            "--since",
            "2026-11-30T01:00:00+01:00",
            "--until",
            "2026-11-30T00:00:00Z",
        ],
        &["--since", "2026-12-01", "--until", "2026-11-30"],
    ];
    for (index, extra) in cases.iter().enumerate() {
        let args: Vec<&str> = if index < 2 {
            extra.to_vec()
        } else {
            base.iter().chain(extra.iter()).copied().collect()
        };
        let run = site.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.is_empty(), "{args:?} says why");
        assert!(run.stdout.is_empty(), "{args:?} writes no report");
    }
}

#[test]
fn an_unwritable_out_directory_exits_2() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]));
    // A directory cannot be made under a regular file.
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "access.log/reports",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("access.log/reports"), "{}", run.stderr);
}

/// Standard output open for reading only (`1<file`): every write of the
/// rows fails with EBADF, which must be no clean night or a night whose
/// rows were given: exit 2 naming standard output, and the state not
/// saved, so that the next run reports those rows.
#[test]
fn standard_output_that_cannot_be_written_exits_2_and_saves_no_state() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]))
        .with("read-only.txt", "x\n");
    let stdout = std::fs::File::open(site.path("read-only.txt")).unwrap();
    let output = site
        .command(&[
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--state",
            "state",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write: -"), "{stderr}");
    assert!(!site.path("state/state.json").exists(), "{stderr}");
}

#[test]
fn a_missing_out_directory_is_made() {
    // As the README's getting started runs it: `--out samples-report`.
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]));
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "reports/2026-11-30",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for name in ["violations.csv", "impostors.csv", "summary.csv"] {
        assert!(
            site.path("reports/2026-11-30").join(name).is_file(),
            "{name}"
        );
    }
}

#[test]
fn reports_replace_old_ones_whole() {
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]))
        .with("out/violations.csv", "stale\n")
        .with("out/summary.csv", "stale\n");
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let mut names: Vec<String> = std::fs::read_dir(site.path("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
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
        ]
    );
    let violations = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert!(violations.starts_with(VIOLATIONS_HEADER), "{violations}");
    assert_eq!(violations.lines().count(), 2);
}

#[test]
fn the_file_column_holds_the_path_as_given() {
    let site = Site::new()
        .with("robots.txt", "User-agent: SeznamBot\nDisallow: /\n")
        .with("logs/2026-11-30/access.log", fetches(1, SEZNAM_UA, &["/x"]));
    let report = site.audit(&[
        "--log",
        "./logs/2026-11-30/access.log",
        "--robots",
        "robots.txt",
    ]);
    common::assert_text(
        "violations.csv",
        &report.violations,
        &csv(
            VIOLATIONS_HEADER,
            &[format!(
                "{},./logs/2026-11-30/access.log,1,77.75.77.1,SeznamBot,unverified,ua,GET,/x,200,disallow,SeznamBot,2,Disallow: /,,",
                rfc3339(1)
            )],
        ),
    );
}

#[test]
fn a_log_in_which_no_line_parsed_exits_2_and_the_others_are_reported() {
    let site = Site::new()
        .with("robots.txt", "User-agent: SeznamBot\nDisallow: /\n")
        .with("good.log", fetches(1, SEZNAM_UA, &["/x"]))
        .with("garbage.log", "<html>not a log</html>\n\x00\x01\x02\n")
        .with("empty.log", "")
        .with("blank.log", "\n\n");
    let want = csv(
        VIOLATIONS_HEADER,
        &[format!(
            "{},good.log,1,77.75.77.1,SeznamBot,unverified,ua,GET,/x,200,disallow,SeznamBot,2,Disallow: /,,",
            rfc3339(1)
        )],
    );
    for quiet in [false, true] {
        let mut args = vec!["--log", "garbage.log", "--log", "good.log", "--robots"];
        args.push("robots.txt");
        args.extend(["--log", "empty.log", "--log", "blank.log"]);
        if quiet {
            args.push("--quiet");
        }
        let report = site.audit(&args);
        report.assert_code(2);
        common::assert_text("violations.csv", &report.violations, &want);
        let said = |needle: &str| {
            report
                .stderr
                .lines()
                .any(|l| l.contains(needle) && l.contains("no line parsed"))
        };
        assert!(said("garbage.log"), "quiet {quiet}: {}", report.stderr);
        assert!(!said("good.log"), "quiet {quiet}: {}", report.stderr);
        for empty in ["empty.log", "blank.log"] {
            assert!(
                report
                    .stderr
                    .lines()
                    .any(|l| l.contains(empty) && l.contains("empty")),
                "quiet {quiet}: {}",
                report.stderr
            );
        }
    }
}

#[test]
fn a_log_given_twice_exits_2_and_is_never_read_twice() {
    let site = Site::new()
        .with("robots.txt", "User-agent: SeznamBot\nDisallow: /\n")
        .with("access.log", fetches(1, SEZNAM_UA, &["/x"]))
        .with("other.log", fetches(2, SEZNAM_UA, &["/y"]));
    std::os::unix::fs::symlink("access.log", site.path("link.log")).unwrap();
    std::fs::hard_link(site.path("access.log"), site.path("hard.log")).unwrap();
    let base = ["--robots", "robots.txt", "--log", "other.log"];
    let cases: &[&[&str]] = &[
        &["--log", "access.log", "--log", "access.log"],
        &["--log", "access.log", "--log", "./access.log"],
        &["--log", "access.log", "--log", "link.log"],
        &["--log", "hard.log", "--log", "access.log"],
        &["--log", "access.log", "link.log"],
        &["--log", "-", "--log", "-"],
        // Standard input is the same file as a log named on the line.
        &["--log", "-", "--log", "access.log"],
    ];
    for extra in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let stdin = std::fs::File::open(site.path("access.log")).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_robots-audit"))
            .current_dir(site.path("."))
            .args(&args)
            .stdin(stdin)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("a log is read once"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?} writes no report");
    }
    // Two different files stay fine.
    let run = site.run(&["--robots", "robots.txt", "--log", "access.log", "other.log"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}
