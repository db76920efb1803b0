//! GOST R 34.11-94 with AVX-512 (F, BW, VL, VBMI).
//!
//! One message: the four GOST 28147-89 encryptions of a step run in four 32-bit lanes;
//! each round's eight 4-bit S-boxes are two `vpermi2b` lookups in 64-byte tables indexed by
//! `nibble | 16 * byte position` (so one shuffle serves all four byte positions), rotated
//! apart and joined with N2 by one ternary-logic operation. Everything is arranged for the
//! latency of the serial chain from one step to the next: the keys are P of the message's
//! part (computed before H is known) XOR byte lookups in H, the mixing is applied as the
//! linear maps ψ^61 and ψ^74 on 16-bit words (masked `vpermw` layers), of which only
//! ψ^74(S) waits for the encryption, and H stays in a register from block to block.
//!
//! Many messages: sixteen messages, one per 32-bit lane; every vector holds the same
//! word of sixteen states, so the S-box lookups are the same two `vpermb`, the keys'
//! P transform is four in-lane byte shuffles, and the mixing is XORs of whole vectors.
//!
//! ## What this file holds
//!
//! AVX-512 (F, BW, VL, VBMI): the four encryptions of a step in vector lanes, the S-boxes as
//! `vpermb` nibble lookups, ψ split into a part that overlaps the encryptions and a short
//! tail; `step_lanes`, one step of 16 messages, one per 32-bit lane

use core::arch::x86_64::*;

use super::{portable, State, Tables, BLOCK_LEN, PSI61, PSI74};
use crate::simd::{load256, load512, store256, store512};

/// Index bytes `nibble | 16 * position` from x, for the low and the high nibble of each
/// byte, tagged with the byte's position in its 32-bit word.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn nibble_indices(x: __m512i) -> (__m512i, __m512i) {
    let low = _mm512_set1_epi8(0x0f);
    let pos = _mm512_set1_epi32(0x3020_1000);
    // (x & 0x0f) | pos as one ternary-logic operation: A=x, B=low, C=pos, (A & B) | C.
    let lo = _mm512_ternarylogic_epi32::<0xEA>(x, low, pos);
    let hi = _mm512_ternarylogic_epi32::<0xEA>(_mm512_srli_epi32::<4>(x), low, pos);
    (lo, hi)
}

/// f(x) = rotl11(S(x)) on every 32-bit lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn f(tlo: __m512i, thi: __m512i, x: __m512i) -> __m512i {
    let (lo, hi) = nibble_indices(x);
    let s = _mm512_or_si512(_mm512_permutexvar_epi8(lo, tlo), _mm512_permutexvar_epi8(hi, thi));
    _mm512_rol_epi32::<11>(s)
}

/// `vpermi2b` on ymm registers: byte i of the result is byte `idx[i] & 63` of `t.0 ‖ t.1`.
///
/// In inline assembly because LLVM rewrites the intrinsic on two halves of a 64-byte
/// table into `vpermb` on the whole zmm register, which has a longer latency, and this
/// lookup is on the one-message kernel's serial chain of rounds.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn permute2_bytes(mut idx: __m256i, t: (__m256i, __m256i)) -> __m256i {
    // SAFETY: a register-only instruction of the features this function is compiled for;
    // it reads the three operands and writes only `idx`.
    unsafe {
        core::arch::asm!(
            "vpermi2b {idx}, {a}, {b}",
            idx = inout(ymm_reg) idx,
            a = in(ymm_reg) t.0,
            b = in(ymm_reg) t.1,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    idx
}

/// One round on the four 32-bit lanes of the low half of a ymm register: n2 ⊕ f(n1 + k)
/// with f(x) = rotl11(S(x)), the 64-byte tables split over two registers for `vpermi2b`.
/// The two halves of S(x) (low and high nibbles) are rotated apart and joined with n2 by
/// one ternary-logic operation, one step shorter than OR, rotate, XOR.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn round256(tlo: (__m256i, __m256i), thi: (__m256i, __m256i), n1: __m256i, n2: __m256i, k: __m256i) -> __m256i {
    let low = _mm256_set1_epi8(0x0f);
    let pos = _mm256_set1_epi32(0x3020_1000);
    let x = _mm256_add_epi32(n1, k);
    let lo = _mm256_ternarylogic_epi32::<0xEA>(x, low, pos);
    let hi = _mm256_ternarylogic_epi32::<0xEA>(_mm256_srli_epi32::<4>(x), low, pos);
    let s_lo = _mm256_rol_epi32::<11>(permute2_bytes(lo, tlo));
    let s_hi = _mm256_rol_epi32::<11>(permute2_bytes(hi, thi));
    // A=s_lo, B=s_hi, C=n2: (A | B) ^ C.
    _mm256_ternarylogic_epi32::<0x56>(s_lo, s_hi, n2)
}

