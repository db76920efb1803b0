//! Saving and resuming the hash objects: `export()`, the class method `restore(blob, /, *,
//! key=None)`, and pickling / `copy.deepcopy` through `__reduce__`, for every hashlib-style
//! class. Each class's methods are one-line calls into the helpers here; what differs
//! between classes is its [`Resumable`] implementation, below.
//!
//! A pickle is `(_restore_state, (blob, key))`: the state (docs/state-format.md) and, for a
//! keyed hash, the key, since a keyed state binds to its key and does not contain it. A
//! pickle of a keyed object is therefore as secret as the key. An object is restored on the
//! best backend this CPU supports (the digest never depends on it) with one thread.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use simdcrypt::blake3::Hasher;
use simdcrypt::gost94::Gost94;
use simdcrypt::highwayhash::{HighwayHasher, Size};
use simdcrypt::sha256::Sha256 as Sha256Hasher;
use simdcrypt::streebog::{HmacStreebog256, HmacStreebog512, Streebog256, Streebog512};
use simdcrypt::Error;

use crate::args;
use crate::blake3_class::Blake3;
use crate::buffer;
use crate::gost94_class::PyGost94;
use crate::highwayhash_class::{HighwayHash128, HighwayHash256, HighwayHash64};
use crate::sha256_class::Sha256;
use crate::shared_state::SharedState;
use crate::streebog_class::{PyHmacStreebog256, PyHmacStreebog512, PyStreebog256, PyStreebog512};

/// What a Python hash class needs to save and resume its hasher.
pub(crate) trait Resumable {
    /// The hasher the class holds.
    type Hasher: Send + 'static;
    /// The class's name, for the shared state's error messages.
    const NAME: &'static str;
    /// The state.
    fn export(h: &Self::Hasher) -> Vec<u8>;
    /// The key a pickle must carry (keyed hashes only).
    fn key(h: &Self::Hasher) -> Option<Vec<u8>>;
    /// The hasher of a state.
    fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Self::Hasher, Error>;
}

/// `export()`: the object's state as bytes.
pub(crate) fn export<'py, C: Resumable>(
    py: Python<'py>,
    state: &SharedState<C::Hasher>,
) -> PyResult<Bound<'py, PyBytes>> {
    let blob = state.locked(py, |h| C::export(h))?;
    Ok(PyBytes::new(py, &blob))
}

/// `restore(blob, /, *, key=None)`: the state of a new object of class `C`. A blob of
/// another algorithm, a damaged one, a missing or wrong key raise ValueError saying which.
pub(crate) fn restore<C: Resumable>(
    blob: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<SharedState<C::Hasher>> {
    let key = key.filter(|k| !k.is_none()).map(|k| buffer::with_bytes(k, <[u8]>::to_vec)).transpose()?;
    let hasher = buffer::with_bytes(blob, |b| C::restore(b, key.as_deref()))?.map_err(args::value_error)?;
    Ok(SharedState::new(C::NAME, hasher))
}

/// `__reduce__`: `(_restore_state, (state, key))`, for pickle and `copy.deepcopy`.
pub(crate) fn reduce<'py, C: Resumable>(
    py: Python<'py>,
    state: &SharedState<C::Hasher>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (blob, key) = state.locked(py, |h| (C::export(h), C::key(h)))?;
    let restore_fn = py.import("simdcrypt._native")?.getattr("_restore_state")?;
    let key = key.map(|k| PyBytes::new(py, &k));
    let args = (PyBytes::new(py, &blob), key).into_pyobject(py)?;
    PyTuple::new(py, [restore_fn, args.into_any()])
}

/// The Python class that restores a state of the algorithm `name`.
fn class_of(name: &str) -> Option<&'static str> {
    const CLASSES: [&str; 9] = [
        "blake3",
        "sha256",
        "streebog256",
        "streebog512",
        "hmac_streebog256",
        "hmac_streebog512",
        "gost94",
        "highwayhash64",
        "highwayhash128",
    ];
    if name == "gost94-test" {
        return Some("gost94");
    }
    CLASSES.into_iter().chain(["highwayhash256"]).find(|c| *c == name)
}

