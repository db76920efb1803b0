//! `simdcrypt.Salsa20` and `simdcrypt.XSalsa20`: stream-cipher objects with a byte
//! position (the library's `salsa20::Salsa20`; an XSalsa20 object is Salsa20 keyed with
//! HSalsa20, so both classes share one implementation, `CipherCore`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::salsa20::{self, Platform, Rounds, Salsa20 as Cipher, STREAM_LEN};

use crate::args::{self, BigIndex};
use crate::buffer::{self, InOutBytes};
use crate::shared_state::SharedState;

/// The state both classes wrap: calls are serialized; long inputs run without the GIL.
#[derive(Debug)]
struct CipherCore {
    state: SharedState<Cipher>,
}

fn copy_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    buffer::with_bytes(obj, |b| b.to_vec())
}

fn check_position(what: &str, value: BigIndex) -> PyResult<u128> {
    if value.0 < 0 {
        let shown = if value.0 == i128::MIN { "a negative number".to_string() } else { value.0.to_string() };
        return Err(PyValueError::new_err(format!("{what} must be non-negative, got {shown}")));
    }
    // BigIndex clamps what does not fit an i128: far past the 2**70-byte stream, so say so
    // rather than echo the clamped number.
    if value.0 == i128::MAX {
        return Err(PyValueError::new_err(format!("{what} is past the end of the keystream (2**70 bytes)")));
    }
    Ok(value.0 as u128)
}

impl CipherCore {
    fn new(
        name: &'static str,
        mut cipher: Cipher,
        counter: BigIndex,
        max_threads: isize,
        backend: Option<&str>,
    ) -> PyResult<Self> {
        let counter = check_position("counter", counter)?;
        if counter > u128::from(u64::MAX) {
            return Err(PyValueError::new_err(format!("counter must be below 2**64, got {counter}")));
        }
        cipher.seek(counter * 64).map_err(args::value_error)?;
        cipher.set_max_threads(args::threads(max_threads)?);
        if backend.is_some() {
            // from_name checks that this CPU can run it, so set_platform cannot panic.
            cipher.set_platform(args::backend::<Platform>(backend)?);
        }
        Ok(CipherCore { state: SharedState::new(name, cipher) })
    }

    fn apply<'py>(&self, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let py = data.py();
        buffer::with_bytes(data, |input| {
            buffer::new_bytes_uninit(py, input.len(), |out| {
                // Every byte of `out` is written when this returns Ok (new_bytes_uninit's rule).
                let run = |c: &mut Cipher| c.xor_keystream_uninit(input, out).map(|_| ()).map_err(args::value_error);
                self.state.locked_for(py, input.len(), run)?
            })
        })?
    }

    fn apply_into(&self, data: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = data.py();
        buffer::with_in_out(data, out, |io| {
            let len = match &io {
                InOutBytes::InPlace(b) => b.len(),
                InOutBytes::Separate(i, _) => i.len(),
            };
            let run = move |c: &mut Cipher| {
                match io {
                    InOutBytes::InPlace(b) => c.xor_keystream(b),
                    InOutBytes::Separate(i, o) => c.xor_keystream_into(i, o),
                }
                .map_err(args::value_error)
            };
            self.state.locked_for(py, len, run)?
        })?
    }

    fn keystream<'py>(&self, py: Python<'py>, n: BigIndex) -> PyResult<Bound<'py, PyBytes>> {
        let n = check_position("n", n)?;
        let pos = self.state.locked(py, |c| c.position())?;
        if n > STREAM_LEN - pos {
            return Err(PyValueError::new_err(format!(
                "{n} keystream bytes at position {pos} would run past the end of the keystream (2**70 bytes)"
            )));
        }
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| pyo3::exceptions::PyMemoryError::new_err(format!("cannot allocate {n} bytes")))?;
        buffer::new_bytes(py, n, |out| {
            // `new_bytes` zeroed `out`, so XOR-ing the keystream in writes the keystream
            // (fill_keystream would zero it a second time).
            let run = |c: &mut Cipher| c.xor_keystream(out).map_err(args::value_error);
            self.state.locked_for(py, n, run)?
        })
    }

    fn seek(&self, py: Python<'_>, position: BigIndex) -> PyResult<()> {
        let position = check_position("position", position)?;
        self.state.locked(py, |c| c.seek(position))?.map_err(args::value_error)
    }
}

