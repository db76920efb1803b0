//! The one implementation of a hashlib-style object, shared by every hash class
//! (`blake3`, `sha256`, `streebog256/512`, `hmac_streebog256/512`, `gost94`,
//! `highwayhash64/128/256`).
//!
//! PyO3 classes cannot be generic, so the behaviour lives in generic functions over
//! [`HashClass`] (update with the GIL released for long inputs, digest, hexdigest, copy,
//! `repr()`, `backend`), and the [`hash_class!`] macro writes each class's struct and its
//! single `#[pymethods]` block as thin calls to them. A class file gives the macro its
//! hasher type, its constants and the methods of its own (constructor, extras such as
//! blake3's `digest(length, seek)` or HighwayHash's `export()`).
//!
//! Thread safety: the hasher sits behind a [`SharedState`] (one mutex per object, never
//! held while waiting for the GIL).

use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::types::{PyBytes, PyString};
use pyo3::PyClass;

use crate::args;
use crate::buffer;
use crate::shared_state::SharedState;

/// The longest digest of a fixed-size class (Streebog-512), for a stack buffer.
pub(crate) const MAX_DIGEST_SIZE: usize = 64;

/// A library hasher as the hash classes use it.
pub(crate) trait HashState: Clone + Send + 'static {
    /// Adds input.
    fn absorb(&mut self, data: &[u8]);
    /// Writes the digest of the input so far into `out` (the class's digest size),
    /// leaving the state as it was.
    fn finish(&self, out: &mut [u8]);
    /// The name of the backend (kernel set) in use.
    fn backend_name(&self) -> &'static str;
    /// The name `new()` takes for this object, where it depends on the object rather
    /// than on the class (gost94's parameter sets); `None` means the class's name.
    fn object_name(&self) -> Option<&'static str> {
        None
    }
}

/// Implements [`HashState`] for library hashers whose `update`, `finalize` (an array of the
/// digest size) and `platform` have the usual shape; each class file invokes it for its
/// hasher. Items in braces after a type are added to its impl (gost94's `object_name`).
macro_rules! plain_hash_state {
    ($($t:ty $({ $($extra:item)* })?),* $(,)?) => {$(
        impl $crate::hash_class::HashState for $t {
            fn absorb(&mut self, data: &[u8]) {
                self.update(data);
            }
            fn finish(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.finalize());
            }
            fn backend_name(&self) -> &'static str {
                self.platform().name()
            }
            $($($extra)*)?
        }
    )*};
}
pub(crate) use plain_hash_state;

/// A hash class (a frozen pyclass, shareable between threads): its hasher and constants.
/// [`hash_class!`] implements it.
pub(crate) trait HashClass: PyClass<Frozen = True> + Sync {
    type State: HashState;
    /// The hash's name as `new()` takes it (unless the object says otherwise), also used
    /// in error messages.
    const HASH_NAME: &'static str;
    /// The length of `digest()` in bytes.
    const DIGEST_SIZE: usize;
    /// `update()` returns the object (blake3, as the `blake3` package) rather than None
    /// (hashlib's objects).
    const UPDATE_RETURNS_SELF: bool;
    /// The object's hasher.
    fn shared(&self) -> &SharedState<Self::State>;
    /// A new object around a hasher.
    fn from_state(state: Self::State) -> Self;
}

/// Hashes `data` into `state` without the GIL when it is long. `state` is not shared yet.
pub(crate) fn absorb_unshared<S: HashState>(state: &mut S, data: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = data.py();
    // The export stays held until with_bytes returns, so the memory stays put.
    buffer::with_bytes(data, |bytes| args::detach_if_long(py, bytes.len(), || state.absorb(bytes)))
}

/// A new object of class `C` around `state`, after hashing the constructor's `data`.
pub(crate) fn new_object<C: HashClass>(mut state: C::State, data: Option<&Bound<'_, PyAny>>) -> PyResult<C> {
    if let Some(data) = data {
        // The new object is not shared yet: no lock to take.
        absorb_unshared(&mut state, data)?;
    }
    Ok(C::from_state(state))
}

/// `update(data)`: any C-contiguous buffer; long ones are hashed without the GIL.
pub(crate) fn update<'py, C: HashClass>(
    slf: &Bound<'py, C>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, C>>> {
    let state = slf.get().shared();
    let py = data.py();
    // The export stays held until with_bytes returns, so the memory stays put.
    buffer::with_bytes(data, |bytes| state.locked_for(py, bytes.len(), |h| h.absorb(bytes)))??;
    Ok(C::UPDATE_RETURNS_SELF.then(|| slf.clone()))
}

/// Runs `f` on the digest of the input so far (`C::DIGEST_SIZE` bytes).
fn with_digest<C: HashClass, R>(obj: &C, py: Python<'_>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    let mut out = [0u8; MAX_DIGEST_SIZE];
    let out = &mut out[..C::DIGEST_SIZE];
    obj.shared().locked(py, |h| h.finish(out))?;
    Ok(f(out))
}

