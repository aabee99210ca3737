//! Turning bytes written by strangers into text that can be printed: valid
//! UTF-8 passes through, every other byte becomes `\xNN` (SPEC §5); and
//! bounding the log text the tool keeps (`bound`, SPEC §5 "Kept log text").

use std::borrow::Cow;
use std::fmt::Write;

/// Escapes every byte that is not part of valid UTF-8 as `\xNN`.
/// Borrows when the input is already valid UTF-8.
pub fn escape_non_utf8(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    let _ = write!(out, "\\x{b:02X}");
                }
            }
            Cow::Owned(out)
        }
    }
}

/// A name whose bytes may not be UTF-8 (a PTR map's, SPEC §1 "taken as
/// written, whatever bytes it holds") held in a `String` without loss: a
/// byte outside UTF-8 as `\xNN` and a backslash as `\\`, so that
/// `report::escape::name_bytes` gives the bytes back and the reports
/// escape them once (SPEC §5: every written value reads back to one byte
/// string).
pub fn name_text(bytes: &[u8]) -> Cow<'_, str> {
    if !bytes.contains(&b'\\') {
        return escape_non_utf8(bytes);
    }
    let mut doubled = Vec::with_capacity(bytes.len() + 8);
    for &b in bytes {
        doubled.push(b);
        if b == b'\\' {
            doubled.push(b);
        }
    }
    Cow::Owned(escape_non_utf8(&doubled).into_owned())
}

/// How a character that is valid UTF-8 is still written as an escape
/// (SPEC §5): C0 controls and DEL as `\xNN` (they are ASCII, one byte
/// each), C1 controls (U+0080–U+009F) and bidi controls (U+202A–U+202E,
/// U+2066–U+2069) as `\u{NNNN}`, the character and not its UTF-8 bytes,
/// since `\xNN` stands for one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlEscape {
    Byte(u8),
    Char(u32),
}

impl std::fmt::Display for ControlEscape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ControlEscape::Byte(b) => write!(f, "\\x{b:02X}"),
            ControlEscape::Char(n) => write!(f, "\\u{{{n:04X}}}"),
        }
    }
}

/// The escape of a control or bidi character; `None` for every other one.
pub fn control_escape(c: char) -> Option<ControlEscape> {
    match c {
        '\0'..='\x1F' | '\x7F' => Some(ControlEscape::Byte(c as u8)),
        '\u{80}'..='\u{9F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            Some(ControlEscape::Char(c as u32))
        }
        _ => None,
    }
}

/// Text for a terminal: control and bidi characters other than the line
/// end and tab escaped as the reports write them, so that printing a
/// stranger's robots.txt or a target runs no terminal escape and reorders
/// nothing. Borrows when nothing needs escaping.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    escaped(text, |c| match c {
        '\n' | '\t' => None,
        c => control_escape(c),
    })
}

/// Text shown for what it holds (a robots.txt line on the page, a file
/// name in `run.json`): every control and bidi character escaped as the
/// reports write them, the tab and the line end too, and nothing else.
/// Borrows when nothing needs escaping.
pub fn visible(text: &str) -> Cow<'_, str> {
    escaped(text, control_escape)
}

/// `text` with each character `escape` gives an escape for written so;
/// borrowed when there is none.
fn escaped(text: &str, escape: impl Fn(char) -> Option<ControlEscape>) -> Cow<'_, str> {
    if !text.chars().any(|c| escape(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match escape(c) {
            Some(escape) => {
                let _ = write!(out, "{escape}");
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A message for standard error: `terminal_safe`, and one line, since a
/// message is one line and a line break inside it can only have come from
/// a stranger's bytes it quotes (a JSON key, a file name), forging a line
/// of its own (`robots-audit: all clean`).
pub fn message_safe(text: &str) -> Cow<'_, str> {
    let safe = terminal_safe(text);
    if !safe.contains('\n') {
        return safe;
    }
    Cow::Owned(safe.replace('\n', "\\x0A"))
}

/// The lines of a text file, each without its line end: LF, CR and
/// CRLF each end one (robots.txt, SPEC §1, and the side files). The
/// last line may lack an end.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match memchr::memchr2(b'\n', b'\r', rest) {
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                rest = &rest[i + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = &[];
                Some(line)
            }
        }
    })
}

/// How many bytes of a target or user agent are kept (SPEC §5: 8 KiB).
/// Apache refuses request lines over 8190 bytes and nginx over its 8 KiB
/// header buffers, so a longer one in a log is junk or an attack.
pub const KEPT_TEXT: usize = 8192;

/// A target or user agent as kept: its first `KEPT_TEXT` bytes, then
/// `…[cut N bytes]` (N the bytes removed) when it was longer. The cut
/// backs off to a character boundary when it would split a valid UTF-8
/// character, so the kept text never ends in a broken one. A kept text is
/// longer than `KEPT_TEXT` exactly when it was cut.
pub fn bound(bytes: &[u8]) -> Cow<'_, [u8]> {
    if bytes.len() <= KEPT_TEXT {
        return Cow::Borrowed(bytes);
    }
    let at = char_boundary(bytes, KEPT_TEXT);
    let marker = format!("…[cut {} bytes]", bytes.len() - at);
    let mut kept = Vec::with_capacity(at + marker.len());
    kept.extend_from_slice(&bytes[..at]);
    kept.extend_from_slice(marker.as_bytes());
    Cow::Owned(kept)
}

