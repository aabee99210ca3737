//! A count's distinct fetch times (`rate::Count`), oldest first, in blocks
//! of a fixed size: takes times at the back, gives them back from either
//! end, in order, and where a sorted run of them passes a bound. Why not a
//! `VecDeque`: one grows by doubling, so a day of a flood's times (5 M of
//! them, a log of milliseconds) held 8 M places, 24 MB more than its times;
//! blocks hold at most one block more. Why packed: a day of 10 M distinct
//! milliseconds is 80 MB as `i64`s, past the default `--memory` with
//! nothing else; the full blocks between the two ends keep each time as
//! its distance from the one before (a byte for gaps under 128 ms), about
//! 5 KB a block instead of 32 KB.

use std::collections::VecDeque;

/// Times a block holds.
const BLOCK: usize = 4096;

/// Times of a packed block between two kept whole (`Packed::marks`): a
/// time is found by decoding at most `STRIDE - 1` distances.
const STRIDE: usize = 64;

/// Times in blocks: the first and the last may be part full, every block
/// between them is full, so a place is found by division. The first and
/// the last are open (times are taken from and added to them), those
/// between are packed.
#[derive(Debug, Clone, Default)]
pub(super) struct Times {
    blocks: VecDeque<Block>,
    len: usize,
}

#[derive(Debug, Clone)]
enum Block {
    Open(VecDeque<i64>),
    Packed(Packed),
}

/// A full block's times: every `STRIDE`-th whole, and the others as their
/// distance from the time before, LEB128 (seven bits a byte, the high bit
/// set on every byte but a number's last), taken as `u64` with wrapping
/// arithmetic, so that any run of `i64`s packs and unpacks exactly.
#[derive(Debug, Clone)]
struct Packed {
    /// The times at places 0, `STRIDE`, 2 × `STRIDE`, …
    marks: Box<[i64]>,
    /// The time at the last place, which a search of the blocks reads.
    last: i64,
    /// Where in `gaps` the distances after each mark start.
    starts: Box<[u32]>,
    gaps: Box<[u8]>,
}

impl Packed {
    fn new(times: &VecDeque<i64>) -> Packed {
        let mut marks = Vec::with_capacity(times.len().div_ceil(STRIDE));
        let mut starts = Vec::with_capacity(marks.capacity());
        let mut gaps = Vec::with_capacity(times.len());
        let mut previous = 0i64;
        for (place, &time) in times.iter().enumerate() {
            if place % STRIDE == 0 {
                marks.push(time);
                // A block's gaps are at most ten bytes a time.
                starts.push(u32::try_from(gaps.len()).unwrap_or(u32::MAX));
            } else {
                let mut gap = time.wrapping_sub(previous) as u64;
                while gap >= 0x80 {
                    gaps.push((gap as u8) | 0x80);
                    gap >>= 7;
                }
                gaps.push(gap as u8);
            }
            previous = time;
        }
        Packed {
            marks: marks.into(),
            last: previous,
            starts: starts.into(),
            gaps: gaps.into(),
        }
    }

    /// The times from mark `mark` on, up to the next mark.
    fn stride(&self, mark: usize) -> impl Iterator<Item = i64> + '_ {
        let mut at = self.starts[mark] as usize;
        let mut time = self.marks[mark];
        let mut first = true;
        let count = if mark + 1 == self.marks.len() {
            BLOCK - mark * STRIDE
        } else {
            STRIDE
        };
        (0..count).map(move |_| {
            if !first {
                let mut gap = 0u64;
                let mut shift = 0;
                loop {
                    let byte = self.gaps[at];
                    at += 1;
                    gap |= u64::from(byte & 0x7f) << shift;
                    if byte < 0x80 {
                        break;
                    }
                    shift += 7;
                }
                time = time.wrapping_add(gap as i64);
            }
            first = false;
            time
        })
    }

    fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        (0..self.marks.len()).flat_map(|mark| self.stride(mark))
    }

    fn get(&self, place: usize) -> Option<i64> {
        if place >= BLOCK {
            return None;
        }
        self.stride(place / STRIDE).nth(place % STRIDE)
    }

    fn partition_point(&self, holds: impl Fn(&i64) -> bool) -> usize {
        match self.marks.partition_point(&holds) {
            0 => 0,
            marks => {
                let mark = marks - 1;
                mark * STRIDE + self.stride(mark).take_while(|time| holds(time)).count()
            }
        }
    }
}

impl Block {
    fn len(&self) -> usize {
        match self {
            Block::Open(times) => times.len(),
            Block::Packed(_) => BLOCK,
        }
    }

    fn last(&self) -> Option<i64> {
        match self {
            Block::Open(times) => times.back().copied(),
            Block::Packed(packed) => Some(packed.last),
        }
    }

