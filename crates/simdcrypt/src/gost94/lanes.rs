//! What the many-message kernels (`avx2.rs`, `ssse3.rs`, `neon.rs`) share of their step:
//! one message per 32-bit lane, a step's key generation (A, C3, P), its four GOST 28147-89
//! encryptions round by round and the mixing as ψ^61 / ψ^74 row XORs, written once over
//! [`Words`], a register of lanes with the operations the step needs. Each kernel
//! implements `Words` for its vector type with `#[inline(always)]` methods, so all of this
//! is inlined into the kernel's `#[target_feature]` entry point and compiles to the same
//! instructions as code written with the intrinsics in place.
//!
//! Loops rather than `array::from_fn` throughout: a closure here has no target features,
//! so neither it nor the intrinsics in it would be inlined.
//!
//! ## What this file holds
//!
//! the many-message step shared by `avx2.rs`, `ssse3.rs` and `neon.rs`, written once over
//! `Words` (a register of 32-bit lanes, one message per lane: load/store, add, XOR, 16-bit
//! shift and pack, the S-box-and-rotation f, the key P transform; an `unsafe trait` with
//! `#[inline(always)]` impls, as `salsa20/rounds.rs`): key generation (A, C3, P), the four
//! encryptions two rounds per iteration without swaps, the mixing as ψ^61 / ψ^74 row XORs with
//! constant rows

use super::batch::{Lanes, LANES};
use super::{portable, Tables, PSI61, PSI74};

/// A register of 32-bit lanes, one message per lane.
///
/// # Safety
///
/// The methods use the kernel's SIMD instructions without declaring them: they may only be
/// called from code compiled with the kernel's target features (into which they are
/// inlined), which runs only once its `Platform` was checked.
pub(crate) unsafe trait Words: Copy {
    /// Lanes per register; divides [`LANES`].
    const WIDTH: usize;
    /// The S-boxes in the form the kernel's lookups take them.
    type SBoxes;

    /// The kernel's S-boxes from the parameter set's tables.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn sboxes(t: &Tables) -> Self::SBoxes;
    /// Lanes `WIDTH * group ..` of `row`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn load(row: &[u32; LANES], group: usize) -> Self;
    /// `v` into lanes `WIDTH * group ..` of `row`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn store(row: &mut [u32; LANES], group: usize, v: Self);
    /// `w` in every lane.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn splat(w: u32) -> Self;
    /// Lane-wise wrapping addition.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// Lane-wise XOR.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// Each lane shifted right by 16 bits.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn shr16(v: Self) -> Self;
    /// The low 16 bits of each lane of `lo` under the low 16 bits of `hi` (high half).
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn pack16(lo: Self, hi: Self) -> Self;
    /// f(x) = rotl11(S(x)) on every lane.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn f(s: &Self::SBoxes, x: Self) -> Self;
    /// The key P(W) of one encryption from W's eight 32-bit words: byte p of key word k is
    /// byte k % 4 of word k / 4 + 2p.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn p(w: &[Self; 8]) -> [Self; 8];
}

/// Registers whose bytes move within each 32-bit lane by one byte shuffle (`pshufb`), for
/// [`p_by_shuffles`].
///
/// # Safety
///
/// As [`Words`]: the methods may only be called from code compiled with the kernel's
/// target features.
#[cfg(target_arch = "x86_64")]
pub(crate) unsafe trait ShuffleBytes: Words {
    /// Byte `b` of each 32-bit lane into byte `pos` of the lane, zeros elsewhere (the
    /// shuffle index [`PICK`]`[b][pos]`).
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn pick(v: Self, b: usize, pos: usize) -> Self;
    /// Lane-wise OR.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn or(a: Self, b: Self) -> Self;
}

