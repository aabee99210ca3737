//! The lint's own tests: one case per finding, the files a webmaster
//! writes on purpose, and the cases each finding once got wrong.

use super::*;

fn names(text: &str) -> Vec<(Option<usize>, &'static str, Severity)> {
    lint_text(text.as_bytes())
        .into_iter()
        .map(|f| (f.line, f.name, f.severity))
        .collect()
}

const CLEAN: &str = "\u{feff}# robots.txt for www.example.cz\n\
    User-agent: SeznamBot\n\
    User-agent: FreshBot/1.0\n\
    Request-rate: 10/1m\n\
    Request-rate: 100/1m 0100-0600\n\
    Disallow: /cz/chat/\n\
    Allow: /cz/chat/rules\n\
    Disallow: /*.pdf$\n\
    Disallow: /search?q=\n\
    \n\
    User-agent: *\n\
    Disallow: /admin/\n\
    Allow: /admin/help\n\
    Disallow: /%C4%8Dl%C3%A1nky/koncept\n\
    \n\
    Sitemap: https://www.example.cz/sitemap.xml\n";

#[test]
fn a_clean_file_has_no_findings() {
    assert_eq!(names(CLEAN), vec![]);
    assert!(is_clean(&lint_text(CLEAN.as_bytes())));
}

