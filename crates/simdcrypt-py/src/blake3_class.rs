//! `simdcrypt.blake3`: a hashlib-style BLAKE3 object (API-compatible with the `blake3`
//! package), plus `backend=` to pick the kernels.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use simdcrypt::any::HashOptions;
use simdcrypt::blake3::{Hasher, OutputReader, BLOCK_LEN, KEY_LEN, OUT_LEN};

use crate::args::{self, BigIndex, GIL_RELEASE_MIN};
use crate::buffer;
use crate::shared_state::SharedState;

/// Digests up to this long are hex-encoded in Rust; longer ones through `bytes.hex()`,
/// whose allocation fails with MemoryError rather than aborting.
const HEX_IN_RUST_MAX: usize = 4096;

/// An incremental BLAKE3 hasher (hash, keyed hash or key derivation mode) with
/// extendable output, like hashlib's objects.
///
/// blake3(data=b"", /, *, key=None, derive_key_context=None, max_threads=1,
///        usedforsecurity=True, backend=None)
///
/// - data: initial input, any C-contiguous buffer (equivalent to calling update()).
/// - key: a 32-byte key (any bytes-like object) selects the keyed mode.
/// - derive_key_context: a str selects the key derivation mode; the data is the key
///   material. key and derive_key_context exclude each other.
/// - max_threads: how many threads one large update() may use: a positive integer, or
///   blake3.AUTO to let simdcrypt choose from the input size and the CPU count.
/// - usedforsecurity: accepted for hashlib compatibility; ignored.
/// - backend: a kernel set from simdcrypt.backends()["blake3"]["supported"]
///   (default: the best this CPU supports). The result never depends on it.
///
/// One object may be shared between threads: calls are serialized, and inputs of 2 KiB
/// or more are hashed without holding the GIL.
#[pyclass(frozen, name = "blake3", module = "simdcrypt")]
#[derive(Debug)]
pub(crate) struct Blake3 {
    state: SharedState<Hasher>,
}

impl Blake3 {
    fn absorb(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = data.py();
        buffer::with_bytes(data, |bytes| {
            if bytes.len() >= GIL_RELEASE_MIN {
                // The export stays held until with_bytes returns, so the memory stays put.
                py.detach(|| {
                    self.state.lock_blocking().map(|mut h| {
                        h.update(bytes);
                    })
                })
            } else {
                self.state.locked(py, |h| {
                    h.update(bytes);
                })
            }
        })?
    }

    fn output<'py>(&self, py: Python<'py>, length: BigIndex, seek: BigIndex) -> PyResult<Bound<'py, PyBytes>> {
        let (len, position) = args::output_range(length, seek)?;
        let mut reader = self.state.locked(py, |h| h.finalize_xof())?;
        reader.set_position(position);
        xof_bytes(py, reader, len)
    }
}

