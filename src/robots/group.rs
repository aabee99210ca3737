//! Groups: takes the records of a parsed robots.txt, gives its groups (the
//! user-agent lines that open each and the lines that belong to it) and
//! chooses the groups a crawler obeys (RFC 9309 §2.2, §2.2.1; SPEC §3).

use std::collections::HashMap;

use super::agent;
use super::limits::{self, CrawlDelay, RequestRate};
use super::normalize::normalize;
use super::parse::{Directive, Record, RobotsFile};
use crate::text::name_text;

/// A `User-agent` line of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    pub line: usize,
    /// The value as written, non-UTF-8 bytes as `\xNN`.
    pub value: String,
    /// The value's product token (empty for `*`).
    pub token: Vec<u8>,
    /// True for `*`: the default group.
    pub wildcard: bool,
}

/// An `Allow` or `Disallow` line with a non-empty pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub line: usize,
    pub allow: bool,
    /// The pattern after RFC 9309 normalisation; its length decides
    /// precedence.
    pub pattern: Vec<u8>,
    /// The line as written (`Record::text`).
    pub text: String,
    /// Index of the group that holds the rule.
    pub group: usize,
    /// Seznam `Robot-version: 2.0`: the pattern must match the whole path
    /// and query unless it ends with `*`.
    pub whole_path: bool,
    /// In such a group, when the pattern as written holds `?`, `[` or `\`:
    /// the pattern in the form Seznam's wildcards are read in
    /// (`normalize::glob_form`), which `glob::Glob` reads; `None` for a
    /// rule both readings read alike.
    pub wildcards: Option<Box<[u8]>>,
    /// For an `Allow` the 500 KiB limit cut (`parse::Record::cut`), the
    /// pattern the audit and `check` judge it by: what was read, then `*`
    /// (`cut_pattern`), going before every other rule, since the whole
    /// line might have been as long as any. So it allows at least what
    /// the whole line did, whatever the line was, and a cut never makes a
    /// row (SPEC: accuse only on what the evidence supports). `pattern`
    /// stays what was read; the lint rests no claim about rules on such a
    /// line (`Robots::rules_as_read` leaves it out).
    pub cut: Option<Vec<u8>>,
}

impl Rule {
    /// True when Seznam reads the rule otherwise than SPEC §3 does: a rule
    /// of a `Robot-version: 2.0` group holding one of its own wildcards as
    /// written (`glob::seznam_form`).
    pub fn reads_otherwise(&self) -> bool {
        self.wildcards.is_some()
    }

    /// The length that decides precedence: the pattern's in octets, or,
    /// for a cut `Allow` judged as every way it may go on, more than any.
    pub fn precedence(&self) -> usize {
        if self.cut.is_some() {
            usize::MAX
        } else {
            self.pattern.len()
        }
    }

    /// The pattern a target is matched against: `cut`'s, or `pattern`.
    pub fn judged_pattern(&self) -> &[u8] {
        self.cut.as_deref().unwrap_or(&self.pattern)
    }

    /// For a cut `Allow`, what its pattern starts with, every way the line
    /// may go on (`cut` without its final `*`), as a listing shows it.
    pub fn cut_prefix(&self) -> Option<&[u8]> {
        self.cut
            .as_deref()
            .map(|cut| cut.strip_suffix(b"*").unwrap_or(cut))
    }
}

/// A line kept only to be shown (`Visit-time`, `Robot-version`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub line: usize,
    pub text: String,
}

/// One group: user-agent lines, then the lines that apply to them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Group {
    pub agents: Vec<Agent>,
    /// The line of the first user-agent line.
    pub line: usize,
    /// Allow and Disallow lines with a pattern, in file order.
    pub rules: Vec<Rule>,
    pub request_rates: Vec<RequestRate>,
    pub crawl_delays: Vec<CrawlDelay>,
    /// The `Robot-version: 2.0` line that switched the group to whole-path
    /// matching, when there is one.
    pub robot_version: Option<Note>,
    pub visit_times: Vec<Note>,
    /// Indices into `RobotsFile::records` of every line that belongs to the
    /// group after its user-agent lines, empty rules and ineffective
    /// Robot-version lines included, for the lint.
    pub members: Vec<usize>,
}

impl Group {
    /// The agent values as written, in file order, `|`-joined: how reports
    /// name the group (`SeznamBot|*`).
    pub fn label(&self) -> String {
        let values: Vec<&str> = self.agents.iter().map(|a| a.value.as_str()).collect();
        values.join("|")
    }

    /// True when one of the group's user-agent lines names `token`.
    pub fn names(&self, token: &[u8]) -> bool {
        self.agents.iter().any(|a| agent::names(&a.token, token))
    }

    /// True when the group is a default (`*`) group.
    pub fn is_default(&self) -> bool {
        self.agents.iter().any(|a| a.wildcard)
    }
}

