//! The Salsa20 stream cipher family: Salsa20/20, /12 and /8 with 32- or 16-byte keys and
//! 8-byte nonces, XSalsa20 (24-byte nonces, through [`hsalsa20`]), NaCl's
//! `crypto_secretbox` ([`secretbox`]) and a chunked authenticated file format
//! ([`sealed_stream`]).
//!
//! ```
//! use simdcrypt::salsa20::{Salsa20, XSalsa20};
//!
//! let key = [7u8; 32];
//! let mut cipher = Salsa20::new(&key, &[1u8; 8]);
//! let mut data = *b"attack at dawn";
//! cipher.xor_keystream(&mut data).unwrap();
//!
//! // Decryption is the same operation from the same position.
//! let mut cipher = Salsa20::new(&key, &[1u8; 8]);
//! cipher.xor_keystream(&mut data).unwrap();
//! assert_eq!(&data, b"attack at dawn");
//!
//! // Byte-granular seek anywhere in the 2^70-byte stream.
//! let mut x = XSalsa20::new(&key, &[2u8; 24]);
//! x.seek(1 << 40).unwrap();
//! assert_eq!(x.position(), 1 << 40);
//! ```
//!
//! The types also implement the `cipher` crate's [`StreamCipher`](cipher::StreamCipher),
//! [`StreamCipherSeek`](cipher::StreamCipherSeek) and [`KeyIvInit`](cipher::KeyIvInit)
//! (32-byte keys, 20 rounds), so they drop into code written for RustCrypto's `salsa20`.
//!
//! The block counter is 64 bits wide in every backend (the carry from word 8 into word 9
//! is computed per block), so the stream is 2^64 blocks = 2^70 bytes long; asking for a
//! byte past its end is an error and leaves the cipher unchanged.
//!
//! ## What this file holds
//!
//! Salsa20's public API: `Salsa20` and `XSalsa20` (`with_options`: rounds 8/12/20, 32- or
//! 16-byte keys; `xor_keystream`, `xor_keystream_into`, `fill_keystream`, `seek` over the
//! 2^70-byte stream as a `u128` byte position, `set_counter`, `set_platform`,
//! `set_max_threads` with `threads::with_pool`/`join`, split by block counter), `hsalsa20`,
//! `salsa20_core`, `Rounds`; the `cipher` crate's `KeyIvInit`, `StreamCipher`,
//! `StreamCipherSeek`. A partial block's keystream is cached, so byte-at-a-time use costs one
//! block per 64 bytes; a short message of whole blocks from a block boundary goes from the
//! (inlined) `xor_keystream` straight to the one-block kernel (`takes_short_path`,
//! `short_path`)

