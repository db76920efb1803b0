//! Streebog with AVX-512 VBMI and GFNI: the 512-bit state lives in one register.
//!
//! LPS(x) without tables. Let s = S(x) (the S-box, two 128-entry `vpermi2b` lookups and a
//! blend on the top bit). After P, word w's byte j is s's word j byte w, so the qword j of
//! s already holds byte j of every word that L sees. L maps each word by the 64×64 matrix
//! A, which splits into 8×8 blocks B(i, j) (output byte i from input byte j). One
//! `gf2p8affineqb` applies a (possibly different) 8×8 matrix to each qword, the same to
//! all eight bytes of a qword (here: the eight words), so eight of them on s and its
//! qword rotations, with the right block in each lane, produce for every lane q the
//! contributions to output byte q of all words. Their XOR is L(P(s)) with bytes and words
//! swapped; one `vpermb` transposes it back.
//!
//! Two arrangements of the products: [`lps`] rotates s seven times (independent products,
//! shortest latency: best for one message, whose compressions form one chain), and
//! [`lps_wide`] rotates partial sums instead (four rotations instead of seven, longer
//! latency: best for the batch's four interleaved messages). Each was measured faster
//! where it is used (docs/tuning-history.md, "Notes moved from the code", "streebog").
//!
//! ## What this file holds
//!
//! the state in one zmm: S-box by two `vpermi2b` and a blend, L by eight `gf2p8affineqb` with
//! 8×8 blocks of A on qword rotations of the S output, P as one `vpermb`; `lps`
//! (latency-first, one message) and `lps_wide` (fewer rotations, the 4-lane batch)

use core::arch::x86_64::*;

use super::tables::{A, C, PI};
use super::{add512, State, BLOCK_LEN, LANES};

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

/// MATRICES[k][q] = B(q, (q + k) mod 8): the matrices of the affine step on s rotated by
/// k qwords (see [`lps`]).
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

/// WIDE_MATRICES[2a + b][q] = B(q − 2a, q + b) (indices mod 8): the matrices of the affine
/// step on s rotated by b qwords whose result is rotated by 2a qwords afterwards (see
/// [`lps_wide`]).
const WIDE_MATRICES: [[u64; 8]; 8] = {
    let mut t = [[0u64; 8]; 8];
    let mut a = 0;
    while a < 4 {
        let mut b = 0;
        while b < 2 {
            let mut q = 0;
            while q < 8 {
                t[2 * a + b][q] = block_matrix((q + 8 - 2 * a) % 8, (q + b) % 8);
                q += 1;
            }
            b += 1;
        }
        a += 1;
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
    _mm512_set_epi64(
        w[7] as i64,
        w[6] as i64,
        w[5] as i64,
        w[4] as i64,
        w[3] as i64,
        w[2] as i64,
        w[1] as i64,
        w[0] as i64,
    )
}

/// The constants, in registers.
#[derive(Clone, Copy)]
pub(crate) struct Consts {
    sbox: [__m512i; 4],
    matrices: [__m512i; 8],
    wide_matrices: [__m512i; 8],
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
            wide_matrices: core::array::from_fn(|i| vec(&WIDE_MATRICES[i])),
            transpose: vec(&TRANSPOSE),
            c: core::array::from_fn(|i| vec(&C[i])),
        }
    }
}

/// L∘P∘S, shortest latency: seven rotations of s, each feeding one affine step with the
/// blocks B(q, q + k) in lane q; all eight products are independent.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn lps(k: &Consts, x: __m512i) -> __m512i {
    let lo = _mm512_permutex2var_epi8(k.sbox[0], x, k.sbox[1]);
    let hi = _mm512_permutex2var_epi8(k.sbox[2], x, k.sbox[3]);
    let s = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
    let m = &k.matrices;
    let a0 = _mm512_gf2p8affine_epi64_epi8::<0>(s, m[0]);
    let a1 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<1>(s, s), m[1]);
    let a2 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<2>(s, s), m[2]);
    let a3 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<3>(s, s), m[3]);
    let a4 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<4>(s, s), m[4]);
    let a5 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<5>(s, s), m[5]);
    let a6 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<6>(s, s), m[6]);
    let a7 = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_alignr_epi64::<7>(s, s), m[7]);
    let x0 = _mm512_ternarylogic_epi64::<0x96>(a0, a1, a2);
    let x1 = _mm512_ternarylogic_epi64::<0x96>(a3, a4, a5);
    let x2 = _mm512_ternarylogic_epi64::<0x96>(a6, a7, x0);
    _mm512_permutexvar_epi8(k.transpose, _mm512_xor_si512(x1, x2))
}

