//! Lint checks on single lines and on the file as a whole: takes the read
//! file, gives findings for a file that is HTML, binary or too large, text
//! that is no directive, unknown or misspelled field names, rules before any
//! group and sitemaps that are not absolute URLs (RFC 9309 §2.1, §2.2, §2.4,
//! §2.5; SPEC §1).

use super::super::matcher::Robots;
use super::super::parse::{Directive, SIZE_LIMIT};
use super::{Finding, Scope, Severity, edit_distance};

/// Field names of other crawlers' extensions: known, harmless, unread by
/// Seznam. Compared case-insensitively.
const FOREIGN: &[(&str, &str)] = &[
    ("host", "Yandex's directive for the main mirror"),
    ("clean-param", "Yandex's directive for URL parameters"),
    (
        "noindex",
        "an unofficial directive no major crawler reads any more",
    ),
    ("nofollow", "an unofficial directive no major crawler reads"),
    ("content-signal", "a Cloudflare directive for AI use"),
    ("content-usage", "a proposed directive for AI use"),
];

/// The field names this tool knows, as a misspelling is compared to them.
const KNOWN: &[Directive] = &[
    Directive::UserAgent,
    Directive::Allow,
    Directive::Disallow,
    Directive::Sitemap,
    Directive::CrawlDelay,
    Directive::RequestRate,
    Directive::RobotVersion,
    Directive::VisitTime,
];

/// Findings that make the rest of the lint pointless: the file is an HTML
/// page (an error page served in its place) or binary data (a gzip file,
/// UTF-16 text).
pub(super) fn check_file(robots: &Robots) -> Vec<Finding> {
    let file = robots.file();
    let mut lines: Vec<(usize, &str)> = file
        .records
        .iter()
        .map(|r| (r.line, r.text.as_str()))
        .chain(file.strays.iter().map(|s| (s.line, s.text.as_str())))
        .collect();
    lines.sort_unstable();
    // A file with no `User-agent` line whose first line is no record a
    // crawler reads (text before any group, or a key no crawler knows).
    let unread_start = !file
        .records
        .iter()
        .any(|r| r.directive == Directive::UserAgent)
        && lines.first().is_some_and(|&(first, _)| {
            !file
                .records
                .iter()
                .any(|r| r.line == first && r.directive != Directive::Unknown)
        });
    let mut found = Vec::new();
    if looks_like_html(&lines, unread_start) {
        found.push(Finding {
            line: None,
            name: "looks-like-html",
            severity: Severity::Error,
            message: "The file is an HTML page, not a robots.txt (an error page or a \
                      redirect served in its place?); crawlers read only the lines of it \
                      that happen to be records, and the audit judges by those."
                .into(),
        });
    } else if looks_like_binary(&lines) {
        found.push(Finding {
            line: None,
            name: "looks-like-binary",
            severity: Severity::Error,
            message: "The file holds NUL or other control bytes: it is binary data \
                      (compressed?) or UTF-16 text, not a robots.txt crawlers can read as \
                      meant; only the lines of it that happen to be records count, and \
                      the audit judges by those."
                .into(),
        });
    }
    found
}

/// An HTML page: its first line starts with markup and a line holds a
/// page's tag; or, in a file with no group (`unread_start`: no
/// `User-agent` line, and a first line no crawler reads), one of its first
/// two lines holds one after some text (a status or a warning written
/// before the page, `404<br/><!DOCTYPE html>`, or a BOM encoded twice,
/// `ï»¿<html>`: error pages served in the wild).
fn looks_like_html(lines: &[(usize, &str)], unread_start: bool) -> bool {
    const TAGS: &[&str] = &["<!doctype html", "<html", "<head", "<body", "<?xml"];
    let tagged = |text: &str| {
        let lower = text.to_ascii_lowercase();
        TAGS.iter().any(|tag| lower.contains(tag))
    };
    let Some((_, first)) = lines.first() else {
        return false;
    };
    (first.starts_with('<') && lines.iter().any(|(_, text)| tagged(text)))
        || (unread_start && lines.iter().take(2).any(|(_, text)| tagged(text)))
}