/// `pshufb` indices of [`ShuffleBytes::pick`] for one 128-bit lane: `PICK[b][pos]` puts
/// byte `b` of each 32-bit word at byte `pos` and zeroes (index 0x80) the others.
#[cfg(target_arch = "x86_64")]
pub(crate) static PICK: [[[u8; 16]; 4]; 4] = {
    let mut t = [[[0x80u8; 16]; 4]; 4];
    let mut b = 0;
    while b < 4 {
        let mut pos = 0;
        while pos < 4 {
            let mut word = 0;
            while word < 4 {
                t[b][pos][4 * word + pos] = (4 * word + b) as u8;
                word += 1;
            }
            pos += 1;
        }
        b += 1;
    }
    t
};

/// [`Words::p`] by byte shuffles: key word k is byte k % 4 of the 32-bit words k / 4,
/// k / 4 + 2, k / 4 + 4, k / 4 + 6, each moved to its byte of the key word by a shuffle
/// that zeroes the rest, and the four ORed.
///
/// # Safety
///
/// See [`ShuffleBytes`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn p_by_shuffles<W: ShuffleBytes>(w: &[W; 8]) -> [W; 8] {
    let mut key = *w;
    for (k, key) in key.iter_mut().enumerate() {
        let (c, b) = (k / 4, k % 4);
        // SAFETY: the caller has the kernel's features (the trait's contract).
        unsafe {
            *key = W::or(
                W::or(W::pick(w[c], b, 0), W::pick(w[c + 2], b, 1)),
                W::or(W::pick(w[c + 4], b, 2), W::pick(w[c + 6], b, 3)),
            );
        }
    }
    key
}

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2 on 64-bit words y1 (least significant) .. y4, held as
/// 32-bit halves.
#[inline(always)]
unsafe fn a_map<W: Words>(y: [W; 8]) -> [W; 8] {
    // SAFETY: the caller has the kernel's features (the trait's contract).
    unsafe { [y[2], y[3], y[4], y[5], y[6], y[7], W::xor(y[0], y[2]), W::xor(y[1], y[3])] }
}

/// XOR of the words of `x` selected by the bits of `row` (a constant after inlining), in
/// two chains. Unrolled by a macro rather than a loop: in a kernel whose step is large
/// (two registers per word) LLVM kept the loop and tested `row`'s bits at run time.
#[inline(always)]
unsafe fn select_xor<W: Words>(row: u16, x: &[W; 16]) -> W {
    // SAFETY: the caller has the kernel's features (the trait's contract).
    unsafe {
        let mut acc = [W::splat(0); 2];
        let mut n = 0;
        macro_rules! take {
            ($($j:literal)*) => {$(
                if row >> $j & 1 == 1 {
                    acc[n & 1] = W::xor(acc[n & 1], x[$j]);
                    n += 1;
                }
            )*};
        }
        take!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        W::xor(acc[0], acc[1])
    }
}

/// Sixteen 16-bit words from eight 32-bit words (each word in the low half of its lane;
/// the high halves hold junk that XORs never move into the low halves).
#[inline(always)]
unsafe fn to_words<W: Words>(v: &[W; 8]) -> [W; 16] {
    let mut out = [v[0]; 16];
    for (i, o) in out.iter_mut().enumerate() {
        // SAFETY: the caller has the kernel's features (the trait's contract).
        *o = if i % 2 == 0 { v[i / 2] } else { unsafe { W::shr16(v[i / 2]) } };
    }
    out
}

/// 32-bit word k of the new H: 16-bit words 2k and 2k + 1 of ψ^61(`y`) ⊕ ψ^74(`sw`).
#[inline(always)]
unsafe fn out_word<W: Words>(k: usize, y: &[W; 16], sw: &[W; 16]) -> W {
    // SAFETY: the caller has the kernel's features (the trait's contract).
    unsafe {
        let lo = W::xor(select_xor(PSI61[2 * k], y), select_xor(PSI74[2 * k], sw));
        let hi = W::xor(select_xor(PSI61[2 * k + 1], y), select_xor(PSI74[2 * k + 1], sw));
        W::pack16(lo, hi)
    }
}

