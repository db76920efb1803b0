//! Content-defined chunking (`simdcrypt::chunking`) for Python: the native halves of
//! `simdcrypt.chunks` and `simdcrypt.dask.chunk_file`, and `simdcrypt.xet_hash`.
//!
//! `_chunk_table` chunks a path or a buffer at once and returns the table packed
//! (little-endian u64 offsets, u32 lengths, 32-byte digests, each in one `bytearray`), which
//! python/simdcrypt/_chunking.py turns into numpy arrays without a copy (or lists);
//! `_ChunkIter` streams the chunks of a path or a binary file object, one maximum chunk and a
//! read window in memory whatever the size. The parts functions (`_chunk_part_candidates`,
//! `_chunk_select_cuts`, `_chunk_digests`) are the library's two-phase scheme that lets
//! Dask workers chunk parts of one file and still get the single-process cuts. Every
//! function hashes without holding the GIL (a Python file object's `read` takes it back
//! for the read only).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};
use simdcrypt::chunking::{self, Chunk, ChunkDigest, ChunkOptions, ChunkReader, Chunker};
use simdcrypt::threads::Threads;

use crate::args::{self, BigIndex};
use crate::buffer::{self, ExportError, HeldBuffer};
use crate::pyfile::{self, PyFileReader};

/// The options shared by the chunking functions, as Python passes them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawOptions<'a> {
    chunker: &'a str,
    min_size: Option<BigIndex>,
    avg_size: Option<BigIndex>,
    max_size: Option<BigIndex>,
    level: Option<BigIndex>,
    digest: Option<&'a str>,
    threads: Option<BigIndex>,
    backend: Option<&'a str>,
}

/// A size parameter: `None`, or an integer in `0..2**32`.
fn size_arg(name: &str, value: Option<BigIndex>) -> PyResult<Option<u32>> {
    value
        .map(|v| {
            u32::try_from(v.0)
                .map_err(|_| PyValueError::new_err(format!("{name} must be an integer in 0..2**32 bytes, got {}", v.0)))
        })
        .transpose()
}

/// `threads=`: `None` for every CPU on large inputs (the library's AUTO), or a count >= 1.
pub(crate) fn threads_arg(threads: Option<BigIndex>) -> PyResult<Threads> {
    match threads.map(|t| t.0) {
        None => Ok(Threads::Auto),
        Some(1) => Ok(Threads::One),
        Some(n) if n > 1 => Ok(Threads::Max(usize::try_from(n).unwrap_or(usize::MAX))),
        Some(n) => Err(PyValueError::new_err(format!("threads must be None or an integer >= 1, got {n}"))),
    }
}

/// `backend=`: a Gear-scan kernel from `backends()["gear"]["supported"]`, or None for the
/// best this CPU has (the library's error names the ones it can run).
fn gear_backend(name: Option<&str>) -> PyResult<Option<chunking::Platform>> {
    name.map(|n| args::backend::<chunking::Platform>(Some(n))).transpose()
}

impl RawOptions<'_> {
    /// Checks every option and builds the library's; ValueError names the parameter.
    fn options(&self) -> PyResult<ChunkOptions> {
        let chunker = Chunker::from_name(self.chunker).map_err(args::value_error)?;
        let sizes = [
            ("min_size", size_arg("min_size", self.min_size)?),
            ("avg_size", size_arg("avg_size", self.avg_size)?),
            ("max_size", size_arg("max_size", self.max_size)?),
        ];
        let level = match self.level.map(|l| l.0) {
            None => None,
            Some(l @ 0..=3) => Some(l as u8),
            Some(l) => return Err(PyValueError::new_err(format!("level must be 0, 1, 2 or 3, got {l}"))),
        };
        let chunker = match chunker {
            Chunker::FastCdc2020(_) => {
                // Sizes not given follow avg_size (the library's rule, as the CLI's).
                let [(_, min), (_, avg), (_, max)] = sizes;
                chunking::FastCdcParams::from_sizes(min, avg, max, level)
                    .map(Chunker::FastCdc2020)
                    .map_err(args::value_error)?
            }
            xet => {
                if let Some((name, _)) = sizes.iter().find(|(_, v)| v.is_some()) {
                    return Err(PyValueError::new_err(format!(
                        "{name} applies to chunker='fastcdc2020' only: the Xet chunker's sizes are fixed by the protocol"
                    )));
                }
                if level.is_some() {
                    return Err(PyValueError::new_err(
                        "level applies to chunker='fastcdc2020' only: the Xet chunker has no normalisation level",
                    ));
                }
                xet
            }
        };
        let digest = match self.digest {
            None => ChunkDigest::None,
            Some(name) => ChunkDigest::from_name(name).map_err(args::value_error)?,
        };
        Ok(ChunkOptions {
            threads: threads_arg(self.threads)?,
            platform: gear_backend(self.backend)?,
            ..ChunkOptions::new(chunker, digest)
        })
    }
}

