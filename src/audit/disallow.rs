//! `disallow` rows (SPEC §4): the robots.txt verdict for the crawler's
//! token and the fetched target, with the deciding rule. Seznam's documented
//! habit of fetching `/` under `User-agent: *` + `Disallow: /` is still a
//! row, marked with a note.

use std::borrow::Cow;

use super::{Kind, Policy, Violation};
use crate::robots::matcher::is_home_page;

/// The note on a fetch of `/` that Seznam documents it makes anyway.
pub const HOMEPAGE_EXCEPTION: &str = "seznam-homepage-exception";

/// The row for a fetch of `target` when the crawler's rules disallow it.
pub fn judge<'r>(policy: &Policy<'r>, target: &[u8]) -> Option<Violation<'r>> {
    let verdict = policy.rules.judge(target);
    if verdict.allowed {
        return None;
    }
    let rule = verdict.rule?;
    if !policy.rules.accuses(target) {
        return None;
    }
    let note = if policy.homepage_exception
        && is_home_page(target)
        && policy.rules.is_default_group(rule.group)
    {
        HOMEPAGE_EXCEPTION
    } else {
        ""
    };
    Some(Violation {
        kind: Kind::Disallow,
        group: policy.rules.group_label(rule.group),
        rule_line: rule.line,
        rule: Cow::Borrowed(&rule.text),
        robots_version: policy.version,
        detail: String::new(),
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::{HOMEPAGE_EXCEPTION, judge};
    use crate::audit::{Kind, Policy};
    use crate::crawler::profile::{Profile, builtin_named};
    use crate::robots::Robots;

    fn seznambot() -> Profile {
        builtin_named("SeznamBot").unwrap()
    }

    /// The rows for `targets` as (target, group, rule line, rule, note),
    /// each row checked to carry `version` as its `robots_version`.
    fn rows(
        profile: &Profile,
        robots: &str,
        version: &str,
        targets: &[&str],
    ) -> Vec<(String, String, usize, String, &'static str)> {
        let robots = Robots::new(robots.as_bytes()).read_as(profile.reads);
        let rules = robots.rules_for(profile.token.as_bytes());
        let policy = Policy::new(profile, &rules);
        targets
            .iter()
            .filter_map(|target| Some((target, judge(&policy, target.as_bytes())?)))
            .map(|(target, row)| {
                assert_eq!(row.kind, Kind::Disallow);
                assert_eq!(row.robots_version, version);
                assert_eq!(row.detail, "");
                (
                    target.to_string(),
                    row.group.to_string(),
                    row.rule_line,
                    row.rule.to_string(),
                    row.note,
                )
            })
            .collect()
    }

    fn row(
        target: &str,
        group: &str,
        line: usize,
        rule: &str,
        note: &'static str,
    ) -> (String, String, usize, String, &'static str) {
        (target.into(), group.into(), line, rule.into(), note)
    }

    // robots_version: the first 12 hex digits of the file's SHA-256, as
    // `printf '…' | sha256sum` gives them (SPEC §5).
    const ALL_SHUT: &str = "User-agent: *\nDisallow: /\n";
    const ALL_SHUT_VERSION: &str = "331ea9090db0";
    const SEZNAM_SHUT: &str = "User-agent: SeznamBot\nDisallow: /\nAllow: /open\n";
    const SEZNAM_SHUT_VERSION: &str = "b569c0ee436c";

    #[test]
    fn homepage_under_a_shut_default_group_only_informs() {
        // SPEC §4: Seznam fetches `/` under `User-agent: *` + `Disallow: /`
        // and says so; the row stays, marked, and any other target accuses.
        assert_eq!(
            rows(
                &seznambot(),
                ALL_SHUT,
                ALL_SHUT_VERSION,
                &["/", "/page", "/?q=1"]
            ),
            [
                row("/", "*", 2, "Disallow: /", HOMEPAGE_EXCEPTION),
                row("/page", "*", 2, "Disallow: /", ""),
                row("/?q=1", "*", 2, "Disallow: /", ""),
            ]
        );
    }

    #[test]
    fn a_group_naming_the_crawler_gets_no_homepage_exception() {
        assert_eq!(
            rows(
                &seznambot(),
                SEZNAM_SHUT,
                SEZNAM_SHUT_VERSION,
                &["/", "/open/a", "/x"]
            ),
            [
                row("/", "SeznamBot", 2, "Disallow: /", ""),
                row("/x", "SeznamBot", 2, "Disallow: /", ""),
            ]
        );
    }

    #[test]
    fn a_group_naming_both_the_crawler_and_star_is_the_crawlers_own() {
        // The crawler obeys the group for its name, not as the `*`
        // fallback: its fetch of `/` accuses, in either order of the lines.
        for (robots, version, label) in [
            (
                "User-agent: SeznamBot\nUser-agent: *\nDisallow: /\n",
                "17af27525e63",
                "SeznamBot|*",
            ),
            (
                "User-agent: *\nUser-agent: SeznamBot\nDisallow: /\n",
                "7f6d45fc9762",
                "*|SeznamBot",
            ),
        ] {
            assert_eq!(
                rows(&seznambot(), robots, version, &["/"]),
                [row("/", label, 3, "Disallow: /", "")]
            );
        }
    }

    #[test]
    fn the_home_page_with_a_fragment_is_the_home_page() {
        assert_eq!(
            rows(&seznambot(), ALL_SHUT, ALL_SHUT_VERSION, &["/#top", "/?#x"]),
            [
                row("/#top", "*", 2, "Disallow: /", HOMEPAGE_EXCEPTION),
                row("/?#x", "*", 2, "Disallow: /", ""),
            ]
        );
    }

    #[test]
    fn a_crawler_without_the_habit_is_accused_of_the_homepage() {
        let profile = Profile {
            homepage_exception: false,
            ..seznambot()
        };
        assert_eq!(
            rows(&profile, ALL_SHUT, ALL_SHUT_VERSION, &["/"]),
            [row("/", "*", 2, "Disallow: /", "")]
        );
    }

    #[test]
    fn allowed_fetches_make_no_rows() {
        let cases: &[(&str, &str)] = &[
            ("User-agent: *\nDisallow:\n", "/"),
            ("User-agent: *\nDisallow: /private/\n", "/public"),
            ("User-agent: Googlebot\nDisallow: /\n", "/"),
            (SEZNAM_SHUT, "/open"),
            ("", "/anything"),
            // Disallowed by RFC 9309's reading of a `User-agent NAME`
            // line without its colon, allowed by Google's.
            (
                "User-agent: SeznamBot\nDisallow: /p/\nUser-agent Googlebot\nDisallow: /\n",
                "/x",
            ),
        ];
        for (robots, target) in cases {
            let version = crate::robots::matcher::version_of(robots.as_bytes());
            assert_eq!(
                rows(&seznambot(), robots, &version, &[target]),
                [],
                "{robots:?} {target}"
            );
        }
    }

    #[test]
    fn a_line_without_colon_naming_the_crawler_accuses_where_both_readings_do() {
        // RFC 9309: the line is none, both rules are `*`'s; Google's parser:
        // SeznamBot's own group, `Disallow: /`. Both disallow both targets;
        // the row names RFC 9309's deciding rule.
        let robots = "User-agent: *\nDisallow: /admin\n\nUser-agent SeznamBot\nDisallow: /\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(
            rows(&seznambot(), robots, &version, &["/admin/x", "/clanky/1"]),
            [
                row("/admin/x", "*", 2, "Disallow: /admin", ""),
                row("/clanky/1", "*", 5, "Disallow: /", ""),
            ]
        );
    }

    #[test]
    fn a_request_rate_that_cannot_be_read_accuses_where_both_readings_do() {
        // Ending SeznamBot's first group at line 2 (a readable rate would),
        // SeznamBot reads only `Disallow: /priv`; letting the run go on, it
        // also reads Googlebot's rules, where `Allow: /private` wins. A row
        // only where both disallow.
        let robots = "User-agent: SeznamBot\nRequest-rate: whale/banana\nUser-agent: Googlebot\n\
                      Allow: /private\nDisallow: /\n\nUser-agent: SeznamBot\nDisallow: /priv\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(
            rows(
                &seznambot(),
                robots,
                &version,
                &["/private", "/privx", "/x"]
            ),
            [row("/privx", "SeznamBot", 8, "Disallow: /priv", "")]
        );
        // The other way round: one group for the first reading's shared
        // `*` rules is not the crawler's in the second.
        let robots = "User-agent: SeznamBot\nRequest-rate: 1/0s\nUser-agent: *\n\
                      Disallow: /folder1/\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(rows(&seznambot(), robots, &version, &["/folder1/a"]), []);
        // With a user-agent line without its colon too, every combination
        // of the two lines' readings is one: only the one that reads line
        // 4 as Google does and ends the run at line 5 allows /x, and one
        // reading that allows is no row (regression review).
        let robots = "User-agent: Googlebot\nDisallow: /g\n\nUser-agent SeznamBot\n\
                      Request-rate: 0/10s\nUser-agent: *\nDisallow: /x\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(rows(&seznambot(), robots, &version, &["/x"]), []);
        let robots = "User-agent: SeznamBot\nDisallow: /a\n\nUser-agent: SeznamBot\n\
                      Request-rate: 0/10s\nUser-agent: Bingbot\nDisallow: /b\n\n\
                      User-agent Foo\nAllow: /a\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(rows(&seznambot(), robots, &version, &["/a"]), []);
    }

    #[test]
    fn seznams_own_wildcards_accuse_only_where_both_readings_disallow() {
        // Seznam documents `?`, `[set]` and `\` as wildcards in a
        // Robot-version 2.0 group; SPEC §3 reads them literally. A row only
        // where both readings disallow, naming SPEC's deciding rule.
        let robots = "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /x[ab]\n\
                      Disallow: /file?\nAllow: /a?c\nDisallow: /a*\nDisallow: /q\\?\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        let targets = [
            "/x[ab]", "/xa", "/file?", "/files", "/a?c", "/abc", "/az", "/q\\?", "/q?",
        ];
        assert_eq!(
            rows(&seznambot(), robots, &version, &targets),
            [
                row("/file?", "SeznamBot", 4, "Disallow: /file?", ""),
                row("/az", "SeznamBot", 6, "Disallow: /a*", ""),
            ]
        );
        // Without Robot-version 2.0 the characters mean what SPEC says only.
        let robots = "User-agent: SeznamBot\nDisallow: /x[ab]\nAllow: /a?c\nDisallow: /a\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(
            rows(&seznambot(), robots, &version, &["/x[ab]", "/abc"]),
            [
                row("/x[ab]", "SeznamBot", 2, "Disallow: /x[ab]", ""),
                row("/abc", "SeznamBot", 4, "Disallow: /a", ""),
            ]
        );
    }

    #[test]
    fn written_escapes_of_seznams_wildcards_are_their_characters() {
        // `%5C`, `%3F`, `%5B` as written are the characters themselves in
        // both readings: no second reading, a row as SPEC says. SPEC's
        // normal form spells a written `\` `%5C` too; before the second
        // reading was made from the value as written, `Disallow: /a%5Cb`
        // read as `\b` (a literal `b`) accused nothing.
        let robots = "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /a%5Cb\n\
                      Disallow: /c%3Fd\nDisallow: /x%5C*\nDisallow: /e%5Bf%5D\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        let targets = [
            "/a%5Cb",
            "/a\\b",
            "/ab",
            "/c%3Fd",
            "/x%5Cy",
            "/x*y",
            "/e%5Bf%5D",
        ];
        assert_eq!(
            rows(&seznambot(), robots, &version, &targets),
            [
                row("/a%5Cb", "SeznamBot", 3, "Disallow: /a%5Cb", ""),
                row("/a\\b", "SeznamBot", 3, "Disallow: /a%5Cb", ""),
                row("/c%3Fd", "SeznamBot", 4, "Disallow: /c%3Fd", ""),
                row("/x%5Cy", "SeznamBot", 5, "Disallow: /x%5C*", ""),
                row("/e%5Bf%5D", "SeznamBot", 6, "Disallow: /e%5Bf%5D", ""),
            ]
        );
    }

    #[test]
    fn googles_grouping_is_read_with_seznams_wildcards_too() {
        // Google's parser reads `User-agent SeznamBot` (no colon) as a new
        // group naming SeznamBot, whose `Allow: /a?c` Seznam reads as a
        // wildcard: that reading allows /abc, so no row.
        let robots = "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /a*\n\n\
                      User-agent: Other\nUser-agent SeznamBot\nRobot-version: 2.0\nAllow: /a?c\n";
        let version = crate::robots::matcher::version_of(robots.as_bytes());
        assert_eq!(
            rows(&seznambot(), robots, &version, &["/abc", "/abd"]),
            [row("/abd", "SeznamBot", 3, "Disallow: /a*", "")]
        );
    }
}
