//! Does an AVX2 (+GFNI) Streebog LPS beat the portable 8×256 tables? Times, per LPS on
//! one 64-byte state, in one dependent chain (each output feeds the next LPS), in four
//! independent chains interleaved (as in a batch), and in compressions (25 LPS shaped like
//! g_N: the key and state chains side by side, each compression feeding the next, as in one
//! long message; the last column turns this into the MiB/s of a hash):
//!
//! - `tables`: the portable backend's LPS (64 table lookups, its x86-64 `asm!`), called
//!   through `simdcrypt::streebog::bench_hooks`;
//! - `sbox-avx2`: the S-box alone on two ymm registers by sixteen `vpshufb` lookups whose
//!   selection costs one saturating add each (see `avx2::sbox`): a lower bound on any AVX2
//!   LPS that computes S by lookups;
//! - `sbox-textbook`: the same with the usual selection (XOR and saturating add per
//!   lookup), for comparison;
//! - `lps-avx2-gfni`: a whole LPS on two ymm: S as `sbox-avx2`, then P and L by sixteen
//!   `gf2p8affineqb` on qword rotations (the scheme of the `avx512-gfni` backend, split
//!   into two 256-bit halves), then an 8×8 byte transposition.
//!
//! Each contender is checked against the tables (or π) on random states first. Timing is
//! thread CPU time on 64-bit Linux (other processes on a shared machine do not count),
//! best and median of interleaved rounds.
//!
//! Build and run (x86-64; the AVX2 rows need AVX2 and GFNI and are skipped without them):
//! `CARGO_PROFILE_RELEASE_LTO=thin cargo build --release -p simdcrypt-bench --example streebog_lps`,
//! then `target/release/examples/streebog_lps [LPS_PER_ROUND [ROUNDS]]` (default 2^20, 7).

use std::hint::black_box;

use simdcrypt::streebog::bench_hooks;
use simdcrypt_bench::thread_cpu_seconds;

/// A small xorshift generator: the inputs only need to be varied, not secret.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// `n` dependent LPS by the tables; returns the last state.
fn chain_tables(x: [u64; 8], y: &[u64; 8], n: usize) -> [u64; 8] {
    let mut x = x;
    for _ in 0..n {
        bench_hooks::portable_lpsx(&mut x, y);
    }
    x
}

/// Four interleaved chains of `n` LPS each by the tables.
fn chains4_tables(x: [[u64; 8]; 4], y: &[u64; 8], n: usize) -> [[u64; 8]; 4] {
    let mut x = x;
    for _ in 0..n {
        for xi in &mut x {
            bench_hooks::portable_lpsx(xi, y);
        }
    }
    x
}

