//! The command line, as clap sees it. Doc comments here are the `--help`
//! text. `Cli::into_command` turns what was typed into the typed, validated
//! settings of `config`; nothing past this file sees clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::accesslog::{LogTz, TrustedProxies};
use crate::config::{
    AuditConfig, CheckConfig, Command, LintConfig, OutputFormat, RateBy, RobotsSources, WindowTz,
    parse_duration_ms,
};
use crate::error::{Error, Result};

/// Audits web-server access logs for Seznam crawler fetches that break
/// robots.txt: Disallow rules, Request-rate and Crawl-delay; and exposes
/// fetches that only pretend to be a Seznam crawler.
///
/// Exit status: 0 no violations, 1 violations found, 2 the run could not be
/// done (bad arguments, unreadable or damaged input, unwritable output).
#[derive(Debug, Parser)]
#[command(name = "robots-audit", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Sub>,

    #[command(flatten)]
    pub audit: AuditArgs,
}

#[derive(Debug, Subcommand)]
pub enum Sub {
    /// May a crawler fetch these URLs? Prints the verdict for each target,
    /// the group used and the deciding rule with its line.
    ///
    /// Exit status: 0 every target allowed, 1 some disallowed, 2 error.
    Check(CheckArgs),
    /// Shows robots.txt as a crawler reads it, then the mistakes in it.
    ///
    /// Exit status: 0 clean, 1 findings, 2 error.
    Lint(LintArgs),
    /// Prints the short text the nightly cron mails, read from the reports
    /// an audit wrote into DIR (`run.json`, `rules.csv`,
    /// `impostor-addresses.csv`): the verdict per crawler, the rules
    /// broken most, the impostor addresses, the run's health and where
    /// `report.html` is.
    ///
    /// Exit status: 0 printed, 2 the reports could not be read.
    Summary(SummaryArgs),
}

