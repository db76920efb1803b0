//! Python bindings of simdcrypt: the `simdcrypt._native` extension module.
//!
//! The pure-Python package `simdcrypt` (python/simdcrypt) re-exports this module and adds
//! `new()` and `algorithms_available`. Everything here is driven by the library's
//! `ALGORITHMS`, `backend_report()` and `any` module, so a new algorithm needs only its
//! class here (`blake3`, `sha256`), registered in `_native` with one `add_hash_class` line
//! (which also lists it in `_HASH_CLASSES`, where `new()` and unpickling find it). BLAKE3 also has module functions: `blake3_many` (batches of messages,
//! batch.rs) and `blake3_subtree` / `blake3_merge` (hashing an input in pieces,
//! subtree.rs). SHA-256 has `sha256_many` (hashtree-style batches of 64-byte blocks,
//! sha256_batch.rs) and `merkle_root` / `merkle_layers` (SSZ-style Merkle trees, merkle.rs).
//! Streebog and GOST R 34.11-94: streebog_class.rs (`streebog256`, `streebog512`, the HMAC
//! objects, `streebog_many`) and gost94_class.rs (`gost94`, `gost94_many`), on the shared
//! methods of gost_common.rs.
//! HighwayHash has `highwayhash64/128/256` and `highwayhash_many` (highwayhash_class.rs).

use std::path::PathBuf;

use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use simdcrypt::any::{self, AnyHasher};

mod args;
mod bao;
mod batch;
mod blake3_class;
mod buffer;
mod cuda;
mod file_crypt;
mod gost94_class;
mod hash_class;
mod highwayhash_class;
mod merkle;
mod messages;
mod salsa20_class;
mod secretbox;
mod sha256_batch;
mod sha256_class;
mod shared_state;
mod state;
mod streebog_class;
mod subtree;

/// The module attribute that maps each hash class's Python name to the class: what `new()`
/// (python/simdcrypt/__init__.py) and `_restore_state` (state.rs) look classes up in, so
/// that registering a class here with [`add_hash_class`] is all either needs.
pub(crate) const HASH_CLASSES: &str = "_HASH_CLASSES";

/// Adds a hash class to the module and to its [`HASH_CLASSES`].
fn add_hash_class<C: hash_class::HashClass + pyo3::PyTypeInfo>(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<C>()?;
    m.getattr(HASH_CLASSES)?.set_item(C::NAME, m.py().get_type::<C>())
}

/// `{algorithm: {"selected": backend, "supported": [backends, best first]}}` for this CPU,
/// and `"cuda"`: the GPU backend of the batch functions, with `available`, `reason`,
/// `device`, `verified` and `note` besides (`selected` "" and `supported` [] without one).
#[pyfunction]
#[pyo3(text_signature = "()")]
fn backends(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for report in simdcrypt::backend_report() {
        let entry = PyDict::new(py);
        entry.set_item("selected", report.selected)?;
        entry.set_item("supported", PyList::new(py, &report.supported)?)?;
        out.set_item(report.algorithm, entry)?;
    }
    // The GPU: looked for only now, when asked (see cuda.rs for the entry's keys).
    out.set_item("cuda", cuda::backends_entry(py)?)?;
    Ok(out)
}

/// `os.fspath(path)` as a Rust path, plus the fspath result for error messages.
fn fs_path<'py>(path: &Bound<'py, PyAny>) -> PyResult<(PathBuf, Bound<'py, PyAny>)> {
    let fspath = path.py().import("os")?.call_method1("fspath", (path,))?;
    if let Ok(s) = fspath.extract::<PathBuf>() {
        return Ok((s, fspath));
    }
    #[cfg(unix)]
    if let Ok(b) = fspath.cast::<PyBytes>() {
        use std::os::unix::ffi::OsStrExt;
        let p = PathBuf::from(std::ffi::OsStr::from_bytes(b.as_bytes()));
        return Ok((p, fspath));
    }
    Err(PyTypeError::new_err("path must be str, bytes or os.PathLike"))
}