/// `blocks` compressions shaped like g_N(h, m) (the standard's 7): K ← LPS(h ⊕ N), then
/// twelve rounds of t ← LPS(t ⊕ K) and K ← LPS(K ⊕ C_i), two chains side by side, 25 LPS;
/// h ← h ⊕ t ⊕ K ⊕ m feeds the next. `c` stands for the round constants (the cost does not
/// depend on their values); m and N stay fixed.
fn compress_tables(h: [u64; 8], m: &[u64; 8], n: &[u64; 8], c: &[[u64; 8]; 12], blocks: usize) -> [u64; 8] {
    let mut h = h;
    for _ in 0..blocks {
        let mut k = h;
        bench_hooks::portable_lpsx(&mut k, n);
        let mut t = *m;
        for ci in c {
            bench_hooks::portable_lpsx(&mut t, &k);
            bench_hooks::portable_lpsx(&mut k, ci);
        }
        for i in 0..8 {
            h[i] ^= t[i] ^ k[i] ^ m[i];
        }
    }
    h
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::*;

    use super::bench_hooks::{A, PI};

    /// The 8×8 bit matrix, in `gf2p8affineqb`'s layout, of block (i, j) of l (output byte
    /// i of a word from its input byte j); as in the `avx512-gfni` backend.
    fn block_matrix(i: usize, j: usize) -> u64 {
        let mut m = 0u64;
        for r in 0..8 {
            for k in 0..8 {
                let bit = A[63 - 8 * j - k] >> (8 * i + r) & 1;
                m |= bit << (8 * (7 - r) + k);
            }
        }
        m
    }

    /// The constants, in registers (or spilled: there are more than 16).
    #[derive(Clone, Copy)]
    pub struct Consts {
        /// Lookup tables of [`sbox`]: `[group][k]`, the same 16 bytes in both lanes.
        u: [[__m256i; 8]; 2],
        /// Row h of π (π(16h + i) in byte i), in both lanes: the tables of [`sbox_textbook`].
        rows: [__m256i; 16],
        /// `16·k` in every byte, k = 1..8 (index k − 1).
        steps: [__m256i; 7],
        /// `MATRICES[k]` of the AVX-512 backend as (qwords 0..4, qwords 4..8).
        matrices: [[__m256i; 2]; 8],
        /// The in-lane byte shuffle of [`transpose`]'s first step.
        pair: __m256i,
        /// The dword permutation of [`transpose`]'s last step.
        dwords: __m256i,
    }

    fn ymm(bytes: &[u8; 32]) -> __m256i {
        // SAFETY: `bytes` is 32 readable bytes; the load is unaligned; AVX is implied by the
        // AVX2 that `Consts::detect` found before any caller runs.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }

    fn ymm_words(w: [u64; 4]) -> __m256i {
        let mut b = [0u8; 32];
        for (c, w) in b.chunks_exact_mut(8).zip(w) {
            c.copy_from_slice(&w.to_le_bytes());
        }
        ymm(&b)
    }

    impl Consts {
        /// The constants, only where the CPU has AVX2 and GFNI: holding a `Consts` is the
        /// proof that the kernels below may run.
        pub fn detect() -> Option<Self> {
            (is_x86_feature_detected!("avx2") && is_x86_feature_detected!("gfni")).then(Self::new)
        }

        fn new() -> Self {
            // Group g handles the bytes whose high nibble is 8g + m (m < 8), read as
            // z = x ⊕ 0x80·g. Lookup k indexes table u[g][k] with z + 16k (saturating): its
            // top bit, which makes `vpshufb` write zero, is clear exactly when m < 8 − k, and
            // its low nibble is x's. So a byte with local high nibble m gets
            // u[g][0] ⊕ … ⊕ u[g][7 − m], which must be row 8g + m of π: u[g][0] is row 8g + 7
            // and u[g][k] the XOR of rows 8g + 7 − k and 8g + 8 − k.
            let row = |h: usize| -> [u8; 16] { core::array::from_fn(|i| PI[16 * h + i]) };
            let u = core::array::from_fn(|g| {
                core::array::from_fn(|k| {
                    let t: [u8; 16] = if k == 0 {
                        row(8 * g + 7)
                    } else {
                        let (a, b) = (row(8 * g + 7 - k), row(8 * g + 8 - k));
                        core::array::from_fn(|i| a[i] ^ b[i])
                    };
                    ymm(&core::array::from_fn(|i| t[i % 16]))
                })
            });
            let rows = core::array::from_fn(|h| {
                let r = row(h);
                ymm(&core::array::from_fn(|i| r[i % 16]))
            });
            let steps = core::array::from_fn(|k| ymm(&[16 * (k as u8 + 1); 32]));
            let matrices = core::array::from_fn(|k| {
                let m: [u64; 8] = core::array::from_fn(|q| block_matrix(q, (q + k) % 8));
                [ymm_words([m[0], m[1], m[2], m[3]]), ymm_words([m[4], m[5], m[6], m[7]])]
            });
            let pair = ymm(&core::array::from_fn(|i| {
                let i = i % 16;
                (i / 2 + 8 * (i % 2)) as u8
            }));
            let dwords = ymm(&core::array::from_fn(|i| {
                // Little-endian u32 lanes [0, 4, 1, 5, 2, 6, 3, 7].
                let lane = [0u8, 4, 1, 5, 2, 6, 3, 7][i / 4];
                if i % 4 == 0 {
                    lane
                } else {
                    0
                }
            }));
            Consts { u, rows, steps, matrices, pair, dwords }
        }
    }

    /// π on each of the 32 bytes: sixteen `vpshufb`, fourteen saturating adds, one XOR to
    /// flip the top bit and fifteen XORs to combine (46 instructions).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn sbox(k: &Consts, x: __m256i) -> __m256i {
        let z = [x, _mm256_xor_si256(x, _mm256_set1_epi8(-128))];
        let t: [__m256i; 16] = core::array::from_fn(|i| {
            let (g, s) = (i / 8, i % 8);
            let idx = if s == 0 { z[g] } else { _mm256_adds_epu8(z[g], k.steps[s - 1]) };
            _mm256_shuffle_epi8(k.u[g][s], idx)
        });
        // A balanced tree: the shortest latency.
        let x2: [__m256i; 8] = core::array::from_fn(|i| _mm256_xor_si256(t[2 * i], t[2 * i + 1]));
        let x4: [__m256i; 4] = core::array::from_fn(|i| _mm256_xor_si256(x2[2 * i], x2[2 * i + 1]));
        _mm256_xor_si256(_mm256_xor_si256(x4[0], x4[1]), _mm256_xor_si256(x4[2], x4[3]))
    }

    /// π as [`sbox`], the textbook way: lookup h reads row h of π with index
    /// (x ⊕ 16h) + 0x70 (saturating), whose top bit is clear only where x's high nibble is
    /// h; 16 × (XOR, add, `vpshufb`) and fifteen XORs (63 instructions).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn sbox_textbook(k: &Consts, x: __m256i) -> __m256i {
        let c70 = _mm256_set1_epi8(0x70);
        let t: [__m256i; 16] = core::array::from_fn(|h| {
            let idx = _mm256_adds_epu8(_mm256_xor_si256(x, _mm256_set1_epi8((16 * h) as u8 as i8)), c70);
            _mm256_shuffle_epi8(k.rows[h], idx)
        });
        let x2: [__m256i; 8] = core::array::from_fn(|i| _mm256_xor_si256(t[2 * i], t[2 * i + 1]));
        let x4: [__m256i; 4] = core::array::from_fn(|i| _mm256_xor_si256(x2[2 * i], x2[2 * i + 1]));
        _mm256_xor_si256(_mm256_xor_si256(x4[0], x4[1]), _mm256_xor_si256(x4[2], x4[3]))
    }

    /// [`sbox`] if `!TEXTBOOK`, else [`sbox_textbook`].
    #[inline]
    #[target_feature(enable = "avx2")]
    fn sbox_of<const TEXTBOOK: bool>(k: &Consts, x: __m256i) -> __m256i {
        if TEXTBOOK {
            sbox_textbook(k, x)
        } else {
            sbox(k, x)
        }
    }

    /// The byte transposition of a 64-byte value in (lo, hi): output byte 8w + i is input
    /// byte 8i + w.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn transpose(k: &Consts, lo: __m256i, hi: __m256i) -> (__m256i, __m256i) {
        // Each lane holds rows i, i + 1; pair their bytes of each column as 16-bit units.
        let lo = _mm256_shuffle_epi8(lo, k.pair);
        let hi = _mm256_shuffle_epi8(hi, k.pair);
        // (rows 01, rows 45) and (rows 23, rows 67), then 32-bit units of rows 0123 / 4567
        // for columns 0..4 (l) and 4..8 (h), then the two halves of each column side by side.
        let x = _mm256_permute2x128_si256::<0x20>(lo, hi);
        let y = _mm256_permute2x128_si256::<0x31>(lo, hi);
        let l = _mm256_unpacklo_epi16(x, y);
        let h = _mm256_unpackhi_epi16(x, y);
        (_mm256_permutevar8x32_epi32(l, k.dwords), _mm256_permutevar8x32_epi32(h, k.dwords))
    }

    /// L∘P∘S of (lo, hi) = qwords 0..4, 4..8: the `avx512-gfni` backend's eight affine
    /// steps on s rotated by 0..8 qwords, each on two halves. Rotations by 4 swap the
    /// halves; by 2 they are one `vperm2i128` per half; by 1 and 3 a `vpermq` and a blend.
    ///
    /// A macro, used only inside functions with AVX2 and GFNI: as a `target_feature`
    /// function it was not inlined into the chains and passed its vectors through memory.
    macro_rules! lps {
        ($k:expr, $lo:expr, $hi:expr) => {{
            let (k, lo, hi): (&Consts, __m256i, __m256i) = ($k, $lo, $hi);
            let a = sbox(k, lo);
            let b = sbox(k, hi);
            let a1 = _mm256_permute4x64_epi64::<0b00_11_10_01>(a);
            let b1 = _mm256_permute4x64_epi64::<0b00_11_10_01>(b);
            let a3 = _mm256_permute4x64_epi64::<0b10_01_00_11>(a);
            let b3 = _mm256_permute4x64_epi64::<0b10_01_00_11>(b);
            let r: [(__m256i, __m256i); 8] = [
                (a, b),
                (_mm256_blend_epi32::<0xc0>(a1, b1), _mm256_blend_epi32::<0xc0>(b1, a1)),
                (_mm256_permute2x128_si256::<0x21>(a, b), _mm256_permute2x128_si256::<0x21>(b, a)),
                (_mm256_blend_epi32::<0x03>(b3, a3), _mm256_blend_epi32::<0x03>(a3, b3)),
                (b, a),
                (_mm256_blend_epi32::<0xc0>(b1, a1), _mm256_blend_epi32::<0xc0>(a1, b1)),
                (_mm256_permute2x128_si256::<0x21>(b, a), _mm256_permute2x128_si256::<0x21>(a, b)),
                (_mm256_blend_epi32::<0x03>(a3, b3), _mm256_blend_epi32::<0x03>(b3, a3)),
            ];
            let m = &k.matrices;
            let f = |i: usize| {
                (
                    _mm256_gf2p8affine_epi64_epi8::<0>(r[i].0, m[i][0]),
                    _mm256_gf2p8affine_epi64_epi8::<0>(r[i].1, m[i][1]),
                )
            };
            let p: [(__m256i, __m256i); 8] = core::array::from_fn(f);
            let x =
                |a: (__m256i, __m256i), b: (__m256i, __m256i)| (_mm256_xor_si256(a.0, b.0), _mm256_xor_si256(a.1, b.1));
            let o = x(x(x(p[0], p[1]), x(p[2], p[3])), x(x(p[4], p[5]), x(p[6], p[7])));
            transpose(k, o.0, o.1)
        }};
    }

    fn load(w: &[u64; 8]) -> (__m256i, __m256i) {
        (ymm_words([w[0], w[1], w[2], w[3]]), ymm_words([w[4], w[5], w[6], w[7]]))
    }

    fn store(v: (__m256i, __m256i)) -> [u64; 8] {
        let mut out = [0u64; 8];
        // SAFETY: `out` is 64 writable bytes; the stores are unaligned; AVX as in `ymm`.
        unsafe {
            _mm256_storeu_si256(out.as_mut_ptr().cast(), v.0);
            _mm256_storeu_si256(out.as_mut_ptr().add(4).cast(), v.1);
        }
        out
    }

    /// π on 64 bytes by [`sbox`], for the check.
    #[target_feature(enable = "avx2")]
    fn sbox_words_tf<const TEXTBOOK: bool>(k: &Consts, x: &[u64; 8]) -> [u64; 8] {
        let (lo, hi) = load(x);
        store((sbox_of::<TEXTBOOK>(k, lo), sbox_of::<TEXTBOOK>(k, hi)))
    }

    /// LPS(x ⊕ y) by [`lps!`], for the check.
    #[target_feature(enable = "avx2,gfni")]
    fn lpsx_words_tf(k: &Consts, x: &[u64; 8], y: &[u64; 8]) -> [u64; 8] {
        let (xl, xh) = load(x);
        let (yl, yh) = load(y);
        store(lps!(k, _mm256_xor_si256(xl, yl), _mm256_xor_si256(xh, yh)))
    }

    /// `n` dependent S-box applications (x ← S(x ⊕ y)) on both halves.
    #[target_feature(enable = "avx2")]
    fn chain_sbox_tf<const TEXTBOOK: bool>(k: &Consts, x: &[u64; 8], y: &[u64; 8], n: usize) -> [u64; 8] {
        let (mut lo, mut hi) = load(x);
        let (yl, yh) = load(y);
        for _ in 0..n {
            lo = sbox_of::<TEXTBOOK>(k, _mm256_xor_si256(lo, yl));
            hi = sbox_of::<TEXTBOOK>(k, _mm256_xor_si256(hi, yh));
        }
        store((lo, hi))
    }

    /// Four interleaved chains of [`chain_sbox`].
    #[target_feature(enable = "avx2")]
    fn chains4_sbox_tf<const TEXTBOOK: bool>(k: &Consts, x: &[[u64; 8]; 4], y: &[u64; 8], n: usize) -> [[u64; 8]; 4] {
        let mut v: [(__m256i, __m256i); 4] = core::array::from_fn(|i| load(&x[i]));
        let (yl, yh) = load(y);
        for _ in 0..n {
            for vi in &mut v {
                *vi = (
                    sbox_of::<TEXTBOOK>(k, _mm256_xor_si256(vi.0, yl)),
                    sbox_of::<TEXTBOOK>(k, _mm256_xor_si256(vi.1, yh)),
                );
            }
        }
        v.map(store)
    }

    /// `n` dependent LPS (x ← LPS(x ⊕ y)), the state in registers.
    #[target_feature(enable = "avx2,gfni")]
    fn chain_lps_tf(k: &Consts, x: &[u64; 8], y: &[u64; 8], n: usize) -> [u64; 8] {
        let mut v = load(x);
        let (yl, yh) = load(y);
        for _ in 0..n {
            v = lps!(k, _mm256_xor_si256(v.0, yl), _mm256_xor_si256(v.1, yh));
        }
        store(v)
    }

    /// Four interleaved chains of [`chain_lps`].
    #[target_feature(enable = "avx2,gfni")]
    fn chains4_lps_tf(k: &Consts, x: &[[u64; 8]; 4], y: &[u64; 8], n: usize) -> [[u64; 8]; 4] {
        let mut v: [(__m256i, __m256i); 4] = core::array::from_fn(|i| load(&x[i]));
        let (yl, yh) = load(y);
        for _ in 0..n {
            for vi in &mut v {
                *vi = lps!(k, _mm256_xor_si256(vi.0, yl), _mm256_xor_si256(vi.1, yh));
            }
        }
        v.map(store)
    }

    /// [`super::compress_tables`] by [`lps!`], h in registers.
    #[target_feature(enable = "avx2,gfni")]
    fn compress_tf(
        k: &Consts,
        h: &[u64; 8],
        m: &[u64; 8],
        n: &[u64; 8],
        c: &[[u64; 8]; 12],
        blocks: usize,
    ) -> [u64; 8] {
        let x = |a: (__m256i, __m256i), b: (__m256i, __m256i)| (_mm256_xor_si256(a.0, b.0), _mm256_xor_si256(a.1, b.1));
        let (mut h, m, n) = (load(h), load(m), load(n));
        let c: [(__m256i, __m256i); 12] = core::array::from_fn(|i| load(&c[i]));
        for _ in 0..blocks {
            let v = x(h, n);
            let mut key = lps!(k, v.0, v.1);
            let mut t = m;
            for ci in &c {
                let v = x(t, key);
                t = lps!(k, v.0, v.1);
                let v = x(key, *ci);
                key = lps!(k, v.0, v.1);
            }
            h = x(x(h, t), x(key, m));
        }
        store(h)
    }

    /// Safe entry points: a [`Consts`] exists only where [`Consts::detect`] found AVX2
    /// and GFNI, which every kernel here requires.
    impl Consts {
        pub fn sbox_words<const TEXTBOOK: bool>(&self, x: &[u64; 8]) -> [u64; 8] {
            // SAFETY: AVX2 (see the impl's doc).
            unsafe { sbox_words_tf::<TEXTBOOK>(self, x) }
        }

        pub fn lpsx_words(&self, x: &[u64; 8], y: &[u64; 8]) -> [u64; 8] {
            // SAFETY: AVX2 and GFNI (see the impl's doc).
            unsafe { lpsx_words_tf(self, x, y) }
        }

        pub fn chain_sbox<const TEXTBOOK: bool>(&self, x: &[u64; 8], y: &[u64; 8], n: usize) -> [u64; 8] {
            // SAFETY: AVX2 (see the impl's doc).
            unsafe { chain_sbox_tf::<TEXTBOOK>(self, x, y, n) }
        }

        pub fn chains4_sbox<const TEXTBOOK: bool>(&self, x: &[[u64; 8]; 4], y: &[u64; 8], n: usize) -> [[u64; 8]; 4] {
            // SAFETY: AVX2 (see the impl's doc).
            unsafe { chains4_sbox_tf::<TEXTBOOK>(self, x, y, n) }
        }

        pub fn chain_lps(&self, x: &[u64; 8], y: &[u64; 8], n: usize) -> [u64; 8] {
            // SAFETY: AVX2 and GFNI (see the impl's doc).
            unsafe { chain_lps_tf(self, x, y, n) }
        }

        pub fn compress(
            &self,
            h: &[u64; 8],
            m: &[u64; 8],
            n: &[u64; 8],
            c: &[[u64; 8]; 12],
            blocks: usize,
        ) -> [u64; 8] {
            // SAFETY: AVX2 and GFNI (see the impl's doc).
            unsafe { compress_tf(self, h, m, n, c, blocks) }
        }

        pub fn chains4_lps(&self, x: &[[u64; 8]; 4], y: &[u64; 8], n: usize) -> [[u64; 8]; 4] {
            // SAFETY: AVX2 and GFNI (see the impl's doc).
            unsafe { chains4_lps_tf(self, x, y, n) }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: streebog_lps [LPS_PER_ROUND [ROUNDS]]";
    let n: usize = args.get(1).map(|a| a.parse().expect(usage)).unwrap_or(1 << 20);
    let rounds: usize = args.get(2).map(|a| a.parse().expect(usage)).unwrap_or(7);

    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = || -> [u64; 8] { core::array::from_fn(|_| next(&mut seed)) };
    let y = random();
    let x4: [[u64; 8]; 4] = core::array::from_fn(|_| random());
    let c: [[u64; 8]; 12] = core::array::from_fn(|_| random());
    // Compressions per round: 25 LPS each.
    let blocks = n.div_ceil(25);

    #[cfg(target_arch = "x86_64")]
    let avx2 = avx2::Consts::detect();
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = &avx2 {
        for _ in 0..1000 {
            let (x, y) = (random(), random());
            let mut expect = x;
            bench_hooks::portable_lpsx(&mut expect, &y);
            assert_eq!(k.lpsx_words(&x, &y), expect, "AVX2+GFNI LPS differs from the tables");
            let want: [u64; 8] = core::array::from_fn(|w| {
                u64::from_le_bytes(core::array::from_fn(|b| bench_hooks::PI[(x[w] >> (8 * b)) as u8 as usize]))
            });
            assert_eq!(k.sbox_words::<false>(&x), want, "AVX2 S-box differs from π");
            assert_eq!(k.compress(&x, &y, &c[0], &c, 2), compress_tables(x, &y, &c[0], &c, 2), "AVX2+GFNI compression");
            assert_eq!(k.sbox_words::<true>(&x), want, "textbook AVX2 S-box differs from π");
        }
    }

    type Run<'a> = Box<dyn Fn() -> u64 + 'a>;
    let mut contenders: Vec<(&str, usize, Run)> = vec![
        ("tables, 1 chain", n, Box::new(|| chain_tables(x4[0], &y, n)[0])),
        ("tables, 4 chains", 4 * n, Box::new(|| chains4_tables(x4, &y, n)[0][0])),
        ("tables, compressions", 25 * blocks, Box::new(|| compress_tables(x4[0], &x4[1], &y, &c, blocks)[0])),
    ];
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = &avx2 {
        let k = *k;
        let avx2_rows: [(&str, usize, Run); 7] = [
            ("sbox-avx2, 1 chain", n, Box::new(move || k.chain_sbox::<false>(&x4[0], &y, n)[0])),
            ("sbox-avx2, 4 chains", 4 * n, Box::new(move || k.chains4_sbox::<false>(&x4, &y, n)[0][0])),
            ("sbox-textbook, 1 chain", n, Box::new(move || k.chain_sbox::<true>(&x4[0], &y, n)[0])),
            ("sbox-textbook, 4 chains", 4 * n, Box::new(move || k.chains4_sbox::<true>(&x4, &y, n)[0][0])),
            ("lps-avx2-gfni, 1 chain", n, Box::new(move || k.chain_lps(&x4[0], &y, n)[0])),
            ("lps-avx2-gfni, 4 chains", 4 * n, Box::new(move || k.chains4_lps(&x4, &y, n)[0][0])),
            (
                "lps-avx2-gfni, compressions",
                25 * blocks,
                Box::new(move || k.compress(&x4[0], &x4[1], &y, &c, blocks)[0]),
            ),
        ];
        contenders.extend(avx2_rows);
    }
    #[cfg(target_arch = "x86_64")]
    if avx2.is_none() {
        println!("(no AVX2+GFNI on this CPU: the tables only)");
    }

    let mut times: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    for _ in 0..rounds {
        for ((_, _, run), t) in contenders.iter().zip(&mut times) {
            let start = thread_cpu_seconds();
            black_box(run());
            t.push(thread_cpu_seconds() - start);
        }
    }
    println!("{n} LPS per chain, {rounds} interleaved rounds, thread CPU time");
    println!("  ns per LPS (best, median); MiB/s that the best would hash at 25 LPS per 64-byte block");
    for ((name, count, _), t) in contenders.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        let per = |s: f64| s * 1e9 / *count as f64;
        let mib_s = 64.0 / (25.0 * per(t[0]) * 1e-9) / (1 << 20) as f64;
        println!("  {name:<28} {:>7.2} {:>7.2} {mib_s:>8.1}", per(t[0]), per(t[t.len() / 2]));
    }
}
