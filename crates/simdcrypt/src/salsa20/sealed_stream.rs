//! A chunked, authenticated file format built on [`secretbox`](super::secretbox), for
//! files of any size in bounded memory (`simdcrypt encrypt` / `simdcrypt decrypt`).
//!
//! Two versions: version 2 ([`encrypt_v2`], written by the CLI and Python) adds
//! passphrases (Argon2id) and authenticates its whole header; version 1 ([`encrypt`]) is
//! still written on request and always read. [`decrypt_any`] reads both, on several
//! threads if asked; [`super::sealed_reader`] reads any part of a file at random.
//! docs/file-format.md describes both byte by byte.
//!
//! The code is in three files: the header and one chunk (`sealed_format.rs`), the
//! pipeline that seals or opens a whole stream's chunks on several threads
//! (`sealed_pipeline.rs`: [`seal_chunks`], [`open_chunks`]), and the whole-file functions
//! here.
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
//!
//! ## What this file holds
//!
//! the chunked file format of `simdcrypt encrypt` (docs/file-format.md): its documentation,
//! the whole-file functions `encrypt_v2`, `encrypt` (version 1), `decrypt_any`, `decrypt`, and
//! re-exports of the two files below

pub use super::sealed_format::{
    chunk_nonce, header, open_chunk, open_chunk_in_place, seal_chunk, seal_chunk_in_place, Argon2Params, DecryptError,
    FileKey, Header, KeySource, Secret, CHUNK_LEN, CHUNK_LOG2, HEADER_LEN, HEADER_NONCE_LEN, HEADER_V2_LEN, MAGIC,
    SALT_LEN, SEALED_CHUNK_LEN, VERSION, VERSION_2,
};
pub use super::sealed_pipeline::{open_chunks, seal_chunks};

use super::KEY_LEN;
use crate::threads::Threads;
use std::io::{self, Read, Write};

/// Encrypts all of `input` into `output` (header, then chunks), with the caller's fresh
/// random `header_nonce`. Memory stays at about one batch of chunks (1 MiB). Returns the
/// plaintext length.
pub fn encrypt(
    key: &[u8; KEY_LEN],
    header_nonce: &[u8; HEADER_NONCE_LEN],
    input: impl Read,
    mut output: impl Write,
) -> io::Result<u64> {
    output.write_all(&header(header_nonce))?;
    // Version 1 seals its chunks with the key itself: the same chunk code as version 2.
    seal_chunks(&FileKey::v1(key, header_nonce), input, output, Threads::One)
}

/// Decrypts a whole file (version 1, or version 2 made with a key) from `input` into
/// `output` on the caller's thread, writing each chunk only after it has authenticated.
/// Returns the plaintext length. On `Err`, what was written is a prefix of the plaintext
/// that must not be trusted as the whole file (see the module docs).
pub fn decrypt(key: &[u8; KEY_LEN], input: impl Read, output: impl Write) -> Result<u64, DecryptError> {
    decrypt_any(&Secret::Key(key), input, output, Threads::One)
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
