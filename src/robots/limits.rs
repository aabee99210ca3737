//! Seznam's `Request-rate` and the common `Crawl-delay`: takes a line's
//! value, gives the limit it sets, or the reason it sets none (SPEC §3).
//! A malformed value is kept with its reason for the lint and has no effect.

use std::fmt;

/// A time-of-day window, in minutes after midnight (UTC unless the audit is
/// told otherwise). Start inclusive, end exclusive; it may wrap midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start_min: u16,
    pub end_min: u16,
}

impl Window {
    /// True when `minute_of_day` (0..1440) falls in the window. A window
    /// whose start equals its end (`0000-0000`) covers the whole day.
    pub fn contains(&self, minute_of_day: u16) -> bool {
        let (start, end) = (self.start_min, self.end_min);
        match start.cmp(&end) {
            std::cmp::Ordering::Less => (start..end).contains(&minute_of_day),
            std::cmp::Ordering::Greater => minute_of_day >= start || minute_of_day < end,
            std::cmp::Ordering::Equal => true,
        }
    }
}

/// Midnight as an end is written `2400`, as in `0000-2400`: the window
/// runs to the end of the day (a `2200-0000` reads the same).
impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = if self.end_min == 0 {
            1440
        } else {
            self.end_min
        };
        write!(
            f,
            "{:02}{:02}-{:02}{:02}",
            self.start_min / 60,
            self.start_min % 60,
            end / 60,
            end % 60
        )
    }
}

/// At most `requests` fetches per `period_secs`, perhaps only in a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// The requests allowed, at most `u32::MAX` (more than any night
    /// holds).
    pub requests: u32,
    /// The requests as written, to `u64::MAX`: what the floor compares,
    /// so that `10000000000/2315000d` (faster than 1/30s) is not read as
    /// the slower `4294967295/2315000d`.
    pub requests_written: u64,
    /// The base-10 logarithms of the requests and of the period's seconds
    /// as written, as `f64` bits, when either is past what 64 bits hold:
    /// the floor compares these instead (`10^18/10^21d` is slower than
    /// 1/30s, `10^30/10^20s` is not, though both periods hold as
    /// `u64::MAX` seconds; logarithms, so that numbers of hundreds of
    /// digits compare too).
    pub approx: Option<(u64, u64)>,
    pub period_secs: u64,
    pub window: Option<Window>,
}

impl Rate {
    /// A crawler that reads any rate slower than `fetches` per
    /// `period_secs` as exactly that (Seznam: 1 per 30 s, so `1/60s` acts
    /// as `1/30s`, SPEC §3). Gives the effective rate when the floor
    /// applies, `None` when the written rate stands. N/T is slower than F/S
    /// when N × S < F × T.
    pub fn floored(&self, fetches: u32, period_secs: u64) -> Option<Rate> {
        let slower = match self.approx {
            None => {
                u128::from(self.requests_written) * u128::from(period_secs)
                    < u128::from(fetches) * u128::from(self.period_secs)
            }
            Some((requests, period)) => {
                let floor = (period_secs as f64).log10() - f64::from(fetches).log10();
                f64::from_bits(requests) + floor < f64::from_bits(period)
            }
        };
        slower.then_some(Rate {
            requests: fetches,
            requests_written: u64::from(fetches),
            approx: None,
            period_secs,
            window: self.window,
        })
    }

    /// The rate as a report shows it, in the largest unit that divides the
    /// period: `1/30s`, `300/1m`, `400/1h`, `9000/1d`; a window follows
    /// after a space.
    pub fn canonical(&self) -> String {
        let (count, unit) = [(86_400, 'd'), (3_600, 'h'), (60, 'm')]
            .iter()
            .find(|(secs, _)| self.period_secs.is_multiple_of(*secs))
            .map_or((self.period_secs, 's'), |&(secs, unit)| {
                (self.period_secs / secs, unit)
            });
        match self.window {
            Some(window) => format!("{}/{count}{unit} {window}", self.requests),
            None => format!("{}/{count}{unit}", self.requests),
        }
    }
}

/// One `Request-rate` line of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRate {
    pub line: usize,
    /// The line as written (`Record::text`).
    pub text: String,
    /// Index of the group that holds the line.
    pub group: usize,
    /// The rate as written, without the window: `300/1m`. The whole value
    /// when it could not be read.
    pub written: String,
    /// The limit, when the value could be read.
    pub rate: Option<Rate>,
    /// Why the value could not be read.
    pub error: Option<String>,
}

