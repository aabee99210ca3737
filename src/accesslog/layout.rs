//! Time layouts of a log format: takes the time field of a format (Apache
//! `%t`, `%{strftime}t`, `%{sec}t`…, nginx `$time_local`, `$time_iso8601`,
//! `$msec`) and gives a compiled `TimeLayout` that reads such a time from the
//! front of a field (SPEC §1 "Times").
//!
//! A strftime layout without `%z` carries no offset: it reads a local time,
//! which the format turns into an instant through `--log-tz` (`LogTz`),
//! never silently as UTC. Apache's `%{…}t` arguments that give no full time
//! are told apart: `msec_frac`/`usec_frac` (the fraction of the time field),
//! `%z` alone (its offset), and the rest (`%{%H}t`, `%{%A}t`) opaque.

use super::time::{
    Civil, Timestamp, clf_prefix, epoch_prefix, iso8601_prefix, month_abbrev, offset_prefix,
};

/// The Apache strftime spelling of the Common Log Format time.
const CLF_STRFTIME: &[u8] = b"%d/%b/%Y:%H:%M:%S %z";

/// How a format writes its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeLayout {
    /// `10/Oct/2000:13:55:36 -0700` (Apache `%t` without its brackets,
    /// nginx `$time_local`).
    Clf,
    /// `2000-10-10T13:55:36-07:00` (nginx `$time_iso8601`).
    Iso8601,
    /// Seconds (scale 1, fraction allowed: nginx `$msec`), milliseconds
    /// (1000) or microseconds (1000000) since the epoch.
    Epoch(i64),
    /// A strftime layout (Apache `%{…}t`).
    Pattern(Vec<Piece>),
}

/// What an Apache `%{…}t` field holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimePart {
    /// A time (a full date and hour, or seconds since the epoch).
    Time(TimeLayout),
    /// `msec_frac` (3 digits) or `usec_frac` (6 digits): the fraction of
    /// the second of the time field.
    Fraction(u8),
    /// `%{%z}t`: the UTC offset of a time field written without one.
    Offset,
    /// A part of a time that is not a time by itself (`%{%H:%M}t`).
    Opaque,
}

/// One element of a strftime layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Literal(u8),
    /// `%d`: two digits.
    Day,
    /// `%e`: day, padded with a space.
    DaySpaced,
    /// `%j`: day of the year, three digits.
    DayOfYear,
    /// `%m`: two digits.
    Month,
    /// `%b`, `%h`: `Oct`.
    MonthAbbrev,
    /// `%B`: `October`.
    MonthName,
    /// `%Y`: four digits.
    Year,
    /// `%y`: two digits; with `%C` in that century, else 69–99 in the
    /// 1900s and the rest in the 2000s (POSIX).
    YearOfCentury,
    /// `%C`: the century, two digits.
    Century,
    /// `%H`: two digits.
    Hour,
    /// `%k`: hour padded with a space.
    HourSpaced,
    /// `%I`: 01–12, with `%p`.
    Hour12,
    /// `%l`: 1–12 padded with a space, with `%p`.
    Hour12Spaced,
    /// `%p`, `%P`: `AM`/`PM`, any case.
    AmPm,
    Minute,
    Second,
    /// `%z`: `+hhmm`.
    Offset,
    /// `%Z`: a zone abbreviation; `GMT`, `UTC`, `UT` and `Z` are read as
    /// +00:00, any other leaves the time local.
    ZoneName,
    /// `%a`, `%A`: letters that carry nothing this tool needs.
    Letters,
    /// `%u`, `%w`, `%U`, `%W`, `%V`, `%g`, `%G`: digits (up to the count)
    /// that carry nothing this tool needs.
    Digits(u8),
    /// `%s`: seconds since the epoch.
    EpochSeconds,
}
impl TimeLayout {
    /// What an Apache `%{…}t` argument holds: `sec`, `msec`, `usec`,
    /// `msec_frac`, `usec_frac`, or a strftime layout, each optionally
    /// behind `begin:` or `end:`. The error names a strftime directive this
    /// reader does not know.
    pub fn apache(argument: &[u8]) -> Result<TimePart, String> {
        let argument = without_begin_end(argument);
        Ok(match argument {
            // Whole seconds: a `.` after them is the format's own text
            // (`%{sec}t.%{msec_frac}t`), never a fraction.
            b"sec" => TimePart::Time(TimeLayout::Pattern(vec![Piece::EpochSeconds])),
            b"msec" => TimePart::Time(TimeLayout::Epoch(1000)),
            b"usec" => TimePart::Time(TimeLayout::Epoch(1_000_000)),
            b"msec_frac" => TimePart::Fraction(3),
            b"usec_frac" => TimePart::Fraction(6),
            b"" | CLF_STRFTIME => TimePart::Time(TimeLayout::Clf),
            b"%z" => TimePart::Offset,
            _ => {
                let pieces = compile_strftime(argument)?;
                if gives_a_time(&pieces) {
                    TimePart::Time(TimeLayout::Pattern(pieces))
                } else {
                    TimePart::Opaque
                }
            }
        })
    }

