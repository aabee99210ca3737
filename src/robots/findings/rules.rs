//! Lint checks on Allow and Disallow lines: takes the groups and their
//! compiled selections, gives findings for empty rules, patterns that cannot
//! match as meant, rules that keep crawlers from CSS and JavaScript, the
//! Seznam home-page exception, and rules that can never decide
//! (RFC 9309 §2.2.2, §2.2.3; SPEC §3, §4).

use std::collections::{HashMap, HashSet};

use super::super::compile::Pattern;
use super::super::group::{Reads, Rule};
use super::super::parse::Directive;
use super::shadow::Glob;
use super::{Finding, Scope, Severity};

/// Paths where sites keep stylesheets and scripts, as common site layouts
/// and CMSs (WordPress, Joomla, Drupal, Next.js) place them, each with the
/// text that shows the site runs that CMS (empty for generic layouts). A
/// CMS's paths are judged only when some line of the file holds its
/// marker, so that `Disallow: /*/plugins/*` on a site without WordPress
/// is not said to block WordPress plugins. Names at the top level are ones
/// few sites use for pages, so that `Disallow: /x` does not count as
/// blocking `/x.css`. A Disallow that decides against one of them keeps
/// crawlers from rendering pages.
const ASSETS: &[(&str, &str)] = &[
    ("/style.css", ""),
    ("/main.js", ""),
    ("/css/x.css", ""),
    ("/js/x.js", ""),
    ("/assets/app.css", ""),
    ("/assets/app.js", ""),
    ("/assets/css/style.css", ""),
    ("/assets/js/app.js", ""),
    ("/static/style.css", ""),
    ("/static/app.js", ""),
    ("/static/css/style.css", ""),
    ("/static/js/main.js", ""),
    ("/dist/app.js", ""),
    ("/build/app.js", ""),
    ("/_next/static/chunks/main.js", "/_next"),
    ("/wp-includes/js/jquery/jquery.js", "/wp-"),
    ("/wp-includes/css/dist/block-library/style.min.css", "/wp-"),
    ("/wp-content/themes/t/style.css", "/wp-"),
    ("/wp-content/plugins/p/script.js", "/wp-"),
    ("/templates/t/css/template.css", "/administrator"),
    ("/media/system/js/core.js", "/administrator"),
    ("/sites/default/files/css/x.css", "/profiles"),
    ("/core/misc/drupal.js", "/profiles"),
    ("/misc/drupal.js", "/profiles"),
    ("/themes/t/style.css", "/themes"),
];

pub(super) fn check(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    let records = &scope.robots.file().records;
    for group in scope.robots.groups() {
        let by_line: HashMap<usize, &Rule> = group.rules.iter().map(|r| (r.line, r)).collect();
        for &member in &group.members {
            let Some(record) = records.get(member) else {
                continue;
            };
            let allow = match record.directive {
                Directive::Allow => true,
                Directive::Disallow => false,
                _ => continue,
            };
            // An Allow the size limit cut is no empty one, and its value
            // no whole pattern: the line went on (file-too-large says
            // where). Only what it holds is said: a wildcard Seznam reads.
            if record.cut {
                if let Some(rule) = by_line.get(&record.line)
                    && rule.whole_path
                    && crate::robots::glob::seznam_form(&record.value).is_some()
                {
                    findings.push(wildcard(rule));
                }
                continue;
            }
            if record.value.is_empty() {
                // `Disallow:` beside nothing but Allow lines is the classic
                // way to allow everything (Wikipedia writes it so).
                let allows_all = group.rules.iter().all(|r| r.allow);
                if allow || !allows_all {
                    findings.push(empty_rule(allow, record.line));
                }
                continue;
            }
            if let Some(rule) = by_line.get(&record.line) {
                pattern(rule, &record.value, findings);
            }
        }
    }
    assets(scope, findings);
    disallow_all(scope, findings);
    home_page(scope, findings);
    shadowed(scope, findings);
}