/// Calls the kernel function `$f` instantiated for the round count (`$dr` double rounds: 10,
/// 6 or 4), so that each kernel's round loop is unrolled for a constant count.
macro_rules! with_round_count {
    ($dr:expr, $f:ident($($arg:expr),*)) => {
        match $dr {
            10 => $f::<10>($($arg),*),
            6 => $f::<6>($($arg),*),
            4 => $f::<4>($($arg),*),
            n => unreachable!("salsa20 has 8, 12 or 20 rounds, not {}", 2 * n),
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2_x16;
#[cfg(target_arch = "x86_64")]
mod avx512_rows;
#[cfg(target_arch = "x86_64")]
mod avx512_x16;
mod driver;
#[cfg(target_arch = "aarch64")]
mod neon_x4;
mod platform;
mod portable;
mod rounds;
mod scalar_short;
mod sealed_format;
mod sealed_pipeline;
pub mod sealed_reader;
pub mod sealed_stream;
pub mod secretbox;
#[cfg(target_arch = "x86_64")]
mod sse2_x4;

pub use platform::{Kind, Platform};

use std::mem::MaybeUninit;

use crate::threads::{join, with_pool, Threads, MIN_BYTES_PER_THREAD};
use crate::Error;
use cipher::consts::{U24, U32, U8};
use cipher::{InOutBuf, StreamCipherError};

/// Key length in bytes (the 16-byte keys of [`Salsa20::with_options`] are the exception).
pub const KEY_LEN: usize = 32;
/// Length of the short keys that Salsa20 also accepts.
pub const SHORT_KEY_LEN: usize = 16;
/// Salsa20 nonce length in bytes.
pub const NONCE_LEN: usize = 8;
/// XSalsa20 nonce length in bytes.
pub const XNONCE_LEN: usize = 24;
/// HSalsa20 input length in bytes.
pub const HSALSA_INPUT_LEN: usize = 16;
/// Keystream block length in bytes.
pub const BLOCK_LEN: usize = 64;
/// Keystream length in bytes: 2^64 blocks of 64 bytes.
pub const STREAM_LEN: u128 = 1 << 70;

/// "expand 32-byte k"
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
/// "expand 16-byte k"
const TAU: [u32; 4] = [0x6170_7865, 0x3120_646e, 0x7962_2d36, 0x6b20_6574];

/// The number of rounds: 20 is Salsa20 proper; 12 and 8 are the reduced-round variants
/// of the eSTREAM portfolio.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Rounds {
    /// Salsa20/8.
    R8,
    /// Salsa20/12.
    R12,
    /// Salsa20/20.
    #[default]
    R20,
}

impl Rounds {
    /// From a round count; only 8, 12 and 20 are defined.
    pub fn from_count(rounds: u32) -> Result<Rounds, Error> {
        match rounds {
            8 => Ok(Rounds::R8),
            12 => Ok(Rounds::R12),
            20 => Ok(Rounds::R20),
            n => Err(Error::InvalidArgument(format!("rounds must be 8, 12 or 20, got {n}"))),
        }
    }

    /// The round count.
    pub fn count(self) -> u32 {
        match self {
            Rounds::R8 => 8,
            Rounds::R12 => 12,
            Rounds::R20 => 20,
        }
    }

    fn double_rounds(self) -> u32 {
        self.count() / 2
    }
}

fn words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    core::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes")))
}

/// The Salsa20 core function ("Salsa20 hash" of the specification): 64 bytes in, 64 bytes
/// out, with 20 rounds. Exposed for the specification's test vectors.
pub fn salsa20_core(input: &[u8; 64]) -> [u8; 64] {
    portable::block(&words(input), Rounds::R20.double_rounds())
}

/// HSalsa20 with 20 rounds: a 32-byte subkey from a 32-byte key and 16 bytes of input
/// (the first 16 bytes of an XSalsa20 nonce).
pub fn hsalsa20(key: &[u8; KEY_LEN], input: &[u8; HSALSA_INPUT_LEN]) -> [u8; 32] {
    hsalsa(key, input, Rounds::R20)
}

/// HSalsa20 with a chosen round count (XSalsa20/12 and /8 use HSalsa with their rounds).
pub fn hsalsa(key: &[u8; KEY_LEN], input: &[u8; HSALSA_INPUT_LEN], rounds: Rounds) -> [u8; 32] {
    let k: [u32; 8] = words(key);
    let n: [u32; 4] = words(input);
    let mut x = [
        SIGMA[0], k[0], k[1], k[2], k[3], SIGMA[1], n[0], n[1], n[2], n[3], SIGMA[2], k[4], k[5], k[6], k[7], SIGMA[3],
    ];
    portable::permute(&mut x, rounds.double_rounds());
    let mut out = [0u8; 32];
    for (chunk, i) in out.chunks_exact_mut(4).zip([0, 5, 10, 15, 6, 7, 8, 9]) {
        chunk.copy_from_slice(&x[i].to_le_bytes());
    }
    out
}

/// The input and output of one keystream application: in place, or from one buffer into
/// another of the same length (the output possibly uninitialised: it is only written).
/// Split by block for threads.
enum Io<'a> {
    InPlace(&'a mut [u8]),
    Copy(&'a [u8], &'a mut [MaybeUninit<u8>]),
}

impl<'a> Io<'a> {
    fn len(&self) -> usize {
        match self {
            Io::InPlace(b) => b.len(),
            Io::Copy(_, o) => o.len(),
        }
    }

    fn split_at(self, mid: usize) -> (Io<'a>, Io<'a>) {
        match self {
            Io::InPlace(b) => {
                let (l, r) = b.split_at_mut(mid);
                (Io::InPlace(l), Io::InPlace(r))
            }
            Io::Copy(i, o) => {
                let (il, ir) = i.split_at(mid);
                let (ol, or) = o.split_at_mut(mid);
                (Io::Copy(il, ol), Io::Copy(ir, or))
            }
        }
    }

    fn inout(self) -> InOutBuf<'a, 'a, u8> {
        match self {
            Io::InPlace(b) => b.into(),
            Io::Copy(i, o) => {
                assert_eq!(i.len(), o.len(), "Io::Copy buffers have equal lengths");
                // SAFETY: `i` is readable and `o` writable for `i.len()` bytes, and they do
                // not overlap (a shared and an exclusive borrow). Every kernel only reads the
                // input side and only writes the output side of an InOutBuf, so `o` may be
                // uninitialised.
                unsafe { InOutBuf::from_raw(i.as_ptr(), o.as_mut_ptr().cast::<u8>(), i.len()) }
            }
        }
    }
}

/// Salsa20 (any round count, 32- or 16-byte key, 8-byte nonce) with a byte position in the
/// 2^70-byte keystream.
///
/// Encryption and decryption are the same operation, [`Salsa20::xor_keystream`]; each call
/// continues where the previous one stopped.
#[derive(Clone)]
pub struct Salsa20 {
    /// The cipher's 16 input words, with the block counter (words 8 and 9) zero.
    state: Wiped<[u32; 16]>,
    rounds: Rounds,
    platform: Platform,
    threads: Threads,
    /// Byte position, 0..=STREAM_LEN.
    pos: u128,
    /// The keystream block containing `pos` when `pos` is not a multiple of 64.
    partial: Wiped<[u8; BLOCK_LEN]>,
}

/// Secret bytes that [`Salsa20`]'s `Drop` overwrites: aligned to 16 so that the wipe is
/// whole 16-byte volatile stores of a vector register every CPU of the architecture has
/// (a volatile store of the array itself compiles to zeroes built on the stack and copied
/// over, twice the instructions, on every cipher's drop).
#[derive(Clone)]
#[repr(C, align(16))]
struct Wiped<T>(T);

/// The unit of [`Wiped::wipe`]'s stores: an SSE2 register on x86-64, a NEON one on
/// aarch64 (both part of the architecture's baseline), else a 64-bit word.
#[cfg(target_arch = "x86_64")]
type WipeUnit = core::arch::x86_64::__m128i;
#[cfg(target_arch = "aarch64")]
type WipeUnit = core::arch::aarch64::uint32x4_t;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
type WipeUnit = u64;

impl<T: crate::simd::Plain> Wiped<T> {
    /// Overwrites the value with zero bytes, with volatile writes that the compiler cannot
    /// drop as dead stores. `T` is plain data (`simd::Plain`: zero bytes are a valid value)
    /// whose size is a multiple of the store's (checked at compile time).
    fn wipe(&mut self) {
        const { assert!(size_of::<T>().is_multiple_of(size_of::<WipeUnit>())) };
        const { assert!(align_of::<WipeUnit>() <= align_of::<Self>()) };
        // SAFETY: every `WipeUnit` is a plain integer or integer vector: all-zero bytes are
        // a valid value.
        let zero: WipeUnit = unsafe { std::mem::zeroed() };
        let p = (&mut self.0 as *mut T).cast::<WipeUnit>();
        for i in 0..size_of::<T>() / size_of::<WipeUnit>() {
            // SAFETY: `p` comes from `&mut self`: exclusive, aligned for `WipeUnit` (`T` at
            // offset 0 under `repr(C)`, `Self` 16-aligned, checked above), valid for
            // size_of::<T>() bytes, which (i + 1) units do not pass. Zero bytes are a valid
            // `T` (`Plain`).
            unsafe { std::ptr::write_volatile(p.add(i), zero) };
        }
    }
}

impl std::fmt::Debug for Salsa20 {
    /// Never shows the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Salsa20")
            .field("rounds", &self.rounds.count())
            .field("platform", &self.platform)
            .field("threads", &self.threads)
            .field("position", &self.pos)
            .finish_non_exhaustive()
    }
}

