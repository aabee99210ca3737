//! Log timestamps: takes the time text of a log line (Apache `%t` /
//! nginx `$time_local`, ISO 8601 `$time_iso8601`, RFC 3339 or a bare date on
//! the command line) and gives a `Timestamp`, an instant in UTC that remembers
//! the log's own offset, so reports can write it back as logged (SPEC §1
//! "Timestamps carry their own UTC offset", §5 `time`).
//!
//! The civil-date arithmetic of the per-line readers is written here: a
//! dozen lines, exact for the proleptic Gregorian calendar, and a few
//! integer operations a line; the tests hold it against jiff. Everything
//! off that path is jiff's: times given on the command line
//! (`time_given.rs`), and writing times back.

use std::cell::Cell;

/// Seconds in a day.
pub(super) const DAY: i64 = 86_400;

/// The first second of the year 10000, in seconds since 1970-01-01 (of
/// UTC, or of a civil time as written): past the years a time may have.
/// A leap second read at the end of 9999-12-31 (`23:59:60`) would fall
/// there: a bad time, never a day early.
pub(crate) const YEAR_10000: i64 = 253_402_300_800;

/// The instant of `local`, civil seconds since 1970-01-01 as written in
/// an offset of `offset_min` minutes, on a whole second; `None` past the
/// year 9999 (`YEAR_10000`). What every reader of a civil time ends with.
#[inline]
pub(crate) fn at_local(local: i64, offset_min: i16) -> Option<Timestamp> {
    (local < YEAR_10000).then(|| Timestamp {
        unix: local - i64::from(offset_min) * 60,
        millis: 0,
        offset_min,
    })
}

/// An instant, with the UTC offset it was written in.
///
/// Ordered by the instant first; two timestamps of the same instant written
/// in different offsets are equal only in `unix` and `millis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub unix: i64,
    /// Milliseconds past `unix` (0..1000), for logs that write fractions
    /// (nginx `$msec`, Apache `%{msec}t`, ISO times with a fraction).
    pub millis: u16,
    /// The offset from UTC the log wrote, in minutes (`-0700` is -420).
    pub offset_min: i16,
}

/// An instant as `Timestamp::rfc3339` writes it, held in place: at most
/// 29 bytes (`9999-12-31T23:59:59.999+99:59`).
#[derive(Debug, Clone, Copy)]
pub struct Rfc3339 {
    bytes: [u8; 33],
    len: u8,
}

impl Rfc3339 {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Days from 1970-01-01 to the given proleptic Gregorian date. The caller
/// has checked that month and day are in range.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Count years from March, so that the leap day is the last day of the
    // counted year and every month before it has a fixed length.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian (year, month, day) of a day counted from
/// 1970-01-01, the inverse of `days_from_civil` (by 400-year eras, whose
/// days repeat).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    // Counted from 0000-03-01, so that a leap day ends its year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months from March: 0 is March, 11 February.
    let march_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * march_month + 2) / 5 + 1;
    let month = if march_month < 10 {
        march_month + 3
    } else {
        march_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A calendar time of day as written, before it is checked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub offset_min: i32,
}

impl Civil {
    /// Checks the fields and gives the instant; `None` for anything out of
    /// range. Years are held to 0..=9999, as RFC 3339 and log formats write
    /// them. A leap second (`:60`) is read as the first second of the next
    /// minute, which is where a Unix clock puts it.
    pub(crate) fn timestamp(self) -> Option<Timestamp> {
        if !(0..=9999).contains(&self.year)
            || !(1..=12).contains(&self.month)
            || self.day == 0
            || self.day > days_in_month(self.year, self.month)
            || self.hour > 23
            || self.minute > 59
            || self.second > 60
            || self.offset_min.abs() >= 24 * 60
        {
            return None;
        }
        let days = days_from_civil(self.year, self.month, self.day);
        let local = days * DAY
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second);
        // In range: checked above.
        at_local(local, self.offset_min as i16)
    }
}

