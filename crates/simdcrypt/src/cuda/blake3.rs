//! BLAKE3 on a device (`blake3.cu`): batches of messages, one message per thread, and one
//! large input, one chunk per thread and then one parent per thread a layer at a time.
//!
//! The mode's key words (the IV, the key, or the context key of key derivation, which the
//! host computes) travel as 32 bytes of device memory, its domain flag as an argument. The
//! one-input path ends with a launch of one thread per 64-byte output block of the root, so
//! any output length is drawn in parallel.

use super::batch::{self, grid_for, BLOCK};
use super::device::{Device, DeviceBuffer, DevicePtr};
use super::{Kernel, Module};
use crate::blake3::{Mode, CHUNK_LEN};
use crate::Error;

const MANY: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_many" };
const CHUNKS: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_chunks" };
const PARENTS: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_parents" };
const ROOT: Kernel = Kernel { module: Module::Blake3, name: "sc_blake3_root" };

const CV_LEN: usize = 32;

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
pub fn blake3_many<D: Device>(dev: &D, messages: &[&[u8]], mode: Mode<'_>, out_len: usize, out: &mut [u8]) -> Result<(), Error> {
    crate::threads::check_out_len(messages.len(), out_len, out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    let (key, flag) = upload_key(dev, mode)?;
    batch::hash_host_batch(dev, MANY, messages, out_len, out, &[key.ptr(), flag, out_len as u64])
}

/// [`blake3_many`] of messages already on the device: message `i` is the bytes
/// `offsets[i]..offsets[i + 1]` at `data`, its `out_len` output bytes go to
/// `out + i * out_len`. `offsets` has one entry more than there are messages and never
/// decreases (an error otherwise); the call returns once the outputs are written.
///
/// # Safety
///
/// `data` and `out` must be memory of `dev`: the bytes `offsets[0]..offsets[count]` at
/// `data` readable, and `count * out_len` bytes at `out` writable, where `count` is
/// `offsets.len() - 1`.
pub unsafe fn blake3_many_device<D: Device>(
    dev: &D,
    data: DevicePtr,
    offsets: &[u64],
    mode: Mode<'_>,
    out_len: usize,
    out: DevicePtr,
) -> Result<(), Error> {
    batch::check_offsets(offsets)?;
    if out_len == 0 {
        return Ok(());
    }
    let (key, flag) = upload_key(dev, mode)?;
    // SAFETY: sc_blake3_many reads the messages at `data` and writes `count * out_len` bytes
    // at `out` (the caller's guarantee), and the 32 bytes of `key`, alive until the call
    // returns after the launch.
    unsafe { batch::launch_per_message(dev, MANY, data, offsets, out, &[key.ptr(), flag, out_len as u64]) }
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
pub unsafe fn blake3_hash_device<D: Device>(dev: &D, input: DevicePtr, len: u64, mode: Mode<'_>, out_len: usize) -> Result<Vec<u8>, Error> {
    let mut digest = vec![0u8; out_len];
    if out_len == 0 {
        return Ok(digest);
    }
    let out = dev.alloc(out_len)?;
    if len <= CHUNK_LEN as u64 {
        // One chunk is the root itself: a batch of one message.
        // SAFETY: the one message is the caller's `len` bytes at `input`; `out` holds its
        // `out_len` output bytes.
        unsafe { blake3_many_device(dev, input, &[0, len], mode, out_len, out.ptr())? };
        dev.download(&out, 0, &mut digest)?;
        return Ok(digest);
    }
    let (key, flag) = upload_key(dev, mode)?;
    let chunks = len.div_ceil(CHUNK_LEN as u64);
    let cvs_len = usize::try_from(chunks).ok().and_then(|c| c.checked_mul(CV_LEN));
    let cvs_len = cvs_len.ok_or_else(|| Error::InvalidArgument(format!("a BLAKE3 input of {len} bytes is too large for this machine")))?;
    let a = dev.alloc(cvs_len)?;
    let b = dev.alloc((cvs_len / CV_LEN).div_ceil(2) * CV_LEN)?;
    // SAFETY: sc_blake3_chunks reads the `len` bytes at `input` (the caller's guarantee) and
    // the key, and writes the 32-byte chaining values of the `chunks` chunks to `a`, which
    // holds exactly that many.
    unsafe { dev.launch(CHUNKS, grid_for(chunks, BLOCK)?, BLOCK, &[input, len, a.ptr(), key.ptr(), flag])? };
    let (mut src, mut dst) = (&a, &b);
    let mut count = chunks;
    while count > 2 {
        let parents = count.div_ceil(2);
        // SAFETY: sc_blake3_parents reads `count` chaining values at `src` (written by the
        // previous launch) and writes `parents` at `dst`; the scratch buffers hold
        // ceil(chunks / 2) >= parents values each, except `a`, which holds them all.
        unsafe { dev.launch(PARENTS, grid_for(parents, BLOCK)?, BLOCK, &[src.ptr(), count, dst.ptr(), key.ptr(), flag])? };
        std::mem::swap(&mut src, &mut dst);
        count = parents;
    }
    let blocks = (out_len as u64).div_ceil(64);
    // SAFETY: sc_blake3_root reads the last two chaining values at `src` and writes the
    // `out_len` bytes of `out`.
    unsafe { dev.launch(ROOT, grid_for(blocks, BLOCK)?, BLOCK, &[src.ptr(), out.ptr(), out_len as u64, key.ptr(), flag])? };
    dev.download(&out, 0, &mut digest)?;
    Ok(digest)
}
