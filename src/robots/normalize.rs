//! Percent-encoding normalisation of robots.txt patterns and request targets,
//! so that both sides of a comparison spell the same octets the same way.
//! Takes raw bytes, gives the normal form (RFC 9309 §2.2.2, §2.2.3; SPEC §3).
//!
//! Two forms exist. The *written* form is RFC 9309's: escapes of unreserved
//! characters decoded, every other escape in upper-case hex, and octets
//! outside printable ASCII or that RFC 3986 allows nowhere in a URI escaped.
//! It is how a rule is shown and how its length is counted. The *matching*
//! form is what the matcher compares octet by octet: the written form with a
//! literal `*` and `$` escaped too, so that a pattern's `%2A` and `%24`
//! (RFC 9309 §2.2.3) match a target's literal `*` and `$` as well as its
//! `%2A` and `%24`, while a pattern's `*` and final `$` stay its wildcard and
//! anchor. A target's escape made so stands for one character, not three:
//! [`target_form_into`] says where each begins, and the matcher lets no
//! literal piece of a pattern begin or end inside one (so `/*A` does not
//! match `/*`). Nothing else is decoded: `%2F` stays distinct from `/`, in
//! the path and in the query alike, and a `*` may end inside an escape that
//! the target holds (`/*A` matches `/%2A`).

use std::borrow::Cow;

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// RFC 3986 unreserved characters: their escapes mean the character itself.
pub fn is_unreserved(octet: u8) -> bool {
    octet.is_ascii_alphanumeric() || matches!(octet, b'-' | b'.' | b'_' | b'~')
}

/// Printable ASCII that RFC 3986 allows somewhere in a URI passes through
/// unescaped; space, `"`, `<`, `>`, `\`, `^`, the backquote, `{`, `|` and
/// `}` are allowed nowhere, so a
/// logged target or a pattern holding one is compared in its escaped form.
const fn is_plain(octet: u8) -> bool {
    0x21 <= octet
        && octet <= 0x7E
        && !matches!(
            octet,
            b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
        )
}

pub(crate) fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// Which normal form to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Written,
    Matching,
    /// The written form with a written `\` and `^` kept as they are, so
    /// that Seznam's wildcard reading tells them from a written `%5C` and
    /// `%5E` (`glob_form`).
    Glob,
}

/// Whether an octet written as itself stays itself in the given form.
#[inline(always)]
fn stays_plain(octet: u8, form: Form) -> bool {
    PLAIN[usize::from(octet)] & form.bit() != 0
}

impl Form {
    /// This form's bit in `PLAIN`.
    #[inline(always)]
    fn bit(self) -> u8 {
        match self {
            Form::Written => 1,
            Form::Matching => 2,
            Form::Glob => 4,
        }
    }
}

/// For each octet, the forms it stays itself in, a bit each
/// (`Form::bit`): a look-up where every target octet of every fetch took
/// a match on the form and a run of compares.
static PLAIN: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut at = 0;
    while at < 256 {
        let octet = at as u8;
        let plain = is_plain(octet);
        let mut bits = 0;
        if plain {
            bits |= 1;
        }
        if plain && !matches!(octet, b'*' | b'$') {
            bits |= 2;
        }
        if plain || matches!(octet, b'\\' | b'^') {
            bits |= 4;
        }
        table[at] = bits;
        at += 1;
    }
    table
};

/// Reads a `%XX` escape at the start of `bytes`.
fn escape_at(bytes: &[u8]) -> Option<u8> {
    match bytes {
        [b'%', high, low, ..] => Some(hex_value(*high)? << 4 | hex_value(*low)?),
        _ => None,
    }
}

fn push_escaped(out: &mut Vec<u8>, octet: u8) {
    out.extend_from_slice(&[
        b'%',
        HEX[usize::from(octet >> 4)],
        HEX[usize::from(octet & 15)],
    ]);
}

