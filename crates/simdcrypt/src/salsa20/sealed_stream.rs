//! A chunked, authenticated file format built on [`secretbox`](super::secretbox), for
//! files of any size in bounded memory (`simdcrypt encrypt` / `simdcrypt decrypt`).
//!
//! Two versions: version 2 ([`encrypt_v2`], written by the CLI and Python) adds
//! passphrases (Argon2id) and authenticates its whole header; version 1 ([`encrypt`]) is
//! still written on request and always read. [`decrypt_any`] reads both, on several
//! threads if asked; [`super::sealed_reader`] reads any part of a file at random.
//! docs/file-format.md describes both byte by byte.
//!
//! # Format, version 1
//!
//! ```text
//! offset  length  content
//! 0       8       magic: the ASCII bytes "SIMDCRPT" (53 49 4d 44 43 52 50 54)
//! 8       1       version: 0x01
//! 9       1       log2 of the chunk size: 0x10 (65536-byte chunks)
//! 10      6       reserved: zero
//! 16      16      header nonce N: random, fresh for every file
//! 32      ...     chunks 0, 1, ..., n-1
//! ```
//!
//! Chunk `i` is `secretbox(key, nonce_i, P_i)` = 16-byte Poly1305 tag || ciphertext, where
//! `P_i` is the next 65536 bytes of plaintext for every chunk but the last, and the last
//! chunk holds the rest: 0 to 65536 bytes (so an empty file has one chunk of 16 bytes,
//! and a file that is a multiple of 65536 bytes ends with a full final chunk). There is
//! always at least one chunk. The chunk nonce is
//!
//! ```text
//! nonce_i = N (16 bytes) || LE64(i | F << 63)     (24 bytes)
//! ```
//!
//! with `F = 1` for the final chunk and 0 otherwise (`i < 2^63`). A reader knows a chunk is
//! final when the file ends right after it.
//!
//! # What it detects
//!
//! Any change to a chunk (tag failure); truncation at a chunk boundary (the new last
//! chunk was sealed with F = 0) or inside a chunk (tag failure); extension (the final chunk
//! is followed by data, so it is opened with F = 0 and fails, or the added data fails);
//! reordering, dropping or duplicating chunks (the index is in the nonce); chunks moved
//! between files (N is in the nonce); a wrong key (the first chunk fails); a changed header
//! (magic, version, chunk size and reserved bytes must be exactly as above; a changed N
//! fails chunk 0). The decrypter writes each chunk only after it has authenticated, but a
//! truncation is only known at the end: callers that must not keep partial plaintext (the
//! CLI) write to a temporary file and rename it only when [`decrypt`] returns `Ok`.
//!
//! The same key can seal up to about 2^64 files before a random 16-byte N repeats with
//! any real probability.
//!
//! # Format, version 2
//!
//! ```text
//! offset  length  content
//! 0       8       magic "SIMDCRPT"
//! 8       1       version: 0x02
//! 9       1       log2 of the chunk size: 0x10
//! 10      1       key source: 0x00 key file, 0x01 Argon2id passphrase
//! 11      5       reserved: zero
//! 16      16      header nonce N
//! 32      16      Argon2id salt (zero for a key file)
//! 48      4+4+4   Argon2id m (KiB), t, p, little-endian (zero for a key file)
//! 60      4       reserved: zero
//! 64      32      MAC = BLAKE3-keyed(derive_key(MAC context, K), bytes 0..64)
//! 96      ...     chunks, as in version 1, under derive_key(chunk context, K || bytes 0..64)
//! ```
//!
//! K is the key file's key or Argon2id(passphrase, salt, m, t, p). The MAC is checked (in
//! constant time) before any chunk, so any header change, a wrong key and a wrong
//! passphrase fail there; parameters beyond [`Argon2Params`]' limits are refused before
//! any Argon2 work. The two derive_key contexts keep the MAC key and the chunk key
//! independent, and the chunk key binds the chunks to their exact header.

use super::secretbox::{seal_in_place, TAG_LEN};
use super::{KEY_LEN, XNONCE_LEN};
use crate::threads::Threads;
use std::io::{self, Read, Write};

