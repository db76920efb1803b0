//! Borrowing the bytes of any object that supports the buffer protocol (bytes, bytearray,
//! memoryview, array.array, mmap, numpy arrays, ...): most of the crate's unsafe code
//! (messages.rs reads exact `bytes` directly).
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
//!
//! # Holding many exports
//!
//! `with_bytes` borrows one object's bytes for the length of a closure. `HeldBuffer`
//! keeps an export open for as long as the caller holds them (batch hashing
//! collects every message first, then hashes them all with the GIL released), and expose
//! the shape for callers that read a 2-D array as rows.

use std::ffi::{c_char, c_int, c_void};
use std::mem::MaybeUninit;
use std::ops::DerefMut;

use pyo3::exceptions::{PyBufferError, PySystemError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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
const PYBUF_WRITABLE: c_int = 0x0001;

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// A buffer export held open; released (with the GIL, which the token proves) on drop.
/// While it is held, the exporter keeps the memory in place: a bytearray refuses to
/// resize, an mmap to close.
///
/// `V` is where the `Py_buffer` lives: a caller's stack slot (`&mut RawBuffer`, no
/// allocation, for one export used within a call) or a `Box` (for exports that are
/// collected and moved around while held). Either way the struct stays at one address from
/// `PyObject_GetBuffer` to `PyBuffer_Release`, as some exporters expect.
struct Export<'py, V: DerefMut<Target = RawBuffer>> {
    view: V,
    _py: Python<'py>,
}

impl<V: DerefMut<Target = RawBuffer>> Drop for Export<'_, V> {
    fn drop(&mut self) {
        // SAFETY: an `Export` only exists for a view filled by a successful PyObject_GetBuffer
        // (see `export`), released exactly once, here; the view has not moved since (`V` is a
        // borrow or a box, which moving the guard does not move), and the `Python` token
        // shows the GIL is held.
        unsafe { PyBuffer_Release(&mut *self.view) }
    }
}

impl<V: DerefMut<Target = RawBuffer>> Export<'_, V> {
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
        let Some(shape) = self.shape() else {
            return false;
        };
        // SAFETY: the exporter filled `strides` (we asked for PyBUF_STRIDES) with `ndim`
        // entries, valid while the export is held; `shape()` checked that ndim > 0.
        let strides = unsafe { std::slice::from_raw_parts(v.strides, shape.len()) };
        let mut expected = v.itemsize;
        for (&dim, &stride) in shape.iter().zip(strides).rev() {
            if dim > 1 && stride != expected {
                return false;
            }
            expected = expected.wrapping_mul(dim);
        }
        true
    }

    /// The exporter's shape: `ndim` extents (empty for a 0-D buffer), or `None` if it gave
    /// none for a buffer of one or more dimensions.
    fn shape(&self) -> Option<&[ffi::Py_ssize_t]> {
        let v = &*self.view;
        if v.ndim <= 0 {
            return Some(&[]);
        }
        if v.shape.is_null() {
            return None;
        }
        // SAFETY: the exporter filled `shape` (we asked for PyBUF_ND) with `ndim` entries,
        // valid while the export is held; the slice borrows `self`, so it cannot outlive it.
        Some(unsafe { std::slice::from_raw_parts(v.shape, v.ndim as usize) })
    }

    /// The exported memory. Only called on exports `export` found C-contiguous.
    fn bytes(&self) -> &[u8] {
        let v = &*self.view;
        if v.len <= 0 || v.buf.is_null() {
            return &[];
        }
        // SAFETY: a successful export of contiguous data (checked by `export`) points `buf`
        // at `len` readable bytes that stay in place until PyBuffer_Release, which happens
        // only when `self` drops; the returned slice borrows `self`, so it cannot outlive it.
        // Python code on another thread may still write to a writable buffer while we hash
        // it with the GIL released; as with hashlib, the digest of memory that changes while
        // it is hashed is unspecified (bytes have no invalid values, and no pointer is
        // derived from the data).
        unsafe { std::slice::from_raw_parts(v.buf.cast::<u8>(), v.len as usize) }
    }
}

