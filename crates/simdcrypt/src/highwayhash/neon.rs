//! HighwayHash with NEON: each 256-bit state variable is a pair of 128-bit vectors (words
//! 0-1 and 2-3); the multiplications are `umull` of the narrowed halves, the zipper merge a
//! `tbl` per half.
//!
//! ## What this file holds
//!
//! the state as pairs of 128-bit vectors (`pshufb` / `tbl` for the zipper merge, `umull` on
//! NEON)

use core::arch::aarch64::*;

use super::portable::ZIPPER;
use super::regs::{self, Halves, Regs, Vector};
use super::{State, KEY_LEN};

#[derive(Clone, Copy)]
struct V2 {
    lo: uint64x2_t,
    hi: uint64x2_t,
}

impl V2 {
    /// `f` on each half.
    #[inline(always)]
    fn map(self, f: impl Fn(uint64x2_t) -> uint64x2_t) -> V2 {
        V2 { lo: f(self.lo), hi: f(self.hi) }
    }

    /// `f` on each pair of halves.
    #[inline(always)]
    fn zip(self, b: V2, f: impl Fn(uint64x2_t, uint64x2_t) -> uint64x2_t) -> V2 {
        V2 { lo: f(self.lo, b.lo), hi: f(self.hi, b.hi) }
    }
}

// SAFETY: used only by the `#[target_feature(enable = "neon")]` functions below.
unsafe impl Vector for V2 {
    #[inline(always)]
    unsafe fn load(p: *const u8) -> V2 {
        // SAFETY: `p` is valid for 32 bytes (the trait's contract); NEON loads have no
        // alignment requirement.
        unsafe { V2 { lo: vreinterpretq_u64_u8(vld1q_u8(p)), hi: vreinterpretq_u64_u8(vld1q_u8(p.add(16))) } }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: `p` is valid for 32 bytes (the trait's contract); NEON stores have no
        // alignment requirement.
        unsafe {
            vst1q_u8(p, vreinterpretq_u8_u64(self.lo));
            vst1q_u8(p.add(16), vreinterpretq_u8_u64(self.hi));
        }
    }

    #[inline(always)]
    unsafe fn add(a: V2, b: V2) -> V2 {
        // SAFETY: the caller has NEON (the trait's contract); likewise below.
        a.zip(b, |a, b| unsafe { vaddq_u64(a, b) })
    }

    #[inline(always)]
    unsafe fn xor(a: V2, b: V2) -> V2 {
        // SAFETY: as in `add`.
        a.zip(b, |a, b| unsafe { veorq_u64(a, b) })
    }

    #[inline(always)]
    unsafe fn mul_lo_hi(a: V2, b: V2) -> V2 {
        // SAFETY: as in `add`.
        a.zip(b, |a, b| unsafe { vmull_u32(vmovn_u64(a), vshrn_n_u64::<32>(b)) })
    }

    #[inline(always)]
    unsafe fn zipper(a: V2) -> V2 {
        // SAFETY: ZIPPER is 16 readable bytes; as in `add`.
        let idx = unsafe { vld1q_u8(ZIPPER.as_ptr()) };
        // SAFETY: as in `add`.
        a.map(|v| unsafe { vreinterpretq_u64_u8(vqtbl1q_u8(vreinterpretq_u8_u64(v), idx)) })
    }

    #[inline(always)]
    unsafe fn rot32(a: V2) -> V2 {
        // SAFETY: as in `add`.
        a.map(|v| unsafe { vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(v))) })
    }
}

// SAFETY: as for `Vector`.
unsafe impl Halves for V2 {
    #[inline(always)]
    unsafe fn splat32(n: u32) -> V2 {
        // SAFETY: as in `Vector::add`.
        let v = unsafe { vreinterpretq_u64_u32(vdupq_n_u32(n)) };
        V2 { lo: v, hi: v }
    }

    #[inline(always)]
    unsafe fn rotl32_lanes(v: V2, n: u32) -> V2 {
        // Shifts by a negative count shift right.
        // SAFETY: as in `Vector::add`.
        let (left, right) = unsafe { (vdupq_n_s32(n as i32), vdupq_n_s32(n as i32 - 32)) };
        v.map(|v| {
            // SAFETY: as in `Vector::add`.
            unsafe {
                let w = vreinterpretq_u32_u64(v);
                vreinterpretq_u64_u32(vorrq_u32(vshlq_u32(w, left), vshlq_u32(w, right)))
            }
        })
    }

    #[inline(always)]
    unsafe fn swap_halves(v: V2) -> V2 {
        V2 { lo: v.hi, hi: v.lo }
    }
}

/// Hashes whole 32-byte packets.
#[target_feature(enable = "neon")]
pub(crate) fn update_packets(s: &mut State, packets: &[u8]) {
    // SAFETY: this function has the kernel's features.
    unsafe { regs::update_packets(s, packets, |r: &mut Regs<V2>, p| r.update_each(p)) }
}

/// The remainder and the finalization rounds (see `Platform::finish`).
#[target_feature(enable = "neon")]
pub(crate) fn finish(s: &mut State, remainder: &[u8], rounds: usize) {
    // SAFETY: this function has the kernel's features.
    unsafe { regs::finish(s, remainder, rounds, |r, rem, n| regs::finish_regs_halves::<V2>(r, rem, n)) }
}

/// A whole message, kept in registers from the key to the finished state.
#[target_feature(enable = "neon")]
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
