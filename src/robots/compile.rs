//! Compiling the Allow/Disallow patterns a crawler obeys into one matcher:
//! takes normalised patterns in precedence order, gives the first (so the
//! deciding) pattern that matches a target (RFC 9309 §2.2.2, §2.2.3; SPEC §3).
//!
//! A pattern is a literal prefix, then literal pieces each after a `*`,
//! perhaps anchored at the end by `$`. Both sides are in matching form and
//! compared octet by octet, so a piece may start inside a `%XX` escape of
//! the target (SPEC §3: `/*A` matches `/%2A`). Taking each piece at its
//! leftmost place is exact for `*`-only globs: a leftmost place leaves the
//! longest remainder for the pieces after it.
//!
//! Patterns without a piece go into a byte trie over their prefixes: walking
//! the target down the trie visits exactly the ones it starts with. Patterns
//! with pieces are matched all at once, driven by one Aho-Corasick pass over
//! the target that reports every occurrence of every piece, in order of
//! where it ends: a pattern waits for its next piece from where its last one
//! ended, and advances on the first occurrence that starts there or later.
//! A pattern is only looked at when a piece it waits for occurs, so a
//! target costs the pass plus the pieces it holds, never one check per
//! pattern: a robots.txt of 20,000 wildcard rules and a target holding
//! hundreds of their pieces costs a small multiple of as many literal rules
//! (`benches/wildcard.rs` measures it). A last piece anchored by `$` is
//! checked once, at the end. `decide_by_scan`, which tries every pattern in
//! turn with a substring search, is the plain reading the tests and benches
//! hold this against.

use std::cell::RefCell;
use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::normalize::matching_form_into;

/// One compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// The literal the target must start with, in matching form.
    prefix: Box<[u8]>,
    /// The literal after each `*`, in order, none empty.
    pieces: Box<[Box<[u8]>]>,
    /// The last piece (or, without pieces, the prefix) must end the target
    /// (`$`, or Robot-version 2.0).
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
        let ends_with_star = body.ends_with(b"*");
        // `*` at the end matches any rest, and so does `*$`: such a pattern
        // is its prefix and pieces, unanchored.
        let anchored = !ends_with_star && (dollar || whole_path);
        let mut literals = body.split(|&b| b == b'*').map(|piece| {
            let mut out = Vec::with_capacity(piece.len());
            matching_form_into(piece, &mut out);
            out.into_boxed_slice()
        });
        let prefix = literals.next().unwrap_or_default();
        // A run of `*` matches what one `*` matches: the empty pieces
        // between them are dropped. Kept, a pattern of a hundred thousand
        // stars would cost a hundred megabytes.
        let pieces = literals.filter(|piece| !piece.is_empty()).collect();
        Pattern {
            prefix,
            pieces,
            anchored,
        }
    }

    /// True when the pattern matches the whole target (in matching form),
    /// each piece taken at its leftmost place: the plain reading.
    pub(crate) fn matches(&self, target: &[u8]) -> bool {
        if !target.starts_with(&self.prefix) {
            return false;
        }
        let mut at = self.prefix.len();
        let Some((last, middle)) = self.pieces.split_last() else {
            return !self.anchored || at == target.len();
        };
        for piece in middle {
            match memchr::memmem::find(&target[at..], piece) {
                Some(found) => at += found + piece.len(),
                None => return false,
            }
        }
        if self.anchored {
            target.len() - at >= last.len() && target.ends_with(last)
        } else {
            memchr::memmem::find(&target[at..], last).is_some()
        }
    }
}

/// A trie node: the edges out, sorted by octet, and the piece-less patterns
/// whose prefix ends here, in precedence order.
#[derive(Debug, Clone, Default)]
struct Node {
    edges: Vec<(u8, u32)>,
    patterns: Vec<u32>,
}

/// The pieces of all patterns, searched for in one pass.
#[derive(Debug, Clone)]
struct Pieces {
    /// `None` when no pattern has a piece.
    searcher: Option<AhoCorasick>,
    /// For each pattern, the ids of its pieces.
    of_pattern: Vec<Box<[u32]>>,
    /// For each piece id, the patterns whose first piece it is, in
    /// precedence order.
    first_of: Vec<Box<[u32]>>,
}

/// All patterns of one selection: the trie over the piece-less ones and the
/// pieces of the others.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    patterns: Vec<Pattern>,
    nodes: Vec<Node>,
    pieces: Pieces,
}

