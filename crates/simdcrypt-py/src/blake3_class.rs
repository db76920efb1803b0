//! `simdcrypt.blake3`: a hashlib-style BLAKE3 object (API-compatible with the `blake3`
//! package), plus `backend=` to pick the kernels. The methods every hash class shares come
//! from hash_class.rs; the extendable output (`digest(length, seek=)`), `reset()` and the
//! keyed modes are BLAKE3's own, here.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use simdcrypt::any::HashOptions;
use simdcrypt::blake3::{Hasher, OutputReader, Platform, BLOCK_LEN, KEY_LEN, OUT_LEN};

use crate::args::{self, BigIndex, ModeArgs};
use crate::buffer;
use crate::hash_class::{self, hash_class};

/// Digests up to this long are hex-encoded in Rust; longer ones through `bytes.hex()`,
/// whose allocation fails with MemoryError rather than aborting.
const HEX_IN_RUST_MAX: usize = 4096;

/// `len` bytes of extendable output as a new `bytes` (allocated by Python, so an
/// impossible size is a MemoryError), computed without the GIL when long.
pub(crate) fn xof_bytes(py: Python<'_>, mut reader: OutputReader, len: usize) -> PyResult<Bound<'_, PyBytes>> {
    crate::buffer::new_bytes(py, len, |out| {
        // `out` belongs to a bytes object no other code can see yet.
        args::detach_if_long(py, out.len(), || reader.fill(out));
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

hash_class::plain_hash_state!(Hasher);

impl crate::state::Resumable for Hasher {
    fn export(&self) -> Vec<u8> {
        Hasher::export(self)
    }
    fn key(&self) -> Option<Vec<u8>> {
        Hasher::key(self).map(|k| k.to_vec())
    }
    fn restore(blob: &[u8], key: Option<&[u8]>, _: &str) -> Result<Self, simdcrypt::Error> {
        Hasher::restore(blob, key)
    }
}

hash_class! {
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
    pub(crate) struct PyBlake3(Hasher) as "blake3" {
        name: class "blake3",
        digest: custom,
        digest_size: OUT_LEN,
        block_size: BLOCK_LEN,
        update_returns_self: true,
    }

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
        let mode = ModeArgs::new(key, derive_key_context)?;
        let mut hasher = Hasher::for_mode(mode.mode());
        hasher.set_max_threads(args::threads(max_threads)?);
        if backend.is_some() {
            hasher.set_platform(args::backend::<Platform>(backend.as_deref())?);
        }
        hash_class::new_object(hasher, data)
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

    /// The digest of the input so far, `length` bytes of the extendable output starting
    /// at byte `seek`. The object can keep being updated.
    #[pyo3(signature = (length=BigIndex(32), *, seek=BigIndex(0)), text_signature = "($self, length=32, *, seek=0)")]
    fn digest<'py>(&self, py: Python<'py>, length: BigIndex, seek: BigIndex) -> PyResult<Bound<'py, PyBytes>> {
        if length.0 == OUT_LEN as i128 && seek.0 == 0 {
            // The common call, digest(): one compression straight to the 32 bytes, without
            // an output reader or a zero-filled buffer to fill.
            return hash_class::digest(self, py);
        }
        self.output(py, length, seek)
    }

    /// Like digest(), as a string of hexadecimal digits (two per byte).
    #[pyo3(signature = (length=BigIndex(32), *, seek=BigIndex(0)), text_signature = "($self, length=32, *, seek=0)")]
    fn hexdigest<'py>(&self, py: Python<'py>, length: BigIndex, seek: BigIndex) -> PyResult<Bound<'py, PyAny>> {
        if length.0 == OUT_LEN as i128 && seek.0 == 0 {
            return Ok(hash_class::hexdigest(self, py)?.into_any());
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

    /// Forgets all input, keeping the mode, key, backend and thread setting.
    #[pyo3(text_signature = "($self)")]
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        self.state.locked(py, |h| {
            h.reset();
        })
    }
}

impl PyBlake3 {
    fn output<'py>(&self, py: Python<'py>, length: BigIndex, seek: BigIndex) -> PyResult<Bound<'py, PyBytes>> {
        let (len, position) = args::output_range(length, seek)?;
        let mut reader = self.state.locked(py, |h| h.finalize_xof())?;
        reader.set_position(position);
        xof_bytes(py, reader, len)
    }
}
