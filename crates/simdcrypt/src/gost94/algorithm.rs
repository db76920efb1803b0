//! GOST R 34.11-94's two entries in the registry (one per parameter set) and its
//! [`StreamingHash`] implementation.
//!
//! ## What this file holds
//!
//! the algorithm's registry entry (`ALGORITHM`, or one per variant), its `StreamingHash`
//! implementation and `from_options` (a hasher from `HashOptions`)

use super::{Gost94, Kind, SBox, BLOCK_LEN, OUT_LEN};
use crate::any::HashOptions;
use crate::registry::{rhash_gost, Algorithm};
use crate::Error;

/// GOST R 34.11-94 with the CryptoPro parameter set (RFC 4357), RHash's `GOST94-CRYPTOPRO`.
pub static ALGORITHM_CRYPTOPRO: Algorithm = rhash_gost::<Kind>(
    "gost94",
    "GOST94-CRYPTOPRO",
    OUT_LEN,
    BLOCK_LEN,
    |opts| Ok(Box::new(Gost94::from_options(SBox::CryptoPro, opts)?)),
    |opts, messages, out| hash_many(SBox::CryptoPro, opts, messages, out),
    |blob, key| Ok(Box::new(Gost94::restore_with(SBox::CryptoPro, blob, key)?)),
);
/// GOST R 34.11-94 with the standard's test parameter set, RHash's `GOST94`.
pub static ALGORITHM_TEST: Algorithm = rhash_gost::<Kind>(
    "gost94-test",
    "GOST94",
    OUT_LEN,
    BLOCK_LEN,
    |opts| Ok(Box::new(Gost94::from_options(SBox::Test, opts)?)),
    |opts, messages, out| hash_many(SBox::Test, opts, messages, out),
    |blob, key| Ok(Box::new(Gost94::restore_with(SBox::Test, blob, key)?)),
);

fn hash_many(sbox: SBox, opts: &HashOptions, messages: &[&[u8]], out: &mut [u8]) -> Result<(), Error> {
    let algorithm = match sbox {
        SBox::CryptoPro => &ALGORITHM_CRYPTOPRO,
        SBox::Test => &ALGORITHM_TEST,
    };
    let platform = crate::registry::batch_backend(algorithm, opts, messages.len(), out.len())?;
    super::hash_many(messages, sbox, out, platform, opts.threads)
}

impl Gost94 {
    /// A hasher with this parameter set on the options' backend; a key or context is an
    /// error.
    pub fn from_options(sbox: SBox, opts: &HashOptions) -> Result<Self, Error> {
        let algorithm = match sbox {
            SBox::CryptoPro => &ALGORITHM_CRYPTOPRO,
            SBox::Test => &ALGORITHM_TEST,
        };
        let named = algorithm.named_backend(opts)?;
        let mut hasher = Gost94::new(sbox);
        if let Some(platform) = named {
            hasher.set_platform(platform);
        }
        Ok(hasher)
    }
}

crate::streaming::fixed_output_streaming_hash! {
    impl for Gost94, digest OUT_LEN;
}
