//! `simdcrypt.merkle_root` and `simdcrypt.merkle_layers`: SSZ-style SHA-256 Merkle trees of
//! 32-byte leaves, built a layer at a time with the `sha256-batch` kernels (the library's
//! `sha256::merkle_root` / `merkle_layers`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use simdcrypt::sha256::{BlockBatch, MERKLE_MAX_DEPTH};

use crate::args::{self, BigIndex};
use crate::buffer;
use crate::sha256_batch::block_batch;

/// The `depth=` argument, checked.
fn depth_arg(depth: Option<BigIndex>) -> PyResult<Option<u32>> {
    Ok(match depth {
        None => None,
        Some(BigIndex(d)) if d < 0 => {
            return Err(PyValueError::new_err(format!("depth must be a non-negative integer, got {d}")));
        }
        Some(BigIndex(d)) if d > i128::from(MERKLE_MAX_DEPTH) => {
            return Err(PyValueError::new_err(format!("merkle depth must be at most {MERKLE_MAX_DEPTH}, got {d}")));
        }
        Some(BigIndex(d)) => Some(d as u32),
    })
}

/// The batch (kernels and threads) and depth that the keyword arguments select, checked.
fn options(
    depth: Option<BigIndex>,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<(Option<u32>, BlockBatch)> {
    Ok((depth_arg(depth)?, block_batch(max_threads, backend)?))
}

/// The body of both functions: checks the keyword arguments, then runs `f(leaves,
/// depth, batch)` on the leaves' bytes, without the GIL when they hold 2 KiB or more (the
/// buffer stays pinned until the call returns).
fn build<'py, R: Send>(
    py: Python<'py>,
    leaves: &Bound<'py, PyAny>,
    (depth, max_threads, backend): (Option<BigIndex>, isize, Option<String>),
    f: impl FnOnce(&[u8], Option<u32>, &BlockBatch) -> Result<R, simdcrypt::Error> + Send,
) -> PyResult<R> {
    let (depth, batch) = options(depth, max_threads, backend)?;
    buffer::with_bytes(leaves, |data| {
        args::detach_if_long(py, data.len(), || f(data, depth, &batch)).map_err(args::value_error)
    })?
}

/// The root of the SSZ-style SHA-256 Merkle tree over `leaves`, 32 bytes.
///
/// - leaves: any C-contiguous bytes-like object, n leaves of 32 bytes (its length a
///   multiple of 32).
/// - depth: None for the smallest tree holding the leaves (depth ceil(log2(n)): one leaf
///   is its own root, no leaves give 32 zero bytes); or d (0 to 64) for a tree of 2**d
///   leaf slots, n at most 2**d. Missing leaves are 32 zero bytes, so missing subtrees are
///   the zero hashes: zero(0) = bytes(32), zero(h + 1) = sha256(zero(h) + zero(h)).
/// - max_threads: how many threads may share each layer (a positive integer or
///   blake3.AUTO).
/// - backend: a kernel set from backends()["sha256-batch"]["supported"], or "cuda" for
///   the GPU (backends()["cuda"]); with "cuda", leaves may also be a C-contiguous uint8
///   array on the GPU (CuPy, PyTorch), n x 32 or flat. The root is returned as bytes.
///
/// The GIL is released while hashing when `leaves` holds 2 KiB or more.
#[pyfunction]
#[pyo3(
    signature = (leaves, /, *, depth=None, max_threads=1, backend=None),
    text_signature = "(leaves, /, *, depth=None, max_threads=1, backend=None)"
)]
pub(crate) fn merkle_root<'py>(
    py: Python<'py>,
    leaves: &Bound<'py, PyAny>,
    depth: Option<BigIndex>,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    if crate::cuda::is_cuda(backend.as_deref()) {
        let depth = depth_arg(depth)?;
        args::threads(max_threads)?;
        return crate::cuda::merkle_root(py, leaves, depth);
    }
    let root = build(py, leaves, (depth, max_threads, backend), simdcrypt::sha256::merkle_root)?;
    Ok(PyBytes::new(py, &root))
}

/// Every layer of the tree merkle_root describes (same arguments), from the leaves up:
/// depth + 1 bytes objects of concatenated 32-byte nodes. Layer 0 is the leaves as given;
/// layer h + 1 has ceil(len(layer h) / 64) nodes, node i being
/// sha256(node 2i + node 2i + 1) of layer h with a missing right node taken as zero(h);
/// the last layer is the root. With no leaves, layer 0 is empty and layer h >= 1 is
/// zero(h); with no leaves and depth 0 the one layer is the root, bytes(32).
#[pyfunction]
#[pyo3(
    signature = (leaves, /, *, depth=None, max_threads=1, backend=None),
    text_signature = "(leaves, /, *, depth=None, max_threads=1, backend=None)"
)]
pub(crate) fn merkle_layers<'py>(
    py: Python<'py>,
    leaves: &Bound<'py, PyAny>,
    depth: Option<BigIndex>,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<Bound<'py, PyList>> {
    let layers = build(py, leaves, (depth, max_threads, backend), simdcrypt::sha256::merkle_layers)?;
    PyList::new(py, layers.iter().map(|layer| PyBytes::new(py, layer)))
}
