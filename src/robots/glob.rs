//! Seznam's reading of a `Robot-version: 2.0` group's patterns as shell
//! wildcards: takes a rule's pattern in written normal form, gives whether
//! it matches a target in matching form.
//!
//! Seznam documents (napoveda.seznam.cz, "Robots.txt 2.0") that in such a
//! group `?` stands for any one character, `[set]`, `[!set]` and `[^set]`
//! for one character in or not in a set (ranges `a-z` included), and `\`
//! makes the next special character literal, besides `*` and the whole-URL
//! match. SPEC §3 reads those characters literally. Where the two readings
//! differ, neither is the standard alone, so a fetch is an accusation only
//! when both disallow it (`AgentRules::accuses`); this module is the second
//! reading.
//!
//! Both sides are taken a character at a time: an escape `%XX` is one
//! character (its octet), any other octet one. A pattern of `n` characters
//! against a target of `m` costs at most `n × m` steps (the classic
//! wildcard walk, which goes back only to the last `*`), and it is only run
//! for a target the literal reading already disallows.

use super::normalize::{glob_form, hex_value};

/// One character of a pattern, as Seznam's wildcards read it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unit {
    /// `*`: any run of characters.
    Star,
    /// `?`: any one character.
    Any,
    /// One character: an octet, or an escape's three octets.
    Literal(Char),
    /// `[…]`: one character whose octet is (or, negated, is not) in one of
    /// the set's ranges, held as one bit an octet, so that a character is
    /// one look whatever the set's size (SPEC §5: a set of thousands of
    /// members looked through at each step made a fetch cost with it).
    Set { negated: bool, members: [u64; 4] },
}

/// A character of a target or a literal of a pattern: its octets as
/// written in matching form (one, or three for `%XX`) and the octet it
/// stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Char {
    written: [u8; 3],
    len: u8,
    octet: u8,
}

impl Char {
    fn plain(octet: u8) -> Char {
        Char {
            written: [octet, 0, 0],
            len: 1,
            octet,
        }
    }

    fn written(&self) -> &[u8] {
        &self.written[..usize::from(self.len)]
    }
}

/// The character at the start of `bytes` (not empty): an escape `%XX` when
/// one starts there, else one octet.
fn char_at(bytes: &[u8]) -> Char {
    if let [b'%', high, low, ..] = *bytes
        && let (Some(h), Some(l)) = (hex_value(high), hex_value(low))
    {
        return Char {
            written: [b'%', high, low],
            len: 3,
            octet: h << 4 | l,
        };
    }
    Char::plain(bytes[0])
}

/// The characters of a target in matching form.
fn chars(mut bytes: &[u8]) -> Vec<Char> {
    let mut out = Vec::with_capacity(bytes.len());
    while !bytes.is_empty() {
        let c = char_at(bytes);
        bytes = &bytes[usize::from(c.len)..];
        out.push(c);
    }
    out
}

/// A `Robot-version: 2.0` rule's pattern (its value as written) in the
/// form [`Glob`] reads (`normalize::glob_form`), when it holds a character
/// Seznam's wildcards read otherwise than SPEC §3 does: `?`, `[`, or a
/// written `\`. `*` and a final `$` mean the same in both; a written
/// `%3F`, `%5B` or `%5C` is that character in both (SPEC §3 normalises
/// `\` to `%5C`, so only the value as written tells them apart).
pub fn seznam_form(written: &[u8]) -> Option<Box<[u8]>> {
    let form = glob_form(written);
    has_wildcards(&form).then(|| form.into_owned().into_boxed_slice())
}

/// True when a pattern in glob form holds `?`, `[` or `\`.
fn has_wildcards(pattern: &[u8]) -> bool {
    pattern.iter().any(|&b| matches!(b, b'?' | b'[' | b'\\'))
}

/// A pattern read with Seznam's wildcards, matched against the whole target
/// (a final `*` lets any rest follow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    units: Vec<Unit>,
}

impl Glob {
    /// Reads a pattern in glob form (`Rule::wildcards`: the written form
    /// with a written `\` and `^` kept as they are).
    pub fn new(pattern: &[u8]) -> Glob {
        // A final `$` anchors, as the whole-URL match already does, unless
        // a `\` (an odd run of them) makes it literal.
        let pattern = match pattern.strip_suffix(b"$") {
            Some(body) if !escapes_next(body) => body,
            _ => pattern,
        };
        let mut units = Vec::new();
        let mut rest = pattern;
        while !rest.is_empty() {
            let c = char_at(rest);
            let after = &rest[usize::from(c.len)..];
            rest = match c.written() {
                b"*" => {
                    // A run of stars is one star.
                    if units.last() != Some(&Unit::Star) {
                        units.push(Unit::Star);
                    }
                    after
                }
                b"?" => {
                    units.push(Unit::Any);
                    after
                }
                b"\\" if !after.is_empty() => {
                    let escaped = char_at(after);
                    units.push(Unit::Literal(literal(escaped)));
                    &after[usize::from(escaped.len)..]
                }
                b"[" => match set(after) {
                    Some((unit, after_set)) => {
                        units.push(unit);
                        after_set
                    }
                    None => {
                        units.push(Unit::Literal(c));
                        after
                    }
                },
                _ => {
                    units.push(Unit::Literal(literal(c)));
                    after
                }
            };
        }
        Glob { units }
    }