/// One `Crawl-delay` line of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlDelay {
    pub line: usize,
    pub text: String,
    pub group: usize,
    /// The delay in milliseconds, when the value could be read, rounded up
    /// when the value is finer: a gap of whole milliseconds is less than
    /// the written delay exactly when it is less than this.
    pub millis: Option<u64>,
    /// The value as written (`1.0005`) when `millis` is not it exactly
    /// and it is short enough to show (`parse_crawl_delay`).
    pub finer: Option<String>,
    pub error: Option<String>,
}

impl CrawlDelay {
    /// The delay as a row or the lint tells it: as written when finer than
    /// a millisecond, else its seconds without trailing zeros.
    pub fn shown(&self) -> Option<String> {
        self.finer.clone().or_else(|| self.millis.map(seconds_text))
    }
}

/// Milliseconds as seconds, without trailing zeros: `10`, `2.5`, `0.125`.
pub fn seconds_text(millis: u64) -> String {
    if millis.is_multiple_of(1000) {
        (millis / 1000).to_string()
    } else {
        let text = format!("{}.{:03}", millis / 1000, millis % 1000);
        text.trim_end_matches('0').to_string()
    }
}

/// Reads leading ASCII digits as a number; `None` when there are none.
/// Digits past `u64::MAX` read as `u64::MAX`: a number that large already
/// means "no limit" or "never", and a line written so is not malformed
/// (a `Request-rate: 99999999999/1s 0000-0600` must still cover its window).
fn leading_number(text: &str) -> (Option<u64>, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, rest) = text.split_at(end);
    let number = (!digits.is_empty()).then(|| digits.parse().unwrap_or(u64::MAX));
    (number, rest)
}

/// The base-10 logarithm of the number the leading digits of `text`
/// write, however many; 0 (the number 1) for none (`10/m` is per one
/// minute). From its first 17 significant digits and how many follow.
fn leading_log10(text: &str) -> f64 {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let digits = text[..end].trim_start_matches('0');
    if digits.is_empty() {
        return 0.0;
    }
    let kept = digits.len().min(17);
    let head: f64 = digits[..kept].parse().unwrap_or(1.0);
    head.log10() + (digits.len() - kept) as f64
}

/// Reads `HHMM` or `HH:MM` into minutes after midnight; `2400` is allowed
/// as an end meaning midnight.
fn parse_clock(text: &str) -> Result<u16, String> {
    let digits: String = text.chars().filter(|&c| c != ':').collect();
    let bad = || format!("time `{text}` is not HHMM");
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) || text.len() > 5 {
        return Err(bad());
    }
    let hours: u16 = digits[..2].parse().map_err(|_| bad())?;
    let minutes: u16 = digits[2..].parse().map_err(|_| bad())?;
    if minutes > 59 || hours > 24 || (hours == 24 && minutes > 0) {
        return Err(bad());
    }
    Ok((hours * 60 + minutes) % 1440)
}

/// Reads `HHMM-HHMM`, spaces around the dash allowed.
fn parse_window(text: &str) -> Result<Window, String> {
    let (start, end) = text
        .split_once('-')
        .ok_or_else(|| format!("window `{text}` is not HHMM-HHMM"))?;
    Ok(Window {
        start_min: parse_clock(start.trim())?,
        end_min: parse_clock(end.trim())?,
    })
}

/// Reads a `Request-rate` value: `N/T[s|m|h|d] [HHMM-HHMM]`. A missing
/// unit means seconds, a missing T means 1 (`10/m`). Spaces may stand around
/// the `/`, between T and its unit, and around the window's dash. Gives the
/// rate token as written (trimmed) and the rate or the reason it is unusable.
pub fn parse_request_rate(value: &[u8]) -> (String, Result<Rate, String>) {
    let Ok(text) = std::str::from_utf8(value) else {
        let written = crate::text::escape_non_utf8(value).into_owned();
        return (written, Err("the value is not text".into()));
    };
    let text = text.trim();
    match read_rate(text) {
        Ok((rate, written_end)) => (text[..written_end].trim_end().to_string(), Ok(rate)),
        Err(reason) => (text.to_string(), Err(reason)),
    }
}

