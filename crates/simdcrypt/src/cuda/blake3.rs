//! BLAKE3 on a device (`blake3.cu`): batches of messages, one message per thread, and one
//! large input, one chunk per thread and then one parent per thread a layer at a time.
//!
//! A batch's messages longer than [`MANY_MAX_LEN`] are skipped by the per-message kernel (its
//! threads' stacks stay small) and hashed afterwards with the one-input path, each straight
//! from the batch's device buffer into its output slot: a long file never sits on one thread.
//!
//! The mode's key words (the IV, the key, or the context key of key derivation, which the
//! host computes) travel as 32 bytes of device memory, its domain flag as an argument. The
//! one-input path ends with a launch of one thread per 64-byte output block of the root, so
//! any output length is drawn in parallel.

use super::batch::{self, geometry, Layout};
use super::device::{Device, DeviceBuffer, DevicePtr};
use super::{Kernel, Module};
use crate::blake3::{Mode, CHUNK_LEN};
use crate::Error;

const MANY: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_many" };
const CHUNKS: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_chunks" };
const PARENTS: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_parents" };
const ROOT: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_root" };

const CV_LEN: usize = 32;

/// The longest message `sc_blake3_many` hashes on one thread (`SC_BLAKE3_MANY_MAX_LEN`: 256
/// chunks); longer ones go through the chunk and tree kernels.
pub(crate) const MANY_MAX_LEN: u64 = (CHUNK_LEN as u64) << 8;

/// The mode's key words, uploaded, and its domain flag.
fn upload_key<D: Device>(dev: &D, mode: Mode<'_>) -> Result<(D::Buffer, u64), Error> {
    let (words, flag) = mode.key_and_flags();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut key = dev.alloc(bytes.len())?;
    dev.upload(&mut key, 0, &bytes)?;
    Ok((key, u64::from(flag)))
}

/// Writes `out_len` bytes of the BLAKE3 output of `messages[i]` (in `mode`) at
/// `out[i * out_len..]`, computed on `dev`; `out` must be exactly `messages.len() * out_len`
/// bytes, as for [`crate::blake3::Batch::hash_into`], which gives the same bytes.
pub fn blake3_many<D: Device>(
    dev: &D,
    messages: &[&[u8]],
    mode: Mode<'_>,
    out_len: usize,
    out: &mut [u8],
) -> Result<(), Error> {
    crate::threads::check_out_len(messages.len(), out_len, out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    batch::with_host_batch(dev, messages, out_len, out, |data, offsets, out| {
        // SAFETY: with_host_batch's buffers: the messages at `data` as `offsets` say, and
        // `count * out_len` bytes at `out`.
        unsafe { blake3_many_device(dev, data, offsets, mode, out_len, out) }
    })
}

/// [`blake3_many`] of messages already on the device, laid out at `data` as `layout` says
/// ([`Layout`]: offsets, which an error refuses unless they never decrease, or rows of
/// equal length; a `&[u64]` of offsets converts): message `i`'s `out_len` output bytes go
/// to `out + i * out_len`. Returns once the outputs are written.
///
/// # Safety
///
/// `data` and `out` must be memory of `dev`: every message's bytes at `data` readable, and
/// `count * out_len` bytes at `out` writable, where `count` is the number of messages.
pub unsafe fn blake3_many_device<'a, D: Device>(
    dev: &D,
    data: DevicePtr,
    layout: impl Into<Layout<'a>>,
    mode: Mode<'_>,
    out_len: usize,
    out: DevicePtr,
) -> Result<(), Error> {
    let layout = layout.into();
    let count = layout.check()?;
    if out_len == 0 {
        return Ok(());
    }
    let (key, flag) = upload_key(dev, mode)?;
    // SAFETY: sc_blake3_many reads the messages at `data` and writes `count * out_len` bytes
    // at `out` (the caller's guarantee), and the 32 bytes of `key`, alive until the call
    // returns after the launch.
    unsafe { batch::launch_per_message(dev, MANY, data, layout, out, 1, &[key.ptr(), flag, out_len as u64])? };
    // The kernel leaves messages longer than MANY_MAX_LEN to the tree kernels. Rows of one
    // length are all long or all short.
    let long = match layout {
        Layout::Rows { len, .. } => len > MANY_MAX_LEN,
        Layout::Offsets(_) => true,
    };
    for i in (0..count).filter(|_| long) {
        let (start, len) = layout.message(i);
        if len > MANY_MAX_LEN {
            // SAFETY: message i is `len` readable bytes at data + start, its output the
            // `out_len` bytes at out + i * out_len (the caller's guarantee); `key` lives on.
            unsafe { hash_tree_into(dev, data + start, len, &key, flag, out_len, out + i * out_len as u64)? };
        }
    }
    dev.synchronize()
}

