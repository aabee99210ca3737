//! `request-rate` rows (SPEC §3, §4): within one count, in time order, a
//! fetch at time t breaks N/T when more than N fetches — itself and those
//! before it — fall in (t − T, t]. A rate slower than the crawler's floor
//! is judged as the floor (SPEC §3: Seznam treats any rate slower than
//! 1/30s as 1/30s). Each count keeps a queue of the distinct times still
//! inside the longest period, each with its number of fetches, so a
//! `9000/1d` over a month of logs costs time in proportion to the
//! fetches, not N × fetches, and memory to the distinct times (a
//! whole-second log's seconds).

use std::collections::VecDeque;

use std::borrow::Cow;

use super::times::{Pairs, Times};
use super::{Kind, Policy, Violation};
use crate::accesslog::time::Timestamp;
use crate::config::WindowTz;
use crate::robots::parse::Directive;
use crate::robots::{AgentRules, Rate, RequestRate};

/// How much earlier than the latest fetch a count knows a line may be
/// logged and still be judged as one run over every log judges it: the
/// last lines of a night written after logrotate began the next file, a
/// slow request logged as it ended with the time it began. A line older
/// than that (an old log audited after a newer one) may not see fetches
/// forgotten before it: fewer rows, never more.
pub const LATE_MS: i64 = 10 * 60 * 1000;

/// Fetch times a count keeps past its longest period or crawl delay, for
/// `LATE_MS`, at most: a crawler makes a few fetches a second at most,
/// so ten minutes of them fit, while a flood of requests that only claim
/// it (counted all the same) keeps no more than this many (8 bytes a
/// distinct time, 16 more for one of several fetches; 14 a fetch in the
/// state). A late line then misses rows, never makes one more.
pub const LATE_KEPT: usize = 8192;

/// One count's recent fetch times, in milliseconds, oldest first: those
/// inside the longest period any rate of the count can use, and `LATE_MS`
/// more (at most `LATE_KEPT` of those). Each time is kept once, and a time
/// of more than one fetch says how many beside it: whole-second logs write
/// the same time for every fetch of a second, so a crawler's flood under
/// `Request-rate: 9000/1d` keeps a day's seconds, not each of its fetches,
/// while a log of milliseconds, whose times seldom repeat, keeps its times
/// alone.
#[derive(Debug, Clone)]
pub struct Count {
    /// The distinct times up to the last fetch pushed, oldest first.
    times: Times,
    /// The times of more than one fetch: (the time's place, counted from
    /// the count's start, and the fetches past one a time of every time up
    /// to it and itself, counted from the count's start), packed.
    extras: Pairs,
    /// The place of the first of `times`, counted from the count's start.
    first_place: u64,
    /// The fetches past one a time of the times before the first of
    /// `times`, and of those of the first forgotten.
    extra_before: u64,
    /// Times later than the last fetch pushed, oldest first, with their
    /// fetches: those a state remembers when an older log is audited after
    /// a newer one. They wait here, each moved once each way, where
    /// putting every fetch of the older log in its place among them cost
    /// the square of a day's fetches.
    later: VecDeque<(i64, u64)>,
    /// The longest period in force for the count, in milliseconds.
    longest: i64,
    /// The longest crawl delay in force for the count, in milliseconds.
    delay: i64,
}