/// The first 8 bytes of every file.
pub const MAGIC: [u8; 8] = *b"SIMDCRPT";
/// The version [`encrypt`] writes (version 1: key only, header not authenticated).
pub const VERSION: u8 = 1;
/// The version [`encrypt_v2`] writes.
pub const VERSION_2: u8 = 2;
/// log2 of [`CHUNK_LEN`], as stored in the header.
pub const CHUNK_LOG2: u8 = 16;
/// Plaintext bytes per chunk (the last chunk may hold fewer).
pub const CHUNK_LEN: usize = 1 << CHUNK_LOG2;
/// Bytes of a sealed full chunk.
pub const SEALED_CHUNK_LEN: usize = CHUNK_LEN + TAG_LEN;
/// Header length in bytes (version 1).
pub const HEADER_LEN: usize = 32;
/// Header length in bytes (version 2): 64 bytes of fields and a 32-byte MAC.
pub const HEADER_V2_LEN: usize = 96;
/// Length of the Argon2id salt in a version-2 header.
pub const SALT_LEN: usize = 16;
/// Length of the random header nonce.
pub const HEADER_NONCE_LEN: usize = 16;

/// Why a file could not be decrypted. The message says what was wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecryptError {
    /// Reading the input or writing the output failed.
    Io(io::Error),
    /// Not a file in this format (or a version this code does not read).
    Header(String),
    /// Chunk `chunk` (0-based) does not authenticate: modified, reordered, from another
    /// file, or the key is wrong.
    Authentication {
        /// The chunk's index.
        chunk: u64,
    },
    /// The file ends after `chunks` intact chunks, none of them sealed as the final one.
    Truncated {
        /// How many chunks were intact.
        chunks: u64,
    },
    /// Data follows the chunk sealed as final (chunk `chunks - 1`).
    Extended {
        /// The number of chunks up to and including the final one.
        chunks: u64,
    },
    /// A version-2 header's MAC does not match: the key or passphrase is wrong, or the
    /// header was modified.
    HeaderAuthentication,
    /// The file needs another kind of secret (a passphrase where a key was given, or the
    /// reverse), or its key-derivation parameters are outside the documented limits.
    Secret(String),
}

impl std::fmt::Display for DecryptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecryptError::Io(e) => write!(f, "{e}"),
            DecryptError::Header(msg) => write!(f, "not a simdcrypt encrypted file: {msg}"),
            DecryptError::Authentication { chunk } => write!(
                f,
                "authentication failed at chunk {chunk} (plaintext bytes from {}): the file was \
                 modified or reordered, or the key is wrong",
                chunk.saturating_mul(CHUNK_LEN as u64)
            ),
            DecryptError::Truncated { chunks } => {
                write!(f, "the file is truncated: it ends after {chunks} intact chunk(s), without its final chunk")
            }
            DecryptError::Extended { chunks } => {
                write!(f, "the file was extended: data follows its final chunk (chunk {})", chunks.saturating_sub(1))
            }
            DecryptError::HeaderAuthentication => {
                f.write_str("header authentication failed: the key or passphrase is wrong, or the header was modified")
            }
            DecryptError::Secret(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for DecryptError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecryptError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for DecryptError {
    fn from(e: io::Error) -> Self {
        DecryptError::Io(e)
    }
}

/// The nonce of chunk `index`: `header_nonce || LE64(index | final << 63)`.
///
/// # Panics
///
/// If `index >= 2^63` (2^79 bytes of plaintext: unreachable in practice).
pub fn chunk_nonce(header_nonce: &[u8; HEADER_NONCE_LEN], index: u64, last: bool) -> [u8; XNONCE_LEN] {
    assert!(index < 1 << 63, "sealed_stream chunk index {index} out of range");
    let mut nonce = [0u8; XNONCE_LEN];
    nonce[..HEADER_NONCE_LEN].copy_from_slice(header_nonce);
    nonce[HEADER_NONCE_LEN..].copy_from_slice(&(index | u64::from(last) << 63).to_le_bytes());
    nonce
}

/// The 32-byte header for a header nonce.
pub fn header(header_nonce: &[u8; HEADER_NONCE_LEN]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[8] = VERSION;
    h[9] = CHUNK_LOG2;
    h[16..].copy_from_slice(header_nonce);
    h
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads the next batch of at most `cap` bytes into `buf`, plus one byte of look-ahead that
/// tells whether the input goes on; that byte is kept in `carry` for the next batch.
/// Returns how many bytes were read: more than `cap` means this is not the last batch.
fn read_batch(input: &mut impl Read, buf: &mut Vec<u8>, cap: usize, carry: &mut Option<u8>) -> io::Result<usize> {
    buf.resize(cap + 1, 0);
    let mut have = 0;
    if let Some(c) = carry.take() {
        buf[0] = c;
        have = 1;
    }
    have += read_full(input, &mut buf[have..])?;
    if have > cap {
        *carry = Some(buf[cap]);
    }
    Ok(have)
}

/// Encrypts all of `input` into `output` (header, then chunks), with the caller's fresh
/// random `header_nonce`. Memory stays at about one chunk. Returns the plaintext length.
pub fn encrypt(
    key: &[u8; KEY_LEN],
    header_nonce: &[u8; HEADER_NONCE_LEN],
    mut input: impl Read,
    mut output: impl Write,
) -> io::Result<u64> {
    output.write_all(&header(header_nonce))?;
    // One byte of look-ahead tells whether the chunk in hand is the last.
    let mut buf = vec![0u8; CHUNK_LEN + 1];
    let mut have = 0;
    let mut total = 0u64;
    for index in 0u64.. {
        have += read_full(&mut input, &mut buf[have..])?;
        let last = have <= CHUNK_LEN;
        let n = have.min(CHUNK_LEN);
        let tag = seal_in_place(key, &chunk_nonce(header_nonce, index, last), &mut buf[..n]);
        output.write_all(&tag)?;
        output.write_all(&buf[..n])?;
        total += n as u64;
        if last {
            break;
        }
        buf.copy_within(CHUNK_LEN..have, 0);
        have -= CHUNK_LEN;
    }
    output.flush()?;
    Ok(total)
}

/// Decrypts a whole file (version 1, or version 2 made with a key) from `input` into
/// `output` on the caller's thread, writing each chunk only after it has authenticated.
/// Returns the plaintext length. On `Err`, what was written is a prefix of the plaintext
/// that must not be trusted as the whole file (see the module docs).
pub fn decrypt(key: &[u8; KEY_LEN], input: impl Read, output: impl Write) -> Result<u64, DecryptError> {
    decrypt_any(&Secret::Key(key), input, output, Threads::One)
}

/// The secret a file is encrypted with.
#[derive(Clone, Copy)]
pub enum Secret<'a> {
    /// A 32-byte key (`simdcrypt keygen`).
    Key(&'a [u8; KEY_LEN]),
    /// A passphrase, stretched with Argon2id (version 2 only).
    Passphrase(&'a [u8]),
}

impl std::fmt::Debug for Secret<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the secret itself.
        f.write_str(match self {
            Secret::Key(_) => "Secret::Key(..)",
            Secret::Passphrase(_) => "Secret::Passphrase(..)",
        })
    }
}

/// Argon2id's cost parameters, as a version-2 header stores them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Argon2Params {
    /// Memory in KiB (`m`).
    pub memory_kib: u32,
    /// Passes over the memory (`t`).
    pub iterations: u32,
    /// Lanes (`p`). The computation runs on one thread whatever `p` is.
    pub parallelism: u32,
}

