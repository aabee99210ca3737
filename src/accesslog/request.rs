//! What was fetched: takes a logged request line (`GET /a?b HTTP/1.1`),
//! cut by its own blanks before its escapes are decoded, and gives its
//! method, target and protocol, or says
//! that the line is not a fetch (SPEC §4 "A fetch is any parsed log line
//! with a request target"; RFC 9112 §3 request line and request-target
//! forms).
//!
//! Origin form (`/p?q`) is the target as it stands; absolute form
//! (`http://host:port/p?q`) is cut to `/p?q`. Asterisk form (`OPTIONS *`),
//! authority form (`CONNECT host:443`), and anything that is not a request
//! line at all (TLS bytes sent to a plain port, `-`, an empty field, a
//! target that starts with neither `/` nor a scheme) are not fetches.

use std::borrow::Cow;

/// A request line that names a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request<'a> {
    /// As logged (`GET`, `HEAD`, …).
    pub method: &'a [u8],
    /// Path and query, starting with `/`; from an absolute URL the scheme
    /// and host are removed.
    pub target: Cow<'a, [u8]>,
    /// `HTTP/1.1` and the like; empty for an HTTP/0.9 line without one.
    pub protocol: &'a [u8],
}

/// The outcome of reading a request line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetch<'a> {
    Target(Request<'a>),
    NotAFetch,
}

/// RFC 9110 §5.6.2 token characters, which is all a method may hold.
fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The length of an RFC 3986 scheme followed by `://` at the front, if any.
fn scheme_length(target: &[u8]) -> Option<usize> {
    let first = *target.first()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let length = target
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    target[length..].starts_with(b"://").then_some(length + 3)
}

/// Cuts an absolute URL to its path and query (SPEC §5 `target`):
/// `http://h:80/p?q#f` is `/p?q`, `http://h` is `/`, `http://h?q` is
/// `/?q`; the fragment, neither path nor query, goes. A path is kept as
/// logged, fragment and all.
pub fn origin_form(target: &[u8]) -> Option<Cow<'_, [u8]>> {
    if target.first() == Some(&b'/') {
        return Some(Cow::Borrowed(target));
    }
    let after_scheme = &target[scheme_length(target)?..];
    let authority = after_scheme
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(after_scheme.len());
    let rest = &after_scheme[authority..];
    let rest = &rest[..memchr::memchr(b'#', rest).unwrap_or(rest.len())];
    Some(match rest.first() {
        Some(b'/') => Cow::Borrowed(rest),
        Some(b'?') => {
            let mut owned = Vec::with_capacity(rest.len() + 1);
            owned.push(b'/');
            owned.extend_from_slice(rest);
            Cow::Owned(owned)
        }
        _ => Cow::Borrowed(b"/"),
    })
}

fn trim_spaces(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// Cuts a request line into method, target and protocol by its blanks.
///
/// The method is the first word and the protocol the last, when it starts
/// with `HTTP/`; whatever lies between is the target, spaces and all, since
/// a server logs the line as the client sent it. `None` when the line has
/// no target (`GET`, `GET HTTP/1.1`).
///
/// A log's line is cut while its escapes still stand (`Entry::request_parts`): a
/// blank the log wrote as an escape (`/doc.pdf\t`, `\x20`) is part of the
/// target the client sent, never a separator to trim.
pub fn split_request(line: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    split_request_by(line, is_protocol)
}

/// `split_request`, with `protocol` telling whether a word, as logged, is
/// the protocol: a log whose escapes could spell it (JSON's `HTTP\/1.1`,
/// as PHP's `json_encode` writes every slash) decodes the word first.
pub fn split_request_by(
    line: &[u8],
    protocol: impl Fn(&[u8]) -> bool,
) -> Option<(&[u8], &[u8], &[u8])> {
    let line = trim_spaces(line);
    let space = memchr::memchr2(b' ', b'\t', line)?;
    let method = &line[..space];
    let rest = trim_spaces(&line[space + 1..]);
    match memchr::memrchr2(b' ', b'\t', rest) {
        Some(at) if protocol(&rest[at + 1..]) => {
            Some((method, trim_spaces(&rest[..at]), &rest[at + 1..]))
        }
        // `GET HTTP/1.1`: no target at all.
        _ if protocol(rest) => None,
        _ => Some((method, rest, &rest[rest.len()..])),
    }
}

/// Whether `word` is a protocol: it starts with `HTTP/`, in any case.
pub fn is_protocol(word: &[u8]) -> bool {
    word.get(..5)
        .is_some_and(|head| head.eq_ignore_ascii_case(b"HTTP/"))
}

/// A fetch of `target` by `method` (both decoded): not one when the method
/// is no token or `CONNECT`, or the target neither a path nor an absolute
/// URL.
pub fn fetch_of<'a>(method: &'a [u8], target: &'a [u8], protocol: &'a [u8]) -> Fetch<'a> {
    if !is_token(method) || method.eq_ignore_ascii_case(b"CONNECT") {
        return Fetch::NotAFetch;
    }
    match origin_form(target) {
        Some(target) => Fetch::Target(Request {
            method,
            target,
            protocol,
        }),
        None => Fetch::NotAFetch,
    }
}

