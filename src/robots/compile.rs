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
//! A literal `*` or `$` of the target is one character, which the matching
//! form spells `%2A` or `%24` so that a pattern's `%2A` or `%24` meets it
//! (RFC 9309 §2.2.3); a [`Target`] says where those escapes are, and no
//! literal (prefix or piece) may begin or end strictly inside one. That is
//! exactly "a pattern's `%2A` matches a target's `*` or its `%2A`, and no
//! other pattern octet matches a target's `*`": a literal that covers such
//! an escape whole has `%` at its first octet, and in normal form every `%`
//! of a pattern begins a whole escape, so the literal holds `%2A` (`%24`)
//! just there; a literal that only touched part of it would begin or end
//! inside. `/*A` does not match `/*` (the `A` would begin inside), but
//! still matches `/%2A`, which holds no literal. A piece spelt in matching
//! form has one length whatever it meets, so the leftmost place among the
//! allowed ones is still the one that ends first, and the reading stays
//! exact.
//!
//! Patterns without a piece go into a byte trie over their prefixes: walking
//! the target down the trie visits exactly the ones it starts with. Patterns
//! with pieces are matched all at once, driven by one Aho-Corasick pass over
//! the target that reports every occurrence of every piece, in order of
//! where it ends: a pattern waits for its next piece from where its last one
//! ended, and advances on the first occurrence that starts there or later.
//! Patterns that share their prefix and first pieces advance alike through
//! them, so they share the nodes of a tree of piece paths (`Node`) and are
//! moved once for all. A node is only looked at when a piece it waits for
//! occurs, so a target costs the pass plus the pieces it holds, never one
//! check per pattern: a robots.txt of 20,000 wildcard rules and a target holding
//! hundreds of their pieces costs a small multiple of as many literal rules
//! (`benches/wildcard.rs` and `benches/wildcard.sh` measure it). A last
//! piece anchored by `$` is checked once, at the end. The constant factor
//! is cache misses, so what the patterns' pieces need is in flat arrays
//! read in runs, a waiting pattern carries its own state in a chain that
//! grows with the target's pieces (nothing per target is indexed by
//! pattern), and the pass is a DFA when its table is small. `decide_by_scan`, which tries every pattern in
//! turn with a substring search, is the plain reading the tests and benches
//! hold this against.
//!
//! The radix tree is in `compile/radix.rs`, the tree of piece paths in
//! `compile/tree.rs`, the pass itself in `compile/pass.rs`, the patterns
//! waiting on it while a target is read in `compile/chains.rs`; here are
//! the patterns and the `Matcher` that reads them all.

mod chains;
mod pass;
mod radix;
mod tree;

use std::collections::HashMap;

use aho_corasick::Anchored;
use aho_corasick::automaton::Automaton;

use super::normalize::matching_form_into;
use chains::{Run, SCRATCH, Scratch};
use pass::{Pass, occurrences, search_for};
use radix::Radix;
use tree::{
    Child, HAS_ENDS, HEADER, NO_NODE, Node, Start, Tree, WIDE, WideEnds, group_at, head_of, run_of,
};

/// A target in matching form, with where its literal `*` and `$` are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    /// The octets, as `normalize::target_form_into` gives them.
    pub(crate) octets: &'a [u8],
    /// Where each `%2A` or `%24` standing for a literal `*` or `$` begins,
    /// in ascending order; empty for nearly every logged target.
    pub(crate) literals: &'a [u32],
}

impl<'a, T: AsRef<[u8]> + ?Sized> From<&'a T> for Target<'a> {
    /// A target in matching form that holds no literal `*` or `$`.
    fn from(octets: &'a T) -> Target<'a> {
        Target {
            octets: octets.as_ref(),
            literals: &[],
        }
    }
}