/// `digest()`.
pub(crate) fn digest<'py, C: HashClass>(obj: &C, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
    with_digest(obj, py, |d| PyBytes::new(py, d))
}

/// `hexdigest()`.
pub(crate) fn hexdigest<'py, C: HashClass>(obj: &C, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
    with_digest(obj, py, |d| PyString::new(py, &simdcrypt::to_hex(d)))
}

/// `verify(expected)`: whether `expected` equals `digest()`, compared in constant time (for
/// MACs: keyed BLAKE3, HMAC-Streebog, HighwayHash), so a wrong tag takes as long to reject
/// whatever prefix of it matched.
pub(crate) fn verify<C: HashClass>(obj: &C, expected: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = expected.py();
    with_digest(obj, py, |d| buffer::with_bytes(expected, |e| simdcrypt::mac::constant_time_eq(d, e)))?
}

/// `copy()`: an independent object with the same state.
pub(crate) fn copy<C: HashClass>(obj: &C, py: Python<'_>) -> PyResult<C> {
    let state = obj.shared().locked(py, |h| h.clone())?;
    Ok(C::from_state(state))
}

/// The `backend` property.
pub(crate) fn backend<C: HashClass>(obj: &C, py: Python<'_>) -> PyResult<&'static str> {
    obj.shared().locked(py, |h| h.backend_name())
}

/// The `name` property of classes whose objects may name themselves.
pub(crate) fn object_name<C: HashClass>(obj: &C, py: Python<'_>) -> PyResult<&'static str> {
    obj.shared().locked(py, |h| h.object_name().unwrap_or(C::HASH_NAME))
}

/// `repr()`: `<simdcrypt.CLASS object at 0x..., backend 'B'>`, with `name 'N'` before the
/// backend where the name `new()` takes differs from the class's (hmac-streebog256,
/// gost94-test).
pub(crate) fn repr<C: HashClass>(slf: &Bound<'_, C>) -> PyResult<String> {
    let py = slf.py();
    let class = <C as pyo3::PyTypeInfo>::NAME;
    let (name, backend) =
        slf.get().shared().locked(py, |h| (h.object_name().unwrap_or(C::HASH_NAME), h.backend_name()))?;
    let name = if name == class { String::new() } else { format!("name '{name}', ") };
    Ok(format!("<simdcrypt.{class} object at {:p}, {name}backend '{backend}'>", slf.as_ptr()))
}

/// Writes a hash class: the struct (a frozen pyclass holding `state: SharedState<H>`), its
/// [`HashClass`] impl, and one `#[pymethods]` block with the common methods followed by
/// the class's own items.
///
/// ```ignore
/// hash_class! {
///     /// Docstring of the Python class.
///     pub(crate) struct PySha256(Sha256) as "sha256" {   // the Python class name
///         name: class "sha256",    // `name`: a class attribute (`class`) or, where the
///                                  // object may name itself, a property (`object`)
///         digest_size: OUT_LEN,
///         block_size: BLOCK_LEN,
///         // Optional, with their defaults (hashlib's shape):
///         // digest: fixed,        // `fixed`: digest() / hexdigest() of DIGEST_SIZE bytes;
///         //                       // `custom`: the class writes its own
///         // update_returns_self: false,
///     }
///     #[new]
///     fn py_new(...) -> PyResult<Self> { ... }   // the constructor and other own items
/// }
/// ```
///
/// Common to every class: `digest_size` and `block_size` (class attributes), `backend`
/// (property), `update`, `copy`, `__repr__`.
macro_rules! hash_class {
    (
        $(#[$attr:meta])*
        $vis:vis struct $class:ident($state:ty) as $py:literal {
            name: $name_kind:ident $name:literal,
            $(digest: $digest_kind:ident,)?
            digest_size: $digest_size:expr,
            block_size: $block_size:expr
            $(, update_returns_self: $returns_self:literal)? $(,)?
        }
        $($own:item)*
    ) => {
        $(#[$attr])*
        #[pyclass(frozen, name = $py, module = "simdcrypt")]
        #[derive(Debug)]
        $vis struct $class {
            state: $crate::shared_state::SharedState<$state>,
        }

        const _: () = assert!(
            $digest_size <= $crate::hash_class::MAX_DIGEST_SIZE,
            "digest() writes into a stack buffer of MAX_DIGEST_SIZE bytes"
        );

        impl $crate::hash_class::HashClass for $class {
            type State = $state;
            const HASH_NAME: &'static str = $name;
            const DIGEST_SIZE: usize = $digest_size;
            const UPDATE_RETURNS_SELF: bool = false $(|| $returns_self)?;
            fn shared(&self) -> &$crate::shared_state::SharedState<$state> {
                &self.state
            }
            fn from_state(state: $state) -> Self {
                $class { state: $crate::shared_state::SharedState::new($name, state) }
            }
        }

        $crate::hash_class::hash_class!(@name $name_kind, [$($digest_kind)?], $class, $block_size, [$($own)*]);
    };

    // The `name` attribute.
    (@name class, $digest_kind:tt, $class:ident, $block_size:expr, [$($items:item)*]) => {
        $crate::hash_class::hash_class!(@digest $digest_kind, $class, $block_size, [
            /// The hash's name, as `new()` takes it.
            #[classattr]
            fn name() -> &'static str {
                <$class as $crate::hash_class::HashClass>::HASH_NAME
            }
            $($items)*
        ]);
    };
    (@name object, $digest_kind:tt, $class:ident, $block_size:expr, [$($items:item)*]) => {
        $crate::hash_class::hash_class!(@digest $digest_kind, $class, $block_size, [
            /// The hash's name, as `new()` takes it.
            #[getter]
            fn name(&self, py: Python<'_>) -> PyResult<&'static str> {
                $crate::hash_class::object_name(self, py)
            }
            $($items)*
        ]);
    };

    // digest() and hexdigest().
    (@digest [], $class:ident, $block_size:expr, [$($items:item)*]) => {
        $crate::hash_class::hash_class!(@digest [fixed], $class, $block_size, [$($items)*]);
    };
    (@digest [fixed], $class:ident, $block_size:expr, [$($items:item)*]) => {
        $crate::hash_class::hash_class!(@emit $class, $block_size, [
            /// The digest of the input so far. The object can keep being updated.
            #[pyo3(text_signature = "($self)")]
            fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                $crate::hash_class::digest(self, py)
            }

            /// Like digest(), as a string of hexadecimal digits (two per byte).
            #[pyo3(text_signature = "($self)")]
            fn hexdigest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyString>> {
                $crate::hash_class::hexdigest(self, py)
            }
            $($items)*
        ]);
    };
    (@digest [custom], $class:ident, $block_size:expr, [$($items:item)*]) => {
        $crate::hash_class::hash_class!(@emit $class, $block_size, [$($items)*]);
    };

    (@emit $class:ident, $block_size:expr, [$($items:item)*]) => {
        #[pymethods]
        impl $class {
            /// The digest length in bytes (of digest() with no arguments).
            #[classattr]
            fn digest_size() -> usize {
                <$class as $crate::hash_class::HashClass>::DIGEST_SIZE
            }

            /// The block size of the compression function in bytes.
            #[classattr]
            fn block_size() -> usize {
                $block_size
            }

            /// The name of the backend (kernel set) in use, e.g. "avx2".
            #[getter]
            fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
                $crate::hash_class::backend(self, py)
            }

            /// Adds input (any C-contiguous buffer); inputs of 2 KiB or more are hashed
            /// without the GIL. Returns None, as hashlib's objects do (blake3: the object
            /// itself, as the blake3 package does).
            #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
            fn update<'py>(
                slf: &Bound<'py, Self>,
                data: &Bound<'py, PyAny>,
            ) -> PyResult<Option<Bound<'py, Self>>> {
                $crate::hash_class::update(slf, data)
            }

            /// Whether `expected` (any C-contiguous buffer) equals digest(), compared in
            /// constant time: check received MAC values with this, not `==`.
            #[pyo3(signature = (expected, /), text_signature = "($self, expected, /)")]
            fn verify(&self, expected: &Bound<'_, PyAny>) -> PyResult<bool> {
                $crate::hash_class::verify(self, expected)
            }

            /// An independent copy of the current state.
            #[pyo3(text_signature = "($self)")]
            fn copy(&self, py: Python<'_>) -> PyResult<Self> {
                $crate::hash_class::copy(self, py)
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                $crate::hash_class::repr(slf)
            }

            /// The unfinished hash as bytes (simdcrypt's state format, docs/state-format.md)
            /// that restore() resumes, in another process or on another machine. A keyed
            /// state binds to its key without containing it.
            #[pyo3(text_signature = "($self)")]
            fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                $crate::state::export(self, py)
            }

            /// Resumes a hash from export()'s bytes; key: the key of a keyed hash (the state
            /// is bound to it). A damaged blob, one of another algorithm, or a missing or
            /// wrong key raises ValueError saying which.
            #[classmethod]
            #[pyo3(signature = (blob, /, *, key=None), text_signature = "(blob, /, *, key=None)")]
            fn restore(
                _cls: &Bound<'_, pyo3::types::PyType>,
                blob: &Bound<'_, PyAny>,
                key: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                $crate::state::restore(blob, key)
            }

            /// Pickling and copy.deepcopy: the state and, for a keyed hash, the key (so a
            /// pickle of a keyed object is as secret as its key).
            fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::state::reduce(self, py)
            }

            $($items)*
        }
    };
}
pub(crate) use hash_class;