/// Masked `vpermw` layers computing a ψ map: layer r puts, in output word i, the r-th
/// input word of row i (or zero), so the map is the XOR of all layers.
struct Layers {
    idx: [[u16; 16]; 16],
    mask: [u16; 16],
    count: usize,
}

const fn layers(rows: [u16; 16]) -> Layers {
    let mut l = Layers { idx: [[0; 16]; 16], mask: [0; 16], count: 0 };
    let mut i = 0;
    while i < 16 {
        let mut r = 0;
        let mut j = 0;
        while j < 16 {
            if rows[i] >> j & 1 == 1 {
                l.idx[r][i] = j as u16;
                l.mask[r] |= 1 << i;
                r += 1;
            }
            j += 1;
        }
        if r > l.count {
            l.count = r;
        }
        i += 1;
    }
    l
}

/// [`layers`] for a map applied to S = (N2_j | N1_j << 32 for each encryption j) straight
/// from the two registers of the rounds, N2 (words 0..16 of a `vpermi2w`) and N1 (16..32):
/// 32-bit word d of S is N2's word d / 2 for even d, N1's for odd d.
const fn layers_of_halves(rows: [u16; 16]) -> Layers {
    let mut l = layers(rows);
    let mut r = 0;
    while r < 16 {
        let mut i = 0;
        while i < 16 {
            let w = l.idx[r][i] as usize;
            let word_in_half = 2 * (w / 4) + w % 2;
            l.idx[r][i] = (if (w / 2).is_multiple_of(2) { word_in_half } else { 16 + word_in_half }) as u16;
            i += 1;
        }
        r += 1;
    }
    l
}

static PSI61_LAYERS: Layers = layers(PSI61);
static PSI74_HALVES_LAYERS: Layers = layers_of_halves(PSI74);

/// XOR of `parts` as a tree of three-input XORs (ternary logic), for a short latency.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn xor_tree(parts: &mut [__m256i; 16], mut n: usize) -> __m256i {
    while n > 1 {
        let mut out = 0;
        let mut i = 0;
        while i < n {
            parts[out] = match n - i {
                1 => parts[i],
                2 => _mm256_xor_si256(parts[i], parts[i + 1]),
                // A ^ B ^ C.
                _ => _mm256_ternarylogic_epi32::<0x96>(parts[i], parts[i + 1], parts[i + 2]),
            };
            i += 3;
            out += 1;
        }
        n = out;
    }
    parts[0]
}

/// A ψ map from [`layers_of_halves`] on S given as its halves N2 and N1.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn apply_layers_halves(l: &Layers, n2: __m256i, n1: __m256i) -> __m256i {
    let mut parts = [_mm256_setzero_si256(); 16];
    for (r, part) in parts.iter_mut().enumerate().take(l.count) {
        *part = _mm256_maskz_permutex2var_epi16(l.mask[r], n2, load256(&l.idx[r]), n1);
    }
    xor_tree(&mut parts, l.count)
}

/// A ψ map on the sixteen 16-bit words of `x`, two XOR chains for a shorter latency.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn apply_layers(l: &Layers, x: __m256i) -> __m256i {
    let mut acc = [_mm256_setzero_si256(); 2];
    for r in 0..l.count {
        let idx = load256(&l.idx[r]);
        let part = _mm256_maskz_permutexvar_epi16(l.mask[r], idx, x);
        acc[r & 1] = _mm256_xor_si256(acc[r & 1], part);
    }
    _mm256_xor_si256(acc[0], acc[1])
}

/// Byte indices of the keys' P transform on W_0..W_3 (128 bytes in two registers): key
/// vector k (k < 4 in the first result, k ≥ 4 in the second) holds, in lane j, key word k
/// of encryption j, which is byte k of each of W_j's four 64-bit words.
const fn key_index(high: bool) -> [u8; 64] {
    let mut idx = [0u8; 64];
    let mut k = 0;
    while k < 4 {
        let mut j = 0;
        while j < 4 {
            let mut i = 0;
            while i < 4 {
                let kk = if high { k + 4 } else { k };
                idx[16 * k + 4 * j + i] = (32 * j + 8 * i + kk) as u8;
                i += 1;
            }
            j += 1;
        }
        k += 1;
    }
    idx
}