impl Target<'_> {
    /// True when a literal may not begin or end at `at`: it falls strictly
    /// inside the escape of a literal `*` or `$`.
    #[inline]
    fn splits(&self, at: usize) -> bool {
        if self.literals.is_empty() {
            return false;
        }
        let after = self
            .literals
            .partition_point(|&start| (start as usize) < at);
        after > 0 && at - self.literals[after - 1] as usize <= 2
    }

    /// Where `literal` first occurs at `from` or later with neither end
    /// inside a literal `*` or `$`.
    fn find(&self, literal: &[u8], mut from: usize) -> Option<usize> {
        loop {
            let found = from + memchr::memmem::find(self.octets.get(from..)?, literal)?;
            if !self.splits(found) && !self.splits(found + literal.len()) {
                return Some(found);
            }
            from = found + 1;
        }
    }
}

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

    /// True when the pattern matches the whole target, each piece taken at
    /// its leftmost allowed place: the plain reading.
    pub(crate) fn matches<'t>(&self, target: impl Into<Target<'t>>) -> bool {
        let target = target.into();
        let octets = target.octets;
        if !octets.starts_with(&self.prefix) || target.splits(self.prefix.len()) {
            return false;
        }
        let mut at = self.prefix.len();
        let Some((last, middle)) = self.pieces.split_last() else {
            return !self.anchored || at == octets.len();
        };
        for piece in middle {
            match target.find(piece, at) {
                Some(found) => at = found + piece.len(),
                None => return false,
            }
        }
        if self.anchored {
            octets.len() - at >= last.len()
                && octets.ends_with(last)
                && !target.splits(octets.len() - last.len())
        } else {
            target.find(last, at).is_some()
        }
    }
}

/// The pieces of all patterns, searched for in one pass, and the patterns
/// as a tree of their piece paths, in flat arrays.
#[derive(Debug, Clone)]
struct Pieces {
    /// `None` when no pattern has a piece.
    searcher: Option<Pass>,
    /// The octets of each distinct piece: `text[text_at[p]..text_at[p + 1]]`.
    text: Vec<u8>,
    text_at: Vec<u32>,
    /// For piece id `p`, `starts[first_at[p]..first_at[p + 1]]` are the
    /// first-level nodes (and one-piece anchored patterns) that begin with
    /// it, by their first pattern.
    first_at: Vec<u32>,
    starts: Vec<Start>,
    /// The octets of the prefixes past their first four.
    prefixes: Vec<u8>,
    /// The nodes' records (`Node`).
    records: Vec<u32>,
    /// (pattern, last piece) of every node's anchored ends.
    ends: Vec<(u32, u32)>,
    /// Where a node's anchored ends are in `ends`, by node: (from, count).
    ends_at: HashMap<u32, (u32, u32), foldhash::fast::FixedState>,
    /// For piece `p`, `lazy[lazy_at[p]..lazy_at[p + 1]]` are the wide
    /// nodes' children that take `p`, each with its parent.
    lazy_at: Vec<u32>,
    lazy: Vec<(Child, u32)>,
    /// A wide node's child by (parent, piece).
    wide_children: HashMap<(u32, u32), Child, foldhash::fast::FixedState>,
    /// The anchored ends of nodes that have more than `WIDE` of them.
    wide_ends: HashMap<u32, WideEnds, foldhash::fast::FixedState>,
}

impl Pieces {
    /// How many distinct pieces there are.
    fn len(&self) -> usize {
        self.first_at.len().saturating_sub(1)
    }

    /// The first-level nodes (and one-piece anchored patterns) whose first
    /// piece is `id`.
    fn starting_with(&self, id: u32) -> &[Start] {
        run_of(&self.first_at, &self.starts, id)
    }

    /// The octets of piece `id`.
    fn text(&self, id: u32) -> &[u8] {
        run_of(&self.text_at, &self.text, id)
    }

    /// The wide nodes' children that take `id`, each with its parent.
    fn lazy_of(&self, id: u32) -> &[(Child, u32)] {
        run_of(&self.lazy_at, &self.lazy, id)
    }

