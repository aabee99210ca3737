//! Hostile and broken robots.txt files, through the real binary (SPEC §1
//! "Bytes past 500 KiB are ignored", §3): a file of 10 MiB, one of tens of
//! thousands of wildcard rules, an HTML error page, binary bytes, and
//! patterns of thousands of `*` against targets of a mebibyte. Each run
//! has a time limit far above what linear work needs and far below what
//! quadratic work on these inputs takes.

use crate::support::hostile as common;

use std::fmt::Write as _;
use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(60);

/// Targets of the violations in a report.
fn targets(stdout: &[u8]) -> Vec<String> {
    rows(stdout)
        .into_iter()
        .skip(1)
        .map(|r| r[8].clone())
        .collect()
}

#[test]
fn a_robots_txt_of_10_mib_is_read_to_500_kib() {
    let dir = tempfile::tempdir().unwrap();
    let mut robots = String::from("User-agent: SeznamBot\nDisallow: /cz/chat/\n");
    while robots.len() < 511_990 {
        robots.push_str("# padding padding padding padding padding padding\n");
    }
    // Straddles the 512,000-byte limit: a rule cut in half is not read.
    robots.push_str("Disallow: /cut-in-half-by-the-limit\n");
    while robots.len() < 10 << 20 {
        robots.push_str("Disallow: /\n");
    }
    let robots = write(dir.path(), "robots.txt", robots);
    let log = format!(
        "{}{}{}",
        seznam_fetch(1, "/cz/chat/a"),
        seznam_fetch(2, "/cut"),
        seznam_fetch(3, "/elsewhere"),
    );
    let log = write(dir.path(), "access.log", log);
    let run = run_within(&["--log", s(&log), "--robots", s(&robots)], LIMIT);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(targets(&run.stdout), ["/cz/chat/a"]);

    let check = run_within(
        &[
            "check",
            "--robots",
            s(&robots),
            "/cz/chat/a",
            "/cut",
            "/elsewhere",
        ],
        LIMIT,
    );
    assert_eq!(check.code(), Some(1), "{}", check.stderr);
    let text = check.stdout_text();
    assert!(text.contains("DISALLOWED  /cz/chat/a"), "{text}");
    assert!(text.contains("allowed     /cut "), "{text}");
    assert!(text.contains("allowed     /elsewhere"), "{text}");
}

/// A group of thousands of user agents and a rule of 20 KB are written
/// into the reports as a log's long text is: their first 8 KiB, then
/// `…[cut N bytes]` (SPEC §5), alike in violations.csv and rules.csv, so
/// that no row carries the whole of either.
#[test]
fn long_robots_txt_text_is_cut_in_the_reports_like_log_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut robots = String::new();
    for n in 0..2_000 {
        writeln!(robots, "User-agent: x{n:05}").unwrap();
    }
    let rule = format!("Disallow: /cz/chat{}", "*".repeat(20_000));
    writeln!(robots, "User-agent: SeznamBot\n{rule}").unwrap();
    let robots = write(dir.path(), "robots.txt", robots);
    let log = write(
        dir.path(),
        "access.log",
        format!(
            "{}{}",
            seznam_fetch(1, "/cz/chat/a"),
            seznam_fetch(2, "/cz/chat/b")
        ),
    );
    let out = dir.path().join("out");
    let run = run_within(
        &["--log", s(&log), "--robots", s(&robots), "--out", s(&out)],
        LIMIT,
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let cut_rule = format!("{}…[cut {} bytes]", &rule[..8192], rule.len() - 8192);
    let violations = rows(&std::fs::read(out.join("violations.csv")).unwrap());
    assert_eq!(violations.len(), 3);
    for row in &violations[1..] {
        assert_eq!(row[13], cut_rule);
        assert!(row[11].starts_with("x00000|x00001|"), "{}", &row[11][..40]);
        assert!(row[11].len() < 8192 + 40, "{}", row[11].len());
        assert!(
            row[11].ends_with(" bytes]"),
            "{}",
            &row[11][row[11].len() - 40..]
        );
    }
    let rules = rows(&std::fs::read(out.join("rules.csv")).unwrap());
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[1][2], cut_rule);
    assert_eq!(rules[1][3], violations[1][11]);
}

#[test]
fn tens_of_thousands_of_wildcard_rules_compile_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    // Pieces that share their letters: the shape that made one
    // Aho-Corasick automaton, and the piece lookup, quadratic.
    let mut robots = String::from("User-agent: *\n");
    let mut rules = 0;
    while robots.len() < 500_000 {
        let _ = writeln!(robots, "Disallow: /*a{rules:x}$");
        rules += 1;
    }
    assert!(rules > 25_000);
    let robots = write(dir.path(), "robots.txt", robots);
    let log = format!(
        "{}{}",
        seznam_fetch(1, &format!("/x/a{:x}", rules - 1)),
        seznam_fetch(2, "/x/b"),
    );
    let log = write(dir.path(), "access.log", log);
    let run = run_within(&["--log", s(&log), "--robots", s(&robots)], LIMIT);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(targets(&run.stdout), [format!("/x/a{:x}", rules - 1)]);
    let row = &rows(&run.stdout)[1];
    assert_eq!(row[12], (rules + 1).to_string(), "deciding line");
}

#[test]
fn an_html_error_page_as_robots_txt_allows_everything() {
    let dir = tempfile::tempdir().unwrap();
    let html = "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n\
        <body><h1>Not Found</h1><p>User-agent: * Disallow: / is not here.</p>\n\
        <p>Disallow: /</p><script>var a = \"b:c\";</script></body></html>\n";
    let robots = write(dir.path(), "robots.txt", html);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let run = run_within(&["--log", s(&log), "--robots", s(&robots)], LIMIT);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(targets(&run.stdout).is_empty());
}

