//! The C ABI of simdcrypt: `libsimdcrypt_capi.so` / `.a` and `include/simdcrypt.h`.
//!
//! Every entry point catches panics (none crosses the ABI), checks its pointers before
//! turning them into slices, and reports failure as a negative [`SimdcryptStatus`] with a
//! message in [`simdcrypt_last_error`]. The header is generated from this file by cbindgen
//! (`cbindgen.toml`); the doc comments here are the header's documentation, so they speak
//! C. `tests/header.rs` fails when the checked-in header is stale.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uchar, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::blake3;
use simdcrypt::salsa20::{self, secretbox, Rounds, Salsa20, XSalsa20};
use simdcrypt::sha256::{self, BlockBatch};
use simdcrypt::streebog;
use simdcrypt::threads::Threads;
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
}

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

/// A failure on its way to a status code and a message.
struct Failure {
    status: SimdcryptStatus,
    message: String,
}

impl Failure {
    fn new(status: SimdcryptStatus, message: impl Into<String>) -> Self {
        Failure { status, message: message.into() }
    }

    fn null(what: &str) -> Self {
        Failure::new(SimdcryptStatus::NullPointer, format!("{what} is NULL"))
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let status = match e {
            Error::UnknownBackend { .. } | Error::UnsupportedBackend { .. } => SimdcryptStatus::UnsupportedBackend,
            Error::InvalidLength { .. } => SimdcryptStatus::InvalidLength,
            _ => SimdcryptStatus::InvalidArgument,
        };
        Failure::new(status, e.to_string())
    }
}

type Result<T> = std::result::Result<T, Failure>;

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
fn guard(f: impl FnOnce() -> Result<()>) -> c_int {
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

/// `len` bytes at `ptr` as a slice; NULL is allowed only for `len == 0`.
///
/// # Safety
///
/// Unless NULL, `ptr` must be valid for reads of `len` bytes, unchanged by others, for `'a`:
/// the contract every function's header comment states for its input buffers.
unsafe fn input<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Failure::new(SimdcryptStatus::InvalidLength, format!("{what}: length {len} is too large")));
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
unsafe fn output<'a>(ptr: *mut u8, len: usize, what: &str) -> Result<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    if len > isize::MAX as usize {
        return Err(Failure::new(SimdcryptStatus::InvalidLength, format!("{what}: length {len} is too large")));
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
unsafe fn string<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-NULL; NUL termination and validity are the caller's contract.
    let s = unsafe { CStr::from_ptr(ptr) };
    s.to_str().map_err(|_| Failure::new(SimdcryptStatus::InvalidArgument, format!("{what} is not valid UTF-8")))
}

/// A fixed-size array read through a pointer.
///
/// # Safety
///
/// Unless NULL, `ptr` must be valid for reads of `N` bytes.
unsafe fn array<const N: usize>(ptr: *const u8, what: &str) -> Result<[u8; N]> {
    // SAFETY: forwarded contract: `ptr` is valid for `N` bytes.
    let bytes = unsafe { input(ptr, N, what)? };
    Ok(bytes.try_into().expect("the slice has N bytes"))
}

/// The library's thread setting for a C `threads` value.
fn threads(n: usize) -> Threads {
    match n {
        0 | 1 => Threads::One,
        SIMDCRYPT_THREADS_AUTO => Threads::Auto,
        n => Threads::Max(n),
    }
}

/// `count * unit` as a byte length, or an error naming `what`.
fn byte_len(count: u64, unit: usize, what: &str) -> Result<usize> {
    usize::try_from(count).ok().and_then(|c| c.checked_mul(unit)).filter(|&n| n <= isize::MAX as usize).ok_or_else(
        || Failure::new(SimdcryptStatus::InvalidLength, format!("{what}: {count} x {unit} bytes is too large")),
    )
}

