//! Turning bytes written by strangers into text that can be printed: valid
//! UTF-8 passes through, every other byte becomes `\xNN` (SPEC §5).

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

#[cfg(test)]
mod tests {
    use super::*;

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
