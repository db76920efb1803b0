//! What the AVX2 and NEON batch kernels (`batch_avx2`, `batch_neon`) share
//! of their compression: the round, the message schedule and the two compressions of a
//! one-block message, written once over [`Lanes`], a register holding one 32-bit word of
//! each block. Each kernel implements `Lanes` for its vector type with `#[inline(always)]`
//! methods, so all of this is inlined into the kernel's `#[target_feature]` function and
//! compiles to the instructions the kernel had with the intrinsics written in place.
//!
//! ## What this file holds
//!
//! the AVX2 and NEON batch kernels' round, message schedule and two compressions, written once
//! over a per-ISA `Lanes` trait (`#[inline(always)]` impls in each kernel file); AVX-512 keeps
//! its own rounds, which ran faster

use super::{IV, K};

/// A register of 32-bit lanes, one block per lane, with the operations SHA-256 needs.
///
/// # Safety
///
/// The methods use the kernel's SIMD instructions without declaring them: they may only be
/// called from code compiled with the kernel's target features (into which they are
/// inlined), which runs only once its `Platform` was checked.
pub(crate) unsafe trait Lanes: Copy {
    /// `x` in every lane.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn splat(x: u32) -> Self;
    /// Lane-wise wrapping addition.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// Lane-wise `a ^ b ^ c`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self;
    /// Each lane rotated right by `R` bits (`L` = 32 - `R`, for kernels that shift twice).
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn ror<const R: i32, const L: i32>(x: Self) -> Self;
    /// Each lane shifted right by `N` bits.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn shr<const N: i32>(x: Self) -> Self;
    /// Ch: `(e & f) ^ (!e & g)`, bit by bit `e ? f : g`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn ch(e: Self, f: Self, g: Self) -> Self;
    /// Maj: the majority of `a`, `b`, `c`, bit by bit.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn maj(a: Self, b: Self, c: Self) -> Self;
}

/// `ror::<R, 32 - R>`, checked at compile time.
#[inline(always)]
unsafe fn ror<V: Lanes, const R: i32, const L: i32>(x: V) -> V {
    const { assert!(R + L == 32) };
    // SAFETY: the caller has the kernel's features (the trait's contract).
    unsafe { V::ror::<R, L>(x) }
}

/// One round; `wk` is W(t) + K(t) for every lane. `s` is A..H.
///
/// # Safety
///
/// Only from code compiled with `V`'s kernel's target features (see [`Lanes`]).
#[inline(always)]
unsafe fn round<V: Lanes>(s: &mut [V; 8], wk: V) {
    // SAFETY: the caller has the kernel's features (the trait's contract), for the whole body.
    unsafe {
        let [a, b, c, d, e, f, g, h] = *s;
        let big_s1 = V::xor3(ror::<V, 6, 26>(e), ror::<V, 11, 21>(e), ror::<V, 25, 7>(e));
        let ch = V::ch(e, f, g);
        let t1 = V::add(V::add(h, big_s1), V::add(ch, wk));
        let big_s0 = V::xor3(ror::<V, 2, 30>(a), ror::<V, 13, 19>(a), ror::<V, 22, 10>(a));
        let maj = V::maj(a, b, c);
        *s = [V::add(t1, V::add(big_s0, maj)), a, b, c, V::add(d, t1), e, f, g];
    }
}

/// W(t) = σ1(W(t-2)) + W(t-7) + σ0(W(t-15)) + W(t-16), in place of W(t-16) at `w[i]`, `i` =
/// t mod 16 (the 16-word ring).
///
/// # Safety
///
/// As [`round`].
#[inline(always)]
unsafe fn schedule<V: Lanes>(w: &mut [V; 16], i: usize) {
    // SAFETY: as in `round`, for the whole body.
    unsafe {
        let w15 = w[(i + 1) % 16];
        let w2 = w[(i + 14) % 16];
        let s1 = V::xor3(ror::<V, 17, 15>(w2), ror::<V, 19, 13>(w2), V::shr::<10>(w2));
        let s0 = V::xor3(ror::<V, 7, 25>(w15), ror::<V, 18, 14>(w15), V::shr::<3>(w15));
        w[i] = V::add(V::add(w[i], s0), V::add(w[(i + 9) % 16], s1));
    }
}

