//! Argument checks and error conversions shared by the classes and functions, so that
//! every entry point validates the same way and no invalid value reaches the library.

use std::io;

use pyo3::exceptions::{PyMemoryError, PyOSError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::Borrowed;
use simdcrypt::backend::Backend;
use simdcrypt::blake3::{Mode, Threads, KEY_LEN};

use crate::buffer;

/// Inputs at least this long are hashed with the GIL released (hashlib's threshold).
/// Shorter ones finish faster than releasing and re-taking the GIL would.
pub(crate) const GIL_RELEASE_MIN: usize = 2048;

/// Runs `f` with the GIL released when `len` (the bytes it works on) is at least
/// [`GIL_RELEASE_MIN`], with the GIL held otherwise. The caller keeps every buffer `f`
/// reads or writes pinned (a held buffer export, or a bytes object no other code sees yet).
pub(crate) fn detach_if_long<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= GIL_RELEASE_MIN {
        py.detach(f)
    } else {
        f()
    }
}

/// `max_threads=AUTO`.
pub(crate) const AUTO_THREADS: isize = -1;

/// The length of an extendable output stream: BLAKE3 defines 2**64 bytes.
const XOF_STREAM_LEN: i128 = 1 << 64;

/// Library errors are all about arguments: the message says which and why.
pub(crate) fn value_error(err: simdcrypt::Error) -> PyErr {
    PyValueError::new_err(err.to_string())
}

/// `max_threads`: a positive count or AUTO (-1).
pub(crate) fn threads(max_threads: isize) -> PyResult<Threads> {
    match max_threads {
        AUTO_THREADS => Ok(Threads::Auto),
        1 => Ok(Threads::One),
        n if n > 1 => Ok(Threads::Max(n as usize)),
        n => Err(PyValueError::new_err(format!("max_threads must be a positive integer or AUTO (-1), got {n}"))),
    }
}

/// `backend=` of every class and function: a name from
/// `backends()[algorithm]["supported"]` (case-insensitive), or `None` for the best this CPU
/// supports. A bad name is a ValueError with the library's message, which says whether
/// the name is unknown or this CPU cannot run it, and lists the names it can.
pub(crate) fn backend<B: Backend>(name: Option<&str>) -> PyResult<B> {
    match name {
        Some(name) => B::from_name(name).map_err(value_error),
        None => Ok(B::detect()),
    }
}

/// `max_threads=` and `backend=` together, as the batch functions take them (threads
/// checked first).
pub(crate) fn threads_and_backend<B: Backend>(max_threads: isize, backend: Option<&str>) -> PyResult<(Threads, B)> {
    Ok((threads(max_threads)?, self::backend(backend)?))
}

/// The BLAKE3 mode that `key=` and `derive_key_context=` select, owning the key or context
/// that [`Mode`] borrows.
#[derive(Clone, Debug)]
pub(crate) enum ModeArgs {
    Hash,
    Keyed([u8; KEY_LEN]),
    DeriveKey(String),
}

impl ModeArgs {
    /// Checks the two arguments as the library does for `blake3(...)` (same messages): a
    /// key is any buffer of exactly 32 bytes, and the two exclude each other.
    pub(crate) fn new(key: Option<&Bound<'_, PyAny>>, derive_key_context: Option<String>) -> PyResult<Self> {
        // The key's bytes first, so that a key of the wrong type is a TypeError whatever
        // else is wrong, as in the blake3 class.
        let key = key.map(buffer::array::<KEY_LEN>).transpose()?;
        match (key, derive_key_context) {
            (None, None) => Ok(ModeArgs::Hash),
            (Some(_), Some(_)) => Err(PyValueError::new_err("blake3 takes a key or a derive_key_context, not both")),
            (Some(Ok(key)), None) => Ok(ModeArgs::Keyed(key)),
            (Some(Err(got)), None) => {
                Err(value_error(simdcrypt::Error::InvalidLength { what: "blake3 key", expected: KEY_LEN, got }))
            }
            (None, Some(context)) => Ok(ModeArgs::DeriveKey(context)),
        }
    }

