//! The host side shared by the batches whose kernels hash one message per thread, or per
//! group of a few threads (Streebog's eight lanes): ragged messages uploaded end to end into
//! one buffer with an offsets array, the offsets checked, the grid sized, and one launch.
//!
//! Such a kernel takes `(data, offsets, count, out)`: message `i` is the bytes
//! `data[offsets[i]..offsets[i + 1]]`, and its digest goes to `out[i * out_len..]`.

use super::device::{Device, DeviceBuffer, DevicePtr};
use super::Kernel;
use crate::Error;

/// The most threads per block of a one-thread-per-item launch: several warps, so a block's
/// staging of the tables into shared memory is shared by many messages.
pub(crate) const BLOCK: u32 = 128;

/// The fewest: one warp.
const WARP: u32 = 32;

/// Threads per block for `count` items, one per thread, on a GPU of `sms` multiprocessors:
/// the largest power of two from [`WARP`] to [`BLOCK`] that still gives every SM at least
/// two blocks (so that one block's staging or tail does not leave an SM idle), or a warp
/// when even that cannot (8,192 items on 132 SMs: 256 blocks of 32). Kernels that give a
/// message several threads (Streebog) multiply `count` first.
pub(crate) fn block_for(count: u64, sms: u32) -> u32 {
    let per_block = count / (2 * u64::from(sms.max(1)));
    let mut block = BLOCK;
    while block > WARP && u64::from(block) > per_block {
        block /= 2;
    }
    block
}

/// A scheme forced on the kernels that have two (Streebog, GOST R 34.11-94) by
/// `SIMDCRYPT_CUDA_SCHEME`: `one` (one thread per message) or `lanes` (a lane group per
/// message); unset or anything else lets the batch's size choose. Read at every call rather
/// than once per process, so that one process can run both: scripts/gpu_kernels_once.py,
/// which compute-sanitizer runs, covers every kernel that way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForcedScheme {
    OnePerThread,
    Lanes,
}

/// The scheme `SIMDCRYPT_CUDA_SCHEME` forces, if any ([`ForcedScheme`]).
pub(crate) fn forced_scheme() -> Option<ForcedScheme> {
    parse_forced_scheme(std::env::var("SIMDCRYPT_CUDA_SCHEME").ok().as_deref())
}

/// A two-scheme kernel's choice: `one` or `lanes` where `SIMDCRYPT_CUDA_SCHEME` forces
/// one ([`forced_scheme`]), else `by_size()`.
pub(crate) fn forced_or<S>(one: S, lanes: S, by_size: impl FnOnce() -> S) -> S {
    match forced_scheme() {
        Some(ForcedScheme::OnePerThread) => one,
        Some(ForcedScheme::Lanes) => lanes,
        None => by_size(),
    }
}

fn parse_forced_scheme(value: Option<&str>) -> Option<ForcedScheme> {
    match value {
        Some("one") => Some(ForcedScheme::OnePerThread),
        Some("lanes") => Some(ForcedScheme::Lanes),
        _ => None,
    }
}

/// The grid and block of a launch of one thread per item on `dev` ([`block_for`],
/// [`grid_for`]).
pub(crate) fn geometry<D: Device>(dev: &D, count: u64) -> Result<(u32, u32), Error> {
    let block = block_for(count, dev.multiprocessors());
    Ok((grid_for(count, block)?, block))
}

const MAX_GRID: u64 = super::MAX_GRID as u64;

/// Where the messages of a batch already on the device lie, from its data address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout<'a> {
    /// Message `i` is the bytes `offsets[i]..offsets[i + 1]`: one entry more than the batch
    /// has messages, never decreasing. Each call uploads them.
    Offsets(&'a [u64]),
    /// `count` messages of `len` bytes each, back to back (the rows of a 2-D array). The
    /// offsets are written on the device by a launch of their own: nothing is uploaded.
    Rows {
        /// How many messages.
        count: u64,
        /// The length of each.
        len: u64,
    },
}

