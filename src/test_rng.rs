//! A small deterministic generator for the unit tests' random cases
//! (xorshift64): takes a seed, gives numbers below a bound, the same on
//! every machine for the same seed.

/// Numbers below the bound each call is given, from `seed` (not 0).
pub fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |range| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % range
    }
}
