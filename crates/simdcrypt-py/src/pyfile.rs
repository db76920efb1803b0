//! Python file objects and paths as Rust readers: what Bao's `BaoReader` and the chunking
//! functions (`chunks`, `xet_hash`) read when they are given a binary file object (an open
//! file, `io.BytesIO`, an fsspec file) instead of a path or a buffer.

use std::io::{self, Read};

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyString};

use crate::buffer;

/// Whether an argument that may be a path or data is a path: a `str` or an `os.PathLike`
/// (`bytes` is data).
pub(crate) fn is_path(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__").unwrap_or(false)
}

/// Whether `obj` can be read as a binary file object (it has `readinto` or `read`).
pub(crate) fn is_file_object(obj: &Bound<'_, PyAny>) -> bool {
    obj.hasattr("readinto").unwrap_or(false) || obj.hasattr("read").unwrap_or(false)
}

/// Reads a Python binary file object: through `readinto` into one kept `bytearray` where
/// the object has it (no new object per read), else through `read(n)`. An exception raised
/// by the object comes back as an `io::Error` wrapping the `PyErr` ([`py_err_of`] takes it
/// out again); a `read` that returns more than asked for is an error, not a silent loss.
pub(crate) struct PyFileReader {
    file: Py<PyAny>,
    /// The `bytearray` that `readinto` fills; `None` for objects read with `read(n)`.
    scratch: Option<Py<PyByteArray>>,
}

impl PyFileReader {
    /// A reader of `file`, which must have `readinto` or `read` ([`is_file_object`]).
    pub(crate) fn new(file: &Bound<'_, PyAny>) -> Self {
        let scratch = file.hasattr("readinto").unwrap_or(false).then(|| PyByteArray::new(file.py(), &[]).unbind());
        PyFileReader { file: file.clone().unbind(), scratch }
    }
}

/// A file object's read that returned something unusable.
fn bad_read(what: String) -> io::Error {
    io::Error::other(PyErr::new::<pyo3::exceptions::PyTypeError, _>(what))
}

impl Read for PyFileReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        Python::attach(|py| {
            let file = self.file.bind(py);
            let Some(scratch) = &self.scratch else {
                let chunk = file.call_method1("read", (buf.len(),)).map_err(io::Error::other)?;
                if chunk.is_none() {
                    return Err(bad_read(
                        "the file object's read() returned None (a non-blocking file with no data?)".into(),
                    ));
                }
                return buffer::with_bytes(&chunk, |b| {
                    if b.len() > buf.len() {
                        return Err(bad_read(format!(
                            "the file object's read({}) returned {} bytes",
                            buf.len(),
                            b.len()
                        )));
                    }
                    buf[..b.len()].copy_from_slice(b);
                    Ok(b.len())
                })
                .map_err(io::Error::other)?;
            };
            let scratch = scratch.bind(py);
            if scratch.len() != buf.len() {
                scratch.resize(buf.len()).map_err(io::Error::other)?;
            }
            let got = file.call_method1("readinto", (scratch,)).map_err(io::Error::other)?;
            if got.is_none() {
                return Err(bad_read(
                    "the file object's readinto() returned None (a non-blocking file with no data?)".into(),
                ));
            }
            let n: usize = got.extract().map_err(io::Error::other)?;
            if n > buf.len() {
                return Err(bad_read(format!("the file object's readinto() reported {n} bytes into {}", buf.len())));
            }
            buffer::with_bytes(scratch, |b| buf[..n].copy_from_slice(&b[..n])).map_err(io::Error::other)?;
            Ok(n)
        })
    }
}

/// The Python exception inside an `io::Error` from a [`PyFileReader`], if that is what it
/// carries; the error back otherwise.
pub(crate) fn py_err_of(e: io::Error) -> Result<PyErr, io::Error> {
    if !e.get_ref().is_some_and(|inner| inner.is::<PyErr>()) {
        return Err(e);
    }
    let kind = e.kind();
    match e.into_inner().map(|inner| inner.downcast::<PyErr>()) {
        Some(Ok(py_err)) => Ok(*py_err),
        Some(Err(other)) => Err(io::Error::new(kind, other)),
        None => Err(io::Error::from(kind)),
    }
}