impl Drop for Salsa20 {
    /// Overwrites the key words and the buffered keystream. The writes are volatile, so
    /// the compiler cannot drop them as dead stores (plain assignments here were);
    /// copies the compiler made elsewhere (registers, moved values) are out of reach.
    fn drop(&mut self) {
        self.state.wipe();
        self.partial.wipe();
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
    }
}

impl Salsa20 {
    /// Salsa20/20 with a 32-byte key, at position 0, on the best backend for this CPU.
    pub fn new(key: &[u8; KEY_LEN], nonce: &[u8; NONCE_LEN]) -> Self {
        Self::from_words(SIGMA, words(&key[..16]), words(&key[16..]), words(nonce), Rounds::R20)
    }

    /// Any round count, and a 32- or 16-byte key (16-byte keys use the "expand 16-byte k"
    /// constants and the key twice, as in the specification).
    pub fn with_options(key: &[u8], nonce: &[u8], rounds: Rounds) -> Result<Self, Error> {
        let (constants, k0, k1) = match key.len() {
            KEY_LEN => (SIGMA, &key[..16], &key[16..]),
            SHORT_KEY_LEN => (TAU, key, key),
            got => return Err(Error::InvalidArgument(format!("key must be 32 or 16 bytes, got {got}"))),
        };
        if nonce.len() != NONCE_LEN {
            return Err(Error::InvalidLength { what: "nonce", expected: NONCE_LEN, got: nonce.len() });
        }
        Ok(Self::from_words(constants, words(k0), words(k1), words(nonce), rounds))
    }

