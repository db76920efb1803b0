//! Bao verified streaming (`simdcrypt::blake3::bao`): `bao_encode`, `bao_decode`,
//! `bao_slice`, `bao_decode_slice`, `bao_scrub` and the file-like `BaoReader`. Data and
//! encodings are buffers, or file paths (str / os.PathLike) where they may be large; the
//! work runs without the GIL. A failed verification (a corrupt node, truncation, trailing
//! bytes) raises `AuthenticationError` (the secretbox one) naming the content offset.
//!
//! Paths are streamed (docs/memory.md): encoding reads a window at a time (the result is
//! still the whole encoding as bytes, unless `output=` names a file to write it to),
//! slicing reads only the slice's nodes, scrubbing reads the data once a window at a time.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::atomic_file::AtomicFile;
use simdcrypt::blake3::bao::{self, Decoder, Format, Options};

use crate::args;
use crate::buffer;
use crate::secretbox::AuthenticationError;

use crate::pyfile::{is_path, PyFileReader};

fn to_py(py: Python<'_>, err: bao::Error, filename: Option<&Bound<'_, PyAny>>) -> PyErr {
    match err {
        bao::Error::Io(e) => match filename {
            Some(f) => args::io_error(py, e, f),
            None => PyErr::from(e),
        },
        bao::Error::Output(e) => PyErr::from(e),
        bao::Error::InvalidArgument(msg) => PyValueError::new_err(msg),
        other => AuthenticationError::new_err(other.to_string()),
    }
}

fn options(chunk_group_log: u8, max_threads: isize) -> PyResult<Options> {
    let format = Format::chunk_groups(chunk_group_log).map_err(args::value_error)?;
    Ok(Options::new().format(format).threads(args::threads(max_threads)?))
}

fn root_hash(root: &Bound<'_, PyAny>) -> PyResult<bao::Hash> {
    buffer::array::<32>(root)?
        .map_err(|got| PyValueError::new_err(format!("root must be 32 bytes (a BLAKE3 hash), got {got}")))
}

fn u64_arg(what: &str, value: args::BigIndex) -> PyResult<u64> {
    u64::try_from(value.0).map_err(|_| PyValueError::new_err(format!("{what} must be in 0..2**64, got {}", value.0)))
}

/// Calls `f` with the bytes of `obj`: a buffer as it is, a path read into memory (without
/// the GIL). `f` runs without the GIL.
fn with_data<R: Send>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> Result<R, bao::Error> + Send) -> PyResult<R> {
    let py = obj.py();
    if is_path(obj) {
        let (path, fspath) = crate::fs_path(obj)?;
        let bytes = py.detach(|| std::fs::read(&path)).map_err(|e| args::io_error(py, e, &fspath))?;
        return py.detach(|| f(&bytes)).map_err(|e| to_py(py, e, Some(&fspath)));
    }
    buffer::with_bytes(obj, |b| py.detach(|| f(b)))?.map_err(|e| to_py(py, e, None))
}

/// Calls `f` (without the GIL) with a seekable view of `obj`: a path's file, or a
/// buffer's bytes in place.
fn with_seekable<R: Send>(
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(&mut dyn SeekRead) -> Result<R, bao::Error> + Send,
) -> PyResult<R> {
    let py = obj.py();
    if is_path(obj) {
        let (reader, fspath) = open_path(obj)?;
        let mut file = reader.into_inner();
        return py.detach(|| f(&mut file)).map_err(|e| to_py(py, e, Some(&fspath)));
    }
    buffer::with_bytes(obj, |b| py.detach(|| f(&mut io::Cursor::new(b))))?.map_err(|e| to_py(py, e, None))
}

/// The content length of a combined encoding in a file, if its header agrees with the
/// file's size (otherwise the decoder names what is wrong).
fn combined_content_len(file: &File, format: Format) -> Option<u64> {
    use std::io::{Seek, SeekFrom};
    let size = file.metadata().ok().filter(|m| m.is_file())?.len();
    let mut header = [0u8; 8];
    // Read through the shared file position, which is then put back to the start for
    // the decoder (it has read nothing yet).
    let mut f = file;
    let read = f.read_exact(&mut header);
    f.seek(SeekFrom::Start(0)).ok()?;
    read.ok()?;
    let len = u64::from_le_bytes(header);
    (format.encoded_len(len) == Some(size)).then_some(len)
}

