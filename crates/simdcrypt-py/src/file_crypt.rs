//! `simdcrypt.encrypt_file`, `decrypt_file` and `open_encrypted`: files in the format of
//! `simdcrypt encrypt` (docs/file-format.md, version 2 written, versions 1 and 2 read),
//! through the library's `sealed_stream` (whole files, several threads) and
//! `sealed_reader` (random access, streaming writes).
//!
//! Files written here appear whole or not at all, as the CLI's: through
//! `simdcrypt::atomic_file`, an unnamed file (`O_TMPFILE`) in the destination's folder
//! (mode 0600) that gets its name (replacing the destination) only when complete and
//! synced, so not even a killed process leaves a file behind; elsewhere a named temporary
//! file, removed on any error (a KeyboardInterrupt included). A failed decryption leaves
//! no plaintext behind.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

use std::path::Path;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use simdcrypt::atomic_file::AtomicFile;
use simdcrypt::salsa20::sealed_reader::{SealedReader, SealedWriter};
use simdcrypt::salsa20::sealed_stream::{self, Argon2Params, DecryptError, Header, Secret, HEADER_NONCE_LEN, SALT_LEN};
use simdcrypt::salsa20::KEY_LEN;

use crate::secretbox::AuthenticationError;
use crate::{args, buffer, fs_path};

/// The key or passphrase a call was given, owned.
enum OwnedSecret {
    Key([u8; KEY_LEN]),
    Passphrase(Vec<u8>),
}

impl OwnedSecret {
    fn from_args(key: Option<&Bound<'_, PyAny>>, passphrase: Option<&Bound<'_, PyAny>>) -> PyResult<OwnedSecret> {
        match (key, passphrase) {
            (Some(_), Some(_)) => Err(PyValueError::new_err("give a key or a passphrase, not both")),
            (None, None) => Err(PyValueError::new_err("a key (32 bytes) or a passphrase is required")),
            (Some(k), None) => match buffer::array::<KEY_LEN>(k)? {
                Ok(k) => Ok(OwnedSecret::Key(k)),
                Err(got) => Err(PyValueError::new_err(format!("key must be {KEY_LEN} bytes, got {got}"))),
            },
            (None, Some(p)) => {
                let bytes = if let Ok(s) = p.cast::<PyString>() {
                    s.extract::<String>()?.into_bytes()
                } else {
                    buffer::with_bytes(p, |b| b.to_vec())
                        .map_err(|_| PyTypeError::new_err("passphrase must be str or a bytes-like object"))?
                };
                if bytes.is_empty() {
                    return Err(PyValueError::new_err("the passphrase is empty"));
                }
                Ok(OwnedSecret::Passphrase(bytes))
            }
        }
    }

    fn secret(&self) -> Secret<'_> {
        match self {
            OwnedSecret::Key(k) => Secret::Key(k),
            OwnedSecret::Passphrase(p) => Secret::Passphrase(p),
        }
    }
}

/// `argon2=(memory_kib, iterations, parallelism)`, checked against the format's limits.
fn argon2_params(argon2: Option<(u32, u32, u32)>) -> PyResult<Argon2Params> {
    let params = match argon2 {
        None => Argon2Params::DEFAULT,
        Some((memory_kib, iterations, parallelism)) => Argon2Params { memory_kib, iterations, parallelism },
    };
    params.check().map_err(PyValueError::new_err)?;
    Ok(params)
}

/// Bytes from the OS random generator (nonces and salts).
fn random<const N: usize>() -> io::Result<[u8; N]> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| io::Error::other(format!("OS random generator: {e}")))?;
    Ok(b)
}

/// A library error as the Python exception it stands for.
fn decrypt_error(py: Python<'_>, e: DecryptError, filename: &Bound<'_, PyAny>) -> PyErr {
    match e {
        DecryptError::Io(e) => args::io_error(py, e, filename),
        e @ (DecryptError::Authentication { .. }
        | DecryptError::Truncated { .. }
        | DecryptError::Extended { .. }
        | DecryptError::HeaderAuthentication) => AuthenticationError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// An `io::Error` from a `SealedReader` (which carries a `DecryptError`) or the OS.
fn read_error(py: Python<'_>, e: io::Error, filename: &Bound<'_, PyAny>) -> PyErr {
    if e.get_ref().is_some_and(|inner| inner.is::<DecryptError>()) {
        let inner = e.into_inner().expect("checked").downcast::<DecryptError>().expect("checked");
        return decrypt_error(py, *inner, filename);
    }
    args::io_error(py, e, filename)
}

/// Refuses a destination that is the source itself (it would be destroyed).
fn check_distinct(src: &Path, dst: &Path) -> PyResult<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (fs::metadata(src), fs::metadata(dst)) {
            if a.dev() == b.dev() && a.ino() == b.ino() {
                return Err(PyValueError::new_err("src and dst are the same file"));
            }
        }
    }
    let _ = (src, dst);
    Ok(())
}

