//! Short texts read by a table of steps: takes a table of byte classes and
//! a table of the next state for each state and class (built in `const` by
//! the reader that owns them: `fields::is_ipv4`, `ipv6::is_ipv6`); gives
//! the same table two bytes a step (`pair_steps`) and the state a text
//! ends in (`walk`).
//!
//! Why two bytes a step: each step waits on the load of the one before,
//! so a client of 15 bytes was a chain of 15 dependent loads; pairs halve
//! the chain (a combined line 93–96 → 87–89 ns, `benches/HISTORY.md`).

/// `steps` (`classes` entries a state, the states numbered from 0) two
/// steps at once: the state after a byte of class `first` and one of
/// class `second` is at `(state * classes + first) * classes + second`.
/// `P` is the number of states times `classes` squared.
pub(crate) const fn pair_steps<const P: usize>(steps: &[u8], classes: usize) -> [u8; P] {
    assert!(P == steps.len() * classes);
    let mut pairs = [0u8; P];
    // `at` is a state and a first class: `state * classes + first`.
    let mut at = 0;
    while at < steps.len() {
        let between = steps[at] as usize;
        let mut second = 0;
        while second < classes {
            pairs[at * classes + second] = steps[between * classes + second];
            second += 1;
        }
        at += 1;
    }
    pairs
}

/// The state `text` ends in from `start`: bytes read two at a time by
/// `pairs` (made by `pair_steps` from `steps`), the odd last one by
/// `steps`.
#[inline(always)]
pub(crate) fn walk(
    text: &[u8],
    start: u8,
    class: &[u8; 256],
    classes: usize,
    steps: &[u8],
    pairs: &[u8],
) -> u8 {
    let class_of = |b: u8| usize::from(class[usize::from(b)]);
    let (two, last) = text.as_chunks::<2>();
    let mut state = start;
    for &[a, b] in two {
        state = pairs[(usize::from(state) * classes + class_of(a)) * classes + class_of(b)];
    }
    if let [b] = last {
        state = steps[usize::from(state) * classes + class_of(*b)];
    }
    state
}