    fn from_words(constants: [u32; 4], a: [u32; 4], b: [u32; 4], n: [u32; 2], rounds: Rounds) -> Self {
        let state = [
            constants[0],
            a[0],
            a[1],
            a[2],
            a[3],
            constants[1],
            n[0],
            n[1],
            0,
            0,
            constants[2],
            b[0],
            b[1],
            b[2],
            b[3],
            constants[3],
        ];
        Salsa20 {
            state: Wiped(state),
            rounds,
            platform: Platform::detect(),
            threads: Threads::One,
            pos: 0,
            partial: Wiped([0; BLOCK_LEN]),
        }
    }

    /// Chooses the kernels (the default is [`Platform::detect`]). The output never depends
    /// on the choice.
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.platform = platform;
        self
    }

    /// The backend in use.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// How many threads one large call may use (default one). Work is split by block
    /// counter; inputs below twice [`MIN_BYTES_PER_THREAD`] stay on the caller's thread.
    pub fn set_max_threads(&mut self, threads: Threads) -> &mut Self {
        self.threads = threads;
        self
    }

    /// The thread policy.
    pub fn max_threads(&self) -> Threads {
        self.threads
    }

    /// The round count.
    pub fn rounds(&self) -> Rounds {
        self.rounds
    }

    /// The byte position in the keystream, 0 ..= [`STREAM_LEN`].
    pub fn position(&self) -> u128 {
        self.pos
    }

    /// Moves to byte `position` of the keystream (0 ..= [`STREAM_LEN`]).
    pub fn seek(&mut self, position: u128) -> Result<(), Error> {
        if position > STREAM_LEN {
            return Err(Error::InvalidArgument(format!(
                "position {position} is past the end of the keystream (2^70 = {STREAM_LEN} bytes)"
            )));
        }
        self.pos = position;
        if !position.is_multiple_of(64) {
            let block = (position / 64) as u64;
            let mut ks = [0u8; BLOCK_LEN];
            self.one_block(block, &mut ks);
            self.partial.0 = ks;
        }
        Ok(())
    }

    /// Moves to the start of block `counter` (the nonce's block counter of the
    /// specification: byte position 64 * counter).
    pub fn set_counter(&mut self, counter: u64) {
        self.seek(u128::from(counter) * 64).expect("every block start is in the stream");
    }

    /// XORs the next `buf.len()` keystream bytes into `buf` (encrypts or decrypts in
    /// place). Past the end of the keystream it is an error and nothing changes.
    #[inline]
    pub fn xor_keystream(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        if self.takes_short_path(buf.len()) {
            // Inlined into the caller: a short message's call is then the kernel's alone.
            let len = buf.len();
            self.short_path(buf.into());
            self.pos += len as u128;
            return Ok(());
        }
        self.apply(Io::InPlace(buf))
    }

    /// `output = input XOR keystream`, continuing the keystream.
    pub fn xor_keystream_into(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        if input.len() != output.len() {
            return Err(Error::InvalidArgument(format!(
                "output must be as long as the input ({} bytes), got {}",
                input.len(),
                output.len()
            )));
        }
        // SAFETY: the same memory viewed as possibly-uninitialised bytes; `apply` only
        // writes initialised bytes to it, so `output` stays valid as `&mut [u8]`.
        let output = unsafe { &mut *(output as *mut [u8] as *mut [MaybeUninit<u8>]) };
        self.apply(Io::Copy(input, output))
    }

    /// `output = input XOR keystream` into memory that need not be initialised (a buffer
    /// just allocated), continuing the keystream; returns `output` as initialised bytes.
    /// It saves zeroing the output first, a whole pass over memory for large messages.
    pub fn xor_keystream_uninit<'o>(
        &mut self,
        input: &[u8],
        output: &'o mut [MaybeUninit<u8>],
    ) -> Result<&'o mut [u8], Error> {
        if input.len() != output.len() {
            return Err(Error::InvalidArgument(format!(
                "output must be as long as the input ({} bytes), got {}",
                input.len(),
                output.len()
            )));
        }
        self.apply(Io::Copy(input, &mut *output))?;
        // SAFETY: `apply` returned Ok, so it wrote every byte of `output`.
        Ok(unsafe { &mut *(output as *mut [MaybeUninit<u8>] as *mut [u8]) })
    }

    /// Writes the next `out.len()` keystream bytes into `out`.
    pub fn fill_keystream(&mut self, out: &mut [u8]) -> Result<(), Error> {
        out.fill(0);
        self.xor_keystream(out)
    }

    fn check_remaining(&self, len: usize) -> Result<(), Error> {
        if self.pos + len as u128 > STREAM_LEN {
            return Err(Error::InvalidArgument(format!(
                "{len} bytes at position {} would run past the end of the keystream (2^70 bytes)",
                self.pos
            )));
        }
        Ok(())
    }

    /// XORs the keystream of block `block` into `out` (the platform's one-block path).
    fn one_block(&self, block: u64, out: &mut [u8; BLOCK_LEN]) {
        self.platform.xor_keystream(&self.state.0, block, self.rounds.double_rounds(), (&mut out[..]).into());
    }

    /// Whether `len` bytes from here are the common short message: whole blocks from a
    /// block boundary, fewer than half a kernel step (see `apply`), within the stream.
    /// Those go straight to the one-block kernel ([`Self::short_path`]) without the
    /// general path's splits, which were about a tenth of a 64-byte call's instructions.
    #[inline]
    fn takes_short_path(&self, len: usize) -> bool {
        self.pos.is_multiple_of(64)
            && len.is_multiple_of(BLOCK_LEN)
            && len < self.platform.lanes() * BLOCK_LEN / 2
            && self.pos + len as u128 <= STREAM_LEN
    }

    /// The short path's kernel call (position not advanced).
    #[inline]
    fn short_path(&self, io: InOutBuf<'_, '_, u8>) {
        self.platform.short_kernel(&self.state.0, (self.pos / 64) as u64, self.rounds.double_rounds(), io);
    }

    fn apply(&mut self, io: Io<'_>) -> Result<(), Error> {
        let len = io.len();
        if self.takes_short_path(len) {
            self.short_path(io.inout());
            self.pos += len as u128;
            return Ok(());
        }
        self.check_remaining(len)?;
        let mut io = io;
        let offset = (self.pos % 64) as usize;
        if offset != 0 && len > 0 {
            let n = len.min(BLOCK_LEN - offset);
            let (head, rest) = io.split_at(n);
            head.inout().xor_in2out(&self.partial.0[offset..offset + n]);
            self.pos += n as u128;
            io = rest;
        }
        let len = io.len();
        if len == 0 {
            return Ok(());
        }
        // Here pos is block-aligned and pos + len <= 2^70, so every block index fits u64.
        let first = (self.pos / 64) as u64;
        let whole = len / BLOCK_LEN * BLOCK_LEN;
        let (body, tail) = io.split_at(whole);
        if whole > 0 {
            let (platform, dr, state) = (self.platform, self.rounds.double_rounds(), &self.state.0);
            let pool = self.threads.pool_size(whole);
            if whole < platform.lanes() * BLOCK_LEN / 2 {
                // Fewer blocks than half a kernel step: `Platform::xor_keystream` would send
                // them all to the one-block kernel; going there directly skips its split
                // (a division by the step) on the path of every short message.
                platform.short_kernel(state, first, dr, body.inout());
            } else if pool > 1 {
                with_pool(pool, || run_split(platform, state, first, dr, body));
            } else {
                platform.xor_keystream(state, first, dr, body.inout());
            }
        }
        self.pos += whole as u128;
        if tail.len() > 0 {
            let mut ks = [0u8; BLOCK_LEN];
            self.one_block(first.wrapping_add((whole / BLOCK_LEN) as u64), &mut ks);
            self.partial.0 = ks;
            let n = tail.len();
            tail.inout().xor_in2out(&self.partial.0[..n]);
            self.pos += n as u128;
        }
        Ok(())
    }
}