    fn get(&self, place: usize) -> Option<i64> {
        match self {
            Block::Open(times) => times.get(place).copied(),
            Block::Packed(packed) => packed.get(place),
        }
    }

    fn partition_point(&self, holds: impl Fn(&i64) -> bool) -> usize {
        match self {
            Block::Open(times) => times.partition_point(holds),
            Block::Packed(packed) => packed.partition_point(holds),
        }
    }

    /// Unpacks a packed block that has become the first or the last.
    fn open(&mut self) {
        if let Block::Packed(packed) = self {
            let mut times = VecDeque::with_capacity(BLOCK);
            times.extend(packed.iter());
            *self = Block::Open(times);
        }
    }

    fn open_ref(&self) -> Option<&VecDeque<i64>> {
        match self {
            Block::Open(times) => Some(times),
            Block::Packed(_) => None,
        }
    }
}

impl Times {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn front(&self) -> Option<&i64> {
        self.blocks.front()?.open_ref()?.front()
    }

    pub(super) fn back(&self) -> Option<&i64> {
        self.blocks.back()?.open_ref()?.back()
    }

    pub(super) fn push_back(&mut self, time: i64) {
        match self.blocks.back_mut() {
            Some(Block::Open(block)) if block.len() < BLOCK => block.push_back(time),
            _ => {
                // The full last block is now between the ends.
                let between = self.blocks.len();
                if between >= 2
                    && let Some(Block::Open(full)) = self.blocks.back()
                {
                    let packed = Block::Packed(Packed::new(full));
                    self.blocks[between - 1] = packed;
                }
                let mut block = VecDeque::with_capacity(BLOCK);
                block.push_back(time);
                self.blocks.push_back(Block::Open(block));
            }
        }
        self.len += 1;
    }

    pub(super) fn pop_back(&mut self) -> Option<i64> {
        let Some(Block::Open(block)) = self.blocks.back_mut() else {
            return None;
        };
        let time = block.pop_back()?;
        if block.is_empty() {
            self.blocks.pop_back();
            if let Some(last) = self.blocks.back_mut() {
                last.open();
            }
        }
        self.len -= 1;
        Some(time)
    }

    pub(super) fn pop_front(&mut self) -> Option<i64> {
        let Some(Block::Open(block)) = self.blocks.front_mut() else {
            return None;
        };
        let time = block.pop_front()?;
        if block.is_empty() {
            self.blocks.pop_front();
            if let Some(first) = self.blocks.front_mut() {
                first.open();
            }
        }
        self.len -= 1;
        Some(time)
    }

    /// The time at `place` (0 the oldest), if there is one.
    pub(super) fn get(&self, place: usize) -> Option<i64> {
        let first = self.blocks.front()?;
        if place < first.len() {
            return first.get(place);
        }
        let rest = place - first.len();
        self.blocks.get(1 + rest / BLOCK)?.get(rest % BLOCK)
    }

    /// Every time, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        self.blocks.iter().flat_map(|block| {
            let (open, packed) = match block {
                Block::Open(times) => (Some(times.iter().copied()), None),
                Block::Packed(packed) => (None, Some(packed.iter())),
            };
            open.into_iter()
                .flatten()
                .chain(packed.into_iter().flatten())
        })
    }

    /// The number of times, from the oldest, for which `holds` is true:
    /// `holds` is true of a run of the oldest and false of the rest (as
    /// `slice::partition_point` asks).
    pub(super) fn partition_point(&self, holds: impl Fn(&i64) -> bool) -> usize {
        // The blocks whose last time holds are passed whole.
        let whole = self
            .blocks
            .partition_point(|block| block.last().is_some_and(|last| holds(&last)));
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

    /// Blocks kept packed, for the tests.
    #[cfg(test)]
    fn packed(&self) -> usize {
        self.blocks
            .iter()
            .filter(|block| matches!(block, Block::Packed(_)))
            .count()
    }
}

/// Pairs of numbers, each rising from pair to pair, kept as two `Times`:
/// a count's times of more than one fetch (`rate::Count::extras`), each
/// its place among the count's times and the fetches past one a time up
/// to it. Why not a `VecDeque<(u64, u64)>`: a log of milliseconds whose
/// every millisecond held two fetches of a count kept 16 bytes for each,
/// 80 MB for a day of 10 M fetches; packed, both numbers usually differ
/// by one from the pair before, a byte each.
#[derive(Debug, Clone, Default)]
pub(super) struct Pairs {
    firsts: Times,
    seconds: Times,
}

impl Pairs {
    // Each number is kept as the `i64` of its bits: exact both ways, and
    // the order is read back as `u64`s.
    fn pair(first: i64, second: i64) -> (u64, u64) {
        (first as u64, second as u64)
    }

    /// Blocks of the first numbers kept packed, for the tests.
    #[cfg(test)]
    pub(super) fn packed(&self) -> usize {
        self.firsts.packed()
    }