static KEY_INDEX: [[u8; 64]; 2] = [key_index(false), key_index(true)];

/// The keys' H part, P(A^j(H)), as byte lookups in H: qword i of A^j(H) is one word of H
/// or the XOR of two, so key byte `o` of [`key_index`]'s layout is byte `first[o]` of H,
/// XORed with byte `second[o]` where bit `o` of `mask` is set.
struct KeyFromH {
    first: [u8; 64],
    second: [u8; 64],
    mask: u64,
}

const fn key_from_h(high: bool) -> KeyFromH {
    // A^j(H) as sets of H's words (bit x: h_x): A(y) = (y1, y2, y3, y0 ⊕ y1).
    let mut a = [1u8, 2, 4, 8];
    let mut sets = [[0u8; 4]; 4];
    let mut j = 0;
    while j < 4 {
        sets[j] = a;
        a = [a[1], a[2], a[3], a[0] ^ a[1]];
        j += 1;
    }
    let mut out = KeyFromH { first: [0; 64], second: [0; 64], mask: 0 };
    let mut o = 0;
    while o < 64 {
        let (k, j, i) = (o / 16, o / 4 % 4, o % 4);
        let kk = if high { k + 4 } else { k };
        let set = sets[j][i];
        let mut terms = 0;
        let mut x = 0;
        while x < 4 {
            if set >> x & 1 == 1 {
                if terms == 0 {
                    out.first[o] = (8 * x + kk) as u8;
                } else {
                    out.second[o] = (8 * x + kk) as u8;
                    out.mask |= 1 << o;
                }
                terms += 1;
            }
            x += 1;
        }
        assert!(terms == 1 || terms == 2);
        o += 1;
    }
    out
}

static KEY_FROM_H: [KeyFromH; 2] = [key_from_h(false), key_from_h(true)];

/// What a step needs from its message block M alone, computed before H is known: the
/// key inputs' M parts ([`MParts::v`]: W_j = A^j(H) ⊕ v_j) and ψ(M).
struct MParts {
    v: [[u64; 4]; 4],
    psi_m: [u64; 4],
}

#[inline(always)]
fn m_parts(m: [u64; 4]) -> MParts {
    // U_j = A^j(H) with C_3 added at j = 2, so U_3 = A^3(H) ⊕ A(C_3); V_j = A^(2j)(M).
    let mut v = [m; 4];
    for j in 1..4 {
        v[j] = portable::a(portable::a(v[j - 1]));
    }
    v[2] = portable::xor(v[2], portable::C3);
    v[3] = portable::xor(v[3], portable::a(portable::C3));
    MParts { v, psi_m: portable::psi(m) }
}

/// The constants of the one-message kernel, in registers.
#[derive(Clone, Copy)]
struct Consts {
    tlo: __m512i,
    thi: __m512i,
    key_index: [__m512i; 2],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn new(t: &Tables) -> Self {
        Consts { tlo: load512(&t.lo), thi: load512(&t.hi), key_index: [load512(&KEY_INDEX[0]), load512(&KEY_INDEX[1])] }
    }
}

