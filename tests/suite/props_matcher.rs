//! Property: for whole robots.txt files with hostile spellings — several
//! groups naming the crawler in different ways, Robot-version 2.0, CR, CRLF
//! and a BOM, comments, wildcards, `$` in and at the end, percent escapes of
//! every kind, octets outside ASCII — the compiled matcher gives the same
//! verdict and deciding line as the slow reference of
//! `fuzz/src/reference.rs`, written from SPEC §3 and RFC 9309 alone and
//! shared with the `robots_matcher` fuzz target.
//!
//! Also: patterns of thousands of `*` give the verdict a plain reading of
//! them gives, and the matcher never disagrees with its own linear scan.

use crate::support::reference;

use proptest::prelude::*;
use robots_audit::crawler::profile;
use robots_audit::robots::Robots;
use robots_audit::robots::group::Reads;

/// The records Seznam's crawlers read, from their built-in profile, and the
/// same as the reference spells them.
fn seznam_reads() -> Reads {
    profile::builtin_named("SeznamBot")
        .map(|p| p.reads)
        .expect("SeznamBot is built in")
}

const SEZNAM_READS: &[&str] = &["request-rate", "robot-version"];

/// How a crawler with this token reads records: Seznam's reads its
/// extensions, the others only Allow and Disallow.
fn reads_of(token: &str) -> (Reads, &'static [&'static str]) {
    if token.eq_ignore_ascii_case("SeznamBot") {
        (seznam_reads(), SEZNAM_READS)
    } else {
        (Reads::RULES_ONLY, &[])
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const PATTERN_PIECES: &[&str] = &[
    "/", "/", "a", "b", "A", "*", "*", "$", "%2F", "%2f", "%41", "%61", "%2A", "%24", "?", "%3F",
    "%3a", ":", "%", "%E3", "é", " ", "%20", "~", "%7E", "=", "&", "2", "4",
];

const TARGET_PIECES: &[&str] = &[
    "/",
    "/",
    "a",
    "b",
    "A",
    "%2F",
    "%2f",
    "%41",
    "%61",
    "?",
    "%3F",
    "%3A",
    ":",
    "*",
    "$",
    "%2A",
    "%24",
    "%",
    "%E3",
    "é",
    " ",
    "%20",
    "~",
    "%7e",
    "=",
    "&",
    "robots.txt",
];

fn pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PATTERN_PIECES), 0..7).prop_map(|p| p.concat())
}

fn target() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TARGET_PIECES), 0..8)
        .prop_map(|p| format!("/{}", p.concat()))
}

