//! What the library is: its version and the names of its algorithms.

use std::ffi::{c_char, CStr, CString};

/// The library version, e.g. "0.1.0" (a static string).
///
/// Thread safety: safe from any thread.
#[no_mangle]
pub extern "C" fn simdcrypt_version() -> *const c_char {
    static VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => panic!("the version has no interior NUL"),
    };
    VERSION.as_ptr()
}

/// The number of algorithm names `simdcrypt_algorithm_name` knows.
///
/// Thread safety: safe from any thread.
#[no_mangle]
pub extern "C" fn simdcrypt_algorithm_count() -> usize {
    simdcrypt::ALGORITHMS.len()
}

/// The name of algorithm `index` (0 .. `simdcrypt_algorithm_count()`), a static
/// NUL-terminated string such as "blake3"; NULL for an index out of range. These are the
/// names `simdcrypt_hash` and `simdcrypt_hasher_new` accept.
///
/// Thread safety: safe from any thread.
#[no_mangle]
pub extern "C" fn simdcrypt_algorithm_name(index: usize) -> *const c_char {
    algorithm_names().get(index).map_or(std::ptr::null(), |s| s.as_ptr())
}

/// `simdcrypt::ALGORITHMS` as C strings, built once and kept for the life of the process.
pub(crate) fn algorithm_names() -> &'static [CString] {
    static NAMES: std::sync::OnceLock<Vec<CString>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        simdcrypt::ALGORITHMS.iter().map(|n| CString::new(*n).expect("algorithm names have no NUL")).collect()
    })
}
