//! Streebog's constants (GOST R 34.11-2012, section 5) and the 8×256 lookup tables that the
//! portable backend uses, generated from them at compile time by [`lps_tables`].
//!
//! Byte order: a 512-bit value is 64 bytes in the order a library reads the message (byte 0
//! first), which is the standard's a_0 (least significant) first; as eight `u64` words,
//! word `w` is bytes `8w..8w+8` read little-endian. The standard prints the same numbers
//! most significant byte first.
//!
//! ## What this file holds
//!
//! the standard's constants (π, the matrix A, C_1..C_12) and the 8×256 LPS tables generated
//! from them by a `const fn` at compile time; the key schedule of a message's first
//! compression (h = IV, N = 0 — it depends on the IV alone), also computed at compile time, so
//! that compression costs 12 LPS instead of 25; unit tests regenerate the tables, check
//! published entries, compare table-driven LPS with S, P and L applied step by step, and
//! recompute the first-compression keys

/// The S-box π (the standard's 5.1, the same as Kuznyechik's).
pub(crate) const PI: [u8; 256] = [
    0xfc, 0xee, 0xdd, 0x11, 0xcf, 0x6e, 0x31, 0x16, 0xfb, 0xc4, 0xfa, 0xda, 0x23, 0xc5, 0x04, 0x4d, 0xe9, 0x77, 0xf0,
    0xdb, 0x93, 0x2e, 0x99, 0xba, 0x17, 0x36, 0xf1, 0xbb, 0x14, 0xcd, 0x5f, 0xc1, 0xf9, 0x18, 0x65, 0x5a, 0xe2, 0x5c,
    0xef, 0x21, 0x81, 0x1c, 0x3c, 0x42, 0x8b, 0x01, 0x8e, 0x4f, 0x05, 0x84, 0x02, 0xae, 0xe3, 0x6a, 0x8f, 0xa0, 0x06,
    0x0b, 0xed, 0x98, 0x7f, 0xd4, 0xd3, 0x1f, 0xeb, 0x34, 0x2c, 0x51, 0xea, 0xc8, 0x48, 0xab, 0xf2, 0x2a, 0x68, 0xa2,
    0xfd, 0x3a, 0xce, 0xcc, 0xb5, 0x70, 0x0e, 0x56, 0x08, 0x0c, 0x76, 0x12, 0xbf, 0x72, 0x13, 0x47, 0x9c, 0xb7, 0x5d,
    0x87, 0x15, 0xa1, 0x96, 0x29, 0x10, 0x7b, 0x9a, 0xc7, 0xf3, 0x91, 0x78, 0x6f, 0x9d, 0x9e, 0xb2, 0xb1, 0x32, 0x75,
    0x19, 0x3d, 0xff, 0x35, 0x8a, 0x7e, 0x6d, 0x54, 0xc6, 0x80, 0xc3, 0xbd, 0x0d, 0x57, 0xdf, 0xf5, 0x24, 0xa9, 0x3e,
    0xa8, 0x43, 0xc9, 0xd7, 0x79, 0xd6, 0xf6, 0x7c, 0x22, 0xb9, 0x03, 0xe0, 0x0f, 0xec, 0xde, 0x7a, 0x94, 0xb0, 0xbc,
    0xdc, 0xe8, 0x28, 0x50, 0x4e, 0x33, 0x0a, 0x4a, 0xa7, 0x97, 0x60, 0x73, 0x1e, 0x00, 0x62, 0x44, 0x1a, 0xb8, 0x38,
    0x82, 0x64, 0x9f, 0x26, 0x41, 0xad, 0x45, 0x46, 0x92, 0x27, 0x5e, 0x55, 0x2f, 0x8c, 0xa3, 0xa5, 0x7d, 0x69, 0xd5,
    0x95, 0x3b, 0x07, 0x58, 0xb3, 0x40, 0x86, 0xac, 0x1d, 0xf7, 0x30, 0x37, 0x6b, 0xe4, 0x88, 0xd9, 0xe7, 0x89, 0xe1,
    0x1b, 0x83, 0x49, 0x4c, 0x3f, 0xf8, 0xfe, 0x8d, 0x53, 0xaa, 0x90, 0xca, 0xd8, 0x85, 0x61, 0x20, 0x71, 0x67, 0xa4,
    0x2d, 0x2b, 0x09, 0x5b, 0xcb, 0x9b, 0x25, 0xd0, 0xbe, 0xe5, 0x6c, 0x52, 0x59, 0xa6, 0x74, 0xd2, 0xe6, 0xf4, 0xb4,
    0xc0, 0xd1, 0x66, 0xaf, 0xc2, 0x39, 0x4b, 0x63, 0xb6,
];

