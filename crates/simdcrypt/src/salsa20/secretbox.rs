//! NaCl's `crypto_secretbox` (XSalsa20-Poly1305), byte-compatible with libsodium's
//! `crypto_secretbox_easy` and PyNaCl's `SecretBox`: the box is the 16-byte Poly1305 tag
//! followed by the ciphertext.
//!
//! The first 32 bytes of the XSalsa20 keystream are the one-time Poly1305 key; the
//! message is encrypted with the keystream from byte 32 on; the tag authenticates the
//! ciphertext. Poly1305 is RustCrypto's `poly1305` crate; tags are compared in constant
//! time (`subtle`), and nothing is decrypted before the tag has been checked.
//!
//! ```
//! use simdcrypt::salsa20::secretbox;
//!
//! let (key, nonce) = ([1u8; 32], [2u8; 24]);
//! let boxed = secretbox::seal(&key, &nonce, b"hello");
//! assert_eq!(boxed.len(), 5 + secretbox::TAG_LEN);
//! assert_eq!(secretbox::open(&key, &nonce, &boxed).unwrap(), b"hello");
//! assert!(secretbox::open(&[9u8; 32], &nonce, &boxed).is_err());
//! ```
//!
//! ## What this file holds
//!
//! NaCl `crypto_secretbox` (XSalsa20-Poly1305): `seal`/`open` (tag ‖ ciphertext) and the
//! detached in-place forms; Poly1305 from RustCrypto's `poly1305`, tags compared with `subtle`
//! before anything is decrypted

use super::{XSalsa20, KEY_LEN, XNONCE_LEN};
use poly1305::universal_hash::KeyInit;
use poly1305::Poly1305;
use subtle::ConstantTimeEq;

/// Poly1305 tag length in bytes.
pub const TAG_LEN: usize = 16;

/// A box that does not authenticate: forged or corrupted, too short, or opened with the
/// wrong key or nonce. Deliberately says no more than that.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AuthenticationError;

impl std::fmt::Display for AuthenticationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("authentication failed: the box was forged or corrupted, or the key or nonce is wrong")
    }
}

impl std::error::Error for AuthenticationError {}

/// The cipher positioned after the Poly1305 key, and the MAC keyed with it.
fn setup(key: &[u8; KEY_LEN], nonce: &[u8; XNONCE_LEN]) -> (XSalsa20, Poly1305) {
    let mut cipher = XSalsa20::new(key, nonce);
    let mut mac_key = [0u8; 32];
    cipher.fill_keystream(&mut mac_key).expect("32 bytes at position 0 are in the stream");
    (cipher, Poly1305::new(&mac_key.into()))
}

/// Encrypts `buf` in place and returns its tag (the "detached" form).
pub fn seal_in_place(key: &[u8; KEY_LEN], nonce: &[u8; XNONCE_LEN], buf: &mut [u8]) -> [u8; TAG_LEN] {
    let (mut cipher, mac) = setup(key, nonce);
    cipher.xor_keystream(buf).expect("a slice is far shorter than the stream");
    mac.compute_unpadded(buf).into()
}

/// Checks `tag` against the ciphertext in `buf` and, only if it matches, decrypts `buf` in
/// place. On failure `buf` is unchanged.
pub fn open_in_place(
    key: &[u8; KEY_LEN],
    nonce: &[u8; XNONCE_LEN],
    buf: &mut [u8],
    tag: &[u8; TAG_LEN],
) -> Result<(), AuthenticationError> {
    let (mut cipher, mac) = setup(key, nonce);
    let expected: [u8; TAG_LEN] = mac.compute_unpadded(buf).into();
    if !bool::from(expected.ct_eq(tag)) {
        return Err(AuthenticationError);
    }
    cipher.xor_keystream(buf).expect("a slice is far shorter than the stream");
    Ok(())
}

/// Encrypts `plaintext` into `ciphertext` (the same length) and returns the tag: the
/// detached form without an in-place copy first (the file format seals chunks straight
/// from the read buffer into the write buffer).
///
/// # Panics
///
/// If the lengths differ.
pub fn seal_to(
    key: &[u8; KEY_LEN],
    nonce: &[u8; XNONCE_LEN],
    plaintext: &[u8],
    ciphertext: &mut [u8],
) -> [u8; TAG_LEN] {
    assert_eq!(plaintext.len(), ciphertext.len(), "seal_to: ciphertext must be as long as plaintext");
    let (mut cipher, mac) = setup(key, nonce);
    cipher.xor_keystream_into(plaintext, ciphertext).expect("equal lengths, far shorter than the stream");
    mac.compute_unpadded(ciphertext).into()
}

/// Checks `tag` against `ciphertext` and, only if it matches, decrypts it into `plaintext`
/// (the same length). On failure `plaintext` is unchanged.
///
/// # Panics
///
/// If the lengths differ.
pub fn open_to(
    key: &[u8; KEY_LEN],
    nonce: &[u8; XNONCE_LEN],
    ciphertext: &[u8],
    tag: &[u8; TAG_LEN],
    plaintext: &mut [u8],
) -> Result<(), AuthenticationError> {
    assert_eq!(plaintext.len(), ciphertext.len(), "open_to: plaintext must be as long as ciphertext");
    let (mut cipher, mac) = setup(key, nonce);
    let expected: [u8; TAG_LEN] = mac.compute_unpadded(ciphertext).into();
    if !bool::from(expected.ct_eq(tag)) {
        return Err(AuthenticationError);
    }
    cipher.xor_keystream_into(ciphertext, plaintext).expect("equal lengths, far shorter than the stream");
    Ok(())
}

/// `crypto_secretbox_easy`: the tag followed by the ciphertext, `TAG_LEN` bytes longer
/// than `plaintext`.
pub fn seal(key: &[u8; KEY_LEN], nonce: &[u8; XNONCE_LEN], plaintext: &[u8]) -> Vec<u8> {
    let (mut cipher, mac) = setup(key, nonce);
    let mut boxed = vec![0u8; TAG_LEN + plaintext.len()];
    let (tag, body) = boxed.split_at_mut(TAG_LEN);
    cipher.xor_keystream_into(plaintext, body).expect("equal lengths, far shorter than the stream");
    let t: [u8; TAG_LEN] = mac.compute_unpadded(body).into();
    tag.copy_from_slice(&t);
    boxed
}

/// `crypto_secretbox_open_easy`: the plaintext, or [`AuthenticationError`] if the box does
/// not authenticate (including a box shorter than a tag).
pub fn open(key: &[u8; KEY_LEN], nonce: &[u8; XNONCE_LEN], boxed: &[u8]) -> Result<Vec<u8>, AuthenticationError> {
    if boxed.len() < TAG_LEN {
        return Err(AuthenticationError);
    }
    let (tag, body) = boxed.split_at(TAG_LEN);
    let (mut cipher, mac) = setup(key, nonce);
    let expected: [u8; TAG_LEN] = mac.compute_unpadded(body).into();
    if !bool::from(expected.as_slice().ct_eq(tag)) {
        return Err(AuthenticationError);
    }
    let mut plaintext = vec![0u8; body.len()];
    cipher.xor_keystream_into(body, &mut plaintext).expect("equal lengths, far shorter than the stream");
    Ok(plaintext)
}