/// Decodes into a new `bytes` object: of `len` bytes, written in place, when the length
/// is known and can be allocated (the content is the result, so it is held once);
/// otherwise gathered in a `Vec` first.
fn decode_to_bytes<'py, R: Read + Send, O: Read + Send>(
    py: Python<'py>,
    mut decoder: Decoder<R, O>,
    len: Option<u64>,
    fspath: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let known = len.filter(|&n| n <= args::max_output_bytes()).and_then(|n| usize::try_from(n).ok());
    if let Some(n) = known {
        return buffer::new_bytes(py, n, |out| {
            py.detach(|| decoder.copy_to(&mut io::Cursor::new(out))).map(drop).map_err(|e| to_py(py, e, Some(fspath)))
        });
    }
    let out = py
        .detach(|| {
            let mut out = Vec::new();
            decoder.copy_to(&mut out).map(|_| out)
        })
        .map_err(|e| to_py(py, e, Some(fspath)))?;
    Ok(PyBytes::new(py, &out))
}

/// What [`with_seekable`] hands out.
trait SeekRead: Read + io::Seek + Send {}
impl<T: Read + io::Seek + Send> SeekRead for T {}

/// A reader of a path, a file object or a buffer (as [`reader`]).
fn reader_of(obj: &Bound<'_, PyAny>) -> PyResult<Reader> {
    reader(obj)
}

/// Opens a path argument for streaming.
fn open_path<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(BufReader<File>, Bound<'py, PyAny>)> {
    let py = obj.py();
    let (path, fspath): (PathBuf, _) = crate::fs_path(obj)?;
    let file = File::open(&path).map_err(|e| args::io_error(py, e, &fspath))?;
    Ok((BufReader::with_capacity(1 << 20, file), fspath))
}

/// bao_encode(data, *, outboard=False, chunk_group_log=0, max_threads=1, output=None)
/// -> (root, encoding)
///
/// The `bao` crate's combined encoding (8-byte little-endian length, then the tree's
/// nodes in pre-order, chunks in place), or with outboard=True the tree alone. root is
/// the BLAKE3 hash of data. data: a buffer or a file path (read a window at a time).
/// chunk_group_log=k makes the leaves 2**k chunks (a separate format, docs/bao.md).
/// output: a file path to write the encoding to instead (it appears whole or not at all,
/// replacing an existing file); then (root, None) is returned, and memory does not grow
/// with the data.
#[pyfunction]
#[pyo3(
    signature = (data, /, *, outboard=false, chunk_group_log=0, max_threads=1, output=None),
    text_signature = "(data, /, *, outboard=False, chunk_group_log=0, max_threads=1, output=None)"
)]
pub(crate) fn bao_encode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    outboard: bool,
    chunk_group_log: u8,
    max_threads: isize,
    output: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>)> {
    let options = options(chunk_group_log, max_threads)?;
    if let Some(output) = output {
        let (out_path, out_name) = crate::fs_path(output)?;
        let mut file = AtomicFile::create(&out_path).map_err(|e| args::io_error(py, e, &out_name))?;
        let result = if is_path(data) {
            let (path, fspath) = crate::fs_path(data)?;
            let input = File::open(&path).map_err(|e| args::io_error(py, e, &fspath))?;
            py.detach(|| options.encode_file(input, file.write_behind(), !outboard))
                .map_err(|e| encode_error(py, e, &fspath, &out_name))?
        } else {
            buffer::with_bytes(data, |bytes| {
                let (len, input) = (bytes.len() as u64, io::Cursor::new(bytes.to_vec()));
                py.detach(|| options.encode_stream(input, Some(len), file.write_behind(), !outboard))
            })?
            .map_err(|e| encode_error(py, e, &out_name, &out_name))?
        };
        py.detach(|| file.commit(true)).map_err(|e| args::io_error(py, e, &out_name))?;
        return Ok((PyBytes::new(py, &result.0), None));
    }
    let encode = |bytes: &[u8]| -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let len = bytes.len() as u64;
        let out_len =
            if outboard { Some(options.get_format().outboard_len(len)) } else { options.get_format().encoded_len(len) };
        let out_len = out_len
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| pyo3::exceptions::PyMemoryError::new_err("the encoding is too large"))?;
        let mut root = [0u8; 32];
        let encoded = buffer::new_bytes(py, out_len, |out| {
            root = py.detach(|| options.encode_into(bytes, out, !outboard));
            Ok(())
        })?;
        Ok((PyBytes::new(py, &root), encoded))
    };
    if is_path(data) {
        // Streamed from the file; the encoding is the result, so it is held (once: the
        // Vec's bytes are copied into the bytes object and freed).
        let (path, fspath) = crate::fs_path(data)?;
        let input = File::open(&path).map_err(|e| args::io_error(py, e, &fspath))?;
        let len = input.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        let format = options.get_format();
        let out_len = len.and_then(|n| if outboard { Some(format.outboard_len(n)) } else { format.encoded_len(n) });
        if let Some(out_len) = out_len.and_then(|n| usize::try_from(n).ok()) {
            // The length is known: the encoding is written straight into the result.
            let mut root = [0u8; 32];
            let encoded = buffer::new_bytes(py, out_len, |out| {
                let (r, _) = py
                    .detach(|| options.encode_file(input, io::Cursor::new(out), !outboard))
                    .map_err(|e| encode_error(py, e, &fspath, &fspath))?;
                root = r;
                Ok(())
            })?;
            return Ok((PyBytes::new(py, &root), Some(encoded)));
        }
        let mut out = io::Cursor::new(Vec::new());
        let (root, _) = py
            .detach(|| options.encode_stream(input, len, &mut out, !outboard))
            .map_err(|e| encode_error(py, e, &fspath, &fspath))?;
        return Ok((PyBytes::new(py, &root), Some(PyBytes::new(py, out.get_ref()))));
    }
    let (root, encoded) = buffer::with_bytes(data, encode)??;
    Ok((root, Some(encoded)))
}