impl Count {
    /// A count fed by the crawlers of `policies`.
    pub fn new<'a, 'r: 'a>(policies: impl Iterator<Item = &'a Policy<'r>>) -> Count {
        // The period each line is judged by: a rate slower than the
        // crawler's floor is judged as the floor, so its written period
        // (`1/1000d`) need not be remembered. The floor alone, with no
        // Request-rate written, judges nothing and keeps nothing.
        // Every reading's lines: a row needs all of them (`judge`).
        let (longest, delay_ms) = policies.fold((0u64, 0u64), |(longest, delay), policy| {
            let period = policy
                .rules
                .readings()
                .flat_map(|rules| rules.request_rates())
                .filter_map(|r| r.rate.as_ref())
                .map(|rate| {
                    policy
                        .rate_floor
                        .and_then(|(fetches, secs)| rate.floored(fetches, secs))
                        .unwrap_or(*rate)
                        .period_secs
                })
                .fold(longest, u64::max);
            // The longest delay too, so that a line written late
            // (`LATE_MS`) finds the fetch before it.
            let delay = policy
                .rules
                .readings()
                .filter_map(|rules| rules.crawl_delay()?.millis)
                .fold(delay, u64::max);
            (period, delay)
        });
        Count::spanning(
            i64::try_from(longest)
                .unwrap_or(i64::MAX)
                .saturating_mul(1000),
            i64::try_from(delay_ms).unwrap_or(i64::MAX),
        )
    }

    /// An empty count of that longest period and delay, in milliseconds.
    fn spanning(longest: i64, delay: i64) -> Count {
        Count {
            times: Times::default(),
            extras: Pairs::default(),
            first_place: 0,
            extra_before: 0,
            later: VecDeque::new(),
            longest,
            delay,
        }
    }

    /// The fetches past one a time of the times before the `i`-th of
    /// `times`, counted from the count's start.
    fn extra_before(&self, i: usize) -> u64 {
        let place = self.first_place + i as u64;
        match self.extras.below(place) {
            0 => self.extra_before,
            k => self
                .extras
                .get(k - 1)
                .map_or(self.extra_before, |(_, total)| total),
        }
    }

    /// The fetches of the times before the `i`-th of `times`, from a
    /// number of the count's own: two of them differ by the fetches
    /// between.
    fn through_at(&self, i: usize) -> u64 {
        i as u64 + self.extra_before(i)
    }

    /// The fetches of the `i`-th of `times`.
    fn fetches_at(&self, i: usize) -> u64 {
        self.through_at(i + 1) - self.through_at(i)
    }

    /// Adds `fetches` (at least one) at `time`, no earlier than the latest
    /// of `times`.
    fn append(&mut self, time: i64, fetches: u64) {
        let extra_so_far = self.extras.back().map_or(self.extra_before, |(_, e)| e);
        let extra = if self.times.back() == Some(&time) {
            fetches
        } else {
            self.times.push_back(time);
            fetches - 1
        };
        if extra == 0 {
            return;
        }
        let place = self.first_place + self.times.len() as u64 - 1;
        if self.extras.back().is_some_and(|(at, _)| at == place) {
            self.extras.pop_back();
        }
        self.extras.push_back((place, extra_so_far + extra));
    }

    /// Forgets the first of `times`.
    fn forget_first(&mut self) {
        if self.times.pop_front().is_none() {
            return;
        }
        if self
            .extras
            .front()
            .is_some_and(|(at, _)| at == self.first_place)
            && let Some((_, total)) = self.extras.pop_front()
        {
            self.extra_before = total;
        }
        self.first_place += 1;
    }

    /// Takes the last of `times` back, with its fetches.
    fn take_last(&mut self) -> Option<(i64, u64)> {
        let last = self.times.len().checked_sub(1)?;
        let fetches = self.fetches_at(last);
        let place = self.first_place + last as u64;
        if self.extras.back().is_some_and(|(at, _)| at == place) {
            self.extras.pop_back();
        }
        Some((self.times.pop_back()?, fetches))
    }

    /// Adds the next fetch, at `now`; gives the previous fetch's time: the
    /// latest at or before `now` (fetches come in time order, but may be
    /// earlier than those a state remembers: an older log audited after a
    /// newer one; the delay is then from the fetch before it, if known).
    pub fn push(&mut self, now: i64) -> Option<i64> {
        while self.times.back().is_some_and(|&last| last > now)
            && let Some(last) = self.take_last()
        {
            self.later.push_front(last);
        }
        while let Some(&(time, fetches)) = self.later.front()
            && time <= now
        {
            self.later.pop_front();
            self.append(time, fetches);
        }
        let previous = self.times.back().copied();
        // Pruned before the push, never after, so the window always holds
        // the latest fetch; none pruned can be inside a period for this
        // fetch or a later one.
        let horizon = now.saturating_sub(self.kept_ms());
        while self.times.front().is_some_and(|&t| t <= horizon) {
            self.forget_first();
        }
        // Of those kept only for lines written late, the latest
        // `LATE_KEPT` fetches (of the oldest time kept, some of its own).
        let judged_from = now.saturating_sub(self.longest.max(self.delay));
        let late_only = self.times.partition_point(|&t| t <= judged_from);
        let late = self.through_at(late_only) - self.through_at(0);
        let mut drop = late.saturating_sub(LATE_KEPT as u64);
        while drop > 0 && !self.times.is_empty() && self.fetches_at(0) <= drop {
            drop -= self.fetches_at(0);
            self.forget_first();
        }
        // Fewer than the first time's fetches, so more than one: its
        // extras are fewer by as many.
        self.extra_before += drop;
        self.append(now, 1);
        previous
    }

    /// Fetches in (now − period, now], the last one pushed included.
    fn inside(&self, now: i64, period_ms: i64) -> usize {
        let start = now.saturating_sub(period_ms);
        let to = self.times.partition_point(|&t| t <= now);
        let from = self.times.partition_point(|&t| t <= start);
        usize::try_from(self.through_at(to) - self.through_at(from)).unwrap_or(usize::MAX)
    }

    /// Takes up where an earlier night left the count: its latest fetch
    /// times, ascending (the last is the previous fetch for the delay).
    pub fn resume(&mut self, times: &[i64]) {
        for &t in times {
            self.push(t);
        }
    }

    /// The latest fetch times, ascending, a time once for each of its
    /// fetches: those the next night's rates and delays can still see.
    /// The window always holds the latest fetch (it is pruned before a
    /// push, never after), so it is the previous fetch for the delay too.
    /// At most the latest `at_most` of them: a state keeps no more, and a
    /// copy of a day's window at a busy site's pace was as large as the
    /// window itself.
    pub fn times(&self, at_most: usize) -> Vec<i64> {
        let all = self.through_at(self.times.len()) - self.through_at(0)
            + self.later.iter().map(|&(_, n)| n).sum::<u64>();
        self.times
            .iter()
            .enumerate()
            .map(|(i, t)| (t, self.fetches_at(i)))
            .chain(self.later.iter().copied())
            .flat_map(|(t, n)| std::iter::repeat_n(t, usize::try_from(n).unwrap_or(usize::MAX)))
            .skip(
                usize::try_from(all)
                    .unwrap_or(usize::MAX)
                    .saturating_sub(at_most),
            )
            .collect()
    }

    /// How far back from its latest fetch the count keeps times, in
    /// milliseconds: the longest period or crawl delay in force, and
    /// `LATE_MS` more, so that a line written late (judged on a later
    /// night, from a state) still sees the fetches before it.
    pub fn kept_ms(&self) -> i64 {
        self.longest.max(self.delay).saturating_add(LATE_MS)
    }
}

