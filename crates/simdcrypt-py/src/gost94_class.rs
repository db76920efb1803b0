//! `simdcrypt.gost94` (a hashlib-style object; the methods come from hash_class.rs) and
//! `gost94_many` (batches).

use pyo3::prelude::*;
use simdcrypt::gost94::{self, Gost94, Platform, SBox, BLOCK_LEN, OUT_LEN};

use crate::args;
use crate::hash_class::{self, hash_class};

hash_class::plain_hash_state!(Gost94 {
    /// The parameter set decides the name `new()` takes.
    fn object_name(&self) -> Option<&'static str> {
        Some(match self.sbox() {
            SBox::CryptoPro => "gost94",
            SBox::Test => "gost94-test",
        })
    }
});
crate::state::unkeyed!(Gost94);

hash_class! {
    /// An incremental GOST R 34.11-94 hasher with hashlib's interface.
    ///
    /// gost94(data=b"", /, *, sbox="cryptopro", backend=None)
    ///
    /// - sbox: "cryptopro" (RFC 4357, the default; RHash's GOST94-CRYPTOPRO) or "test" (the
    ///   standard's example parameters; RHash's GOST94).
    ///
    /// digest() returns the byte string of RHash, Nettle and RustCrypto; RFC 5831 prints the
    /// same bytes reversed.
    pub(crate) struct PyGost94(Gost94) as "gost94" {
        name: object "gost94",
        digest_size: OUT_LEN,
        block_size: BLOCK_LEN,
    }

    #[new]
    #[pyo3(
        signature = (data=None, /, *, sbox="cryptopro", backend=None),
        text_signature = "(data=b'', /, *, sbox='cryptopro', backend=None)"
    )]
    fn py_new(data: Option<&Bound<'_, PyAny>>, sbox: &str, backend: Option<String>) -> PyResult<Self> {
        let sbox = SBox::from_name(sbox).map_err(args::value_error)?;
        let mut h = Gost94::new(sbox);
        h.set_platform(args::backend::<Platform>(backend.as_deref())?);
        hash_class::new_object(h, data)
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
/// - max_threads, backend, out: as for streebog_many (backends()["gost94"], or "cuda").
#[pyfunction]
#[pyo3(
    signature = (messages, /, *, sbox="cryptopro", max_threads=1, backend=None, out=None),
    text_signature = "(messages, /, *, sbox='cryptopro', max_threads=1, backend=None, out=None)"
)]
pub(crate) fn gost94_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    sbox: &str,
    max_threads: isize,
    backend: Option<String>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let sbox = SBox::from_name(sbox).map_err(args::value_error)?;
    if crate::cuda::is_cuda(backend.as_deref()) {
        args::threads(max_threads)?;
        return crate::cuda::many(py, messages, out, crate::cuda::Batch::Gost94(sbox));
    }
    if out.is_some() {
        return Err(crate::cuda::out_needs_cuda());
    }
    let (threads, p) = args::threads_and_backend::<Platform>(max_threads, backend.as_deref())?;
    Ok(crate::batch::hash_batch(py, messages, OUT_LEN, |m, out| gost94::hash_many(m, sbox, out, p, threads))?
        .into_any())
}
