//! Counts per minute for report.html's charts (`Traffic`): takes counts
//! added at minutes since the epoch, in any order, and gives them back in
//! minute order, minutes without a count left out. Why not a
//! `BTreeMap<i64, u32>`: some 25 bytes a minute, so the series of a run
//! over two years of a busy site's logs held over a hundred megabytes.
//! A day here is a sorted list of (minute of the day, count), 8 bytes a
//! minute used (at most 4 KB with the list's spare room), while it uses
//! at most 512 minutes, and then the day's 1,440 counts (5.6 KB).

use std::collections::BTreeMap;

/// Minutes in a day.
const DAY: i64 = 1440;

/// Minutes a listed day holds before it becomes 1,440 counts: a list of
/// 512 pairs fills its 4 KB, and the next would double it past the 5.6 KB
/// of the whole day.
const LISTED_MOST: usize = 512;

/// Equal when they hold the same counts: how a day is held follows from
/// the minutes it uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerMinute {
    /// By day since the epoch.
    days: BTreeMap<i64, Day>,
}

#[derive(Debug, Clone, PartialEq)]
enum Day {
    /// Minutes of the day used, ascending, with their counts.
    Listed(Vec<(u16, u32)>),
    /// The count of every minute of the day; 0 for a minute unused.
    Whole(Box<[u32]>),
}

impl PerMinute {
    /// Adds `count` (at least 1) at `minute`.
    pub fn add(&mut self, minute: i64, count: u32) {
        if count == 0 {
            return;
        }
        let day = minute.div_euclid(DAY);
        // 0..1440.
        let at = minute.rem_euclid(DAY) as u16;
        let entry = self
            .days
            .entry(day)
            .or_insert_with(|| Day::Listed(Vec::new()));
        if let Day::Listed(pairs) = entry {
            // Counts come mostly in time order: at the end.
            let place = match pairs.last() {
                Some(&(last, _)) if last >= at => pairs.binary_search_by_key(&at, |&(m, _)| m),
                _ => Err(pairs.len()),
            };
            match place {
                Ok(i) => {
                    pairs[i].1 = pairs[i].1.saturating_add(count);
                    return;
                }
                Err(i) if pairs.len() < LISTED_MOST => {
                    pairs.insert(i, (at, count));
                    return;
                }
                // A minute more than the list holds: the day whole.
                Err(_) => {
                    let mut counts = vec![0u32; DAY as usize].into_boxed_slice();
                    for &(m, c) in pairs.iter() {
                        counts[usize::from(m)] = c;
                    }
                    *entry = Day::Whole(counts);
                }
            }
        }
        if let Day::Whole(counts) = entry {
            let slot = &mut counts[usize::from(at)];
            *slot = slot.saturating_add(count);
        }
    }

    /// (minute, count) of every minute used, in minute order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u32)> + '_ {
        self.days.iter().flat_map(|(&day, minutes)| {
            // The day's first minute may lie below `i64::MIN` (the day of
            // `i64::MIN` starts before it); each minute used does not, so
            // wrapping arithmetic gives it exactly.
            let start = day.wrapping_mul(DAY);
            let (listed, whole) = match minutes {
                Day::Listed(pairs) => (Some(pairs.iter().copied()), None),
                Day::Whole(counts) => (
                    None,
                    Some(
                        counts
                            .iter()
                            .enumerate()
                            .filter(|&(_, &c)| c > 0)
                            .map(|(m, &c)| (m as u16, c)),
                    ),
                ),
            };
            listed
                .into_iter()
                .flatten()
                .chain(whole.into_iter().flatten())
                .map(move |(m, c)| (start.wrapping_add(i64::from(m)), c))
        })
    }

    /// The first minute used.
    pub fn first(&self) -> Option<i64> {
        self.iter().next().map(|(minute, _)| minute)
    }

    /// The last minute used.
    pub fn last(&self) -> Option<i64> {
        let (&day, minutes) = self.days.last_key_value()?;
        let at = match minutes {
            Day::Listed(pairs) => pairs.last()?.0,
            Day::Whole(counts) => counts.iter().rposition(|&c| c > 0)? as u16,
        };
        // As in `iter`.
        Some(day.wrapping_mul(DAY).wrapping_add(i64::from(at)))
    }

    pub fn is_empty(&self) -> bool {
        self.days.is_empty()
    }

    /// The sum of every minute's count.
    pub fn total(&self) -> u64 {
        self.iter().map(|(_, count)| u64::from(count)).sum()
    }
}

