//! AVX-512 Salsa20: 16 blocks per step, one block per 32-bit lane ("vertical" layout:
//! register `i` holds state word `i` of all 16 blocks). `vprold` rotates in one
//! instruction. The 16 outputs are transposed back to block order before the XOR.

use core::arch::x86_64::*;

use super::BLOCK_LEN;
use cipher::InOutBuf;

const LANES: usize = 16;
const STEP: usize = LANES * BLOCK_LEN;

#[inline]
#[target_feature(enable = "avx512f")]
fn quarter(x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] = _mm512_xor_si512(x[b], _mm512_rol_epi32::<7>(_mm512_add_epi32(x[a], x[d])));
    x[c] = _mm512_xor_si512(x[c], _mm512_rol_epi32::<9>(_mm512_add_epi32(x[b], x[a])));
    x[d] = _mm512_xor_si512(x[d], _mm512_rol_epi32::<13>(_mm512_add_epi32(x[c], x[b])));
    x[a] = _mm512_xor_si512(x[a], _mm512_rol_epi32::<18>(_mm512_add_epi32(x[d], x[c])));
}

/// The keystream of blocks `counter .. counter + 16`, block `j` in `out[j]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [__m512i; 16] {
    let mut x: [__m512i; 16] = core::array::from_fn(|i| _mm512_set1_epi32(state[i] as i32));
    // The full 64-bit counter per lane: the carry into word 9 is per block.
    let c: [u64; LANES] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    let lo = |j: usize| c[j] as u32 as i32;
    let hi = |j: usize| (c[j] >> 32) as u32 as i32;
    x[8] = _mm512_setr_epi32(
        lo(0),
        lo(1),
        lo(2),
        lo(3),
        lo(4),
        lo(5),
        lo(6),
        lo(7),
        lo(8),
        lo(9),
        lo(10),
        lo(11),
        lo(12),
        lo(13),
        lo(14),
        lo(15),
    );
    x[9] = _mm512_setr_epi32(
        hi(0),
        hi(1),
        hi(2),
        hi(3),
        hi(4),
        hi(5),
        hi(6),
        hi(7),
        hi(8),
        hi(9),
        hi(10),
        hi(11),
        hi(12),
        hi(13),
        hi(14),
        hi(15),
    );
    let (c8, c9) = (x[8], x[9]);
    for _ in 0..DR {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 5, 9, 13, 1);
        quarter(&mut x, 10, 14, 2, 6);
        quarter(&mut x, 15, 3, 7, 11);
        quarter(&mut x, 0, 1, 2, 3);
        quarter(&mut x, 5, 6, 7, 4);
        quarter(&mut x, 10, 11, 8, 9);
        quarter(&mut x, 15, 12, 13, 14);
    }
    // Feed-forward: the broadcast words are rebuilt rather than kept live (registers).
    for i in 0..16 {
        let input = match i {
            8 => c8,
            9 => c9,
            _ => _mm512_set1_epi32(state[i] as i32),
        };
        x[i] = _mm512_add_epi32(x[i], input);
    }
    transpose(x)
}

/// From word-per-register to block-per-register. First a 4x4 transpose of 32-bit words
/// inside each 128-bit lane of every group of four words; then, for each of the four
/// results, a 4x4 transpose of 128-bit lanes across the groups.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(x: [__m512i; 16]) -> [__m512i; 16] {
    // y[g][r], 128-bit lane k: words 4g..4g+4 of block 4k + r.
    let y: [[__m512i; 4]; 4] = core::array::from_fn(|g| {
        let t0 = _mm512_unpacklo_epi32(x[4 * g], x[4 * g + 1]);
        let t1 = _mm512_unpackhi_epi32(x[4 * g], x[4 * g + 1]);
        let t2 = _mm512_unpacklo_epi32(x[4 * g + 2], x[4 * g + 3]);
        let t3 = _mm512_unpackhi_epi32(x[4 * g + 2], x[4 * g + 3]);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    });
    let mut out = [_mm512_setzero_si512(); 16];
    for r in 0..4 {
        let (a0, a1, a2, a3) = (y[0][r], y[1][r], y[2][r], y[3][r]);
        let t0 = _mm512_shuffle_i32x4::<0x44>(a0, a1); // a0.l0 a0.l1 a1.l0 a1.l1
        let t1 = _mm512_shuffle_i32x4::<0xEE>(a0, a1); // a0.l2 a0.l3 a1.l2 a1.l3
        let t2 = _mm512_shuffle_i32x4::<0x44>(a2, a3);
        let t3 = _mm512_shuffle_i32x4::<0xEE>(a2, a3);
        out[r] = _mm512_shuffle_i32x4::<0x88>(t0, t2); // lane 0 of a0..a3: block r
        out[4 + r] = _mm512_shuffle_i32x4::<0xDD>(t0, t2); // lane 1: block 4 + r
        out[8 + r] = _mm512_shuffle_i32x4::<0x88>(t1, t3); // lane 2: block 8 + r
        out[12 + r] = _mm512_shuffle_i32x4::<0xDD>(t1, t3); // lane 3: block 12 + r
    }
    out
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
#[target_feature(enable = "avx512f")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "avx512f")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    let mut counter = u64::from(state[8]) | (u64::from(state[9]) << 32);
    let whole = io.len() / STEP * STEP;
    let (body, mut tail) = io.split_at(whole);
    let (inp, out) = body.into_raw();
    let mut done = 0;
    while done < whole {
        let ks = blocks::<DR>(state, counter);
        for (j, k) in ks.iter().enumerate() {
            let at = done + j * BLOCK_LEN;
            // SAFETY: at + 64 <= whole, the length of both buffers behind `inp` and `out`
            // (InOutBuf guarantees equal lengths; they may be the same memory, and each
            // 64 bytes are read before they are written).
            unsafe {
                let m = _mm512_loadu_si512(inp.add(at).cast());
                _mm512_storeu_si512(out.add(at).cast(), _mm512_xor_si512(m, *k));
            }
        }
        counter = counter.wrapping_add(LANES as u64);
        done += STEP;
    }
    if !tail.is_empty() {
        let ks = blocks::<DR>(state, counter);
        let mut buf = [0u8; STEP];
        for (j, k) in ks.iter().enumerate() {
            // SAFETY: buf has STEP = 16 * 64 bytes; this writes bytes 64j .. 64j + 64.
            unsafe { _mm512_storeu_si512(buf.as_mut_ptr().add(j * BLOCK_LEN).cast(), *k) };
        }
        let n = tail.len();
        tail.xor_in2out(&buf[..n]);
    }
}