fn crypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    secret: OwnedSecret,
    max_threads: isize,
    encrypt_with: Option<Argon2Params>,
) -> PyResult<u64> {
    let (src_path, src_name) = fs_path(src)?;
    let (dst_path, dst_name) = fs_path(dst)?;
    let threads = args::threads(max_threads)?;
    check_distinct(&src_path, &dst_path)?;
    let input = File::open(&src_path).map_err(|e| args::io_error(py, e, &src_name))?;
    let mut tmp = AtomicFile::create(&dst_path).map_err(|e| args::io_error(py, e, &dst_name))?;
    let result = py.detach(|| -> Result<u64, (bool, DecryptError)> {
        let mut out = BufWriter::with_capacity(1 << 16, &mut tmp);
        let n = match encrypt_with {
            Some(params) => {
                let nonce = random::<HEADER_NONCE_LEN>().map_err(|e| (false, e.into()))?;
                let salt = random::<SALT_LEN>().map_err(|e| (false, e.into()))?;
                sealed_stream::encrypt_v2(&secret.secret(), &nonce, &salt, params, &input, &mut out, threads)
            }
            None => sealed_stream::decrypt_any(&secret.secret(), &input, &mut out, threads),
        }
        .map_err(|e| (true, e))?;
        out.flush().map_err(|e| (false, DecryptError::Io(e)))?;
        Ok(n)
    });
    match result {
        Ok(n) => {
            py.detach(|| tmp.commit(true)).map_err(|e| args::io_error(py, e, &dst_name))?;
            Ok(n)
        }
        // An input error names the source; an output error the destination.
        Err((true, e)) => Err(decrypt_error(py, e, &src_name)),
        Err((false, e)) => Err(decrypt_error(py, e, &dst_name)),
    }
}

/// encrypt_file(src, dst, *, key=None, passphrase=None, max_threads=1, argon2=None) -> int
///
/// Encrypts the file `src` into `dst` in the format of `simdcrypt encrypt` (version 2),
/// with a 32-byte `key` or a `passphrase` (str or bytes; Argon2id with
/// `argon2=(memory_kib, iterations, parallelism)`, default (65536, 3, 4)). `dst` appears
/// only when complete (and replaces an existing file); returns the plaintext length.
/// `max_threads` (or AUTO, -1) seals chunks in parallel; the bytes are the same.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key=None, passphrase=None, max_threads=1, argon2=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn encrypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    max_threads: isize,
    argon2: Option<(u32, u32, u32)>,
) -> PyResult<u64> {
    let secret = OwnedSecret::from_args(key, passphrase)?;
    let params = argon2_params(argon2)?;
    crypt_file(py, src, dst, secret, max_threads, Some(params))
}

/// decrypt_file(src, dst, *, key=None, passphrase=None, max_threads=1) -> int
///
/// Decrypts `src` (made by `simdcrypt encrypt`, `encrypt_file` or `open_encrypted`, format
/// version 1 or 2) into `dst` and returns the plaintext length. Raises
/// AuthenticationError if anything was modified, truncated, extended or the key or
/// passphrase is wrong, ValueError for a file that is not in the format; `dst` is then
/// neither created nor changed.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key=None, passphrase=None, max_threads=1))]
pub(crate) fn decrypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    max_threads: isize,
) -> PyResult<u64> {
    let secret = OwnedSecret::from_args(key, passphrase)?;
    crypt_file(py, src, dst, secret, max_threads, None)
}

/// A decrypted view of an encrypted file: read, readinto, seek, tell. Each read
/// authenticates the 64 KiB chunks it touches before returning any byte of them.
#[pyclass(module = "simdcrypt._native")]
pub(crate) struct EncryptedReader {
    reader: Option<SealedReader<File>>,
    name: Py<PyAny>,
}

impl EncryptedReader {
    fn get(&mut self) -> PyResult<&mut SealedReader<File>> {
        self.reader.as_mut().ok_or_else(|| PyValueError::new_err("I/O operation on closed file"))
    }
}