/// The groups of a file and the member lines that stand before any
/// user-agent line (they belong to no group: RFC 9309 §2.2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grouping {
    pub groups: Vec<Group>,
    /// Indices into `RobotsFile::records`.
    pub orphans: Vec<usize>,
    /// The product tokens of `User-agent NAME` lines without their colon
    /// (and of the keys Google's parser takes for `User-agent`): where
    /// there are any, Google's parser groups the file otherwise
    /// (`other_readings`), and a fetch is disallowed only when both readings
    /// disallow it (`AgentRules::accuses`).
    pub colonless_tokens: Vec<Vec<u8>>,
    /// The lines of `Request-rate` records that cannot be read and stand
    /// right after a run of user-agent lines, which they end for a crawler
    /// that reads Request-rate. Whether that crawler's parser ends the run
    /// at a line it cannot read is unknown, so the second reading
    /// (`other_readings`) lets the run go on, and a fetch is disallowed only
    /// when both readings disallow it (README "Request-rate").
    pub unreadable_ends: Vec<usize>,
    /// The lines of `Robot-version: 2.0` records that stand after a run of
    /// user-agent lines with only records the crawler does not read
    /// between (`Sitemap`, an unknown line, `Crawl-delay` for Seznam).
    /// SPEC §3 takes 2.0 as the group's second line, and says such records
    /// neither end the run nor the group: whether the crawler then reads
    /// the group as 2.0 is unknown, so the second reading does, and a
    /// fetch is disallowed only when both readings disallow it.
    pub late_versions: Vec<usize>,
    /// The groups each product token names, made on the first `select`:
    /// a token's groups found at once, where walking every group for
    /// every token the lint asks of made a bad-bot list of thousands of
    /// groups take seconds to minutes.
    pub(crate) index: TokenIndex,
}

/// The groups naming each product token (lower case), ascending, and the
/// default (`*`) groups; made once, on first use.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenIndex(std::sync::OnceLock<(Naming, Vec<usize>)>);

/// Product tokens (lower case) and the groups naming each, ascending.
type Naming = HashMap<Vec<u8>, Vec<usize>>;

/// An index is made of the groups: it tells two groupings apart no more
/// than they are apart.
impl PartialEq for TokenIndex {
    fn eq(&self, _: &TokenIndex) -> bool {
        true
    }
}

impl Eq for TokenIndex {}

impl Grouping {
    /// The groups a crawler with product token `token` obeys, as indices
    /// in file order: every group that names it; if none, every `*`
    /// group; if none, no group (RFC 9309 §2.2.1). Found in the index.
    pub fn select(&self, token: &[u8]) -> Vec<usize> {
        let (named, defaults) = self.index.0.get_or_init(|| {
            let mut named = Naming::new();
            for (index, group) in self.groups.iter().enumerate() {
                for agent in &group.agents {
                    let own = agent::product_token(&agent.token);
                    if own.is_empty() {
                        continue;
                    }
                    let groups = named.entry(own.to_ascii_lowercase()).or_default();
                    if groups.last() != Some(&index) {
                        groups.push(index);
                    }
                }
            }
            let defaults = (0..self.groups.len())
                .filter(|&i| self.groups[i].is_default())
                .collect();
            (named, defaults)
        });
        let token = agent::product_token(token);
        match named.get(&token.to_ascii_lowercase()) {
            Some(groups) if !token.is_empty() => groups.clone(),
            _ => defaults.clone(),
        }
    }

    /// Whether a second reading of the file may group it otherwise.
    pub fn read_two_ways(&self) -> bool {
        !self.colonless_tokens.is_empty()
            || !self.unreadable_ends.is_empty()
            || !self.late_versions.is_empty()
    }
}

/// The extension records a crawler reads as rules of its group, beside
/// `Allow` and `Disallow` which every crawler reads (SPEC §3). A record the
/// crawler reads ends a run of user-agent lines; one it does not read
/// neither ends the run nor the group, as Google's parser treats every
/// record it does not know. A crawler's profile says which it reads
/// (Seznam's: `Request-rate` and `Robot-version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Reads {
    request_rate: bool,
    robot_version: bool,
    crawl_delay: bool,
    visit_time: bool,
}

impl Reads {
    /// Only `Allow` and `Disallow`: what a crawler without a profile reads.
    pub const RULES_ONLY: Reads = Reads {
        request_rate: false,
        robot_version: false,
        crawl_delay: false,
        visit_time: false,
    };

    /// Every extension record this tool knows: the reading of the 1996
    /// extended robot exclusion proposal, where each record of a group ends
    /// its user-agent lines. The lint's view of a file.
    pub const ALL: Reads = Reads {
        request_rate: true,
        robot_version: true,
        crawl_delay: true,
        visit_time: true,
    };

    /// Adds an extension record; `Allow`, `Disallow` and directives that
    /// are no group records change nothing.
    pub const fn with(mut self, directive: Directive) -> Reads {
        match directive {
            Directive::RequestRate => self.request_rate = true,
            Directive::RobotVersion => self.robot_version = true,
            Directive::CrawlDelay => self.crawl_delay = true,
            Directive::VisitTime => self.visit_time = true,
            _ => {}
        }
        self
    }

