//! The RustCrypto `digest` 0.10 traits for simdcrypt's hashes (cargo feature `digest`, on by
//! default), so they plug into generic code: `Digest`, `hmac::SimpleHmac`, `hkdf::SimpleHkdf`.
//!
//! - Hashes, as newtypes over the library's hashers (see [`Sha256`] for why): [`Sha256`],
//!   [`Blake3`] (also `ExtendableOutput`), [`Streebog256`], [`Streebog512`], and for
//!   GOST R 34.11-94 (whose [`crate::gost94::Gost94`] takes its S-box at run time)
//!   [`Gost94CryptoPro`] and [`Gost94Test`].
//! - MACs (`digest::Mac`, whose `verify_slice` is constant-time): [`Blake3Keyed`] and
//!   [`HighwayHash64`], [`HighwayHash128`], [`HighwayHash256`].
//!
//! HMAC over any of the hashes is `hmac::SimpleHmac<H>` (`hmac` 0.12): it needs only
//! `Digest + BlockSizeUser`, both implemented here.
//!
//! ```
//! use digest::Digest;
//! let d = simdcrypt::rustcrypto::Sha256::digest(b"abc");
//! assert_eq!(d[..], simdcrypt::sha256::hash(b"abc"));
//! ```
//!
//! ## What this file holds
//!
//! (feature `digest`) RustCrypto `digest` trait implementations on thin wrapper types, so
//! `Digest`, `hmac::SimpleHmac` and `hkdf` work with simdcrypt's hashes

use digest::consts::{U16, U32, U64, U8};
use digest::crypto_common::KeySizeUser;
use digest::{
    ExtendableOutput, ExtendableOutputReset, FixedOutput, FixedOutputReset, HashMarker, Key, KeyInit, MacMarker,
    Output, OutputSizeUser, Reset, Update, XofReader,
};

use crate::gost94::{Gost94, SBox};
use crate::highwayhash::{self, HighwayHasher};
use crate::{blake3, sha256, streebog};

/// A newtype over one of the library's hashers with the unkeyed hash traits. The traits
/// live on newtypes, not on the hashers themselves: `Digest::finalize(self)` takes its
/// receiver by value, so with `Digest` in scope (as it is wherever `sha2` is used) it would
/// win method resolution over the inherent `finalize(&self) -> [u8; N]` and silently
/// change the type `h.finalize()` returns in existing code.
macro_rules! digest_newtype {
    ($name:ident, $inner:ty, $new:expr, $out:ty, $block:ty, $doc:literal) => {
        #[doc = $doc]
        ///
        /// The wrapped hasher is public: set its backend with `.0.set_platform(..)`.
        #[derive(Clone, Debug)]
        pub struct $name(pub $inner);

        impl Default for $name {
            fn default() -> Self {
                $name($new)
            }
        }
        impl From<$inner> for $name {
            fn from(inner: $inner) -> Self {
                $name(inner)
            }
        }
        impl HashMarker for $name {}
        impl OutputSizeUser for $name {
            type OutputSize = $out;
        }
        impl digest::core_api::BlockSizeUser for $name {
            type BlockSize = $block;
        }
        impl Update for $name {
            fn update(&mut self, data: &[u8]) {
                self.0.update(data);
            }
        }
        impl FixedOutput for $name {
            fn finalize_into(self, out: &mut Output<Self>) {
                out.copy_from_slice(&self.0.finalize());
            }
        }
        impl Reset for $name {
            fn reset(&mut self) {
                self.0.reset();
            }
        }
        impl FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                out.copy_from_slice(&self.0.finalize());
                self.0.reset();
            }
        }
    };
}

digest_newtype!(Sha256, sha256::Sha256, sha256::Sha256::new(), U32, U64, "SHA-256 with the `digest` traits.");
digest_newtype!(
    Blake3,
    blake3::Hasher,
    blake3::Hasher::new(),
    U32,
    U64,
    "BLAKE3 (unkeyed) with the `digest` traits, `ExtendableOutput` included."
);
digest_newtype!(
    Streebog256,
    streebog::Streebog256,
    streebog::Streebog256::new(),
    U32,
    U64,
    "Streebog-256 with the `digest` traits."
);
digest_newtype!(
    Streebog512,
    streebog::Streebog512,
    streebog::Streebog512::new(),
    U64,
    U64,
    "Streebog-512 with the `digest` traits."
);
digest_newtype!(
    Gost94CryptoPro,
    Gost94,
    Gost94::new(SBox::CryptoPro),
    U32,
    U32,
    "GOST R 34.11-94 with the CryptoPro parameter set (RustCrypto's `gost94::Gost94CryptoPro`)."
);
digest_newtype!(
    Gost94Test,
    Gost94,
    Gost94::new(SBox::Test),
    U32,
    U32,
    "GOST R 34.11-94 with the test parameter set (RustCrypto's `gost94::Gost94Test`)."
);

