//! The findings of the lint: takes a read robots.txt, gives its mistakes, each with a line,
//! a short kebab-case name, a severity and one sentence (RFC 9309; SPEC §1,
//! §3; the `lint` command). It judges the file as Seznam's crawlers read it
//! and never re-parses: it looks at the records, groups and compiled rules
//! of [`Robots`].
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

use super::matcher::{AgentRules, Robots};

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
    /// It reads `Request-rate` as a rule of its group.
    pub reads_request_rate: bool,
    /// It reads `Robot-version` as a rule of its group.
    pub reads_robot_version: bool,
    /// It reads `Crawl-delay` as a rule of its group.
    pub reads_crawl_delay: bool,
    /// It fetches `/` even when a `*` group forbids it (Seznam documents
    /// this for its crawlers).
    pub homepage_exception: bool,
}

impl Reader {
    /// `SeznamBot`, or `SeznamBot (and FreshBot, SeznamBot-test)`: the
    /// token and the other crawlers that obey it.
    pub fn label(&self) -> String {
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

/// What the checks share: the file, every distinct selection in it, and
/// the crawlers of the table with theirs.
struct Scope<'a> {
    robots: &'a Robots,
    /// The merged, compiled groups some crawler obeys: one per distinct
    /// product token named in the file, then the one for every crawler no
    /// group names.
    selections: Vec<AgentRules>,
    /// For each group, the indices of the selections that use it.
    users: Vec<Vec<usize>>,
    /// The crawlers of the table, each with the selection it uses.
    readers: Vec<(&'a Reader, AgentRules)>,
}

impl<'a> Scope<'a> {
    fn new(robots: &'a Robots, readers: &'a [Reader]) -> Scope<'a> {
        let mut tokens: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for agent in robots.groups().iter().flat_map(|g| &g.agents) {
            let token = String::from_utf8_lossy(&agent.token).into_owned();
            if !token.is_empty() && seen.insert(token.to_ascii_lowercase()) {
                tokens.push(token);
            }
        }
        let mut selections: Vec<AgentRules> = tokens
            .iter()
            .map(|token| robots.rules_for(token.as_bytes()))
            .collect();
        // A token no group names stands for every crawler that gets the
        // default groups.
        let mut unnamed = String::from("robotsauditunnamed");
        while robots.groups().iter().any(|g| g.names(unnamed.as_bytes())) {
            unnamed.push('x');
        }
        selections.push(robots.rules_for(unnamed.as_bytes()));
        let mut users = vec![Vec::new(); robots.groups().len()];
        for (index, selection) in selections.iter().enumerate() {
            for &group in selection.groups() {
                if let Some(list) = users.get_mut(group) {
                    list.push(index);
                }
            }
        }
        Scope {
            robots,
            selections,
            users,
            readers: readers
                .iter()
                .map(|r| (r, robots.rules_for(r.token.as_bytes())))
                .collect(),
        }
    }

    /// Indices of the selections that use group `group`.
    fn users(&self, group: usize) -> &[usize] {
        self.users.get(group).map_or(&[], Vec::as_slice)
    }

    /// The crawlers of the table that obey group `group`, with their
    /// selections.
    fn readers_of(&self, group: usize) -> impl Iterator<Item = &(&'a Reader, AgentRules)> {
        self.readers
            .iter()
            .filter(move |(_, rules)| rules.groups().contains(&group))
    }
}

/// Lints a robots.txt for the crawlers `readers`. Findings come sorted by
/// line (the whole file first), then by name. A file that looks like an
/// HTML page or binary data gets that finding alone (and the size one):
/// its lines mean nothing.
pub fn lint(robots: &Robots, readers: &[Reader]) -> Vec<Finding> {
    let mut findings = lines::check_file(robots);
    if findings.is_empty() {
        let scope = Scope::new(robots, readers);
        lines::check(&scope, &mut findings);
        groups::check(&scope, &mut findings);
        readings::check(&scope, &mut findings);
        rules::check(&scope, &mut findings);
    }
    lines::check_size(robots, &mut findings);
    findings.sort_by(|a, b| (a.line, a.name).cmp(&(b.line, b.name)));
    findings
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
        reads_request_rate: true,
        reads_robot_version: true,
        reads_crawl_delay: false,
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
