//! Hashing by algorithm name: one-shot (`simdcrypt_hash`), streaming handles
//! (`simdcrypt_hasher_*`), and HMAC-Streebog.

use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};

use simdcrypt::any::AnyHasher;
use simdcrypt::streebog;
use simdcrypt::Error;

use crate::args::{input, options, output, string, SimdcryptOptions};
use crate::info::algorithm_names;
use crate::status::{guard, guard_new, Failure, Result, SimdcryptStatus};

/// A streaming hasher of any algorithm. Create with `simdcrypt_hasher_new`, free with
/// `simdcrypt_hasher_free`.
///
/// Thread safety: a handle is not synchronised. Use it from one thread at a time (it may
/// move between threads); distinct handles are independent.
#[derive(Debug)]
pub struct SimdcryptHasher {
    /// The state as created, for `simdcrypt_hasher_reset`.
    initial: AnyHasher,
    current: AnyHasher,
}

/// One-shot hash of `len` bytes at `data` with the algorithm named `algorithm` (a name from
/// `simdcrypt_algorithm_name`, case-insensitive), writing `out_len` bytes to `out`.
/// `out_len` must be the algorithm's digest length, except for BLAKE3 (an extendable-output
/// function: any length). HighwayHash needs a key: use `simdcrypt_hash_with`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `algorithm` a NUL-terminated string; `data` readable for `len` bytes (NULL allowed when
/// 0); `out` writable for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hash(
    algorithm: *const c_char,
    data: *const u8,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    // SAFETY: the same contract, forwarded, with default options.
    unsafe { simdcrypt_hash_with(algorithm, std::ptr::null(), data, len, out, out_len) }
}

/// `simdcrypt_hash` with options (NULL: defaults): a key (keyed BLAKE3, HighwayHash), a
/// BLAKE3 derive-key context, a backend, threads. An option the algorithm does not take is
/// an error, never ignored.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// As `simdcrypt_hash`; `opts` NULL or a valid `SimdcryptOptions`.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hash_with(
    algorithm: *const c_char,
    opts: *const SimdcryptOptions,
    data: *const u8,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: each pointer satisfies the documented contract.
        let (name, opts, data, out) = unsafe {
            (string(algorithm, "algorithm")?, options(opts)?, input(data, len, "data")?, output(out, out_len, "out")?)
        };
        let mut hasher = AnyHasher::new(name, &opts)?;
        hasher.update(data);
        out.copy_from_slice(&hasher.finalize(Some(out_len))?);
        Ok(())
    })
}

/// Creates a streaming hasher for `algorithm` with `opts` (NULL: defaults) and stores it in
/// `*out`; free it with `simdcrypt_hasher_free`. On failure `*out` is set to NULL.
///
/// Thread safety: safe from any thread; the new handle belongs to the caller.
///
/// # Safety
///
/// `algorithm` a NUL-terminated string, `opts` NULL or valid, `out` a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_new(
    algorithm: *const c_char,
    opts: *const SimdcryptOptions,
    out: *mut *mut SimdcryptHasher,
) -> c_int {
    // SAFETY: `out` NULL or writable, `algorithm` and `opts` as documented.
    unsafe {
        guard_new(out, || {
            let (name, opts) = (string(algorithm, "algorithm")?, options(opts)?);
            let hasher = AnyHasher::new(name, &opts)?;
            Ok(SimdcryptHasher { initial: hasher.clone(), current: hasher })
        })
    }
}

/// Borrows a handle.
///
/// # Safety
///
/// `h` NULL or a live handle from `simdcrypt_hasher_new`/`_clone`, used by no other thread.
unsafe fn handle<'a>(h: *mut SimdcryptHasher) -> Result<&'a mut SimdcryptHasher> {
    // SAFETY: the documented contract: NULL or live and unshared.
    unsafe { h.as_mut() }.ok_or_else(|| Failure::null("hasher"))
}