/// An error of a streamed encoding: reading names the input, writing the output.
fn encode_error(py: Python<'_>, e: bao::Error, input: &Bound<'_, PyAny>, output: &Bound<'_, PyAny>) -> PyErr {
    match e {
        bao::Error::Io(e) => args::io_error(py, e, input),
        bao::Error::Output(e) => args::io_error(py, e, output),
        bao::Error::LengthChanged { .. } => PyValueError::new_err(e.to_string()),
        other => to_py(py, other, Some(input)),
    }
}

/// bao_decode(root, encoded, *, outboard=None, chunk_group_log=0, max_threads=1) -> bytes
///
/// Verifies a combined encoding against root and returns the content; with outboard (the
/// outboard encoding), `encoded` is the data itself, verified and returned. Each may be a
/// buffer or a file path (a path is streamed). Raises AuthenticationError, naming the
/// content offset, at the first node that does not verify, or if an input is truncated or
/// goes on past the encoding's end.
#[pyfunction]
#[pyo3(
    signature = (root, encoded, /, *, outboard=None, chunk_group_log=0, max_threads=1),
    text_signature = "(root, encoded, /, *, outboard=None, chunk_group_log=0, max_threads=1)"
)]
pub(crate) fn bao_decode<'py>(
    py: Python<'py>,
    root: &Bound<'py, PyAny>,
    encoded: &Bound<'py, PyAny>,
    outboard: Option<&Bound<'py, PyAny>>,
    chunk_group_log: u8,
    max_threads: isize,
) -> PyResult<Bound<'py, PyBytes>> {
    let root = root_hash(root)?;
    let options = options(chunk_group_log, max_threads)?;
    match outboard {
        None if is_path(encoded) => {
            let (reader, fspath) = open_path(encoded)?;
            // The content's length, where the header agrees with the file's size.
            let len = combined_content_len(reader.get_ref(), options.get_format());
            decode_to_bytes(py, Decoder::new(reader, root).with_options(options), len, &fspath)
        }
        None => {
            let out = with_data(encoded, |b| options.decode(&root, b))?;
            Ok(PyBytes::new(py, &out))
        }
        Some(ob) => {
            if is_path(encoded) {
                let (reader, fspath) = open_path(encoded)?;
                let len = reader.get_ref().metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
                let ob_reader = reader_of(ob)?;
                let decoder = Decoder::new_outboard(Box::new(reader) as Reader, ob_reader, root).with_options(options);
                return decode_to_bytes(py, decoder, len, &fspath);
            }
            let ob_bytes = with_data(ob, |b| Ok(b.to_vec()))?;
            buffer::with_bytes(encoded, |data| {
                py.detach(|| options.decode_outboard(&root, data, &ob_bytes)).map_err(|e| to_py(py, e, None))?;
                Ok(PyBytes::new(py, data))
            })?
        }
    }
}