/// Restores a hash object of whichever class `blob` is a state of (the function pickles
/// of hash objects call). `key`: the key of a keyed state.
#[pyfunction]
#[pyo3(signature = (blob, key=None), text_signature = "(blob, key=None)")]
pub(crate) fn _restore_state<'py>(
    blob: &Bound<'py, PyAny>,
    key: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = blob.py();
    let name = buffer::with_bytes(blob, |b| simdcrypt::state::algorithm_of(b).map(str::to_owned))?
        .map_err(args::value_error)?;
    let class = class_of(&name).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!("a state of {name} cannot be restored as a Python object"))
    })?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("key", key)?;
    py.import("simdcrypt._native")?.getattr(class)?.call_method("restore", (blob,), Some(&kwargs))
}

impl Resumable for Blake3 {
    type Hasher = Hasher;
    const NAME: &'static str = "blake3";
    fn export(h: &Hasher) -> Vec<u8> {
        h.export()
    }
    fn key(h: &Hasher) -> Option<Vec<u8>> {
        h.key().map(|k| k.to_vec())
    }
    fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Hasher, Error> {
        Hasher::restore(blob, key)
    }
}

impl Resumable for Sha256 {
    type Hasher = Sha256Hasher;
    const NAME: &'static str = "sha256";
    fn export(h: &Sha256Hasher) -> Vec<u8> {
        h.export()
    }
    fn key(_: &Sha256Hasher) -> Option<Vec<u8>> {
        None
    }
    fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Sha256Hasher, Error> {
        Sha256Hasher::restore(blob, key)
    }
}

impl Resumable for PyGost94 {
    type Hasher = Gost94;
    const NAME: &'static str = "gost94";
    fn export(h: &Gost94) -> Vec<u8> {
        h.export()
    }
    fn key(_: &Gost94) -> Option<Vec<u8>> {
        None
    }
    fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Gost94, Error> {
        Gost94::restore(blob, key)
    }
}

/// Streebog's classes, plain and HMAC.
macro_rules! streebog_resumable {
    ($class:ty, $hasher:ty, $name:literal, plain) => {
        impl Resumable for $class {
            type Hasher = $hasher;
            const NAME: &'static str = $name;
            fn export(h: &$hasher) -> Vec<u8> {
                h.export()
            }
            fn key(_: &$hasher) -> Option<Vec<u8>> {
                None
            }
            fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<$hasher, Error> {
                <$hasher>::restore(blob, key)
            }
        }
    };
    ($class:ty, $hasher:ty, $name:literal, hmac) => {
        impl Resumable for $class {
            type Hasher = $hasher;
            const NAME: &'static str = $name;
            fn export(h: &$hasher) -> Vec<u8> {
                h.export()
            }
            fn key(h: &$hasher) -> Option<Vec<u8>> {
                Some(h.key_block().to_vec())
            }
            fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<$hasher, Error> {
                let key = key.ok_or_else(|| {
                    Error::InvalidArgument(format!("this {} state is keyed: restoring it needs the same key", $name))
                })?;
                <$hasher>::restore(blob, key)
            }
        }
    };
}

streebog_resumable!(PyStreebog256, Streebog256, "streebog256", plain);
streebog_resumable!(PyStreebog512, Streebog512, "streebog512", plain);
streebog_resumable!(PyHmacStreebog256, HmacStreebog256, "hmac_streebog256", hmac);
streebog_resumable!(PyHmacStreebog512, HmacStreebog512, "hmac_streebog512", hmac);

/// HighwayHash's classes: the hasher is size-agnostic, the class fixes the size.
macro_rules! highwayhash_resumable {
    ($class:ty, $size:expr) => {
        impl Resumable for $class {
            type Hasher = HighwayHasher;
            const NAME: &'static str = $size.name();
            fn export(h: &HighwayHasher) -> Vec<u8> {
                h.export($size)
            }
            fn key(h: &HighwayHasher) -> Option<Vec<u8>> {
                Some(h.key().to_vec())
            }
            fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<HighwayHasher, Error> {
                let name = $size.name();
                let key = key.ok_or_else(|| {
                    Error::InvalidArgument(format!("this {name} state is keyed: restoring it needs the same key"))
                })?;
                let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidLength {
                    what: "highwayhash key",
                    expected: 32,
                    got: key.len(),
                })?;
                HighwayHasher::restore(blob, key, $size)
            }
        }
    };
}

highwayhash_resumable!(HighwayHash64, Size::Bits64);
highwayhash_resumable!(HighwayHash128, Size::Bits128);
highwayhash_resumable!(HighwayHash256, Size::Bits256);
