//! A chunked, authenticated file format built on [`secretbox`](super::secretbox), for
//! files of any size in bounded memory (`simdcrypt encrypt` / `simdcrypt decrypt`).
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

use super::secretbox::{open_in_place, seal_in_place, TAG_LEN};
use super::{KEY_LEN, XNONCE_LEN};
use std::io::{self, Read, Write};

/// The first 8 bytes of every file.
pub const MAGIC: [u8; 8] = *b"SIMDCRPT";
/// The format version this code reads and writes.
pub const VERSION: u8 = 1;
/// log2 of [`CHUNK_LEN`], as stored in the header.
pub const CHUNK_LOG2: u8 = 16;
/// Plaintext bytes per chunk (the last chunk may hold fewer).
pub const CHUNK_LEN: usize = 1 << CHUNK_LOG2;
/// Bytes of a sealed full chunk.
pub const SEALED_CHUNK_LEN: usize = CHUNK_LEN + TAG_LEN;
/// Header length in bytes.
pub const HEADER_LEN: usize = 32;
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
}

impl std::fmt::Display for DecryptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecryptError::Io(e) => write!(f, "{e}"),
            DecryptError::Header(msg) => write!(f, "not a simdcrypt encrypted file: {msg}"),
            DecryptError::Authentication { chunk } => write!(
                f,
                "authentication failed at chunk {chunk} (bytes from {}): the file was modified or \
                 reordered, or the key is wrong",
                HEADER_LEN as u64 + chunk * SEALED_CHUNK_LEN as u64
            ),
            DecryptError::Truncated { chunks } => {
                write!(f, "the file is truncated: it ends after {chunks} intact chunk(s), without its final chunk")
            }
            DecryptError::Extended { chunks } => {
                write!(f, "the file was extended: data follows its final chunk (chunk {})", chunks.saturating_sub(1))
            }
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

/// Decrypts a whole file from `input` into `output`, writing each chunk only after it has
/// authenticated. Returns the plaintext length. On `Err`, what was written is a prefix of
/// the plaintext that must not be trusted as the whole file (see the module docs).
pub fn decrypt(key: &[u8; KEY_LEN], mut input: impl Read, mut output: impl Write) -> Result<u64, DecryptError> {
    let mut h = [0u8; HEADER_LEN];
    let got = read_full(&mut input, &mut h)?;
    if got < HEADER_LEN {
        return Err(DecryptError::Header(format!("{got} bytes is shorter than the {HEADER_LEN}-byte header")));
    }
    if h[..8] != MAGIC {
        return Err(DecryptError::Header("wrong magic bytes (expected \"SIMDCRPT\")".into()));
    }
    if h[8] != VERSION {
        return Err(DecryptError::Header(format!("format version {} is not supported (expected {VERSION})", h[8])));
    }
    if h[9] != CHUNK_LOG2 || h[10..16] != [0; 6] {
        return Err(DecryptError::Header("corrupt header (chunk size or reserved bytes)".into()));
    }
    let header_nonce: [u8; HEADER_NONCE_LEN] = h[16..].try_into().expect("16 bytes");
    let mut buf = vec![0u8; SEALED_CHUNK_LEN + 1];
    let mut have = 0;
    let mut total = 0u64;
    for index in 0u64.. {
        have += read_full(&mut input, &mut buf[have..])?;
        let last = have <= SEALED_CHUNK_LEN;
        let n = have.min(SEALED_CHUNK_LEN);
        if n < TAG_LEN {
            // Shorter than a tag: a chunk was cut, or the file ends right after chunk
            // index - 1, which (it was opened as non-final) is then not final.
            return Err(if n == 0 {
                DecryptError::Truncated { chunks: index }
            } else {
                DecryptError::Authentication { chunk: index }
            });
        }
        let (tag, body) = buf[..n].split_at_mut(TAG_LEN);
        let tag: [u8; TAG_LEN] = (&*tag).try_into().expect("16 bytes");
        let nonce = chunk_nonce(&header_nonce, index, last);
        if open_in_place(key, &nonce, body, &tag).is_err() {
            // Say why, when the other flag value explains it (a check only on failure).
            let other = chunk_nonce(&header_nonce, index, !last);
            let mut copy = body.to_vec();
            return Err(if open_in_place(key, &other, &mut copy, &tag).is_ok() {
                if last {
                    DecryptError::Truncated { chunks: index + 1 }
                } else {
                    DecryptError::Extended { chunks: index + 1 }
                }
            } else {
                DecryptError::Authentication { chunk: index }
            });
        }
        output.write_all(body)?;
        total += body.len() as u64;
        if last {
            break;
        }
        buf.copy_within(SEALED_CHUNK_LEN..have, 0);
        have -= SEALED_CHUNK_LEN;
    }
    output.flush()?;
    Ok(total)
}
