//! A count's distinct fetch times (`rate::Count`), oldest first, in blocks
//! of a fixed size: takes times at the back, gives them back from either
//! end, by place, and where a sorted run of them passes a bound. Why not a
//! `VecDeque`: one grows by doubling, so a day of a flood's times (5 M of
//! them, a log of milliseconds) held 8 M places, 24 MB more than its times;
//! blocks hold at most one block more.

use std::collections::VecDeque;

/// Times a block holds.
const BLOCK: usize = 4096;

/// Times in blocks: the first and the last may be part full, every block
/// between them is full, so a place is found by division.
#[derive(Debug, Clone, Default)]
pub(super) struct Times {
    blocks: VecDeque<VecDeque<i64>>,
    len: usize,
}

impl Times {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn front(&self) -> Option<&i64> {
        self.blocks.front()?.front()
    }

    pub(super) fn back(&self) -> Option<&i64> {
        self.blocks.back()?.back()
    }

    pub(super) fn push_back(&mut self, time: i64) {
        match self.blocks.back_mut() {
            Some(block) if block.len() < BLOCK => block.push_back(time),
            _ => {
                let mut block = VecDeque::with_capacity(BLOCK);
                block.push_back(time);
                self.blocks.push_back(block);
            }
        }
        self.len += 1;
    }

    pub(super) fn pop_back(&mut self) -> Option<i64> {
        let block = self.blocks.back_mut()?;
        let time = block.pop_back()?;
        if block.is_empty() {
            self.blocks.pop_back();
        }
        self.len -= 1;
        Some(time)
    }

    pub(super) fn pop_front(&mut self) -> Option<i64> {
        let block = self.blocks.front_mut()?;
        let time = block.pop_front()?;
        if block.is_empty() {
            self.blocks.pop_front();
        }
        self.len -= 1;
        Some(time)
    }

    /// The time at `place` (0 the oldest), if there is one.
    pub(super) fn get(&self, place: usize) -> Option<i64> {
        let first = self.blocks.front()?;
        if place < first.len() {
            return first.get(place).copied();
        }
        let rest = place - first.len();
        self.blocks
            .get(1 + rest / BLOCK)?
            .get(rest % BLOCK)
            .copied()
    }

    /// The number of times, from the oldest, for which `holds` is true:
    /// `holds` is true of a run of the oldest and false of the rest (as
    /// `slice::partition_point` asks).
    pub(super) fn partition_point(&self, holds: impl Fn(&i64) -> bool) -> usize {
        // The blocks whose last time holds are passed whole.
        let whole = self
            .blocks
            .partition_point(|block| block.back().is_some_and(&holds));
        let before: usize = match whole {
            0 => 0,
            // Every block: the last may be part full.
            n if n == self.blocks.len() => return self.len,
            n => self.blocks[0].len() + (n - 1) * BLOCK,
        };
        before
            + self
                .blocks
                .get(whole)
                .map_or(0, |block| block.partition_point(&holds))
    }
}

#[cfg(test)]
mod tests {
    use super::{BLOCK, Times};
    use std::collections::VecDeque;

    /// Random pushes and pops at both ends, held against a `VecDeque`:
    /// every place, every bound's partition point, the ends and the length.
    #[test]
    fn blocks_read_as_one_deque() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |range: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % range
        };
        let mut times = Times::default();
        let mut plain: VecDeque<i64> = VecDeque::new();
        let mut last = 0i64;
        let mut longest = 0;
        for step in 0..60_000u64 {
            match next(10) {
                0..=5 => {
                    last += i64::try_from(next(3)).unwrap();
                    times.push_back(last);
                    plain.push_back(last);
                }
                6 | 7 => assert_eq!(times.pop_front(), plain.pop_front()),
                _ => {
                    assert_eq!(times.pop_back(), plain.pop_back());
                    last = plain.back().copied().unwrap_or(last);
                }
            }
            assert_eq!(times.len(), plain.len());
            longest = longest.max(plain.len());
            assert_eq!(times.front(), plain.front());
            assert_eq!(times.back(), plain.back());
            if step % 997 == 0 {
                for (place, &time) in plain.iter().enumerate() {
                    assert_eq!(times.get(place), Some(time));
                }
                assert_eq!(times.get(plain.len()), None);
                let span = plain.back().copied().unwrap_or(0) + 2;
                for bound in -1..span {
                    assert_eq!(
                        times.partition_point(|&t| t <= bound),
                        plain.partition_point(|&t| t <= bound),
                        "{bound}"
                    );
                }
            }
        }
        // Several blocks were in use at once.
        assert!(longest > 2 * BLOCK, "{longest}");
    }
}