impl Argon2Params {
    /// The defaults of `encrypt --passphrase`: RFC 9106's second recommended setting
    /// (64 MiB, 3 passes, 4 lanes), well under a second on a current CPU.
    pub const DEFAULT: Argon2Params = Argon2Params { memory_kib: 64 * 1024, iterations: 3, parallelism: 4 };
    /// The most memory a header may ask for: 1 GiB. A hostile header must not make a
    /// reader allocate more.
    pub const MAX_MEMORY_KIB: u32 = 1024 * 1024;
    /// The most passes a header may ask for: with [`Self::MAX_MEMORY_KIB`] this bounds a
    /// hostile header to seconds of work, not hours.
    pub const MAX_ITERATIONS: u32 = 10;
    /// The most lanes a header may ask for.
    pub const MAX_PARALLELISM: u32 = 16;

    /// Checks the documented limits (and Argon2's own minimum of 8 KiB per lane); the
    /// message says which parameter is wrong and what is allowed.
    pub fn check(&self) -> Result<(), String> {
        let Argon2Params { memory_kib: m, iterations: t, parallelism: p } = *self;
        if !(1..=Self::MAX_PARALLELISM).contains(&p) {
            return Err(format!("Argon2id parallelism p = {p} is outside 1..={}", Self::MAX_PARALLELISM));
        }
        if !(1..=Self::MAX_ITERATIONS).contains(&t) {
            return Err(format!("Argon2id iterations t = {t} is outside 1..={}", Self::MAX_ITERATIONS));
        }
        if m < 8 * p || m > Self::MAX_MEMORY_KIB {
            return Err(format!(
                "Argon2id memory m = {m} KiB is outside {}..={} KiB (8 KiB per lane up to 1 GiB)",
                8 * p,
                Self::MAX_MEMORY_KIB
            ));
        }
        Ok(())
    }
}

/// How a version-2 file's key is obtained (byte 10 of its header).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeySource {
    /// The 32-byte key itself (key byte 0).
    KeyFile,
    /// Argon2id over a passphrase (key byte 1).
    Argon2id {
        /// The random salt.
        salt: [u8; SALT_LEN],
        /// The cost parameters.
        params: Argon2Params,
    },
}