    /// True when the crawler reads `directive` as a rule of its group.
    pub fn reads(self, directive: Directive) -> bool {
        match directive {
            Directive::Allow | Directive::Disallow => true,
            Directive::RequestRate => self.request_rate,
            Directive::RobotVersion => self.robot_version,
            Directive::CrawlDelay => self.crawl_delay,
            Directive::VisitTime => self.visit_time,
            _ => false,
        }
    }

    /// The extension records read, in the order `Directive` lists them.
    pub fn extensions(self) -> impl Iterator<Item = Directive> {
        [
            Directive::CrawlDelay,
            Directive::RequestRate,
            Directive::RobotVersion,
            Directive::VisitTime,
        ]
        .into_iter()
        .filter(move |&d| self.reads(d))
    }
}

/// True when a `Robot-version` value asks for version 2.0 (`2.0`, `2`, `2.00`).
fn is_version_two(value: &[u8]) -> bool {
    let mut parts = value.split(|&b| b == b'.');
    parts.next() == Some(b"2") && parts.all(|p| !p.is_empty() && p.iter().all(|&b| b == b'0'))
}

fn note(record: &Record) -> Note {
    Note {
        line: record.line,
        text: record.text.clone(),
    }
}

/// Sorts the records into groups as a crawler that reads `reads` does. A
/// run of user-agent lines opens a group (blank lines, comments, `Sitemap`,
/// unknown lines and extension records the crawler does not read inside
/// the run do not break it); a user-agent line after a record the crawler
/// reads opens the next. Records the crawler does not read still join the
/// group they stand in, so that the audit can show what they ask for.
/// A `User-agent NAME` line without its colon is no user-agent line
/// (RFC 9309's grammar requires the colon): it is only noted.
pub fn group(file: &RobotsFile, reads: Reads) -> Grouping {
    group_as(file, reads, Reading::default(), None)
}

/// Every reading of the file for a crawler that reads `reads`: `group`,
/// then `other_readings`. What `regroups_without` compares against.
pub fn all_readings(file: &RobotsFile, reads: Reads) -> Vec<Grouping> {
    readings_without(file, reads, None)
}

/// `all_readings`, the line `skip` left out as if deleted.
fn readings_without(file: &RobotsFile, reads: Reads, skip: Option<usize>) -> Vec<Grouping> {
    let first = group_as(file, reads, Reading::default(), skip);
    let mut all = other_readings_as(file, reads, &first, skip);
    all.insert(0, first);
    all
}

/// Whether deleting the line `line` would group the file otherwise for a
/// crawler that reads `reads`, whose readings are `with` (`all_readings`),
/// in any of them: the line ends a run of user-agent lines alone (an
/// empty `Allow:` after `User-agent: *`), or stands between a group's
/// user-agent lines and its `Robot-version`. The lint says a line can go
/// only where it cannot. Counts the records walked into `steps`.
pub fn regroups_without(
    file: &RobotsFile,
    reads: Reads,
    with: &[Grouping],
    line: usize,
    steps: &mut usize,
) -> bool {
    // Each grouping as the lint compares them: every group's user-agent
    // lines, its other records but `line`, and its Robot-version line.
    let shape = |grouping: &Grouping| -> Vec<(Vec<usize>, Vec<usize>, Option<usize>)> {
        grouping
            .groups
            .iter()
            .map(|g| {
                (
                    g.agents
                        .iter()
                        .map(|a| a.line)
                        .filter(|&l| l != line)
                        .collect::<Vec<usize>>(),
                    g.members
                        .iter()
                        .copied()
                        .filter(|&i| file.records[i].line != line)
                        .collect::<Vec<usize>>(),
                    g.robot_version.as_ref().map(|n| n.line),
                )
            })
            .filter(|(agents, members, _)| !agents.is_empty() || !members.is_empty())
            .collect()
    };
    let without = readings_without(file, reads, Some(line));
    *steps = steps.saturating_add(
        file.records
            .len()
            .saturating_mul(with.len() + without.len()),
    );
    with.len() != without.len() || with.iter().zip(&without).any(|(a, b)| shape(a) != shape(b))
}

/// The file's other readings, each a grouping, when `first` (its
/// `group`) noted lines read two ways: every combination of a user-agent
/// line without its colon (or a key Google's parser takes for `User-agent`:
/// `Useragent:`, `User agent:`, `User-agents:`) read as Google's parser
/// reads it or not (SPEC §3 is RFC 9309's; README "A `User-agent` line
/// without its colon"), and a
/// Request-rate line that cannot be read ending the run or not, but the
/// first's. A fetch is disallowed only when every reading disallows it
/// (`AgentRules::accuses`): one combination left out could be the one
/// that allows it.
pub fn other_readings(file: &RobotsFile, reads: Reads, first: &Grouping) -> Vec<Grouping> {
    other_readings_as(file, reads, first, None)
}

/// `other_readings`, the line `skip` left out (`regroups_without`).
fn other_readings_as(
    file: &RobotsFile,
    reads: Reads,
    first: &Grouping,
    skip: Option<usize>,
) -> Vec<Grouping> {
    let agents: &[bool] = match first.colonless_tokens.is_empty() {
        true => &[false],
        false => &[false, true],
    };
    let rates: &[bool] = match first.unreadable_ends.is_empty() {
        true => &[false],
        false => &[false, true],
    };
    let versions: &[bool] = match first.late_versions.is_empty() {
        true => &[false],
        false => &[false, true],
    };
    let mut readings = Vec::new();
    for &google in agents {
        for &runs_on in rates {
            for &late_version in versions {
                if google || runs_on || late_version {
                    let how = Reading {
                        google,
                        runs_on,
                        late_version,
                    };
                    readings.push(group_as(file, reads, how, skip));
                }
            }
        }
    }
    readings
}

