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
use simdcrypt::sha256::Sha256;
use simdcrypt::streebog::{HmacStreebog256, HmacStreebog512, Streebog256, Streebog512};
use simdcrypt::Error;

use crate::args;
use crate::buffer;
use crate::hash_class::{HashClass, HashState};
use crate::highwayhash_class::HighwayState;

/// What a hash class's state needs to be saved and resumed.
pub(crate) trait Resumable: HashState + Sized {
    /// The state as bytes (docs/state-format.md).
    fn export(&self) -> Vec<u8>;
    /// The key a pickle must carry (keyed hashes only).
    fn key(&self) -> Option<Vec<u8>>;
    /// The hasher of a state, for the class whose `new()` name is `class_name`.
    fn restore(blob: &[u8], key: Option<&[u8]>, class_name: &str) -> Result<Self, Error>;
}

/// `export()`: the object's state as bytes.
pub(crate) fn export<'py, C: HashClass>(obj: &C, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>>
where
    C::State: Resumable,
{
    let blob = obj.shared().locked(py, |h| h.export())?;
    Ok(PyBytes::new(py, &blob))
}

/// `restore(blob, /, *, key=None)`: a new object of class `C`. A blob of another
/// algorithm, a damaged one, a missing or wrong key raise ValueError saying which.
pub(crate) fn restore<C: HashClass>(blob: &Bound<'_, PyAny>, key: Option<&Bound<'_, PyAny>>) -> PyResult<C>
where
    C::State: Resumable,
{
    let key = key.filter(|k| !k.is_none()).map(|k| buffer::with_bytes(k, <[u8]>::to_vec)).transpose()?;
    let state =
        buffer::with_bytes(blob, |b| C::State::restore(b, key.as_deref(), C::HASH_NAME))?.map_err(args::value_error)?;
    Ok(C::from_state(state))
}

/// `__reduce__`: `(_restore_state, (state, key))`, for pickle and `copy.deepcopy`.
pub(crate) fn reduce<'py, C: HashClass>(obj: &C, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>>
where
    C::State: Resumable,
{
    let (blob, key) = obj.shared().locked(py, |h| (h.export(), h.key()))?;
    let restore_fn = py.import("simdcrypt._native")?.getattr("_restore_state")?;
    let key = key.map(|k| PyBytes::new(py, &k));
    let args = (PyBytes::new(py, &blob), key).into_pyobject(py)?;
    PyTuple::new(py, [restore_fn, args.into_any()])
}

/// The Python class that restores a state of the algorithm `name`.
fn class_of(name: &str) -> Option<&'static str> {
    const CLASSES: [&str; 10] = [
        "blake3",
        "sha256",
        "streebog256",
        "streebog512",
        "hmac_streebog256",
        "hmac_streebog512",
        "gost94",
        "highwayhash64",
        "highwayhash128",
        "highwayhash256",
    ];
    if name == "gost94-test" {
        return Some("gost94");
    }
    CLASSES.into_iter().find(|c| *c == name)
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

/// The hashers whose state binds to no key.
macro_rules! unkeyed {
    ($($t:ty),*) => {$(
        impl Resumable for $t {
            fn export(&self) -> Vec<u8> {
                <$t>::export(self)
            }
            fn key(&self) -> Option<Vec<u8>> {
                None
            }
            fn restore(blob: &[u8], key: Option<&[u8]>, _: &str) -> Result<Self, Error> {
                <$t>::restore(blob, key)
            }
        }
    )*};
}
unkeyed!(Sha256, Streebog256, Streebog512, Gost94);

impl Resumable for Hasher {
    fn export(&self) -> Vec<u8> {
        Hasher::export(self)
    }
    fn key(&self) -> Option<Vec<u8>> {
        Hasher::key(self).map(|k| k.to_vec())
    }
    fn restore(blob: &[u8], key: Option<&[u8]>, _: &str) -> Result<Self, Error> {
        Hasher::restore(blob, key)
    }
}

fn needs_key<'k>(key: Option<&'k [u8]>, name: &str) -> Result<&'k [u8], Error> {
    key.ok_or_else(|| Error::InvalidArgument(format!("this {name} state is keyed: restoring it needs the same key")))
}

macro_rules! hmac {
    ($($t:ty),*) => {$(
        impl Resumable for $t {
            fn export(&self) -> Vec<u8> {
                <$t>::export(self)
            }
            fn key(&self) -> Option<Vec<u8>> {
                Some(self.key_block().to_vec())
            }
            fn restore(blob: &[u8], key: Option<&[u8]>, class_name: &str) -> Result<Self, Error> {
                <$t>::restore(blob, needs_key(key, class_name)?)
            }
        }
    )*};
}
hmac!(HmacStreebog256, HmacStreebog512);

impl Resumable for HighwayState {
    fn export(&self) -> Vec<u8> {
        self.hasher.export(self.size)
    }
    fn key(&self) -> Option<Vec<u8>> {
        Some(self.hasher.key().to_vec())
    }
    fn restore(blob: &[u8], key: Option<&[u8]>, class_name: &str) -> Result<Self, Error> {
        let size = [Size::Bits64, Size::Bits128, Size::Bits256]
            .into_iter()
            .find(|s| s.name() == class_name)
            .expect("a HighwayHash class name");
        let key = needs_key(key, class_name)?;
        let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "highwayhash key",
            expected: 32,
            got: key.len(),
        })?;
        Ok(HighwayState { hasher: HighwayHasher::restore(blob, key, size)?, size })
    }
}
