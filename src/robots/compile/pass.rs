//! The pass over a target that reports every occurrence of every piece,
//! in order of where it ends: a DFA when its table is small, else a
//! contiguous NFA, with the nodes each occurrence wakes (the method is in
//! `compile.rs`; SPEC §3 matching, §5 "no target makes wildcard rules cost
//! more than 20 times what as many literal rules cost").

use std::collections::HashMap;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, MatchKind};

use super::chains::{Run, Scratch};
use super::tree::run_of;

/// Above this many table cells (states times byte classes, at most) the
/// pieces are searched by a contiguous NFA instead of a DFA. A DFA takes
/// one table read per octet where the NFA follows failure links, so it is
/// the faster pass, but its table grows with the states times the alphabet
/// (rounded up to a power of two): 2 Mi cells is at most 16 MiB per
/// compiled selection, built in tens of milliseconds. 20,000 rules like
/// `/*x00042*zz` (120,000 octets of pieces in 13 classes) fit.
pub(super) const DFA_CELLS: usize = 2 << 20;

/// The most failure-link steps a DFA build may take, about: states times
/// the longest piece (tens of milliseconds); past it the contiguous NFA,
/// built in time linear in the pieces, is used.
pub(super) const DFA_BUILD_STEPS: usize = 16 << 20;

/// The automaton over the pieces.
#[derive(Debug, Clone)]
pub(super) enum Pass {
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
pub(super) struct Links {
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
pub(super) const LONG_WAKE: usize = 32;

/// A quiet state runs at most this many pieces woken since it was found
/// quiet; past them its chain is walked again.
pub(super) const WOKEN_SINCE: usize = 8;

#[derive(Debug, Clone)]
pub(super) enum Places {
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
pub(super) fn match_states(
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
pub(super) struct Link {
    /// The state's own piece: (id, length).
    own: Option<(u32, u32)>,
    /// The next match state of the chain, or `NO_STATE`.
    next: u32,
}

/// No next state: the chain ends.
pub(super) const NO_STATE: u32 = u32::MAX;

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
    pub(super) fn visit(&self, sid: u32, end: u32, run: &mut Run<'_>) {
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
pub(super) fn depth_first(links: &[Link], places: &Places) -> Option<(Vec<u32>, Vec<u32>)> {
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
pub(super) struct Wakes {
    /// `states[at[p]..at[p + 1]]` for piece `p`.
    at: Vec<u32>,
    states: Vec<u32>,
}

/// Entries a `Wakes` table may hold: past it, an NFA's moves wake every
/// state (a hostile file could make it states × pieces).
pub(super) const WAKES_MAX: usize = 4 << 20;

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
    pub(super) fn wake(&self, links: Option<&Links>, scratch: &mut Scratch) {
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
pub(super) fn nfa_wakes(nfa: &NFA, states: &[StateID]) -> Option<Wakes> {
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
pub(super) fn search_for(distinct: &[&[u8]]) -> Option<Pass> {
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
pub(super) fn dfa_for(distinct: &[&[u8]]) -> Option<Pass> {
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
pub(super) fn occurrences(
    automaton: &impl Automaton,
    sid: StateID,
    end: u32,
    run: &mut Run<'_>,
) -> bool {
    let mut busy = false;
    for n in 0..automaton.match_len(sid) {
        let piece = automaton.match_pattern(sid, n);
        let len = automaton.pattern_len(piece) as u32;
        busy |= run.occurs(piece.as_u32(), end - len, end);
    }
    busy
}
