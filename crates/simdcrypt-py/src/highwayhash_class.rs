//! `simdcrypt.highwayhash64`, `highwayhash128`, `highwayhash256`: hashlib-style objects
//! for HighwayHash (a 32-byte key is required), with checkpoints (`export()` /
//! `restore()`), and `simdcrypt.highwayhash_many` for batches.
//!
//! The three classes differ only in the result size, so one macro writes them around the
//! shared functions below; `highwayhash64` adds `intdigest()`.

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size, KEY_LEN, PACKET_LEN};

use crate::args::{self, GIL_RELEASE_MIN};
use crate::batch::hold_messages;
use crate::buffer;
use crate::shared_state::SharedState;

/// `key=`: any C-contiguous buffer of exactly 32 bytes.
fn key_arg(key: &Bound<'_, PyAny>, what: &str) -> PyResult<[u8; KEY_LEN]> {
    buffer::array::<KEY_LEN>(key)?
        .map_err(|got| PyValueError::new_err(format!("{what} key must be {KEY_LEN} bytes, got {got}")))
}

/// `backend=`: a name from `backends()["highwayhash"]["supported"]`, or the best.
fn platform_arg(backend: Option<&str>) -> PyResult<Platform> {
    match backend {
        Some(name) => Platform::from_name(name).map_err(args::value_error),
        None => Ok(Platform::detect()),
    }
}

fn new_state(
    size: Size,
    data: Option<&Bound<'_, PyAny>>,
    key: &Bound<'_, PyAny>,
    backend: Option<String>,
) -> PyResult<SharedState<HighwayHasher>> {
    let key = key_arg(key, size.name())?;
    let mut hasher = HighwayHasher::new(&key);
    hasher.set_platform(platform_arg(backend.as_deref())?);
    if let Some(data) = data {
        let py = data.py();
        buffer::with_bytes(data, |bytes| {
            if bytes.len() >= GIL_RELEASE_MIN {
                py.detach(|| hasher.update(bytes));
            } else {
                hasher.update(bytes);
            }
        })?;
    }
    Ok(SharedState::new(size.name(), hasher))
}

fn update(state: &SharedState<HighwayHasher>, data: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = data.py();
    buffer::with_bytes(data, |bytes| {
        if bytes.len() >= GIL_RELEASE_MIN {
            // The export stays held until with_bytes returns, so the memory stays put.
            py.detach(|| {
                state.lock_blocking().map(|mut h| {
                    h.update(bytes);
                })
            })
        } else {
            state.locked(py, |h| {
                h.update(bytes);
            })
        }
    })?
}

fn digest<'py>(py: Python<'py>, state: &SharedState<HighwayHasher>, size: Size) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = [0u8; 32];
    let out = &mut out[..size.len()];
    state.locked(py, |h| h.finalize_into(size, out))?;
    Ok(PyBytes::new(py, out))
}

fn hexdigest<'py>(py: Python<'py>, state: &SharedState<HighwayHasher>, size: Size) -> PyResult<Bound<'py, PyString>> {
    let d = digest(py, state, size)?;
    Ok(PyString::new(py, &simdcrypt::to_hex(d.as_bytes())))
}