/// Bytes from a fixed linear congruential generator: the same every run.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

#[test]
fn a_binary_robots_txt_never_breaks_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(
        dir.path(),
        "access.log",
        format!("{}{}", seznam_fetch(1, "/cz/chat/a"), seznam_fetch(2, "/")),
    );
    for (i, bytes) in [
        noise(1 << 20, 1),
        // Noise with the words a parser looks for mixed in.
        noise(1 << 16, 2)
            .chunks(64)
            .flat_map(|c| [c, b"\nUser-agent: *\nDisallow: /\xff*\x00$\rAllow:/%"].concat())
            .collect(),
        gzip(b"User-agent: *\nDisallow: /\n"),
        vec![0u8; 700_000],
    ]
    .into_iter()
    .enumerate()
    {
        let robots = write(dir.path(), &format!("robots-{i}.txt"), &bytes);
        let run = run_within(&["--log", s(&log), "--robots", s(&robots)], LIMIT);
        assert!(
            matches!(run.code(), Some(0 | 1)),
            "robots-{i}: {:?} {}",
            run.code(),
            run.stderr
        );
        let _ = rows(&run.stdout);
        let check = run_within(&["check", "--robots", s(&robots), "/", "/a?b"], LIMIT);
        assert!(
            matches!(check.code(), Some(0 | 1)),
            "robots-{i}: {}",
            check.stderr
        );
    }
}

#[test]
fn patterns_of_thousands_of_stars_against_a_target_of_a_mebibyte() {
    let dir = tempfile::tempdir().unwrap();
    let robots = format!(
        "User-agent: SeznamBot\nDisallow: /{}x$\nAllow: /{}\nDisallow: /{}b\n",
        "*".repeat(100_000),
        "*a".repeat(4_000),
        "*".repeat(2_000),
    );
    let robots = write(dir.path(), "robots.txt", robots);
    let near_limit = (1 << 20) - 1_000;
    let cases = [
        // A mebibyte ending with x is judged whole, as `check` judges it
        // (SPEC §3): the first rule (100,002 octets) is the longest match.
        // The row keeps its first 8 KiB and a cut mark (SPEC §5).
        (format!("/{}x", "a".repeat(near_limit)), false),
        // Ends with x: the first rule (100,002 octets) is the longest match.
        (format!("/{}x", "a".repeat(8_000)), false),
        // 4,000 a's: the Allow rule (8,001 octets) beats the last rule
        // (2,002 octets).
        (format!("/{}b", "a".repeat(4_000)), true),
        // 3,999 a's: only the last rule matches.
        (format!("/{}b", "a".repeat(3_999)), false),
        ("/c".to_string(), true),
    ];
    let mut log = String::new();
    for (second, (target, _)) in cases.iter().enumerate() {
        log.push_str(&seznam_fetch(second as u32, target));
    }
    let log = write(dir.path(), "access.log", log);
    let run = run_within(&["--log", s(&log), "--robots", s(&robots)], LIMIT);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let want: Vec<String> = cases
        .iter()
        .filter(|(_, allowed)| !allowed)
        .map(|(t, _)| match t.len() {
            ..=8192 => t.clone(),
            len => format!("{}…[cut {} bytes]", &t[..8192], len - 8192),
        })
        .collect();
    let got = targets(&run.stdout);
    assert_eq!(got.len(), want.len(), "{}", run.stderr);
    assert!(got == want, "verdicts differ");
    let lines: Vec<String> = rows(&run.stdout)[1..]
        .iter()
        .map(|r| r[12].clone())
        .collect();
    assert_eq!(lines, ["2", "2", "4"]);
    // Runs of stars cost one searcher, not one each (172 MiB before).
    assert!(
        run.peak_rss_kib < 128 * 1024,
        "peak {} KiB",
        run.peak_rss_kib
    );
}

/// `check` with a target longer than 65,535 bytes: the text output pads
/// targets to the longest one with a width that the formatter refuses past
/// u16::MAX, and the binary panics (exit 101) instead of answering.
#[test]
fn check_answers_for_a_target_longer_than_64_kib() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /a\n");
    let target = format!("/{}", "a".repeat(70_000));
    let run = run_within(&["check", "--robots", s(&robots), &target, "/b"], LIMIT);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(run.stdout_text().contains("allowed     /b"));
}

/// `--robots` naming a pipe or device that never ends (`<(producer)`,
/// `/dev/zero`): only the first 500 KiB can matter, yet the whole stream is
/// read into memory before anything happens, so the run waits forever (or,
/// on /dev/zero, until memory runs out). Here a FIFO delivers 600 KB and
/// then stays open.
#[test]
fn a_robots_txt_that_never_ends_is_read_to_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("robots.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer_path = fifo.clone();
    // Detached: it holds the FIFO open past the run's time limit.
    std::thread::spawn(move || {
        use std::io::Write as _;
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&writer_path) {
            let mut text = String::from("User-agent: *\nDisallow: /cz/\n");
            while text.len() < 600_000 {
                text.push_str("# padding\n");
            }
            let _ = f.write_all(text.as_bytes());
            std::thread::sleep(Duration::from_secs(30));
        }
    });
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/a"));
    let run = run_within(
        &["--log", s(&log), "--robots", s(&fifo)],
        Duration::from_secs(10),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(targets(&run.stdout), ["/cz/a"]);
}
