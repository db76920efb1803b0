//! `simdcrypt.sha256`: a hash object with exactly hashlib's sha256 interface (`update`
//! returns None), plus `backend=` to pick the kernels and a `backend` attribute. The
//! methods come from hash_class.rs.

use pyo3::prelude::*;
use simdcrypt::sha256::{Platform, Sha256, BLOCK_LEN, OUT_LEN};

use crate::args;
use crate::hash_class::{self, hash_class};

hash_class::plain_hash_state!(Sha256);
crate::state::unkeyed!(Sha256);

hash_class! {
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
    pub(crate) struct PySha256(Sha256) as "sha256" {
        name: class "sha256",
        digest_size: OUT_LEN,
        block_size: BLOCK_LEN,
    }

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
        let mut hasher = Sha256::new();
        if backend.is_some() {
            hasher.set_platform(args::backend::<Platform>(backend.as_deref())?);
        }
        hash_class::new_object(hasher, data)
    }
}
