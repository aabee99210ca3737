//! `robots-audit lint FILE`: takes a robots.txt, shows it as a crawler reads
//! it — groups with their agents and lines, Request-rates written and
//! effective, sitemaps, unknown directives, each with its line — then the
//! findings of [`crate::robots::findings`], as text for a person or JSON for a
//! script (`json`) (SPEC §3; the lint issue). The crawlers it judges for are the
//! crawler table's, `--profiles` included.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::config::{LintConfig, OutputFormat};
use crate::crawler::profile::{self, Profile};
use crate::crawler::profile_file;
use crate::error::Result;
use crate::robots::findings::{self, Finding, Reader, Selection, Severity};

mod json;
use crate::robots::parse::{Directive, Record};
use crate::robots::{Group, RequestRate, Robots};
use crate::text::escape_non_utf8;
pub use json::json;

/// Runs `lint`; true when the file is clean (notes alone leave it clean).
pub fn run(config: &LintConfig) -> Result<bool> {
    let mut table = profile::builtin();
    if let Some(path) = &config.profiles {
        profile_file::load_profiles(path, &mut table)?;
    }
    let readers = readers(&table);
    let robots = Robots::read(&config.file)?;
    let findings = findings::lint(&robots, &readers);
    let path = config.file.display().to_string();
    let output = match config.format {
        OutputFormat::Json => json(&path, &robots, &readers, &findings),
        OutputFormat::Text | OutputFormat::Csv => text(&path, &robots, &readers, &findings),
    };
    // robots.txt is a stranger's text: no terminal escape reaches the screen.
    let output = match config.format {
        OutputFormat::Json => Cow::Borrowed(output.as_str()),
        _ => crate::text::terminal_safe(&output),
    };
    crate::write_stdout(output.as_bytes())?;
    Ok(findings::is_clean(&findings))
}

/// The crawlers of the table as the lint judges for them: one reader per
/// robots.txt token and way of reading it (the records read, the rate
/// floor, the home-page exception), in table order, with the crawlers
/// that obey it so: a profile that shares SeznamBot's token but reads
/// `Crawl-delay` is judged by its own reading, not by SeznamBot's.
pub fn readers(table: &[Profile]) -> Vec<Reader> {
    let mut readers: Vec<Reader> = Vec::new();
    for profile in table {
        let floor = profile
            .rate_floor
            .map(|f| (f.fetches, u64::from(f.seconds)));
        if let Some(reader) = readers.iter_mut().find(|r| {
            r.token.eq_ignore_ascii_case(&profile.token)
                && r.reads == profile.reads
                && r.floor == floor
                && r.homepage_exception == profile.homepage_exception
        }) {
            reader.crawlers.push(profile.name.clone());
            continue;
        }
        readers.push(Reader {
            token: profile.token.clone(),
            crawlers: vec![profile.name.clone()],
            floor,
            reads: profile.reads,
            homepage_exception: profile.homepage_exception,
        });
    }
    readers
}

/// The crawlers of the table, each with the groups it obeys as it groups
/// the file, and where those groups stand in the listing when the listing
/// groups them as it does (SPEC §3).
struct Selections<'a> {
    /// The groups shown: the file as the first crawler of the table reads it.
    listing: Robots,
    readers: Vec<Placed<'a>>,
}

/// One crawler's selection, and its groups' indices in the listing (`None`
/// when it groups the file otherwise).
struct Placed<'a> {
    reader: &'a Reader,
    selection: Selection,
    placed: Option<Vec<usize>>,
}

impl Placed<'_> {
    /// `group (line 1) + group (line 9)`: the groups it obeys, each by the
    /// line of its first user-agent line as the crawler groups the file.
    fn groups(&self) -> Vec<usize> {
        let robots = &self.selection.robots;
        self.selection
            .rules
            .groups()
            .iter()
            .map(|&g| robots.groups()[g].line)
            .collect()
    }
}

