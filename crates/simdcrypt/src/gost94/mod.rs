//! GOST R 34.11-94 (RFC 5831) with the "test" parameter set of the standard's example and
//! the CryptoPro parameter set (RFC 4357).
//!
//! ```
//! use simdcrypt::gost94::{self, SBox};
//!
//! let digest = gost94::hash(SBox::CryptoPro, b"abc");
//! assert_eq!(
//!     simdcrypt::to_hex(&digest),
//!     "b285056dbf18d7392d7677369524dd14747459ed8143997e163b2986f92fd42c"
//! );
//! let mut hasher = gost94::Gost94::new(SBox::Test);
//! hasher.update(b"a").update(b"bc");
//! assert_eq!(
//!     simdcrypt::to_hex(&hasher.finalize()),
//!     "f3134348c44fb1b2a277729e2285ebb5cb5e0f29c975bc753b70497c06a4d51d"
//! );
//! ```
//!
//! # Byte order and the empty message
//!
//! Digests are the byte strings that RHash, Nettle, libgcrypt, OpenSSL and RustCrypto
//! output; RFC 5831 prints its examples as numbers, most significant byte first, so the
//! same bytes reversed. For the empty message no block is hashed before the length and
//! checksum, as the standard and most implementations do; OpenSSL's gost engine hashes
//! an extra zero block and gives a different digest for it.
//!
//! The portable step function runs the four GOST 28147-89 encryptions of a step side by
//! side (independent chains for the out-of-order core), with S-box-and-rotation tables
//! built at compile time for each parameter set. The AVX-512 backend runs them in vector
//! lanes with byte-shuffle S-boxes, and [`hash_many`] runs sixteen messages at once, one
//! per lane; without AVX-512, the AVX2 backend runs [`hash_many`] sixteen messages to a
//! pair of ymm registers (S-boxes on byte planes) and a single message with the
//! table-driven encryptions and the rest of the step (key generation, the ψ mixing as
//! linear maps) in ymm registers; without AVX2, the SSSE3 backend does the same on xmm
//! registers (sixteen messages in four); on aarch64 the NEON backend runs [`hash_many`]
//! four messages to a register (`tbl` nibble S-boxes).
//!
//! ## What this file holds
//!
//! GOST R 34.11-94: `Gost94` (`SBox::CryptoPro` default, `SBox::Test`), `hash`, `hash_many`;
//! combined S-box-and-rotation tables per parameter set built by a `const fn` (`Tables`: four
//! byte tables, the three-lookup `wide` set, the nibble tables of the byte shuffles); H, Σ,
//! the length, and the final stage (no extra block for the empty message); ψ^61/ψ^74 as word
//! subsets (`PSI61`, `PSI74`) and, on x86-64, as byte-shuffle tables (`PSI61_SHUFFLES`,
//! `PSI74_SHUFFLES`) shared by `avx2.rs` and `ssse3.rs`

mod algorithm;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod batch;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod lanes;
#[cfg(target_arch = "aarch64")]
mod neon;
mod platform;
mod portable;
#[cfg(target_arch = "x86_64")]
mod ssse3;
mod state;

pub use algorithm::{ALGORITHM_CRYPTOPRO, ALGORITHM_TEST};
pub use platform::{Kind, Platform};

use crate::block_buffer::BlockBuffer;
use crate::threads::Threads;
use crate::Error;

/// Digest length in bytes.
pub const OUT_LEN: usize = 32;
/// Block size in bytes.
pub const BLOCK_LEN: usize = 32;

/// The S-box parameter set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum SBox {
    /// The S-boxes of the standard's example (RFC 5831's "test" parameters; RHash's GOST94).
    Test,
    /// The CryptoPro parameters (RFC 4357, id-GostR3411-94-CryptoProParamSet; RHash's
    /// GOST94-CRYPTOPRO). The default.
    #[default]
    CryptoPro,
}

impl SBox {
    /// Every parameter set.
    pub const ALL: [SBox; 2] = [SBox::CryptoPro, SBox::Test];

