//! Time and size arithmetic for the log generator: takes the `--start`,
//! `--span` and `--bytes` arguments as written, gives seconds and bytes, and
//! writes Apache `%t` stamps (`[29/Nov/2026:00:00:00 +0100]`, the form SPEC §1
//! reads, each carrying its own UTC offset).

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm:
/// eras of 400 years, months counted from March so leap days come last).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of `days_from_civil`: (year, month 1-12, day 1-31).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

fn number(s: &str, what: &str) -> Result<i64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what}: expected digits, found {s:?}"));
    }
    s.parse().map_err(|_| format!("{what}: {s:?} is too large"))
}

/// An instant as RFC 3339 writes it, e.g. `2026-11-29T00:00:00+01:00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    /// Seconds since the Unix epoch.
    pub utc: i64,
    /// The offset written, in seconds east of UTC; every log line uses it.
    pub offset: i32,
}

/// Reads `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `±HH:MM` (a space may
/// stand for the `T`; fractions of a second are not accepted, since `%t`
/// cannot show them).
pub fn parse_start(s: &str) -> Result<Start, String> {
    let bad = || format!("--start: {s:?} is not YYYY-MM-DDTHH:MM:SS+HH:MM");
    if s.len() < 20 || !s.is_char_boundary(19) {
        return Err(bad());
    }
    let (stamp, zone) = s.split_at(19);
    let b = stamp.as_bytes();
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return Err(bad());
    }
    if b[13] != b':' || b[16] != b':' {
        return Err(bad());
    }
    let year = number(&stamp[0..4], "--start year")?;
    let month = number(&stamp[5..7], "--start month")? as u32;
    let day = number(&stamp[8..10], "--start day")? as u32;
    let hour = number(&stamp[11..13], "--start hour")?;
    let minute = number(&stamp[14..16], "--start minute")?;
    let second = number(&stamp[17..19], "--start second")?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(format!("--start: no such date in {s:?}"));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("--start: no such time of day in {s:?}"));
    }
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let z = zone.as_bytes();
            if z.len() != 6 || !matches!(z[0], b'+' | b'-') || z[3] != b':' {
                return Err(bad());
            }
            let hours = number(&zone[1..3], "--start offset")?;
            let minutes = number(&zone[4..6], "--start offset")?;
            if hours > 23 || minutes > 59 {
                return Err(format!("--start: no such offset in {s:?}"));
            }
            let magnitude = (hours * 3600 + minutes * 60) as i32;
            if z[0] == b'-' { -magnitude } else { magnitude }
        }
    };
    let local = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    Ok(Start {
        utc: local - i64::from(offset),
        offset,
    })
}

/// Reads a duration: a number with `s`, `m`, `h`, `d` or `w` (bare = seconds).
pub fn parse_span(s: &str) -> Result<u64, String> {
    let (digits, unit) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n = number(digits, "--span")? as u64;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => {
            return Err(format!(
                "--span: unknown unit in {s:?} (use s, m, h, d or w)"
            ));
        }
    };
    match n.checked_mul(scale) {
        Some(0) => Err("--span: must be longer than nothing".into()),
        Some(secs) => Ok(secs),
        None => Err(format!("--span: {s:?} is too long")),
    }
}

/// Reads a size: a number with an optional `K`, `M`, `G` or `T` (powers of
/// 1024, an optional trailing `B` or `iB` allowed).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (digits, unit) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let n = number(digits, "--bytes")? as u64;
    let unit = unit.to_ascii_uppercase();
    let unit = unit
        .strip_suffix("IB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("--bytes: unknown unit in {s:?} (use K, M, G or T)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("--bytes: {s:?} is too large"))
}

/// Writes `%t` stamps for one UTC offset, remembering the last one: most
/// lines share their second with the line before.
pub struct Stamp {
    offset: i32,
    last: Option<i64>,
    text: [u8; 28],
}

impl Stamp {
    pub fn new(offset: i32) -> Stamp {
        Stamp {
            offset,
            last: None,
            text: [b' '; 28],
        }
    }

