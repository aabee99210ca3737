//! Conformance of the robots.txt engine: the examples of RFC 9309 quoted
//! verbatim, the cases other implementations' suites check (longest match,
//! Allow ties, `*`, `$`, groups, case, encoding), and SPEC §3's choices
//! where implementations differ. Each case is (robots.txt, token, target,
//! allowed).

use robots_audit::robots::{Robots, user_agent_token};

const ALLOWED: bool = true;
const DISALLOWED: bool = false;

fn check(cases: &[(&str, &str, &str, bool)]) {
    for &(robots, token, target, expected) in cases {
        let robots = Robots::new(robots.as_bytes());
        let rules = robots.rules_for(token.as_bytes());
        let verdict = rules.judge(target.as_bytes());
        assert_eq!(
            verdict.allowed, expected,
            "token {token}, target {target}, robots.txt:\n{robots:#?}"
        );
        assert_eq!(verdict, rules.judge_by_scan(target.as_bytes()));
    }
}

/// RFC 9309 §5.1, verbatim (the `EOF` line included: it has no colon and is
/// ignored).
const RFC_5_1: &str = "User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
";

#[test]
fn rfc_9309_section_5_1_simple_example() {
    check(&[
        // "*": .gif files and /example/ are out, /publications/ is in.
        (RFC_5_1, "otherbot", "/example/page.html", DISALLOWED),
        (RFC_5_1, "otherbot", "/example/", DISALLOWED),
        (RFC_5_1, "otherbot", "/pics/cat.gif", DISALLOWED),
        (RFC_5_1, "otherbot", "/cat.gif?x=1", ALLOWED),
        (RFC_5_1, "otherbot", "/publications/index.html", ALLOWED),
        (RFC_5_1, "otherbot", "/publications/cover.gif", ALLOWED),
        (RFC_5_1, "otherbot", "/other/page.html", ALLOWED),
        (RFC_5_1, "otherbot", "/", ALLOWED),
        // foobot: only its two allowed paths; the "*" group is not inherited.
        (RFC_5_1, "foobot", "/example/page.html", ALLOWED),
        (RFC_5_1, "foobot", "/example/allowed.gif", ALLOWED),
        (RFC_5_1, "foobot", "/example/other.html", DISALLOWED),
        (RFC_5_1, "foobot", "/publications/x.html", DISALLOWED),
        (RFC_5_1, "foobot", "/", DISALLOWED),
        (RFC_5_1, "foobot", "/robots.txt", ALLOWED),
        // barbot and bazbot share one group.
        (RFC_5_1, "barbot", "/example/page.html", DISALLOWED),
        (RFC_5_1, "bazbot", "/example/page.html", DISALLOWED),
        (RFC_5_1, "bazbot", "/example/other.html", ALLOWED),
        (RFC_5_1, "barbot", "/cat.gif", ALLOWED),
        // quxbot: a group with no rules; it may fetch everything.
        (RFC_5_1, "quxbot", "/example/page.html", ALLOWED),
        (RFC_5_1, "quxbot", "/cat.gif", ALLOWED),
        (RFC_5_1, "QuxBot/2.1", "/anything", ALLOWED),
    ]);
}

/// RFC 9309 §5.2, verbatim.
const RFC_5_2: &str = "User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
";

#[test]
fn rfc_9309_section_5_2_longest_match() {
    check(&[
        (RFC_5_2, "foobot", "/example/page/", ALLOWED),
        (RFC_5_2, "foobot", "/example/page/allowed.gif", ALLOWED),
        (
            RFC_5_2,
            "foobot",
            "/example/page/disallowed.gif",
            DISALLOWED,
        ),
    ]);
}

#[test]
fn rfc_9309_section_2_2_1_groups() {
    // RFC 9309 §2.2.1, verbatim.
    let groups = "user-agent: a
disallow: /c

user-agent: b
disallow: /d

user-agent: e
user-agent: f
disallow: /g

user-agent: h
";
    check(&[
        (groups, "a", "/c", DISALLOWED),
        (groups, "a", "/d", ALLOWED),
        (groups, "b", "/d", DISALLOWED),
        (groups, "e", "/g", DISALLOWED),
        (groups, "f", "/g", DISALLOWED),
        (groups, "h", "/c", ALLOWED),
        (groups, "h", "/g", ALLOWED),
    ]);
    // RFC 9309 §2.2.1: groups naming the same agent are merged.
    let merged = "user-agent: ExampleBot
disallow: /foo
disallow: /bar

user-agent: ExampleBot
disallow: /baz
";
    check(&[
        (merged, "ExampleBot", "/foo", DISALLOWED),
        (merged, "ExampleBot", "/bar", DISALLOWED),
        (merged, "ExampleBot", "/baz", DISALLOWED),
        (merged, "ExampleBot", "/qux", ALLOWED),
        (merged, "OtherBot", "/foo", ALLOWED),
    ]);
}

