//! Where the patterns with pieces stand while one target is read: takes
//! the piece occurrences of the pass in order of their end, gives the first
//! pattern, in precedence order, whose pieces all occurred in turn (SPEC §3;
//! the method is in `compile.rs`). Patterns that share their prefix and
//! first pieces share the nodes of those pieces (`Node`), and a node waiting
//! for its piece carries its own state in a chain per piece, so an
//! occurrence touches the chain it walks and nothing indexed by pattern;
//! all of it grows with the target's pieces.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::tree::{Child, NO_NODE, Start, WIDE, head_mask};
use super::{Pattern, Pieces, Target};

/// Octets a pattern may wait for its next occurrence on its chain,
/// walked at each occurrence between; a longer wait is set apart
/// (`Scratch::deferred`).
const SHORT_WAIT: u32 = 8;

/// The end of a chain of waiting patterns.
const NIL: u32 = u32::MAX;

/// A node waiting for its piece, from where its parent was reached, so an
/// occurrence touches the chain it walks and nothing indexed by pattern.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    node: u32,
    /// The node's first pattern, in precedence order (`Node::min`).
    min: u32,
    /// Where its parent's piece (or its prefix) ended.
    from: u32,
    /// The next node waiting for the same piece, or `NIL`.
    link: u32,
}

/// The patterns waiting for one piece in the current target.
#[derive(Debug, Clone, Copy)]
struct Chain {
    /// The first waiting pattern in `Scratch::waiting`, or `NIL`.
    head: u32,
    /// The patterns that begin with this piece have been added.
    listed: bool,
    /// The wide nodes reached (`Scratch::reached`) before this entry have
    /// handed this piece their children.
    seen: u32,
    /// The cell of `Scratch::table` that points here, to clear it.
    cell: u32,
}

/// Where the patterns stand while one target is read, kept per thread so
/// that judging does not allocate once warm. Everything grows with the
/// pieces the target holds, never with the number of patterns, so what a
/// target touches stays in cache.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Open addressing from piece id to its chain: `chains` index + 1, 0
    /// for empty. A power of two long, at most half full.
    table: Vec<u32>,
    /// The piece id of each chain, beside it for the probe.
    keys: Vec<u32>,
    chains: Vec<Chain>,
    waiting: Vec<Waiting>,
    /// (pattern, where its last piece may start) for patterns of one
    /// piece whose anchored last piece is checked at the end.
    at_end: Vec<(u32, u32)>,
    /// (node, where it was reached) for nodes with anchored ends, checked
    /// at the end.
    at_end_nodes: Vec<(u32, u32)>,
    /// The wide nodes reached, in turn, with where: their children are
    /// handed to a piece's chain when the piece next occurs.
    reached: Vec<(u32, u32)>,
    /// Each wide node reached, by node: its entry in `reached`.
    reached_at: HashMap<u32, u32, foldhash::fast::FixedState>,
    /// A wide node was reached since the pass last looked: every piece and
    /// state may have work again.
    wide_moved: bool,
    /// The same for pieces, by piece id: `quiet_mark` when the piece was
    /// found with no pattern waiting (0 again when a pattern moves to it),
    /// so that a match state reporting many pieces skips each idle one
    /// without its chain's look-up.
    idle_pieces: Vec<u64>,
    /// Targets read with this scratch, for `idle_pieces`.
    target: u32,
    /// The automaton's match states whose every piece had no pattern to
    /// move, by state id, marked `quiet_mark` then: passed over until a
    /// pattern moves to one of their own pieces (`woken`, then `wake`),
    /// not to any piece, so that a pattern moving between its pieces
    /// (`/*b*c*b*c…`) does not send every state of a run of `a`s through
    /// its pieces again (SPEC §5); or, where the pass has no table of
    /// which states a piece wakes, until any pattern moves
    /// (`wake_all_if_moved`).
    /// A mark of an earlier target or round is stale, so nothing is
    /// cleared between them.
    /// With each mark, how many pieces `woken_long` held then: those
    /// after may have work.
    quiet: HashMap<u32, (u64, u32), foldhash::fast::FixedState>,
    /// Pieces reported by many states that gained work, in turn, instead
    /// of waking each of their states (`Links::quiet_below`).
    pub(super) woken_long: Vec<u32>,
    /// Rounds of `wake_all_if_moved` in this target.
    rounds: u32,
    /// Pieces a pattern moved to since the pass last looked.
    pub(super) woken: Vec<u32>,
    /// The states of one chain's walk (`Links::visit`), room kept.
    pub(super) walked: Vec<(u32, bool)>,
    /// Patterns whose piece began before their last piece ended, waiting
    /// apart until the pass reaches the first end an occurrence they may
    /// take can have: (that end, entry in `waiting`, piece id).
    deferred: BinaryHeap<Reverse<(u32, u32, u32)>>,
    /// Steps taken for the patterns with pieces since the scratch was
    /// made: occurrences reported, waiting patterns walked, chain states
    /// walked and states woken; what the tests hold to a bound.
    pub(super) steps: u64,
}

