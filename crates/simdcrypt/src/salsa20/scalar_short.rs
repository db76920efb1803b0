//! Scalar Salsa20 for short messages (fewer blocks than half a wide kernel step), one
//! block at a time in general registers.
//!
//! One block is a chain of 80 dependent (add, rotate, xor) steps, so its time is that
//! chain's latency. Scalar `add`, `rol` and `xor` take one cycle each: three cycles a step.
//! The AVX-512 row kernel (avx512_rows.rs) does the same steps on vectors; where those
//! take one cycle it wins (it has none of the scalar code's register spills), but where
//! simple vector integer instructions take two cycles (AMD Zen 5) its chain is six cycles a
//! step and this kernel is faster: [`rows_win`] chooses. The backends without a one-block
//! vector kernel (SSE2, AVX2, NEON) always come here.
//!
//! Unlike the portable code (the reference, written for clarity), it takes the counter
//! apart from the state (no rewritten copy of the state), and reads the state word by word
//! so that every load is forwarded from the constructor's store.
//!
//! ## What this file holds
//!
//! the short-message path of every backend but AVX-512 on Intel: one block at a time in scalar
//! registers, the counter carried per block; `rows_win` (by `cpu::identity`) says where the
//! AVX-512 row kernel is faster

use super::BLOCK_LEN;
use cipher::InOutBuf;

/// One quarter-round on the named words (the specification's `quarterround`).
macro_rules! quarter {
    ($a:ident, $b:ident, $c:ident, $d:ident) => {
        $b ^= $a.wrapping_add($d).rotate_left(7);
        $c ^= $b.wrapping_add($a).rotate_left(9);
        $d ^= $c.wrapping_add($b).rotate_left(13);
        $a ^= $d.wrapping_add($c).rotate_left(18);
    };
}

/// The 16 words of the state behind `p` after `DR` double rounds, before the feed-forward
/// (words 8 and 9, the counter's place, are not read: `counter` replaces them).
///
/// # Safety
///
/// `p` is valid for reading 16 words.
#[inline(always)]
unsafe fn rounds<const DR: u32>(p: *const u32, counter: u64) -> [u32; 16] {
    // Read in place, each word where it is needed, rather than copied to a local array
    // first (which the compiler keeps on the stack: 16 more stores and loads per block).
    // SAFETY: i < 16, and `p` is valid for 16 words (the caller's promise).
    let word = |i: usize| unsafe { p.add(i).read() };
    let (c0, c1) = (counter as u32, (counter >> 32) as u32);
    let (mut x0, mut x1, mut x2, mut x3, mut x4, mut x5, mut x6, mut x7) =
        (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7));
    let (mut x8, mut x9, mut x10, mut x11, mut x12, mut x13, mut x14, mut x15) =
        (c0, c1, word(10), word(11), word(12), word(13), word(14), word(15));
    macro_rules! double_round {
        () => {
            quarter!(x0, x4, x8, x12);
            quarter!(x5, x9, x13, x1);
            quarter!(x10, x14, x2, x6);
            quarter!(x15, x3, x7, x11);
            quarter!(x0, x1, x2, x3);
            quarter!(x5, x6, x7, x4);
            quarter!(x10, x11, x8, x9);
            quarter!(x15, x12, x13, x14);
        };
    }
    // DR is even for every Salsa20 variant (10, 6, 4).
    for _ in 0..DR / 2 {
        double_round!();
        double_round!();
    }
    [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15]
}

/// Keystream word `i` of a block: `x[i]` plus the input word (the feed-forward), the
/// input word read again from the state behind `p` (the counter's words from `counter`).
///
/// # Safety
///
/// `p` is valid for reading 16 words.
#[inline(always)]
unsafe fn feed_forward(x: &[u32; 16], p: *const u32, counter: u64, i: usize) -> u32 {
    x[i].wrapping_add(match i {
        8 => counter as u32,
        9 => (counter >> 32) as u32,
        // SAFETY: i < 16 (it indexes `x`), and `p` is valid for 16 words.
        _ => unsafe { p.add(i).read() },
    })
}

/// Whether the AVX-512 row kernel is the faster one-block kernel on this CPU: yes except on
/// AMD family 0x1A (Zen 5), where simple vector integer instructions take two cycles
/// (measured, with the kernels' timings on that CPU: docs/tuning-history.md,
/// "BENCHMARKS.md before issue 42"). Chosen by measured family; other families keep the rows, which were measured
/// faster on Intel (Sapphire Rapids). Zen 4 (family 0x19, one-cycle vector integer
/// latency) has not been measured and keeps the rows.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn rows_win() -> bool {
    !crate::cpu::identity().is_amd_zen5()
}

/// XORs the keystream into `io` one block at a time, from block `counter` (words 8 and 9
/// of `state` are ignored); for messages shorter than a wide kernel step.
pub(crate) fn xor_keystream(state: &[u32; 16], counter: u64, double_rounds: u32, io: InOutBuf<'_, '_, u8>) {
    with_round_count!(double_rounds, xor_n(state, counter, io))
}

