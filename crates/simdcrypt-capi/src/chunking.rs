//! The Xet file hash (Hugging Face Hub `xetHash`) of a file, by path. (The Xet hash of bytes
//! in memory is `simdcrypt_hash("xet", ...)`: its 32 digest bytes, printed as hex, are the
//! Xet text.)

use std::ffi::{c_char, c_int};
use std::path::Path;

use simdcrypt::chunking::xet_hash_file;

use crate::args::{output, string, threads as thread_setting};
use crate::status::{guard, Failure, SimdcryptStatus};

/// The length of the buffer `simdcrypt_xet_hash_file` writes: 64 hex digits and a NUL.
pub const SIMDCRYPT_XET_HEX_LEN: usize = 65;

/// Writes the Xet hash of the file at `path` (what `hf_xet.hash_files` and the Hub's
/// `xetHash` give) into `hex_out` as 64 lower-case hex digits and a NUL
/// (`SIMDCRYPT_XET_HEX_LEN` bytes). `threads`: 0 or 1 (one), `n`, or
/// `SIMDCRYPT_THREADS_AUTO`. The file is read a window at a time (memory stays bounded
/// whatever its size); a file that cannot be read, or shrinks meanwhile, is
/// `SIMDCRYPT_STATUS_IO_ERROR`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `path` a NUL-terminated UTF-8 string; `hex_out` writable for `hex_out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_xet_hash_file(
    path: *const c_char,
    threads: usize,
    hex_out: *mut c_char,
    hex_out_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: each pointer satisfies the documented contract.
        let (path, out) = unsafe { (string(path, "path")?, output(hex_out.cast::<u8>(), hex_out_len, "hex_out")?) };
        if out.len() != SIMDCRYPT_XET_HEX_LEN {
            return Err(Failure::new(
                SimdcryptStatus::InvalidLength,
                format!("hex_out must be {SIMDCRYPT_XET_HEX_LEN} bytes, got {}", out.len()),
            ));
        }
        let hex = xet_hash_file(Path::new(path), thread_setting(threads))?.to_hex();
        out[..64].copy_from_slice(hex.as_bytes());
        out[64] = 0;
        Ok(())
    })
}
