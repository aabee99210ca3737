//! The tree of the patterns' piece paths: takes the patterns with `*`
//! pieces in precedence order (prefix, piece ids, anchored end); gives its
//! nodes and the `Start`s of each first piece, which `Matcher::new` lays
//! out as `Pieces`, the flat arrays the chains of `chains.rs` walk while
//! the Aho-Corasick pass of `pass.rs` reports the target's pieces (SPEC
//! §3). Patterns that share their prefix and first pieces share nodes, so
//! an occurrence moves them once, as one.

use std::collections::HashMap;

/// What listing a piece needs to know of the patterns that begin with it,
/// kept side by side per piece so that listing reads one run of memory
/// instead of chasing them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Start {
    /// The first pattern, in precedence order, that begins here.
    pub(super) min: u32,
    /// The node of the prefix and this first piece, or `NO_NODE` for a
    /// pattern whose one piece must end the target (`/p*q$`): then `min`
    /// is that pattern.
    pub(super) node: u32,
    /// The prefix's length; its first octets are in `head`, the rest in
    /// `Pieces::prefixes` from `rest_at`.
    pub(super) prefix_len: u32,
    /// The prefix's first four octets, zero-padded: most prefixes are `/`
    /// or empty, so most checks end here.
    pub(super) head: u32,
    pub(super) rest_at: u32,
}

/// No node: a `Start` of a pattern checked at the end, or, while the tree is
/// built, no child or sibling.
pub(super) const NO_NODE: u32 = u32::MAX;

/// Children a node hands its pieces' chains when it is reached; past this
/// many it is *wide*, and its children are found from their pieces' side
/// when those occur (`Run::list_lazy`), so that a node that 20,000
/// patterns share (`/*.php*sid*x00042`) costs one step, not 20,000.
pub(super) const WIDE: u32 = 16;

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
pub(super) struct Node<'r> {
    /// Where its record starts.
    pub(super) at: u32,
    /// The first pattern whose pieces end here (no `$`): it matches when
    /// the node is reached; `u32::MAX` for none.
    pub(super) own: u32,
    /// Patterns whose last piece, anchored by `$`, follows it
    /// (`Pieces::ends_of`).
    pub(super) has_ends: bool,
    /// Its children's entries, three numbers each (`Child`), by their
    /// first pattern.
    pub(super) children: &'r [u32],
}

/// The numbers of a node's record before its children's.
pub(super) const HEADER: usize = 2;

/// The bit of a record's count of children that says it has anchored ends.
pub(super) const HAS_ENDS: u32 = 1 << 31;

impl Node<'_> {
    pub(super) fn children_len(&self) -> usize {
        self.children.len() / 3
    }

    pub(super) fn children(&self) -> impl Iterator<Item = Child> + '_ {
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
pub(super) struct Child {
    pub(super) node: u32,
    pub(super) piece: u32,
    /// The first pattern, in precedence order, that goes through it.
    pub(super) min: u32,
}

/// A wide node's anchored last pieces, looked up by the target's own end
/// (a node with 20,000 `/*.php*x00042$` would otherwise try each).
#[derive(Debug, Clone, Default)]
pub(super) struct WideEnds {
    /// The distinct lengths of the last pieces.
    pub(super) lengths: Vec<u32>,
    /// Each last piece and the first pattern that ends with it.
    pub(super) first: HashMap<Box<[u8]>, u32>,
}

/// A node while the tree is built, its children a list through `next`
/// (no allocation a node: one pattern of 250,000 pieces is as many nodes).
pub(super) struct Building {
    pub(super) piece: u32,
    pub(super) min: u32,
    pub(super) own: u32,
    first: u32,
    last: u32,
    /// Its next sibling, or `NO_NODE`.
    next: u32,
    pub(super) children: u32,
}

/// Hashing for the tree's maps, whose keys are the file's own numbers.
pub(super) type Fast = foldhash::fast::FixedState;

/// The tree of the patterns' piece paths (`Node`), built from the patterns
/// with pieces in precedence order, each given as (index, prefix, piece
/// ids, anchored); gives the `Start`s grouped by first piece and the flat
/// arrays of `Pieces`.
pub(super) struct Tree {
    pub(super) firsts: Vec<(u32, Start)>,
    pub(super) prefixes: Vec<u8>,
    pub(super) nodes: Vec<Building>,
    /// (node, pattern, last piece) of each anchored end, in precedence
    /// order.
    pub(super) ends: Vec<(u32, u32, u32)>,
}

impl Tree {
    pub(super) fn build(patterns: &[(u32, &[u8], Vec<u32>, bool)]) -> Tree {
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
    pub(super) fn children(&self, at: usize) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.nodes[at].first;
        std::iter::from_fn(move || {
            let child = next;
            next = self.nodes.get(child as usize)?.next;
            Some(child)
        })
    }
}

/// Up to four octets as one number, zero-padded, to compare at once.
pub(super) fn head_of(octets: &[u8]) -> u32 {
    let mut head = [0u8; 4];
    let n = octets.len().min(4);
    head[..n].copy_from_slice(&octets[..n]);
    u32::from_le_bytes(head)
}

/// The mask that keeps the first `len` (at most four) octets of a head.
pub(super) fn head_mask(len: u32) -> u32 {
    match len {
        0 => 0,
        1..=3 => (1u32 << (8 * len)) - 1,
        _ => u32::MAX,
    }
}

/// Run `key` of `items` grouped by key, `at` as `group_at` gives it:
/// `items[at[key]..at[key + 1]]`, empty past the last key.
pub(super) fn run_of<'a, T>(at: &[u32], items: &'a [T], key: u32) -> &'a [T] {
    let key = key as usize;
    match (at.get(key), at.get(key + 1)) {
        (Some(&from), Some(&to)) => items.get(from as usize..to as usize).unwrap_or(&[]),
        _ => &[],
    }
}

/// For keys `0..count` given sorted, where each key's run begins and ends:
/// run `k` is `at[k]..at[k + 1]`.
pub(super) fn group_at(sorted: impl Iterator<Item = u32>, count: usize) -> Vec<u32> {
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
