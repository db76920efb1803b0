//! HighwayHash's three entries in the registry (one per result size) and its
//! [`StreamingHash`] implementation.

use super::{HighwayHasher, Size, KEY_LEN, PACKET_LEN};
use crate::any::HashOptions;
use crate::backend::{BackendReport, Kernels};
use crate::registry::{Algorithm, BatchFn, KeyUse, NewFn, ReferenceTool, RestoreFn};
use crate::streaming::StreamingHash;
use crate::Error;

const fn highwayhash(
    size: Size,
    bsd_label: &'static str,
    new: NewFn,
    hash_many: BatchFn,
    restore: RestoreFn,
) -> Algorithm {
    Algorithm {
        name: size.name(),
        aliases: &[],
        bsd_label,
        reference_tool: ReferenceTool::Coreutils,
        digest_len: size.len(),
        block_len: PACKET_LEN,
        xof: false,
        key: KeyUse::Required(KEY_LEN),
        derive_key: false,
        threads: false,
        printed_reversed: false,
        backend_family: super::Kind::ALGORITHM,
        backends: BackendReport::of::<super::Kind>,
        new,
        hash_many,
        restore,
    }
}

/// A HighwayHash hasher that finalizes to one result size.
#[derive(Clone, Debug)]
pub struct SizedHighwayHasher {
    /// The hasher.
    pub hasher: HighwayHasher,
    /// The result size it finalizes to.
    pub size: Size,
}

fn sized(size: Size, opts: &HashOptions) -> Result<Box<dyn StreamingHash>, Error> {
    Ok(Box::new(SizedHighwayHasher { hasher: HighwayHasher::from_options(size, opts)?, size }))
}

fn restore_sized(size: Size, blob: &[u8], key: Option<&[u8]>) -> Result<Box<dyn StreamingHash>, Error> {
    let h = SizedHighwayHasher::restore(blob, key)?;
    if h.size != size {
        return Err(Error::InvalidArgument(format!("this is a state of {}, expected {}", h.size.name(), size.name())));
    }
    Ok(Box::new(h))
}

/// HighwayHash with a 64-bit result (needs a 32-byte key).
pub static ALGORITHM_64: Algorithm = highwayhash(
    Size::Bits64,
    "HIGHWAYHASH64",
    |o| sized(Size::Bits64, o),
    |o, m, out| hash_many(Size::Bits64, o, m, out),
    |b, k| restore_sized(Size::Bits64, b, k),
);
/// HighwayHash with a 128-bit result (needs a 32-byte key).
pub static ALGORITHM_128: Algorithm = highwayhash(
    Size::Bits128,
    "HIGHWAYHASH128",
    |o| sized(Size::Bits128, o),
    |o, m, out| hash_many(Size::Bits128, o, m, out),
    |b, k| restore_sized(Size::Bits128, b, k),
);
/// HighwayHash with a 256-bit result (needs a 32-byte key).
pub static ALGORITHM_256: Algorithm = highwayhash(
    Size::Bits256,
    "HIGHWAYHASH256",
    |o| sized(Size::Bits256, o),
    |o, m, out| hash_many(Size::Bits256, o, m, out),
    |b, k| restore_sized(Size::Bits256, b, k),
);

fn hash_many(size: Size, opts: &HashOptions, messages: &[&[u8]], out: &mut [u8]) -> Result<(), Error> {
    let hasher = HighwayHasher::from_options(size, opts)?;
    super::hash_many_with(hasher.platform, opts.threads, &hasher.key, messages, size, out)
}

impl HighwayHasher {
    /// A hasher with the options' key (required, 32 bytes) on their backend; `size` only
    /// names the algorithm in error messages. A derive-key context is an error.
    pub fn from_options(size: Size, opts: &HashOptions) -> Result<Self, Error> {
        let algorithm = match size {
            Size::Bits64 => &ALGORITHM_64,
            Size::Bits128 => &ALGORITHM_128,
            Size::Bits256 => &ALGORITHM_256,
        };
        let named = algorithm.named_backend(opts)?;
        let key = opts.key.as_deref().expect("checked: required");
        let mut hasher = HighwayHasher::new(key.try_into().expect("length checked"));
        if let Some(platform) = named {
            hasher.set_platform(platform);
        }
        Ok(hasher)
    }
}

impl StreamingHash for SizedHighwayHasher {
    fn update(&mut self, data: &[u8]) {
        self.hasher.update(data);
    }
    fn finalize_into(&self, out: &mut [u8]) {
        self.hasher.finalize_into(self.size, out);
    }
    fn reset(&mut self) {
        let platform = self.hasher.platform;
        self.hasher = HighwayHasher::new(&self.hasher.key);
        self.hasher.platform = platform;
    }
    fn backend_name(&self) -> &'static str {
        self.hasher.platform.name()
    }
    fn digest_len(&self) -> usize {
        self.size.len()
    }
    fn export(&self) -> Vec<u8> {
        SizedHighwayHasher::export(self)
    }
}