    /// The layout of a `%{…}t` that is a part of a time only
    /// ([`TimePart::Opaque`]): read for its length, so that its blanks
    /// (`%{%a %d}t`) end nothing.
    pub fn opaque(argument: &[u8]) -> Option<TimeLayout> {
        compile_strftime(without_begin_end(argument))
            .ok()
            .map(TimeLayout::Pattern)
    }

    /// True when a time of this layout may write a blank: a literal one,
    /// or a number padded with one (`%e`, `%k`, `%l`).
    pub fn may_write_blank(&self) -> bool {
        match self {
            TimeLayout::Clf => true,
            TimeLayout::Iso8601 | TimeLayout::Epoch(_) => false,
            TimeLayout::Pattern(pieces) => pieces.iter().any(|p| {
                matches!(
                    p,
                    Piece::Literal(b' ' | b'\t')
                        | Piece::DaySpaced
                        | Piece::HourSpaced
                        | Piece::Hour12Spaced
                )
            }),
        }
    }

    /// True when a time of this layout may carry no offset, so that the
    /// format needs `--log-tz` (or a `%{%z}t` field) to place it. A zone
    /// name (`%Z`) is no offset (SPEC §1: a `%{…}t` without `%z`): only
    /// `GMT` and its kin say one, and a night that starts in `BST` would
    /// otherwise be read in part.
    pub fn may_be_local(&self) -> bool {
        match self {
            TimeLayout::Clf | TimeLayout::Iso8601 | TimeLayout::Epoch(_) => false,
            TimeLayout::Pattern(pieces) => !pieces
                .iter()
                .any(|p| matches!(p, Piece::Offset | Piece::EpochSeconds)),
        }
    }

    /// Reads a time from the front of `s`; gives it, the bytes used, and
    /// whether it was written without an offset: then `unix` holds the
    /// local civil time read as if it were UTC (see `LogTz`).
    #[inline]
    pub fn read(&self, s: &[u8]) -> Option<(Timestamp, usize, bool)> {
        match self {
            TimeLayout::Clf => clf_prefix(s).map(|(t, n)| (t, n, false)),
            TimeLayout::Iso8601 => iso8601_prefix(s).map(|(t, n)| (t, n, false)),
            TimeLayout::Epoch(scale) => epoch_prefix(s, *scale).map(|(t, n)| (t, n, false)),
            TimeLayout::Pattern(pieces) => read_pattern(pieces, s),
        }
    }
}

/// A `%{…}t` argument without Apache's `begin:`/`end:` (which time of the
/// request it is; the layout is the same).
fn without_begin_end(argument: &[u8]) -> &[u8] {
    argument
        .strip_prefix(b"begin:")
        .or_else(|| argument.strip_prefix(b"end:"))
        .unwrap_or(argument)
}

/// True when the pieces give an instant: a full date and an unambiguous
/// hour, or seconds since the epoch.
fn gives_a_time(pieces: &[Piece]) -> bool {
    let has = |p: Piece| pieces.contains(&p);
    let has_day = has(Piece::Day) || has(Piece::DaySpaced);
    let has_month = has(Piece::Month) || has(Piece::MonthAbbrev) || has(Piece::MonthName);
    let has_year = has(Piece::Year) || has(Piece::YearOfCentury);
    let has_hour = has(Piece::Hour)
        || has(Piece::HourSpaced)
        || ((has(Piece::Hour12) || has(Piece::Hour12Spaced)) && has(Piece::AmPm));
    let has_date = (has_day && has_month) || has(Piece::DayOfYear);
    (has_date && has_year && has_hour) || has(Piece::EpochSeconds)
}

/// The C locale's spellings of the composite conversions (httpd does not
/// set a locale for its logs).
fn composite(directive: u8) -> Option<&'static [u8]> {
    Some(match directive {
        b'T' => b"%H:%M:%S",
        b'R' => b"%H:%M",
        b'F' => b"%Y-%m-%d",
        b'D' | b'x' => b"%m/%d/%y",
        b'X' => b"%H:%M:%S",
        b'r' => b"%I:%M:%S %p",
        b'c' => b"%a %b %e %H:%M:%S %Y",
        _ => return None,
    })
}

