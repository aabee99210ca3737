//! The audit's exit status and where its reports go (SPEC §5): exit 0,
//! 1 and 2, bad arguments, the `--out` directory, and the `file` column as
//! given on the command line.

mod common;

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
        &["--window-tz", "Europe/Prague"],
        &["--window-tz", "+2500"],
        &["--since", "yesterday"],
        &["--until", "2026-13-01"],
        &["--rate-by", "address"],
        &["--log-format", "%h %J \"%r\""],
        &["--log-format", "$remote_addr \"$request\""],
        &["--ptr-map", "missing-map.txt"],
        &["--frobnicate"],
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

#[test]
fn a_missing_out_directory_is_made() {
    // As the README's quick start runs it: `--out samples-report`.
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
            "impostors.csv",
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
