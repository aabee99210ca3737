//! Where the strings of a JSON line end: takes the line and gives, 64 bytes
//! at a time as a reader moves forward, the bitmask of its quotes that no
//! backslash escapes and the bitmask of its backslashes (the first stage of
//! simdjson's design, reduced to what `json_scan` needs; SPEC §1 `json`).
//!
//! A block's quotes and backslashes are found with SSE2 on x86_64 (a
//! baseline of that target, so no CPU check) and byte by byte elsewhere;
//! `json_quotes_tests.rs` holds the two equal. Which quotes are escaped is
//! worked out from the runs of backslashes, carried across blocks, so a
//! reader finds the end of a string with one bit scan instead of a search.

/// Bytes in a block: one bit each in a `u64`.
const BLOCK: usize = 64;

/// The quotes and backslashes of one block of a line, worked out block by
/// block from the start of the line as the reader asks for later ones.
pub(super) struct Quotes<'a> {
    text: &'a [u8],
    /// Where the block held starts in `text`.
    base: usize,
    /// The block's quotes that end or open a string (not escaped).
    quotes: u64,
    backslashes: u64,
    /// The block ends with a backslash that escapes the next block's first
    /// byte.
    carry: bool,
}

impl<'a> Quotes<'a> {
    pub(super) fn new(text: &'a [u8]) -> Quotes<'a> {
        let mut quotes = Quotes {
            text,
            base: 0,
            quotes: 0,
            backslashes: 0,
            carry: false,
        };
        quotes.load();
        quotes
    }

    /// The first quote at or after `from` that no backslash escapes, and
    /// whether a backslash lies between `from` and it; `None` when the line
    /// has none. `from` never goes back before a place asked for earlier.
    #[inline]
    pub(super) fn next_quote(&mut self, from: usize) -> Option<(usize, bool)> {
        // Most strings end in the block that holds their start.
        let offset = from.wrapping_sub(self.base);
        if offset < BLOCK {
            let quotes = self.quotes >> offset;
            if quotes != 0 {
                let len = quotes.trailing_zeros();
                // Most blocks of a log hold no backslash at all.
                let escaped = self.backslashes != 0
                    && (self.backslashes >> offset) & ((1u64 << len) - 1) != 0;
                return Some((from + len as usize, escaped));
            }
        }
        self.next_quote_later(from)
    }

    /// `next_quote` when the quote is not in the block held.
    fn next_quote_later(&mut self, mut from: usize) -> Option<(usize, bool)> {
        let mut escaped = false;
        loop {
            while from >= self.base + BLOCK {
                if self.base + BLOCK >= self.text.len() {
                    return None;
                }
                self.base += BLOCK;
                self.load();
            }
            // `from` is within the block held: `from - base` < 64.
            let later = u64::MAX << (from - self.base);
            let quotes = self.quotes & later;
            let backslashes = self.backslashes & later;
            if quotes != 0 {
                let at = quotes.trailing_zeros();
                escaped |= backslashes & ((1u64 << at) - 1) != 0;
                return Some((self.base + at as usize, escaped));
            }
            escaped |= backslashes != 0;
            from = self.base + BLOCK;
        }
    }

    /// Works out the block at `base`, given the carry of the one before.
    fn load(&mut self) {
        let rest = &self.text[self.base.min(self.text.len())..];
        let (quotes, backslashes) = match (rest.first_chunk::<BLOCK>(), self.text.last_chunk()) {
            (Some(block), _) => masks(block),
            // The last, short block of a line of a block or more: the
            // line's last 64 bytes, shifted so that bit 0 is the block's
            // first byte; the bits past the line's end are zeros.
            (None, Some(last)) => {
                let (quotes, backslashes) = masks(last);
                let shift = (BLOCK - rest.len()) as u32;
                (
                    quotes.checked_shr(shift).unwrap_or(0),
                    backslashes.checked_shr(shift).unwrap_or(0),
                )
            }
            (None, None) => {
                // A line shorter than a block: padded with bytes that
                // are neither quote nor backslash.
                let mut block = [0u8; BLOCK];
                block[..rest.len()].copy_from_slice(rest);
                masks(&block)
            }
        };
        let (escaped, carry) = escaped_bytes(backslashes, self.carry);
        self.quotes = quotes & !escaped;
        self.backslashes = backslashes;
        self.carry = carry;
    }
}

/// The bytes of a block a backslash escapes, given its backslashes and
/// whether the block before ended with a backslash that escapes this one's
/// first byte; and whether this block so ends. In a run of backslashes
/// each odd one escapes the byte after it, which may be the next.
#[inline]
pub(super) fn escaped_bytes(backslashes: u64, carry: bool) -> (u64, bool) {
    if backslashes == 0 && !carry {
        return (0, false);
    }
    let mut escaped = u64::from(carry);
    let mut escaping = backslashes & !escaped;
    let mut carry = false;
    while escaping != 0 {
        let at = escaping.trailing_zeros();
        escaping &= escaping - 1;
        if at == 63 {
            carry = true;
        } else {
            let next = 1u64 << (at + 1);
            escaped |= next;
            escaping &= !next;
        }
    }
    (escaped, carry)
}

/// The quotes and backslashes of a block, one bit a byte.
#[inline]
pub(super) fn masks(block: &[u8; BLOCK]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        masks_sse2(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        masks_portable(block)
    }
}

/// The masks with SSE2: the one `unsafe` of the reader, kept because it
/// pays (the portable path makes the whole scan about 1.35× slower).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn masks_sse2(block: &[u8; BLOCK]) -> (u64, u64) {
    // SAFETY: SSE2 is part of the x86_64 baseline: every CPU that runs an
    // x86_64 build has it (rustc enables it for every x86_64 target).
    unsafe { masks_sse2_enabled(block) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks_sse2_enabled(block: &[u8; BLOCK]) -> (u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let (lanes, _) = block.as_chunks::<16>();
    let mut quotes = 0u64;
    let mut backslashes = 0u64;
    for (i, lane) in lanes.iter().enumerate() {
        // SAFETY: `lane` is a `&[u8; 16]`, so its 16 bytes are readable,
        // and `_mm_loadu_si128` reads exactly 16 bytes with no alignment
        // required; SSE2 is part of every x86_64 target.
        let bytes = unsafe { _mm_loadu_si128(lane.as_ptr().cast::<__m128i>()) };
        // `movemask` gives 16 bits in the low half of an i32: as u16, then
        // widened, no sign bits leak into the mask.
        let q = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, quote)) as u16;
        let b = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, backslash)) as u16;
        quotes |= u64::from(q) << (16 * i);
        backslashes |= u64::from(b) << (16 * i);
    }
    (quotes, backslashes)
}

