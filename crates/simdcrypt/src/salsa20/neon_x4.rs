//! NEON Salsa20 for aarch64: 4 blocks per step, one block per 32-bit lane (register `i`
//! holds state word `i` of all 4 blocks); rotations are a shift plus shift-right-insert.

use core::arch::aarch64::*;

use super::BLOCK_LEN;
use cipher::InOutBuf;

const LANES: usize = 4;
const STEP: usize = LANES * BLOCK_LEN;

#[inline]
#[target_feature(enable = "neon")]
fn rotl<const L: i32, const R: i32>(v: uint32x4_t) -> uint32x4_t {
    vsriq_n_u32::<R>(vshlq_n_u32::<L>(v), v)
}

#[inline]
#[target_feature(enable = "neon")]
fn quarter(x: &mut [uint32x4_t; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] = veorq_u32(x[b], rotl::<7, 25>(vaddq_u32(x[a], x[d])));
    x[c] = veorq_u32(x[c], rotl::<9, 23>(vaddq_u32(x[b], x[a])));
    x[d] = veorq_u32(x[d], rotl::<13, 19>(vaddq_u32(x[c], x[b])));
    x[a] = veorq_u32(x[a], rotl::<18, 14>(vaddq_u32(x[d], x[c])));
}

/// The keystream of blocks `counter .. counter + 4`: bytes 16g .. 16g + 16 of block `r`
/// in `out[4r + g]`.
#[inline]
#[target_feature(enable = "neon")]
fn blocks<const DR: u32>(state: &[u32; 16], counter: u64) -> [uint32x4_t; 16] {
    let mut x: [uint32x4_t; 16] = core::array::from_fn(|i| vdupq_n_u32(state[i]));
    // The full 64-bit counter per lane: the carry into word 9 is per block.
    let c: [u64; LANES] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    let lo: [u32; LANES] = core::array::from_fn(|j| c[j] as u32);
    let hi: [u32; LANES] = core::array::from_fn(|j| (c[j] >> 32) as u32);
    // SAFETY: lo and hi are 4 u32s each, exactly what vld1q_u32 reads.
    unsafe {
        x[8] = vld1q_u32(lo.as_ptr());
        x[9] = vld1q_u32(hi.as_ptr());
    }
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
            _ => vdupq_n_u32(state[i]),
        };
        x[i] = vaddq_u32(x[i], input);
    }
    let mut out = [vdupq_n_u32(0); 16];
    for g in 0..4 {
        let t0 = vzip1q_u32(x[4 * g], x[4 * g + 1]);
        let t1 = vzip2q_u32(x[4 * g], x[4 * g + 1]);
        let t2 = vzip1q_u32(x[4 * g + 2], x[4 * g + 3]);
        let t3 = vzip2q_u32(x[4 * g + 2], x[4 * g + 3]);
        let (t0, t1, t2, t3) = (
            vreinterpretq_u64_u32(t0),
            vreinterpretq_u64_u32(t1),
            vreinterpretq_u64_u32(t2),
            vreinterpretq_u64_u32(t3),
        );
        out[g] = vreinterpretq_u32_u64(vzip1q_u64(t0, t2));
        out[4 + g] = vreinterpretq_u32_u64(vzip2q_u64(t0, t2));
        out[8 + g] = vreinterpretq_u32_u64(vzip1q_u64(t1, t3));
        out[12 + g] = vreinterpretq_u32_u64(vzip2q_u64(t1, t3));
    }
    out
}

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
#[target_feature(enable = "neon")]
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[target_feature(enable = "neon")]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    let mut counter = u64::from(state[8]) | (u64::from(state[9]) << 32);
    let whole = io.len() / STEP * STEP;
    let (body, mut tail) = io.split_at(whole);
    let (inp, out) = body.into_raw();
    let mut done = 0;
    while done < whole {
        let ks = blocks::<DR>(state, counter);
        for (j, k) in ks.iter().enumerate() {
            let at = done + j * 16;
            // SAFETY: at + 16 <= whole, the length of both buffers behind `inp` and `out`
            // (InOutBuf guarantees equal lengths; they may be the same memory, and each
            // 16 bytes are read before they are written).
            unsafe {
                let m = vld1q_u8(inp.add(at));
                vst1q_u8(out.add(at), veorq_u8(m, vreinterpretq_u8_u32(*k)));
            }
        }
        counter = counter.wrapping_add(LANES as u64);
        done += STEP;
    }
    if !tail.is_empty() {
        let ks = blocks::<DR>(state, counter);
        let mut buf = [0u8; STEP];
        for (j, k) in ks.iter().enumerate() {
            // SAFETY: buf has STEP = 16 * 16 bytes; this writes bytes 16j .. 16j + 16.
            unsafe { vst1q_u8(buf.as_mut_ptr().add(j * 16), vreinterpretq_u8_u32(*k)) };
        }
        let n = tail.len();
        tail.xor_in2out(&buf[..n]);
    }
}