impl<'a> From<&'a [u64]> for Layout<'a> {
    fn from(offsets: &'a [u64]) -> Self {
        Layout::Offsets(offsets)
    }
}

impl Layout<'_> {
    /// Checks the layout (its offsets never decrease, its bytes fit an address) and returns
    /// the number of messages.
    pub(crate) fn check(&self) -> Result<u64, Error> {
        match *self {
            Layout::Offsets(offsets) => {
                check_offsets(offsets)?;
                Ok((offsets.len().max(1) - 1) as u64)
            }
            Layout::Rows { count, len } => {
                count.checked_mul(len).filter(|_| count < u64::MAX).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "{count} messages of {len} bytes are more bytes than an address holds"
                    ))
                })?;
                Ok(count)
            }
        }
    }

    /// Message `i`'s offset and length (`i` below the count).
    pub(crate) fn message(&self, i: u64) -> (u64, u64) {
        match *self {
            Layout::Offsets(offsets) => (offsets[i as usize], offsets[i as usize + 1] - offsets[i as usize]),
            Layout::Rows { len, .. } => (i * len, len),
        }
    }
}

/// The `messages.len() + 1` offsets of `messages` laid one after another (the last is the
/// total length): where [`Device::upload_parts`] puts each.
pub(crate) fn message_offsets(messages: &[&[u8]]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(messages.len() + 1);
    let mut end = 0u64;
    offsets.push(end);
    for m in messages {
        end += m.len() as u64;
        offsets.push(end);
    }
    offsets
}

/// Checks that `offsets` describe a batch: at least one entry (a batch of `count` messages
/// has `count + 1`), never decreasing. Returns the last, the end of the bytes the batch reads.
pub(crate) fn check_offsets(offsets: &[u64]) -> Result<u64, Error> {
    let Some(&end) = offsets.last() else {
        return Err(Error::InvalidArgument(
            "offsets must have one entry more than the batch has messages (at least one), got none".into(),
        ));
    };
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(Error::InvalidArgument(format!(
            "offsets must be non-decreasing, but offsets[{i}] = {} > offsets[{}] = {}",
            offsets[i],
            i + 1,
            offsets[i + 1]
        )));
    }
    Ok(end)
}

/// The number of blocks of `block` threads for one thread per item: an error past CUDA's
/// grid limit.
pub(crate) fn grid_for(count: u64, block: u32) -> Result<u32, Error> {
    let grid = count.div_ceil(u64::from(block));
    if grid > MAX_GRID {
        return Err(Error::InvalidArgument(format!(
            "a batch of {count} messages needs {grid} blocks of {block} threads, more than the {MAX_GRID} a launch can have"
        )));
    }
    Ok(grid as u32)
}

