//! Streebog's two entries in the registry and its [`StreamingHash`] implementation.
//!
//! ## What this file holds
//!
//! the algorithm's registry entry (`ALGORITHM`, or one per variant), its `StreamingHash`
//! implementation and `from_options` (a hasher from `HashOptions`)

use super::{Bits, Kind, Streebog, BLOCK_LEN};
use crate::any::HashOptions;
use crate::registry::{rhash_gost, Algorithm};
use crate::Error;

/// Streebog's keyed form here is HMAC ([`super::hmac256`], [`super::hmac512`]).
const HMAC_INSTEAD: &str = "; use the HMAC functions for a keyed hash";

/// Streebog-256 (GOST R 34.11-2012), labelled as RHash labels it.
pub static ALGORITHM_256: Algorithm = Algorithm {
    keyed_alternative: HMAC_INSTEAD,
    ..rhash_gost::<Kind>(
        "streebog256",
        "GOST12-256",
        32,
        BLOCK_LEN,
        |opts| Ok(Box::new(Streebog::<32>::from_options(opts)?)),
        |opts, messages, out| hash_many(&ALGORITHM_256, Bits::B256, opts, messages, out),
        |blob, key| Ok(Box::new(Streebog::<32>::restore(blob, key)?)),
    )
};
/// Streebog-512 (GOST R 34.11-2012), labelled as RHash labels it.
pub static ALGORITHM_512: Algorithm = Algorithm {
    keyed_alternative: HMAC_INSTEAD,
    ..rhash_gost::<Kind>(
        "streebog512",
        "GOST12-512",
        64,
        BLOCK_LEN,
        |opts| Ok(Box::new(Streebog::<64>::from_options(opts)?)),
        |opts, messages, out| hash_many(&ALGORITHM_512, Bits::B512, opts, messages, out),
        |blob, key| Ok(Box::new(Streebog::<64>::restore(blob, key)?)),
    )
};

fn hash_many(
    algorithm: &Algorithm,
    bits: Bits,
    opts: &HashOptions,
    messages: &[&[u8]],
    out: &mut [u8],
) -> Result<(), Error> {
    let platform = crate::registry::batch_backend(algorithm, opts, messages.len(), out.len())?;
    super::hash_many(messages, bits, out, platform, opts.threads)
}

impl<const N: usize> Streebog<N> {
    /// A hasher on the options' backend; a key or context is an error (HMAC is separate).
    pub fn from_options(opts: &HashOptions) -> Result<Self, Error> {
        let algorithm = if N == 32 { &ALGORITHM_256 } else { &ALGORITHM_512 };
        let named = algorithm.named_backend(opts)?;
        let mut hasher = Self::with_state();
        if let Some(platform) = named {
            hasher.set_platform(platform);
        }
        Ok(hasher)
    }
}

crate::streaming::fixed_output_streaming_hash! {
    impl[const N: usize] for Streebog<N>, digest N;
}