/// A parsed header, version 1 or 2 (not yet authenticated: see [`Header::unlock`]).
#[derive(Clone, Debug)]
pub struct Header {
    bytes: Vec<u8>,
    nonce: [u8; HEADER_NONCE_LEN],
    source: KeySource,
}

/// The keys that seal or open one file's chunks, derived from its header and secret.
#[derive(Clone)]
pub struct FileKey {
    chunk_key: [u8; KEY_LEN],
    nonce: [u8; HEADER_NONCE_LEN],
}

impl std::fmt::Debug for FileKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileKey(..)")
    }
}

impl FileKey {
    /// The key and header nonce of a version-1 file (the chunks use the key itself).
    pub fn v1(key: &[u8; KEY_LEN], header_nonce: &[u8; HEADER_NONCE_LEN]) -> FileKey {
        FileKey { chunk_key: *key, nonce: *header_nonce }
    }
}

const MAC_CONTEXT: &str = "simdcrypt sealed_stream v2 2026 header MAC";
const CHUNK_KEY_CONTEXT: &str = "simdcrypt sealed_stream v2 2026 chunk key";
const KEY_BYTE_KEYFILE: u8 = 0;
const KEY_BYTE_ARGON2ID: u8 = 1;

/// The file key K: the key itself, or Argon2id (version 0x13, 32-byte output).
fn master_key(source: &KeySource, secret: &Secret<'_>) -> Result<[u8; KEY_LEN], DecryptError> {
    match (source, secret) {
        (KeySource::KeyFile, Secret::Key(k)) => Ok(**k),
        (KeySource::Argon2id { salt, params }, Secret::Passphrase(p)) => {
            params.check().map_err(DecryptError::Secret)?;
            let argon_params = argon2::Params::new(params.memory_kib, params.iterations, params.parallelism, Some(32))
                .map_err(|e| DecryptError::Secret(format!("Argon2id parameters rejected: {e}")))?;
            let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, argon_params);
            let mut k = [0u8; KEY_LEN];
            argon
                .hash_password_into(p, salt, &mut k)
                .map_err(|e| DecryptError::Secret(format!("Argon2id failed: {e}")))?;
            Ok(k)
        }
        (KeySource::KeyFile, Secret::Passphrase(_)) => {
            Err(DecryptError::Secret("this file was encrypted with a key file, not a passphrase".into()))
        }
        (KeySource::Argon2id { .. }, Secret::Key(_)) => {
            Err(DecryptError::Secret("this file was encrypted with a passphrase, not a key file".into()))
        }
    }
}

/// The 32-byte header MAC: keyed BLAKE3 of header bytes 0..64 under
/// `derive_key(MAC_CONTEXT, K)`.
fn header_mac(k: &[u8; KEY_LEN], fields: &[u8]) -> [u8; 32] {
    let mac_key = crate::blake3::derive_key(MAC_CONTEXT, k);
    crate::blake3::keyed_hash(&mac_key, fields)
}

/// The chunk key: `derive_key(CHUNK_KEY_CONTEXT, K || header bytes 0..64)`, so the chunks
/// belong to this exact header.
fn chunk_key(k: &[u8; KEY_LEN], fields: &[u8]) -> [u8; KEY_LEN] {
    let mut material = Vec::with_capacity(KEY_LEN + fields.len());
    material.extend_from_slice(k);
    material.extend_from_slice(fields);
    crate::blake3::derive_key(CHUNK_KEY_CONTEXT, &material)
}

impl Header {
    /// A new version-2 header for `secret` with the caller's fresh random nonce (and salt,
    /// used with a passphrase), and the key that seals its chunks. `params` is used with a
    /// passphrase and must pass [`Argon2Params::check`].
    pub fn new_v2(
        secret: &Secret<'_>,
        header_nonce: &[u8; HEADER_NONCE_LEN],
        salt: &[u8; SALT_LEN],
        params: Argon2Params,
    ) -> Result<(Header, FileKey), DecryptError> {
        let source = match secret {
            Secret::Key(_) => KeySource::KeyFile,
            Secret::Passphrase(_) => KeySource::Argon2id { salt: *salt, params },
        };
        let mut h = vec![0u8; HEADER_V2_LEN];
        h[..8].copy_from_slice(&MAGIC);
        h[8] = VERSION_2;
        h[9] = CHUNK_LOG2;
        h[16..32].copy_from_slice(header_nonce);
        if let KeySource::Argon2id { salt, params } = &source {
            h[10] = KEY_BYTE_ARGON2ID;
            h[32..48].copy_from_slice(salt);
            h[48..52].copy_from_slice(&params.memory_kib.to_le_bytes());
            h[52..56].copy_from_slice(&params.iterations.to_le_bytes());
            h[56..60].copy_from_slice(&params.parallelism.to_le_bytes());
        }
        let k = master_key(&source, secret)?;
        let mac = header_mac(&k, &h[..64]);
        h[64..].copy_from_slice(&mac);
        let key = FileKey { chunk_key: chunk_key(&k, &h[..64]), nonce: *header_nonce };
        Ok((Header { bytes: h, nonce: *header_nonce, source }, key))
    }

