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
use crate::robots::findings::{self, Finding, Reader, Severity};

mod json;
use crate::robots::parse::{Directive, Record};
use crate::robots::{AgentRules, Group, RequestRate, Robots};
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
/// robots.txt token, in table order, with the crawlers that obey it.
pub fn readers(table: &[Profile]) -> Vec<Reader> {
    let mut readers: Vec<Reader> = Vec::new();
    for profile in table {
        if let Some(reader) = readers
            .iter_mut()
            .find(|r| r.token.eq_ignore_ascii_case(&profile.token))
        {
            reader.crawlers.push(profile.name.clone());
            continue;
        }
        let (reads_request_rate, reads_robot_version, reads_crawl_delay) = extensions(profile);
        readers.push(Reader {
            token: profile.token.clone(),
            crawlers: vec![profile.name.clone()],
            floor: profile
                .rate_floor
                .map(|f| (f.fetches, u64::from(f.seconds))),
            reads_request_rate,
            reads_robot_version,
            reads_crawl_delay,
            homepage_exception: profile.homepage_exception,
        });
    }
    readers
}

/// Which extension records a crawler reads as rules of its group:
/// (Request-rate, Robot-version, Crawl-delay), as its profile says (SPEC §3).
fn extensions(profile: &Profile) -> (bool, bool, bool) {
    let reads = profile.reads;
    (
        reads.reads(Directive::RequestRate),
        reads.reads(Directive::RobotVersion),
        reads.reads(Directive::CrawlDelay),
    )
}

/// The readers of the table, each with the groups it obeys.
type Selections<'a> = [(&'a Reader, AgentRules)];

fn selections<'a>(robots: &Robots, readers: &'a [Reader]) -> Vec<(&'a Reader, AgentRules)> {
    readers
        .iter()
        .map(|r| (r, robots.rules_for(r.token.as_bytes())))
        .collect()
}

/// The readers that obey group `index`.
fn readers_of<'a>(selections: &Selections<'a>, index: usize) -> Vec<&'a Reader> {
    selections
        .iter()
        .filter(|(_, rules)| rules.groups().contains(&index))
        .map(|&(r, _)| r)
        .collect()
}

/// One line of a group as a crawler reads it, and what it does.
struct Shown {
    line: usize,
    what: String,
    /// Why the line does less than it seems to, or what it really does.
    remark: Option<String>,
}

/// The lines of a group after its user-agent lines, in file order.
fn members(robots: &Robots, selections: &Selections<'_>, index: usize) -> Vec<Shown> {
    let group = &robots.groups()[index];
    let records = &robots.file().records;
    let readers = readers_of(selections, index);
    group
        .members
        .iter()
        .filter_map(|&member| records.get(member))
        .map(|record| {
            let (what, remark) = member(group, record, &readers);
            Shown {
                line: record.line,
                what,
                remark,
            }
        })
        .collect()
}

fn member(group: &Group, record: &Record, readers: &[&Reader]) -> (String, Option<String>) {
    let line = record.line;
    match record.directive {
        Directive::Allow | Directive::Disallow => {
            match group.rules.iter().find(|r| r.line == line) {
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
            Some(delay) => match delay.millis {
                Some(millis) => (
                    format!("Crawl-delay: {}", seconds(millis)),
                    readers
                        .iter()
                        .find(|r| r.reads_request_rate && !r.reads_crawl_delay)
                        .map(|r| format!("{} reads Request-rate instead", r.token)),
                ),
                None => (record.text.clone(), Some("unreadable: ignored".into())),
            },
            None => (record.text.clone(), None),
        },
        Directive::RobotVersion => {
            if group.robot_version.as_ref().is_some_and(|v| v.line == line) {
                (
                    record.text.clone(),
                    Some("patterns must match the whole path".into()),
                )
            } else {
                (record.text.clone(), Some("no effect".into()))
            }
        }
        Directive::VisitTime => (
            record.text.clone(),
            Some("no known crawler reads it".into()),
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
        .filter(|r| r.reads_request_rate)
        .filter_map(|r| {
            let (fetches, seconds) = r.floor?;
            let floored = rate.floored(fetches, seconds)?;
            Some(format!("effective {} for {}", floored.canonical(), r.token))
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
        .filter(|r| r.reads_request_rate)
        .find_map(|r| r.floor.and_then(|(f, s)| rate.floored(f, s)));
    Some(floored.unwrap_or(rate).canonical())
}

/// Milliseconds as seconds, without trailing zeros: `10`, `2.5`, `0.125`.
fn seconds(millis: u64) -> String {
    let whole = millis / 1000;
    let part = millis % 1000;
    if part == 0 {
        whole.to_string()
    } else {
        let digits = format!("{part:03}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
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
    let _ = writeln!(
        out,
        "file: {path} ({}, {})",
        plural(file.lines, "line"),
        plural(file.size, "byte")
    );
    for (reader, rules) in &selections {
        let used: Vec<String> = rules
            .groups()
            .iter()
            .map(|&g| format!("group (line {})", robots.groups()[g].line))
            .collect();
        if used.is_empty() {
            let _ = writeln!(
                out,
                "{} reads no group: everything is allowed",
                reader.label()
            );
        } else {
            let _ = writeln!(out, "{} reads: {}", reader.label(), used.join(" + "));
        }
    }

    for (index, group) in robots.groups().iter().enumerate() {
        let _ = writeln!(
            out,
            "\ngroup (line {}): {}",
            group.line,
            printable(&agents(group))
        );
        for shown in members(robots, &selections, index) {
            let _ = write!(out, "  {} (line {})", printable(&shown.what), shown.line);
            if let Some(remark) = shown.remark {
                let _ = write!(out, " \u{2014} {remark}");
            }
            out.push('\n');
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
            assert_eq!(seconds(millis), expected);
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
}
