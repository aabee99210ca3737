//! The findings of the lint: takes a read robots.txt, gives its mistakes, each with a line,
//! a short kebab-case name, a severity and one sentence (RFC 9309; SPEC §1,
//! §3; the `lint` command). It never re-parses: it looks at the records,
//! groups and compiled rules of [`Robots`]. The groups it goes through are
//! those of the first crawler of the table (Seznam's, built in); what a
//! crawler obeys always comes from the file grouped as that crawler reads
//! it (SPEC §3), so the lint, `check` and the audit agree. Checks ask which
//! crawlers hold a line, not a group: lines are the same in every reading,
//! group indices are not.
//!
//! `lines` looks at single lines (unknown directives, stray text, sitemaps,
//! the file as a whole), `groups` at user-agent lines and the Seznam
//! extensions, `readings` at runs of user-agent lines that crawlers group
//! differently, `rules` at Allow/Disallow patterns, and `shadow` decides
//! when one pattern covers another.

mod groups;
mod lines;
mod readings;
mod rules;
mod shadow;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::agent::robot_of;
use super::group::{self, Group, Reads};
use super::matcher::{AgentRules, Robots, SelectionKey};
use super::parse::Directive;

/// A crawler as the lint judges a file for it, from its profile (SPEC §2,
/// §3): the `lint` command builds these from the crawler table, so a
/// crawler added by `--profiles` is judged as the built-in ones are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader {
    /// The robots.txt token whose groups it obeys.
    pub token: String,
    /// The crawlers that obey the token, as reports name them.
    pub crawlers: Vec<String>,
    /// The slowest rate it honours, as (fetches, seconds): slower written
    /// rates are read as this.
    pub floor: Option<(u32, u64)>,
    /// The extension records it reads as rules of its group: they decide
    /// how it groups the file (SPEC §3).
    pub reads: Reads,
    /// It fetches `/` even when a `*` group forbids it (Seznam documents
    /// this for its crawlers).
    pub homepage_exception: bool,
}

impl Reader {
    /// `SeznamBot`, or `SeznamBot (and FreshBot, SeznamBot-test)`: the
    /// token and the other crawlers that obey it so; `Yan (token Yandex)`
    /// when no crawler of the reader is named as its token (a profile that
    /// reads the token otherwise than the crawler of that name).
    pub fn label(&self) -> String {
        if !self.names_its_token() {
            return format!("{} (token {})", self.name(), self.token);
        }
        let others: Vec<&str> = self
            .crawlers
            .iter()
            .map(String::as_str)
            .filter(|c| !c.eq_ignore_ascii_case(&self.token))
            .collect();
        if others.is_empty() {
            self.token.clone()
        } else {
            format!("{} (and {})", self.token, others.join(", "))
        }
    }

    /// The crawlers as a finding names them: the token when a crawler of
    /// that name is among them (`SeznamBot` for Seznam's three), else
    /// their names (`FreshBot`, for a profile that reads SeznamBot's
    /// token otherwise than SeznamBot).
    pub fn name(&self) -> String {
        if self.names_its_token() {
            self.token.clone()
        } else {
            self.crawlers.join(", ")
        }
    }

    /// True when a crawler of the reader is named as its token.
    fn names_its_token(&self) -> bool {
        self.crawlers
            .iter()
            .any(|c| c.eq_ignore_ascii_case(&self.token))
    }

    /// It reads Request-rate and not Crawl-delay (Seznam's crawlers): a
    /// Crawl-delay is for it a Request-rate to write instead.
    pub fn reads_rate_for_delay(&self) -> bool {
        self.reads.reads(Directive::RequestRate) && !self.reads.reads(Directive::CrawlDelay)
    }
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A line or the whole file cannot be read as its author meant.
    Error,
    /// Read, but probably not what was meant.
    Warning,
    /// Worth knowing; nothing needs fixing.
    Note,
}