/// L∘P∘S, fewest instructions (for several independent chains at once, where throughput
/// rather than latency limits).
///
/// Output byte i of every word is o_i = ⊕_j B(i, j)·s_j (qwords of s = S(x)); with
/// j = i + 2a + b (a < 4, b < 2), u_b = s rotated by b qwords and S_a = ⊕_b affine(u_b,
/// MATRICES[2a + b]), o = S_0 ⊕ rot2(S_1) ⊕ rot4(S_2 ⊕ rot2(S_3)): one input rotation
/// and three output rotations instead of seven input rotations.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn lps_wide(k: &Consts, x: __m512i) -> __m512i {
    let lo = _mm512_permutex2var_epi8(k.sbox[0], x, k.sbox[1]);
    let hi = _mm512_permutex2var_epi8(k.sbox[2], x, k.sbox[3]);
    let s = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
    let u = _mm512_alignr_epi64::<1>(s, s);
    let m = &k.wide_matrices;
    let s1 = _mm512_xor_si512(_mm512_gf2p8affine_epi64_epi8::<0>(s, m[2]), _mm512_gf2p8affine_epi64_epi8::<0>(u, m[3]));
    let s3 = _mm512_xor_si512(_mm512_gf2p8affine_epi64_epi8::<0>(s, m[6]), _mm512_gf2p8affine_epi64_epi8::<0>(u, m[7]));
    let low = _mm512_ternarylogic_epi64::<0x96>(
        _mm512_gf2p8affine_epi64_epi8::<0>(s, m[0]),
        _mm512_gf2p8affine_epi64_epi8::<0>(u, m[1]),
        _mm512_alignr_epi64::<2>(s1, s1),
    );
    let high = _mm512_ternarylogic_epi64::<0x96>(
        _mm512_gf2p8affine_epi64_epi8::<0>(s, m[4]),
        _mm512_gf2p8affine_epi64_epi8::<0>(u, m[5]),
        _mm512_alignr_epi64::<2>(s3, s3),
    );
    let o = _mm512_xor_si512(low, _mm512_alignr_epi64::<4>(high, high));
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

/// g_0(IV, m) with the precomputed key schedule of a first compression.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn g_keys(h: &mut [u64; 8], keys: &[[u64; 8]; 13], m: &[u64; 8]) {
    let k = Consts::new();
    let mv = vec(m);
    let mut t = mv;
    for key in &keys[..12] {
        t = lps(&k, _mm512_xor_si512(t, vec(key)));
    }
    *h = to_words(_mm512_ternarylogic_epi64::<0x96>(vec(h), _mm512_xor_si512(t, vec(&keys[12])), mv));
}

/// [`g_keys`] on [`LANES`] messages' first compressions (one IV), interleaved.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn g_keys_lanes(h: &mut [[u64; 8]; LANES], keys: &[[u64; 8]; 13], m: &[[u64; 8]; LANES]) {
    let k = Consts::new();
    let mv: [__m512i; LANES] = core::array::from_fn(|i| vec(&m[i]));
    let mut t = mv;
    for key in &keys[..12] {
        let kv = vec(key);
        for ti in t.iter_mut() {
            *ti = lps_wide(&k, _mm512_xor_si512(*ti, kv));
        }
    }
    let last = vec(&keys[12]);
    for i in 0..LANES {
        h[i] = to_words(_mm512_ternarylogic_epi64::<0x96>(vec(&h[i]), _mm512_xor_si512(t[i], last), mv[i]));
    }
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

/// g_N(h, m) on [`LANES`] independent inputs, their chains interleaved.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) fn g_lanes(h: &mut [[u64; 8]; LANES], n: &[[u64; 8]; LANES], m: &[[u64; 8]; LANES]) {
    let k = Consts::new();
    let hv: [__m512i; LANES] = core::array::from_fn(|i| vec(&h[i]));
    let mv: [__m512i; LANES] = core::array::from_fn(|i| vec(&m[i]));
    let mut key: [__m512i; LANES] = core::array::from_fn(|i| lps_wide(&k, _mm512_xor_si512(hv[i], vec(&n[i]))));
    let mut t = mv;
    for c in &k.c {
        for i in 0..LANES {
            t[i] = lps_wide(&k, _mm512_xor_si512(t[i], key[i]));
            key[i] = lps_wide(&k, _mm512_xor_si512(key[i], *c));
        }
    }
    for i in 0..LANES {
        h[i] = to_words(_mm512_ternarylogic_epi64::<0x96>(hv[i], _mm512_xor_si512(t[i], key[i]), mv[i]));
    }
}