/// The row for the fetch just pushed to `count`, at `time`, when it breaks
/// the rate in force then. A file read more than one way (a Request-rate
/// line that cannot be read right after a run of user-agent lines, a
/// user-agent line without its colon) makes a row only when the rate in
/// force in every reading is broken, as a `disallow` row needs every
/// reading to disallow: the row names the first reading's line.
pub fn judge<'r>(
    policy: &Policy<'r>,
    count: &Count,
    time: &Timestamp,
    window_tz: &WindowTz,
) -> Option<Violation<'r>> {
    let minute = window_tz.minute_of_day(time);
    let broken = |rules: &'r AgentRules| -> Option<(&'r RequestRate, Rate, bool, usize)> {
        let line = rules.rate_at(minute)?;
        let rate = line.rate.as_ref()?;
        let floored = policy
            .rate_floor
            .and_then(|(fetches, secs)| rate.floored(fetches, secs));
        let holds = floored.unwrap_or(*rate);
        let period = i64::try_from(holds.period_secs)
            .unwrap_or(i64::MAX)
            .saturating_mul(1000);
        let inside = count.inside(time.instant_ms(), period);
        (inside as u64 > u64::from(holds.requests)).then_some((
            line,
            holds,
            floored.is_some(),
            inside,
        ))
    };
    let (line, holds, floored, inside) = policy.rules.in_every_reading(broken)?;
    let mut detail = format!(
        "{inside} fetches in {} s; allowed {}",
        holds.period_secs, line.written
    );
    if floored {
        detail.push_str(&format!(
            "; effective {}/{}s (written {})",
            holds.requests, holds.period_secs, line.written
        ));
    }
    Some(Violation {
        kind: Kind::RequestRate,
        group: policy.rules.group_label(line.group),
        rule_line: line.line,
        rule: Cow::Borrowed(&line.text),
        robots_version: policy.version,
        detail,
        note: policy.limit_note(Directive::RequestRate),
    })
}