#[test]
fn rfc_9309_section_2_2_3_special_characters() {
    // RFC 9309 §2.2.3: `%2A` and `%24` stand for a literal `*` and `$`.
    let escaped = "User-agent: *
Disallow: /path/file-with-a-%2A.html
Disallow: /path/foo-%24
";
    // RFC 9309 §2.2.3 table: `#` comments, `$` end, `*` any run.
    let table = "User-agent: *
Disallow: /
allow: / # comment in line
allow: /this/path/exactly$
allow: /this/*/exactly
";
    let table_only = "User-agent: *
Disallow: /
allow: /this/path/exactly$
allow: /this/*/exactly
";
    let dollar_only = "User-agent: *\nDisallow: /\nallow: /this/path/exactly$\n";
    check(&[
        (escaped, "x", "/path/file-with-a-*.html", DISALLOWED),
        (escaped, "x", "/path/file-with-a-%2A.html", DISALLOWED),
        (escaped, "x", "/path/file-with-a-x.html", ALLOWED),
        (escaped, "x", "/path/foo-$", DISALLOWED),
        (escaped, "x", "/path/foo-%24", DISALLOWED),
        (escaped, "x", "/path/foo-", ALLOWED),
        (table, "x", "/anything", ALLOWED),
        (table_only, "x", "/this/path/exactly", ALLOWED),
        (table_only, "x", "/this/path/exactly/not", ALLOWED),
        (dollar_only, "x", "/this/path/exactly", ALLOWED),
        (dollar_only, "x", "/this/path/exactly/not", DISALLOWED),
        (table_only, "x", "/this/long/way/exactly", ALLOWED),
        (table_only, "x", "/this/exactly", DISALLOWED),
        (table_only, "x", "/this//exactly", ALLOWED),
    ]);
}

