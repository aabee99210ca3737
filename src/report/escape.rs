//! Making attacker-controlled log text safe to print and to open in a
//! spreadsheet (SPEC §5). Takes a field's bytes; gives the text to write:
//! bytes that are not UTF-8, C0 controls and DEL as `\xNN`, C1 controls and
//! bidi controls as `\u{NNNN}`, a backslash as `\\`, and a leading `'`
//! before a field a spreadsheet would run as a formula. `read_back` undoes
//! it, so every written value stands for exactly one byte string.
//! `--raw-csv` turns all of it off.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::text::control_escape;

/// How text that came from the log is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escaping {
    /// Escapes as `escape` writes them, `'` before formula starts.
    Safe,
    /// The bytes as they are (`--raw-csv`).
    Raw,
}

impl Escaping {
    /// The bytes to write for one field of log text.
    pub fn apply(self, field: &[u8]) -> Cow<'_, [u8]> {
        match self {
            Escaping::Raw => Cow::Borrowed(field),
            // Printable ASCII without a backslash or a list separator, as
            // almost every client, method and target is: written as it is
            // unless its start would run as a formula. One pass, which
            // the compiler vectorizes: no separator to look behind.
            Escaping::Safe if is_unseparated_ascii(field) => guard_if(starts_guarded(field), field),
            Escaping::Safe if is_plain_ascii(field) => guard_if(needs_guard(field), field),
            Escaping::Safe => match (needs_guard(field), escape(field)) {
                (true, text) => Cow::Owned(guarded(text.as_bytes())),
                (false, Cow::Borrowed(text)) => Cow::Borrowed(text.as_bytes()),
                (false, Cow::Owned(text)) => Cow::Owned(text.into_bytes()),
            },
        }
    }
}

/// `text`, after a `'` when `guard`.
fn guard_if(guard: bool, text: &[u8]) -> Cow<'_, [u8]> {
    if guard {
        Cow::Owned(guarded(text))
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` after the guard's `'`.
fn guarded(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 1);
    out.push(b'\'');
    out.extend_from_slice(text);
    out
}

/// The formula starts of SPEC §5: `=`, `+`, `-`, `@`, tab, carriage return,
/// and the fullwidth `＝` `＋` `－` `＠` (U+FF1D, U+FF0B, U+FF0D, U+FF20),
/// which some spreadsheets in East Asian locales read as their ASCII forms.
fn starts_formula(bytes: &[u8]) -> bool {
    matches!(
        bytes,
        [b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r', ..]
            | [0xEF, 0xBC, 0x9D | 0x8B | 0x8D | 0xA0, ..]
    )
}

/// What spreadsheets pass over before deciding whether a cell is a formula:
/// spaces (Calc's "trim spaces"), NULs (Calc drops them), and the quotes
/// of a quoted cell.
fn skip_blanks(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | 0 | b'"'))
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// Whether a field gets a leading `'`: it starts, after blanks, like a
/// formula; or it holds `;` or `,` right before a formula start (a cell
/// begins there when the file is opened with that list separator); or it
/// starts with `'` itself, which gets a second one so that a written `'`
/// at the front always means "guarded" and `read_back` is exact.
fn needs_guard(field: &[u8]) -> bool {
    starts_guarded(field)
        || memchr::memchr2_iter(b';', b',', field).any(|i| starts_formula(&field[i + 1..]))
}

/// `needs_guard` for a field without `;` or `,`: by its start alone.
fn starts_guarded(field: &[u8]) -> bool {
    field.first() == Some(&b'\'') || starts_formula(skip_blanks(field))
}

/// Whether a `;` followed by `rest` would open a formula cell in a
/// spreadsheet that splits at `;` (Excel and Calc in Czech and most other
/// European locales). The CSV's quotes do not help there: Calc with `;` as
/// separator sees a quote only at the start of a cell, and the leading `'`
/// guards only the field's own start. So such a `;` is written `\x3B` and
/// no cell starts there. Calc also evaluates `=` after trimmed spaces or a
/// quote; Excel evaluates every formula start, but only right at the cell.
fn opens_formula_cell(rest: &[u8]) -> bool {
    if starts_formula(rest) {
        return true;
    }
    let rest = skip_blanks(rest);
    rest.starts_with(b"=") || rest.starts_with("\u{FF1D}".as_bytes())
}