/// Reads a trimmed Request-rate value; gives the rate and where the rate
/// token ends (the window, if any, follows).
fn read_rate(text: &str) -> Result<(Rate, usize), String> {
    let (count, after) = text
        .split_once('/')
        .ok_or_else(|| "no `/` between requests and period".to_string())?;
    let period_start = text.len() - after.len();
    let requests_written = match leading_number(count.trim()) {
        (Some(n), "") => n,
        _ => return Err(format!("`{}` is not a number of requests", count.trim())),
    };
    // More than fit: more than any night holds, so no limit at all.
    let requests = u32::try_from(requests_written).unwrap_or(u32::MAX);
    if requests == 0 {
        return Err("zero requests allow nothing; the line is ignored".into());
    }
    let after = after.trim_start();
    let (amount, rest) = leading_number(after);
    // `1/1.5s`, `1/1,5s`: a fraction of a period, not a window.
    if amount.is_some()
        && rest.starts_with(['.', ','])
        && rest[1..].starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(format!(
            "`{}` is not a whole number: write the period in a smaller unit (`1/1.5s` as `2/3s`)",
            after.split_whitespace().next().unwrap_or(after)
        ));
    }
    let rest = rest.trim_start();
    let (unit, window_text) = match rest.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => {
            let unit = match c.to_ascii_lowercase() {
                's' => 1,
                'm' => 60,
                'h' => 3_600,
                'd' => 86_400,
                _ => return Err(format!("unknown unit in `{}`", text[period_start..].trim())),
            };
            (unit, &rest[1..])
        }
        _ => (1, rest),
    };
    // A unit letter glued to more letters (`1/5min`) is not a unit.
    if window_text.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("unknown unit in `{}`", text[period_start..].trim()));
    }
    let amount = match amount {
        Some(amount) => amount,
        None if after.starts_with(|c: char| c.is_ascii_alphabetic()) => 1,
        None => return Err("no period after `/`".into()),
    };
    if amount == 0 {
        return Err("a period of zero".into());
    }
    // Longer than fits: longer than any log; the floor compares the
    // numbers as written (`approx`).
    let period_secs = amount.saturating_mul(unit);
    let fits = |n: u64| n != u64::MAX;
    let approx = (!fits(requests_written) || !fits(amount) || amount.checked_mul(unit).is_none())
        .then(|| {
            let requests = leading_log10(count.trim());
            let period = leading_log10(after) + (unit as f64).log10();
            (requests.to_bits(), period.to_bits())
        });
    let window = match window_text.trim() {
        "" => None,
        window => Some(parse_window(window)?),
    };
    let rate = Rate {
        requests,
        requests_written,
        approx,
        period_secs,
        window,
    };
    Ok((rate, text.len() - window_text.len()))
}

/// Reads a `Crawl-delay` value: seconds, whole or decimal (`10`, `0.5`,
/// `.5`), into milliseconds, rounded up past the third decimal (SPEC §3
/// "at least D seconds": `1.0005` is broken by a gap of 1.000 s); and,
/// when it was so rounded, the value as a plain decimal (`01.00050` is
/// `1.0005`): what a row and the lint tell, unless it is past
/// `FINER_SHOWN` bytes, since every row would carry it whole.
pub fn parse_crawl_delay(value: &[u8]) -> Result<(u64, Option<String>), String> {
    let text = std::str::from_utf8(value)
        .map_err(|_| "the value is not text".to_string())?
        .trim();
    let bad = || format!("`{text}` is not a number of seconds");
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(bad());
    }
    if !whole
        .bytes()
        .chain(fraction.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    // A delay longer than fits is longer than any log: it saturates.
    let seconds: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().unwrap_or(u64::MAX)
    };
    let millis_part: u64 = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0, |acc, digit| acc * 10 + u64::from(digit - b'0'));
    let significant = fraction.trim_end_matches('0');
    let finer = significant.len() > 3;
    let millis = seconds
        .saturating_mul(1000)
        .saturating_add(millis_part)
        .saturating_add(u64::from(finer));
    let shown = finer
        .then(|| {
            let whole = whole.trim_start_matches('0');
            format!(
                "{}.{significant}",
                if whole.is_empty() { "0" } else { whole }
            )
        })
        .filter(|shown| shown.len() <= FINER_SHOWN);
    Ok((millis, shown))
}