impl Matcher {
    /// Builds the matcher. `patterns` must come in precedence order: the
    /// first that matches a target decides it.
    pub(crate) fn new(patterns: Vec<Pattern>) -> Matcher {
        let mut nodes = vec![Node::default()];
        // Pieces are told apart by hashing, not by comparing each with
        // every one before it: a robots.txt of tens of thousands of
        // wildcard rules must not cost quadratic time.
        let mut distinct: Vec<&[u8]> = Vec::new();
        let mut ids: HashMap<&[u8], u32> = HashMap::new();
        let mut of_pattern = Vec::with_capacity(patterns.len());
        for (index, pattern) in patterns.iter().enumerate() {
            let piece_ids: Box<[u32]> = pattern
                .pieces
                .iter()
                .map(|piece| {
                    *ids.entry(piece).or_insert_with(|| {
                        distinct.push(piece);
                        (distinct.len() - 1) as u32
                    })
                })
                .collect();
            if piece_ids.is_empty() {
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
            of_pattern.push(piece_ids);
        }
        let mut first_of: Vec<Vec<u32>> = vec![Vec::new(); distinct.len()];
        for (index, piece_ids) in of_pattern.iter().enumerate() {
            if let Some(&first) = piece_ids.first() {
                first_of[first as usize].push(index as u32);
            }
        }
        // A contiguous NFA builds in time linear in the pieces' length,
        // also for tens of thousands of pieces that share their letters; a
        // failed build (past the automaton's size limits) leaves the
        // patterns with pieces to the plain reading.
        let searcher = (!distinct.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::ContiguousNFA))
                    .match_kind(MatchKind::Standard)
                    .build(&distinct)
                    .ok()
            })
            .flatten();
        let pieces = Pieces {
            searcher,
            of_pattern,
            first_of: first_of.into_iter().map(Vec::into_boxed_slice).collect(),
        };
        Matcher {
            patterns,
            nodes,
            pieces,
        }
    }

    /// The index of the first pattern, in precedence order, that matches
    /// `target` (in matching form).
    pub(crate) fn decide(&self, target: &[u8]) -> Option<usize> {
        let mut best = self.decide_literal(target);
        match &self.pieces.searcher {
            _ if self.pieces.first_of.is_empty() => {}
            Some(searcher) => {
                let wild = SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
                    Ok(mut scratch) => self.decide_wild(searcher, target, best, &mut scratch),
                    Err(_) => self.decide_wild(searcher, target, best, &mut Scratch::default()),
                });
                best = best.min(wild);
            }
            None => {
                if let Some(index) = self
                    .patterns
                    .iter()
                    .take(best)
                    .position(|p| !p.pieces.is_empty() && p.matches(target))
                {
                    best = index;
                }
            }
        }
        (best != usize::MAX).then_some(best)
    }

    /// The first piece-less pattern that matches, by walking the trie;
    /// `usize::MAX` when none does.
    fn decide_literal(&self, target: &[u8]) -> usize {
        let mut best = usize::MAX;
        let mut at = 0usize;
        let mut depth = 0usize;
        loop {
            let node = &self.nodes[at];
            for &index in &node.patterns {
                let index = index as usize;
                if index >= best {
                    break;
                }
                if !self.patterns[index].anchored || depth == target.len() {
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
        best
    }

    /// The first pattern with pieces that matches and comes before `best`;
    /// `usize::MAX` when none does.
    fn decide_wild(
        &self,
        searcher: &AhoCorasick,
        target: &[u8],
        best: usize,
        scratch: &mut Scratch,
    ) -> usize {
        let mut run = Run {
            matcher: self,
            target,
            best,
            scratch,
        };
        run.scratch
            .start(self.patterns.len(), self.pieces.first_of.len());
        for found in searcher.find_overlapping_iter(target) {
            run.occurs(found.pattern().as_u32(), found.start(), found.end());
        }
        run.finish()
    }

    /// The same answer as [`Matcher::decide`] by trying every pattern in
    /// order: the baseline the bench and the property tests compare with.
    pub(crate) fn decide_by_scan(&self, target: &[u8]) -> Option<usize> {
        self.patterns.iter().position(|p| p.matches(target))
    }
}

/// Where each pattern stands while one target is read, kept per thread so
/// that judging does not allocate once warm. Entries carry the number of
/// the target they belong to, so nothing is cleared between targets.
#[derive(Debug, Default)]
struct Scratch {
    /// The number of the target being read.
    current: u32,
    /// Per pattern: the target its `next` and `from` belong to.
    seen: Vec<u32>,
    /// Per pattern: the index of the piece it waits for.
    next: Vec<u32>,
    /// Per pattern: where its last piece (or its prefix) ended.
    from: Vec<u32>,
    /// Per piece: the target its `waiting` list belongs to.
    listed: Vec<u32>,
    /// Per piece: the patterns waiting for it.
    waiting: Vec<Vec<u32>>,
    /// Patterns whose anchored last piece is checked at the end.
    at_end: Vec<u32>,
    /// Patterns that advanced while a list was being read.
    moved: Vec<u32>,
}

impl Scratch {
    fn start(&mut self, patterns: usize, pieces: usize) {
        if self.seen.len() < patterns {
            self.seen.resize(patterns, 0);
            self.next.resize(patterns, 0);
            self.from.resize(patterns, 0);
        }
        if self.listed.len() < pieces {
            self.listed.resize(pieces, 0);
            self.waiting.resize_with(pieces, Vec::new);
        }
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            // Wrapped: forget every mark so none can be taken as current.
            self.seen.fill(0);
            self.listed.fill(0);
            self.current = 1;
        }
        self.at_end.clear();
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// One target being read against the patterns with pieces.
struct Run<'a> {
    matcher: &'a Matcher,
    target: &'a [u8],
    /// The first pattern known to match so far; later ones need no work.
    best: usize,
    scratch: &'a mut Scratch,
}

impl Run<'_> {
    /// The waiting list of piece `id`, made on first need: the patterns
    /// whose first piece it is and whose prefix starts the target begin
    /// waiting for it there. No occurrence of the piece ended before this
    /// (it would have made the list), so they miss none.
    fn list(&mut self, id: u32) {
        let id = id as usize;
        if self.scratch.listed[id] == self.scratch.current {
            return;
        }
        self.scratch.listed[id] = self.scratch.current;
        let mut list = std::mem::take(&mut self.scratch.waiting[id]);
        list.clear();
        for &index in self.matcher.pieces.first_of[id].iter() {
            let i = index as usize;
            if i >= self.best {
                break;
            }
            let prefix = &self.matcher.patterns[i].prefix;
            if !self.target.starts_with(prefix) {
                continue;
            }
            self.scratch.seen[i] = self.scratch.current;
            self.scratch.next[i] = 0;
            self.scratch.from[i] = prefix.len() as u32;
            if self.waits_at_end(i) {
                self.scratch.at_end.push(index);
            } else {
                list.push(index);
            }
        }
        self.scratch.waiting[id] = list;
    }

    /// True when pattern `i` now waits for an anchored last piece.
    fn waits_at_end(&self, i: usize) -> bool {
        let pattern = &self.matcher.patterns[i];
        pattern.anchored && self.scratch.next[i] as usize + 1 == pattern.pieces.len()
    }

    /// Piece `id` occurs at `start..end`.
    fn occurs(&mut self, id: u32, start: usize, end: usize) {
        self.list(id);
        let mut list = std::mem::take(&mut self.scratch.waiting[id as usize]);
        let mut moved = std::mem::take(&mut self.scratch.moved);
        list.retain(|&index| {
            let i = index as usize;
            if i >= self.best {
                return false;
            }
            if (self.scratch.from[i] as usize) > start {
                // Overlaps the piece before: a later occurrence may do.
                return true;
            }
            self.scratch.next[i] += 1;
            self.scratch.from[i] = end as u32;
            if self.scratch.next[i] as usize == self.matcher.pieces.of_pattern[i].len() {
                self.best = self.best.min(i);
            } else {
                moved.push(index);
            }
            false
        });
        self.scratch.waiting[id as usize] = list;
        for &index in &moved {
            let i = index as usize;
            if self.waits_at_end(i) {
                self.scratch.at_end.push(index);
            } else {
                let next = self.matcher.pieces.of_pattern[i][self.scratch.next[i] as usize];
                self.list(next);
                self.scratch.waiting[next as usize].push(index);
            }
        }
        moved.clear();
        self.scratch.moved = moved;
    }

    /// Checks the anchored last pieces and gives the first match.
    fn finish(self) -> usize {
        let mut best = self.best;
        for &index in &self.scratch.at_end {
            let i = index as usize;
            if i >= best {
                continue;
            }
            let pattern = &self.matcher.patterns[i];
            let Some(last) = pattern.pieces.last() else {
                continue;
            };
            let from = self.scratch.from[i] as usize;
            if self.target.len() >= from + last.len() && self.target.ends_with(last) {
                best = i;
            }
        }
        best
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
        // (pattern, pieces kept, anchored)
        let cases: &[(&str, usize, bool)] = &[
            ("/*", 0, false),
            ("/**", 0, false),
            ("/*$", 0, false),
            ("/***$", 0, false),
            ("/**a**b", 2, false),
            ("/**a**b**", 2, false),
            ("/**a**b**$", 2, false),
            ("/**a**b$", 2, true),
            ("/a", 0, false),
            ("/a$", 0, true),
        ];
        for &(pattern, kept, anchored) in cases {
            let compiled = Pattern::compile(pattern.as_bytes(), false);
            assert_eq!(
                (compiled.pieces.len(), compiled.anchored),
                (kept, anchored),
                "{pattern}"
            );
        }
        let many = format!("/{}x{}", "*".repeat(100_000), "*".repeat(100_000));
        assert_eq!(Pattern::compile(many.as_bytes(), false).pieces.len(), 1);
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
            let compiled = Pattern::compile(pattern.as_bytes(), false);
            assert_eq!(
                compiled.matches(target.as_bytes()),
                expected,
                "{pattern} on {target}"
            );
            let matcher = Matcher::new(vec![compiled]);
            assert_eq!(
                matcher.decide(target.as_bytes()).is_some(),
                expected,
                "{pattern} on {target}"
            );
        }
    }

    #[test]
    fn equal_pieces_share_one_id() {
        let matcher = Matcher::new(
            ["/*ab", "/x*ab$", "/*cd*ab", "/*e", "/*cd", "/q"]
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        let ids: Vec<&[u32]> = matcher.pieces.of_pattern.iter().map(|p| &p[..]).collect();
        assert_eq!(ids, [&[0][..], &[0], &[1, 0], &[2], &[1], &[]]);
        let first: Vec<&[u32]> = matcher.pieces.first_of.iter().map(|p| &p[..]).collect();
        assert_eq!(first, [&[0, 1][..], &[2, 4], &[3]]);
    }

    /// A hostile robots.txt: tens of thousands of wildcard rules whose
    /// pieces share their letters, and targets holding hundreds of them.
    #[test]
    fn many_wildcard_rules_and_targets_full_of_their_pieces() {
        let written: Vec<String> = (0..20_000).map(|i| format!("/*x{i:05}*zz")).collect();
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        // Every piece present, but `zz` only before them: nothing matches.
        let pieces: String = (0..400).map(|i| format!("x{:05}", i * 37)).collect();
        let target = format!("/zz{pieces}");
        assert_eq!(matcher.decide(target.as_bytes()), None);
        assert_eq!(matcher.decide_by_scan(target.as_bytes()), None);
        // `zz` at the end: the first of them in precedence order decides.
        let target = format!("/{pieces}zz");
        assert_eq!(matcher.decide(target.as_bytes()), Some(0));
        let target = format!("/x19999{pieces}zz");
        assert_eq!(matcher.decide(target.as_bytes()), Some(0));
        let target = "/x19999/zz";
        assert_eq!(matcher.decide(target.as_bytes()), Some(19_999));
        assert_eq!(matcher.decide_by_scan(target.as_bytes()), Some(19_999));
    }

    #[test]
    fn pieces_and_scan_agree_on_overlaps_and_repeats() {
        let patterns = [
            "/*ab*ab$", "/*aba", "/*ab*ba", "/*a*a*a$", "/x*$", "/*b$", "/a*b*c", "/*ab*", "*cc*c",
            "/*%2A*A",
        ];
        let targets = [
            "/ab", "/abab", "/aba", "/abba", "/aaa", "/aa", "/x", "/xb", "/b", "/acbc", "/abc",
            "/ccc", "/cc", "/%2A", "/%2AA", "/ababab", "/bab", "",
        ];
        // Every ordering of a few patterns, so each can be first.
        for rotate in 0..patterns.len() {
            let mut order = patterns.to_vec();
            order.rotate_left(rotate);
            let matcher = Matcher::new(
                order
                    .iter()
                    .map(|p| Pattern::compile(p.as_bytes(), false))
                    .collect(),
            );
            for target in targets {
                assert_eq!(
                    matcher.decide(target.as_bytes()),
                    matcher.decide_by_scan(target.as_bytes()),
                    "{target} with {order:?}"
                );
            }
        }
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
