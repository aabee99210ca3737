//! Decoding a parsed line's text once, for the lines that need it: takes an
//! `Entry` whose fields are still escaped as its log writes them and gives
//! the request line and user agent the client sent (SPEC §1 "every escape
//! is decoded").
//!
//! Each kind of log escapes in its own way, and decoding twice would be
//! wrong (a JSON `\\x22` is the four bytes `\x22`, not a quote): an entry
//! says which way its text is escaped, and only this file decodes it.
//! Apache and nginx backslash escapes (`escape::unescape`); JSON string
//! escapes (`\"`, `\\`, `\/`, `\uXXXX` with surrogate pairs); W3C, where
//! IIS writes `+` for a blank in `cs(User-Agent)` and CloudFront
//! percent-encodes its user agents.

use std::borrow::Cow;

use super::entry::{Entry, LogEscaping};
use super::escape::unescape;
use super::request::{is_protocol, split_request_by};

/// A request's parts, each decoded (`Entry::request_parts`).
pub struct RequestParts<'a> {
    pub method: Cow<'a, [u8]>,
    /// With its query, when the log writes it apart.
    pub target: Cow<'a, [u8]>,
    /// `HTTP/1.1`; empty when the log writes none.
    pub protocol: &'a [u8],
}

impl Entry<'_> {
    /// The request line, decoded: `METHOD TARGET[?QUERY]` when the log
    /// writes the parts apart, else the logged line. For the tests, which
    /// see a line's request whole; the audit reads `request_parts`.
    #[cfg(test)]
    pub fn request_line(&self) -> Cow<'_, [u8]> {
        let Some(method) = self.method else {
            return self.decoded(self.request);
        };
        let mut line = self.decoded(method).into_owned();
        line.push(b' ');
        line.extend_from_slice(&self.target_apart());
        Cow::Owned(line)
    }

    /// The request's method, target (with its query) and protocol, each
    /// decoded; `None` when the line names no target. A request line
    /// logged whole is cut by its own blanks before its escapes are
    /// decoded: a blank the log wrote as an escape (`/doc.pdf\t`) belongs
    /// to the target (SPEC §5 "target: as logged, escapes decoded").
    pub fn request_parts(&self) -> Option<RequestParts<'_>> {
        let Some(method) = self.method else {
            // The protocol as decoded: JSON may write `HTTP\/1.1`.
            let (method, target, protocol) =
                split_request_by(self.request, |word| is_protocol(&self.decoded(word)))?;
            return Some(RequestParts {
                method: self.decoded(method),
                target: self.decoded(target),
                protocol,
            });
        };
        Some(RequestParts {
            method: self.decoded(method),
            target: self.target_apart(),
            protocol: b"",
        })
    }

    /// The target of a log that writes the request in parts, decoded, with
    /// `?` and its query when the log writes that apart too.
    fn target_apart(&self) -> Cow<'_, [u8]> {
        let target = self.decoded(self.request);
        let Some(query) = self.query else {
            return target;
        };
        let mut joined = target.into_owned();
        joined.push(b'?');
        joined.extend_from_slice(&self.decoded(query));
        Cow::Owned(joined)
    }

    /// The user agent, decoded; `None` when the line has none.
    pub fn user_agent_text(&self) -> Option<Cow<'_, [u8]>> {
        let raw = self.user_agent?;
        Some(match self.escaping {
            LogEscaping::Backslash => unescape(raw),
            LogEscaping::Json => json_unescape(raw),
            LogEscaping::W3c => w3c_user_agent(raw),
            LogEscaping::W3cQuoted => w3c_quoted(raw),
        })
    }

    /// The user agent as a search for crawler names must read it: as
    /// logged, unless the log's escapes could spell a name's letters
    /// (JSON's `\u0053`, W3C's `%53` or `+` for a blank), then decoded.
    /// Apache's and nginx's `\xHH` is left as logged: the search has a
    /// needle for it (`crawler::identify`).
    pub fn user_agent_to_search(&self) -> Option<Cow<'_, [u8]>> {
        let raw = self.user_agent?;
        let escaped = match self.escaping {
            LogEscaping::Json => memchr::memchr(b'\\', raw).is_some(),
            LogEscaping::W3c => memchr::memchr2(b'%', b'+', raw).is_some(),
            LogEscaping::Backslash | LogEscaping::W3cQuoted => false,
        };
        if escaped {
            self.user_agent_text()
        } else {
            Some(Cow::Borrowed(raw))
        }
    }

    /// A request field decoded as the log escapes it. W3C targets stay as
    /// logged: percent-encoding there is the URL's own, which the matcher
    /// normalises.
    fn decoded<'a>(&self, raw: &'a [u8]) -> Cow<'a, [u8]> {
        match self.escaping {
            LogEscaping::Backslash => unescape(raw),
            LogEscaping::Json => json_unescape(raw),
            LogEscaping::W3c | LogEscaping::W3cQuoted => Cow::Borrowed(raw),
        }
    }
}

fn hex_digit(b: u8) -> Option<u16> {
    (b as char).to_digit(16).map(|d| d as u16)
}

fn hex4(s: &[u8]) -> Option<u16> {
    let s = s.get(..4)?;
    s.iter()
        .try_fold(0u16, |acc, &b| Some(acc << 4 | hex_digit(b)?))
}