macro_rules! cipher_methods {
    ($class:ident, $py:literal) => {
        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(
                        signature = (key, nonce, /, *, rounds=20, counter=BigIndex(0), max_threads=1, backend=None),
                        text_signature = "(key, nonce, /, *, rounds=20, counter=0, max_threads=1, backend=None)"
                    )]
            fn py_new(
                key: &Bound<'_, PyAny>,
                nonce: &Bound<'_, PyAny>,
                rounds: u32,
                counter: BigIndex,
                max_threads: isize,
                backend: Option<String>,
            ) -> PyResult<Self> {
                let rounds = Rounds::from_count(rounds).map_err(args::value_error)?;
                let cipher = Self::cipher(&copy_bytes(key)?, &copy_bytes(nonce)?, rounds)?;
                let core = CipherCore::new($py, cipher, counter, max_threads, backend.as_deref())?;
                Ok($class { core })
            }

            /// Encrypts `data` (any C-contiguous buffer) with the next len(data) keystream
            /// bytes and returns the ciphertext.
            #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
            fn encrypt<'py>(&self, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
                self.core.apply(data)
            }

            /// The same operation as encrypt(), continuing the same keystream.
            #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
            fn decrypt<'py>(&self, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
                self.core.apply(data)
            }

            /// Writes `data` XOR keystream into `out`, a writable buffer of the same
            /// length (`out` may be `data` itself: in place).
            #[pyo3(signature = (data, out, /), text_signature = "($self, data, out, /)")]
            fn encrypt_into(&self, data: &Bound<'_, PyAny>, out: &Bound<'_, PyAny>) -> PyResult<()> {
                self.core.apply_into(data, out)
            }

            /// The next `n` keystream bytes.
            #[pyo3(signature = (n, /), text_signature = "($self, n, /)")]
            fn keystream<'py>(&self, py: Python<'py>, n: BigIndex) -> PyResult<Bound<'py, PyBytes>> {
                self.core.keystream(py, n)
            }

            /// Moves to byte `position` of the keystream (0 to 2**70).
            #[pyo3(signature = (position, /), text_signature = "($self, position, /)")]
            fn seek(&self, py: Python<'_>, position: BigIndex) -> PyResult<()> {
                self.core.seek(py, position)
            }

            /// The byte position in the keystream.
            #[getter]
            fn position(&self, py: Python<'_>) -> PyResult<u128> {
                self.core.state.locked(py, |c| c.position())
            }

            /// The round count (8, 12 or 20).
            #[getter]
            fn rounds(&self, py: Python<'_>) -> PyResult<u32> {
                self.core.state.locked(py, |c| c.rounds().count())
            }

            /// The name of the backend (kernel set) in use, e.g. "avx512".
            #[getter]
            fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
                self.core.state.locked(py, |c| c.platform().name())
            }
        }
    };
}

/// Salsa20 (Salsa20/20, /12 or /8) with a 32- or 16-byte key and an 8-byte nonce.
///
/// Salsa20(key, nonce, /, *, rounds=20, counter=0, max_threads=1, backend=None)
///
/// - counter: the first block counter (the keystream starts at byte 64 * counter).
/// - max_threads: threads one large call may use (a positive count, or AUTO = -1).
/// - backend: a kernel set from simdcrypt.backends()["salsa20"]["supported"].
///
/// Objects may be shared between threads (calls are serialized); inputs of 2 KiB or more
/// are processed without the GIL.
#[pyclass(frozen, name = "Salsa20", module = "simdcrypt")]
#[derive(Debug)]
pub(crate) struct PySalsa20 {
    core: CipherCore,
}

impl PySalsa20 {
    fn cipher(key: &[u8], nonce: &[u8], rounds: Rounds) -> PyResult<Cipher> {
        Cipher::with_options(key, nonce, rounds).map_err(args::value_error)
    }
}

cipher_methods!(PySalsa20, "Salsa20");

/// XSalsa20: Salsa20 with a 24-byte nonce (random nonces are safe) and a 32-byte key.
///
/// XSalsa20(key, nonce, /, *, rounds=20, counter=0, max_threads=1, backend=None)
///
/// Options as for Salsa20.
#[pyclass(frozen, name = "XSalsa20", module = "simdcrypt")]
#[derive(Debug)]
pub(crate) struct PyXSalsa20 {
    core: CipherCore,
}

impl PyXSalsa20 {
    fn cipher(key: &[u8], nonce: &[u8], rounds: Rounds) -> PyResult<Cipher> {
        let key: [u8; salsa20::KEY_LEN] = key
            .try_into()
            .map_err(|_| PyValueError::new_err(format!("key must be {} bytes, got {}", salsa20::KEY_LEN, key.len())))?;
        if nonce.len() != salsa20::XNONCE_LEN {
            return Err(PyValueError::new_err(format!(
                "nonce must be {} bytes, got {}",
                salsa20::XNONCE_LEN,
                nonce.len()
            )));
        }
        // XSalsa20 = Salsa20 keyed with HSalsa20(key, nonce[..16]) and nonce[16..].
        let subkey = salsa20::hsalsa(&key, nonce[..16].try_into().expect("16 bytes"), rounds);
        Cipher::with_options(&subkey, &nonce[16..], rounds).map_err(args::value_error)
    }
}

cipher_methods!(PyXSalsa20, "XSalsa20");
