//! simdcrypt: fast, verified cryptographic primitives with SIMD kernels chosen at run time.
//!
//! Every algorithm has a portable implementation and SIMD backends; the best one this CPU
//! supports is picked once per hasher (see [`cpu`] and [`backend::Backend`]), and every
//! backend gives bit-identical results.
//!
//! ```
//! let digest = simdcrypt::blake3::hash(b"hello");
//! println!("{}", simdcrypt::to_hex(&digest));
//!
//! // Force a backend (for testing or benchmarking); asking for one the CPU lacks is an error.
//! use simdcrypt::backend::Backend;
//! let portable = simdcrypt::blake3::Platform::from_name("portable").unwrap();
//! let mut hasher = simdcrypt::blake3::Hasher::new();
//! hasher.set_platform(portable).update(b"hello");
//! assert_eq!(hasher.finalize(), digest);
//! ```
//!
//! # Cargo features
//!
//! - `rayon` (default): multi-threaded hashing of one large input
//!   ([`blake3::Hasher::set_max_threads`]). Without it every hash runs on the caller's
//!   thread.
//! - `cuda`: the GPU batches of [`cuda`] on NVIDIA GPUs, with the CUDA driver and NVRTC
//!   loaded at run time (nothing CUDA is needed to build).
//! - `cuda-emulation`: the same CUDA kernels compiled by the host C++ compiler and run on
//!   the CPU (`cuda::Emulated`), for testing them without a GPU.
//! - `digest` (default): the RustCrypto `digest` 0.10 traits for every hash and keyed hash
//!   ([`rustcrypto`]), for `Digest`, `hmac::SimpleHmac` and `hkdf::SimpleHkdf`.
//!
//! ## What this file holds
//!
//! crate docs, `ALGORITHMS` and `backend_report()` (both from the registry), `to_hex`

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod any;
pub mod atomic_file;
pub mod backend;
pub mod blake3;
mod block_buffer;
pub mod check_line;
pub mod chunking;
pub mod cpu;
pub mod cuda;
mod error;
pub mod gost94;
pub mod highwayhash;
pub mod mac;
pub mod manifest;
#[cfg(all(feature = "mmap", target_os = "linux"))]
mod map_guard;
pub mod registry;
#[cfg(feature = "digest")]
pub mod rustcrypto;
pub mod salsa20;
pub mod sha256;
mod simd;
pub mod state;
pub mod streaming;
pub mod streebog;
#[cfg(test)]
mod test_rng;
pub mod threads;
pub mod tree;
pub mod walk;

pub use error::Error;

/// The names of the hash algorithms this build provides, as used by `new()`, `hash_file` and
/// the CLI's `-a`: the names of [`registry::REGISTRY`], in its order.
pub static ALGORITHMS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| registry::REGISTRY.iter().map(|a| a.name).collect());

/// Which backend each kernel family would pick on this CPU, and which it could use: one
/// entry per backend family of [`registry::REGISTRY`] (`"highwayhash"` for all three
/// sizes, `"streebog"` for both, `"gost94"` for both parameter sets), then
/// `"sha256-batch"` ([`sha256::BatchPlatform`]) and `"salsa20"` ([`salsa20::Platform`]).
pub fn backend_report() -> Vec<backend::BackendReport> {
    registry::backend_report()
}

/// Reads until `buf` is full or the input ends (retrying interrupted reads); returns how
/// many bytes were read, fewer than `buf.len()` only at the end of the input. The one copy
/// of this loop for the library's readers and the command line's.
pub fn read_full(input: &mut (impl std::io::Read + ?Sized), buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Lower-case hexadecimal.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    push_hex(&mut s, bytes);
    s
}

/// Appends `bytes` in lower-case hexadecimal to `out` (no allocation beyond its growth).
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * bytes.len());
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
}