/// The step function f(H, M) for each message block of `ms` in turn, H in a register.
///
/// The loop is here, around the step, rather than in the callers: called once per block,
/// the step was not inlined and returned H through memory, a store and a reload on the
/// serial chain from one step to the next.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn steps_reg(c: &Consts, mut h: __m256i, ms: impl Iterator<Item = [u64; 4]>) -> __m256i {
    for m in ms {
        let mp = &m_parts(m);
        let hz = _mm512_castsi256_si512(h);
        // W_j = A^j(H) ⊕ v_j and the keys are P(W_j); P is linear: the keys are P of the M
        // parts, which do not wait for H, XOR the byte lookups in H of [`KEY_FROM_H`], one
        // permute deep.
        let (v01, v23) = (load512(&[mp.v[0], mp.v[1]]), load512(&[mp.v[2], mp.v[3]]));
        let [ka, kb] = core::array::from_fn(|half| {
            let kh = &KEY_FROM_H[half];
            let pv = _mm512_permutex2var_epi8(v01, c.key_index[half], v23);
            let first = _mm512_permutexvar_epi8(load512(&kh.first), hz);
            let second = _mm512_maskz_permutexvar_epi8(kh.mask, load512(&kh.second), hz);
            // A ^ B ^ C.
            _mm512_ternarylogic_epi32::<0x96>(first, second, pv)
        });
        let keys = [
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<0>(ka)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<1>(ka)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<2>(ka)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<3>(ka)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<0>(kb)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<1>(kb)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<2>(kb)),
            _mm512_castsi128_si512(_mm512_extracti32x4_epi32::<3>(kb)),
        ];

        // The part of the mixing that does not wait for the encryption: ψ^61(H ⊕ ψ(M)).
        let mixed_hm = apply_layers(&PSI61_LAYERS, _mm256_xor_si256(h, load256(&mp.psi_m)));

        // Lane j: N1 = low half of H_j, N2 = high half.
        let mut n1 = _mm512_castsi512_si256(_mm512_permutexvar_epi32(
            _mm512_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
            hz,
        ));
        let mut n2 = _mm512_castsi512_si256(_mm512_permutexvar_epi32(
            _mm512_setr_epi32(1, 3, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
            hz,
        ));
        let keys = keys.map(|k| _mm512_castsi512_si256(k));
        let tlo = (_mm512_castsi512_si256(c.tlo), _mm512_extracti64x4_epi64::<1>(c.tlo));
        let thi = (_mm512_castsi512_si256(c.thi), _mm512_extracti64x4_epi64::<1>(c.thi));
        let mut round = |k: __m256i| {
            let x = round256(tlo, thi, n1, n2, k);
            n2 = n1;
            n1 = x;
        };
        for _ in 0..3 {
            for &k in &keys {
                round(k);
            }
        }
        for &k in keys.iter().rev() {
            round(k);
        }
        // The last round does not swap: S_j = N2 | N1 << 32, which the layers read directly.
        h = _mm256_xor_si256(mixed_hm, apply_layers_halves(&PSI74_HALVES_LAYERS, n2, n1));
    }
    h
}

/// The step function f(H, M) for one message.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
pub(crate) fn step(t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
    let out = steps_reg(&Consts::new(t), load256(&h), core::iter::once(m));
    let mut h = [0u64; 4];
    store256(&mut h, out);
    h
}

/// Hashes each 32-byte block of `blocks` in turn (H and Σ), H staying in a register.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
pub(crate) fn compress_blocks(t: &Tables, state: &mut State, blocks: &[u8]) {
    let sigma = &mut state.sigma;
    let ms = blocks.chunks_exact(BLOCK_LEN).map(|block| {
        let m = super::load_block(block);
        super::add256(sigma, &m);
        m
    });
    let h = steps_reg(&Consts::new(t), load256(&state.h), ms);
    store256(&mut state.h, h);
}

/// Sixteen states or message blocks, word-major: `[k][lane]` is 32-bit word k (the low
/// half of 64-bit word k / 2 for even k) of lane `lane`'s 256-bit value.
pub(crate) use super::batch::Lanes;

/// Blend: bits of `b` where `mask` is set, bits of `a` elsewhere.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn blend(a: __m512i, b: __m512i, mask: __m512i) -> __m512i {
    // A=a, B=b, C=mask: (A & !C) | (B & C).
    _mm512_ternarylogic_epi32::<0xD8>(a, b, mask)
}

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2 on 64-bit words y1 (least significant) .. y4, held as
/// 32-bit halves.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn a_map(y: [__m512i; 8]) -> [__m512i; 8] {
    [y[2], y[3], y[4], y[5], y[6], y[7], _mm512_xor_si512(y[0], y[2]), _mm512_xor_si512(y[1], y[3])]
}

/// The key P(W) of one encryption: key word k is byte k of each of W's 64-bit words, so
/// byte k % 4 of the 32-bit words k / 4, k / 4 + 2, k / 4 + 4, k / 4 + 6. In-lane byte
/// shuffles pick that byte of every lane, masked merges place the four sources.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn p_map(w: &[__m512i; 8]) -> [__m512i; 8] {
    core::array::from_fn(|k| {
        let b = (k % 4) as i8;
        let c = k / 4;
        let base = _mm512_setr_epi32(
            0,
            0x0404_0404,
            0x0808_0808,
            0x0c0c_0c0c,
            0,
            0x0404_0404,
            0x0808_0808,
            0x0c0c_0c0c,
            0,
            0x0404_0404,
            0x0808_0808,
            0x0c0c_0c0c,
            0,
            0x0404_0404,
            0x0808_0808,
            0x0c0c_0c0c,
        );
        let idx = _mm512_add_epi8(base, _mm512_set1_epi8(b));
        let mut v = _mm512_shuffle_epi8(w[c], idx);
        v = _mm512_mask_shuffle_epi8(v, 0x2222_2222_2222_2222, w[c + 2], idx);
        v = _mm512_mask_shuffle_epi8(v, 0x4444_4444_4444_4444, w[c + 4], idx);
        _mm512_mask_shuffle_epi8(v, 0x8888_8888_8888_8888, w[c + 6], idx)
    })
}

