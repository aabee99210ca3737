//! `robots-audit lint` run as a user runs it: each robots.txt under
//! `tests/data/lint/` against its expected text and JSON reports, byte for
//! byte, and the exit status (0 clean, 1 findings, 2 unreadable file);
//! and the real robots.txt files under `tests/data/robots/` (sources in its
//! README) against a snapshot of their findings.
//!
//! To rewrite the expected files after a deliberate change, run with
//! `LINT_BLESS=1` and review the diff.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lint")
}

fn lint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .current_dir(data())
        .arg("lint")
        .args(args)
        .output()
        .expect("run robots-audit")
}

/// Compares `actual` with the expected file, or writes it when blessing.
fn compare(actual: &[u8], expected_name: &str) {
    let path = data().join(expected_name);
    if std::env::var_os("LINT_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write expected output");
        return;
    }
    let expected = std::fs::read(&path).expect("read expected output");
    assert!(
        actual == expected.as_slice(),
        "{expected_name} differs\n--- expected\n{}\n--- actual\n{}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(actual)
    );
}

#[test]
fn reports_match_byte_for_byte() {
    // (fixture, exit status)
    let cases: &[(&str, i32)] = &[
        ("clean", 0),
        ("crlf-bom", 0),
        ("allow-all", 0),
        ("rates", 1),
        ("mistakes", 1),
        ("html", 1),
        ("utf16", 1),
        ("issue", 1),
    ];
    for &(name, status) in cases {
        let file = format!("{name}.robots.txt");
        for (format, expected) in [
            ("text", format!("{name}.txt")),
            ("json", format!("{name}.json")),
        ] {
            let output = lint(&[&file, "--format", format]);
            assert_eq!(
                output.status.code(),
                Some(status),
                "{file} --format {format}"
            );
            assert!(output.stderr.is_empty(), "{file}: {:?}", output.stderr);
            compare(&output.stdout, &format!("expected/{expected}"));
        }
    }
}

#[test]
fn text_is_the_default_format() {
    let default = lint(&["mistakes.robots.txt"]);
    let text = lint(&["mistakes.robots.txt", "--format", "text"]);
    assert_eq!(default.stdout, text.stdout);
    assert_eq!(default.status.code(), Some(1));
}

