//! `simdcrypt.blake3_many`: many independent messages hashed in one call, SIMD across
//! messages (the library's `blake3::Batch`).
//!
//! The messages are collected first, each one pinned (a reference for `bytes`, a buffer
//! export otherwise), then hashed in one library call, with the GIL released when there is
//! enough work, straight into the `bytes` object that is returned.

use pyo3::exceptions::{PyBufferError, PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PySequence, PyString, PyTuple};
use simdcrypt::blake3::{Batch, Platform};

use crate::args::{self, BigIndex, ModeArgs, GIL_RELEASE_MIN};
use crate::buffer::{ExportError, HeldBuffer, HeldBuffers};

/// The most room reserved up front for the items of a sequence other than a list or a
/// tuple, whose `len()` is not backed by memory already allocated.
const SEQUENCE_CAPACITY_HINT_MAX: usize = 1 << 16;

/// The messages of one call, pinned until this drops.
pub(crate) enum Messages<'py> {
    /// A sequence of bytes-like objects.
    Items(HeldBuffers<'py>),
    /// A 2-D buffer of 1-byte items: `rows` messages of `cols` bytes each.
    Rows { buffer: HeldBuffer<'py>, rows: usize, cols: usize },
}

impl Messages<'_> {
    /// The number of messages.
    pub(crate) fn len(&self) -> usize {
        match self {
            Messages::Items(held) => held.len(),
            Messages::Rows { rows, .. } => *rows,
        }
    }

    /// One slice per message, in order.
    pub(crate) fn slices(&self) -> PyResult<Vec<&[u8]>> {
        match self {
            Messages::Items(held) => Ok(held.slices()),
            Messages::Rows { buffer, rows, cols } => {
                let bytes = buffer.bytes();
                if rows.checked_mul(*cols) != Some(bytes.len()) {
                    return Err(PyBufferError::new_err(format!(
                        "the messages buffer's shape ({rows}, {cols}) does not match its length, {} bytes",
                        bytes.len()
                    )));
                }
                // A (huge, 0) array holds no memory but would need a huge list of slices.
                let mut slices = Vec::new();
                slices
                    .try_reserve_exact(*rows)
                    .map_err(|_| PyMemoryError::new_err(format!("cannot allocate the list of {rows} messages")))?;
                if *cols == 0 {
                    slices.resize(*rows, &[][..]);
                } else {
                    slices.extend(bytes.chunks_exact(*cols));
                }
                Ok(slices)
            }
        }
    }
}

/// The name of `obj`'s type, for error messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| "object".to_string(), |n| n.to_string())
}

/// Pins the bytes of every item, naming the index of one that is not a C-contiguous buffer.
fn hold_items<'py>(
    items: impl Iterator<Item = PyResult<Bound<'py, PyAny>>>,
    capacity: usize,
) -> PyResult<HeldBuffers<'py>> {
    let mut held = HeldBuffers::with_capacity(capacity);
    for (i, item) in items.enumerate() {
        held.push(item?).map_err(|(item, err)| match err {
            ExportError::NotABuffer(cause) => {
                let py = item.py();
                let err = PyTypeError::new_err(format!(
                    "messages[{i}] must be a bytes-like object, not {}",
                    type_name(&item)
                ));
                err.set_cause(py, Some(cause));
                err
            }
            ExportError::NotContiguous => PyBufferError::new_err(format!("messages[{i}] is not C-contiguous")),
            ExportError::Refused(err) => err,
        })?;
    }
    Ok(held)
}

/// Reads `messages` as a 2-D buffer of 1-byte items, one message per row.
fn hold_rows<'py>(buffer: HeldBuffer<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Messages<'py>> {
    let ndim = buffer.ndim();
    let shape = buffer.shape().unwrap_or_default();
    if ndim != 2 || shape.len() != 2 {
        return Err(PyValueError::new_err(format!(
            "a buffer passed as messages must be 2-D, one message per row; got a {ndim}-D {} \
             (to hash one message, pass [data])",
            type_name(obj)
        )));
    }
    let itemsize = buffer.itemsize();
    if itemsize != 1 {
        return Err(PyTypeError::new_err(format!(
            "a 2-D messages array must have 1-byte items (such as numpy uint8), got {itemsize}-byte items; \
             view it as bytes first (numpy: array.view(numpy.uint8))"
        )));
    }
    Ok(Messages::Rows { buffer, rows: shape[0], cols: shape[1] })
}

/// Pins the messages of any accepted `messages` argument.
pub(crate) fn hold_messages<'py>(messages: &Bound<'py, PyAny>) -> PyResult<Messages<'py>> {
    if let Ok(list) = messages.cast::<PyList>() {
        return Ok(Messages::Items(hold_items(list.iter().map(Ok), list.len())?));
    }
    if let Ok(tuple) = messages.cast::<PyTuple>() {
        return Ok(Messages::Items(hold_items(tuple.iter().map(Ok), tuple.len())?));
    }
    match HeldBuffer::new(messages) {
        Ok(buffer) => return hold_rows(buffer, messages),
        Err(ExportError::NotContiguous) => {
            return Err(PyBufferError::new_err(
                "the messages buffer is not C-contiguous (numpy.ascontiguousarray() makes a contiguous copy)",
            ))
        }
        Err(ExportError::Refused(err)) => return Err(err),
        Err(ExportError::NotABuffer(_)) => {}
    }
    // A str is a sequence of str: say so rather than complain about messages[0].
    if !messages.is_instance_of::<PyString>() {
        if let Ok(sequence) = messages.cast::<PySequence>() {
            // Only a hint: a sequence may claim any length (range(10**12) is one), and the
            // items themselves decide how far this gets.
            let capacity = sequence.len()?.min(SEQUENCE_CAPACITY_HINT_MAX);
            return Ok(Messages::Items(hold_items(messages.try_iter()?, capacity)?));
        }
    }
    let hint = if messages.hasattr("__iter__")? && !messages.is_instance_of::<PyString>() {
        " (digests come in the order of the messages, so an iterator or a set must become a list first: \
         list(messages))"
    } else {
        ""
    };
    Err(PyTypeError::new_err(format!(
        "messages must be a sequence of bytes-like objects or a 2-D buffer of bytes (such as a numpy uint8 \
         array, one message per row), not {}{hint}",
        type_name(messages)
    )))
}

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
    let threads = args::threads(max_threads)?;
    let mut batch = Batch::new(mode.mode());
    batch.set_platform(args::backend::<Platform>(backend.as_deref())?).set_max_threads(threads);
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
    let held = hold_messages(messages)?;
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
        let result = if work >= GIL_RELEASE_MIN { py.detach(|| hash(&slices, out)) } else { hash(&slices, out) };
        result.map_err(args::value_error)
    })
}