fn selections<'a>(robots: &Robots, readers: &'a [Reader]) -> Selections<'a> {
    let listing = findings::listing(robots, readers);
    let readers = findings::selections(robots, readers)
        .into_iter()
        .map(|(reader, selection)| Placed {
            reader,
            placed: selection.placed_in(&listing),
            selection,
        })
        .collect();
    Selections { listing, readers }
}

/// The readers that obey group `index` of the listing.
fn readers_of<'a>(selections: &Selections<'a>, index: usize) -> Vec<&'a Reader> {
    selections
        .readers
        .iter()
        .filter(|p| p.placed.as_ref().is_some_and(|g| g.contains(&index)))
        .map(|p| p.reader)
        .collect()
}

/// One line of a group as a crawler reads it, and what it does.
struct Shown {
    line: usize,
    what: String,
    /// Why the line does less than it seems to, or what it really does.
    remark: Option<String>,
}

/// The lines of group `index` of `robots` after its user-agent lines, in
/// file order, as `readers` (the crawlers that obey it) read them.
fn members(robots: &Robots, index: usize, readers: &[&Reader]) -> Vec<Shown> {
    let group = &robots.groups()[index];
    let records = &robots.file().records;
    group
        .members
        .iter()
        .filter_map(|&member| records.get(member))
        .map(|record| {
            let late = robots.late_versions().contains(&record.line);
            let (what, remark) = member(group, record, readers, late);
            Shown {
                line: record.line,
                what,
                remark,
            }
        })
        .collect()
}

/// How `record` of `group` is listed; `late`: a `Robot-version: 2.0`
/// after records the crawler does not read, read both ways.
fn member(
    group: &Group,
    record: &Record,
    readers: &[&Reader],
    late: bool,
) -> (String, Option<String>) {
    let line = record.line;
    match record.directive {
        Directive::Allow | Directive::Disallow => {
            match group.rules.iter().find(|r| r.line == line) {
                // Cut by the size limit: judged as every way it may go on.
                Some(rule) if let Some(prefix) = rule.cut_prefix() => (
                    format!("{}: {}…", record.directive.name(), escape_non_utf8(prefix)),
                    Some("cut by the 500 KiB limit: allows whatever it may go on to".into()),
                ),
                Some(rule) => (
                    format!(
                        "{}: {}",
                        record.directive.name(),
                        escape_non_utf8(&rule.pattern)
                    ),
                    None,
                ),
                // An empty Disallow forbids nothing; with nothing else in
                // the group it is the classic allow-all, so no "no effect".
                None if record.directive == Directive::Disallow => (
                    "Disallow:".to_string(),
                    Some("empty: forbids nothing".into()),
                ),
                None => (
                    format!("{}:", record.directive.name()),
                    Some("empty: no effect".into()),
                ),
            }
        }
        Directive::RequestRate => match group.request_rates.iter().find(|r| r.line == line) {
            Some(rate) => (rate_shown(rate), rate_remark(rate, readers)),
            None => (record.text.clone(), None),
        },
        Directive::CrawlDelay => match group.crawl_delays.iter().find(|d| d.line == line) {
            Some(delay) => match delay.shown() {
                Some(shown) => (
                    format!("Crawl-delay: {shown}"),
                    readers
                        .iter()
                        .find(|r| r.reads_rate_for_delay())
                        .map(|r| format!("{} reads Request-rate instead", r.name())),
                ),
                None => (record.text.clone(), Some("unreadable: ignored".into())),
            },
            None => (record.text.clone(), None),
        },
        Directive::RobotVersion => {
            if group.robot_version.as_ref().is_some_and(|v| v.line == line) {
                (
                    record.text.clone(),
                    Some("patterns must match the whole path and query".into()),
                )
            } else if late {
                (
                    record.text.clone(),
                    Some("after records the crawler does not read: read both ways".into()),
                )
            } else {
                (record.text.clone(), Some("no effect".into()))
            }
        }
        Directive::VisitTime if readers.iter().any(|r| r.reads.reads(Directive::VisitTime)) => {
            (record.text.clone(), None)
        }
        Directive::VisitTime => (
            record.text.clone(),
            Some("no crawler of this group reads it".into()),
        ),
        _ => (record.text.clone(), None),
    }
}