#[pymethods]
impl EncryptedReader {
    /// read(size=-1, /) -> bytes: up to `size` bytes (all the rest if negative).
    #[pyo3(signature = (size=-1, /), text_signature = "(self, size=-1, /)")]
    fn read<'py>(&mut self, py: Python<'py>, size: Option<isize>) -> PyResult<Bound<'py, PyBytes>> {
        let name = self.name.bind(py).clone();
        let r = self.get()?;
        let left = r.len().saturating_sub(r.stream_position().unwrap_or(0));
        let want = match size {
            Some(n) if n >= 0 => (n as u64).min(left),
            _ => left,
        };
        let want = usize::try_from(want).map_err(|_| PyValueError::new_err("read size too large"))?;
        let mut out = vec![0u8; want];
        let got = py.detach(|| read_fully(r, &mut out)).map_err(|e| read_error(py, e, &name))?;
        Ok(PyBytes::new(py, &out[..got]))
    }

    /// read1(size=-1, /) -> bytes: as read.
    #[pyo3(signature = (size=-1, /), text_signature = "(self, size=-1, /)")]
    fn read1<'py>(&mut self, py: Python<'py>, size: Option<isize>) -> PyResult<Bound<'py, PyBytes>> {
        self.read(py, size)
    }

    /// readall() -> bytes: everything from the current position.
    fn readall<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.read(py, None)
    }

    /// readinto(buffer, /) -> int: fills a writable buffer, returns the bytes read.
    #[pyo3(signature = (buffer, /))]
    fn readinto(&mut self, py: Python<'_>, buffer: &Bound<'_, PyAny>) -> PyResult<usize> {
        let name = self.name.bind(py).clone();
        let r = self.get()?;
        // Read into our memory first: the chunk is authenticated before anything reaches
        // the caller's buffer.
        let view = pyo3::types::PyMemoryView::from(buffer)?.call_method1("cast", ("B",))?;
        let len = view.len()?;
        let left = r.len().saturating_sub(r.stream_position().unwrap_or(0));
        let want = (len as u64).min(left) as usize;
        let mut tmp = vec![0u8; want];
        let got = py.detach(|| read_fully(r, &mut tmp)).map_err(|e| read_error(py, e, &name))?;
        view.set_item(pyo3::types::PySlice::new(py, 0, got as isize, 1), PyBytes::new(py, &tmp[..got]))?;
        Ok(got)
    }

    /// seek(offset, whence=0, /) -> int: the new position in the plaintext.
    #[pyo3(signature = (offset, whence=0, /))]
    fn seek(&mut self, offset: i64, whence: i32) -> PyResult<u64> {
        let r = self.get()?;
        let to = match whence {
            0 if offset < 0 => return Err(PyValueError::new_err(format!("negative seek position {offset}"))),
            0 => SeekFrom::Start(offset as u64),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            w => return Err(PyValueError::new_err(format!("whence must be 0, 1 or 2, got {w}"))),
        };
        r.seek(to).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// tell() -> int
    fn tell(&mut self) -> PyResult<u64> {
        Ok(self.get()?.stream_position()?)
    }

    /// The plaintext length (authentic: the final chunk was checked when the file was opened).
    fn __len__(&mut self) -> PyResult<usize> {
        Ok(self.get()?.len() as usize)
    }

    fn readable(&self) -> bool {
        true
    }

    fn writable(&self) -> bool {
        false
    }

    fn seekable(&self) -> bool {
        true
    }

    #[getter]
    fn closed(&self) -> bool {
        self.reader.is_none()
    }

    #[getter]
    fn name(&self, py: Python<'_>) -> Py<PyAny> {
        self.name.clone_ref(py)
    }

    #[getter]
    fn mode(&self) -> &'static str {
        "rb"
    }

    fn close(&mut self) {
        self.reader = None;
    }

    fn flush(&self) {}

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }
}