#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// The `--out` directory of a finished audit.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// An access log, plain or gzip (recognised by content); `-` is standard
    /// input. May be given many times; files are read in the order given.
    #[arg(long = "log", value_name = "FILE", num_args = 1..)]
    pub logs: Vec<PathBuf>,

    /// The site's robots.txt, in force from its modification time (or
    /// --robots-since).
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,

    #[command(flatten)]
    pub versions: VersionArgs,

    /// How long a crawler may rely on its copy of robots.txt after
    /// fetching it (RFC 9309 §2.4): `24h`, `90m`, `1h30m`, `0`.
    #[arg(long, value_name = "DURATION", default_value = "24h")]
    pub robots_grace: String,

    /// A folder the run keeps between nights: robots.txt versions, the
    /// crawler's fetches of /robots.txt and recent fetches, logs already
    /// audited, a summary row a night, the DNS cache.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,

    /// Days after which nights and logs audited are forgotten by the
    /// state.
    #[arg(long, value_name = "N", default_value_t = crate::state::DEFAULT_DAYS)]
    pub state_days: u64,

    /// Log format: auto (chosen for each file from its first lines),
    /// combined, common, vhost_combined, json (Caddy, Traefik or nginx
    /// names), json-caddy, json-traefik or json-nginx (that schema, every
    /// file), json:client=FIELD,time=FIELD,request=FIELD (or
    /// method=…,target=…; status=, user_agent=, xff=), w3c, or a literal
    /// Apache LogFormat or nginx log_format string.
    #[arg(long, value_name = "FORMAT", default_value = "auto")]
    pub log_format: String,

    /// Time zone of log times written without a UTC offset (a custom
    /// %{…}t without %z): an IANA name such as Europe/Prague (DST-aware),
    /// UTC, or +HHMM/-HHMM. Required for such formats; a local time that
    /// occurs twice takes the earlier instant, one that does not exist is
    /// skipped.
    #[arg(long, value_name = "ZONE", allow_hyphen_values = true)]
    pub log_tz: Option<String>,

    /// A proxy or CDN network (CIDR, or one address; `unix:` for nginx's
    /// connections over a unix socket) whose forwarded-for field
    /// (%{X-Forwarded-For}i, $http_x_forwarded_for) names the client. May
    /// be given many times. Without it the field is ignored.
    #[arg(long = "trusted-proxy", value_name = "CIDR")]
    pub trusted_proxies: Vec<String>,

    /// The site's host name, as the log's virtual-host field writes it
    /// (%v, $host, cs-host, Caddy's request.host). May be given many
    /// times. Crawler fetches of other hosts are left out, not judged by
    /// this robots.txt; lines without a host are judged.
    #[arg(long = "host", value_name = "NAME")]
    pub hosts: Vec<String>,

    /// Write the reports into DIR as one set (violations.csv,
    /// impostors.csv, summary.csv, rules.csv, impostor-addresses.csv,
    /// run.json, report.html): a reader sees the earlier set or the new
    /// one, whole. Without it, violations.csv goes to standard output.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Seconds to wait while another run writes reports into the same
    /// --out DIR; then exit 2.
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    pub lock_wait: u64,

    /// Worker threads (default: all cores; more than the cores are capped
    /// to the cores). The output never depends on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Memory to stay within, resident (e.g. 100M, 1G; K, M and G are
    /// binary units). Crawler fetches beyond it are sorted in runs on disk
    /// in $TMPDIR; the reports never depend on it.
    #[arg(long, value_name = "SIZE", default_value = "100M")]
    pub memory: String,

    /// Stop at the first log line that does not parse.
    #[arg(long)]
    pub strict: bool,

    /// No progress bar and no summary on standard error.
    #[arg(long, short)]
    pub quiet: bool,

    /// Write log text to the CSV as it is: no `\xNN` / `\u{NNNN}` escaping
    /// of control characters and bytes that are not UTF-8, and no guard
    /// against spreadsheet formulas.
    #[arg(long)]
    pub raw_csv: bool,

    /// Count Request-rate and Crawl-delay per robots.txt token (the site
    /// sees one robot) or per crawler.
    #[arg(long, value_enum, default_value_t = RateByArg::Token)]
    pub rate_by: RateByArg,

    /// Time zone of Request-rate windows: `+HHMM`/`-HHMM`, an IANA name
    /// such as Europe/Prague (windows follow the clock across DST changes),
    /// or `local` for the offset written in each log timestamp. Default: UTC.
    #[arg(long, value_name = "TZ", allow_hyphen_values = true)]
    pub window_tz: Option<String>,

    /// Audit only fetches at or after this time (RFC 3339, or a date
    /// YYYY-MM-DD meaning midnight UTC).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Audit only fetches before this time (RFC 3339, or a date).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// A file of `ADDRESS NAME` pairs giving reverse-DNS names.
    #[arg(long, value_name = "FILE")]
    pub ptr_map: Option<PathBuf>,

    /// A file of crawler profiles that add to or replace the built-in
    /// table (see the README).
    #[arg(long, value_name = "FILE")]
    pub profiles: Option<PathBuf>,

    /// Verify crawler addresses by live forward-confirmed reverse DNS.
    #[arg(long)]
    pub resolve: bool,

    /// Ask this DNS server (ADDR or ADDR:PORT; an IPv6 address with a
    /// port in brackets, `[::1]:5353`) instead of the system's.
    #[arg(long, value_name = "ADDR[:PORT]")]
    pub dns_server: Option<String>,

    /// Cache of DNS answers (default: under the user's cache directory).
    #[arg(long, value_name = "FILE")]
    pub dns_cache: Option<PathBuf>,

    /// Do not read or write the DNS cache.
    #[arg(long)]
    pub no_dns_cache: bool,

    /// Days a cached DNS answer stays good.
    #[arg(long, value_name = "DAYS", default_value_t = crate::crawler::dns::DEFAULT_CACHE_DAYS)]
    pub dns_cache_days: u64,

    /// Seconds one attempt of a DNS query waits for its answer (an
    /// unanswered query is tried three times; --dns-deadline bounds all).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::crawler::dns::DEFAULT_TIMEOUT_SECS)]
    pub dns_timeout: f64,

    /// Seconds all DNS lookups together may take.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::crawler::dns::DEFAULT_DEADLINE_SECS)]
    pub dns_deadline: f64,
}

/// The robots.txt versions besides `--robots` (SPEC §6), for the audit
/// and for `check`.
#[derive(Debug, Args)]
pub struct VersionArgs {
    /// When the --robots file came into force, in place of its
    /// modification time (RFC 3339, or YYYY-MM-DD meaning midnight UTC).
    #[arg(long, value_name = "TIME")]
    pub robots_since: Option<String>,

    /// A folder of earlier robots.txt versions, each file named by the
    /// time it came into force: `2026-11-29T14:00:00+01:00.txt` or
    /// `20261129T130000Z.txt` (hidden files and a README are ignored).
    #[arg(long, value_name = "DIR")]
    pub robots_history: Option<PathBuf>,
}

