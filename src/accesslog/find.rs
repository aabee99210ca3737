//! Where an unquoted field ends: takes a line, a position and a byte; gives
//! the first such byte at or after the position, as the text readers
//! (`format`, `clf_family`) need it for short fields.

/// How many bytes are looked at one by one before a vector search takes
/// over: most fields (`-`, an address, a status) are shorter than this, and
/// a vector search costs more to start than such a field costs to walk.
const SHORT: usize = 24;

/// The first `byte` at or after `from`. Eight bytes at a time by hand for
/// the first few words, then a vector search: most unquoted fields (`-`,
/// an address, a size) end within a word or two, and a vector search costs
/// more to start than such a field costs to walk.
#[inline(always)]
pub(super) fn find_byte(line: &[u8], from: usize, byte: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(byte);
    let mut at = from;
    let end = line.len().min(from + SHORT);
    while let Some(&word) = line.get(at..end).and_then(|rest| rest.first_chunk::<8>()) {
        // A zero byte of `x` is a match; the lowest flagged byte is the
        // first zero (a borrow can only flag bytes above a true zero).
        let x = u64::from_le_bytes(word) ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    memchr::memchr(byte, &line[at..]).map(|i| at + i)
}