/// Reads the options (NULL: the defaults).
///
/// # Safety
///
/// Unless NULL, `opts` must point to a valid `SimdcryptOptions` whose pointers satisfy its
/// field docs.
#[allow(clippy::field_reassign_with_default)]
unsafe fn options(opts: *const SimdcryptOptions) -> Result<HashOptions> {
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
    let derive_key_context = if o.derive_key_context.is_null() {
        None
    } else {
        // SAFETY: non-NULL, NUL-terminated (the struct's contract).
        Some(unsafe { string(o.derive_key_context, "options.derive_key_context")? }.to_string())
    };
    let backend = if o.backend.is_null() {
        None
    } else {
        // SAFETY: non-NULL, NUL-terminated (the struct's contract).
        Some(unsafe { string(o.backend, "options.backend")? }.to_string())
    };
    // Assigned field by field so that options added to `HashOptions` later keep defaults.
    let mut opts = HashOptions::default();
    opts.key = key;
    opts.derive_key_context = derive_key_context;
    opts.backend = backend;
    opts.threads = threads(o.threads);
    Ok(opts)
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
fn algorithm_names() -> &'static [CString] {
    static NAMES: std::sync::OnceLock<Vec<CString>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        simdcrypt::ALGORITHMS.iter().map(|n| CString::new(*n).expect("algorithm names have no NUL")).collect()
    })
}

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
            .ok_or_else(|| Failure::new(SimdcryptStatus::InvalidLength, "count x out_len is too large"))?;
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
    if out.is_null() {
        set_last_error("out is NULL");
        return SimdcryptStatus::NullPointer as c_int;
    }
    // SAFETY: `out` is non-NULL and writable (the documented contract).
    unsafe { out.write(std::ptr::null_mut()) };
    guard(|| {
        // SAFETY: `algorithm` and `opts` satisfy the documented contract.
        let (name, opts) = unsafe { (string(algorithm, "algorithm")?, options(opts)?) };
        let hasher = AnyHasher::new(name, &opts)?;
        let handle = Box::new(SimdcryptHasher { initial: hasher.clone(), current: hasher });
        // SAFETY: as above.
        unsafe { out.write(Box::into_raw(handle)) };
        Ok(())
    })
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
    if out.is_null() {
        set_last_error("out is NULL");
        return SimdcryptStatus::NullPointer as c_int;
    }
    // SAFETY: `out` is non-NULL and writable (the documented contract).
    unsafe { out.write(std::ptr::null_mut()) };
    guard(|| {
        // SAFETY: the documented contract.
        let h = unsafe { handle(h)? };
        let copy = Box::new(SimdcryptHasher { initial: h.initial.clone(), current: h.current.clone() });
        // SAFETY: as above.
        unsafe { out.write(Box::into_raw(copy)) };
        Ok(())
    })
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

/// The shared body of the two stream ciphers: `output = input XOR keystream` from block
/// `counter`, `input` and `output` equal, disjoint, or overlapping (then moved first).
///
/// # Safety
///
/// `input` readable and `output` writable for `len` bytes (NULL allowed when 0).
unsafe fn xor_stream(
    apply: impl FnOnce(Option<&[u8]>, &mut [u8]) -> std::result::Result<(), Error>,
    input: *const u8,
    output: *mut u8,
    len: usize,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    if input.is_null() {
        return Err(Failure::null("input"));
    }
    if output.is_null() {
        return Err(Failure::null("output"));
    }
    let (i, o) = (input as usize, output as usize);
    let disjoint = i.checked_add(len).is_some_and(|end| end <= o) || o.checked_add(len).is_some_and(|end| end <= i);
    if disjoint {
        // SAFETY: the buffers do not overlap (checked), so a shared and an exclusive slice
        // may coexist; validity for `len` bytes is the caller's contract.
        let (src, dst) = unsafe { (self::input(input, len, "input")?, self::output(output, len, "output")?) };
        apply(Some(src), dst)?;
    } else {
        if i != o {
            // SAFETY: both valid for `len` bytes (the contract); `copy` allows overlap.
            unsafe { std::ptr::copy(input, output, len) };
        }
        // SAFETY: `output` is writable for `len` bytes; `input` is not used again.
        let buf = unsafe { self::output(output, len, "output")? };
        apply(None, buf)?;
    }
    Ok(())
}

/// Salsa20 (`rounds` 20, 12 or 8) with a 32- or 16-byte key and an 8-byte nonce, from block
/// `counter` of the keystream: `output = input XOR keystream` over `len` bytes (encrypts
/// and decrypts). `input` and `output` may be the same buffer or overlap. Reaching past
/// the end of the keystream (2^70 bytes) is an error and writes nothing.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for `key_len` bytes, `nonce` for 8; `input` readable and `output`
/// writable for `len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_salsa20_xor(
    key: *const u8,
    key_len: usize,
    nonce: *const u8,
    rounds: u32,
    counter: u64,
    input: *const u8,
    output: *mut u8,
    len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (key, nonce) =
            unsafe { (self::input(key, key_len, "key")?, array::<{ salsa20::NONCE_LEN }>(nonce, "nonce")?) };
        let mut cipher = Salsa20::with_options(key, &nonce, Rounds::from_count(rounds)?)?;
        cipher.set_counter(counter);
        // SAFETY: the documented contract.
        unsafe {
            xor_stream(
                |src, dst| match src {
                    Some(src) => cipher.xor_keystream_into(src, dst),
                    None => cipher.xor_keystream(dst),
                },
                input,
                output,
                len,
            )
        }
    })
}

/// XSalsa20 (`rounds` 20, 12 or 8) with a 32-byte key and a 24-byte nonce; otherwise as
/// `simdcrypt_salsa20_xor`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24; `input` readable and `output` writable for
/// `len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_xsalsa20_xor(
    key: *const u8,
    nonce: *const u8,
    rounds: u32,
    counter: u64,
    input: *const u8,
    output: *mut u8,
    len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (key, nonce) =
            unsafe { (array::<{ salsa20::KEY_LEN }>(key, "key")?, array::<{ salsa20::XNONCE_LEN }>(nonce, "nonce")?) };
        let mut cipher = XSalsa20::with_options(&key, &nonce, Rounds::from_count(rounds)?)?;
        cipher.set_counter(counter);
        // SAFETY: the documented contract.
        unsafe {
            xor_stream(
                |src, dst| match src {
                    Some(src) => cipher.xor_keystream_into(src, dst),
                    None => cipher.xor_keystream(dst),
                },
                input,
                output,
                len,
            )
        }
    })
}