/// The step function on `W::WIDTH` messages, one per lane: `h[k]` and `m[k]` hold 32-bit
/// word k of every message.
#[inline(always)]
unsafe fn step<W: Words>(s: &W::SBoxes, h: [W; 8], m: [W; 8]) -> [W; 8] {
    // SAFETY: the caller has the kernel's features (the trait's contract); the whole body.
    unsafe {
        // Key generation.
        let mut c3 = [W::splat(0); 8];
        for (k, c) in c3.iter_mut().enumerate() {
            *c = W::splat((portable::C3[k / 2] >> (32 * (k % 2))) as u32);
        }
        let (mut u, mut v) = (h, m);
        let mut keys = [[W::splat(0); 8]; 4];
        for (j, key) in keys.iter_mut().enumerate() {
            if j > 0 {
                u = a_map(u);
                if j == 2 {
                    for (uk, ck) in u.iter_mut().zip(c3) {
                        *uk = W::xor(*uk, ck);
                    }
                }
                v = a_map(a_map(v));
            }
            let mut w = u;
            for (wk, vk) in w.iter_mut().zip(v) {
                *wk = W::xor(*wk, vk);
            }
            *key = W::p(&w);
        }

        // The part of the mixing that does not wait for the encryption: H ⊕ ψ(M) (ψ^61 of
        // it is applied with ψ^74(S) at the end).
        let hw = to_words(&h);
        let mw = to_words(&m);
        let mut y = hw;
        for i in 0..15 {
            y[i] = W::xor(hw[i], mw[i + 1]);
        }
        let mut top = W::splat(0);
        for i in [0, 1, 2, 3, 12, 15] {
            top = W::xor(top, mw[i]);
        }
        y[15] = W::xor(y[15], top);

        // The four encryptions, round by round: N1 of encryption j is H's word 2j, N2 word
        // 2j + 1. Two rounds per iteration, each XORing into the other half, so the halves
        // never move between registers (a round's swap is a renaming); after an even number
        // of rounds the names are right again.
        let mut n1 = [h[0], h[2], h[4], h[6]];
        let mut n2 = [h[1], h[3], h[5], h[7]];
        for pair in 0..16 {
            let key = |round: usize| if round < 24 { round % 8 } else { 7 - round % 8 };
            let (even, odd) = (key(2 * pair), key(2 * pair + 1));
            for j in 0..4 {
                n2[j] = W::xor(n2[j], W::f(s, W::add(n1[j], keys[j][even])));
            }
            for j in 0..4 {
                n1[j] = W::xor(n1[j], W::f(s, W::add(n2[j], keys[j][odd])));
            }
        }
        // The last round does not swap: S_j = N2 | N1 << 32 (the names of a swapping round).
        let sv = [n2[0], n1[0], n2[1], n1[1], n2[2], n1[2], n2[3], n1[3]];
        let sw = to_words(&sv);

        // Spelled out, not a loop over k: each call's rows must be constants for
        // `select_xor` to unroll into its XORs, and a loop this long is not unrolled.
        [
            out_word(0, &y, &sw),
            out_word(1, &y, &sw),
            out_word(2, &y, &sw),
            out_word(3, &y, &sw),
            out_word(4, &y, &sw),
            out_word(5, &y, &sw),
            out_word(6, &y, &sw),
            out_word(7, &y, &sw),
        ]
    }
}

/// The step function f(H, M) for [`LANES`] independent messages, one per 32-bit lane, in
/// groups of `W::WIDTH`.
///
/// # Safety
///
/// Only from code compiled with `W`'s kernel's target features (see [`Words`]).
#[inline(always)]
pub(crate) unsafe fn step_lanes<W: Words>(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    const { assert!(LANES.is_multiple_of(W::WIDTH)) };
    // SAFETY: the caller has the kernel's features (the trait's contract); the whole body.
    unsafe {
        let s = W::sboxes(t);
        for group in 0..LANES / W::WIDTH {
            let mut h = [W::splat(0); 8];
            let mut m = h;
            for k in 0..8 {
                h[k] = W::load(&hs[k], group);
                m[k] = W::load(&ms[k], group);
            }
            let out = step(&s, h, m);
            for (row, word) in hs.iter_mut().zip(out) {
                W::store(row, group, word);
            }
        }
    }
}