/// Whether valid UTF-8 text can be written as it is.
fn is_plain(text: &str) -> bool {
    text.char_indices().all(|(i, c)| match c {
        '\\' => false,
        ';' => !opens_formula_cell(&text.as_bytes()[i + 1..]),
        c => control_escape(c).is_none(),
    })
}

fn push_escaped(text: &str, out: &mut String) {
    for (i, c) in text.char_indices() {
        match (c, control_escape(c)) {
            (_, Some(escape)) => {
                let _ = write!(out, "{escape}");
            }
            ('\\', None) => out.push_str("\\\\"),
            (';', None) if opens_formula_cell(&text.as_bytes()[i + 1..]) => {
                out.push_str("\\x3B");
            }
            (c, None) => out.push(c),
        }
    }
}

/// True when every byte is printable ASCII (space to `~`) other than `\\`,
/// and no `;` opens a formula cell: text that `escape` writes as it is.
/// One pass the compiler vectorizes, before the character-by-character
/// check.
fn is_plain_ascii(bytes: &[u8]) -> bool {
    // A fold, not `all`: without the early exit the loop is vectorized.
    bytes.iter().fold(true, |plain, &b| {
        plain & (b' '..=b'~').contains(&b) & (b != b'\\')
    }) && memchr::memchr_iter(b';', bytes).all(|at| !opens_formula_cell(&bytes[at + 1..]))
}

/// True when every byte is printable ASCII other than `\\`, `;` and `,`:
/// text that `escape` writes as it is and in which no list separator can
/// start a cell (`is_plain_ascii` holds, and `needs_guard` is
/// `starts_guarded`).
fn is_unseparated_ascii(bytes: &[u8]) -> bool {
    // A fold, not `all`: without the early exit the loop is vectorized.
    bytes.iter().fold(true, |plain, &b| {
        plain & (b' '..=b'~').contains(&b) & (b != b'\\') & (b != b';') & (b != b',')
    })
}

/// The escaped text of a field, without the formula guard. Borrows when
/// nothing needs escaping, as for almost every target and user agent.
pub fn escape(bytes: &[u8]) -> Cow<'_, str> {
    if is_plain_ascii(bytes)
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        return Cow::Borrowed(text);
    }
    if let Ok(text) = std::str::from_utf8(bytes)
        && is_plain(text)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        push_escaped(chunk.valid(), &mut out);
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    Cow::Owned(out)
}

/// The bytes a written value stands for: the guard's `'` dropped, every
/// escape decoded. `None` when `written` is no value `Escaping::Safe`
/// could have written (a lone backslash, a bad escape).
pub fn read_back(written: &str) -> Option<Vec<u8>> {
    unescape(written.strip_prefix('\'').unwrap_or(written))
}

/// The bytes of a name `text::name_text` kept (a PTR name); a name from
/// DNS whose text is no such escape (`\.` of presentation format) is its
/// text.
pub fn name_bytes(text: &str) -> Cow<'_, [u8]> {
    if !text.contains('\\') {
        return Cow::Borrowed(text.as_bytes());
    }
    unescape(text).map_or(Cow::Borrowed(text.as_bytes()), Cow::Owned)
}