/// Opens `path` for reading, so that a missing or unreadable file (or a folder) is the
/// OSError `open()` would raise, with the file name, before any work starts.
fn check_readable(py: Python<'_>, path: &Path, fspath: &Bound<'_, PyAny>) -> PyResult<File> {
    let file = File::open(path).map_err(|e| args::io_error(py, e, fspath))?;
    let meta = file.metadata().map_err(|e| args::io_error(py, e, fspath))?;
    if meta.is_dir() {
        // Opening a folder for reading succeeds on Linux; reading it would fail later.
        #[cfg(unix)]
        let err = io::Error::from_raw_os_error(libc::EISDIR);
        #[cfg(not(unix))]
        let err = io::Error::other("Is a directory");
        return Err(args::io_error(py, err, fspath));
    }
    Ok(file)
}

/// Packs a chunk table into three `bytearray`s: little-endian u64 offsets, u32 lengths,
/// and the 32-byte digests (`None` without digests).
type Packed<'py> = (Bound<'py, PyByteArray>, Bound<'py, PyByteArray>, Option<Bound<'py, PyByteArray>>);

fn pack<'py>(py: Python<'py>, chunks: &[Chunk], digests: bool) -> PyResult<Packed<'py>> {
    let offsets = PyByteArray::new_with(py, chunks.len() * 8, |out| {
        for (o, c) in out.chunks_exact_mut(8).zip(chunks) {
            o.copy_from_slice(&c.offset.to_le_bytes());
        }
        Ok(())
    })?;
    let lengths = PyByteArray::new_with(py, chunks.len() * 4, |out| {
        for (o, c) in out.chunks_exact_mut(4).zip(chunks) {
            o.copy_from_slice(&c.len.to_le_bytes());
        }
        Ok(())
    })?;
    let digests = digests
        .then(|| {
            PyByteArray::new_with(py, chunks.len() * 32, |out| {
                for (o, c) in out.chunks_exact_mut(32).zip(chunks) {
                    o.copy_from_slice(&c.digest);
                }
                Ok(())
            })
        })
        .transpose()?;
    Ok((offsets, lengths, digests))
}

/// The chunks of a path, a buffer or a binary file object, all at once.
fn chunk_source(source: &Bound<'_, PyAny>, opts: ChunkOptions) -> PyResult<Vec<Chunk>> {
    let py = source.py();
    if pyfile::is_path(source) {
        let (path, fspath) = crate::fs_path(source)?;
        drop(check_readable(py, &path, &fspath)?);
        return py.detach(|| chunking::chunk_file(&path, &opts)).map_err(library_error);
    }
    match HeldBuffer::new(source) {
        Ok(held) => {
            let bytes = held.bytes();
            // The export is held until `held` drops, after the hashing: the memory stays put.
            return py.detach(|| chunking::try_chunk_slice(bytes, &opts)).map_err(library_error);
        }
        Err(ExportError::NotContiguous) => {
            return Err(PyBufferError::new_err(
                "source is not C-contiguous (numpy.ascontiguousarray() makes a contiguous copy)",
            ))
        }
        Err(ExportError::Refused(err)) => return Err(err),
        Err(ExportError::NotABuffer(_)) => {}
    }
    let mut stream = Stream::open(source, opts)?;
    let mut chunks = Vec::new();
    while let Some(c) = stream.next(py)? {
        chunks.push(c);
    }
    Ok(chunks)
}