/// Two ASCII digits as a number.
#[inline]
fn two_digits(s: &[u8], at: usize) -> Option<u32> {
    let a = s.get(at)?.wrapping_sub(b'0');
    let b = s.get(at + 1)?.wrapping_sub(b'0');
    if a > 9 || b > 9 {
        return None;
    }
    Some(u32::from(a) * 10 + u32::from(b))
}

#[inline]
fn four_digits(s: &[u8], at: usize) -> Option<u32> {
    Some(two_digits(s, at)? * 100 + two_digits(s, at + 2)?)
}

/// An English three-letter month abbreviation, any case, as 1..=12.
#[inline]
pub(crate) fn month_abbrev(s: &[u8]) -> Option<u32> {
    let [a, b, c] = *s.get(..3)? else {
        return None;
    };
    // OR-ing 0x20 lowers ASCII letters and maps nothing else onto a
    // lower-case letter, so the match below stays exact.
    Some(match [a | 0x20, b | 0x20, c | 0x20] {
        [b'j', b'a', b'n'] => 1,
        [b'f', b'e', b'b'] => 2,
        [b'm', b'a', b'r'] => 3,
        [b'a', b'p', b'r'] => 4,
        [b'm', b'a', b'y'] => 5,
        [b'j', b'u', b'n'] => 6,
        [b'j', b'u', b'l'] => 7,
        [b'a', b'u', b'g'] => 8,
        [b's', b'e', b'p'] => 9,
        [b'o', b'c', b't'] => 10,
        [b'n', b'o', b'v'] => 11,
        [b'd', b'e', b'c'] => 12,
        _ => return None,
    })
}

/// A numeric UTC offset: `+HHMM`, `-HHMM`, and with `colon` also `+HH:MM`.
/// Gives minutes and the bytes used.
pub(crate) fn offset_prefix(s: &[u8], colon: bool) -> Option<(i32, usize)> {
    let sign = match s.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let hours = two_digits(s, 1)?;
    let (minutes, used) = if colon && s.get(3) == Some(&b':') {
        (two_digits(s, 4)?, 6)
    } else {
        (two_digits(s, 3)?, 5)
    };
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((sign * (hours * 60 + minutes) as i32, used))
}

/// The Common Log Format time, without brackets:
/// `10/Oct/2000:13:55:36 -0700`, always 26 bytes. Month names are read in
/// any case (servers write `Oct`; a hand-made log may not).
#[inline]
pub fn clf_prefix(s: &[u8]) -> Option<(Timestamp, usize)> {
    // A fixed-size view lets every index below go unchecked: this runs for
    // every line of every log.
    let s: &[u8; 26] = s.first_chunk::<26>()?;
    // Lines of a busy log share their second: the last time read on this
    // thread is compared whole before anything is worked out.
    let time = remembered(&LAST_CLF_TIME, s, || {
        let punctuation = (s[11] ^ b':') | (s[14] ^ b':') | (s[17] ^ b':') | (s[20] ^ b' ');
        if punctuation != 0 {
            return None;
        }
        let (local, offset_min) = clock(
            [
                s[12], s[13], s[15], s[16], s[18], s[19], s[22], s[23], s[24], s[25],
            ],
            s[21],
        )?;
        let days = clf_days(s.first_chunk::<11>()?)?;
        at_local(days * DAY + local, offset_min)
    })?;
    Some((time, 26))
}

/// What `work` gives for `key`, remembered on this thread in `last` for
/// the next call with the same key: the per-line time readers keep the
/// last date and the last whole time they read so. A key that reads as
/// nothing is not remembered; the memory starts empty, so no key of zero
/// bytes matches it.
#[inline(always)]
fn remembered<K: Copy + PartialEq, V: Copy>(
    last: &'static std::thread::LocalKey<Cell<Option<(K, V)>>>,
    key: &K,
    work: impl FnOnce() -> Option<V>,
) -> Option<V> {
    if let Some((last_key, value)) = last.get()
        && last_key == *key
    {
        return Some(value);
    }
    let value = work()?;
    last.set(Some((*key, value)));
    Some(value)
}

