//! HighwayHash with NEON: each 256-bit state variable is a pair of 128-bit vectors (words
//! 0-1 and 2-3); the multiplications are `umull` of the narrowed halves, the zipper merge a
//! `tbl` per half.

use core::arch::aarch64::*;

use super::portable::ZIPPER;
use super::{key_words, remainder_packet, State, INIT0, INIT1, KEY_LEN, PACKET_LEN};

#[derive(Clone, Copy)]
struct V2 {
    lo: uint64x2_t,
    hi: uint64x2_t,
}

struct Regs {
    v0: V2,
    v1: V2,
    mul0: V2,
    mul1: V2,
}

#[inline]
#[target_feature(enable = "neon")]
fn load_bytes(bytes: &[u8]) -> V2 {
    assert!(bytes.len() >= 32);
    // SAFETY: 32 readable bytes (checked above); NEON loads have no alignment requirement.
    unsafe {
        V2 {
            lo: vreinterpretq_u64_u8(vld1q_u8(bytes.as_ptr())),
            hi: vreinterpretq_u64_u8(vld1q_u8(bytes.as_ptr().add(16))),
        }
    }
}

#[inline]
#[target_feature(enable = "neon")]
fn load_words(w: &[u64; 4]) -> V2 {
    // SAFETY: `w` is four readable u64.
    unsafe { V2 { lo: vld1q_u64(w.as_ptr()), hi: vld1q_u64(w.as_ptr().add(2)) } }
}

#[inline]
#[target_feature(enable = "neon")]
fn store_words(w: &mut [u64; 4], v: V2) {
    // SAFETY: `w` is four writable u64.
    unsafe {
        vst1q_u64(w.as_mut_ptr(), v.lo);
        vst1q_u64(w.as_mut_ptr().add(2), v.hi);
    }
}

#[inline]
#[target_feature(enable = "neon")]
fn load(s: &State) -> Regs {
    Regs { v0: load_words(&s.v0), v1: load_words(&s.v1), mul0: load_words(&s.mul0), mul1: load_words(&s.mul1) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store(r: &Regs, s: &mut State) {
    store_words(&mut s.v0, r.v0);
    store_words(&mut s.v1, r.v1);
    store_words(&mut s.mul0, r.mul0);
    store_words(&mut s.mul1, r.mul1);
}

#[inline]
#[target_feature(enable = "neon")]
fn add(a: V2, b: V2) -> V2 {
    V2 { lo: vaddq_u64(a.lo, b.lo), hi: vaddq_u64(a.hi, b.hi) }
}

#[inline]
#[target_feature(enable = "neon")]
fn xor(a: V2, b: V2) -> V2 {
    V2 { lo: veorq_u64(a.lo, b.lo), hi: veorq_u64(a.hi, b.hi) }
}

/// Swaps the 32-bit halves of each word (rotation by 32).
#[inline]
#[target_feature(enable = "neon")]
fn rot32(a: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(a)))
}

/// Low 32 bits of each word of `a` times the high 32 bits of each word of `b`.
#[inline]
#[target_feature(enable = "neon")]
fn mul_lo_hi(a: V2, b: V2) -> V2 {
    let m = |a: uint64x2_t, b: uint64x2_t| vmull_u32(vmovn_u64(a), vshrn_n_u64::<32>(b));
    V2 { lo: m(a.lo, b.lo), hi: m(a.hi, b.hi) }
}

#[inline]
#[target_feature(enable = "neon")]
fn zipper(a: V2) -> V2 {
    // SAFETY: ZIPPER is 16 readable bytes.
    let idx = unsafe { vld1q_u8(ZIPPER.as_ptr()) };
    let z = |v: uint64x2_t| vreinterpretq_u64_u8(vqtbl1q_u8(vreinterpretq_u8_u64(v), idx));
    V2 { lo: z(a.lo), hi: z(a.hi) }
}

#[inline]
#[target_feature(enable = "neon")]
fn init(key: &[u8; KEY_LEN]) -> Regs {
    let k = load_words(&key_words(key));
    let mul0 = load_words(&INIT0);
    let mul1 = load_words(&INIT1);
    Regs { v0: xor(mul0, k), v1: xor(mul1, V2 { lo: rot32(k.lo), hi: rot32(k.hi) }), mul0, mul1 }
}

#[inline]
#[target_feature(enable = "neon")]
fn update(r: &mut Regs, packet: V2) {
    r.v1 = add(add(r.v1, packet), r.mul0);
    r.mul0 = xor(r.mul0, mul_lo_hi(r.v1, r.v0));
    r.v0 = add(r.v0, r.mul1);
    r.mul1 = xor(r.mul1, mul_lo_hi(r.v0, r.v1));
    r.v0 = add(r.v0, zipper(r.v1));
    r.v1 = add(r.v1, zipper(r.v0));
}

#[inline]
#[target_feature(enable = "neon")]
fn update_all(r: &mut Regs, packets: &[u8]) {
    for packet in packets.chunks_exact(PACKET_LEN) {
        update(r, load_bytes(packet));
    }
}

#[inline]
#[target_feature(enable = "neon")]
fn finish_regs(r: &mut Regs, remainder: &[u8], rounds: usize) {
    let n = remainder.len();
    if n != 0 {
        let size = vreinterpretq_u64_u32(vdupq_n_u32(n as u32));
        r.v0 = add(r.v0, V2 { lo: size, hi: size });
        // Shifts by a negative count shift right.
        let left = vdupq_n_s32(n as i32);
        let right = vdupq_n_s32(n as i32 - 32);
        let rot = |v: uint64x2_t| {
            let w = vreinterpretq_u32_u64(v);
            vreinterpretq_u64_u32(vorrq_u32(vshlq_u32(w, left), vshlq_u32(w, right)))
        };
        r.v1 = V2 { lo: rot(r.v1.lo), hi: rot(r.v1.hi) };
        update(r, load_bytes(&remainder_packet(remainder)));
    }
    for _ in 0..rounds {
        // Words (2, 3, 0, 1), each rotated by 32.
        let p = V2 { lo: rot32(r.v0.hi), hi: rot32(r.v0.lo) };
        update(r, p);
    }
}

/// Hashes whole 32-byte packets.
#[target_feature(enable = "neon")]
pub(crate) fn update_packets(s: &mut State, packets: &[u8]) {
    let mut r = load(s);
    update_all(&mut r, packets);
    store(&r, s);
}

/// The remainder and the finalization rounds (see `Platform::finish`).
#[target_feature(enable = "neon")]
pub(crate) fn finish(s: &mut State, remainder: &[u8], rounds: usize) {
    let mut r = load(s);
    finish_regs(&mut r, remainder, rounds);
    store(&r, s);
}

/// A whole message, kept in registers from the key to the finished state.
#[target_feature(enable = "neon")]
pub(crate) fn hash(key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
    let mut r = init(key);
    let whole = data.len() - data.len() % PACKET_LEN;
    update_all(&mut r, &data[..whole]);
    finish_regs(&mut r, &data[whole..], rounds);
    let mut s = State { v0: [0; 4], v1: [0; 4], mul0: [0; 4], mul1: [0; 4] };
    store(&r, &mut s);
    s
}