/// NaCl `crypto_secretbox_easy` (XSalsa20-Poly1305): writes the 16-byte tag followed by the
/// ciphertext of `len` plaintext bytes to `out`, which must be exactly `len + 16` bytes
/// (`out_len`). `out` may overlap `plaintext`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24, `plaintext` for `len` (NULL allowed when
/// 0); `out` writable for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_secretbox_seal(
    out: *mut u8,
    out_len: usize,
    plaintext: *const u8,
    len: usize,
    key: *const u8,
    nonce: *const u8,
) -> c_int {
    guard(|| {
        const TAG: usize = secretbox::TAG_LEN;
        // SAFETY: the documented contract.
        let (key, nonce) =
            unsafe { (array::<{ salsa20::KEY_LEN }>(key, "key")?, array::<{ salsa20::XNONCE_LEN }>(nonce, "nonce")?) };
        let expected =
            len.checked_add(TAG).ok_or_else(|| Failure::new(SimdcryptStatus::InvalidLength, "len is too large"))?;
        if out_len != expected {
            return Err(Error::InvalidLength { what: "secretbox output (len + 16)", expected, got: out_len }.into());
        }
        if len > 0 && plaintext.is_null() {
            return Err(Failure::null("plaintext"));
        }
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        if len > 0 {
            // SAFETY: `plaintext` is readable for `len` bytes and `out + 16` writable for as
            // many (the contract; `out_len == len + 16` was checked); `copy` is a memmove,
            // so overlap is fine, and no slice of either buffer is alive across it.
            unsafe { std::ptr::copy(plaintext, out.add(TAG), len) };
        }
        // SAFETY: `out` is writable for `out_len` bytes and no other reference to it lives.
        let buf = unsafe { output(out, out_len, "out")? };
        let (tag, body) = buf.split_at_mut(TAG);
        tag.copy_from_slice(&secretbox::seal_in_place(&key, &nonce, body));
        Ok(())
    })
}

/// NaCl `crypto_secretbox_open_easy`: checks the box (`boxed_len` bytes: tag, then
/// ciphertext) and only if it authenticates writes the `boxed_len - 16` plaintext bytes to
/// `out` (`out_len` must be exactly that). Returns `SIMDCRYPT_STATUS_AUTHENTICATION_FAILED`
/// for a forged or corrupted box or the wrong key or nonce, and then zeroes `out`. `out`
/// may overlap `boxed`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24, `boxed` for `boxed_len`; `out` writable
/// for `out_len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_secretbox_open(
    out: *mut u8,
    out_len: usize,
    boxed: *const u8,
    boxed_len: usize,
    key: *const u8,
    nonce: *const u8,
) -> c_int {
    guard(|| {
        const TAG: usize = secretbox::TAG_LEN;
        // SAFETY: the documented contract.
        let (key, nonce) =
            unsafe { (array::<{ salsa20::KEY_LEN }>(key, "key")?, array::<{ salsa20::XNONCE_LEN }>(nonce, "nonce")?) };
        if boxed_len < TAG {
            return Err(Failure::new(
                SimdcryptStatus::AuthenticationFailed,
                format!("a secretbox is at least {TAG} bytes (the tag), got {boxed_len}"),
            ));
        }
        if out_len != boxed_len - TAG {
            return Err(Error::InvalidLength {
                what: "secretbox plaintext (boxed_len - 16)",
                expected: boxed_len - TAG,
                got: out_len,
            }
            .into());
        }
        if boxed.is_null() {
            return Err(Failure::null("boxed"));
        }
        // SAFETY: `boxed` is readable for at least the 16 tag bytes (the contract).
        let tag = unsafe { array::<TAG>(boxed, "boxed")? };
        if out_len > 0 {
            if out.is_null() {
                return Err(Failure::null("out"));
            }
            // SAFETY: `boxed + 16` readable and `out` writable for `out_len` bytes (the
            // contract; `out_len == boxed_len - 16` was checked); `copy` is a memmove, so
            // overlap is fine; no slice of either buffer is alive across it.
            unsafe { std::ptr::copy(boxed.add(TAG), out, out_len) };
        }
        // SAFETY: `out` writable for `out_len` bytes, no other reference to it alive.
        let buf = unsafe { output(out, out_len, "out")? };
        if secretbox::open_in_place(&key, &nonce, buf, &tag).is_err() {
            buf.fill(0);
            return Err(Failure::new(
                SimdcryptStatus::AuthenticationFailed,
                "authentication failed: the box was forged or corrupted, or the key or nonce is wrong",
            ));
        }
        Ok(())
    })
}