    /// `"cryptopro"` or `"test"`.
    pub fn name(self) -> &'static str {
        match self {
            SBox::Test => "test",
            SBox::CryptoPro => "cryptopro",
        }
    }

    /// Parses `"cryptopro"` or `"test"` (case-insensitive); the error lists the choices.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        let wanted = name.trim().to_ascii_lowercase();
        SBox::ALL.into_iter().find(|s| s.name() == wanted).ok_or_else(|| {
            Error::InvalidArgument(format!("unknown gost94 sbox {name:?}; choose one of: cryptopro, test"))
        })
    }

    /// The eight 4-bit S-boxes, K1 (applied to the least significant nibble) first.
    const fn rows(self) -> [[u8; 16]; 8] {
        match self {
            SBox::Test => [
                [4, 10, 9, 2, 13, 8, 0, 14, 6, 11, 1, 12, 7, 15, 5, 3],
                [14, 11, 4, 12, 6, 13, 15, 10, 2, 3, 8, 1, 0, 7, 5, 9],
                [5, 8, 1, 13, 10, 3, 4, 2, 14, 15, 12, 7, 6, 0, 9, 11],
                [7, 13, 10, 1, 0, 8, 9, 15, 14, 4, 6, 12, 11, 2, 5, 3],
                [6, 12, 7, 1, 5, 15, 13, 8, 4, 10, 9, 14, 0, 3, 11, 2],
                [4, 11, 10, 0, 7, 2, 1, 13, 3, 6, 8, 5, 9, 12, 15, 14],
                [13, 11, 4, 1, 3, 15, 5, 9, 0, 10, 14, 7, 6, 8, 2, 12],
                [1, 15, 13, 0, 5, 7, 10, 4, 9, 2, 3, 14, 6, 11, 8, 12],
            ],
            SBox::CryptoPro => [
                [10, 4, 5, 6, 8, 1, 3, 7, 13, 12, 14, 0, 9, 2, 11, 15],
                [5, 15, 4, 0, 2, 13, 11, 9, 1, 7, 6, 3, 12, 14, 10, 8],
                [7, 15, 12, 14, 9, 4, 1, 0, 3, 11, 5, 2, 6, 10, 8, 13],
                [4, 10, 7, 12, 0, 15, 2, 8, 14, 1, 6, 5, 13, 11, 9, 3],
                [7, 6, 4, 11, 9, 12, 2, 10, 1, 8, 0, 14, 15, 13, 3, 5],
                [7, 6, 2, 4, 13, 9, 15, 0, 10, 1, 5, 11, 8, 14, 12, 3],
                [13, 14, 4, 1, 7, 0, 5, 10, 3, 12, 8, 15, 6, 2, 9, 11],
                [1, 3, 10, 9, 5, 11, 4, 15, 8, 6, 7, 14, 13, 0, 2, 12],
            ],
        }
    }

    /// The combined tables of this parameter set.
    pub(crate) fn tables(self) -> &'static Tables {
        match self {
            SBox::Test => &TEST_TABLES,
            SBox::CryptoPro => &CRYPTOPRO_TABLES,
        }
    }
}

/// The lookup tables of a parameter set.
///
/// `words[j][b]` is the S-boxes 2j and 2j+1 applied to byte `b` in byte position `j` of a
/// 32-bit word, rotated left by 11, so that
/// f(x) = rotl11(S(x)) = words[0][x0] ⊕ words[1][x1] ⊕ words[2][x2] ⊕ words[3][x3].
///
/// `wide` (x86-64 only) is f in three lookups, for the assembly where the L1 data cache holds its
/// 33 KiB: entries 0..256 are `words[0]`; then 4096 entries for bits 8..20 of x (S-boxes 2,
/// 3 and 4) and 4096 for bits 20..32 (S-boxes 5, 6 and 7), each rotated left by 11 from its
/// place, so that f(x) = wide[x0] ⊕ wide[256 + x₈..₂₀] ⊕ wide[4352 + x₂₀..₃₂].
///
/// `lo` and `hi` are the same S-boxes as 64-byte nibble tables for byte shuffles: entry
/// `16j + n` is S-box 2j of nibble n (`lo`) or S-box 2j+1 of nibble n shifted into the high
/// nibble (`hi`), so a shuffle whose index byte is `nibble | 16 * position` looks up both
/// halves of every byte of a word.
#[repr(C, align(64))]
pub(crate) struct Tables {
    pub(crate) words: [[u32; 256]; 4],
    #[cfg(target_arch = "x86_64")]
    pub(crate) wide: [u32; WIDE_LEN],
    pub(crate) lo: [u8; 64],
    pub(crate) hi: [u8; 64],
}

/// S-boxes `first`, `first` + 1 and `first` + 2 on the three nibbles of the 12-bit `c`.
#[cfg(target_arch = "x86_64")]
const fn three_nibbles(rows: &[[u8; 16]; 8], first: usize, c: usize) -> u32 {
    rows[first][c & 15] as u32 | (rows[first + 1][(c >> 4) & 15] as u32) << 4 | (rows[first + 2][c >> 8] as u32) << 8
}