/// Reads a request line whose escapes are decoded (or that has none).
pub fn parse_request(line: &[u8]) -> Fetch<'_> {
    match split_request(line) {
        Some((method, target, protocol)) => fetch_of(method, target, protocol),
        None => Fetch::NotAFetch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        type Case = (
            &'static [u8],
            Option<(&'static [u8], &'static [u8], &'static [u8])>,
        );
        let cases: &[Case] = &[
            (b"GET /a?b HTTP/1.1", Some((b"GET", b"/a?b", b"HTTP/1.1"))),
            (b"HEAD / HTTP/1.0", Some((b"HEAD", b"/", b"HTTP/1.0"))),
            (
                b"POST /form HTTP/2.0",
                Some((b"POST", b"/form", b"HTTP/2.0")),
            ),
            (b"GET /robots.txt", Some((b"GET", b"/robots.txt", b""))),
            (b"GET /a b HTTP/1.1", Some((b"GET", b"/a b", b"HTTP/1.1"))),
            (b"GET  /a  HTTP/1.1 ", Some((b"GET", b"/a", b"HTTP/1.1"))),
            (b"get /a http/1.1", Some((b"get", b"/a", b"http/1.1"))),
            (
                b"GET http://example.com:8080/p?q HTTP/1.1",
                Some((b"GET", b"/p?q", b"HTTP/1.1")),
            ),
            (
                b"GET http://example.com HTTP/1.1",
                Some((b"GET", b"/", b"HTTP/1.1")),
            ),
            (
                b"GET https://example.com/ HTTP/1.1",
                Some((b"GET", b"/", b"HTTP/1.1")),
            ),
            (
                b"GET HTTP://EXAMPLE.COM?x=1 HTTP/1.1",
                Some((b"GET", b"/?x=1", b"HTTP/1.1")),
            ),
            (
                b"GET http://[2001:db8::1]:80/v6 HTTP/1.1",
                Some((b"GET", b"/v6", b"HTTP/1.1")),
            ),
            // An absolute URL is cut to path and query: its fragment goes;
            // a path's stays as logged.
            (
                b"GET http://ex.cz/b#frag HTTP/1.1",
                Some((b"GET", b"/b", b"HTTP/1.1")),
            ),
            (
                b"GET http://ex.cz/a?b#c?d HTTP/1.1",
                Some((b"GET", b"/a?b", b"HTTP/1.1")),
            ),
            (
                b"GET http://ex.cz#x HTTP/1.1",
                Some((b"GET", b"/", b"HTTP/1.1")),
            ),
            (
                b"GET http://ex.cz?q#x HTTP/1.1",
                Some((b"GET", b"/?q", b"HTTP/1.1")),
            ),
            (b"GET /b#x HTTP/1.1", Some((b"GET", b"/b#x", b"HTTP/1.1"))),
            (
                b"GET /\xc3\xa9\xff HTTP/1.1",
                Some((b"GET", b"/\xc3\xa9\xff", b"HTTP/1.1")),
            ),
            (
                b"PROPFIND /dav HTTP/1.1",
                Some((b"PROPFIND", b"/dav", b"HTTP/1.1")),
            ),
            (b"OPTIONS * HTTP/1.1", None),
            (
                b"OPTIONS /x HTTP/1.1",
                Some((b"OPTIONS", b"/x", b"HTTP/1.1")),
            ),
            (b"CONNECT example.com:443 HTTP/1.1", None),
            (b"connect example.com:443 HTTP/1.1", None),
            (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", None),
            (b"-", None),
            (b"", None),
            (b"GET", None),
            (b"GET HTTP/1.1", None),
            (b"GET foo HTTP/1.1", None),
            (b"GET 1http://x/ HTTP/1.1", None),
            (b"G\"T / HTTP/1.1", None),
        ];
        for &(line, expected) in cases {
            let got = match parse_request(line) {
                Fetch::Target(r) => Some((
                    r.method.to_vec(),
                    r.target.into_owned(),
                    r.protocol.to_vec(),
                )),
                Fetch::NotAFetch => None,
            };
            let expected = expected.map(|(m, t, p)| (m.to_vec(), t.to_vec(), p.to_vec()));
            assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(line));
        }
    }
}