impl Scratch {
    /// Forgets the last target, in time proportional to what it touched.
    pub(super) fn start(&mut self) {
        for chain in &self.chains {
            if let Some(cell) = self.table.get_mut(chain.cell as usize) {
                *cell = 0;
            }
        }
        self.chains.clear();
        self.keys.clear();
        self.waiting.clear();
        self.at_end.clear();
        self.at_end_nodes.clear();
        self.reached.clear();
        self.reached_at.clear();
        self.wide_moved = false;
        self.woken_long.clear();
        self.rounds = 0;
        self.woken.clear();
        self.deferred.clear();
        self.target = self.target.wrapping_add(1);
        if self.target == 0 {
            // Marks of 2^32 targets ago would read as this one's.
            self.idle_pieces.fill(0);
            self.quiet.clear();
            self.target = 1;
        }
        if self.table.is_empty() {
            self.table.resize(64, 0);
        }
    }

    /// This target and its rounds of `wake_all_if_moved`, as a state's
    /// mark in `quiet`.
    fn quiet_mark(&self) -> u64 {
        (u64::from(self.target) << 32) | u64::from(self.rounds)
    }

    /// Whether match state `sid` found nothing to do, and no pattern moved
    /// to one of its pieces since, not even one written in `woken_long`
    /// (`quiet_since` gives those).
    pub(super) fn is_quiet(&self, sid: u32) -> bool {
        self.quiet_since(sid).is_some_and(<[u32]>::is_empty)
    }

    /// When match state `sid` was found to have nothing to do, and no
    /// pattern moved to one of its pieces since but those written in
    /// `woken_long`: the pieces written since (which it may or may not
    /// report); `None` when it is not quiet.
    pub(super) fn quiet_since(&self, sid: u32) -> Option<&[u32]> {
        match self.quiet.get(&sid) {
            Some(&(mark, since)) if mark == self.quiet_mark() => {
                self.woken_long.get(since as usize..)
            }
            _ => None,
        }
    }

    /// Says match state `sid` found nothing to do: no piece it reports had
    /// a pattern waiting, or one to list.
    pub(super) fn set_quiet(&mut self, sid: u32) {
        let mark = (self.quiet_mark(), self.woken_long.len() as u32);
        self.quiet.insert(sid, mark);
    }

    /// Wakes match state `sid`: a pattern moved to one of its pieces.
    pub(super) fn wake(&mut self, sid: u32) {
        self.steps += 1;
        self.quiet.remove(&sid);
    }

    /// Wakes every match state when a pattern moved since the last look,
    /// for a pass that does not know which states a piece wakes.
    pub(super) fn wake_all_if_moved(&mut self) {
        if !self.woken.is_empty() {
            self.woken.clear();
            self.rounds = self.rounds.wrapping_add(1);
        }
        self.wake_all_if_wide();
    }

    /// Wakes every match state and piece when a wide node was reached
    /// since the last look: any of its children's pieces may have work,
    /// which is not worked out child by child.
    pub(super) fn wake_all_if_wide(&mut self) {
        if self.wide_moved {
            self.wide_moved = false;
            self.steps += 1;
            self.rounds = self.rounds.wrapping_add(1);
        }
    }

