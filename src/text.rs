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