/// How `group_as` reads the lines read two ways.
#[derive(Debug, Clone, Copy, Default)]
struct Reading {
    /// A user-agent line without its colon read as one.
    google: bool,
    /// A Request-rate line that cannot be read lets a run of user-agent
    /// lines go on.
    runs_on: bool,
    /// `Robot-version: 2.0` counts after records the crawler does not
    /// read (`Grouping::late_versions`).
    late_version: bool,
}

/// `group` as `how` reads the lines read two ways, the line `skip` (when
/// given) left out as if deleted.
fn group_as(file: &RobotsFile, reads: Reads, how: Reading, skip: Option<usize>) -> Grouping {
    let Reading {
        google,
        runs_on,
        late_version,
    } = how;
    let mut grouping = Grouping::default();
    // True while the current group is still reading user-agent lines.
    let mut opening = false;
    // True when the previous record was a user-agent line: Robot-version
    // only counts as the line right after a group's user-agent lines.
    let mut after_agent = false;
    // The same, but past the records the crawler does not read.
    let mut after_agent_read = false;
    let mut colonless = file
        .strays
        .iter()
        .filter(|stray| Some(stray.line) != skip)
        .filter_map(|stray| Some((stray.line, colonless_agent(&stray.text)?)))
        .peekable();
    for (index, record) in file.records.iter().enumerate() {
        if Some(record.line) == skip {
            continue;
        }
        while let Some((line, value)) = colonless.next_if(|&(line, _)| line < record.line) {
            let opened = google_agent(&mut grouping, &mut opening, google, line, value.as_bytes());
            after_agent |= opened;
            after_agent_read |= opened;
        }
        let was_after_agent = std::mem::replace(&mut after_agent, false);
        let was_after_agent_read = after_agent_read;
        match record.directive {
            Directive::UserAgent => {
                open_agent(&mut grouping, &mut opening, record.line, &record.value);
                after_agent = true;
                after_agent_read = true;
            }
            directive if directive.is_group_member() => {
                let Some(group_index) = grouping.groups.len().checked_sub(1) else {
                    // A line the size limit cut before any group is no
                    // rule of the file's: it may have gone on as anything.
                    if !record.cut {
                        grouping.orphans.push(index);
                    }
                    continue;
                };
                let group = &mut grouping.groups[group_index];
                let read = reads.reads(record.directive);
                // A Request-rate line that cannot be read ends the run in
                // the first reading only.
                let unreadable = read
                    && opening
                    && record.directive == Directive::RequestRate
                    && limits::parse_request_rate(&record.value).1.is_err();
                if unreadable {
                    grouping.unreadable_ends.push(record.line);
                }
                opening &= !read || (runs_on && unreadable);
                if read {
                    after_agent_read = false;
                }
                let version_two =
                    record.directive == Directive::RobotVersion && is_version_two(&record.value);
                if read && version_two && was_after_agent_read && !was_after_agent {
                    grouping.late_versions.push(record.line);
                }
                let placed = if late_version {
                    was_after_agent_read
                } else {
                    was_after_agent
                };
                group.members.push(index);
                add_member(group, group_index, record, placed && read);
            }
            // A key Google's parser reads as a user-agent line (`Useragent:`,
            // `User agent:`, `User-agents:`): read both ways, as one
            // without its colon.
            Directive::Unknown if google_agent_key(&record.key) => {
                let opened = google_agent(
                    &mut grouping,
                    &mut opening,
                    google,
                    record.line,
                    &record.value,
                );
                after_agent |= opened;
                after_agent_read |= opened;
            }
            // Sitemap and unknown lines neither open nor close a group.
            _ => {}
        }
    }
    // Such lines after the last record: a group without rules to Google.
    for (line, value) in colonless {
        google_agent(&mut grouping, &mut opening, google, line, value.as_bytes());
    }
    grouping
}

/// A line Google's parser reads as a user-agent line and RFC 9309 does not
/// (`User-agent NAME` without its colon, a typo key): noted in both
/// readings, and a user-agent line in Google's (`google`). True when it was
/// read as one.
fn google_agent(
    grouping: &mut Grouping,
    opening: &mut bool,
    google: bool,
    line: usize,
    value: &[u8],
) -> bool {
    grouping
        .colonless_tokens
        .push(agent::product_token(value).to_vec());
    if google {
        open_agent(grouping, opening, line, value);
    }
    google
}

