//! The buffering every block hash needs: bytes of a block not yet complete, and the total
//! length so far. Whole blocks go to the kernel straight from the caller's slice; only a
//! block split across `update` calls is copied. SHA-256, Streebog, GOST R 34.11-94 and
//! HighwayHash (32-byte packets) share it, and Streebog and GOST R 34.11-94 the
//! little-endian word helpers of a block (`le_words`, `add_words`).
//!
//! ## What this file holds
//!
//! `BlockBuffer<N>`: the pending bytes of a block and the input length, shared by SHA-256,
//! Streebog, GOST R 34.11-94 and HighwayHash; whole blocks go to the kernel straight from the
//! caller's slice; `le_words` and `add_words`, a block as little-endian words and their carry
//! add (Streebog, GOST R 34.11-94)

/// Up to one block of pending input and the input length so far (modulo 2^64).
#[derive(Clone)]
pub(crate) struct BlockBuffer<const N: usize> {
    buf: [u8; N],
    pending: usize,
    total: u64,
}

impl<const N: usize> std::fmt::Debug for BlockBuffer<N> {
    // Lengths only: the pending bytes may be secret (a MAC's input).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockBuffer").field("pending", &self.pending).field("total", &self.total).finish()
    }
}

impl<const N: usize> BlockBuffer<N> {
    /// Empty, at length 0.
    pub(crate) const fn new() -> Self {
        BlockBuffer { buf: [0; N], pending: 0, total: 0 }
    }

    /// Adds `input`: every block it completes goes to `compress`, as whole blocks (a
    /// multiple of `N` bytes, possibly many at once); the rest waits for the next call.
    #[inline]
    pub(crate) fn update(&mut self, mut input: &[u8], mut compress: impl FnMut(&[u8])) {
        self.total = self.total.wrapping_add(input.len() as u64);
        if self.pending > 0 {
            let take = (N - self.pending).min(input.len());
            self.buf[self.pending..self.pending + take].copy_from_slice(&input[..take]);
            self.pending += take;
            input = &input[take..];
            if self.pending < N {
                return;
            }
            compress(&self.buf);
            self.pending = 0;
        }
        let whole = input.len() - input.len() % N;
        if whole > 0 {
            compress(&input[..whole]);
        }
        let rest = &input[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.pending = rest.len();
    }

    /// A buffer holding `pending` (fewer than `N` bytes) after `total` bytes of input, as
    /// restored from a saved state; `None` if `pending` is a whole block or more.
    pub(crate) fn from_parts(pending: &[u8], total: u64) -> Option<Self> {
        let mut buf = [0; N];
        buf.get_mut(..pending.len()).filter(|_| pending.len() < N)?.copy_from_slice(pending);
        Some(BlockBuffer { buf, pending: pending.len(), total })
    }

    /// The bytes of the block not yet complete (fewer than `N`).
    pub(crate) fn pending(&self) -> &[u8] {
        &self.buf[..self.pending]
    }

    /// The whole buffer and how many of its bytes are pending (for saving a state; the
    /// bytes past them are stale).
    pub(crate) fn raw(&self) -> (&[u8; N], usize) {
        (&self.buf, self.pending)
    }

    /// The input length so far, modulo 2^64.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Back to empty, at length 0.
    pub(crate) fn reset(&mut self) {
        self.pending = 0;
        self.total = 0;
    }
}

/// A block as `N` little-endian 64-bit words (Streebog's 64-byte and GOST R 34.11-94's
/// 32-byte blocks). Panics if `block` is shorter than `8 * N` bytes.
#[inline(always)]
pub(crate) fn le_words<const N: usize>(block: &[u8]) -> [u64; N] {
    core::array::from_fn(|i| u64::from_le_bytes(block[8 * i..8 * i + 8].try_into().unwrap()))
}

/// a += b modulo 2^(64·N), the words little-endian, the carry running through all of them
/// (Streebog's N and Σ, GOST R 34.11-94's Σ).
#[inline(always)]
pub(crate) fn add_words<const N: usize>(a: &mut [u64; N], b: &[u64; N]) {
    let mut carry = false;
    for i in 0..N {
        let (s1, c1) = a[i].overflowing_add(b[i]);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        a[i] = s2;
        carry = c1 | c2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any split of the input gives the same whole blocks in order and the same rest.
    #[test]
    fn splits_give_the_same_blocks() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1003).collect();
        let whole = data.len() - data.len() % 8;
        for cut_a in [0, 1, 7, 8, 9, 63, 500] {
            for cut_b in [cut_a, cut_a + 1, cut_a + 8, 1001] {
                let mut b = BlockBuffer::<8>::new();
                let mut seen = Vec::new();
                for piece in [&data[..cut_a], &data[cut_a..cut_b], &data[cut_b..]] {
                    b.update(piece, |blocks| {
                        assert_eq!(blocks.len() % 8, 0);
                        seen.extend_from_slice(blocks);
                    });
                }
                assert_eq!(seen, data[..whole]);
                assert_eq!(b.pending(), &data[whole..]);
                assert_eq!(b.total(), 1003);
            }
        }
    }
}
