//! Deterministic pseudo-random inputs for the unit tests (no dependency, same values on
//! every run).

/// A xorshift64 generator (shifts 13, 7, 17).
pub(crate) struct XorShift64(u64);

impl XorShift64 {
    /// A generator started from `seed`, which must not be zero (xorshift's fixed point).
    pub(crate) fn new(seed: u64) -> Self {
        assert_ne!(seed, 0, "a xorshift seed must not be zero");
        XorShift64(seed)
    }

    /// The next 64-bit value.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Fills `bytes`, one value's low byte each.
    pub(crate) fn fill(&mut self, bytes: &mut [u8]) {
        for b in bytes {
            *b = self.next_u64() as u8;
        }
    }
}