/// Why an object's bytes could not be borrowed.
#[derive(Debug)]
pub(crate) enum ExportError {
    /// The object does not support the buffer protocol (`str` included): the TypeError
    /// CPython raised, for callers that want to say which argument it was.
    NotABuffer(PyErr),
    /// The exporter refused for another reason; its own exception.
    Refused(PyErr),
    /// The memory is not one C-contiguous run.
    NotContiguous,
}

impl From<ExportError> for PyErr {
    fn from(err: ExportError) -> PyErr {
        match err {
            ExportError::NotABuffer(e) | ExportError::Refused(e) => e,
            ExportError::NotContiguous => PyBufferError::new_err("buffer is not C-contiguous"),
        }
    }
}

/// Exports `obj`'s buffer into `view`, checking that it is C-contiguous (so `bytes()` is
/// valid on the result).
fn export<'py, V: DerefMut<Target = RawBuffer>>(
    obj: &Bound<'py, PyAny>,
    view: V,
) -> Result<Export<'py, V>, ExportError> {
    export_with_flags(obj, view, PYBUF_STRIDES)
}

/// `export` with the request flags given (PYBUF_STRIDES, plus PYBUF_WRITABLE for outputs).
fn export_with_flags<'py, V: DerefMut<Target = RawBuffer>>(
    obj: &Bound<'py, PyAny>,
    mut view: V,
    flags: c_int,
) -> Result<Export<'py, V>, ExportError> {
    let py = obj.py();
    // SAFETY: `obj` is a live object (a Bound holds a reference) and the GIL is held; `view`
    // is a properly laid out, writable Py_buffer that holds no export (an `Export` owns the
    // only handle to a filled one and releases it on drop). On failure the exporter leaves
    // nothing to release and sets a Python exception.
    let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
    if rc != 0 {
        let err =
            PyErr::take(py).unwrap_or_else(|| PySystemError::new_err("PyObject_GetBuffer failed without an exception"));
        return Err(if err.is_instance_of::<PyTypeError>(py) {
            ExportError::NotABuffer(err)
        } else {
            ExportError::Refused(err)
        });
    }
    let export = Export { view, _py: py };
    if !export.is_c_contiguous() {
        return Err(ExportError::NotContiguous);
    }
    Ok(export)
}

/// Calls `f` with the bytes of `obj`, holding the buffer export (and so pinning the memory)
/// until `f` returns. `f` may release the GIL.
///
/// Errors: `TypeError` for objects without the buffer protocol (`str` included), the
/// exporter's own error if it refuses, `BufferError` for non-contiguous data.
pub(crate) fn with_bytes<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    // On the stack: one-shot hashing of short inputs is dominated by per-call costs.
    let mut view = RawBuffer::empty();
    let export = export(obj, &mut view)?;
    Ok(f(export.bytes()))
}

/// The bytes of `obj` as an array of exactly `N` bytes (keys, nonces, chaining values), or
/// the length it had instead, for the caller's error message. Errors as [`with_bytes`].
pub(crate) fn array<const N: usize>(obj: &Bound<'_, PyAny>) -> PyResult<Result<[u8; N], usize>> {
    with_bytes(obj, |b| <[u8; N]>::try_from(b).map_err(|_| b.len()))
}

/// A C-contiguous buffer export held open until this drops, with its shape: for callers
/// that interpret the dimensions (a 2-D array of messages, one per row).
pub(crate) struct HeldBuffer<'py> {
    export: Export<'py, Box<RawBuffer>>,
}

impl std::fmt::Debug for HeldBuffer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldBuffer")
            .field("len", &self.export.view.len)
            .field("itemsize", &self.export.view.itemsize)
            .field("shape", &self.export.shape())
            .finish()
    }
}

