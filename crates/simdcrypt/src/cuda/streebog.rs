//! Streebog-256 and -512 batches on a device (`streebog.cu`): eight threads per message
//! ([`LANES`]), each holding one word of its state.

use super::batch;
use super::device::{Device, DevicePtr};
use super::{Kernel, Module};
use crate::streebog::Bits;
use crate::Error;

/// Threads per message of the kernels (`SC_STREEBOG_LANES` in streebog.cu).
pub(crate) const LANES: u32 = 8;

fn kernel(bits: Bits) -> Kernel {
    let name = match bits {
        Bits::B256 => "sc_streebog_256",
        Bits::B512 => "sc_streebog_512",
    };
    Kernel { module: Module::Streebog, name }
}

/// Writes the Streebog digest of `messages[i]` at `out[i * bits.out_len()..]`, computed on
/// `dev`; `out` must be exactly `messages.len() * bits.out_len()` bytes, as for
/// [`crate::streebog::hash_many`], which gives the same digests.
pub fn streebog_many<D: Device>(dev: &D, messages: &[&[u8]], bits: Bits, out: &mut [u8]) -> Result<(), Error> {
    batch::hash_host_batch(dev, kernel(bits), messages, bits.out_len(), out, LANES, &[])
}

/// Streebog of messages already on the device: message `i` is the bytes
/// `offsets[i]..offsets[i + 1]` at `data`, its digest goes to `out + i * bits.out_len()`.
/// `offsets` has one entry more than there are messages and never decreases (an error
/// otherwise); it is uploaded by this call, which returns once the digests are written.
///
/// # Safety
///
/// `data` and `out` must be memory of `dev`: the bytes `offsets[0]..offsets[count]` at `data`
/// readable, and `count * bits.out_len()` bytes at `out` writable, where `count` is
/// `offsets.len() - 1`.
pub unsafe fn streebog_many_device<D: Device>(
    dev: &D,
    data: DevicePtr,
    offsets: &[u64],
    bits: Bits,
    out: DevicePtr,
) -> Result<(), Error> {
    // SAFETY: the kernel reads the messages at `data` and writes `count` digests of
    // `bits.out_len()` bytes at `out` (streebog.cu), which this function's caller guarantees.
    unsafe { batch::launch_per_message(dev, kernel(bits), data, offsets, out, LANES, &[]) }
}