/// `limit`, or the start of the valid UTF-8 character that `limit` would
/// split.
fn char_boundary(bytes: &[u8], limit: usize) -> usize {
    for start in limit.saturating_sub(3)..limit {
        if let Some(first) = bytes[start..(start + 4).min(bytes.len())]
            .utf8_chunks()
            .next()
            && let Some(c) = first.valid().chars().next()
            && start + c.len_utf8() > limit
        {
            return start;
        }
    }
    limit
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_message_is_one_line() {
        assert_eq!(
            message_safe("keys (a\nrobots-audit: all clean, ts)\tx"),
            "keys (a\\x0Arobots-audit: all clean, ts)\tx"
        );
        assert!(matches!(message_safe("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn visible_text_escapes_every_control_and_nothing_else() {
        assert_eq!(
            visible("a\tb\nc\x1b\u{202e};\\d\u{e9}"),
            "a\\x09b\\x0Ac\\x1B\\u{202E};\\d\u{e9}"
        );
        assert!(matches!(visible("Disallow: /a;b"), Cow::Borrowed(_)));
    }

    #[test]
    fn terminal_safe_text_runs_no_escape() {
        assert_eq!(terminal_safe("Disallow: /a\tb\n"), "Disallow: /a\tb\n");
        assert_eq!(
            terminal_safe("/cz/\u{1b}]0;owned\u{7}\u{202E}x\u{85}\u{7f}"),
            "/cz/\\x1B]0;owned\\x07\\u{202E}x\\u{0085}\\x7F"
        );
        assert!(matches!(
            terminal_safe("plain \\x41 text"),
            Cow::Borrowed(_)
        ));
    }

    use super::*;

    #[test]
    fn lf_cr_and_crlf_each_end_a_line() {
        let split: Vec<&[u8]> = lines(b"a\r\nb\rc\n\nd").collect();
        assert_eq!(split, [&b"a"[..], b"b", b"c", b"", b"d"]);
        assert_eq!(lines(b"a\n").count(), 1);
        assert_eq!(lines(b"").count(), 0);
    }

    #[test]
    fn short_text_is_kept_whole() {
        let text = vec![b'a'; KEPT_TEXT];
        assert!(matches!(bound(&text), Cow::Borrowed(t) if t == &text[..]));
    }

    #[test]
    fn long_text_is_cut_and_marked() {
        let mut text = vec![b'a'; KEPT_TEXT];
        text.extend_from_slice(b"0123456789");
        let mut want = vec![b'a'; KEPT_TEXT];
        want.extend_from_slice("…[cut 10 bytes]".as_bytes());
        assert_eq!(bound(&text).into_owned(), want);
    }

    #[test]
    fn the_cut_never_splits_a_character() {
        // `č` is two bytes; with one `a` in front, one of them straddles
        // the limit.
        let mut text = b"a".to_vec();
        text.extend("č".repeat(KEPT_TEXT).as_bytes());
        let kept = bound(&text).into_owned();
        let kept = std::str::from_utf8(&kept).expect("cut on a boundary");
        let removed = text.len() - (KEPT_TEXT - 1);
        assert_eq!(
            kept,
            format!("a{}…[cut {removed} bytes]", "č".repeat(KEPT_TEXT / 2 - 1))
        );
        // A four-byte character at every offset across the limit.
        for pad in 0..4 {
            let mut text = vec![b'a'; KEPT_TEXT - pad];
            text.extend("😀".repeat(4).as_bytes());
            let kept = bound(&text).into_owned();
            assert!(std::str::from_utf8(&kept).is_ok(), "pad {pad}");
            assert!(kept.len() > KEPT_TEXT, "pad {pad}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_cut_at_the_limit() {
        let text = vec![0xFFu8; KEPT_TEXT + 5];
        let kept = bound(&text).into_owned();
        assert_eq!(&kept[..KEPT_TEXT], &text[..KEPT_TEXT]);
        assert_eq!(&kept[KEPT_TEXT..], "…[cut 5 bytes]".as_bytes());
    }

    #[test]
    fn valid_utf8_is_borrowed() {
        assert!(matches!(
            escape_non_utf8("/čeština".as_bytes()),
            Cow::Borrowed("/čeština")
        ));
    }

    #[test]
    fn invalid_bytes_are_escaped() {
        assert_eq!(escape_non_utf8(b"/a\xff\xfeb"), "/a\\xFF\\xFEb");
        assert_eq!(escape_non_utf8(b"\xc3"), "\\xC3");
    }
}

/// A JSON string literal, quotes included (RFC 8259 §7).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod json_tests {
    use super::json_string;

    #[test]
    fn json_strings_escape_what_they_must() {
        assert_eq!(
            json_string("a\"b\\c\nd\u{1}é"),
            "\"a\\\"b\\\\c\\nd\\u0001é\""
        );
    }
}