/// Adds `len` bytes at `data` to the hasher.
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` a live handle; `data` readable for `len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_update(h: *mut SimdcryptHasher, data: *const u8, len: usize) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (h, data) = unsafe { (handle(h)?, input(data, len, "data")?) };
        h.current.update(data);
        Ok(())
    })
}

/// Writes `out_len` bytes of the digest of the input so far to `out` (the digest length,
/// or any length for BLAKE3). The hasher is unchanged: more input may follow.
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` a live handle; `out` writable for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_finalize(h: *mut SimdcryptHasher, out: *mut u8, out_len: usize) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (h, out) = unsafe { (handle(h)?, output(out, out_len, "out")?) };
        out.copy_from_slice(&h.current.finalize(Some(out_len))?);
        Ok(())
    })
}

/// Returns the hasher to its state when created (same algorithm, key, backend).
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` a live handle.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_reset(h: *mut SimdcryptHasher) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let h = unsafe { handle(h)? };
        h.current = h.initial.clone();
        Ok(())
    })
}

/// Stores in `*out` an independent copy of the hasher, state included; free it with
/// `simdcrypt_hasher_free`. On failure `*out` is set to NULL.
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` a live handle; `out` a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_clone(h: *mut SimdcryptHasher, out: *mut *mut SimdcryptHasher) -> c_int {
    // SAFETY: `out` NULL or writable, `h` as documented.
    unsafe {
        guard_new(out, || {
            let h = handle(h)?;
            Ok(SimdcryptHasher { initial: h.initial.clone(), current: h.current.clone() })
        })
    }
}

/// The default digest length of the hasher's algorithm in bytes (0 for a NULL handle).
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_output_len(h: *const SimdcryptHasher) -> usize {
    // SAFETY: NULL or live (the documented contract).
    unsafe { h.as_ref() }.map_or(0, |h| h.current.default_output_len())
}

/// The hasher's algorithm name, a static string (NULL for a NULL handle).
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_algorithm(h: *const SimdcryptHasher) -> *const c_char {
    // SAFETY: NULL or live (the documented contract).
    let Some(h) = (unsafe { h.as_ref() }) else { return std::ptr::null() };
    let name = h.current.algorithm();
    algorithm_names().iter().find(|n| n.to_bytes() == name.as_bytes()).map_or(std::ptr::null(), |n| n.as_ptr())
}

/// Frees a hasher; NULL is ignored. The handle must not be used afterwards.
///
/// Thread safety: one thread at a time per handle.
///
/// # Safety
///
/// `h` NULL or a live handle, not freed before.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hasher_free(h: *mut SimdcryptHasher) {
    if h.is_null() {
        return;
    }
    // SAFETY: a live handle from Box::into_raw (the documented contract), freed once. Drop
    // of the hasher does not panic; catch it anyway so nothing unwinds into C.
    let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(h) })));
}

/// HMAC-Streebog (R 50.1.113-2016) of `len` bytes at `data` under a key of any length:
/// `out_len` must be 32 (`bits` 256) or 64 (`bits` 512).
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for `key_len` bytes, `data` for `len` bytes (NULL allowed when the
/// length is 0); `out` writable for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_hmac_streebog(
    bits: u32,
    key: *const u8,
    key_len: usize,
    data: *const u8,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (key, data, out) =
            unsafe { (input(key, key_len, "key")?, input(data, len, "data")?, output(out, out_len, "out")?) };
        let expected = match bits {
            256 => 32,
            512 => 64,
            _ => {
                return Err(Failure::new(
                    SimdcryptStatus::InvalidArgument,
                    format!("bits must be 256 or 512, got {bits}"),
                ))
            }
        };
        if out_len != expected {
            return Err(Error::InvalidLength { what: "HMAC-Streebog output", expected, got: out_len }.into());
        }
        match bits {
            256 => out.copy_from_slice(&streebog::hmac256(key, data)),
            _ => out.copy_from_slice(&streebog::hmac512(key, data)),
        }
        Ok(())
    })
}