impl ExtendableOutput for Blake3 {
    type Reader = blake3::OutputReader;

    fn finalize_xof(self) -> Self::Reader {
        self.0.finalize_xof()
    }
}

impl ExtendableOutputReset for Blake3 {
    fn finalize_xof_reset(&mut self) -> Self::Reader {
        let reader = self.0.finalize_xof();
        self.0.reset();
        reader
    }
}

impl XofReader for blake3::OutputReader {
    fn read(&mut self, buffer: &mut [u8]) {
        self.fill(buffer);
    }
}

/// BLAKE3's keyed hash as a `digest::Mac` (`new` takes the 32-byte key). For the tag as a
/// type with constant-time equality, see [`crate::mac::blake3_keyed`].
#[derive(Clone, Debug)]
pub struct Blake3Keyed {
    hasher: blake3::Hasher,
    key: [u8; blake3::KEY_LEN],
}

impl KeySizeUser for Blake3Keyed {
    type KeySize = U32;
}
impl KeyInit for Blake3Keyed {
    fn new(key: &Key<Self>) -> Self {
        let key: [u8; blake3::KEY_LEN] = (*key).into();
        Blake3Keyed { hasher: blake3::Hasher::new_keyed(&key), key }
    }
}
impl MacMarker for Blake3Keyed {}
impl OutputSizeUser for Blake3Keyed {
    type OutputSize = U32;
}
impl Update for Blake3Keyed {
    fn update(&mut self, data: &[u8]) {
        self.hasher.update(data);
    }
}
impl FixedOutput for Blake3Keyed {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.hasher.finalize());
    }
}
impl Reset for Blake3Keyed {
    fn reset(&mut self) {
        self.hasher = blake3::Hasher::new_keyed(&self.key);
    }
}
impl FixedOutputReset for Blake3Keyed {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.hasher.finalize());
        Reset::reset(self);
    }
}

/// Zeroes the kept key (a best effort: copies made by moves are not reached).
impl Drop for Blake3Keyed {
    fn drop(&mut self) {
        // SAFETY: `self.key` is a valid, aligned, exclusively borrowed array.
        unsafe { std::ptr::write_volatile(&mut self.key, [0; blake3::KEY_LEN]) };
    }
}

/// HighwayHash with one output size as a `digest::Mac` (`new` takes the 32-byte key).
/// HighwayHash is a keyed hash built for speed and hash-flooding resistance; as a MAC its
/// 64-bit form is short.
macro_rules! highwayhash_mac {
    ($name:ident, $size:expr, $out:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Debug)]
        pub struct $name {
            hasher: HighwayHasher,
            initial: HighwayHasher,
        }

        impl KeySizeUser for $name {
            type KeySize = U32;
        }
        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                let key: [u8; highwayhash::KEY_LEN] = (*key).into();
                let hasher = HighwayHasher::new(&key);
                $name { initial: hasher.clone(), hasher }
            }
        }
        impl MacMarker for $name {}
        impl OutputSizeUser for $name {
            type OutputSize = $out;
        }
        impl Update for $name {
            fn update(&mut self, data: &[u8]) {
                self.hasher.update(data);
            }
        }
        impl FixedOutput for $name {
            fn finalize_into(self, out: &mut Output<Self>) {
                self.hasher.finalize_into($size, out);
            }
        }
        impl Reset for $name {
            fn reset(&mut self) {
                self.hasher = self.initial.clone();
            }
        }
        impl FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                self.hasher.finalize_into($size, out);
                Reset::reset(self);
            }
        }
    };
}

highwayhash_mac!(HighwayHash64, highwayhash::Size::Bits64, U8, "HighwayHash-64 as a `digest::Mac`.");
highwayhash_mac!(HighwayHash128, highwayhash::Size::Bits128, U16, "HighwayHash-128 as a `digest::Mac`.");
highwayhash_mac!(HighwayHash256, highwayhash::Size::Bits256, U32, "HighwayHash-256 as a `digest::Mac`.");