    /// The node whose record starts at `at`.
    #[inline]
    fn node(&self, at: u32) -> Node<'_> {
        let at = at as usize;
        let head = &self.records[at..at + HEADER];
        let children = (head[1] & !HAS_ENDS) as usize;
        Node {
            at: at as u32,
            own: head[0],
            has_ends: head[1] & HAS_ENDS != 0,
            children: &self.records[at + HEADER..at + HEADER + 3 * children],
        }
    }

    /// The anchored ends of `node`, in precedence order.
    fn ends_of(&self, node: &Node<'_>) -> &[(u32, u32)] {
        if !node.has_ends {
            return &[];
        }
        match self.ends_at.get(&node.at) {
            Some(&(from, len)) => &self.ends[from as usize..(from + len) as usize],
            None => &[],
        }
    }
}

/// All patterns of one selection: the trie over the piece-less ones and the
/// pieces of the others.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    patterns: Vec<Pattern>,
    literal: Radix,
    pieces: Pieces,
}

impl Matcher {
    /// Builds the matcher. `patterns` must come in precedence order: the
    /// first that matches a target decides it.
    pub(crate) fn new(patterns: Vec<Pattern>) -> Matcher {
        let mut literal: Vec<(&[u8], u32)> = Vec::new();
        // Pieces are told apart by hashing, not by comparing each with
        // every one before it: a robots.txt of tens of thousands of
        // wildcard rules must not cost quadratic time.
        let mut distinct: Vec<&[u8]> = Vec::new();
        let mut known: HashMap<&[u8], u32> = HashMap::new();
        let mut wild = Vec::new();
        for (index, pattern) in patterns.iter().enumerate() {
            if pattern.pieces.is_empty() {
                literal.push((&pattern.prefix, index as u32));
                continue;
            }
            let ids: Vec<u32> = pattern
                .pieces
                .iter()
                .map(|piece| {
                    *known.entry(piece).or_insert_with(|| {
                        distinct.push(piece);
                        (distinct.len() - 1) as u32
                    })
                })
                .collect();
            wild.push((index as u32, &pattern.prefix[..], ids, pattern.anchored));
        }
        let mut paths = Tree::build(&wild);
        // The piece ids are in the tree now: freed before its arrays are laid out.
        drop(wild);
        let mut firsts = std::mem::take(&mut paths.firsts);
        let prefixes = std::mem::take(&mut paths.prefixes);
        // Each node's anchored ends together, in precedence order.
        paths.ends.sort_by_key(|&(node, _, _)| node);
        let ends_by_node = group_at(
            paths.ends.iter().map(|&(node, _, _)| node),
            paths.nodes.len(),
        );
        let built = &paths.nodes;
        // Grouped by first piece; the sort is stable, so each group stays
        // in precedence order.
        firsts.sort_by_key(|&(first, _)| first);
        let first_at = group_at(firsts.iter().map(|&(first, _)| first), distinct.len());
        // Where each node's record starts.
        let mut record_at = Vec::with_capacity(built.len());
        let mut size = 0usize;
        for node in built {
            record_at.push(size as u32);
            size += HEADER + 3 * node.children as usize;
        }
        let child = |at: u32| Child {
            node: record_at[at as usize],
            piece: built[at as usize].piece,
            min: built[at as usize].min,
        };
        let mut records = Vec::with_capacity(size);
        let mut ends = Vec::new();
        let mut ends_at = HashMap::default();
        let mut lazy_pairs: Vec<(u32, (Child, u32))> = Vec::new();
        let mut wide_children = HashMap::default();
        let mut wide_ends: HashMap<u32, WideEnds, _> = HashMap::default();
        for (index, (node, &at)) in built.iter().zip(&record_at).enumerate() {
            let node_ends =
                &paths.ends[ends_by_node[index] as usize..ends_by_node[index + 1] as usize];
            if node.children > WIDE {
                for below in paths.children(index) {
                    let below = child(below);
                    lazy_pairs.push((below.piece, (below, at)));
                    wide_children.insert((at, below.piece), below);
                }
            }
            if node_ends.len() > WIDE as usize {
                let mut wide = WideEnds::default();
                for &(_, pattern, last) in node_ends {
                    let text: &[u8] = distinct[last as usize];
                    wide.lengths.push(text.len() as u32);
                    wide.first.entry(text.into()).or_insert(pattern);
                }
                wide.lengths.sort_unstable();
                wide.lengths.dedup();
                wide_ends.insert(at, wide);
            }
            let mut count = node.children;
            if !node_ends.is_empty() {
                count |= HAS_ENDS;
                ends_at.insert(at, (ends.len() as u32, node_ends.len() as u32));
            }
            records.extend_from_slice(&[node.own, count]);
            for below in paths.children(index) {
                let below = child(below);
                records.extend_from_slice(&[below.node, below.piece, below.min]);
            }
            ends.extend(node_ends.iter().map(|&(_, pattern, last)| (pattern, last)));
        }
        // The starts name nodes by their records.
        for (_, start) in &mut firsts {
            if start.node != NO_NODE {
                start.node = record_at[start.node as usize];
            }
        }
        lazy_pairs.sort_by_key(|&(piece, _)| piece);
        let lazy_at = group_at(lazy_pairs.iter().map(|&(piece, _)| piece), distinct.len());
        let mut text_at = Vec::with_capacity(distinct.len() + 1);
        let mut text = Vec::new();
        text_at.push(0u32);
        for piece in &distinct {
            text.extend_from_slice(piece);
            text_at.push(text.len() as u32);
        }
        let literal = Radix::new(literal);
        let pieces = Pieces {
            searcher: search_for(&distinct),
            text,
            text_at,
            first_at,
            starts: firsts.into_iter().map(|(_, start)| start).collect(),
            prefixes,
            records,
            ends,
            ends_at,
            lazy_at,
            lazy: lazy_pairs.into_iter().map(|(_, pair)| pair).collect(),
            wide_children,
            wide_ends,
        };
        Matcher {
            patterns,
            literal,
            pieces,
        }
    }