/// The name of `obj`'s type, for error messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| "object".to_string(), |n| n.to_string())
}

/// A library error of a chunking call: its message, as ValueError, or for an I/O failure
/// (a read error, a file that shrank while read: the message names the path) the OSError
/// subclass of its kind (FileNotFoundError, PermissionError, ...).
fn library_error(err: simdcrypt::Error) -> PyErr {
    match err {
        simdcrypt::Error::Io { kind, message } => PyErr::from(io::Error::new(kind, message)),
        other => args::value_error(other),
    }
}

/// `_chunk_table(source, /, *, chunker, min_size, avg_size, max_size, level, digest,
/// threads) -> (offsets, lengths, digests)`: the chunks of a path or a buffer, packed (see
/// the module doc); `digests` is None with `digest=None`.
#[pyfunction]
#[pyo3(
        signature = (source, /, *, chunker="xet", min_size=None, avg_size=None, max_size=None, level=None, digest=Some("xet"), threads=None, backend=None),
        text_signature = "(source, /, *, chunker='xet', min_size=None, avg_size=None, max_size=None, level=None, digest='xet', threads=None, backend=None)"
    )]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _chunk_table<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    chunker: &str,
    min_size: Option<BigIndex>,
    avg_size: Option<BigIndex>,
    max_size: Option<BigIndex>,
    level: Option<BigIndex>,
    digest: Option<&str>,
    threads: Option<BigIndex>,
    backend: Option<&str>,
) -> PyResult<Packed<'py>> {
    let raw = RawOptions { chunker, min_size, avg_size, max_size, level, digest, threads, backend };
    let opts = raw.options()?;
    let chunks = chunk_source(source, opts)?;
    pack(py, &chunks, digest.is_some())
}

/// A reader that keeps the error it last returned (the library may turn it into its own
/// error type), so that the Python exception or the OS error reaches the caller intact.
struct Keeping<R> {
    inner: R,
    error: Arc<Mutex<Option<io::Error>>>,
}

impl<R: Read> Read for Keeping<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let copy = io::Error::new(e.kind(), e.to_string());
            if let Ok(mut slot) = self.error.lock() {
                *slot = Some(e);
            }
            copy
        })
    }
}

type Source = Keeping<Box<dyn Read + Send>>;

/// A stream of chunks: the library's reader over a file or a Python file object.
struct Stream {
    chunks: ChunkReader<Source>,
    error: Arc<Mutex<Option<io::Error>>>,
    /// The path, for OSError's filename; None for a file object.
    fspath: Option<Py<PyAny>>,
}

impl Stream {
    /// The stream of a path or a binary file object.
    fn open(source: &Bound<'_, PyAny>, opts: ChunkOptions) -> PyResult<Self> {
        let py = source.py();
        let (reader, fspath): (Box<dyn Read + Send>, _) = if pyfile::is_path(source) {
            let (path, fspath): (PathBuf, _) = crate::fs_path(source)?;
            (Box::new(check_readable(py, &path, &fspath)?), Some(fspath.unbind()))
        } else if pyfile::is_file_object(source) {
            (Box::new(PyFileReader::new(source)), None)
        } else {
            return Err(PyTypeError::new_err(format!(
                "source must be a path (str or os.PathLike), a bytes-like object or a binary file object (with readinto or read), not {}",
                type_name(source)
            )));
        };
        let error = Arc::new(Mutex::new(None));
        let chunks = ChunkReader::new(Keeping { inner: reader, error: Arc::clone(&error) }, opts);
        Ok(Stream { chunks, error, fspath })
    }