/// Splits whole blocks in halves, by block counter, down to [`MIN_BYTES_PER_THREAD`],
/// offering the right half to other threads.
fn run_split(platform: Platform, state: &[u32; 16], counter: u64, double_rounds: u32, io: Io<'_>) {
    let len = io.len();
    if len < 2 * MIN_BYTES_PER_THREAD {
        platform.xor_keystream(state, counter, double_rounds, io.inout());
        return;
    }
    let mid = len / 2 / BLOCK_LEN * BLOCK_LEN;
    let (left, right) = io.split_at(mid);
    let right_counter = counter.wrapping_add((mid / BLOCK_LEN) as u64);
    join(
        true,
        || run_split(platform, state, counter, double_rounds, left),
        || run_split(platform, state, right_counter, double_rounds, right),
    );
}

/// XSalsa20: Salsa20 keyed with HSalsa20(key, nonce[..16]) and the nonce's last 8 bytes.
/// The 24-byte nonce can be chosen at random.
#[derive(Clone, Debug)]
pub struct XSalsa20 {
    inner: Salsa20,
}

impl XSalsa20 {
    /// XSalsa20/20 at position 0 on the best backend for this CPU.
    pub fn new(key: &[u8; KEY_LEN], nonce: &[u8; XNONCE_LEN]) -> Self {
        Self::with_options(key, nonce, Rounds::R20).expect("a 32-byte key and a 24-byte nonce are valid")
    }

