//! Saving and resuming the hash objects: `export()`, the class method `restore(blob, /, *,
//! key=None)`, and pickling / `copy.deepcopy` through `__reduce__`, for every hashlib-style
//! class. Each class's methods are one-line calls into the helpers here; what differs
//! between classes is its [`Resumable`] implementation, in its class file (the macros
//! [`unkeyed!`] and [`hmac!`] write the common ones).
//!
//! A pickle is `(_restore_state, (blob, key))`: the state (docs/state-format.md) and, for a
//! keyed hash, the key, since a keyed state binds to its key and does not contain it. A
//! pickle of a keyed object is therefore as secret as the key. An object is restored on the
//! best backend this CPU supports (the digest never depends on it) with one thread.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use simdcrypt::Error;

use crate::args;
use crate::buffer;
use crate::hash_class::{HashClass, HashState};

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
    // The hash classes by name, as lib.rs registers them; GOST R 34.11-94's test parameters
    // are the gost94 class's too.
    let class_name = if name == "gost94-test" { "gost94" } else { name.as_str() };
    let classes = py.import("simdcrypt._native")?.getattr(crate::HASH_CLASSES)?;
    let class = classes.cast_into::<PyDict>()?.get_item(class_name)?.ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!("a state of {name} cannot be restored as a Python object"))
    })?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("key", key)?;
    class.call_method("restore", (blob,), Some(&kwargs))
}

/// Implements [`Resumable`] for hashers whose state binds to no key; each class file
/// invokes it (or writes its own impl).
macro_rules! unkeyed {
    ($($t:ty),*) => {$(
        impl $crate::state::Resumable for $t {
            fn export(&self) -> Vec<u8> {
                <$t>::export(self)
            }
            fn key(&self) -> Option<Vec<u8>> {
                None
            }
            fn restore(blob: &[u8], key: Option<&[u8]>, _: &str) -> Result<Self, simdcrypt::Error> {
                <$t>::restore(blob, key)
            }
        }
    )*};
}
pub(crate) use unkeyed;

/// The key a keyed state needs, or the error that says it is missing.
pub(crate) fn needs_key<'k>(key: Option<&'k [u8]>, name: &str) -> Result<&'k [u8], Error> {
    key.ok_or_else(|| Error::InvalidArgument(format!("this {name} state is keyed: restoring it needs the same key")))
}

/// Implements [`Resumable`] for HMAC states (keyed by the key block).
macro_rules! hmac {
    ($($t:ty),*) => {$(
        impl $crate::state::Resumable for $t {
            fn export(&self) -> Vec<u8> {
                <$t>::export(self)
            }
            fn key(&self) -> Option<Vec<u8>> {
                Some(self.key_block().to_vec())
            }
            fn restore(blob: &[u8], key: Option<&[u8]>, class_name: &str) -> Result<Self, simdcrypt::Error> {
                <$t>::restore(blob, $crate::state::needs_key(key, class_name)?)
            }
        }
    )*};
}
pub(crate) use hmac;
