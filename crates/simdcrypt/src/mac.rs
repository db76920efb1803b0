//! MAC values whose comparison takes the same time wherever the first difference is, so
//! that checking a tag with `==` leaks nothing to a timing attacker.
//!
//! The array-returning functions ([`crate::blake3::keyed_hash`],
//! [`crate::streebog::hmac256`], [`crate::highwayhash::digest64`], ...) stay as they are;
//! the functions here return the same bytes as a [`Tag`], and any array can be wrapped with
//! `Tag::from(array)`.
//!
//! ```
//! let key = [7u8; 32];
//! let tag = simdcrypt::mac::blake3_keyed(&key, b"message");
//! assert!(tag.verify(&simdcrypt::blake3::keyed_hash(&key, b"message")));
//! assert!(!tag.verify(&[0u8; 32]));
//! ```
//!
//! ## What this file holds
//!
//! `Tag<N>`, MAC values with constant-time equality, and the functions that return them

use subtle::ConstantTimeEq;

use crate::{blake3, highwayhash, streebog};

/// Whether `a` and `b` are equal, compared in constant time for equal lengths (a length
/// mismatch returns `false` at once: lengths are not secret). For checking MAC values
/// received from elsewhere, where `==` on slices would leak how many bytes matched.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// An `N`-byte MAC tag. `==` and [`Tag::verify`] compare in constant time; `Debug` prints
/// hex.
#[derive(Clone, Copy)]
pub struct Tag<const N: usize>([u8; N]);

impl<const N: usize> Tag<N> {
    /// Whether `expected` is this tag, compared in constant time (a slice of another length
    /// is simply not equal; lengths are not secret).
    pub fn verify(&self, expected: &[u8]) -> bool {
        expected.len() == N && bool::from(self.0.as_slice().ct_eq(expected))
    }

    /// The tag's bytes.
    pub fn as_bytes(&self) -> &[u8; N] {
        &self.0
    }

    /// The tag as an array.
    pub fn into_bytes(self) -> [u8; N] {
        self.0
    }
}

impl<const N: usize> From<[u8; N]> for Tag<N> {
    fn from(bytes: [u8; N]) -> Self {
        Tag(bytes)
    }
}

impl<const N: usize> PartialEq for Tag<N> {
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.0.ct_eq(&other.0))
    }
}

impl<const N: usize> Eq for Tag<N> {}

impl<const N: usize> PartialEq<[u8]> for Tag<N> {
    fn eq(&self, other: &[u8]) -> bool {
        self.verify(other)
    }
}

impl<const N: usize> AsRef<[u8]> for Tag<N> {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl<const N: usize> std::fmt::Debug for Tag<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tag({})", crate::to_hex(&self.0))
    }
}

/// BLAKE3's keyed hash of `data` as a tag.
pub fn blake3_keyed(key: &[u8; blake3::KEY_LEN], data: &[u8]) -> Tag<{ blake3::OUT_LEN }> {
    Tag(blake3::keyed_hash(key, data))
}

/// HMAC-Streebog-256 of `data` as a tag.
pub fn hmac_streebog256(key: &[u8], data: &[u8]) -> Tag<32> {
    Tag(streebog::hmac256(key, data))
}

/// HMAC-Streebog-512 of `data` as a tag.
pub fn hmac_streebog512(key: &[u8], data: &[u8]) -> Tag<64> {
    Tag(streebog::hmac512(key, data))
}

/// HighwayHash-64 of `data` as a tag (the little-endian bytes of [`highwayhash::hash64`]).
pub fn highwayhash64(key: &[u8; highwayhash::KEY_LEN], data: &[u8]) -> Tag<8> {
    Tag(highwayhash::digest64(key, data))
}

/// HighwayHash-128 of `data` as a tag.
pub fn highwayhash128(key: &[u8; highwayhash::KEY_LEN], data: &[u8]) -> Tag<16> {
    Tag(highwayhash::digest128(key, data))
}

/// HighwayHash-256 of `data` as a tag.
pub fn highwayhash256(key: &[u8; highwayhash::KEY_LEN], data: &[u8]) -> Tag<32> {
    Tag(highwayhash::digest256(key, data))
}
