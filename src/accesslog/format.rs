//! Log formats: takes `--log-format` (`combined`, `common`,
//! `vhost_combined`, or a custom Apache `LogFormat` / nginx `log_format`
//! string) and gives a compiled `LogFormat` that cuts a log line into the
//! fields an audit needs, without copying or allocating (SPEC §1 "Formats").
//!
//! A line is read left to right: each field ends where the text that follows
//! it in the format begins. A quoted field ends only at a `"` that is not
//! escaped (`\"`) and is followed by the format's next text; the last
//! field's closing quote must also be followed by the end of the line or a
//! blank, because sites append fields of their own. Fields after the
//! format's last one are ignored.

use std::fmt;

use super::compile::compile;
use super::layout::TimeLayout;
use super::time::Timestamp;

/// The named formats, as Apache's default configuration writes them.
pub const COMBINED: &str = r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;
pub const COMMON: &str = r#"%h %l %u %t "%r" %>s %b"#;
pub const VHOST_COMBINED: &str = r#"%v:%p %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;

/// What a field of the format means to the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    Client,
    Time(TimeLayout),
    Request,
    Status,
    UserAgent,
    Vhost,
    /// A field the audit does not use: skipped.
    Other,
}

/// One field of a compiled format and the text that follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub slot: Slot,
    /// Between `"`s: ends only at an unescaped `"` followed by `after`.
    pub quoted: bool,
    /// The text between this field and the next (may be empty only when
    /// the field ends by itself: a time, a status, or the last field).
    pub after: Box<[u8]>,
}

/// A compiled log format. Immutable; share it between threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFormat {
    /// The text before the first field.
    pub(crate) lead: Box<[u8]>,
    pub(crate) steps: Box<[Step]>,
    has_user_agent: bool,
    has_vhost: bool,
    has_status: bool,
}

/// The fields of one parsed line. Text is raw, as logged: still escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// IPv4, IPv6 or a host name, as logged.
    pub client: &'a [u8],
    pub time: Timestamp,
    /// The request line (`GET /a?b HTTP/1.1`), still escaped; see
    /// `escape::unescape` and `request::parse_request`.
    pub request: &'a [u8],
    /// `None` when logged as `-` or when the format has no status.
    pub status: Option<u16>,
    /// `None` when logged as `-` or empty, or when the format has none.
    pub user_agent: Option<&'a [u8]>,
    /// The virtual host; `None` when logged as `-` or the format has none.
    pub vhost: Option<&'a [u8]>,
}

/// Why a line was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// Nothing on the line.
    Empty,
    /// Longer than `chunk::MAX_LINE`; its text was not kept.
    TooLong,
    /// The line stops before the format's fields do.
    Truncated,
    /// The text between fields is not what the format says.
    Mismatch,
    /// A quoted field has no closing quote.
    NoClosingQuote,
    /// The time field is not a valid time in the format's layout.
    BadTime,
    /// The status is neither `-` nor 1 to 3 digits.
    BadStatus,
    /// The client field is empty or `-`.
    NoClient,
}

impl Skip {
    /// Every reason, in order, for counting skipped lines by reason.
    pub const ALL: [Skip; 8] = [
        Skip::Empty,
        Skip::TooLong,
        Skip::Truncated,
        Skip::Mismatch,
        Skip::NoClosingQuote,
        Skip::BadTime,
        Skip::BadStatus,
        Skip::NoClient,
    ];

