//! Plain-Rust Salsa20: one block at a time. Also the short-message path of every backend
//! (a 64-byte message pays for no wide setup) and the reference the SIMD kernels are
//! tested against.
//!
//! ## What this file holds
//!
//! plain Rust, one block at a time, round count as a const generic (unrolled): the reference
//! the kernels are tested against

use super::BLOCK_LEN;
use cipher::InOutBuf;

/// One quarter-round on words `a`, `b`, `c`, `d` of `x` (the specification's
/// `quarterround(y0, y1, y2, y3)`).
#[inline(always)]
fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] ^= x[a].wrapping_add(x[d]).rotate_left(7);
    x[c] ^= x[b].wrapping_add(x[a]).rotate_left(9);
    x[d] ^= x[c].wrapping_add(x[b]).rotate_left(13);
    x[a] ^= x[d].wrapping_add(x[c]).rotate_left(18);
}

/// `DR` column rounds each followed by a row round, in place (no feed-forward: HSalsa20
/// uses this directly). The count is a constant so that the loop unrolls.
#[inline(always)]
fn rounds<const DR: u32>(x: &mut [u32; 16]) {
    for _ in 0..DR {
        quarter(x, 0, 4, 8, 12);
        quarter(x, 5, 9, 13, 1);
        quarter(x, 10, 14, 2, 6);
        quarter(x, 15, 3, 7, 11);
        quarter(x, 0, 1, 2, 3);
        quarter(x, 5, 6, 7, 4);
        quarter(x, 10, 11, 8, 9);
        quarter(x, 15, 12, 13, 14);
    }
}

/// `double_rounds` double rounds in place.
pub(crate) fn permute(x: &mut [u32; 16], double_rounds: u32) {
    match double_rounds {
        10 => rounds::<10>(x),
        6 => rounds::<6>(x),
        4 => rounds::<4>(x),
        n => (0..n).for_each(|_| rounds::<1>(x)),
    }
}

/// The Salsa20 core ("Salsa20 hash"): the permutation plus the input, as 64 bytes.
#[inline(always)]
fn block_n<const DR: u32>(input: &[u32; 16]) -> [u8; BLOCK_LEN] {
    let mut x = *input;
    rounds::<DR>(&mut x);
    let mut out = [0u8; BLOCK_LEN];
    for (i, chunk) in out.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&x[i].wrapping_add(input[i]).to_le_bytes());
    }
    out
}

/// The core function with any round count (the specification's examples use 20).
pub(crate) fn block(input: &[u32; 16], double_rounds: u32) -> [u8; BLOCK_LEN] {
    let mut x = *input;
    permute(&mut x, double_rounds);
    let mut out = [0u8; BLOCK_LEN];
    for (i, chunk) in out.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&x[i].wrapping_add(input[i]).to_le_bytes());
    }
    out
}

/// XORs the keystream into `io`, starting at the block counter in words 8 and 9 of `state`
/// (which are otherwise the cipher's input words). Any length; the counter is 64 bits wide
/// and wraps only past the last block of the stream, which the caller never asks for.
pub(crate) fn xor_keystream(state: &[u32; 16], double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, io))
}

#[inline(always)]
fn xor_n<const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    let mut input = *state;
    let mut counter = u64::from(state[8]) | (u64::from(state[9]) << 32);
    let whole = io.len() / BLOCK_LEN * BLOCK_LEN;
    let (body, mut tail) = io.split_at(whole);
    let (inp, out) = body.into_raw();
    let mut done = 0;
    while done < whole {
        input[8] = counter as u32;
        input[9] = (counter >> 32) as u32;
        let mut x = input;
        rounds::<DR>(&mut x);
        for i in 0..16 {
            let at = done + 4 * i;
            // SAFETY: at + 4 <= whole, the length of both buffers behind `inp` and `out`
            // (equal lengths, possibly the same memory: each word is read before written).
            unsafe {
                let m = u32::from_le(inp.add(at).cast::<u32>().read_unaligned());
                out.add(at).cast::<u32>().write_unaligned((m ^ x[i].wrapping_add(input[i])).to_le());
            }
        }
        counter = counter.wrapping_add(1);
        done += BLOCK_LEN;
    }
    if !tail.is_empty() {
        input[8] = counter as u32;
        input[9] = (counter >> 32) as u32;
        let n = tail.len();
        tail.xor_in2out(&block_n::<DR>(&input)[..n]);
    }
}
