//! `simdcrypt.gost94` (a hashlib-style object) and `gost94_many` (batches).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::gost94::{self, Gost94, Platform, SBox, BLOCK_LEN, OUT_LEN};

use crate::args;
use crate::gost_common::{absorb_new, hash_object_methods, platform};
use crate::shared_state::SharedState;

/// An incremental GOST R 34.11-94 hasher with hashlib's interface.
///
/// gost94(data=b"", /, *, sbox="cryptopro", backend=None)
///
/// - sbox: "cryptopro" (RFC 4357, the default; RHash's GOST94-CRYPTOPRO) or "test" (the
///   standard's example parameters; RHash's GOST94).
///
/// digest() returns the byte string of RHash, Nettle and RustCrypto; RFC 5831 prints the
/// same bytes reversed.
#[pyclass(frozen, name = "gost94", module = "simdcrypt")]
#[derive(Debug)]
pub(crate) struct PyGost94 {
    state: SharedState<Gost94>,
}

hash_object_methods! {
    PyGost94,
    "gost94",
    OUT_LEN,
    BLOCK_LEN,
    #[new]
    #[pyo3(
        signature = (data=None, /, *, sbox="cryptopro", backend=None),
        text_signature = "(data=b'', /, *, sbox='cryptopro', backend=None)"
    )]
    fn py_new(data: Option<&Bound<'_, PyAny>>, sbox: &str, backend: Option<String>) -> PyResult<Self> {
        let sbox = SBox::from_name(sbox).map_err(args::value_error)?;
        let mut h = Gost94::new(sbox);
        h.set_platform(platform::<Platform>(backend.as_deref())?);
        absorb_new(&mut h, data)?;
        Ok(PyGost94 { state: SharedState::new("gost94", h) })
    }

    /// The S-box parameter set, "cryptopro" or "test".
    #[getter]
    fn sbox(&self, py: Python<'_>) -> PyResult<&'static str> {
        self.state.locked(py, |h| h.sbox().name())
    }
}

/// GOST R 34.11-94 digests of many independent messages, concatenated (32 bytes each).
///
/// - messages: as for streebog_many.
/// - sbox: "cryptopro" (default) or "test".
/// - max_threads, backend: as for streebog_many (backends()["gost94"]).
#[pyfunction]
#[pyo3(
    signature = (messages, /, *, sbox="cryptopro", max_threads=1, backend=None),
    text_signature = "(messages, /, *, sbox='cryptopro', max_threads=1, backend=None)"
)]
pub(crate) fn gost94_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    sbox: &str,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let sbox = SBox::from_name(sbox).map_err(args::value_error)?;
    let threads = args::threads(max_threads)?;
    let p = platform::<Platform>(backend.as_deref())?;
    crate::gost_common::hash_many(py, messages, OUT_LEN, |m, out| gost94::hash_many(m, sbox, out, p, threads))
}