/// `Request-rate: 1/60s 0100-0600`, or the value as written when it does
/// not read.
fn rate_shown(line: &RequestRate) -> String {
    match line.rate.and_then(|r| r.window) {
        Some(window) => format!("Request-rate: {} {window}", line.written),
        None => format!("Request-rate: {}", line.written),
    }
}

fn rate_remark(line: &RequestRate, readers: &[&Reader]) -> Option<String> {
    let Some(rate) = line.rate else {
        return Some("unreadable: ignored".into());
    };
    let remarks: Vec<String> = readers
        .iter()
        .filter(|r| r.reads.reads(Directive::RequestRate))
        .filter_map(|r| {
            let (fetches, seconds) = r.floor?;
            let floored = rate.floored(fetches, seconds)?;
            Some(format!(
                "effective {} for {}",
                floored.canonical(),
                r.name()
            ))
        })
        .collect();
    (!remarks.is_empty()).then(|| remarks.join("; "))
}

/// The rate a crawler keeps to: the first reader's floor where it applies,
/// else the rate as written, in canonical form.
fn effective(line: &RequestRate, readers: &[&Reader]) -> Option<String> {
    let rate = line.rate?;
    let floored = readers
        .iter()
        .filter(|r| r.reads.reads(Directive::RequestRate))
        .find_map(|r| r.floor.and_then(|(f, s)| rate.floored(f, s)));
    Some(floored.unwrap_or(rate).canonical())
}

fn agents(group: &Group) -> String {
    let agents: Vec<String> = group
        .agents
        .iter()
        .map(|a| format!("User-agent {}", a.value))
        .collect();
    agents.join(", ")
}

/// Records of one directive anywhere in the file.
fn records_of(robots: &Robots, directive: Directive) -> impl Iterator<Item = &Record> {
    robots
        .file()
        .records
        .iter()
        .filter(move |r| r.directive == directive)
}

/// Text for a terminal: control characters (a binary file's, or an
/// attacker's escape sequences) written as `\xNN`, tabs kept.
fn printable(text: &str) -> Cow<'_, str> {
    if !text.contains(|c: char| c.is_control() && c != '\t') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            let _ = write!(out, "\\x{:02X}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        format!("1 {word}")
    } else {
        format!("{count} {word}s")
    }
}

