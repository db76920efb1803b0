//! What the entry points are handed: the options struct, and the checked conversions of C
//! pointers into slices, strings, arrays and the library's option types.

use std::ffi::{c_char, CStr};

use simdcrypt::any::HashOptions;
use simdcrypt::threads::Threads;

use crate::status::{Failure, Result, SimdcryptStatus};
use crate::SIMDCRYPT_THREADS_AUTO;

/// Options for creating a hasher by name. A zero-initialised struct (`{0}`) means: no key,
/// no context, the best backend, the caller's thread only. The struct is read during the
/// call only; its pointers need not outlive it.
#[repr(C)]
#[derive(Debug)]
pub struct SimdcryptOptions {
    /// A key (BLAKE3 keyed hash: 32 bytes; HighwayHash requires 32 bytes), or NULL.
    pub key: *const u8,
    /// The length of `key` in bytes.
    pub key_len: usize,
    /// BLAKE3 key derivation context, a NUL-terminated UTF-8 string, or NULL.
    pub derive_key_context: *const c_char,
    /// A backend name ("portable", "avx2", ...), NUL-terminated, or NULL for the best one.
    pub backend: *const c_char,
    /// Threads one large update may use: 0 or 1 (one), `n`, or `SIMDCRYPT_THREADS_AUTO`.
    pub threads: usize,
}

/// The checks a buffer passes before it becomes a slice: `Ok(false)` for an empty one (its
/// pointer is never read, so NULL is fine), `Ok(true)` for a non-NULL one of a length a
/// slice can have.
fn check_buffer(is_null: bool, len: usize, what: &str) -> Result<bool> {
    if len == 0 {
        return Ok(false);
    }
    if is_null {
        return Err(Failure::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Failure::too_large(format!("{what}: length {len}")));
    }
    Ok(true)
}

/// `len` bytes at `ptr` as a slice; NULL is allowed only for `len == 0`.
///
/// # Safety
///
/// Unless NULL, `ptr` must be valid for reads of `len` bytes, unchanged by others, for `'a`:
/// the contract every function's header comment states for its input buffers.
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if !check_buffer(ptr.is_null(), len, what)? {
        return Ok(&[]);
    }
    // SAFETY: non-NULL, length within isize::MAX (checked above); validity for reads of
    // `len` bytes for 'a is the caller's contract (see the function's doc).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// `len` writable bytes at `ptr` as a slice; NULL is allowed only for `len == 0`.
///
/// # Safety
///
/// Unless NULL, `ptr` must be valid for reads and writes of `len` bytes, accessed by no
/// one else, for `'a`: the contract the header states for output buffers.
pub(crate) unsafe fn output<'a>(ptr: *mut u8, len: usize, what: &str) -> Result<&'a mut [u8]> {
    if !check_buffer(ptr.is_null(), len, what)? {
        return Ok(&mut []);
    }
    // SAFETY: non-NULL, length within isize::MAX (checked above); exclusive validity for
    // `len` bytes for 'a is the caller's contract (see the function's doc).
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A NUL-terminated UTF-8 string.
///
/// # Safety
///
/// Unless NULL, `ptr` must point to a NUL-terminated string valid for reads for `'a`.
pub(crate) unsafe fn string<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-NULL; NUL termination and validity are the caller's contract.
    let s = unsafe { CStr::from_ptr(ptr) };
    s.to_str().map_err(|_| Failure::new(SimdcryptStatus::InvalidArgument, format!("{what} is not valid UTF-8")))
}

/// An optional NUL-terminated UTF-8 string (NULL: none), copied.
///
/// # Safety
///
/// As [`string`].
unsafe fn optional_string(ptr: *const c_char, what: &str) -> Result<Option<String>> {
    // SAFETY: forwarded contract, for a non-NULL pointer.
    (!ptr.is_null()).then(|| unsafe { string(ptr, what) }.map(str::to_string)).transpose()
}

/// A fixed-size array read through a pointer.
///
/// # Safety
///
/// Unless NULL, `ptr` must be valid for reads of `N` bytes.
pub(crate) unsafe fn array<const N: usize>(ptr: *const u8, what: &str) -> Result<[u8; N]> {
    // SAFETY: forwarded contract: `ptr` is valid for `N` bytes.
    let bytes = unsafe { input(ptr, N, what)? };
    Ok(bytes.try_into().expect("the slice has N bytes"))
}

/// The library's thread setting for a C `threads` value.
pub(crate) fn threads(n: usize) -> Threads {
    match n {
        0 | 1 => Threads::One,
        SIMDCRYPT_THREADS_AUTO => Threads::Auto,
        n => Threads::Max(n),
    }
}

/// `count * unit` as a byte length, or an error naming `what`.
pub(crate) fn byte_len(count: u64, unit: usize, what: &str) -> Result<usize> {
    usize::try_from(count)
        .ok()
        .and_then(|c| c.checked_mul(unit))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Failure::too_large(format!("{what}: {count} x {unit} bytes")))
}

/// Reads the options (NULL: the defaults).
///
/// # Safety
///
/// Unless NULL, `opts` must point to a valid `SimdcryptOptions` whose pointers satisfy its
/// field docs.
#[allow(clippy::field_reassign_with_default)]
pub(crate) unsafe fn options(opts: *const SimdcryptOptions) -> Result<HashOptions> {
    // SAFETY: `opts` is NULL or valid for reads (the caller's contract).
    let Some(o) = (unsafe { opts.as_ref() }) else {
        return Ok(HashOptions::default());
    };
    let key = if o.key.is_null() {
        if o.key_len != 0 {
            return Err(Failure::null("options.key (options.key_len is not 0)"));
        }
        None
    } else {
        // SAFETY: non-NULL `key` is valid for `key_len` bytes (the struct's contract).
        Some(unsafe { input(o.key, o.key_len, "options.key")? }.to_vec())
    };
    // Assigned field by field so that options added to `HashOptions` later keep defaults.
    let mut opts = HashOptions::default();
    opts.key = key;
    // SAFETY: each string is NULL or NUL-terminated (the struct's contract).
    opts.derive_key_context = unsafe { optional_string(o.derive_key_context, "options.derive_key_context")? };
    // SAFETY: as above.
    opts.backend = unsafe { optional_string(o.backend, "options.backend")? };
    opts.threads = threads(o.threads);
    Ok(opts)
}