    /// The next chunk, read and hashed without the GIL.
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<Chunk>> {
        match py.detach(|| self.chunks.next()) {
            None => Ok(None),
            Some(Ok(chunk)) => Ok(Some(chunk)),
            Some(Err(err)) => Err(self.error_of(py, err)),
        }
    }

    /// The exception for a failed read: the file object's own exception, the OS error on
    /// the path, or the library's message.
    fn error_of(&self, py: Python<'_>, err: simdcrypt::Error) -> PyErr {
        let kept = self.error.lock().ok().and_then(|mut slot| slot.take());
        let Some(io) = kept else {
            return library_error(err);
        };
        match pyfile::py_err_of(io) {
            Ok(py_err) => py_err,
            Err(io) => match &self.fspath {
                Some(f) => args::io_error(py, io, f.bind(py)),
                None => PyErr::from(io),
            },
        }
    }
}

/// `_ChunkIter(source, /, *, chunker, min_size, avg_size, max_size, level, digest,
/// threads)`: an iterator of `(offset, length, digest)` over the chunks of a path or a binary
/// file object (digest: 32 bytes, or None with `digest=None`), in order, reading as it goes.
#[pyclass(frozen, module = "simdcrypt._native", name = "_ChunkIter")]
pub(crate) struct ChunkIter {
    stream: Mutex<Option<Stream>>,
    digests: bool,
}

impl ChunkIter {
    /// Locks the stream. Never waited for with the GIL held: the holder may need the GIL
    /// to finish (a Python file object's `read`), so waiting happens detached.
    fn lock(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, Option<Stream>>> {
        loop {
            match self.stream.try_lock() {
                Ok(guard) => return Ok(guard),
                Err(TryLockError::WouldBlock) => py.detach(|| drop(self.stream.lock())),
                Err(TryLockError::Poisoned(_)) => return Err(PyValueError::new_err("the chunk iterator is broken")),
            }
        }
    }
}

#[pymethods]
impl ChunkIter {
    #[new]
    #[pyo3(
        signature = (source, /, *, chunker="xet", min_size=None, avg_size=None, max_size=None, level=None, digest=Some("xet"), threads=None, backend=None),
        text_signature = "(source, /, *, chunker='xet', min_size=None, avg_size=None, max_size=None, level=None, digest='xet', threads=None, backend=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        source: &Bound<'_, PyAny>,
        chunker: &str,
        min_size: Option<BigIndex>,
        avg_size: Option<BigIndex>,
        max_size: Option<BigIndex>,
        level: Option<BigIndex>,
        digest: Option<&str>,
        threads: Option<BigIndex>,
        backend: Option<&str>,
    ) -> PyResult<Self> {
        let raw = RawOptions { chunker, min_size, avg_size, max_size, level, digest, threads, backend };
        let opts = raw.options()?;
        let stream = Stream::open(source, opts)?;
        Ok(ChunkIter { stream: Mutex::new(Some(stream)), digests: digest.is_some() })
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let mut guard = self.lock(py)?;
        let Some(stream) = guard.as_mut() else { return Ok(None) };
        match stream.next(py) {
            Ok(Some(c)) => {
                let digest = self.digests.then(|| PyBytes::new(py, &c.digest));
                Ok(Some((c.offset, c.len, digest).into_pyobject(py)?))
            }
            Ok(None) => {
                // Done: the file is closed (a path's) and every later call ends at once.
                *guard = None;
                Ok(None)
            }
            Err(e) => {
                *guard = None;
                Err(e)
            }
        }
    }
}