/// Control characters other than tab: no robots.txt line holds them.
fn is_control(c: char) -> bool {
    c.is_ascii_control() && c != '\t'
}

fn looks_like_binary(lines: &[(usize, &str)]) -> bool {
    let control = is_control;
    // A gzip file: its magic bytes, the second not UTF-8.
    let gzip = lines
        .first()
        .is_some_and(|(_, t)| t.starts_with("\u{1f}\\x8B") || t.starts_with("\u{1f}\u{8b}"));
    // A byte that is not UTF-8 stands in the text as `\xNN`: one byte, and
    // not text, as a control byte is not (compressed or random data is
    // mostly such bytes, so counted as four characters they hid it).
    let (chars, controls) = lines.iter().fold((0, 0), |(chars, controls), (_, t)| {
        let widened = widened_bytes(t);
        (
            chars + t.chars().count() - 3 * widened,
            controls + t.chars().filter(|&c| control(c)).count() + widened,
        )
    });
    let damaged = lines.iter().filter(|(_, t)| t.contains(control)).count();
    // Binary data and UTF-16 text hold control bytes on most lines; a run
    // of NULs in one line (a damaged upload) or a stray DOS end-of-file
    // mark leaves the other lines readable, and they are linted as such.
    gzip || (damaged * 2 > lines.len() && controls * 10 >= chars)
}

/// How many bytes that are not UTF-8 `text` holds, each written `\xNN`
/// (`text::escape_non_utf8`).
fn widened_bytes(text: &str) -> usize {
    text.as_bytes()
        .windows(4)
        .filter(|w| {
            w[0] == b'\\' && w[1] == b'x' && w[2].is_ascii_hexdigit() && w[3].is_ascii_hexdigit()
        })
        .count()
}

/// A file past the limit: crawlers ignore its end (RFC 9309 §2.5).
pub(super) fn check_size(robots: &Robots, findings: &mut Vec<Finding>) {
    let file = robots.file();
    if file.truncated {
        // A pipe or a device is read one byte past the limit, no further:
        // its size is not known, only that it is past the limit.
        let size = if file.size > SIZE_LIMIT + 1 {
            format!("{} bytes", file.size)
        } else {
            format!("more than {SIZE_LIMIT} bytes")
        };
        let ignored = match file.lines {
            0 => format!("everything past its first {SIZE_LIMIT} bytes"),
            lines => format!("everything after line {lines}"),
        };
        findings.push(Finding {
            line: None,
            name: "file-too-large",
            severity: Severity::Error,
            message: format!(
                "The file is {size}; crawlers read only the first {SIZE_LIMIT} (500 KiB), \
                 so {ignored} is ignored."
            ),
        });
    }
}