/// bao_slice(encoded, start, count, *, outboard=None, chunk_group_log=0) -> bytes
///
/// The slice of content bytes start..start+count with its proof (the `bao` crate's slice
/// format), from a combined encoding, or with outboard from the data (`encoded`) and its
/// outboard encoding. Nothing is verified here; bao_decode_slice does that.
#[pyfunction]
#[pyo3(
    signature = (encoded, start, count, /, *, outboard=None, chunk_group_log=0),
    text_signature = "(encoded, start, count, /, *, outboard=None, chunk_group_log=0)"
)]
pub(crate) fn bao_slice<'py>(
    py: Python<'py>,
    encoded: &Bound<'py, PyAny>,
    start: args::BigIndex,
    count: args::BigIndex,
    outboard: Option<&Bound<'py, PyAny>>,
    chunk_group_log: u8,
) -> PyResult<Bound<'py, PyBytes>> {
    let (start, count) = (u64_arg("start", start)?, u64_arg("count", count)?);
    let options = options(chunk_group_log, 1)?;
    // Paths are read at the slice's nodes only; buffers are sliced in place.
    let slice = match outboard {
        None => with_seekable(encoded, |e| {
            let mut out = Vec::new();
            options.slice_stream(e, start, count, &mut out).map(|_| out)
        })?,
        Some(ob) => {
            let file = if is_path(ob) { Some(open_path(ob)?) } else { None };
            match file {
                Some((ob_file, _)) => with_seekable(encoded, |data| {
                    let mut out = Vec::new();
                    options.slice_outboard_stream(data, ob_file.into_inner(), start, count, &mut out).map(|_| out)
                })?,
                None => {
                    let ob_bytes = with_data(ob, |b| Ok(b.to_vec()))?;
                    with_seekable(encoded, |data| {
                        let mut out = Vec::new();
                        options
                            .slice_outboard_stream(data, io::Cursor::new(&ob_bytes), start, count, &mut out)
                            .map(|_| out)
                    })?
                }
            }
        }
    };
    Ok(PyBytes::new(py, &slice))
}

/// bao_decode_slice(root, slice, start, count, *, chunk_group_log=0) -> bytes
///
/// Verifies a slice made by bao_slice (or the `bao` crate) with the same start and count
/// against root, and returns content bytes start..start+count (those before the end of
/// the content). Raises AuthenticationError at the first node that does not verify.
#[pyfunction]
#[pyo3(
    signature = (root, slice, start, count, /, *, chunk_group_log=0),
    text_signature = "(root, slice, start, count, /, *, chunk_group_log=0)"
)]
pub(crate) fn bao_decode_slice<'py>(
    py: Python<'py>,
    root: &Bound<'py, PyAny>,
    slice: &Bound<'py, PyAny>,
    start: args::BigIndex,
    count: args::BigIndex,
    chunk_group_log: u8,
) -> PyResult<Bound<'py, PyBytes>> {
    let root = root_hash(root)?;
    let (start, count) = (u64_arg("start", start)?, u64_arg("count", count)?);
    let options = options(chunk_group_log, 1)?;
    let out = with_data(slice, |b| options.decode_slice(&root, b, start, count))?;
    Ok(PyBytes::new(py, &out))
}

/// What bao_scrub found: `damaged` and `outboard_damaged` are lists of (start, end) byte
/// ranges (of the data, and of the outboard file); `ok` is true when both are empty.
#[pyclass(frozen, module = "simdcrypt")]
pub(crate) struct BaoScrubReport {
    /// The content length the outboard's header gives.
    #[pyo3(get)]
    length: u64,
    /// The length of the data that was checked.
    #[pyo3(get)]
    data_length: u64,
    /// Damaged content ranges (start, end), merged, in order.
    #[pyo3(get)]
    damaged: Vec<(u64, u64)>,
    /// Damaged ranges of the outboard file.
    #[pyo3(get)]
    outboard_damaged: Vec<(u64, u64)>,
}

