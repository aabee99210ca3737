//! `request-rate` rows (SPEC §3, §4): within one count, in time order, a
//! fetch at time t breaks N/T when more than N fetches — itself and those
//! before it — fall in (t − T, t]. Each count keeps a queue of the times
//! still inside the longest period, so a `9000/1d` over a month of logs
//! costs time and memory in proportion to the fetches, not N × fetches.

use std::collections::VecDeque;

use super::{Fetch, Kind, Policy, Violation};
use crate::config::WindowTz;
use crate::robots::parse::Directive;

/// Rows for one count (`count`: fetch indices in time order).
pub fn judge<'r>(
    policies: &[Policy<'r>],
    fetches: &[Fetch],
    count: &[usize],
    window_tz: &WindowTz,
) -> Vec<Violation<'r>> {
    let Some(&first) = count.first() else {
        return Vec::new();
    };
    // The longest period any rule of this count can use bounds the queue.
    let rules = policies[fetches[first].crawler].rules;
    let longest = count
        .iter()
        .map(|&i| {
            policies[fetches[i].crawler]
                .rate_floor
                .map_or(0, |(_, s)| s)
        })
        .max()
        .unwrap_or(0)
        .max(
            rules
                .request_rates()
                .iter()
                .filter_map(|r| r.rate.as_ref().map(|rate| rate.period_secs))
                .max()
                .unwrap_or(0),
        );
    if rules.request_rates().iter().all(|r| r.rate.is_none()) {
        return Vec::new();
    }
    let longest = i64::try_from(longest)
        .unwrap_or(i64::MAX)
        .saturating_mul(1000);

    let mut rows = Vec::new();
    // Instants in milliseconds.
    let mut window: VecDeque<i64> = VecDeque::new();
    for &index in count {
        let fetch = &fetches[index];
        let now = fetch.time.instant_ms();
        let horizon = now.saturating_sub(longest);
        while window.front().is_some_and(|&t| t <= horizon) {
            window.pop_front();
        }
        window.push_back(now);

        let policy = &policies[fetch.crawler];
        let minute = window_tz.minute_of_day(&fetch.time);
        let Some(line) = policy.rules.rate_at(minute) else {
            continue;
        };
        let Some(rate) = line.rate.as_ref() else {
            continue;
        };
        let floored = policy
            .rate_floor
            .and_then(|(fetches, secs)| rate.floored(fetches, secs));
        let holds = floored.unwrap_or(*rate);
        let period = i64::try_from(holds.period_secs)
            .unwrap_or(i64::MAX)
            .saturating_mul(1000);
        let start = now.saturating_sub(period);
        let inside = window.len() - window.partition_point(|&t| t <= start);
        if inside as u64 > u64::from(holds.requests) {
            let mut detail = format!(
                "{inside} fetches in {} s; allowed {}",
                holds.period_secs, line.written
            );
            if floored.is_some() {
                detail.push_str(&format!(
                    "; effective {}/{}s (written {})",
                    holds.requests, holds.period_secs, line.written
                ));
            }
            rows.push(Violation {
                fetch: index,
                kind: Kind::RequestRate,
                group: policy.rules.group_label(line.group),
                rule_line: line.line,
                rule: &line.text,
                robots_version: policy.rules.version(),
                detail,
                note: policy.limit_note(Directive::RequestRate),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use crate::robots::Rate;

    #[test]
    fn floor_applies_only_to_slower_rates() {
        let floor = (1, 30);
        let cases = [
            ((1, 60), (1, 30, true)),
            ((1, 30), (1, 30, false)),
            ((300, 60), (300, 60, false)),
            ((1, 31), (1, 30, true)),
            ((9000, 86_400), (9000, 86_400, false)),
            ((2000, 86_400), (1, 30, true)),
            ((0, 10), (1, 30, true)),
        ];
        for ((n, t), (en, et, floored)) in cases {
            let written = Rate {
                requests: n,
                period_secs: t,
                window: None,
            };
            let got = written.floored(floor.0, floor.1);
            let holds = got.unwrap_or(written);
            assert_eq!(
                (holds.requests, holds.period_secs, got.is_some()),
                (en, et, floored),
                "{n}/{t}s"
            );
        }
    }
}
