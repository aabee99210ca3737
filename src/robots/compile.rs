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

mod chains;

use std::collections::HashMap;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, MatchKind};

use super::normalize::matching_form_into;
use chains::{Run, SCRATCH, Scratch};

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

/// The piece-less patterns as a radix tree (a trie whose chains of one
/// child are one node): the prefixes' octets once each, in flat arrays,
/// so that a robots.txt of 500 KiB of long literal rules costs about its
/// own size, where a node a octet cost some hundred bytes an octet.
#[derive(Debug, Clone, Default)]
struct Radix {
    nodes: Vec<RadixNode>,
    /// Every node's label, node after node.
    labels: Vec<u8>,
    /// Every node's edges (first octet of the child's label, child),
    /// sorted by octet, node after node.
    edges: Vec<(u8, u32)>,
    /// Every node's patterns, in precedence order, node after node.
    patterns: Vec<u32>,
}

/// A node: the octets from its parent to it (`labels[label_at..][..label_len]`),
/// its edges and the patterns whose prefix ends at it.
#[derive(Debug, Clone, Copy, Default)]
struct RadixNode {
    label_at: u32,
    label_len: u32,
    edges_at: u32,
    edges_len: u32,
    patterns_at: u32,
    patterns_len: u32,
}

impl Radix {
    /// The tree of `entries` (prefix, pattern index); node 0 is the root,
    /// with an empty label.
    fn new(mut entries: Vec<(&[u8], u32)>) -> Radix {
        // Sorted, every node's entries are one run, shorter prefixes (the
        // node's own patterns) first, in precedence order among equals.
        entries.sort_unstable();
        let mut radix = Radix::default();
        radix.nodes.push(RadixNode::default());
        radix.fill(0, &entries, 0);
        radix
    }

    /// Fills node `at`, which `entries` (all longer than or as long as
    /// `depth` and sharing their first `depth` octets) go through.
    fn fill(&mut self, at: usize, entries: &[(&[u8], u32)], depth: usize) {
        let own = entries.iter().take_while(|(p, _)| p.len() == depth).count();
        self.nodes[at].patterns_at = self.patterns.len() as u32;
        self.nodes[at].patterns_len = own as u32;
        self.patterns
            .extend(entries[..own].iter().map(|&(_, index)| index));
        // The children: one a run of entries with the same next octet,
        // labelled with what the run's prefixes share past `depth` (the
        // first's and the last's common part, the run being sorted).
        let mut children = Vec::new();
        let mut rest = &entries[own..];
        while let Some(&(first, _)) = rest.first() {
            let octet = first[depth];
            let run = rest.iter().take_while(|(p, _)| p[depth] == octet).count();
            let last = rest[run - 1].0;
            let shared = first[depth..]
                .iter()
                .zip(&last[depth..])
                .take_while(|(a, b)| a == b)
                .count();
            let child = self.nodes.len();
            self.nodes.push(RadixNode {
                label_at: self.labels.len() as u32,
                label_len: shared as u32,
                ..RadixNode::default()
            });
            self.labels.extend_from_slice(&first[depth..depth + shared]);
            children.push((octet, child as u32, run));
            rest = &rest[run..];
        }
        self.nodes[at].edges_at = self.edges.len() as u32;
        self.nodes[at].edges_len = children.len() as u32;
        self.edges
            .extend(children.iter().map(|&(octet, child, _)| (octet, child)));
        let mut rest = &entries[own..];
        for (_, child, run) in children {
            let child = child as usize;
            let shared = self.nodes[child].label_len as usize;
            self.fill(child, &rest[..run], depth + shared);
            rest = &rest[run..];
        }
    }
}

/// What listing a piece needs to know of the patterns that begin with it,
/// kept side by side per piece so that listing reads one run of memory
/// instead of chasing them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Start {
    /// The first pattern, in precedence order, that begins here.
    min: u32,
    /// The node of the prefix and this first piece, or `NO_NODE` for a
    /// pattern whose one piece must end the target (`/p*q$`): then `min`
    /// is that pattern.
    node: u32,
    /// The prefix's length; its first octets are in `head`, the rest in
    /// `Pieces::prefixes` from `rest_at`.
    prefix_len: u32,
    /// The prefix's first four octets, zero-padded: most prefixes are `/`
    /// or empty, so most checks end here.
    head: u32,
    rest_at: u32,
}

/// No node: a `Start` of a pattern checked at the end, or, while the tree is
/// built, no child or sibling.
const NO_NODE: u32 = u32::MAX;

/// Children a node hands its pieces' chains when it is reached; past this
/// many it is *wide*, and its children are found from their pieces' side
/// when those occur (`Run::list_lazy`), so that a node that 20,000
/// patterns share (`/*.php*sid*x00042`) costs one step, not 20,000.
const WIDE: u32 = 16;

/// A node of the tree of the patterns' piece paths: the patterns that share
/// their prefix and their first pieces share the nodes of those pieces, and
/// are moved by an occurrence once, as one. A node is reached at the end of
/// the leftmost occurrence of its piece that starts where its parent was
/// reached, or later: the same for every pattern that goes through it.
///
/// Nodes are records in one array (`Pieces::records`), each known by where
/// its record starts, its children's entries beside it, so that reaching a
/// node reads one run of memory, as small as it can be: `own`, then the
/// number of children (`HAS_ENDS` set when anchored ends follow it), then
/// each child's node, piece and first pattern.
#[derive(Debug, Clone, Copy)]
struct Node<'r> {
    /// Where its record starts.
    at: u32,
    /// The first pattern whose pieces end here (no `$`): it matches when
    /// the node is reached; `u32::MAX` for none.
    own: u32,
    /// Patterns whose last piece, anchored by `$`, follows it
    /// (`Pieces::ends_of`).
    has_ends: bool,
    /// Its children's entries, three numbers each (`Child`), by their
    /// first pattern.
    children: &'r [u32],
}

/// The numbers of a node's record before its children's.
const HEADER: usize = 2;

/// The bit of a record's count of children that says it has anchored ends.
const HAS_ENDS: u32 = 1 << 31;

impl Node<'_> {
    fn children_len(&self) -> usize {
        self.children.len() / 3
    }

    fn children(&self) -> impl Iterator<Item = Child> + '_ {
        self.children.chunks_exact(3).map(|c| Child {
            node: c[0],
            piece: c[1],
            min: c[2],
        })
    }
}

/// A node as its parent lists it: what handing it to its piece's chain
/// needs, without a look at the node itself.
#[derive(Debug, Clone, Copy)]
struct Child {
    node: u32,
    piece: u32,
    /// The first pattern, in precedence order, that goes through it.
    min: u32,
}