/// The rows of the linear map l's 64×64 matrix over GF(2) (the standard's 5.3): the
/// input bit of weight 2^(63-i) contributes row `A[i]` to the output.
pub(crate) const A: [u64; 64] = [
    0x8e20faa72ba0b470,
    0x47107ddd9b505a38,
    0xad08b0e0c3282d1c,
    0xd8045870ef14980e,
    0x6c022c38f90a4c07,
    0x3601161cf205268d,
    0x1b8e0b0e798c13c8,
    0x83478b07b2468764,
    0xa011d380818e8f40,
    0x5086e740ce47c920,
    0x2843fd2067adea10,
    0x14aff010bdd87508,
    0x0ad97808d06cb404,
    0x05e23c0468365a02,
    0x8c711e02341b2d01,
    0x46b60f011a83988e,
    0x90dab52a387ae76f,
    0x486dd4151c3dfdb9,
    0x24b86a840e90f0d2,
    0x125c354207487869,
    0x092e94218d243cba,
    0x8a174a9ec8121e5d,
    0x4585254f64090fa0,
    0xaccc9ca9328a8950,
    0x9d4df05d5f661451,
    0xc0a878a0a1330aa6,
    0x60543c50de970553,
    0x302a1e286fc58ca7,
    0x18150f14b9ec46dd,
    0x0c84890ad27623e0,
    0x0642ca05693b9f70,
    0x0321658cba93c138,
    0x86275df09ce8aaa8,
    0x439da0784e745554,
    0xafc0503c273aa42a,
    0xd960281e9d1d5215,
    0xe230140fc0802984,
    0x71180a8960409a42,
    0xb60c05ca30204d21,
    0x5b068c651810a89e,
    0x456c34887a3805b9,
    0xac361a443d1c8cd2,
    0x561b0d22900e4669,
    0x2b838811480723ba,
    0x9bcf4486248d9f5d,
    0xc3e9224312c8c1a0,
    0xeffa11af0964ee50,
    0xf97d86d98a327728,
    0xe4fa2054a80b329c,
    0x727d102a548b194e,
    0x39b008152acb8227,
    0x9258048415eb419d,
    0x492c024284fbaec0,
    0xaa16012142f35760,
    0x550b8e9e21f7a530,
    0xa48b474f9ef5dc18,
    0x70a6a56e2440598e,
    0x3853dc371220a247,
    0x1ca76e95091051ad,
    0x0edd37c48a08a6d8,
    0x07e095624504536c,
    0x8d70c431ac02a736,
    0xc83862965601dd1b,
    0x641c314b2b8ee083,
];

