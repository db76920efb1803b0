//! `simdcrypt.highwayhash64`, `highwayhash128`, `highwayhash256`: hashlib-style objects
//! for HighwayHash (a 32-byte key is required), with checkpoints (`export()` /
//! `restore()`), and `simdcrypt.highwayhash_many` for batches.
//!
//! The three classes differ only in the result size, so one macro writes them (on
//! hash_class.rs's common methods); `highwayhash64` adds `intdigest()`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size, KEY_LEN, PACKET_LEN};

use crate::args;
use crate::buffer;
use crate::hash_class::{self, hash_class, HashState};

/// `key=`: any C-contiguous buffer of exactly 32 bytes.
fn key_arg(key: &Bound<'_, PyAny>, what: &str) -> PyResult<[u8; KEY_LEN]> {
    buffer::array::<KEY_LEN>(key)?
        .map_err(|got| PyValueError::new_err(format!("{what} key must be {KEY_LEN} bytes, got {got}")))
}

/// A HighwayHash state and the result size of its class.
#[derive(Clone, Debug)]
pub(crate) struct HighwayState {
    pub(crate) hasher: HighwayHasher,
    pub(crate) size: Size,
}

impl HashState for HighwayState {
    fn absorb(&mut self, data: &[u8]) {
        self.hasher.update(data);
    }
    fn finish(&self, out: &mut [u8]) {
        self.hasher.finalize_into(self.size, out);
    }
    fn backend_name(&self) -> &'static str {
        self.hasher.platform().name()
    }
}

impl crate::state::Resumable for HighwayState {
    fn export(&self) -> Vec<u8> {
        self.hasher.export(self.size)
    }
    fn key(&self) -> Option<Vec<u8>> {
        Some(self.hasher.key().to_vec())
    }
    fn restore(blob: &[u8], key: Option<&[u8]>, class_name: &str) -> Result<Self, simdcrypt::Error> {
        let size = [Size::Bits64, Size::Bits128, Size::Bits256]
            .into_iter()
            .find(|s| s.name() == class_name)
            .expect("a HighwayHash class name");
        let key = crate::state::needs_key(key, class_name)?;
        let key: &[u8; 32] = key.try_into().map_err(|_| simdcrypt::Error::InvalidLength {
            what: "highwayhash key",
            expected: 32,
            got: key.len(),
        })?;
        Ok(HighwayState { hasher: HighwayHasher::restore(blob, key, size)?, size })
    }
}

/// The state `highwayhash<bits>(key=key, backend=backend)` starts from.
fn new_state(size: Size, key: &Bound<'_, PyAny>, backend: Option<String>) -> PyResult<HighwayState> {
    let key = key_arg(key, size.name())?;
    let mut hasher = HighwayHasher::new(&key);
    hasher.set_platform(args::backend::<Platform>(backend.as_deref())?);
    Ok(HighwayState { hasher, size })
}

/// Writes one class per result size: the common methods (saved states included) come from
/// [`hash_class!`].
macro_rules! highwayhash_class {
    ($rust:ident, $py:literal, $size:expr, $bytes:literal, { $($extra:item)* }) => {
        hash_class! {
            #[doc = concat!("HighwayHash with a ", $bytes, "-byte result, with hashlib's interface.\n\n",
                $py, "(data=b\"\", /, *, key, backend=None)\n\n",
                "- data: initial input, any C-contiguous buffer (equivalent to calling update()).\n",
                "- key: the 32-byte key (any C-contiguous buffer), required.\n",
                "- backend: a kernel set from simdcrypt.backends()[\"highwayhash\"][\"supported\"]\n",
                "  (default: the best this CPU supports). The result never depends on it.\n\n",
                "digest() writes each 64-bit word little-endian, in order (minio/highwayhash's byte\n",
                "form). export() and restore() save and resume an unfinished hash. One object may be\n",
                "shared between threads; inputs of 2 KiB or more are hashed without the GIL.")]
            pub(crate) struct $rust(HighwayState) as $py {
                name: class $py,
                digest_size: $size.len(),
                block_size: PACKET_LEN,
            }

            #[new]
            #[pyo3(signature = (data=None, /, *, key, backend=None), text_signature = "(data=b'', /, *, key, backend=None)")]
            fn py_new(data: Option<&Bound<'_, PyAny>>, key: &Bound<'_, PyAny>, backend: Option<String>) -> PyResult<Self> {
                hash_class::new_object(new_state($size, key, backend)?, data)
            }

            $($extra)*
        }
    };
}

highwayhash_class!(PyHighwayHash64, "highwayhash64", Size::Bits64, "8", {
    /// The 64-bit result as an int (the u64 the reference returns).
    #[pyo3(text_signature = "($self)")]
    fn intdigest(&self, py: Python<'_>) -> PyResult<u64> {
        self.state.locked(py, |h| h.hasher.finalize64())
    }
});
highwayhash_class!(PyHighwayHash128, "highwayhash128", Size::Bits128, "16", {});
highwayhash_class!(PyHighwayHash256, "highwayhash256", Size::Bits256, "32", {});

/// Hashes many independent messages with one key and returns their results,
/// concatenated: `len(messages) * bits // 8` bytes, result `i` being
/// `highwayhash<bits>(messages[i], key=key).digest()`.
///
/// - messages: a sequence (list, tuple, ...) of bytes-like objects, or a 2-D C-contiguous
///   buffer of 1-byte items (e.g. a numpy uint8 array), one message per row.
/// - key: the 32-byte key. bits: 64, 128 or 256.
/// - max_threads: how many threads may share the batch (a positive integer or AUTO, -1).
/// - backend: a kernel set from backends()["highwayhash"]["supported"].
///
/// Several messages advance at a time across SIMD lanes (AVX-512: 8), so a batch of short
/// messages is much faster than a loop. The GIL is released for batches of 2 KiB or more.
#[pyfunction]
#[pyo3(
    signature = (messages, /, *, key, bits=64, max_threads=1, backend=None),
    text_signature = "(messages, /, *, key, bits=64, max_threads=1, backend=None)"
)]
pub(crate) fn highwayhash_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    bits: i64,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let size = usize::try_from(bits)
        .ok()
        .and_then(|b| Size::from_bits(b).ok())
        .ok_or_else(|| PyValueError::new_err(format!("bits must be 64, 128 or 256, got {bits}")))?;
    let key = key_arg(key, "highwayhash")?;
    let (threads, platform) = args::threads_and_backend::<Platform>(max_threads, backend.as_deref())?;
    crate::batch::hash_batch(py, messages, size.len(), |m, out| {
        highwayhash::hash_many_with(platform, threads, &key, m, size, out)
    })
}