impl VersionArgs {
    fn into_sources(self, file: Option<PathBuf>) -> Result<RobotsSources> {
        let since = parse_time_flag("--robots-since", self.robots_since.as_deref())?;
        if since.is_some() && file.is_none() {
            return Err(Error::Usage(
                "--robots-since says when the --robots FILE came into force: give --robots too"
                    .into(),
            ));
        }
        Ok(RobotsSources {
            file,
            since,
            history: self.robots_history,
        })
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RateByArg {
    Token,
    Crawler,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Text,
    Csv,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LintFormatArg {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The robots.txt to read.
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,

    #[command(flatten)]
    pub versions: VersionArgs,

    /// A state folder of the audit, whose robots.txt versions join the
    /// others (read only).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,

    /// Answer with the robots.txt version in force at this time (RFC
    /// 3339, or YYYY-MM-DD); without it, the latest version.
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,

    /// The crawler: a robots.txt token (`SeznamBot`) or a full user-agent
    /// string, identified as the audit identifies a log's user agent (a
    /// FreshBot user agent reads the SeznamBot groups); one that names no
    /// known crawler is reduced to its product token.
    #[arg(long, value_name = "UA", default_value = "SeznamBot")]
    pub user_agent: String,

    /// A file of crawler profiles, as the audit's `--profiles`.
    #[arg(long, value_name = "FILE")]
    pub profiles: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,

    /// Paths (`/a/b?c`) or full URLs, whose scheme and host are dropped.
    /// Bytes that are not UTF-8 (a target as a log holds it) are read as
    /// their `%XX`, as the matcher normalises them.
    #[arg(value_name = "TARGET", required = true)]
    pub targets: Vec<std::ffi::OsString>,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// The robots.txt to read.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormatArg::Text)]
    pub format: LintFormatArg,

    /// A file of crawler profiles that add to or replace the built-in
    /// ones: the file is judged for those crawlers too.
    #[arg(long, value_name = "FILE")]
    pub profiles: Option<PathBuf>,
}

impl Cli {
    /// Validates what was typed into the settings the library runs on.
    pub fn into_command(self) -> Result<Command> {
        match self.command {
            Some(Sub::Check(args)) => Ok(Command::Check(CheckConfig {
                robots: {
                    if args.robots.is_none()
                        && args.versions.robots_history.is_none()
                        && args.state.is_none()
                    {
                        return Err(Error::Usage(
                            "give --robots FILE, --robots-history DIR or --state DIR".into(),
                        ));
                    }
                    args.versions.into_sources(args.robots)?
                },
                state: args.state,
                at: parse_time_flag("--at", args.at.as_deref())?,
                user_agent: args.user_agent,
                profiles: args.profiles,
                targets: args.targets.iter().map(|t| target_text(t)).collect(),
                format: match args.format {
                    FormatArg::Text => OutputFormat::Text,
                    FormatArg::Csv => OutputFormat::Csv,
                    FormatArg::Json => OutputFormat::Json,
                },
            })),
            Some(Sub::Lint(args)) => Ok(Command::Lint(LintConfig {
                file: args.file,
                profiles: args.profiles,
                format: match args.format {
                    LintFormatArg::Text => OutputFormat::Text,
                    LintFormatArg::Json => OutputFormat::Json,
                },
            })),
            Some(Sub::Summary(args)) => Ok(Command::Summary(args.dir)),
            None => self
                .audit
                .into_config()
                .map(|c| Command::Audit(Box::new(c))),
        }
    }
}

impl AuditArgs {
    fn into_config(self) -> Result<AuditConfig> {
        if self.robots.is_none() && self.versions.robots_history.is_none() && self.state.is_none() {
            return Err(Error::Usage(
                "--robots FILE is required (or --robots-history DIR or a --state \
                 that holds versions)"
                    .into(),
            ));
        }
        let robots_sources = self.versions.into_sources(self.robots)?;
        let robots_grace_ms = parse_duration_ms(&self.robots_grace).ok_or_else(|| {
            Error::Usage(format!(
                "--robots-grace: expected 0 or a duration such as 24h, 90m or 1h30m \
                 (at most 366d), got {:?}",
                self.robots_grace
            ))
        })?;
        if !(1..=36_500).contains(&self.state_days) {
            return Err(Error::Usage(
                "--state-days must be between 1 and 36500".into(),
            ));
        }
        if self.logs.is_empty() {
            return Err(Error::Usage("at least one --log FILE is required".into()));
        }
        if self.threads == Some(0) {
            return Err(Error::Usage("--threads must be at least 1".into()));
        }
        let window_tz = match self.window_tz.as_deref() {
            None => WindowTz::Utc,
            Some(s) => WindowTz::parse(s).map_err(|e| {
                Error::Usage(format!(
                    "--window-tz: expected +HHMM, -HHMM, local, UTC or an IANA zone name: {e}"
                ))
            })?,
        };
        let memory = parse_size(&self.memory).ok_or_else(|| {
            Error::Usage(format!(
                "--memory: expected a size such as 100M or 1G (at least 1M), got {:?}",
                self.memory
            ))
        })?;
        let log_tz = self
            .log_tz
            .as_deref()
            .map(LogTz::parse)
            .transpose()
            .map_err(|e| Error::Usage(format!("--log-tz: {e}")))?;
        let trusted_proxies = TrustedProxies::parse(&self.trusted_proxies)
            .map_err(|e| Error::Usage(format!("--trusted-proxy: {e}")))?;
        // To the millisecond, as fetch times are kept, a finer fraction
        // rounded up: `since` inclusive and `until` exclusive stay so for
        // every fetch time.
        let bound = |flag: &str, value: Option<&str>| -> Result<Option<i64>> {
            value
                .map(|s| {
                    crate::accesslog::time_given::rfc3339_or_date_ms_up(s)
                        .ok_or_else(|| bad_time_flag(flag, s))
                })
                .transpose()
        };
        let since = bound("--since", self.since.as_deref())?;
        let until = bound("--until", self.until.as_deref())?;
        if let (Some(since), Some(until)) = (since, until)
            && since >= until
        {
            // An empty period would audit nothing and report a clean night.
            return Err(Error::Usage(
                "--since must be before --until: the period holds no instant (to the \
                 millisecond, as fetch times are kept)"
                    .into(),
            ));
        }
        if (since.is_some() || until.is_some()) && self.state.is_some() {
            // A state holds whole logs: a log judged only in part would be
            // marked audited, and its other lines never judged.
            return Err(Error::Usage(
                "--since/--until and --state: the state records whole logs as audited, \
                 so a log judged only in part cannot go into it; give one or the other"
                    .into(),
            ));
        }
        let seconds = |flag: &str, v: f64| {
            if v.is_finite() && v > 0.0 && v < 86_400.0 {
                Ok(std::time::Duration::from_secs_f64(v))
            } else {
                Err(Error::Usage(format!(
                    "{flag} must be a positive number of seconds"
                )))
            }
        };
        Ok(AuditConfig {
            logs: self.logs,
            log_format: self.log_format,
            log_tz,
            trusted_proxies,
            hosts: crate::accesslog::SiteHosts::new(&self.hosts)?,
            out: self.out,
            lock_wait: std::time::Duration::from_secs(self.lock_wait),
            threads: self.threads.map(cap_threads),
            memory,
            strict: self.strict,
            quiet: self.quiet,
            raw_csv: self.raw_csv,
            rate_by: match self.rate_by {
                RateByArg::Token => RateBy::Token,
                RateByArg::Crawler => RateBy::Crawler,
            },
            window_tz,
            since,
            until,
            ptr_map: self.ptr_map,
            profiles: self.profiles,
            resolve: self.resolve,
            dns_server: self
                .dns_server
                .as_deref()
                .map(crate::crawler::dns::parse_server)
                .transpose()
                .map_err(|e| Error::Usage(format!("--dns-server: {e}")))?,
            dns_cache: if self.no_dns_cache {
                None
            } else {
                // With a state, the DNS cache is part of it (SPEC §6).
                self.dns_cache
                    .or_else(|| self.state.as_deref().map(crate::state::StateDir::dns_cache))
                    .or_else(crate::crawler::dns::default_cache_path)
            },
            dns_cache_max_age: std::time::Duration::from_secs(
                self.dns_cache_days.saturating_mul(86_400),
            ),
            dns_timeout: seconds("--dns-timeout", self.dns_timeout)?,
            dns_deadline: seconds("--dns-deadline", self.dns_deadline)?,
            robots_sources,
            robots_grace_ms,
            state: self.state,
            state_days: self.state_days,
        })
    }
}

/// Reads a size: a number of bytes, or with a K, M or G suffix (binary
/// units, an optional `iB` or `B` after it). Less than 1 MiB is refused:
/// the program alone needs more.
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.trim_end_matches("ib").trim_end_matches('b');
    let scale: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        _ => return None,
    };
    number.checked_mul(scale).filter(|&bytes| bytes >= 1 << 20)
}

/// More workers than cores only cost memory and start-up time (a million
/// threads would exhaust the machine); the output does not depend on it.
fn cap_threads(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    asked.min(cores)
}

fn parse_time_flag(
    flag: &str,
    value: Option<&str>,
) -> Result<Option<crate::accesslog::time::Timestamp>> {
    match value {
        None => Ok(None),
        Some(s) => crate::accesslog::time_given::parse_rfc3339_or_date(s)
            .map(Some)
            .ok_or_else(|| bad_time_flag(flag, s)),
    }
}

/// The usage error of a time flag whose value `s` is no time.
fn bad_time_flag(flag: &str, s: &str) -> Error {
    Error::Usage(format!(
        "{flag}: expected RFC 3339 time or YYYY-MM-DD, got {s:?}"
    ))
}

/// A `check` target as text: bytes that are not UTF-8 written as `%XX`,
/// which RFC 9309's normalisation makes of them anyway (SPEC §3), so the
/// verdict is the one the audit gives the same bytes in a log.
fn target_text(target: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut text = String::new();
    for chunk in target.as_bytes().utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit(args: &[&str]) -> Result<AuditConfig> {
        let mut argv = vec!["robots-audit", "--log", "access.log"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv).unwrap().into_command()? {
            Command::Audit(config) => Ok(*config),
            other => panic!("not an audit: {other:?}"),
        }
    }

    #[test]
    fn version_and_state_flags_reach_the_config() {
        let config = audit(&["--robots", "r.txt"]).unwrap();
        assert_eq!(config.robots_grace_ms, 86_400_000);
        assert_eq!(config.state, None);
        assert_eq!(config.state_days, crate::state::DEFAULT_DAYS);
        assert_eq!(config.robots_sources.file, Some(PathBuf::from("r.txt")));

        let config = audit(&[
            "--robots",
            "r.txt",
            "--robots-since",
            "2026-11-29T14:00:00+01:00",
            "--robots-history",
            "hist",
            "--robots-grace",
            "90m",
            "--state",
            "/var/lib/ra",
            "--state-days",
            "30",
        ])
        .unwrap();
        assert_eq!(
            config.robots_sources.since.map(|t| t.rfc3339()),
            Some("2026-11-29T14:00:00+01:00".to_string())
        );
        assert_eq!(config.robots_sources.history, Some(PathBuf::from("hist")));
        assert_eq!(config.robots_grace_ms, 5_400_000);
        assert_eq!(config.state_days, 30);
        // The DNS cache is part of the state unless said otherwise.
        assert_eq!(
            config.dns_cache,
            Some(PathBuf::from("/var/lib/ra/dns-cache"))
        );
        let config = audit(&[
            "--robots",
            "r.txt",
            "--state",
            "/var/lib/ra",
            "--dns-cache",
            "/tmp/c",
        ])
        .unwrap();
        assert_eq!(config.dns_cache, Some(PathBuf::from("/tmp/c")));
        let config = audit(&["--robots", "r.txt", "--state", "s", "--no-dns-cache"]).unwrap();
        assert_eq!(config.dns_cache, None);
    }

    #[test]
    fn zones_west_of_utc_are_values_not_flags() {
        // `--window-tz -0500` as the help writes it, not only `=-0500`.
        let config = audit(&["--robots", "r.txt", "--window-tz", "-0500"]).unwrap();
        assert!(matches!(
            config.window_tz,
            crate::config::WindowTz::Fixed(-300)
        ));
        let config = audit(&["--robots", "r.txt", "--log-tz", "-0330"]).unwrap();
        assert!(config.log_tz.is_some());
    }

    #[test]
    fn check_takes_versions_and_a_moment() {
        let cli = Cli::try_parse_from([
            "robots-audit",
            "check",
            "--robots-history",
            "hist",
            "--state",
            "s",
            "--at",
            "2026-11-30",
            "/x",
        ])
        .unwrap();
        match cli.into_command().unwrap() {
            Command::Check(c) => {
                assert_eq!(c.robots.file, None);
                assert_eq!(c.robots.history, Some(PathBuf::from("hist")));
                assert_eq!(c.state, Some(PathBuf::from("s")));
                assert_eq!(
                    c.at.map(|t| t.rfc3339()),
                    Some("2026-11-30T00:00:00+00:00".to_string())
                );
            }
            other => panic!("not a check: {other:?}"),
        }
    }
}
