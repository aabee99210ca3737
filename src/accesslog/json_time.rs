//! The times of JSON logs: takes the raw text of a mapped time value and
//! gives the readings `JsonFormat` tries in turn: a number of seconds read
//! in one pass, the unit a bare number's size tells, a civil time without
//! an offset, an offset written apart rewritten as ISO 8601 (SPEC §1
//! "Times", `json`).

use super::time::{Timestamp, fraction_millis};

/// The unit of a number of `digits` whole digits that names no unit:
/// seconds up to eleven digits (until the year 5138), milliseconds up to
/// fourteen (from 1973 on), microseconds up to seventeen, nanoseconds
/// beyond. No log holds a time before 1973, so no size is read two ways.
pub(super) fn unit_of(digits: usize) -> i64 {
    match digits {
        0..=11 => 1,
        12..=14 => 1000,
        15..=17 => 1_000_000,
        _ => 1_000_000_000,
    }
}

/// The digits of a number of seconds as written without leading zeros.
pub(super) fn digit_count(unix: i64) -> usize {
    unix.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// A JSON number of seconds with or without a fraction
/// (`1646861401.5241024`, Caddy's `ts`): what `epoch_prefix` reads from
/// it, without the general path every line would otherwise take; `None`
/// for anything else, which the general path then reads or refuses. With
/// it, how many digits the whole seconds are written with.
#[inline(always)]
pub(super) fn seconds(raw: &[u8]) -> Option<(Timestamp, usize)> {
    // One pass over the whole seconds, without a search for the dot first:
    // the number is short, and a search costs more than it saves. Its
    // first eight digits (Caddy writes ten) are read as one word.
    let (mut unix, mut whole) = match raw.first_chunk::<8>().map(|w| u64::from_le_bytes(*w)) {
        Some(word) if eight_digits(word) => (i64::from(eight_digits_value(word)), 8),
        _ => (0i64, 0),
    };
    while let Some(&digit) = raw.get(whole)
        && digit.is_ascii_digit()
    {
        if whole == 18 {
            return None;
        }
        unix = unix * 10 + i64::from(digit - b'0');
        whole += 1;
    }
    let fraction = match raw.get(whole) {
        None => &[][..],
        Some(b'.') => &raw[whole + 1..],
        Some(_) => return None,
    };
    if whole == 0 || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Year 9999 ends here, as `epoch_prefix` has it.
    if unix >= super::time::YEAR_10000 {
        return None;
    }
    let time = Timestamp {
        unix,
        millis: fraction_millis(fraction),
        offset_min: 0,
    };
    Some((time, whole))
}

/// Whether the eight bytes of `word` (little-endian: the first byte
/// lowest) are all ASCII digits: each has `3` in its high half, and adding
/// 6 to it carries into that half only past `9`.
#[inline(always)]
fn eight_digits(word: u64) -> bool {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    word & HIGH == ZEROS && word.wrapping_add(0x0606_0606_0606_0606) & HIGH == ZEROS
}

/// The number eight ASCII digits spell (`eight_digits` holds), the first
/// the most significant: digits paired, pairs into fours, fours into the
/// whole, three multiplications in all.
#[inline(always)]
fn eight_digits_value(word: u64) -> u32 {
    let digits = word - 0x3030_3030_3030_3030;
    // Each even byte: ten times itself plus the next (a pair's value).
    let pairs = digits * 10 + (digits >> 8);
    const LOW_PAIRS: u64 = 0x0000_00FF_0000_00FF;
    let high = (pairs & LOW_PAIRS).wrapping_mul(100 + (1_000_000 << 32));
    let low = ((pairs >> 16) & LOW_PAIRS).wrapping_mul(1 + (10_000 << 32));
    (high.wrapping_add(low) >> 32) as u32
}

/// `2026-11-29T14:00:00`, `2026-11-29 14:00:00` or `2026/11/29 14:00:00`,
/// with a fraction of a second or not, and nothing after it: a civil time with no offset. A
/// time with an offset of a form `iso8601_prefix` does not read is none,
/// so that its offset is never dropped.
pub(super) fn local_time(text: &[u8]) -> Option<jiff::civil::DateTime> {
    let number = |at: usize, len: usize| -> Option<i64> {
        let digits = text.get(at..at + len)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |v, &d| v * 10 + i64::from(d - b'0')))
    };
    // The date's separators: ISO's `-`, or the `/` of Caddy's `wall`
    // times (`2006/01/02 15:04:05`), the same twice.
    let date = match text.get(4) {
        Some(b'/') => b'/',
        _ => b'-',
    };
    let separators = [(4, date), (7, date), (13, b':'), (16, b':')];
    if separators.iter().any(|&(at, b)| text.get(at) != Some(&b))
        || !matches!(text.get(10), Some(b'T' | b't' | b' '))
    {
        return None;
    }
    let nanos = match &text[19..] {
        [] => 0,
        [b'.', fraction @ ..] if (1..=9).contains(&fraction.len()) => {
            let digits = number(20, fraction.len())?;
            digits * 10i64.pow(9 - fraction.len() as u32)
        }
        _ => return None,
    };
    jiff::civil::DateTime::new(
        i16::try_from(number(0, 4)?).ok()?,
        i8::try_from(number(5, 2)?).ok()?,
        i8::try_from(number(8, 2)?).ok()?,
        i8::try_from(number(11, 2)?).ok()?,
        i8::try_from(number(14, 2)?).ok()?,
        i8::try_from(number(17, 2)?).ok()?,
        i32::try_from(nanos).ok()?,
    )
    .ok()
}

