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
//! format's last one are ignored. The named formats of the Common Log
//! Format family are read first by `clf_family`, which hands this reader
//! every line that is not of their plain shape. Where each kind of field
//! ends is `find.rs`'s.

use super::chunk::Line;
use super::clf_family::{self, Family};
pub use super::clf_family::{COMBINED, COMMON, VHOST_COMBINED};
use super::compile::{Compiled, compile};
use super::entry::{Entry, Skip};
use super::fields;
use super::find::{chain_end, colon_end, quoted_end, spaced_end, unquoted_end, upstream_list_end};
use super::layout::TimeLayout;
use super::program::{Slot, Step, Text};
use super::time::{Timestamp, fraction_millis, offset_prefix};
use super::zone::LogTz;

/// A compiled log format. Immutable; share it between threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFormat {
    /// The text before the first field.
    pub(crate) lead: Text,
    pub(crate) steps: Box<[Step]>,
    /// How the time field is written.
    pub(crate) time: TimeLayout,
    /// How the time fields not used are written (`Slot::OtherTime`).
    skipped_times: Box<[TimeLayout]>,
    /// The zone of times written without an offset (`--log-tz`).
    zone: Option<LogTz>,
    /// The time may be written without an offset and no `%{%z}t` field
    /// gives one: it is placed through `zone`.
    local_time: bool,
    has_user_agent: bool,
    has_vhost: bool,
    has_status: bool,
    /// The format logs the target apart (`$request_uri`) but no method.
    no_method: bool,
    /// The format is one of the Common Log Format family, which
    /// `clf_family` reads faster.
    family: Option<Family>,
}

impl Default for LogFormat {
    fn default() -> LogFormat {
        // The built-in format is known to compile.
        LogFormat::new("combined").unwrap_or_else(|_| LogFormat {
            lead: Text::default(),
            steps: Box::default(),
            time: TimeLayout::Clf,
            skipped_times: Box::default(),
            zone: None,
            local_time: false,
            has_user_agent: false,
            has_vhost: false,
            has_status: false,
            no_method: false,
            family: None,
        })
    }
}

/// True when `value` is an IPv4 or IPv6 address as logged, an IPv6 one
/// bare, bracketed or with a zone (no port).
fn is_address(value: &[u8]) -> bool {
    fields::is_ipv4(value) || fields::is_ipv6(value)
}

/// A logged value, or `None` for `-` and empty.
#[inline]
fn present(value: &[u8]) -> Option<&[u8]> {
    match value {
        b"" | b"-" => None,
        _ => Some(value),
    }
}

