//! Borrowing the bytes of any object that supports the buffer protocol (bytes, bytearray,
//! memoryview, array.array, mmap, numpy arrays, ...). This is the crate's only unsafe code.
//!
//! # Why the FFI is declared here
//!
//! The extension is built once as an abi3 wheel for CPython 3.9 and newer. The buffer
//! protocol (`Py_buffer`, `PyObject_GetBuffer`, `PyBuffer_Release`) only joined the limited
//! API in 3.11, so neither pyo3-ffi nor PyO3's `PyBuffer` offer it under `abi3-py39`.
//! The struct layout and both functions have not changed since CPython 3.3, and every
//! CPython's shared library exports both symbols, so they are declared below by hand.
//! On Linux and macOS the symbols resolve against the running interpreter at load time.
//! (On Windows an abi3 module links `python3.dll`, which exports them only from 3.11 on;
//! a Windows build for 3.9/3.10 would need another approach.)
//!
//! # Contiguity
//!
//! hashlib asks for `PyBUF_SIMPLE` and lets the exporter refuse non-contiguous data. Some
//! exporters refuse with `ValueError` (numpy: "ndarray is not C-contiguous") rather than
//! `BufferError`, so this module asks for `PyBUF_STRIDES` (shape and strides, no format,
//! read-only is fine) and checks C-contiguity itself, raising `BufferError` uniformly.
//! Any item type is hashed as its raw bytes, as hashlib does.

use std::ffi::{c_char, c_int, c_void};

use pyo3::exceptions::{PyBufferError, PySystemError};
use pyo3::ffi;
use pyo3::prelude::*;

/// CPython's `Py_buffer` (Include/pybuffer.h), unchanged since 3.3.
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

impl RawBuffer {
    const fn empty() -> Self {
        RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        }
    }
}

/// `PyBUF_ND | 0x0010`: shape and strides, no format, read-only accepted.
const PYBUF_STRIDES: c_int = 0x0008 | 0x0010;

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// A buffer export held open; released (with the GIL, which the token proves) on drop.
/// While it is held, the exporter keeps the memory in place: a bytearray refuses to
/// resize, an mmap to close.
struct Export<'a, 'py> {
    view: &'a mut RawBuffer,
    _py: Python<'py>,
}

impl Drop for Export<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: `view` was filled by a successful PyObject_GetBuffer and is released exactly
        // once, here; it has not moved since (it is borrowed for the guard's whole life), and
        // the `Python` token shows the GIL is held.
        unsafe { PyBuffer_Release(self.view) }
    }
}

impl Export<'_, '_> {
    /// Whether the exported memory is one C-ordered run of `len` bytes
    /// (the rule of CPython's `PyBuffer_IsContiguous(view, 'C')`).
    fn is_c_contiguous(&self) -> bool {
        let v = &*self.view;
        if v.len == 0 {
            return true;
        }
        if !v.suboffsets.is_null() {
            return false;
        }
        if v.strides.is_null() || v.ndim <= 0 {
            return true;
        }
        if v.shape.is_null() {
            return false;
        }
        let ndim = v.ndim as usize;
        // SAFETY: the exporter filled `shape` and `strides` (we asked for PyBUF_STRIDES) with
        // `ndim` entries each, valid while the export is held.
        let (shape, strides) =
            unsafe { (std::slice::from_raw_parts(v.shape, ndim), std::slice::from_raw_parts(v.strides, ndim)) };
        let mut expected = v.itemsize;
        for (&dim, &stride) in shape.iter().zip(strides).rev() {
            if dim > 1 && stride != expected {
                return false;
            }
            expected = expected.wrapping_mul(dim);
        }
        true
    }

    fn bytes(&self) -> &[u8] {
        let v = &*self.view;
        if v.len <= 0 || v.buf.is_null() {
            return &[];
        }
        // SAFETY: a successful export of contiguous data (checked by the caller) points `buf`
        // at `len` readable bytes that stay in place until PyBuffer_Release, which happens
        // only when `self` drops; the returned slice borrows `self`, so it cannot outlive it.
        // Python code on another thread may still write to a writable buffer while we hash
        // it with the GIL released; as with hashlib, the digest of memory that changes while
        // it is hashed is unspecified (bytes have no invalid values, and no pointer is
        // derived from the data).
        unsafe { std::slice::from_raw_parts(v.buf.cast::<u8>(), v.len as usize) }
    }
}

/// Calls `f` with the bytes of `obj`, holding the buffer export (and so pinning the memory)
/// until `f` returns. `f` may release the GIL.
///
/// Errors: `TypeError` for objects without the buffer protocol (`str` included), the
/// exporter's own error if it refuses, `BufferError` for non-contiguous data.
pub(crate) fn with_bytes<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    let py = obj.py();
    let mut view = RawBuffer::empty();
    // SAFETY: `obj` is a live object (a Bound holds a reference) and the GIL is held; `view`
    // is a properly laid out, writable Py_buffer. On failure the exporter leaves nothing to
    // release and sets a Python exception.
    let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut view, PYBUF_STRIDES) };
    if rc != 0 {
        return Err(
            PyErr::take(py).unwrap_or_else(|| PySystemError::new_err("PyObject_GetBuffer failed without an exception"))
        );
    }
    let export = Export { view: &mut view, _py: py };
    if !export.is_c_contiguous() {
        return Err(PyBufferError::new_err("buffer is not C-contiguous"));
    }
    Ok(f(export.bytes()))
}
