//! What the GOST hash classes (`streebog256`, `streebog512`, `gost94`, and the HMAC
//! objects) share: one state trait, the hashlib-style methods generated for each class
//! from it, and the batch functions' common path.

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::backend::Backend;
use simdcrypt::gost94::Gost94;
use simdcrypt::streebog::{HmacStreebog256, HmacStreebog512, Streebog256, Streebog512};

use crate::args::{self, GIL_RELEASE_MIN};
use crate::batch::hold_messages;
use crate::buffer;
use crate::shared_state::SharedState;

/// A hasher behind one of the classes.
pub(crate) trait HashState: Clone + Send + 'static {
    fn absorb(&mut self, data: &[u8]);
    fn result(&self) -> Vec<u8>;
    fn backend_name(&self) -> &'static str;
    /// The name `new()` takes for it (fixed per class except for gost94's parameter sets).
    fn py_name(&self, class_name: &'static str) -> &'static str {
        class_name
    }
}

/// The GOST hashers, whose update/finalize/platform already have these shapes; a `{ ... }`
/// after a type adds items to its impl (gost94's `py_name`).
macro_rules! hash_state {
    ($($t:ty $({ $($extra:tt)* })?),*) => {$(
        impl HashState for $t {
            $($($extra)*)?
            fn absorb(&mut self, data: &[u8]) {
                self.update(data);
            }
            fn result(&self) -> Vec<u8> {
                self.finalize().to_vec()
            }
            fn backend_name(&self) -> &'static str {
                self.platform().name()
            }
        }
    )*};
}

hash_state!(
    Streebog256,
    Streebog512,
    HmacStreebog256,
    HmacStreebog512,
    Gost94 {
        fn py_name(&self, _class_name: &'static str) -> &'static str {
            match self.sbox() {
                simdcrypt::gost94::SBox::CryptoPro => "gost94",
                simdcrypt::gost94::SBox::Test => "gost94-test",
            }
        }
    }
);

/// Hashes `data` into a state not shared yet, without the GIL for long inputs.
pub(crate) fn absorb_new<S: HashState>(state: &mut S, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(data) = data else { return Ok(()) };
    let py = data.py();
    buffer::with_bytes(data, |bytes| {
        if bytes.len() >= GIL_RELEASE_MIN {
            py.detach(|| state.absorb(bytes));
        } else {
            state.absorb(bytes);
        }
    })
}

/// `update()` on a shared state.
pub(crate) fn update_shared<S: HashState>(state: &SharedState<S>, data: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = data.py();
    buffer::with_bytes(data, |bytes| {
        if bytes.len() >= GIL_RELEASE_MIN {
            py.detach(|| state.lock_blocking().map(|mut h| h.absorb(bytes)))
        } else {
            state.locked(py, |h| h.absorb(bytes))
        }
    })?
}

/// A backend of `B` by name, or the best one.
pub(crate) fn platform<B: Backend>(backend: Option<&str>) -> PyResult<B> {
    match backend {
        Some(name) => B::from_name(name).map_err(args::value_error),
        None => Ok(B::detect()),
    }
}

/// The common body of `streebog_many` and `gost94_many`: pins the messages, then runs
/// `hash(messages, out)` into a new bytes object of `out_len` bytes per message, without
/// the GIL when there is enough work.
pub(crate) fn hash_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    out_len: usize,
    hash: impl Fn(&[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> + Send + Sync,
) -> PyResult<Bound<'py, PyBytes>> {
    let held = hold_messages(messages)?;
    let count = held.len();
    let total_out = count
        .checked_mul(out_len)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate {count} digests of {out_len} bytes")))?;
    if total_out == 0 {
        return Ok(PyBytes::new(py, b""));
    }
    let slices = held.slices()?;
    let total_in = slices.iter().map(|m| m.len()).fold(0usize, usize::saturating_add);
    crate::buffer::new_bytes(py, total_out, |out| {
        // `out` belongs to a bytes object no other code can see yet, and `held` keeps every
        // message pinned until after the hashing.
        let result = if total_in >= GIL_RELEASE_MIN { py.detach(|| hash(&slices, out)) } else { hash(&slices, out) };
        result.map_err(args::value_error)
    })
}

/// The methods every GOST hash class has, on a `state: SharedState<S>` field: the class
/// attributes `name`, `digest_size`, `block_size`, the `backend` property, `update`,
/// `digest`, `hexdigest` and `copy`. `$own` are the class's constructor and any other
/// methods of its own.
macro_rules! hash_object_methods {
    ($class:ident, $name:literal, $digest_size:expr, $block_size:expr, $($own:item)*) => {
        #[pymethods]
        impl $class {
            $($own)*

            /// The algorithm's name, as `new()` takes it.
            #[getter]
            fn name(&self, py: Python<'_>) -> PyResult<&'static str> {
                self.state.locked(py, |h| $crate::gost_common::HashState::py_name(h, $name))
            }

            /// The digest length in bytes.
            #[classattr]
            fn digest_size() -> usize {
                $digest_size
            }

            /// The block size in bytes.
            #[classattr]
            fn block_size() -> usize {
                $block_size
            }

            /// The name of the backend (kernel set) in use.
            #[getter]
            fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
                self.state.locked(py, |h| $crate::gost_common::HashState::backend_name(h))
            }

            /// Adds input (any C-contiguous buffer). Returns None, as hashlib's objects do.
            #[pyo3(signature = (data, /), text_signature = "($self, data, /)")]
            fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
                $crate::gost_common::update_shared(&self.state, data)
            }

            /// The digest of the input so far; the object can keep being updated.
            #[pyo3(text_signature = "($self)")]
            fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                let d = self.state.locked(py, |h| $crate::gost_common::HashState::result(h))?;
                Ok(pyo3::types::PyBytes::new(py, &d))
            }

            /// Like digest(), as a hexadecimal string.
            #[pyo3(text_signature = "($self)")]
            fn hexdigest(&self, py: Python<'_>) -> PyResult<String> {
                let d = self.state.locked(py, |h| $crate::gost_common::HashState::result(h))?;
                Ok(simdcrypt::to_hex(&d))
            }

            /// An independent copy of the current state.
            #[pyo3(text_signature = "($self)")]
            fn copy(&self, py: Python<'_>) -> PyResult<Self> {
                let h = self.state.locked(py, |h| h.clone())?;
                Ok($class { state: $crate::shared_state::SharedState::new($name, h) })
            }

            /// The unfinished hash as bytes (simdcrypt's state format) that restore()
            /// resumes, in another process or on another machine.
            #[pyo3(text_signature = "($self)")]
            fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                crate::state::export::<Self>(py, &self.state)
            }

            /// Resumes a hash from export()'s bytes; key: the key of a keyed hash (the
            /// state is bound to it). A damaged blob, one of another algorithm, or a missing
            /// or wrong key raises ValueError saying which.
            #[classmethod]
            #[pyo3(signature = (blob, /, *, key=None), text_signature = "(blob, /, *, key=None)")]
            fn restore(
                _cls: &Bound<'_, pyo3::types::PyType>,
                blob: &Bound<'_, PyAny>,
                key: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                Ok(Self { state: crate::state::restore::<Self>(blob, key)? })
            }

            /// Pickling and copy.deepcopy: the state and, for a keyed hash, the key.
            fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                crate::state::reduce::<Self>(py, &self.state)
            }
        }
    };
}
pub(crate) use hash_object_methods;