/// Writes one class per result size. Each holds its hasher behind a [`SharedState`].
macro_rules! highwayhash_class {
    ($rust:ident, $py:literal, $size:expr, $bytes:literal, { $($extra:item)* }) => {
        #[doc = concat!("HighwayHash with a ", $bytes, "-byte result, with hashlib's interface.\n\n",
            $py, "(data=b\"\", /, *, key, backend=None)\n\n",
            "- data: initial input, any C-contiguous buffer (equivalent to calling update()).\n",
            "- key: the 32-byte key (any C-contiguous buffer), required.\n",
            "- backend: a kernel set from simdcrypt.backends()[\"highwayhash\"][\"supported\"]\n",
            "  (default: the best this CPU supports). The result never depends on it.\n\n",
            "digest() writes each 64-bit word little-endian, in order (minio/highwayhash's byte\n",
            "form). export() and restore() save and resume an unfinished hash. One object may be\n",
            "shared between threads; inputs of 2 KiB or more are hashed without the GIL.")]
        #[pyclass(frozen, name = $py, module = "simdcrypt")]
        #[derive(Debug)]
        pub(crate) struct $rust {
            state: SharedState<HighwayHasher>,
        }

        #[pymethods]
        impl $rust {
            #[new]
            #[pyo3(signature = (data=None, /, *, key, backend=None), text_signature = "(data=b'', /, *, key, backend=None)")]
            fn py_new(data: Option<&Bound<'_, PyAny>>, key: &Bound<'_, PyAny>, backend: Option<String>) -> PyResult<Self> {
                Ok($rust { state: new_state($size, data, key, backend)? })
            }

            #[doc = concat!("The hash's name, \"", $py, "\".")]
            #[classattr]
            fn name() -> &'static str {
                $size.name()
            }

            #[doc = concat!("The digest length in bytes (", $bytes, ").")]
            #[classattr]
            fn digest_size() -> usize {
                $size.len()
            }

            /// The packet size of the rounds in bytes (32).
            #[classattr]
            fn block_size() -> usize {
                PACKET_LEN
            }

            /// The name of the backend (kernel set) in use, e.g. "avx2".
            #[getter]
            fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
                self.state.locked(py, |h| h.platform().name())
            }

            /// Adds input (any C-contiguous buffer). Returns None, as hashlib's objects do.
            #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
            fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
                update(&self.state, data)
            }

            /// The digest of the input so far (each u64 word little-endian, in order). The
            /// object can keep being updated.
            #[pyo3(text_signature = "($self)")]
            fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                digest(py, &self.state, $size)
            }

            /// Like digest(), as a string of hexadecimal digits.
            #[pyo3(text_signature = "($self)")]
            fn hexdigest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
                hexdigest(py, &self.state, $size)
            }

            /// An independent copy of the current state.
            #[pyo3(text_signature = "($self)")]
            fn copy(&self, py: Python<'_>) -> PyResult<Self> {
                let hasher = self.state.locked(py, |h| h.clone())?;
                Ok($rust { state: SharedState::new($size.name(), hasher) })
            }

            /// The unfinished hash as bytes (simdcrypt's state format) that restore()
            /// resumes, in another process or on another machine.
            #[pyo3(text_signature = "($self)")]
            fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                crate::state::export::<Self>(py, &self.state)
            }

            /// Resumes a hash from export()'s bytes; key: the key of a keyed hash (the
            /// state is bound to it). A damaged blob, one of another algorithm, or a missing
            /// or wrong key raises ValueError saying which.
            #[classmethod]
            #[pyo3(signature = (blob, /, *, key=None), text_signature = "(blob, /, *, key=None)")]
            fn restore(
                _cls: &Bound<'_, pyo3::types::PyType>,
                blob: &Bound<'_, PyAny>,
                key: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                Ok(Self { state: crate::state::restore::<Self>(blob, key)? })
            }

            /// Pickling and copy.deepcopy: the state and, for a keyed hash, the key.
            fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                crate::state::reduce::<Self>(py, &self.state)
            }

            $($extra)*
        }
    };
}

highwayhash_class!(HighwayHash64, "highwayhash64", Size::Bits64, "8", {
    /// The 64-bit result as an int (the u64 the reference returns).
    #[pyo3(text_signature = "($self)")]
    fn intdigest(&self, py: Python<'_>) -> PyResult<u64> {
        self.state.locked(py, |h| h.finalize64())
    }
});
highwayhash_class!(HighwayHash128, "highwayhash128", Size::Bits128, "16", {});
highwayhash_class!(HighwayHash256, "highwayhash256", Size::Bits256, "32", {});

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
    let threads = args::threads(max_threads)?;
    let platform = platform_arg(backend.as_deref())?;
    let held = hold_messages(messages)?;
    let count = held.len();
    let total_out = count
        .checked_mul(size.len())
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate {count} results of {} bytes", size.len())))?;
    if total_out == 0 {
        return Ok(PyBytes::new(py, b""));
    }
    let slices = held.slices()?;
    let work = slices.iter().map(|m| m.len()).fold(total_out, usize::saturating_add);
    crate::buffer::new_bytes(py, total_out, |out| {
        let mut hash = || highwayhash::hash_many_with(platform, threads, &key, &slices, size, out);
        // `out` belongs to a bytes object no other code can see yet, and `held` keeps every
        // message pinned until after the hashing.
        let result = if work >= GIL_RELEASE_MIN { py.detach(hash) } else { hash() };
        result.map_err(args::value_error)
    })
}
