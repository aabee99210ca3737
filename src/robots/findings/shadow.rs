//! Whether one Allow/Disallow pattern matches every target another one
//! matches: takes two patterns in written normal form, gives a yes that is
//! always right or a no that may be too careful. It backs the lint's
//! `shadowed-rule` and `duplicate-rule` (RFC 9309 §2.2.2, §2.2.3).
//!
//! The test: write the covered pattern as a string in which each of its
//! wildcards (and the open end of an unanchored pattern) is a hole that no
//! literal octet equals, then ask whether the covering pattern matches that
//! string, its own wildcards free to swallow holes. If it does, every target
//! the covered pattern matches is matched too: whatever a hole stands for
//! lies inside a wildcard of the covering pattern, which swallows anything.
//!
//! A `%2A` or `%24` of a pattern matches a target's literal `*` or `$`,
//! one character that no other literal octet matches (SPEC §3), as well as
//! the three octets of the escape. Both sides therefore write it as one
//! octet, `*` or `$`, which a piece in matching form holds nowhere else:
//! then only the same escape or a wildcard of the covering pattern reads it.

use super::super::normalize::matching_form_into;

/// A pattern split at its wildcards, each piece in matching form, read as
/// the compiled matcher reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Glob {
    /// Literal pieces; a `*` stands between each two. The first is the
    /// prefix every matched target starts with.
    pieces: Vec<Vec<u8>>,
    /// The last piece must end the target (`$`, or Robot-version 2.0).
    anchored: bool,
}

/// One position of a pattern written out as a string: an octet, or a hole
/// where a wildcard stood.
type Token = Option<u8>;

impl Glob {
    /// Splits a pattern in written normal form as `compile::Pattern` does:
    /// a final `$` anchors, any other `$` is literal, `%2A` is a literal `*`
    /// (each of these last written as one octet, `$` or `*`).
    pub(super) fn new(written: &[u8], whole_path: bool) -> Glob {
        let (body, dollar) = match written.strip_suffix(b"$") {
            Some(body) => (body, true),
            None => (written, false),
        };
        let anchored = dollar || (whole_path && !written.ends_with(b"*"));
        let pieces = body
            .split(|&b| b == b'*')
            .map(|piece| {
                let mut out = Vec::with_capacity(piece.len());
                matching_form_into(piece, &mut out);
                one_octet_literals(&out)
            })
            .collect();
        Glob { pieces, anchored }
    }

    /// The literal every matched target starts with.
    pub(super) fn prefix(&self) -> &[u8] {
        self.pieces.first().map_or(&[], Vec::as_slice)
    }

    /// About the steps `covers(other)` takes: the octets of `self` after
    /// its prefix, each against every token of `other`.
    pub(super) fn cover_steps(&self, other: &Glob) -> usize {
        let octets: usize = self.pieces.iter().skip(1).map(Vec::len).sum();
        let tokens = other.pieces.iter().map(Vec::len).sum::<usize>() + other.pieces.len() + 1;
        octets.saturating_mul(tokens)
    }

    /// True when `self` certainly matches every target `other` matches.
    pub(super) fn covers(&self, other: &Glob) -> bool {
        // A quick refusal: the covering prefix must start the other's.
        if !other.prefix().starts_with(self.prefix()) {
            return false;
        }
        let tokens = other.tokens();
        // reach[j]: the part of `self` read so far matches tokens[..j].
        // The prefix, which starts the other's, reaches just past itself:
        // read octet by octet it cost its length times the other's, so a
        // lint of long rules sharing a long prefix took seconds.
        let mut reach = vec![false; tokens.len() + 1];
        reach[self.prefix().len()] = true;
        for piece in self.pieces.iter().skip(1) {
            star(&mut reach);
            for &octet in piece {
                for j in (0..tokens.len()).rev() {
                    reach[j + 1] = reach[j] && tokens[j] == Some(octet);
                }
                reach[0] = false;
            }
        }
        if !self.anchored {
            star(&mut reach);
        }
        reach[tokens.len()]
    }

    /// The pattern written out, a hole for each wildcard and for the open
    /// end of an unanchored pattern.
    fn tokens(&self) -> Vec<Token> {
        let mut tokens = Vec::new();
        for (index, piece) in self.pieces.iter().enumerate() {
            if index > 0 {
                tokens.push(None);
            }
            tokens.extend(piece.iter().map(|&b| Some(b)));
        }
        if !self.anchored {
            tokens.push(None);
        }
        tokens
    }
}

/// A piece in matching form with each `%2A` and `%24` written `*` and `$`.
/// Every `%` of it begins a whole escape, so the escapes are found by
/// reading escape by escape.
fn one_octet_literals(piece: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(piece.len());
    let mut i = 0;
    while i < piece.len() {
        match piece.get(i..i + 3) {
            Some(b"%2A") => out.push(b'*'),
            Some(b"%24") => out.push(b'$'),
            Some(escape) if piece[i] == b'%' => out.extend_from_slice(escape),
            _ => {
                out.push(piece[i]);
                i += 1;
                continue;
            }
        }
        i += 3;
    }
    out
}