/// A wide node's anchored last pieces, looked up by the target's own end
/// (a node with 20,000 `/*.php*x00042$` would otherwise try each).
#[derive(Debug, Clone, Default)]
struct WideEnds {
    /// The distinct lengths of the last pieces.
    lengths: Vec<u32>,
    /// Each last piece and the first pattern that ends with it.
    first: HashMap<Box<[u8]>, u32>,
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

/// A node while the tree is built, its children a list through `next`
/// (no allocation a node: one pattern of 250,000 pieces is as many nodes).
struct Building {
    piece: u32,
    min: u32,
    own: u32,
    first: u32,
    last: u32,
    /// Its next sibling, or `NO_NODE`.
    next: u32,
    children: u32,
}

/// Hashing for the tree's maps, whose keys are the file's own numbers.
type Fast = foldhash::fast::FixedState;

/// The tree of the patterns' piece paths (`Node`), built from the patterns
/// with pieces in precedence order, each given as (index, prefix, piece
/// ids, anchored); gives the `Start`s grouped by first piece and the flat
/// arrays of `Pieces`.
struct Tree {
    firsts: Vec<(u32, Start)>,
    prefixes: Vec<u8>,
    nodes: Vec<Building>,
    /// (node, pattern, last piece) of each anchored end, in precedence
    /// order.
    ends: Vec<(u32, u32, u32)>,
}

impl Tree {
    fn build(patterns: &[(u32, &[u8], Vec<u32>, bool)]) -> Tree {
        // At most a node a piece: room made once, not doubled on the way.
        let pieces: usize = patterns.iter().map(|(_, _, ids, _)| ids.len()).sum();
        let mut tree = Tree {
            firsts: Vec::new(),
            prefixes: Vec::new(),
            nodes: Vec::with_capacity(pieces),
            ends: Vec::new(),
        };
        // A prefix's first-level nodes by first piece, and every deeper
        // node by (parent, piece).
        let mut prefix_ids: HashMap<&[u8], u32, Fast> = HashMap::default();
        let mut first_level: HashMap<(u32, u32), u32, Fast> = HashMap::default();
        let mut below: HashMap<(u32, u32), u32, Fast> = HashMap::with_capacity_and_hasher(
            pieces.saturating_sub(patterns.len()),
            Fast::default(),
        );
        for &(index, prefix, ref ids, anchored) in patterns {
            let next_prefix = prefix_ids.len() as u32;
            let prefix_id = *prefix_ids.entry(prefix).or_insert(next_prefix);
            let (path, last) = match ids.split_last() {
                Some((&last, path)) if anchored => (path, Some(last)),
                _ => (&ids[..], None),
            };
            let mut start = Start {
                min: index,
                node: NO_NODE,
                prefix_len: prefix.len() as u32,
                head: head_of(prefix),
                rest_at: 0,
            };
            let Some((&first, rest)) = path.split_first() else {
                // `/p*q$`: checked at the end, where the prefix ends.
                if let Some(last) = last {
                    start.rest_at = tree.prefixes.len() as u32;
                    tree.prefixes
                        .extend_from_slice(prefix.get(4..).unwrap_or_default());
                    tree.firsts.push((last, start));
                }
                continue;
            };
            let mut node = match first_level.get(&(prefix_id, first)) {
                Some(&node) => node,
                None => {
                    let node = tree.add(first, index);
                    first_level.insert((prefix_id, first), node);
                    start.node = node;
                    start.rest_at = tree.prefixes.len() as u32;
                    tree.prefixes
                        .extend_from_slice(prefix.get(4..).unwrap_or_default());
                    tree.firsts.push((first, start));
                    node
                }
            };
            for &piece in rest {
                node = match below.get(&(node, piece)) {
                    Some(&child) => child,
                    None => {
                        let child = tree.add(piece, index);
                        below.insert((node, piece), child);
                        let parent = &mut tree.nodes[node as usize];
                        let last = std::mem::replace(&mut parent.last, child);
                        parent.children += 1;
                        match last {
                            NO_NODE => parent.first = child,
                            last => tree.nodes[last as usize].next = child,
                        }
                        child
                    }
                };
            }
            match last {
                Some(last) => tree.ends.push((node, index, last)),
                None => {
                    let reached = &mut tree.nodes[node as usize];
                    reached.own = reached.own.min(index);
                }
            }
        }
        tree
    }

    /// A new node taking `piece`, first gone through by pattern `min`.
    fn add(&mut self, piece: u32, min: u32) -> u32 {
        self.nodes.push(Building {
            piece,
            min,
            own: u32::MAX,
            first: NO_NODE,
            last: NO_NODE,
            next: NO_NODE,
            children: 0,
        });
        (self.nodes.len() - 1) as u32
    }

    /// The children of node `at`, by their first pattern.
    fn children(&self, at: usize) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.nodes[at].first;
        std::iter::from_fn(move || {
            let child = next;
            next = self.nodes.get(child as usize)?.next;
            Some(child)
        })
    }
}

/// Up to four octets as one number, zero-padded, to compare at once.
fn head_of(octets: &[u8]) -> u32 {
    let mut head = [0u8; 4];
    let n = octets.len().min(4);
    head[..n].copy_from_slice(&octets[..n]);
    u32::from_le_bytes(head)
}

/// The mask that keeps the first `len` (at most four) octets of a head.
fn head_mask(len: u32) -> u32 {
    match len {
        0 => 0,
        1..=3 => (1u32 << (8 * len)) - 1,
        _ => u32::MAX,
    }
}

/// Above this many table cells (states times byte classes, at most) the
/// pieces are searched by a contiguous NFA instead of a DFA. A DFA takes
/// one table read per octet where the NFA follows failure links, so it is
/// the faster pass, but its table grows with the states times the alphabet
/// (rounded up to a power of two): 2 Mi cells is at most 16 MiB per
/// compiled selection, built in tens of milliseconds. 20,000 rules like
/// `/*x00042*zz` (120,000 octets of pieces in 13 classes) fit.
const DFA_CELLS: usize = 2 << 20;

/// The most failure-link steps a DFA build may take, about: states times
/// the longest piece (tens of milliseconds); past it the contiguous NFA,
/// built in time linear in the pieces, is used.
const DFA_BUILD_STEPS: usize = 16 << 20;

/// The automaton over the pieces.
#[derive(Debug, Clone)]
enum Pass {
    /// A DFA, driven here octet by octet, with what each match state
    /// reports in flat arrays: the crate keeps one small allocation per
    /// match state, and reaching it cost a cache miss per occurrence.
    Dfa {
        dfa: Box<DFA>,
        start: StateID,
        /// Match state ids are multiples of `1 << shift`.
        shift: u32,
        /// For match state `s`, `matched[match_at[s >> shift]..][..]` up
        /// to `match_at[(s >> shift) + 1]`.
        match_at: Vec<u32>,
        /// (piece id, piece length).
        matched: Vec<(u32, u32)>,
        /// By piece, the match states that report it.
        wakes: Wakes,
        /// The match states as chains, when they read as such.
        links: Option<Links>,
    },
    /// A contiguous NFA, for piece sets whose DFA table would be large,
    /// driven octet by octet as the DFA is; with the states each piece
    /// wakes, unless that table would be too large (then any move wakes
    /// every state), and its match states as chains, when they read as
    /// such.
    Nfa(Box<NFA>, Option<Wakes>, Option<Links>),
}

/// The match states of a pass as chains: each reports its own piece (when
/// its text is one), then what the next state in its chain reports (that
/// of the longest piece that is a proper suffix of its text). A visit
/// walks the chain from the state reached and stops at a state found
/// quiet, whose pieces, and all after them, had nothing to do: so a run
/// of `a`s against pieces `a`, `aa`, … (each new state reporting every
/// shorter run) costs a step or two a state, not one a piece (SPEC §5).
#[derive(Debug, Clone)]
struct Links {
    /// By the state's place (`place`).
    links: Vec<Link>,
    /// A DFA's match state ids are their places shifted; an NFA's are
    /// looked up.
    places: Places,
    /// The states whose chains go through a state are a tree below it:
    /// numbered in depth-first order, by place, each is `tin` and those
    /// below it follow it up to `tout`, so the states that report a piece
    /// (those below the state of its own text) are one span.
    tin: Vec<u32>,
    /// By piece: the span of the states that report it, `(tin, tout)`,
    /// and its length.
    pieces: Vec<(u32, u32, u32)>,
}

/// Above this many states, a piece that gains work does not wake its
/// states one by one: it is written in `Scratch::woken_long`, and a quiet
/// state it is reported by runs it alone (`Links::quiet_below`). 900 rules
/// `/*a…a*a…a` against a run of `a`s woke hundreds of states a move, and
/// walked their chains again at the next octet.
const LONG_WAKE: usize = 32;

/// A quiet state runs at most this many pieces woken since it was found
/// quiet; past them its chain is walked again.
const WOKEN_SINCE: usize = 8;

#[derive(Debug, Clone)]
enum Places {
    Shift(u32),
    Map(HashMap<u32, u32, foldhash::fast::FixedState>),
}

impl Places {
    /// The place of match state `sid` in `Links::links`.
    #[inline]
    fn of(&self, sid: u32) -> Option<usize> {
        match self {
            Places::Shift(shift) => Some((sid >> shift) as usize),
            Places::Map(map) => map.get(&sid).map(|&place| place as usize),
        }
    }
}