#[pymethods]
impl BaoScrubReport {
    /// True when nothing is damaged.
    #[getter]
    fn ok(&self) -> bool {
        self.damaged.is_empty() && self.outboard_damaged.is_empty()
    }

    fn __repr__(&self) -> String {
        format!(
            "BaoScrubReport(length={}, data_length={}, damaged={:?}, outboard_damaged={:?})",
            self.length, self.data_length, self.damaged, self.outboard_damaged
        )
    }
}

/// bao_scrub(root, data, outboard, *, chunk_group_log=0, max_threads=1) -> BaoScrubReport
///
/// Checks all of data (a buffer or a file path) against root with its outboard encoding
/// and reports every damaged byte range, at leaf granularity, instead of stopping at the
/// first; damage in the outboard alone is reported apart.
#[pyfunction]
#[pyo3(
    signature = (root, data, outboard, /, *, chunk_group_log=0, max_threads=1),
    text_signature = "(root, data, outboard, /, *, chunk_group_log=0, max_threads=1)"
)]
pub(crate) fn bao_scrub(
    root: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    outboard: &Bound<'_, PyAny>,
    chunk_group_log: u8,
    max_threads: isize,
) -> PyResult<BaoScrubReport> {
    let root = root_hash(root)?;
    let options = options(chunk_group_log, max_threads)?;
    let py = data.py();
    let report = if is_path(data) {
        // The data is read once, a window at a time; the outboard at the parents needed.
        let (path, fspath) = crate::fs_path(data)?;
        let file = File::open(&path).map_err(|e| args::io_error(py, e, &fspath))?;
        if is_path(outboard) {
            let (ob, ob_name) = open_path(outboard)?;
            py.detach(|| options.scrub_stream(&root, file, ob.into_inner())).map_err(|e| match e {
                bao::Error::Io(e) => args::io_error(py, e, &fspath),
                e => to_py(py, e, Some(&ob_name)),
            })?
        } else {
            let ob_bytes = with_data(outboard, |b| Ok(b.to_vec()))?;
            py.detach(|| options.scrub_stream(&root, file, io::Cursor::new(&ob_bytes)))
                .map_err(|e| to_py(py, e, Some(&fspath)))?
        }
    } else {
        let ob_bytes = with_data(outboard, |b| Ok(b.to_vec()))?;
        with_data(data, |d| options.scrub(&root, d, &ob_bytes))?
    };
    let ranges = |v: &[std::ops::Range<u64>]| v.iter().map(|r| (r.start, r.end)).collect();
    Ok(BaoScrubReport {
        length: report.len,
        data_length: report.data_len,
        damaged: ranges(&report.damaged),
        outboard_damaged: ranges(&report.outboard_damaged),
    })
}

type Reader = Box<dyn Read + Send>;

fn reader(obj: &Bound<'_, PyAny>) -> PyResult<Reader> {
    if is_path(obj) {
        return Ok(Box::new(open_path(obj)?.0));
    }
    if crate::pyfile::is_file_object(obj) {
        return Ok(Box::new(PyFileReader::new(obj)));
    }
    let bytes = buffer::with_bytes(obj, |b| b.to_vec())
        .map_err(|_| PyTypeError::new_err("source must be a file path, a binary file object or a buffer"))?;
    Ok(Box::new(io::Cursor::new(bytes)))
}

/// BaoReader(root, source, *, outboard=None, chunk_group_log=0): a read-only binary file
/// object that decodes a combined encoding (or, with outboard, data and its outboard)
/// as it reads, verifying each piece against root before returning any byte of it.
///
/// source and outboard: a file path, a binary file object (anything with read(n)), or a
/// buffer. read() raises AuthenticationError at the first corruption (and after that,
/// every call fails).
#[pyclass(frozen, module = "simdcrypt")]
pub(crate) struct BaoReader {
    decoder: Mutex<Option<Decoder<Reader, Reader>>>,
}