impl Severity {
    /// The lower-case word the outputs use.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One mistake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The 1-based line it concerns; `None` for the whole file.
    pub line: Option<usize>,
    /// A short kebab-case id, e.g. `empty-disallow`.
    pub name: &'static str,
    pub severity: Severity,
    /// One sentence of explanation.
    pub message: String,
}

impl Finding {
    fn new(line: usize, name: &'static str, severity: Severity, message: String) -> Finding {
        Finding {
            line: Some(line),
            name,
            severity,
            message,
        }
    }

    /// True for errors and warnings: the findings that make a file unclean.
    pub fn is_problem(&self) -> bool {
        self.severity != Severity::Note
    }
}

/// True when no finding is an error or a warning: notes alone leave a file
/// clean.
pub fn is_clean(findings: &[Finding]) -> bool {
    !findings.iter().any(Finding::is_problem)
}

/// The file grouped as the first crawler of `readers` reads it (a crawler
/// without a profile's reading, Allow and Disallow alone, when there is
/// none): the groups the lint shows and goes through.
pub fn listing(robots: &Robots, readers: &[Reader]) -> Robots {
    robots.read_as(readers.first().map_or(Reads::RULES_ONLY, |r| r.reads))
}

/// The groups one crawler obeys, in the file grouped as it reads it
/// (SPEC §3): what `check` and the audit judge it by.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The file as the crawler groups it: shared by every selection of
    /// that reading (a copy each made 1,775 groups naming 1,775 bots,
    /// a real bad-bot list, 4.8 GB).
    pub robots: Arc<Robots>,
    /// The merged, compiled groups it obeys, indices into `robots.groups()`:
    /// what `check` and the audit judge by, a verdict the lint states
    /// included.
    pub rules: AgentRules,
    /// The same without an `Allow` the size limit cut (`Rule::cut`): what
    /// the lint says of rules themselves (one that never decides) rests on
    /// no line whose end it cannot see.
    pub whole_rules: AgentRules,
    /// The lines of the records in those groups, user-agent lines aside.
    lines: HashSet<usize>,
}

impl Selection {
    /// The groups `token` obeys in `robots` (already grouped as it reads).
    pub fn new(robots: Arc<Robots>, token: &[u8]) -> Selection {
        let rules = robots.rules_for(token);
        let whole_rules = robots.rules_as_read(token);
        let records = &robots.file().records;
        let lines = rules
            .groups()
            .iter()
            .flat_map(|&g| &robots.groups()[g].members)
            .filter_map(|&m| records.get(m))
            .map(|r| r.line)
            .collect();
        Selection {
            robots,
            rules,
            whole_rules,
            lines,
        }
    }

    /// True when the record at `line` belongs to a group the crawler obeys.
    pub fn holds(&self, line: usize) -> bool {
        self.lines.contains(&line)
    }

    /// The groups obeyed, as indices into `listing`'s groups, when
    /// `listing` has each of them as the crawler reads it; `None` when the
    /// crawler groups some of them otherwise.
    pub fn placed_in(&self, listing: &Robots) -> Option<Vec<usize>> {
        self.rules
            .groups()
            .iter()
            .map(|&g| {
                let own = &self.robots.groups()[g];
                listing.groups().iter().position(|other| same(own, other))
            })
            .collect()
    }
}

/// True when two readings made one group of the same lines and read it
/// alike (`Rule::group` indices aside, which count the groups before it).
fn same(a: &Group, b: &Group) -> bool {
    a.line == b.line
        && a.agents == b.agents
        && a.members == b.members
        && a.robot_version == b.robot_version
}

/// The file as each crawler of `readers` groups it, with the groups it
/// obeys, in table order.
pub fn selections<'a>(robots: &Robots, readers: &'a [Reader]) -> Vec<(&'a Reader, Selection)> {
    selections_with(&mut Readings::new(robots), readers)
}

/// The file regrouped once per distinct set of records read.
struct Readings<'r> {
    robots: &'r Robots,
    by_reads: HashMap<Reads, Arc<Robots>>,
}