    /// The index of the first pattern, in precedence order, that matches
    /// `target`.
    pub(crate) fn decide<'t>(&self, target: impl Into<Target<'t>>) -> Option<usize> {
        let target = target.into();
        let mut best = self.decide_literal(target);
        // Positions are kept as u32; a longer target (never seen in a
        // log) takes the plain reading.
        let searcher = match &self.pieces.searcher {
            Some(searcher) if u32::try_from(target.octets.len()).is_ok() => Some(searcher),
            _ => None,
        };
        match searcher {
            _ if self.pieces.len() == 0 => {}
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

    /// The first piece-less pattern that matches, by walking the tree;
    /// `usize::MAX` when none does.
    fn decide_literal(&self, target: Target<'_>) -> usize {
        let mut best = usize::MAX;
        self.literal.walk(target.octets, |depth, patterns| {
            // A prefix may not end inside a literal `*` or `$`.
            if target.splits(depth) {
                return;
            }
            for &index in patterns {
                let index = index as usize;
                if index >= best {
                    break;
                }
                if !self.patterns[index].anchored || depth == target.octets.len() {
                    best = index;
                    break;
                }
            }
        });
        best
    }

    /// The first pattern with pieces that matches and comes before `best`;
    /// `usize::MAX` when none does.
    fn decide_wild(
        &self,
        searcher: &Pass,
        target: Target<'_>,
        best: usize,
        scratch: &mut Scratch,
    ) -> usize {
        scratch.start();
        let mut run = Run {
            pieces: &self.pieces,
            target,
            head: head_of(target.octets),
            best: u32::try_from(best).unwrap_or(u32::MAX),
            scratch,
        };
        match searcher {
            Pass::Dfa {
                dfa,
                start,
                shift,
                match_at,
                matched,
                wakes,
                links,
            } => {
                let mut sid = *start;
                for (at, &octet) in target.octets.iter().enumerate() {
                    sid = dfa.next_state(Anchored::No, sid, octet);
                    if !dfa.is_special(sid) || !dfa.is_match(sid) {
                        continue;
                    }
                    // Patterns set apart that may take what ends here
                    // wait again, waking the states of their pieces.
                    run.rejoin(at as u32 + 1);
                    wakes.wake(links.as_ref(), run.scratch);
                    // A match state whose pieces all had nothing to do,
                    // and to none of which a pattern moved since, is
                    // passed over: a state reports every piece ending
                    // here, which for pieces that end one another (`a`,
                    // `aa`, `aaa`, …) is all of them at every octet
                    // (SPEC §5).
                    if run.scratch.is_quiet(sid.as_u32()) {
                        continue;
                    }
                    let end = at as u32 + 1;
                    if let Some(links) = links {
                        links.visit(sid.as_u32(), end, &mut run);
                        wakes.wake(Some(links), run.scratch);
                        if run.best == 0 {
                            break;
                        }
                        continue;
                    }
                    let index = (sid.as_u32() >> shift) as usize;
                    let mut busy = false;
                    match (match_at.get(index), match_at.get(index + 1)) {
                        (Some(&from), Some(&to)) if sid.as_u32() & ((1 << shift) - 1) == 0 => {
                            for &(id, len) in &matched[from as usize..to as usize] {
                                busy |= run.occurs(id, end - len, end);
                            }
                        }
                        // Not in the table (never so, by how it is built):
                        // asked of the DFA itself, and never passed over,
                        // since no piece's move would wake it.
                        _ => {
                            occurrences(dfa.as_ref(), sid, end, &mut run);
                            busy = true;
                        }
                    }
                    if !busy {
                        run.scratch.set_quiet(sid.as_u32());
                    }
                    // The states of the pieces patterns moved to may have
                    // work again.
                    wakes.wake(links.as_ref(), run.scratch);
                    if run.best == 0 {
                        // Nothing comes before the first pattern.
                        break;
                    }
                }
            }
            Pass::Nfa(nfa, wakes, links) => {
                let Ok(mut sid) = nfa.start_state(Anchored::No) else {
                    return usize::MAX;
                };
                for (at, &octet) in target.octets.iter().enumerate() {
                    sid = nfa.next_state(Anchored::No, sid, octet);
                    if !nfa.is_match(sid) {
                        continue;
                    }
                    run.rejoin(at as u32 + 1);
                    match wakes {
                        Some(wakes) => wakes.wake(links.as_ref(), run.scratch),
                        None => run.scratch.wake_all_if_moved(),
                    }
                    let id = sid.as_u32();
                    if run.scratch.is_quiet(id) {
                        continue;
                    }
                    match links {
                        Some(links) => links.visit(id, at as u32 + 1, &mut run),
                        None => {
                            if !occurrences(nfa.as_ref(), sid, at as u32 + 1, &mut run) {
                                run.scratch.set_quiet(id);
                            }
                        }
                    }
                    match wakes {
                        // As the DFA's: woken by a move to its own pieces.
                        Some(wakes) => wakes.wake(links.as_ref(), run.scratch),
                        // Without the table, by any move.
                        None => run.scratch.wake_all_if_moved(),
                    }
                    if run.best == 0 {
                        break;
                    }
                }
            }
        }
        let best = run.finish(&self.patterns) as usize;
        if best == u32::MAX as usize {
            usize::MAX
        } else {
            best
        }
    }

    /// Whether pattern `index` (in precedence order) matches `target`.
    pub(crate) fn matches_at(&self, index: usize, target: Target<'_>) -> bool {
        self.patterns[index].matches(target)
    }

    /// The same answer as [`Matcher::decide`] by trying every pattern in
    /// order: the baseline the bench and the property tests compare with.
    pub(crate) fn decide_by_scan<'t>(&self, target: impl Into<Target<'t>>) -> Option<usize> {
        let target = target.into();
        self.patterns.iter().position(|p| p.matches(target))
    }
}

#[cfg(test)]
#[path = "compile_tests.rs"]
mod tests;
