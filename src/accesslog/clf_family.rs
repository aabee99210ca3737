//! The Common Log Format family read in one pass: takes a line of a log
//! written in Apache's `common`, `combined` or `vhost_combined` format, or
//! nginx's `combined`, and gives its `Entry` when the line has the plain
//! shape nearly every line of such a log has — or `None`, and the general
//! reader (`format::LogFormat::parse`) decides the line, errors included
//! (SPEC §1 "Formats").
//!
//! The plain shape: no backslash anywhere, each unquoted field ending at
//! its first blank, each quoted field at its first quote. Where the
//! general reader would look further (a field holding the text that
//! follows it, an escaped quote), this reader gives up instead; so
//! whatever it gives is what the general reader gives, which
//! `clf_family_tests.rs` checks on lines made to break every assumption.
//! It exists for speed alone: the general reader follows the format's
//! steps one by one and searches each quoted field apart, this one finds
//! every quote of the line in one vector pass (`json_quotes::masks`).

use super::entry::Entry;
use super::fields;
use super::find::find_byte;
use super::json_quotes::masks;
use super::time::clf_prefix;

/// The named formats, as Apache's default configuration writes them.
pub const COMBINED: &str = r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;
pub const COMMON: &str = r#"%h %l %u %t "%r" %>s %b"#;
pub const VHOST_COMBINED: &str = r#"%v:%p %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;

/// nginx's predefined `combined` format: Apache's with the ident field
/// written as a fixed `-`.
pub(crate) const NGINX_COMBINED: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;

/// Which member of the family a format is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `%h %l %u %t "%r" %>s %b`
    Common,
    /// `common` and `"%{Referer}i" "%{User-agent}i"`.
    Combined,
    /// `combined` behind `%v:%p `.
    VhostCombined,
    /// nginx's `combined`: the ident field is always `-`.
    NginxCombined,
}

impl Family {
    /// The formats of the family, as written.
    pub(crate) const ALL: [(Family, &'static str); 4] = [
        (Family::Common, COMMON),
        (Family::Combined, COMBINED),
        (Family::VhostCombined, VHOST_COMBINED),
        (Family::NginxCombined, NGINX_COMBINED),
    ];
}

/// Bytes a line may have to be read here: the quotes of up to this many
/// bytes are indexed on the stack. Longer lines (rare) go to the general
/// reader.
const MAX: usize = 1024;
const WORDS: usize = MAX / 64;

/// The quotes of a line, one bit a byte; `None` when the line holds a
/// backslash (escapes are the general reader's) or is longer than `MAX`.
struct Quotes {
    words: [u64; WORDS],
    len: usize,
}

impl Quotes {
    #[inline]
    fn new(line: &[u8]) -> Option<Quotes> {
        if line.len() > MAX {
            return None;
        }
        let mut words = [0u64; WORDS];
        let mut backslashes = 0u64;
        let (blocks, tail) = line.as_chunks::<64>();
        for (word, block) in words.iter_mut().zip(blocks) {
            let (quotes, slashes) = masks(block);
            *word = quotes;
            backslashes |= slashes;
        }
        if !tail.is_empty() {
            // The line's last 64 bytes, shifted so that bit 0 is the
            // tail's first byte; a line shorter than that, padded.
            let (quotes, slashes) = match line.last_chunk::<64>() {
                Some(last) => {
                    let (quotes, slashes) = masks(last);
                    let shift = 64 - tail.len();
                    (quotes >> shift, slashes >> shift)
                }
                None => {
                    let mut block = [0u8; 64];
                    block[..tail.len()].copy_from_slice(tail);
                    masks(&block)
                }
            };
            words[blocks.len()] = quotes;
            backslashes |= slashes;
        }
        (backslashes == 0).then_some(Quotes {
            words,
            len: line.len(),
        })
    }

    /// The first quote at or after `from`.
    #[inline]
    fn next(&self, from: usize) -> Option<usize> {
        let mut word = from / 64;
        let mut bits = *self.words.get(word)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                let at = word * 64 + bits.trailing_zeros() as usize;
                return (at < self.len).then_some(at);
            }
            word += 1;
            bits = *self.words.get(word)?;
        }
    }
}

/// The first blank at or after `from`.
#[inline]
fn next_blank(line: &[u8], from: usize) -> Option<usize> {
    if from > line.len() {
        return None;
    }
    find_byte(line, from, b' ')
}

/// A status: `-`, or three digits, followed by a blank. Gives it
/// and where the blank is.
#[inline]
fn status(line: &[u8], from: usize) -> Option<(Option<u16>, usize)> {
    let digit = |b: u8| u16::from(b - b'0');
    match line.get(from..)? {
        [a @ b'0'..=b'9', b @ b'0'..=b'9', c @ b'0'..=b'9', b' ', ..] => {
            Some((Some(digit(*a) * 100 + digit(*b) * 10 + digit(*c)), from + 3))
        }
        [b'-', b' ', ..] => Some((None, from + 1)),
        _ => None,
    }
}

