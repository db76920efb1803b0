//! HighwayHash with SSE4.1: each 256-bit state variable is a pair of 128-bit vectors
//! (words 0-1 and 2-3). The zipper merge works within 128-bit pairs, so it is one `pshufb`
//! per half.
//!
//! ## What this file holds
//!
//! the state as pairs of 128-bit vectors (`pshufb` / `tbl` for the zipper merge, `umull` on
//! NEON)

use core::arch::x86_64::*;

use super::portable::ZIPPER;
use super::regs::{self, Halves, Regs, Vector};
use super::{State, KEY_LEN};

#[derive(Clone, Copy)]
struct V2 {
    lo: __m128i,
    hi: __m128i,
}

impl V2 {
    /// `f` on each half.
    #[inline(always)]
    fn map(self, f: impl Fn(__m128i) -> __m128i) -> V2 {
        V2 { lo: f(self.lo), hi: f(self.hi) }
    }

    /// `f` on each pair of halves.
    #[inline(always)]
    fn zip(self, b: V2, f: impl Fn(__m128i, __m128i) -> __m128i) -> V2 {
        V2 { lo: f(self.lo, b.lo), hi: f(self.hi, b.hi) }
    }
}

// SAFETY: used only by the `#[target_feature(enable = "ssse3,sse4.1")]` functions below.
unsafe impl Vector for V2 {
    #[inline(always)]
    unsafe fn load(p: *const u8) -> V2 {
        // SAFETY: `p` is valid for 32 bytes (the trait's contract); unaligned loads.
        unsafe { V2 { lo: _mm_loadu_si128(p.cast()), hi: _mm_loadu_si128(p.add(16).cast()) } }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: `p` is valid for 32 bytes (the trait's contract); unaligned stores.
        unsafe {
            _mm_storeu_si128(p.cast(), self.lo);
            _mm_storeu_si128(p.add(16).cast(), self.hi);
        }
    }

    #[inline(always)]
    unsafe fn add(a: V2, b: V2) -> V2 {
        // SAFETY: the caller has SSE4.1 (the trait's contract); likewise below.
        a.zip(b, |a, b| unsafe { _mm_add_epi64(a, b) })
    }

    #[inline(always)]
    unsafe fn xor(a: V2, b: V2) -> V2 {
        // SAFETY: as in `add`.
        a.zip(b, |a, b| unsafe { _mm_xor_si128(a, b) })
    }

    #[inline(always)]
    unsafe fn mul_lo_hi(a: V2, b: V2) -> V2 {
        // SAFETY: as in `add`.
        a.zip(b, |a, b| unsafe { _mm_mul_epu32(a, _mm_srli_epi64(b, 32)) })
    }

    #[inline(always)]
    unsafe fn zipper(a: V2) -> V2 {
        let z = ZIPPER.map(|b| b as i8);
        // SAFETY: as in `add`.
        let mask = unsafe {
            _mm_setr_epi8(
                z[0], z[1], z[2], z[3], z[4], z[5], z[6], z[7], z[8], z[9], z[10], z[11], z[12], z[13], z[14], z[15],
            )
        };
        // SAFETY: as in `add`.
        a.map(|v| unsafe { _mm_shuffle_epi8(v, mask) })
    }

    #[inline(always)]
    unsafe fn rot32(a: V2) -> V2 {
        // SAFETY: as in `add`.
        a.map(|v| unsafe { _mm_shuffle_epi32(v, 0xb1) })
    }
}

// SAFETY: as for `Vector`.
unsafe impl Halves for V2 {
    #[inline(always)]
    unsafe fn splat32(n: u32) -> V2 {
        // SAFETY: as in `Vector::add`.
        let v = unsafe { _mm_set1_epi32(n as i32) };
        V2 { lo: v, hi: v }
    }

    #[inline(always)]
    unsafe fn rotl32_lanes(v: V2, n: u32) -> V2 {
        // SAFETY: as in `Vector::add`.
        let (left, right) = unsafe { (_mm_cvtsi32_si128(n as i32), _mm_cvtsi32_si128(32 - n as i32)) };
        // SAFETY: as in `Vector::add`.
        v.map(|v| unsafe { _mm_or_si128(_mm_sll_epi32(v, left), _mm_srl_epi32(v, right)) })
    }

    #[inline(always)]
    unsafe fn swap_halves(v: V2) -> V2 {
        V2 { lo: v.hi, hi: v.lo }
    }
}

/// Hashes whole 32-byte packets.
#[target_feature(enable = "ssse3,sse4.1")]
pub(crate) fn update_packets(s: &mut State, packets: &[u8]) {
    // SAFETY: this function has the kernel's features.
    unsafe { regs::update_packets(s, packets, |r: &mut Regs<V2>, p| r.update_each(p)) }
}

/// The remainder and the finalization rounds (see `Platform::finish`).
#[target_feature(enable = "ssse3,sse4.1")]
pub(crate) fn finish(s: &mut State, remainder: &[u8], rounds: usize) {
    // SAFETY: this function has the kernel's features.
    unsafe { regs::finish(s, remainder, rounds, |r, rem, n| regs::finish_regs_halves::<V2>(r, rem, n)) }
}

/// A whole message, kept in registers from the key to the finished state.
#[target_feature(enable = "ssse3,sse4.1")]
pub(crate) fn hash(key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
    // SAFETY: this function has the kernel's features.
    unsafe {
        regs::absorb(
            key,
            data,
            rounds,
            |r: &mut Regs<V2>, p| r.update_each(p),
            |r, rem, n| regs::finish_regs_halves(r, rem, n),
        )
        .written()
    }
}
