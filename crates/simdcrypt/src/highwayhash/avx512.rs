//! HighwayHash batches with AVX-512: two messages per 512-bit register (one per 256-bit
//! half), `GROUPS` registers interleaved, so `2 * GROUPS` independent messages advance in
//! lockstep and their dependency chains overlap. Also the avx512 platform's one-shot path:
//! the AVX2 rounds on 256-bit registers, with AVX-512VL for the last partial packet.
//!
//! ## What this file holds
//!
//! batches: two messages per 512-bit register, four registers interleaved (8 messages); equal
//! lengths run in lockstep from key to result (runs of groups in one call, the group kernel
//! inlined; the first round's key-only work done once; for 64-bit results the last two rounds
//! run on words 0-1 of four messages packed into one register, and the 8 results leave with
//! one store); ragged groups in lockstep over the packets they share, then one by one. Also
//! the avx512 platform's one-shot path (`hash64_one`, `hash_one`): the AVX2 rounds with a
//! byte-masked remainder load and `vprolvd`

use core::arch::x86_64::*;

use super::portable::ZIPPER;
use super::{avx2, remainder_packet, remainder_tail, State, INIT0, INIT1, KEY_LEN, PACKET_LEN};

/// Registers interleaved: 4 registers × 4 state variables = 16 of the 32 zmm registers.
pub(crate) const GROUPS: usize = 4;
/// Messages per lockstep group.
pub(crate) const LANES: usize = 2 * GROUPS;