/// Reads `line` (without its line end, not empty) as `family`, or `None`
/// to leave it to the general reader.
#[inline(always)]
pub(crate) fn read(line: &[u8], family: Family) -> Option<Entry<'_>> {
    let quotes = Quotes::new(line)?;
    let mut entry = Entry::EMPTY;
    let mut pos = 0;
    if family == Family::VhostCombined {
        // `%v:%p `: the host ends at the last `:` before the blank (after
        // the `]` of a bracketed IPv6 address; an unbracketed one holds
        // `:`s of its own), the port at the blank.
        let from = fields::port_colon_from(line, 0);
        let blank = next_blank(line, from)?;
        let run = &line[from..blank];
        if memchr::memchr(b'\t', run).is_some() {
            return None;
        }
        let colon = from + memchr::memrchr(b':', run)?;
        entry.vhost = present(&line[..colon]);
        // Apache's `%p` is always a number (an empty one is a syslog tag,
        // `nginx: `, read as a host).
        if !fields::is_port_number(&line[colon + 1..blank]) {
            return None;
        }
        pos = blank + 1;
    }
    // The client, up to the blank: most are IPv4 addresses; others all
    // host bytes, which makes them a name or nothing; the rest (IPv6) are
    // checked whole in `accept`.
    let blank = next_blank(line, pos)?;
    let client = if fields::is_ipv4(&line[pos..blank]) {
        ClientText::Ipv4
    } else if fields::host_bytes_end(line, pos) == blank {
        ClientText::HostBytes
    } else {
        ClientText::Other
    };
    entry.client = &line[pos..blank];
    pos = blank + 1;
    if family == Family::NginxCombined {
        // ` - ` is fixed text of the format.
        if line.get(pos..pos + 2)? != b"- " {
            return None;
        }
        pos += 2;
    } else {
        // The ident: nearly always `-`; any other is the general reader's
        // to judge (an address there is a line cut in the wrong places).
        let blank = next_blank(line, pos)?;
        if &line[pos..blank] != b"-" {
            return None;
        }
        pos = blank + 1;
    }
    // The user, then ` [`: an address as the name, or a bare quote in
    // it, is the general reader's too.
    let blank = next_blank(line, pos)?;
    let user = &line[pos..blank];
    if user != b"-"
        && (fields::is_ipv4(user) || fields::is_ipv6(user) || memchr::memchr(b'"', user).is_some())
    {
        return None;
    }
    pos = blank + 1;
    if line.get(pos)? != &b'[' {
        return None;
    }
    let (time, used) = clf_prefix(line.get(pos + 1..)?)?;
    entry.time = time;
    pos += 1 + used;
    if line.get(pos..pos + 3)? != b"] \"" {
        return None;
    }
    pos += 3;
    let close = quotes.next(pos)?;
    if line.get(close + 1)? != &b' ' {
        return None;
    }
    entry.request = &line[pos..close];
    let (status, blank) = status(line, close + 2)?;
    entry.status = status;
    if family == Family::Common {
        // `%b` last, up to a blank or the end; a raw CR after it, a tab in
        // it (a field of blanks does not fit) or a value that is no
        // number is the general reader's to refuse.
        let size_end = next_blank(line, blank + 1).unwrap_or(line.len());
        if memchr::memchr2(b'\r', b'\t', &line[blank..]).is_some()
            || !fields::is_number(line.get(blank + 1..size_end)?)
        {
            return None;
        }
        return accept(entry, client, family);
    }
    // `%b`, a number or `-` (a line that lacks it puts the referer's
    // quote there: the general reader's to refuse), then ` "`.
    pos = next_blank(line, blank + 1)? + 1;
    if line.get(pos)? != &b'"' || !fields::is_number(&line[blank + 1..pos - 1]) {
        return None;
    }
    let referer_end = quotes.next(pos + 1)?;
    if line.get(referer_end + 1..referer_end + 3)? != b" \"" {
        return None;
    }
    pos = referer_end + 3;
    let agent_end = quotes.next(pos)?;
    // The last field: its quote closes at the end or before a blank.
    if line
        .get(agent_end + 1)
        .is_some_and(|b| !b.is_ascii_whitespace())
    {
        return None;
    }
    // Fields after it are ignored, but a raw CR among them is the general
    // reader's to refuse (a file of CR line ends).
    if line.len() > agent_end + 1 && memchr::memchr(b'\r', &line[agent_end + 1..]).is_some() {
        return None;
    }
    entry.user_agent = present(&line[pos..agent_end]);
    accept(entry, client, family)
}

/// What `read` learnt of the client's text while finding its end.
#[derive(Clone, Copy)]
enum ClientText {
    /// An IPv4 address: a client.
    Ipv4,
    /// All host bytes: only its numeric tail is left to check.
    HostBytes,
    /// Anything else: checked whole.
    Other,
}

/// The checks the general reader makes on the fields it cut.
#[inline(always)]
fn accept(entry: Entry<'_>, client: ClientText, family: Family) -> Option<Entry<'_>> {
    // nginx's `$remote_addr` is an address (or `unix:`), never a name.
    let named = |client| family != Family::NginxCombined || fields::is_address_client(client);
    let fits = !entry.client.is_empty()
        && match client {
            ClientText::Ipv4 => true,
            ClientText::HostBytes => fields::is_plain_client(entry.client) && named(entry.client),
            ClientText::Other => fields::is_client(entry.client) && named(entry.client),
        }
        && entry.vhost.is_none_or(fields::is_server_host);
    fits.then_some(entry)
}

/// A logged value, or `None` for `-` and empty.
#[inline]
fn present(value: &[u8]) -> Option<&[u8]> {
    match value {
        b"" | b"-" => None,
        _ => Some(value),
    }
}

#[cfg(test)]
#[path = "clf_family_tests.rs"]
mod tests;
