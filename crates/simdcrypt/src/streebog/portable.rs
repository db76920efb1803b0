//! Table-driven Streebog: LPS as 64 lookups in the generated tables, any CPU.

use super::tables::{C, LPS};
use super::{State, BLOCK_LEN};

/// L∘P∘S of a 512-bit value, as eight little-endian words. Reading the state as bytes
/// lets the table indices come from byte loads rather than shifts and masks.
#[inline(always)]
pub(crate) fn lps(x: &[u64; 8]) -> [u64; 8] {
    let b: [[u8; 8]; 8] = x.map(u64::to_le_bytes);
    core::array::from_fn(|i| {
        LPS[0][b[0][i] as usize]
            ^ LPS[1][b[1][i] as usize]
            ^ LPS[2][b[2][i] as usize]
            ^ LPS[3][b[3][i] as usize]
            ^ LPS[4][b[4][i] as usize]
            ^ LPS[5][b[5][i] as usize]
            ^ LPS[6][b[6][i] as usize]
            ^ LPS[7][b[7][i] as usize]
    })
}

#[inline(always)]
fn xor(a: &[u64; 8], b: &[u64; 8]) -> [u64; 8] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// The compression function g_N(h, m) (the standard's 7): h ← E(LPS(h ⊕ N), m) ⊕ h ⊕ m.
pub(crate) fn g(h: &mut [u64; 8], n: &[u64; 8], m: &[u64; 8]) {
    let mut k = lps(&xor(h, n));
    let mut t = *m;
    for c in &C {
        t = lps(&xor(&t, &k));
        k = lps(&xor(&k, c));
    }
    for i in 0..8 {
        h[i] ^= t[i] ^ k[i] ^ m[i];
    }
}

/// Compresses each 64-byte block of `blocks` in turn (stage 2 of the standard).
pub(crate) fn compress_blocks(state: &mut State, blocks: &[u8]) {
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let m = super::load_block(block);
        g(&mut state.h, &state.n, &m);
        state.absorb(&m);
    }
}
