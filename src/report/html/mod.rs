//! `report.html` (SPEC §7): one self-contained page a webmaster opens from
//! the nightly mail. Takes a [`Page`] — plain, owned numbers and strings,
//! already escaped as the CSVs write log text — and gives the HTML.
//!
//! The page is made in two steps so that the pipeline may change under it:
//! `build` fills a `Page` from the run's findings (everything it needs can
//! be gathered in one pass over the rows in order, with memory bounded by
//! minutes × crawlers, rules, addresses and distinct (rule, target) pairs);
//! `render` turns any `Page` into HTML (maud, escaping by default) with
//! charts drawn by `chart` (plotters' SVG backend).

pub mod build;
pub mod chart;
mod clock;
mod minutes;
pub mod render;

pub use build::build;
pub use minutes::PerMinute;
pub use render::render;

/// The name of the chart of a shared count's crawlers together
/// (`build::count_charts`), `names` in name order: `A + B (one count)`.
pub fn count_chart_name(names: &[String]) -> String {
    format!("{} (one count)", names.join(" + "))
}

/// Everything `report.html` shows. Log-derived strings are already written
/// as the CSVs write them (`\xNN`, `\u{NNNN}`); `render` escapes them for
/// HTML.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// The audited period: first and last fetch or line time, RFC 3339.
    pub first_time: Option<String>,
    pub last_time: Option<String>,
    /// The offset (minutes east of UTC) the charts' clock is drawn in:
    /// the log's own.
    pub offset_min: i16,
    /// The clock Request-rate windows are read in (`--window-tz`).
    pub window_clock: WindowClock,
    /// Crawlers with a chart that share one count of rates and delays
    /// (SPEC §4: a robots.txt token's crawlers, unless `--rate-by
    /// crawler`), each group in name order.
    pub shared_counts: Vec<Vec<String>>,
    pub exit_status: u8,
    pub crawlers: Vec<CrawlerVerdict>,
    pub health: Health,
    /// Per crawler with a counted fetch, in name order.
    pub charts: Vec<Traffic>,
    /// The first rules by the rows that accuse, ties as `rules.csv`
    /// orders them.
    pub rules: Vec<RuleLine>,
    /// How many rules decided rows in all.
    pub rules_total: u64,
    /// Whether some rule has a row whose note only informs.
    pub rules_inform: bool,
    /// Whether the rules name more than one robots.txt version.
    pub rules_of_several_versions: bool,
    /// Accusing rows only, most first: the first of every rule's.
    pub targets: Vec<TargetLine>,
    /// (Rule, target) pairs of accusing rows in all.
    pub targets_total: u64,
    /// The first of them as `impostor-addresses.csv` orders them.
    pub impostors: Vec<AddressLine>,
    /// How many spoofing addresses there are in all.
    pub impostor_addresses: u64,
    pub robots: Vec<RobotsText>,
    /// Versions known but not shown (none decided a row tonight, or past
    /// the number shown).
    pub robots_versions_left_out: usize,
    /// The last nights (`--state`); `None` when no state was given.
    pub trend: Option<Vec<Night>>,
}

/// One crawler's night. `violations` count the rows that accuse, by kind
/// in the kinds' string order (crawl-delay, disallow, request-rate);
/// `informing` the rows whose note only informs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrawlerVerdict {
    pub crawler: String,
    pub fetches: u64,
    pub violations: [u64; 3],
    pub informing: [u64; 3],
    /// Fetches by verification level: verified, ptr-only, unverified.
    pub verification: [u64; 3],
    /// Fetches that claimed this crawler from an address that disproves it.
    pub impostor_fetches: u64,
}

/// The names of the kinds, in the order of `CrawlerVerdict::violations`.
pub const KINDS: [&str; 3] = ["crawl-delay", "disallow", "request-rate"];
/// The names of the levels, in the order of `CrawlerVerdict::verification`.
pub const LEVELS: [&str; 3] = ["verified", "ptr-only", "unverified"];

/// Did the run read everything?
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    pub lines_read: u64,
    pub lines_skipped: u64,
    /// Lines skipped as audited before (`--state`).
    pub already_audited: u64,
    /// (reason, lines), every reason with a line.
    pub skipped: Vec<(String, u64)>,
    pub files: Vec<FileHealth>,
    pub dns: Dns,
    /// The robots.txt versions the night used, the latest few, as
    /// (robots_version, when it was in force: ` in force from …`, or
    /// what SPEC §6 makes of the oldest and of the only one); how many
    /// more it used; and how many more the run knew (run.json lists them
    /// all). None when no line was audited.
    pub robots_versions: Vec<(String, String)>,
    pub robots_versions_used_more: usize,
    pub robots_versions_unused: usize,
    pub excused_by_cache_grace: u64,
    /// Crawler fetches left out by `--since`/`--until` and by `--host`.
    pub left_out: crate::report::run::LeftOut,
    /// Why the state could not be saved (the run exits 2).
    pub state_error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileHealth {
    /// As given, written as the CSVs write log text.
    pub file: String,
    pub format: String,
    pub lines_read: u64,
    pub lines_skipped: u64,
    /// Lines at its head that a night before audited (SPEC §6).
    pub already_audited: u64,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dns {
    /// Whether `--resolve` asked live DNS.
    pub asked: bool,
    /// Addresses DNS could not answer for (timeout, SERVFAIL, REFUSED).
    pub failures: u64,
    pub resolver_unusable: bool,
    /// Of the failures, those inside a crawler's networks that show the
    /// resolver broken or lying: "no name", a crawler name's "no such
    /// address" there, a name that is not the crawler a fetch claims.
    pub resolver_broken: u64,
    /// `--dns-deadline` cut the lookups short.
    pub deadline_reached: bool,
    /// Fetches only DNS could have named a crawler's, whose lookup failed:
    /// why the night is incomplete.
    pub undecided_fetches: u64,
}

/// The clock Request-rate windows are read in (`--window-tz`), as the
/// audit read them (SPEC §3): one offset, or a zone's or the log lines'
/// offsets, which change during a night that crosses a DST change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowClock {
    /// How it was given, for the page: `UTC`, `+01:00`, `Europe/Prague`,
    /// or each line's own offset.
    pub name: String,
    /// The offset (minutes east of UTC) from each minute on (minutes
    /// since the epoch), in time order; the first holds from the start.
    /// Empty: UTC.
    pub offsets: Vec<(i64, i16)>,
}

