//! `simdcrypt.sha256_many`: hashtree-style batches, each 64-byte block of one buffer hashed
//! as a whole message (the library's `sha256::BlockBatch`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use simdcrypt::sha256::{BatchPlatform, BlockBatch, BLOCK_LEN, OUT_LEN};

use crate::args;
use crate::buffer;

/// The batch that `max_threads=` and `backend=` select, checked (also used by the Merkle
/// functions, which hash with the same kernels).
pub(crate) fn block_batch(max_threads: isize, backend: Option<String>) -> PyResult<BlockBatch> {
    let (threads, platform) = args::threads_and_backend::<BatchPlatform>(max_threads, backend.as_deref())?;
    let mut batch = BlockBatch::new();
    batch.set_platform(platform).set_max_threads(threads);
    Ok(batch)
}

/// Hashes each 64-byte block of `blocks` as a complete 64-byte message and returns the
/// digests, concatenated: `len(blocks) // 2` bytes, digest `i` being
/// `hashlib.sha256(blocks[64 * i : 64 * i + 64]).digest()`.
///
/// - blocks: any C-contiguous bytes-like object whose length is a multiple of 64.
/// - max_threads: how many threads may share the batch (a positive integer or
///   blake3.AUTO); the blocks are split into contiguous ranges.
/// - backend: a kernel set from backends()["sha256-batch"]["supported"], or "cuda" for
///   the GPU (backends()["cuda"]); with "cuda", blocks may also be a C-contiguous uint8
///   array on the GPU (CuPy, PyTorch), n x 64 or flat.
/// - out: with backend="cuda" only: a uint8 GPU array of exactly len(blocks) // 2 bytes
///   that receives the digests; it is returned.
///
/// The GIL is released while hashing when `blocks` holds 2 KiB or more; the buffer stays
/// pinned until the call returns.
#[pyfunction]
#[pyo3(
    signature = (blocks, /, *, max_threads=1, backend=None, out=None),
    text_signature = "(blocks, /, *, max_threads=1, backend=None, out=None)"
)]
pub(crate) fn sha256_many<'py>(
    py: Python<'py>,
    blocks: &Bound<'py, PyAny>,
    max_threads: isize,
    backend: Option<String>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if crate::cuda::is_cuda(backend.as_deref()) {
        args::threads(max_threads)?;
        return crate::cuda::sha256_many(py, blocks, out);
    }
    if out.is_some() {
        return Err(crate::cuda::out_needs_cuda());
    }
    let batch = block_batch(max_threads, backend)?;
    let digests = buffer::with_bytes(blocks, |data| {
        if !data.len().is_multiple_of(BLOCK_LEN) {
            return Err(PyValueError::new_err(format!(
                "blocks must be a whole number of {BLOCK_LEN}-byte blocks (its length a multiple of 64), got {} bytes",
                data.len()
            )));
        }
        let out_len = data.len() / BLOCK_LEN * OUT_LEN;
        crate::buffer::new_bytes(py, out_len, |out| {
            // `out` belongs to a bytes object no other code can see yet, and the export of
            // `blocks` is held until with_bytes returns.
            args::detach_if_long(py, data.len(), || batch.hash_into(data, out)).map_err(args::value_error)
        })
    })??;
    Ok(digests.into_any())
}