    /// Whether piece `id` had no pattern waiting, and none moved to it
    /// since.
    fn is_idle_piece(&self, id: u32) -> bool {
        self.idle_pieces.get(id as usize) == Some(&self.quiet_mark())
    }

    fn set_idle_piece(&mut self, id: u32, idle: bool) {
        let id = id as usize;
        if self.idle_pieces.len() <= id {
            if !idle {
                return;
            }
            self.idle_pieces.resize(id + 1, 0);
        }
        self.idle_pieces[id] = if idle { self.quiet_mark() } else { 0 };
    }

    /// The cell where piece `id` is, or would go.
    fn probe(&self, id: u32) -> usize {
        let mask = self.table.len() - 1;
        let mut cell = (id.wrapping_mul(0x9E37_79B1) as usize ^ (id as usize >> 7)) & mask;
        loop {
            match self.table[cell] {
                0 => return cell,
                slot if self.keys[slot as usize - 1] == id => return cell,
                _ => cell = (cell + 1) & mask,
            }
        }
    }

    /// The chain of piece `id`, made empty on first need.
    fn chain(&mut self, id: u32) -> usize {
        let cell = self.probe(id);
        match self.table[cell] {
            0 => {
                let slot = self.chains.len();
                self.chains.push(Chain {
                    head: NIL,
                    listed: false,
                    seen: 0,
                    cell: cell as u32,
                });
                self.keys.push(id);
                self.table[cell] = slot as u32 + 1;
                if self.chains.len() * 2 > self.table.len() {
                    self.grow();
                }
                slot
            }
            slot => slot as usize - 1,
        }
    }

    /// Doubles the table and puts every chain back.
    fn grow(&mut self) {
        let size = self.table.len() * 2;
        self.table.clear();
        self.table.resize(size, 0);
        for slot in 0..self.chains.len() {
            let cell = self.probe(self.keys[slot]);
            self.table[cell] = slot as u32 + 1;
            self.chains[slot].cell = cell as u32;
        }
    }

    /// Puts `waiting` at the head of chain `slot`.
    fn push(&mut self, slot: usize, mut waiting: Waiting) -> u32 {
        waiting.link = self.chains[slot].head;
        let index = self.waiting.len() as u32;
        self.waiting.push(waiting);
        self.chains[slot].head = index;
        index
    }

    /// Puts the already stored entry `index` at the head of chain `slot`.
    fn relink(&mut self, slot: usize, index: u32) {
        self.waiting[index as usize].link = self.chains[slot].head;
        self.chains[slot].head = index;
    }
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// One target being read against the patterns with pieces.
pub(super) struct Run<'a> {
    pub(super) pieces: &'a Pieces,
    pub(super) target: Target<'a>,
    /// The target's first four octets, zero-padded.
    pub(super) head: u32,
    /// The first pattern known to match so far; later ones need no work.
    pub(super) best: u32,
    pub(super) scratch: &'a mut Scratch,
}

