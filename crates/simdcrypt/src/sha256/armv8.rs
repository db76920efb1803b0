//! aarch64 SHA-256 kernel using the ARMv8 Cryptography Extension: `sha256h`/`sha256h2`
//! do four rounds on the ABCD and EFGH halves of the state, `sha256su0`/`sha256su1`
//! extend the message schedule four words at a time. Processes any number of blocks per
//! call, keeping the state in registers between blocks.
//!
//! ## What this file holds
//!
//! aarch64 ARMv8 Cryptography Extension (`sha256h/h2`, `sha256su0/su1`), many blocks per call

use core::arch::aarch64::*;

use super::{BLOCK_LEN, K};

/// Four rounds: `msg` holds W(t..t+4), `k` the matching constants.
#[inline]
#[target_feature(enable = "neon,sha2")]
fn rounds4(abcd: &mut uint32x4_t, efgh: &mut uint32x4_t, msg: uint32x4_t, k: &[u32; 4]) {
    // SAFETY: `k` is four readable u32s.
    let k = unsafe { vld1q_u32(k.as_ptr()) };
    let wk = vaddq_u32(msg, k);
    let abcd_in = *abcd;
    *abcd = vsha256hq_u32(abcd_in, *efgh, wk);
    *efgh = vsha256h2q_u32(*efgh, abcd_in, wk);
}

/// The next four schedule words from the previous sixteen (`m0` oldest).
#[inline]
#[target_feature(enable = "neon,sha2")]
fn schedule(m0: uint32x4_t, m1: uint32x4_t, m2: uint32x4_t, m3: uint32x4_t) -> uint32x4_t {
    vsha256su1q_u32(vsha256su0q_u32(m0, m1), m2, m3)
}

/// Compresses each 64-byte block of `blocks` into `state`. `blocks.len()` must be a
/// multiple of 64 (checked by the caller; a remainder would be ignored).
#[target_feature(enable = "neon,sha2")]
pub(crate) fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    let k: &[[u32; 4]; 16] = K.as_chunks::<4>().0.try_into().expect("64 constants");
    // SAFETY: `state` is eight readable u32s.
    let (mut abcd, mut efgh) = unsafe { (vld1q_u32(state.as_ptr()), vld1q_u32(state[4..].as_ptr())) };

    for block in blocks.chunks_exact(BLOCK_LEN) {
        let (abcd_in, efgh_in) = (abcd, efgh);
        let p = block.as_ptr();
        // SAFETY: `block` is 64 readable bytes: four 16-byte loads.
        let raw = unsafe { [vld1q_u8(p), vld1q_u8(p.add(16)), vld1q_u8(p.add(32)), vld1q_u8(p.add(48))] };
        // The message is big-endian: reverse the bytes of each 32-bit word.
        let [mut m0, mut m1, mut m2, mut m3] = raw.map(|r| vreinterpretq_u32_u8(vrev32q_u8(r)));
        rounds4(&mut abcd, &mut efgh, m0, &k[0]);
        rounds4(&mut abcd, &mut efgh, m1, &k[1]);
        rounds4(&mut abcd, &mut efgh, m2, &k[2]);
        rounds4(&mut abcd, &mut efgh, m3, &k[3]);
        for i in 1..4 {
            m0 = schedule(m0, m1, m2, m3);
            rounds4(&mut abcd, &mut efgh, m0, &k[4 * i]);
            m1 = schedule(m1, m2, m3, m0);
            rounds4(&mut abcd, &mut efgh, m1, &k[4 * i + 1]);
            m2 = schedule(m2, m3, m0, m1);
            rounds4(&mut abcd, &mut efgh, m2, &k[4 * i + 2]);
            m3 = schedule(m3, m0, m1, m2);
            rounds4(&mut abcd, &mut efgh, m3, &k[4 * i + 3]);
        }
        abcd = vaddq_u32(abcd, abcd_in);
        efgh = vaddq_u32(efgh, efgh_in);
    }

    // SAFETY: `state` is eight writable u32s.
    unsafe {
        vst1q_u32(state.as_mut_ptr(), abcd);
        vst1q_u32(state[4..].as_mut_ptr(), efgh);
    }
}