pub(super) fn check(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    let robots = scope.robots;
    let file = robots.file();
    let first_agent = robots.groups().first().map_or(usize::MAX, |g| g.line);

    for stray in &file.strays {
        let count = stray.text.chars().filter(|&c| is_control(c)).count();
        if count > 0 && stray.text.chars().all(|c| is_control(c) || c == ' ') {
            findings.push(Finding::new(
                stray.line,
                "control-bytes",
                Severity::Note,
                format!(
                    "The line holds only {count} NUL or other control bytes (a damaged \
                     upload?); crawlers skip it, and the other lines read as written."
                ),
            ));
            continue;
        }
        findings.push(stray_finding(stray.line, &stray.text, first_agent));
    }

    for record in &file.records {
        let count = record.text.chars().filter(|&c| is_control(c)).count();
        if count > 0 {
            findings.push(Finding::new(
                record.line,
                "control-bytes",
                Severity::Warning,
                format!(
                    "`{}` holds {count} NUL or other control bytes, which crawlers read as \
                     part of the line; remove them.",
                    record.text
                ),
            ));
        }
        match record.directive {
            Directive::Unknown => findings.push(unknown(record.line, &record.key, &record.text)),
            Directive::Sitemap if !is_absolute_url(&record.value) => {
                findings.push(Finding::new(
                    record.line,
                    "bad-sitemap",
                    Severity::Warning,
                    format!(
                        "`{}` is not an absolute URL; a sitemap must be given with its \
                         scheme and host, like `https://www.example.cz/sitemap.xml`.",
                        record.text
                    ),
                ));
            }
            _ => {}
        }
    }

    for &index in robots.orphans() {
        // The line the size limit cut is no rule the lint can place.
        if let Some(record) = file.records.get(index).filter(|r| !r.cut) {
            findings.push(Finding::new(
                record.line,
                "rule-outside-group",
                Severity::Error,
                format!(
                    "`{}` stands before any User-agent line, so it belongs to no group \
                     and no crawler obeys it.",
                    record.text
                ),
            ));
        }
    }

    if robots.groups().is_empty() && robots.orphans().is_empty() {
        findings.push(Finding {
            line: None,
            name: "no-groups",
            severity: Severity::Note,
            message: "The file has no User-agent line, so it allows every crawler \
                      everything."
                .into(),
        });
    }
}

/// A line without a colon: a directive whose colon is missing, or text.
fn stray_finding(line: usize, text: &str, first_agent: usize) -> Finding {
    let word_end = text
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '*')
        .unwrap_or(text.len());
    let (word, rest) = text.split_at(word_end);
    let rest = rest.trim();
    // A directive's value is one word; a sentence that starts with a
    // directive's name (`Disallowed paths follow`) is just text.
    let one_word = !rest.contains(|c: char| c.is_ascii_whitespace());
    if let Some(meant) = intended(word).filter(|_| one_word) {
        let fixed = if rest.is_empty() {
            format!("{}:", meant.name())
        } else {
            format!("{}: {rest}", meant.name())
        };
        let message = if crate::robots::group::colonless_agent(text).is_some() {
            // Google's parser reads it all the same (`group::other_readings`).
            format!(
                "`{text}` has no colon: RFC 9309 crawlers ignore it, Google's parser reads it \
                 as a user-agent line, and the audit accuses no fetch that only one of the two \
                 readings disallows; did you mean `{fixed}`?"
            )
        } else {
            format!("`{text}` has no colon, so crawlers ignore it; did you mean `{fixed}`?")
        };
        return Finding::new(line, "missing-colon", Severity::Error, message);
    }
    if line < first_agent {
        Finding::new(
            line,
            "text-before-user-agent",
            Severity::Warning,
            format!(
                "`{text}` before the first User-agent line is not a directive; crawlers \
                 skip it, so start it with `#` to make it a comment."
            ),
        )
    } else {
        Finding::new(
            line,
            "stray-text",
            Severity::Warning,
            format!(
                "`{text}` is not a `field: value` line; crawlers skip it, so start it \
                 with `#` if it is a comment."
            ),
        )
    }
}