/// Sixteen rounds, written out: the ring indices are constants, and after 16 rounds the
/// eight working variables are back in the registers they started in, so a loop over
/// these groups needs no moves. (A loop over single rounds left the compiler computing
/// ring indices and shuffling the eight variables between registers every round: ~20
/// scalar instructions and ~8 register moves a round, on the ports the vector work
/// needs.) With `SCHEDULE`, each round first extends the schedule (`schedule`).
///
/// # Safety
///
/// As [`round`].
#[inline(always)]
unsafe fn rounds16<V: Lanes, const SCHEDULE: bool>(s: &mut [V; 8], w: &mut [V; 16], k: &[u32]) {
    let k: &[u32; 16] = k.try_into().expect("16 round constants");
    // SAFETY: as in `round`.
    unroll16!(|i| unsafe { step::<V, SCHEDULE>(s, w, i, k[i]) });
}

/// Round `i` of a group of 16 (`i` a constant once inlined, so every index into the
/// 16-word ring is too): with `SCHEDULE`, first the schedule (`schedule`); then the round
/// with W(t) + `k`.
///
/// # Safety
///
/// As [`round`].
#[inline(always)]
unsafe fn step<V: Lanes, const SCHEDULE: bool>(s: &mut [V; 8], w: &mut [V; 16], i: usize, k: u32) {
    // SAFETY: as in `round`, for the whole body.
    unsafe {
        if SCHEDULE {
            schedule(w, i);
        }
        round(s, V::add(w[i], V::splat(k)));
    }
}

/// Sixteen rounds of the padding block, written out: `wk` holds W(t) + K(t), constants.
///
/// # Safety
///
/// As [`round`].
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn padding_rounds16<V: Lanes>(s: &mut [V; 8], wk: &[u32]) {
    let wk: &[u32; 16] = wk.try_into().expect("16 round constants");
    // SAFETY: as in `round`.
    unroll16!(|i| unsafe { round(s, V::splat(wk[i])) });
}

/// The digest words of one-block messages (word `j` of every digest in register `j`) whose
/// message words are `w` (word `t` of every block in `w[t]`; the schedule is extended in
/// place): the 64 rounds of the message from the IV, the sum with the IV, the 64 rounds of
/// the padding block (`padding_rounds`, over `PADDING_WK`) and the sum of both states.
/// With `UNROLLED` the message rounds are written out a group of 16 at a time
/// (`rounds16`), else one round per turn of a loop.
///
/// # Safety
///
/// As [`round`].
#[inline(always)]
pub(crate) unsafe fn digest_words<V: Lanes, const UNROLLED: bool>(
    w: &mut [V; 16],
    padding_rounds: impl FnOnce(&mut [V; 8]),
) -> [V; 8] {
    // SAFETY: as in `round`, for the whole body.
    unsafe {
        // A loop, not `map`: a closure here has no target features, so neither it nor the
        // intrinsics in it would be inlined.
        let mut iv = [V::splat(0); 8];
        for (x, &v) in iv.iter_mut().zip(&IV) {
            *x = V::splat(v);
        }
        let mut s = iv;
        if UNROLLED {
            rounds16::<V, false>(&mut s, w, &K[..16]);
            for k in K[16..].chunks_exact(16) {
                rounds16::<V, true>(&mut s, w, k);
            }
        } else {
            for t in 0..64 {
                if t >= 16 {
                    schedule(w, t % 16);
                }
                round(&mut s, V::add(w[t % 16], V::splat(K[t])));
            }
        }
        for (x, v) in s.iter_mut().zip(iv) {
            *x = V::add(*x, v);
        }
        let mid = s;
        padding_rounds(&mut s);
        for (x, m) in s.iter_mut().zip(mid) {
            *x = V::add(*x, m);
        }
        s
    }
}

/// The 64 padding rounds, one per turn of a loop (`PADDING_WK`).
///
/// # Safety
///
/// As [`round`].
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn padding_rounds_loop<V: Lanes>(s: &mut [V; 8]) {
    for &wk in &super::batch_shared::PADDING_WK {
        // SAFETY: as in `round`.
        unsafe { round(s, V::splat(wk)) };
    }
}
