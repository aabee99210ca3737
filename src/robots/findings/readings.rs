//! Lint check on the two readings of a run of User-agent lines: takes the
//! parsed records, gives a warning wherever an extension record between
//! User-agent lines makes one group for crawlers that do not read it and
//! two for crawlers that do (SPEC §3; RFC 9309 §2.2.4), and wherever a
//! record no crawler reads joins a Seznam crawler's lines to others'.
//!
//! It reads the records, not the groups: the grouping follows one
//! crawler's reading, and the point here is where the readings part.

use std::collections::BTreeSet;

use super::super::agent;
use super::super::parse::{Directive, Record};
use super::{Finding, Scope, Severity};

/// User-agent lines up to an extension record (or the rule that ends the
/// run): a piece of one run as a crawler that ignores extensions reads it.
struct Piece<'a> {
    agents: Vec<&'a Record>,
    /// The extension record that ends the piece, for crawlers that read it.
    split: Option<&'a Record>,
}

/// Records that end a run for the crawlers that read them, and only for
/// those: Seznam's extensions, and Crawl-delay, which Bing and Yandex read;
/// and any other record a crawler of the table reads (a profile's
/// `reads: Visit-time`).
fn is_extension(directive: Directive) -> bool {
    matches!(
        directive,
        Directive::RequestRate | Directive::RobotVersion | Directive::CrawlDelay
    )
}

pub(super) fn check(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    let mut run: Vec<Piece<'_>> = Vec::new();
    for record in &scope.robots.file().records {
        match record.directive {
            Directive::UserAgent => match run.last_mut() {
                Some(piece) if piece.split.is_none() => piece.agents.push(record),
                _ => run.push(Piece {
                    agents: vec![record],
                    split: None,
                }),
            },
            Directive::Allow | Directive::Disallow => {
                judge(scope, &run, true, findings);
                run.clear();
            }
            directive
                if is_extension(directive)
                    || scope.readers.iter().any(|(r, _)| r.reads.reads(directive)) =>
            {
                if let Some(piece) = run.last_mut().filter(|p| p.split.is_none()) {
                    piece.split = Some(record);
                }
            }
            _ => {}
        }
    }
    judge(scope, &run, false, findings);
    merged(scope, findings);
}

/// User-agent lines of a Seznam crawler, then a record that is no rule and
/// that no crawler of the table reads (`Sitemap`, `Host`, `Visit-time`,
/// an unknown line), then User-agent lines of other crawlers and their
/// rules: for every reader one group (RFC 9309 §2.2.4: such a record ends
/// neither the run nor the group), so the first crawlers obey the later
/// rules, which a file written so seldom means (`User-agent: SeznamBot` /
/// `Host: example.cz` / `User-agent: Bingbot` / `Disallow: /` shuts
/// SeznamBot out of the site).
fn merged(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    let seznam: BTreeSet<Vec<u8>> = scope
        .readers
        .iter()
        .map(|(r, _)| agent::robot_of(&r.token).into_bytes())
        .collect();
    // The run's User-agent lines so far, and where it went on after a
    // record between them: (that record, the run's first line, the line
    // it went on at, the tokens before it).
    let mut agents: Vec<&Record> = Vec::new();
    let mut gap: Option<&Record> = None;
    let mut joins: Vec<(&Record, usize, usize, BTreeSet<Vec<u8>>)> = Vec::new();
    for record in &scope.robots.file().records {
        match record.directive {
            Directive::UserAgent => {
                if let (Some(between), Some(first)) = (gap.take(), agents.first()) {
                    let before: BTreeSet<Vec<u8>> = agents.iter().map(|r| token(r)).collect();
                    joins.push((between, first.line, record.line, before));
                }
                agents.push(record);
            }
            Directive::Allow | Directive::Disallow => {
                for (between, first, next, before) in joins.drain(..) {
                    let after: BTreeSet<Vec<u8>> = agents
                        .iter()
                        .filter(|r| r.line >= next)
                        .map(|r| token(r))
                        .collect();
                    if before.is_disjoint(&seznam) || after.is_subset(&before) {
                        continue;
                    }
                    findings.push(Finding::new(
                        next,
                        "merged-group",
                        Severity::Warning,
                        format!(
                            "`{}` (line {}) is no rule and ends no group (RFC 9309 §2.2.4), so \
                             the User-agent lines of line {first} and line {next} make one \
                             group: line {first}'s crawlers obey the rules after line {next} \
                             too. End line {first}'s group with a rule (an empty `Disallow:` \
                             forbids nothing) if they are not meant for them.",
                            between.text, between.line
                        ),
                    ));
                }
                agents.clear();
                gap = None;
            }
            directive
                if is_extension(directive)
                    || scope.readers.iter().any(|(r, _)| r.reads.reads(directive)) =>
            {
                // `ambiguous-group`'s; the run is read two ways there.
                agents.clear();
                joins.clear();
                gap = None;
            }
            _ => {
                if !agents.is_empty() && gap.is_none() {
                    gap = Some(record);
                }
            }
        }
    }
}

