//! What the wide kernels (`sse2_x4`, `avx2_x16`, `avx512_x16`, `neon_x4`) share of their
//! step: the state set up one block per 32-bit lane, the double rounds and the
//! feed-forward, written once over [`Words`], a register of lanes with the handful of
//! operations Salsa20 needs. Each kernel implements `Words` for its vector type with
//! `#[inline(always)]` methods, so all of this is inlined into the kernel's
//! `#[target_feature]` function and compiles to the same instructions as code written
//! with the intrinsics in place.
//!
//! ## What this file holds
//!
//! the wide kernels' shared body over a per-ISA `Words` trait (add, xor, rotate, zips, counter
//! words): lane set-up with per-block 64-bit counters, the double rounds, the feed-forward and
//! the 4×4 transpose

/// A register of 32-bit lanes, one block per lane.
///
/// # Safety
///
/// The methods use the kernel's SIMD instructions without declaring them: they may only be
/// called from code compiled with the kernel's target features (into which they are
/// inlined), which runs only once its `Platform` was checked.
pub(crate) unsafe trait Words: Copy {
    /// `w` in every lane.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn splat(w: u32) -> Self;
    /// Words 8 and 9 of the blocks `counter`, `counter + 1`, ... (one per lane): the low and
    /// the high half of each lane's own 64-bit counter, so the carry into word 9 is per block.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn counter_words(counter: u64) -> (Self, Self);
    /// Lane-wise wrapping addition.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// Lane-wise XOR.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// Each lane rotated left by `L` bits (`R` = 32 - `L`, for kernels that shift twice).
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn rotl<const L: i32, const R: i32>(v: Self) -> Self;
    /// Interleaves the 32-bit words of `a` and `b` within each 128-bit chunk: the low two
    /// words of each chunk (`.0`) and the high two (`.1`), as `punpck[lh]dq` / `zip[12]`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn zip32(a: Self, b: Self) -> (Self, Self);
    /// As `zip32`, for 64-bit halves of each 128-bit chunk.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn zip64(a: Self, b: Self) -> (Self, Self);
}

/// `rotl::<L, 32 - L>`, checked at compile time.
#[inline(always)]
unsafe fn rotl<W: Words, const L: i32, const R: i32>(v: W) -> W {
    const { assert!(L + R == 32) };
    // SAFETY: the caller has the kernel's features (the trait's contract).
    unsafe { W::rotl::<L, R>(v) }
}

/// One quarter-round on words `a`, `b`, `c`, `d`.
#[inline(always)]
unsafe fn quarter<W: Words>(x: &mut [W; 16], a: usize, b: usize, c: usize, d: usize) {
    // SAFETY: the caller has the kernel's features (the trait's contract).
    unsafe {
        x[b] = W::xor(x[b], rotl::<W, 7, 25>(W::add(x[a], x[d])));
        x[c] = W::xor(x[c], rotl::<W, 9, 23>(W::add(x[b], x[a])));
        x[d] = W::xor(x[d], rotl::<W, 13, 19>(W::add(x[c], x[b])));
        x[a] = W::xor(x[a], rotl::<W, 18, 14>(W::add(x[d], x[c])));
    }
}

/// The keystream words of one step, blocks `counter ..` one per lane: register `i` holds
/// word `i` of every block (`DR` double rounds, then the feed-forward).
///
/// # Safety
///
/// Only from code compiled with `W`'s kernel's target features (see [`Words`]).
#[inline(always)]
pub(crate) unsafe fn keystream_words<W: Words, const DR: u32>(state: &[u32; 16], counter: u64) -> [W; 16] {
    // SAFETY: the caller has the kernel's features (the trait's contract); the whole body.
    unsafe {
        // A loop, not `array::from_fn` (see `quads`).
        let (c8, c9) = W::counter_words(counter);
        let mut x = [c8; 16];
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = match i {
                8 => c8,
                9 => c9,
                _ => W::splat(state[i]),
            };
        }
        for _ in 0..DR {
            // Columns, then rows.
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
        for (i, xi) in x.iter_mut().enumerate() {
            let input = match i {
                8 => c8,
                9 => c9,
                _ => W::splat(state[i]),
            };
            *xi = W::add(*xi, input);
        }
        x
    }
}

/// The words of a step turned towards block order within each 128-bit chunk: chunk `k` of
/// `y[g][r]` holds words `4g .. 4g + 4` of the block in lane `4k + r` (a 4x4 transpose of
/// each group of four registers).
///
/// # Safety
///
/// As [`keystream_words`].
#[inline(always)]
pub(crate) unsafe fn quads<W: Words>(x: &[W; 16]) -> [[W; 4]; 4] {
    // Loops, not `array::from_fn`: a closure here has no target features, so neither it
    // nor the intrinsics in it would be inlined.
    let mut y = [[x[0]; 4]; 4];
    for (g, y) in y.iter_mut().enumerate() {
        // SAFETY: the caller has the kernel's features (the trait's contract).
        unsafe {
            let (t0, t1) = W::zip32(x[4 * g], x[4 * g + 1]);
            let (t2, t3) = W::zip32(x[4 * g + 2], x[4 * g + 3]);
            let ((a, b), (c, d)) = (W::zip64(t0, t2), W::zip64(t1, t3));
            *y = [a, b, c, d];
        }
    }
    y
}

/// The lanes' 64-bit counters split into low and high words: lane `j` of `.0` and `.1`
/// from `counter + j`.
#[inline(always)]
pub(crate) fn lane_counters<const N: usize>(counter: u64) -> ([u32; N], [u32; N]) {
    let c: [u64; N] = core::array::from_fn(|j| counter.wrapping_add(j as u64));
    (c.map(|c| c as u32), c.map(|c| (c >> 32) as u32))
}
