//! Typed, validated settings for each command. No I/O happens here; `cli`
//! builds these from the command line and the library runs on them.

use std::path::PathBuf;
use std::time::Duration;

use crate::accesslog::time::Timestamp;
use crate::accesslog::time_given::parse_offset;
use crate::accesslog::{LogTz, TrustedProxies};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowTz {
    Utc,
    /// A fixed offset from UTC, in minutes.
    Fixed(i16),
    /// The offset written in each log timestamp.
    Local,
    /// An IANA zone: its offset at each fetch, so a window follows the
    /// clock across DST changes.
    Zone(LogTz),
}

impl WindowTz {
    /// Reads `local`, `UTC`, an offset as the log reader reads one
    /// (`+HHMM`, `-HHMM`, `+HH:MM`, `Z`), or an IANA zone name
    /// (`Europe/Prague`). The error says what was expected.
    pub fn parse(s: &str) -> Result<WindowTz, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("local") {
            return Ok(WindowTz::Local);
        }
        if s.eq_ignore_ascii_case("utc") {
            return Ok(WindowTz::Utc);
        }
        if let Some(minutes) = parse_offset(s) {
            return Ok(WindowTz::Fixed(minutes));
        }
        LogTz::parse(s).map(WindowTz::Zone)
    }

    /// The minute of the day (0..1440) at which a window is read for a
    /// fetch at `time`.
    pub fn minute_of_day(&self, time: &Timestamp) -> u16 {
        time.minute_of_day(match self {
            WindowTz::Utc => 0,
            WindowTz::Fixed(m) => *m,
            WindowTz::Local => time.offset_min,
            WindowTz::Zone(zone) => zone.offset_at(time.unix),
        })
    }
}

/// Where the robots.txt versions come from (SPEC §6 "Versions"); the
/// versions kept in `--state` join them when a state is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsSources {
    /// `--robots FILE`.
    pub file: Option<PathBuf>,
    /// `--robots-since TIME`: when `file` came into force, in place of its
    /// modification time.
    pub since: Option<Timestamp>,
    /// `--robots-history DIR`.
    pub history: Option<PathBuf>,
}

/// The longest `--robots-grace`: a year. Past it the grace would excuse
/// every fetch of any version the site ever had, and the arithmetic of
/// instants stays far from overflow.
pub const MAX_GRACE_MS: i64 = 366 * 86_400_000;

/// Reads a `--robots-grace` duration: `0`, or numbers each with a unit
/// `d`, `h`, `m` or `s` (`24h`, `90m`, `1h30m`, `45s`), in milliseconds.
/// A bare number other than 0 has no unit to read it by and is refused.
pub fn parse_duration_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    if s == "0" {
        return Some(0);
    }
    let mut total: i64 = 0;
    let mut rest = s;
    if rest.is_empty() {
        return None;
    }
    // Each unit at most once, the largest first (`1h30m`): `1h1h` or
    // `30m1h` is a typo, not a sum.
    let mut last_unit = i64::MAX;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 12 {
            return None;
        }
        let number: i64 = rest[..digits].parse().ok()?;
        let unit = match rest.as_bytes().get(digits)?.to_ascii_lowercase() {
            b'd' => 86_400_000,
            b'h' => 3_600_000,
            b'm' => 60_000,
            b's' => 1_000,
            _ => return None,
        };
        if unit >= last_unit {
            return None;
        }
        last_unit = unit;
        total = total.checked_add(number.checked_mul(unit)?)?;
        rest = &rest[digits + 1..];
    }
    (total <= MAX_GRACE_MS).then_some(total)
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
    pub log_format: String,
    /// The zone of log times written without an offset (`--log-tz`).
    pub log_tz: Option<LogTz>,
    /// Proxies whose forwarded-for field is believed (`--trusted-proxy`).
    pub trusted_proxies: TrustedProxies,
    /// The site's host names (`--host`): crawler fetches of other virtual
    /// hosts are left out. Empty: every host is judged.
    pub hosts: crate::accesslog::SiteHosts,
    pub out: Option<PathBuf>,
    /// How long to wait for another run's lock on `out` (`--lock-wait`).
    pub lock_wait: Duration,
    pub threads: Option<usize>,
    /// Bytes of memory to stay within (`--memory`).
    pub memory: u64,
    pub strict: bool,
    pub quiet: bool,
    pub raw_csv: bool,
    pub rate_by: RateBy,
    pub window_tz: WindowTz,
    /// Only fetches at or after this instant (UTC milliseconds).
    pub since: Option<i64>,
    /// Only fetches before this instant (UTC milliseconds).
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
    /// Every source of robots.txt versions (SPEC §6). `robots` above is
    /// `sources.file` for the judge of one version; the judge of versions
    /// reads `robots_sources` (with the state's) instead.
    pub robots_sources: RobotsSources,
    /// `--robots-grace`: how long a crawler may rely on its copy of
    /// robots.txt (RFC 9309 §2.4), in milliseconds.
    pub robots_grace_ms: i64,
    /// `--state DIR`.
    pub state: Option<PathBuf>,
    /// `--state-days`: nights and fingerprints older than this expire.
    pub state_days: u64,
}

#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// The robots.txt versions to answer from; without `at`, the latest.
    pub robots: RobotsSources,
    /// `--state DIR`, whose versions join the others (read, not locked:
    /// the state is replaced by a rename, so a reader sees it whole).
    pub state: Option<PathBuf>,
    /// `--at TIME`: answer with the version in force at that instant.
    pub at: Option<Timestamp>,
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
            (
                "Europe/Prague",
                LogTz::parse("Europe/Prague").ok().map(WindowTz::Zone),
            ),
            ("0100", None),
            ("+2500", None),
            ("+01", None),
            ("Europe/Nowhere", None),
        ];
        for (input, expected) in cases {
            assert_eq!(WindowTz::parse(input).ok(), expected, "{input}");
        }
    }

    #[test]
    fn grace_durations() {
        let cases = [
            ("24h", Some(86_400_000)),
            ("90m", Some(5_400_000)),
            ("0", Some(0)),
            ("0s", Some(0)),
            ("45s", Some(45_000)),
            ("1h30m", Some(5_400_000)),
            ("2d", Some(172_800_000)),
            ("1D", Some(86_400_000)),
            (" 12h ", Some(43_200_000)),
            ("366d", Some(MAX_GRACE_MS)),
            ("367d", None),
            ("24", None),
            ("h", None),
            ("-1h", None),
            ("1.5h", None),
            ("1w", None),
            ("", None),
            ("99999999999999h", None),
            ("1d2h3m4s", Some(93_784_000)),
            ("1h1h", None),
            ("30m1h", None),
            ("1m1m", None),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_duration_ms(input), expected, "{input:?}");
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
        // Prague's clock: +01:00 in November, +02:00 in July.
        let prague = WindowTz::parse("Europe/Prague").unwrap();
        assert_eq!(prague.minute_of_day(&t), 30);
        let july = Timestamp {
            unix: 1_782_923_400, // 2026-07-01T16:30:00Z
            millis: 0,
            offset_min: 0,
        };
        assert_eq!(prague.minute_of_day(&july), 18 * 60 + 30);
    }
}