fn compile_strftime(layout: &[u8]) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < layout.len() {
        let b = layout[at];
        at += 1;
        if b != b'%' {
            pieces.push(Piece::Literal(b));
            continue;
        }
        // The E and O modifiers ask for a locale's alternative forms,
        // which the C locale does not have.
        if matches!(layout.get(at), Some(b'E' | b'O')) {
            at += 1;
        }
        let Some(&directive) = layout.get(at) else {
            return Err("time layout ends with a lone %".to_string());
        };
        at += 1;
        if let Some(expansion) = composite(directive) {
            pieces.extend(compile_strftime(expansion)?);
            continue;
        }
        let piece = match directive {
            b'd' => Piece::Day,
            b'e' => Piece::DaySpaced,
            b'j' => Piece::DayOfYear,
            b'm' => Piece::Month,
            b'b' | b'h' => Piece::MonthAbbrev,
            b'B' => Piece::MonthName,
            b'Y' => Piece::Year,
            b'y' => Piece::YearOfCentury,
            b'C' => Piece::Century,
            b'H' => Piece::Hour,
            b'k' => Piece::HourSpaced,
            b'I' => Piece::Hour12,
            b'l' => Piece::Hour12Spaced,
            b'p' | b'P' => Piece::AmPm,
            b'M' => Piece::Minute,
            b'S' => Piece::Second,
            b'z' => Piece::Offset,
            b'Z' => Piece::ZoneName,
            b'a' | b'A' => Piece::Letters,
            b'u' | b'w' => Piece::Digits(1),
            b'U' | b'W' | b'V' | b'g' => Piece::Digits(2),
            b'G' => Piece::Digits(4),
            b's' => Piece::EpochSeconds,
            b'%' => Piece::Literal(b'%'),
            b'n' => Piece::Literal(b'\n'),
            b't' => Piece::Literal(b'\t'),
            other => {
                return Err(format!(
                    "time layout directive %{} is not supported",
                    char::from(other)
                ));
            }
        };
        pieces.push(piece);
    }
    Ok(pieces)
}

/// Up to `max` digits, at least `min`; gives the value and the bytes used.
fn digits(s: &[u8], min: usize, max: usize) -> Option<(u32, usize)> {
    let count = s
        .iter()
        .take(max)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if count < min {
        return None;
    }
    let value = s[..count]
        .iter()
        .fold(0u32, |v, &b| v * 10 + u32::from(b - b'0'));
    Some((value, count))
}

const MONTH_NAMES: [&[u8]; 12] = [
    b"january",
    b"february",
    b"march",
    b"april",
    b"may",
    b"june",
    b"july",
    b"august",
    b"september",
    b"october",
    b"november",
    b"december",
];

/// Up to `max` digits after any spaces that pad them to `max` places.
fn spaced_digits(s: &[u8], max: usize) -> Option<(u32, usize)> {
    let pad = s.iter().take(max - 1).take_while(|&&b| b == b' ').count();
    let (v, n) = digits(&s[pad..], 1, max - pad)?;
    Some((v, pad + n))
}