#[inline(always)]
fn xor_n<const DR: u32>(state: &[u32; 16], mut counter: u64, io: InOutBuf<'_, '_, u8>) {
    // Through `black_box`, which keeps the compiler from merging the word loads into wider
    // ones: a wide load spanning several of the constructor's smaller stores is not
    // forwarded from them and waits until they reach the cache (the same reason as
    // avx512_rows.rs's `load_state`).
    let p = core::hint::black_box(state.as_ptr());
    let len = io.len();
    let (inp, out) = io.into_raw();
    let mut done = 0;
    while len - done >= BLOCK_LEN {
        // SAFETY: `p` is `state`'s pointer: 16 readable words.
        let x = unsafe { rounds::<DR>(p, counter) };
        // The feed-forward reads the state again (through a pointer the compiler cannot
        // see through) instead of keeping the words it read first: with every register
        // taken by the rounds, kept words are stack copies, 16 more stores per block. The
        // keystream goes to a local block and is XORed in 16 bytes at a time: done word by
        // word, the pointers and offsets no longer fit in registers beside the 16 words
        // and were reloaded for every word.
        let q = core::hint::black_box(p);
        let mut ks = [0u8; BLOCK_LEN];
        for (i, chunk) in ks.chunks_exact_mut(4).enumerate() {
            // SAFETY: i < 16; `q` is `p`.
            chunk.copy_from_slice(&unsafe { feed_forward(&x, q, counter, i) }.to_le_bytes());
        }
        for (j, k) in ks.chunks_exact(16).enumerate() {
            let k = u128::from_ne_bytes(k.try_into().expect("16 bytes"));
            // SAFETY: done + 16j + 16 <= done + 64 <= len, the length of both buffers behind
            // `inp` and `out` (equal lengths, possibly the same memory: each chunk is read
            // before it is written).
            unsafe {
                let m = inp.add(done + 16 * j).cast::<u128>().read_unaligned();
                out.add(done + 16 * j).cast::<u128>().write_unaligned(m ^ k);
            }
        }
        counter = counter.wrapping_add(1);
        done += BLOCK_LEN;
    }
    if done < len {
        // SAFETY: as above.
        let x = unsafe { rounds::<DR>(p, counter) };
        let mut bytes = [0u8; BLOCK_LEN];
        for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
            // SAFETY: i < 16; `p` as above.
            chunk.copy_from_slice(&unsafe { feed_forward(&x, p, counter, i) }.to_le_bytes());
        }
        for (i, k) in bytes[..len - done].iter().enumerate() {
            // SAFETY: done + i < len, in both buffers (read before written).
            unsafe { *out.add(done + i) = *inp.add(done + i) ^ k };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This kernel, and on x86-64 with AVX-512 the row kernel (which the dispatch may not
    /// pick on this CPU), against the portable code: every length up to eight blocks, the
    /// counter across the 32-bit word boundary, each round count.
    #[test]
    fn short_kernels_match_portable() {
        #[cfg(target_arch = "x86_64")]
        let rows = crate::cpu::features().has(crate::cpu::Feature::Avx512F);
        #[cfg(not(target_arch = "x86_64"))]
        let rows = false;
        let exercised = if rows { vec!["scalar_short", "avx512_rows"] } else { vec!["scalar_short"] };
        for counter in [0u64, 7, (1 << 32) - 2, u64::MAX - 9] {
            for len in 0..=8 * BLOCK_LEN + 1 {
                for dr in [4, 6, 10] {
                    let mut state: [u32; 16] = core::array::from_fn(|i| (i as u32).wrapping_mul(0x9E37_79B9) ^ 0xA5A5);
                    state[8] = counter as u32;
                    state[9] = (counter >> 32) as u32;
                    let input: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
                    let mut expected = input.clone();
                    super::super::portable::xor_keystream(&state, dr, (&mut expected[..]).into());
                    // Words 8 and 9 are ignored: the counter comes apart.
                    state[8] ^= 0xDEAD;
                    let mut got = input.clone();
                    xor_keystream(&state, counter, dr, (&mut got[..]).into());
                    assert_eq!(got, expected, "scalar_short counter {counter} len {len} dr {dr}");
                    #[cfg(target_arch = "x86_64")]
                    if rows {
                        let mut got = vec![0u8; len];
                        // SAFETY: `rows` is true only where avx512f (all the kernel enables) was detected.
                        unsafe {
                            super::super::avx512_rows::xor_keystream(
                                &state,
                                counter,
                                dr,
                                cipher::InOutBuf::new(&input, &mut got).unwrap(),
                            )
                        };
                        assert_eq!(got, expected, "avx512_rows counter {counter} len {len} dr {dr}");
                    }
                }
            }
        }
        println!("short_kernels_match_portable: exercised {}", exercised.join(", "));
    }
}
