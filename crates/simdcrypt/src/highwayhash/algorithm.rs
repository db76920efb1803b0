//! HighwayHash's three entries in the registry (one per result size) and its
//! [`StreamingHash`] implementation.
//!
//! ## What this file holds
//!
//! the algorithm's registry entry (`ALGORITHM`, or one per variant), its `StreamingHash`
//! implementation and `from_options` (a hasher from `HashOptions`)

use super::{HighwayHasher, Size, KEY_LEN, PACKET_LEN};
use crate::any::HashOptions;
use crate::backend::{BackendReport, Kernels};
use crate::registry::{Algorithm, KeyUse, ReferenceTool};
use crate::streaming::StreamingHash;
use crate::Error;

/// The size of a result of `bits` bits, for the entries below (a compile-time error for
/// any other count).
const fn size_of_bits(bits: usize) -> Size {
    match bits {
        64 => Size::Bits64,
        128 => Size::Bits128,
        256 => Size::Bits256,
        _ => panic!("highwayhash results are 64, 128 or 256 bits"),
    }
}

/// The entry of HighwayHash with a `BITS`-bit result.
const fn highwayhash<const BITS: usize>(bsd_label: &'static str) -> Algorithm {
    let size = size_of_bits(BITS);
    Algorithm {
        name: size.name(),
        aliases: &[],
        bsd_label,
        reference_tool: ReferenceTool::Coreutils,
        digest_len: size.len(),
        block_len: PACKET_LEN,
        xof: false,
        key: KeyUse::Required(KEY_LEN),
        key_name: "highwayhash key",
        keyed_alternative: "",
        derive_key: false,
        threads: false,
        printed_reversed: false,
        backend_family: super::Kind::ALGORITHM,
        backends: BackendReport::of::<super::Kind>,
        new: |opts| sized(size_of_bits(BITS), opts),
        hash_many: |opts, messages, out| hash_many(size_of_bits(BITS), opts, messages, out),
        restore: |blob, key| restore_sized(size_of_bits(BITS), blob, key),
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
pub static ALGORITHM_64: Algorithm = highwayhash::<64>("HIGHWAYHASH64");
/// HighwayHash with a 128-bit result (needs a 32-byte key).
pub static ALGORITHM_128: Algorithm = highwayhash::<128>("HIGHWAYHASH128");
/// HighwayHash with a 256-bit result (needs a 32-byte key).
pub static ALGORITHM_256: Algorithm = highwayhash::<256>("HIGHWAYHASH256");

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