/// The iteration constants C_1..C_12 (the standard's 5.4), as little-endian words.
pub(crate) const C: [[u64; 8]; 12] = [
    [
        0xdd806559f2a64507,
        0x05767436cc744d23,
        0xa2422a08a460d315,
        0x4b7ce09192676901,
        0x714eb88d7585c4fc,
        0x2f6a76432e45d016,
        0xebcb2f81c0657c1f,
        0xb1085bda1ecadae9,
    ],
    [
        0xe679047021b19bb7,
        0x55dda21bd7cbcd56,
        0x5cb561c2db0aa7ca,
        0x9ab5176b12d69958,
        0x61d55e0f16b50131,
        0xf3feea720a232b98,
        0x4fe39d460f70b5d7,
        0x6fa3b58aa99d2f1a,
    ],
    [
        0x991e96f50aba0ab2,
        0xc2b6f443867adb31,
        0xc1c93a376062db09,
        0xd3e20fe490359eb1,
        0xf2ea7514b1297b7b,
        0x06f15e5f529c1f8b,
        0x0a39fc286a3d8435,
        0xf574dcac2bce2fc7,
    ],
    [
        0x220cbebc84e3d12e,
        0x3453eaa193e837f1,
        0xd8b71333935203be,
        0xa9d72c82ed03d675,
        0x9d721cad685e353f,
        0x488e857e335c3c7d,
        0xf948e1a05d71e4dd,
        0xef1fdfb3e81566d2,
    ],
    [
        0x601758fd7c6cfe57,
        0x7a56a27ea9ea63f5,
        0xdfff00b723271a16,
        0xbfcd1747253af5a3,
        0x359e35d7800fffbd,
        0x7f151c1f1686104a,
        0x9a3f410c6ca92363,
        0x4bea6bacad474799,
    ],
    [
        0xfa68407a46647d6e,
        0xbf71c57236904f35,
        0x0af21f66c2bec6b6,
        0xcffaa6b71c9ab7b4,
        0x187f9ab49af08ec6,
        0x2d66c4f95142a46c,
        0x6fa4c33b7a3039c0,
        0xae4faeae1d3ad3d9,
    ],
    [
        0x8886564d3a14d493,
        0x3517454ca23c4af3,
        0x06476983284a0504,
        0x0992abc52d822c37,
        0xd3473e33197a93c9,
        0x399ec6c7e6bf87c9,
        0x51ac86febf240954,
        0xf4c70e16eeaac5ec,
    ],
    [
        0xa47f0dd4bf02e71e,
        0x36acc2355951a8d9,
        0x69d18d2bd1a5c42f,
        0xf4892bcb929b0690,
        0x89b4443b4ddbc49a,
        0x4eb7f8719c36de1e,
        0x03e7aa020c6e4141,
        0x9b1f5b424d93c9a7,
    ],
    [
        0x7261445183235adb,
        0x0e38dc92cb1f2a60,
        0x7b2b8a9aa6079c54,
        0x800a440bdbb2ceb1,
        0x3cd955b7e00d0984,
        0x3a7d3a1b25894224,
        0x944c9ad8ec165fde,
        0x378f5a541631229b,
    ],
    [
        0x74b4c7fb98459ced,
        0x3698fad1153bb6c3,
        0x7a1e6c303b7652f4,
        0x9fe76702af69334b,
        0x1fffe18a1b336103,
        0x8941e71cff8a78db,
        0x382ae548b2e4f3f3,
        0xabbedea680056f52,
    ],
    [
        0x6bcaa4cd81f32d1b,
        0xdea2594ac06fd85d,
        0xefbacd1d7d476e98,
        0x8a1d71efea48b9ca,
        0x2001802114846679,
        0xd8fa6bbbebab0761,
        0x3002c6cd635afe94,
        0x7bcd9ed0efc889fb,
    ],
    [
        0x48bc924af11bd720,
        0xfaf417d5d9b21b99,
        0xe71da4aa88e12852,
        0x5d80ef9d1891cc86,
        0xf82012d430219f9b,
        0xcda43c32bcdf1d77,
        0xd21380b00449b17a,
        0x378ee767f11631ba,
    ],
];

/// The linear map l on one 64-bit word: the XOR of the rows of [`A`] selected by its bits.
pub(crate) const fn l(word: u64) -> u64 {
    let mut out = 0u64;
    let mut i = 0;
    while i < 64 {
        if word >> (63 - i) & 1 == 1 {
            out ^= A[i];
        }
        i += 1;
    }
    out
}

/// The tables for LPS = L∘P∘S: `T[j][v] = l(π(v) << 8j)`, so that word `i` of LPS(x) is
/// the XOR over `j` of `T[j][byte i of word j of x]` (P moves byte `i` of word `j` to byte
/// `j` of word `i`).
pub(crate) const fn lps_tables() -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut j = 0;
    while j < 8 {
        let mut v = 0;
        while v < 256 {
            t[j][v] = l((PI[v] as u64) << (8 * j));
            v += 1;
        }
        j += 1;
    }
    t
}

const LPS_CONST: [[u64; 256]; 8] = lps_tables();

/// The lookup tables, 16 KiB, computed by the compiler from π and A.
pub(crate) static LPS: [[u64; 256]; 8] = LPS_CONST;

/// LPS with the tables, in constant evaluation.
const fn lps_const(x: &[u64; 8]) -> [u64; 8] {
    let mut out = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        let mut j = 0;
        while j < 8 {
            out[i] ^= LPS_CONST[j][((x[j] >> (8 * i)) & 0xff) as usize];
            j += 1;
        }
        i += 1;
    }
    out
}

