//! Compiling the Allow/Disallow patterns a crawler obeys into one matcher:
//! takes normalised patterns in precedence order, gives the first (so the
//! deciding) pattern that matches a target (RFC 9309 §2.2.2, §2.2.3; SPEC §3).
//!
//! A pattern is a literal prefix, then literal pieces each after a `*`,
//! perhaps anchored at the end by `$`. Its prefix must start the target, so
//! the prefixes of all patterns go into a byte trie: walking the target down
//! the trie visits exactly the patterns whose prefix it starts with, and only
//! those are checked further, piece by piece with memchr's substring search.
//! Taking each piece at its leftmost place is exact for `*`-only globs: a
//! leftmost place leaves the longest remainder for the pieces after it.
//! Both sides are in matching form and compared octet by octet, so a piece
//! may start inside a `%XX` escape of the target (SPEC §3: `/*A` matches
//! `/%2A`).
//! Patterns that share a short prefix (`/*?*sort=`) would all be checked
//! for every target, so one Aho-Corasick pass over the target first finds
//! which of their longest pieces occur at all; a pattern whose piece is
//! absent is skipped. `benches/matcher.rs` measures this against checking
//! every pattern in order. The pieces are split among several automata of
//! at most `PIECES_PER_SEARCHER` each: building one automaton of tens of
//! thousands of pieces that share letters costs time quadratic in their
//! number, building many small ones costs linear time, and a target is
//! only searched with the automata its candidate patterns need.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use memchr::memmem::Finder;

use super::normalize::matching_form_into;

/// One compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// The literal the target must start with, in matching form.
    prefix: Box<[u8]>,
    /// The literal after each `*`, in order.
    pieces: Box<[Finder<'static>]>,
    /// The last piece must end the target (`$`, or Robot-version 2.0).
    anchored: bool,
}

impl Pattern {
    /// Compiles a pattern in written normal form. With `whole_path` (Seznam
    /// Robot-version 2.0) it must match the whole target unless it ends with
    /// `*`. A `$` is an anchor only as the last octet; elsewhere it is a
    /// literal `$` (as Google's matcher reads it).
    pub(crate) fn compile(written: &[u8], whole_path: bool) -> Pattern {
        let (body, dollar) = match written.strip_suffix(b"$") {
            Some(body) => (body, true),
            None => (written, false),
        };
        let anchored = dollar || (whole_path && !written.ends_with(b"*"));
        let mut literals = body.split(|&b| b == b'*').map(|piece| {
            let mut out = Vec::with_capacity(piece.len());
            matching_form_into(piece, &mut out);
            out
        });
        let prefix = literals.next().unwrap_or_default().into_boxed_slice();
        // A run of `*` matches what one `*` matches: the empty pieces
        // between them are dropped, all but a last one, which keeps
        // `/*$` and `/*` apart. Kept, each would cost a searcher, and a
        // pattern of a hundred thousand stars would cost a hundred
        // megabytes.
        let mut literals = literals.peekable();
        let mut pieces = Vec::new();
        while let Some(piece) = literals.next() {
            if !piece.is_empty() || literals.peek().is_none() {
                pieces.push(Finder::new(&piece).into_owned());
            }
        }
        let pieces = pieces.into_boxed_slice();
        Pattern {
            prefix,
            pieces,
            anchored,
        }
    }

    /// True when the pattern matches `target` from `at`, the end of the
    /// prefix.
    fn matches_from(&self, target: &[u8], mut at: usize) -> bool {
        let Some((last, middle)) = self.pieces.split_last() else {
            return !self.anchored || at == target.len();
        };
        for piece in middle {
            match piece.find(&target[at..]) {
                Some(found) => at += found + piece.needle().len(),
                None => return false,
            }
        }
        if self.anchored {
            let needle = last.needle();
            target.len() - at >= needle.len() && target.ends_with(needle)
        } else {
            last.find(&target[at..]).is_some()
        }
    }

