//! Status codes, the thread-local message of the last failure, and the guard every entry
//! point runs its body in, so that no failure goes unreported and no panic reaches C.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use simdcrypt::Error;

/// Status codes. Every function that returns `int` returns `SIMDCRYPT_STATUS_OK` (0) on success
/// or one of these negative values; `simdcrypt_last_error()` then says what was wrong.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SimdcryptStatus {
    /// Success.
    Ok = 0,
    /// A required pointer was NULL (a NULL data pointer is allowed only with length 0).
    NullPointer = -1,
    /// An invalid argument: unknown algorithm name, an option the algorithm does not take,
    /// a string that is not UTF-8, overlapping buffers where that is not allowed.
    InvalidArgument = -2,
    /// A key, nonce, output buffer or similar of the wrong length.
    InvalidLength = -3,
    /// A backend name that is unknown, or that this CPU cannot run.
    UnsupportedBackend = -4,
    /// A secretbox that does not authenticate (forged, corrupted, wrong key or nonce).
    AuthenticationFailed = -5,
    /// An internal error (a bug in simdcrypt: a panic was caught at the ABI boundary).
    Internal = -6,
    /// Reading a file failed (missing, unreadable, or it shrank while it was read).
    IoError = -7,
}

/// A failure on its way to a status code and a message.
pub(crate) struct Failure {
    status: SimdcryptStatus,
    message: String,
}

impl Failure {
    pub(crate) fn new(status: SimdcryptStatus, message: impl Into<String>) -> Self {
        Failure { status, message: message.into() }
    }

    pub(crate) fn null(what: &str) -> Self {
        Failure::new(SimdcryptStatus::NullPointer, format!("{what} is NULL"))
    }

    /// A length too large for a buffer (past `isize::MAX` bytes).
    pub(crate) fn too_large(what: impl std::fmt::Display) -> Self {
        Failure::new(SimdcryptStatus::InvalidLength, format!("{what} is too large"))
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let status = match e {
            Error::UnknownBackend { .. } | Error::UnsupportedBackend { .. } => SimdcryptStatus::UnsupportedBackend,
            Error::InvalidLength { .. } => SimdcryptStatus::InvalidLength,
            Error::Io { .. } => SimdcryptStatus::IoError,
            _ => SimdcryptStatus::InvalidArgument,
        };
        Failure::new(status, e.to_string())
    }
}

pub(crate) type Result<T> = std::result::Result<T, Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message with an interior NUL is cut there rather than lost.
    let bytes = message.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = CString::new(&bytes[..end]).unwrap_or_default();
    // During thread teardown the slot may be gone; the status code still reports failure.
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = text;
        }
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("internal error in simdcrypt (please report): {what}")
}

/// Runs `f`, turning its failure or panic into a status code and a thread-local message.
pub(crate) fn guard(f: impl FnOnce() -> Result<()>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => SimdcryptStatus::Ok as c_int,
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.status as c_int
        }
        Err(payload) => {
            set_last_error(&panic_message(payload.as_ref()));
            SimdcryptStatus::Internal as c_int
        }
    }
}

/// [`guard`] for the functions that hand out a new object through `out`: `*out` is NULL
/// unless `make` succeeds, and then holds the object, boxed, for the caller to free.
///
/// # Safety
///
/// `out` NULL or valid for a write of one pointer.
pub(crate) unsafe fn guard_new<T>(out: *mut *mut T, make: impl FnOnce() -> Result<T>) -> c_int {
    if out.is_null() {
        set_last_error("out is NULL");
        return SimdcryptStatus::NullPointer as c_int;
    }
    // SAFETY: `out` is non-NULL and writable (the function's contract).
    unsafe { out.write(std::ptr::null_mut()) };
    guard(|| {
        let object = Box::new(make()?);
        // SAFETY: as above.
        unsafe { out.write(Box::into_raw(object)) };
        Ok(())
    })
}

/// The message of the last failed call on this thread, or "" if none has failed. The
/// pointer stays valid until the next simdcrypt call on this thread; copy it to keep it.
///
/// Thread safety: the message is per thread; any thread may call this.
#[no_mangle]
pub extern "C" fn simdcrypt_last_error() -> *const c_char {
    static EMPTY: &CStr = c"";
    catch_unwind(|| LAST_ERROR.try_with(|slot| slot.try_borrow().map(|s| s.as_ptr()).unwrap_or(EMPTY.as_ptr())))
        .ok()
        .and_then(|r| r.ok())
        .unwrap_or(EMPTY.as_ptr())
}
