//! Typed, validated settings for each command. No I/O happens here; `cli`
//! builds these from the command line and the library runs on them.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub enum Command {
    Audit(Box<AuditConfig>),
    Check(CheckConfig),
    Lint(LintConfig),
}

/// How the Request-rate and Crawl-delay counts are kept (SPEC §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateBy {
    /// Crawlers that share a robots.txt token share one count.
    Token,
    /// Each crawler is counted apart.
    Crawler,
}

/// The clock in which Request-rate time windows are read (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowTz {
    Utc,
    /// A fixed offset from UTC, in minutes.
    Fixed(i32),
    /// The offset written in each log timestamp.
    Local,
}

impl WindowTz {
    /// Reads `local`, `UTC`, `+HHMM`, `-HHMM` or `+HH:MM`.
    pub fn parse(s: &str) -> Option<WindowTz> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("local") {
            return Some(WindowTz::Local);
        }
        if s.eq_ignore_ascii_case("utc") || s == "Z" {
            return Some(WindowTz::Utc);
        }
        let (sign, rest) = match s.as_bytes().first()? {
            b'+' => (1, &s[1..]),
            b'-' => (-1, &s[1..]),
            _ => return None,
        };
        let digits: String = rest.chars().filter(|&c| c != ':').collect();
        if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let hours: i32 = digits[..2].parse().ok()?;
        let minutes: i32 = digits[2..].parse().ok()?;
        if hours > 23 || minutes > 59 {
            return None;
        }
        Some(WindowTz::Fixed(sign * (hours * 60 + minutes)))
    }

    /// The minute of the day (0..1440) at which a window is read, for an
    /// instant given in UTC seconds with the log's own offset in minutes.
    pub fn minute_of_day(self, unix: i64, log_offset_min: i32) -> u16 {
        let offset = match self {
            WindowTz::Utc => 0,
            WindowTz::Fixed(m) => m,
            WindowTz::Local => log_offset_min,
        };
        let local = unix + i64::from(offset) * 60;
        (local.rem_euclid(86_400) / 60) as u16
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Csv,
    Json,
}

/// The main job: audit logs against a robots.txt.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    pub logs: Vec<PathBuf>,
    pub robots: PathBuf,
    pub log_format: String,
    pub out: Option<PathBuf>,
    pub threads: Option<usize>,
    pub strict: bool,
    pub quiet: bool,
    pub raw_csv: bool,
    pub rate_by: RateBy,
    pub window_tz: WindowTz,
    /// Only fetches at or after this instant (UTC seconds).
    pub since: Option<i64>,
    /// Only fetches before this instant (UTC seconds).
    pub until: Option<i64>,
    pub ptr_map: Option<PathBuf>,
    /// Extra crawler profiles (`--profiles`).
    pub profiles: Option<PathBuf>,
    pub resolve: bool,
    pub dns_server: Option<std::net::SocketAddr>,
    pub dns_cache: Option<PathBuf>,
    pub dns_cache_max_age: Duration,
    pub dns_timeout: Duration,
    pub dns_deadline: Duration,
}

#[derive(Debug, Clone)]
pub struct CheckConfig {
    pub robots: PathBuf,
    pub user_agent: String,
    pub targets: Vec<String>,
    pub format: OutputFormat,
}

#[derive(Debug, Clone)]
pub struct LintConfig {
    pub file: PathBuf,
    pub format: OutputFormat,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_tz_forms() {
        let cases = [
            ("local", Some(WindowTz::Local)),
            ("UTC", Some(WindowTz::Utc)),
            ("+0100", Some(WindowTz::Fixed(60))),
            ("-0930", Some(WindowTz::Fixed(-570))),
            ("+05:45", Some(WindowTz::Fixed(345))),
            ("0100", None),
            ("+2500", None),
            ("+01", None),
        ];
        for (input, expected) in cases {
            assert_eq!(WindowTz::parse(input), expected, "{input}");
        }
    }

    #[test]
    fn minute_of_day_in_each_clock() {
        // 2026-11-30T23:30:00Z
        let t = 1_796_081_400;
        assert_eq!(WindowTz::Utc.minute_of_day(t, 60), 23 * 60 + 30);
        assert_eq!(WindowTz::Local.minute_of_day(t, 60), 30);
        assert_eq!(WindowTz::Fixed(-60).minute_of_day(t, 60), 22 * 60 + 30);
    }
}