/// The quotes and backslashes of 16 bytes, one bit a byte: where a short
/// string ends or holds an escape (`json_shape` reads most values in one
/// such look, where a 64-byte block costs several times as much).
#[inline]
pub(super) fn stops16(block: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline, as for `masks_sse2`.
        unsafe { stops16_sse2(block) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        stops16_portable(block)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn stops16_sse2(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: `block` is 16 readable bytes, which `_mm_loadu_si128` reads
    // with no alignment required.
    let bytes = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
    let quotes = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
    let backslashes = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
    // 16 bits in the low half of an i32, as u16 so that no sign bit leaks.
    u32::from(_mm_movemask_epi8(_mm_or_si128(quotes, backslashes)) as u16)
}

/// `stops16` without vector instructions.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn stops16_portable(block: &[u8; 16]) -> u32 {
    let (words, _) = block.as_chunks::<8>();
    let mut stops = 0u32;
    for (i, word) in words.iter().enumerate() {
        let word = u64::from_le_bytes(*word);
        let found = equal_bytes(word, b'"') | equal_bytes(word, b'\\');
        stops |= u32::from(found) << (8 * i);
    }
    stops
}

/// The same masks without vector instructions: the path of other targets,
/// eight bytes a word. The whole scan of a Caddy line took about twice as
/// long as with SSE2 when this was a loop a byte at a time, and about 1.35×
/// as long as written here (`benches/HISTORY.md`).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn masks_portable(block: &[u8; BLOCK]) -> (u64, u64) {
    let (words, _) = block.as_chunks::<8>();
    let mut quotes = 0u64;
    let mut backslashes = 0u64;
    for (i, word) in words.iter().enumerate() {
        let word = u64::from_le_bytes(*word);
        quotes |= u64::from(equal_bytes(word, b'"')) << (8 * i);
        backslashes |= u64::from(equal_bytes(word, b'\\')) << (8 * i);
    }
    (quotes, backslashes)
}

/// One bit for each byte of `word` (read little-endian) that is `byte`.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn equal_bytes(word: u64, byte: u8) -> u8 {
    const LOWS: u64 = u64::from_ne_bytes([0x7f; 8]);
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    let x = word ^ (u64::from(byte) * ONES);
    // A byte's high bit is set when the byte of `x` is zero: its low seven
    // bits plus 0x7f reach the high bit unless all are zero, and no carry
    // crosses into the next byte.
    let zero = !(((x & LOWS) + LOWS) | x | LOWS);
    // Gathers the eight high bits into the top byte, byte k's to bit
    // 56 + k: each product lands on its own bit, so no carries mix them.
    ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

#[cfg(test)]
#[path = "json_quotes_tests.rs"]
mod tests;
