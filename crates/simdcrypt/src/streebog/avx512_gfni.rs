//! Streebog with AVX-512 VBMI and GFNI: the 512-bit state lives in one register.
//!
//! LPS(x) without tables. Let s = S(x) (the S-box, two 128-entry `vpermi2b` lookups and a
//! blend on the top bit). After P, word w's byte j is s's word j byte w, so the qword j of
//! s already holds byte j of every word that L sees. L maps each word by the 64×64 matrix
//! A, which splits into 8×8 blocks B(i, j) (output byte i from input byte j). One
//! `gf2p8affineqb` applies a (possibly different) 8×8 matrix to each qword, the same to
//! all eight bytes of a qword (here: the eight words), so eight of them, each on s
//! rotated by k qwords with the matrices B(q, q+k) in lane q, produce for every lane q the
//! eight contributions to output byte q of all words. Their XOR is L(P(s)) with bytes and
//! words swapped; one `vpermb` transposes it back.

use core::arch::x86_64::*;

use super::tables::{A, C, PI};
use super::{add512, State, BLOCK_LEN};

/// The 8×8 bit matrix, in `gf2p8affineqb`'s layout, of block (i, j) of l: output byte i
/// of a word from its input byte j. Output bit r is the parity of the input byte ANDed
/// with matrix byte 7 − r, whose bit k is the coefficient of input bit k (the word's bit
/// 8j + k, which selects row A[63 − 8j − k]) in output bit r (the word's bit 8i + r).
const fn block_matrix(i: usize, j: usize) -> u64 {
    let mut m = 0u64;
    let mut r = 0;
    while r < 8 {
        let mut k = 0;
        while k < 8 {
            let bit = A[63 - 8 * j - k] >> (8 * i + r) & 1;
            m |= bit << (8 * (7 - r) + k);
            k += 1;
        }
        r += 1;
    }
    m
}

/// MATRICES[k][q] = B(q, (q + k) mod 8): the matrices of the k-th affine step.
const MATRICES: [[u64; 8]; 8] = {
    let mut t = [[0u64; 8]; 8];
    let mut k = 0;
    while k < 8 {
        let mut q = 0;
        while q < 8 {
            t[k][q] = block_matrix(q, (q + k) % 8);
            q += 1;
        }
        k += 1;
    }
    t
};

/// π as four 64-byte quarters, little-endian words.
const SBOX: [[u64; 8]; 4] = {
    let mut t = [[0u64; 8]; 4];
    let mut v = 0;
    while v < 256 {
        t[v / 64][(v % 64) / 8] |= (PI[v] as u64) << (8 * (v % 8));
        v += 1;
    }
    t
};

/// The byte transposition: output byte 8w + i is input byte 8i + w.
const TRANSPOSE: [u64; 8] = {
    let mut t = [0u64; 8];
    let mut p = 0;
    while p < 64 {
        t[p / 8] |= ((8 * (p % 8) + p / 8) as u64) << (8 * (p % 8));
        p += 1;
    }
    t
};

#[inline]
#[target_feature(enable = "avx512f")]
fn vec(w: &[u64; 8]) -> __m512i {
    _mm512_set_epi64(w[7] as i64, w[6] as i64, w[5] as i64, w[4] as i64, w[3] as i64, w[2] as i64, w[1] as i64, w[0] as i64)
}

/// The constants, in registers.
#[derive(Clone, Copy)]
pub(crate) struct Consts {
    sbox: [__m512i; 4],
    matrices: [__m512i; 8],
    transpose: __m512i,
    c: [__m512i; 12],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn new() -> Self {
        Consts {
            sbox: core::array::from_fn(|i| vec(&SBOX[i])),
            matrices: core::array::from_fn(|i| vec(&MATRICES[i])),
            transpose: vec(&TRANSPOSE),
            c: core::array::from_fn(|i| vec(&C[i])),
        }
    }
}

/// L∘P∘S.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn lps(k: &Consts, x: __m512i) -> __m512i {
    let lo = _mm512_permutex2var_epi8(k.sbox[0], x, k.sbox[1]);
    let hi = _mm512_permutex2var_epi8(k.sbox[2], x, k.sbox[3]);
    let s = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
    let a0 = _mm512_gf2p8affine_epi64_epi8::<0>(s, k.matrices[0]);
    let a1 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<1>(s, s), k.matrices[1]);
    let a2 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<2>(s, s), k.matrices[2]);
    let a3 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<3>(s, s), k.matrices[3]);
    let a4 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<4>(s, s), k.matrices[4]);
    let a5 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<5>(s, s), k.matrices[5]);
    let a6 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<6>(s, s), k.matrices[6]);
    let a7 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<7>(s, s), k.matrices[7]);
    let x0 = _mm512_ternarylogic_epi64::<0x96>(a0, a1, a2);
    let x1 = _mm512_ternarylogic_epi64::<0x96>(a3, a4, a5);
    let x2 = _mm512_ternarylogic_epi64::<0x96>(a6, a7, x0);
    let o = _mm512_xor_si512(x1, x2);
    _mm512_permutexvar_epi8(k.transpose, o)
}

/// g_N(h, m) on registers; returns the new h.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn g_vec(k: &Consts, h: __m512i, n: __m512i, m: __m512i) -> __m512i {
    let mut key = lps(k, _mm512_xor_si512(h, n));
    let mut t = m;
    for c in &k.c {
        t = lps(k, _mm512_xor_si512(t, key));
        key = lps(k, _mm512_xor_si512(key, *c));
    }
    _mm512_ternarylogic_epi64::<0x96>(h, _mm512_xor_si512(t, key), m)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load(block: &[u8]) -> __m512i {
    assert!(block.len() >= BLOCK_LEN);
    // SAFETY: the slice holds at least 64 bytes (checked above); the load is unaligned.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn to_words(v: __m512i) -> [u64; 8] {
    let mut out = [0u64; 8];
    // SAFETY: `out` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}

/// One compression g_N(h, m).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn g(h: &mut [u64; 8], n: &[u64; 8], m: &[u64; 8]) {
    let k = Consts::new();
    *h = to_words(g_vec(&k, vec(h), vec(n), vec(m)));
}

/// Compresses each 64-byte block of `blocks` in turn, h kept in a register.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn compress_blocks(state: &mut State, blocks: &[u8]) {
    let k = Consts::new();
    let mut h = vec(&state.h);
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let m = load(block);
        h = g_vec(&k, h, vec(&state.n), m);
        add512(&mut state.n, &[512, 0, 0, 0, 0, 0, 0, 0]);
        add512(&mut state.sigma, &super::load_block(block));
    }
    state.h = to_words(h);
}

/// g_N(h, m) on four independent inputs, their chains interleaved.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn g_lanes(h: &mut [[u64; 8]; 4], n: &[[u64; 8]; 4], m: &[[u64; 8]; 4]) {
    let k = Consts::new();
    let hv: [__m512i; 4] = core::array::from_fn(|i| vec(&h[i]));
    let mv: [__m512i; 4] = core::array::from_fn(|i| vec(&m[i]));
    let mut key: [__m512i; 4] = core::array::from_fn(|i| lps(&k, _mm512_xor_si512(hv[i], vec(&n[i]))));
    let mut t = mv;
    for c in &k.c {
        for i in 0..4 {
            t[i] = lps(&k, _mm512_xor_si512(t[i], key[i]));
            key[i] = lps(&k, _mm512_xor_si512(key[i], *c));
        }
    }
    for i in 0..4 {
        h[i] = to_words(_mm512_ternarylogic_epi64::<0x96>(hv[i], _mm512_xor_si512(t[i], key[i]), mv[i]));
    }
}