/// A user-agent line with `value`: opens a group unless one is still
/// reading its user-agent lines, and names the agent in it.
fn open_agent(grouping: &mut Grouping, opening: &mut bool, line: usize, value: &[u8]) {
    if !*opening {
        grouping.groups.push(Group {
            line,
            ..Group::default()
        });
        *opening = true;
    }
    if let Some(group) = grouping.groups.last_mut() {
        group.agents.push(Agent {
            line,
            value: name_text(value).into_owned(),
            token: agent::product_token(value).to_vec(),
            wildcard: agent::is_wildcard(value),
        });
    }
}

/// The value of `User-agent NAME`, a user-agent line without its colon,
/// in the two-word form Google's parser accepts (its typo keys too).
pub(crate) fn colonless_agent(text: &str) -> Option<&str> {
    let mut words = text.split_ascii_whitespace();
    let (key, value) = (words.next()?, words.next()?);
    (google_agent_key(key) && words.next().is_none()).then_some(value)
}

/// A field name Google's parser takes for `User-agent`, typos it allows
/// included: one that starts with `user-agent`, `useragent` or `user agent`,
/// whatever the case.
pub(crate) fn google_agent_key(key: &str) -> bool {
    let starts = |with: &str| {
        key.get(..with.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(with))
    };
    starts("user-agent") || starts("useragent") || starts("user agent")
}

/// The pattern of a cut `Allow` (`Rule::cut`): what was read (a `$` it
/// ends with aside), then `*`, which matches every way the line may go
/// on, in both readings of a
/// `Robot-version: 2.0` group too: there the value stops before Seznam's
/// first `?`, `[` or `\` (a cut `[set` or escape could read as less than
/// the whole line).
fn cut_pattern(value: &[u8], whole_path: bool) -> Vec<u8> {
    let read = if whole_path {
        let special = value.iter().position(|b| matches!(b, b'?' | b'[' | b'\\'));
        &value[..special.unwrap_or(value.len())]
    } else {
        value
    };
    // A `$` read last may end the line (anchoring it) or be followed
    // (a literal): without it, `*` matches both ways on.
    let mut pattern = read.to_vec();
    while pattern.last() == Some(&b'$') {
        pattern.pop();
    }
    pattern.push(b'*');
    pattern
}

fn add_member(group: &mut Group, group_index: usize, record: &Record, after_agent: bool) {
    match record.directive {
        // A cut Allow with nothing of its value read may still allow
        // anything (`Rule::cut`).
        Directive::Allow | Directive::Disallow if !record.value.is_empty() || record.cut => {
            let whole_path = group.robot_version.is_some();
            let judged = if record.cut {
                cut_pattern(&record.value, whole_path)
            } else {
                record.value.clone()
            };
            group.rules.push(Rule {
                line: record.line,
                allow: record.directive == Directive::Allow,
                pattern: normalize(&record.value).into_owned(),
                text: record.text.clone(),
                group: group_index,
                whole_path,
                wildcards: whole_path
                    .then(|| super::glob::seznam_form(&judged))
                    .flatten(),
                cut: record.cut.then(|| normalize(&judged).into_owned()),
            });
        }
        Directive::RequestRate => {
            let (written, parsed) = limits::parse_request_rate(&record.value);
            let (rate, error) = match parsed {
                Ok(rate) => (Some(rate), None),
                Err(reason) => (None, Some(reason)),
            };
            group.request_rates.push(RequestRate {
                line: record.line,
                text: record.text.clone(),
                group: group_index,
                written,
                rate,
                error,
            });
        }
        Directive::CrawlDelay => {
            let (millis, finer, error) = match limits::parse_crawl_delay(&record.value) {
                Ok((millis, finer)) => (Some(millis), finer, None),
                Err(reason) => (None, None, Some(reason)),
            };
            group.crawl_delays.push(CrawlDelay {
                line: record.line,
                text: record.text.clone(),
                group: group_index,
                millis,
                finer,
                error,
            });
        }
        // `after_agent` is false for a crawler that does not read it.
        Directive::RobotVersion if after_agent && is_version_two(&record.value) => {
            group.robot_version = Some(note(record));
        }
        Directive::VisitTime => group.visit_times.push(note(record)),
        // Empty Allow/Disallow and misplaced Robot-version lines have no
        // effect; `members` keeps them for the lint.
        _ => {}
    }
}

