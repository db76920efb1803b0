//! AVX-512 Salsa20 for short messages: one block at a time, its 16 words as four rows of
//! four, each row repeated in the four 128-bit lanes of a 512-bit register (AVX-512F
//! rotates 512-bit registers only; 128-bit `vprold` needs AVX-512VL, and the copies cost
//! no extra instructions).
//!
//! The rows are diagonals of the 4x4 state, so that a column round is four row
//! operations, one quarter-round per 32-bit lane:
//!
//! ```text
//! x0 = (y0, y5, y10, y15)   x1 = (y4, y9, y14, y3)   x2 = (y8, y13, y2, y7)   x3 = (y12, y1, y6, y11)
//! ```
//!
//! and a row round the same after rotating x3, x2, x1 by one, two and three lanes. Each
//! rotation is applied to a row that the next four steps do not need at once, so the
//! critical path is the 4 x (add, rotate, xor) of each half-round: 12 cycles, the same
//! as the latency of the scalar code, without its register pressure (16 words and their
//! temporaries do not fit in x86-64's general registers). A 64-byte message (new cipher,
//! one call) runs faster here than with the portable code or RustCrypto's (docs/tuning-history.md,
//! "BENCHMARKS.md before issue 42", "Summary"); most of the gain over this kernel's first version came from how it reads
//! the state (`load_state`) and from keeping `block` inlined
//! (docs/tuning-history.md, "Short messages after the AVX-512 row kernel").
//!
//! ## What this file holds
//!
//! the `avx512` backend's short-message path: one block as four diagonal rows (rotations of
//! the rows off the critical path), the state read piece by piece as the constructor wrote it
//! so that store forwarding works

use core::arch::x86_64::*;

use super::BLOCK_LEN;
use cipher::InOutBuf;

/// Natural word order to diagonal rows: row `r` of the result is words `4r..4r + 4`.
const TO_ROWS: [i32; 16] = [0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11];
/// Diagonal rows back to natural order (the inverse permutation of `TO_ROWS`).
const FROM_ROWS: [i32; 16] = [0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3];

/// `x ^ rotl(a + b, R)` on every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn step<const R: i32>(x: __m512i, a: __m512i, b: __m512i) -> __m512i {
    _mm512_xor_si512(x, _mm512_rol_epi32::<R>(_mm512_add_epi32(a, b)))
}

/// Lane `j` of the result is lane `j + K` (mod 4) of `x`, in every 128-bit lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn turn<const K: i32>(x: __m512i) -> __m512i {
    // _MM_PERM immediates: lanes (K, K+1, K+2, K+3) mod 4, two bits each, lowest first.
    match K {
        1 => _mm512_shuffle_epi32::<0x39>(x),
        2 => _mm512_shuffle_epi32::<0x4E>(x),
        _ => _mm512_shuffle_epi32::<0x93>(x),
    }
}

/// The keystream block for `input` (the 16 state words in natural order), as 16 words in
/// natural order. Each row register holds its row in all four 128-bit lanes, so every
/// lane computes the same block; lane `r` of row `r` is taken at the end.
#[inline]
#[target_feature(enable = "avx512f")]
fn block<const DR: u32>(input: __m512i) -> __m512i {
    // SAFETY: both index tables are 64 readable bytes; loadu has no alignment requirement.
    let (to_rows, from_rows) =
        unsafe { (_mm512_loadu_si512(TO_ROWS.as_ptr().cast()), _mm512_loadu_si512(FROM_ROWS.as_ptr().cast())) };
    let rows = _mm512_permutexvar_epi32(to_rows, input);
    let mut x0 = _mm512_shuffle_i32x4::<0b00_00_00_00>(rows, rows);
    let mut x1 = _mm512_shuffle_i32x4::<0b01_01_01_01>(rows, rows);
    let mut x2 = _mm512_shuffle_i32x4::<0b10_10_10_10>(rows, rows);
    let mut x3 = _mm512_shuffle_i32x4::<0b11_11_11_11>(rows, rows);
    for _ in 0..DR {
        // Column round: quarter-round j on lane j of (x0, x1, x2, x3).
        x1 = step::<7>(x1, x0, x3);
        x2 = step::<9>(x2, x1, x0);
        x3 = step::<13>(x3, x2, x1);
        x0 = step::<18>(x0, x3, x2);
        // Row round: (x0, turn1(x3), turn2(x2), turn3(x1)) are its (a, b, c, d).
        let mut b = turn::<1>(x3);
        let mut c = turn::<2>(x2);
        let mut d = turn::<3>(x1);
        b = step::<7>(b, x0, d);
        c = step::<9>(c, b, x0);
        d = step::<13>(d, c, b);
        x0 = step::<18>(x0, d, c);
        x3 = turn::<3>(b);
        x2 = turn::<2>(c);
        x1 = turn::<1>(d);
    }
    // Rows back into one register (row r in 128-bit lane r), plus the input, reordered.
    let x01 = _mm512_mask_blend_epi64(0b0000_1100, x0, x1);
    let x23 = _mm512_mask_blend_epi64(0b1100_0000, x2, x3);
    let all = _mm512_mask_blend_epi64(0b1111_0000, x01, x23);
    _mm512_permutexvar_epi32(from_rows, _mm512_add_epi32(all, rows))
}

