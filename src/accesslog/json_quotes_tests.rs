//! The quote index against a byte-by-byte reading of the same text: the
//! SSE2 and the portable masks equal a plain byte loop's, and every quote
//! found is the first one no backslash escapes, counted from the start of
//! the line, across block boundaries and runs of backslashes of every
//! length.

use super::*;
use proptest::prelude::*;

/// For each byte of `text`, whether a backslash escapes it, read from the
/// start: a backslash not itself escaped escapes the byte after it.
fn escaped_reference(text: &[u8]) -> Vec<bool> {
    let mut escaped = vec![false; text.len()];
    let mut at = 0;
    while at < text.len() {
        if text[at] == b'\\' && !escaped[at] {
            if let Some(next) = escaped.get_mut(at + 1) {
                *next = true;
            }
            at += 2;
        } else {
            at += 1;
        }
    }
    escaped
}

/// The first quote at or after `from` not escaped, and whether a
/// backslash lies before it, read a byte at a time.
fn next_quote_reference(text: &[u8], escaped: &[bool], from: usize) -> Option<(usize, bool)> {
    let at = (from..text.len()).find(|&i| text[i] == b'"' && !escaped[i])?;
    Some((at, text[from..at].contains(&b'\\')))
}

/// Text mostly of quotes and backslashes, so that runs of each cross
/// block boundaries often.
fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            3 => Just(b'\\'),
            2 => Just(b'"'),
            2 => Just(b'a'),
            1 => any::<u8>(),
        ],
        0..300,
    )
}

/// The masks a byte at a time, as plainly as they can be written.
fn masks_reference(block: &[u8; BLOCK]) -> (u64, u64) {
    let mut quotes = 0u64;
    let mut backslashes = 0u64;
    for (i, &byte) in block.iter().enumerate() {
        quotes |= u64::from(byte == b'"') << i;
        backslashes |= u64::from(byte == b'\\') << i;
    }
    (quotes, backslashes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sse2_and_portable_masks_agree(block in prop::collection::vec(
        prop_oneof![Just(b'\\'), Just(b'"'), Just(b'"' ^ 0x80), Just(b'\\' + 1), any::<u8>()], BLOCK)
    ) {
        let block: [u8; BLOCK] = block.try_into().expect("64 bytes");
        let reference = masks_reference(&block);
        #[cfg(target_arch = "x86_64")]
        prop_assert_eq!(masks_sse2(&block), reference);
        prop_assert_eq!(masks_portable(&block), reference);
        prop_assert_eq!(masks(&block), reference);
    }

    #[test]
    fn quotes_found_are_the_unescaped_ones(text in text(), steps in prop::collection::vec(0..70usize, 1..20)) {
        let escaped = escaped_reference(&text);
        let mut quotes = Quotes::new(&text);
        let mut from = 0;
        for step in steps {
            let found = quotes.next_quote(from);
            prop_assert_eq!(found, next_quote_reference(&text, &escaped, from), "from {}", from);
            // As the reader does: on past the quote found, or a little
            // further, never back.
            from = match found {
                Some((at, _)) => at + 1 + step % 3,
                None => break,
            };
            from += step / 3;
        }
    }
}

#[test]
fn runs_of_backslashes_across_a_block_boundary() {
    // 63 bytes, then a backslash as the block's last byte: the quote that
    // opens the next block is escaped; with two backslashes it is not.
    let mut one = vec![b'a'; 63];
    one.extend_from_slice(br#"\"x""#);
    assert_eq!(Quotes::new(&one).next_quote(0), Some((66, true)));
    let mut two = vec![b'a'; 62];
    two.extend_from_slice(br#"\\"x""#);
    assert_eq!(Quotes::new(&two).next_quote(0), Some((64, true)));
    assert_eq!(Quotes::new(b"").next_quote(0), None);
    assert_eq!(Quotes::new(br#"abc\""#).next_quote(0), None);
}

#[test]
fn masks_of_every_byte_value_in_every_place() {
    // Each byte value at each of the 64 places, among bytes one off from a
    // quote and a backslash, where a carry between bytes would show.
    for byte in 0..=255u8 {
        for at in 0..BLOCK {
            let mut block = [b'"' + 1; BLOCK];
            block[..BLOCK / 2].fill(b'\\' - 1);
            block[at] = byte;
            let reference = masks_reference(&block);
            #[cfg(target_arch = "x86_64")]
            assert_eq!(masks_sse2(&block), reference, "{byte} at {at}");
            assert_eq!(masks_portable(&block), reference, "{byte} at {at}");
        }
    }
}

#[test]
fn sixteen_bytes_stop_at_the_same_quotes_and_backslashes_with_and_without_sse2() {
    let mut state = 0x1234_5678_9abc_def1u64;
    for _ in 0..20_000 {
        let mut block = [0u8; 16];
        for byte in &mut block {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *byte = match state % 5 {
                0 => b'"',
                1 => b'\\',
                _ => (state >> 8) as u8,
            };
        }
        let expected = block
            .iter()
            .enumerate()
            .filter(|(_, b)| matches!(b, b'"' | b'\\'))
            .fold(0u32, |bits, (i, _)| bits | 1 << i);
        assert_eq!(stops16(&block), expected, "{block:?}");
        assert_eq!(stops16_portable(&block), expected, "{block:?}");
    }
}