/// Entries of `Tables::wide`: one byte's table and two of twelve bits.
#[cfg(target_arch = "x86_64")]
pub(crate) const WIDE_LEN: usize = 256 + 2 * 4096;

const fn make_tables(sbox: SBox) -> Tables {
    let rows = sbox.rows();
    let mut t = Tables {
        words: [[0u32; 256]; 4],
        #[cfg(target_arch = "x86_64")]
        wide: [0; WIDE_LEN],
        lo: [0; 64],
        hi: [0; 64],
    };
    let mut j = 0;
    while j < 4 {
        let mut b = 0;
        while b < 256 {
            let s = (rows[2 * j + 1][b >> 4] as u32) << 4 | rows[2 * j][b & 15] as u32;
            t.words[j][b] = (s << (8 * j)).rotate_left(11);
            b += 1;
        }
        let mut n = 0;
        while n < 16 {
            t.lo[16 * j + n] = rows[2 * j][n];
            t.hi[16 * j + n] = rows[2 * j + 1][n] << 4;
            n += 1;
        }
        j += 1;
    }
    // The three-lookup tables only the x86-64 assembly reads (33 KiB a parameter set).
    #[cfg(target_arch = "x86_64")]
    {
        let mut b = 0;
        while b < 256 {
            t.wide[b] = t.words[0][b];
            b += 1;
        }
        let mut c = 0;
        while c < 4096 {
            t.wide[256 + c] = (three_nibbles(&rows, 2, c) << 8).rotate_left(11);
            t.wide[256 + 4096 + c] = (three_nibbles(&rows, 5, c) << 20).rotate_left(11);
            c += 1;
        }
    }
    t
}

/// ψ^n as a linear map on the sixteen 16-bit words: bit j of `rows[i]` says whether input
/// word j is XORed into output word i. ψ^n is linear, so a step's mixing
/// ψ^61(H ⊕ ψ(M ⊕ ψ^12(S))) is ψ^61(H ⊕ ψ(M)) ⊕ ψ^74(S), and only the last term waits
/// for the encryption.
// Used by the vector kernels only.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
pub(crate) const fn psi_rows(n: usize) -> [u16; 16] {
    let mut rows = [0u16; 16];
    let mut i = 0;
    while i < 16 {
        rows[i] = 1 << i;
        i += 1;
    }
    let mut r = 0;
    while r < n {
        let top = rows[0] ^ rows[1] ^ rows[2] ^ rows[3] ^ rows[12] ^ rows[15];
        let mut i = 0;
        while i < 15 {
            rows[i] = rows[i + 1];
            i += 1;
        }
        rows[15] = top;
        r += 1;
    }
    rows
}

/// ψ^61, applied to H ⊕ ψ(M).
// Used by the vector kernels only.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
pub(crate) const PSI61: [u16; 16] = psi_rows(61);
/// ψ^74, applied to the encryption output S.
// Used by the vector kernels only.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
pub(crate) const PSI74: [u16; 16] = psi_rows(74);

/// ψ^n as `vpshufb` index vectors: entry i picks 16-bit input word i (from a register
/// holding words 0..7, or 8..15, in both 128-bit lanes) into every output word whose row
/// has bit i set, zeros (index 0x80) elsewhere. Each half is also the `pshufb` index of
/// one output half from one xmm source: `avx2.rs` and `ssse3.rs` share them.
#[cfg(target_arch = "x86_64")]
pub(crate) struct PsiShuffles(pub(crate) [[u8; 32]; 16]);

#[cfg(target_arch = "x86_64")]
const fn psi_shuffles(rows: [u16; 16]) -> PsiShuffles {
    let mut idx = [[0x80u8; 32]; 16];
    let mut i = 0;
    while i < 16 {
        let mut j = 0;
        while j < 16 {
            if rows[j] >> i & 1 == 1 {
                // Output word j is bytes 2j, 2j + 1 of the register; in its 128-bit lane
                // the source word i sits at bytes 2(i mod 8), 2(i mod 8) + 1.
                idx[i][2 * j] = (2 * (i % 8)) as u8;
                idx[i][2 * j + 1] = (2 * (i % 8) + 1) as u8;
            }
            j += 1;
        }
        i += 1;
    }
    PsiShuffles(idx)
}

#[cfg(target_arch = "x86_64")]
pub(crate) static PSI61_SHUFFLES: PsiShuffles = psi_shuffles(PSI61);
#[cfg(target_arch = "x86_64")]
pub(crate) static PSI74_SHUFFLES: PsiShuffles = psi_shuffles(PSI74);

