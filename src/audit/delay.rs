//! `crawl-delay` rows (SPEC §4): within one count, in time order, a fetch
//! that came less than D seconds after the previous counted fetch. The
//! first fetch of a count never breaks it.

use std::borrow::Cow;

use super::{Kind, Policy, Violation, seconds_text};
use crate::robots::parse::Directive;
use crate::robots::{AgentRules, CrawlDelay};

/// The row for a fetch `gap_ms` milliseconds after the count's previous
/// one, when that is less than the crawler's delay: in every reading of
/// the file, as for rates (`rate::judge`); the row names the first
/// reading's line.
pub fn judge<'r>(policy: &Policy<'r>, gap_ms: i64) -> Option<Violation<'r>> {
    let broken = |rules: &'r AgentRules| -> Option<(&'r CrawlDelay, u64)> {
        let delay = rules.crawl_delay()?;
        let millis = delay.millis?;
        // Milliseconds, so that a decimal delay and logs that write
        // fractions of a second are both exact.
        (gap_ms < i64::try_from(millis).unwrap_or(i64::MAX)).then_some((delay, millis))
    };
    let (delay, millis) = policy.rules.in_every_reading(broken)?;
    Some(Violation {
        kind: Kind::CrawlDelay,
        group: policy.rules.group_label(delay.group),
        rule_line: delay.line,
        rule: Cow::Borrowed(&delay.text),
        robots_version: policy.version,
        detail: format!(
            "{} s after the previous fetch; allowed every {} s",
            seconds_text(u64::try_from(gap_ms).unwrap_or(0)),
            delay.shown().unwrap_or_else(|| seconds_text(millis))
        ),
        note: policy.limit_note(Directive::CrawlDelay),
    })
}

#[cfg(test)]
mod tests {
    use crate::audit::{Counted, Counting, Kind, NOT_READ_BY_CRAWLER, Policy, judge_all};
    use crate::crawler::profile::{Profile, builtin_named};
    use crate::robots::Robots;
    use crate::robots::parse::Directive;

    fn seznambot() -> Profile {
        builtin_named("SeznamBot").unwrap()
    }

    /// The rows for one count of fetches at `times` (ms) as (fetch index,
    /// rule line, rule, detail, note), each checked to carry `version`.
    fn rows(
        profile: &Profile,
        robots: &str,
        version: &str,
        times: &[i64],
    ) -> Vec<(usize, usize, String, String, &'static str)> {
        let robots = Robots::new(robots.as_bytes()).read_as(profile.reads);
        let rules = robots.rules_for(profile.token.as_bytes());
        let policies = [Policy::new(profile, &rules)];
        let fetches: Vec<Counted> = (1..)
            .zip(times)
            .map(|(n, &t)| crate::audit::counted_at(n, t, "/"))
            .collect();
        judge_all(
            &policies,
            &fetches,
            &Counting {
                rate_by: crate::config::RateBy::Token,
                window_tz: crate::config::WindowTz::Utc,
            },
        )
        .into_iter()
        .filter(|(_, row)| row.kind != Kind::RequestRate)
        .map(|(fetch, row)| {
            assert_eq!(row.kind, Kind::CrawlDelay);
            assert_eq!(row.robots_version, version);
            assert_eq!(row.group, "SeznamBot");
            (
                fetch,
                row.rule_line,
                row.rule.to_string(),
                row.detail,
                row.note,
            )
        })
        .collect()
    }

    // robots_version: the first 12 hex digits of the file's SHA-256, as
    // `printf '…' | sha256sum` gives them (SPEC §5).
    const DELAYED: &str = "User-agent: SeznamBot\nCrawl-delay: 2.5\nDisallow: /x\n";
    const DELAYED_VERSION: &str = "529e16bcb709";
    // Gaps of 1 s, 2.5 s (exactly the delay: kept), 2.499 s and 3.001 s.
    const TIMES: [i64; 5] = [0, 1000, 3500, 5999, 9000];

    fn delay_rows(note: &'static str) -> Vec<(usize, usize, String, String, &'static str)> {
        let row = |fetch: usize, gap: &str| {
            (
                fetch,
                2,
                "Crawl-delay: 2.5".to_string(),
                format!("{gap} s after the previous fetch; allowed every 2.5 s"),
                note,
            )
        };
        vec![row(1, "1"), row(3, "2.499")]
    }

    #[test]
    fn seznam_does_not_read_crawl_delay_so_its_rows_inform() {
        // SPEC §3: Seznam reads Request-rate, not Crawl-delay.
        assert_eq!(
            rows(&seznambot(), DELAYED, DELAYED_VERSION, &TIMES),
            delay_rows(NOT_READ_BY_CRAWLER)
        );
    }

    #[test]
    fn a_crawler_that_reads_crawl_delay_is_accused() {
        let plain = seznambot();
        let profile = Profile {
            reads: plain.reads.with(Directive::CrawlDelay),
            ..plain
        };
        assert_eq!(
            rows(&profile, DELAYED, DELAYED_VERSION, &TIMES),
            delay_rows("")
        );
    }

    #[test]
    fn a_delay_finer_than_a_millisecond_is_broken_by_a_gap_shorter_than_it() {
        // SPEC §3 "at least D seconds": 1 s is less than 1.0005 s; 1.001 s
        // is not. The row tells the delay as written.
        let robots = "User-agent: SeznamBot\nCrawl-delay: 1.0005\n";
        assert_eq!(
            rows(&seznambot(), robots, "284c06084f4d", &[0, 1000, 2001, 3002]),
            [(
                1,
                2,
                "Crawl-delay: 1.0005".to_string(),
                "1 s after the previous fetch; allowed every 1.0005 s".to_string(),
                NOT_READ_BY_CRAWLER
            )]
        );
    }

    #[test]
    fn no_rows_without_a_delay_or_a_second_fetch() {
        let cases: &[(&str, &[i64])] = &[
            (DELAYED, &[0]),
            (DELAYED, &[0, 2500, 5000]),
            ("User-agent: SeznamBot\nDisallow: /x\n", &[0, 1, 2]),
            ("User-agent: SeznamBot\nCrawl-delay: soon\n", &[0, 1, 2]),
            ("User-agent: Googlebot\nCrawl-delay: 60\n", &[0, 1, 2]),
        ];
        for (robots, times) in cases {
            let version = crate::robots::matcher::version_of(robots.as_bytes());
            assert_eq!(
                rows(&seznambot(), robots, &version, times),
                [],
                "{robots:?} {times:?}"
            );
        }
    }
}