#[cfg(test)]
mod tests {
    use super::{Count, LATE_KEPT, LATE_MS};
    use crate::audit::Kind;
    use crate::robots::Rate;

    /// A night resumed from a state, then an older log's fetches, in time
    /// order but earlier than the state's last ones, then later ones: each
    /// push gives the latest fetch at or before it, and each fetch counts
    /// those in (t − T, t], as a plain list of every fetch says (of the
    /// state's, those within the longest period and `LATE_MS` of its last).
    #[test]
    fn an_older_log_after_the_state_counts_as_every_fetch_in_order() {
        let longest = 60_000;
        let mut below = crate::test_rng::below(0x2545_f491_4f6c_dd1d);
        let mut next = |range: i64| below(range as u64) as i64;
        // Times of any millisecond, then whole seconds as most logs write
        // them, many fetches to a second (each time kept once, with its
        // fetches).
        for round in 0..400 {
            let (grain, scale) = if round < 200 { (1, 1) } else { (1000, 8) };
            let mut time = |range: i64| next(range / scale) / grain * grain;
            let mut count = Count::spanning(longest, 0);
            let fetches = 40 * scale;
            let mut state: Vec<i64> = (0..fetches).map(|_| time(1_500_000)).collect();
            state.sort_unstable();
            count.resume(&state);
            let mut night: Vec<i64> = (0..2 * fetches).map(|_| time(2_000_000)).collect();
            night.sort_unstable();
            // Every fetch the count has seen: the state's that its own last
            // ones left inside the longest period and `LATE_MS` (as the
            // night that saved them kept them), and the night's.
            let last = state.last().copied().unwrap_or(i64::MIN);
            let mut all: Vec<i64> = state
                .iter()
                .copied()
                .filter(|&t| t > last.saturating_sub(longest + LATE_MS))
                .collect();
            for &now in &night {
                let previous = all.iter().copied().filter(|&t| t <= now).max();
                let got = count.push(now);
                all.push(now);
                // The fetch before may be forgotten only when it lies past
                // the longest period and `LATE_MS`.
                match (got, previous) {
                    (Some(got), Some(previous)) => assert_eq!(got, previous),
                    (None, Some(previous)) => assert!(previous <= now - longest - LATE_MS),
                    (got, None) => assert_eq!(got, None),
                }
                for period in [1_000, 10_000, longest] {
                    let want = all
                        .iter()
                        .filter(|&&t| now - period < t && t <= now)
                        .count();
                    assert_eq!(count.inside(now, period), want, "{now} {period}");
                }
            }
        }
    }