#[derive(Clone, Copy)]
struct Regs {
    v0: __m512i,
    v1: __m512i,
    mul0: __m512i,
    mul1: __m512i,
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn join(lo: __m256i, hi: __m256i) -> __m512i {
    _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn load32(bytes: &[u8]) -> __m256i {
    assert!(bytes.len() >= 32);
    // SAFETY: 32 readable bytes (checked above); the load is unaligned.
    unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn words(w: &[u64; 4]) -> __m256i {
    // SAFETY: `w` is 32 readable bytes; the load is unaligned.
    unsafe { _mm256_loadu_si256(w.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn store_states(r: &Regs, a: &mut State, b: &mut State) {
    let put = |w: &mut [u64; 4], v: __m256i| {
        // SAFETY: `w` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(w.as_mut_ptr().cast(), v) }
    };
    put(&mut a.v0, _mm512_castsi512_si256(r.v0));
    put(&mut b.v0, _mm512_extracti64x4_epi64(r.v0, 1));
    put(&mut a.v1, _mm512_castsi512_si256(r.v1));
    put(&mut b.v1, _mm512_extracti64x4_epi64(r.v1, 1));
    put(&mut a.mul0, _mm512_castsi512_si256(r.mul0));
    put(&mut b.mul0, _mm512_extracti64x4_epi64(r.mul0, 1));
    put(&mut a.mul1, _mm512_castsi512_si256(r.mul1));
    put(&mut b.mul1, _mm512_extracti64x4_epi64(r.mul1, 1));
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn init(key: &[u8; KEY_LEN]) -> Regs {
    let k = _mm512_broadcast_i64x4(load32(key));
    let mul0 = _mm512_broadcast_i64x4(words(&INIT0));
    let mul1 = _mm512_broadcast_i64x4(words(&INIT1));
    Regs { v0: _mm512_xor_si512(mul0, k), v1: _mm512_xor_si512(mul1, _mm512_shuffle_epi32(k, 0xb1)), mul0, mul1 }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn zipper_mask() -> __m512i {
    let z = ZIPPER.map(|b| b as i8);
    _mm512_broadcast_i32x4(_mm_setr_epi8(
        z[0], z[1], z[2], z[3], z[4], z[5], z[6], z[7], z[8], z[9], z[10], z[11], z[12], z[13], z[14], z[15],
    ))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn update(r: &mut Regs, packet: __m512i) {
    let mask = zipper_mask();
    r.v1 = _mm512_add_epi64(_mm512_add_epi64(r.v1, packet), r.mul0);
    r.mul0 = _mm512_xor_si512(r.mul0, _mm512_mul_epu32(r.v1, _mm512_srli_epi64(r.v0, 32)));
    r.v0 = _mm512_add_epi64(r.v0, r.mul1);
    r.mul1 = _mm512_xor_si512(r.mul1, _mm512_mul_epu32(r.v0, _mm512_srli_epi64(r.v1, 32)));
    r.v0 = _mm512_add_epi64(r.v0, _mm512_shuffle_epi8(r.v1, mask));
    r.v1 = _mm512_add_epi64(r.v1, _mm512_shuffle_epi8(r.v0, mask));
}

/// Advances `LANES` messages by `packets` whole packets each, starting at packet `from`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn update_lockstep(r: &mut [Regs; GROUPS], msgs: &[&[u8]; LANES], from: usize, packets: usize) {
    let end = (from + packets) * PACKET_LEN;
    assert!(msgs.iter().all(|m| m.len() >= end), "update_lockstep past a message's end");
    let ptrs: [*const u8; LANES] = core::array::from_fn(|i| msgs[i].as_ptr());
    for i in from..from + packets {
        let at = i * PACKET_LEN;
        for g in 0..GROUPS {
            // SAFETY: every message has at least `end` bytes (checked above) and
            // at + 32 <= end; the loads are unaligned.
            let (a, b) = unsafe {
                (_mm256_loadu_si256(ptrs[2 * g].add(at).cast()), _mm256_loadu_si256(ptrs[2 * g + 1].add(at).cast()))
            };
            update(&mut r[g], join(a, b));
        }
    }
}

/// Starts `LANES` messages from the key and advances them in lockstep by `packets` whole
/// packets each. All messages start from the same state, so the first round's work on the
/// state alone (v0 + mul1, v0's high halves, v1 + mul0) is done once for all registers.
/// `COPY` only tells the callers' copies apart (see `finish_equal`): a shared copy was not
/// inlined and returned its registers through memory.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn start_lockstep<const COPY: bool>(key: &[u8; KEY_LEN], msgs: &[&[u8]; LANES], packets: usize) -> [Regs; GROUPS] {
    let start = init(key);
    let mut r = [start; GROUPS];
    if packets == 0 {
        return r;
    }
    assert!(msgs.iter().all(|m| m.len() >= PACKET_LEN), "start_lockstep past a message's end");
    let v1_mul0 = _mm512_add_epi64(start.v1, start.mul0);
    let v0_high = _mm512_srli_epi64(start.v0, 32);
    let v0_mul1 = _mm512_add_epi64(start.v0, start.mul1);
    let mask = zipper_mask();
    for (g, regs) in r.iter_mut().enumerate() {
        let packet = join(load32(msgs[2 * g]), load32(msgs[2 * g + 1]));
        // `update` on the start state, with the sums above.
        let v1 = _mm512_add_epi64(v1_mul0, packet);
        regs.mul0 = _mm512_xor_si512(start.mul0, _mm512_mul_epu32(v1, v0_high));
        regs.mul1 = _mm512_xor_si512(start.mul1, _mm512_mul_epu32(v0_mul1, _mm512_srli_epi64(v1, 32)));
        regs.v0 = _mm512_add_epi64(v0_mul1, _mm512_shuffle_epi8(v1, mask));
        regs.v1 = _mm512_add_epi64(v1, _mm512_shuffle_epi8(regs.v0, mask));
    }
    update_lockstep(&mut r, msgs, 1, packets - 1);
    r
}

/// Where `finish_equal` puts its results.
enum Out<'a> {
    /// The finished states.
    States(&'a mut [State; LANES]),
    /// The 64-bit results in byte form (finalization of 4 rounds assumed).
    Bytes64(&'a mut [u8; 8 * LANES]),
}

/// Hashes `LANES` messages of the same length with one key through the finalization
/// rounds and writes the results (inside, so that no array of registers is returned
/// through memory). `RESULT64` says which `Out` the caller passes: it makes each caller's
/// copy a function with one call site, which the compiler inlines (a shared copy was
/// called per group of 8 messages, with its register saves and argument checks).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn finish_equal<const RESULT64: bool>(key: &[u8; KEY_LEN], msgs: &[&[u8]; LANES], rounds: usize, out: Out<'_>) {
    debug_assert_eq!(RESULT64, matches!(out, Out::Bytes64(_)));
    let len = msgs[0].len();
    assert!(msgs.iter().all(|m| m.len() == len), "hash_equal takes messages of one length");
    let mut r = start_lockstep::<RESULT64>(key, msgs, len / PACKET_LEN);
    let n = len % PACKET_LEN;
    if n != 0 {
        // The packets first, then the rounds in a loop simple enough to unroll, so that the
        // state stays in registers (a loop around the packet building kept it in memory).
        let whole = len - n;
        let packets: [__m512i; GROUPS] = core::array::from_fn(|g| {
            let a = remainder_packet(&msgs[2 * g][whole..]);
            let b = remainder_packet(&msgs[2 * g + 1][whole..]);
            join(load32(&a), load32(&b))
        });
        let size = _mm512_set1_epi32(n as i32);
        for (regs, packet) in r.iter_mut().zip(packets) {
            regs.v0 = _mm512_add_epi64(regs.v0, size);
            regs.v1 = _mm512_rolv_epi32(regs.v1, size);
            update(regs, packet);
        }
    }
    let idx = opaque(&PERMUTE);
    // 64-bit results need only part of the last two rounds (see `last_rounds64`).
    let full_rounds = match out {
        Out::States(_) => rounds,
        Out::Bytes64(_) => rounds - 2,
    };
    for _ in 0..full_rounds {
        for regs in r.iter_mut() {
            let p = _mm512_permutexvar_epi32(idx, regs.v0);
            update(regs, p);
        }
    }
    match out {
        Out::States(states) => {
            for (g, regs) in r.iter().enumerate() {
                let (a, b) = states.split_at_mut(2 * g + 1);
                store_states(regs, &mut a[2 * g], &mut b[0]);
            }
        }
        Out::Bytes64(bytes) => {
            let [r0, r1, r2, r3] = &r;
            let low = last_rounds64(r0, r1, idx);
            let high = last_rounds64(r2, r3, idx);
            // Words 0, 2, 4, 6 of each: the 8 results in message order.
            let all = _mm512_permutex2var_epi64(low, opaque(&EVEN_WORDS), high);
            // SAFETY: `bytes` is 64 writable bytes; the store is unaligned. x86 is
            // little-endian, so the stored words are the byte form.
            unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().cast(), all) }
        }
    }
}

/// The last two finalization rounds and the 64-bit results of the four messages of `a`
/// and `b` (two each). A result is word 0 of v0 + v1 + mul0 + mul1. The last round
/// computes words 0 and 1 from words 0 and 1 of the state and of the permuted v0 (v0's
/// words 2 and 3, rotated); so of the round before, only v0 is needed whole, and v1, mul0
/// and mul1 only in words 0 and 1. Those words of the four messages are packed into one
/// register, and what needs only them is done once for the four messages instead of once
/// per register. Returns the results in words 0, 2, 4, 6 (messages of `a`, then of `b`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn last_rounds64(a: &Regs, b: &Regs, permute: __m512i) -> __m512i {
    let mask = zipper_mask();
    // The round before the last, on whole registers: the words the next round needs whole.
    let (mut v1, mut v0) = ([a.v1, b.v1], [a.v0, b.v0]);
    for (i, r) in [a, b].into_iter().enumerate() {
        v1[i] = _mm512_add_epi64(_mm512_add_epi64(r.v1, _mm512_permutexvar_epi32(permute, r.v0)), r.mul0);
        v0[i] = _mm512_add_epi64(_mm512_add_epi64(r.v0, r.mul1), _mm512_shuffle_epi8(v1[i], mask));
    }
    // ... and on words 0 and 1 of the four messages, packed.
    let pick = opaque(&LOW_PAIRS);
    let pack = |x: __m512i, y: __m512i| _mm512_permutex2var_epi64(x, pick, y);
    let v1 = pack(v1[0], v1[1]);
    let v0_before = pack(a.v0, b.v0);
    let (mul0, mul1) = (pack(a.mul0, b.mul0), pack(a.mul1, b.mul1));
    let mul0 = _mm512_xor_si512(mul0, _mm512_mul_epu32(v1, _mm512_srli_epi64(v0_before, 32)));
    let mul1 = _mm512_xor_si512(mul1, _mm512_mul_epu32(_mm512_add_epi64(v0_before, mul1), _mm512_srli_epi64(v1, 32)));
    let packed_v0 = pack(v0[0], v0[1]);
    let mut c = Regs { v0: packed_v0, v1: _mm512_add_epi64(v1, _mm512_shuffle_epi8(packed_v0, mask)), mul0, mul1 };
    // The last round, packed; its permuted v0 straight from the whole registers.
    let p = _mm512_permutex2var_epi32(v0[0], opaque(&HIGH_PAIRS_ROTATED), v0[1]);
    update(&mut c, p);
    _mm512_add_epi64(_mm512_add_epi64(c.v0, c.v1), _mm512_add_epi64(c.mul0, c.mul1))
}

/// Sixteen 32-bit lanes in memory, aligned for a vector load.
#[repr(C, align(64))]
struct Lanes([u32; 16]);

/// The finalization permutation (words 2, 3, 0, 1 of each message, each rotated by 32) as
/// 32-bit lanes.
static PERMUTE: Lanes = Lanes([5, 4, 7, 6, 1, 0, 3, 2, 13, 12, 15, 14, 9, 8, 11, 10]);
/// Words 0 and 1 of each message of two registers (as 64-bit lane indices, pairs of u32).
static LOW_PAIRS: Lanes = Lanes([0, 0, 1, 0, 4, 0, 5, 0, 8, 0, 9, 0, 12, 0, 13, 0]);
/// Words 2 and 3 of v0 of each message of two registers, rotated by 32 (32-bit lanes):
/// words 0 and 1 of the permuted v0.
static HIGH_PAIRS_ROTATED: Lanes = Lanes([5, 4, 7, 6, 13, 12, 15, 14, 21, 20, 23, 22, 29, 28, 31, 30]);
/// Words 0, 2, 4, 6 of two registers (64-bit lane indices).
static EVEN_WORDS: Lanes = Lanes([0, 0, 2, 0, 4, 0, 6, 0, 8, 0, 10, 0, 12, 0, 14, 0]);

/// A constant vector that the compiler must treat as unknown (a volatile load), so that it
/// emits the one permutation written instead of rewriting it as two shuffles.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn opaque(lanes: &'static Lanes) -> __m512i {
    // SAFETY: `lanes` is 64 readable bytes aligned to 64; a volatile read of plain data.
    unsafe { core::ptr::read_volatile((lanes as *const Lanes).cast::<__m512i>()) }
}

/// Hashes `LANES` messages of the same length with one key, all the way to their finished
/// states.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
pub(crate) fn hash_equal(key: &[u8; KEY_LEN], msgs: &[&[u8]; LANES], rounds: usize, out: &mut [State; LANES]) {
    finish_equal::<false>(key, msgs, rounds, Out::States(out));
}

/// 64-bit results of whole groups of `LANES` messages, in one call so that the loop and
/// its constants stay inside the kernel, for as long as each group's messages have equal
/// lengths. Returns how many messages it did (a multiple of `LANES`); the caller does the
/// rest (a ragged group, the leftovers).
///
/// Panics unless `out` has room for `msgs.len()` results (8 bytes each).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
pub(crate) fn hash_equal64_groups(key: &[u8; KEY_LEN], msgs: &[&[u8]], out: &mut [u8]) -> usize {
    assert_eq!(out.len(), 8 * msgs.len());
    let mut done = 0;
    for (group, o) in msgs.chunks_exact(LANES).zip(out.chunks_exact_mut(8 * LANES)) {
        let group: &[&[u8]; LANES] = group.try_into().unwrap();
        if !group.iter().all(|m| m.len() == group[0].len()) {
            break;
        }
        hash_equal64(key, group, o.try_into().unwrap());
        done += LANES;
    }
    done
}

/// Hashes `LANES` messages of the same length with one key and writes their 64-bit results
/// (little-endian, in order) with one store: v0 + v1 + mul0 + mul1, word 0 of each
/// message's half of the registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn hash_equal64(key: &[u8; KEY_LEN], msgs: &[&[u8]; LANES], out: &mut [u8; 8 * LANES]) {
    finish_equal::<true>(key, msgs, 4, Out::Bytes64(out));
}

/// Starts `LANES` messages of any lengths and advances them in lockstep by the number of
/// whole packets the shortest has; the caller finishes each from `out` and its message
/// past `PACKET_LEN * done` bytes. Returns the number of packets done.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
pub(crate) fn start_ragged(key: &[u8; KEY_LEN], msgs: &[&[u8]; LANES], out: &mut [State; LANES]) -> usize {
    let packets = msgs.iter().map(|m| m.len() / PACKET_LEN).min().unwrap_or(0);
    let mut r = [init(key); GROUPS];
    update_lockstep(&mut r, msgs, 0, packets);
    for (g, regs) in r.iter().enumerate() {
        let (a, b) = out.split_at_mut(2 * g + 1);
        store_states(regs, &mut a[2 * g], &mut b[0]);
    }
    packets
}

/// One message through its last packet with AVX-512VL on 256-bit vectors: the AVX2
/// rounds, with the remainder packet read by one byte-masked load and v1 rotated by one
/// `vprolvd` (AVX2 needs a lane-masked load, two shifts and an or). The one-shot path
/// of this platform.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn absorb_one(key: &[u8; KEY_LEN], data: &[u8]) -> avx2::Regs {
    let mut r = avx2::init(key);
    let whole = data.len() - data.len() % PACKET_LEN;
    avx2::update_all(&mut r, &data[..whole]);
    let rem = &data[whole..];
    if !rem.is_empty() {
        let size = _mm256_set1_epi32(rem.len() as i32);
        r.v0 = _mm256_add_epi64(r.v0, size);
        r.v1 = _mm256_rolv_epi32(r.v1, size);
        avx2::update(&mut r, remainder_masked(rem));
    }
    r
}

/// A whole message's 64-bit result (see `absorb_one`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
pub(crate) fn hash64_one(key: &[u8; KEY_LEN], data: &[u8]) -> u64 {
    let mut r = absorb_one(key, data);
    avx2::finalize(&mut r, 4);
    avx2::result64(&r)
}

/// A whole message, from the key to the finished state (see `absorb_one`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
pub(crate) fn hash_one(key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
    let mut r = absorb_one(key, data);
    avx2::finalize(&mut r, rounds);
    let mut s = State { v0: [0; 4], v1: [0; 4], mul0: [0; 4], mul1: [0; 4] };
    avx2::store(&r, &mut s);
    s
}

/// `remainder_packet` in a register: the whole 4-byte groups with one byte-masked load
/// (bytes past them are neither read nor faulted on), then the one special word.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn remainder_masked(rem: &[u8]) -> __m256i {
    let n = rem.len();
    debug_assert!(n > 0 && n < PACKET_LEN);
    let mask = (1u32 << (n & !3)) - 1;
    // SAFETY: the mask enables only bytes i < (rem.len() & !3) <= rem.len(), which lie
    // within `rem`; masked-off bytes are not accessed (and cannot fault).
    let packet = unsafe { _mm256_maskz_loadu_epi8(mask, rem.as_ptr().cast()) };
    match remainder_tail(rem) {
        (7, w) => _mm256_insert_epi32::<7>(packet, w as i32),
        (4, w) => _mm256_insert_epi32::<4>(packet, w as i32),
        _ => packet,
    }
}