impl<'r> Readings<'r> {
    fn new(robots: &'r Robots) -> Readings<'r> {
        Readings {
            robots,
            by_reads: HashMap::new(),
        }
    }

    fn get(&mut self, reads: Reads) -> Arc<Robots> {
        self.get_ref(reads).clone()
    }

    fn get_ref(&mut self, reads: Reads) -> &Arc<Robots> {
        self.by_reads
            .entry(reads)
            .or_insert_with(|| Arc::new(self.robots.read_as(reads)))
    }
}

/// What makes two tokens outside the table select alike (`Scope::new`):
/// the groups naming them in a file read one way (none: the `*` groups),
/// else their `SelectionKey`.
#[derive(Debug, PartialEq, Eq, Hash)]
enum Shared {
    Groups(Vec<usize>),
    Key(SelectionKey),
}

/// What the checks share: the file as listed, every distinct selection in
/// it, and the crawlers of the table with theirs.
struct Scope<'a> {
    /// The file as [`listing`] groups it: the groups the checks go through.
    robots: &'a Robots,
    /// The groups some crawler obeys, each in its own reading: one per
    /// distinct product token named in the file (a token of the table read
    /// as its profile says, any other with Allow and Disallow alone, SPEC
    /// §3), then the one for every unknown crawler no group names, then
    /// those of the table's crawlers no group names.
    selections: Vec<Selection>,
    /// `selections` as crawlers that keep to a limit read the file: a token
    /// outside the table that keeps to a Request-rate (first) or a
    /// Crawl-delay (second) reads that record, so it ends its runs.
    keepers: [Vec<Selection>; 2],
    /// The crawlers of the table, each with the selection it uses.
    readers: Vec<(&'a Reader, Selection)>,
    /// A token no group names: any crawler without a group of its own.
    unnamed: String,
    /// Which of `selections` hold each line.
    users: Users,
}

impl<'a> Scope<'a> {
    fn new(robots: &'a Robots, readers: &'a [Reader]) -> Scope<'a> {
        let mut tokens: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        // The tokens of the other reading's user-agent lines too: a rule
        // of such a group is that crawler's own there.
        let colonless = robots.colonless_tokens().iter();
        for token in robots
            .groups()
            .iter()
            .flat_map(|g| &g.agents)
            .map(|a| &a.token)
            .chain(colonless)
        {
            let token = String::from_utf8_lossy(token).into_owned();
            if !token.is_empty() && seen.insert(token.to_ascii_lowercase()) {
                tokens.push(token);
            }
        }
        // A token no group names stands for every crawler that gets the
        // default groups.
        let mut unnamed = String::from("robotsauditunnamed");
        while robots.groups().iter().any(|g| g.names(unnamed.as_bytes())) {
            unnamed.push('x');
        }
        let mut readings = Readings::new(robots);
        let readers = selections_with(&mut readings, readers);
        let mut select = |extra: Option<Directive>| -> Vec<Selection> {
            let outside = extra.map_or(Reads::RULES_ONLY, |d| Reads::RULES_ONLY.with(d));
            // Every crawler of a token with its own reading: a profile
            // that shares SeznamBot's token but reads Crawl-delay groups
            // the file otherwise, and a line may apply to it alone.
            // Tokens outside the table that select the same groups share
            // one selection: 12,000 tokens named in one run of user-agent
            // lines were 36,000 copies of the file's groups (tens of GB).
            let mut shared: HashSet<Shared> = HashSet::new();
            let mut selections: Vec<Selection> = Vec::new();
            // Read one way, a token's groups are those naming it (else the
            // `*` groups): found in one index of the groups' tokens, where
            // a key a token walked every user-agent line.
            let read = readings.get_ref(outside);
            let mut naming: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
            if !read.has_other_readings() {
                for (index, group) in read.groups().iter().enumerate() {
                    for agent in &group.agents {
                        let groups = naming.entry(agent.token.to_ascii_lowercase()).or_default();
                        if groups.last() != Some(&index) {
                            groups.push(index);
                        }
                    }
                }
            }
            for token in tokens.iter().chain([&unnamed]) {
                let own: Vec<Selection> = readers
                    .iter()
                    .filter(|(r, _)| robot_of(&r.token) == token.to_ascii_lowercase())
                    .map(|(_, selection)| selection.clone())
                    .collect();
                if own.is_empty() {
                    let read = readings.get_ref(outside);
                    let key = if read.has_other_readings() {
                        Shared::Key(read.selection_key(token.as_bytes()))
                    } else {
                        let lower = token.to_ascii_lowercase().into_bytes();
                        Shared::Groups(naming.get(&lower).cloned().unwrap_or_default())
                    };
                    if shared.insert(key) {
                        selections.push(Selection::new(readings.get(outside), token.as_bytes()));
                    }
                } else {
                    selections.extend(own);
                }
            }
            for (reader, selection) in &readers {
                if !seen.contains(&robot_of(&reader.token)) {
                    selections.push(selection.clone());
                }
            }
            selections
        };
        let selections = select(None);
        let keepers = [
            select(Some(Directive::RequestRate)),
            select(Some(Directive::CrawlDelay)),
        ];
        Scope {
            robots,
            users: Users::new(&selections),
            selections,
            keepers,
            readers,
            unnamed,
        }
    }