    /// A window of many blocks of distinct times (`times::Times`), those
    /// between the first and the last packed, many times of several
    /// fetches (their `extras` packed too): each fetch counts those in
    /// (t − T, t] as a plain sorted list of every fetch says (the shorter
    /// periods start inside packed blocks), and the state's copy is that
    /// list's tail; then, the count moving on past its window, the same
    /// while its oldest times are forgotten, packed blocks opened.
    #[test]
    fn a_long_window_counts_as_every_fetch() {
        let longest = 86_400_000;
        let mut count = Count::spanning(longest, 0);
        let mut all: Vec<i64> = Vec::new();
        let mut now = 0i64;
        let mut most_packed = 0;
        let check = |count: &Count, all: &[i64], now: i64| {
            for period in [1_000, 50_000, 200_000, longest] {
                let from = all.partition_point(|&t| t <= now - period);
                assert_eq!(
                    count.inside(now, period),
                    all.len() - from,
                    "{now} {period}"
                );
            }
        };
        for i in 0..90_000u64 {
            // A new millisecond two fetches in three; some times of
            // several fetches.
            if i % 3 != 0 || i % 11 == 0 {
                now += 1 + i64::try_from(i % 5).unwrap();
            }
            count.push(now);
            all.push(now);
            most_packed = most_packed.max(count.extras.packed());
            if i % 1_013 == 0 || i == 89_999 {
                check(&count, &all, now);
            }
        }
        assert!(most_packed >= 2, "{most_packed}");
        assert_eq!(count.times(1_000), all[all.len() - 1_000..]);
        assert_eq!(count.times(usize::MAX), all);
        // A day later, fetches again: the oldest are forgotten a push at a
        // time, the window passing through the packed blocks.
        now += longest - 300_000;
        for i in 0..60_000u64 {
            if i % 2 == 0 {
                now += 7;
            }
            count.push(now);
            all.push(now);
            if i % 997 == 0 {
                check(&count, &all, now);
            }
        }
        // Those inside the longest period are all kept.
        let inside = all.len() - all.partition_point(|&t| t <= now - longest);
        assert!(count.times(inside) == all[all.len() - inside..]);
    }

    /// Times kept only for lines written late are at most `LATE_KEPT`:
    /// a flood of fetches in one second, with no rate or delay in force,
    /// keeps no more; those inside the longest period are all kept.
    #[test]
    fn times_kept_for_late_lines_are_bounded() {
        for (longest, kept) in [(0, LATE_KEPT + 1), (60_000, 3 * LATE_KEPT)] {
            let mut count = Count::spanning(longest, 0);
            for _ in 0..3 * LATE_KEPT {
                count.push(1_000_000);
            }
            assert_eq!(count.times(usize::MAX).len(), kept, "longest {longest}");
        }
        // Spread over the ten minutes, the latest `LATE_KEPT` of those
        // past the period stay, and every one inside it.
        let mut count = Count::spanning(1_000, 0);
        for t in 0..20_000 {
            count.push(t * 10);
        }
        let times = count.times(usize::MAX);
        let last = 199_990;
        let inside = times.iter().filter(|&&t| t > last - 1_000).count();
        assert_eq!(inside, 100);
        assert_eq!(times.len(), 100 + LATE_KEPT);
    }

