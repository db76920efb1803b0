//! HighwayHash with AVX2: each of the four state variables is one 256-bit vector, so a
//! round is two `vpmuludq`, two `vpshufb` and a handful of adds and xors.
//!
//! ## What this file holds
//!
//! one 256-bit register per state variable; each packet is added to v1 at the end of the round
//! before, so mul0's loop-carried chain is 7 cycles, not 8; the remainder by one masked load
//! and per-lane shifts; the key loaded as bytes (a vector load after scalar stores cannot be
//! store-forwarded: a stall per one-shot hash); `opaque` constants (volatile loads) keep the
//! compiler from rewriting the finalization's one `vpermd` as two shuffles and the 64-bit
//! result's last round as scalar multiplies

use core::arch::x86_64::*;

use super::regs::{self, Vector};
use super::{remainder_tail, State, KEY_LEN, PACKET_LEN};
use crate::highwayhash::portable::ZIPPER;

/// The state variables, one register each.
pub(super) type Regs = regs::Regs<__m256i>;

// SAFETY: used only by this file's `#[target_feature(enable = "avx2")]` functions and the
// AVX-512 kernel's (which include AVX2).
unsafe impl Vector for __m256i {
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: `p` is valid for 32 bytes (the trait's contract); the load is unaligned.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: `p` is valid for 32 bytes (the trait's contract); the store is unaligned.
        unsafe { _mm256_storeu_si256(p.cast(), self) }
    }

    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: the caller has AVX2 (the trait's contract); likewise below.
        unsafe { _mm256_add_epi64(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: as in `add`.
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn mul_lo_hi(a: Self, b: Self) -> Self {
        // SAFETY: as in `add`.
        unsafe { _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)) }
    }

    #[inline(always)]
    unsafe fn zipper(a: Self) -> Self {
        // SAFETY: as in `add`.
        unsafe { _mm256_shuffle_epi8(a, zipper_mask()) }
    }

    #[inline(always)]
    unsafe fn rot32(a: Self) -> Self {
        // SAFETY: as in `add`.
        unsafe { _mm256_shuffle_epi32(a, 0xb1) }
    }
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn store(r: &Regs, s: &mut State) {
    // SAFETY: this function has AVX2.
    unsafe { r.store(s) }
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn init(key: &[u8; KEY_LEN]) -> Regs {
    // SAFETY: this function has AVX2.
    unsafe { Regs::init(key) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn zipper_mask() -> __m256i {
    let z = ZIPPER.map(|b| b as i8);
    _mm256_setr_epi8(
        z[0], z[1], z[2], z[3], z[4], z[5], z[6], z[7], z[8], z[9], z[10], z[11], z[12], z[13], z[14], z[15], z[0],
        z[1], z[2], z[3], z[4], z[5], z[6], z[7], z[8], z[9], z[10], z[11], z[12], z[13], z[14], z[15],
    )
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn update(r: &mut Regs, packet: __m256i) {
    // SAFETY: this function has AVX2.
    unsafe { r.update(packet) }
}

/// The rounds of `update` over many packets, arranged for the shortest loop-carried chain.
/// mul0's chain (add it to v1, multiply, xor) bounds the speed; written plainly, the
/// compiler adds the packet after mul0, putting a second add on that chain (8 cycles a
/// packet instead of 7). Here each packet is added to v1 at the end of the round before,
/// off that chain, so a round starts with the one add of mul0.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn update_all(r: &mut Regs, packets: &[u8]) {
    let load = |packet: &[u8]| {
        assert!(packet.len() >= PACKET_LEN);
        // SAFETY: 32 readable bytes (checked above); the load is unaligned.
        unsafe { _mm256_loadu_si256(packet.as_ptr().cast()) }
    };
    let mut chunks = packets.chunks_exact(PACKET_LEN);
    let Some(first) = chunks.next() else { return };
    r.v1 = _mm256_add_epi64(r.v1, load(first));
    for next in chunks {
        // SAFETY: this function has AVX2.
        unsafe { r.round_packet_added() };
        r.v1 = _mm256_add_epi64(r.v1, load(next));
    }
    // SAFETY: this function has AVX2.
    unsafe { r.round_packet_added() };
}

#[inline]
#[target_feature(enable = "avx2")]
fn finish_regs(r: &mut Regs, remainder: &[u8], rounds: usize) {
    let n = remainder.len();
    if n != 0 {
        // The length in every 32-bit lane: added to v0, the rotation count of v1's lanes
        // (per-lane shifts: one uop each, where a shift by an xmm count is two), and the
        // bound of the remainder's masked load.
        let size = _mm256_set1_epi32(n as i32);
        r.v0 = _mm256_add_epi64(r.v0, size);
        // Both counts through an opaque constant: seeing 32 - size, the compiler makes the
        // two shifts a rotation by a uniform count, emitted as six shuffles and 64-bit
        // shifts; seeing a uniform count, it shifts by an xmm count (two uops, where a
        // per-lane shift is one).
        let (thirty_two, zero) = (opaque(&THIRTY_TWO), opaque(&ZERO));
        let (left, right) = (_mm256_add_epi32(size, zero), _mm256_sub_epi32(thirty_two, size));
        r.v1 = _mm256_or_si256(_mm256_sllv_epi32(r.v1, left), _mm256_srlv_epi32(r.v1, right));
        update(r, remainder_load(remainder, size));
    }
    finalize(r, rounds);
}

/// Eight 32-bit lanes in memory, aligned for a vector load.
#[repr(C, align(32))]
struct Lanes([u32; 8]);

/// The finalization permutation: words (2, 3, 0, 1), each rotated by 32, as 32-bit lanes.
static PERMUTE: Lanes = Lanes([5, 4, 7, 6, 1, 0, 3, 2]);
/// 32 in every lane.
static THIRTY_TWO: Lanes = Lanes([32; 8]);
/// 0 in every lane.
static ZERO: Lanes = Lanes([0; 8]);
/// `vpshufb` indices that leave every byte in place.
static IDENTITY_BYTES: Lanes =
    Lanes([0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0x0f0e_0d0c, 0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0x0f0e_0d0c]);

/// A constant vector that the compiler must treat as unknown (a volatile load). Known
/// constants let it rewrite the code around them for the worse: the permutation above
/// becomes two shuffles (`vpshufd` + `vpermq`) instead of one `vpermd`, and a final result
/// read from word 0 alone lets it narrow the last round to scalar multiplies fed by six
/// vector-to-integer moves.
#[inline]
#[target_feature(enable = "avx2")]
fn opaque(lanes: &'static Lanes) -> __m256i {
    // SAFETY: `lanes` is 32 readable bytes aligned to 32; a volatile read of plain data.
    unsafe { core::ptr::read_volatile((lanes as *const Lanes).cast::<__m256i>()) }
}

/// The finalization rounds: each updates with a permutation of v0.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn finalize(r: &mut Regs, rounds: usize) {
    let idx = opaque(&PERMUTE);
    for _ in 0..rounds {
        let p = _mm256_permutevar8x32_epi32(r.v0, idx);
        update(r, p);
    }
}

/// The 64-bit result of finished registers: word 0 of v0 + v1 + mul0 + mul1.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn result64(r: &Regs) -> u64 {
    let sum = _mm256_add_epi64(_mm256_add_epi64(r.v0, r.v1), _mm256_add_epi64(r.mul0, r.mul1));
    // Through an identity shuffle the compiler cannot see through: it keeps the last round
    // in vector registers (see `opaque`).
    let sum = _mm256_shuffle_epi8(sum, opaque(&IDENTITY_BYTES));
    _mm_cvtsi128_si64(_mm256_castsi256_si128(sum)) as u64
}

/// `remainder_packet` in a register: the whole 4-byte groups with one masked load (lanes
/// past the remainder are neither read nor faulted on), then the one special word.
#[inline]
#[target_feature(enable = "avx2")]
fn remainder_load(rem: &[u8], size: __m256i) -> __m256i {
    // Lane i holds a whole group when 4 * i + 4 <= rem.len(), that is rem.len() > 4 * i + 3
    // (`size` is rem.len() in every lane).
    let mask = _mm256_cmpgt_epi32(size, _mm256_setr_epi32(3, 7, 11, 15, 19, 23, 27, 31));
    // SAFETY: the mask enables only lanes i < rem.len() / 4, whose 4 bytes lie within
    // `rem`; masked-off lanes are not accessed (and cannot fault).
    let packet = unsafe { _mm256_maskload_epi32(rem.as_ptr().cast(), mask) };
    match remainder_tail(rem) {
        (7, w) => _mm256_insert_epi32::<7>(packet, w as i32),
        (4, w) => _mm256_insert_epi32::<4>(packet, w as i32),
        _ => packet,
    }
}

/// Hashes whole 32-byte packets.
#[target_feature(enable = "avx2")]
pub(crate) fn update_packets(s: &mut State, packets: &[u8]) {
    // SAFETY: this function has AVX2.
    unsafe { regs::update_packets(s, packets, |r, p| update_all(r, p)) }
}

/// The remainder and the finalization rounds (see `Platform::finish`).
#[target_feature(enable = "avx2")]
pub(crate) fn finish(s: &mut State, remainder: &[u8], rounds: usize) {
    // SAFETY: this function has AVX2.
    unsafe { regs::finish(s, remainder, rounds, |r, rem, n| finish_regs(r, rem, n)) }
}

/// A whole message, kept in registers from the key to the finished state.
#[target_feature(enable = "avx2")]
pub(crate) fn hash(key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
    // Not `regs::absorb`: through its closures the remainder's length took one more
    // instruction on this one-shot path.
    let mut r = init(key);
    let whole = data.len() - data.len() % PACKET_LEN;
    update_all(&mut r, &data[..whole]);
    finish_regs(&mut r, &data[whole..], rounds);
    // SAFETY: this function has AVX2.
    unsafe { r.written() }
}

/// The state for a key, written with vector stores (so that the kernels' vector loads of it
/// are forwarded from the stores instead of waiting for them to complete).
#[target_feature(enable = "avx2")]
pub(crate) fn new_state(key: &[u8; KEY_LEN]) -> State {
    // SAFETY: this function has AVX2.
    unsafe { Regs::init(key).written() }
}

/// A whole message's 64-bit result, computed in registers (no state written to memory):
/// the one-shot path for short inputs.
#[target_feature(enable = "avx2")]
pub(crate) fn hash64(key: &[u8; KEY_LEN], data: &[u8]) -> u64 {
    // As in `hash`.
    let mut r = init(key);
    let whole = data.len() - data.len() % PACKET_LEN;
    update_all(&mut r, &data[..whole]);
    finish_regs(&mut r, &data[whole..], 4);
    result64(&r)
}