#[test]
fn rfc_9309_section_2_2_2_percent_encoding_table() {
    // Each row of the §2.2.2 table: a rule written one way matches the
    // target written the other way.
    let rows = [
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
        (
            "/foo/bar?baz=https://foo.bar",
            "/foo/bar?baz=https://foo.bar",
        ),
        (
            "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
            "/foo/bar?baz=https%3a%2f%2ffoo.bar",
        ),
        ("/foo/bar/\u{30C4}", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/\u{30C4}"),
        ("/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
        ("/foo/bar/baz", "/foo/bar/%62%61%7A"),
    ];
    for (pattern, target) in rows {
        let robots = format!("User-agent: *\nDisallow: {pattern}$\n");
        check(&[(&robots, "x", target, DISALLOWED)]);
    }
    // SPEC §3: only escapes of unreserved characters are decoded; a
    // reserved character and its escape are different octets, in the
    // query as in the path, so these do not match each other.
    let apart = [
        (
            "/foo/bar?baz=https://foo.bar",
            "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        ),
        (
            "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
            "/foo/bar?baz=https://foo.bar",
        ),
    ];
    for (pattern, target) in apart {
        let robots = format!("User-agent: *\nDisallow: {pattern}$\n");
        check(&[(&robots, "x", target, ALLOWED)]);
    }
}

#[test]
fn longest_match_and_ties() {
    let g = |rules: &str| format!("user-agent: FooBot\n{rules}");
    let cases = [
        (
            g("allow: /x/page.html\ndisallow: /x/page.html\n"),
            "/x/page.html",
            ALLOWED,
        ),
        (
            g("disallow: /x/page.html\nallow: /x/page.html\n"),
            "/x/page.html",
            ALLOWED,
        ),
        (
            g("allow: /page\ndisallow: /*.html\n"),
            "/page.html",
            DISALLOWED,
        ),
        (g("allow: /page\ndisallow: /*.html\n"), "/page", ALLOWED),
        (
            g("allow: /x/page.\ndisallow: /*.html\n"),
            "/x/page.html",
            ALLOWED,
        ),
        (
            g("allow: /x/page.\ndisallow: /*.html\n"),
            "/x/y.html",
            DISALLOWED,
        ),
        (g("allow: /\ndisallow: /\n"), "/x", ALLOWED),
        (g("disallow: /\nallow: /\n"), "/x", ALLOWED),
        (g("disallow: /x\nallow: /x/\n"), "/x", DISALLOWED),
        (g("disallow: /x\nallow: /x/\n"), "/x/", ALLOWED),
        (g("allow: /$\ndisallow: /\n"), "/", ALLOWED),
        (g("allow: /$\ndisallow: /\n"), "/page.html", DISALLOWED),
        (g("allow: /x/\ndisallow: /x/page\n"), "/x/page", DISALLOWED),
        (g("allow: /p\ndisallow: /\n"), "/page", ALLOWED),
        (
            g("allow: /folder\ndisallow: /folder\n"),
            "/folder/page",
            ALLOWED,
        ),
        (
            g("allow: /page\ndisallow: /*.htm\n"),
            "/page.htm",
            DISALLOWED,
        ),
        // Length counts `*` and `$` as written.
        (
            g("disallow: /*.gif$\nallow: /a/b.g\n"),
            "/a/b.gif",
            DISALLOWED,
        ),
        (
            g("disallow: /*.gif$\nallow: /a/b.gi\n"),
            "/a/b.gif",
            ALLOWED,
        ),
        (g("disallow: /**\nallow: /x\n"), "/x", DISALLOWED),
    ];
    for (robots, target, expected) in &cases {
        check(&[(robots, "FooBot", target, *expected)]);
    }
}

#[test]
fn wildcards_and_end_anchor() {
    let g = |rules: &str| format!("user-agent: FooBot\ndisallow: /\n{rules}");
    let cases = [
        (g("allow: /fish\n"), "/bar", DISALLOWED),
        (g("allow: /fish\n"), "/fish", ALLOWED),
        (g("allow: /fish\n"), "/fish.html", ALLOWED),
        (g("allow: /fish\n"), "/fish/salmon.html", ALLOWED),
        (g("allow: /fish\n"), "/fishheads", ALLOWED),
        (g("allow: /fish\n"), "/fishheads/yummy.html", ALLOWED),
        (g("allow: /fish\n"), "/fish.html?id=anything", ALLOWED),
        (g("allow: /fish\n"), "/Fish.asp", DISALLOWED),
        (g("allow: /fish\n"), "/catfish", DISALLOWED),
        (g("allow: /fish\n"), "/?id=fish", DISALLOWED),
        (g("allow: /fish*\n"), "/fishheads/yummy.html", ALLOWED),
        (g("allow: /fish*\n"), "/Fish.asp", DISALLOWED),
        (g("allow: /fish/\n"), "/fish/", ALLOWED),
        (g("allow: /fish/\n"), "/fish/?id=anything", ALLOWED),
        (g("allow: /fish/\n"), "/fish/salmon.htm", ALLOWED),
        (g("allow: /fish/\n"), "/fish", DISALLOWED),
        (g("allow: /fish/\n"), "/fish.html", DISALLOWED),
        (g("allow: /fish/\n"), "/Fish/Salmon.asp", DISALLOWED),
        (g("allow: /*.php\n"), "/filename.php", ALLOWED),
        (g("allow: /*.php\n"), "/folder/filename.php", ALLOWED),
        (
            g("allow: /*.php\n"),
            "/folder/filename.php?parameters",
            ALLOWED,
        ),
        (g("allow: /*.php\n"), "/folder/any.php.file.html", ALLOWED),
        (g("allow: /*.php\n"), "/filename.php/", ALLOWED),
        (g("allow: /*.php\n"), "/", DISALLOWED),
        (g("allow: /*.php\n"), "/windows.PHP", DISALLOWED),
        (g("allow: /*.php$\n"), "/filename.php", ALLOWED),
        (g("allow: /*.php$\n"), "/folder/filename.php", ALLOWED),
        (
            g("allow: /*.php$\n"),
            "/filename.php?parameters",
            DISALLOWED,
        ),
        (g("allow: /*.php$\n"), "/filename.php/", DISALLOWED),
        (g("allow: /*.php$\n"), "/filename.php5", DISALLOWED),
        (g("allow: /*.php$\n"), "/windows.PHP", DISALLOWED),
        (g("allow: /fish*.php\n"), "/bar", DISALLOWED),
        (g("allow: /fish*.php\n"), "/fish.php", ALLOWED),
        (
            g("allow: /fish*.php\n"),
            "/fishheads/catfish.php?parameters",
            ALLOWED,
        ),
        (g("allow: /fish*.php\n"), "/Fish.PHP", DISALLOWED),
        (g("allow: /foo/*/qux\n"), "/foo/bar/qux", ALLOWED),
        (g("allow: /foo/*/qux\n"), "/foo//qux", ALLOWED),
        (g("allow: /foo/*/qux\n"), "/foo/qux", DISALLOWED),
        // A `$` that is not last is a literal `$`.
        (g("allow: /a$b\n"), "/a$b", ALLOWED),
        (g("allow: /a$b\n"), "/ab", DISALLOWED),
    ];
    for (robots, target, expected) in &cases {
        check(&[(robots, "FooBot", target, *expected)]);
    }
    let special = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
    let anchored = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
    let comment = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
    check(&[
        (special, "FooBot", "/foo/bar/quz", DISALLOWED),
        (special, "FooBot", "/foo/quz", ALLOWED),
        (special, "FooBot", "/foo//quz", ALLOWED),
        (special, "FooBot", "/foo/bax/quz", ALLOWED),
        (anchored, "FooBot", "/foo/bar", DISALLOWED),
        (anchored, "FooBot", "/foo/bar/qux", ALLOWED),
        (anchored, "FooBot", "/foo/bar/", ALLOWED),
        (anchored, "FooBot", "/foo/bar/baz", ALLOWED),
        (comment, "FooBot", "/foo/bar", ALLOWED),
        (comment, "FooBot", "/foo/quz", DISALLOWED),
    ]);
}

#[test]
fn group_forming_and_selection() {
    let split = "allow: /foo/bar/

user-agent: FooBot
disallow: /
allow: /x/
user-agent: BarBot
disallow: /
allow: /y/


allow: /w/
user-agent: BazBot

user-agent: FooBot
allow: /z/
disallow: /
";
    let sitemap_between = "User-agent: BarBot
Sitemap: https://foo.bar/sitemap
User-agent: *
Disallow: /
";
    let unknown_between = "User-agent: FooBot
Invalid-Unknown-Line: unknown
User-agent: *
Disallow: /
";
    let star_then_named = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
    let no_star = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n";
    let case = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n";
    let names = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n";
    let versioned = "User-agent: SeznamBot/4.0\nDisallow: /\n";
    let near_names = "User-agent: SeznamBot-test\nDisallow: /a\nUser-agent: SeznamBotX\nDisallow: /b\n\
                      User-agent: *\nDisallow: /c\n";
    let empty_named = "User-agent: SeznamBot\n\nUser-agent: *\nDisallow: /\n";
    let empty_named_at_end = "User-agent: *\nDisallow: /\nUser-agent: SeznamBot\n";
    let star_word = "User-agent: * # everyone\nDisallow: /a\nUser-agent: *bot\nDisallow: /b\n";
    let orphan = "Disallow: /\nUser-agent: *\nDisallow: /x\n";
    check(&[
        (split, "FooBot", "/x/b", ALLOWED),
        (split, "FooBot", "/z/d", ALLOWED),
        (split, "FooBot", "/y/c", DISALLOWED),
        (split, "FooBot", "/foo/bar/", DISALLOWED),
        (split, "BarBot", "/y/c", ALLOWED),
        (split, "BarBot", "/w/a", ALLOWED),
        (split, "BarBot", "/z/d", DISALLOWED),
        (split, "BazBot", "/z/d", ALLOWED),
        (split, "BazBot", "/x/b", DISALLOWED),
        (split, "QuxBot", "/x", ALLOWED),
        (sitemap_between, "FooBot", "/x", DISALLOWED),
        (sitemap_between, "BarBot", "/x", DISALLOWED),
        (unknown_between, "FooBot", "/x", DISALLOWED),
        (unknown_between, "BarBot", "/x", DISALLOWED),
        ("", "FooBot", "/", ALLOWED),
        (star_then_named, "FooBot", "/x/y", DISALLOWED),
        (star_then_named, "BarBot", "/x/y", ALLOWED),
        (no_star, "QuxBot", "/x/y", ALLOWED),
        (case, "Foo", "/x/y", ALLOWED),
        (case, "foo", "/a", DISALLOWED),
        (case, "FOO", "/a", DISALLOWED),
        (names, "FooBot", "/x/y", ALLOWED),
        (names, "foobot", "/a", DISALLOWED),
        (versioned, "SeznamBot", "/a", DISALLOWED),
        (near_names, "SeznamBot", "/a", ALLOWED),
        (near_names, "SeznamBot", "/b", ALLOWED),
        (near_names, "SeznamBot", "/c", DISALLOWED),
        (near_names, "SeznamBot-test", "/a", DISALLOWED),
        (empty_named, "SeznamBot", "/a", DISALLOWED),
        (empty_named_at_end, "SeznamBot", "/a", ALLOWED),
        (empty_named_at_end, "Googlebot", "/a", DISALLOWED),
        (star_word, "SeznamBot", "/a", DISALLOWED),
        (star_word, "SeznamBot", "/b", ALLOWED),
        (orphan, "SeznamBot", "/a", ALLOWED),
        (orphan, "SeznamBot", "/x", DISALLOWED),
    ]);
}

#[test]
fn empty_rules_and_robots_txt() {
    let g = |rules: &str| format!("User-agent: *\n{rules}");
    let cases = [
        (g("Disallow:\n"), "/", ALLOWED),
        (g("Disallow:\n"), "/anything", ALLOWED),
        (g("Disallow: \nDisallow: /x\n"), "/x", DISALLOWED),
        (g("Disallow: /x\nDisallow:\n"), "/x", DISALLOWED),
        (g("Allow:\nDisallow: /\n"), "/x", DISALLOWED),
        (g("Disallow: /\n"), "/robots.txt", ALLOWED),
        (g("Disallow: /robots.txt\n"), "/robots.txt", ALLOWED),
        (g("Disallow: /robots\n"), "/robots.txt", ALLOWED),
        // Exempt only without a query (SPEC §3): `/robots.txt?v=2` is
        // another resource.
        (g("Disallow: /\n"), "/robots.txt?v=2", DISALLOWED),
        (g("Disallow: /\n"), "/robots%2etxt", ALLOWED),
        (g("Disallow: /\n"), "/ROBOTS.TXT", DISALLOWED),
        (g("Disallow: /\n"), "/sub/robots.txt", DISALLOWED),
        (g("Disallow: /\n"), "", DISALLOWED),
        (g("Allow: /$\nDisallow: /\n"), "", ALLOWED),
    ];
    for (robots, target, expected) in &cases {
        check(&[(robots, "SeznamBot", target, *expected)]);
    }
}

#[test]
fn encoding_of_targets_and_patterns() {
    let g = |pattern: &str| format!("User-agent: FooBot\nDisallow: /\nAllow: {pattern}\n");
    let cases = [
        (
            g("/foo/bar?qux=taz&baz=http://foo.bar?tar&par"),
            "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
            ALLOWED,
        ),
        (g("/foo/bar/\u{30C4}"), "/foo/bar/%E3%83%84", ALLOWED),
        (g("/foo/bar/\u{30C4}"), "/foo/bar/\u{30C4}", ALLOWED),
        (g("/foo/bar/%E3%83%84"), "/foo/bar/%E3%83%84", ALLOWED),
        (g("/foo/bar/%e3%83%84"), "/foo/bar/%E3%83%84", ALLOWED),
        (g("/foo/bar/%62%61%7A"), "/foo/bar/baz", ALLOWED),
        (g("/foo/bar/%62%61%7A"), "/foo/bar/%62%61%7A", ALLOWED),
        (g("/~joe"), "/%7Ejoe/index.html", ALLOWED),
        (g("/%7Ejoe"), "/~joe/index.html", ALLOWED),
        // `%2F` in the path is not a `/`.
        (g("/a%2Fb"), "/a%2fb", ALLOWED),
        (g("/a%2Fb"), "/a/b", DISALLOWED),
        (g("/a/b"), "/a%2Fb", DISALLOWED),
        // Reserved characters keep their escapes apart from themselves.
        (g("/a%3Bb"), "/a;b", DISALLOWED),
        (g("/a?b=%26"), "/a?b=&", DISALLOWED),
        (g("/a b"), "/a%20b", ALLOWED),
        (g("/100%"), "/100%25", ALLOWED),
        (g("/100%25"), "/100%", ALLOWED),
        (g("/a%2Ab"), "/a*b", ALLOWED),
        (g("/a%2Ab"), "/axyzb", DISALLOWED),
    ];
    for (robots, target, expected) in &cases {
        check(&[(robots, "FooBot", target, *expected)]);
    }
}

#[test]
fn seznam_robot_version_2() {
    let v2 = "User-agent: SeznamBot
Robot-version: 2.0
Disallow: /*
Allow: /cz/
Allow: /en/*
Allow: /*.html$
";
    let misplaced = "User-agent: SeznamBot
Disallow: /private
Robot-version: 2.0
";
    let v2_then_plain = "User-agent: SeznamBot
Robot-version: 2.0
Disallow: /a

User-agent: SeznamBot
Disallow: /b
";
    // Under version 2.0 `Disallow: /` is the home page alone.
    let v2_root = "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /\n";
    check(&[
        (v2_root, "SeznamBot", "/", DISALLOWED),
        (v2_root, "SeznamBot", "/?q=1", ALLOWED),
        (v2_root, "SeznamBot", "/page", ALLOWED),
        (v2, "SeznamBot", "/", DISALLOWED),
        (v2, "SeznamBot", "/other", DISALLOWED),
        (v2, "SeznamBot", "/cz/", ALLOWED),
        (v2, "SeznamBot", "/cz/page", DISALLOWED),
        (v2, "SeznamBot", "/en/", ALLOWED),
        (v2, "SeznamBot", "/en/page", ALLOWED),
        (v2, "SeznamBot", "/x/page.html", ALLOWED),
        (v2, "SeznamBot", "/x/page.html?q", DISALLOWED),
        (v2, "OtherBot", "/x", ALLOWED),
        (misplaced, "SeznamBot", "/private/x", DISALLOWED),
        (v2_then_plain, "SeznamBot", "/a", DISALLOWED),
        (v2_then_plain, "SeznamBot", "/a/x", ALLOWED),
        (v2_then_plain, "SeznamBot", "/b/x", DISALLOWED),
    ]);
}

#[test]
fn deciding_rule_names_line_group_and_text() {
    let robots = Robots::new(
        b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nUser-agent: SeznamBot\n\
          Disallow: /cz/chat/ # no chat\nAllow: /cz/\n",
    );
    let rules = robots.rules_for(b"SeznamBot");
    assert_eq!(rules.groups(), &[1]);
    let verdict = rules.judge(b"/cz/chat/room?id=5");
    let rule = verdict.rule.expect("a rule decides");
    assert!(!verdict.allowed);
    assert_eq!(rule.line, 6);
    assert_eq!(rule.text, "Disallow: /cz/chat/");
    assert_eq!(rule.pattern, b"/cz/chat/");
    assert_eq!(robots.groups()[rule.group].label(), "Googlebot|SeznamBot");
    let star = robots.rules_for(b"Bingbot");
    let verdict = star.judge(b"/");
    let rule = verdict.rule.expect("a rule decides");
    assert_eq!(robots.groups()[rule.group].label(), "*");
    assert_eq!(rule.line, 2);
}

#[test]
fn full_user_agent_strings_reduce_to_tokens() {
    let robots = Robots::new(b"User-agent: SeznamBot\nDisallow: /\n");
    for full in [
        "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
        "SeznamBot/3.2-test4",
        "seznambot",
    ] {
        let token = user_agent_token(full.as_bytes());
        assert!(
            !robots.rules_for(token.as_bytes()).judge(b"/x").allowed,
            "{full}"
        );
    }
}

/// Counts this thread's allocations, to hold the matcher to its promise
/// that judging a target does not allocate once a thread is warm.
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        pub static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    }

    pub struct Counting;

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            // SAFETY: forwards the caller's layout to the system allocator.
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` came from `alloc` above with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }
}

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

#[test]
fn judging_does_not_allocate() {
    let robots = Robots::new(
        b"User-agent: *\nDisallow: /*?*sort=\nDisallow: /*.pdf$\nAllow: /cz/\nDisallow: /cz/chat/\n\
          Disallow: /%C5%A1koda\n",
    );
    let rules = robots.rules_for(b"SeznamBot");
    let targets: [&[u8]; 6] = [
        b"/cz/chat/room?sort=asc",
        b"/a/b.pdf",
        b"/",
        b"/robots.txt",
        b"/%c5%a1koda/x",
        "/\u{161}koda".as_bytes(),
    ];
    // Warm the thread's scratch buffer.
    for target in targets {
        rules.judge(target);
    }
    let before = counting::ALLOCATIONS.with(|n| n.get());
    let mut disallowed = 0;
    for target in targets {
        disallowed += usize::from(!rules.judge(target).allowed);
    }
    let after = counting::ALLOCATIONS.with(|n| n.get());
    assert_eq!(disallowed, 4);
    assert_eq!(after - before, 0, "judging allocated");
    // The counter does see allocations: compiling allocates.
    drop(robots.rules_for(b"Googlebot"));
    assert!(counting::ALLOCATIONS.with(|n| n.get()) > after);
}
