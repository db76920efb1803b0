//! Table-driven Streebog: LPS as 64 lookups in the generated tables, any CPU.

use super::tables::{C, LPS};
use super::{State, BLOCK_LEN};

/// L∘P∘S of a 512-bit value, as eight little-endian words.
///
/// The 64 table indices are byte loads from the state stored in memory: one load, one
/// XOR with a table entry per lookup, nothing kept in registers but the eight outputs.
/// `black_box` hides the stored bytes' origin from the optimizer; seeing that they come
/// from words in registers, it extracted all 64 with shifts up front and spilled them to
/// the stack, which was slower than Nettle's C.
#[inline(always)]
pub(crate) fn lps(x: &[u64; 8]) -> [u64; 8] {
    let mut bytes = [0u8; 64];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(x) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    let bytes = core::hint::black_box(bytes);
    let mut out = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        let mut r = 0;
        for (j, table) in LPS.iter().enumerate() {
            r ^= table[bytes[8 * j + i] as usize];
        }
        *o = r;
    }
    out
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

/// g_0(IV, m) with the precomputed key schedule of a first compression.
pub(crate) fn g_keys(h: &mut [u64; 8], keys: &[[u64; 8]; 13], m: &[u64; 8]) {
    let mut t = *m;
    for k in &keys[..12] {
        t = lps(&xor(&t, k));
    }
    for i in 0..8 {
        h[i] ^= t[i] ^ keys[12][i] ^ m[i];
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