/// A field name nobody here knows: a misspelling, another crawler's
/// extension, or something else.
fn unknown(line: usize, key: &str, text: &str) -> Finding {
    if let Some((_, what)) = FOREIGN.iter().find(|(n, _)| key.eq_ignore_ascii_case(n)) {
        return Finding::new(
            line,
            "unknown-directive",
            Severity::Note,
            format!("`{key}` is {what}; Seznam ignores it."),
        );
    }
    if super::super::group::google_agent_key(key) {
        // Read both ways (README "A `User-agent` line without its
        // colon"): not ignored by every crawler.
        return Finding::new(
            line,
            "misspelled-directive",
            Severity::Error,
            format!(
                "`{key}` is not a directive: RFC 9309 crawlers ignore `{text}`, but Google's \
                 parser reads it as `User-agent`, so the rules below it belong to other \
                 groups in that reading (a violation is counted only where both readings \
                 disallow); did you mean `User-agent`?"
            ),
        );
    }
    if let Some(meant) = intended(key) {
        return Finding::new(
            line,
            "misspelled-directive",
            Severity::Error,
            format!(
                "`{key}` is not a directive, so crawlers ignore `{text}`; did you mean `{}`?",
                meant.name()
            ),
        );
    }
    // `Sitemap https://…`: the colon after the name is missing, and the
    // URL's own colon made the line look like a field named `Sitemap https`.
    let word_end = key
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '*')
        .unwrap_or(key.len());
    let (word, rest) = key.split_at(word_end);
    let directive = Directive::from_key(word.as_bytes());
    let rest = rest.trim();
    if directive != Directive::Unknown
        && !rest.is_empty()
        && !rest.contains(|c: char| c.is_ascii_whitespace())
    {
        let value = text.get(word_end..).unwrap_or_default().trim();
        return Finding::new(
            line,
            "missing-colon",
            Severity::Error,
            format!(
                "`{text}` has no colon after `{word}`, so crawlers ignore it; did you mean \
                 `{}: {value}`?",
                directive.name()
            ),
        );
    }
    let message = if key.is_empty() {
        format!("`{text}` has no field name before its colon, so crawlers ignore it.")
    } else {
        format!("`{key}` is not a directive Seznam or RFC 9309 knows, so crawlers ignore it.")
    };
    Finding::new(line, "unknown-directive", Severity::Warning, message)
}

/// The directive a field name most likely means: the known name closest
/// by edit distance once case, spaces, `-` and `_` are set aside, when it is
/// close enough; or a known name followed by a short ending (`Allowed`).
pub(super) fn intended(key: &str) -> Option<Directive> {
    let squeeze = |s: &str| -> Vec<u8> {
        s.bytes()
            .filter(|b| !matches!(b, b' ' | b'\t' | b'-' | b'_'))
            .map(|b| b.to_ascii_lowercase())
            .collect()
    };
    let written = squeeze(key);
    if written.is_empty() {
        return None;
    }
    KNOWN
        .iter()
        .filter_map(|&directive| {
            let known = squeeze(directive.name());
            let limit = match known.len() {
                0..=5 => 1,
                6..=8 => 2,
                _ => 3,
            };
            let distance = edit_distance(&written, &known);
            let suffixed = written.starts_with(&known) && written.len() <= known.len() + 2;
            (distance <= limit || suffixed).then_some((distance, directive))
        })
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, directive)| directive)
}