/// `xet_hash(source, /, *, threads=None) -> str`: the Xet file hash (the Hugging Face
/// Hub's `xetHash`, what `hf_xet.hash_files` gives) of a path, a buffer or a binary file
/// object, as 64 hex digits. Hashed without the GIL; threads=None uses every CPU on large
/// inputs, an integer at most that many threads; backend= names a Gear-scan kernel
/// (`backends()["gear"]`); the hash never depends on either.
#[pyfunction]
#[pyo3(signature = (source, /, *, threads=None, backend=None))]
pub(crate) fn xet_hash(
    source: &Bound<'_, PyAny>,
    threads: Option<BigIndex>,
    backend: Option<&str>,
) -> PyResult<String> {
    let py = source.py();
    let opts = ChunkOptions {
        threads: threads_arg(threads)?,
        platform: gear_backend(backend)?,
        ..ChunkOptions::new(Chunker::Xet, ChunkDigest::Xet)
    };
    if pyfile::is_path(source) && opts.platform.is_none() {
        let (path, fspath) = crate::fs_path(source)?;
        drop(check_readable(py, &path, &fspath)?);
        let hash = py.detach(|| chunking::xet_hash_file(&path, opts.threads)).map_err(library_error)?;
        return Ok(hash.to_hex());
    }
    Ok(chunking::xet_file_hash(&chunk_source(source, opts)?).to_hex())
}

// --- parts of one file, for simdcrypt.dask.chunk_file ------------------------------------

/// A packed little-endian array argument (`bytes`-like) as `u64`s or `u32`s.
fn unpack<const N: usize>(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<[u8; N]>> {
    buffer::with_bytes(obj, |b| {
        if b.len() % N != 0 {
            return Err(PyValueError::new_err(format!(
                "{name} must be packed {N}-byte little-endian integers, got {} bytes",
                b.len()
            )));
        }
        Ok(b.chunks_exact(N).map(|c| c.try_into().unwrap_or([0; N])).collect())
    })?
}

/// An offset argument: an integer in `0..2**64`.
fn offset_arg(name: &str, v: BigIndex) -> PyResult<u64> {
    u64::try_from(v.0).map_err(|_| PyValueError::new_err(format!("{name} must be in 0..2**64, got {}", v.0)))
}

/// `_chunk_part_candidates(data, /, *, data_offset, start, end, chunker="xet", threads=None)
/// -> bytes`: the candidate cut points of the range `[start, end)` of a file, packed
/// little-endian u64; `data` holds the file's bytes from `data_offset`, covering
/// `[start - min(start, PART_LOOKBACK), end)` (phase 1 of the library's parts scheme).
#[pyfunction]
#[pyo3(signature = (data, /, *, data_offset, start, end, chunker="xet", threads=None))]
pub(crate) fn _chunk_part_candidates<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    data_offset: BigIndex,
    start: BigIndex,
    end: BigIndex,
    chunker: &str,
    threads: Option<BigIndex>,
) -> PyResult<Bound<'py, PyBytes>> {
    let chunker = Chunker::from_name(chunker).map_err(args::value_error)?;
    let (data_offset, start, end) =
        (offset_arg("data_offset", data_offset)?, offset_arg("start", start)?, offset_arg("end", end)?);
    let threads = threads_arg(threads)?;
    let part = buffer::with_bytes(data, |b| {
        py.detach(|| chunking::part_candidates(b, data_offset, start, end, &chunker, threads))
    })?
    .map_err(args::value_error)?;
    let packed: Vec<u8> = part.candidates.iter().flat_map(|c| c.to_le_bytes()).collect();
    Ok(PyBytes::new(py, &packed))
}