#[test]
fn an_unreadable_file_exits_2() {
    for file in ["no-such-file.txt", "."] {
        let output = lint(&[file]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(output.stdout.is_empty(), "{file}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("robots-audit: "), "{stderr}");
        assert!(stderr.contains(file), "{stderr}");
    }
}

#[test]
fn a_bad_format_exits_2() {
    let output = lint(&["clean.robots.txt", "--format", "csv"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_file_past_500_kib_is_reported_whole() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("robots.txt");
    let mut text = String::from("User-agent: *\n");
    let mut n = 0;
    while text.len() <= 512_000 {
        text.push_str(&format!("Disallow: /private/{n}/\n"));
        n += 1;
    }
    std::fs::write(&path, &text).expect("write robots.txt");
    let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("lint")
        .arg(&path)
        .output()
        .expect("run robots-audit");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let expected = format!(
        "file: error: file-too-large: The file is {} bytes; crawlers read only the first 512000 \
         (500 KiB), so everything after line",
        text.len()
    );
    assert!(stdout.contains(&expected), "{stdout}");
}

/// The findings of one file of the corpus, from the text report:
/// `(severity, name)` per finding, in report order.
fn corpus_findings(file: &Path) -> (Option<i32>, Vec<(String, String)>) {
    let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("lint")
        .arg(file)
        .output()
        .expect("run robots-audit");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let findings = stdout
        .lines()
        .skip_while(|l| *l != "findings:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| {
            let mut parts = l.splitn(4, ": ");
            let _where = parts.next()?;
            Some((parts.next()?.to_string(), parts.next()?.to_string()))
        })
        .collect();
    (output.status.code(), findings)
}

#[test]
fn a_corpus_of_real_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/robots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the corpus")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "{} files", files.len());

    // Every error the lint finds in these sites' files, and why it is one:
    // the page served is HTML, and a Request-rate left as a template.
    let expected_errors = [
        ("aukro.cz.txt", "bad-request-rate"),
        ("www.pravo.cz.txt", "looks-like-html"),
    ];
    // Files a webmaster would call fine: the lint must not say otherwise.
    let clean = [
        "www.seznam.cz.txt",
        "mapy.cz.txt",
        "www.novinky.cz.txt",
        "www.idnes.cz.txt",
        "www.csfd.cz.txt",
        "www.bbc.co.uk.txt",
        "developer.vimeo.com.txt",
        "cs.wikipedia.org.txt",
        "en.wikipedia.org.txt",
        "www.youtube.com.txt",
    ];

    let mut snapshot = String::new();
    let mut errors = Vec::new();
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let (status, findings) = corpus_findings(path);
        let problems = findings.iter().filter(|(s, _)| s != "note").count();
        assert_eq!(
            status,
            Some(if problems == 0 { 0 } else { 1 }),
            "{name}: exit status"
        );
        if clean.contains(&name) {
            assert_eq!(problems, 0, "{name}: {findings:?}");
        }
        for (severity, finding) in &findings {
            if severity == "error" {
                errors.push((name.to_string(), finding.clone()));
            }
        }
        // Severity counts by finding name, for a diff a person can read.
        let mut counts: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
        for (severity, finding) in &findings {
            *counts.entry((severity, finding)).or_default() += 1;
        }
        snapshot.push_str(name);
        for ((severity, finding), count) in counts {
            snapshot.push_str(&format!(" {severity}:{finding}={count}"));
        }
        snapshot.push('\n');
    }
    let errors: Vec<(&str, &str)> = errors
        .iter()
        .map(|(f, n)| (f.as_str(), n.as_str()))
        .collect();
    assert_eq!(errors, expected_errors);

    let expected = dir.join("findings.expected");
    if std::env::var_os("LINT_BLESS").is_some() {
        std::fs::write(&expected, &snapshot).expect("write findings.expected");
        return;
    }
    let want = std::fs::read_to_string(&expected).expect("read findings.expected");
    assert!(
        want == snapshot,
        "findings.expected differs\n--- expected\n{want}\n--- actual\n{snapshot}"
    );
}

#[test]
fn a_crawler_added_by_profiles_is_judged_too() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let robots = dir.path().join("robots.txt");
    std::fs::write(
        &robots,
        "User-agent: Googlebott\nDisallow: /x\n\nUser-agent: *\nDisallow: /admin/\n",
    )
    .expect("write robots.txt");
    let profiles = dir.path().join("profiles.txt");
    std::fs::write(
        &profiles,
        "crawler: Googlebot\ntoken: Googlebot\nuser-agent: Googlebot\nhost: crawl-<address>.googlebot.com\n",
    )
    .expect("write profiles");
    let run = |extra: &[&Path]| {
        let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
            .arg("lint")
            .arg(&robots)
            .args(extra.iter().flat_map(|p| [Path::new("--profiles"), p]))
            .output()
            .expect("run robots-audit");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (status, builtin) = run(&[]);
    assert_eq!(status, Some(0), "{builtin}");
    assert!(!builtin.contains("Googlebot reads"), "{builtin}");
    assert!(!builtin.contains("misnamed-agent"), "{builtin}");
    let (status, with) = run(&[&profiles]);
    assert_eq!(status, Some(1), "{with}");
    assert!(with.contains("Googlebot reads: group (line 4)\n"), "{with}");
    assert!(
        with.contains("line 1: warning: misnamed-agent: `Googlebott` does not name Googlebot"),
        "{with}"
    );
}

/// A profile's token is compared as its product token, as the audit and
/// `check` compare it: `User-agent: MegaIndex.ru` names a crawler of token
/// `MegaIndex.ru`, and `User-agent: MJ` one of token `MJ12bot/v1.4`; the
/// lint does not tell the file to write what it already writes.
#[test]
fn a_profile_token_is_compared_as_its_product_token() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for (token, written) in [("MegaIndex.ru", "MegaIndex.ru"), ("MJ12bot/v1.4", "MJ")] {
        let robots = dir.path().join("robots.txt");
        std::fs::write(
            &robots,
            format!("User-agent: {written}\nDisallow: /private\n"),
        )
        .expect("write robots.txt");
        let profiles = dir.path().join("profiles.txt");
        std::fs::write(
            &profiles,
            format!("crawler: Custom\ntoken: {token}\nuser-agent: {token}\n"),
        )
        .expect("write profiles");
        let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
            .arg("lint")
            .arg(&robots)
            .arg("--profiles")
            .arg(&profiles)
            .output()
            .expect("run lint");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        assert_eq!(output.status.code(), Some(0), "{token}: {text}");
        assert!(text.contains("reads: group (line 1)"), "{token}: {text}");
    }
}