    /// The mode, borrowing the key or context.
    pub(crate) fn mode(&self) -> Mode<'_> {
        match self {
            ModeArgs::Hash => Mode::Hash,
            ModeArgs::Keyed(key) => Mode::KeyedHash(key),
            ModeArgs::DeriveKey(context) => Mode::DeriveKey(context),
        }
    }
}

/// An integer argument (anything with `__index__`) clamped to the i128 range: ints too
/// large for it are out of range for every use here anyway, and clamping lets them fail
/// with the same ValueError as other out-of-range values instead of an OverflowError.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BigIndex(pub(crate) i128);

impl<'py> FromPyObject<'_, 'py> for BigIndex {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        // i64 covers nearly every call; its conversion honours __index__ and refuses floats.
        match obj.extract::<i64>() {
            Ok(v) => return Ok(BigIndex(v.into())),
            Err(e) if !e.is_instance_of::<PyOverflowError>(obj.py()) => return Err(e),
            Err(_) => {}
        }
        let index = obj.py().import("operator")?.call_method1("index", (obj,))?;
        match index.extract::<i128>() {
            Ok(v) => Ok(BigIndex(v)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                let negative = index.lt(0)?;
                Ok(BigIndex(if negative { i128::MIN } else { i128::MAX }))
            }
            Err(e) => Err(e),
        }
    }
}

/// The largest output buffer worth trying to allocate: the machine's physical memory (where
/// it can be read), and never more than a Python object can be.
pub(crate) fn max_output_bytes() -> u64 {
    let object_max = isize::MAX as u64;
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system configuration; it takes no pointers.
        let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages > 0 && page > 0 {
            return (pages as u64).saturating_mul(page as u64).min(object_max);
        }
    }
    object_max
}

/// Checks a request for `length` output bytes starting at byte `seek` of a 2**64-byte
/// output stream; returns them as a buffer length and a stream position.
pub(crate) fn output_range(length: BigIndex, seek: BigIndex) -> PyResult<(usize, u64)> {
    let (length, seek) = (length.0, seek.0);
    if length < 0 {
        return Err(PyValueError::new_err("length must be non-negative"));
    }
    if seek < 0 {
        return Err(PyValueError::new_err("seek must be non-negative"));
    }
    // Both are non-negative i128 values, so neither subtraction can overflow.
    if length > XOF_STREAM_LEN || seek > XOF_STREAM_LEN - length {
        return Err(PyValueError::new_err("seek + length must not exceed 2**64, the length of the output stream"));
    }
    // Refused up front with the numbers: CPython's own failure for an allocation this
    // large is a MemoryError with no message at all.
    let limit = max_output_bytes();
    let len = usize::try_from(length).ok().filter(|&n| n as u64 <= limit).ok_or_else(|| {
        PyMemoryError::new_err(format!(
            "cannot make a digest of {length} bytes: one output must fit in this machine's memory, \
             at most {limit} bytes; read a long output in pieces with seek="
        ))
    })?;
    // With length 0, seek may be 2**64 itself; nothing is read then.
    let position = if len == 0 { 0 } else { seek as u64 };
    Ok((len, position))
}

/// An error of `hash_file` on `filename`: an OS error becomes the OSError subclass
/// `open()` would raise for it (FileNotFoundError, IsADirectoryError, PermissionError, ...)
/// with errno, strerror and filename set; an invalid argument becomes ValueError.
pub(crate) fn io_error(py: Python<'_>, err: io::Error, filename: &Bound<'_, PyAny>) -> PyErr {
    #[cfg(unix)]
    if let Some(errno) = err.raw_os_error() {
        let strerror = py
            .import("os")
            .and_then(|os| os.call_method1("strerror", (errno,)))
            .and_then(|s| s.extract::<String>())
            .unwrap_or_else(|_| err.to_string());
        // OSError(errno, ...) constructs the subclass matching errno, as open() does.
        return PyOSError::new_err((errno, strerror, filename.clone().unbind()));
    }
    let _ = (py, filename);
    if err.kind() == io::ErrorKind::InvalidInput {
        return PyValueError::new_err(err.to_string());
    }
    PyErr::from(err)
}
