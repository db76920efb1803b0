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
//!
//! ## The files of the extension
//!
//! `src/lib.rs` (module, `backends`, `hash_file`), `src/tree_hash.rs` (`hash_tree` and its
//! `TreeHash` result: the library's `manifest`, the cache `sum -r --update` keeps), `src/hash_class.rs` (the one hashlib-style
//! object: generic functions over `HashClass`/`HashState` for `update` (GIL released from 2
//! KiB), `digest`, `hexdigest`, `copy`, `__repr__`, `backend`, and the `hash_class!` macro
//! that writes each class's struct and single `#[pymethods]` block around them and the class's
//! own items), `src/blake3_class.rs` (`blake3`: constructor, XOF `digest(length, seek=)`,
//! `reset`), `src/sha256_class.rs` (`sha256`, exactly hashlib's interface: `update` returns
//! None), `src/messages.rs` (the one conversion of `*_many` inputs: exact `bytes` read without
//! the buffer protocol, tuples pinning their items, per-thread vectors kept between calls),
//! `src/batch.rs` (`blake3_many`, and `hash_batch`, the body of every `*_many`),
//! `src/highwayhash_class.rs` (`highwayhash64/128/256` with `export`/`restore`,
//! `highwayhash_many`), `src/sha256_batch.rs` (`sha256_many`), `src/merkle.rs` (`merkle_root`,
//! `merkle_layers`), `src/subtree.rs` (`blake3_subtree`, `blake3_merge`), `src/args.rs`
//! (argument checks and error mapping shared by all, `backend::<B>()` the one parser of
//! `backend=`, `detach_if_long`, the one GIL-release rule), `src/streebog_class.rs`
//! (`streebog256`, `streebog512`, `hmac_streebog256`/`512`, `streebog_many`),
//! `src/gost94_class.rs` (`gost94`, `gost94_many`), Rust class names carry a `Py` prefix
//! (`PyBlake3`, `PySalsa20`); the Python names are unchanged. `src/salsa20_class.rs`
//! (`Salsa20`, `XSalsa20`: one `CipherCore` behind both), `src/bao.rs` (`bao_encode`,
//! `bao_decode`, `bao_slice`, `bao_decode_slice`, `bao_scrub`, `BaoReader`, `BaoScrubReport`;
//! buffers or file paths; failures raise the secretbox `AuthenticationError`),
//! `src/secretbox.rs` (`secretbox_seal`, `secretbox_open`, `AuthenticationError`, a ValueError
//! subclass), `src/file_crypt.rs` (`encrypt_file`, `decrypt_file`, `open_encrypted` with its
//! `EncryptedReader`/`EncryptedWriter`, registered as `io.BufferedIOBase` virtual subclasses
//! in `__init__.py`: the library's `sealed_stream` and `sealed_reader`; output through the
//! library's `atomic_file`, as the CLI's), `src/buffer.rs` (the buffer protocol, most of the
//! crate's unsafe code (the rest: messages.rs reading `bytes` directly); `with_in_out` lends
//! an input and a writable output, the same memory or non-overlapping; `new_bytes_uninit` /
//! `new_bytes` build a bytes object that the caller writes, not zeroed first (or zeroed with
//! the GIL released), asking Linux for transparent huge pages from 4 MiB; `init_from`),
//! `src/shared_state.rs` (`SharedState`: the mutex every hasher class keeps its state behind,
//! never held while waiting for the GIL; `locked_for` releases the GIL for long inputs),
//! `src/state.rs` (saved states: the `Resumable` trait, implemented in each class file
//! (`unkeyed!`, `hmac!` for the common shapes), the helpers behind each class's one-line
//! `export`, `restore` and `__reduce__`, and `_restore_state`, the function pickles call,
//! which finds the class in `_HASH_CLASSES`), `src/chunks.rs` (content-defined chunking:
//! `xet_hash`, and the native halves of `simdcrypt.chunks` (python/simdcrypt/_chunking.py)
//! and `simdcrypt.dask.chunk_file`: `_chunk_table`, `_ChunkIter`, the parts functions),
//! `src/pyfile.rs` (Python binary file objects as Rust readers, `readinto` or `read`, for
//! `BaoReader` and the chunking functions).
//!
//! Mixed maturin layout: the Rust extension is the private module `simdcrypt._native`;
//! `python/simdcrypt/__init__.py` re-exports the native module's `__all__` (less `ALGORITHMS`)
//! plus `new` and `algorithms_available`, pinned by `tests/test_api.py`; `_native.pyi` and
//! `py.typed` ship hand-written stubs checked with `mypy --strict` and stubtest. Buffers are
//! read through the buffer protocol directly (see the module comment in `src/` for why: the
//! abi3-py39 limited API does not expose it), the GIL is released for inputs of 2048 bytes and
//! more, and each hasher keeps its state behind a mutex so that sharing one between threads is
//! safe.
//!
//! ## Adding a hash class
//!
//! A Python class of its own for a new hash (`simdcrypt.<name>(...)`, `new("<name>")`; the
//! class's Python name is the algorithm's name) adds, after steps 1 and 2 of ARCHITECTURE.md
//! ("What a new hash touches"):
//!
//! 3. `crates/simdcrypt-py/src/<name>_class.rs`: the hasher's `HashState` and `Resumable`
//!    impls (for a hasher of the usual shape, one `hash_class::plain_hash_state!` and one
//!    `state::unkeyed!` line) and one `hash_class!` invocation;
//! 4. `crates/simdcrypt-py/src/lib.rs`: `mod <name>_class;` and one `add_hash_class` line,
//!    which also enters the class in `_native._HASH_CLASSES`, where `new()`,
//!    `algorithms_available` and unpickling (`_restore_state`) find it;
//! 5. `crates/simdcrypt-py/python/simdcrypt/_native.pyi`: the class's stub (on the
//!    stub-only base `_FixedHash`, or `_HashObject`), its name in `__all__` and in the
//!    `_AnyHash` union.
//!
//! `python/simdcrypt/__init__.py` needs no edit: it star-imports `_native` (its `__all__`,
//! which PyO3 keeps) and builds `__all__`, `new()`'s table and `algorithms_available` from it.
//! The public names are pinned by `test_all` in `crates/simdcrypt-py/tests/test_api.py`, so
//! the new name is added there with the class's tests. A `Literal` overload of `new()` in
//! `__init__.py` is optional: without one, `new("<name>")` is typed as `_AnyHash`.

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
mod chunks;
mod cuda;
mod file_crypt;
mod gost94_class;
mod hash_class;
mod highwayhash_class;
mod merkle;
mod messages;
mod pyfile;
mod salsa20_class;
mod secretbox;
mod sha256_batch;
mod sha256_class;
mod shared_state;
mod state;
mod streebog_class;
mod subtree;
mod tree_hash;