/// Decodes `\\`, `\xNN` and `\u{N…}`; anything else after a backslash is
/// `None`.
pub fn unescape(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let tail = &rest[at + 1..];
        rest = if let Some(after) = tail.strip_prefix('\\') {
            out.push(b'\\');
            after
        } else if let Some(after) = tail.strip_prefix('x') {
            let hex = after
                .get(..2)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            &after[2..]
        } else if let Some(after) = tail.strip_prefix("u{") {
            let end = after.find('}')?;
            let hex = &after[..end];
            if hex.is_empty() || hex.len() > 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            &after[end + 1..]
        } else {
            return None;
        };
    }
    out.extend_from_slice(rest.as_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every field of up to five bytes from formula starts, separators,
    /// quotes, blanks, a backslash, a control, a byte past ASCII and
    /// letters: written by `apply` as by the checks of a plain field
    /// without the one-pass shortcut (`is_plain_ascii`, then
    /// `needs_guard`), and as `escape` with the guard otherwise.
    #[test]
    fn unseparated_fields_are_written_as_the_full_checks_write_them() {
        let alphabet = b"=+-@;,' \"\\\t\x01\xC3ab";
        let mut level: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..5 {
            for field in &level {
                let expected: Vec<u8> = if is_plain_ascii(field) {
                    if needs_guard(field) {
                        guarded(field)
                    } else {
                        field.clone()
                    }
                } else if needs_guard(field) {
                    guarded(escape(field).as_bytes())
                } else {
                    escape(field).as_bytes().to_vec()
                };
                assert_eq!(
                    *Escaping::Safe.apply(field),
                    *expected,
                    "{}",
                    String::from_utf8_lossy(field)
                );
            }
            level = level
                .iter()
                .flat_map(|f| alphabet.iter().map(move |&b| [f.as_slice(), &[b]].concat()))
                .collect();
        }
    }

    #[test]
    fn names_read_back_to_their_bytes() {
        use crate::text::name_text;
        // The byte 0xFF and the text `\xFF` are two names, and stay two.
        for name in [
            &b"a\xffb.example"[..],
            b"a\\xFFb.example",
            b"fulltextrobot-77-75-77-1.seznam.cz",
            b"back\\slash\\",
            b"\\x4",
            b"\xc3",
        ] {
            let text = name_text(name);
            assert_eq!(&*name_bytes(&text), name, "{text}");
        }
        assert_ne!(name_text(b"a\xffb"), name_text(b"a\\xFFb"));
    }

    fn safe(input: &[u8]) -> String {
        String::from_utf8(Escaping::Safe.apply(input).into_owned()).expect("UTF-8")
    }

    #[test]
    fn safe_escaping_table() {
        let cases: &[(&[u8], &str)] = &[
            (b"/plain/path?q=1", "/plain/path?q=1"),
            (b"", ""),
            ("/čeština".as_bytes(), "/čeština"),
            // Formula starts, also after spaces and NULs, and fullwidth.
            (b"=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            (b"+1", "'+1"),
            (b"-2", "'-2"),
            (b"@SUM(A1)", "'@SUM(A1)"),
            (b"\tx", "'\\x09x"),
            (b"\rx", "'\\x0Dx"),
            (b"  =1", "'  =1"),
            (b"\0\0=1", "'\\x00\\x00=1"),
            (b" \0 @x", "' \\x00 @x"),
            ("＝1".as_bytes(), "'＝1"),
            ("＋1".as_bytes(), "'＋1"),
            ("－1".as_bytes(), "'－1"),
            ("＠x".as_bytes(), "'＠x"),
            (b"\"=1\"", "'\"=1\""),
            // `;` and `,` right before a formula start.
            (b"a,=1", "'a,=1"),
            (b"a,@x", "'a,@x"),
            (b"a;=1", "'a\\x3B=1"),
            (b"a;-1", "'a\\x3B-1"),
            ("a;＝1".as_bytes(), "'a\\x3B＝1"),
            (b"a; =1", "a\\x3B =1"),
            (b"a;\"=1", "a\\x3B\"=1"),
            // SeznamBot's own user agent stays as it is: `; +http` opens no
            // formula anywhere.
            (
                b"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
                "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
            ),
            (b"/a=b", "/a=b"),
            (b"/a;b", "/a;b"),
            // A leading `'` is doubled, so a written `'` always means guard.
            (b"'x", "''x"),
            (b"'=1", "''=1"),
            // Escapes.
            (b"/\xff", "/\\xFF"),
            (b"=\xfe", "'=\\xFE"),
            (b"\xc3", "\\xC3"),
            (b"a\\xFFb", "a\\\\xFFb"),
            (b"\\", "\\\\"),
            (b"\x1b[31mred\x1b[0m", "\\x1B[31mred\\x1B[0m"),
            (b"\x07\x7f", "\\x07\\x7F"),
            (b"\n", "\\x0A"),
            ("a\u{85}b\u{9b}c".as_bytes(), "a\\u{0085}b\\u{009B}c"),
            ("\u{202E}txt.exe".as_bytes(), "\\u{202E}txt.exe"),
            ("\u{202A}\u{2066}\u{2069}".as_bytes(), "\\u{202A}\\u{2066}\\u{2069}"),
            // Not controls: left as they are.
            ("\u{A0}\u{2029}\u{200F}".as_bytes(), "\u{A0}\u{2029}\u{200F}"),
            // The raw bytes of a C1 control that are not UTF-8 are bytes.
            (b"\x85", "\\x85"),
        ];
        for (input, expected) in cases {
            assert_eq!(safe(input), *expected, "{input:?}");
            assert_eq!(
                read_back(expected).as_deref(),
                Some(*input),
                "read back {expected:?}"
            );
        }
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            Escaping::Safe.apply("/čeština?q=1".as_bytes()),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn raw_keeps_bytes() {
        assert_eq!(&*Escaping::Raw.apply(b"=\xff\x1b;=\\"), b"=\xff\x1b;=\\");
    }

    #[test]
    fn malformed_escapes_do_not_read_back() {
        for bad in [
            "\\",
            "a\\q",
            "\\x4",
            "\\xZZ",
            "\\u{}",
            "\\u{D800}",
            "\\u{110000}",
            "\\u{41",
        ] {
            assert_eq!(unescape(bad), None, "{bad:?}");
        }
    }

    /// Bytes that hit every rule often: controls, C1 and bidi controls in
    /// UTF-8, fullwidth formula starts, separators, quotes, backslashes.
    fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            any::<u8>().prop_map(|b| vec![b]),
            prop::sample::select(vec![
                "=", "+", "-", "@", "\t", "\r", "\n", ";", ",", " ", "\0", "'", "\"", "\\",
                "\\x41", "\\u{41}", "\x1b", "\x7f", "\u{85}", "\u{9f}", "\u{202E}", "\u{2066}",
                "\u{FF1D}", "\u{FF0B}", "\u{FF0D}", "\u{FF20}", "a", "é",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    fn is_forbidden(c: char) -> bool {
        matches!(c, '\0'..='\x1F' | '\x7F' | '\u{80}'..='\u{9F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    }

    proptest! {
        #[test]
        fn every_written_value_reads_back_to_its_bytes(bytes in hostile_bytes()) {
            let written = Escaping::Safe.apply(&bytes).into_owned();
            let text = String::from_utf8(written).expect("written text is UTF-8");
            prop_assert!(!text.chars().any(is_forbidden), "{text:?}");
            prop_assert_eq!(read_back(&text), Some(bytes));
        }

        #[test]
        fn arbitrary_bytes_read_back(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let text = String::from_utf8(Escaping::Safe.apply(&bytes).into_owned())
                .expect("written text is UTF-8");
            prop_assert!(!text.chars().any(is_forbidden), "{text:?}");
            prop_assert_eq!(read_back(&text), Some(bytes));
        }

        /// No cell can open as a formula: an unguarded value starts with no
        /// formula start after blanks, and no `;` in any value is followed
        /// by one.
        #[test]
        fn no_cell_opens_as_a_formula(bytes in hostile_bytes()) {
            let written = Escaping::Safe.apply(&bytes).into_owned();
            if written.first() != Some(&b'\'') {
                prop_assert!(!starts_formula(skip_blanks(&written)), "{written:?}");
            }
            for (i, &b) in written.iter().enumerate() {
                if b == b';' {
                    prop_assert!(!opens_formula_cell(&written[i + 1..]), "{written:?}");
                }
            }
        }
    }
}
