//! The lint: takes a read robots.txt, gives its mistakes, each with a line,
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
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(Option<usize>, &'static str, Severity)> {
        lint_text(text.as_bytes())
            .into_iter()
            .map(|f| (f.line, f.name, f.severity))
            .collect()
    }

    const CLEAN: &str = "\u{feff}# robots.txt for www.example.cz\n\
        User-agent: SeznamBot\n\
        User-agent: FreshBot/1.0\n\
        Request-rate: 10/1m\n\
        Request-rate: 100/1m 0100-0600\n\
        Disallow: /cz/chat/\n\
        Allow: /cz/chat/rules\n\
        Disallow: /*.pdf$\n\
        Disallow: /search?q=\n\
        \n\
        User-agent: *\n\
        Disallow: /admin/\n\
        Allow: /admin/help\n\
        Disallow: /%C4%8Dl%C3%A1nky/koncept\n\
        \n\
        Sitemap: https://www.example.cz/sitemap.xml\n";

    #[test]
    fn a_clean_file_has_no_findings() {
        assert_eq!(names(CLEAN), vec![]);
        assert!(is_clean(&lint_text(CLEAN.as_bytes())));
    }

    #[test]
    fn one_case_per_finding() {
        use Severity::{Error, Note, Warning};
        // (robots.txt, line, name, severity): the finding must be among
        // those the file gives.
        let cases: &[(&str, Option<usize>, &str, Severity)] = &[
            (
                "Our robots file\nUser-agent: *\nDisallow: /x\n",
                Some(1),
                "text-before-user-agent",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /x\nthis is not a directive\n",
                Some(3),
                "stray-text",
                Warning,
            ),
            (
                "User-agent: *\nDisallow /private\n",
                Some(2),
                "missing-colon",
                Error,
            ),
            (
                "Disallow: /private\nUser-agent: *\nDisallow: /x\n",
                Some(1),
                "rule-outside-group",
                Error,
            ),
            (
                "User-agent: *\nDisallow: /x\nDisallow:\n",
                Some(3),
                "empty-disallow",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /x\nAllow:\n",
                Some(3),
                "empty-allow",
                Note,
            ),
            (
                "User-agent: *\nDissallow: /private\n",
                Some(2),
                "misspelled-directive",
                Error,
            ),
            (
                "User agent: *\nDisallow: /x\n",
                Some(1),
                "misspelled-directive",
                Error,
            ),
            (
                "User-agent: *\nDisallow: /x\nFoo: bar\n",
                Some(3),
                "unknown-directive",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /x\nHost: www.example.cz\n",
                Some(3),
                "unknown-directive",
                Note,
            ),
            (
                "User-agent: *\nDisallow: private\n",
                Some(2),
                "pattern-without-slash",
                Error,
            ),
            (
                "User-agent: *\nDisallow: /a /b\n",
                Some(2),
                "space-in-pattern",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /\u{10d}l\u{e1}nky\n",
                Some(2),
                "non-ascii-pattern",
                Note,
            ),
            (
                "User-agent: *\nDisallow: /x\nCrawl-delay: 10\n",
                Some(3),
                "crawl-delay",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nRequest-rate: 1/x\nDisallow: /x\n",
                Some(2),
                "bad-request-rate",
                Error,
            ),
            (
                "User-agent: SeznamBot\nRequest-rate: 1/60s\nDisallow: /x\n",
                Some(2),
                "slow-request-rate",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nRequest-rate: 1/10s 0100-0100\nDisallow: /x\n",
                Some(2),
                "empty-window",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nRequest-rate: 1/10s\nRequest-rate: 1/20s\nDisallow: /x\n",
                Some(3),
                "ignored-request-rate",
                Warning,
            ),
            (
                "User-agent: *\nCrawl-delay: 1\nCrawl-delay: 2\nDisallow: /x\n",
                Some(3),
                "ignored-crawl-delay",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nDisallow: /x\nRobot-version: 2.0\n",
                Some(3),
                "misplaced-robot-version",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nRobot-version: 3.0\nDisallow: /x\n",
                Some(2),
                "unknown-robot-version",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nDisallow: /x\nVisit-time: 0100-0600\n",
                Some(3),
                "visit-time",
                Note,
            ),
            (
                "User-agent: *\nDisallow: /static/\n",
                Some(2),
                "blocks-assets",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /*.js$\n",
                Some(2),
                "blocks-assets",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /\n",
                Some(2),
                "seznam-homepage-exception",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /\n",
                Some(2),
                "disallow-all",
                Note,
            ),
            (
                "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n",
                Some(3),
                "ambiguous-group",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /x\nSitemap https://www.example.cz/s.xml\n",
                Some(3),
                "missing-colon",
                Error,
            ),
            (
                "User-agent: *\nDisallow: /x\0\0\n",
                Some(2),
                "control-bytes",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nDisallow: /a\n\nUser-agent: seznambot\nDisallow: /b\n",
                Some(4),
                "duplicate-agent",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /a\nAllow: /a\n",
                Some(2),
                "shadowed-rule",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /a/b\nAllow: /a/*\n",
                Some(2),
                "shadowed-rule",
                Warning,
            ),
            (
                "User-agent: SeznamBot\nDisallow: /a\n\nUser-agent: SeznamBot\nDisallow: /a\n",
                Some(5),
                "duplicate-rule",
                Note,
            ),
            (
                "User-agent: *\nDisallow: /x\nSitemap: /sitemap.xml\n",
                Some(3),
                "bad-sitemap",
                Warning,
            ),
            (
                "User-agent: *bot\nDisallow: /x\n",
                Some(1),
                "agent-names-nothing",
                Warning,
            ),
            (
                "User-agent: FreshBot\nDisallow: /x\n",
                Some(1),
                "misnamed-agent",
                Warning,
            ),
            (
                "User-agent: Seznam\nDisallow: /x\n",
                Some(1),
                "misnamed-agent",
                Warning,
            ),
            (
                "User-agent: *\nDisallow: /x\nUser-agent: SeznamBot\n",
                Some(3),
                "empty-group",
                Warning,
            ),
            (
                "Sitemap: https://www.example.cz/s.xml\n",
                None,
                "no-groups",
                Note,
            ),
            (
                "<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body>Error: 404</body></html>\n",
                None,
                "looks-like-html",
                Error,
            ),
            (
                "\u{1f}\u{8b}\u{8}\u{0}\u{0}\u{0}\nUser-agent: *\n",
                None,
                "looks-like-binary",
                Error,
            ),
        ];
        for &(text, line, name, severity) in cases {
            let got = names(text);
            assert!(
                got.contains(&(line, name, severity)),
                "{text:?}: expected {line:?} {name} {severity:?}, got {got:?}"
            );
        }
    }

    #[test]
    fn what_a_webmaster_writes_on_purpose_is_clean() {
        // Each of these once drew a warning or an error.
        let cases: &[&str] = &[
            // A final empty `*` group (RFC 9309 allows a group without rules).
            "User-agent: SeznamBot\nDisallow: /x\n\nUser-agent: *\n",
            // Allow-all groups, as Wikipedia writes them.
            "User-agent: IsraBot\nDisallow:\n\nUser-agent: *\nDisallow: /w/\n",
            // A run of NULs in one line (here a comment) is no binary file.
            "User-agent: *\nDisallow: /x # \0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\n",
            // Crawl-delay beside a Request-rate: Seznam already has its rate.
            "User-agent: *\nCrawl-delay: 10\nDisallow: /x\nRequest-rate: 1/10s\n",
            // Crawl-delay in another crawler's group.
            "User-agent: Bingbot\nDisallow: /x\nCrawl-delay: 5\n",
            // Visit-time is a note.
            "User-agent: *\nDisallow: /x\nVisit-time: 0100-0600\n",
        ];
        for text in cases {
            let findings = lint_text(text.as_bytes());
            assert!(is_clean(&findings), "{text:?}: {findings:?}");
        }
    }

    #[test]
    fn a_line_of_nuls_is_a_note_and_the_rules_still_count() {
        let mut text = b"User-agent: *\nDisallow: /x\n".to_vec();
        text.extend_from_slice(&[0; 512]);
        text.extend_from_slice(b"\nDisallow: /static/\n");
        let got = names(std::str::from_utf8(&text).expect("utf-8"));
        assert!(
            got.contains(&(Some(3), "control-bytes", Severity::Note)),
            "{got:?}"
        );
        assert!(
            got.contains(&(Some(4), "blocks-assets", Severity::Warning)),
            "{got:?}"
        );
        assert!(!got.iter().any(|f| f.1 == "looks-like-binary"), "{got:?}");
    }

    #[test]
    fn a_sitemap_without_its_colon_is_named_so() {
        let findings =
            lint_text(b"User-agent: *\nDisallow: /x\nSitemap https://www.example.cz/s.xml\n");
        let message = &findings
            .iter()
            .find(|f| f.name == "missing-colon")
            .expect("missing-colon")
            .message;
        assert!(
            message.contains("`Sitemap: https://www.example.cz/s.xml`"),
            "{message}"
        );
    }

    #[test]
    fn crawl_delay_advice_only_where_it_helps() {
        let with_rate = lint_text(
            b"User-agent: SeznamBot\nRequest-rate: 1/10s\nCrawl-delay: 10\nDisallow: /x\n",
        );
        let delay = with_rate
            .iter()
            .find(|f| f.name == "crawl-delay")
            .expect("crawl-delay");
        assert_eq!(delay.severity, Severity::Note);
        assert!(!delay.message.contains("instead`"), "{}", delay.message);
        assert!(delay.message.contains("(line 2)"), "{}", delay.message);
        let alone = lint_text(b"User-agent: *\nCrawl-delay: 10\nDisallow: /x\n");
        let delay = alone
            .iter()
            .find(|f| f.name == "crawl-delay")
            .expect("crawl-delay");
        assert_eq!(delay.severity, Severity::Warning);
        assert!(
            delay.message.contains("`Request-rate: 1/10s`"),
            "{}",
            delay.message
        );
    }

    #[test]
    fn each_crawler_is_judged_by_its_own_profile() {
        let other = Reader {
            token: "ExampleBot".into(),
            crawlers: vec!["ExampleBot".into(), "ExampleBot-News".into()],
            floor: Some((1, 10)),
            reads_request_rate: true,
            reads_robot_version: false,
            reads_crawl_delay: false,
            homepage_exception: false,
        };
        let text = b"User-agent: ExampleBot\nRequest-rate: 1/20s\nDisallow: /x\n\n\
                     User-agent: ExampleBot-News\nDisallow: /y\n";
        let robots = Robots::new(text);
        let names = |readers: &[Reader]| -> Vec<(Option<usize>, &'static str)> {
            lint(&robots, readers)
                .into_iter()
                .map(|f| (f.line, f.name))
                .collect()
        };
        // Seznam's floor (1/30s) is not this crawler's; its own (1/10s) is.
        assert_eq!(names(&seznam()), vec![]);
        assert_eq!(
            names(&[other]),
            vec![(Some(2), "slow-request-rate"), (Some(5), "misnamed-agent")]
        );
    }

    #[test]
    fn a_file_past_the_limit() {
        let mut text = b"User-agent: *\n".to_vec();
        while text.len() <= parse_limit() {
            text.extend_from_slice(b"Disallow: /private/area/\n");
        }
        let findings = lint_text(&text);
        assert_eq!(findings[0].line, None);
        assert_eq!(findings[0].name, "file-too-large");
        assert_eq!(findings[0].severity, Severity::Error);
    }

    fn parse_limit() -> usize {
        super::super::parse::SIZE_LIMIT
    }

    #[test]
    fn html_gets_one_finding_only() {
        let got =
            names("<html>\n<body>\n<a href=\"https://x\">x</a>\nDisallow /x\n</body></html>\n");
        assert_eq!(got, vec![(None, "looks-like-html", Severity::Error)]);
    }

    #[test]
    fn findings_are_sorted_by_line_then_name() {
        let findings = lint_text(
            b"Crawl-delay: 5\nUser-agent: *\nDisallow: /static/\nAllow: /static/\nDisallow:\n",
        );
        let keys: Vec<(Option<usize>, &str)> = findings.iter().map(|f| (f.line, f.name)).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert!(findings.iter().all(|f| f.message.ends_with('.')));
    }

    #[test]
    fn edit_distances() {
        let cases: &[(&str, &str, usize)] = &[
            ("", "", 0),
            ("allow", "allow", 0),
            ("dissallow", "disallow", 1),
            ("disalow", "disallow", 1),
            ("dissalow", "disallow", 2),
            ("diasllow", "disallow", 1),
            ("requestrate", "requestrtae", 1),
            ("abc", "", 3),
        ];
        for &(a, b, expected) in cases {
            assert_eq!(
                edit_distance(a.as_bytes(), b.as_bytes()),
                expected,
                "{a} {b}"
            );
        }
    }
}
