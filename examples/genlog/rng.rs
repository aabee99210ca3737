//! A small deterministic random source (SplitMix64) for the log generator:
//! takes a seed, gives the same stream of numbers on every machine, so a
//! sample log can be remade byte for byte from its command line.

/// SplitMix64: one 64-bit word of state, good enough statistics for made-up
/// traffic, and fast (a handful of multiplies per draw).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; 0 when `n` is 0. Multiply-shift rather than
    /// modulo: no division on the hot path, bias below n/2^64.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `per_10k` / 10,000.
    pub fn chance(&mut self, per_10k: u64) -> bool {
        self.below(10_000) < per_10k
    }

    /// An index in `0..n` that favours the small ones (about 1/i), so a few
    /// pages, visitors and browsers are popular and the rest form a long tail.
    pub fn skewed(&mut self, n: usize) -> usize {
        let outer = self.below(n as u64) + 1;
        self.below(outer) as usize
    }

    /// One element, uniformly. The tables handed in are never empty.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// One value from a `(weight, value)` table.
    pub fn weighted<T: Copy>(&mut self, table: &[(u32, T)]) -> T {
        let total: u64 = table.iter().map(|&(w, _)| u64::from(w)).sum();
        let mut x = self.below(total);
        for &(w, value) in table {
            if x < u64::from(w) {
                return value;
            }
            x -= u64::from(w);
        }
        table[table.len() - 1].1
    }

    /// An independent stream, so that one use of randomness (the shuffle of
    /// `--out-of-order`) does not change what another draws.
    pub fn split(&mut self) -> Rng {
        Rng::new(self.next_u64() ^ 0x5851_F42D_4C95_7F2D)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn bounds_hold() {
        let mut rng = Rng::new(7);
        for (lo, hi) in [(0, 0), (1, 1), (3, 9), (0, 255), (100, 1000)] {
            for _ in 0..1000 {
                let x = rng.between(lo, hi);
                assert!((lo..=hi).contains(&x), "{x} not in {lo}..={hi}");
            }
        }
        for n in [1usize, 2, 10, 5000] {
            for _ in 0..1000 {
                assert!(rng.skewed(n) < n);
            }
        }
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn weights_are_respected() {
        let mut rng = Rng::new(1);
        let table = [(1u32, 'a'), (0, 'b'), (3, 'c')];
        let mut counts = [0u32; 3];
        for _ in 0..40_000 {
            match rng.weighted(&table) {
                'a' => counts[0] += 1,
                'b' => counts[1] += 1,
                _ => counts[2] += 1,
            }
        }
        assert_eq!(counts[1], 0);
        assert!((9_000..11_000).contains(&counts[0]), "{counts:?}");
    }
}