/// Every finding about a crawler comes from its own reading: a profile
/// that shares SeznamBot's token but reads `Crawl-delay` (and has no floor
/// or home-page exception) is judged apart from SeznamBot, and a record
/// only a profile reads (`Visit-time`) splits groups for it, which the
/// lint says (SPEC §3: "The lint warns wherever the two readings differ").
#[test]
fn crawlers_sharing_a_token_are_judged_by_their_own_reading() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    let lint_with = |robots: &Path, profiles: &Path| {
        let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
            .arg("lint")
            .arg(robots)
            .arg("--profiles")
            .arg(profiles)
            .output()
            .expect("run robots-audit");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let fresh = write(
        "fresh.txt",
        "crawler: FreshBot\ntoken: SeznamBot\nuser-agent: FreshBot\n\
         host: fulltextrobot-fresh-<address>.seznam.cz\nreads: Crawl-delay\n\
         rate-floor: none\nhomepage-exception: no\n",
    );
    let robots = write(
        "robots.txt",
        "User-agent: SeznamBot\nCrawl-delay: 10\nUser-agent: *\nDisallow: /\n",
    );
    let out = lint_with(&robots, &fresh);
    assert!(
        out.contains("FreshBot (token SeznamBot) reads: group (line 1)\n")
            && out.contains("SeznamBot (and SeznamBot-test) reads: group (line 1), as it groups"),
        "{out}"
    );
    assert!(
        out.contains("only for crawlers that read it (FreshBot, Bing, Yandex)"),
        "{out}"
    );
    // The home-page warning is SeznamBot's, not FreshBot's.
    assert!(!out.contains("FreshBot still fetches"), "{out}");

    let visit = write(
        "visit.txt",
        "crawler: VTbot\nuser-agent: VTbot\nreads: Visit-time\n",
    );
    let robots = write(
        "visit-robots.txt",
        "User-agent: VTbot\nVisit-time: 0100-0500\nUser-agent: *\nDisallow: /x\n",
    );
    let out = lint_with(&robots, &visit);
    assert!(
        out.contains("line 3: warning: ambiguous-group: `Visit-time: 0100-0500` (line 2) ends the group of line 1 only for crawlers that read it (VTbot)"),
        "{out}"
    );
    assert!(out.contains("only VTbot read it"), "{out}");

    // A limit another crawler of the same token reads first is ignored
    // only when it is for every one of them: SeznamBot reads one group of
    // both Crawl-delay lines, a crawler that reads Crawl-delay two, the
    // second its own, which the audit judges it by.
    let delays = write(
        "delays.txt",
        "crawler: SeznamBot-img\ntoken: SeznamBot\nuser-agent: SeznamBot-img\n\
         reads: Crawl-delay, Request-rate\n",
    );
    for text in [
        "User-agent: Otherbot\nCrawl-delay: 1\nUser-agent: SeznamBot\nCrawl-delay: 10\n",
        "User-agent: SeznamBot\nCrawl-delay: 1\nUser-agent: Otherbot\nRequest-rate: 1/10s\n\
         User-agent: SeznamBot\nRequest-rate: 3/1m\n",
    ] {
        let robots = write("delays-robots.txt", text);
        let out = lint_with(&robots, &delays);
        assert!(!out.contains("ignored-"), "{text}: {out}");
    }
}

