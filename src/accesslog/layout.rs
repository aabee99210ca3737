//! Time layouts of a log format: takes the time field of a format (Apache
//! `%t`, `%{strftime}t`, `%{sec}t`…, nginx `$time_local`, `$time_iso8601`,
//! `$msec`) and gives a compiled `TimeLayout` that reads such a time from the
//! front of a field (SPEC §1 "Timestamps carry their own UTC offset").
//!
//! A strftime layout without `%z` carries no offset; its times are read as
//! UTC.

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

/// One element of a strftime layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Literal(u8),
    /// `%d`: two digits.
    Day,
    /// `%e`: day, padded with a space.
    DaySpaced,
    /// `%m`: two digits.
    Month,
    /// `%b`, `%h`: `Oct`.
    MonthAbbrev,
    /// `%B`: `October`.
    MonthName,
    /// `%Y`: four digits.
    Year,
    /// `%y`: two digits, 69–99 in the 1900s, else the 2000s (POSIX).
    YearOfCentury,
    Hour,
    Minute,
    Second,
    /// `%z`: `+hhmm`.
    Offset,
    /// `%a`, `%A`, `%Z`: letters that carry nothing this tool needs.
    Letters,
    /// `%s`: seconds since the epoch.
    EpochSeconds,
}

impl TimeLayout {
    /// The layout of an Apache `%{…}t` argument: `sec`, `msec`, `usec`, or a
    /// strftime layout, optionally behind `begin:` or `end:`. `None` for the
    /// parts that are not a time (`msec_frac`, `usec_frac`).
    pub fn apache(argument: &[u8]) -> Option<Result<TimeLayout, String>> {
        let argument = argument
            .strip_prefix(b"begin:")
            .or_else(|| argument.strip_prefix(b"end:"))
            .unwrap_or(argument);
        match argument {
            b"sec" => Some(Ok(TimeLayout::Epoch(1))),
            b"msec" => Some(Ok(TimeLayout::Epoch(1000))),
            b"usec" => Some(Ok(TimeLayout::Epoch(1_000_000))),
            b"msec_frac" | b"usec_frac" => None,
            b"" => Some(Ok(TimeLayout::Clf)),
            CLF_STRFTIME => Some(Ok(TimeLayout::Clf)),
            _ => Some(compile_strftime(argument).map(TimeLayout::Pattern)),
        }
    }

    /// Reads a time from the front of `s`; gives it and the bytes used.
    #[inline]
    pub fn read(&self, s: &[u8]) -> Option<(Timestamp, usize)> {
        match self {
            TimeLayout::Clf => clf_prefix(s),
            TimeLayout::Iso8601 => iso8601_prefix(s),
            TimeLayout::Epoch(scale) => epoch_prefix(s, *scale),
            TimeLayout::Pattern(pieces) => read_pattern(pieces, s),
        }
    }
}

