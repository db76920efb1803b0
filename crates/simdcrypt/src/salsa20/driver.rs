//! The one keystream driver of the wide kernels (`sse2_x4`, `avx2_x16`, `avx512_x16`,
//! `neon_x4`): whole steps of `LANES` blocks XORed straight from the input to the output,
//! then a last partial step computed whole and truncated. Each kernel supplies only its
//! step (`keystream`) and its vector loads and stores, through [`WideKernel`].
//!
//! ## What this file holds
//!
//! the one keystream driver of the wide kernels: whole steps XORed from input to output, a
//! last partial step computed whole and truncated; each kernel implements `WideKernel` (its
//! step, its vector XOR and store), whose methods are inlined into the kernel's
//! `#[target_feature]` entry point

use cipher::InOutBuf;

use super::BLOCK_LEN;

/// A wide kernel: `LANES` blocks of keystream per step, as 16 vectors of `LANES * 4`
/// bytes each (block `j` spread over vectors in the kernel's own order, which its
/// `keystream` makes match the byte order of the step).
///
/// # Safety
///
/// The methods use the kernel's SIMD instructions without declaring them: they may only be
/// called from code compiled with the kernel's target features (its `#[target_feature]`
/// entry point, into which they are inlined), which runs only once its `Platform` was
/// checked.
pub(crate) unsafe trait WideKernel {
    /// One register of keystream.
    type Vector: Copy;
    /// Blocks per step.
    const LANES: usize;
    /// The keystream of blocks `counter .. counter + LANES`, in step byte order.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn keystream<const DR: u32>(state: &[u32; 16], counter: u64) -> [Self::Vector; 16];
    /// `out = in ^ v` for one vector's worth of bytes.
    ///
    /// # Safety
    ///
    /// See the trait; `inp` and `out` are valid for `LANES * 4` bytes (the same memory, or
    /// not overlapping).
    unsafe fn xor(v: Self::Vector, inp: *const u8, out: *mut u8);
    /// Stores one vector's worth of bytes.
    ///
    /// # Safety
    ///
    /// See the trait; `out` is valid for `LANES * 4` bytes.
    unsafe fn store(v: Self::Vector, out: *mut u8);
}

/// The widest step (AVX-512: 16 blocks), for the buffer of a last partial step.
const MAX_STEP: usize = 16 * BLOCK_LEN;

/// XORs the keystream into `io` from the block counter in words 8 and 9 of `state`. Any
/// length: a last partial step is computed whole and its keystream truncated.
///
/// # Safety
///
/// Only from code compiled with `K`'s target features (see [`WideKernel`]).
#[inline(always)]
pub(crate) unsafe fn xor_keystream<K: WideKernel, const DR: u32>(state: &[u32; 16], io: InOutBuf<'_, '_, u8>) {
    let step = K::LANES * BLOCK_LEN;
    let vector = step / 16;
    debug_assert!(step <= MAX_STEP);
    let mut counter = counter_of(state);
    let whole = io.len() / step * step;
    let (body, mut tail) = io.split_at(whole);
    let (inp, out) = body.into_raw();
    let mut done = 0;
    while done < whole {
        // SAFETY: the caller runs with K's target features.
        let ks = unsafe { K::keystream::<DR>(state, counter) };
        for (j, k) in ks.iter().enumerate() {
            let at = done + j * vector;
            // SAFETY: at + vector <= whole, the length of both buffers behind `inp` and
            // `out` (InOutBuf guarantees equal lengths; they may be the same memory, and each
            // vector is read before it is written); K's features as above.
            unsafe { K::xor(*k, inp.add(at), out.add(at)) };
        }
        counter = counter.wrapping_add(K::LANES as u64);
        done += step;
    }
    if !tail.is_empty() {
        // SAFETY: as above.
        let ks = unsafe { K::keystream::<DR>(state, counter) };
        let mut buf = [0u8; MAX_STEP];
        for (j, k) in ks.iter().enumerate() {
            // SAFETY: buf holds MAX_STEP >= 16 * vector bytes; this writes bytes
            // vector * j .. vector * (j + 1); K's features as above.
            unsafe { K::store(*k, buf.as_mut_ptr().add(j * vector)) };
        }
        let n = tail.len();
        tail.xor_in2out(&buf[..n]);
    }
}

/// The block counter in words 8 and 9 of `state`.
#[inline(always)]
pub(crate) fn counter_of(state: &[u32; 16]) -> u64 {
    u64::from(state[8]) | (u64::from(state[9]) << 32)
}

/// `state` with `counter` in words 8 and 9, where the wide kernels read it.
#[inline(always)]
pub(crate) fn with_counter(state: &[u32; 16], counter: u64) -> [u32; 16] {
    let mut state = *state;
    state[8] = counter as u32;
    state[9] = (counter >> 32) as u32;
    state
}
