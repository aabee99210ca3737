//! Making attacker-controlled log text safe to open in a spreadsheet
//! (SPEC §5): bytes that are not UTF-8 become `\xNN`, and a field a
//! spreadsheet would run as a formula gets a leading `'`. `--raw-csv` turns
//! both off.

use std::borrow::Cow;

use crate::text::escape_non_utf8;

/// How text that came from the log is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escaping {
    /// `\xNN` for non-UTF-8 bytes, `'` before formula starts.
    Safe,
    /// The bytes as they are (`--raw-csv`).
    Raw,
}

/// Starts that make a spreadsheet treat a cell as a formula.
fn is_formula_start(byte: u8) -> bool {
    matches!(byte, b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
}

impl Escaping {
    /// The bytes to write for one field of log text.
    pub fn apply<'a>(self, field: &'a [u8]) -> Cow<'a, [u8]> {
        match self {
            Escaping::Raw => Cow::Borrowed(field),
            Escaping::Safe => {
                let text = escape_non_utf8(field);
                match (text, field.first().copied().is_some_and(is_formula_start)) {
                    (text, true) => {
                        let mut out = Vec::with_capacity(text.len() + 1);
                        out.push(b'\'');
                        out.extend_from_slice(text.as_bytes());
                        Cow::Owned(out)
                    }
                    (Cow::Borrowed(s), false) => Cow::Borrowed(s.as_bytes()),
                    (Cow::Owned(s), false) => Cow::Owned(s.into_bytes()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_escaping_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"/plain/path?q=1", b"/plain/path?q=1"),
            (b"=HYPERLINK(\"x\")", b"'=HYPERLINK(\"x\")"),
            (b"+1", b"'+1"),
            (b"-2", b"'-2"),
            (b"@SUM(A1)", b"'@SUM(A1)"),
            (b"\tx", b"'\tx"),
            (b"\rx", b"'\rx"),
            (b"/a=b", b"/a=b"),
            (b"/\xff", b"/\\xFF"),
            (b"=\xfe", b"'=\\xFE"),
            (b"", b""),
        ];
        for (input, expected) in cases {
            assert_eq!(&*Escaping::Safe.apply(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn raw_keeps_bytes() {
        assert_eq!(&*Escaping::Raw.apply(b"=\xff"), b"=\xff");
    }
}