/// Hashes the file at `path` (str, bytes or os.PathLike) without holding the GIL and
/// returns the digest: `length` bytes (default: the algorithm's digest size).
/// Keyword options are those of the algorithm's constructor. I/O errors raise the
/// OSError subclass `open()` would (FileNotFoundError, IsADirectoryError, ...).
#[pyfunction]
#[pyo3(
    signature = (path, algorithm="blake3", *, length=None, max_threads=1, key=None, derive_key_context=None, backend=None, usedforsecurity=None),
    text_signature = "(path, algorithm='blake3', *, length=None, max_threads=1, key=None, derive_key_context=None, backend=None, usedforsecurity=True)"
)]
#[allow(clippy::too_many_arguments)]
fn hash_file<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    algorithm: &str,
    length: Option<args::BigIndex>,
    max_threads: isize,
    key: Option<&Bound<'py, PyAny>>,
    derive_key_context: Option<String>,
    backend: Option<String>,
    usedforsecurity: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let _ = usedforsecurity;
    let (path_buf, fspath) = fs_path(path)?;
    let opts = blake3_class::options(key, derive_key_context, max_threads, backend)?;
    let hasher = AnyHasher::new(algorithm, &opts).map_err(args::value_error)?;
    // Check the length before reading what may be a large file.
    let len = match length {
        Some(l) => Some(args::output_range(l, args::BigIndex(0))?.0),
        None => None,
    };
    if !hasher.is_xof() {
        hasher.finalize(len).map_err(args::value_error)?;
    }
    if let Some(n) = len {
        // The library allocates the digest itself, and a failed allocation in Rust aborts
        // the process: try the size first so that an impossible one is a MemoryError.
        Vec::<u8>::new()
            .try_reserve_exact(n)
            .map_err(|_| PyMemoryError::new_err(format!("cannot allocate a digest of {n} bytes")))?;
    }
    // The library's reader (it may memory-map large files when threads are allowed).
    let digest = py.detach(|| any::hash_file(&path_buf, &hasher, len)).map_err(|e| args::io_error(py, e, &fspath))?;
    Ok(PyBytes::new(py, &digest))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    if let Some(problem) = simdcrypt::cpu::disable_list_problem() {
        // A typo in SIMDCRYPT_DISABLE would otherwise test the wrong fallback silently.
        let message = std::ffi::CString::new(problem).unwrap_or_default();
        let category = m.py().get_type::<pyo3::exceptions::PyRuntimeWarning>();
        PyErr::warn(m.py(), &category, &message, 1)?;
    }
    m.add("ALGORITHMS", PyTuple::new(m.py(), simdcrypt::ALGORITHMS.iter())?)?;
    // The hash classes: one line each.
    m.add(HASH_CLASSES, PyDict::new(m.py()))?;
    add_hash_class::<blake3_class::PyBlake3>(m)?;
    add_hash_class::<sha256_class::PySha256>(m)?;
    add_hash_class::<highwayhash_class::PyHighwayHash64>(m)?;
    add_hash_class::<highwayhash_class::PyHighwayHash128>(m)?;
    add_hash_class::<highwayhash_class::PyHighwayHash256>(m)?;
    add_hash_class::<streebog_class::PyStreebog256>(m)?;
    add_hash_class::<streebog_class::PyStreebog512>(m)?;
    add_hash_class::<streebog_class::PyHmacStreebog256>(m)?;
    add_hash_class::<streebog_class::PyHmacStreebog512>(m)?;
    add_hash_class::<gost94_class::PyGost94>(m)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(hash_file, m)?)?;
    m.add_function(wrap_pyfunction!(batch::blake3_many, m)?)?;
    m.add_function(wrap_pyfunction!(batch::blake3_digest, m)?)?;
    m.add_function(wrap_pyfunction!(sha256_batch::sha256_many, m)?)?;
    m.add_function(wrap_pyfunction!(merkle::merkle_root, m)?)?;
    m.add_function(wrap_pyfunction!(merkle::merkle_layers, m)?)?;
    m.add_function(wrap_pyfunction!(subtree::blake3_subtree, m)?)?;
    m.add_function(wrap_pyfunction!(subtree::blake3_merge, m)?)?;
    m.add_function(wrap_pyfunction!(streebog_class::streebog_many, m)?)?;
    m.add_function(wrap_pyfunction!(gost94_class::gost94_many, m)?)?;
    m.add_class::<salsa20_class::PySalsa20>()?;
    m.add_class::<salsa20_class::PyXSalsa20>()?;
    m.add_function(wrap_pyfunction!(secretbox::secretbox_seal, m)?)?;
    m.add_function(wrap_pyfunction!(secretbox::secretbox_open, m)?)?;
    m.add("AuthenticationError", m.py().get_type::<secretbox::AuthenticationError>())?;
    m.add_function(wrap_pyfunction!(highwayhash_class::highwayhash_many, m)?)?;
    bao::register(m)?;
    m.add_function(wrap_pyfunction!(state::_restore_state, m)?)?;
    file_crypt::register(m)?;
    Ok(())
}