/// True when `bytes` is already in `form`, so it can be borrowed.
fn is_normal(bytes: &[u8], form: Form) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        let octet = bytes[i];
        if octet == b'%' {
            match escape_at(&bytes[i..]) {
                // Lower-case hex or an escape that decodes is not normal.
                Some(value)
                    if !is_unreserved(value)
                        && !bytes[i + 1..i + 3].iter().any(u8::is_ascii_lowercase) =>
                {
                    i += 3;
                    continue;
                }
                _ => return false,
            }
        }
        if !stays_plain(octet, form) {
            return false;
        }
        i += 1;
    }
    true
}

/// Appends the normal form of `bytes` to `out`; when `literals` is given,
/// pushes onto it where in `out` each escape of a literal `*` or `$` begins.
fn normalize_into(
    bytes: &[u8],
    form: Form,
    out: &mut Vec<u8>,
    mut literals: Option<&mut Vec<u32>>,
) {
    let mut i = 0;
    while i < bytes.len() {
        let octet = bytes[i];
        if octet == b'%' {
            if let Some(value) = escape_at(&bytes[i..]) {
                if is_unreserved(value) {
                    out.push(value);
                } else {
                    push_escaped(out, value);
                }
                i += 3;
                continue;
            }
            // A `%` that starts no escape is a literal percent sign.
            push_escaped(out, b'%');
            i += 1;
            continue;
        }
        if stays_plain(octet, form) {
            out.push(octet);
        } else {
            if let Some(literals) = literals
                .as_deref_mut()
                .filter(|_| matches!(octet, b'*' | b'$'))
            {
                // Past 4 GiB (no logged target is so long) a place
                // saturates, and a literal there reads as its escape.
                literals.push(u32::try_from(out.len()).unwrap_or(u32::MAX));
            }
            push_escaped(out, octet);
        }
        i += 1;
    }
}

fn normalize_form(bytes: &[u8], form: Form) -> Cow<'_, [u8]> {
    if is_normal(bytes, form) {
        Cow::Borrowed(bytes)
    } else {
        let mut out = Vec::with_capacity(bytes.len() + 8);
        normalize_into(bytes, form, &mut out, None);
        Cow::Owned(out)
    }
}

/// RFC 9309 normalisation, as a rule is shown and measured: escapes of
/// unreserved characters decoded, other escapes in upper-case hex, octets
/// outside printable ASCII, space and the ASCII that RFC 3986 allows nowhere
/// escaped, a `%` that starts no escape written `%25`. Borrows when nothing
/// changes.
pub fn normalize(bytes: &[u8]) -> Cow<'_, [u8]> {
    normalize_form(bytes, Form::Written)
}

/// The form a target, or a literal piece of a pattern, is compared in:
/// [`normalize`], then a literal `*` and `$` escaped as `%2A` and `%24`.
/// Borrows when nothing changes, as for nearly every logged target.
pub fn matching_form(bytes: &[u8]) -> Cow<'_, [u8]> {
    normalize_form(bytes, Form::Matching)
}

/// [`normalize`], but a written `\` and `^` stay themselves: the form
/// Seznam's wildcards of a `Robot-version: 2.0` group are read in
/// (`glob`), where `\` makes the next character literal and `^` negates a
/// set, while a written `%5C` or `%5E` is that character, as in the
/// written form. Only in that form can the two be told apart: the written
/// form spells both `%5C`.
pub(crate) fn glob_form(bytes: &[u8]) -> Cow<'_, [u8]> {
    normalize_form(bytes, Form::Glob)
}

/// True when [`matching_form`] would borrow.
pub(crate) fn is_matching_form(bytes: &[u8]) -> bool {
    is_normal(bytes, Form::Matching)
}

/// [`matching_form`] appended to a caller's buffer, for a literal piece of a
/// pattern (between wildcards). There a `$` (never the last octet of a
/// pattern, which is cut off as the anchor first) is a literal `$`: it
/// becomes `%24` and matches what a written `%24` matches.
pub(crate) fn matching_form_into(bytes: &[u8], out: &mut Vec<u8>) {
    normalize_into(bytes, Form::Matching, out, None);
}