    /// Any round count (used by HSalsa20 too, as in RustCrypto's `XSalsa12`/`XSalsa8`);
    /// the key must be 32 bytes and the nonce 24.
    pub fn with_options(key: &[u8], nonce: &[u8], rounds: Rounds) -> Result<Self, Error> {
        let key: &[u8; KEY_LEN] =
            key.try_into().map_err(|_| Error::InvalidLength { what: "key", expected: KEY_LEN, got: key.len() })?;
        if nonce.len() != XNONCE_LEN {
            return Err(Error::InvalidLength { what: "nonce", expected: XNONCE_LEN, got: nonce.len() });
        }
        let subkey = hsalsa(key, nonce[..16].try_into().expect("16 bytes"), rounds);
        Ok(XSalsa20 { inner: Salsa20::with_options(&subkey, &nonce[16..], rounds)? })
    }

    /// See [`Salsa20::set_platform`].
    pub fn set_platform(&mut self, platform: Platform) -> &mut Self {
        self.inner.set_platform(platform);
        self
    }

    /// The backend in use.
    pub fn platform(&self) -> Platform {
        self.inner.platform()
    }

    /// See [`Salsa20::set_max_threads`].
    pub fn set_max_threads(&mut self, threads: Threads) -> &mut Self {
        self.inner.set_max_threads(threads);
        self
    }

    /// The thread policy.
    pub fn max_threads(&self) -> Threads {
        self.inner.max_threads()
    }

    /// The round count.
    pub fn rounds(&self) -> Rounds {
        self.inner.rounds()
    }