impl Run<'_> {
    /// True when the target starts with the prefix of `start`, which ends
    /// outside any literal `*` or `$` of the target.
    fn starts_with(&self, start: &Start) -> bool {
        let len = start.prefix_len as usize;
        let octets = self.target.octets;
        if len > octets.len()
            || self.head & head_mask(start.prefix_len) != start.head
            || self.target.splits(len)
        {
            return false;
        }
        if len <= 4 {
            return true;
        }
        let rest = start.rest_at as usize..start.rest_at as usize + len - 4;
        self.pieces.prefixes.get(rest) == octets.get(4..len)
    }

    /// Adds to chain `slot` the first-level nodes whose piece is `id` and
    /// whose prefix starts the target: they begin waiting for it there. No
    /// occurrence of the piece ended before this (it would have listed
    /// them), so they miss none.
    fn list(&mut self, id: u32, slot: usize) {
        self.scratch.chains[slot].listed = true;
        for start in self.pieces.starting_with(id) {
            if start.min >= self.best {
                break;
            }
            if !self.starts_with(start) {
                continue;
            }
            if start.node == NO_NODE {
                self.scratch.at_end.push((start.min, start.prefix_len));
                continue;
            }
            self.scratch.push(
                slot,
                Waiting {
                    node: start.node,
                    min: start.min,
                    from: start.prefix_len,
                    link: NIL,
                },
            );
        }
    }

    /// Adds to chain `slot` the children that take piece `id` of the wide
    /// nodes reached since the chain last looked, each waiting from where
    /// its parent was reached: found from the smaller side, the wide nodes'
    /// children that take `id` or the wide nodes reached since.
    fn list_lazy(&mut self, id: u32, slot: usize) {
        let seen = self.scratch.chains[slot].seen;
        let reached = self.scratch.reached.len() as u32;
        if seen == reached {
            return;
        }
        self.scratch.chains[slot].seen = reached;
        let lazy = self.pieces.lazy_of(id);
        if lazy.is_empty() {
            return;
        }
        if lazy.len() <= (reached - seen) as usize {
            for &(child, parent) in lazy {
                self.scratch.steps += 1;
                let Some(&entry) = self.scratch.reached_at.get(&parent) else {
                    continue;
                };
                if entry >= seen {
                    let from = self.scratch.reached[entry as usize].1;
                    self.wait(slot, child, from);
                }
            }
        } else {
            for entry in seen..reached {
                self.scratch.steps += 1;
                let (parent, from) = self.scratch.reached[entry as usize];
                if let Some(&child) = self.pieces.wide_children.get(&(parent, id)) {
                    self.wait(slot, child, from);
                }
            }
        }
    }

    /// `child` waits on chain `slot` from `from`, unless a pattern as
    /// early as its first already matched.
    fn wait(&mut self, slot: usize, child: Child, from: u32) {
        if child.min >= self.best {
            return;
        }
        self.scratch.push(
            slot,
            Waiting {
                node: child.node,
                min: child.min,
                from,
                link: NIL,
            },
        );
    }

    /// Node `node` is reached at `end`: the patterns that end with it
    /// match, those that end with an anchored piece after it are checked at
    /// the end, and its children wait for their pieces from here. The
    /// entry it waited in, `entry`, is taken again by its first child.
    #[inline]
    fn reach(&mut self, node: u32, end: u32, entry: u32) {
        let reached = self.pieces.node(node);
        self.best = self.best.min(reached.own);
        if reached.has_ends
            && let Some(&(first, _)) = self.pieces.ends_of(&reached).first()
            && first < self.best
        {
            self.scratch.at_end_nodes.push((node, end));
        }
        if reached.children.is_empty() {
            return;
        }
        if reached.children_len() > WIDE as usize {
            // Its children are handed over as their pieces occur.
            let entry = self.scratch.reached.len() as u32;
            self.scratch.reached.push((node, end));
            self.scratch.reached_at.insert(node, entry);
            self.scratch.wide_moved = true;
            return;
        }
        let mut entry = Some(entry);
        for child in reached.children() {
            if child.min >= self.best {
                // By their first pattern: the rest come later still.
                break;
            }
            self.scratch.steps += 1;
            let slot = self.scratch.chain(child.piece);
            let waiting = Waiting {
                node: child.node,
                min: child.min,
                from: end,
                link: NIL,
            };
            match entry.take() {
                Some(index) => {
                    self.scratch.waiting[index as usize] = waiting;
                    self.scratch.relink(slot, index);
                }
                None => {
                    self.scratch.push(slot, waiting);
                }
            }
            self.scratch.set_idle_piece(child.piece, false);
            self.scratch.woken.push(child.piece);
        }
    }

    /// Piece `id` occurs at `start..end`: every node waiting for it from
    /// `start` or before is reached. An occurrence that begins or ends
    /// inside a literal `*` or `$` of the target is none. True unless the
    /// piece had, and has, no node waiting for it (its nodes listed, none
    /// left): an occurrence of it anywhere else does nothing either, until
    /// a node is handed to it.
    pub(super) fn occurs(&mut self, id: u32, start: u32, end: u32) -> bool {
        self.scratch.steps += 1;
        if self.scratch.is_idle_piece(id) {
            return false;
        }
        if self.target.splits(start as usize) || self.target.splits(end as usize) {
            // Said of this place only: elsewhere it may do something.
            return true;
        }
        let slot = self.scratch.chain(id);
        if !self.scratch.chains[slot].listed {
            self.list(id, slot);
        }
        self.list_lazy(id, slot);
        if self.scratch.chains[slot].head == NIL {
            self.scratch.set_idle_piece(id, true);
            return false;
        }
        // Taken off whole: a node that waits for this same piece goes on
        // the emptied chain and is not seen again here.
        let mut walk = std::mem::replace(&mut self.scratch.chains[slot].head, NIL);
        while walk != NIL {
            let index = walk;
            self.scratch.steps += 1;
            let waiting = self.scratch.waiting[index as usize];
            walk = waiting.link;
            if waiting.min >= self.best {
                continue;
            }
            if waiting.from > start {
                // Overlaps the piece before: only an occurrence that
                // starts at `from` or later may do, which ends `end -
                // start` after it. The node waits apart until then, so
                // the occurrences between do not walk it again: a run of
                // `a`s against `/*aaa*aaa` would, at every octet, for
                // every such node (SPEC §5).
                let ready = waiting.from.saturating_add(end - start);
                // A wait of a few octets is cheaper walked than set apart
                // (`/*aa*aa*aa…` against a run of `a`s waits one).
                if ready - end <= SHORT_WAIT {
                    self.scratch.relink(slot, index);
                } else {
                    self.scratch.deferred.push(Reverse((ready, index, id)));
                }
                continue;
            }
            self.reach(waiting.node, end, index);
        }
        true
    }

    /// Puts back on their chains the patterns set apart (`occurs`) that
    /// may take an occurrence ending at `end`, as moves to their pieces.
    #[inline]
    pub(super) fn rejoin(&mut self, end: u32) {
        if self.scratch.deferred.is_empty() {
            return;
        }
        self.rejoin_ready(end);
    }

    fn rejoin_ready(&mut self, end: u32) {
        while let Some(&Reverse((ready, index, id))) = self.scratch.deferred.peek() {
            if ready > end {
                break;
            }
            self.scratch.deferred.pop();
            let slot = self.scratch.chain(id);
            self.scratch.relink(slot, index);
            self.scratch.set_idle_piece(id, false);
            self.scratch.woken.push(id);
        }
    }

    /// Checks the anchored last pieces and gives the first match.
    pub(super) fn finish(self, patterns: &[Pattern]) -> u32 {
        let mut best = self.best;
        let octets = self.target.octets;
        // Whether `last` ends the target after `from`, where it may start.
        let ends = |last: &[u8], from: u32| {
            octets.len() >= from as usize + last.len()
                && octets.ends_with(last)
                && !self.target.splits(octets.len() - last.len())
        };
        for &(index, from) in &self.scratch.at_end {
            if index >= best {
                continue;
            }
            let Some(last) = patterns.get(index as usize).and_then(|p| p.pieces.last()) else {
                continue;
            };
            if ends(last, from) {
                best = index;
            }
        }
        for &(node, from) in &self.scratch.at_end_nodes {
            let reached = self.pieces.node(node);
            match self.pieces.ends_of(&reached).first() {
                Some(&(first, _)) if first < best => {}
                _ => continue,
            }
            if let Some(wide) = self.pieces.wide_ends.get(&node) {
                // By the target's own end, a length at a time.
                for &len in &wide.lengths {
                    let Some(cut) = octets.len().checked_sub(len as usize) else {
                        break;
                    };
                    if cut < from as usize || self.target.splits(cut) {
                        continue;
                    }
                    if let Some(&index) = wide.first.get(&octets[cut..]) {
                        best = best.min(index);
                    }
                }
                continue;
            }
            for &(index, last) in self.pieces.ends_of(&reached) {
                if index >= best {
                    break;
                }
                if ends(self.pieces.text(last), from) {
                    best = index;
                    break;
                }
            }
        }
        best
    }
}