/// The report for a person.
pub fn text(path: &str, robots: &Robots, readers: &[Reader], findings: &[Finding]) -> String {
    let file = robots.file();
    let selections = selections(robots, readers);
    let mut out = String::new();
    // A pipe or a device past the limit is read one byte past it: its
    // size is not known (the `file-too-large` finding says the same).
    let size = if file.truncated && file.size <= crate::robots::parse::SIZE_LIMIT + 1 {
        format!("more than {} bytes", crate::robots::parse::SIZE_LIMIT)
    } else {
        plural(file.size, "byte")
    };
    let _ = writeln!(out, "file: {path} ({}, {size})", plural(file.lines, "line"),);
    for placed in &selections.readers {
        let used: Vec<String> = placed
            .groups()
            .iter()
            .map(|line| format!("group (line {line})"))
            .collect();
        if used.is_empty() {
            let _ = writeln!(
                out,
                "{} reads no group: everything is allowed",
                placed.reader.label()
            );
        } else if placed.placed.is_some() {
            let _ = writeln!(out, "{} reads: {}", placed.reader.label(), used.join(" + "));
        } else {
            let _ = writeln!(
                out,
                "{} reads: {}, as it groups the file (below)",
                placed.reader.label(),
                used.join(" + ")
            );
        }
    }

    let listing = &selections.listing;
    for index in 0..listing.groups().len() {
        group_text(&mut out, listing, index, &readers_of(&selections, index));
    }
    // A crawler that groups the file otherwise: the groups it obeys, as it
    // reads them, so that what it obeys is what `check` says.
    for placed in selections.readers.iter().filter(|p| p.placed.is_none()) {
        let groups = placed.selection.rules.groups();
        if groups.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\nas {} groups the file, the groups it obeys:",
            placed.reader.label()
        );
        for &index in groups {
            group_text(&mut out, &placed.selection.robots, index, &[placed.reader]);
        }
    }

    let orphans: Vec<&Record> = robots
        .orphans()
        .iter()
        .filter_map(|&i| file.records.get(i))
        .collect();
    section(
        &mut out,
        "outside any group (no crawler obeys these)",
        orphans.iter().map(|r| (r.line, r.text.as_str())),
    );
    section(
        &mut out,
        "sitemaps",
        records_of(robots, Directive::Sitemap).map(|r| (r.line, escape_non_utf8(&r.value))),
    );
    section(
        &mut out,
        "unknown directives (crawlers ignore these)",
        records_of(robots, Directive::Unknown).map(|r| (r.line, r.text.as_str())),
    );
    section(
        &mut out,
        "lines without a colon (crawlers ignore these)",
        file.strays.iter().map(|s| (s.line, s.text.as_str())),
    );

    if findings.is_empty() {
        out.push_str("\nno findings\n");
        return out;
    }
    out.push_str("\nfindings:\n");
    for finding in findings {
        match finding.line {
            Some(line) => {
                let _ = writeln!(
                    out,
                    "line {line}: {}: {}: {}",
                    finding.severity.name(),
                    finding.name,
                    printable(&finding.message)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "file: {}: {}: {}",
                    finding.severity.name(),
                    finding.name,
                    printable(&finding.message)
                );
            }
        }
    }
    let count = |severity: Severity| findings.iter().filter(|f| f.severity == severity).count();
    let _ = writeln!(
        out,
        "\n{}: {}, {}, {}",
        plural(findings.len(), "finding"),
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Note), "note"),
    );
    out
}

/// One group of `robots` and its lines, as `readers` read them.
fn group_text(out: &mut String, robots: &Robots, index: usize, readers: &[&Reader]) {
    let group = &robots.groups()[index];
    let _ = writeln!(
        out,
        "\ngroup (line {}): {}",
        group.line,
        printable(&agents(group))
    );
    for shown in members(robots, index, readers) {
        let _ = write!(out, "  {} (line {})", printable(&shown.what), shown.line);
        if let Some(remark) = shown.remark {
            let _ = write!(out, " \u{2014} {remark}");
        }
        out.push('\n');
    }
}

