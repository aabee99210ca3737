//! `crawl-delay` rows (SPEC §4): within one count, in time order, a fetch
//! that came less than D seconds after the previous counted fetch. The
//! first fetch of a count never breaks it.

use super::{Fetch, Kind, Policy, Violation, seconds_text};
use crate::robots::parse::Directive;

/// Rows for one count (`count`: fetch indices in time order).
pub fn judge<'r>(
    policies: &[Policy<'r>],
    fetches: &[Fetch],
    count: &[usize],
) -> Vec<Violation<'r>> {
    let mut rows = Vec::new();
    let mut previous: Option<i64> = None;
    for &index in count {
        let fetch = &fetches[index];
        let now = fetch.time.instant_ms();
        if let Some(before) = previous.replace(now) {
            let policy = &policies[fetch.crawler];
            let Some(delay) = policy.rules.crawl_delay() else {
                continue;
            };
            let Some(millis) = delay.millis else {
                continue;
            };
            // Milliseconds, so that a decimal delay and logs that write
            // fractions of a second are both exact.
            let gap_ms = now - before;
            if gap_ms < i64::try_from(millis).unwrap_or(i64::MAX) {
                rows.push(Violation {
                    fetch: index,
                    kind: Kind::CrawlDelay,
                    group: policy.rules.group_label(delay.group),
                    rule_line: delay.line,
                    rule: &delay.text,
                    robots_version: policy.rules.version(),
                    detail: format!(
                        "{} s after the previous fetch; allowed every {} s",
                        seconds_text(u64::try_from(gap_ms).unwrap_or(0)),
                        seconds_text(millis)
                    ),
                    note: policy.limit_note(Directive::CrawlDelay),
                });
            }
        }
    }
    rows
}