/// Reads until `buf` is full or the plaintext ends.
fn read_fully(r: &mut SealedReader<File>, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Writes an encrypted file: write, then close (or leave the `with` block) to seal the
/// final chunk and give the file its name. Leaving the block with an exception, or
/// dropping the object unclosed, discards everything written.
#[pyclass(module = "simdcrypt._native")]
pub(crate) struct EncryptedWriter {
    writer: Option<SealedWriter<BufWriter<AtomicFile>>>,
    written: u64,
    name: Py<PyAny>,
}

#[pymethods]
impl EncryptedWriter {
    /// write(data, /) -> int
    #[pyo3(signature = (data, /))]
    fn write(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<usize> {
        let name = self.name.bind(py).clone();
        let w = self.writer.as_mut().ok_or_else(|| PyValueError::new_err("I/O operation on closed file"))?;
        let n = buffer::with_bytes(data, |b| py.detach(|| w.write_all(b).map(|()| b.len())))?
            .map_err(|e| args::io_error(py, e, &name))?;
        self.written += n as u64;
        Ok(n)
    }

    /// tell() -> int: the plaintext bytes written so far.
    fn tell(&self) -> PyResult<u64> {
        if self.writer.is_none() {
            return Err(PyValueError::new_err("I/O operation on closed file"));
        }
        Ok(self.written)
    }

    /// close(): seals the final chunk, syncs, and names the file.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let name = self.name.bind(py).clone();
        if let Some(w) = self.writer.take() {
            let done = py.detach(|| -> io::Result<()> {
                let file = w.finish()?.into_inner().map_err(|e| e.into_error())?;
                file.commit(true)
            });
            done.map_err(|e| args::io_error(py, e, &name))?;
        }
        Ok(())
    }

    /// Discards what was written: the file is not created.
    fn discard(&mut self) {
        self.writer = None;
    }

    fn flush(&self) {}

    fn readable(&self) -> bool {
        false
    }

    fn writable(&self) -> bool {
        true
    }

    fn seekable(&self) -> bool {
        false
    }

    #[getter]
    fn closed(&self) -> bool {
        self.writer.is_none()
    }

    #[getter]
    fn name(&self, py: Python<'_>) -> Py<PyAny> {
        self.name.clone_ref(py)
    }

    #[getter]
    fn mode(&self) -> &'static str {
        "wb"
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (exc_type, _exc_value, _traceback))]
    fn __exit__(
        &mut self,
        py: Python<'_>,
        exc_type: &Bound<'_, PyAny>,
        _exc_value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        if exc_type.is_none() {
            self.close(py)?;
        } else {
            self.discard();
        }
        Ok(false)
    }
}

/// open_encrypted(path, mode="rb", *, key=None, passphrase=None, argon2=None)
///
/// "rb": an EncryptedReader over the plaintext of an encrypted file (version 1 or 2):
/// seek anywhere; each read authenticates only the chunks it needs, and no byte is
/// returned before its chunk authenticated (AuthenticationError otherwise). The header,
/// and the final chunk (so the length), are checked when the file is opened.
/// "wb": an EncryptedWriter that encrypts what is written (format version 2); the file
/// appears at `path` only on close() (or a `with` block left without an exception).
#[pyfunction]
#[pyo3(signature = (path, mode="rb", *, key=None, passphrase=None, argon2=None))]
pub(crate) fn open_encrypted(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    mode: &str,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    argon2: Option<(u32, u32, u32)>,
) -> PyResult<Py<PyAny>> {
    let (p, name) = fs_path(path)?;
    let secret = OwnedSecret::from_args(key, passphrase)?;
    match mode {
        "rb" | "r" => {
            if argon2.is_some() {
                return Err(PyValueError::new_err("argon2= applies to mode \"wb\" (a file records its own)"));
            }
            let file = File::open(&p).map_err(|e| args::io_error(py, e, &name))?;
            let reader =
                py.detach(|| SealedReader::open(file, &secret.secret())).map_err(|e| decrypt_error(py, e, &name))?;
            Ok(Py::new(py, EncryptedReader { reader: Some(reader), name: name.unbind() })?.into_any())
        }
        "wb" | "w" => {
            let params = argon2_params(argon2)?;
            let file = AtomicFile::create(&p).map_err(|e| args::io_error(py, e, &name))?;
            let nonce = random::<HEADER_NONCE_LEN>().map_err(|e| args::io_error(py, e, &name))?;
            let salt = random::<SALT_LEN>().map_err(|e| args::io_error(py, e, &name))?;
            let (header, fkey) = py
                .detach(|| Header::new_v2(&secret.secret(), &nonce, &salt, params))
                .map_err(|e| decrypt_error(py, e, &name))?;
            let writer = SealedWriter::new(&header, fkey, BufWriter::with_capacity(1 << 17, file))
                .map_err(|e| args::io_error(py, e, &name))?;
            Ok(Py::new(py, EncryptedWriter { writer: Some(writer), written: 0, name: name.unbind() })?.into_any())
        }
        other => Err(PyValueError::new_err(format!("mode must be \"rb\" or \"wb\", got {other:?}"))),
    }
}

/// Adds the functions and classes of this file to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(open_encrypted, m)?)?;
    m.add_class::<EncryptedReader>()?;
    m.add_class::<EncryptedWriter>()?;
    Ok(())
}