/// The time of day and the offset of a fixed-size time (CLF, RFC 3339):
/// `bytes` those of the hour, minute and second, then of the offset's
/// hours and minutes, `sign` the offset's sign byte. Gives the seconds
/// into the local day and the offset in minutes, checked (hour to 23,
/// second to 60, offset under a day), or `None`.
#[inline(always)]
fn clock(bytes: [u8; 10], sign: u8) -> Option<(i64, i16)> {
    let digits = bytes.map(|b| b.wrapping_sub(b'0'));
    if digits.iter().fold(0, |any, &d| any | u8::from(d > 9)) != 0 {
        return None;
    }
    let pair = |a: usize| i64::from(digits[a]) * 10 + i64::from(digits[a + 1]);
    let (hour, minute, second) = (pair(0), pair(2), pair(4));
    let (offset_hours, offset_minutes) = (pair(6), pair(8));
    let sign = match sign {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    if hour > 23 || minute > 59 || second > 60 || offset_hours > 23 || offset_minutes > 59 {
        return None;
    }
    // In range: checked above.
    let offset_min = (sign * (offset_hours * 60 + offset_minutes)) as i16;
    Some((hour * 3600 + minute * 60 + second, offset_min))
}

thread_local! {
    /// The last `DD/Mon/YYYY` read on this thread and its day number: a
    /// log holds thousands of lines a day, so the date is worked out once.
    static LAST_CLF_DATE: Cell<Option<([u8; 11], i64)>> = const { Cell::new(None) };
    /// The last CLF time read on this thread, whole, and its reading.
    static LAST_CLF_TIME: Cell<Option<([u8; 26], Timestamp)>> = const { Cell::new(None) };
}

/// The day number of a CLF date `DD/Mon/YYYY`, checked.
#[inline]
fn clf_days(date: &[u8; 11]) -> Option<i64> {
    remembered(&LAST_CLF_DATE, date, || {
        if date[2] != b'/' || date[6] != b'/' {
            return None;
        }
        let year = i64::from(four_digits(date, 7)?);
        let month = month_abbrev(&date[3..6])?;
        let day = two_digits(date, 0)?;
        if day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(days_from_civil(year, month, day))
    })
}

/// ISO 8601 / RFC 3339 with a required offset:
/// `2000-10-10T13:55:36-07:00`, `…+0000`, `…Z`; `t`, `z` and a space in
/// place of `T` (RFC 3339 §5.6 note) are read too; a fraction of a second is
/// kept to the millisecond (floored).
pub fn iso8601_prefix(s: &[u8]) -> Option<(Timestamp, usize)> {
    if let Some(fixed) = s.first_chunk::<25>()
        && let Some(time) = rfc3339_seconds(fixed)
    {
        return Some((time, 25));
    }
    iso8601_long(s)
}

/// `iso8601_prefix` for every form, the long way.
fn iso8601_long(s: &[u8]) -> Option<(Timestamp, usize)> {
    if s.len() < 20 {
        return None;
    }
    if s[4] != b'-' || s[7] != b'-' || s[13] != b':' || s[16] != b':' {
        return None;
    }
    if !matches!(s[10], b'T' | b't' | b' ') {
        return None;
    }
    let mut at = 19;
    let mut millis = 0;
    if s[at] == b'.' || s[at] == b',' {
        at += 1;
        let digits = s[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        millis = fraction_millis(&s[at..at + digits]);
        at += digits;
    }
    let offset_min = match s.get(at)? {
        b'Z' | b'z' => {
            at += 1;
            0
        }
        _ => {
            let (offset, used) = offset_prefix(&s[at..], true)?;
            at += used;
            offset
        }
    };
    let civil = Civil {
        year: i64::from(four_digits(s, 0)?),
        month: two_digits(s, 5)?,
        day: two_digits(s, 8)?,
        hour: two_digits(s, 11)?,
        minute: two_digits(s, 14)?,
        second: two_digits(s, 17)?,
        offset_min,
    };
    let mut time = civil.timestamp()?;
    time.millis = millis;
    Some((time, at))
}

/// The form nearly every log writes, `2026-11-23T00:00:00+01:00` (nginx
/// `$time_iso8601`, Traefik, Caddy's `iso8601`), read in one fixed-size
/// view with the day number kept per thread, as `clf_prefix` does: `None`
/// for every other form, which `iso8601_prefix` reads the long way (a
/// proptest holds both to the same answers).
#[inline]
pub(crate) fn rfc3339_seconds(s: &[u8; 25]) -> Option<Timestamp> {
    // As for CLF times: the last time read on this thread, compared whole.
    remembered(&LAST_ISO_TIME, s, || {
        let punctuation = (s[10] ^ b'T') | (s[13] ^ b':') | (s[16] ^ b':') | (s[22] ^ b':');
        if punctuation != 0 {
            return None;
        }
        let (local, offset_min) = clock(
            [
                s[11], s[12], s[14], s[15], s[17], s[18], s[20], s[21], s[23], s[24],
            ],
            s[19],
        )?;
        let days = iso_days(s.first_chunk::<10>()?)?;
        at_local(days * DAY + local, offset_min)
    })
}

thread_local! {
    /// The last `YYYY-MM-DD` read on this thread and its day number.
    static LAST_ISO_DATE: Cell<Option<([u8; 10], i64)>> = const { Cell::new(None) };
    /// The last `…T…±HH:MM` time read on this thread, whole, and its reading.
    static LAST_ISO_TIME: Cell<Option<([u8; 25], Timestamp)>> = const { Cell::new(None) };
}

/// The day number of an ISO date `YYYY-MM-DD`, checked.
#[inline]
fn iso_days(date: &[u8; 10]) -> Option<i64> {
    remembered(&LAST_ISO_DATE, date, || {
        if date[4] != b'-' || date[7] != b'-' {
            return None;
        }
        let year = i64::from(four_digits(date, 0)?);
        let month = two_digits(date, 5)?;
        let day = two_digits(date, 8)?;
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(days_from_civil(year, month, day))
    })
}

/// The milliseconds of a run of fraction digits (`5` is 500, `123456` is 123).
pub(crate) fn fraction_millis(digits: &[u8]) -> u16 {
    digits
        .iter()
        .chain(std::iter::repeat(&b'0'))
        .take(3)
        .fold(0, |acc, &d| acc * 10 + u16::from(d.saturating_sub(b'0')))
}

/// Seconds since the epoch with an optional fraction (nginx `$msec`,
/// `1700000000.123`), or whole milli- or microseconds (`scale` 1000 or
/// 1000000, Apache `%{msec}t` and `%{usec}t`). Written as UTC.
pub fn epoch_prefix(s: &[u8], scale: i64) -> Option<(Timestamp, usize)> {
    let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    // More than 18 digits cannot be a time this tool can write.
    if digits == 0 || digits > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for &b in &s[..digits] {
        value = value * 10 + i64::from(b - b'0');
    }
    let mut used = digits;
    let mut millis = (value % scale * 1000 / scale) as u16;
    if scale == 1 && s.get(used) == Some(&b'.') {
        let fraction = s[used + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        millis = fraction_millis(&s[used + 1..used + 1 + fraction]);
        used += 1 + fraction;
    }
    let unix = value / scale;
    // Year 9999 ends here; keep to what `rfc3339` can write in four digits.
    if unix >= YEAR_10000 {
        return None;
    }
    Some((
        Timestamp {
            unix,
            millis,
            offset_min: 0,
        },
        used,
    ))
}

/// Reads a whole Common Log Format time (`10/Oct/2000:13:55:36 -0700`).
pub fn parse_clf(s: &[u8]) -> Option<Timestamp> {
    match clf_prefix(s)? {
        (t, used) if used == s.len() => Some(t),
        _ => None,
    }
}

/// Reads a whole ISO 8601 time with offset (`2000-10-10T13:55:36-07:00`).
pub fn parse_iso8601(s: &[u8]) -> Option<Timestamp> {
    match iso8601_prefix(s)? {
        (t, used) if used == s.len() => Some(t),
        _ => None,
    }
}

impl Timestamp {
    /// Milliseconds since the epoch: the instant that orders fetches.
    pub fn instant_ms(&self) -> i64 {
        self.unix
            .saturating_mul(1000)
            .saturating_add(i64::from(self.millis))
    }

    /// The instant in RFC 3339, in the log's own offset, `+00:00` rather than
    /// `Z`: `2026-11-30T00:00:01+01:00`; with milliseconds only when the log
    /// wrote a fraction.
    pub fn rfc3339(&self) -> String {
        String::from_utf8_lossy(self.rfc3339_text().as_bytes()).into_owned()
    }

    /// `rfc3339` without an allocation: the writer of every report row.
    pub fn rfc3339_text(&self) -> Rfc3339 {
        let offset = i32::from(self.offset_min);
        // The local day and second by division, then the calendar date of
        // the day: the writer of every report row, so by arithmetic rather
        // than a calendar library (held against jiff in the tests). Out of
        // range (never from the readers) is clamped to years 0 to 9999,
        // never a panic.
        let local = self.unix.saturating_add(i64::from(offset) * 60);
        let days = local.div_euclid(DAY).clamp(-719_528, 2_932_896);
        let second_of_day = local.rem_euclid(DAY);
        let (year, month, day) = civil_from_days(days);
        let mut out = [0u8; 33];
        let mut at = 0;
        let mut put = |value: i64, width: usize, after: Option<u8>| {
            let mut value = value;
            for k in (0..width).rev() {
                // value is 0..=9999 and width its digits: each is 0..=9.
                out[at + k] = b'0' + (value % 10) as u8;
                value /= 10;
            }
            at += width;
            if let Some(byte) = after {
                out[at] = byte;
                at += 1;
            }
        };
        put(year, 4, Some(b'-'));
        put(month, 2, Some(b'-'));
        put(day, 2, Some(b'T'));
        put(second_of_day / 3600, 2, Some(b':'));
        put(second_of_day / 60 % 60, 2, Some(b':'));
        // Whole-second logs (the usual formats) keep whole-second times.
        let sign = if offset < 0 { b'-' } else { b'+' };
        if self.millis != 0 {
            put(second_of_day % 60, 2, Some(b'.'));
            put(i64::from(self.millis.min(999)), 3, Some(sign));
        } else {
            put(second_of_day % 60, 2, Some(sign));
        }
        let offset = i64::from(offset.abs());
        put((offset / 60).min(99), 2, Some(b':'));
        put(offset % 60, 2, None);
        Rfc3339 {
            bytes: out,
            len: at as u8,
        }
    }

    /// Minutes since midnight (0..1440) of the instant read in the given
    /// offset from UTC.
    pub fn minute_of_day(&self, offset_min: i16) -> u16 {
        let local = self.unix.saturating_add(i64::from(offset_min) * 60);
        // rem_euclid keeps it in 0..86400, so the minute fits.
        (local.rem_euclid(DAY) / 60) as u16
    }

    /// Minutes since midnight UTC.
    pub fn minute_of_day_utc(&self) -> u16 {
        self.minute_of_day(0)
    }

    /// Minutes since midnight in the offset the log wrote.
    pub fn minute_of_day_local(&self) -> u16 {
        self.minute_of_day(self.offset_min)
    }
}

#[cfg(test)]
#[path = "time_tests.rs"]
mod tests;