fn empty_rule(allow: bool, line: usize) -> Finding {
    if allow {
        Finding::new(
            line,
            "empty-allow",
            Severity::Note,
            "An empty Allow allows nothing that was not allowed already, so it has no effect."
                .into(),
        )
    } else {
        Finding::new(
            line,
            "empty-disallow",
            Severity::Warning,
            "An empty Disallow forbids nothing and does not cancel the group's other rules, \
             so it has no effect here."
                .into(),
        )
    }
}

/// `robot-version-wildcard` of `rule`, which holds `?`, `[` or `\\`.
fn wildcard(rule: &Rule) -> Finding {
    Finding::new(
        rule.line,
        "robot-version-wildcard",
        Severity::Warning,
        format!(
            "`{}` holds `?`, `[` or `\\`, which Seznam reads in a Robot-version 2.0 group as \
             wildcards (`?` any one character, `[set]` one of a set, `\\` the next character \
             literal) and other parsers read literally; the audit accuses only where both \
             readings disallow. Write it without them (`*` means the same to all) to be read \
             one way.",
            rule.text
        ),
    )
}

/// Patterns that cannot mean what they say: not rooted, holding a space,
/// or characters outside ASCII.
fn pattern(rule: &Rule, value: &[u8], findings: &mut Vec<Finding>) {
    if !matches!(value.first(), Some(b'/' | b'*')) {
        let written = String::from_utf8_lossy(value);
        // A URL, or a host name before the path (`www.example.cz/private`):
        // a rule holds the path alone, and only of this site's host.
        let host_end = written.find("://").map(|at| at + 3).or_else(|| {
            let first = written.split('/').next().unwrap_or_default();
            let tld = first.rsplit('.').next().unwrap_or_default();
            (written.contains('/')
                && first.contains('.')
                && tld.len() >= 2
                && tld.bytes().all(|b| b.is_ascii_alphabetic())
                && first
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'))
            .then_some(0)
        });
        let (path, of_host) = match host_end {
            Some(at) => {
                let after = &written[at..];
                let path = after.find('/').map_or("/", |slash| &after[slash..]);
                (path.to_string(), " if that host is this site's")
            }
            None => (format!("/{written}"), ""),
        };
        let directive = if rule.allow { "Allow" } else { "Disallow" };
        findings.push(Finding::new(
            rule.line,
            "pattern-without-slash",
            Severity::Error,
            format!(
                "`{}` never matches, since every path starts with `/`; did you mean \
                 `{directive}: {path}`{of_host}?",
                rule.text
            ),
        ));
    }
    if value.iter().any(|&b| b == b' ' || b == b'\t') {
        let (blank, escape) = if value.contains(&b' ') {
            ("a space", "%20")
        } else {
            ("a tab", "%09")
        };
        findings.push(Finding::new(
            rule.line,
            "space-in-pattern",
            Severity::Warning,
            format!(
                "`{}` holds {blank}, which is part of the pattern (it matches `{escape}`), \
                 though RFC 9309's grammar has no blank in a pattern: write it `{escape}`, or, \
                 if the line lists several paths, give each its own line.",
                rule.text
            ),
        ));
    }
    if rule.reads_otherwise() {
        findings.push(wildcard(rule));
    }
    if !value.is_ascii() {
        let encoded = String::from_utf8_lossy(&rule.pattern);
        // UTF-8 text is read as its percent-encoding (RFC 9309 §2.2.2),
        // which is what browsers send: it works, so it is only a note.
        let (severity, message) = if std::str::from_utf8(value).is_ok() {
            (
                Severity::Note,
                format!(
                    "The pattern holds non-ASCII characters, which crawlers match as their \
                     UTF-8 percent-encoding `{encoded}`."
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "The pattern holds bytes that are not UTF-8 (is the file saved in another \
                     encoding?), so it matches `{encoded}`, which the site's URLs rarely are."
                ),
            )
        };
        findings.push(Finding::new(
            rule.line,
            "non-ascii-pattern",
            severity,
            message,
        ));
    }
}

/// Disallow rules that decide against a stylesheet or script for some
/// crawler. Rules that also forbid the home page shut the whole site and are
/// left alone: keeping the assets out is then the least of it.
fn assets(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    // Rule line → (its text, the first asset it blocks, CSS seen, JS seen).
    let mut blocked: Vec<(usize, String, &str, bool, bool)> = Vec::new();
    let records = &scope.robots.file().records;
    let runs = |marker: &str| {
        marker.is_empty()
            || records
                .iter()
                .any(|r| memchr::memmem::find(&r.value, marker.as_bytes()).is_some())
    };
    let assets: Vec<&str> = ASSETS
        .iter()
        .filter(|(_, marker)| runs(marker))
        .map(|&(asset, _)| asset)
        .collect();
    for selection in &scope.selections {
        for &asset in &assets {
            let verdict = selection.rules.judge(asset.as_bytes());
            let Some(rule) = verdict.rule.filter(|r| !r.allow) else {
                continue;
            };
            // Blocked in one reading only of a line read two ways: `check`
            // calls it allowed, and so does the lint.
            if !selection.rules.accuses(asset.as_bytes())
                || Pattern::compile(&rule.pattern, rule.whole_path).matches(b"/")
            {
                continue;
            }
            let css = asset.ends_with(".css");
            match blocked.iter_mut().find(|b| b.0 == rule.line) {
                Some(entry) => {
                    entry.3 |= css;
                    entry.4 |= !css;
                }
                None => blocked.push((rule.line, rule.text.clone(), asset, css, !css)),
            }
        }
    }
    for (line, text, example, css, js) in blocked {
        let what = match (css, js) {
            (true, true) => "CSS and JavaScript",
            (true, false) => "CSS",
            _ => "JavaScript",
        };
        findings.push(Finding::new(
            line,
            "blocks-assets",
            Severity::Warning,
            format!(
                "`{text}` keeps crawlers from {what} files such as `{example}`, which they \
                 need to render the pages."
            ),
        ));
    }
}

/// `Disallow: /` under `*`: often meant for one crawler or to hide pages
/// from search results, which it does not do.
fn disallow_all(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    // An Allow the size limit cut in any `*` group (they merge) may allow
    // anything (`Rule::cut`): whether they block every crawler is not
    // known.
    let defaults = || scope.robots.groups().iter().filter(|g| g.is_default());
    if defaults().any(|g| g.rules.iter().any(|r| r.cut.is_some())) {
        return;
    }
    // A crawler with no group of its own, allowed in one reading of a line
    // read two ways (a `User-agent NAME` without its colon above the rule):
    // `check` calls its fetches allowed, so nothing is said to block it.
    // Read as a crawler of Allow and Disallow alone reads the file and as
    // this grouping's readers do: a `Robot-version: 2.0` `*` group's
    // `Allow: /` allows everything to the first, the home page alone to
    // Seznam.
    let probe = b"/robots-audit-probe";
    for reads in [Reads::RULES_ONLY, scope.robots.reads()] {
        let rules = scope
            .robots
            .read_as(reads)
            .rules_for(scope.unnamed.as_bytes());
        if !rules.forbids(probe) {
            return;
        }
    }
    for group in defaults() {
        for rule in group.rules.iter().filter(|r| !r.allow) {
            // Under `Robot-version: 2.0` a bare `/` matches the home page
            // alone (the whole path): it blocks nothing else.
            if (rule.pattern == b"/" && !rule.whole_path) || rule.pattern == b"/*" {
                findings.push(Finding::new(
                    rule.line,
                    "disallow-all",
                    Severity::Note,
                    format!(
                        "`{}` under `User-agent: *` blocks every crawler that has no group of \
                         its own; it does not remove pages from search results, which may \
                         still list their addresses.",
                        rule.text
                    ),
                ));
            }
        }
    }
}

/// A crawler that fetches the home page even when a `*` group forbids it
/// (Seznam documents this; SPEC §4): say how to keep it out.
fn home_page(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    // Each deciding rule once, with every crawler it concerns (names and
    // tokens, each once, in table order).
    // (line, text, forbids `/` alone), names, tokens.
    type Found = ((usize, String, bool), Vec<String>, Vec<String>);
    let mut found: Vec<Found> = Vec::new();
    for (reader, selection) in scope.readers.iter().filter(|(r, _)| r.homepage_exception) {
        let rules = &selection.rules;
        let verdict = rules.judge(b"/");
        let Some(rule) = verdict.rule.filter(|r| !r.allow) else {
            continue;
        };
        // Forbidden in one reading only of a line read two ways: `check`
        // calls `/` allowed, and so does the lint.
        if !rules.is_default_group(rule.group) || !rules.accuses(b"/") {
            continue;
        }
        // `Disallow: /$`, or `Disallow: /` in a Robot-version 2.0 group:
        // the home page and nothing else.
        let alone = rule.pattern == b"/$" || (rule.whole_path && rule.pattern == b"/");
        let at = match found.iter().position(|((line, ..), ..)| *line == rule.line) {
            Some(at) => at,
            None => {
                found.push((
                    (rule.line, rule.text.clone(), alone),
                    Vec::new(),
                    Vec::new(),
                ));
                found.len() - 1
            }
        };
        let (_, names, tokens) = &mut found[at];
        if !names.contains(&reader.name()) {
            names.push(reader.name());
        }
        if !tokens.contains(&reader.token) {
            tokens.push(reader.token.clone());
        }
    }
    for ((line, text, alone), names, tokens) in found {
        let (fetch, them, each) = match names.len() {
            1 => ("fetches", "it", ""),
            _ => ("fetch", "them", " each"),
        };
        let tokens: Vec<String> = tokens.iter().map(|t| format!("`{t}`")).collect();
        let names = names.join(" and ");
        let said = if alone {
            format!(
                "`{text}` under `User-agent: *` forbids the home page alone, and {names} still \
                 {fetch} `/`, as Seznam documents: the line forbids {names} nothing"
            )
        } else {
            format!(
                "`{text}` under `User-agent: *` forbids the home page too, but {names} still \
                 {fetch} `/`, as Seznam documents"
            )
        };
        findings.push(Finding::new(
            line,
            "seznam-homepage-exception",
            Severity::Warning,
            format!(
                "{said}; name {}{each} in a group of its own to keep {them} out.",
                tokens.join(" and "),
            ),
        ));
    }
}

/// Why a rule never decides, in one selection: the rule that always does
/// instead.
#[derive(Clone)]
struct Shadow {
    line: usize,
    text: String,
    duplicate: bool,
}

/// One reading of a selection's rules: the lines of its rules, and those
/// that never decide, with the rule that does.
type ReadingShadows = (HashSet<usize>, HashMap<usize, Shadow>);

/// Rules that never decide anything: in every selection that holds them, a
/// rule of higher precedence matches every path they match. Only certain
/// cases are claimed: an identical pattern with the same directive (a
/// duplicate), or an opposite rule that covers this one.
fn shadowed(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    // Each selection's rules as its crawlers read them: Robot-version's
    // whole-path matching is one crawler's, not another's. And in each
    // reading of the file (a user-agent line without its colon read as
    // Google's parser reads it, …): a rule the audit still needs in one
    // reading, where it is a group's own, is no duplicate (the audit
    // accuses only where every reading disallows).
    let per_selection: Vec<Vec<ReadingShadows>> = scope
        .selections
        .iter()
        .map(|s| {
            s.whole_rules
                .readings()
                .map(|reading| {
                    let globs: HashMap<usize, Glob> = reading
                        .rules()
                        .iter()
                        .map(|r| (r.line, Glob::new(&r.pattern, r.whole_path)))
                        .collect();
                    let lines = reading.rules().iter().map(|r| r.line).collect();
                    (lines, shadows(reading.rules(), &globs))
                })
                .collect()
        })
        .collect();
    for group in scope.robots.groups() {
        for rule in &group.rules {
            let users = scope.users(rule.line);
            let Some(&first) = users.first() else {
                continue;
            };
            let shadowed_in = |s: usize| {
                per_selection[s]
                    .iter()
                    .enumerate()
                    .all(|(reading, (lines, shadows))| {
                        // The first reading is the one `users` come from.
                        (reading > 0 && !lines.contains(&rule.line))
                            || shadows.contains_key(&rule.line)
                    })
            };
            if !users.iter().all(|&s| shadowed_in(s)) {
                continue;
            }
            let Some(shadow) = per_selection[first][0].1.get(&rule.line) else {
                continue;
            };
            findings.push(if shadow.duplicate {
                // Wikipedia writes each non-ASCII path twice, as text and
                // percent-encoded: say that they are one pattern.
                let how = if shadow.text == rule.text {
                    ""
                } else {
                    " (the same pattern once percent-encoded)"
                };
                Finding::new(
                    rule.line,
                    "duplicate-rule",
                    Severity::Note,
                    format!(
                        "`{}` repeats line {}{how} for the same crawlers, so it has no effect \
                         of its own.",
                        rule.text, shadow.line
                    ),
                )
            } else {
                Finding::new(
                    rule.line,
                    "shadowed-rule",
                    Severity::Warning,
                    format!(
                        "`{}` never decides anything: `{}` (line {}) matches every path it \
                         matches and takes precedence.",
                        rule.text, shadow.text, shadow.line
                    ),
                )
            });
        }
    }
}

/// How many coverage tests one rule gets before it is left alone: a bound
/// on the time a huge file takes, at the cost of missing a rare finding.
const COVER_TESTS: usize = 64;

/// Steps of coverage tests one selection's rules get in all (`Glob::
/// cover_steps`): two 100,000-octet wildcard rules took 13 s to test, a
/// 500 KiB file of such rules would take minutes. Past it no more rule is
/// called shadowed (a claim left out, never a wrong one).
const COVER_STEPS: usize = 1 << 27;

/// The shadowed rules of one selection, by line. `rules` come in
/// precedence order, so only a rule before another can shadow it.
fn shadows(rules: &[Rule], globs: &HashMap<usize, Glob>) -> HashMap<usize, Shadow> {
    // The first rule of each pattern and directive, for duplicates.
    let mut first: HashMap<(&[u8], bool, bool), usize> = HashMap::new();
    // Rules by directive and by the literal prefix before their first
    // wildcard: a rule can only cover one whose prefix starts with its own.
    let mut by_prefix: HashMap<(bool, &[u8]), Vec<usize>> = HashMap::new();
    for (index, rule) in rules.iter().enumerate() {
        first
            .entry((&rule.pattern, rule.allow, rule.whole_path))
            .or_insert(index);
        if let Some(glob) = globs.get(&rule.line) {
            by_prefix
                .entry((rule.allow, glob.prefix()))
                .or_default()
                .push(index);
        }
    }
    // The prefix lengths there are, by directive: a rule's prefix is
    // looked up at those lengths only, not at each of its own (a rule of
    // 400,000 literal octets made 400,000 lookups of up to as many).
    let mut lengths: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for &(allow, prefix) in by_prefix.keys() {
        lengths[usize::from(allow)].push(prefix.len());
    }
    for list in &mut lengths {
        list.sort_unstable();
        list.dedup();
    }
    let mut found = HashMap::new();
    let mut budget = COVER_STEPS;
    for (index, rule) in rules.iter().enumerate() {
        let Some(glob) = globs.get(&rule.line) else {
            continue;
        };
        let duplicate = first
            .get(&(&rule.pattern[..], rule.allow, rule.whole_path))
            .copied()
            .filter(|&other| other < index);
        let prefix = glob.prefix();
        let mut tests = 0;
        let opposite = lengths[usize::from(!rule.allow)]
            .iter()
            .take_while(|&&end| end <= prefix.len())
            .filter_map(|&end| by_prefix.get(&(!rule.allow, &prefix[..end])))
            .flat_map(|bucket| bucket.iter().copied().take_while(|&other| other < index))
            .take_while(|_| {
                tests += 1;
                tests <= COVER_TESTS
            })
            .filter(|&other| {
                globs.get(&rules[other].line).is_some_and(|g| {
                    let steps = g.cover_steps(glob);
                    steps <= budget && {
                        budget -= steps;
                        g.covers(glob)
                    }
                })
            })
            .min();
        let winner = match (duplicate, opposite) {
            (Some(d), Some(o)) => Some(d.min(o)),
            (d, o) => d.or(o),
        };
        if let Some(other) = winner {
            let candidate = &rules[other];
            found.insert(
                rule.line,
                Shadow {
                    line: candidate.line,
                    text: candidate.text.clone(),
                    duplicate: candidate.allow == rule.allow,
                },
            );
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::{found, lint_text};

    #[test]
    fn rule_findings() {
        // (robots.txt, finding, lines)
        let cases: &[(&str, &str, &[usize])] = &[
            (
                "User-agent: *\nDisallow: *.pdf\n",
                "pattern-without-slash",
                &[],
            ),
            (
                "User-agent: *\nDisallow: https://example.cz/private\n",
                "pattern-without-slash",
                &[2],
            ),
            (
                "User-agent: *\nDisallow: $\n",
                "pattern-without-slash",
                &[2],
            ),
            ("User-agent: *\nDisallow: /a%20b\n", "space-in-pattern", &[]),
            (
                "User-agent: SeznamBot\nRobot-version: 2.0\nDisallow: /a?b\nDisallow: /c[d]\n\
                 Disallow: /e\\f\nDisallow: /g*$\n",
                "robot-version-wildcard",
                &[3, 4, 5],
            ),
            (
                "User-agent: SeznamBot\nDisallow: /a?b\n",
                "robot-version-wildcard",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /%C3%A1\n",
                "non-ascii-pattern",
                &[],
            ),
            // Assets: by directory, by extension, never by a rule that
            // shuts the whole site, and not when an Allow wins.
            (
                "User-agent: *\nDisallow: /wp-includes/\n",
                "blocks-assets",
                &[2],
            ),
            (
                "User-agent: *\nDisallow: /wp-content/\n",
                "blocks-assets",
                &[2],
            ),
            ("User-agent: *\nDisallow: /*.css$\n", "blocks-assets", &[2]),
            ("User-agent: *\nDisallow: /assets\n", "blocks-assets", &[2]),
            ("User-agent: *\nDisallow: /\n", "blocks-assets", &[]),
            // A CMS's paths only on a site that shows it runs the CMS.
            (
                "User-agent: *\nDisallow: /*/plugins/*\n",
                "blocks-assets",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /wp-admin/\nDisallow: /*/plugins/*\n",
                "blocks-assets",
                &[3],
            ),
            ("User-agent: *\nDisallow: /media\n", "blocks-assets", &[]),
            ("User-agent: *\nDisallow: /\n", "disallow-all", &[2]),
            ("User-agent: *\nDisallow: /*\n", "disallow-all", &[2]),
            ("User-agent: *\nDisallow: /a\n", "disallow-all", &[]),
            ("User-agent: SeznamBot\nDisallow: /\n", "disallow-all", &[]),
            ("User-agent: *\nDisallow: /*\n", "blocks-assets", &[]),
            (
                "User-agent: *\nDisallow: /static/\nAllow: /static/*.css$\nAllow: /static/*.js$\n",
                "blocks-assets",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /admin/\nDisallow: /*?s=\nDisallow: /search\n",
                "blocks-assets",
                &[],
            ),
            (
                "User-agent: Googlebot\nDisallow: /js/\n",
                "blocks-assets",
                &[2],
            ),
            // The home page: only from a `*` group Seznam reads.
            (
                "User-agent: *\nDisallow: /*\n",
                "seznam-homepage-exception",
                &[2],
            ),
            (
                "User-agent: SeznamBot\nDisallow: /\n",
                "seznam-homepage-exception",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /\nUser-agent: SeznamBot\nDisallow: /x\n",
                "seznam-homepage-exception",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /\nAllow: /$\n",
                "seznam-homepage-exception",
                &[],
            ),
            // Shadowing: opposite and covering, or identical.
            (
                "User-agent: *\nAllow: /a\nDisallow: /a\n",
                "shadowed-rule",
                &[3],
            ),
            (
                "User-agent: *\nAllow: /a\nDisallow: /a/b\n",
                "shadowed-rule",
                &[],
            ),
            (
                "User-agent: *\nAllow: /a*\nDisallow: /a\n",
                "shadowed-rule",
                &[3],
            ),
            (
                "User-agent: *\nAllow: /a$\nDisallow: /a\n",
                "shadowed-rule",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /a\nAllow: /ab\n",
                "shadowed-rule",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /ab*\nAllow: /ab\n",
                "shadowed-rule",
                &[3],
            ),
            (
                "User-agent: *\nDisallow: /*.php\nAllow: /x.php\n",
                "shadowed-rule",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /*.php\nAllow: /x/*.php\n",
                "shadowed-rule",
                &[],
            ),
            (
                "User-agent: *\nDisallow: /private/*x.php\nAllow: /private/x.php\n",
                "shadowed-rule",
                &[3],
            ),
            (
                "User-agent: *\nDisallow: /a\nDisallow: /a\n",
                "duplicate-rule",
                &[3],
            ),
            (
                "User-agent: *\nDisallow: /%7Ea\nDisallow: /~a\n",
                "duplicate-rule",
                &[3],
            ),
            (
                "User-agent: *\nDisallow: /a\nDisallow: /a*\n",
                "duplicate-rule",
                &[],
            ),
            // Across merged groups of one crawler.
            (
                "User-agent: SeznamBot\nAllow: /cz/\n\nUser-agent: SeznamBot\nDisallow: /cz/\n",
                "shadowed-rule",
                &[5],
            ),
            // Not when another crawler reads the rule without the winner.
            (
                "User-agent: a\nAllow: /cz/\n\nUser-agent: a\nUser-agent: b\nDisallow: /cz/\n",
                "shadowed-rule",
                &[],
            ),
            (
                "User-agent: a\nAllow: /cz/\n\nUser-agent: b\nDisallow: /cz/\n",
                "shadowed-rule",
                &[],
            ),
            // Robot-version 2.0 anchors: `/a` then matches only `/a`, for
            // a crawler that reads Robot-version (Seznam's); a token no
            // crawler of the table has reads Allow and Disallow alone.
            (
                "User-agent: SeznamBot\nRobot-version: 2.0\nAllow: /a$\nDisallow: /a\n",
                "shadowed-rule",
                &[4],
            ),
            (
                "User-agent: a\nRobot-version: 2.0\nAllow: /a$\nDisallow: /a\n",
                "shadowed-rule",
                &[],
            ),
        ];
        for &(text, name, lines) in cases {
            assert_eq!(found(text, name), lines, "{text:?} {name}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8() {
        let findings = lint_text(b"User-agent: *\nDisallow: /\xe8l\xe1nky\n");
        let found: Vec<_> = findings
            .iter()
            .filter(|f| f.name == "non-ascii-pattern")
            .collect();
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("`/%E8l%E1nky`"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn empty_rules() {
        let cases: &[(&str, &str, &[usize])] = &[
            // Allow-all groups, as Wikipedia writes them.
            ("User-agent: *\nDisallow:\n", "empty-disallow", &[]),
            (
                "User-agent: IsraBot\nDisallow:\n\nUser-agent: *\nDisallow: /w/\n",
                "empty-disallow",
                &[],
            ),
            (
                "User-agent: *\nDisallow:\nAllow: /\n",
                "empty-disallow",
                &[],
            ),
            (
                "User-agent: *\nDisallow:\nDisallow: /x\n",
                "empty-disallow",
                &[2],
            ),
            ("User-agent: *\nDisallow: /x\n", "empty-disallow", &[]),
            ("User-agent: *\nAllow:\n", "empty-allow", &[2]),
        ];
        for &(text, name, lines) in cases {
            assert_eq!(found(text, name), lines, "{text:?} {name}");
        }
    }
}