    /// The longest literal after a `*`: a target without it anywhere cannot
    /// match, which the matcher checks for all patterns in one pass.
    fn required_piece(&self) -> Option<&[u8]> {
        self.pieces
            .iter()
            .map(Finder::needle)
            .max_by_key(|needle| needle.len())
            .filter(|needle| needle.len() > 1)
    }

    /// True when the pattern matches the whole target (in matching form).
    pub(crate) fn matches(&self, target: &[u8]) -> bool {
        target.starts_with(&self.prefix) && self.matches_from(target, self.prefix.len())
    }
}

/// A trie node: the edges out, sorted by octet, and the patterns whose
/// prefix ends here, in precedence order.
#[derive(Debug, Clone, Default)]
struct Node {
    edges: Vec<(u8, u32)>,
    patterns: Vec<u32>,
}

/// All patterns of one selection, with the trie over their prefixes.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    patterns: Vec<Pattern>,
    nodes: Vec<Node>,
    /// Every pattern's required piece, searched for in one pass per
    /// automaton.
    prefilter: Prefilter,
    /// For each pattern, the index of its required piece in `prefilter`.
    required: Vec<Option<u32>>,
}

/// How many pieces one automaton holds at most. Aho-Corasick construction
/// grows faster than linearly with the number of pieces when they share
/// letters (28,000 pieces took 2.3 s in one automaton, 15 ms in 1,024-piece
/// ones), so the pieces are split.
const PIECES_PER_SEARCHER: usize = 1024;

/// How many automata at most: one bit each in `Found::scanned`. A
/// robots.txt within the 500 KiB limit holds fewer than 64 × 1,024 pieces;
/// past that the automata grow instead.
const MAX_SEARCHERS: usize = 64;

/// The required pieces of all patterns, split among automata: piece `id`
/// is pattern `id % per_searcher` of automaton `id / per_searcher`.
#[derive(Debug, Clone, Default)]
struct Prefilter {
    /// `None` where an automaton could not be built: its pieces are then
    /// taken as present, which costs speed, never correctness.
    searchers: Vec<Option<AhoCorasick>>,
    per_searcher: usize,
}

impl Prefilter {
    fn new(distinct: &[&[u8]]) -> Prefilter {
        let per_searcher = PIECES_PER_SEARCHER.max(distinct.len().div_ceil(MAX_SEARCHERS));
        let searchers = distinct
            .chunks(per_searcher)
            .map(|pieces| {
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(pieces)
                    .ok()
            })
            .collect();
        Prefilter {
            searchers,
            per_searcher,
        }
    }
}

/// Most distinct required pieces one target is expected to hold; past it
/// the prefilter gives up for that target and every pattern is checked.
const MAX_FOUND: usize = 64;

/// Which required pieces occur in the target, found on first need, one
/// automaton at a time.
struct Found {
    /// Bit `i` is set once automaton `i` has searched the target.
    scanned: u64,
    overflow: bool,
    len: usize,
    ids: [u32; MAX_FOUND],
}

impl Found {
    fn new() -> Found {
        Found {
            scanned: 0,
            overflow: false,
            len: 0,
            ids: [0; MAX_FOUND],
        }
    }

    /// True unless the target surely lacks piece `id`.
    fn may_hold(&mut self, id: u32, prefilter: &Prefilter, target: &[u8]) -> bool {
        let group = id as usize / prefilter.per_searcher.max(1);
        let Some(Some(searcher)) = prefilter.searchers.get(group) else {
            return true;
        };
        let bit = 1u64 << (group % 64);
        if self.scanned & bit == 0 {
            self.scanned |= bit;
            let base = (group * prefilter.per_searcher) as u32;
            for hit in searcher.find_overlapping_iter(target) {
                let hit = base + hit.pattern().as_u32();
                if self.ids[..self.len].contains(&hit) {
                    continue;
                }
                if self.len == MAX_FOUND {
                    self.overflow = true;
                    break;
                }
                self.ids[self.len] = hit;
                self.len += 1;
            }
        }
        self.overflow || self.ids[..self.len].contains(&id)
    }
}