/// The groups a crawler with product token `token` obeys, as indices in
/// file order: every group that names it; if none, every `*` group; if
/// none, no group (RFC 9309 §2.2.1). Walked plainly: what
/// `Grouping::select`'s index is held to.
#[cfg(test)]
fn select(groups: &[Group], token: &[u8]) -> Vec<usize> {
    let token = agent::product_token(token);
    let named: Vec<usize> = (0..groups.len())
        .filter(|&i| groups[i].names(token))
        .collect();
    if !named.is_empty() {
        return named;
    }
    (0..groups.len())
        .filter(|&i| groups[i].is_default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    /// What Seznam's crawlers read.
    /// The reading where both kinds of line read two ways are read the
    /// other way: Google's for a user-agent line without its colon.
    fn group_google(file: &RobotsFile, reads: Reads) -> Grouping {
        let how = Reading {
            google: true,
            runs_on: true,
            late_version: false,
        };
        group_as(file, reads, how, None)
    }

    const SEZNAM: Reads = Reads::RULES_ONLY
        .with(Directive::RequestRate)
        .with(Directive::RobotVersion);

    fn labels(input: &str) -> Vec<String> {
        labels_read(input, SEZNAM)
    }

    fn labels_read(input: &str, reads: Reads) -> Vec<String> {
        group(&parse(input.as_bytes()), reads)
            .groups
            .iter()
            .map(Group::label)
            .collect()
    }

    #[test]
    fn how_lines_form_groups() {
        let cases: &[(&str, &[&str])] = &[
            ("User-agent: a\nDisallow: /\n", &["a"]),
            ("User-agent: a\nUser-agent: b\nDisallow: /\n", &["a|b"]),
            // Blank lines and comments between user-agent lines do not
            // split them (RFC 9309 §2.2.1, Google's parser).
            (
                "User-agent: a\n\n# c\nUser-agent: b\nDisallow: /\n",
                &["a|b"],
            ),
            (
                "User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /\n",
                &["a", "b"],
            ),
            // Blank lines between members do not end a group either.
            (
                "User-agent: a\nDisallow: /x\n\nAllow: /y\nUser-agent: b\n",
                &["a", "b"],
            ),
            // Sitemap and unknown lines are neither members nor breaks.
            (
                "User-agent: a\nSitemap: /s.xml\nUser-agent: b\nDisallow: /\n",
                &["a|b"],
            ),
            (
                "User-agent: a\nDisallow: /\nSitemap: /s.xml\nFoo: bar\nAllow: /x\nUser-agent: b\n",
                &["a", "b"],
            ),
            // A trailing user-agent line makes an empty group.
            ("User-agent: a\nDisallow: /\nUser-agent: b\n", &["a", "b"]),
            (
                "User-agent: *\nUser-agent: SeznamBot\nCrawl-delay: 1\n",
                &["*|SeznamBot"],
            ),
            // The extension records Seznam reads end the user-agent run;
            // those it does not read (Visit-time, Crawl-delay) do not.
            (
                "User-agent: a\nRequest-rate: 1/10s\nUser-agent: b\nVisit-time: 0100-0200\nUser-agent: c\nRobot-version: 2.0\nUser-agent: d\n",
                &["a", "b|c", "d"],
            ),
            (
                "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n",
                &["a|b"],
            ),
            ("", &[]),
            ("Disallow: /\n", &[]),
            // `User-agent NAME` without its colon is no line to RFC 9309.
            (
                "User-agent: a\nDisallow: /x\n\nUser-agent b\nDisallow: /\n",
                &["a"],
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(&labels(input), expected, "{input:?}");
        }
    }

    #[test]
    fn a_request_rate_that_cannot_be_read_ends_the_run_in_one_reading_only() {
        let labels_google = |input: &str, reads: Reads| -> Vec<String> {
            group_google(&parse(input.as_bytes()), reads)
                .groups
                .iter()
                .map(Group::label)
                .collect()
        };
        for rate in ["whale/banana", "0/10s", "1/0s", "1/10s trailing", ""] {
            let text = format!(
                "User-agent: SeznamBot\nRequest-rate: {rate}\nUser-agent: Googlebot\n\
                 Disallow: /\n"
            );
            let file = parse(text.as_bytes());
            let first = group(&file, SEZNAM);
            assert_eq!(labels(&text), ["SeznamBot", "Googlebot"], "{rate}");
            assert_eq!(first.unreadable_ends, [2], "{rate}");
            assert!(first.read_two_ways());
            assert_eq!(
                labels_google(&text, SEZNAM),
                ["SeznamBot|Googlebot"],
                "{rate}"
            );
            // A crawler that does not read Request-rate reads one grouping.
            let rules_only = group(&file, Reads::RULES_ONLY);
            assert!(!rules_only.read_two_ways(), "{rate}");
        }
        // A readable rate ends the run in both readings; an unreadable one
        // inside a group (after its rules) ends nothing in either.
        for text in [
            "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: Googlebot\nDisallow: /\n",
            "User-agent: SeznamBot\nDisallow: /x\nRequest-rate: whale\nUser-agent: G\nDisallow: /\n",
        ] {
            let file = parse(text.as_bytes());
            assert!(!group(&file, SEZNAM).read_two_ways(), "{text:?}");
            assert_eq!(labels(text), labels_google(text, SEZNAM), "{text:?}");
        }
    }

    #[test]
    fn a_user_agent_line_without_colon_groups_only_in_googles_reading() {
        // (group's agents as written, its rules' lines) of each group.
        let shape = |grouping: &Grouping| -> Vec<(Vec<String>, Vec<usize>)> {
            grouping
                .groups
                .iter()
                .map(|g| {
                    (
                        g.agents.iter().map(|a| a.value.clone()).collect(),
                        g.rules.iter().map(|r| r.line).collect(),
                    )
                })
                .collect()
        };
        let tokens =
            |names: &[&str]| -> Vec<String> { names.iter().map(|n| n.to_string()).collect() };
        let file = parse(
            b"User-agent: SeznamBot\nDisallow: /private/\n\nUser-agent Googlebot\nDisallow: /\n\
              User-agent: *\nDisallow: /tmp\n",
        );
        let rfc = group(&file, SEZNAM);
        assert_eq!(
            shape(&rfc),
            [
                (tokens(&["SeznamBot"]), vec![2, 5]),
                (tokens(&["*"]), vec![7])
            ]
        );
        assert_eq!(rfc.colonless_tokens, [b"Googlebot".to_vec()]);
        assert_eq!(
            shape(&group_google(&file, SEZNAM)),
            [
                (tokens(&["SeznamBot"]), vec![2]),
                (tokens(&["Googlebot"]), vec![5]),
                (tokens(&["*"]), vec![7])
            ]
        );
        // Among user-agent lines, it joins their group in Google's reading.
        let file = parse(b"User-agent: a\nUser-agent b\nDisallow: /\n");
        assert_eq!(shape(&group(&file, SEZNAM)), [(tokens(&["a"]), vec![3])]);
        assert_eq!(
            shape(&group_google(&file, SEZNAM)),
            [(tokens(&["a", "b"]), vec![3])]
        );
        assert_eq!(group(&file, SEZNAM).colonless_tokens, [b"b".to_vec()]);
        // Last in the file: a group without rules.
        let file = parse(b"User-agent: *\nDisallow: /\nUser-agent b\n");
        assert_eq!(
            shape(&group_google(&file, SEZNAM)),
            [(tokens(&["*"]), vec![2]), (tokens(&["b"]), vec![])]
        );
        // So are the keys Google's parser reads as user-agent.
        for line in [
            "Useragent: Googlebot",
            "User agent: Googlebot",
            "User-agents: Googlebot",
            "useragent Googlebot",
        ] {
            let text = format!("User-agent: SeznamBot\nDisallow: /p\n{line}\nDisallow: /\n");
            let file = parse(text.as_bytes());
            let rfc = group(&file, SEZNAM);
            assert_eq!(
                shape(&rfc),
                [(tokens(&["SeznamBot"]), vec![2, 4])],
                "{line}"
            );
            assert_eq!(rfc.colonless_tokens, [b"Googlebot".to_vec()], "{line}");
            assert_eq!(
                shape(&group_google(&file, SEZNAM)),
                [
                    (tokens(&["SeznamBot"]), vec![2]),
                    (tokens(&["Googlebot"]), vec![4])
                ],
                "{line}"
            );
        }
    }

    #[test]
    fn members_before_any_agent_are_orphans() {
        let file =
            parse(b"Disallow: /a\nCrawl-delay: 5\nSitemap: /s\nUser-agent: *\nDisallow: /b\n");
        let grouping = group(&file, SEZNAM);
        assert_eq!(grouping.orphans, vec![0, 1]);
        assert_eq!(grouping.groups.len(), 1);
        assert_eq!(grouping.groups[0].rules.len(), 1);
        assert_eq!(grouping.groups[0].line, 4);
    }

    #[test]
    fn group_contents() {
        let file = parse(
            b"User-agent: SeznamBot/4.0 # ours\nDisallow: /cz/chat/\nAllow:\nDisallow:\n\
              Request-rate: 300/1m\nRequest-rate: 1/x\nCrawl-delay: 0.5\nVisit-time: 0100-0600\n\
              Allow: /%7ecz\n",
        );
        let g = &group(&file, SEZNAM).groups[0];
        assert_eq!(g.label(), "SeznamBot/4.0");
        assert_eq!(g.agents[0].token, b"SeznamBot");
        let rules: Vec<(usize, bool, &[u8], &str)> = g
            .rules
            .iter()
            .map(|r| (r.line, r.allow, &r.pattern[..], r.text.as_str()))
            .collect();
        assert_eq!(
            rules,
            vec![
                (2, false, &b"/cz/chat/"[..], "Disallow: /cz/chat/"),
                (9, true, &b"/~cz"[..], "Allow: /%7ecz"),
            ]
        );
        assert_eq!(g.request_rates.len(), 2);
        assert_eq!(g.request_rates[0].written, "300/1m");
        assert!(g.request_rates[0].rate.is_some());
        assert!(g.request_rates[1].error.is_some());
        assert_eq!(g.crawl_delays[0].millis, Some(500));
        assert_eq!(g.visit_times[0].line, 8);
        assert_eq!(g.members.len(), 8);
        assert!(g.robot_version.is_none());
    }

    #[test]
    fn robot_version_counts_only_right_after_the_agents() {
        let cases: &[(&str, bool)] = &[
            ("User-agent: a\nRobot-version: 2.0\nDisallow: /x\n", true),
            (
                "User-agent: a\n\n# v2\nRobot-version: 2.0\nDisallow: /x\n",
                true,
            ),
            (
                "User-agent: a\nUser-agent: b\nRobot-version: 2.0\nDisallow: /x\n",
                true,
            ),
            ("User-agent: a\nRobot-version: 2\nDisallow: /x\n", true),
            ("User-agent: a\nrobot-version:2.0\nDisallow: /x\n", true),
            ("User-agent: a\nDisallow: /x\nRobot-version: 2.0\n", false),
            (
                "User-agent: a\nSitemap: /s\nRobot-version: 2.0\nDisallow: /x\n",
                false,
            ),
            ("User-agent: a\nRobot-version: 1.0\nDisallow: /x\n", false),
            ("User-agent: a\nRobot-version: 2.1\nDisallow: /x\n", false),
            ("User-agent: a\nRobot-version: 20\nDisallow: /x\n", false),
            ("Robot-version: 2.0\nUser-agent: a\nDisallow: /x\n", false),
        ];
        for (input, expected) in cases {
            let grouping = group(&parse(input.as_bytes()), SEZNAM);
            let g = &grouping.groups[0];
            assert_eq!(g.robot_version.is_some(), *expected, "{input:?}");
            assert!(
                g.rules.iter().all(|r| r.whole_path == *expected),
                "{input:?}"
            );
        }
    }

    /// A `Robot-version: 2.0` after records the crawler does not read is
    /// noted as read two ways, and the second reading takes it as the
    /// group's version; one right after the agents, or after a rule, is
    /// not noted.
    #[test]
    fn robot_version_after_unread_records_is_read_two_ways() {
        let cases: &[(&str, &[usize])] = &[
            (
                "User-agent: a\nSitemap: /s\nRobot-version: 2.0\nDisallow: /x\n",
                &[3],
            ),
            (
                "User-agent: a\nFoo: bar\n\nCrawl-delay: 4\nRobot-version: 2\nDisallow: /x\n",
                &[5],
            ),
            ("User-agent: a\nRobot-version: 2.0\nDisallow: /x\n", &[]),
            (
                "User-agent: a\nDisallow: /y\nRobot-version: 2.0\nDisallow: /x\n",
                &[],
            ),
            (
                "User-agent: a\nSitemap: /s\nRobot-version: 1.0\nDisallow: /x\n",
                &[],
            ),
        ];
        for &(input, late) in cases {
            let file = parse(input.as_bytes());
            let first = group(&file, SEZNAM);
            assert_eq!(first.late_versions, late, "{input:?}");
            if !late.is_empty() {
                assert!(first.groups[0].robot_version.is_none(), "{input:?}");
            }
            let others = other_readings(&file, SEZNAM, &first);
            assert_eq!(others.len(), usize::from(!late.is_empty()), "{input:?}");
            for other in &others {
                let g = &other.groups[0];
                assert_eq!(
                    g.robot_version.as_ref().map(|v| v.line),
                    late.first().copied()
                );
                assert!(g.rules.iter().all(|r| r.whole_path), "{input:?}");
            }
        }
    }

    #[test]
    fn selection() {
        let text = "User-agent: SeznamBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n\n\
                    User-agent: Googlebot\nUser-agent: seznambot/4.0\nDisallow: /c\n\n\
                    User-agent: SeznamBot-test\nDisallow: /d\n\nUser-agent: *\nDisallow: /e\n";
        let grouping = group(&parse(text.as_bytes()), SEZNAM);
        let groups = &grouping.groups;
        let cases: &[(&[u8], &[usize])] = &[
            (b"SeznamBot", &[0, 2]),
            (b"SEZNAMBOT", &[0, 2]),
            (b"SeznamBot/4.0", &[0, 2]),
            (b"Googlebot", &[2]),
            (b"SeznamBot-test", &[3]),
            (b"Bingbot", &[1, 4]),
            (b"", &[1, 4]),
        ];
        for (token, expected) in cases {
            assert_eq!(&select(groups, token), expected, "{token:?}");
            // The index finds what the walk finds.
            assert_eq!(&grouping.select(token), expected, "{token:?}");
        }
        let none = group(&parse(b"User-agent: Googlebot\nDisallow: /\n"), SEZNAM);
        assert!(select(&none.groups, b"SeznamBot").is_empty());
        assert!(none.select(b"SeznamBot").is_empty());
    }

    #[test]
    fn the_two_readings_of_spec_3() {
        // SPEC §3's example: two groups for a crawler that reads
        // Request-rate, one group of both agents for one that does not.
        let text = "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n";
        assert_eq!(labels_read(text, SEZNAM), ["SeznamBot", "*"]);
        assert_eq!(labels_read(text, Reads::RULES_ONLY), ["SeznamBot|*"]);
        // The record not read still joins its group (for the audit's
        // not-read-by-crawler rows), without ending the run.
        let grouping = group(&parse(text.as_bytes()), Reads::RULES_ONLY);
        assert_eq!(grouping.groups[0].request_rates.len(), 1);
        assert_eq!(grouping.groups[0].rules.len(), 1);
        // Robot-version only for a crawler that reads it.
        let text = "User-agent: a\nRobot-version: 2.0\nDisallow: /x\n";
        let read = group(&parse(text.as_bytes()), SEZNAM);
        assert!(read.groups[0].rules[0].whole_path);
        let unread = group(&parse(text.as_bytes()), Reads::RULES_ONLY);
        assert!(!unread.groups[0].rules[0].whole_path);
        assert!(unread.groups[0].robot_version.is_none());
        let extensions: Vec<Directive> = SEZNAM.extensions().collect();
        assert_eq!(
            extensions,
            [Directive::RequestRate, Directive::RobotVersion]
        );
    }
}
