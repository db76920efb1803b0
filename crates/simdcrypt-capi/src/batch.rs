//! Many messages in one call: hashtree-style SHA-256 of 64-byte blocks, SSZ Merkle roots,
//! BLAKE3 of a batch of messages.

use std::ffi::{c_int, c_uchar};

use simdcrypt::blake3;
use simdcrypt::sha256::{self, BlockBatch};
use simdcrypt::Error;

use crate::args::{byte_len, input, options, output, threads, SimdcryptOptions};
use crate::status::{guard, Failure, Result, SimdcryptStatus};

/// SHA-256 of each of `count` 64-byte blocks of `input`, each block hashed as a whole
/// message, written as `count` 32-byte digests to `output`: hashtree's
/// `hashtree_hash(output, input, count)` contract, so switching is a one-line change.
/// Uses the best kernels for this CPU, on the caller's thread.
///
/// `input` must be readable for `64 * count` bytes and `output` writable for `32 * count`
/// bytes; they must not overlap. This function has no return value, like hashtree's: on
/// invalid arguments (a NULL pointer with `count > 0`, a size that overflows) it writes
/// nothing and sets `simdcrypt_last_error()`. Use `simdcrypt_sha256_many_threads` to get a
/// status code.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// The buffer contract above.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_sha256_many(output: *mut c_uchar, input: *const c_uchar, count: u64) {
    // SAFETY: the same contract, forwarded (`unsigned char` is `uint8_t`); one thread.
    let _ = unsafe { simdcrypt_sha256_many_threads(output, input, count, 1) };
}

/// `simdcrypt_sha256_many` with a thread count (0 or 1: the caller's thread; `n`: at most
/// `n`; `SIMDCRYPT_THREADS_AUTO`), returning a status code.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `input` readable for `64 * count` bytes, `output` writable for `32 * count` bytes, not
/// overlapping.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_sha256_many_threads(
    output: *mut u8,
    input: *const u8,
    count: u64,
    threads: usize,
) -> c_int {
    guard(|| {
        let in_len = byte_len(count, sha256::BLOCK_LEN, "input")?;
        let out_len = byte_len(count, sha256::OUT_LEN, "output")?;
        // SAFETY: `input` is readable for 64 * count bytes (the documented contract).
        let blocks = unsafe { self::input(input, in_len, "input")? };
        // SAFETY: `output` is writable for 32 * count bytes and does not overlap `input`.
        let out = unsafe { self::output(output, out_len, "output")? };
        let mut batch = BlockBatch::new();
        batch.set_max_threads(self::threads(threads));
        batch.hash_into(blocks, out)?;
        Ok(())
    })
}

/// The SSZ Merkle root of `leaf_count` 32-byte leaves at `leaves`, written to `out` (32
/// bytes). `depth < 0`: the smallest tree that holds the leaves (one leaf is its own root;
/// none give 32 zero bytes). `depth >= 0`: a tree of `2^depth` leaf slots (`depth` at most
/// 64 and `leaf_count` at most `2^depth`), the slots after the leaves zero. `threads` as
/// in `simdcrypt_sha256_many_threads`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `leaves` readable for `32 * leaf_count` bytes (NULL allowed when 0); `out` writable for
/// 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_merkle_root(
    out: *mut u8,
    leaves: *const u8,
    leaf_count: u64,
    depth: i32,
    threads: usize,
) -> c_int {
    guard(|| {
        let len = byte_len(leaf_count, 32, "leaves")?;
        // SAFETY: `leaves` is readable for 32 * leaf_count bytes (the documented contract).
        let leaves = unsafe { input(leaves, len, "leaves")? };
        // SAFETY: `out` is writable for 32 bytes.
        let out = unsafe { output(out, 32, "out")? };
        let mut batch = BlockBatch::new();
        batch.set_max_threads(self::threads(threads));
        let depth = u32::try_from(depth).ok();
        out.copy_from_slice(&sha256::merkle_root(leaves, depth, &batch)?);
        Ok(())
    })
}

/// BLAKE3 of `count` messages at once: message `i` is `lengths[i]` bytes at `inputs[i]`;
/// `out_len` bytes of its digest go to `output + i * out_len` (`output` holds
/// `count * out_len` bytes). `opts` (NULL: defaults) may give a 32-byte key (keyed hash)
/// or a derive-key context, a backend and a thread count; messages are shared out between
/// threads by size.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `inputs` and `lengths` readable for `count` elements each; each `inputs[i]` readable for
/// `lengths[i]` bytes (NULL allowed when that length is 0); `output` writable for
/// `count * out_len` bytes, overlapping no input.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_blake3_many(
    inputs: *const *const u8,
    lengths: *const usize,
    count: usize,
    opts: *const SimdcryptOptions,
    output: *mut u8,
    out_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: `opts` is NULL or valid (the documented contract).
        let opts = unsafe { options(opts)? };
        if count == 0 {
            return Ok(());
        }
        if inputs.is_null() {
            return Err(Failure::null("inputs"));
        }
        if lengths.is_null() {
            return Err(Failure::null("lengths"));
        }
        let total = count
            .checked_mul(out_len)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| Failure::too_large("count x out_len"))?;
        // SAFETY: non-NULL (checked); readable for `count` elements (the contract); the
        // caller's arrays of pointers and lengths are naturally aligned C arrays.
        let (ptrs, lens) =
            unsafe { (std::slice::from_raw_parts(inputs, count), std::slice::from_raw_parts(lengths, count)) };
        let messages = ptrs
            .iter()
            .zip(lens)
            .enumerate()
            // SAFETY: `inputs[i]` is readable for `lengths[i]` bytes (the contract).
            .map(|(i, (&p, &n))| unsafe { input(p, n, &format!("inputs[{i}]")) })
            .collect::<Result<Vec<&[u8]>>>()?;
        // SAFETY: `output` is writable for count * out_len bytes, overlapping no input.
        let out = unsafe { self::output(output, total, "output")? };
        let mode_key: [u8; blake3::KEY_LEN];
        let mode = match (&opts.key, &opts.derive_key_context) {
            (Some(_), Some(_)) => {
                return Err(Failure::new(SimdcryptStatus::InvalidArgument, "blake3 takes a key or a context, not both"))
            }
            (Some(key), None) => {
                mode_key = key.as_slice().try_into().map_err(|_| {
                    Failure::from(Error::InvalidLength {
                        what: "blake3 key",
                        expected: blake3::KEY_LEN,
                        got: key.len(),
                    })
                })?;
                blake3::Mode::KeyedHash(&mode_key)
            }
            (None, Some(context)) => blake3::Mode::DeriveKey(context),
            (None, None) => blake3::Mode::Hash,
        };
        let mut batch = blake3::Batch::new(mode);
        if let Some(name) = &opts.backend {
            batch.set_platform(blake3::Platform::from_name(name)?);
        }
        batch.set_max_threads(opts.threads);
        batch.hash_into(&messages, out_len, out)?;
        Ok(())
    })
}
