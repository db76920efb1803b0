//! `simdcrypt.blake3_many` (the library's `blake3::Batch`, SIMD across messages) and
//! [`hash_batch`], the body every `*_many` function shares.
//!
//! The messages are collected first, each one pinned (messages.rs), then hashed in one
//! library call, with the GIL released when there is enough work, straight into the
//! `bytes` object that is returned.

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::blake3::{Batch, Platform};

use crate::args::{self, BigIndex, ModeArgs};
use crate::messages;

/// Hashes many independent messages in one call and returns their digests, concatenated:
/// `len(messages) * length` bytes, digest `i` being
/// `blake3(messages[i], key=key, derive_key_context=derive_key_context).digest(length)`.
///
/// - messages: a sequence (list, tuple, ...) of bytes-like objects (any C-contiguous
///   buffer), or a 2-D C-contiguous buffer of 1-byte items (e.g. a numpy uint8 array),
///   one message per row. Lengths may differ. Iterators and sets are refused: pass a list.
/// - length: the digest length of each message in bytes (any, 0 included).
/// - key, derive_key_context: the mode, as for blake3().
/// - max_threads: how many threads may share the batch (a positive integer or
///   blake3.AUTO).
/// - backend: a kernel set from backends()["blake3"]["supported"], or "cuda" for the GPU
///   (as for streebog_many: host messages or a 2-D uint8 array on the GPU).
/// - out: with backend="cuda" only: a uint8 GPU array of exactly len(messages) * length
///   bytes that receives the digests; it is returned.
///
/// Short messages (up to 1 KiB) are hashed several at a time with SIMD, so a batch is
/// much faster than a loop over blake3(). The GIL is released while hashing when the
/// batch holds 2 KiB or more; every buffer stays pinned until the call returns.
#[pyfunction]
#[pyo3(
    signature = (messages, /, *, length=BigIndex(32), key=None, derive_key_context=None, max_threads=1, backend=None, out=None),
    text_signature = "(messages, /, *, length=32, key=None, derive_key_context=None, max_threads=1, backend=None, out=None)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn blake3_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    length: BigIndex,
    key: Option<&Bound<'py, PyAny>>,
    derive_key_context: Option<String>,
    max_threads: isize,
    backend: Option<String>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (out_len, _) = args::output_range(length, BigIndex(0))?;
    let mode = ModeArgs::new(key, derive_key_context)?;
    if crate::cuda::is_cuda(backend.as_deref()) {
        args::threads(max_threads)?;
        return crate::cuda::many(py, messages, out, crate::cuda::Batch::Blake3(mode.mode(), out_len));
    }
    if out.is_some() {
        return Err(crate::cuda::out_needs_cuda());
    }
    let (threads, platform) = args::threads_and_backend::<Platform>(max_threads, backend.as_deref())?;
    let mut batch = Batch::new(mode.mode());
    batch.set_platform(platform).set_max_threads(threads);
    Ok(hash_batch(py, messages, out_len, |slices, out| batch.hash_into(slices, out_len, out))?.into_any())
}

/// The body of every `*_many` function: pins the messages (any accepted `messages`
/// argument), then runs `hash(messages, out)` into a new `bytes` of `out_len` bytes per
/// message, without the GIL when there is enough work. With no output to write (no
/// messages, or `out_len` 0) every message is still checked.
pub(crate) fn hash_batch<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    out_len: usize,
    hash: impl Fn(&[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> + Send + Sync,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut held = messages::hold(messages)?;
    let count = held.len();
    let total_out = count
        .checked_mul(out_len)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate {count} digests of {out_len} bytes")))?;
    if total_out == 0 {
        return Ok(PyBytes::new(py, b""));
    }
    let slices = held.slices()?;
    let total_in = slices.iter().map(|m| m.len()).fold(0usize, usize::saturating_add);
    // Writing the output is work too: one long digest per message costs as much as input.
    let work = total_in.saturating_add(total_out);
    crate::buffer::new_bytes(py, total_out, |out| {
        // `out` belongs to a bytes object no other code can see yet, and `held` keeps every
        // message pinned until after the hashing.
        args::detach_if_long(py, work, || hash(slices, out)).map_err(args::value_error)
    })
}

/// The BLAKE3 digest of one input in one call: `length` bytes, equal to
/// `blake3(data, key=key, derive_key_context=derive_key_context).digest(length)`.
///
/// - data: any C-contiguous bytes-like object; with backend="cuda" also a C-contiguous
///   uint8 array already on the GPU (CuPy, PyTorch: CUDA Array Interface or DLPack).
/// - length, key, derive_key_context: as for blake3_many.
/// - max_threads: threads for the CPU backends (a positive integer or blake3.AUTO).
/// - backend: a kernel set from backends()["blake3"]["supported"], or "cuda" to hash the
///   input on the GPU (backends()["cuda"]; a ValueError says why when there is none).
///
/// This is the one-shot form of the blake3 class, for inputs large enough to hash on a
/// GPU: the class itself stays a CPU hash object (update, copy, seek).
#[pyfunction]
#[pyo3(
    signature = (data, /, *, length=BigIndex(32), key=None, derive_key_context=None, max_threads=1, backend=None),
    text_signature = "(data, /, *, length=32, key=None, derive_key_context=None, max_threads=1, backend=None)"
)]
pub(crate) fn blake3_digest<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    length: BigIndex,
    key: Option<&Bound<'py, PyAny>>,
    derive_key_context: Option<String>,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (out_len, _) = args::output_range(length, BigIndex(0))?;
    let mode = ModeArgs::new(key, derive_key_context)?;
    if crate::cuda::is_cuda(backend.as_deref()) {
        args::threads(max_threads)?;
        return crate::cuda::blake3_digest(py, data, mode.mode(), out_len);
    }
    let (threads, platform) = args::threads_and_backend::<Platform>(max_threads, backend.as_deref())?;
    let mut batch = Batch::new(mode.mode());
    batch.set_platform(platform).set_max_threads(threads);
    crate::buffer::with_bytes(data, |bytes| {
        crate::buffer::new_bytes(py, out_len, |out| {
            args::detach_if_long(py, bytes.len().saturating_add(out_len), || batch.hash_into(&[bytes], out_len, out))
                .map_err(args::value_error)
        })
    })?
}