impl Matcher {
    /// Builds the matcher. `patterns` must come in precedence order: the
    /// first that matches a target decides it.
    pub(crate) fn new(patterns: Vec<Pattern>) -> Matcher {
        let mut nodes = vec![Node::default()];
        for (index, pattern) in patterns.iter().enumerate() {
            let mut at = 0usize;
            for &octet in pattern.prefix.iter() {
                at = match nodes[at].edges.binary_search_by_key(&octet, |e| e.0) {
                    Ok(edge) => nodes[at].edges[edge].1 as usize,
                    Err(slot) => {
                        let next = nodes.len();
                        nodes.push(Node::default());
                        nodes[at].edges.insert(slot, (octet, next as u32));
                        next
                    }
                };
            }
            nodes[at].patterns.push(index as u32);
        }
        // Pieces are told apart by hashing, not by comparing each with
        // every one before it: a robots.txt of tens of thousands of
        // wildcard rules must not cost quadratic time.
        let mut distinct: Vec<&[u8]> = Vec::new();
        let mut ids: HashMap<&[u8], u32> = HashMap::new();
        let mut required = Vec::with_capacity(patterns.len());
        for pattern in &patterns {
            required.push(pattern.required_piece().map(|piece| {
                *ids.entry(piece).or_insert_with(|| {
                    distinct.push(piece);
                    (distinct.len() - 1) as u32
                })
            }));
        }
        let prefilter = Prefilter::new(&distinct);
        Matcher {
            patterns,
            nodes,
            prefilter,
            required,
        }
    }

    /// The index of the first pattern, in precedence order, that matches
    /// `target` (in matching form).
    pub(crate) fn decide(&self, target: &[u8]) -> Option<usize> {
        let mut best = usize::MAX;
        let mut found = Found::new();
        let mut at = 0usize;
        let mut depth = 0usize;
        loop {
            let node = &self.nodes[at];
            for &index in &node.patterns {
                let index = index as usize;
                if index >= best {
                    break;
                }
                if let Some(id) = self.required[index]
                    && !found.may_hold(id, &self.prefilter, target)
                {
                    continue;
                }
                if self.patterns[index].matches_from(target, depth) {
                    best = index;
                    break;
                }
            }
            let Some(&octet) = target.get(depth) else {
                break;
            };
            match node.edges.binary_search_by_key(&octet, |e| e.0) {
                Ok(edge) => at = node.edges[edge].1 as usize,
                Err(_) => break,
            }
            depth += 1;
        }
        (best != usize::MAX).then_some(best)
    }

    /// The same answer as [`Matcher::decide`] by trying every pattern in
    /// order: the baseline the bench compares with.
    pub(crate) fn decide_by_scan(&self, target: &[u8]) -> Option<usize> {
        self.patterns.iter().position(|p| p.matches(target))
    }
}

#[cfg(test)]
mod tests {
    use super::super::normalize::matching_form;
    use super::*;