impl WindowClock {
    /// The offset at `minute` (minutes since the epoch).
    pub fn offset_at(&self, minute: i64) -> i16 {
        let after = self.offsets.partition_point(|&(from, _)| from <= minute);
        match after {
            0 => self.offsets.first().map_or(0, |&(_, offset)| offset),
            at => self.offsets[at - 1].1,
        }
    }

    /// Whether the offset changes between minutes `first` and `last`.
    pub fn changes_within(&self, first: i64, last: i64) -> bool {
        self.offsets
            .iter()
            .skip(1)
            .any(|&(from, _)| first < from && from <= last)
    }
}

/// One crawler's fetches per minute against what robots.txt allows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Traffic {
    pub crawler: String,
    /// Fetches per minute, keyed by minutes since the epoch (UTC); minutes
    /// without a fetch are absent.
    pub fetches: PerMinute,
    /// Accusing rows per minute, same keys.
    pub violations: PerMinute,
    /// Of those, the request-rate rows.
    pub rate_violations: PerMinute,
    /// The Request-rate lines the crawler's groups hold, in file order.
    pub allowed: Vec<Allowance>,
}

/// One `Request-rate` line as the chart draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// The line as written, e.g. `Request-rate: 1/60s 0800-1800`.
    pub text: String,
    pub rule_line: usize,
    /// The written rate.
    pub requests: u32,
    pub period_secs: u64,
    /// (start, end) minute of the day, start inclusive, end exclusive.
    pub window: Option<(u16, u16)>,
    /// The crawler's floor when it raises this rate (Seznam: 1 per 30 s).
    pub floor: Option<(u32, u64)>,
    /// The robots.txt version that holds the line (`robots_version`), and
    /// when that version is in force: from, until (UTC milliseconds, the
    /// end excluded; the first version also before it came, SPEC §6).
    pub version: String,
    pub in_force_ms: (i64, i64),
}

impl Allowance {
    /// The rate that holds: the written one, or the floor when faster.
    pub fn effective(&self) -> (u32, u64) {
        self.floor.unwrap_or((self.requests, self.period_secs))
    }

    /// Fetches per minute the effective rate allows on average.
    pub fn per_minute(&self) -> f64 {
        let (n, secs) = self.effective();
        f64::from(n) * 60.0 / secs.max(1) as f64
    }

    /// True when its robots.txt version is in force at `instant_ms`.
    pub fn in_force_at(&self, instant_ms: i64) -> bool {
        let (from, until) = self.in_force_ms;
        from <= instant_ms && instant_ms < until
    }

    /// True when the line holds at `minute_of_day` (0..1440).
    pub fn covers(&self, minute_of_day: u16) -> bool {
        match self.window {
            None => true,
            Some((start, end)) => crate::robots::Window {
                start_min: start,
                end_min: end,
            }
            .contains(minute_of_day),
        }
    }
}

/// One row of `rules.csv`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleLine {
    pub robots_version: String,
    pub rule_line: usize,
    pub rule: String,
    pub group: String,
    pub kind: String,
    /// Rows that accuse and rows whose note only informs.
    pub violations: u64,
    pub informing: u64,
    pub distinct_targets: u64,
    pub crawlers: String,
    pub first_time: String,
    pub last_time: String,
}

/// A target fetched against a rule, with how often.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetLine {
    pub target: String,
    /// The robots.txt version of the rule (empty for robots-unreachable).
    pub robots_version: String,
    pub rule_line: usize,
    pub rule: String,
    pub kind: String,
    pub violations: u64,
}

/// One row of `impostor-addresses.csv`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressLine {
    pub client: String,
    pub claimed_crawlers: String,
    pub fetches: u64,
    pub ptr: String,
    pub reason: String,
    pub first_time: String,
    pub last_time: String,
}

/// A robots.txt version as written, each line with the rows it decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsText {
    pub robots_version: String,
    pub lines: Vec<RobotsLine>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsLine {
    /// 1-based.
    pub number: usize,
    /// As written, bytes that are not UTF-8 and controls escaped.
    pub text: String,
    pub accusing: u64,
    pub informing: u64,
}

/// One night of the trend.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Night {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// (crawler, fetches, accusing rows).
    pub crawlers: Vec<(String, u64, u64)>,
}

#[cfg(test)]
mod tests;

/// The first and last minute any chart draws a fetch in.
fn charts_span(charts: &[Traffic]) -> (Option<i64>, Option<i64>) {
    let first = charts.iter().filter_map(|t| t.fetches.first()).min();
    let last = charts.iter().filter_map(|t| t.fetches.last()).max();
    (first, last)
}