#[derive(Debug, Clone)]
enum Line {
    Agent(&'static str),
    Rule(bool, String),
    Version(&'static str),
    Other(&'static str),
    Blank,
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        2 => prop::sample::select(vec![
            "SeznamBot", "seznambot/4.0", "SEZNAMBOT foo", "SeznamBot-test", "SeznamBotX",
            "*", "* # all", "*bot", "Googlebot",
        ]).prop_map(Line::Agent),
        5 => (any::<bool>(), pattern()).prop_map(|(allow, p)| Line::Rule(allow, p)),
        1 => prop::sample::select(vec!["2.0", "2", "1.0", "2.00"]).prop_map(Line::Version),
        1 => prop::sample::select(vec![
            "Sitemap: https://example.cz/s.xml", "Crawl-delay: 5", "Request-rate: 1/10s",
            "# comment", "Disallow /no-colon", "Unknown: x", "Allow:", "Disallow:",
        ]).prop_map(Line::Other),
        1 => Just(Line::Blank),
    ]
}

fn robots_text(lines: &[Line], ending: &str, bom: bool) -> String {
    let mut text = String::new();
    if bom {
        text.push('\u{feff}');
    }
    for line in lines {
        match line {
            Line::Agent(value) => text.push_str(&format!("User-agent: {value}")),
            Line::Rule(allow, pattern) => {
                let key = if *allow { "allow" } else { "DISALLOW" };
                text.push_str(&format!("{key}:{pattern} # why"));
            }
            Line::Version(value) => text.push_str(&format!("Robot-version: {value}")),
            Line::Other(other) => text.push_str(other),
            Line::Blank => {}
        }
        text.push_str(ending);
    }
    text
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn whole_files_agree_with_the_reference(
        lines in prop::collection::vec(line(), 0..16),
        ending in prop::sample::select(vec!["\n", "\r\n", "\r"]),
        bom in any::<bool>(),
        targets in prop::collection::vec(target(), 1..6),
    ) {
        let text = robots_text(&lines, ending, bom);
        let robots = Robots::new(text.as_bytes());
        for token in ["SeznamBot", "Googlebot", "nobody"] {
            let (reads, names) = reads_of(token);
            let compiled = robots.read_as(reads).rules_for(token.as_bytes());
            let rules = reference::rules_for(text.as_bytes(), token.as_bytes(), names);
            for target in &targets {
                let got = compiled.judge(target.as_bytes());
                let want = reference::judge(&rules, target.as_bytes());
                prop_assert_eq!(
                    (got.allowed, got.rule.map(|r| r.line)),
                    (want.allowed, want.line),
                    "{} as {} on\n{}", target, token, text
                );
                prop_assert_eq!(got, compiled.judge_by_scan(target.as_bytes()));
            }
        }
    }

    /// `/` then runs of `*` around literal pieces: whatever the number of
    /// stars, the pattern matches exactly when the pieces occur in order.
    #[test]
    fn many_stars_read_as_one(
        pieces in prop::collection::vec("[ab]{1,3}", 1..4),
        stars in prop::collection::vec(1usize..400, 1..4),
        anchored in any::<bool>(),
        target in "/[ab]{0,40}",
    ) {
        let mut pattern = String::from("/");
        let mut plain = String::from("/");
        for (i, piece) in pieces.iter().enumerate() {
            pattern.push_str(&"*".repeat(stars[i % stars.len()]));
            plain.push('*');
            pattern.push_str(piece);
            plain.push_str(piece);
        }
        if anchored {
            pattern.push('$');
            plain.push('$');
        }
        let many = Robots::new(format!("User-agent: *\nDisallow: {pattern}\n").as_bytes());
        let one = Robots::new(format!("User-agent: *\nDisallow: {plain}\n").as_bytes());
        let many = many.rules_for(b"SeznamBot");
        let one = one.rules_for(b"SeznamBot");
        prop_assert_eq!(
            many.judge(target.as_bytes()).allowed,
            one.judge(target.as_bytes()).allowed,
            "{} vs {} on {}", pattern, plain, target
        );
        let rules = reference::rules_for(format!("User-agent: *\nDisallow: {plain}\n").as_bytes(), b"SeznamBot", SEZNAM_READS);
        prop_assert_eq!(one.judge(target.as_bytes()).allowed, reference::judge(&rules, target.as_bytes()).allowed);
    }
}

/// Hand-picked cases the reference and the matcher must both get right.
#[test]
fn reference_agrees_on_known_cases() {
    // (robots.txt, token, target, allowed, deciding line)
    let cases: &[(&str, &str, &str, bool, Option<usize>)] = &[
        (
            "User-agent: *\nDisallow: /\n",
            "SeznamBot",
            "/robots.txt",
            true,
            None,
        ),
        (
            "User-agent: *\nDisallow: /\n",
            "SeznamBot",
            "/robots%2Etxt",
            true,
            None,
        ),
        // Exempt only without a query (SPEC §3).
        (
            "User-agent: *\nDisallow: /\n",
            "SeznamBot",
            "/robots.txt?x",
            false,
            Some(2),
        ),
        // Octet by octet after normalisation (SPEC §3).
        (
            "User-agent: *\nDisallow: /*url=http%3A\n",
            "SeznamBot",
            "/out?url=http%3A//x",
            false,
            Some(2),
        ),
        (
            "User-agent: *\nDisallow: /*url=http%3A\n",
            "SeznamBot",
            "/out?url=http://x",
            true,
            None,
        ),
        (
            "User-agent: *\nDisallow: /*A\n",
            "SeznamBot",
            "/%2A",
            false,
            Some(2),
        ),
        (
            "User-agent: *\nDisallow: /a%2A\n",
            "SeznamBot",
            "/a*b",
            false,
            Some(2),
        ),
        // A target's literal `*` and `$` are one character each: no
        // wildcard ends inside them (the conformance review's cases).
        (
            "User-agent: SeznamBot\nDisallow: /*A\nDisallow: /*4$\n",
            "SeznamBot",
            "/*",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /*A\nDisallow: /*4$\n",
            "SeznamBot",
            "/q*",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /*A\nDisallow: /*4$\n",
            "SeznamBot",
            "/x$",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /*A\nDisallow: /*4$\n",
            "SeznamBot",
            "/q$",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /*A\nDisallow: /*4$\n",
            "SeznamBot",
            "/x%24",
            false,
            Some(3),
        ),
        (
            "User-agent: *\nDisallow: /a%2Ab\n",
            "SeznamBot",
            "/a%2Ab",
            false,
            Some(2),
        ),
        (
            "User-agent: *\nDisallow: /a%2Ab\n",
            "SeznamBot",
            "/aXb",
            true,
            None,
        ),
        (
            "User-agent: *\nDisallow: /x%24\n",
            "SeznamBot",
            "/x$",
            false,
            Some(2),
        ),
        (
            "User-agent: *\nAllow: /a%2A\nDisallow: /a*\n",
            "SeznamBot",
            "/a*",
            true,
            Some(2),
        ),
        (
            "User-agent: *\nDisallow: /a%2A\nAllow: /a*bc\n",
            "SeznamBot",
            "/a*bc",
            true,
            Some(3),
        ),
        (
            "User-agent: *\nDisallow: /a|b\n",
            "SeznamBot",
            "/a%7Cb",
            false,
            Some(2),
        ),
        (
            "User-agent: *\nDisallow: /a%7cb\n",
            "SeznamBot",
            "/a|b",
            false,
            Some(2),
        ),
        // A cut byte-order mark is ignored (SPEC §1).
        (
            "\u{00EF}User-agent: *\nDisallow: /x\n",
            "SeznamBot",
            "/x",
            false,
            Some(2),
        ),
        // SPEC §3's group runs: SeznamBot reads Request-rate, so its run
        // ends there and `*` is a group of its own; Googlebot does not, so
        // both user-agent lines are one group.
        (
            "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n",
            "SeznamBot",
            "/admin",
            true,
            None,
        ),
        (
            "User-agent: Googlebot\nRequest-rate: 1/10s\nUser-agent: SeznamBot\nDisallow: /admin\n",
            "Googlebot",
            "/admin",
            false,
            Some(4),
        ),
        // Crawl-delay is no record Seznam reads: it does not end the run.
        (
            "User-agent: Googlebot\nCrawl-delay: 5\nUser-agent: SeznamBot\nDisallow: /admin\n",
            "SeznamBot",
            "/admin",
            false,
            Some(4),
        ),
        (
            "User-agent: *\nDisallow: /\n\nUser-agent: SeznamBot\nDisallow: /cz/chat/\nAllow: /cz/\n",
            "SeznamBot",
            "/cz/chat/x",
            false,
            Some(5),
        ),
        (
            "User-agent: SeznamBot\nAllow: /p\nDisallow: /\n",
            "SeznamBot",
            "/page",
            true,
            Some(2),
        ),
        (
            "User-agent: SeznamBot\nDisallow: /*.php$\n",
            "SeznamBot",
            "/a.php?x",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /a%2fb\n",
            "SeznamBot",
            "/a/b",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /%7euser\n",
            "SeznamBot",
            "/~user/x",
            false,
            Some(2),
        ),
        (
            "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /a\n",
            "SeznamBot",
            "/ab",
            true,
            None,
        ),
        (
            "User-agent: SeznamBot\nDisallow: /\u{e9}\n",
            "SeznamBot",
            "/%C3%A9t",
            false,
            Some(2),
        ),
    ];
    for &(text, token, target, allowed, line) in cases {
        // The cut mark is the octet EF alone, not the character U+00EF.
        let text: Vec<u8> = match text.strip_prefix('\u{00EF}') {
            Some(rest) => [&[0xEF][..], rest.as_bytes()].concat(),
            None => text.as_bytes().to_vec(),
        };
        let (reads, names) = reads_of(token);
        let rules = reference::rules_for(&text, token.as_bytes(), names);
        let want = reference::judge(&rules, target.as_bytes());
        let shown = String::from_utf8_lossy(&text);
        assert_eq!(
            (want.allowed, want.line),
            (allowed, line),
            "reference: {target} on {shown}"
        );
        let robots = Robots::new(&text).read_as(reads);
        let compiled = robots.rules_for(token.as_bytes());
        let got = compiled.judge(target.as_bytes());
        assert_eq!(
            (got.allowed, got.rule.map(|r| r.line)),
            (allowed, line),
            "{target} on {shown}"
        );
    }
}