    /// True when the pattern matches the whole target; `None` when that
    /// would take more than `budget` steps (each step one character tried
    /// against one unit), which are taken off it.
    pub fn matches(&self, target: &Chars, budget: &mut usize) -> Option<bool> {
        let target = &target.0;
        let units = &self.units;
        let (mut u, mut t) = (0, 0);
        // The last star passed, and the target character it was tried to
        // stop before.
        let mut star: Option<(usize, usize)> = None;
        while t < target.len() {
            *budget = budget.checked_sub(1)?;
            match units.get(u) {
                Some(Unit::Star) => {
                    star = Some((u, t));
                    u += 1;
                }
                Some(unit) if fits(unit, target[t]) => {
                    u += 1;
                    t += 1;
                }
                _ => match star {
                    Some((at, stop)) => {
                        star = Some((at, stop + 1));
                        u = at + 1;
                        t = stop + 1;
                    }
                    None => return Some(false),
                },
            }
        }
        Some(units[u..].iter().all(|unit| *unit == Unit::Star))
    }
}

/// A target in matching form as characters, made once for all patterns.
pub struct Chars(Vec<Char>);

impl Chars {
    pub fn new(target: &[u8]) -> Chars {
        Chars(chars(target))
    }

    /// How many characters.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// True when `body` ends in an odd run of written `\`: the character
/// after it is escaped.
fn escapes_next(body: &[u8]) -> bool {
    let run = body.iter().rev().take_while(|&&b| b == b'\\').count();
    run % 2 == 1
}

/// A literal character as the target spells it in matching form: a literal
/// `*` or `$` of the pattern stands for the target's `%2A` or `%24`, and a
/// written `\` or `^` (glob form keeps them) for its `%5C` or `%5E`.
fn literal(c: Char) -> Char {
    match c.written() {
        b"*" => char_at(b"%2A"),
        b"$" => char_at(b"%24"),
        b"\\" => char_at(b"%5C"),
        b"^" => char_at(b"%5E"),
        _ => c,
    }
}

/// The set that starts after a `[`, and what follows its `]`; `None` when
/// no `]` closes it (the `[` is then literal). A `]` right after the
/// opening (or its `!`/`^`) is a member, as in the shell.
fn set(mut rest: &[u8]) -> Option<(Unit, &[u8])> {
    let mut negated = false;
    if let Some(after) = rest.strip_prefix(b"!").or_else(|| rest.strip_prefix(b"^")) {
        negated = true;
        rest = after;
    }
    let mut members: Vec<u8> = Vec::new();
    let mut first = true;
    loop {
        if rest.is_empty() {
            return None;
        }
        let c = char_at(rest);
        rest = &rest[usize::from(c.len)..];
        if c.written() == b"]" && !first {
            break;
        }
        first = false;
        members.push(c.octet);
    }
    let mut bits = [0u64; 4];
    let mut add = |low: u8, high: u8| {
        // A reversed range (`z-a`) matches nothing, as in the shell.
        for octet in low..=high {
            bits[usize::from(octet / 64)] |= 1 << (octet % 64);
        }
    };
    let mut i = 0;
    while i < members.len() {
        if i + 2 < members.len() && members[i + 1] == b'-' {
            add(members[i], members[i + 2]);
            i += 3;
        } else {
            add(members[i], members[i]);
            i += 1;
        }
    }
    Some((
        Unit::Set {
            negated,
            members: bits,
        },
        rest,
    ))
}

fn fits(unit: &Unit, c: Char) -> bool {
    match unit {
        Unit::Star | Unit::Any => true,
        Unit::Literal(literal) => literal.written() == c.written(),
        Unit::Set { negated, members } => {
            let inside = members[usize::from(c.octet / 64)] & (1 << (c.octet % 64)) != 0;
            inside != *negated
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Chars, Glob, has_wildcards, seznam_form};

    fn matches(pattern: &str, target: &str) -> bool {
        glob_matches(&Glob::new(pattern.as_bytes()), target)
    }

    fn glob_matches(glob: &Glob, target: &str) -> bool {
        let mut budget = usize::MAX;
        glob.matches(&Chars::new(target.as_bytes()), &mut budget)
            .unwrap()
    }

    #[test]
    fn seznams_documented_wildcards() {
        // napoveda.seznam.cz, "Robots.txt 2.0": `?` one character, `\`
        // makes the next literal, `[set]`, `[!set]`, `[^set]`; the whole
        // URL must match unless a `*` ends the pattern.
        assert!(matches("/file?", "/files"));
        assert!(matches("/file?", "/file?"));
        assert!(!matches("/file?", "/file"));
        assert!(!matches("/file?", "/filess"));
        assert!(matches("/file\\?", "/file?"));
        assert!(!matches("/file\\?", "/files"));
        assert!(matches("/x[ab]", "/xa"));
        assert!(matches("/x[ab]", "/xb"));
        assert!(!matches("/x[ab]", "/xc"));
        assert!(!matches("/x[ab]", "/x[ab]"));
        assert!(matches("/x[!ab]", "/xc"));
        assert!(!matches("/x[!ab]", "/xa"));
        assert!(matches("/x[^ab]", "/xc"));
        assert!(!matches("/x[^ab]", "/xa"));
        assert!(matches("/x[0-9]*", "/x7/y"));
        assert!(!matches("/x[0-9]*", "/xy/7"));
        assert!(matches("/helpme*", "/helpme/now"));
        assert!(!matches("/helpme", "/helpme/now"));
        assert!(matches("/helpme$", "/helpme"));
        // `\$` is a literal `$`, `\\$` a literal `\` and the anchor.
        assert!(matches("/a\\$", "/a%24"));
        assert!(!matches("/a\\$", "/a%5C"));
        assert!(matches("/a\\\\$", "/a%5C"));
        // A reversed range holds nothing.
        assert!(!matches("/[z-a]", "/m"));
        assert!(!matches("/[z-a]", "/z"));
        assert!(matches("/[!z-a]", "/m"));
    }

    #[test]
    fn a_match_past_its_budget_is_undecided() {
        let glob = Glob::new(b"/a?*b?*c?");
        let target = Chars::new(format!("/ax{}n", "b1".repeat(4000)).as_bytes());
        let mut budget = 1000;
        assert_eq!(glob.matches(&target, &mut budget), None);
        let mut budget = usize::MAX;
        assert_eq!(glob.matches(&target, &mut budget), Some(false));
    }

    #[test]
    fn an_escape_is_one_character_on_both_sides() {
        assert!(matches("/?", "/%2F"));
        assert!(matches("/a?c", "/a%C3c"));
        assert!(!matches("/?", "/%2F%2F"));
        assert!(matches("/[%2F]", "/%2F"));
        assert!(matches("/x%2Fy", "/x%2Fy"));
        assert!(!matches("/x%2Fy", "/x/y"));
        // A literal `*` or `$` of the pattern is the target's `%2A`/`%24`.
        assert!(matches("/a\\*b", "/a%2Ab"));
        assert!(matches("/a$b", "/a%24b"));
    }

    #[test]
    fn stars_go_back_only_as_far_as_they_must() {
        assert!(matches("/*a?c*", "/xxabcabd"));
        assert!(matches("/*a?c", "/aacabc"));
        assert!(!matches("/*a?c", "/aacabd"));
        assert!(matches("/**", "/"));
        assert!(matches("*", ""));
        // An unclosed set is a literal `[`.
        assert!(matches("/a[b", "/a[b"));
        assert!(matches("/[]]", "/]"));
    }

    #[test]
    fn only_patterns_with_seznams_own_wildcards_need_the_second_reading() {
        assert!(has_wildcards(b"/a?b"));
        assert!(has_wildcards(b"/a[b]"));
        assert!(has_wildcards(b"/a\\*"));
        assert!(!has_wildcards(b"/a*b$"));
        assert!(!has_wildcards(b"/a%2Fb"));
    }

    #[test]
    fn written_escapes_of_the_wildcards_are_the_characters_themselves() {
        // Written `%5C`, `%3F`, `%5B` are those characters to Seznam as to
        // SPEC §3: no second reading. The written form spells `\` and
        // `%5C` alike; only the value as written tells them apart.
        assert_eq!(seznam_form(b"/a%5Cb"), None);
        assert_eq!(seznam_form(b"/a%5cb"), None);
        assert_eq!(seznam_form(b"/c%3Fd"), None);
        assert_eq!(seznam_form(b"/x%5C*"), None);
        assert_eq!(seznam_form(b"/a%5Bb%5D"), None);
        assert_eq!(seznam_form(b"/a\\b").as_deref(), Some(&b"/a\\b"[..]));
        assert_eq!(seznam_form(b"/a?b").as_deref(), Some(&b"/a?b"[..]));
        // Beside a written wildcard, a written `%5C` is still a `\`, and
        // `%5E` after `[` a member, not the set's negation.
        let glob = |written: &[u8]| Glob::new(&seznam_form(written).unwrap());
        assert!(glob_matches(&glob(b"/a%5C?"), "/a%5Cx"));
        assert!(!glob_matches(&glob(b"/a%5C?"), "/a?"));
        assert!(glob_matches(&glob(b"/[%5Ea]"), "/%5E"));
        assert!(!glob_matches(&glob(b"/[%5Ea]"), "/b"));
        assert!(glob_matches(&glob(b"/[^a]"), "/b"));
        // A written `^` outside a set is the target's `%5E`.
        assert!(glob_matches(&glob(b"/^?"), "/%5Ex"));
    }
}