impl<'py> HeldBuffer<'py> {
    /// Exports `obj`'s buffer (any C-contiguous one) and keeps it.
    pub(crate) fn new(obj: &Bound<'py, PyAny>) -> Result<Self, ExportError> {
        Ok(HeldBuffer { export: export(obj, Box::new(RawBuffer::empty()))? })
    }

    /// The number of dimensions (0 for a scalar).
    pub(crate) fn ndim(&self) -> usize {
        self.export.view.ndim.max(0) as usize
    }

    /// The size of one item in bytes (1 for bytes, numpy uint8, array('B'), ...).
    pub(crate) fn itemsize(&self) -> usize {
        self.export.view.itemsize.max(0) as usize
    }

    /// The extent of each dimension (`ndim` of them), or `None` if the exporter gave none.
    pub(crate) fn shape(&self) -> Option<Vec<usize>> {
        self.export.shape().map(|s| s.iter().map(|&d| d.max(0) as usize).collect())
    }

    /// All the exported bytes, in C order.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.export.bytes()
    }
}

/// An input and a writable output of the same length, as `with_in_out` lends them: the
/// same memory (in place) or two buffers that do not overlap.
#[derive(Debug)]
pub(crate) enum InOutBytes<'a> {
    /// `data` and `out` are the same bytes.
    InPlace(&'a mut [u8]),
    /// Separate input and output.
    Separate(&'a [u8], &'a mut [u8]),
}

/// Calls `f` with `data`'s bytes and `out`'s writable bytes, holding both exports until
/// `f` returns (`f` may release the GIL). `out` must export a writable C-contiguous buffer
/// of the same length as `data` (`ValueError` otherwise, `TypeError` for a read-only one,
/// from its exporter); the two may be the same memory, but a partial overlap is a
/// `ValueError` (no slice may alias a mutable one).
pub(crate) fn with_in_out<R>(
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    f: impl FnOnce(InOutBytes<'_>) -> R,
) -> PyResult<R> {
    use pyo3::exceptions::PyValueError;
    let mut out_view = RawBuffer::empty();
    let out_export = export_with_flags(out, &mut out_view, PYBUF_STRIDES | PYBUF_WRITABLE)?;
    let mut in_view = RawBuffer::empty();
    let in_export = export(data, &mut in_view)?;
    let (in_ptr, in_len) = (in_export.view.buf as *const u8, in_export.view.len.max(0) as usize);
    let (out_ptr, out_len) = (out_export.view.buf.cast::<u8>(), out_export.view.len.max(0) as usize);
    if in_len != out_len {
        return Err(PyValueError::new_err(format!(
            "out must be a writable buffer of the same length as data ({in_len} bytes), got {out_len} bytes"
        )));
    }
    if in_len == 0 || in_ptr.is_null() || out_ptr.is_null() {
        return Ok(f(InOutBytes::Separate(&[], &mut [])));
    }
    let (a, b) = (in_ptr as usize, out_ptr as usize);
    if a == b {
        // SAFETY: a writable, C-contiguous export (checked by export_with_flags) of
        // `out_len` bytes at `out_ptr`, held until this function returns; `data` is the same
        // memory, so only this one (mutable) slice is made of it.
        let bytes = unsafe { std::slice::from_raw_parts_mut(out_ptr, out_len) };
        return Ok(f(InOutBytes::InPlace(bytes)));
    }
    if a < b + out_len && b < a + in_len {
        return Err(PyValueError::new_err("data and out overlap without being the same memory"));
    }
    // SAFETY: two held C-contiguous exports of `in_len` bytes each that do not overlap
    // (checked above), the second writable; both stay exported until this function returns.
    let (input, output) =
        unsafe { (std::slice::from_raw_parts(in_ptr, in_len), std::slice::from_raw_parts_mut(out_ptr, out_len)) };
    Ok(f(InOutBytes::Separate(input, output)))
}

/// Outputs of at least this many bytes ask Linux for 2 MiB pages before they are first
/// written (numpy does the same for arrays of 4 MiB and more).
const HUGE_PAGES_MIN: usize = 4 << 20;

/// A new `bytes` object of `len` bytes written by `fill`, which gets them uninitialised
/// and must write every one before it returns `Ok` (an `Err` discards the object unseen).
/// Unlike `PyBytes::new_with` nothing is zeroed first, and on Linux a large object asks
/// for transparent huge pages before it is written: a fresh 100 MB object otherwise costs
/// some 25,000 page faults when first written, which measured longer than encrypting the
/// data (docs/tuning-history.md, "Salsa20/20, Python").
pub(crate) fn new_bytes_uninit<'py>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> PyResult<()>,
) -> PyResult<Bound<'py, PyBytes>> {
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err(format!("cannot allocate {len} bytes")))?;
    // SAFETY: with a NULL source CPython returns a new bytes object of `size` bytes whose
    // contents are uninitialised (or NULL with an exception set, which becomes the error).
    let obj = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), size))? };
    // SAFETY: `obj` is a bytes object (just created); its buffer is `len` bytes plus a NUL.
    let ptr = unsafe { ffi::PyBytes_AsString(obj.as_ptr()) }.cast::<MaybeUninit<u8>>();
    advise_huge_pages(ptr.cast(), len);
    // SAFETY: the `len` bytes at `ptr` belong to `obj`, which no other code has seen yet;
    // the slice ends before `obj` is returned, and `fill` wrote them all if it returns Ok.
    fill(unsafe { std::slice::from_raw_parts_mut(ptr, len) })?;
    // SAFETY: `obj` was created as a bytes object above.
    Ok(unsafe { obj.cast_into_unchecked::<PyBytes>() })
}