/// A titled list of lines, left out when empty.
fn section<T: AsRef<str>>(out: &mut String, title: &str, lines: impl Iterator<Item = (usize, T)>) {
    let mut lines = lines.peekable();
    if lines.peek().is_none() {
        return;
    }
    let _ = writeln!(out, "\n{title}:");
    for (line, text) in lines {
        let _ = writeln!(out, "  {} (line {line})", printable(text.as_ref()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_for_a_terminal() {
        assert_eq!(printable("a\tb"), "a\tb");
        assert_eq!(printable("\u{1b}[31mred\0"), "\\x1B[31mred\\x00");
    }

    #[test]
    fn seconds_drop_trailing_zeros() {
        let cases = [
            (0, "0"),
            (10_000, "10"),
            (2_500, "2.5"),
            (125, "0.125"),
            (1_010, "1.01"),
        ];
        for (millis, expected) in cases {
            assert_eq!(crate::robots::limits::seconds_text(millis), expected);
        }
    }

    #[test]
    fn text_shows_the_file_as_read() {
        let robots = Robots::new(
            b"User-agent: SeznamBot\nRequest-rate: 1/60s\nDisallow: /%7ecz\nDisallow:\n\n\
              User-agent: *\nCrawl-delay: 2.5\nSitemap: https://example.cz/s.xml\nHost: example.cz\n",
        );
        let readers = readers(&profile::builtin());
        let findings = findings::lint(&robots, &readers);
        let out = text("robots.txt", &robots, &readers, &findings);
        for expected in [
            "file: robots.txt (9 lines, ",
            "SeznamBot (and FreshBot, SeznamBot-test) reads: group (line 1)\n",
            "\ngroup (line 1): User-agent SeznamBot\n",
            "  Request-rate: 1/60s (line 2) \u{2014} effective 1/30s for SeznamBot\n",
            "  Disallow: /~cz (line 3)\n",
            "  Disallow: (line 4) \u{2014} empty: forbids nothing\n",
            "\ngroup (line 6): User-agent *\n",
            // Seznam reads the SeznamBot group, so no Seznam remark here.
            "  Crawl-delay: 2.5 (line 7)\n",
            "\nsitemaps:\n  https://example.cz/s.xml (line 8)\n",
            "  Host: example.cz (line 9)\n",
            "\nfindings:\nline 2: warning: slow-request-rate: ",
            "finding",
        ] {
            assert!(out.contains(expected), "{expected:?} not in\n{out}");
        }
    }

    #[test]
    fn each_crawler_obeys_the_groups_it_reads() {
        // Seznam reads neither Visit-time nor Crawl-delay: one group.
        let readers = readers(&profile::builtin());
        for unread in ["Visit-time: 0100-0500", "Crawl-delay: 5"] {
            let text = format!("User-agent: SeznamBot\n{unread}\nUser-agent: *\nDisallow: /\n");
            let robots = Robots::new(text.as_bytes());
            let findings = findings::lint(&robots, &readers);
            let out = text_report(&robots, &readers, &findings);
            let expected = format!(
                "SeznamBot (and FreshBot, SeznamBot-test) reads: group (line 1)\n\n\
                 group (line 1): User-agent SeznamBot, User-agent *\n  {unread} (line 2)"
            );
            assert!(out.contains(&expected), "{expected:?} not in\n{out}");
            assert!(out.contains("  Disallow: / (line 4)\n"), "{out}");
            assert!(!out.contains("group (line 3)"), "{out}");
            let json = json::json("r", &robots, &readers, &findings);
            assert!(!json.contains("\"read_by\":[]"), "{json}");
        }
    }

    #[test]
    fn a_crawler_that_groups_the_file_otherwise_gets_its_own_listing() {
        let mut table = profile::builtin();
        let mut google = table[0].clone();
        google.name = "Googlebot".into();
        google.token = "Googlebot".into();
        google.reads = crate::robots::group::Reads::RULES_ONLY;
        google.homepage_exception = false;
        google.rate_floor = None;
        table.push(google);
        let readers = readers(&table);
        let robots = Robots::new(
            b"User-agent: SeznamBot\nRequest-rate: 1/10s\nUser-agent: *\nDisallow: /admin\n",
        );
        let findings = findings::lint(&robots, &readers);
        let out = text_report(&robots, &readers, &findings);
        for expected in [
            "SeznamBot (and FreshBot, SeznamBot-test) reads: group (line 1)\n\
             Googlebot reads: group (line 1), as it groups the file (below)\n",
            "\ngroup (line 1): User-agent SeznamBot\n  Request-rate: 1/10s (line 2)\n\n\
             group (line 3): User-agent *\n  Disallow: /admin (line 4)\n",
            "\nas Googlebot groups the file, the groups it obeys:\n\n\
             group (line 1): User-agent SeznamBot, User-agent *\n  \
             Request-rate: 1/10s (line 2)\n  Disallow: /admin (line 4)\n",
            "line 3: warning: ambiguous-group: ",
        ] {
            assert!(out.contains(expected), "{expected:?} not in\n{out}");
        }
        let json = json::json("r", &robots, &readers, &findings);
        assert!(
            json.contains(
                "\"token\":\"Googlebot\",\"crawlers\":[\"Googlebot\"],\"groups\":[1],\
                           \"groups_as_read\":[{\"line\":1,\"agents\":[{\"line\":1,"
            ),
            "{json}"
        );
        assert_eq!(json.matches("groups_as_read").count(), 1, "{json}");
    }

    fn text_report(robots: &Robots, readers: &[Reader], findings: &[Finding]) -> String {
        text("robots.txt", robots, readers, findings)
    }
}