/// Runs `lint` on `text` written to a temporary robots.txt, in `format`.
fn lint_text(text: &str, format: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("vt.txt");
    std::fs::write(&path, text).expect("write robots.txt");
    let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .current_dir(dir.path())
        .args(["lint", "vt.txt", "--format", format])
        .output()
        .expect("run robots-audit");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// `check`'s line naming the group a crawler uses, for the same file.
fn check_group(text: &str) -> String {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("vt.txt");
    std::fs::write(&path, text).expect("write robots.txt");
    let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .args(["check", "--robots"])
        .arg(&path)
        .arg("/a")
        .output()
        .expect("run robots-audit");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn lint_groups_a_file_as_each_crawler_reads_it() {
    // Seznam reads neither Visit-time nor Crawl-delay: neither ends the run
    // of User-agent lines, so SeznamBot obeys one group `SeznamBot|*`, as
    // `check` and the audit say (SPEC §3).
    for unread in ["Visit-time: 0100-0500", "Crawl-delay: 5"] {
        let text = format!("User-agent: SeznamBot\n{unread}\nUser-agent: *\nDisallow: /\n");
        assert_eq!(
            check_group(&text),
            "SeznamBot: uses group \"SeznamBot|*\" (line 1)",
            "{text:?}"
        );
        let (_, out) = lint_text(&text, "text");
        let listing = format!(
            "SeznamBot (and FreshBot, SeznamBot-test) reads: group (line 1)\n\n\
             group (line 1): User-agent SeznamBot, User-agent *\n  {unread} (line 2)"
        );
        assert!(out.contains(&listing), "{listing:?} not in\n{out}");
        assert!(out.contains("  Disallow: / (line 4)\n"), "{out}");
        assert!(!out.contains("group (line 3)"), "{out}");
        // The group names SeznamBot: its `/` is not excused (SPEC §4).
        assert!(!out.contains("seznam-homepage-exception"), "{out}");
        let (_, json) = lint_text(&text, "json");
        assert!(
            json.contains(
                "\"groups\":[1]}],\"groups\":[{\"line\":1,\"agents\":[{\"line\":1,\
                 \"value\":\"SeznamBot\",\"token\":\"SeznamBot\"},{\"line\":3,\"value\":\"*\","
            ),
            "{json}"
        );
        assert!(json.contains("\"read_by\":[\"SeznamBot\"]"), "{json}");
        assert!(!json.contains("\"read_by\":[]"), "{json}");
        assert!(!json.contains("\"line\":3,\"agents\""), "{json}");
    }
}

#[test]
fn lint_warns_of_the_home_page_where_seznam_reads_a_star_group() {
    // Read with every extension, Crawl-delay would end the `*` group and
    // leave `Disallow: /` to Googlebot alone; Seznam reads one group
    // `*|Googlebot` and obeys it for want of its own, so `/` is fetched.
    let text = "User-agent: *\nCrawl-delay: 5\nUser-agent: Googlebot\nDisallow: /\n";
    assert_eq!(
        check_group(text),
        "SeznamBot: uses group \"*|Googlebot\" (line 1)"
    );
    let (status, out) = lint_text(text, "text");
    assert_eq!(status, Some(1), "{out}");
    assert!(
        out.contains("line 4: warning: seznam-homepage-exception: "),
        "{out}"
    );
    assert!(out.contains("line 4: note: disallow-all: "), "{out}");
}

/// Error pages served as robots.txt in the wild that do not open with
/// their markup: a status written before the page, and a BOM encoded twice
/// (UTF-8 read as Latin-1 and written again). Both are an HTML page, said
/// once, not a finding for each of their lines; `check` warns as well.
#[test]
fn error_pages_with_text_before_their_markup_are_html() {
    for page in [
        "404<br/><!DOCTYPE html>\n<html>\n<head><title>Page Not Found</title></head>\n\
         <body><p>Not found</p></body>\n</html>\n",
        "\u{ef}\u{bb}\u{bf}<html>\n<head><title>Error</title></head>\n<body>Error</body>\n</html>\n",
        "PHP Warning: x\n<!DOCTYPE html>\n<html><body>Error</body></html>\n",
    ] {
        let (status, text) = lint_text(page, "text");
        assert_eq!(status, Some(1), "{text}");
        assert!(text.contains("looks-like-html"), "{text}");
        assert!(!text.contains("text-before-user-agent"), "{text}");

        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("page.txt");
        std::fs::write(&path, page).expect("write robots.txt");
        let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
            .args(["check", "--robots"])
            .arg(&path)
            .arg("/x")
            .output()
            .expect("run robots-audit");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("looks like an HTML page"), "{stderr}");
    }
}

/// A first line that holds a tag does not make a file with a group HTML:
/// its findings are still given (a misspelled rule here).
#[test]
fn a_tag_in_the_first_line_of_a_file_with_a_group_is_not_html() {
    let (status, text) = lint_text(
        "Sitemap http://x/<html>\nUser-agent: *\nDissalow: /private\n",
        "text",
    );
    assert_eq!(status, Some(1), "{text}");
    assert!(!text.contains("looks-like-html"), "{text}");
    assert!(text.contains("misspelled"), "{text}");
}

/// An Allow the 500 KiB limit cut is listed as what every way on starts
/// with (in a Robot-version 2.0 group, before Seznam's first `?`, `[` or
/// `\`), marked cut, in text and in JSON.
#[test]
fn a_cut_allow_is_listed_as_cut() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /c\n"
        .as_bytes()
        .to_vec();
    let kept = "Allow: /cr?x[a";
    text.resize(512_000 - kept.len() - 1, b'#');
    text.push(b'\n');
    text.extend_from_slice(b"Allow: /cr?x[ab]y\n");
    let path = dir.path().join("robots.txt");
    std::fs::write(&path, &text).unwrap();
    let path = path.to_str().unwrap();
    let listing = String::from_utf8(lint(&[path]).stdout).unwrap();
    assert!(
        listing.contains("  Allow: /cr… (line 5) — cut by the 500 KiB limit"),
        "{listing}"
    );
    let json = String::from_utf8(lint(&["--format", "json", path]).stdout).unwrap();
    assert!(
        json.contains(r#""text":"Allow: /cr?x[a","cut":true,"cut_prefix":"/cr"}"#),
        "{json}"
    );
}
