//! Decoding what servers escape inside quoted log fields: takes the raw
//! bytes of a field and gives the bytes the client sent (SPEC §1 "every
//! escape is decoded").
//!
//! Apache writes `\"`, `\\` and `\xhh` (and `\b`, `\t`, `\n`, `\v`, `\r`
//! for those controls: `ap_escape_logitem`); nginx writes `\xHH` for `"`, `\` and controls. Both are read
//! here. A backslash before anything else is kept as written, as is a `\x`
//! not followed by two hex digits: such bytes cannot have come from an
//! escaping server, so they are the client's own.

use std::borrow::Cow;

#[inline]
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `\xHH`, `\"`, `\\`, `\b`, `\t`, `\n`, `\v`, `\r`; borrows when there is
/// nothing to decode.
pub fn unescape(raw: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = memchr::memchr(b'\\', raw) else {
        return Cow::Borrowed(raw);
    };
    let mut out = Vec::with_capacity(raw.len());
    out.extend_from_slice(&raw[..first]);
    let mut rest = &raw[first..];
    while let Some(at) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at..];
        let (decoded, used) = match rest.get(1) {
            Some(b'"') => (b'"', 2),
            Some(b'\\') => (b'\\', 2),
            Some(b'b') => (0x08, 2),
            Some(b't') => (b'\t', 2),
            Some(b'v') => (0x0b, 2),
            Some(b'n') => (b'\n', 2),
            Some(b'r') => (b'\r', 2),
            Some(b'x') => match (
                rest.get(2).copied().and_then(hex_value),
                rest.get(3).copied().and_then(hex_value),
            ) {
                (Some(high), Some(low)) => (high << 4 | low, 4),
                _ => (b'\\', 1),
            },
            _ => (b'\\', 1),
        };
        out.push(decoded);
        rest = &rest[used..];
    }
    out.extend_from_slice(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_server_escapes() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"", b""),
            (b"plain /path?q=1", b"plain /path?q=1"),
            (br#"say \"hi\""#, br#"say "hi""#),
            (br"a\x22b", b"a\"b"),
            (br"\x5C\x5c", br"\\"),
            (br"back\\slash", br"back\slash"),
            (br"\t\n\r", b"\t\n\r"),
            // Apache's backspace and vertical tab.
            (br"\b\v", b"\x08\x0b"),
            (br"\x16\x03\x01\x00", b"\x16\x03\x01\x00"),
            (br"\xC3\xA9t\xc3\xa9", "été".as_bytes()),
            (br"\xFF", b"\xff"),
            // Not escapes: kept as written.
            (br"\q\a\f", br"\q\a\f"),
            (br"\x4", br"\x4"),
            (br"\xZZ", br"\xZZ"),
            (br"\x", br"\x"),
            (br"end\", br"end\"),
            (br"\\x41", br"\x41"),
            (b"raw \xff byte", b"raw \xff byte"),
        ];
        for &(raw, expected) in cases {
            assert_eq!(
                &*unescape(raw),
                expected,
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn borrows_when_nothing_to_decode() {
        assert!(matches!(unescape(b"/a?b=c"), Cow::Borrowed(_)));
        assert!(matches!(unescape(br"/a\x20"), Cow::Owned(_)));
    }
}