static TEST_TABLES: Tables = make_tables(SBox::Test);
static CRYPTOPRO_TABLES: Tables = make_tables(SBox::CryptoPro);

/// H and the checksum Σ (256-bit, little-endian words).
#[derive(Clone, Debug)]
pub(crate) struct State {
    pub(crate) h: [u64; 4],
    pub(crate) sigma: [u64; 4],
}

// a += b modulo 2^256 (Σ), and a 32-byte block as little-endian words.
pub(crate) use crate::block_buffer::{add_words as add256, le_words as load_block};

/// The final stage on a copy of the state: the zero-padded partial block `rest` if any,
/// then the bit length L and the checksum Σ.
pub(crate) fn finish(platform: Platform, sbox: SBox, state: &State, rest: &[u8], len: u64) -> [u8; OUT_LEN] {
    let t = sbox.tables();
    let mut st = state.clone();
    if !rest.is_empty() {
        let mut last = [0u8; BLOCK_LEN];
        last[..rest.len()].copy_from_slice(rest);
        platform.compress_blocks(t, &mut st, &last);
    }
    let bits = (len as u128) * 8;
    let l = [bits as u64, (bits >> 64) as u64, 0, 0];
    let h = platform.step(t, st.h, l);
    let h = platform.step(t, h, st.sigma);
    let mut out = [0u8; OUT_LEN];
    for (bytes, word) in out.chunks_exact_mut(8).zip(h) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// An incremental GOST R 34.11-94 hasher.
#[derive(Clone, Debug)]
pub struct Gost94 {
    state: State,
    /// The bytes of a block not yet complete, and the input length.
    buf: BlockBuffer<BLOCK_LEN>,
    sbox: SBox,
    platform: Platform,
}

impl Default for Gost94 {
    fn default() -> Self {
        Self::new(SBox::CryptoPro)
    }
}

impl Gost94 {
    /// A hasher with the given S-box parameter set (H0 = 0 for both).
    pub fn new(sbox: SBox) -> Self {
        Gost94 {
            state: State { h: [0; 4], sigma: [0; 4] },
            buf: BlockBuffer::new(),
            sbox,
            platform: Platform::detect(),
        }
    }

    /// Chooses the kernels.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.platform = platform;
        self
    }

    /// The backend in use.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// The parameter set.
    pub fn sbox(&self) -> SBox {
        self.sbox
    }

    /// Forgets all input, keeping the parameters and backend.
    pub fn reset(&mut self) -> &mut Self {
        self.state = State { h: [0; 4], sigma: [0; 4] };
        self.buf.reset();
        self
    }

    /// Adds input.
    pub fn update(&mut self, input: &[u8]) -> &mut Self {
        let t = self.sbox.tables();
        let (state, platform) = (&mut self.state, self.platform);
        self.buf.update(input, |blocks| platform.compress_blocks(t, state, blocks));
        self
    }

    /// The digest of the input so far; the hasher can keep being updated.
    pub fn finalize(&self) -> [u8; OUT_LEN] {
        finish(self.platform, self.sbox, &self.state, self.buf.pending(), self.buf.total())
    }

    /// The number of input bytes so far (modulo 2^64).
    pub fn count(&self) -> u64 {
        self.buf.total()
    }
}

/// The GOST R 34.11-94 digest of `input` with the given parameter set.
pub fn hash(sbox: SBox, input: &[u8]) -> [u8; OUT_LEN] {
    Gost94::new(sbox).update(input).finalize()
}

/// Writes the digest of `messages[i]` at `out[32 * i..]`; `out` must be exactly
/// `32 * messages.len()` bytes. Messages are shared out between up to `threads` threads.
pub fn hash_many(
    messages: &[&[u8]],
    sbox: SBox,
    out: &mut [u8],
    platform: Platform,
    threads: Threads,
) -> Result<(), Error> {
    crate::threads::check_out_len(messages.len(), OUT_LEN, out.len())?;
    crate::threads::split_messages(messages, out, OUT_LEN, threads, BLOCK_LEN, &|msgs, o| {
        batch::hash_serial(platform, sbox, msgs, o)
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_boundaries_match_one_shot() {
        // Block edges streamed in every two-piece split, both parameter sets; then reset.
        let data: Vec<u8> = (0..100u32).map(|i| (i * 7 + 3) as u8).collect();
        for sbox in SBox::ALL {
            let lens = [0usize, 1, 31, 32, 33, 63, 64, 65, 100];
            crate::streaming::assert_streaming_matches(|| Gost94::new(sbox), |m| hash(sbox, m).to_vec(), &data, &lens);
        }
    }
}
