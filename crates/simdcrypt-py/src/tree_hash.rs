//! `hash_tree`: every file under a directory hashed, with the library's manifest
//! (`simdcrypt::manifest`, docs/manifest-format.md) as a cache that the CLI's
//! `sum -r --update` shares, and the tree digest of docs/tree-digest.md.

use std::io;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use simdcrypt::manifest::{self, TreeOptions};

use crate::args;
use crate::blake3_class;

/// What `hash_tree` found: `entries` (path relative to the directory, size, digests by
/// algorithm name), `errors` (path, message), `tree_digest` (bytes, or None), and how many
/// files were `hashed` and `reused` from the manifest.
#[derive(Debug)]
#[pyclass(frozen, module = "simdcrypt._native", name = "TreeHash")]
pub struct PyTreeHash {
    /// (path, size, {algorithm: digest}) for each file, in byte order of the paths.
    #[pyo3(get)]
    entries: Py<PyAny>,
    /// (path, message) for each entry that could not be read or changed while hashed.
    #[pyo3(get)]
    errors: Vec<(std::ffi::OsString, String)>,
    /// The tree digest (32 bytes), when BLAKE3 is the first algorithm (unkeyed, default
    /// length) and nothing failed; else None.
    #[pyo3(get)]
    tree_digest: Option<Py<PyBytes>>,
    /// Files read this time.
    #[pyo3(get)]
    hashed: usize,
    /// Files the manifest answered without reading them.
    #[pyo3(get)]
    reused: usize,
    /// The algorithms, in the order they were computed.
    #[pyo3(get)]
    algorithms: Vec<String>,
}

#[pymethods]
impl PyTreeHash {
    fn __repr__(&self) -> String {
        format!(
            "TreeHash(files={}, errors={}, hashed={}, reused={})",
            self.hashed + self.reused,
            self.errors.len(),
            self.hashed,
            self.reused
        )
    }
}

/// Hashes every regular file under `dir` (str, bytes or os.PathLike) without holding the
/// GIL. With `manifest=PATH`, files whose size, mtime, ctime, inode and device are those
/// recorded there (and not changed too close to its writing) are not read again, and the
/// manifest is written back atomically: the same file `simdcrypt sum -r DIR --update PATH`
/// keeps. A manifest inside `dir` is not one of its files (on Unix). A damaged manifest
/// raises ValueError naming its line.
#[pyfunction]
#[pyo3(
    signature = (dir, *, manifest=None, algorithms=None, length=None, key=None, derive_key_context=None, max_threads=args::AUTO_THREADS, follow_symlinks=false, trust_mtime=false),
    text_signature = "(dir, *, manifest=None, algorithms=None, length=None, key=None, derive_key_context=None, max_threads=blake3.AUTO, follow_symlinks=False, trust_mtime=False)"
)]
#[allow(clippy::too_many_arguments)]
pub fn hash_tree(
    py: Python<'_>,
    dir: &Bound<'_, PyAny>,
    manifest: Option<&Bound<'_, PyAny>>,
    algorithms: Option<Vec<String>>,
    length: Option<usize>,
    key: Option<&Bound<'_, PyAny>>,
    derive_key_context: Option<String>,
    max_threads: isize,
    follow_symlinks: bool,
    trust_mtime: bool,
) -> PyResult<PyTreeHash> {
    let (root, root_shown) = crate::fs_path(dir)?;
    let manifest = manifest.map(crate::fs_path).transpose()?.map(|(p, _)| p);
    let opts = TreeOptions {
        manifest,
        algorithms: algorithms.unwrap_or_else(|| vec!["blake3".into()]),
        length,
        hash: blake3_class::options(key, derive_key_context, max_threads, None)?,
        follow_symlinks,
        trust_mtime,
    };
    if opts.algorithms.is_empty() {
        return Err(PyValueError::new_err("algorithms must name at least one algorithm"));
    }
    let result = py.detach(|| manifest::hash_tree(&root, &opts)).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => PyValueError::new_err(e.to_string()),
        _ => args::io_error(py, e, &root_shown),
    })?;
    let entries = pyo3::types::PyList::empty(py);
    for e in &result.entries {
        let digests = PyDict::new(py);
        for (name, d) in result.algorithms.iter().zip(&e.digests) {
            digests.set_item(name, PyBytes::new(py, d))?;
        }
        entries.append((e.path.clone().into_os_string(), e.stat.size, digests))?;
    }
    Ok(PyTreeHash {
        entries: entries.into_any().unbind(),
        errors: result.errors.iter().map(|(p, e)| (p.clone().into_os_string(), e.to_string())).collect(),
        tree_digest: result.tree_digest.map(|d| PyBytes::new(py, &d).unbind()),
        hashed: result.hashed,
        reused: result.reused,
        algorithms: result.algorithms,
    })
}
