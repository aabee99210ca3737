//! The command line, as clap sees it. Doc comments here are the `--help`
//! text. `Cli::into_command` turns what was typed into the typed, validated
//! settings of `config`; nothing past this file sees clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{
    AuditConfig, CheckConfig, Command, LintConfig, OutputFormat, RateBy, WindowTz,
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

    /// The site's robots.txt.
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,

    /// Log format: combined, common, vhost_combined, or a literal Apache
    /// LogFormat or nginx log_format string.
    #[arg(long, value_name = "FORMAT", default_value = "combined")]
    pub log_format: String,

    /// Write violations.csv, impostors.csv and summary.csv into DIR
    /// as one set: a reader sees the earlier set or the new one, whole.
    /// Without it, violations.csv goes to standard output.
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

    /// Time zone of Request-rate windows: `+HHMM`/`-HHMM`, or `local` for
    /// the offset written in each log timestamp. Default: UTC.
    #[arg(long, value_name = "TZ")]
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

    /// Ask this DNS server (ADDR or ADDR:PORT) instead of the system's.
    #[arg(long, value_name = "ADDR[:PORT]")]
    pub dns_server: Option<String>,

    /// Cache of DNS answers (default: under the user's cache directory).
    #[arg(long, value_name = "FILE")]
    pub dns_cache: Option<PathBuf>,

    /// Do not read or write the DNS cache.
    #[arg(long)]
    pub no_dns_cache: bool,

    /// Days a cached DNS answer stays good.
    #[arg(long, value_name = "DAYS", default_value_t = 7)]
    pub dns_cache_days: u64,

    /// Seconds to wait for one DNS answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    pub dns_timeout: f64,

    /// Seconds all DNS lookups together may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub dns_deadline: f64,
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
    pub robots: PathBuf,

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
    #[arg(value_name = "TARGET", required = true)]
    pub targets: Vec<String>,
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
                robots: args.robots,
                user_agent: args.user_agent,
                profiles: args.profiles,
                targets: args.targets,
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
        let robots = self
            .robots
            .ok_or_else(|| Error::Usage("--robots FILE is required".into()))?;
        if self.logs.is_empty() {
            return Err(Error::Usage("at least one --log FILE is required".into()));
        }
        if self.threads == Some(0) {
            return Err(Error::Usage("--threads must be at least 1".into()));
        }
        let window_tz = match self.window_tz.as_deref() {
            None => WindowTz::Utc,
            Some(s) => WindowTz::parse(s).ok_or_else(|| {
                Error::Usage(format!(
                    "--window-tz: expected +HHMM, -HHMM or local, got {s:?}"
                ))
            })?,
        };
        let since = parse_time_flag("--since", self.since.as_deref())?;
        let until = parse_time_flag("--until", self.until.as_deref())?;
        if let (Some(since), Some(until)) = (since, until)
            && since >= until
        {
            // An empty period would audit nothing and report a clean night.
            return Err(Error::Usage(
                "--since must be before --until: the period holds no instant".into(),
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
            robots,
            log_format: self.log_format,
            out: self.out,
            lock_wait: std::time::Duration::from_secs(self.lock_wait),
            threads: self.threads.map(cap_threads),
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
                self.dns_cache
                    .or_else(crate::crawler::dns::default_cache_path)
            },
            dns_cache_max_age: std::time::Duration::from_secs(
                self.dns_cache_days.saturating_mul(86_400),
            ),
            dns_timeout: seconds("--dns-timeout", self.dns_timeout)?,
            dns_deadline: seconds("--dns-deadline", self.dns_deadline)?,
        })
    }
}

/// More workers than cores only cost memory and start-up time (a million
/// threads would exhaust the machine); the output does not depend on it.
fn cap_threads(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    asked.min(cores)
}

fn parse_time_flag(flag: &str, value: Option<&str>) -> Result<Option<i64>> {
    match value {
        None => Ok(None),
        Some(s) => crate::accesslog::time::parse_rfc3339_or_date(s)
            .map(|t| Some(t.unix))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "{flag}: expected RFC 3339 time or YYYY-MM-DD, got {s:?}"
                ))
            }),
    }
}