/// `out_len` bytes of the BLAKE3 output of one `input` in `mode`, computed on `dev`, its
/// chunks and tree nodes spread over the device's threads; the same bytes as
/// [`crate::blake3::Hasher`].
pub fn blake3_hash<D: Device>(dev: &D, input: &[u8], mode: Mode<'_>, out_len: usize) -> Result<Vec<u8>, Error> {
    let mut buf = dev.alloc(input.len().max(1))?;
    dev.upload(&mut buf, 0, input)?;
    // SAFETY: `buf` holds the `input.len()` bytes and lives until the call returns.
    unsafe { blake3_hash_device(dev, buf.ptr(), input.len() as u64, mode, out_len) }
}

/// [`blake3_hash`] of the `len` bytes at `input`, already on the device.
///
/// # Safety
///
/// `input` must be `len` readable bytes of `dev`'s memory.
pub unsafe fn blake3_hash_device<D: Device>(
    dev: &D,
    input: DevicePtr,
    len: u64,
    mode: Mode<'_>,
    out_len: usize,
) -> Result<Vec<u8>, Error> {
    let mut digest = vec![0u8; out_len];
    if out_len == 0 {
        return Ok(digest);
    }
    let out = dev.alloc(out_len)?;
    if len <= CHUNK_LEN as u64 {
        // One chunk is the root itself: a batch of one message.
        // SAFETY: the one message is the caller's `len` bytes at `input`; `out` holds its
        // `out_len` output bytes.
        unsafe { blake3_many_device(dev, input, Layout::Rows { count: 1, len }, mode, out_len, out.ptr())? };
        dev.download(&out, 0, &mut digest)?;
        return Ok(digest);
    }
    let (key, flag) = upload_key(dev, mode)?;
    // SAFETY: the caller's `len` bytes at `input`; `out` holds `out_len` bytes.
    unsafe { hash_tree_into(dev, input, len, &key, flag, out_len, out.ptr())? };
    dev.download(&out, 0, &mut digest)?;
    Ok(digest)
}

/// The one-input path: `out_len` output bytes of the `len` (> one chunk) bytes at `input`
/// to `out`, one chunk per thread, then one parent per thread a layer at a time, then one
/// 64-byte output block per thread. Issues the launches; the caller waits.
///
/// # Safety
///
/// `input` must be `len` readable bytes and `out` `out_len` writable bytes of `dev`'s memory;
/// `key` the mode's 32 key bytes on `dev`.
unsafe fn hash_tree_into<D: Device>(
    dev: &D,
    input: DevicePtr,
    len: u64,
    key: &D::Buffer,
    flag: u64,
    out_len: usize,
    out: DevicePtr,
) -> Result<(), Error> {
    let chunks = len.div_ceil(CHUNK_LEN as u64);
    let cvs_len = usize::try_from(chunks).ok().and_then(|c| c.checked_mul(CV_LEN));
    let cvs_len = cvs_len.ok_or_else(|| {
        Error::InvalidArgument(format!("a BLAKE3 input of {len} bytes is too large for this machine"))
    })?;
    let a = dev.alloc(cvs_len)?;
    let b = dev.alloc((cvs_len / CV_LEN).div_ceil(2) * CV_LEN)?;
    let (grid, block) = geometry(dev, chunks)?;
    // SAFETY: sc_blake3_chunks reads the `len` bytes at `input` (the caller's guarantee) and
    // the key, and writes the 32-byte chaining values of the `chunks` chunks to `a`, which
    // holds exactly that many.
    unsafe { dev.launch(CHUNKS, grid, block, &[input, len, a.ptr(), key.ptr(), flag])? };
    let (mut src, mut dst) = (&a, &b);
    let mut count = chunks;
    while count > 2 {
        let parents = count.div_ceil(2);
        let (grid, block) = geometry(dev, parents)?;
        // SAFETY: sc_blake3_parents reads `count` chaining values at `src` (written by the
        // previous launch) and writes `parents` at `dst`; the scratch buffers hold
        // ceil(chunks / 2) >= parents values each, except `a`, which holds them all.
        unsafe { dev.launch(PARENTS, grid, block, &[src.ptr(), count, dst.ptr(), key.ptr(), flag])? };
        std::mem::swap(&mut src, &mut dst);
        count = parents;
    }
    let blocks = (out_len as u64).div_ceil(64);
    let (grid, block) = geometry(dev, blocks)?;
    // SAFETY: sc_blake3_root reads the last two chaining values at `src` and writes the
    // `out_len` bytes at `out` (the caller's guarantee).
    unsafe { dev.launch(ROOT, grid, block, &[src.ptr(), out, out_len as u64, key.ptr(), flag])? };
    // The scratch buffers are freed when this returns: on a GPU in stream order, after the
    // launches; the emulation has finished them already.
    Ok(())
}