    /// The stamp for `utc` (seconds since the epoch), brackets included.
    pub fn render(&mut self, utc: i64) -> &[u8] {
        if self.last != Some(utc) {
            self.last = Some(utc);
            let local = utc + i64::from(self.offset);
            let (year, month, day) = civil_from_days(local.div_euclid(86_400));
            let secs = local.rem_euclid(86_400);
            let t = &mut self.text;
            t[0] = b'[';
            two(&mut t[1..3], i64::from(day));
            t[3] = b'/';
            t[4..7].copy_from_slice(MONTHS[(month - 1) as usize]);
            t[7] = b'/';
            four(&mut t[8..12], year);
            t[12] = b':';
            two(&mut t[13..15], secs / 3600);
            t[15] = b':';
            two(&mut t[16..18], secs / 60 % 60);
            t[18] = b':';
            two(&mut t[19..21], secs % 60);
            t[21] = b' ';
            t[22] = if self.offset < 0 { b'-' } else { b'+' };
            let off = i64::from(self.offset.unsigned_abs());
            two(&mut t[23..25], off / 3600);
            two(&mut t[25..27], off / 60 % 60);
            t[27] = b']';
        }
        &self.text
    }
}

fn two(out: &mut [u8], n: i64) {
    out[0] = b'0' + (n / 10 % 10) as u8;
    out[1] = b'0' + (n % 10) as u8;
}

fn four(out: &mut [u8], n: i64) {
    two(&mut out[0..2], n / 100);
    two(&mut out[2..4], n % 100);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        for (y, m, d, days) in [
            (1970, 1, 1, 0),
            (2000, 2, 29, 11_016),
            (2026, 11, 29, 20_786),
            (2028, 12, 31, 21_549),
            (1969, 12, 31, -1),
        ] {
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
            assert_eq!(civil_from_days(days), (y, m, d));
        }
    }

    #[test]
    fn starts_are_read() {
        let cases = [
            ("2026-11-29T00:00:00+01:00", Ok((1_795_906_800, 3600))),
            ("2026-11-28T23:00:00Z", Ok((1_795_906_800, 0))),
            ("2026-11-28 18:30:00-04:30", Ok((1_795_906_800, -16_200))),
            ("2026-02-29T00:00:00Z", Err(())),
            ("2026-11-29T24:00:00Z", Err(())),
            ("2026-11-29T00:00:00", Err(())),
            ("2026-11-29T00:00:00+0100", Err(())),
            ("yesterday", Err(())),
        ];
        for (input, want) in cases {
            let got = parse_start(input)
                .map(|s| (s.utc, s.offset))
                .map_err(|_| ());
            assert_eq!(got, want, "{input}");
        }
    }

    #[test]
    fn spans_and_sizes_are_read() {
        for (input, want) in [
            ("90", Some(90)),
            ("30s", Some(30)),
            ("15m", Some(900)),
            ("6h", Some(21_600)),
            ("1d", Some(86_400)),
            ("2w", Some(1_209_600)),
            ("0d", None),
            ("1y", None),
            ("d", None),
        ] {
            assert_eq!(parse_span(input).ok(), want, "{input}");
        }
        for (input, want) in [
            ("1000", Some(1000)),
            ("64K", Some(65_536)),
            ("1G", Some(1 << 30)),
            ("1gb", Some(1 << 30)),
            ("3MiB", Some(3 << 20)),
            ("1X", None),
            ("", None),
        ] {
            assert_eq!(parse_size(input).ok(), want, "{input}");
        }
    }

    #[test]
    fn stamps_carry_the_offset() {
        let start = parse_start("2026-11-29T00:00:00+01:00").map(|s| s.utc);
        let utc = start.unwrap_or_default();
        for (offset, at, want) in [
            (3600, 0, "[29/Nov/2026:00:00:00 +0100]"),
            (3600, 86_399, "[29/Nov/2026:23:59:59 +0100]"),
            (0, 0, "[28/Nov/2026:23:00:00 +0000]"),
            (-16_200, 59, "[28/Nov/2026:18:30:59 -0430]"),
        ] {
            let mut stamp = Stamp::new(offset);
            assert_eq!(stamp.render(utc + at), want.as_bytes());
        }
    }
}
