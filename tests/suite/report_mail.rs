//! `robots-audit summary DIR`, the text the nightly cron mails: read from
//! the reports an audit wrote, whole and exactly; a directory without
//! reports is exit 2; text a `--raw-csv` report holds raw is shown without
//! its controls.

use crate::support::audit as common;

use common::{GENUINE_PTR_MAP, SEZNAM_UA, Site, clf, combined, robots_version};

const ROBOTS: &str = "User-agent: *\nDisallow: /private/\n";

/// When ROBOTS came into force: 2026-11-29T12:00:00Z.
const NOON: u64 = 1_795_953_600;

fn site(impostor_ptr: &str) -> Site {
    let log = [
        combined(
            "77.75.77.1",
            &clf(1),
            "GET /private/a HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            &clf(2),
            "GET /private/b HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined("77.75.77.1", &clf(3), "GET /ok HTTP/1.1", 200, SEZNAM_UA),
        combined(
            "203.0.113.9",
            &clf(4),
            "GET /private/z HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "203.0.113.9",
            &clf(5),
            "GET /private/y HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        "garbage\n".to_string(),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", log)
        .with(
            "ptr-map.txt",
            format!("77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\n203.0.113.9 {impostor_ptr}\n"),
        );
    site.set_mtime("robots.txt", NOON);
    site
}

fn audit(site: &Site, extra: &[&str]) {
    audit_into(site, "out", extra);
}

fn audit_into(site: &Site, out: &str, extra: &[&str]) {
    let mut args = vec![
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--out",
        out,
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let run = site.run(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

#[test]
fn the_summary_says_the_verdict_rules_impostors_health_and_where_the_page_is() {
    let site = site("evil.example.com");
    audit(&site, &[]);
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let dir = std::fs::canonicalize(site.path("out")).unwrap();
    let want = format!(
        "robots-audit 2026-11-30T00:00:01+00:00 to 2026-11-30T00:00:05+00:00: violations found (exit 1)\n\
         \n\
         Verdict per crawler\n\
         \x20 SeznamBot: 3 fetches, 2 violations (disallow 2)\n\
         \x20 impostor fetches: 2 from 1 addresses\n\
         \n\
         Rules broken most\n\
         \x20      2  line 2: Disallow: /private/  (disallow; 2 distinct targets; SeznamBot)\n\
         \n\
         Impostor addresses (block these)\n\
         \x20 203.0.113.9  2 fetches claiming SeznamBot, ptr-mismatch (evil.example.com)\n\
         \n\
         Health\n\
         \x20 access.log (combined): 6 lines read, 1 skipped (line ends early 1)\n\
         \x20 DNS: not asked (no --resolve)\n\
         \x20 robots.txt {}, the only version, so in force all night (dated 2026-11-29T12:00:00+00:00)\n\
         \n\
         The whole report: {}\n",
        robots_version(ROBOTS.as_bytes()),
        dir.join("report.html").display()
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);
    assert!(dir.join("report.html").exists());
}

#[test]
fn a_raw_report_is_summarised_without_its_controls() {
    let site = site("evil\u{1b}[31m\u{202E}.example.com");
    audit(&site, &["--raw-csv"]);
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(
        text.contains("(evil\\u{001B}[31m\\u{202E}.example.com)"),
        "{text}"
    );
    assert!(!text.contains(['\u{1b}', '\u{202E}']));
}

/// A `--raw-csv` report writes log bytes as they were, which need not be
/// UTF-8: the mail shows such a byte as `\xNN` where it had refused the
/// whole set (exit 2 for a night the audit wrote). The folder's name, the
/// operator's, reaches the terminal without its controls too.
#[test]
fn a_raw_report_of_bytes_outside_utf8_is_summarised() {
    let site = site("placeholder.example.com");
    std::fs::write(
        site.path("ptr-map.txt"),
        b"77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\n203.0.113.9 evil\xff.example.com\n",
    )
    .unwrap();
    let out = "o\u{1b}[31m";
    audit_into(&site, out, &["--raw-csv"]);
    let run = site.run(&["summary", out]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.contains("(evil\\xFF.example.com)"), "{text}");
    assert!(text.contains("o\\u{001B}[31m/report.html"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
}

/// A report that is a FIFO or a device is refused at once, never waited
/// on or read without end.
#[test]
fn a_report_that_is_no_regular_file_is_exit_2_at_once() {
    let site = site("evil.example.com");
    audit(&site, &[]);
    for (name, what) in [("run.json", "/dev/zero"), ("rules.csv", "/dev/zero")] {
        let path = site.path(&format!("out/{name}"));
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(what, &path).unwrap();
        let run = site.run(&["summary", "out"]);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
        std::fs::remove_file(&path).unwrap();
        audit(&site, &[]);
    }
    let fifo = site.path("out/run.json");
    std::fs::remove_file(&fifo).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("a FIFO"), "{}", run.stderr);
}

#[test]
fn a_directory_without_reports_is_exit_2_naming_the_file() {
    let site = Site::new().with("empty/.keep", "");
    let run = site.run(&["summary", "empty"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("empty/run.json"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn rules_whose_rows_only_inform_are_listed_apart_from_the_rules_broken() {
    // Seznam reads no Crawl-delay: its rows inform and accuse nobody.
    let robots = "User-agent: *\nDisallow: /private/\nCrawl-delay: 10\n";
    let site = site("evil.example.com");
    site.write("robots.txt", robots);
    site.set_mtime("robots.txt", NOON);
    audit(&site, &[]);
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(run.stdout).unwrap();
    let broken = text.find("Rules broken most\n").expect("broken rules");
    let informing = text
        .find("Rules whose rows only inform (no accusation)\n")
        .expect("informing rules");
    let delay = text
        .find("line 3: Crawl-delay: 10")
        .expect("the delay rule");
    let disallow = text.find("line 2: Disallow: /private/").expect("the rule");
    assert!(
        broken < disallow && disallow < informing && informing < delay,
        "{text}"
    );
}

/// A rule whose rows mostly inform (Seznam's home page under
/// `Disallow: /`) is ranked, in the mail and on the page, by the rows of
/// it that accuse: informing rows are no violations (SPEC §7).
#[test]
fn rules_are_ranked_by_the_rows_that_accuse() {
    let site = site("evil.example.com");
    let mut log = String::new();
    for i in 0..60 {
        log.push_str(&combined(
            "77.75.77.1",
            &clf(i),
            "GET / HTTP/1.1",
            200,
            SEZNAM_UA,
        ));
    }
    log.push_str(&combined(
        "77.75.77.1",
        &clf(60),
        "GET /a HTTP/1.1",
        200,
        SEZNAM_UA,
    ));
    for i in 1..=5 {
        let request = format!("GET /kk{i} HTTP/1.1");
        log.push_str(&combined(
            "77.75.77.1",
            &clf(60 + i),
            &request,
            200,
            SEZNAM_UA,
        ));
    }
    site.write("access.log", &log);
    site.write("robots.txt", "User-agent: *\nDisallow: /\nDisallow: /k\n");
    site.set_mtime("robots.txt", NOON);
    audit(&site, &[]);
    let run = site.run(&["summary", "out"]);
    let text = String::from_utf8(run.stdout).unwrap();
    let k = text
        .find("     5  line 3: Disallow: /k  (disallow;")
        .expect("line 3 with its 5 rows");
    let all = text
        .find("     1  line 2: Disallow: /  (disallow; 2 distinct targets in all its rows; SeznamBot; and 60 informing rows)")
        .expect("line 2 with its 1 accusing row");
    assert!(k < all, "{text}");
    let page = std::fs::read_to_string(site.path("out/report.html")).unwrap();
    let table = &page[page.find("id=\"rules-table\"").expect("rules table")..];
    let k = table.find("Disallow: /k").expect("line 3");
    let all = table.find("Disallow: /<").expect("line 2");
    assert!(k < all, "{table}");
}

#[test]
fn the_period_is_the_earliest_and_latest_instant_whatever_the_offsets() {
    // East writes +0100 from 09:00Z, west -0500 until 10:00Z: as text,
    // "04:10-05:00" < "10:00+01:00" and the period would come out wrong.
    let east = [
        combined(
            "77.75.77.1",
            "29/Nov/2026:10:00:00 +0100",
            "GET /a HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            "29/Nov/2026:10:30:00 +0100",
            "GET /b HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
    ]
    .concat();
    let west = [
        combined(
            "77.75.77.1",
            "29/Nov/2026:04:10:00 -0500",
            "GET /c HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
        combined(
            "77.75.77.1",
            "29/Nov/2026:05:00:00 -0500",
            "GET /d HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("east.log", east)
        .with("west.log", west)
        .with("ptr-map.txt", GENUINE_PTR_MAP);
    let run = site.run(&[
        "--log",
        "east.log",
        "--log",
        "west.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--out",
        "out",
        "--quiet",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(
        text.starts_with("robots-audit 2026-11-29T10:00:00+01:00 to 2026-11-29T05:00:00-05:00:"),
        "{text}"
    );
}

#[test]
fn a_run_json_that_is_no_report_is_exit_2_not_a_clean_night() {
    let site = site("evil.example.com");
    audit(&site, &[]);
    for bad in [
        "[]",
        r#"{"version":"0.1.0"}"#,
        r#"{"exit_status":"2","files":[],"counts":[]}"#,
    ] {
        std::fs::write(site.path("out/run.json"), bad).unwrap();
        let run = site.run(&["summary", "out"]);
        assert_eq!(
            run.code,
            2,
            "{bad}: {}",
            String::from_utf8_lossy(&run.stdout)
        );
        assert!(run.stderr.contains("run.json"), "{}", run.stderr);
        assert!(run.stdout.is_empty());
    }
}

#[test]
fn a_missing_or_foreign_rules_csv_is_exit_2_naming_it() {
    let site = site("evil.example.com");
    audit(&site, &[]);
    std::fs::write(site.path("out/rules.csv"), "a,b\n1,2\n").unwrap();
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("rules.csv") && run.stderr.contains("\"rule_line\""),
        "{}",
        run.stderr
    );
    std::fs::remove_file(site.path("out/rules.csv")).unwrap();
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("rules.csv"), "{}", run.stderr);
    assert!(!run.stderr.contains("bad format"), "{}", run.stderr);
}

#[test]
fn the_spreadsheet_guard_is_no_part_of_a_name_in_the_mail() {
    for (raw, ptr) in [
        (false, "=1+1.example"),
        (false, "'quoted.example"),
        (true, "=1+1.example"),
    ] {
        let site = site(ptr);
        audit(&site, if raw { &["--raw-csv"] } else { &[] });
        let run = site.run(&["summary", "out"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let text = String::from_utf8(run.stdout).unwrap();
        assert!(text.contains(&format!("ptr-mismatch ({ptr})")), "{text}");
    }
}

#[test]
fn a_rule_whose_only_rows_are_seznams_home_page_informs_in_the_mail() {
    // `Disallow: /` decides a home-page row (informs) and a Disallow
    // beside it an accusing one of the same kind: violations.csv's notes
    // tell them apart, rule by rule.
    let robots = "User-agent: *\nDisallow: /\nDisallow: /private/\n";
    let log = [
        combined("77.75.77.1", &clf(1), "GET / HTTP/1.1", 200, SEZNAM_UA),
        combined(
            "77.75.77.1",
            &clf(2),
            "GET /private/a HTTP/1.1",
            200,
            SEZNAM_UA,
        ),
    ]
    .concat();
    let site = Site::new()
        .with("robots.txt", robots)
        .with("access.log", log)
        .with("ptr-map.txt", GENUINE_PTR_MAP);
    site.set_mtime("robots.txt", NOON);
    audit(&site, &[]);
    let run = site.run(&["summary", "out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(run.stdout).unwrap();
    let informing = text
        .find("Rules whose rows only inform (no accusation)\n")
        .expect("informing rules");
    let home = text
        .find("line 2: Disallow: /  (")
        .expect("the home-page rule");
    let private = text
        .find("line 3: Disallow: /private/")
        .expect("the rule broken");
    assert!(private < informing && informing < home, "{text}");
}