/// The match states of `automaton` over its pieces `distinct`, each once,
/// in the order first reached, and for each piece the state its text
/// ends at: every state is a prefix of some piece, so walking each piece
/// from the start visits every match state.
fn match_states(
    automaton: &impl Automaton,
    start: StateID,
    distinct: &[&[u8]],
) -> (Vec<StateID>, Vec<u32>) {
    let mut piece_state = Vec::with_capacity(distinct.len());
    let mut states = Vec::new();
    let mut seen: HashMap<u32, (), foldhash::fast::FixedState> = HashMap::default();
    for piece in distinct {
        let mut sid = start;
        for &octet in piece.iter() {
            sid = automaton.next_state(Anchored::No, sid, octet);
            if automaton.is_match(sid) && seen.insert(sid.as_u32(), ()).is_none() {
                states.push(sid);
            }
        }
        piece_state.push(sid.as_u32());
    }
    (states, piece_state)
}

#[derive(Debug, Clone, Copy)]
struct Link {
    /// The state's own piece: (id, length).
    own: Option<(u32, u32)>,
    /// The next match state of the chain, or `NO_STATE`.
    next: u32,
}

/// No next state: the chain ends.
const NO_STATE: u32 = u32::MAX;

impl Link {
    /// Reports the state's own piece, ending at `end`, to `run`; whether
    /// it had a pattern to move (`Run::occurs`).
    #[inline]
    fn report(&self, end: u32, run: &mut Run<'_>) -> bool {
        run.scratch.steps += 1;
        self.own
            .is_some_and(|(id, len)| run.occurs(id, end - len, end))
    }
}

impl Links {
    /// The chains of `automaton`'s match states `states` (with the state
    /// each piece ends at, `piece_state`: `match_states`), a DFA's placed
    /// by `shift` (`None` for an NFA); `None` when a state's report is not
    /// its own piece and its next state's (never so for an Aho-Corasick
    /// automaton), or past `WAKES_MAX` reports in all.
    fn new(
        automaton: &impl Automaton,
        states: &[StateID],
        piece_state: &[u32],
        shift: Option<u32>,
    ) -> Option<Links> {
        let places = match shift {
            Some(shift) => Places::Shift(shift),
            None => Places::Map(
                states
                    .iter()
                    .enumerate()
                    .map(|(place, sid)| (sid.as_u32(), place as u32))
                    .collect(),
            ),
        };
        let size = match &places {
            Places::Shift(shift) => states
                .iter()
                .map(|sid| (sid.as_u32() >> shift) as usize + 1)
                .max()
                .unwrap_or(0),
            Places::Map(map) => map.len(),
        };
        let mut links = vec![
            Link {
                own: None,
                next: NO_STATE,
            };
            size
        ];
        // How many pieces each state reports past its own, by place.
        let mut rest_of = vec![usize::MAX; size];
        let mut reports = 0usize;
        let mut outputs: Vec<(u32, u32)> = Vec::new();
        let place = |sid: u32| places.of(sid);
        for &sid in states {
            outputs.clear();
            for n in 0..automaton.match_len(sid) {
                let piece = automaton.match_pattern(sid, n);
                outputs.push((piece.as_u32(), automaton.pattern_len(piece) as u32));
            }
            reports += outputs.len();
            if reports > WAKES_MAX {
                return None;
            }
            // Longest first: each is a suffix of the one before.
            outputs.sort_unstable_by_key(|&(_, len)| std::cmp::Reverse(len));
            let state_of = |id: u32| piece_state.get(id as usize).copied();
            let (own, rest) = match outputs.split_first() {
                Some((&(id, len), rest)) if state_of(id)? == sid.as_u32() => {
                    (Some((id, len)), rest)
                }
                _ => (None, &outputs[..]),
            };
            let next = match rest.first() {
                Some(&(id, _)) => state_of(id)?,
                None => NO_STATE,
            };
            let at = place(sid.as_u32())?;
            *links.get_mut(at)? = Link { own, next };
            rest_of[at] = rest.len();
        }
        let (tin, tout) = depth_first(&links, &places)?;
        let pieces = piece_state
            .iter()
            .enumerate()
            .map(|(id, &sid)| match place(sid) {
                Some(at) if at < tin.len() => {
                    let len = automaton.pattern_len(aho_corasick::PatternID::new(id).ok()?);
                    Some((tin[at], tout[at], len as u32))
                }
                _ => Some((u32::MAX, u32::MAX, 0)),
            })
            .collect::<Option<Vec<_>>>()?;
        // The next state reports exactly the rest, so chains end (each
        // reports fewer than the state before it).
        for &sid in states {
            let at = place(sid.as_u32())?;
            let link = links[at];
            let reported = match link.next {
                NO_STATE => 0,
                next => {
                    let next_at = place(next)?;
                    rest_of.get(next_at)? + usize::from(links[next_at].own.is_some())
                }
            };
            if reported != rest_of[at] {
                return None;
            }
        }
        Some(Links {
            links,
            places,
            tin,
            pieces,
        })
    }

    /// Whether piece `piece` has a span (`Links::pieces`).
    fn spans(&self, piece: u32) -> bool {
        self.pieces
            .get(piece as usize)
            .is_some_and(|&(from, _, _)| from != u32::MAX)
    }

    /// Whether state `sid` is quiet but for pieces woken since (at most
    /// `WOKEN_SINCE`), which it then runs, ending at `end`: `Some` of
    /// whether one of them had work (else the state is found quiet again),
    /// `None` when it is not quiet (then its chain is to be walked).
    fn quiet_below(&self, sid: u32, end: u32, run: &mut Run<'_>) -> Option<bool> {
        let since = run.scratch.quiet_since(sid)?;
        if since.is_empty() {
            return Some(false);
        }
        if since.len() > WOKEN_SINCE {
            return None;
        }
        let at = *self.tin.get(self.places.of(sid)?)?;
        let mut mine = [u32::MAX; WOKEN_SINCE];
        let mut count = 0;
        for &piece in since {
            match self.pieces.get(piece as usize) {
                Some(&(from, to, _)) if from <= at && at <= to => {
                    if !mine[..count].contains(&piece) {
                        mine[count] = piece;
                        count += 1;
                    }
                }
                Some(_) => {}
                None => return None,
            }
        }
        let mut busy = false;
        for &piece in &mine[..count] {
            run.scratch.steps += 1;
            let len = self.pieces[piece as usize].2;
            busy |= run.occurs(piece, end - len, end);
        }
        if !busy {
            run.scratch.set_quiet(sid);
        }
        Some(busy)
    }

    #[inline]
    fn get(&self, sid: u32) -> Option<&Link> {
        self.links.get(self.places.of(sid)?)
    }

    /// Visits match state `sid`, reached at `end`, by its chain: reports
    /// each state's own piece until the next state is quiet, then marks
    /// quiet every state walked whose piece, and all after it, had
    /// nothing to do.
    #[inline]
    fn visit(&self, sid: u32, end: u32, run: &mut Run<'_>) {
        let Some(&link) = self.get(sid) else {
            return;
        };
        // Quiet but for pieces of many states that gained work since.
        if self.quiet_below(sid, end, run).is_some() {
            return;
        }
        let busy = link.report(end, run);
        // Most states end their chain: no walk to remember.
        let below = match link.next {
            NO_STATE => Some(false),
            next => self.quiet_below(next, end, run),
        };
        if let Some(below) = below {
            if !busy && !below {
                run.scratch.set_quiet(sid);
            }
            return;
        }
        self.walk(sid, busy, link.next, end, run);
    }

