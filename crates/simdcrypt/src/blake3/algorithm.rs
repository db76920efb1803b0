//! BLAKE3's entry in the registry and its [`StreamingHash`] implementation.
//!
//! ## What this file holds
//!
//! the algorithm's registry entry (`ALGORITHM`, or one per variant), its `StreamingHash`
//! implementation and `from_options` (a hasher from `HashOptions`)

use super::{Batch, Hasher, Mode, BLOCK_LEN, KEY_LEN, OUT_LEN};
use crate::any::HashOptions;
use crate::backend::{BackendReport, Kernels};
use crate::registry::{Algorithm, KeyUse, ReferenceTool};
use crate::streaming::StreamingHash;
use crate::threads::Threads;
use crate::Error;

/// BLAKE3: hash, keyed hash, key derivation; any output length.
pub static ALGORITHM: Algorithm = Algorithm {
    name: "blake3",
    aliases: &[],
    bsd_label: "BLAKE3",
    reference_tool: ReferenceTool::B3sum,
    digest_len: OUT_LEN,
    block_len: BLOCK_LEN,
    xof: true,
    key: KeyUse::Optional(KEY_LEN),
    key_name: "blake3 key",
    keyed_alternative: "",
    derive_key: true,
    threads: true,
    printed_reversed: false,
    backend_family: super::Kind::ALGORITHM,
    backends: BackendReport::of::<super::Kind>,
    new: |opts| Ok(Box::new(Hasher::from_options(opts)?)),
    hash_many,
    restore: |blob, key| Ok(Box::new(Hasher::restore(blob, key)?)),
};

fn hash_many(opts: &HashOptions, messages: &[&[u8]], out: &mut [u8]) -> Result<(), Error> {
    let named = ALGORITHM.named_backend(opts)?;
    let per = crate::registry::batch_digest_len(&ALGORITHM, messages.len(), out.len())?;
    let mode = match (&opts.key, &opts.derive_key_context) {
        (Some(key), _) => Mode::KeyedHash(key.as_slice().try_into().expect("length checked")),
        (None, Some(context)) => Mode::DeriveKey(context),
        (None, None) => Mode::Hash,
    };
    let mut batch = Batch::new(mode);
    if let Some(platform) = named {
        batch.set_platform(platform);
    }
    batch.set_max_threads(opts.threads).hash_into(messages, per, out)
}

impl Hasher {
    /// A hasher in the mode the options ask for (keyed with `key`, key derivation with
    /// `derive_key_context`, else plain), on their backend and thread setting.
    pub fn from_options(opts: &HashOptions) -> Result<Self, Error> {
        let named = ALGORITHM.named_backend(opts)?;
        let mut hasher = match (&opts.key, &opts.derive_key_context) {
            (Some(key), _) => Hasher::new_keyed(key.as_slice().try_into().expect("length checked")),
            (None, Some(context)) => Hasher::new_derive_key(context),
            (None, None) => Hasher::new(),
        };
        if let Some(platform) = named {
            hasher.set_platform(platform);
        }
        hasher.set_max_threads(opts.threads);
        Ok(hasher)
    }
}

impl StreamingHash for Hasher {
    fn update(&mut self, data: &[u8]) {
        Hasher::update(self, data);
    }
    fn finalize_into(&self, out: &mut [u8]) {
        self.finalize_xof().fill(out);
    }
    fn reset(&mut self) {
        Hasher::reset(self);
    }
    fn backend_name(&self) -> &'static str {
        self.platform().name()
    }
    fn digest_len(&self) -> usize {
        OUT_LEN
    }
    fn is_xof(&self) -> bool {
        true
    }
    fn export(&self) -> Vec<u8> {
        Hasher::export(self)
    }
    fn max_threads(&self) -> Threads {
        Hasher::max_threads(self)
    }
}
