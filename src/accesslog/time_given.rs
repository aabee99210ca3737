//! Times given to the tool rather than read from a log line: `--since`,
//! `--until` and `--robots-since` (RFC 3339 or a bare date), the names of
//! `--robots-history` files and the times the reports write, and `+HHMM`
//! offsets (`--window-tz`, `--log-tz`). Takes the text; gives a
//! `Timestamp` or an offset in minutes (SPEC §1 "Times", §6). Read with
//! jiff, off the per-line path.

use super::time::{DAY, Timestamp, days_from_civil, offset_prefix};

/// For `--since` and `--until`: a full RFC 3339 time (with its offset or
/// `Z`; a fraction kept to the millisecond), or a bare `YYYY-MM-DD` meaning
/// midnight UTC of that day. A time without an offset is refused, as it
/// would be silently read as UTC.
pub fn parse_rfc3339_or_date(s: &str) -> Option<Timestamp> {
    rfc3339_or_date_finer(s).map(|(time, _)| time)
}

/// `parse_rfc3339_or_date`, and whether the fraction of a second as
/// written is finer than the millisecond the time keeps.
fn rfc3339_or_date_finer(s: &str) -> Option<(Timestamp, bool)> {
    // RFC 3339 sets no limit to a fraction's digits; jiff reads nine. Past
    // them only whether any is not 0 matters.
    let (s, finer) = nine_fraction_digits(s.trim());
    let pieces = jiff::fmt::temporal::Pieces::parse(&*s).ok()?;
    let date = pieces.date();
    if !(0..=9999).contains(&date.year()) {
        return None;
    }
    let (time, offset) = match (pieces.time(), pieces.to_numeric_offset()) {
        (None, None) => (jiff::civil::Time::midnight(), jiff::tz::Offset::UTC),
        // RFC 3339 offsets stop at 23:59 (jiff reads up to 25:59:59).
        (Some(time), Some(offset)) if offset.seconds().abs() < 86_400 => (time, offset),
        _ => return None,
    };
    // The instant by the day count the readers use (jiff's own instants
    // stop a day short of 9999-12-31, which a report may write).
    let days = days_from_civil(
        i64::from(date.year()),
        date.month() as u32,
        date.day() as u32,
    );
    let local = days * DAY
        + i64::from(time.hour()) * 3600
        + i64::from(time.minute()) * 60
        + i64::from(time.second());
    let timestamp = Timestamp {
        unix: local - i64::from(offset.seconds()),
        // In range: below a second.
        millis: (time.subsec_nanosecond() / 1_000_000) as u16,
        offset_min: i16::try_from(offset.seconds().div_euclid(60)).ok()?,
    };
    Some((
        timestamp,
        finer || time.subsec_nanosecond() % 1_000_000 != 0,
    ))
}

/// `s` with a fraction of a second cut to nine digits, and whether a
/// digit cut was not 0.
fn nine_fraction_digits(s: &str) -> (std::borrow::Cow<'_, str>, bool) {
    let bytes = s.as_bytes();
    let Some(dot) = bytes.iter().position(|&b| b == b'.' || b == b',') else {
        return (s.into(), false);
    };
    let digits = bytes[dot + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits <= 9 {
        return (s.into(), false);
    }
    let (cut_from, cut_to) = (dot + 10, dot + 1 + digits);
    let finer = bytes[cut_from..cut_to].iter().any(|&b| b != b'0');
    (format!("{}{}", &s[..cut_from], &s[cut_to..]).into(), finer)
}

/// `parse_rfc3339_or_date` as an instant in milliseconds, a finer
/// fraction rounded up (`--since`, `--until`): fetch times are kept to the
/// millisecond, so a fetch at `…11.400` is before `…11.4009` and before
/// `…11.4001` alike, and rounded up both say so.
pub fn rfc3339_or_date_ms_up(s: &str) -> Option<i64> {
    let (time, finer) = rfc3339_or_date_finer(s)?;
    Some(time.instant_ms() + i64::from(finer))
}

/// A UTC offset as `+HHMM`, `-HHMM`, `+HH:MM` or `Z`, in minutes (for
/// `--window-tz`).
pub fn parse_offset(s: &str) -> Option<i16> {
    let b = s.trim().as_bytes();
    if b == b"Z" || b == b"z" {
        return Some(0);
    }
    match offset_prefix(b, true)? {
        // In range: offset_prefix holds hours below 24.
        (minutes, used) if used == b.len() => Some(minutes as i16),
        _ => None,
    }
}