    /// The byte position in the keystream.
    pub fn position(&self) -> u128 {
        self.inner.position()
    }

    /// See [`Salsa20::seek`].
    pub fn seek(&mut self, position: u128) -> Result<(), Error> {
        self.inner.seek(position)
    }

    /// See [`Salsa20::set_counter`].
    pub fn set_counter(&mut self, counter: u64) {
        self.inner.set_counter(counter)
    }

    /// See [`Salsa20::xor_keystream`].
    pub fn xor_keystream(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.inner.xor_keystream(buf)
    }

    /// See [`Salsa20::xor_keystream_into`].
    pub fn xor_keystream_into(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.inner.xor_keystream_into(input, output)
    }

    /// See [`Salsa20::xor_keystream_uninit`].
    pub fn xor_keystream_uninit<'o>(
        &mut self,
        input: &[u8],
        output: &'o mut [MaybeUninit<u8>],
    ) -> Result<&'o mut [u8], Error> {
        self.inner.xor_keystream_uninit(input, output)
    }

    /// See [`Salsa20::fill_keystream`].
    pub fn fill_keystream(&mut self, out: &mut [u8]) -> Result<(), Error> {
        self.inner.fill_keystream(out)
    }
}

// The RustCrypto traits (Salsa20/20, 32-byte keys, like `salsa20::Salsa20`/`XSalsa20`).

impl cipher::KeySizeUser for Salsa20 {
    type KeySize = U32;
}

impl cipher::IvSizeUser for Salsa20 {
    type IvSize = U8;
}

impl cipher::KeyIvInit for Salsa20 {
    fn new(key: &cipher::Key<Self>, iv: &cipher::Iv<Self>) -> Self {
        Salsa20::new(&(*key).into(), &(*iv).into())
    }
}

impl cipher::KeySizeUser for XSalsa20 {
    type KeySize = U32;
}

impl cipher::IvSizeUser for XSalsa20 {
    type IvSize = U24;
}

impl cipher::KeyIvInit for XSalsa20 {
    fn new(key: &cipher::Key<Self>, iv: &cipher::Iv<Self>) -> Self {
        XSalsa20::new(&(*key).into(), &(*iv).into())
    }
}

impl cipher::StreamCipher for Salsa20 {
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        Salsa20::check_remaining(self, data_len).map_err(|_| StreamCipherError)
    }

    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        // The InOutBuf may be in place or two buffers; copy-then-XOR in place keeps one
        // code path and is only used through the trait.
        let out = buf.into_out_with_copied_in();
        self.xor_keystream(out).expect("the trait checked the remaining length");
    }

    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        self.fill_keystream(buf).expect("the trait checked the remaining length");
    }
}

impl cipher::StreamCipher for XSalsa20 {
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        cipher::StreamCipher::check_remaining(&self.inner, data_len)
    }

    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        self.inner.unchecked_apply_keystream_inout(buf)
    }

    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        self.inner.unchecked_write_keystream(buf)
    }
}

impl cipher::StreamCipherSeek for Salsa20 {
    fn try_current_pos<T: cipher::SeekNum>(&self) -> Result<T, cipher::OverflowError> {
        let (block, byte) = (self.pos / 64, (self.pos % 64) as u8);
        // SeekNum counts a partly used block as the next one with `byte` bytes used.
        if byte == 0 {
            T::from_block_byte(block, 64, 64)
        } else {
            T::from_block_byte(block + 1, byte, 64)
        }
    }

    fn try_seek<T: cipher::SeekNum>(&mut self, pos: T) -> Result<(), StreamCipherError> {
        let (block, byte): (u128, u8) = pos.into_block_byte(64).map_err(|_| StreamCipherError)?;
        self.seek(block * 64 + u128::from(byte)).map_err(|_| StreamCipherError)
    }
}

impl cipher::StreamCipherSeek for XSalsa20 {
    fn try_current_pos<T: cipher::SeekNum>(&self) -> Result<T, cipher::OverflowError> {
        self.inner.try_current_pos()
    }

    fn try_seek<T: cipher::SeekNum>(&mut self, pos: T) -> Result<(), StreamCipherError> {
        self.inner.try_seek(pos)
    }
}

#[cfg(test)]
mod tests;
