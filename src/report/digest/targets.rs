//! The (key, target) pairs the distinct-target counts are made of: takes a
//! row's target with what it counts towards (a crawler's kind, or a rule)
//! and how often it came, and gives a `spill::Record` that sorts, merges
//! equal pairs and spills to disk like the fetches do, so that each
//! distinct pair comes out once (SPEC §5 `summary.csv` `distinct_targets`,
//! §7 `rules.csv`).

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::spill::Record;

/// Keys here are log text (targets, clients): a seeded fast hash, as the
/// scan's maps use.
pub(super) type Fold = foldhash::fast::RandomState;

/// Targets seen for one tag, not yet sorted: (rows, rows that accuse).
pub(super) type Seen = HashMap<Box<[u8]>, (u64, u64), Fold>;

/// What a (key, target) pair counts towards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Tag {
    Kind { crawler: usize, kind: usize },
    Rule(usize),
}

/// A target of a row, with what it counts towards and how often it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Targeted {
    pub(super) tag: Tag,
    pub(super) target: Box<[u8]>,
    pub(super) times: u64,
    /// Of `times`, the rows that accuse (not those whose note only
    /// informs): the report for people ranks targets by these.
    pub(super) accusing: u64,
}

impl Targeted {
    /// What a pair of `target` holds in memory (`Record::size`).
    pub(super) fn size_of(target: &[u8]) -> usize {
        2 * std::mem::size_of::<Targeted>() + target.len() + 16
    }
}

impl Record for Targeted {
    fn order(&self, other: &Self) -> Ordering {
        self.tag
            .cmp(&other.tag)
            .then_with(|| self.target.cmp(&other.target))
    }

    /// As `Fetch::size`: the text with the allocator's overhead, the fixed
    /// part twice.
    fn size(&self) -> usize {
        Targeted::size_of(&self.target)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let (which, a, b) = match self.tag {
            Tag::Kind { crawler, kind } => (0u8, crawler as u64, kind as u64),
            Tag::Rule(at) => (1u8, at as u64, 0),
        };
        out.push(which);
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
        out.extend_from_slice(&self.times.to_le_bytes());
        out.extend_from_slice(&self.accusing.to_le_bytes());
        out.extend_from_slice(&self.target);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (&which, rest) = bytes.split_first()?;
        let (a, rest) = rest.split_first_chunk::<8>()?;
        let (b, rest) = rest.split_first_chunk::<8>()?;
        let (times, rest) = rest.split_first_chunk::<8>()?;
        let (accusing, target) = rest.split_first_chunk::<8>()?;
        let a = usize::try_from(u64::from_le_bytes(*a)).ok()?;
        let b = usize::try_from(u64::from_le_bytes(*b)).ok()?;
        let tag = match which {
            0 => Tag::Kind {
                crawler: a,
                kind: b,
            },
            1 => Tag::Rule(a),
            _ => return None,
        };
        Some(Targeted {
            tag,
            target: target.into(),
            times: u64::from_le_bytes(*times),
            accusing: u64::from_le_bytes(*accusing),
        })
    }

    fn absorb(&mut self, other: Self) {
        self.times += other.times;
        self.accusing += other.accusing;
    }
}
