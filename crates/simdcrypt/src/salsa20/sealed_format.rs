//! The header and chunk format of [`sealed_stream`](super::sealed_stream): its constants,
//! the errors a reader reports, the secrets and Argon2id parameters of version 2, header
//! parsing and authentication, and the sealing and opening of one chunk. The items are
//! re-exported from `sealed_stream`, whose docs describe the format.
//!
//! ## What this file holds
//!
//! the format's header and one chunk: constants, `DecryptError` (truncation, extension,
//! authentication failure, a bad header, the wrong kind of secret),
//! `Header::new_v2`/`read`/`unlock` (key file or Argon2id passphrase with `Argon2Params`
//! limits checked before any work, a keyed-BLAKE3 MAC over the header, a chunk key derived
//! from K and the header), `seal_chunk`/`open_chunk` and their in-place forms

use super::secretbox::{open_in_place, seal_in_place, TAG_LEN};
use super::{KEY_LEN, XNONCE_LEN};
use crate::read_full;
use std::io::{self, Read};

/// The first 8 bytes of every file.
pub const MAGIC: [u8; 8] = *b"SIMDCRPT";
/// The version [`encrypt`](super::sealed_stream::encrypt) writes (version 1: key only, header not authenticated).
pub const VERSION: u8 = 1;
/// The version [`encrypt_v2`](super::sealed_stream::encrypt_v2) writes.
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
    let other_opens = super::secretbox::open_to(&key.chunk_key, &other, body, &tag, out).is_ok();
    if other_opens {
        out.fill(0);
    }
    Err(chunk_error(index, last, other_opens))
}

/// Why chunk `index` did not open with its `last` flag: when it opens with the other flag
/// value (`other_opens`), the file ends in the wrong place (truncated right after it if it
/// was expected to be the last, else extended); otherwise it was modified or the key is
/// wrong.
fn chunk_error(index: u64, last: bool, other_opens: bool) -> DecryptError {
    match (other_opens, last) {
        (true, true) => DecryptError::Truncated { chunks: index + 1 },
        (true, false) => DecryptError::Extended { chunks: index + 1 },
        (false, _) => DecryptError::Authentication { chunk: index },
    }
}

/// Seals chunk `index` in place: `slot` is a 16-byte space for the tag, then the
/// plaintext, which becomes the ciphertext (the sealed chunk, ready to write).
pub fn seal_chunk_in_place(key: &FileKey, index: u64, last: bool, slot: &mut [u8]) {
    let (tag, body) = slot.split_at_mut(TAG_LEN);
    tag.copy_from_slice(&seal_in_place(&key.chunk_key, &chunk_nonce(&key.nonce, index, last), body));
}

/// Opens sealed chunk `index` (tag, then ciphertext) in place: on success the bytes after
/// the tag are the plaintext; on failure they are not plaintext, and the error says why
/// (as [`open_chunk`]).
pub fn open_chunk_in_place(key: &FileKey, index: u64, last: bool, sealed: &mut [u8]) -> Result<(), DecryptError> {
    if sealed.len() < TAG_LEN {
        return Err(DecryptError::Authentication { chunk: index });
    }
    let (tag, body) = sealed.split_at_mut(TAG_LEN);
    let tag: [u8; TAG_LEN] = (*tag).try_into().expect("16 bytes");
    if open_in_place(&key.chunk_key, &chunk_nonce(&key.nonce, index, last), body, &tag).is_ok() {
        return Ok(());
    }
    // Say why, when the other flag value explains it (a check only on failure).
    let other_opens = open_in_place(&key.chunk_key, &chunk_nonce(&key.nonce, index, !last), body, &tag).is_ok();
    if other_opens {
        body.fill(0);
    }
    Err(chunk_error(index, last, other_opens))
}
