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
/// - backend: a kernel set from backends()["blake3"]["supported"].
///
/// Short messages (up to 1 KiB) are hashed several at a time with SIMD, so a batch is
/// much faster than a loop over blake3(). The GIL is released while hashing when the
/// batch holds 2 KiB or more; every buffer stays pinned until the call returns.
#[pyfunction]
#[pyo3(
    signature = (messages, /, *, length=BigIndex(32), key=None, derive_key_context=None, max_threads=1, backend=None),
    text_signature = "(messages, /, *, length=32, key=None, derive_key_context=None, max_threads=1, backend=None)"
)]
pub(crate) fn blake3_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    length: BigIndex,
    key: Option<&Bound<'py, PyAny>>,
    derive_key_context: Option<String>,
    max_threads: isize,
    backend: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (out_len, _) = args::output_range(length, BigIndex(0))?;
    let mode = ModeArgs::new(key, derive_key_context)?;
    let (threads, platform) = args::threads_and_backend::<Platform>(max_threads, backend.as_deref())?;
    let mut batch = Batch::new(mode.mode());
    batch.set_platform(platform).set_max_threads(threads);
    hash_batch(py, messages, out_len, |slices, out| batch.hash_into(slices, out_len, out))
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