/// The pairs' counts added up, a minute given twice counted twice.
impl FromIterator<(i64, u32)> for PerMinute {
    fn from_iter<I: IntoIterator<Item = (i64, u32)>>(pairs: I) -> PerMinute {
        let mut minutes = PerMinute::default();
        for (minute, count) in pairs {
            minutes.add(minute, count);
        }
        minutes
    }
}

#[cfg(test)]
mod tests {
    use super::{DAY, LISTED_MOST, PerMinute};
    use std::collections::BTreeMap;

    /// Counts added in time order, out of it, on days listed and whole,
    /// before the epoch and after: read back as a `BTreeMap` of the same
    /// additions reads them.
    #[test]
    fn reads_as_a_map_of_minutes() {
        let mut next = crate::test_rng::below(0x2545_f491_4f6c_dd1d);
        let mut minutes = PerMinute::default();
        let mut plain: BTreeMap<i64, u32> = BTreeMap::new();
        let mut now = -3 * DAY;
        for step in 0..40_000 {
            let minute = match next(10) {
                // Mostly the next minutes, as fetches come.
                0..=6 => {
                    now += i64::try_from(next(3)).unwrap();
                    now
                }
                // Now and then anywhere in the days so far.
                7 | 8 => now - i64::try_from(next(4 * 1440)).unwrap(),
                // A minute far off, now and then at the ends of `i64`.
                _ => match next(20) {
                    0 => i64::MIN + i64::try_from(next(2000)).unwrap(),
                    1 => i64::MAX - i64::try_from(next(2000)).unwrap(),
                    _ => i64::try_from(next(1 << 40)).unwrap() - (1 << 39),
                },
            };
            let count = 1 + u32::try_from(next(3)).unwrap();
            minutes.add(minute, count);
            *plain.entry(minute).or_default() += count;
            if step % 4_999 == 0 {
                assert!(minutes.iter().eq(plain.iter().map(|(&m, &c)| (m, c))));
                assert_eq!(minutes.first(), plain.keys().next().copied());
                assert_eq!(minutes.last(), plain.keys().next_back().copied());
            }
        }
        assert!(minutes.iter().eq(plain.iter().map(|(&m, &c)| (m, c))));
        assert_eq!(minutes.first(), plain.keys().next().copied());
        assert_eq!(minutes.last(), plain.keys().next_back().copied());
        // Some days became whole.
        let busiest = plain
            .keys()
            .fold(BTreeMap::<i64, usize>::new(), |mut days, m| {
                *days.entry(m.div_euclid(DAY)).or_default() += 1;
                days
            });
        assert!(busiest.values().any(|&n| n > LISTED_MOST));
    }

    /// The same counts added in another order are equal, a day whole or
    /// listed alike.
    #[test]
    fn empty_and_equal() {
        let none = PerMinute::default();
        assert!(none.is_empty());
        assert_eq!(none.first(), None);
        assert_eq!(none.last(), None);
        for used in [2, 1000] {
            let forth: PerMinute = (0..used).map(|m| (m * 7 % 1440, 1)).collect();
            let back: PerMinute = (0..used).rev().map(|m| (m * 7 % 1440, 1)).collect();
            assert_eq!(forth, back);
            let other: PerMinute = (0..used).map(|m| (m * 7 % 1440, 2)).collect();
            assert_ne!(forth, other);
        }
    }
}
