//! SHA-256's entry in the registry and its [`StreamingHash`] implementation.
//!
//! ## What this file holds
//!
//! the algorithm's registry entry (`ALGORITHM`, or one per variant), its `StreamingHash`
//! implementation and `from_options` (a hasher from `HashOptions`)

use super::{Sha256, BLOCK_LEN, OUT_LEN};
use crate::any::HashOptions;
use crate::backend::{BackendReport, Kernels};
use crate::registry::{Algorithm, KeyUse, ReferenceTool};
use crate::Error;

/// SHA-256 (FIPS 180-4). A thread count is accepted as an upper bound: SHA-256 is
/// sequential and stays within it on one thread.
pub static ALGORITHM: Algorithm = Algorithm {
    name: "sha256",
    aliases: &["sha-256"],
    bsd_label: "SHA256",
    reference_tool: ReferenceTool::Coreutils,
    digest_len: OUT_LEN,
    block_len: BLOCK_LEN,
    xof: false,
    key: KeyUse::None,
    key_name: "key",
    keyed_alternative: "",
    derive_key: false,
    threads: false,
    printed_reversed: false,
    backend_family: super::Kind::ALGORITHM,
    backends: BackendReport::of::<super::Kind>,
    new: |opts| Ok(Box::new(Sha256::from_options(opts)?)),
    hash_many: |opts, messages, out| crate::registry::hash_many_sequential(&ALGORITHM, opts, messages, out),
    restore: |blob, key| Ok(Box::new(Sha256::restore(blob, key)?)),
};

impl Sha256 {
    /// A hasher on the options' backend; a key or context is an error.
    pub fn from_options(opts: &HashOptions) -> Result<Self, Error> {
        let named = ALGORITHM.named_backend(opts)?;
        let mut hasher = Sha256::new();
        if let Some(platform) = named {
            hasher.set_platform(platform);
        }
        Ok(hasher)
    }
}

crate::streaming::fixed_output_streaming_hash! {
    impl for Sha256, digest OUT_LEN;
}