    /// Reads and parses a header (either version) from the start of `input`; checks every
    /// field but not yet the MAC.
    pub fn read(input: &mut impl Read) -> Result<Header, DecryptError> {
        let mut h = [0u8; HEADER_V2_LEN];
        let got = read_full(input, &mut h[..HEADER_LEN])?;
        if got < HEADER_LEN {
            return Err(DecryptError::Header(format!("{got} bytes is shorter than the {HEADER_LEN}-byte header")));
        }
        if h[..8] != MAGIC {
            return Err(DecryptError::Header("wrong magic bytes (expected \"SIMDCRPT\")".into()));
        }
        let len = match h[8] {
            VERSION => HEADER_LEN,
            VERSION_2 => HEADER_V2_LEN,
            v => {
                return Err(DecryptError::Header(format!(
                    "format version {v} is not supported (expected {VERSION} or {VERSION_2})"
                )))
            }
        };
        let got = HEADER_LEN + read_full(input, &mut h[HEADER_LEN..len])?;
        if got < len {
            return Err(DecryptError::Header(format!("{got} bytes is shorter than the {len}-byte version-2 header")));
        }
        Header::parse(&h[..len])
    }

    /// Parses a whole header (32 bytes for version 1, 96 for version 2).
    pub fn parse(h: &[u8]) -> Result<Header, DecryptError> {
        if h.len() < HEADER_LEN || h[..8] != MAGIC {
            return Err(DecryptError::Header("wrong magic bytes (expected \"SIMDCRPT\")".into()));
        }
        let nonce: [u8; HEADER_NONCE_LEN] = h[16..32].try_into().expect("16 bytes");
        let source = match (h[8], h.len()) {
            (VERSION, HEADER_LEN) => {
                if h[9] != CHUNK_LOG2 || h[10..16] != [0; 6] {
                    return Err(DecryptError::Header("corrupt header (chunk size or reserved bytes)".into()));
                }
                KeySource::KeyFile
            }
            (VERSION_2, HEADER_V2_LEN) => {
                if h[9] != CHUNK_LOG2 || h[11..16] != [0; 5] || h[60..64] != [0; 4] {
                    return Err(DecryptError::Header("corrupt header (chunk size or reserved bytes)".into()));
                }
                let word = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().expect("4 bytes"));
                match h[10] {
                    KEY_BYTE_KEYFILE => {
                        if h[32..60].iter().any(|&b| b != 0) {
                            return Err(DecryptError::Header(
                                "corrupt header (key-file header with Argon2id fields)".into(),
                            ));
                        }
                        KeySource::KeyFile
                    }
                    KEY_BYTE_ARGON2ID => {
                        let params = Argon2Params { memory_kib: word(48), iterations: word(52), parallelism: word(56) };
                        params
                            .check()
                            .map_err(|e| DecryptError::Header(format!("{e} (refused: too costly or invalid)")))?;
                        KeySource::Argon2id { salt: h[32..48].try_into().expect("16 bytes"), params }
                    }
                    b => return Err(DecryptError::Header(format!("unknown key source {b} (expected 0 or 1)"))),
                }
            }
            (v, _) => {
                return Err(DecryptError::Header(format!("format version {v} with a header of {} bytes", h.len())))
            }
        };
        Ok(Header { bytes: h.to_vec(), nonce, source })
    }

    /// The header's bytes, as written at the start of the file.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The format version (1 or 2).
    pub fn version(&self) -> u8 {
        self.bytes[8]
    }

    /// How the file's key is obtained.
    pub fn key_source(&self) -> KeySource {
        self.source
    }

    /// Derives the file's key from `secret` (Argon2id for a passphrase) and, for version 2,
    /// checks the header MAC in constant time before anything else.
    pub fn unlock(&self, secret: &Secret<'_>) -> Result<FileKey, DecryptError> {
        if self.version() == VERSION {
            return match secret {
                Secret::Key(k) => Ok(FileKey::v1(k, &self.nonce)),
                Secret::Passphrase(_) => Err(DecryptError::Secret(
                    "this is a version-1 file, encrypted with a key file, not a passphrase".into(),
                )),
            };
        }
        let k = master_key(&self.source, secret)?;
        let fields = &self.bytes[..64];
        let mac = header_mac(&k, fields);
        if !bool::from(subtle::ConstantTimeEq::ct_eq(&mac[..], &self.bytes[64..])) {
            return Err(DecryptError::HeaderAuthentication);
        }
        Ok(FileKey { chunk_key: chunk_key(&k, fields), nonce: self.nonce })
    }
}