/// The longest finer-than-a-millisecond delay told as written (a row
/// carries it in its `detail`): longer, it is told as the millisecond it
/// is judged by.
pub const FINER_SHOWN: usize = 24;

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(requests: u32, period_secs: u64, window: Option<(u16, u16)>) -> Rate {
        Rate {
            requests,
            requests_written: u64::from(requests),
            approx: None,
            period_secs,
            window: window.map(|(start_min, end_min)| Window { start_min, end_min }),
        }
    }

    #[test]
    fn request_rates_that_read() {
        let cases: &[(&str, &str, Rate)] = &[
            ("1/30s", "1/30s", rate(1, 30, None)),
            ("100/15m", "100/15m", rate(100, 900, None)),
            ("400/1h", "400/1h", rate(400, 3600, None)),
            ("9000/1d", "9000/1d", rate(9000, 86_400, None)),
            ("1/5", "1/5", rate(1, 5, None)),
            ("10/m", "10/m", rate(10, 60, None)),
            ("10/M", "10/M", rate(10, 60, None)),
            // Numbers past what fits saturate: no limit, or slower than
            // any floor, never a malformed line.
            (
                "99999999999/1s",
                "99999999999/1s",
                Rate {
                    requests_written: 99_999_999_999,
                    ..rate(u32::MAX, 1, None)
                },
            ),
            (
                "99999999999999999999999/1s 0000-0600",
                "99999999999999999999999/1s",
                Rate {
                    requests_written: u64::MAX,
                    approx: Some((
                        leading_log10("99999999999999999999999").to_bits(),
                        0f64.to_bits(),
                    )),
                    ..rate(u32::MAX, 1, Some((0, 360)))
                },
            ),
            (
                "1/300000000000000d",
                "1/300000000000000d",
                Rate {
                    approx: Some((
                        0f64.to_bits(),
                        (3e14f64.log10() + 86_400f64.log10()).to_bits(),
                    )),
                    ..rate(1, u64::MAX, None)
                },
            ),
            (
                "1/99999999999999999999999",
                "1/99999999999999999999999",
                Rate {
                    approx: Some((
                        0f64.to_bits(),
                        leading_log10("99999999999999999999999").to_bits(),
                    )),
                    ..rate(1, u64::MAX, None)
                },
            ),
            ("1/10S", "1/10S", rate(1, 10, None)),
            (
                "300/1m 1800-1900",
                "300/1m",
                rate(300, 60, Some((1080, 1140))),
            ),
            (
                "300/1m  0100 - 0600",
                "300/1m",
                rate(300, 60, Some((60, 360))),
            ),
            ("1/5 2200-0600", "1/5", rate(1, 5, Some((1320, 360)))),
            ("1 / 30 s", "1 / 30 s", rate(1, 30, None)),
            ("5/1m 22:00-06:00", "5/1m", rate(5, 60, Some((1320, 360)))),
            ("5/1m 0000-2400", "5/1m", rate(5, 60, Some((0, 0)))),
        ];
        for (value, written, expected) in cases {
            let (got_written, got) = parse_request_rate(value.as_bytes());
            assert_eq!(&got_written, written, "{value}");
            assert_eq!(got.as_ref(), Ok(expected), "{value}");
        }
    }

    #[test]
    fn request_rates_that_do_not_read() {
        for value in [
            "",
            "abc",
            "30s",
            "/30s",
            "1/",
            "0/10s",
            "1/0s",
            "1/10x",
            "1/5min",
            "x/10s",
            "1x/10s",
            "1/10s 1800",
            "1/10s 2500-0100",
            "1/10s 1860-1900",
            "1/10s soon",
            "1/10s 1800-1900 extra",
            "1/-5s",
        ] {
            let (_, got) = parse_request_rate(value.as_bytes());
            assert!(got.is_err(), "{value:?} gave {got:?}");
        }
        let (written, got) = parse_request_rate(b"1/\xff");
        assert_eq!(written, "1/\\xFF");
        assert!(got.is_err());
        // A decimal period is told as such, not as a window.
        for value in ["1/1.5s", "1/1,5s", "2/1.5 m 1800-1900"] {
            let (_, got) = parse_request_rate(value.as_bytes());
            assert!(
                got.as_ref()
                    .is_err_and(|e| e.contains("is not a whole number")),
                "{value:?} gave {got:?}"
            );
        }
    }

    #[test]
    fn windows_hold_start_but_not_end_and_may_wrap() {
        let day = Window {
            start_min: 1080,
            end_min: 1140,
        };
        let night = Window {
            start_min: 1320,
            end_min: 360,
        };
        let cases = [
            (day, 1079, false),
            (day, 1080, true),
            (day, 1139, true),
            (day, 1140, false),
            (night, 1319, false),
            (night, 1320, true),
            (night, 1439, true),
            (night, 0, true),
            (night, 359, true),
            (night, 360, false),
            (night, 720, false),
        ];
        for (window, minute, expected) in cases {
            assert_eq!(window.contains(minute), expected, "{window} at {minute}");
        }
        let whole = Window {
            start_min: 0,
            end_min: 0,
        };
        assert!((0..1440).all(|m| whole.contains(m)));
        // Shown as read: midnight as an end is 2400.
        assert_eq!(whole.to_string(), "0000-2400");
        assert_eq!(day.to_string(), "1800-1900");
        assert_eq!(night.to_string(), "2200-0600");
        let late = Window {
            start_min: 1320,
            end_min: 0,
        };
        assert_eq!(late.to_string(), "2200-2400");
    }

    #[test]
    fn seznam_floor() {
        let cases = [
            (rate(1, 60, None), Some(rate(1, 30, None))),
            (rate(1, 31, None), Some(rate(1, 30, None))),
            (rate(1, 30, None), None),
            (rate(1, 10, None), None),
            (rate(100, 3600, None), Some(rate(1, 30, None))),
            (rate(120, 3600, None), None),
            (
                rate(2, 86_400, Some((60, 120))),
                Some(rate(1, 30, Some((60, 120)))),
            ),
        ];
        for (written, effective) in cases {
            assert_eq!(written.floored(1, 30), effective, "{}", written.canonical());
        }
        // A count past what a rate holds is still compared as written:
        // 10^10 per 2,315,000 days is faster than 1/30s (about 1.5 per
        // 30 s), though 4,294,967,295 per that period would be slower.
        for (text, floored) in [
            ("10000000000/2315000d", false),
            ("10000000000/2315500000d", true),
            ("99999999999999999999999/1d", false),
            // Periods past what fits, compared as written.
            ("1000000000000000000/1000000000000000000000d", true),
            ("100000000000000000000/100000000000000000000000d", true),
            ("1/1000000000000000000000d", true),
            (
                "1000000000000000000000000000000/100000000000000000000s",
                false,
            ),
            // Past what a float holds: 10^309 per 10^311 s is 1 per 100 s.
            (&format!("1{}/1{}s", "0".repeat(309), "0".repeat(311)), true),
            (
                &format!("1{}/1{}s", "0".repeat(400), "0".repeat(399)),
                false,
            ),
        ] {
            let (_, rate) = parse_request_rate(text.as_bytes());
            let rate = rate.unwrap();
            assert_eq!(rate.floored(1, 30).is_some(), floored, "{text}");
        }
    }

    #[test]
    fn canonical_spelling() {
        let cases = [
            (rate(1, 30, None), "1/30s"),
            (rate(300, 60, None), "300/1m"),
            (rate(100, 900, None), "100/15m"),
            (rate(400, 3600, None), "400/1h"),
            (rate(9000, 86_400, None), "9000/1d"),
            (rate(1, 90, None), "1/90s"),
            (rate(5, 60, Some((1320, 360))), "5/1m 2200-0600"),
        ];
        for (rate, expected) in cases {
            assert_eq!(rate.canonical(), expected);
        }
    }

    #[test]
    fn a_delay_finer_than_a_millisecond_is_told_as_a_plain_decimal() {
        let cases = [
            ("1.0005", Some("1.0005")),
            (" 01.00050 ", Some("1.0005")),
            (".00051", Some("0.00051")),
            ("1.2340000", None),
            ("2.5", None),
            ("10", None),
            ("1.0005s", None),
            // Too long to carry in every row: told by its milliseconds.
            ("0.0000000000000000000000000001", None),
            ("99999999999999999999.0001", None),
        ];
        for (value, expected) in cases {
            assert_eq!(
                parse_crawl_delay(value.as_bytes())
                    .ok()
                    .and_then(|(_, finer)| finer)
                    .as_deref(),
                expected,
                "{value:?}"
            );
        }
    }

    #[test]
    fn crawl_delays() {
        let cases: &[(&str, Result<u64, ()>)] = &[
            ("10", Ok(10_000)),
            ("0.5", Ok(500)),
            (".5", Ok(500)),
            ("5.", Ok(5000)),
            ("1.2345", Ok(1235)),
            ("1.0005", Ok(1001)),
            ("1.0001", Ok(1001)),
            ("1.2340000", Ok(1234)),
            ("0.0001", Ok(1)),
            ("0", Ok(0)),
            (" 2 ", Ok(2000)),
            ("", Err(())),
            (".", Err(())),
            ("-1", Err(())),
            ("1,5", Err(())),
            ("ten", Err(())),
            ("5s", Err(())),
            ("1e3", Err(())),
            // Longer than fits: saturated, not malformed.
            ("99999999999999999999", Ok(u64::MAX)),
            ("99999999999999999999.5", Ok(u64::MAX)),
        ];
        for (value, expected) in cases {
            assert_eq!(
                parse_crawl_delay(value.as_bytes())
                    .map(|(millis, _)| millis)
                    .map_err(|_| ()),
                *expected,
                "{value:?}"
            );
        }
    }
}