/// A date and time whose offset follows after a blank or is written in
/// hours alone, rewritten as ISO 8601 (`2026-11-29 10:00:00 +0100 CET`,
/// `2026-11-29T10:00:00 +01:00`, `2026-11-29 10:00:00 UTC`,
/// `2026-11-29T10:00:00+01` give `…+0100`, `…+01:00`, `…Z`, `…+01:00`);
/// `None` for any other text. What Go writes after a numeric offset (the
/// zone's abbreviation, the monotonic clock) is checked, then left: the
/// offset says it all.
pub(super) fn offset_spelled_apart(text: &[u8]) -> Option<Vec<u8>> {
    // The date and time, with a fraction if any: up to the first blank
    // past the time of day, or to an hour offset at the end.
    let time_end = 19
        + text
            .get(19..)?
            .iter()
            .position(|&b| b == b' ' || b == b'+' || b == b'-')
            .unwrap_or(text.len() - 19);
    let (when, rest) = text.split_at(time_end);
    let mut words = rest.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let zone = words.next()?;
    let hours = |sign: u8, digits: &[u8]| -> Option<Vec<u8>> {
        let ok = matches!(sign, b'+' | b'-')
            && match digits {
                [a, b] => a.is_ascii_digit() && b.is_ascii_digit(),
                [a, b, c, d] => [a, b, c, d].iter().all(|d| d.is_ascii_digit()),
                [a, b, b':', c, d] => [a, b, c, d].iter().all(|d| d.is_ascii_digit()),
                _ => false,
            };
        ok.then(|| {
            let mut offset = vec![sign];
            offset.extend_from_slice(digits);
            if digits.len() == 2 {
                offset.extend_from_slice(b":00");
            }
            offset
        })
    };
    let offset = match zone {
        b"UTC" | b"GMT" | b"Z" | b"utc" | b"gmt" | b"z" => {
            // Nothing may follow a zone name.
            if words.next().is_some() {
                return None;
            }
            b"Z".to_vec()
        }
        [sign, digits @ ..] => {
            let offset = hours(*sign, digits)?;
            // Only what Go's time.String() writes may follow: the zone's
            // abbreviation (letters, or `+04` where the zone has none; `UTC`
            // only for a zero offset), then the monotonic clock `m=±…`.
            let zero = digits.iter().all(|&d| d == b'0' || d == b':');
            let mut words = words.peekable();
            if let Some(abbreviation) = words.next_if(|w| !w.starts_with(b"m=")) {
                let letters = abbreviation.iter().all(u8::is_ascii_alphabetic);
                let numeric = matches!(abbreviation, [b'+' | b'-', d @ ..]
                    if matches!(d.len(), 2 | 4) && d.iter().all(u8::is_ascii_digit));
                let utc = matches!(abbreviation, b"UTC" | b"GMT");
                if rest.first() != Some(&b' ') || !(letters || numeric) || (utc && !zero) {
                    return None;
                }
            }
            if let Some(monotonic) = words.next() {
                let reading = monotonic.strip_prefix(b"m=")?;
                let number = reading
                    .strip_prefix(b"+")
                    .or_else(|| reading.strip_prefix(b"-"))?;
                if number.is_empty() || !number.iter().all(|&b| b.is_ascii_digit() || b == b'.') {
                    return None;
                }
            }
            if words.next().is_some() {
                return None;
            }
            offset
        }
        [] => return None,
    };
    // Written together, only an hour offset is new: the rest is ISO
    // 8601 already, and was refused as such.
    if rest.first() != Some(&b' ') && zone.len() != 3 {
        return None;
    }
    Some([when, &offset].concat())
}

#[cfg(test)]
#[path = "json_time_tests.rs"]
mod tests;
