//! Typed, validated settings for each command. No I/O happens here; `cli`
//! builds these from the command line and the library runs on them.

use std::path::PathBuf;
use std::time::Duration;

use crate::accesslog::time::{Timestamp, parse_offset};

#[derive(Debug, Clone)]
pub enum Command {
    Audit(Box<AuditConfig>),
    Check(CheckConfig),
    Lint(LintConfig),
    /// The short text of an `--out` directory for the nightly mail.
    Summary(PathBuf),
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
    Fixed(i16),
    /// The offset written in each log timestamp.
    Local,
}

impl WindowTz {
    /// Reads `local`, `UTC`, or an offset as the log reader reads one:
    /// `+HHMM`, `-HHMM`, `+HH:MM`, `Z`.
    pub fn parse(s: &str) -> Option<WindowTz> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("local") {
            return Some(WindowTz::Local);
        }
        if s.eq_ignore_ascii_case("utc") {
            return Some(WindowTz::Utc);
        }
        parse_offset(s).map(WindowTz::Fixed)
    }

    /// The minute of the day (0..1440) at which a window is read for a
    /// fetch at `time`.
    pub fn minute_of_day(self, time: &Timestamp) -> u16 {
        time.minute_of_day(match self {
            WindowTz::Utc => 0,
            WindowTz::Fixed(m) => m,
            WindowTz::Local => time.offset_min,
        })
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
    /// How long to wait for another run's lock on `out` (`--lock-wait`).
    pub lock_wait: Duration,
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
    /// Extra crawler profiles (`--profiles`), as the audit takes them.
    pub profiles: Option<PathBuf>,
    pub targets: Vec<String>,
    pub format: OutputFormat,
}

#[derive(Debug, Clone)]
pub struct LintConfig {
    pub file: PathBuf,
    pub format: OutputFormat,
    /// `--profiles`: crawlers the lint judges the file for besides the
    /// built-in ones.
    pub profiles: Option<PathBuf>,
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
        // 2026-11-30T23:30:00Z, logged at +01:00
        let t = Timestamp {
            unix: 1_796_081_400,
            millis: 0,
            offset_min: 60,
        };
        assert_eq!(WindowTz::Utc.minute_of_day(&t), 23 * 60 + 30);
        assert_eq!(WindowTz::Local.minute_of_day(&t), 30);
        assert_eq!(WindowTz::Fixed(-60).minute_of_day(&t), 22 * 60 + 30);
    }
}