/// XORs the keystream into `io` one block at a time, from block `counter` (words 8 and 9
/// of `state` are ignored); for messages shorter than a wide kernel step.
#[target_feature(enable = "avx512f")]
pub(crate) fn xor_keystream(state: &[u32; 16], counter: u64, double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, counter, io))
}

/// Where each state word comes from in `pieces`: key words 0..4 (state words 1..5), key
/// words 4..8 (11..15), the nonce and counter (6..10), the constants (0, 5, 10, 15).
const FROM_PIECES: [i32; 16] = [12, 0, 1, 2, 3, 13, 8, 9, 10, 11, 14, 4, 5, 6, 7, 15];

/// The state words in natural order, `counter` in words 8 and 9 (the words there in
/// `state` are ignored). Read piece by piece as the cipher's constructor writes them
/// (each key half 16 bytes, the nonce 8, each constant 4), so that every load can be
/// forwarded from the store that wrote it: a load spanning several stores waits until
/// they reach the cache. Loading the state as 16- and 64-byte pieces instead made a 64-byte
/// message measurably slower with a new cipher each time (not with one cipher reused, whose
/// state was written long before; docs/tuning-history.md, "Short messages after the AVX-512 row kernel").
#[inline]
#[target_feature(enable = "avx512f")]
fn load_state(state: &[u32; 16], counter: u64) -> __m512i {
    // Through `black_box` the compiler no longer knows that all 64 bytes are readable, so
    // it cannot merge these loads into wider ones (which it otherwise does).
    let p = core::hint::black_box(state.as_ptr());
    // SAFETY: words 0..16 of `state` are readable (`p` is `state`'s pointer); unaligned
    // loads are allowed.
    let (key0, key1, nonce, constants) = unsafe {
        (
            _mm_loadu_si128(p.add(1).cast()),
            _mm_loadu_si128(p.add(11).cast()),
            _mm_loadl_epi64(p.add(6).cast()),
            _mm_setr_epi32(*p as i32, *p.add(5) as i32, *p.add(10) as i32, *p.add(15) as i32),
        )
    };
    let nonce_counter = _mm_unpacklo_epi64(nonce, _mm_cvtsi64_si128(counter as i64));
    let key = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(key0), key1);
    let rest = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(nonce_counter), constants);
    let pieces = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(key), rest);
    // SAFETY: `FROM_PIECES` is 64 readable bytes; loadu has no alignment requirement.
    _mm512_permutexvar_epi32(unsafe { _mm512_loadu_si512(FROM_PIECES.as_ptr().cast()) }, pieces)
}

#[target_feature(enable = "avx512f")]
fn xor_n<const DR: u32>(state: &[u32; 16], mut counter: u64, io: InOutBuf<'_, '_, u8>) {
    let mut input = load_state(state, counter);
    let len = io.len();
    let (inp, out) = io.into_raw();
    let mut done = 0;
    // One call site for `block`, so that it is inlined (a second one for the partial last
    // block kept it out of line, its 512-bit argument and result passed through memory).
    while done < len {
        let ks = block::<DR>(input);
        let n = (len - done).min(BLOCK_LEN);
        if n == BLOCK_LEN {
            // SAFETY: done + 64 <= len, the length of both buffers behind `inp` and `out`
            // (equal lengths, possibly the same memory: the 64 bytes are read, then
            // written).
            unsafe {
                let m = _mm512_loadu_si512(inp.add(done).cast());
                _mm512_storeu_si512(out.add(done).cast(), _mm512_xor_si512(m, ks));
            }
        } else {
            let mut buf = [0u8; BLOCK_LEN];
            // SAFETY: `buf` is 64 writable bytes; storeu has no alignment requirement.
            unsafe { _mm512_storeu_si512(buf.as_mut_ptr().cast(), ks) };
            for (i, k) in buf[..n].iter().enumerate() {
                // SAFETY: done + i < len, in both buffers (read before written).
                unsafe { *out.add(done + i) = *inp.add(done + i) ^ k };
            }
        }
        counter = counter.wrapping_add(1);
        // Words 8 and 9 are the 64-bit counter: 64-bit lane 4.
        input = _mm512_mask_set1_epi64(input, 1 << 4, counter as i64);
        done += n;
    }
}
