//! `simdcrypt.streebog256` / `streebog512` (hashlib-style objects),
//! `hmac_streebog256` / `hmac_streebog512` (hmac-style objects, RFC 7836) and
//! `streebog_many` (batches).
//!
//! The HMAC constructors return objects shaped like `hmac.HMAC` (`update`, `digest`,
//! `hexdigest`, `copy`, `name` = "hmac-streebog256", `digest_size`, `block_size`), as
//! `hmac.new(key, msg, digestmod)` does; `hmac_streebog256(key, data).digest()` is the
//! one-shot form, like `hmac.digest(key, msg, digest)`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use simdcrypt::streebog::{
    self, Bits, HmacStreebog256, HmacStreebog512, Platform, Streebog256, Streebog512, BLOCK_LEN,
};

use crate::args;
use crate::buffer;
use crate::hash_class::{self, hash_class};

hash_class::plain_hash_state!(Streebog256, Streebog512, HmacStreebog256, HmacStreebog512);
crate::state::unkeyed!(Streebog256, Streebog512);
crate::state::hmac!(HmacStreebog256, HmacStreebog512);

/// Writes the class of one size: a hash (`hash`, constructed from data) or its HMAC
/// (`hmac`, constructed from a key and data).
macro_rules! streebog_class {
    (hash $(#[$doc:meta])* $class:ident($state:ty) as $py:literal named $name:literal, $size:literal) => {
        streebog_class!(@class $(#[$doc])* $class($state) as $py named $name, $size,
            #[new]
            #[pyo3(signature = (data=None, /, *, backend=None), text_signature = "(data=b'', /, *, backend=None)")]
            fn py_new(data: Option<&Bound<'_, PyAny>>, backend: Option<String>) -> PyResult<Self> {
                let mut h = <$state>::new();
                h.set_platform(args::backend::<Platform>(backend.as_deref())?);
                hash_class::new_object(h, data)
            }
        );
    };
    (hmac $(#[$doc:meta])* $class:ident($state:ty) as $py:literal named $name:literal, $size:literal) => {
        streebog_class!(@class $(#[$doc])* $class($state) as $py named $name, $size,
            #[new]
            #[pyo3(signature = (key, data=None, /, *, backend=None), text_signature = "(key, data=b'', /, *, backend=None)")]
            fn py_new(key: &Bound<'_, PyAny>, data: Option<&Bound<'_, PyAny>>, backend: Option<String>) -> PyResult<Self> {
                let p = args::backend::<Platform>(backend.as_deref())?;
                let mut h = buffer::with_bytes(key, <$state>::new)?;
                h.set_platform(p);
                hash_class::new_object(h, data)
            }
        );
    };
    (@class $(#[$doc:meta])* $class:ident($state:ty) as $py:literal named $name:literal, $size:literal, $new:item) => {
        hash_class! {
            $(#[$doc])*
            pub(crate) struct $class($state) as $py {
                name: class $name,
                digest_size: $size,
                block_size: BLOCK_LEN,
            }
            $new
        }
    };
}

streebog_class!(hash
    /// An incremental Streebog-256 (GOST R 34.11-2012) hasher with hashlib's interface.
    ///
    /// streebog256(data=b"", /, *, backend=None)
    ///
    /// digest() returns the byte string of OpenSSL, RHash, Nettle and RustCrypto; the
    /// standard prints the same bytes reversed. Safe to share between threads.
    PyStreebog256(Streebog256) as "streebog256" named "streebog256", 32
);

streebog_class!(hash
    /// An incremental Streebog-512 (GOST R 34.11-2012) hasher with hashlib's interface.
    ///
    /// streebog512(data=b"", /, *, backend=None)
    PyStreebog512(Streebog512) as "streebog512" named "streebog512", 64
);

streebog_class!(hmac
    /// HMAC-Streebog-256 (RFC 7836) with hmac.HMAC's interface.
    ///
    /// hmac_streebog256(key, data=b"", /, *, backend=None): key is any bytes-like object
    /// (longer than 64 bytes: hashed first, as HMAC specifies).
    PyHmacStreebog256(HmacStreebog256) as "hmac_streebog256" named "hmac-streebog256", 32
);

streebog_class!(hmac
    /// HMAC-Streebog-512 (RFC 7836) with hmac.HMAC's interface.
    ///
    /// hmac_streebog512(key, data=b"", /, *, backend=None)
    PyHmacStreebog512(HmacStreebog512) as "hmac_streebog512" named "hmac-streebog512", 64
);

/// Streebog digests of many independent messages, concatenated: `len(messages) *
/// bits // 8` bytes, digest `i` being `streebog256(messages[i]).digest()` (or 512).
///
/// - messages: a sequence of bytes-like objects or a 2-D C-contiguous uint8 buffer, one
///   message per row, as for blake3_many. Lengths may differ.
/// - bits: 256 or 512.
/// - max_threads: how many threads may share the batch (a positive integer or AUTO).
/// - backend: a kernel set from backends()["streebog"]["supported"], or "cuda" for the
///   GPU (backends()["cuda"]; a ValueError says why when there is none). With "cuda",
///   messages may also be a 2-D uint8 array on the GPU (CuPy, PyTorch: CUDA Array Interface
///   or DLPack), one message per row.
/// - out: with backend="cuda" only: a uint8 array on the GPU of exactly len(messages) *
///   digest size bytes that receives the digests (they stay on the GPU); it is returned.
///
/// Several messages run side by side, which hides the latency of the AVX-512 kernel.
#[pyfunction]
#[pyo3(
    signature = (messages, /, *, bits=256, max_threads=1, backend=None, out=None),
    text_signature = "(messages, /, *, bits=256, max_threads=1, backend=None, out=None)"
)]
pub(crate) fn streebog_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    bits: i64,
    max_threads: isize,
    backend: Option<String>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    // The library's message for any value outside u32 too.
    let bits = u32::try_from(bits)
        .ok()
        .and_then(|b| Bits::from_bits(b).ok())
        .ok_or_else(|| PyValueError::new_err(format!("streebog bits must be 256 or 512, got {bits}")))?;
    if crate::cuda::is_cuda(backend.as_deref()) {
        args::threads(max_threads)?;
        return crate::cuda::many(py, messages, out, crate::cuda::Batch::Streebog(bits));
    }
    if out.is_some() {
        return Err(crate::cuda::out_needs_cuda());
    }
    let (threads, p) = args::threads_and_backend::<Platform>(max_threads, backend.as_deref())?;
    Ok(crate::batch::hash_batch(py, messages, bits.out_len(), |m, out| streebog::hash_many(m, bits, out, p, threads))?
        .into_any())
}