/// Decodes the inside of a JSON string (RFC 8259 §7). A `\u` escape of a
/// lone surrogate becomes U+FFFD; a backslash before anything else is kept.
pub fn json_unescape(raw: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = memchr::memchr(b'\\', raw) else {
        return Cow::Borrowed(raw);
    };
    let mut out = Vec::with_capacity(raw.len());
    out.extend_from_slice(&raw[..first]);
    let mut rest = &raw[first..];
    while let Some(at) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at..];
        let simple = match rest.get(1) {
            Some(b'"') => Some(b'"'),
            Some(b'\\') => Some(b'\\'),
            Some(b'/') => Some(b'/'),
            Some(b'b') => Some(0x08),
            Some(b'f') => Some(0x0c),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            rest = &rest[2..];
            continue;
        }
        let Some(unit) = (rest.get(1) == Some(&b'u'))
            .then(|| hex4(&rest[2..]))
            .flatten()
        else {
            out.push(b'\\');
            rest = &rest[1..];
            continue;
        };
        let mut used = 6;
        let c = if (0xd800..0xdc00).contains(&unit) {
            match (rest.get(6..8), rest.get(8..).and_then(hex4)) {
                (Some(b"\\u"), Some(low)) if (0xdc00..0xe000).contains(&low) => {
                    used = 12;
                    let code =
                        0x10000 + ((u32::from(unit) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                    char::from_u32(code)
                }
                _ => None,
            }
        } else {
            char::from_u32(u32::from(unit))
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.unwrap_or('\u{fffd}').encode_utf8(&mut buf).as_bytes());
        rest = &rest[used..];
    }
    out.extend_from_slice(rest);
    Cow::Owned(out)
}

/// Decodes a W3C user agent. A percent-encoded one (CloudFront, which
/// writes `%20` for a blank and keeps `+` as it is) has its `%XX` decoded,
/// once (`%2520` is `%20`); otherwise `+` is a blank (IIS).
pub fn w3c_user_agent(raw: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr2(b'+', b'%', raw).is_none() {
        return Cow::Borrowed(raw);
    }
    let percent_encoded = raw
        .windows(3)
        .any(|w| w[0] == b'%' && hex_digit(w[1]).is_some() && hex_digit(w[2]).is_some());
    let mut out = Vec::with_capacity(raw.len());
    let mut at = 0;
    while at < raw.len() {
        match raw[at] {
            b'+' if !percent_encoded => {
                out.push(b' ');
                at += 1;
            }
            b'%' => match (
                raw.get(at + 1).copied().and_then(hex_digit),
                raw.get(at + 2).copied().and_then(hex_digit),
            ) {
                (Some(high), Some(low)) => {
                    out.push((high << 4 | low) as u8);
                    at += 3;
                }
                _ => {
                    out.push(b'%');
                    at += 1;
                }
            },
            other => {
                out.push(other);
                at += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Decodes the inside of a W3C quoted string: `""` is one quote.
pub fn w3c_quoted(raw: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memmem::find(raw, b"\"\"").is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = memchr::memmem::find(rest, b"\"\"") {
        out.extend_from_slice(&rest[..=at]);
        rest = &rest[at + 2..];
    }
    out.extend_from_slice(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"plain", b"plain"),
            (br#"say \"hi\""#, br#"say "hi""#),
            (br"\/a\/b", b"/a/b"),
            (br"\u0022quoted\u0022", b"\"quoted\""),
            (br"a\u0026b", b"a&b"),
            (br"\u00e9t\u00E9", "été".as_bytes()),
            (br"\ud83d\ude00", "😀".as_bytes()),
            (br"\ud83d", "\u{fffd}".as_bytes()),
            (br"\\x22", br"\x22"),
            (br"\t\n\r\b\f", b"\t\n\r\x08\x0c"),
            (br"\q", br"\q"),
            (br"\u12", br"\u12"),
            (br"end\", br"end\"),
        ];
        for &(raw, want) in cases {
            assert_eq!(
                &*json_unescape(raw),
                want,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
        assert!(matches!(json_unescape(b"/a?b"), Cow::Borrowed(_)));
    }

    #[test]
    fn w3c_user_agents() {
        let cases: &[(&[u8], &[u8])] = &[
            (
                b"Mozilla/5.0+(compatible;+SeznamBot/4.0;++http://napoveda.seznam.cz/seznambot-intro/)",
                b"Mozilla/5.0 (compatible; SeznamBot/4.0;  http://napoveda.seznam.cz/seznambot-intro/)",
            ),
            (
                b"Mozilla/5.0%20(compatible;%20SeznamBot/4.0;%20+http://x/)",
                b"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://x/)",
            ),
            (b"a%2Bb%2520c+d", b"a+b%20c+d"),
            (b"100%", b"100%"),
            (b"%zz", b"%zz"),
        ];
        for &(raw, want) in cases {
            assert_eq!(
                &*w3c_user_agent(raw),
                want,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn request_lines_joined_and_decoded_once() {
        let entry = Entry {
            request: br"/a\/b",
            method: Some(b"GET"),
            escaping: LogEscaping::Json,
            ..Entry::EMPTY
        };
        assert_eq!(&*entry.request_line(), b"GET /a/b");
        let entry = Entry {
            request: b"/a%20b",
            method: Some(b"GET"),
            query: Some(b"q=%22"),
            escaping: LogEscaping::W3c,
            ..Entry::EMPTY
        };
        assert_eq!(&*entry.request_line(), b"GET /a%20b?q=%22");
        let entry = Entry {
            request: br"GET /\x22 HTTP/1.1",
            user_agent: Some(br"a\x20b"),
            ..Entry::EMPTY
        };
        assert_eq!(&*entry.request_line(), b"GET /\" HTTP/1.1");
        assert_eq!(entry.user_agent_text().as_deref(), Some(&b"a b"[..]));
    }
}