/// The module attribute that maps each hash class's Python name to the class: what `new()`
/// (python/simdcrypt/__init__.py) and `_restore_state` (state.rs) look classes up in, so
/// that registering a class here with [`add_hash_class`] is all either needs.
pub(crate) const HASH_CLASSES: &str = "_HASH_CLASSES";

/// Adds a hash class to the module and to its [`HASH_CLASSES`].
fn add_hash_class<C: hash_class::HashClass + pyo3::PyTypeInfo>(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<C>()?;
    m.getattr(HASH_CLASSES)?.set_item(C::NAME, m.py().get_type::<C>())
}

/// `{algorithm: {"selected": backend, "supported": [backends, best first], "passed_over":
/// {backend: why}}}` for this CPU (`passed_over`: supported backends detection skips here),
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
        let passed_over = PyDict::new(py);
        for (backend, why) in &report.passed_over {
            passed_over.set_item(backend, why)?;
        }
        entry.set_item("passed_over", passed_over)?;
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
    m.add_function(wrap_pyfunction!(tree_hash::hash_tree, m)?)?;
    m.add_class::<tree_hash::PyTreeHash>()?;
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
    chunks::register(m)?;
    #[cfg(feature = "cuda-emulation")]
    cuda::register_emulation(m)?;
    Ok(())
}