    /// The rest of `visit`, from `next`, the state after `sid`.
    fn walk(&self, sid: u32, busy: bool, next: u32, end: u32, run: &mut Run<'_>) {
        let mut walked = std::mem::take(&mut run.scratch.walked);
        walked.clear();
        walked.push((sid, busy));
        let mut at = next;
        let mut rest_quiet = true;
        loop {
            let Some(&link) = self.get(at) else {
                // Not a match state of the table (never so): its
                // reports are unknown, so nothing before it is quiet.
                rest_quiet = false;
                break;
            };
            let busy = link.report(end, run);
            walked.push((at, busy));
            if link.next == NO_STATE {
                break;
            }
            if let Some(below) = self.quiet_below(link.next, end, run) {
                rest_quiet = !below;
                break;
            }
            at = link.next;
        }
        for &(state, busy) in walked.iter().rev() {
            rest_quiet &= !busy;
            if rest_quiet {
                run.scratch.set_quiet(state);
            }
        }
        run.scratch.walked = walked;
    }
}

/// The chains' tree numbered depth first: for each place, its number and
/// the last number below it. The parent of a place is its link's next
/// state; `None` when a next state has no place (never so).
fn depth_first(links: &[Link], places: &Places) -> Option<(Vec<u32>, Vec<u32>)> {
    let count = links.len();
    let mut parent = vec![u32::MAX; count];
    let mut below = vec![0u32; count + 1];
    for (at, link) in links.iter().enumerate() {
        if link.next != NO_STATE {
            let up = places.of(link.next)?;
            if up >= count {
                return None;
            }
            parent[at] = up as u32;
            below[up + 1] += 1;
        }
    }
    for at in 1..below.len() {
        below[at] += below[at - 1];
    }
    let mut children = vec![0u32; below[count] as usize];
    let mut next = below.clone();
    for (at, &up) in parent.iter().enumerate() {
        if up != u32::MAX {
            children[next[up as usize] as usize] = at as u32;
            next[up as usize] += 1;
        }
    }
    let mut tin = vec![0u32; count];
    let mut tout = vec![0u32; count];
    let mut number = 0u32;
    // (place, whether the places below it are numbered)
    let mut stack: Vec<(u32, bool)> = Vec::new();
    for root in (0..count).filter(|&at| parent[at] == u32::MAX) {
        stack.push((root as u32, false));
        while let Some((at, done)) = stack.pop() {
            let at = at as usize;
            if done {
                tout[at] = number - 1;
                continue;
            }
            tin[at] = number;
            number += 1;
            stack.push((at as u32, true));
            for &child in &children[below[at] as usize..below[at + 1] as usize] {
                stack.push((child, false));
            }
        }
    }
    Some((tin, tout))
}

/// For each piece, the match states that report it, as one flat table:
/// which states a pattern's move to a piece gives work again.
#[derive(Debug, Clone)]
struct Wakes {
    /// `states[at[p]..at[p + 1]]` for piece `p`.
    at: Vec<u32>,
    states: Vec<u32>,
}

/// Entries a `Wakes` table may hold: past it, an NFA's moves wake every
/// state (a hostile file could make it states × pieces).
const WAKES_MAX: usize = 4 << 20;

impl Wakes {
    /// From (piece, state) pairs.
    fn new(pairs: &[(u32, u32)]) -> Wakes {
        let pieces = pairs
            .iter()
            .map(|&(p, _)| p as usize + 1)
            .max()
            .unwrap_or(0);
        let mut at = vec![0u32; pieces + 1];
        for &(piece, _) in pairs {
            at[piece as usize + 1] += 1;
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        let mut states = vec![0u32; pairs.len()];
        let mut next = at.clone();
        for &(piece, state) in pairs {
            let slot = &mut next[piece as usize];
            states[*slot as usize] = state;
            *slot += 1;
        }
        Wakes { at, states }
    }

    /// The match states that report `piece`.
    fn of(&self, piece: u32) -> &[u32] {
        run_of(&self.at, &self.states, piece)
    }

    /// Wakes the states of the pieces patterns moved to since the last
    /// call (with `links`, a piece of many states is written down instead,
    /// `LONG_WAKE`), and every state when a wide node was reached.
    fn wake(&self, links: Option<&Links>, scratch: &mut Scratch) {
        while let Some(piece) = scratch.woken.pop() {
            let states = self.of(piece);
            if states.len() > LONG_WAKE && links.is_some_and(|links| links.spans(piece)) {
                scratch.woken_long.push(piece);
                continue;
            }
            for &state in states {
                scratch.wake(state);
            }
        }
        scratch.wake_all_if_wide();
    }
}

/// The `Wakes` of an NFA whose match states are `states`
/// (`match_states`); `None` past `WAKES_MAX` entries.
fn nfa_wakes(nfa: &NFA, states: &[StateID]) -> Option<Wakes> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for &sid in states {
        for n in 0..nfa.match_len(sid) {
            pairs.push((nfa.match_pattern(sid, n).as_u32(), sid.as_u32()));
        }
        if pairs.len() > WAKES_MAX {
            return None;
        }
    }
    Some(Wakes::new(&pairs))
}

/// The automaton over the pieces: a DFA when its table is small (few
/// pieces, or pieces written in few distinct octets), else a contiguous
/// NFA, which builds in time linear in the pieces' length also for tens of
/// thousands of pieces. A failed build (past the automaton's size limits)
/// gives `None`, leaving the patterns with pieces to the plain reading.
fn search_for(distinct: &[&[u8]]) -> Option<Pass> {
    if distinct.is_empty() {
        return None;
    }
    let mut octets = [false; 256];
    let mut states = 1usize;
    let mut longest = 0usize;
    for piece in distinct {
        states += piece.len();
        longest = longest.max(piece.len());
        for &octet in piece.iter() {
            octets[usize::from(octet)] = true;
        }
    }
    // Byte classes: each octet used apart, plus one for all the others.
    let classes = octets.iter().filter(|&&used| used).count() + 1;
    // The DFA's build follows failure links, which can be as long as the
    // longest piece at every state: a hostile `Disallow: /*aaaa…` of
    // 450,000 octets took minutes to build. Bounded by states × longest.
    let small = states.saturating_mul(classes) <= DFA_CELLS
        && states.saturating_mul(longest) <= DFA_BUILD_STEPS;
    if let Some(pass) = small.then(|| dfa_for(distinct)).flatten() {
        return Some(pass);
    }
    aho_corasick::nfa::contiguous::Builder::new()
        .match_kind(MatchKind::Standard)
        .build(distinct)
        .ok()
        .map(|nfa| {
            let (wakes, links) = match nfa.start_state(Anchored::No) {
                Ok(start) => {
                    let (states, piece_state) = match_states(&nfa, start, distinct);
                    (
                        nfa_wakes(&nfa, &states),
                        Links::new(&nfa, &states, &piece_state, None),
                    )
                }
                Err(_) => (None, None),
            };
            Pass::Nfa(Box::new(nfa), wakes, links)
        })
}

/// The DFA over the pieces and the flat table of its match states
/// (`match_states`).
fn dfa_for(distinct: &[&[u8]]) -> Option<Pass> {
    let dfa = DFA::builder()
        .match_kind(MatchKind::Standard)
        .prefilter(false)
        .build(distinct)
        .ok()?;
    let start = dfa.start_state(Anchored::No).ok()?;
    let (states, piece_state) = match_states(&dfa, start, distinct);
    let mut found: Vec<(u32, StateID)> = states.iter().map(|&sid| (sid.as_u32(), sid)).collect();
    found.sort_unstable_by_key(|&(id, _)| id);
    let shift = found
        .iter()
        .map(|&(id, _)| id.trailing_zeros())
        .min()
        .unwrap_or(0);
    let size = found
        .last()
        .map_or(0, |&(id, _)| (id >> shift) as usize + 1);
    let mut match_at = Vec::with_capacity(size + 1);
    let mut matched = Vec::new();
    let mut found = found.into_iter().peekable();
    for index in 0..size {
        match_at.push(matched.len() as u32);
        if let Some((_, sid)) = found.next_if(|&(id, _)| (id >> shift) as usize == index) {
            for n in 0..dfa.match_len(sid) {
                let piece = dfa.match_pattern(sid, n);
                matched.push((piece.as_u32(), dfa.pattern_len(piece) as u32));
            }
        }
    }
    match_at.push(matched.len() as u32);
    // The same table turned around: by piece, the states that report it.
    let mut pairs = Vec::with_capacity(matched.len());
    for index in 0..match_at.len().saturating_sub(1) {
        let (from, to) = (match_at[index] as usize, match_at[index + 1] as usize);
        for &(id, _) in &matched[from..to] {
            pairs.push((id, (index as u32) << shift));
        }
    }
    let wakes = Wakes::new(&pairs);
    let links = Links::new(&dfa, &states, &piece_state, Some(shift));
    Some(Pass::Dfa {
        dfa: Box::new(dfa),
        start,
        shift,
        match_at,
        matched,
        wakes,
        links,
    })
}