type DecoderSlot = Option<Decoder<Reader, Reader>>;

impl BaoReader {
    /// Locks the decoder. The mutex is never waited for with the GIL held: its holder may
    /// need the GIL to finish (a Python source's `read()`), so waiting happens detached and
    /// the lock is then retried with the GIL.
    fn lock(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, DecoderSlot>> {
        loop {
            match self.decoder.try_lock() {
                Ok(guard) => return Ok(guard),
                Err(TryLockError::WouldBlock) => py.detach(|| drop(self.decoder.lock())),
                Err(TryLockError::Poisoned(_)) => return Err(PyValueError::new_err("BaoReader is broken")),
            }
        }
    }

    fn with<R>(&self, py: Python<'_>, f: impl FnOnce(&mut Decoder<Reader, Reader>) -> PyResult<R>) -> PyResult<R> {
        let mut guard = self.lock(py)?;
        match guard.as_mut() {
            Some(decoder) => f(decoder),
            None => Err(PyValueError::new_err("I/O operation on closed BaoReader")),
        }
    }
}

fn read_err(py: Python<'_>, e: io::Error) -> PyErr {
    match e.into_inner() {
        Some(inner) => match inner.downcast::<bao::Error>() {
            Ok(bao_err) => to_py(py, *bao_err, None),
            Err(other) => match other.downcast::<PyErr>() {
                Ok(py_err) => *py_err,
                Err(other) => pyo3::exceptions::PyOSError::new_err(other.to_string()),
            },
        },
        None => pyo3::exceptions::PyOSError::new_err("read failed"),
    }
}

#[pymethods]
impl BaoReader {
    #[new]
    #[pyo3(signature = (root, source, /, *, outboard=None, chunk_group_log=0))]
    fn new(
        root: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        outboard: Option<&Bound<'_, PyAny>>,
        chunk_group_log: u8,
    ) -> PyResult<Self> {
        let root = root_hash(root)?;
        let options = options(chunk_group_log, 1)?;
        let input = reader(source)?;
        let decoder = match outboard {
            Some(ob) => Decoder::new_outboard(input, reader(ob)?, root),
            None => Decoder::new(input, root),
        }
        .with_options(options);
        Ok(BaoReader { decoder: Mutex::new(Some(decoder)) })
    }

    /// read(size=-1) -> bytes: up to size verified bytes (all that remain if negative);
    /// b"" at the end.
    #[pyo3(signature = (size=-1, /), text_signature = "(self, size=-1, /)")]
    fn read<'py>(&self, py: Python<'py>, size: isize) -> PyResult<Bound<'py, PyBytes>> {
        self.with(py, |decoder| {
            let mut out = Vec::new();
            let result = if size < 0 {
                decoder.read_to_end(&mut out).map(drop)
            } else {
                out.resize(size as usize, 0);
                let mut got = 0;
                let r = loop {
                    match decoder.read(&mut out[got..]) {
                        Ok(0) => break Ok(()),
                        Ok(n) => {
                            got += n;
                            if got == out.len() {
                                break Ok(());
                            }
                        }
                        Err(e) => break Err(e),
                    }
                };
                out.truncate(got);
                r
            };
            result.map_err(|e| read_err(py, e))?;
            Ok(PyBytes::new(py, &out))
        })
    }

    /// Whether reading is supported: always True.
    fn readable(&self) -> bool {
        true
    }

    /// Drops the decoder and its inputs (files opened from paths are closed).
    fn close(&self, py: Python<'_>) {
        if let Ok(mut guard) = self.lock(py) {
            *guard = None;
        }
    }

    /// True after close().
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        self.lock(py).map(|g| g.is_none()).unwrap_or(true)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(_args.py());
        false
    }
}

/// Adds the Bao functions and classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bao_encode, m)?)?;
    m.add_function(wrap_pyfunction!(bao_decode, m)?)?;
    m.add_function(wrap_pyfunction!(bao_slice, m)?)?;
    m.add_function(wrap_pyfunction!(bao_decode_slice, m)?)?;
    m.add_function(wrap_pyfunction!(bao_scrub, m)?)?;
    m.add_class::<BaoReader>()?;
    m.add_class::<BaoScrubReport>()?;
    Ok(())
}