    /// The rows (fetch, kind, rule line) of one count of SeznamBot
    /// fetches at `times` (ms), SeznamBot reading Crawl-delay too, and
    /// how many other readings `robots` has for it.
    fn two_way_rows(robots: &str, times: &[i64]) -> (usize, Vec<(usize, Kind, usize)>) {
        use crate::audit::{Counted, Counting, Policy, judge_all};
        use crate::crawler::profile::{Profile, builtin_named};
        use crate::robots::Robots;
        use crate::robots::parse::Directive;

        let plain = builtin_named("SeznamBot").unwrap();
        let profile = Profile {
            reads: plain.reads.with(Directive::CrawlDelay),
            ..plain
        };
        let read = Robots::new(robots.as_bytes()).read_as(profile.reads);
        let rules = read.rules_for(profile.token.as_bytes());
        let policies = [Policy::new(&profile, &rules)];
        let fetches: Vec<Counted> = (1..)
            .zip(times)
            .map(|(n, &t)| crate::audit::counted_at(n, t, "/"))
            .collect();
        let counting = Counting {
            rate_by: crate::config::RateBy::Token,
            window_tz: crate::config::WindowTz::Utc,
        };
        let rows = judge_all(&policies, &fetches, &counting)
            .into_iter()
            .map(|(fetch, row)| (fetch, row.kind, row.rule_line))
            .collect();
        (rules.other_readings().count(), rows)
    }

    /// A Request-rate line that cannot be read, right after a run of
    /// user-agent lines, reads the file two ways: the run ends there (the
    /// first reading) or goes on into `Other`'s group. A rate or delay row
    /// needs the limit in force in every reading broken, and names the
    /// first reading's line. Here the second reading adds `Other`'s
    /// windowed `100/1s`, which wins over `1/10s`.
    #[test]
    fn a_rate_broken_in_one_reading_alone_is_no_row() {
        let robots = "User-agent: SeznamBot\nRequest-rate: 1/10s\n\n\
                      User-agent: SeznamBot\nRequest-rate: soon\n\
                      User-agent: Other\nRequest-rate: 100/1s 0000-2400\n";
        // Three fetches 1.5 s apart break 1/10s alone.
        assert_eq!(two_way_rows(robots, &[0, 1500, 3000]), (1, vec![]));
        // 102 fetches in one second break both from the 101st (fetch 100
        // counted from 0: more than 100 in a second).
        let burst: Vec<i64> = (0..102).map(|i| i * 9).collect();
        assert_eq!(
            two_way_rows(robots, &burst),
            (
                1,
                vec![(100, Kind::RequestRate, 2), (101, Kind::RequestRate, 2)]
            )
        );
    }

    /// A second reading's longer period is remembered too: its fetches
    /// are counted whole, however short the first reading's period.
    #[test]
    fn every_readings_period_is_kept_for_its_count() {
        let robots = "User-agent: SeznamBot\nRequest-rate: 2/2s\n\n\
                      User-agent: SeznamBot\nRequest-rate: soon\n\
                      User-agent: Other\nRequest-rate: 3/20s 0000-2400\n";
        // 2/2s is broken at 16 s alone (15, 15.5, 16); 3/20s from 15 s on.
        assert_eq!(
            two_way_rows(robots, &[0, 5000, 10_000, 15_000, 15_500, 16_000]),
            (1, vec![(5, Kind::RequestRate, 2)])
        );
    }

    /// The same for Crawl-delay: the first reading's delay is the later
    /// group's `10`, the second's `Other`'s `1`, written before it.
    #[test]
    fn a_delay_broken_in_one_reading_alone_is_no_row() {
        let robots = "User-agent: SeznamBot\nRequest-rate: soon\n\
                      User-agent: Other\nCrawl-delay: 1\n\n\
                      User-agent: SeznamBot\nCrawl-delay: 10\n";
        // 3 s apart: under 10 s, not under 1 s.
        assert_eq!(two_way_rows(robots, &[0, 3000, 6000]), (1, vec![]));
        // 0.5 s apart: under both; the row names line 7.
        assert_eq!(
            two_way_rows(robots, &[0, 500]),
            (1, vec![(1, Kind::CrawlDelay, 7)])
        );
    }

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
            ((1, u64::MAX), (1, 30, true)),
            ((u32::MAX, u64::MAX), (1, 30, true)),
            ((u32::MAX, 1), (u32::MAX, 1, false)),
        ];
        for ((n, t), (en, et, floored)) in cases {
            let written = Rate {
                requests: n,
                requests_written: u64::from(n),
                approx: None,
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
