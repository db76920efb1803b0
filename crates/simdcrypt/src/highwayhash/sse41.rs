//! HighwayHash with SSE4.1: each 256-bit state variable is a pair of 128-bit vectors
//! (words 0-1 and 2-3). The zipper merge works within 128-bit pairs, so it is one `pshufb`
//! per half.

use core::arch::x86_64::*;

use super::portable::ZIPPER;
use super::{remainder_packet, State, INIT0, INIT1, KEY_LEN, PACKET_LEN};

#[derive(Clone, Copy)]
struct V2 {
    lo: __m128i,
    hi: __m128i,
}

struct Regs {
    v0: V2,
    v1: V2,
    mul0: V2,
    mul1: V2,
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn load_bytes(bytes: &[u8]) -> V2 {
    assert!(bytes.len() >= 32);
    // SAFETY: 32 readable bytes (checked above); the loads are unaligned.
    unsafe { V2 { lo: _mm_loadu_si128(bytes.as_ptr().cast()), hi: _mm_loadu_si128(bytes.as_ptr().add(16).cast()) } }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn load_words(w: &[u64; 4]) -> V2 {
    // SAFETY: `w` is 32 readable bytes; the loads are unaligned.
    unsafe { V2 { lo: _mm_loadu_si128(w.as_ptr().cast()), hi: _mm_loadu_si128(w.as_ptr().add(2).cast()) } }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn store_words(w: &mut [u64; 4], v: V2) {
    // SAFETY: `w` is 32 writable bytes; the stores are unaligned.
    unsafe {
        _mm_storeu_si128(w.as_mut_ptr().cast(), v.lo);
        _mm_storeu_si128(w.as_mut_ptr().add(2).cast(), v.hi);
    }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn load(s: &State) -> Regs {
    Regs { v0: load_words(&s.v0), v1: load_words(&s.v1), mul0: load_words(&s.mul0), mul1: load_words(&s.mul1) }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn store(r: &Regs, s: &mut State) {
    store_words(&mut s.v0, r.v0);
    store_words(&mut s.v1, r.v1);
    store_words(&mut s.mul0, r.mul0);
    store_words(&mut s.mul1, r.mul1);
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn add(a: V2, b: V2) -> V2 {
    V2 { lo: _mm_add_epi64(a.lo, b.lo), hi: _mm_add_epi64(a.hi, b.hi) }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn xor(a: V2, b: V2) -> V2 {
    V2 { lo: _mm_xor_si128(a.lo, b.lo), hi: _mm_xor_si128(a.hi, b.hi) }
}

/// Low 32 bits of each word of `a` times the high 32 bits of each word of `b`.
#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn mul_lo_hi(a: V2, b: V2) -> V2 {
    V2 { lo: _mm_mul_epu32(a.lo, _mm_srli_epi64(b.lo, 32)), hi: _mm_mul_epu32(a.hi, _mm_srli_epi64(b.hi, 32)) }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn zipper(a: V2) -> V2 {
    let z = ZIPPER.map(|b| b as i8);
    let mask = _mm_setr_epi8(
        z[0], z[1], z[2], z[3], z[4], z[5], z[6], z[7], z[8], z[9], z[10], z[11], z[12], z[13], z[14], z[15],
    );
    V2 { lo: _mm_shuffle_epi8(a.lo, mask), hi: _mm_shuffle_epi8(a.hi, mask) }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn init(key: &[u8; KEY_LEN]) -> Regs {
    let k = load_bytes(key);
    let mul0 = load_words(&INIT0);
    let mul1 = load_words(&INIT1);
    let k_rot = V2 { lo: _mm_shuffle_epi32(k.lo, 0xb1), hi: _mm_shuffle_epi32(k.hi, 0xb1) };
    Regs { v0: xor(mul0, k), v1: xor(mul1, k_rot), mul0, mul1 }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn update(r: &mut Regs, packet: V2) {
    r.v1 = add(add(r.v1, packet), r.mul0);
    r.mul0 = xor(r.mul0, mul_lo_hi(r.v1, r.v0));
    r.v0 = add(r.v0, r.mul1);
    r.mul1 = xor(r.mul1, mul_lo_hi(r.v0, r.v1));
    r.v0 = add(r.v0, zipper(r.v1));
    r.v1 = add(r.v1, zipper(r.v0));
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn update_all(r: &mut Regs, packets: &[u8]) {
    for packet in packets.chunks_exact(PACKET_LEN) {
        update(r, load_bytes(packet));
    }
}

#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn finish_regs(r: &mut Regs, remainder: &[u8], rounds: usize) {
    let n = remainder.len();
    if n != 0 {
        let size = _mm_set1_epi32(n as i32);
        r.v0 = add(r.v0, V2 { lo: size, hi: size });
        let left = _mm_cvtsi32_si128(n as i32);
        let right = _mm_cvtsi32_si128(32 - n as i32);
        let rot = |v: __m128i| _mm_or_si128(_mm_sll_epi32(v, left), _mm_srl_epi32(v, right));
        r.v1 = V2 { lo: rot(r.v1.lo), hi: rot(r.v1.hi) };
        update(r, load_bytes(&remainder_packet(remainder)));
    }
    for _ in 0..rounds {
        // Words (2, 3, 0, 1), each rotated by 32: swap the halves and their 32-bit lanes.
        let p = V2 { lo: _mm_shuffle_epi32(r.v0.hi, 0xb1), hi: _mm_shuffle_epi32(r.v0.lo, 0xb1) };
        update(r, p);
    }
}

/// Hashes whole 32-byte packets.
#[target_feature(enable = "ssse3,sse4.1")]
pub(crate) fn update_packets(s: &mut State, packets: &[u8]) {
    let mut r = load(s);
    update_all(&mut r, packets);
    store(&r, s);
}

/// The remainder and the finalization rounds (see `Platform::finish`).
#[target_feature(enable = "ssse3,sse4.1")]
pub(crate) fn finish(s: &mut State, remainder: &[u8], rounds: usize) {
    let mut r = load(s);
    finish_regs(&mut r, remainder, rounds);
    store(&r, s);
}

/// A whole message, kept in registers from the key to the finished state.
#[target_feature(enable = "ssse3,sse4.1")]
pub(crate) fn hash(key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
    let mut r = init(key);
    let whole = data.len() - data.len() % PACKET_LEN;
    update_all(&mut r, &data[..whole]);
    finish_regs(&mut r, &data[whole..], rounds);
    let mut s = State { v0: [0; 4], v1: [0; 4], mul0: [0; 4], mul1: [0; 4] };
    store(&r, &mut s);
    s
}