/// A status: `-`, or three digits (RFC 9110 §15: a status code is a
/// three-digit integer). Gives it and the bytes used. A shorter number is
/// no status: in a format whose fields are joined by a byte a target may
/// hold (`$request_uri|$status`, nginx writes `|` raw), `/a|5|b|200` put
/// `5` in the status and cut the target. As the format's last field
/// (`last`), whose rest is taken for fields the site appended, it ends
/// where a word ends: `0.005 200` read as status 0, `200x` as 200.
/// Elsewhere the format's own text after it says where it ends
/// (`%>s.%B`, `%>sms`), and a fourth digit is no status's (`2000`); a
/// field written right after it (`%>s%B`, `adjacent`) takes what follows.
#[inline]
fn status_prefix(s: &[u8], last: bool, adjacent: bool) -> Result<(Option<u16>, usize), Skip> {
    let digit = |i: usize| s.get(i).map(|b| b.wrapping_sub(b'0')).filter(|&d| d <= 9);
    let word_ends = |at: usize| match s.get(at) {
        None => true,
        Some(_) if adjacent => true,
        Some(b) if b.is_ascii_digit() => false,
        Some(&b) => !last || (!b.is_ascii_alphanumeric() && b != b'.'),
    };
    match (digit(0), digit(1), digit(2)) {
        (Some(a), Some(b), Some(c)) if word_ends(3) => Ok((
            Some(u16::from(a) * 100 + u16::from(b) * 10 + u16::from(c)),
            3,
        )),
        _ if s.first() == Some(&b'-') && word_ends(1) => Ok((None, 1)),
        // Traefik's common format writes a request it got no status for
        // as `0` (Go's `%v` of a zero): a fetch all the same (SPEC §4).
        // Only before a blank or at the end: in a format joined by `|` or
        // `,` a target's `|0|` or `,0,` would otherwise be read as its
        // status, and the target cut there.
        (Some(0), None, _) if matches!(s.get(1), None | Some(b' ')) => Ok((Some(0), 1)),
        _ => Err(Skip::BadStatus),
    }
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
        let compiled = compile(text)?;
        let family = Family::ALL
            .iter()
            .find(|(_, member)| compile(member).is_ok_and(|known| known == compiled))
            .map(|&(family, _)| family);
        let Compiled {
            lead,
            steps,
            time,
            skipped_times,
        } = compiled;
        let has = |wanted: fn(&Slot) -> bool| steps.iter().any(|s| wanted(&s.slot));
        Ok(LogFormat {
            family,
            local_time: time.may_be_local() && !has(|s| *s == Slot::Offset),
            zone: None,
            has_user_agent: has(|s| *s == Slot::UserAgent),
            has_vhost: has(|s| *s == Slot::Vhost),
            has_status: has(|s| *s == Slot::Status),
            no_method: has(|s| *s == Slot::Target) && !has(|s| *s == Slot::Method),
            lead: Text::new(lead),
            steps: steps.into_boxed_slice(),
            time,
            skipped_times: skipped_times.into_boxed_slice(),
        })
    }

    /// The same format, placing times written without an offset in `zone`
    /// (`--log-tz`).
    pub fn with_zone(mut self, zone: Option<LogTz>) -> LogFormat {
        self.zone = zone;
        self
    }

    /// True when the format writes times without an offset and no zone
    /// was given to place them: such a log cannot be read (SPEC §1
    /// "Times"), never as UTC.
    pub fn needs_zone(&self) -> bool {
        self.local_time && self.zone.is_none()
    }

    /// True when lines carry a user agent; without one (`common`),
    /// crawlers can only be found by address.
    pub fn has_user_agent(&self) -> bool {
        self.has_user_agent
    }

    /// Which member of the Common Log Format family the format is.
    #[cfg(test)]
    pub(crate) fn family(&self) -> Option<Family> {
        self.family
    }

    /// True when lines carry a virtual host.
    pub fn has_vhost(&self) -> bool {
        self.has_vhost
    }

    /// True when lines carry a status.
    pub fn has_status(&self) -> bool {
        self.has_status
    }

    /// Cuts a line of a chunk into its fields; a line that was too long to
    /// keep is `Skip::TooLong`.
    #[inline]
    pub fn parse_line<'a>(&self, line: &Line<'a>) -> Result<Entry<'a>, Skip> {
        if line.too_long {
            return Err(Skip::TooLong);
        }
        self.parse(line.text)
    }

    /// Cuts a line into its fields. A trailing LF or CRLF is ignored.
    pub fn parse<'a>(&self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        let line = match line {
            [head @ .., b'\r', b'\n'] | [head @ .., b'\n'] | [head @ .., b'\r'] => head,
            _ => line,
        };
        // A line of blanks is as empty as an empty one (JSON and W3C lines
        // are trimmed alike).
        if line.first().is_none_or(|&b| b == b' ' || b == b'\t') && line.trim_ascii().is_empty() {
            return Err(Skip::Empty);
        }
        if let Some(family) = self.family
            && let Some(entry) = clf_family::read(line, family)
        {
            return Ok(entry);
        }
        self.parse_steps(line)
    }

    /// `parse` of a line without its line end, not empty, by the format's
    /// steps: the general reader, and the reference of `clf_family`.
    pub(crate) fn parse_steps<'a>(&self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        if !self.lead.stands_at(line, 0) {
            return Err(if line.len() < self.lead.bytes().len() {
                Skip::Truncated
            } else {
                Skip::Mismatch
            });
        }
        let mut entry = Entry::EMPTY;
        // Written without an offset: the civil time, read as if UTC.
        let mut local = false;
        let mut offset = None;
        let mut fraction = None;
        // A blank in a one-word field: the line was cut in the wrong places
        // (the formats separate their fields with blanks).
        let mut shifted = false;
        // The virtual host read is a Host header as the client sent it.
        let mut host_as_sent = false;
        let mut address_only = false;
        // The last one-word field read (`%l` before `%u`).
        let mut previous_word: Option<&[u8]> = None;
        // An unquoted forwarded-for chain was read: the client may have
        // written a blank into it (`X-Forwarded-For: 77.75.77.1 x`, to
        // which a proxy joins `, 6.6.6.6`), so a comma in the unquoted
        // fields after it may be the chain going on.
        let mut open_chain = false;
        let mut pos = self.lead.bytes().len();
        let last = self.steps.len().saturating_sub(1);
        // Where the field being read starts: after the loop, the last's.
        let mut field_start = pos;
        for (index, step) in self.steps.iter().enumerate() {
            field_start = pos;
            let rest = &line[pos..];
            let end = match step.slot {
                Slot::Time | Slot::OtherTime(_) => {
                    let layout = match step.slot {
                        Slot::OtherTime(index) => &self.skipped_times[usize::from(index)],
                        _ => &self.time,
                    };
                    match layout.read(rest) {
                        Some((time, used, written_local)) => {
                            // Only the time in use is the fetch's; the
                            // others are read for their length.
                            if step.slot == Slot::Time {
                                entry.time = time;
                                local = written_local;
                            }
                            pos + used
                        }
                        // Another time, left out on this line by its
                        // status condition.
                        None if step.dash
                            && step.slot != Slot::Time
                            && rest.first() == Some(&b'-') =>
                        {
                            pos + 1
                        }
                        None if rest.is_empty() => return Err(Skip::Truncated),
                        None => return Err(Skip::BadTime),
                    }
                }
                // Left out on this line by its status condition: the
                // time's whole seconds stand alone.
                Slot::Fraction(_) if step.dash && rest.first() == Some(&b'-') => pos + 1,
                Slot::Fraction(digits) => {
                    let digits = usize::from(digits);
                    let Some(text) = rest
                        .get(..digits)
                        .filter(|d| d.iter().all(u8::is_ascii_digit))
                    else {
                        return Err(Skip::BadTime);
                    };
                    fraction = Some(fraction_millis(text));
                    pos + digits
                }
                Slot::Offset => {
                    let (minutes, used) = offset_prefix(rest, true).ok_or(Skip::BadTime)?;
                    offset = Some(minutes);
                    pos + used
                }
                Slot::Status => {
                    let no_text = step.after.bytes().is_empty();
                    let (status, used) =
                        status_prefix(rest, index == last && no_text, index != last && no_text)?;
                    entry.status = status;
                    pos + used
                }
                slot => {
                    let end = if step.quoted {
                        quoted_end(line, pos, &step.after, index == last)?
                    } else if matches!(slot, Slot::Request | Slot::UserAgent) {
                        spaced_end(line, pos, &step.after, slot, index == last)?
                    } else if slot == Slot::ForwardedFor {
                        chain_end(line, pos, &step.after)?
                    } else if step.upstream_list {
                        upstream_list_end(line, pos, &step.after)?
                    } else if step.until_slash {
                        // The host ends where the path's `/` starts; a
                        // blank first means the line was cut elsewhere.
                        match memchr::memchr3(b'/', b' ', b'\t', rest) {
                            Some(at) if rest[at] == b'/' => pos + at,
                            _ => return Err(Skip::Mismatch),
                        }
                    } else if step.colons_after > 0 {
                        colon_end(line, pos, step)?
                    } else {
                        unquoted_end(line, pos, &step.after)?
                    };
                    let value = &line[pos..end];
                    // A blank in a one-word field means the line was cut
                    // in the wrong places (`www.site.cz 77.75.77.1 - - [`,
                    // a virtual host in front, puts `- -` in `%u`; an
                    // extra field, `10.0.0.5 - 77.75.77.1 - - [`, its
                    // address), but for a user name of words that are
                    // neither `-` nor addresses, before the bracketed
                    // time, after an identd `-` (`- a b [`, or nginx's
                    // ` - `) and an address as the client: nginx and
                    // Apache log one as sent. Skipped, such lines let
                    // anyone who sends a log's first requests keep the
                    // whole file from being read.
                    if slot == Slot::Word && !step.quoted {
                        // An address as the ident or user name is a line
                        // cut in the wrong places too: a virtual host in
                        // front (nginx's `$host $remote_addr - [`) puts
                        // the client in `%l`, and the host, taken for the
                        // client, would make the crawler an impostor.
                        // Asked only of a value that is not `-`.
                        if value != b"-" && is_address(value) {
                            shifted = true;
                        }
                        // Asked only of a value with a blank: nearly every
                        // line's is `-`.
                        if memchr::memchr(b' ', value).is_some() {
                            let dash_written =
                                index > 0 && self.steps[index - 1].after.bytes().ends_with(b" - ");
                            let user_name = step.after.bytes().starts_with(b" [")
                                && (previous_word == Some(b"-") || dash_written)
                                && is_address(entry.client)
                                && value.split(|&b| b == b' ').all(|word| {
                                    !word.is_empty() && word != b"-" && !is_address(word)
                                });
                            shifted |= !user_name;
                        }
                        previous_word = Some(value);
                    }
                    match slot {
                        Slot::Port { or_none: false } => shifted |= !fields::is_port_number(value),
                        Slot::Port { or_none: true } => shifted |= !fields::is_port(value),
                        _ => {}
                    }
                    if slot == Slot::Number && !step.quoted {
                        shifted |= !fields::is_number(value);
                    }
                    if !step.quoted && !step.upstream_list {
                        // A field the audit does not use ends at its first
                        // blank: one that holds blanks only fits by taking
                        // what the client wrote elsewhere (the README's
                        // "Proxies").
                        if slot == Slot::Other && memchr::memchr2(b' ', b'\t', value).is_some() {
                            shifted = true;
                        }
                        // Apache and nginx escape a quote in every value
                        // they log (`\"`, `\x22`): one written bare in a
                        // field without quotes is the next field's opening
                        // quote, taken by a line that lacks a field. But
                        // for Apache's `%u` of an empty user name (Basic
                        // auth with none given), which it writes `""`
                        // (`Step::empty_user_quoted`).
                        if matches!(
                            slot,
                            Slot::Other | Slot::Word | Slot::Port { .. } | Slot::Method
                        ) && fields::has_bare_quote(value)
                            && !(step.empty_user_quoted && value == b"\"\"")
                        {
                            shifted = true;
                        }
                        // After an unquoted chain, a comma in a one-word
                        // field may be the chain's: cut short, the chain
                        // would name the entry the client wrote as the
                        // client. (A field of words, an unquoted user agent,
                        // holds commas of its own: such a field belongs in
                        // quotes.)
                        if open_chain
                            && matches!(
                                slot,
                                Slot::Other | Slot::Number | Slot::Port { .. } | Slot::Word
                            )
                            && memchr::memchr(b',', value).is_some()
                        {
                            return Err(Skip::Mismatch);
                        }
                    }
                    if slot == Slot::ForwardedFor && !step.quoted {
                        open_chain |= !matches!(value, b"" | b"-");
                    }
                    match slot {
                        Slot::Client => {
                            entry.client = value;
                            address_only = step.address_only;
                        }
                        Slot::Request | Slot::Target => entry.request = value,
                        Slot::Method => entry.method = Some(value),
                        Slot::UserAgent => entry.user_agent = present(value),
                        Slot::Vhost => {
                            entry.vhost = present(value);
                            host_as_sent = step.host_as_sent;
                        }
                        Slot::ForwardedFor => entry.forwarded_for = present(value),
                        _ => {}
                    }
                    end
                }
            };
            if !step.after.stands_at(line, end) {
                return Err(if line.len() - end < step.after.bytes().len() {
                    Skip::Truncated
                } else {
                    Skip::Mismatch
                });
            }
            pos = end + step.after.bytes().len();
        }
        // Fields past the format's last are ignored, but not a carriage
        // return among them, or in the last field when it is unquoted:
        // servers escape control bytes, so a raw one means a file whose
        // lines end in CR alone, every record after the first swallowed
        // into this line (into an unquoted last field itself, which runs
        // to the line's end: a user agent). Skipped, never a clean night.
        // Nor a comma after an unquoted chain: the chain may have gone on
        // past a blank the client wrote (`a x, b`), and been cut short.
        if open_chain && memchr::memchr(b',', &line[pos.min(line.len())..]).is_some() {
            return Err(Skip::Mismatch);
        }
        let unquoted_last = self.steps.last().is_some_and(|step| !step.quoted);
        let after = if unquoted_last { field_start } else { pos };
        if memchr::memchr(b'\r', &line[after.min(line.len())..]).is_some() {
            return Err(Skip::Mismatch);
        }
        // `-` is a client field that says "no address": the line is read
        // and gives no PTR name (SPEC §2); an empty one is no field at all.
        if entry.client.is_empty() {
            return Err(Skip::NoClient);
        }
        if self.no_method {
            // A target logged without its method: every line a fetch of
            // it, as a W3C log without `cs-method`.
            entry.method = Some(b"GET");
        }
        if local {
            entry.time = self.place(entry.time.unix, offset)?;
        }
        if let Some(millis) = fraction {
            entry.time.millis = millis;
        }
        // A value a field cannot hold means the line was cut in the wrong
        // places (a `vhost_combined` line read as `combined` takes
        // `host:443` as its client): skipped, never read shifted.
        if !fields::is_client(entry.client) {
            return Err(Skip::BadClient);
        }
        if address_only && !fields::is_address_client(entry.client) {
            return Err(Skip::NameForAddress);
        }
        if !host_as_sent
            && entry
                .vhost
                .is_some_and(|host| !fields::is_server_host(host))
        {
            return Err(Skip::BadHost);
        }
        if shifted {
            return Err(Skip::Mismatch);
        }
        Ok(entry)
    }

    /// The instant of a time written without an offset (`local`: its civil
    /// time read as if UTC), by the line's `%{%z}t` field or else the zone.
    /// A time the zone skips, or one without a zone, is a bad time: never
    /// silently UTC.
    #[inline]
    fn place(&self, local: i64, offset: Option<i32>) -> Result<Timestamp, Skip> {
        match (offset, &self.zone) {
            (Some(minutes), _) => Ok(Timestamp {
                unix: local - i64::from(minutes) * 60,
                millis: 0,
                // In range: offset_prefix holds hours below 24.
                offset_min: minutes as i16,
            }),
            (None, Some(zone)) => zone.from_local_seconds(local).ok_or(Skip::BadTime),
            (None, None) => Err(Skip::BadTime),
        }
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