    pub(super) fn front(&self) -> Option<(u64, u64)> {
        Some(Pairs::pair(*self.firsts.front()?, *self.seconds.front()?))
    }

    pub(super) fn back(&self) -> Option<(u64, u64)> {
        Some(Pairs::pair(*self.firsts.back()?, *self.seconds.back()?))
    }

    pub(super) fn get(&self, place: usize) -> Option<(u64, u64)> {
        Some(Pairs::pair(
            self.firsts.get(place)?,
            self.seconds.get(place)?,
        ))
    }

    /// Adds a pair whose numbers are each no less than the last pair's.
    pub(super) fn push_back(&mut self, (first, second): (u64, u64)) {
        self.firsts.push_back(first as i64);
        self.seconds.push_back(second as i64);
    }

    pub(super) fn pop_front(&mut self) -> Option<(u64, u64)> {
        Some(Pairs::pair(
            self.firsts.pop_front()?,
            self.seconds.pop_front()?,
        ))
    }

    pub(super) fn pop_back(&mut self) -> Option<(u64, u64)> {
        Some(Pairs::pair(
            self.firsts.pop_back()?,
            self.seconds.pop_back()?,
        ))
    }

    /// The number of pairs whose first number is below `bound`.
    pub(super) fn below(&self, bound: u64) -> usize {
        self.firsts.partition_point(|&first| (first as u64) < bound)
    }
}

#[cfg(test)]
mod tests {
    use super::{BLOCK, Times};
    use std::collections::VecDeque;

    /// Random pushes and pops at both ends, held against a `VecDeque`:
    /// every place, every bound's partition point, the ends, the length and
    /// the walk from the oldest, while blocks are packed between the ends
    /// and opened again at them. The gaps between times are mostly of a
    /// byte or none, some of two, three or nine bytes packed.
    #[test]
    fn blocks_read_as_one_deque() {
        let mut next = crate::test_rng::below(0x9e37_79b9_7f4a_7c15);
        let mut times = Times::default();
        let mut plain: VecDeque<i64> = VecDeque::new();
        let mut last = -5_000i64;
        let mut longest = 0;
        let mut most_packed = 0;
        for step in 0..60_000u64 {
            match next(10) {
                0..=6 => {
                    let gap = match next(200) {
                        0 => 127,
                        1 => 128,
                        2 => 16_383,
                        3 => 16_384,
                        4 => 1 << 40,
                        _ => next(3),
                    };
                    last += i64::try_from(gap).unwrap();
                    times.push_back(last);
                    plain.push_back(last);
                }
                7 | 8 => assert_eq!(times.pop_front(), plain.pop_front()),
                _ => {
                    assert_eq!(times.pop_back(), plain.pop_back());
                    last = plain.back().copied().unwrap_or(last);
                }
            }
            assert_eq!(times.len(), plain.len());
            longest = longest.max(plain.len());
            most_packed = most_packed.max(times.packed());
            assert_eq!(times.front(), plain.front());
            assert_eq!(times.back(), plain.back());
            if step % 997 == 0 {
                for (place, &time) in plain.iter().enumerate() {
                    assert_eq!(times.get(place), Some(time));
                }
                assert_eq!(times.get(plain.len()), None);
                assert!(times.iter().eq(plain.iter().copied()));
                let bounds = plain
                    .iter()
                    .flat_map(|&t| [t - 1, t, t + 1])
                    .chain([i64::MIN, i64::MAX]);
                for bound in bounds {
                    assert_eq!(
                        times.partition_point(|&t| t <= bound),
                        plain.partition_point(|&t| t <= bound),
                        "{bound}"
                    );
                }
            }
        }
        // Several blocks were in use at once, and some of them packed.
        assert!(longest > 3 * BLOCK, "{longest}");
        assert!(most_packed >= 2, "{most_packed}");
    }

    /// Times far apart and at the ends of `i64` pack and unpack exactly.
    #[test]
    fn any_times_pack_exactly() {
        let mut times = Times::default();
        let mut plain = Vec::new();
        let wide = [i64::MIN, i64::MIN + 1, -1, 0, 1, 1 << 62, i64::MAX];
        for i in 0..3 * BLOCK + 5 {
            let time = match i % 50 {
                0..7 => wide[i % 50],
                k => i64::try_from(i * 1000 + k).unwrap(),
            };
            times.push_back(time);
            plain.push(time);
        }
        assert_eq!(times.packed(), 2);
        assert!(times.iter().eq(plain.iter().copied()));
        for (place, &time) in plain.iter().enumerate() {
            assert_eq!(times.get(place), Some(time), "{place}");
        }
        while let Some(time) = times.pop_front() {
            assert_eq!(time, plain.remove(0));
        }
        assert!(plain.is_empty());
    }
}