/// Checks `layout`, puts its offsets on the device (uploaded, or written there by
/// `sc_row_offsets` for rows) and runs `kernel` over the batch, `lanes` threads per message
/// (1, or a power of two up to a warp: blocks are whole warps, so a message's lanes share
/// one), then waits for it.
/// `extra` arguments follow the kernel's four common ones (a key, a mode, an output length).
/// A batch of no messages launches nothing.
///
/// # Safety
///
/// `data` and `out` must be device memory of `dev`, valid for what `kernel` reads and writes
/// for this layout (its comment in the `.cu` file): the bytes of every message at `data`,
/// and `count` digests at `out`; so must any address among `extra`.
pub(crate) unsafe fn launch_per_message<D: Device>(
    dev: &D,
    kernel: Kernel,
    data: DevicePtr,
    layout: Layout<'_>,
    out: DevicePtr,
    lanes: u32,
    extra: &[u64],
) -> Result<(), Error> {
    debug_assert!(lanes.is_power_of_two() && lanes <= WARP);
    let count = layout.check()?;
    if count == 0 {
        return Ok(());
    }
    let (grid, block) = geometry(dev, count * u64::from(lanes))?;
    let words = usize::try_from(count + 1)
        .ok()
        .and_then(|w| w.checked_mul(8))
        .ok_or_else(|| Error::InvalidArgument(format!("the offsets of {count} messages do not fit in memory")))?;
    let mut offsets_buf = dev.alloc(words)?;
    let offsets_launch = match layout {
        Layout::Offsets(offsets) => {
            let bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
            dev.upload(&mut offsets_buf, 0, &bytes)
        }
        Layout::Rows { count, len } => {
            let fill = Kernel { module: kernel.module, name: "sc_row_offsets" };
            let (grid, block) = geometry(dev, count + 1)?;
            // SAFETY: sc_row_offsets writes words 0..=count of `offsets_buf`, which holds
            // count + 1 words, and reads nothing.
            unsafe { dev.launch(fill, grid, block, &[offsets_buf.ptr(), count, len]) }
        }
    };
    let launched = offsets_launch.and_then(|()| {
        let args: Vec<u64> = [data, offsets_buf.ptr(), count, out].into_iter().chain(extra.iter().copied()).collect();
        // SAFETY: the kernel reads offsets[0..=count] from `offsets_buf`, which holds exactly
        // those `count + 1` words (written before, on the same stream) and is freed only
        // after the synchronization below; `data`, `out` and any addresses in `extra` are
        // valid for the rest by this function's contract, and `count` is the batch's size;
        // the grid has `lanes` threads for each of its messages.
        unsafe { dev.launch(kernel, grid, block, &args) }
    });
    // `offsets_buf` must outlive the launches, so wait even when one reported an error.
    let finished = dev.synchronize();
    launched.and(finished)
}

/// Hashes host `messages` with `kernel` (digests of `out_len` bytes) into `out`, which must
/// be `messages.len() * out_len` bytes: one upload of the messages (straight from where they
/// are, no packing copy: [`Device::upload_parts`]), one of the offsets, one launch (`lanes`
/// threads a message, with `extra` arguments, as for [`launch_per_message`]), one download.
pub(crate) fn hash_host_batch<D: Device>(
    dev: &D,
    kernel: Kernel,
    messages: &[&[u8]],
    out_len: usize,
    out: &mut [u8],
    lanes: u32,
    extra: &[u64],
) -> Result<(), Error> {
    // SAFETY: `run` gets the uploaded messages and an output buffer of the batch's digests,
    // what launch_per_message needs.
    with_host_batch(dev, messages, out_len, out, |data, offsets, out| unsafe {
        launch_per_message(dev, kernel, data, Layout::Offsets(offsets), out, lanes, extra)
    })
}