    /// Indices of the selections that hold the record at `line`.
    fn users(&self, line: usize) -> &[usize] {
        self.users.of(line)
    }

    /// The names (`Reader::name`) of the table's crawlers that read
    /// `directive`, each once, in table order.
    fn names_reading(&self, directive: Directive) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for (reader, _) in &self.readers {
            if reader.reads.reads(directive) && !names.contains(&reader.name()) {
                names.push(reader.name());
            }
        }
        names
    }

    /// The crawlers of the table that obey the record at `line`, with
    /// their selections.
    fn readers_of(&self, line: usize) -> impl Iterator<Item = &(&'a Reader, Selection)> {
        self.readers.iter().filter(move |(_, s)| s.holds(line))
    }
}

/// For each record's line, the indices of the selections that hold it,
/// ascending: found once, where asking every selection of every line took
/// the square of a bad-bot list's thousands of groups.
struct Users(HashMap<usize, Vec<usize>>);

impl Users {
    fn new(selections: &[Selection]) -> Users {
        let mut users: HashMap<usize, Vec<usize>> = HashMap::new();
        for (index, selection) in selections.iter().enumerate() {
            for &line in &selection.lines {
                users.entry(line).or_default().push(index);
            }
        }
        Users(users)
    }

    /// Indices of the selections that hold the record at `line`.
    fn of(&self, line: usize) -> &[usize] {
        self.0.get(&line).map_or(&[], Vec::as_slice)
    }
}

fn selections_with<'a>(
    readings: &mut Readings<'_>,
    readers: &'a [Reader],
) -> Vec<(&'a Reader, Selection)> {
    readers
        .iter()
        .map(|r| (r, Selection::new(readings.get(r.reads), r.token.as_bytes())))
        .collect()
}

/// What the file looks like when it is no robots.txt at all: an HTML
/// page, or binary data or UTF-16 text. `check` says so beside its
/// verdicts, which are those of whatever lines in it read as records.
pub fn unreadable(robots: &Robots) -> Option<&'static str> {
    lines::check_file(robots)
        .first()
        .map(|finding| match finding.name {
            "looks-like-html" => "an HTML page (an error page served in its place?)",
            _ => "binary data or UTF-16 text (NUL or other control bytes)",
        })
}

/// Lints a robots.txt for the crawlers `readers`. Findings come sorted by
/// line (the whole file first), then by name. A file that looks like an
/// HTML page or binary data gets that finding instead of one a line for
/// its syntax (every line of a page would be one); the records crawlers
/// still read in it (RFC 9309 reads any line it can) are linted as in
/// any file, since the audit judges by them.
pub fn lint(robots: &Robots, readers: &[Reader]) -> Vec<Finding> {
    let mut findings = lines::check_file(robots);
    let listed = listing(robots, readers);
    let scope = Scope::new(&listed, readers);
    if findings.is_empty() {
        lines::check(&scope, &mut findings);
    }
    groups::check(&scope, &mut findings);
    readings::check(&scope, &mut findings);
    rules::check(&scope, &mut findings);
    lines::check_size(robots, &mut findings);
    keep_only_lines_that_can_go(robots, readers, listed.late_versions(), &mut findings);
    findings.sort_by(|a, b| (a.line, a.name).cmp(&(b.line, b.name)));
    findings
}

