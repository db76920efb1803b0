//! Portable SHA-256 compression: plain Rust, any CPU. Every other backend is tested
//! against it.
//!
//! ## What this file holds
//!
//! plain Rust compression: the reference the other backends are tested against

use super::{BLOCK_LEN, K};

/// Compresses each 64-byte block of `blocks` into `state`, in order.
pub(crate) fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % BLOCK_LEN, 0);
    for block in blocks.chunks_exact(BLOCK_LEN) {
        compress(state, block);
    }
}

/// W(t) + K(t) for t in 0..64: the message schedule of one block (its 16 big-endian words)
/// extended by FIPS 180-4, with the round constants already added. A `const fn`, so the
/// batch kernels' fixed padding block gets its schedule at compile time from the same code.
pub(crate) const fn schedule_wk(block_words: [u32; 16]) -> [u32; 64] {
    let mut w = [0u32; 64];
    let mut t = 0;
    while t < 16 {
        w[t] = block_words[t];
        t += 1;
    }
    while t < 64 {
        let w15 = w[t - 15];
        let w2 = w[t - 2];
        let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
        let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
        w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
        t += 1;
    }
    t = 0;
    while t < 64 {
        w[t] = w[t].wrapping_add(K[t]);
        t += 1;
    }
    w
}

/// The 64 rounds over `state` from a schedule made by [`schedule_wk`], then the
/// feed-forward.
#[inline(always)]
pub(crate) fn rounds_wk(state: &mut [u32; 8], wk: &[u32; 64]) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for &wk in wk {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(wk);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(s0.wrapping_add(maj));
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = s.wrapping_add(v);
    }
}

#[inline(always)]
fn compress(state: &mut [u32; 8], block: &[u8]) {
    let mut words = [0u32; 16];
    for (word, bytes) in words.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    rounds_wk(state, &schedule_wk(words));
}