/// The pieces match state `sid` of `automaton` reports, ending at `end`,
/// each an occurrence for `run`; whether any had a pattern to move.
fn occurrences(automaton: &impl Automaton, sid: StateID, end: u32, run: &mut Run<'_>) -> bool {
    let mut busy = false;
    for n in 0..automaton.match_len(sid) {
        let piece = automaton.match_pattern(sid, n);
        let len = automaton.pattern_len(piece) as u32;
        busy |= run.occurs(piece.as_u32(), end - len, end);
    }
    busy
}

/// Run `key` of `items` grouped by key, `at` as `group_at` gives it:
/// `items[at[key]..at[key + 1]]`, empty past the last key.
fn run_of<'a, T>(at: &[u32], items: &'a [T], key: u32) -> &'a [T] {
    let key = key as usize;
    match (at.get(key), at.get(key + 1)) {
        (Some(&from), Some(&to)) => items.get(from as usize..to as usize).unwrap_or(&[]),
        _ => &[],
    }
}

/// For keys `0..count` given sorted, where each key's run begins and ends:
/// run `k` is `at[k]..at[k + 1]`.
fn group_at(sorted: impl Iterator<Item = u32>, count: usize) -> Vec<u32> {
    let mut at = Vec::with_capacity(count + 1);
    at.push(0u32);
    let mut keys = sorted.peekable();
    for key in 0..count as u32 {
        let mut end = *at.last().unwrap_or(&0);
        while keys.next_if_eq(&key).is_some() {
            end += 1;
        }
        at.push(end);
    }
    at
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
        let mut tree = Tree::build(&wild);
        // The piece ids are in the tree now: freed before its arrays are laid out.
        drop(wild);
        let mut firsts = std::mem::take(&mut tree.firsts);
        let prefixes = std::mem::take(&mut tree.prefixes);
        // Each node's anchored ends together, in precedence order.
        tree.ends.sort_by_key(|&(node, _, _)| node);
        let ends_by_node = group_at(tree.ends.iter().map(|&(node, _, _)| node), tree.nodes.len());
        let built = &tree.nodes;
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
                &tree.ends[ends_by_node[index] as usize..ends_by_node[index + 1] as usize];
            if node.children > WIDE {
                for below in tree.children(index) {
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
            for below in tree.children(index) {
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
        let tree = &self.literal;
        let mut best = usize::MAX;
        let mut at = 0usize;
        let mut depth = 0usize;
        loop {
            let node = tree.nodes[at];
            // A prefix may not end inside a literal `*` or `$`.
            let patterns = if target.splits(depth) {
                &[][..]
            } else {
                let from = node.patterns_at as usize;
                &tree.patterns[from..from + node.patterns_len as usize]
            };
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
            let Some(&octet) = target.octets.get(depth) else {
                break;
            };
            let from = node.edges_at as usize;
            let edges = &tree.edges[from..from + node.edges_len as usize];
            let Ok(edge) = edges.binary_search_by_key(&octet, |e| e.0) else {
                break;
            };
            let child = edges[edge].1 as usize;
            let label = tree.nodes[child];
            let from = label.label_at as usize;
            let label = &tree.labels[from..from + label.label_len as usize];
            if !target.octets[depth..].starts_with(label) {
                break;
            }
            at = child;
            depth += label.len();
        }
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
mod tests {
    use super::super::normalize::target_form_into;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn long_runs_of_one_octet_take_the_nfa_and_still_match() {
        // A hostile `Disallow: /*aaaa…`: the DFA's build would follow a
        // failure link as long as the run at every state.
        let long = vec![b'a'; 450_000];
        assert!(matches!(search_for(&[&long[..]]), Some(Pass::Nfa(..))));
        // Ordinary pieces keep the DFA.
        let short: Vec<Vec<u8>> = (0..20_000)
            .map(|i| format!("x{i:05}").into_bytes())
            .collect();
        let pieces: Vec<&[u8]> = short.iter().map(Vec::as_slice).collect();
        assert!(matches!(search_for(&pieces), Some(Pass::Dfa { .. })));
        // And a run past the bound matches as it should.
        let run = "a".repeat(5000);
        let pattern = format!("User-agent: *\nDisallow: /*{run}\n");
        let robots = crate::robots::Robots::new(pattern.as_bytes());
        let rules = robots.rules_for(b"SeznamBot");
        assert!(!rules.judge(format!("/x{run}y").as_bytes()).allowed);
        assert!(rules.judge(format!("/x{}y", &run[1..]).as_bytes()).allowed);
    }

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
            ("/*A", false, "/*", false),
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
            let form = Form::of(target.as_bytes());
            let target_form = form.target();
            assert_eq!(
                compiled.matches(target_form),
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
        let texts: Vec<&[u8]> = (0..matcher.pieces.len() as u32)
            .map(|id| matcher.pieces.text(id))
            .collect();
        assert_eq!(texts, [&b"ab"[..], b"cd", b"e"]);
        // By first piece: `/*ab` a node, `/x*ab$` checked at the end;
        // `/*cd*ab` and `/*cd` share the node of `cd`.
        let first: Vec<Vec<(u32, bool)>> = (0..matcher.pieces.len() as u32)
            .map(|id| {
                let starts = matcher.pieces.starting_with(id);
                starts
                    .iter()
                    .map(|start| (start.min, start.node == NO_NODE))
                    .collect()
            })
            .collect();
        assert_eq!(
            first,
            [
                vec![(0, false), (1, true)],
                vec![(2, false)],
                vec![(3, false)]
            ]
        );
        assert!(matcher.pieces.starting_with(3).is_empty());
        let cd = matcher.pieces.starting_with(1)[0].node;
        let node = matcher.pieces.node(cd);
        let children: Vec<(u32, u32)> = node.children().map(|c| (c.piece, c.min)).collect();
        assert_eq!((node.own, children), (4, vec![(0, 2)]));
    }

    /// Pieces that end one another (`a`, `aa`, … `a`×300): every octet of a
    /// run of `a` reports all of them. A match state or piece that had
    /// nothing to do is passed over until a pattern moves on; the answers
    /// stay those of trying every pattern, for patterns that move (`*b`
    /// after the run), that move back onto a piece they left (`*a*a`), and
    /// for both the DFA and the NFA pass.
    #[test]
    fn pieces_that_end_one_another_are_judged_as_every_pattern_alone() {
        for (count, nfa) in [(60, false), (600, true)] {
            let mut written: Vec<String> = (1..=count)
                .flat_map(|i| {
                    let run = "a".repeat(i);
                    [
                        format!("/zz*{run}"),
                        format!("/*{run}*b"),
                        format!("/*{run}*a*{run}$"),
                    ]
                })
                .collect();
            written.push("/*c".to_string());
            let matcher = Matcher::new(
                written
                    .iter()
                    .map(|p| Pattern::compile(p.as_bytes(), false))
                    .collect(),
            );
            assert_eq!(
                matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
                nfa,
                "{count} pieces"
            );
            // A piece with no pattern to list (`/zz` starts no target here)
            // is idle until a pattern moves on to it (`/*b*a` after `b`).
            let late = Matcher::new(
                ["/zz*a", "/zz*ba", "/*b*a", "/*b*ba$"]
                    .iter()
                    .map(|p| Pattern::compile(p.as_bytes(), false))
                    .collect(),
            );
            for target in ["/aba", "/aaba", "/abba", "/ab", "/abca", "/acbca"] {
                assert_eq!(
                    late.decide(target.as_bytes()),
                    late.decide_by_scan(target.as_bytes()),
                    "{target}"
                );
            }
            let run = "a".repeat(2 * count + 7);
            for target in [
                format!("/{run}"),
                format!("/{run}b"),
                format!("/zz{run}"),
                format!("/x{}b{}", "a".repeat(count / 2), "a".repeat(count / 3)),
                format!("/{}%2Ab{run}c", "a".repeat(count)),
                format!("/{run}%24"),
                "/c".to_string(),
            ] {
                assert_eq!(
                    matcher.decide(target.as_bytes()),
                    matcher.decide_by_scan(target.as_bytes()),
                    "{target:.40}"
                );
            }
        }
    }

    /// A pattern moving between its pieces (`/*b*c*b*c…`) wakes only the
    /// states of the pieces it moves to: the states of a run of `a`s that
    /// had nothing to do stay passed over, until a pattern waits for one
    /// of their pieces (`/*b*aaa*c`), and the verdict is every pattern's
    /// read alone, through the DFA and the NFA alike.
    #[test]
    fn moves_wake_only_the_states_of_their_pieces() {
        for (count, nfa) in [(40, false), (700, true)] {
            let mut written: Vec<String> = (1..=count)
                .map(|k| format!("/zz*{}", "a".repeat(k)))
                .collect();
            written.push(format!("/{}", "*b*c".repeat(20)));
            written.push(format!("/*b*{}*c$", "a".repeat(count / 2)));
            written.push(format!("/*c*{}b*{}x", "a".repeat(3), "a".repeat(count)));
            let block = format!("{a}b{a}c", a = "a".repeat(count));
            let targets = [
                format!("/{}", block.repeat(25)),
                format!("/{}", block.repeat(3)),
                format!("/{}c", "a".repeat(count / 2)),
                format!("/b{}c", "a".repeat(count / 2)),
                format!("/b{}c", "a".repeat(count / 2 - 1)),
                format!("/{}caaab{}x", block, "a".repeat(count)),
                format!("/caaab{}", "a".repeat(count)),
                format!("/zz{}", block),
            ];
            let written: Vec<&str> = written.iter().map(String::as_str).collect();
            let targets: Vec<&[u8]> = targets.iter().map(|t| t.as_bytes()).collect();
            let matcher = agree(&written, &targets);
            assert_eq!(
                matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
                nfa,
                "{count} pieces"
            );
        }
    }

    /// Pieces that end one another (`/*a*b`, `/*aa*b`, …) against a run
    /// of `a`s: each new state of the pass reports every shorter run, but
    /// is walked as a chain that stops at the states found quiet, so the
    /// steps grow with the target, not with the pieces times the states
    /// (SPEC §5); and a pattern whose next piece overlaps its last
    /// (`/*aaa*aaa`) waits apart instead of being walked at each octet.
    /// Through the DFA (a few pieces) and the NFA (many) alike, every
    /// verdict the plain reading's.
    #[test]
    fn pieces_that_end_one_another_cost_steps_the_target_bounds() {
        for (count, nfa) in [(30, false), (900, true)] {
            let written: Vec<String> = (1..=count)
                .map(|k| format!("/*{}*b", "a".repeat(k)))
                .collect();
            let written: Vec<&str> = written.iter().map(String::as_str).collect();
            let long = format!("/{}", "a".repeat(count + 100));
            let targets = [
                long.as_bytes().to_vec(),
                format!("{long}b").into_bytes(),
                format!("/{}b", "a".repeat(count / 2)).into_bytes(),
            ];
            let targets: Vec<&[u8]> = targets.iter().map(Vec::as_slice).collect();
            let matcher = agree(&written, &targets);
            assert_eq!(
                matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
                nfa,
                "{count} pieces"
            );
            let steps = |target: &[u8]| {
                SCRATCH.with(|scratch| {
                    let before = scratch.borrow().steps;
                    matcher.decide(target);
                    scratch.borrow().steps - before
                })
            };
            let taken = steps(long.as_bytes());
            assert!(
                taken <= 8 * long.len() as u64,
                "{taken} steps for {} octets and {count} pieces",
                long.len()
            );
        }
        // Overlapping pieces of one pattern: a pattern is walked about
        // once an occurrence it may take, not at every octet between.
        let written = [
            "/*aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa*aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa*b",
        ];
        let long = format!("/{}", "a".repeat(5000));
        let targets = [
            long.as_bytes(),
            b"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
        ];
        let matcher = agree(&written, &targets);
        SCRATCH.with(|scratch| {
            let before = scratch.borrow().steps;
            matcher.decide(long.as_bytes());
            let taken = scratch.borrow().steps - before;
            assert!(taken <= 4 * long.len() as u64, "{taken} steps");
        });
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

    impl Matcher {
        /// The distinct pieces, by id.
        fn distinct_pieces(&self) -> Vec<&[u8]> {
            (0..self.pieces.len() as u32)
                .map(|id| self.pieces.text(id))
                .collect()
        }
    }

    /// Builds a matcher of `written` patterns and holds `decide` against
    /// the plain reading on every target; gives the matcher.
    fn agree(written: &[&str], targets: &[&[u8]]) -> Matcher {
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        for target in targets {
            assert_eq!(
                matcher.decide(target),
                matcher.decide_by_scan(target),
                "{} with {written:?}",
                String::from_utf8_lossy(target)
            );
        }
        matcher
    }

    #[test]
    fn chains_handle_repeats_prefixes_anchors_and_odd_targets() {
        // Repeated pieces in one pattern: the pattern waits on the chain
        // of the piece it just took.
        let m = agree(
            &["/*ab*ab*ab$", "/*ab*ab"],
            &[b"/ab", b"/abab", b"/ababab", b"/aabbab", b"/abababx"],
        );
        assert_eq!(m.decide(b"/ababab"), Some(0));
        assert_eq!(m.decide(b"/abab"), Some(1));
        // A piece equal to its pattern's prefix, and prefixes longer than
        // the four octets compared at once.
        let m = agree(
            &["/abcdef*/abcdef$", "/ab*/ab", "/abcdeg*x"],
            &[
                b"/ab",
                b"/ab/ab",
                b"/abcdef/abcdef",
                b"/abcdef/abcdefg",
                b"/abcdegx",
                b"/abcdefx",
            ],
        );
        assert_eq!(m.decide(b"/abcdef/abcdef"), Some(0));
        assert_eq!(m.decide(b"/ab/ab"), Some(1));
        assert_eq!(m.decide(b"/abcdef/abcdefg"), Some(1));
        assert_eq!(m.decide(b"/abcdefx"), None);
        // Anchored patterns of one piece and of several; targets that
        // start with `*`, are shorter than a prefix, or are empty.
        let m = agree(
            &["/*.php$", "*a*b$", "**x", "/*$", "%2A*q"],
            &[
                b"", b"*", b"*q", b"%2Aq", b"/x.php", b"/x.php?", b"ab", b"*ab", b"x", b"/",
            ],
        );
        assert_eq!(m.decide(b""), None);
        assert_eq!(m.decide(b"*ab"), Some(1));
        // In matching form a `*` of the target is `%2A`, one character.
        let form = Form::of(b"*q");
        let star_q = form.target();
        assert_eq!(m.decide(star_q), Some(4));
        assert_eq!(m.decide_by_scan(star_q), Some(4));
        assert_eq!(m.decide(b"x"), Some(2));
    }

    /// A target in matching form and where its literal `*` and `$` are.
    /// A target in matching form, owned: its octets and where its literal
    /// `*` and `$` stand.
    struct Form(Vec<u8>, Vec<u32>);

    impl Form {
        fn of(target: &[u8]) -> Form {
            let (mut octets, mut literals) = (Vec::new(), Vec::new());
            target_form_into(target, &mut octets, &mut literals);
            Form(octets, literals)
        }

        fn target(&self) -> Target<'_> {
            Target {
                octets: &self.0,
                literals: &self.1,
            }
        }
    }

    /// Regression: a target's literal `*` and `$` were three octets
    /// `%2A` and `%24`, so a piece could begin inside them and `/*A`
    /// matched `/*` (SPEC §3: they are one character each).
    #[test]
    fn wildcards_do_not_split_a_literal_star_or_dollar() {
        // (pattern in written normal form, target as logged, matches)
        let cases: &[(&str, &str, bool)] = &[
            ("/*A", "/*", false),
            ("/*A", "/q*", false),
            ("/*4$", "/x$", false),
            ("/*4$", "/q$", false),
            ("*A", "*", false),
            ("/*2A", "/*", false),
            ("/*Ab", "/*b", false),
            ("/*a*4$", "/a$", false),
            ("/*a*4$", "/a$4", true),
            ("/*A", "/*A", true),
            // A target's escape is three octets, as ever.
            ("/*A", "/%2A", true),
            ("/*2A", "/%2a", true),
            ("/*4$", "/x%24", true),
            // A pattern's `%2A` and `%24` match the literal and the escape.
            ("/a%2Ab", "/a*b", true),
            ("/a%2Ab", "/a%2Ab", true),
            ("/a%2Ab", "/aXb", false),
            ("/a%2Ab", "/a%2A%2Ab", false),
            ("/x%24", "/x$", true),
            ("/x%24", "/x%24", true),
            ("/x%24", "/x", false),
            ("/a$b", "/a$b", true),
            ("/a$b", "/a%24b", true),
            ("/*%2A", "/a*", true),
            ("/*%2A$", "/a*", true),
            ("/*%2A$", "/a*b", false),
            ("/%2A*", "/*x", true),
            ("/%2A", "/*", true),
            ("/%2A$", "/*", true),
            ("/*%2A%24$", "/x*$", true),
            ("/*%2A%24$", "/x*%24", true),
            ("/*%24%2A", "/x$%2A", true),
            ("/*A%2A", "/%2A*", true),
            ("/*A%2A", "/**", false),
        ];
        let compiled: Vec<Pattern> = cases
            .iter()
            .map(|&(pattern, _, _)| Pattern::compile(pattern.as_bytes(), false))
            .collect();
        for (&(pattern, target, expected), compiled) in cases.iter().zip(&compiled) {
            let form = Form::of(target.as_bytes());
            let target_form = form.target();
            assert_eq!(
                compiled.matches(target_form),
                expected,
                "{pattern} on {target}"
            );
            let alone = Matcher::new(vec![compiled.clone()]);
            assert_eq!(
                alone.decide(target_form).is_some(),
                expected,
                "{pattern} on {target}, compiled"
            );
        }
        // All at once, in every rotation, the automaton against the scan.
        for rotate in 0..compiled.len() {
            let mut order = compiled.clone();
            order.rotate_left(rotate);
            let matcher = Matcher::new(order);
            for &(_, target, _) in cases {
                let form = Form::of(target.as_bytes());
                let target_form = form.target();
                assert_eq!(
                    matcher.decide(target_form),
                    matcher.decide_by_scan(target_form),
                    "{target} rotated {rotate}"
                );
            }
        }
    }

    #[test]
    fn target_splits_only_inside_its_literals() {
        let target = Target {
            octets: b"/%2A%24x",
            literals: &[1, 4],
        };
        let split: Vec<usize> = (0..=8).filter(|&at| target.splits(at)).collect();
        assert_eq!(split, [2, 3, 5, 6]);
        assert!(!Target::from(b"/%2A").splits(2));
    }

    #[test]
    fn more_than_two_to_the_sixteen_events() {
        let long = format!("/{}b", "a".repeat(70_000));
        let late = format!("/{}c", "a".repeat(70_000));
        let m = agree(
            &["/*aa*ab$", "/*a*c", "/*b*a"],
            &[long.as_bytes(), late.as_bytes()],
        );
        assert_eq!(m.decide(long.as_bytes()), Some(0));
        assert_eq!(m.decide(late.as_bytes()), Some(1));
        // Hundreds of distinct pieces in one target grow the table of
        // chains several times over.
        let written: Vec<String> = (0..3000).map(|i| format!("/*y{i:04}*z{i:04}$")).collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let body: String = (0..3000).rev().map(|i| format!("y{i:04}")).collect();
        let hit = format!("/{body}z0007");
        let miss = format!("/z0007{body}");
        let m = agree(&written, &[hit.as_bytes(), miss.as_bytes()]);
        assert_eq!(m.decide(hit.as_bytes()), Some(7));
        assert_eq!(m.decide(miss.as_bytes()), None);
    }

    #[test]
    fn dfa_and_nfa_passes_agree() {
        // Few pieces get the DFA; many pieces over many octets would make
        // its table large and get the contiguous NFA.
        let small = agree(&["/*ab*cd"], &[b"/abcd"]);
        assert!(matches!(small.pieces.searcher, Some(Pass::Dfa { .. })));
        let octets: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
        // Eight base-62 digits of a scrambled `i`: distinct pieces.
        let piece = |i: usize| -> String {
            let mut x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8;
            (0..8)
                .map(|_| {
                    let digit = octets[(x % 62) as usize];
                    x /= 62;
                    digit
                })
                .collect()
        };
        let written: Vec<String> = (0..10_000)
            .map(|i| format!("/*{}*{}$", piece(i), piece(i + 1)))
            .collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let targets: Vec<String> = (0..50)
            .map(|n| {
                let body: String = (n..n + 40).map(piece).collect();
                format!("/{body}")
            })
            .collect();
        let targets: Vec<&[u8]> = targets.iter().map(|t| t.as_bytes()).collect();
        let large = agree(&written, &targets);
        assert!(matches!(large.pieces.searcher, Some(Pass::Nfa(..))));
        let dfa = Matcher {
            pieces: Pieces {
                searcher: dfa_for(&large.distinct_pieces()),
                ..large.pieces.clone()
            },
            ..large.clone()
        };
        assert!(matches!(dfa.pieces.searcher, Some(Pass::Dfa { .. })));
        for target in &targets {
            assert_eq!(dfa.decide(target), large.decide(target));
        }
        assert!(targets.iter().any(|t| large.decide(t).is_some()));
    }

    /// Literal rules as long as a robots.txt of 500 KiB can hold: the tree
    /// keeps each octet once and a node a rule or so (a node an octet made
    /// such a file cost tens of MiB a compiled version), and decides as
    /// the plain reading does — on the rules, on targets that stop inside
    /// a label, run past it, or turn off it.
    #[test]
    fn long_literal_rules_cost_about_their_size() {
        let tail = "abc".repeat(150);
        let written: Vec<String> = (0..1080)
            .map(|k| format!("/r{k}{tail}"))
            .chain(["/r1", "/r10", "/r10abc", "/r10abc$", "/"].map(String::from))
            .collect();
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        let octets: usize = written.iter().map(String::len).sum();
        let tree = &matcher.literal;
        assert!(
            tree.labels.len() <= octets,
            "{} of {octets}",
            tree.labels.len()
        );
        assert!(
            tree.nodes.len() <= 2 * written.len() + 1,
            "{} nodes",
            tree.nodes.len()
        );
        let mut targets: Vec<String> = written.iter().take(50).cloned().collect();
        targets.extend(
            [
                "/r1",
                "/r10ab",
                "/r10abc",
                "/r10abcabd",
                "/r7abcab",
                "/s",
                "",
            ]
            .map(String::from),
        );
        targets.push(format!("/r999{tail}/more"));
        targets.push(format!("/r999{}", &tail[..200]));
        for target in &targets {
            assert_eq!(
                matcher.decide(target.as_bytes()),
                matcher.decide_by_scan(target.as_bytes()),
                "{target}"
            );
        }
        assert_eq!(matcher.decide(b"/r10abc"), Some(1080));
        assert_eq!(matcher.decide(b"/r10"), Some(1080));
        assert_eq!(matcher.decide(b"/s"), Some(1084));
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

    /// Patterns that share their prefix and first pieces share their
    /// nodes: 20,000 rules `/*.php*sid*xNNNNN` are two nodes and a wide
    /// one, so a short target that holds `.php` and `sid` costs a few
    /// steps where it moved all 20,000 patterns twice (SPEC §5), and the
    /// same with each last piece anchored; 900 rules of 32 shared `aa`s
    /// and their own last piece against a run of `a`s walk one chain of
    /// nodes, not 900. Every verdict the plain reading's.
    #[test]
    fn shared_first_pieces_are_moved_once() {
        for anchored in ["", "$"] {
            let written: Vec<String> = (0..20_000)
                .map(|i| format!("/*.php*sid*x{i:05}{anchored}"))
                .collect();
            let written: Vec<&str> = written.iter().map(String::as_str).collect();
            let targets: [&[u8]; 6] = [
                b"/a.php?sid=1",
                b"/index.php?sid=2&q=x00042",
                b"/index.php?sid=2&q=x19999",
                b"/a.php",
                b"/x00042.php?sid=",
                b"/sid.php?x00007",
            ];
            let matcher = agree(&written, &targets);
            for target in targets {
                let taken = SCRATCH.with(|scratch| {
                    let before = scratch.borrow().steps;
                    matcher.decide(target);
                    scratch.borrow().steps - before
                });
                assert!(
                    taken <= 4 * target.len() as u64,
                    "{taken} steps for {}",
                    String::from_utf8_lossy(target)
                );
            }
        }
        let written: Vec<String> = (1..=900)
            .map(|k| format!("/*{}*c{k}", ["aa"; 32].join("*")))
            .collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let long = format!("/{}", "a".repeat(8000));
        let targets = [
            long.as_bytes().to_vec(),
            format!("{long}c77").into_bytes(),
            format!("/{}c5", "a".repeat(63)).into_bytes(),
            format!("/{}c5", "a".repeat(64)).into_bytes(),
        ];
        let targets: Vec<&[u8]> = targets.iter().map(Vec::as_slice).collect();
        let matcher = agree(&written, &targets);
        let taken = SCRATCH.with(|scratch| {
            let before = scratch.borrow().steps;
            matcher.decide(long.as_bytes());
            scratch.borrow().steps - before
        });
        assert!(taken <= 8 * long.len() as u64, "{taken} steps");
    }

    /// Wide nodes' children found from either side: a piece that children
    /// of two wide nodes take, when only one of them was reached, is found
    /// from the nodes reached (`/*a*xN` and `/*b*xN`); a wide node's
    /// anchored ends may not begin before it was reached (`/*ab*bN$` on
    /// `/ab5`).
    #[test]
    fn wide_nodes_are_found_from_either_side() {
        let written: Vec<String> = (0..20)
            .flat_map(|n| {
                [
                    format!("/*a*x{n}"),
                    format!("/*b*x{n}"),
                    format!("/*ab*b{n}$"),
                ]
            })
            .collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let targets: [&[u8]; 10] = [
            b"/ax5",
            b"/bx7",
            b"/x5a",
            b"/ab5",
            b"/abb5",
            b"/abx19",
            b"/bbx3b3",
            b"/ab",
            b"/x1ab1",
            b"/aab%2Ab1",
        ];
        let matcher = agree(&written, &targets);
        assert_eq!(matcher.pieces.wide_children.len(), 40);
        assert_eq!(matcher.pieces.wide_ends.len(), 1);
        assert_eq!(matcher.decide(b"/ab5"), None);
        assert_eq!(matcher.decide(b"/abb5"), Some(17));
        assert_eq!(matcher.decide(b"/bx7"), Some(22));
    }

    /// A piece reported by many states (`a`, by every run of `a`s) that
    /// gains work is written down, not woken state by state; a quiet state
    /// then runs it alone, only where it ends (`/*b*a` on `/cbc`: the
    /// quiet state of `c` does not report `a`), and stays unquiet while it
    /// has work it could not yet take (`/*ba*aa` on `/aabaaa`: `aa` after
    /// `ba` overlaps it, and is taken two octets on). Through the DFA and
    /// the NFA alike.
    #[test]
    fn pieces_woken_since_run_only_where_they_end() {
        for (count, nfa) in [(40, false), (700, true)] {
            let mut written: Vec<String> = (1..=count)
                .map(|k| format!("/*zz*{}", "a".repeat(k)))
                .collect();
            written.extend(["/*zz*c", "/*ba*aa", "/*b*a"].map(String::from));
            let written: Vec<&str> = written.iter().map(String::as_str).collect();
            let targets: [&[u8]; 7] = [
                b"/cbc",
                b"/cb",
                b"/aabaaa",
                b"/aabaa",
                b"/aaba",
                b"/caabcaaba",
                b"/aacbaaa",
            ];
            let matcher = agree(&written, &targets);
            assert_eq!(
                matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
                nfa,
                "{count} pieces"
            );
            assert_eq!(matcher.decide(b"/cbc"), None);
            assert_eq!(matcher.decide(b"/aabaaa"), Some(count + 1));
            assert_eq!(matcher.decide(b"/aabaa"), Some(count + 2));
        }
    }

    /// Pieces for the shared paths below: few, so that paths share, and a
    /// `*` or `$` escape of the target to split on.
    const SHARED_PIECES: &[&str] = &["a", "b", "ab", "ba", "aa", "%2A", "c"];

    /// Many patterns, in random precedence order, made of a few shared
    /// paths and then tails from many distinct pieces, some anchored, with
    /// a few prefixes: nodes with more than `WIDE` children and anchored
    /// ends occur, and every verdict is the plain reading's.
    fn shared_paths() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
        let head = prop::collection::vec(prop::sample::select(SHARED_PIECES), 0..3);
        let heads = prop::collection::vec(head, 1..4);
        let tail = (
            0usize..4,
            prop::collection::vec(0usize..40, 0..3),
            any::<bool>(),
            prop::sample::select(&["/", "/", "/", "", "/a"][..]),
        );
        let tails = prop::collection::vec(tail, 40..200);
        let target = prop::collection::vec(
            prop::sample::select(
                &[
                    "a", "b", "c", "ab", "x1", "x12", "x3", "x27", "x39", "%2A", "*", "$", "1", "2",
                ][..],
            ),
            0..14,
        )
        .prop_map(|p| format!("/{}", p.concat()));
        let targets = prop::collection::vec(target, 1..10);
        (heads, tails, targets).prop_map(|(heads, tails, targets)| {
            let written = tails
                .into_iter()
                .map(|(head, tail, anchored, prefix)| {
                    let mut pattern = prefix.to_string();
                    for piece in &heads[head % heads.len()] {
                        pattern.push('*');
                        pattern.push_str(piece);
                    }
                    for n in tail {
                        pattern.push('*');
                        pattern.push_str(&format!("x{n}"));
                    }
                    if anchored {
                        pattern.push('$');
                    }
                    pattern
                })
                .collect();
            (written, targets)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn shared_paths_decide_as_each_pattern_alone((written, targets) in shared_paths()) {
            let matcher = Matcher::new(
                written
                    .iter()
                    .map(|p| Pattern::compile(p.as_bytes(), false))
                    .collect(),
            );
            for target in &targets {
                prop_assert_eq!(
                    matcher.decide(target.as_bytes()),
                    matcher.decide_by_scan(target.as_bytes()),
                    "{} with {:?}", target, written
                );
            }
        }
    }

    /// The strategy above makes wide nodes and wide anchored ends: at
    /// least one case of a fixed seed's first hundred has each.
    #[test]
    fn shared_paths_make_wide_nodes() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut wide, mut wide_ends) = (false, false);
        for _ in 0..100 {
            let Ok(tree) = shared_paths().new_tree(&mut runner) else {
                continue;
            };
            let (written, _) = tree.current();
            let matcher = Matcher::new(
                written
                    .iter()
                    .map(|p| Pattern::compile(p.as_bytes(), false))
                    .collect(),
            );
            wide |= !matcher.pieces.wide_children.is_empty();
            wide_ends |= !matcher.pieces.wide_ends.is_empty();
        }
        assert!(wide && wide_ends, "wide {wide}, wide ends {wide_ends}");
    }
}