/// Findings that say a line can go: it has no effect, never decides, or
/// repeats another.
const SAY_IT_CAN_GO: [&str; 6] = [
    "duplicate-rule",
    "empty-allow",
    "ignored-crawl-delay",
    "misplaced-robot-version",
    "shadowed-rule",
    "unknown-robot-version",
];

/// Records walked to test whether such lines can go: past it, the claims
/// not yet tested are left out (a claim left out, never a wrong one).
const REGROUP_STEPS: usize = 1 << 22;

/// Leaves out the claims that a line can go where deleting it would group
/// the file otherwise for some crawler (`group::regroups_without`): an
/// empty `Allow:` after `User-agent: *` says "allow all" and ends that
/// group, and deleting it would join `*` to the next group's rules. A
/// `Robot-version: 2.0` read two ways (`late`) is said to be misplaced,
/// not to be able to go: deleting it changes a reading, as moving it
/// should.
fn keep_only_lines_that_can_go(
    robots: &Robots,
    readers: &[Reader],
    late: &[usize],
    findings: &mut Vec<Finding>,
) {
    let mut reads: Vec<Reads> = vec![Reads::RULES_ONLY];
    for reader in readers {
        if !reads.contains(&reader.reads) {
            reads.push(reader.reads);
        }
    }
    // The file's readings as it stands, once for every line tested.
    let file = robots.file();
    let mut readings: Vec<(Reads, Vec<group::Grouping>)> = Vec::new();
    let mut steps = 0usize;
    let mut tested: HashMap<usize, bool> = HashMap::new();
    findings.retain(|finding| {
        let Some(line) = finding
            .line
            .filter(|_| SAY_IT_CAN_GO.contains(&finding.name))
            .filter(|line| !(finding.name == "misplaced-robot-version" && late.contains(line)))
        else {
            return true;
        };
        if let Some(&can_go) = tested.get(&line) {
            return can_go;
        }
        if steps < REGROUP_STEPS && readings.is_empty() {
            readings = reads
                .iter()
                .map(|&r| (r, group::all_readings(file, r)))
                .collect();
        }
        let can_go = steps < REGROUP_STEPS
            && !readings
                .iter()
                .any(|(r, with)| group::regroups_without(file, *r, with, line, &mut steps));
        tested.insert(line, can_go);
        can_go
    });
}

/// Damerau (optimal string alignment) edit distance, for suggesting the
/// name a misspelling most likely meant.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut current = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous[b.len()]
}

/// Seznam's crawlers as the built-in table describes them, for the checks'
/// own tests.
#[cfg(test)]
fn seznam() -> Vec<Reader> {
    vec![Reader {
        token: "SeznamBot".into(),
        crawlers: vec![
            "FreshBot".into(),
            "SeznamBot-test".into(),
            "SeznamBot".into(),
        ],
        floor: Some((1, 30)),
        reads: Reads::RULES_ONLY
            .with(Directive::RequestRate)
            .with(Directive::RobotVersion),
        homepage_exception: true,
    }]
}

/// The findings of a robots.txt for Seznam's crawlers, for the checks' own
/// tests.
#[cfg(test)]
fn lint_text(text: &[u8]) -> Vec<Finding> {
    lint(&Robots::new(text), &seznam())
}

/// The lines of every finding of one name, for the checks' own tests.
#[cfg(test)]
fn found(text: &str, name: &str) -> Vec<usize> {
    lint_text(text.as_bytes())
        .into_iter()
        .filter(|f| f.name == name)
        .filter_map(|f| f.line)
        .collect()
}

#[cfg(test)]
mod tests;