/// XOR of the words of `x` selected by the bits of `row` (a constant after inlining).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn select_xor(row: u16, x: &[__m512i; 16]) -> __m512i {
    let mut acc = [_mm512_setzero_si512(); 2];
    let mut n = 0;
    for (j, &xj) in x.iter().enumerate() {
        if row >> j & 1 == 1 {
            acc[n & 1] = _mm512_xor_si512(acc[n & 1], xj);
            n += 1;
        }
    }
    _mm512_xor_si512(acc[0], acc[1])
}

/// Sixteen 16-bit words from eight 32-bit words (each word in the low half of its lane;
/// the high halves hold junk that XORs never move into the low halves).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn to_words(v: &[__m512i; 8]) -> [__m512i; 16] {
    core::array::from_fn(|i| if i % 2 == 0 { v[i / 2] } else { _mm512_srli_epi32::<16>(v[i / 2]) })
}

/// The step function f(H, M) for sixteen independent messages, one per 32-bit lane.
///
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
pub(crate) fn step_lanes(t: &Tables, hs: &mut Lanes, ms: &Lanes) {
    let tlo = load512(&t.lo);
    let thi = load512(&t.hi);
    let h: [__m512i; 8] = core::array::from_fn(|k| load512(&hs[k]));
    let m: [__m512i; 8] = core::array::from_fn(|k| load512(&ms[k]));

    // Key generation.
    let c3: [__m512i; 8] =
        core::array::from_fn(|k| _mm512_set1_epi32((portable::C3[k / 2] >> (32 * (k % 2))) as u32 as i32));
    let (mut u, mut v) = (h, m);
    let mut keys = [[_mm512_setzero_si512(); 8]; 4];
    for (j, key) in keys.iter_mut().enumerate() {
        if j > 0 {
            u = a_map(u);
            if j == 2 {
                u = core::array::from_fn(|k| _mm512_xor_si512(u[k], c3[k]));
            }
            v = a_map(a_map(v));
        }
        let w: [__m512i; 8] = core::array::from_fn(|k| _mm512_xor_si512(u[k], v[k]));
        *key = p_map(&w);
    }

    // The part of the mixing that does not wait for the encryption: ψ^61(H ⊕ ψ(M)).
    let hw = to_words(&h);
    let mw = to_words(&m);
    let mut y: [__m512i; 16] =
        core::array::from_fn(|i| if i < 15 { _mm512_xor_si512(hw[i], mw[i + 1]) } else { hw[15] });
    let top = [0, 1, 2, 3, 12, 15].iter().fold(_mm512_setzero_si512(), |acc, &i| _mm512_xor_si512(acc, mw[i]));
    y[15] = _mm512_xor_si512(y[15], top);

    // The four encryptions, round by round: N1 of encryption j is H's word 2j, N2 word 2j + 1.
    let mut n1: [__m512i; 4] = core::array::from_fn(|j| h[2 * j]);
    let mut n2: [__m512i; 4] = core::array::from_fn(|j| h[2 * j + 1]);
    for round in 0..32 {
        let idx = if round < 24 { round % 8 } else { 7 - round % 8 };
        for j in 0..4 {
            let x = _mm512_xor_si512(n2[j], f(tlo, thi, _mm512_add_epi32(n1[j], keys[j][idx])));
            n2[j] = n1[j];
            n1[j] = x;
        }
    }
    // The last round does not swap: S_j = N2 | N1 << 32.
    let s: [__m512i; 8] = core::array::from_fn(|k| if k % 2 == 0 { n2[k / 2] } else { n1[k / 2] });
    let sw = to_words(&s);

    let out: [__m512i; 16] =
        core::array::from_fn(|i| _mm512_xor_si512(select_xor(PSI61[i], &y), select_xor(PSI74[i], &sw)));
    let high = _mm512_set1_epi32(0xffff_0000u32 as i32);
    for (k, row) in hs.iter_mut().enumerate() {
        let word = blend(out[2 * k], _mm512_slli_epi32::<16>(out[2 * k + 1]), high);
        store512(row, word);
    }
}