    #[test]
    fn single_patterns() {
        // (pattern, whole_path, target, matches)
        let cases: &[(&str, bool, &str, bool)] = &[
            ("/", false, "/", true),
            ("/", false, "/anything", true),
            ("/fish", false, "/fish", true),
            ("/fish", false, "/fish.html", true),
            ("/fish", false, "/fish/salmon.html", true),
            ("/fish", false, "/fishheads", true),
            ("/fish", false, "/fishheads/yummy.html", true),
            ("/fish", false, "/fish.php?id=anything", true),
            ("/fish", false, "/Fish.asp", false),
            ("/fish", false, "/catfish", false),
            ("/fish", false, "/?id=fish", false),
            ("/fish*", false, "/fishheads", true),
            ("/fish*", false, "/Fish.asp", false),
            ("/fish/", false, "/fish/", true),
            ("/fish/", false, "/fish/?id=anything", true),
            ("/fish/", false, "/fish", false),
            ("/fish/", false, "/fish.html", false),
            ("/*.php", false, "/filename.php", true),
            ("/*.php", false, "/folder/filename.php", true),
            ("/*.php", false, "/folder/filename.php?parameters", true),
            ("/*.php", false, "/folder/any.php.file.html", true),
            ("/*.php", false, "/", false),
            ("/*.php", false, "/windows.PHP", false),
            ("/*.php$", false, "/filename.php", true),
            ("/*.php$", false, "/folder/filename.php", true),
            ("/*.php$", false, "/filename.php?parameters", false),
            ("/*.php$", false, "/filename.php/", false),
            ("/*.php$", false, "/filename.php5", false),
            ("/fish*.php", false, "/fish.php", true),
            (
                "/fish*.php",
                false,
                "/fishheads/catfish.php?parameters",
                true,
            ),
            ("/fish*.php", false, "/Fish.PHP", false),
            ("/a$b", false, "/a$b", true),
            ("/a$b", false, "/a%24b", true),
            ("/a%24b", false, "/a$b", true),
            ("/a$$", false, "/a$", true),
            ("/a$$", false, "/a$b", false),
            ("*", false, "/x", true),
            ("*$", false, "/x", true),
            ("/*a*b*c$", false, "/xaybzc", true),
            ("/*a*b*c$", false, "/xaybzcd", false),
            ("/*ab*b$", false, "/abab", true),
            ("/*aa$", false, "/aaa", true),
            ("/a*a$", false, "/a", false),
            ("private", false, "/private", false),
            (
                "/path/file-with-a-%2A.html",
                false,
                "/path/file-with-a-*.html",
                true,
            ),
            (
                "/path/file-with-a-%2A.html",
                false,
                "/path/file-with-a-x.html",
                false,
            ),
            ("/path/foo-%24", false, "/path/foo-$", true),
            ("/path/foo-%24", false, "/path/foo-", false),
            (
                "/path/file-with-a-%2A.html",
                false,
                "/path/file-with-a-%2a.html",
                true,
            ),
            (
                "/path/file-with-a-*.html",
                false,
                "/path/file-with-a-%2A.html",
                true,
            ),
            // Octet by octet: a `*` may end inside an escape (SPEC §3).
            ("/*A", false, "/%2A", true),
            ("/*A", false, "/*", true),
            ("*A", false, "/%C3%A3", true),
            ("/*A3$", false, "/%C3%A3", true),
            ("/*%A3$", false, "/%C3%A3", true),
            ("/*3", false, "/%C3", true),
            ("/*25", false, "/%25", true),
            ("/*%25", false, "/%", true),
            ("/*url=http%3A", false, "/out?url=http%3A//x", true),
            ("/*url=http%3A", false, "/out?url=http%3a//x", true),
            ("/*url=http:", false, "/out?url=http%3A//x", false),
            ("/*url=http%3A", false, "/out?url=http://x", false),
            ("/a b", false, "/a%20b", true),
            ("/a|b", false, "/a%7cb", true),
            ("/a%7C", false, "/a|b", true),
            ("/a\"b", false, "/a%22b", true),
            // Seznam Robot-version 2.0: whole path unless it ends with `*`.
            ("/fish", true, "/fish", true),
            ("/fish", true, "/fish.html", false),
            ("/fish*", true, "/fish.html", true),
            ("/*.php", true, "/a.php", true),
            ("/*.php", true, "/a.php?x", false),
            ("/fish$", true, "/fish", true),
            ("/", true, "/", true),
            ("/", true, "/a", false),
        ];
        for &(pattern, whole_path, target, expected) in cases {
            let compiled = Pattern::compile(pattern.as_bytes(), whole_path);
            assert_eq!(
                compiled.matches(&matching_form(target.as_bytes())),
                expected,
                "{pattern} (whole path {whole_path}) on {target}"
            );
        }
    }

