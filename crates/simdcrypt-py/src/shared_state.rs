//! A hasher's state shared between Python threads, for the hashlib-style classes.

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The state of one Python hasher object. Every call is serialized by the mutex, which is
/// never held while waiting for the GIL (waiting for the mutex happens with the GIL
/// released), so no deadlock is possible.
#[derive(Debug)]
pub(crate) struct SharedState<H> {
    state: Mutex<H>,
    /// The algorithm's name, for error messages.
    name: &'static str,
}

impl<H: Send> SharedState<H> {
    pub(crate) fn new(name: &'static str, hasher: H) -> Self {
        SharedState { state: Mutex::new(hasher), name }
    }

    fn poisoned(&self) -> PyErr {
        PyRuntimeError::new_err(format!(
            "this {} object is unusable: an earlier call failed inside the hasher",
            self.name
        ))
    }

    /// Runs `f` on the state. Waiting for the mutex, when another thread holds it
    /// (typically while it hashes a large input without the GIL), happens with the GIL
    /// released, so Python threads keep running meanwhile.
    pub(crate) fn locked<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut H) -> R + Send) -> PyResult<R> {
        match self.state.try_lock() {
            Ok(mut guard) => Ok(f(&mut guard)),
            Err(TryLockError::WouldBlock) => py.detach(|| self.lock_blocking().map(|mut g| f(&mut g))),
            Err(TryLockError::Poisoned(_)) => Err(self.poisoned()),
        }
    }

    /// [`locked`](Self::locked) for work on `len` bytes: with the GIL released for the
    /// wait and the work when `len` is at least `GIL_RELEASE_MIN`.
    pub(crate) fn locked_for<R: Send>(
        &self,
        py: Python<'_>,
        len: usize,
        f: impl FnOnce(&mut H) -> R + Send,
    ) -> PyResult<R> {
        if len >= crate::args::GIL_RELEASE_MIN {
            py.detach(|| self.lock_blocking().map(|mut h| f(&mut h)))
        } else {
            self.locked(py, f)
        }
    }

    /// Locks without regard to the GIL: only for callers that released it.
    pub(crate) fn lock_blocking(&self) -> PyResult<MutexGuard<'_, H>> {
        self.state.lock().map_err(|_| self.poisoned())
    }
}