    /// A short reason for the `file:line: reason` message.
    pub fn reason(self) -> &'static str {
        match self {
            Skip::Empty => "empty line",
            Skip::TooLong => "line too long",
            Skip::Truncated => "line ends early",
            Skip::Mismatch => "does not match the log format",
            Skip::NoClosingQuote => "no closing quote",
            Skip::BadTime => "bad time",
            Skip::BadStatus => "bad status",
            Skip::NoClient => "no client address",
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

impl Default for LogFormat {
    fn default() -> LogFormat {
        // The built-in format is known to compile.
        LogFormat::new("combined").unwrap_or_else(|_| LogFormat {
            lead: Box::default(),
            steps: Box::default(),
            has_user_agent: false,
            has_vhost: false,
            has_status: false,
        })
    }
}

/// Finds the end of an unquoted field: the first place where `after`
/// follows. The last field of a format (empty `after`) ends at a blank or
/// at the end of the line.
#[inline]
fn unquoted_end(line: &[u8], start: usize, after: &[u8]) -> Result<usize, Skip> {
    let Some((&first, more)) = after.split_first() else {
        let rest = &line[start..];
        return Ok(start + memchr::memchr2(b' ', b'\t', rest).unwrap_or(rest.len()));
    };
    let mut from = start;
    loop {
        let at = from + memchr::memchr(first, &line[from..]).ok_or(Skip::Truncated)?;
        if line[at + 1..].starts_with(more) {
            return Ok(at);
        }
        if line.len() - at <= after.len() {
            return Err(Skip::Truncated);
        }
        from = at + 1;
    }
}

/// True when a closing quote at `at` is followed by `after`, and, for the
/// format's last field, then by the end of the line or a blank.
#[inline]
fn closes(line: &[u8], at: usize, after: &[u8], last: bool) -> bool {
    let tail = &line[at..];
    tail.starts_with(after)
        && (!last
            || tail
                .get(after.len())
                .is_none_or(|b| b.is_ascii_whitespace()))
}

/// Finds the closing quote of a quoted field (`after` starts with `"`).
#[inline]
fn quoted_end(line: &[u8], start: usize, after: &[u8], last: bool) -> Result<usize, Skip> {
    let mut from = start;
    while let Some(found) = memchr::memchr2(b'"', b'\\', &line[from..]) {
        let at = from + found;
        if line[at] == b'\\' {
            // An escape: the next byte is never a closing quote.
            from = at + 2;
            if from > line.len() {
                break;
            }
        } else if closes(line, at, after, last) {
            return Ok(at);
        } else {
            from = at + 1;
        }
    }
    // No escape-aware end: the server may not escape at all (a raw
    // backslash just before the closing quote). Try again reading `\` as a
    // plain byte.
    let mut from = start;
    while let Some(found) = memchr::memchr(b'"', &line[from..]) {
        let at = from + found;
        if closes(line, at, after, last) {
            return Ok(at);
        }
        from = at + 1;
    }
    Err(Skip::NoClosingQuote)
}

/// A logged value, or `None` for `-` and empty.
#[inline]
fn present(value: &[u8]) -> Option<&[u8]> {
    match value {
        b"" | b"-" => None,
        _ => Some(value),
    }
}

/// A status: `-`, or one to three digits. Gives it and the bytes used.
#[inline]
fn status_prefix(s: &[u8]) -> Result<(Option<u16>, usize), Skip> {
    if s.first() == Some(&b'-') {
        return Ok((None, 1));
    }
    let count = s.iter().take(4).take_while(|b| b.is_ascii_digit()).count();
    if count == 0 || count > 3 {
        return Err(Skip::BadStatus);
    }
    let value = s[..count]
        .iter()
        .fold(0u16, |v, &b| v * 10 + u16::from(b - b'0'));
    Ok((Some(value), count))
}

impl LogFormat {
    /// Compiles a format: a name (`combined`, `common`, `vhost_combined`)
    /// or a custom Apache or nginx format string. The error says what is
    /// wrong with the string.
    pub fn new(spec: &str) -> Result<LogFormat, String> {
        let text = match spec.trim() {
            "" | "combined" => COMBINED,
            "common" => COMMON,
            "vhost_combined" => VHOST_COMBINED,
            custom => custom,
        };
        let (lead, steps) = compile(text)?;
        let has = |wanted: fn(&Slot) -> bool| steps.iter().any(|s| wanted(&s.slot));
        Ok(LogFormat {
            has_user_agent: has(|s| *s == Slot::UserAgent),
            has_vhost: has(|s| *s == Slot::Vhost),
            has_status: has(|s| *s == Slot::Status),
            lead: lead.into_boxed_slice(),
            steps: steps.into_boxed_slice(),
        })
    }

    /// True when lines carry a user agent; without one (`common`),
    /// crawlers can only be found by address.
    pub fn has_user_agent(&self) -> bool {
        self.has_user_agent
    }

    /// True when lines carry a virtual host.
    pub fn has_vhost(&self) -> bool {
        self.has_vhost
    }

    /// True when lines carry a status.
    pub fn has_status(&self) -> bool {
        self.has_status
    }

    /// Cuts a line into its fields. A trailing LF or CRLF is ignored.
    pub fn parse<'a>(&self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        let line = match line {
            [head @ .., b'\r', b'\n'] | [head @ .., b'\n'] | [head @ .., b'\r'] => head,
            _ => line,
        };
        if line.is_empty() {
            return Err(Skip::Empty);
        }
        if !line.starts_with(&self.lead) {
            return Err(if line.len() < self.lead.len() {
                Skip::Truncated
            } else {
                Skip::Mismatch
            });
        }
        let mut entry = Entry {
            client: b"",
            time: Timestamp {
                unix: 0,
                offset_min: 0,
            },
            request: b"",
            status: None,
            user_agent: None,
            vhost: None,
        };
        let mut pos = self.lead.len();
        let last = self.steps.len().saturating_sub(1);
        for (index, step) in self.steps.iter().enumerate() {
            let rest = &line[pos..];
            let end = match &step.slot {
                Slot::Time(layout) => {
                    let (time, used) = layout.read(rest).ok_or(if rest.is_empty() {
                        Skip::Truncated
                    } else {
                        Skip::BadTime
                    })?;
                    entry.time = time;
                    pos + used
                }
                Slot::Status => {
                    let (status, used) = status_prefix(rest)?;
                    entry.status = status;
                    pos + used
                }
                slot => {
                    let end = if step.quoted {
                        quoted_end(line, pos, &step.after, index == last)?
                    } else {
                        unquoted_end(line, pos, &step.after)?
                    };
                    let value = &line[pos..end];
                    match slot {
                        Slot::Client => entry.client = value,
                        Slot::Request => entry.request = value,
                        Slot::UserAgent => entry.user_agent = present(value),
                        Slot::Vhost => entry.vhost = present(value),
                        _ => {}
                    }
                    end
                }
            };
            if !line[end..].starts_with(&step.after) {
                return Err(if line.len() - end < step.after.len() {
                    Skip::Truncated
                } else {
                    Skip::Mismatch
                });
            }
            pos = end + step.after.len();
        }
        if present(entry.client).is_none() {
            return Err(Skip::NoClient);
        }
        Ok(entry)
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