    #[test]
    fn runs_of_stars_keep_one_piece() {
        // (pattern, pieces kept)
        let cases: &[(&str, usize)] = &[
            ("/*", 1),
            ("/**", 1),
            ("/*$", 1),
            ("/***$", 1),
            ("/**a**b", 2),
            ("/**a**b**", 3),
            ("/a", 0),
        ];
        for &(pattern, kept) in cases {
            assert_eq!(
                Pattern::compile(pattern.as_bytes(), false).pieces.len(),
                kept,
                "{pattern}"
            );
        }
        let many = format!("/{}x{}", "*".repeat(100_000), "*".repeat(100_000));
        assert_eq!(Pattern::compile(many.as_bytes(), false).pieces.len(), 2);
        // Runs of stars read as one star.
        let cases: &[(&str, &str, bool)] = &[
            ("/**$", "/abc", true),
            ("/**$", "/", true),
            ("/a**$", "/a", true),
            ("/a***b$", "/ab", true),
            ("/a***b$", "/axb", true),
            ("/a***b$", "/axbc", false),
            ("/***%A3", "/%C3%A3", true),
            ("/***A3", "/%C3%A3", true),
            ("/***A3", "/%C3%B3", false),
        ];
        for &(pattern, target, expected) in cases {
            assert_eq!(
                Pattern::compile(pattern.as_bytes(), false).matches(target.as_bytes()),
                expected,
                "{pattern} on {target}"
            );
        }
    }

    #[test]
    fn equal_pieces_share_one_id() {
        let matcher = Matcher::new(
            ["/*ab", "/x*ab$", "/*cd*ab", "/*e", "/*cd"]
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        assert_eq!(matcher.required, [Some(0), Some(0), Some(0), None, Some(1)]);
    }

    #[test]
    fn many_pieces_are_split_among_small_automata() {
        // Pieces sharing their letters, as a hostile robots.txt writes them.
        let written: Vec<String> = (0..5000).map(|i| format!("/*a{i:x}$")).collect();
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        assert_eq!(matcher.prefilter.per_searcher, PIECES_PER_SEARCHER);
        assert_eq!(matcher.prefilter.searchers.len(), 5);
        assert!(matcher.prefilter.searchers.iter().all(Option::is_some));
        for i in [0usize, 1023, 1024, 4999] {
            let target = format!("/x/a{i:x}");
            assert_eq!(matcher.decide(target.as_bytes()), Some(i), "{target}");
            assert_eq!(matcher.decide_by_scan(target.as_bytes()), Some(i));
        }
        assert_eq!(matcher.decide(b"/x/a5000"), None);
        // Past 64 automata of the usual size, the automata grow instead.
        let prefilter = Prefilter::new(&vec![&b"ab"[..]; 70 * PIECES_PER_SEARCHER]);
        assert_eq!(prefilter.searchers.len(), MAX_SEARCHERS);
    }

    #[test]
    fn trie_and_scan_agree() {
        let patterns = ["/a/b/c", "/a/*", "/a/b", "/a", "/", "/*.gif$", "/x*y", "*z"];
        let matcher = Matcher::new(
            patterns
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        let targets = [
            "/", "/a", "/a/", "/a/b", "/a/b/c/d", "/b.gif", "/xy", "/q/z", "/a/b.gif", "",
        ];
        for target in targets {
            assert_eq!(
                matcher.decide(target.as_bytes()),
                matcher.decide_by_scan(target.as_bytes()),
                "{target}"
            );
        }
        assert_eq!(matcher.decide(b"/a/b/c/d"), Some(0));
        assert_eq!(matcher.decide(b"/a/x"), Some(1));
        assert_eq!(matcher.decide(b"/b.gif"), Some(4));
        assert_eq!(matcher.decide(b""), None);
        // More distinct pieces in one target than the prefilter keeps:
        // every pattern is then checked in full.
        let many: Vec<String> = (0..100).map(|i| format!("/*x{i:02}$")).collect();
        let matcher = Matcher::new(
            many.iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        let all: String = (0..100).map(|i| format!("x{i:02}")).collect();
        let target = format!("/{all}");
        assert_eq!(matcher.decide(target.as_bytes()), Some(99));
        assert_eq!(matcher.decide(b"/x07"), Some(7));
        assert_eq!(matcher.decide(b"/x07/"), None);
        let empty = Matcher::new(Vec::new());
        assert_eq!(empty.decide(b"/"), None);
    }
}
