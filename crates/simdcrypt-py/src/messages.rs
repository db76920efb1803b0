//! The `messages` argument of every `*_many` function, as one slice per message: the one
//! conversion of batch inputs.
//!
//! Accepted: a list or tuple (or other sequence) of bytes-like objects, or a 2-D
//! C-contiguous buffer of 1-byte items, one message per row. Every message is pinned until
//! the [`Messages`] drops, so the hashing can run with the GIL released: exact `bytes`
//! (immutable) by a reference, or, in a tuple, by the tuple itself; anything else by a
//! buffer export.
//!
//! # Cost
//!
//! An exact `bytes` item is read with `PyBytes_AsString`/`PyBytes_Size` (no buffer
//! export, no allocation), so a list of `bytes` costs one reference and one slice per
//! message. The vectors of slices and references are large for large batches (16 and 8
//! bytes per message), and allocating them afresh each call is what made the list path
//! slow and erratic: glibc serves such blocks with `mmap`, or from the heap top that it
//! trims back to the OS when they are freed, depending on the sizes freed before (its
//! dynamic mmap and trim thresholds), so a call could pay a page fault for every 4 KiB of
//! them, or none. Each thread therefore keeps its two vectors between calls (up to
//! [`RETAINED_MESSAGES_MAX`] messages' worth), and a batch's own memory is then only its
//! output. The measurements are in docs/tuning-history.md.

use std::cell::RefCell;
use std::ffi::c_char;

use pyo3::exceptions::{PyBufferError, PyMemoryError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PySequence, PyString, PyTuple};

use crate::buffer::{ExportError, HeldBuffer};

/// The most room reserved up front for the items of a sequence other than a list or a
/// tuple, whose `len()` is not backed by memory already allocated.
const SEQUENCE_CAPACITY_HINT_MAX: usize = 1 << 16;

/// Each thread keeps the vectors of a batch of up to this many messages for the next
/// batch (24 bytes per message: 6 MiB at most); larger ones are freed after the call.
pub(crate) const RETAINED_MESSAGES_MAX: usize = 1 << 18;

/// The vectors a thread keeps between batches, always empty between calls.
#[derive(Default)]
struct Scratch {
    slices: Vec<&'static [u8]>,
    pins: Vec<Bound<'static, PyAny>>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Reuses the allocation of `v`, emptied, for elements of another lifetime. (Collecting an
/// emptied `vec::IntoIter` through `map` into a vector of a same-sized type reuses its
/// memory; were it not to, this would only cost an allocation.)
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().map(|_| unreachable!("the vector was emptied")).collect()
}

/// The messages of one call, pinned until this drops.
pub(crate) struct Messages<'py> {
    // Declared first so that the slices drop before what they borrow.
    slices: Vec<&'py [u8]>,
    /// A 2-D buffer's bytes, rows and columns, until `slices()` splits them.
    rows: Option<(&'py [u8], usize, usize)>,
    /// A reference per item of a list or a non-tuple sequence.
    pins: Vec<Bound<'py, PyAny>>,
    /// The exports of the items that are not exact `bytes`.
    exports: Vec<HeldBuffer<'py>>,
    /// The tuple whose items are the messages, or the 2-D buffer's export.
    _owner: Option<Owner<'py>>,
}

enum Owner<'py> {
    Tuple(#[allow(dead_code)] Bound<'py, PyTuple>),
    Rows(#[allow(dead_code)] HeldBuffer<'py>),
}

impl Drop for Messages<'_> {
    fn drop(&mut self) {
        if self.slices.capacity() > RETAINED_MESSAGES_MAX || self.pins.capacity() > RETAINED_MESSAGES_MAX {
            return;
        }
        let slices = recycle(std::mem::take(&mut self.slices));
        // Clearing drops the references (the GIL is held: `Messages` only lives in calls).
        let pins = recycle(std::mem::take(&mut self.pins));
        // A thread that is exiting has no scratch to return to: then the vectors just drop.
        let _ = SCRATCH.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                if s.slices.capacity() < slices.capacity() {
                    s.slices = slices;
                }
                if s.pins.capacity() < pins.capacity() {
                    s.pins = pins;
                }
            }
        });
    }
}

/// The bytes of an exact `bytes` object as a slice that lives as long as `'py`.
///
/// # Safety
///
/// The caller must keep `bytes` alive (a reference, or a tuple holding it) until the
/// slice is last used.
unsafe fn pinned_bytes<'py>(bytes: &Bound<'py, PyBytes>) -> &'py [u8] {
    let mut ptr: *mut c_char = std::ptr::null_mut();
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `bytes` is a live bytes object (the token shows the GIL is held), for which
    // this cannot fail; both out-pointers are valid.
    let rc = unsafe { ffi::PyBytes_AsStringAndSize(bytes.as_ptr(), &mut ptr, &mut len) };
    debug_assert!(rc == 0 && !ptr.is_null() && len >= 0, "PyBytes_AsStringAndSize failed on a bytes object");
    // SAFETY: a bytes object's `len` bytes at `ptr` never change or move while it is
    // alive (it is immutable), and the caller keeps it alive for as long as the slice.
    unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len as usize) }
}

/// The bytes of a held export as a slice that lives as long as `'py`.
///
/// # Safety
///
/// The caller must keep the export held (not dropped) until the slice is last used.
unsafe fn pinned_export<'py>(held: &HeldBuffer<'py>) -> &'py [u8] {
    let bytes = held.bytes();
    // SAFETY: the exported memory stays in place until the export is released (see
    // `HeldBuffer`), which the caller delays past the last use of the slice; the `Box`
    // holding the export may move, the memory does not.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) }
}

