//! The C ABI of simdcrypt: `libsimdcrypt_capi.so` / `.a` and `include/simdcrypt.h`.
//!
//! Every entry point catches panics (none crosses the ABI), checks its pointers before
//! turning them into slices, and reports failure as a negative [`SimdcryptStatus`] with a
//! message in [`simdcrypt_last_error`]. The header is generated from this crate by cbindgen
//! (`cbindgen.toml`), which reads the modules in the order they are declared here, so that
//! order is the header's order; the doc comments are the header's documentation, so they
//! speak C. `tests/header.rs` fails when the checked-in header is stale.
//!
//! | module | what it holds |
//! | --- | --- |
//! | `status` | status codes, the thread-local message, the panic guard around every entry point |
//! | `args` | the options struct and the checked conversions of C pointers into slices and strings |
//! | `info` | version and algorithm names |
//! | `batch` | many messages in one call: hashtree-style SHA-256 blocks, Merkle roots, BLAKE3 batches |
//! | `hash` | hashing by algorithm name, one-shot and streaming handles; HMAC-Streebog |
//! | `cipher` | Salsa20, XSalsa20 and secretbox |

// The order below is the header's order of declarations (cbindgen follows it); rustfmt
// keeps it because each declaration stands alone.
mod status;

mod args;

mod info;

mod batch;

mod hash;

mod cipher;

pub use args::SimdcryptOptions;
pub use batch::{simdcrypt_blake3_many, simdcrypt_merkle_root, simdcrypt_sha256_many, simdcrypt_sha256_many_threads};
pub use cipher::{simdcrypt_salsa20_xor, simdcrypt_secretbox_open, simdcrypt_secretbox_seal, simdcrypt_xsalsa20_xor};
pub use hash::{
    simdcrypt_hash, simdcrypt_hash_with, simdcrypt_hasher_algorithm, simdcrypt_hasher_clone, simdcrypt_hasher_finalize,
    simdcrypt_hasher_free, simdcrypt_hasher_new, simdcrypt_hasher_output_len, simdcrypt_hasher_reset,
    simdcrypt_hasher_update, simdcrypt_hmac_streebog, SimdcryptHasher,
};
pub use info::{simdcrypt_algorithm_count, simdcrypt_algorithm_name, simdcrypt_version};
pub use status::{simdcrypt_last_error, SimdcryptStatus};

/// `threads` value: every CPU, for inputs large enough to gain from them (32 MiB and up).
/// 0 and 1 mean the caller's thread only; `n > 1` means at most `n` threads, used for
/// inputs of 256 KiB and more. (The header defines it as `SIZE_MAX`: cbindgen cannot
/// evaluate `usize::MAX`, so `cbindgen.toml` writes the define.)
pub const SIMDCRYPT_THREADS_AUTO: usize = usize::MAX;

/// SHA-256 digest length in bytes.
pub const SIMDCRYPT_SHA256_LEN: usize = 32;
/// BLAKE3 key length in bytes (also HighwayHash's).
pub const SIMDCRYPT_KEY_LEN: usize = 32;
/// Salsa20 nonce length in bytes.
pub const SIMDCRYPT_SALSA20_NONCE_LEN: usize = 8;
/// XSalsa20 and secretbox nonce length in bytes.
pub const SIMDCRYPT_XSALSA20_NONCE_LEN: usize = 24;
/// Bytes a secretbox adds to its plaintext (the Poly1305 tag, stored first).
pub const SIMDCRYPT_SECRETBOX_TAG_LEN: usize = 16;