/// The key schedule K_1..K_13 of E in a message's first compression, where h is the IV and
/// N is 0: it depends on the IV alone, so it is computed here once (K_1 = LPS(IV),
/// K_{i+1} = LPS(K_i ⊕ C_i)), and a first compression costs 12 LPS instead of 25.
const fn iv_keys(iv: u64) -> [[u64; 8]; 13] {
    let mut keys = [[0u64; 8]; 13];
    keys[0] = lps_const(&[iv; 8]);
    let mut i = 0;
    while i < 12 {
        let mut x = keys[i];
        let mut w = 0;
        while w < 8 {
            x[w] ^= C[i][w];
            w += 1;
        }
        keys[i + 1] = lps_const(&x);
        i += 1;
    }
    keys
}

/// The first compression's keys for Streebog-512 (IV = 0^512).
pub(crate) static IV_KEYS_512: [[u64; 8]; 13] = iv_keys(0);
/// The first compression's keys for Streebog-256 (IV = (00000001)^64).
pub(crate) static IV_KEYS_256: [[u64; 8]; 13] = iv_keys(0x0101_0101_0101_0101);

#[cfg(test)]
mod tests {
    use super::*;

    /// LPS computed step by step from the standard's definitions on a 64-byte string:
    /// S byte by byte, P as the byte transposition τ, L bit by bit.
    fn lps_by_definition(x: &[u8; 64]) -> [u8; 64] {
        let s: Vec<u8> = x.iter().map(|&b| PI[b as usize]).collect();
        // τ(k) = 8·(k mod 8) + k/8: output byte k is input byte τ(k).
        let p: Vec<u8> = (0..64).map(|k| s[8 * (k % 8) + k / 8]).collect();
        let mut out = [0u8; 64];
        for w in 0..8 {
            let word = u64::from_le_bytes(p[8 * w..8 * w + 8].try_into().unwrap());
            let mut acc = 0u64;
            for bit in 0..64 {
                if word >> bit & 1 == 1 {
                    acc ^= A[63 - bit];
                }
            }
            out[8 * w..8 * w + 8].copy_from_slice(&acc.to_le_bytes());
        }
        out
    }

    /// The precomputed first-compression keys equal the key schedule computed at run time.
    #[test]
    fn iv_keys_match_the_schedule() {
        for (iv, keys) in [(0u64, &IV_KEYS_512), (0x0101_0101_0101_0101, &IV_KEYS_256)] {
            let mut k = crate::streebog::portable::lps(&[iv; 8]);
            assert_eq!(k, keys[0]);
            for i in 0..12 {
                let x: [u64; 8] = core::array::from_fn(|w| k[w] ^ C[i][w]);
                k = crate::streebog::portable::lps(&x);
                assert_eq!(k, keys[i + 1], "key {}", i + 1);
            }
        }
    }

    #[test]
    fn tables_regenerate_and_match_the_definition() {
        // Regenerated at run time, the tables equal the compile-time ones.
        assert_eq!(lps_tables(), LPS);
        // π is a permutation.
        let mut seen = [false; 256];
        for &v in &PI {
            assert!(!seen[v as usize]);
            seen[v as usize] = true;
        }
        // Entries published in other implementations' precomputed tables (RustCrypto
        // streebog's SHUFFLED_LIN_TABLE, the reference implementation's Ax).
        assert_eq!(LPS[0][0], 0xd01f715b5c7ef8e6);
        assert_eq!(LPS[0][1], 0x16fa240980778325);
        assert_eq!(LPS[0][255], 0x27945a985d5bd4d6);
        assert_eq!(LPS[1][0], 0xde553f8c05a811c8);
        assert_eq!(LPS[3][77], 0x229c69e74a87929a);
        assert_eq!(LPS[7][255], 0xd6a30f258c153427);
        // Table-driven LPS (the kernel the portable backend runs, and the Rust version
        // that other architectures run) equals the step-by-step definition on
        // pseudo-random states.
        let mut seed = 0x0123_4567_89ab_cdefu64;
        for _ in 0..200 {
            let mut x = [0u8; 64];
            for b in x.iter_mut() {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (seed >> 56) as u8;
            }
            let words: [u64; 8] = core::array::from_fn(|i| u64::from_le_bytes(x[8 * i..8 * i + 8].try_into().unwrap()));
            let expected = lps_by_definition(&x);
            for got in [crate::streebog::portable::lps(&words), crate::streebog::portable::lps_bytes(&words)] {
                for i in 0..8 {
                    assert_eq!(got[i].to_le_bytes(), expected[8 * i..8 * i + 8], "word {i}");
                }
            }
        }
    }
}