/// `_chunk_select_cuts(parts, /, *, chunker="xet") -> (offsets, lengths)`: every chunk of
/// the file from its parts' `(start, end, candidates)` in file order (phase 2), packed as
/// `_chunk_table` packs them.
#[pyfunction]
#[pyo3(signature = (parts, /, *, chunker="xet"))]
pub(crate) fn _chunk_select_cuts<'py>(
    py: Python<'py>,
    parts: Vec<(BigIndex, BigIndex, Bound<'py, PyAny>)>,
    chunker: &str,
) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
    let chunker = Chunker::from_name(chunker).map_err(args::value_error)?;
    let parts = parts
        .iter()
        .map(|(start, end, candidates)| {
            Ok(chunking::PartCandidates {
                start: offset_arg("start", *start)?,
                end: offset_arg("end", *end)?,
                candidates: unpack::<8>("candidates", candidates)?.into_iter().map(u64::from_le_bytes).collect(),
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let spans = py.detach(|| chunking::select_cuts(&chunker, &parts)).map_err(args::value_error)?;
    let chunks: Vec<Chunk> = spans.iter().map(|&(offset, len)| Chunk { offset, len, digest: [0; 32] }).collect();
    let (offsets, lengths, _) = pack(py, &chunks, false)?;
    Ok((offsets, lengths))
}

/// `_chunk_digest_spans(data, /, *, data_offset, offsets, lengths, digest="xet",
/// threads=None) -> bytes`: the 32-byte digests of the chunks (packed offsets and lengths)
/// that lie in `data`, the file's bytes from `data_offset`.
#[pyfunction]
#[pyo3(signature = (data, /, *, data_offset, offsets, lengths, digest="xet", threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _chunk_digest_spans<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    data_offset: BigIndex,
    offsets: &Bound<'py, PyAny>,
    lengths: &Bound<'py, PyAny>,
    digest: &str,
    threads: Option<BigIndex>,
) -> PyResult<Bound<'py, PyBytes>> {
    let digest = ChunkDigest::from_name(digest).map_err(args::value_error)?;
    let data_offset = offset_arg("data_offset", data_offset)?;
    let threads = threads_arg(threads)?;
    let offsets = unpack::<8>("offsets", offsets)?;
    let lengths = unpack::<4>("lengths", lengths)?;
    if offsets.len() != lengths.len() {
        return Err(PyValueError::new_err(format!(
            "offsets and lengths must describe the same chunks: {} offsets, {} lengths",
            offsets.len(),
            lengths.len()
        )));
    }
    let spans: Vec<(u64, u32)> =
        offsets.into_iter().zip(lengths).map(|(o, l)| (u64::from_le_bytes(o), u32::from_le_bytes(l))).collect();
    let chunks =
        buffer::with_bytes(data, |b| py.detach(|| chunking::digest_spans(b, data_offset, &spans, digest, threads)))?
            .map_err(args::value_error)?;
    let packed: Vec<u8> = chunks.iter().flat_map(|c| c.digest).collect();
    Ok(PyBytes::new(py, &packed))
}

/// `_xet_file_hash(lengths, digests) -> str`: the Xet file hash from a file's chunk lengths
/// (packed u32) and Xet chunk digests (32 bytes each), in file order.
#[pyfunction]
#[pyo3(signature = (lengths, digests, /))]
pub(crate) fn _xet_file_hash(lengths: &Bound<'_, PyAny>, digests: &Bound<'_, PyAny>) -> PyResult<String> {
    let lengths = unpack::<4>("lengths", lengths)?;
    let digests = unpack::<32>("digests", digests)?;
    if lengths.len() != digests.len() {
        return Err(PyValueError::new_err(format!(
            "lengths and digests must describe the same chunks: {} lengths, {} digests",
            lengths.len(),
            digests.len()
        )));
    }
    let mut offset = 0u64;
    let chunks: Vec<Chunk> = lengths
        .into_iter()
        .zip(digests)
        .map(|(l, digest)| {
            let len = u32::from_le_bytes(l);
            let c = Chunk { offset, len, digest };
            offset += u64::from(len);
            c
        })
        .collect();
    Ok(chunking::xet_file_hash(&chunks).to_hex())
}

/// Adds the chunking functions and classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_chunk_table, m)?)?;
    m.add_class::<ChunkIter>()?;
    m.add_function(wrap_pyfunction!(xet_hash, m)?)?;
    m.add_function(wrap_pyfunction!(_chunk_part_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(_chunk_select_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(_chunk_digest_spans, m)?)?;
    m.add_function(wrap_pyfunction!(_xet_file_hash, m)?)?;
    m.add("_CHUNK_PART_LOOKBACK", chunking::PART_LOOKBACK)?;
    Ok(())
}
