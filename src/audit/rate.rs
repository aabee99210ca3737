//! `request-rate` rows (SPEC §3, §4): within one count, in time order, a
//! fetch at time t breaks N/T when more than N fetches — itself and those
//! before it — fall in (t − T, t]. Each count keeps a queue of the times
//! still inside the longest period, so a `9000/1d` over a month of logs
//! costs time and memory in proportion to the fetches, not N × fetches.

use std::collections::VecDeque;

use super::{Fetch, Kind, Policy, Violation};
use crate::config::WindowTz;

/// The rate that holds: what is written, or the crawler's floor when the
/// written rate is slower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effective {
    pub requests: u32,
    pub period_secs: u64,
    /// True when the floor replaced the written rate.
    pub floored: bool,
}

/// Applies a floor `(fetches, seconds)`: N/T slower than F/S means
/// N × S < F × T.
pub fn effective(requests: u32, period_secs: u64, floor: Option<(u32, u64)>) -> Effective {
    match floor {
        Some((f, s))
            if u128::from(requests) * u128::from(s) < u128::from(f) * u128::from(period_secs) =>
        {
            Effective {
                requests: f,
                period_secs: s,
                floored: true,
            }
        }
        _ => Effective {
            requests,
            period_secs,
            floored: false,
        },
    }
}

/// Rows for one count (`count`: fetch indices in time order).
pub fn judge<'r>(
    policies: &[Policy<'r>],
    fetches: &[Fetch],
    count: &[usize],
    window_tz: WindowTz,
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
        let holds = effective(rate.requests, rate.period_secs, policy.rate_floor);
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
            if holds.floored {
                detail.push_str(&format!(
                    "; effective {}/{}s (written {})",
                    holds.requests, holds.period_secs, line.written
                ));
            }
            rows.push(Violation {
                fetch: index,
                kind: Kind::RequestRate,
                group: line.group,
                rule_line: line.line,
                rule: &line.text,
                detail,
                note: "",
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_applies_only_to_slower_rates() {
        let floor = Some((1, 30));
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
            assert_eq!(
                effective(n, t, floor),
                Effective {
                    requests: en,
                    period_secs: et,
                    floored
                },
                "{n}/{t}s"
            );
        }
        assert!(!effective(1, 3600, None).floored);
    }
}