fn read_pattern(pieces: &[Piece], s: &[u8]) -> Option<(Timestamp, usize, bool)> {
    // A layout that gives a time writes its year; a part of a time
    // (`%{%m/%d}t`, read for its length) is checked in a leap year, so
    // that 02/29 and day 366 are read.
    let mut civil = Civil {
        year: 2000,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        offset_min: 0,
    };
    let mut epoch = None;
    let mut has_offset = false;
    let mut day_of_year = None;
    let mut century = None;
    let mut year_of_century = None;
    let mut hour12 = None;
    let mut pm = false;
    let mut at = 0;
    for piece in pieces {
        let rest = &s[at..];
        let used = match *piece {
            Piece::Literal(b) => {
                if rest.first() != Some(&b) {
                    return None;
                }
                1
            }
            Piece::Day => {
                let (v, n) = digits(rest, 2, 2)?;
                civil.day = v;
                n
            }
            Piece::DaySpaced => {
                let (v, n) = spaced_digits(rest, 2)?;
                civil.day = v;
                n
            }
            Piece::DayOfYear => {
                let (v, n) = digits(rest, 3, 3)?;
                day_of_year = Some(v);
                n
            }
            Piece::Month => {
                let (v, n) = digits(rest, 2, 2)?;
                civil.month = v;
                n
            }
            Piece::MonthAbbrev => {
                civil.month = month_abbrev(rest)?;
                3
            }
            Piece::MonthName => {
                let (index, name) = MONTH_NAMES.iter().enumerate().find(|(_, name)| {
                    rest.len() >= name.len() && rest[..name.len()].eq_ignore_ascii_case(name)
                })?;
                civil.month = index as u32 + 1;
                name.len()
            }
            Piece::Year => {
                let (v, n) = digits(rest, 4, 4)?;
                civil.year = i64::from(v);
                n
            }
            Piece::YearOfCentury => {
                let (v, n) = digits(rest, 2, 2)?;
                year_of_century = Some(v);
                n
            }
            Piece::Century => {
                let (v, n) = digits(rest, 2, 2)?;
                century = Some(v);
                n
            }
            Piece::Hour => {
                let (v, n) = digits(rest, 2, 2)?;
                civil.hour = v;
                n
            }
            Piece::HourSpaced => {
                let (v, n) = spaced_digits(rest, 2)?;
                civil.hour = v;
                n
            }
            Piece::Hour12 | Piece::Hour12Spaced => {
                let (v, n) = if *piece == Piece::Hour12 {
                    digits(rest, 2, 2)?
                } else {
                    spaced_digits(rest, 2)?
                };
                if !(1..=12).contains(&v) {
                    return None;
                }
                hour12 = Some(v);
                n
            }
            Piece::AmPm => {
                let [a, b] = *rest.get(..2)? else {
                    return None;
                };
                pm = match [a | 0x20, b | 0x20] {
                    [b'a', b'm'] => false,
                    [b'p', b'm'] => true,
                    _ => return None,
                };
                2
            }
            Piece::Minute => {
                let (v, n) = digits(rest, 2, 2)?;
                civil.minute = v;
                n
            }
            Piece::Second => {
                let (v, n) = digits(rest, 2, 2)?;
                civil.second = v;
                n
            }
            Piece::Offset => {
                let (v, n) = offset_prefix(rest, true)?;
                civil.offset_min = v;
                has_offset = true;
                n
            }
            Piece::ZoneName => {
                // tzdata spells many zones by their offset (`+03`, `-03`,
                // `+0545`): an abbreviation all the same, placed by the zone.
                let numeric = match rest {
                    [b'+' | b'-', h1, h2, m1, m2, ..]
                        if [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) =>
                    {
                        5
                    }
                    [b'+' | b'-', h1, h2, ..] if h1.is_ascii_digit() && h2.is_ascii_digit() => 3,
                    _ => 0,
                };
                let n = if numeric > 0 {
                    numeric
                } else {
                    rest.iter().take_while(|b| b.is_ascii_alphabetic()).count()
                };
                let name = &rest[..n];
                if [&b"GMT"[..], b"UTC", b"UT", b"Z"]
                    .iter()
                    .any(|utc| name.eq_ignore_ascii_case(utc))
                {
                    civil.offset_min = 0;
                    has_offset = true;
                }
                if n == 0 {
                    return None;
                }
                n
            }
            Piece::Letters => {
                let n = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
                if n == 0 {
                    return None;
                }
                n
            }
            Piece::Digits(count) => digits(rest, 1, usize::from(count))?.1,
            Piece::EpochSeconds => {
                let whole = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let (t, n) = epoch_prefix(&rest[..whole], 1)?;
                epoch = Some(t.unix);
                n
            }
        };
        at += used;
    }
    if let Some(yy) = year_of_century {
        civil.year = i64::from(match century {
            Some(c) => c * 100 + yy,
            None if yy >= 69 => 1900 + yy,
            None => 2000 + yy,
        });
    }
    if let Some(hour) = hour12 {
        civil.hour = hour % 12 + if pm { 12 } else { 0 };
    }
    if let Some(day) = day_of_year {
        let year = i16::try_from(civil.year).ok()?;
        let day = i16::try_from(day).ok()?;
        let date = jiff::civil::Date::new(year, 1, 1)
            .ok()?
            .with()
            .day_of_year(day)
            .build()
            .ok()?;
        civil.month = u32::try_from(date.month()).ok()?;
        civil.day = u32::try_from(date.day()).ok()?;
    }
    let mut time = civil.timestamp()?;
    if let Some(unix) = epoch {
        time.unix = unix;
        time.offset_min = 0;
        has_offset = true;
    }
    Some((time, at, !has_offset))
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
