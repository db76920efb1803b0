//! `simdcrypt.sha256`: a hash object with exactly hashlib's sha256 interface (`update`
//! returns None), plus `backend=` to pick the kernels and a `backend` attribute.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use simdcrypt::any::HashOptions;
use simdcrypt::sha256::{Sha256 as Hasher, BLOCK_LEN, OUT_LEN};

use crate::args::{self, GIL_RELEASE_MIN};
use crate::buffer;
use crate::shared_state::SharedState;

/// An incremental SHA-256 hasher with hashlib's interface.
///
/// sha256(data=b"", /, *, usedforsecurity=True, backend=None)
///
/// - data: initial input, any C-contiguous buffer (equivalent to calling update()).
/// - usedforsecurity: accepted for hashlib compatibility; ignored.
/// - backend: a kernel set from simdcrypt.backends()["sha256"]["supported"]
///   (default: the best this CPU supports). The result never depends on it.
///
/// One object may be shared between threads: calls are serialized, and inputs of 2 KiB
/// or more are hashed without holding the GIL.
#[pyclass(frozen, name = "sha256", module = "simdcrypt")]
#[derive(Debug)]
pub(crate) struct Sha256 {
    state: SharedState<Hasher>,
}

/// Hashes `data` into `hasher`, without the GIL for long inputs.
fn absorb_into(hasher: &mut Hasher, data: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = data.py();
    buffer::with_bytes(data, |bytes| {
        if bytes.len() >= GIL_RELEASE_MIN {
            py.detach(|| hasher.update(bytes));
        } else {
            hasher.update(bytes);
        }
    })
}

#[pymethods]
impl Sha256 {
    #[new]
    #[pyo3(
        signature = (data=None, /, *, usedforsecurity=None, backend=None),
        text_signature = "(data=b'', /, *, usedforsecurity=True, backend=None)"
    )]
    fn py_new(
        data: Option<&Bound<'_, PyAny>>,
        usedforsecurity: Option<&Bound<'_, PyAny>>,
        backend: Option<String>,
    ) -> PyResult<Self> {
        let _ = usedforsecurity;
        let mut hasher = match backend {
            None => Hasher::new(),
            Some(name) => {
                let opts = HashOptions { backend: Some(name), ..HashOptions::default() };
                Hasher::from_options(&opts).map_err(args::value_error)?
            }
        };
        if let Some(data) = data {
            // The new object is not shared yet: no lock to take.
            absorb_into(&mut hasher, data)?;
        }
        Ok(Sha256 { state: SharedState::new("sha256", hasher) })
    }

    /// The hash's name, "sha256".
    #[classattr]
    fn name() -> &'static str {
        "sha256"
    }

    /// The digest length in bytes (32).
    #[classattr]
    fn digest_size() -> usize {
        OUT_LEN
    }

    /// The compression function's block size in bytes (64).
    #[classattr]
    fn block_size() -> usize {
        BLOCK_LEN
    }

    /// The name of the backend (kernel set) in use, e.g. "shani".
    #[getter]
    fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
        self.state.locked(py, |h| h.platform().name())
    }

    /// Adds input (any C-contiguous buffer). Returns None, as hashlib's objects do.
    #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
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

    /// The 32-byte digest of the input so far. The object can keep being updated.
    #[pyo3(text_signature = "($self)")]
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let digest = self.state.locked(py, |h| h.finalize())?;
        Ok(PyBytes::new(py, &digest))
    }

    /// Like digest(), as a string of 64 hexadecimal digits.
    #[pyo3(text_signature = "($self)")]
    fn hexdigest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        let digest = self.state.locked(py, |h| h.finalize())?;
        Ok(PyString::new(py, &simdcrypt::to_hex(&digest)))
    }

    /// An independent copy of the current state.
    #[pyo3(text_signature = "($self)")]
    fn copy(&self, py: Python<'_>) -> PyResult<Self> {
        let hasher = self.state.locked(py, |h| h.clone())?;
        Ok(Sha256 { state: SharedState::new("sha256", hasher) })
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
}