fn compile_strftime(layout: &[u8]) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut bytes = layout.iter();
    while let Some(&b) = bytes.next() {
        if b != b'%' {
            pieces.push(Piece::Literal(b));
            continue;
        }
        let Some(&directive) = bytes.next() else {
            return Err("time layout ends with a lone %".to_string());
        };
        let expanded: &[Piece] = match directive {
            b'd' => &[Piece::Day],
            b'e' => &[Piece::DaySpaced],
            b'm' => &[Piece::Month],
            b'b' | b'h' => &[Piece::MonthAbbrev],
            b'B' => &[Piece::MonthName],
            b'Y' => &[Piece::Year],
            b'y' => &[Piece::YearOfCentury],
            b'H' => &[Piece::Hour],
            b'M' => &[Piece::Minute],
            b'S' => &[Piece::Second],
            b'z' => &[Piece::Offset],
            b'a' | b'A' | b'Z' => &[Piece::Letters],
            b's' => &[Piece::EpochSeconds],
            b'T' => &[
                Piece::Hour,
                Piece::Literal(b':'),
                Piece::Minute,
                Piece::Literal(b':'),
                Piece::Second,
            ],
            b'R' => &[Piece::Hour, Piece::Literal(b':'), Piece::Minute],
            b'F' => &[
                Piece::Year,
                Piece::Literal(b'-'),
                Piece::Month,
                Piece::Literal(b'-'),
                Piece::Day,
            ],
            b'D' => &[
                Piece::Month,
                Piece::Literal(b'/'),
                Piece::Day,
                Piece::Literal(b'/'),
                Piece::YearOfCentury,
            ],
            b'%' => &[Piece::Literal(b'%')],
            b'n' => &[Piece::Literal(b'\n')],
            b't' => &[Piece::Literal(b'\t')],
            other => {
                return Err(format!(
                    "time layout directive %{} is not supported",
                    char::from(other)
                ));
            }
        };
        pieces.extend_from_slice(expanded);
    }
    let has = |p: Piece| pieces.contains(&p);
    let has_date = has(Piece::Day) || has(Piece::DaySpaced);
    let has_month = has(Piece::Month) || has(Piece::MonthAbbrev) || has(Piece::MonthName);
    let has_year = has(Piece::Year) || has(Piece::YearOfCentury);
    let full_date = has_date && has_month && has_year && has(Piece::Hour);
    if !(full_date || has(Piece::EpochSeconds)) {
        return Err(format!(
            "time layout {:?} does not give a full date and hour",
            String::from_utf8_lossy(layout)
        ));
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

fn read_pattern(pieces: &[Piece], s: &[u8]) -> Option<(Timestamp, usize)> {
    let mut civil = Civil {
        year: 1970,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        offset_min: 0,
    };
    let mut epoch = None;
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
                let skip = usize::from(rest.first() == Some(&b' '));
                let (v, n) = digits(&rest[skip..], 1, 2 - skip)?;
                civil.day = v;
                skip + n
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
                civil.year = i64::from(if v >= 69 { 1900 + v } else { 2000 + v });
                n
            }
            Piece::Hour => {
                let (v, n) = digits(rest, 2, 2)?;
                civil.hour = v;
                n
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
                n
            }
            Piece::Letters => {
                let n = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
                if n == 0 {
                    return None;
                }
                n
            }
            Piece::EpochSeconds => {
                let (t, n) = epoch_prefix(rest, 1)?;
                epoch = Some(t.unix);
                n
            }
        };
        at += used;
    }
    let mut time = civil.timestamp()?;
    if let Some(unix) = epoch {
        time.unix = unix;
    }
    Some((time, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apache_arguments() {
        type Case = (&'static str, &'static str, Option<(i64, i16, usize)>);
        let cases: &[Case] = &[
            (
                "%d/%b/%Y:%H:%M:%S %z",
                "10/Oct/2000:13:55:36 -0700]",
                Some((971_211_336, -420, 26)),
            ),
            (
                "begin:%d/%b/%Y:%H:%M:%S %z",
                "10/Oct/2000:13:55:36 -0700",
                Some((971_211_336, -420, 26)),
            ),
            (
                "%Y-%m-%dT%H:%M:%S%z",
                "2000-10-10T13:55:36-0700 x",
                Some((971_211_336, -420, 24)),
            ),
            (
                "%F %T %z",
                "2000-10-10 13:55:36 +05:45",
                Some((971_165_436, 345, 26)),
            ),
            (
                "%d/%b/%Y %T",
                "10/Oct/2000 20:55:36",
                Some((971_211_336, 0, 20)),
            ),
            (
                "%a, %e %B %Y %T %Z",
                "Tue,  3 October 2000 20:55:36 GMT",
                Some((970_606_536, 0, 33)),
            ),
            ("%D %T", "10/10/00 20:55:36", Some((971_211_336, 0, 17))),
            ("sec", "971211336", Some((971_211_336, 0, 9))),
            ("msec", "971211336123", Some((971_211_336, 0, 12))),
            ("end:usec", "971211336123456", Some((971_211_336, 0, 15))),
            ("%s", "971211336", Some((971_211_336, 0, 9))),
            ("%d/%b/%Y %T", "31/Feb/2000 20:55:36", None),
            ("%d/%b/%Y %T", "10/Oct/2000 20:55", None),
        ];
        for &(argument, text, expected) in cases {
            let layout = TimeLayout::apache(argument.as_bytes()).unwrap().unwrap();
            let got = layout
                .read(text.as_bytes())
                .map(|(t, n)| (t.unix, t.offset_min, n));
            assert_eq!(got, expected, "{argument} {text}");
        }
    }

    #[test]
    fn unusable_layouts() {
        for argument in ["%H:%M:%S", "%d/%b/%Y %Q", "%Y-%m-%d %"] {
            assert!(
                matches!(TimeLayout::apache(argument.as_bytes()), Some(Err(_))),
                "{argument}"
            );
        }
        assert_eq!(TimeLayout::apache(b"msec_frac"), None);
        assert_eq!(TimeLayout::apache(b""), Some(Ok(TimeLayout::Clf)));
    }
}