/// The crawlers that read an extension record: those of the table whose
/// profile says so, and for Crawl-delay the big ones outside it.
fn readers(scope: &Scope<'_>, directive: Directive) -> String {
    let mut names = scope.names_reading(directive);
    if directive == Directive::CrawlDelay {
        names.extend(["Bing".to_string(), "Yandex".to_string()]);
    }
    if names.is_empty() {
        "none the tool knows".to_string()
    } else {
        names.join(", ")
    }
}

/// The tokens a piece names, lower case, `*` for the default group.
fn tokens(pieces: &[Piece<'_>]) -> BTreeSet<Vec<u8>> {
    pieces
        .iter()
        .flat_map(|p| &p.agents)
        .map(|r| token(r))
        .collect()
}

/// The token a User-agent record names, lower case, `*` for the default
/// group.
fn token(record: &Record) -> Vec<u8> {
    if agent::is_wildcard(&record.value) {
        b"*".to_vec()
    } else {
        agent::product_token(&record.value).to_ascii_lowercase()
    }
}

/// One finding at each split after which the run goes on with User-agent
/// lines naming other crawlers than before it: there one reading gives the
/// first crawlers the later rules and the other does not.
/// `ruled`: the run ends with an Allow or Disallow line, not at the end
/// of the file.
fn judge(scope: &Scope<'_>, run: &[Piece<'_>], ruled: bool, findings: &mut Vec<Finding>) {
    for at in 1..run.len() {
        let (before, after) = run.split_at(at);
        let (Some(split), Some(next)) = (
            before.last().and_then(|p| p.split),
            after.first().and_then(|p| p.agents.first()),
        ) else {
            continue;
        };
        if tokens(before) == tokens(after) {
            continue;
        }
        // No rule after it, and the later lines hold only records of the
        // same kind (`msnbot` / `Crawl-delay: 20` / `BingBot` /
        // `Crawl-delay: 20` at the end of the file): a crawler that reads
        // that record gives each group its own, one that ignores it reads
        // nothing there; no reading gives anyone more.
        if !ruled
            && after
                .iter()
                .all(|p| p.split.is_none_or(|s| s.directive == split.directive))
        {
            continue;
        }
        // The User-agent lines the split cuts off: those of its own piece.
        let first = before
            .last()
            .and_then(|p| p.agents.first())
            .map_or(split.line, |r| r.line);
        let readers = readers(scope, split.directive);
        findings.push(Finding::new(
            next.line,
            "ambiguous-group",
            Severity::Warning,
            format!(
                "`{}` (line {}) ends the group of line {first} only for crawlers that read it \
                 ({readers}): crawlers that ignore it, as Google's parser does, give line \
                 {first}'s crawlers the rules of the group at line {} as well; end line \
                 {first}'s group with a rule (an empty `Disallow:` forbids nothing) to make \
                 it the same for all.",
                split.text, split.line, next.line
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::found;

    #[test]
    fn where_a_record_that_ends_nothing_joins_seznams_lines_to_others() {
        // (robots.txt, lines of the finding)
        let cases: &[(&str, &[usize])] = &[
            (
                "User-agent: SeznamBot\nHost: x.cz\n\nUser-agent: Bingbot\nDisallow: /\n",
                &[4],
            ),
            (
                "User-agent: SeznamBot\nVisit-time: 0100-0500\nUser-agent: *\nDisallow: /\n",
                &[3],
            ),
            (
                "User-agent: SeznamBot\nSitemap: https://x.cz/s.xml\nUser-agent: Googlebot\nDisallow: /a\n",
                &[3],
            ),
            // The same crawler again; no Seznam crawler before; no rule
            // after; a rule ending the first group; an extension
            // (`ambiguous-group`'s).
            (
                "User-agent: SeznamBot\nHost: x.cz\nUser-agent: seznambot\nDisallow: /x\n",
                &[],
            ),
            (
                "User-agent: Googlebot\nHost: x.cz\nUser-agent: *\nDisallow: /\n",
                &[],
            ),
            ("User-agent: SeznamBot\nHost: x.cz\nUser-agent: *\n", &[]),
            (
                "User-agent: SeznamBot\nDisallow:\nHost: x.cz\nUser-agent: *\nDisallow: /\n",
                &[],
            ),
            (
                "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /\n",
                &[],
            ),
        ];
        for &(text, lines) in cases {
            assert_eq!(found(text, "merged-group"), lines, "{text:?}");
        }
    }

    #[test]
    fn where_the_readings_differ() {
        // (robots.txt, lines of the finding)
        let cases: &[(&str, &[usize])] = &[
            // SPEC §3's own example.
            (
                "User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n",
                &[3],
            ),
            (
                "User-agent: Bingbot\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /x\n",
                &[4],
            ),
            (
                "User-agent: SeznamBot\nRobot-version: 2.0\nUser-agent: Googlebot\nAllow: /a$\n",
                &[3],
            ),
            // No rule after, the same record in every piece: alike.
            (
                "User-agent: msnbot\nCrawl-delay: 20\n\nUser-agent: BingBot\nCrawl-delay: 20\n",
                &[],
            ),
            // No rule after, but another record there: Seznam gives
            // SeznamBot the rate, Bing does not.
            (
                "User-agent: SeznamBot\nCrawl-delay: 5\nUser-agent: Bingbot\nRequest-rate: 1/10s\n",
                &[3],
            ),
            // Sitemap, Visit-time and unknown lines split nothing.
            (
                "User-agent: a\nSitemap: https://x.cz/s.xml\nUser-agent: b\nDisallow: /x\n",
                &[],
            ),
            (
                "User-agent: a\nVisit-time: 0100-0200\nUser-agent: b\nDisallow: /x\n",
                &[],
            ),
            // A rule ends the run for everyone.
            (
                "User-agent: a\nRequest-rate: 1/10s\nDisallow:\nUser-agent: b\nDisallow: /x\n",
                &[],
            ),
            // The extension below the User-agent lines: one group either way.
            (
                "User-agent: a\nUser-agent: b\nRequest-rate: 1/10s\nDisallow: /x\n",
                &[],
            ),
            // The same crawlers on both sides: the same rules either way.
            (
                "User-agent: *\nCrawl-delay: 30\nRequest-rate: 1/1s\n\nUser-agent: *\nDisallow: /x\n",
                &[],
            ),
            // Two splits in one run.
            (
                "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nRequest-rate: 1/5s\nUser-agent: c\nDisallow: /\n",
                &[3, 5],
            ),
            // A run at the end of the file, without rules after it, whose
            // later lines hold another record: Seznam gives `b` the rate.
            (
                "User-agent: a\nDisallow: /x\nUser-agent: b\nCrawl-delay: 3\nUser-agent: c\nRequest-rate: 1/5s\n",
                &[5],
            ),
            // Nothing there: no reading gives `b` or `c` anything.
            (
                "User-agent: a\nDisallow: /x\nUser-agent: b\nCrawl-delay: 3\nUser-agent: c\n",
                &[],
            ),
        ];
        for &(text, lines) in cases {
            assert_eq!(found(text, "ambiguous-group"), lines, "{text:?}");
        }
    }
}