/// True for `scheme://host…`: the form a sitemap must be given in
/// (RFC 9309 §2.4).
fn is_absolute_url(value: &[u8]) -> bool {
    let Some(at) = memchr::memmem::find(value, b"://") else {
        return false;
    };
    let scheme = &value[..at];
    let host = value[at + 3..]
        .split(|&b| matches!(b, b'/' | b'?' | b'#'))
        .next()
        .unwrap_or_default();
    scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        && !host.is_empty()
        && !value.iter().any(|b| b.is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intended_directives() {
        let cases: &[(&str, Option<Directive>)] = &[
            ("Dissallow", Some(Directive::Disallow)),
            ("Disalow", Some(Directive::Disallow)),
            ("Dissalow", Some(Directive::Disallow)),
            ("disallowed", Some(Directive::Disallow)),
            ("isallow", Some(Directive::Disallow)),
            ("Alow", Some(Directive::Allow)),
            ("Allowed", Some(Directive::Allow)),
            ("User agent", Some(Directive::UserAgent)),
            ("Useragent", Some(Directive::UserAgent)),
            ("User_agent", Some(Directive::UserAgent)),
            ("User-agnet", Some(Directive::UserAgent)),
            ("User-agents", Some(Directive::UserAgent)),
            ("Request_rate", Some(Directive::RequestRate)),
            ("Request rate", Some(Directive::RequestRate)),
            ("Requestrate", Some(Directive::RequestRate)),
            ("Crawl delay", Some(Directive::CrawlDelay)),
            ("Crawldelay", Some(Directive::CrawlDelay)),
            ("Site-map", Some(Directive::Sitemap)),
            ("Sitemaps", Some(Directive::Sitemap)),
            ("Robots-version", Some(Directive::RobotVersion)),
            ("Visit time", Some(Directive::VisitTime)),
            ("Host", None),
            ("Noindex", None),
            ("User", None),
            ("Agent", None),
            ("Foo", None),
            ("", None),
            ("<a href=\"https", None),
        ];
        for &(key, expected) in cases {
            assert_eq!(intended(key), expected, "{key}");
        }
    }

    #[test]
    fn absolute_urls() {
        let cases: &[(&str, bool)] = &[
            ("https://www.example.cz/sitemap.xml", true),
            ("http://example.cz/s.xml.gz", true),
            ("HTTPS://example.cz", true),
            ("/sitemap.xml", false),
            ("www.example.cz/sitemap.xml", false),
            ("https:///sitemap.xml", false),
            ("://example.cz/s.xml", false),
            ("https://example.cz/a b.xml", false),
            ("", false),
        ];
        for &(value, expected) in cases {
            assert_eq!(is_absolute_url(value.as_bytes()), expected, "{value}");
        }
    }

    #[test]
    fn strays() {
        let cases: &[(&str, usize, &str)] = &[
            ("Disallow /private", 5, "missing-colon"),
            ("Disallow/private", 5, "missing-colon"),
            ("User-agent *", 5, "missing-colon"),
            ("Allow", 5, "missing-colon"),
            ("Welcome, robots", 5, "stray-text"),
            ("Welcome, robots", 1, "text-before-user-agent"),
            ("Disallowed paths follow", 5, "stray-text"),
        ];
        for &(text, line, name) in cases {
            assert_eq!(stray_finding(line, text, 3).name, name, "{text}");
        }
        let fixed = stray_finding(5, "Disallow /private", 3).message;
        assert!(fixed.contains("`Disallow: /private`"), "{fixed}");
    }

    #[test]
    fn content_sniffing() {
        let html = [(1, "<!DOCTYPE html>"), (2, "<title>x</title>")];
        assert!(looks_like_html(&html, true));
        let text = [(1, "User-agent: *"), (2, "Disallow: /<html>")];
        assert!(!looks_like_html(&text, false));
        // Error pages in the wild: a status before the page, a BOM
        // encoded twice.
        let status = [(1, "404<br/><!DOCTYPE html>"), (2, "<html>")];
        assert!(looks_like_html(&status, true));
        assert!(looks_like_html(&[(1, "\u{ef}\u{bb}\u{bf}<html>")], true));
        // A status alone before the page.
        let apart = [(1, "404<br/>"), (2, "<!DOCTYPE html>")];
        assert!(looks_like_html(&apart, true));
        // A rule whose path holds a tag is a rule; so is a file with a
        // group whose first line holds a tag.
        assert!(!looks_like_html(&[(1, "Disallow: /<html>")], false));
        let grouped = [(1, "Sitemap http://x/<html>"), (2, "User-agent: *")];
        assert!(!looks_like_html(&grouped, false));
        assert!(looks_like_binary(&[(1, "U\0s\0e\0r")]));
        assert!(looks_like_binary(&[
            (1, "\u{1f}\\x8B\u{8}"),
            (2, "User-agent: *")
        ]));
        assert!(looks_like_binary(&[
            (1, "\u{3}\u{4}\u{5}ab"),
            (2, "cd"),
            (3, "\u{6}\u{7}")
        ]));
        // A run of NULs in one line of many: the rest reads fine.
        let nuls = "\0".repeat(200);
        assert!(!looks_like_binary(&[
            (1, "User-agent: *"),
            (2, nuls.as_str()),
            (3, "Disallow: /x")
        ]));
        assert!(!looks_like_binary(&[(1, "User-agent: *"), (2, "\u{1a}")]));
        assert!(!looks_like_binary(&text));
    }
}