/// A new `bytes` object of `len` bytes, zeroed (with the GIL released when large), then
/// filled by `fill`: [`new_bytes_uninit`] for writers that want initialised memory.
pub(crate) fn new_bytes<'py>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<()>,
) -> PyResult<Bound<'py, PyBytes>> {
    new_bytes_uninit(py, len, |out| {
        let zero = RawOut(out.as_mut_ptr().cast(), out.len());
        if out.len() >= crate::args::GIL_RELEASE_MIN {
            py.detach(move || zero.zero());
        } else {
            zero.zero();
        }
        // SAFETY: every byte of `out` was just zeroed.
        fill(unsafe { &mut *(out as *mut [MaybeUninit<u8>] as *mut [u8]) })
    })
}

/// Copies `src` into `out` (same length) and returns `out` as initialised bytes.
pub(crate) fn init_from<'a>(out: &'a mut [MaybeUninit<u8>], src: &[u8]) -> &'a mut [u8] {
    assert_eq!(out.len(), src.len(), "init_from: lengths differ");
    for (o, &b) in out.iter_mut().zip(src) {
        o.write(b);
    }
    // SAFETY: every byte of `out` was just written.
    unsafe { &mut *(out as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

/// The buffer of a bytes object under construction, sent to the thread that zeroes it.
struct RawOut(*mut u8, usize);

// SAFETY: the buffer belongs to a bytes object that only `new_bytes` can reach until it
// returns, and `new_bytes` waits for the zeroing to finish.
unsafe impl Send for RawOut {}

impl RawOut {
    fn zero(self) {
        // SAFETY: `self.0` is `self.1` writable bytes (see `new_bytes`).
        unsafe { std::ptr::write_bytes(self.0, 0, self.1) };
    }
}

/// Advises the kernel to back the whole 2 MiB pages of `len` bytes at `ptr` with huge
/// pages. Advice only: the contents do not change, and the kernel may decline.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    if len < HUGE_PAGES_MIN {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: [start, end) lies within the `len` bytes at `ptr`, which this process
        // owns; MADV_HUGEPAGE changes how pages are backed, never their contents, and a
        // failure (EINVAL where THP is off) is harmless and ignored.
        unsafe { libc::madvise(start as *mut c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _len: usize) {}
