//! Streebog's two entries in the registry and its [`StreamingHash`] implementation.

use super::{Bits, Platform, Streebog, BLOCK_LEN};
use crate::any::HashOptions;
use crate::backend::BackendReport;
use crate::registry::{Algorithm, BatchFn, KeyUse, ReferenceTool, RestoreFn};
use crate::streaming::StreamingHash;
use crate::Error;

const fn streebog(
    name: &'static str,
    bsd_label: &'static str,
    digest_len: usize,
    new: NewFn,
    hash_many: BatchFn,
    restore: RestoreFn,
) -> Algorithm {
    Algorithm {
        name,
        aliases: &[],
        bsd_label,
        reference_tool: ReferenceTool::Rhash,
        digest_len,
        block_len: BLOCK_LEN,
        xof: false,
        key: KeyUse::None,
        derive_key: false,
        threads: false,
        printed_reversed: true,
        backend_family: "streebog",
        backends: BackendReport::of::<super::Kind>,
        new,
        hash_many,
        restore,
    }
}

type NewFn = fn(&HashOptions) -> Result<Box<dyn StreamingHash>, Error>;

/// Streebog-256 (GOST R 34.11-2012), labelled as RHash labels it.
pub static ALGORITHM_256: Algorithm = streebog(
    "streebog256",
    "GOST12-256",
    32,
    |opts| Ok(Box::new(Streebog::<32>::from_options(opts)?)),
    |opts, messages, out| hash_many(&ALGORITHM_256, Bits::B256, opts, messages, out),
    |blob, key| Ok(Box::new(Streebog::<32>::restore(blob, key)?)),
);
/// Streebog-512 (GOST R 34.11-2012), labelled as RHash labels it.
pub static ALGORITHM_512: Algorithm = streebog(
    "streebog512",
    "GOST12-512",
    64,
    |opts| Ok(Box::new(Streebog::<64>::from_options(opts)?)),
    |opts, messages, out| hash_many(&ALGORITHM_512, Bits::B512, opts, messages, out),
    |blob, key| Ok(Box::new(Streebog::<64>::restore(blob, key)?)),
);

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
        algorithm.check_options(opts)?;
        let mut hasher = Self::with_state();
        if let Some(name) = &opts.backend {
            hasher.set_platform(Platform::from_name(name)?);
        }
        Ok(hasher)
    }
}

crate::streaming::fixed_output_streaming_hash! {
    impl[const N: usize] for Streebog<N>, digest N;
}