impl<'py> Messages<'py> {
    /// Empty, with the calling thread's kept vectors when it has them.
    fn new(capacity: usize) -> Self {
        let (mut slices, pins) = SCRATCH
            .try_with(|s| {
                s.try_borrow_mut()
                    .map(|mut s| (recycle(std::mem::take(&mut s.slices)), recycle(std::mem::take(&mut s.pins))))
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        slices.reserve(capacity);
        Messages { slices, pins, exports: Vec::new(), _owner: None, rows: None }
    }

    /// The number of messages.
    pub(crate) fn len(&self) -> usize {
        match self.rows {
            Some((_, rows, _)) => rows,
            None => self.slices.len(),
        }
    }

    /// One slice per message, in order. (A 2-D buffer's rows are split here, not before:
    /// a (huge, 0) array holds no memory but would need a huge list of slices, which a
    /// call with nothing to output never asks for.)
    pub(crate) fn slices(&mut self) -> PyResult<&[&[u8]]> {
        if let Some((bytes, rows, cols)) = self.rows.take() {
            self.slices
                .try_reserve_exact(rows)
                .map_err(|_| PyMemoryError::new_err(format!("cannot allocate the list of {rows} messages")))?;
            if cols == 0 {
                self.slices.resize(rows, &[][..]);
            } else {
                self.slices.extend(bytes.chunks_exact(cols));
            }
        }
        Ok(&self.slices)
    }

    /// Adds item `i`'s slice. An exact `bytes` item is read directly, and the caller must
    /// pin it (push it to `pins`, or hold the tuple it is in); anything else is exported,
    /// and the export (kept in `exports`) pins it.
    /// Returns whether it was an exact `bytes` (read without running any Python code).
    fn add(&mut self, i: usize, item: &Bound<'py, PyAny>) -> PyResult<bool> {
        if let Ok(bytes) = item.cast_exact::<PyBytes>() {
            // SAFETY: the caller pins `bytes` until `self` drops, and `slices` drops first.
            self.slices.push(unsafe { pinned_bytes(bytes) });
            return Ok(true);
        }
        let held = HeldBuffer::new(item).map_err(|err| item_error(i, item, err))?;
        // SAFETY: the export is kept in `exports` until `self` drops; `slices` drops first.
        self.slices.push(unsafe { pinned_export(&held) });
        self.exports.push(held);
        Ok(false)
    }
}

/// The name of `obj`'s type, for error messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| "object".to_string(), |n| n.to_string())
}

/// The error for `messages[i]`, which could not be read as bytes.
fn item_error(i: usize, item: &Bound<'_, PyAny>, err: ExportError) -> PyErr {
    match err {
        ExportError::NotABuffer(cause) => {
            let err =
                PyTypeError::new_err(format!("messages[{i}] must be a bytes-like object, not {}", type_name(item)));
            err.set_cause(item.py(), Some(cause));
            err
        }
        ExportError::NotContiguous => PyBufferError::new_err(format!("messages[{i}] is not C-contiguous")),
        ExportError::Refused(err) => err,
    }
}

/// Reads `messages` as a 2-D buffer of 1-byte items, one message per row.
fn rows<'py>(buffer: HeldBuffer<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Messages<'py>> {
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
    let (rows, cols) = (shape[0], shape[1]);
    // SAFETY: the export is kept in `_owner` until the `Messages` drops; its slices first.
    let bytes = unsafe { pinned_export(&buffer) };
    if rows.checked_mul(cols) != Some(bytes.len()) {
        return Err(PyBufferError::new_err(format!(
            "the messages buffer's shape ({rows}, {cols}) does not match its length, {} bytes",
            bytes.len()
        )));
    }
    let mut messages = Messages::new(0);
    messages.rows = Some((bytes, rows, cols));
    messages._owner = Some(Owner::Rows(buffer));
    Ok(messages)
}

/// Pins the messages of any accepted `messages` argument.
pub(crate) fn hold<'py>(messages: &Bound<'py, PyAny>) -> PyResult<Messages<'py>> {
    if let Ok(list) = messages.cast::<PyList>() {
        // A list may change while the GIL is released: each item gets a reference. It may
        // also change during this loop, but only if Python code runs, which reading a
        // `bytes` never does: the length is read again after any other item.
        let mut len = list.len();
        let mut held = Messages::new(len);
        held.pins.reserve(len);
        let mut i = 0;
        while i < len {
            let item = list.get_item(i)?;
            if !held.add(i, &item)? {
                len = list.len();
            }
            held.pins.push(item);
            i += 1;
        }
        return Ok(held);
    }
    if let Ok(tuple) = messages.cast::<PyTuple>() {
        // A tuple cannot change: holding it holds its items.
        let mut held = Messages::new(tuple.len());
        for (i, item) in tuple.iter_borrowed().enumerate() {
            held.add(i, &item)?;
        }
        held._owner = Some(Owner::Tuple(tuple.clone()));
        return Ok(held);
    }
    match HeldBuffer::new(messages) {
        Ok(buffer) => return rows(buffer, messages),
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
            let mut held = Messages::new(capacity);
            held.pins.reserve(capacity);
            for (i, item) in messages.try_iter()?.enumerate() {
                let item = item?;
                held.add(i, &item)?;
                held.pins.push(item);
            }
            return Ok(held);
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