#[test]
fn one_case_per_finding() {
    use Severity::{Error, Note, Warning};
    // (robots.txt, line, name, severity): the finding must be among
    // those the file gives.
    let cases: &[(&str, Option<usize>, &str, Severity)] = &[
        (
            "Our robots file\nUser-agent: *\nDisallow: /x\n",
            Some(1),
            "text-before-user-agent",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /x\nthis is not a directive\n",
            Some(3),
            "stray-text",
            Warning,
        ),
        (
            "User-agent: *\nDisallow /private\n",
            Some(2),
            "missing-colon",
            Error,
        ),
        (
            "Disallow: /private\nUser-agent: *\nDisallow: /x\n",
            Some(1),
            "rule-outside-group",
            Error,
        ),
        (
            "User-agent: *\nDisallow: /x\nDisallow:\n",
            Some(3),
            "empty-disallow",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /x\nAllow:\n",
            Some(3),
            "empty-allow",
            Note,
        ),
        (
            "User-agent: *\nDissallow: /private\n",
            Some(2),
            "misspelled-directive",
            Error,
        ),
        (
            "User agent: *\nDisallow: /x\n",
            Some(1),
            "misspelled-directive",
            Error,
        ),
        (
            "User-agent: *\nDisallow: /x\nFoo: bar\n",
            Some(3),
            "unknown-directive",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /x\nHost: www.example.cz\n",
            Some(3),
            "unknown-directive",
            Note,
        ),
        (
            "User-agent: *\nDisallow: private\n",
            Some(2),
            "pattern-without-slash",
            Error,
        ),
        (
            "User-agent: *\nDisallow: /a /b\n",
            Some(2),
            "space-in-pattern",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /\u{10d}l\u{e1}nky\n",
            Some(2),
            "non-ascii-pattern",
            Note,
        ),
        (
            "User-agent: *\nDisallow: /x\nCrawl-delay: 10\n",
            Some(3),
            "crawl-delay",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nRequest-rate: 1/x\nDisallow: /x\n",
            Some(2),
            "bad-request-rate",
            Error,
        ),
        (
            "User-agent: SeznamBot\nRequest-rate: 1/60s\nDisallow: /x\n",
            Some(2),
            "slow-request-rate",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nRequest-rate: 1/10s 0100-0100\nDisallow: /x\n",
            Some(2),
            "empty-window",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nRequest-rate: 1/10s\nRequest-rate: 1/20s\nDisallow: /x\n",
            Some(3),
            "ignored-request-rate",
            Warning,
        ),
        (
            "User-agent: *\nCrawl-delay: 1\nCrawl-delay: 2\nDisallow: /x\n",
            Some(3),
            "ignored-crawl-delay",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /x\nRobot-version: 2.0\n",
            Some(3),
            "misplaced-robot-version",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nRobot-version: 3.0\nDisallow: /x\n",
            Some(2),
            "unknown-robot-version",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /x\nVisit-time: 0100-0600\n",
            Some(3),
            "visit-time",
            Note,
        ),
        (
            "User-agent: *\nDisallow: /static/\n",
            Some(2),
            "blocks-assets",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /*.js$\n",
            Some(2),
            "blocks-assets",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /\n",
            Some(2),
            "seznam-homepage-exception",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /\n",
            Some(2),
            "disallow-all",
            Note,
        ),
        (
            "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n",
            Some(3),
            "ambiguous-group",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /x\nSitemap https://www.example.cz/s.xml\n",
            Some(3),
            "missing-colon",
            Error,
        ),
        (
            "User-agent: *\nDisallow: /x\0\0\n",
            Some(2),
            "control-bytes",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /a\n\nUser-agent: seznambot\nDisallow: /b\n",
            Some(4),
            "duplicate-agent",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /a\nAllow: /a\n",
            Some(2),
            "shadowed-rule",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /a/b\nAllow: /a/*\n",
            Some(2),
            "shadowed-rule",
            Warning,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /a\n\nUser-agent: SeznamBot\nDisallow: /a\n",
            Some(5),
            "duplicate-rule",
            Note,
        ),
        (
            "User-agent: *\nDisallow: /x\nSitemap: /sitemap.xml\n",
            Some(3),
            "bad-sitemap",
            Warning,
        ),
        (
            "User-agent: *bot\nDisallow: /x\n",
            Some(1),
            "agent-names-nothing",
            Warning,
        ),
        (
            "User-agent: FreshBot\nDisallow: /x\n",
            Some(1),
            "misnamed-agent",
            Warning,
        ),
        (
            "User-agent: Seznam\nDisallow: /x\n",
            Some(1),
            "misnamed-agent",
            Warning,
        ),
        (
            "User-agent: Mozilla/5.0 (compatible; SeznamBot/4.0)\nDisallow: /x\n",
            Some(1),
            "misnamed-agent",
            Warning,
        ),
        (
            "User-agent: Googlebot, SeznamBot\nDisallow: /x\n",
            Some(1),
            "misnamed-agent",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /x\nUser-agent: SeznamBot\n",
            Some(3),
            "empty-group",
            Warning,
        ),
        (
            // Read both ways: said to be misplaced, though deleting it
            // changes a reading.
            "User-agent: SeznamBot\nSitemap: https://x.cz/s.xml\nRobot-version: 2.0\nDisallow: /a\n",
            Some(3),
            "misplaced-robot-version",
            Warning,
        ),
        (
            "User-agent: *\nDisallow: /admin\n\nUser-agent: SeznamBot\nRequest-rate: 1/10s\n",
            Some(4),
            "rules-left-behind",
            Warning,
        ),
        (
            "Sitemap: https://www.example.cz/s.xml\n",
            None,
            "no-groups",
            Note,
        ),
        (
            "<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body>Error: 404</body></html>\n",
            None,
            "looks-like-html",
            Error,
        ),
        (
            "\u{1f}\u{8b}\u{8}\u{0}\u{0}\u{0}\nUser-agent: *\n",
            None,
            "looks-like-binary",
            Error,
        ),
    ];
    for &(text, line, name, severity) in cases {
        let got = names(text);
        assert!(
            got.contains(&(line, name, severity)),
            "{text:?}: expected {line:?} {name} {severity:?}, got {got:?}"
        );
    }
}

#[test]
fn what_a_webmaster_writes_on_purpose_is_clean() {
    // Each of these once drew a warning or an error.
    let cases: &[&str] = &[
        // A final empty `*` group (RFC 9309 allows a group without rules).
        "User-agent: SeznamBot\nDisallow: /x\n\nUser-agent: *\n",
        // Allow-all groups, as Wikipedia writes them.
        "User-agent: IsraBot\nDisallow:\n\nUser-agent: *\nDisallow: /w/\n",
        // A run of NULs in one line (here a comment) is no binary file.
        "User-agent: *\nDisallow: /x # \0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\n",
        // Crawl-delay beside a Request-rate: Seznam already has its rate.
        "User-agent: *\nCrawl-delay: 10\nDisallow: /x\nRequest-rate: 1/10s\n",
        // Crawl-delay in another crawler's group.
        "User-agent: Bingbot\nDisallow: /x\nCrawl-delay: 5\n",
        // Visit-time is a note.
        "User-agent: *\nDisallow: /x\nVisit-time: 0100-0600\n",
        // SeznamBot's own group allows all, on purpose, with its rate.
        "User-agent: *\nDisallow: /x\n\nUser-agent: SeznamBot\nRequest-rate: 1/10s\nDisallow:\n",
        // Its rate beside the `*` group's rules, in the group itself.
        "User-agent: SeznamBot\nUser-agent: *\nRequest-rate: 1/10s\nDisallow: /x\n",
    ];
    for text in cases {
        let findings = lint_text(text.as_bytes());
        assert!(is_clean(&findings), "{text:?}: {findings:?}");
    }
}

/// Compressed or random data (an xz file given as robots.txt) is mostly
/// bytes that are not UTF-8, each shown as `\xNN`: counted as one byte
/// that is no text, it is binary, while a robots.txt in windows-1250 with
/// a few such bytes and no control byte is text.
#[test]
fn random_bytes_look_like_binary_and_a_legacy_encoding_does_not() {
    let mut state: u32 = 12345;
    let random: Vec<u8> = (0..3000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        })
        .collect();
    let findings = lint_text(&random);
    assert!(
        findings.iter().any(|f| f.name == "looks-like-binary"),
        "{findings:?}"
    );
    let legacy = b"User-agent: *\nDisallow: /hled\xe1n\xed\nDisallow: /ko\x9a\xedk\n";
    let findings = lint_text(legacy);
    assert!(
        !findings.iter().any(|f| f.name == "looks-like-binary"),
        "{findings:?}"
    );
}

#[test]
fn a_line_of_nuls_is_a_note_and_the_rules_still_count() {
    let mut text = b"User-agent: *\nDisallow: /x\n".to_vec();
    text.extend_from_slice(&[0; 512]);
    text.extend_from_slice(b"\nDisallow: /static/\n");
    let got = names(std::str::from_utf8(&text).expect("utf-8"));
    assert!(
        got.contains(&(Some(3), "control-bytes", Severity::Note)),
        "{got:?}"
    );
    assert!(
        got.contains(&(Some(4), "blocks-assets", Severity::Warning)),
        "{got:?}"
    );
    assert!(!got.iter().any(|f| f.1 == "looks-like-binary"), "{got:?}");
}

#[test]
fn a_sitemap_without_its_colon_is_named_so() {
    let findings =
        lint_text(b"User-agent: *\nDisallow: /x\nSitemap https://www.example.cz/s.xml\n");
    let message = &findings
        .iter()
        .find(|f| f.name == "missing-colon")
        .expect("missing-colon")
        .message;
    assert!(
        message.contains("`Sitemap: https://www.example.cz/s.xml`"),
        "{message}"
    );
}

/// A rule written with its host, or a URL: the path is suggested, for
/// this site's host only; a dotted directory stays a path.
#[test]
fn a_rule_written_with_its_host_is_given_its_path() {
    for (text, want) in [
        (
            "User-agent: *\nDisallow: www.example.cz/private\n",
            "`Disallow: /private` if that host is this site's?",
        ),
        (
            "User-agent: *\nDisallow: https://cdn.example.com/a/b\n",
            "`Disallow: /a/b` if that host is this site's?",
        ),
        (
            "User-agent: *\nDisallow: v1.2/docs\n",
            "`Disallow: /v1.2/docs`?",
        ),
    ] {
        let findings = lint_text(text.as_bytes());
        let found = findings
            .iter()
            .find(|f| f.name == "pattern-without-slash")
            .expect("pattern-without-slash");
        assert!(found.message.ends_with(want), "{text:?}: {}", found.message);
    }
}

/// `Disallow: /` in a Robot-version 2.0 group, or `Disallow: /$`, forbids
/// the home page alone, which SeznamBot fetches anyway under `*`.
#[test]
fn a_home_page_rule_that_forbids_seznam_nothing_says_so() {
    for text in [
        "User-agent: *\nRobot-version: 2.0\nDisallow: /\n",
        "User-agent: *\nDisallow: /$\n",
    ] {
        let findings = lint_text(text.as_bytes());
        let home = findings
            .iter()
            .find(|f| f.name == "seznam-homepage-exception")
            .expect("seznam-homepage-exception");
        assert!(
            home.message.contains("forbids the home page alone")
                && home.message.contains("the line forbids SeznamBot"),
            "{text:?}: {}",
            home.message
        );
    }
    let all = lint_text(b"User-agent: *\nDisallow: /\n");
    let home = all
        .iter()
        .find(|f| f.name == "seznam-homepage-exception")
        .expect("seznam-homepage-exception");
    assert!(
        home.message.contains("forbids the home page too"),
        "{}",
        home.message
    );
}

#[test]
fn crawl_delay_advice_only_where_it_helps() {
    // Written for baidu: SeznamBot reads it only because it ends no run
    // (`ambiguous-group`); a Request-rate there would end baidu's group.
    let baidu = lint_text(b"User-agent: baidu\ncrawl-delay: 1\n\nUser-agent: *\nDisallow: /x\n");
    assert!(!baidu.iter().any(|f| f.name == "crawl-delay"), "{baidu:?}");
    assert!(
        baidu.iter().any(|f| f.name == "ambiguous-group"),
        "{baidu:?}"
    );
    // Written for SeznamBot, before `*`'s lines it reads in one group: a
    // Request-rate in its place would end the group there.
    let merged =
        lint_text(b"User-agent: SeznamBot\nCrawl-delay: 10\n\nUser-agent: *\nDisallow: /x\n");
    let delay = merged
        .iter()
        .find(|f| f.name == "crawl-delay")
        .expect("crawl-delay");
    assert!(
        delay
            .message
            .contains("repeat in this group the rules it now reads from the User-agent line 4 on"),
        "{}",
        delay.message
    );
    let with_rate =
        lint_text(b"User-agent: SeznamBot\nRequest-rate: 1/10s\nCrawl-delay: 10\nDisallow: /x\n");
    let delay = with_rate
        .iter()
        .find(|f| f.name == "crawl-delay")
        .expect("crawl-delay");
    assert_eq!(delay.severity, Severity::Note);
    assert!(!delay.message.contains("instead`"), "{}", delay.message);
    assert!(delay.message.contains("(line 2)"), "{}", delay.message);
    // A Request-rate that cannot be read is none: the advice stands.
    let unread = lint_text(b"User-agent: SeznamBot\nRequest-rate: 1/10 sec\nCrawl-delay: 10\n");
    let delay = unread
        .iter()
        .find(|f| f.name == "crawl-delay")
        .expect("crawl-delay");
    assert_eq!(delay.severity, Severity::Warning, "{}", delay.message);
    assert!(
        delay.message.contains("`Request-rate: 1/10s`"),
        "{}",
        delay.message
    );
    // One that holds within a window only leaves the rest of the day open.
    let windowed =
        lint_text(b"User-agent: SeznamBot\nRequest-rate: 1/10s 0100-0200\nCrawl-delay: 10\n");
    let delay = windowed
        .iter()
        .find(|f| f.name == "crawl-delay")
        .expect("crawl-delay");
    assert_eq!(delay.severity, Severity::Warning, "{}", delay.message);
    assert!(
        delay.message.contains("within its window only"),
        "{}",
        delay.message
    );
    // Windows that together cover the day hold a limit all day, as a
    // line without one does: a note, not the advice.
    for whole_day in [
        &b"Request-rate: 10/1m 0000-2400\n"[..],
        b"Request-rate: 10/1m 0600-0600\n",
        b"Request-rate: 10/1m 0600-2200\nRequest-rate: 60/1m 2200-0600\n",
    ] {
        let text = [
            &b"User-agent: SeznamBot\n"[..],
            whole_day,
            b"Crawl-delay: 5\n",
        ]
        .concat();
        let delay = lint_text(&text)
            .into_iter()
            .find(|f| f.name == "crawl-delay")
            .expect("crawl-delay");
        assert_eq!(delay.severity, Severity::Note, "{}", delay.message);
        // Named: every line whose windows together cover the day.
        let lines = whole_day.iter().filter(|&&b| b == b'\n').count();
        for line in 2..2 + lines {
            assert!(
                delay.message.contains(&format!("(line {line})")),
                "{}",
                delay.message
            );
        }
    }
    // Named: the lines the crawler keeps to at some minute (a windowed
    // line covering it wins over one without a window, SPEC §3), never a
    // line no minute is judged by.
    for (rates, named) in [
        (
            &b"Request-rate: 1/10s 0600-2200\nRequest-rate: 1/20s\n"[..],
            "`Request-rate: 1/10s 0600-2200` (line 2) and `Request-rate: 1/20s` (line 3)",
        ),
        (
            b"Request-rate: 1/10s 0000-2400\nRequest-rate: 1/20s\n",
            "`Request-rate: 1/10s 0000-2400` (line 2)",
        ),
        (
            b"Request-rate: 1/10s 0600-0600\nRequest-rate: 1/20s\n",
            "`Request-rate: 1/10s 0600-0600` (line 2)",
        ),
        (
            b"Request-rate: 1/20s\nRequest-rate: 1/10s\nRequest-rate: 1/5s 0100-0200\n",
            "`Request-rate: 1/20s` (line 2) and `Request-rate: 1/5s 0100-0200` (line 4)",
        ),
    ] {
        let text = [&b"User-agent: SeznamBot\n"[..], rates, b"Crawl-delay: 5\n"].concat();
        let delay = lint_text(&text)
            .into_iter()
            .find(|f| f.name == "crawl-delay")
            .expect("crawl-delay");
        assert_eq!(delay.severity, Severity::Note, "{}", delay.message);
        assert!(
            delay
                .message
                .ends_with(&format!("it keeps to {named} instead.")),
            "{}",
            delay.message
        );
    }
    // A gap between them (22:00 to 23:00) leaves the day open: every
    // windowed line is named.
    let gap = lint_text(
        b"User-agent: SeznamBot\nRequest-rate: 10/1m 0600-2200\n\
          Request-rate: 60/1m 2300-0600\nCrawl-delay: 5\n",
    );
    let delay = gap
        .iter()
        .find(|f| f.name == "crawl-delay")
        .expect("crawl-delay");
    assert_eq!(delay.severity, Severity::Warning, "{}", delay.message);
    assert!(
        delay.message.contains(
            "(line 2) and `Request-rate: 60/1m 2300-0600` (line 3) within their windows only"
        ),
        "{}",
        delay.message
    );
    let alone = lint_text(b"User-agent: *\nCrawl-delay: 10\nDisallow: /x\n");
    let delay = alone
        .iter()
        .find(|f| f.name == "crawl-delay")
        .expect("crawl-delay");
    assert_eq!(delay.severity, Severity::Warning);
    assert!(
        delay.message.contains("`Request-rate: 1/10s`"),
        "{}",
        delay.message
    );
}

#[test]
fn crawl_delay_advice_in_whole_seconds_and_under_the_floor() {
    let advice = |delay: &str| -> String {
        let text = format!("User-agent: *\nCrawl-delay: {delay}\nDisallow: /x\n");
        lint_text(text.as_bytes())
            .into_iter()
            .find(|f| f.name == "crawl-delay")
            .expect("crawl-delay")
            .message
    };
    for (delay, rate) in [("1.5", "2/3s"), ("0.25", "4/1s"), ("2", "1/2s")] {
        let message = advice(delay);
        assert!(
            message.contains(&format!("`Request-rate: {rate}`")),
            "{message}"
        );
        assert!(!message.contains("slowest rate"), "{message}");
    }
    // Seznam reads anything slower than 1/30s as 1/30s: say so.
    let message = advice("120");
    assert!(message.contains("`Request-rate: 1/120s`"), "{message}");
    assert!(
        message.contains("is read as 1/30s, the slowest rate the crawler honours"),
        "{message}"
    );
}

#[test]
fn each_crawler_is_judged_by_its_own_profile() {
    let other = Reader {
        token: "ExampleBot".into(),
        crawlers: vec!["ExampleBot".into(), "ExampleBot-News".into()],
        floor: Some((1, 10)),
        reads: Reads::RULES_ONLY.with(crate::robots::parse::Directive::RequestRate),
        homepage_exception: false,
    };
    let text = b"User-agent: ExampleBot\nRequest-rate: 1/20s\nDisallow: /x\n\n\
                 User-agent: ExampleBot-News\nDisallow: /y\n";
    let robots = Robots::new(text);
    let names = |readers: &[Reader]| -> Vec<(Option<usize>, &'static str)> {
        lint(&robots, readers)
            .into_iter()
            .map(|f| (f.line, f.name))
            .collect()
    };
    // Seznam's floor (1/30s) is not this crawler's; its own (1/10s) is.
    assert_eq!(names(&seznam()), vec![]);
    assert_eq!(
        names(&[other]),
        vec![(Some(2), "slow-request-rate"), (Some(5), "misnamed-agent")]
    );
}

#[test]
fn a_duplicate_by_encoding_says_so() {
    let findings = lint_text(
        "User-agent: *\nDisallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:\nDisallow: /wiki/Käyttäjä:\n"
            .as_bytes(),
    );
    let duplicate = findings
        .iter()
        .find(|f| f.name == "duplicate-rule")
        .expect("duplicate-rule");
    assert_eq!(duplicate.line, Some(3));
    assert!(
        duplicate
            .message
            .contains("repeats line 2 (the same pattern once percent-encoded)"),
        "{}",
        duplicate.message
    );
}

#[test]
fn a_file_past_the_limit() {
    let mut text = b"User-agent: *\n".to_vec();
    while text.len() <= parse_limit() {
        text.extend_from_slice(b"Disallow: /private/area/\n");
    }
    let findings = lint_text(&text);
    assert_eq!(findings[0].line, None);
    assert_eq!(findings[0].name, "file-too-large");
    assert_eq!(findings[0].severity, Severity::Error);
    assert!(
        findings[0]
            .message
            .starts_with(&format!("The file is {} bytes;", text.len())),
        "{}",
        findings[0].message
    );
    // Read from a pipe, only one byte past the limit is read: the size is
    // not known, and the lint does not make one up (it said 512001).
    let piped = &text[..parse_limit() + 1];
    let findings = lint_text(piped);
    assert!(
        findings[0]
            .message
            .starts_with(&format!("The file is more than {} bytes;", parse_limit())),
        "{}",
        findings[0].message
    );
}

fn parse_limit() -> usize {
    super::super::parse::SIZE_LIMIT
}

#[test]
fn html_gets_one_finding_only() {
    let got = names("<html>\n<body>\n<a href=\"https://x\">x</a>\nDisallow /x\n</body></html>\n");
    assert_eq!(got, vec![(None, "looks-like-html", Severity::Error)]);
}

/// The lines of a page (or of binary data) that are records are read by
/// crawlers and judged by the audit: their group and rule findings are
/// given as in any file, beside the one about the file, and no finding a
/// line for the page's syntax.
#[test]
fn records_inside_html_or_binary_are_still_linted() {
    let got = names("<html>\nUser-agent: *\nDisallow: /\n</html>\n");
    assert_eq!(
        got,
        vec![
            (None, "looks-like-html", Severity::Error),
            (Some(3), "disallow-all", Severity::Note),
            (Some(3), "seznam-homepage-exception", Severity::Warning),
        ]
    );
    let nul = "\0".repeat(200);
    let got = names(&format!(
        "{nul}\n{nul}\n{nul}\nUser-agent: *\nDisallow: /\n"
    ));
    assert!(
        got.contains(&(None, "looks-like-binary", Severity::Error)),
        "{got:?}"
    );
    assert!(
        got.contains(&(Some(5), "seznam-homepage-exception", Severity::Warning)),
        "{got:?}"
    );
}

#[test]
fn findings_are_sorted_by_line_then_name() {
    let findings = lint_text(
        b"Crawl-delay: 5\nUser-agent: *\nDisallow: /static/\nAllow: /static/\nDisallow:\n",
    );
    let keys: Vec<(Option<usize>, &str)> = findings.iter().map(|f| (f.line, f.name)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert!(findings.iter().all(|f| f.message.ends_with('.')));
}

#[test]
fn edit_distances() {
    let cases: &[(&str, &str, usize)] = &[
        ("", "", 0),
        ("allow", "allow", 0),
        ("dissallow", "disallow", 1),
        ("disalow", "disallow", 1),
        ("dissalow", "disallow", 2),
        ("diasllow", "disallow", 1),
        ("requestrate", "requestrtae", 1),
        ("abc", "", 3),
    ];
    for &(a, b, expected) in cases {
        assert_eq!(
            edit_distance(a.as_bytes(), b.as_bytes()),
            expected,
            "{a} {b}"
        );
    }
}

#[test]
fn each_crawler_groups_the_file_as_it_reads_it() {
    // SPEC §3: a record the crawler does not read neither ends the run of
    // User-agent lines nor the group. Seznam reads neither Visit-time nor
    // Crawl-delay; a token outside the table reads Allow and Disallow alone.
    // (robots.txt, finding, lines)
    let cases: &[(&str, &str, &[usize])] = &[
        // SeznamBot obeys `SeznamBot|*`, its own group: `/` is not excused
        // (SPEC §4), as `check` and the audit say.
        (
            "User-agent: SeznamBot\nVisit-time: 0100-0500\nUser-agent: *\nDisallow: /\n",
            "seznam-homepage-exception",
            &[],
        ),
        (
            "User-agent: SeznamBot\nCrawl-delay: 5\nUser-agent: *\nDisallow: /\n",
            "seznam-homepage-exception",
            &[],
        ),
        // Seznam obeys `*|Googlebot` for want of its own group.
        (
            "User-agent: *\nCrawl-delay: 5\nUser-agent: Googlebot\nDisallow: /\n",
            "seznam-homepage-exception",
            &[4],
        ),
        // Blocked in one reading only of a user-agent line without its
        // colon: `check` calls both allowed (regression review).
        (
            "User-agent: Googlebot\nDisallow: /private\nUseragent SeznamBot\n\
             Disallow: /wp-content/\n",
            "blocks-assets",
            &[],
        ),
        (
            "User-agent: *\nDisallow: /b\nUser-agent SeznamBot\nDisallow: /\n",
            "disallow-all",
            &[],
        ),
        // An Allow: / beside it lets everything through; in a merged
        // Robot-version 2.0 `*` group, every crawler but Seznam's.
        (
            "User-agent: *\nDisallow: /\nAllow: /\n",
            "disallow-all",
            &[],
        ),
        (
            "User-agent: *\nDisallow: /\n\nUser-agent: *\nRobot-version: 2.0\nAllow: /\n",
            "disallow-all",
            &[],
        ),
        // `/` forbidden in one reading only of a Request-rate line that
        // cannot be read: `check` calls it allowed, so the lint does not
        // say it is forbidden (regression review).
        (
            "User-agent: *\nRequest-rate: abc\nUser-agent: Googlebot\nAllow: /$\n\n\
             User-agent: *\nDisallow: /\n",
            "seznam-homepage-exception",
            &[],
        ),
        (
            "User-agent: *\nCrawl-delay: 5\nUser-agent: Googlebot\nDisallow: /\n",
            "disallow-all",
            &[4],
        ),
        // Request-rate ends the run for Seznam: `*` is a group of its own.
        (
            "User-agent: *\nRequest-rate: 1/10s\nUser-agent: Googlebot\nDisallow: /\n",
            "seznam-homepage-exception",
            &[],
        ),
        (
            "User-agent: Googlebot\nVisit-time: 0100-0500\nUser-agent: *\nDisallow: /js/\n",
            "blocks-assets",
            &[4],
        ),
        // `a` reads one group `a|b` and then its own: its Allow and
        // Disallow of `/x` meet, and the Allow wins.
        (
            "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nAllow: /x\n\nUser-agent: a\nDisallow: /x\n",
            "shadowed-rule",
            &[7],
        ),
        // Seznam reads the Request-rate as ending its run, so its Allow
        // stays apart from the `*` group's Disallow.
        (
            "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nAllow: /x\n\n\
             User-agent: SeznamBot\nDisallow: /x\n",
            "shadowed-rule",
            &[],
        ),
        // The floor is Seznam's where Seznam reads the line: in `a|*`.
        (
            "User-agent: a\nVisit-time: 0100-0500\nUser-agent: *\nRequest-rate: 1/1h\n",
            "slow-request-rate",
            &[4],
        ),
    ];
    for &(text, name, lines) in cases {
        assert_eq!(found(text, name), lines, "{text:?} {name}");
    }
}

#[test]
fn a_selection_is_placed_in_the_listing_only_when_grouped_alike() {
    let google = Reader {
        token: "Googlebot".into(),
        crawlers: vec!["Googlebot".into()],
        floor: None,
        reads: Reads::RULES_ONLY,
        homepage_exception: false,
    };
    let readers = [seznam().remove(0), google];
    let robots = Robots::new(
        b"User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n",
    );
    let listing = listing(&robots, &readers);
    assert_eq!(listing.groups().len(), 2);
    let selections = selections(&robots, &readers);
    assert_eq!(selections[0].1.placed_in(&listing), Some(vec![0]));
    // Googlebot reads one group `SeznamBot|*`, which the listing has not.
    assert_eq!(selections[1].1.placed_in(&listing), None);
    assert_eq!(selections[1].1.rules.groups(), &[0]);
    assert_eq!(selections[1].1.robots.groups()[0].label(), "SeznamBot|*");
    assert!(selections[1].1.holds(4) && selections[1].1.holds(2));
    assert!(!selections[0].1.holds(4));
    // Where the readings agree, every crawler is placed.
    let robots = Robots::new(b"User-agent: SeznamBot\nDisallow: /a\nUser-agent: *\nDisallow: /\n");
    let listing = super::listing(&robots, &readers);
    let placed: Vec<Option<Vec<usize>>> = super::selections(&robots, &readers)
        .iter()
        .map(|(_, s)| s.placed_in(&listing))
        .collect();
    assert_eq!(placed, vec![Some(vec![0]), Some(vec![1])]);
}

/// A robots.txt of `head`, a comment line, then `line`, the 500 KiB limit
/// falling after `line`'s first `kept` octets.
fn cut_after(head: &str, line: &str, kept: usize) -> Vec<u8> {
    let mut input = head.as_bytes().to_vec();
    input.resize(crate::robots::parse::SIZE_LIMIT - kept - 1, b'#');
    input.push(b'\n');
    input.extend_from_slice(line.as_bytes());
    input
}

/// `cut_after`, the limit falling after `kept`, which `line` starts with.
fn cut_file(head: &str, kept: &str, line: &str) -> Vec<u8> {
    assert!(line.starts_with(kept), "{line:?} starts with {kept:?}");
    cut_after(head, line, kept.len())
}

/// The lint's findings of `input`, by line and name.
fn codes(input: &[u8]) -> Vec<(Option<usize>, &'static str)> {
    lint_text(input)
        .into_iter()
        .map(|f| (f.line, f.name))
        .collect()
}

/// Whether the lint of `input` finds `name`.
fn has(input: &[u8], name: &str) -> bool {
    codes(input).iter().any(|&(_, found)| found == name)
}

/// The lint rests no claim about rules on an Allow the size limit cut
/// (`group::Rule::cut`): it calls no rule dead for it, states only
/// `check`'s verdicts, and an Allow cut before its value is no empty
/// one.
#[test]
fn an_allow_cut_by_the_limit_makes_no_lint_claim() {
    let assets = cut_file(
        "User-agent: SeznamBot\nDisallow: /wp-content/\n",
        "Allow: /wp-",
        "Allow: /wp-content/uploads/\n",
    );
    // `check` allows the assets by the cut line (`/wp-*`): none is said
    // to be blocked.
    assert!(!has(&assets, "blocks-assets"), "{:?}", codes(&assets));
    assert!(!has(&assets, "shadowed-rule"), "{:?}", codes(&assets));
    let shadow = cut_file(
        "User-agent: SeznamBot\nDisallow: /clanky/x\n",
        "Allow: /clanky/",
        "Allow: /clanky/xyz\n",
    );
    assert!(!has(&shadow, "shadowed-rule"), "{:?}", codes(&shadow));
    let before_value = cut_file(
        "User-agent: SeznamBot\nDisallow: /\n",
        "Allow: ",
        "Allow: /a\n",
    );
    assert!(
        !has(&before_value, "empty-allow"),
        "{:?}",
        codes(&before_value)
    );
    // No claim rests on the cut line, either way: not shadowed by a
    // longer rule it may outgrow, no duplicate of a rule it may differ
    // from, and shadowing nothing.
    for (head, kept, line) in [
        (
            "User-agent: SeznamBot\nDisallow: /a*\n",
            "Allow: /a",
            "Allow: /abc\n",
        ),
        (
            "User-agent: SeznamBot\nAllow: /a\nDisallow: /\nDisallow: /abc/x\n",
            "Allow: /a",
            "Allow: /abc/x/y\n",
        ),
        (
            "User-agent: SeznamBot\nDisallow: /wp-content/\n",
            "Allow: /wp-content/",
            "Allow: /wp-content/uploads/\n",
        ),
        (
            "User-agent: SeznamBot\nDisallow: /\n",
            "Allow: /",
            "Allow: /x\n",
        ),
    ] {
        let input = cut_file(head, kept, line);
        assert!(!has(&input, "shadowed-rule"), "{kept}: {:?}", codes(&input));
        assert!(
            !has(&input, "duplicate-rule"),
            "{kept}: {:?}",
            codes(&input)
        );
    }
    // What the cut line holds is still said: a wildcard Seznam reads; a
    // character the cut split is no wrong encoding.
    let wildcard = cut_file(
        "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /\n",
        "Allow: /a?",
        "Allow: /a?b\n",
    );
    assert!(codes(&wildcard).contains(&(Some(5), "robot-version-wildcard")));
    let split = cut_after(
        "User-agent: SeznamBot\nDisallow: /\n",
        "Allow: /\u{e9}\n",
        "Allow: /".len() + 1,
    );
    assert_eq!(split[crate::robots::parse::SIZE_LIMIT - 1], 0xC3);
    assert!(
        codes(&split)
            .iter()
            .all(|&(line, _)| line.is_none_or(|line| line < 4)),
        "{:?}",
        codes(&split)
    );
}

/// What the lint says of a file the limit cut in an Allow never
/// contradicts `check` on it: assets blocked and the home page forbidden
/// are `check`'s verdicts, and the cut line is no rule outside a group and
/// fills no empty group (second review of the cut Allow).
#[test]
fn the_lint_of_a_cut_file_never_contradicts_check() {
    // `check` allows the stylesheet by the cut Allow: only the script is
    // said to be blocked.
    let assets = cut_file(
        "User-agent: *\nDisallow: /wp-content/\n",
        "Allow: /wp-content/themes/",
        "Allow: /wp-content/themes/\n",
    );
    let found = lint_text(&assets);
    let blocked: Vec<&str> = found
        .iter()
        .filter(|f| f.name == "blocks-assets")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert!(!blocked[0].contains("style.css"), "{blocked:?}");
    // `check` allows `/` by the cut `Allow: /$`.
    let home = cut_file("User-agent: *\nDisallow: /\n", "Allow: /", "Allow: /$\n");
    assert!(
        !has(&home, "seznam-homepage-exception"),
        "{:?}",
        codes(&home)
    );
    // Blanks before a User-agent line, cut: no rule outside a group.
    let blanks = cut_file(
        "Sitemap: https://e.cz/s.xml\n",
        " ",
        " User-agent: SeznamBot\n",
    );
    assert!(!has(&blanks, "rule-outside-group"), "{:?}", codes(&blanks));
    // A key's first letters in an empty group: the group stays empty.
    let empty = cut_file("User-agent: SeznamBot\n", "A", "Allow: /x\n");
    assert!(has(&empty, "empty-group"), "{:?}", codes(&empty));
    // Nor does it make a file without User-agent lines one with rules.
    let none = cut_file("Sitemap: https://e.cz/s.xml\n", "A", "Allow: /x\n");
    assert!(has(&none, "no-groups"), "{:?}", codes(&none));
    // `check` allows everything by `Allo…` under `*`: no "blocks every
    // crawler".
    let all = cut_file("User-agent: *\nDisallow: /\n", "Allo", "Allow: /x\n");
    assert!(!has(&all, "disallow-all"), "{:?}", codes(&all));
    // Nor when the cut Allow is in a second `*` group: they merge.
    let all = cut_file(
        "User-agent: *\nDisallow: /\n\nUser-agent: *\n",
        "Allo",
        "Allow: /x\n",
    );
    assert!(!has(&all, "disallow-all"), "{:?}", codes(&all));
}

/// `Disallow: /` under `Robot-version: 2.0` forbids the home page alone:
/// no "blocks every crawler" (`check` allows `/x`); `Disallow: /*` there
/// still does.
#[test]
fn disallow_all_is_not_said_of_a_home_page_rule_of_robot_version_2() {
    assert!(
        found(
            "User-agent: *\nRobot-version: 2.0\nDisallow: /\n",
            "disallow-all"
        )
        .is_empty()
    );
    assert_eq!(
        found(
            "User-agent: *\nRobot-version: 2.0\nDisallow: /*\n",
            "disallow-all"
        ),
        [3]
    );
    assert_eq!(found("User-agent: *\nDisallow: /\n", "disallow-all"), [2]);
}

/// A rule is called duplicate or shadowed only when it is so in every
/// reading of the file: after a user-agent line without its colon (or a
/// typo key Google's parser reads so), the rule is that crawler's own in
/// Google's reading, which the audit needs too (a row only where every
/// reading disallows), so deleting it would change the verdict.
#[test]
fn no_dead_rule_is_claimed_on_one_reading() {
    for (agent_line, input) in [
        (
            "User-agent SeznamBot",
            "User-agent: *\nDisallow: /admin\n\n{}\nDisallow: /admin\n",
        ),
        (
            "Useragent: SeznamBot",
            "User-agent: *\nDisallow: /admin\n\n{}\nDisallow: /admin\n",
        ),
        (
            "User-agent Googlebot",
            "User-agent: SeznamBot\nDisallow: /tmp\nDisallow: /\n\n{}\nAllow: /\nDisallow: /admin\n",
        ),
    ] {
        let text = input.replace("{}", agent_line);
        let found = codes(text.as_bytes());
        assert!(
            !found
                .iter()
                .any(|&(_, f)| f == "duplicate-rule" || f == "shadowed-rule"),
            "{text}: {found:?}"
        );
    }
    // With the colon, one reading: the claims stand.
    let text = "User-agent: *\nDisallow: /admin\nDisallow: /admin\n";
    assert!(has(text.as_bytes(), "duplicate-rule"));
}

/// Tokens outside the table that select the same groups share one
/// selection: 12,000 tokens in one run of user-agent lines were a copy of
/// the file's groups each, three times over (tens of GB). The findings
/// stay those of one token.
#[test]
fn tokens_that_select_alike_share_one_selection() {
    let many: String = (0..3_000)
        .map(|i| format!("User-agent: bot{}\n", letters(i)))
        .collect();
    let text = format!("{many}Disallow: /x\nDisallow: /x\n\nUser-agent: *\nDisallow: /y\n");
    let robots = Robots::new(text.as_bytes());
    let readers = seznam();
    let listed = listing(&robots, &readers);
    let scope = Scope::new(&listed, &readers);
    // The run's tokens, the `*` group's unnamed crawler, and the table's.
    assert!(
        scope.selections.len() <= 2 + readers.len(),
        "{}",
        scope.selections.len()
    );
    assert_eq!(
        found(&text, "duplicate-rule"),
        found(
            "User-agent: bota\nDisallow: /x\nDisallow: /x\n\nUser-agent: *\nDisallow: /y\n",
            "duplicate-rule"
        )
        .into_iter()
        .map(|line| line + 2_999)
        .collect::<Vec<_>>()
    );
}

/// `i` in letters, `a`, `b`, … `ba`: a product token of its own.
fn letters(mut i: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (i % 26) as u8);
        i /= 26;
        if i == 0 {
            break;
        }
    }
    String::from_utf8(out).unwrap()
}

/// A line the lint says can go (no effect, never decides, repeats
/// another) must not end a run of user-agent lines alone: deleted, it
/// would join the group to the next one's rules. Each file's claimed
/// line, deleted, regroups the file; the same line in a group with
/// another rule after it is still said.
#[test]
fn a_line_that_ends_a_group_alone_is_never_said_to_go() {
    let regroup: [(&str, &str); 5] = [
        (
            "User-agent: *\nAllow:\n\nUser-agent: Googlebot\nDisallow: /\n",
            "empty-allow",
        ),
        (
            "User-agent: *\nRobot-version: 3.0\n\nUser-agent: Googlebot\nDisallow: /\n",
            "unknown-robot-version",
        ),
        (
            "User-agent: *\nDisallow: /tmp/\n\nUser-agent: *\nDisallow: /tmp/\n\n\
             User-agent: BadBot\nDisallow: /\n",
            "duplicate-rule",
        ),
        (
            "User-agent: *\nAllow: /a\n\nUser-agent: *\nDisallow: /a\n\n\
             User-agent: BadBot\nDisallow: /\n",
            "shadowed-rule",
        ),
        (
            "User-agent: *\nDisallow: /x\nUseragent: *\nRobot-version: 2.0\nDisallow: /a\n",
            "misplaced-robot-version",
        ),
    ];
    for (text, name) in regroup {
        assert!(
            !names(text).iter().any(|(_, n, _)| *n == name),
            "{name} said of\n{text}\n{:?}",
            names(text)
        );
    }
    // With another rule after it, the line can go: still said.
    let kept: [(&str, &str); 3] = [
        (
            "User-agent: *\nAllow:\nDisallow: /x\n\nUser-agent: Googlebot\nDisallow: /\n",
            "empty-allow",
        ),
        (
            "User-agent: *\nDisallow: /tmp/\n\nUser-agent: *\nDisallow: /tmp/\nDisallow: /y\n\n\
             User-agent: BadBot\nDisallow: /\n",
            "duplicate-rule",
        ),
        ("User-agent: *\nAllow:\n", "empty-allow"),
    ];
    for (text, name) in kept {
        assert!(
            names(text).iter().any(|(_, n, _)| *n == name),
            "{name} not said of\n{text}\n{:?}",
            names(text)
        );
    }
}

/// Tokens that each have a group of their own (a bad-bot list of 1,775
/// `User-agent: X` / `Disallow: /` groups) select apart, but share the
/// file as their reading groups it: a copy each made 4.8 GB and 8 s of
/// one such real list. Which selections hold a line is found once, and
/// is what asking each selection says.
#[test]
fn groups_of_distinct_tokens_share_their_reading() {
    let text: String = (0..600)
        .map(|i| format!("User-agent: bot{}\nDisallow: /\n\n", letters(i)))
        .collect::<String>()
        + "User-agent: *\nDisallow: /wp-admin/\n";
    let robots = Robots::new(text.as_bytes());
    let readers = seznam();
    let listed = listing(&robots, &readers);
    let scope = Scope::new(&listed, &readers);
    assert!(scope.selections.len() > 600, "{}", scope.selections.len());
    let mut files: Vec<*const Robots> = scope
        .selections
        .iter()
        .chain(scope.keepers.iter().flatten())
        .map(|s| Arc::as_ptr(&s.robots))
        .collect();
    files.sort_unstable();
    files.dedup();
    // One a way of reading the file (what a crawler reads beside Allow
    // and Disallow), not one a token.
    assert!(files.len() <= 4, "{}", files.len());
    for line in 1..=robots
        .file()
        .records
        .iter()
        .map(|r| r.line)
        .max()
        .unwrap_or(0)
    {
        let asked: Vec<usize> = (0..scope.selections.len())
            .filter(|&s| scope.selections[s].holds(line))
            .collect();
        assert_eq!(scope.users(line), asked, "line {line}");
    }
}