/// Uploads host `messages` ([`Device::upload_parts`]), calls `run(data, offsets, out)` with
/// their device address, their offsets and a device buffer of `messages.len() * out_len`
/// bytes, then downloads that buffer into `out` (which must be that long). `run` must write
/// every byte of it and wait for its work.
pub(crate) fn with_host_batch<D: Device>(
    dev: &D,
    messages: &[&[u8]],
    out_len: usize,
    out: &mut [u8],
    run: impl FnOnce(DevicePtr, &[u64], DevicePtr) -> Result<(), Error>,
) -> Result<(), Error> {
    crate::threads::check_out_len(messages.len(), out_len, out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    let offsets = message_offsets(messages);
    let total = usize::try_from(offsets[messages.len()])
        .map_err(|_| Error::InvalidArgument("the batch is larger than this machine's memory".into()))?;
    // CUDA refuses allocations of no bytes; a batch of empty messages reads none of this one.
    let mut data_buf = dev.alloc(total.max(1))?;
    dev.upload_parts(&mut data_buf, messages)?;
    let out_buf = dev.alloc(out.len())?;
    run(data_buf.ptr(), &offsets, out_buf.ptr())?;
    dev.download(&out_buf, 0, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_two_scheme_names_force_one() {
        assert_eq!(parse_forced_scheme(Some("one")), Some(ForcedScheme::OnePerThread));
        assert_eq!(parse_forced_scheme(Some("lanes")), Some(ForcedScheme::Lanes));
        for other in [None, Some(""), Some("auto"), Some("ONE"), Some("lane")] {
            assert_eq!(parse_forced_scheme(other), None, "{other:?}");
        }
    }

    /// The only test that sets SIMDCRYPT_CUDA_SCHEME (both kernels' choices in one test, so
    /// that no other test's expectation depends on it).
    #[test]
    fn the_environment_forces_either_scheme() {
        use super::super::{Gost94Scheme, StreebogScheme};
        let var = "SIMDCRYPT_CUDA_SCHEME";
        std::env::set_var(var, "one");
        assert_eq!(StreebogScheme::chosen(1, 132), StreebogScheme::OnePerThread);
        assert_eq!(Gost94Scheme::chosen(1, 132), Gost94Scheme::OnePerThread);
        std::env::set_var(var, "lanes");
        assert_eq!(StreebogScheme::chosen(1 << 20, 132), StreebogScheme::EightPerMessage);
        assert_eq!(Gost94Scheme::chosen(1 << 20, 132), Gost94Scheme::FourPerMessage);
        std::env::remove_var(var);
        for count in [1, 1 << 20] {
            assert_eq!(StreebogScheme::chosen(count, 132), StreebogScheme::for_batch(count, 132));
            assert_eq!(Gost94Scheme::chosen(count, 132), Gost94Scheme::for_batch(count, 132));
        }
    }

    #[test]
    fn message_offsets_lay_messages_end_to_end() {
        assert_eq!(message_offsets(&[b"ab", b"", b"cde"]), [0, 2, 2, 5]);
        assert_eq!(message_offsets(&[]), [0]);
    }

    #[test]
    fn check_offsets_accepts_batches_and_names_the_fault() {
        assert_eq!(check_offsets(&[0]).unwrap(), 0);
        assert_eq!(check_offsets(&[3, 3, 10]).unwrap(), 10);
        let err = check_offsets(&[]).unwrap_err().to_string();
        assert!(err.contains("one entry more than the batch has messages"), "{err}");
        let err = check_offsets(&[0, 5, 4, 9]).unwrap_err().to_string();
        assert!(err.contains("offsets[1] = 5 > offsets[2] = 4"), "{err}");
    }

    #[test]
    fn blocks_leave_no_multiprocessor_idle() {
        // 8,192 messages on an H100's 132 SMs: 256 blocks of one warp (the most there can be).
        assert_eq!(block_for(8192, 132), 32);
        assert_eq!(block_for(65_536, 132), 128);
        assert_eq!(block_for(32_768, 132), 64);
        assert_eq!(block_for(1 << 20, 132), 128);
        assert_eq!(block_for(1, 132), 32);
        assert_eq!(block_for(1000, 0), 128, "a device that reports no SMs still gets blocks");
        for count in [1u64, 100, 8192, 65_536, 1 << 24] {
            for sms in [1, 46, 108, 132] {
                let block = block_for(count, sms);
                assert!(block.is_power_of_two() && (WARP..=BLOCK).contains(&block));
                let blocks = count.div_ceil(u64::from(block));
                assert!(block == WARP || blocks >= 2 * u64::from(sms), "{count} on {sms} SMs: {blocks} of {block}");
            }
        }
    }

    #[test]
    fn grid_for_rounds_up_and_stops_at_the_limit() {
        assert_eq!(grid_for(1, 128).unwrap(), 1);
        assert_eq!(grid_for(128, 128).unwrap(), 1);
        assert_eq!(grid_for(129, 128).unwrap(), 2);
        assert_eq!(grid_for(MAX_GRID * 128, 128).unwrap(), MAX_GRID as u32);
        let err = grid_for(MAX_GRID * 128 + 1, 128).unwrap_err().to_string();
        assert!(err.contains("more than the 2147483647 a launch can have"), "{err}");
    }
}