/// A wildcard read: once some prefix of the tokens is matched, every
/// longer one is too.
fn star(reach: &mut [bool]) {
    for j in 1..reach.len() {
        reach[j] = reach[j] || reach[j - 1];
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::compile::Pattern;
    use super::super::super::compile::Target;
    use super::super::super::normalize::{normalize, target_form_into};
    use super::*;

    fn glob(pattern: &str) -> Glob {
        Glob::new(&normalize(pattern.as_bytes()), false)
    }

    #[test]
    fn which_patterns_cover_which() {
        // (covering, covered, covers)
        let cases: &[(&str, &str, bool)] = &[
            ("/a", "/a", true),
            ("/a", "/ab", true),
            ("/a", "/a/b/c", true),
            ("/ab", "/a", false),
            ("/", "/anything*.php$", true),
            ("*", "/x", true),
            ("/*", "/x", true),
            ("/*", "*", false),
            ("/a*", "/a", true),
            ("/a", "/a*", true),
            ("/a$", "/a", false),
            ("/a", "/a$", true),
            ("/a$", "/a$", true),
            ("/*.php", "/x.php", true),
            ("/*.php", "/x/*.php", true),
            ("/*.php", "/*.php5", true),
            ("/*.php$", "/*.php5", false),
            ("/*.php$", "/x.php$", true),
            ("/*.php$", "/*.php", false),
            ("/x.php", "/*.php", false),
            ("/*a*b", "/ab", true),
            ("/*a*b", "/ba", false),
            ("/*a*b", "/*ab", true),
            ("/*b*a", "/*ab", false),
            ("/a*c", "/a*b*c", true),
            ("/a*b*c", "/a*c", false),
            ("/fish", "/Fish", false),
            ("/%7Eu", "/~u/x", true),
            ("/a%2Fb", "/a/b", false),
            ("/a%2A", "/a*", false),
            ("/a*", "/a%2A", true),
            ("/a%24", "/a$", false),
            // A literal `*` of a target is one character: `/*A` does not
            // match `/*`, so it does not cover `/%2A`; `/*2A` neither.
            ("/*A", "/%2A", false),
            ("/*2A", "/%2A", false),
            ("/*%2A", "/%2A", true),
            ("/*", "/%2A", true),
            ("/%2A", "/%2Ab", true),
            ("/%2", "/%2A", false),
            ("/a$b", "/a%24b", true),
            ("/a%24b", "/a$b", true),
            ("/*4", "/a$b", false),
        ];
        for &(covering, covered, expected) in cases {
            assert_eq!(
                glob(covering).covers(&glob(covered)),
                expected,
                "{covering} covers {covered}"
            );
        }
    }

    #[test]
    fn whole_path_patterns_are_anchored() {
        let whole = |p: &str| Glob::new(p.as_bytes(), true);
        assert!(!whole("/a").covers(&glob("/a")));
        assert!(glob("/a").covers(&whole("/a")));
        assert!(whole("/a*").covers(&glob("/a")));
        assert!(whole("/a").covers(&whole("/a")));
    }

    /// Every claim of coverage is checked against the compiled matcher on
    /// targets built from the patterns' own pieces.
    #[test]
    fn coverage_claims_hold_on_the_matcher() {
        let patterns = [
            "/", "*", "/a", "/a$", "/a*", "/ab", "/a*b", "/*b", "/*b$", "/a/", "/a*b$", "/*a*b",
            "/b", "/?q", "/*?", "/a*a$", "/aa", "/%2A", "/*A", "/*2A", "/*%2A", "/a%2Ab", "/*4",
            "/a$b", "/a%24b", "/*%24",
        ];
        let targets = [
            "/", "/a", "/aa", "/ab", "/ba", "/a/", "/a/b", "/b", "/ab/", "/xb", "/?q", "/a?q",
            "/aab", "/abab", "/aba", "/a*b", "/bb", "/*", "/%2A", "/*A", "/%2AA", "/a%2Ab", "/a$b",
            "/a%24b", "/$",
        ];
        for covering in patterns {
            for covered in patterns {
                if !glob(covering).covers(&glob(covered)) {
                    continue;
                }
                let big = Pattern::compile(covering.as_bytes(), false);
                let small = Pattern::compile(covered.as_bytes(), false);
                for target in targets {
                    let (mut octets, mut literals) = (Vec::new(), Vec::new());
                    target_form_into(target.as_bytes(), &mut octets, &mut literals);
                    let target_form = Target {
                        octets: &octets,
                        literals: &literals,
                    };
                    assert!(
                        !small.matches(target_form) || big.matches(target_form),
                        "{covering} was said to cover {covered}, but not on {target}"
                    );
                }
            }
        }
    }

    /// The prefix taken at once gives what reading it octet by octet gives
    /// (the plain reading, kept here).
    fn covers_read_whole(covering: &Glob, other: &Glob) -> bool {
        if !other.prefix().starts_with(covering.prefix()) {
            return false;
        }
        let tokens = other.tokens();
        let mut reach = vec![false; tokens.len() + 1];
        reach[0] = true;
        for (index, piece) in covering.pieces.iter().enumerate() {
            if index > 0 {
                star(&mut reach);
            }
            for &octet in piece {
                for j in (0..tokens.len()).rev() {
                    reach[j + 1] = reach[j] && tokens[j] == Some(octet);
                }
                reach[0] = false;
            }
        }
        if !covering.anchored {
            star(&mut reach);
        }
        reach[tokens.len()]
    }

    proptest::proptest! {
        #[test]
        fn the_prefix_taken_at_once_is_read_as_octet_by_octet(
            a in "/[ab*]{0,8}[$]?",
            b in "/[ab*]{0,8}[$]?",
        ) {
            let (a, b) = (glob(&a), glob(&b));
            proptest::prop_assert_eq!(a.covers(&b), covers_read_whole(&a, &b));
        }
    }
}