/// Seals chunk `index` of `plain` into `out` (`plain.len() + TAG_LEN` bytes: tag, then
/// ciphertext).
pub fn seal_chunk(key: &FileKey, index: u64, last: bool, plain: &[u8], out: &mut [u8]) {
    let (tag, body) = out.split_at_mut(TAG_LEN);
    let t = super::secretbox::seal_to(&key.chunk_key, &chunk_nonce(&key.nonce, index, last), plain, body);
    tag.copy_from_slice(&t);
}

/// Opens sealed chunk `index` (tag, then ciphertext) into `out` (`sealed.len() - TAG_LEN`
/// bytes), or says why not: when the chunk authenticates with the other final flag, the
/// file was truncated (`last`) or extended (not `last`) right after it.
pub fn open_chunk(key: &FileKey, index: u64, last: bool, sealed: &[u8], out: &mut [u8]) -> Result<(), DecryptError> {
    if sealed.len() < TAG_LEN {
        return Err(DecryptError::Authentication { chunk: index });
    }
    let (tag, body) = sealed.split_at(TAG_LEN);
    let tag: [u8; TAG_LEN] = tag.try_into().expect("16 bytes");
    let nonce = chunk_nonce(&key.nonce, index, last);
    if super::secretbox::open_to(&key.chunk_key, &nonce, body, &tag, out).is_ok() {
        return Ok(());
    }
    // Say why, when the other flag value explains it (a check only on failure).
    let other = chunk_nonce(&key.nonce, index, !last);
    Err(if super::secretbox::open_to(&key.chunk_key, &other, body, &tag, out).is_ok() {
        out.fill(0);
        if last {
            DecryptError::Truncated { chunks: index + 1 }
        } else {
            DecryptError::Extended { chunks: index + 1 }
        }
    } else {
        DecryptError::Authentication { chunk: index }
    })
}

/// Encrypts all of `input` into `output` in format version 2: the header, then the chunks,
/// sealed on up to `threads` threads (the output is the same for any thread count).
/// `header_nonce` and `salt` must be fresh random bytes; `params` applies to a passphrase.
/// Returns the plaintext length.
pub fn encrypt_v2(
    secret: &Secret<'_>,
    header_nonce: &[u8; HEADER_NONCE_LEN],
    salt: &[u8; SALT_LEN],
    params: Argon2Params,
    input: impl Read,
    mut output: impl Write,
    threads: Threads,
) -> Result<u64, DecryptError> {
    let (header, key) = Header::new_v2(secret, header_nonce, salt, params)?;
    output.write_all(header.as_bytes())?;
    Ok(seal_chunks(&key, input, output, threads)?)
}

/// Decrypts a whole file of either version from `input` into `output`, opening chunks on
/// up to `threads` threads and writing each only after it (and every chunk before it)
/// has authenticated. Returns the plaintext length. On `Err`, what was written is a prefix
/// of the plaintext that must not be trusted as the whole file.
pub fn decrypt_any(
    secret: &Secret<'_>,
    mut input: impl Read,
    output: impl Write,
    threads: Threads,
) -> Result<u64, DecryptError> {
    let header = Header::read(&mut input)?;
    let key = header.unlock(secret)?;
    open_chunks(&key, input, output, threads)
}