/// [`matching_form`] of a target that needs rewriting, written to a
/// caller's buffers: the octets to `out`, and to `literals`, in ascending
/// order, where each `%2A` or `%24` that stands for a literal `*` or `$`
/// of the target begins. Those escapes are one character each: the matcher
/// never begins or ends a literal piece of a pattern inside one. A target
/// that [`is_matching_form`] holds no literal `*` or `$`.
pub(crate) fn target_form_into(bytes: &[u8], out: &mut Vec<u8>, literals: &mut Vec<u32>) {
    normalize_into(bytes, Form::Matching, out, Some(literals));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table against the forms as they are written down: printable
    /// ASCII but for the nine octets RFC 3986 allows nowhere; the
    /// matching form without `*` and `$`; the glob form with `\` and `^`.
    #[test]
    fn the_plain_table_is_each_form_as_written() {
        let nowhere = b"\"<>\\^`{|}";
        for octet in 0..=255u8 {
            let plain = (b'!'..=b'~').contains(&octet) && !nowhere.contains(&octet);
            let matching = plain && octet != b'*' && octet != b'$';
            let glob = plain || octet == b'\\' || octet == b'^';
            assert_eq!(stays_plain(octet, Form::Written), plain, "{octet:#04x}");
            assert_eq!(stays_plain(octet, Form::Matching), matching, "{octet:#04x}");
            assert_eq!(stays_plain(octet, Form::Glob), glob, "{octet:#04x}");
        }
    }

    #[test]
    fn rfc_9309_section_2_2_2_table() {
        // RFC 9309 §2.2.2: "Path", "Encoded Path", "Path to Match".
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (
                b"/foo/bar?baz=quz",
                b"/foo/bar?baz=quz",
                b"/foo/bar?baz=quz",
            ),
            (
                b"/foo/bar?baz=https://foo.bar",
                b"/foo/bar?baz=https://foo.bar",
                b"/foo/bar?baz=https://foo.bar",
            ),
            (
                "/foo/bar/\u{30C4}".as_bytes(),
                b"/foo/bar/%E3%83%84",
                b"/foo/bar/%E3%83%84",
            ),
            (
                b"/foo/bar/%E3%83%84",
                b"/foo/bar/%E3%83%84",
                b"/foo/bar/%E3%83%84",
            ),
            (b"/foo/bar/%62%61%7A", b"/foo/bar/baz", b"/foo/bar/baz"),
        ];
        for &(path, written, matching) in cases {
            assert_eq!(
                &*normalize(path),
                written,
                "{}",
                String::from_utf8_lossy(path)
            );
            assert_eq!(
                &*matching_form(path),
                matching,
                "{}",
                String::from_utf8_lossy(path)
            );
        }
        // Escapes of reserved characters stay escapes, in the query too:
        // matching is octet by octet (SPEC §3).
        assert_eq!(
            &*matching_form(b"/foo/bar?baz=https%3a%2F%2Ffoo.bar"),
            b"/foo/bar?baz=https%3A%2F%2Ffoo.bar"
        );
    }

    #[test]
    fn written_form() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"/", b"/"),
            (b"", b""),
            (b"/%7Euser", b"/~user"),
            (b"/%7euser", b"/~user"),
            (b"/%41%5a%30%2D%2E%5F", b"/AZ0-._"),
            (b"/a%2fb", b"/a%2Fb"),
            (b"/a%2Fb", b"/a%2Fb"),
            (b"/a%3fb", b"/a%3Fb"),
            (b"/%e3%83%84", b"/%E3%83%84"),
            (b"/a b", b"/a%20b"),
            (b"/a\tb\x7f", b"/a%09b%7F"),
            (b"/\xff\x00", b"/%FF%00"),
            (b"/100%", b"/100%25"),
            (b"/%zz", b"/%25zz"),
            (b"/%4", b"/%254"),
            (b"/%25", b"/%25"),
            (b"/*%2a$", b"/*%2A$"),
            (b"/%24", b"/%24"),
            (b"/a?b=%2f", b"/a?b=%2F"),
            (b"/a\"b<c>d", b"/a%22b%3Cc%3Ed"),
            (b"/\\^`{|}", b"/%5C%5E%60%7B%7C%7D"),
            (b"/a*b$", b"/a*b$"),
        ];
        for &(input, expected) in cases {
            assert_eq!(
                &*normalize(input),
                expected,
                "{}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn matching_form_cases() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"/path/file-with-a-%2A.html", b"/path/file-with-a-%2A.html"),
            (b"/path/file-with-a-*.html", b"/path/file-with-a-%2A.html"),
            (b"/path/foo-%24", b"/path/foo-%24"),
            (b"/path/foo-$", b"/path/foo-%24"),
            (b"/a%2Fb", b"/a%2Fb"),
            (b"/a%2F?b%2Fc%3a%40%3F", b"/a%2F?b%2Fc%3A%40%3F"),
            (b"/out?url=http%3a//x", b"/out?url=http%3A//x"),
            (b"/a|b", b"/a%7Cb"),
            (b"/a%3Fb?c", b"/a%3Fb?c"),
            (b"/a?b=%26&c=%3D", b"/a?b=%26&c=%3D"),
            (b"/a%20b", b"/a%20b"),
        ];
        for &(input, expected) in cases {
            assert_eq!(
                &*matching_form(input),
                expected,
                "{}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn target_form_says_where_literal_star_and_dollar_are() {
        // (target, matching form, where its literal `*` and `$` begin)
        let cases: &[(&[u8], &[u8], &[u32])] = &[
            (b"/*", b"/%2A", &[1]),
            (b"/%2A", b"/%2A", &[]),
            (b"/%2a*", b"/%2A%2A", &[4]),
            (b"/x$", b"/x%24", &[2]),
            (b"/a b*$%24", b"/a%20b%2A%24%24", &[6, 9]),
            (b"/%7E*", b"/~%2A", &[2]),
            (b"/\xff*", b"/%FF%2A", &[4]),
        ];
        for &(target, octets, literals) in cases {
            let (mut out, mut at) = (Vec::new(), Vec::new());
            target_form_into(target, &mut out, &mut at);
            assert_eq!(
                (&out[..], &at[..]),
                (octets, literals),
                "{}",
                String::from_utf8_lossy(target)
            );
            assert_eq!(&*matching_form(target), octets);
        }
    }

    #[test]
    fn normal_input_is_borrowed() {
        for input in [
            &b"/"[..],
            b"/cz/chat/?page=2&sort=asc",
            b"/a%2Fb",
            b"/%E3%83%84",
            b"/a%2A.php%24",
        ] {
            assert!(matches!(normalize(input), Cow::Borrowed(_)));
            assert!(matches!(matching_form(input), Cow::Borrowed(_)));
        }
        for input in [
            &b"/%7E"[..],
            b"/a%2fb",
            b"/a b",
            b"/\xc3\xa1",
            b"/%",
            b"/*",
            b"/a$",
            b"/a|b",
        ] {
            assert!(matches!(matching_form(input), Cow::Owned(_)), "{input:?}");
        }
        assert!(matches!(normalize(b"/%2A"), Cow::Borrowed(_)));
        assert!(matches!(normalize(b"/*.php$"), Cow::Borrowed(_)));
    }

    #[test]
    fn normalisation_is_idempotent() {
        for input in [&b"/a%2fb%7e?x=%3a%zz"[..], b"/\xff %", b"/%252F"] {
            let once = normalize(input).into_owned();
            assert_eq!(&*normalize(&once), &once[..]);
            let once = matching_form(input).into_owned();
            assert_eq!(&*matching_form(&once), &once[..]);
        }
    }
}