/// `len` bytes of extendable output as a new `bytes` (allocated by Python, so an
/// impossible size is a MemoryError), computed without the GIL when long.
pub(crate) fn xof_bytes(py: Python<'_>, mut reader: OutputReader, len: usize) -> PyResult<Bound<'_, PyBytes>> {
    crate::buffer::new_bytes(py, len, |out| {
        if out.len() >= GIL_RELEASE_MIN {
            // `out` belongs to a bytes object no other code can see yet.
            py.detach(|| reader.fill(out));
        } else {
            reader.fill(out);
        }
        Ok(())
    })
}

/// The options of `blake3(...)` and `hash_file(...)`, checked by the library.
pub(crate) fn options(
    key: Option<&Bound<'_, PyAny>>,
    derive_key_context: Option<String>,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<HashOptions> {
    let key = key.map(|k| buffer::with_bytes(k, <[u8]>::to_vec)).transpose()?;
    // Options the library adds later keep their defaults.
    #[allow(clippy::needless_update)]
    Ok(HashOptions { key, derive_key_context, backend, threads: args::threads(max_threads)?, ..HashOptions::default() })
}

#[pymethods]
impl Blake3 {
    #[new]
    #[pyo3(
        signature = (data=None, /, *, key=None, derive_key_context=None, max_threads=1, usedforsecurity=None, backend=None),
        text_signature = "(data=b'', /, *, key=None, derive_key_context=None, max_threads=1, usedforsecurity=True, backend=None)"
    )]
    fn py_new(
        data: Option<&Bound<'_, PyAny>>,
        key: Option<&Bound<'_, PyAny>>,
        derive_key_context: Option<String>,
        max_threads: isize,
        usedforsecurity: Option<&Bound<'_, PyAny>>,
        backend: Option<String>,
    ) -> PyResult<Self> {
        let _ = usedforsecurity;
        let mut hasher = if key.is_none() && derive_key_context.is_none() && backend.is_none() && max_threads == 1 {
            // blake3(data), the one-shot call: nothing to check, and the default hasher is
            // what the options below would build.
            Hasher::new()
        } else {
            let opts = options(key, derive_key_context, max_threads, backend)?;
            Hasher::from_options(&opts).map_err(args::value_error)?
        };
        if let Some(data) = data {
            // The new object is not shared yet: no lock to take.
            let py = data.py();
            buffer::with_bytes(data, |bytes| {
                if bytes.len() >= GIL_RELEASE_MIN {
                    py.detach(|| hasher.update(bytes));
                } else {
                    hasher.update(bytes);
                }
            })?;
        }
        Ok(Blake3 { state: SharedState::new("blake3", hasher) })
    }

    /// The hash's name, "blake3".
    #[classattr]
    fn name() -> &'static str {
        "blake3"
    }

    /// The default digest length in bytes (32).
    #[classattr]
    fn digest_size() -> usize {
        OUT_LEN
    }

    /// The compression function's block size in bytes (64).
    #[classattr]
    fn block_size() -> usize {
        BLOCK_LEN
    }

    /// The key length in bytes for the keyed mode (32).
    #[classattr]
    fn key_size() -> usize {
        KEY_LEN
    }

    /// max_threads=AUTO lets simdcrypt choose the thread count.
    #[classattr]
    #[allow(non_snake_case)]
    fn AUTO() -> isize {
        args::AUTO_THREADS
    }

    /// The name of the backend (kernel set) in use, e.g. "avx2".
    #[getter]
    fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
        self.state.locked(py, |h| h.platform().name())
    }

    /// Adds input (any C-contiguous buffer) and returns self.
    #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
    fn update<'py>(slf: &Bound<'py, Self>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().absorb(data)?;
        Ok(slf.clone())
    }

    /// The digest of the input so far, `length` bytes of the extendable output starting
    /// at byte `seek`. The object can keep being updated.
    #[pyo3(signature = (length=BigIndex(32), *, seek=BigIndex(0)), text_signature = "($self, length=32, *, seek=0)")]
    fn digest<'py>(&self, py: Python<'py>, length: BigIndex, seek: BigIndex) -> PyResult<Bound<'py, PyBytes>> {
        if length.0 == OUT_LEN as i128 && seek.0 == 0 {
            // The common call, digest(): one compression straight to the 32 bytes, without
            // an output reader or a zero-filled buffer to fill.
            let digest = self.state.locked(py, |h| h.finalize())?;
            return Ok(PyBytes::new(py, &digest));
        }
        self.output(py, length, seek)
    }

    /// Like digest(), as a string of hexadecimal digits (two per byte).
    #[pyo3(signature = (length=BigIndex(32), *, seek=BigIndex(0)), text_signature = "($self, length=32, *, seek=0)")]
    fn hexdigest<'py>(&self, py: Python<'py>, length: BigIndex, seek: BigIndex) -> PyResult<Bound<'py, PyAny>> {
        if length.0 == OUT_LEN as i128 && seek.0 == 0 {
            let digest = self.state.locked(py, |h| h.finalize())?;
            return Ok(PyString::new(py, &simdcrypt::to_hex(&digest)).into_any());
        }
        let (len, position) = args::output_range(length, seek)?;
        if len <= HEX_IN_RUST_MAX {
            let mut reader = self.state.locked(py, |h| h.finalize_xof())?;
            reader.set_position(position);
            let mut out = vec![0u8; len];
            reader.fill(&mut out);
            return Ok(PyString::new(py, &simdcrypt::to_hex(&out)).into_any());
        }
        self.output(py, length, seek)?.call_method0("hex")
    }

    /// An independent copy of the current state.
    #[pyo3(text_signature = "($self)")]
    fn copy(&self, py: Python<'_>) -> PyResult<Self> {
        let hasher = self.state.locked(py, |h| h.clone())?;
        Ok(Blake3 { state: SharedState::new("blake3", hasher) })
    }

    /// The unfinished hash as bytes (simdcrypt's state format) that restore() resumes,
    /// in another process or on another machine.
    #[pyo3(text_signature = "($self)")]
    fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        crate::state::export::<Self>(py, &self.state)
    }

    /// Resumes a hash from export()'s bytes; key: the key of a keyed hash (the state is
    /// bound to it). A damaged blob, one of another algorithm, or a missing or wrong key
    /// raises ValueError saying which.
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

    /// Forgets all input, keeping the mode, key, backend and thread setting.
    #[pyo3(text_signature = "($self)")]
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        self.state.locked(py, |h| {
            h.reset();
        })
    }
}