/// How many threads `threads` means here: every CPU for `Auto`.
fn thread_count(threads: Threads) -> usize {
    let n = match threads {
        Threads::One => 1,
        Threads::Max(n) => n.max(1),
        Threads::Auto => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if cfg!(feature = "rayon") {
        n
    } else {
        1
    }
}

/// Chunks per batch and thread: enough work per batch (1 MiB a thread) that handing it to
/// the pool costs little, few enough that memory stays a few MiB.
const CHUNKS_PER_THREAD: usize = 16;

/// The most bytes handed to one `write` call. Linux (6.x, ext4 with large folios) was
/// measured to spend several times longer in `write` for single calls of 2 to 4 MiB into
/// the page cache than for the same bytes in calls of 1 MiB or less (it allocates folios
/// as large as the write); the cost showed as decryption to a file taking twice as long as
/// encryption, whose writes were smaller and unaligned. A syscall per 256 KiB costs
/// nothing measurable.
const WRITE_PIECE: usize = 256 * 1024;

/// Writes `buf` in pieces of at most [`WRITE_PIECE`] bytes.
fn write_in_pieces(output: &mut impl Write, buf: &[u8]) -> io::Result<()> {
    for piece in buf.chunks(WRITE_PIECE) {
        output.write_all(piece)?;
    }
    Ok(())
}

/// One batch of consecutive chunks: its input, its output, where it starts.
struct Batch {
    input: Vec<u8>,
    input_len: usize,
    output: Vec<u8>,
    output_len: usize,
    first: u64,
    is_final: bool,
    /// Decryption: the first chunk that failed, and why (the output holds the chunks
    /// before it).
    error: Option<DecryptError>,
}

/// Runs `process` on each batch `fill` produces, on a helper thread when `threads > 1`
/// so that reading and writing (on the caller's thread: the reader and writer need not be
/// `Send`) overlap with the work; `drain` gets the batches back in order. Stops after the
/// final batch or the first error.
fn pipeline<E>(
    threads: usize,
    mut fill: impl FnMut(&mut Batch) -> Result<(), E>,
    process: impl Fn(&mut Batch) + Sync,
    mut drain: impl FnMut(&mut Batch) -> Result<bool, E>,
) -> Result<(), E>
where
    E: Send,
{
    let new_batch = || Batch {
        input: Vec::new(),
        input_len: 0,
        output: Vec::new(),
        output_len: 0,
        first: 0,
        is_final: false,
        error: None,
    };
    if threads <= 1 {
        let mut b = new_batch();
        loop {
            fill(&mut b)?;
            process(&mut b);
            if !drain(&mut b)? {
                return Ok(());
            }
        }
    }
    let process = &process;
    std::thread::scope(|scope| {
        let (to_worker, work) = std::sync::mpsc::sync_channel::<Batch>(1);
        let (to_main, done) = std::sync::mpsc::sync_channel::<Batch>(2);
        scope.spawn(move || {
            crate::threads::with_pool(threads, || {
                for mut b in work {
                    process(&mut b);
                    if to_main.send(b).is_err() {
                        break;
                    }
                }
            })
        });
        let mut spare = vec![new_batch(), new_batch(), new_batch()];
        let mut in_flight = 0usize;
        let mut more = true;
        let result = (|| {
            loop {
                // Keep two batches at the worker while the input lasts.
                while more && in_flight < 2 {
                    let mut b = spare.pop().unwrap_or_else(new_batch);
                    fill(&mut b)?;
                    more = !b.is_final;
                    to_worker.send(b).expect("the worker runs until its channel closes");
                    in_flight += 1;
                }
                if in_flight == 0 {
                    return Ok(());
                }
                let mut b = done.recv().expect("the worker answers every batch");
                in_flight -= 1;
                let go_on = drain(&mut b)?;
                spare.push(b);
                if !go_on {
                    return Ok(());
                }
            }
        })();
        drop(to_worker);
        // Let the worker finish what it holds; its results are not needed.
        while done.recv().is_ok() {}
        result
    })
}

/// Runs `f(i, input piece i, output piece i)` for every piece, on rayon's threads when
/// `par` (inside [`crate::threads::with_pool`], which picks the pool).
fn for_each_piece(
    par: bool,
    input: &[u8],
    in_len: usize,
    output: &mut [u8],
    out_len: usize,
    f: impl Fn(usize, &[u8], &mut [u8]) + Sync + Send,
) {
    #[cfg(feature = "rayon")]
    if par {
        use rayon::prelude::*;
        if in_len > 0 || out_len > 0 {
            input
                .par_chunks(in_len.max(1))
                .zip(output.par_chunks_mut(out_len.max(1)))
                .enumerate()
                .for_each(|(i, (a, b))| f(i, a, b));
            return;
        }
    }
    for (i, (a, b)) in input.chunks(in_len.max(1)).zip(output.chunks_mut(out_len.max(1))).enumerate() {
        f(i, a, b);
    }
}

/// Seals the chunks of `input` (no header) into `output`. Returns the plaintext length.
pub fn seal_chunks(key: &FileKey, mut input: impl Read, mut output: impl Write, threads: Threads) -> io::Result<u64> {
    let threads = thread_count(threads);
    let per_batch = CHUNKS_PER_THREAD * threads;
    let cap = per_batch * CHUNK_LEN;
    // One byte of look-ahead tells whether a batch holds the last chunk; it is carried
    // into the next batch.
    let mut carry: Option<u8> = None;
    let mut next_index = 0u64;
    let mut total = 0u64;
    let fill = |b: &mut Batch| -> io::Result<()> {
        let have = read_batch(&mut input, &mut b.input, cap, &mut carry)?;
        b.is_final = have <= cap;
        let have = have.min(cap);
        b.input_len = have;
        let chunks = have.div_ceil(CHUNK_LEN).max(1);
        b.first = next_index;
        next_index += chunks as u64;
        b.output_len = have + chunks * TAG_LEN;
        b.output.resize(b.output_len, 0);
        Ok(())
    };
    let process = |b: &mut Batch| {
        let chunks = b.input_len.div_ceil(CHUNK_LEN).max(1);
        let (first, is_final) = (b.first, b.is_final);
        let par = threads > 1;
        let f = |i: usize, plain: &[u8], out: &mut [u8]| {
            let last = is_final && i + 1 == chunks;
            seal_chunk(key, first + i as u64, last, plain, out);
        };
        if b.input_len == 0 {
            f(0, &[], &mut b.output[..TAG_LEN]);
        } else {
            for_each_piece(par, &b.input[..b.input_len], CHUNK_LEN, &mut b.output[..b.output_len], SEALED_CHUNK_LEN, f);
        }
    };
    let drain = |b: &mut Batch| -> io::Result<bool> {
        write_in_pieces(&mut output, &b.output[..b.output_len])?;
        total += b.input_len as u64;
        Ok(!b.is_final)
    };
    pipeline(threads, fill, process, drain)?;
    output.flush()?;
    Ok(total)
}

/// Opens the chunks of `input` (after the header) into `output`, writing a chunk only
/// once it and all before it authenticated. Returns the plaintext length.
pub fn open_chunks(
    key: &FileKey,
    mut input: impl Read,
    mut output: impl Write,
    threads: Threads,
) -> Result<u64, DecryptError> {
    let threads = thread_count(threads);
    let per_batch = CHUNKS_PER_THREAD * threads;
    let cap = per_batch * SEALED_CHUNK_LEN;
    let mut carry: Option<u8> = None;
    let mut next_index = 0u64;
    let mut total = 0u64;
    let fill = |b: &mut Batch| -> Result<(), DecryptError> {
        let have = read_batch(&mut input, &mut b.input, cap, &mut carry)?;
        b.is_final = have <= cap;
        let have = have.min(cap);
        b.input_len = have;
        let chunks = have.div_ceil(SEALED_CHUNK_LEN);
        b.first = next_index;
        next_index += chunks as u64;
        b.output_len = have.saturating_sub(chunks * TAG_LEN);
        b.output.resize(b.output_len.max(have), 0);
        b.error = None;
        Ok(())
    };
    let par = threads > 1;
    let process = |b: &mut Batch| {
        let chunks = b.input_len.div_ceil(SEALED_CHUNK_LEN);
        if chunks == 0 {
            // The input ended right after the previous batch, whose chunks were all opened
            // as non-final.
            b.error = Some(DecryptError::Truncated { chunks: b.first });
            b.output_len = 0;
            return;
        }
        let (first, is_final) = (b.first, b.is_final);
        let failures = std::sync::Mutex::new(Vec::new());
        let f = |i: usize, sealed: &[u8], out: &mut [u8]| {
            let last = is_final && i + 1 == chunks;
            let plain_len = sealed.len().saturating_sub(TAG_LEN);
            if let Err(e) = open_chunk(key, first + i as u64, last, sealed, &mut out[..plain_len]) {
                failures.lock().unwrap_or_else(|e| e.into_inner()).push((i, e));
            }
        };
        for_each_piece(par, &b.input[..b.input_len], SEALED_CHUNK_LEN, &mut b.output, CHUNK_LEN, f);
        let mut failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
        failures.sort_by_key(|(i, _)| *i);
        if let Some((i, e)) = failures.into_iter().next() {
            b.output_len = i * CHUNK_LEN;
            b.error = Some(e);
        }
    };
    let drain = |b: &mut Batch| -> Result<bool, DecryptError> {
        write_in_pieces(&mut output, &b.output[..b.output_len])?;
        total += b.output_len as u64;
        if let Some(e) = b.error.take() {
            return Err(e);
        }
        Ok(!b.is_final)
    };
    pipeline(threads, fill, process, drain)?;
    output.flush()?;
    Ok(total)
}
