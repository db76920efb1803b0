//! GOST R 34.11-94 batches on a device (`gost94.cu`), either S-box set: one message per
//! thread.

use super::batch;
use super::device::{Device, DevicePtr};
use super::{Kernel, Module};
use crate::gost94::{SBox, OUT_LEN};
use crate::Error;

fn kernel(sbox: SBox) -> Kernel {
    let name = match sbox {
        SBox::CryptoPro => "sc_gost94_cryptopro",
        SBox::Test => "sc_gost94_test",
    };
    Kernel { module: Module::Gost94, name }
}

/// Writes the GOST R 34.11-94 digest of `messages[i]` at `out[32 * i..]`, computed on `dev`;
/// `out` must be exactly `32 * messages.len()` bytes, as for [`crate::gost94::hash_many`],
/// which gives the same digests.
pub fn gost94_many<D: Device>(dev: &D, messages: &[&[u8]], sbox: SBox, out: &mut [u8]) -> Result<(), Error> {
    batch::hash_host_batch(dev, kernel(sbox), messages, OUT_LEN, out, 1, &[])
}

/// GOST R 34.11-94 of messages already on the device: message `i` is the bytes
/// `offsets[i]..offsets[i + 1]` at `data`, its digest goes to `out + 32 * i`. `offsets` has
/// one entry more than there are messages and never decreases (an error otherwise); it is
/// uploaded by this call, which returns once the digests are written.
///
/// # Safety
///
/// `data` and `out` must be memory of `dev`: the bytes `offsets[0]..offsets[count]` at `data`
/// readable, and `32 * count` bytes at `out` writable, where `count` is `offsets.len() - 1`.
pub unsafe fn gost94_many_device<D: Device>(
    dev: &D,
    data: DevicePtr,
    offsets: &[u64],
    sbox: SBox,
    out: DevicePtr,
) -> Result<(), Error> {
    // SAFETY: the kernel reads the messages at `data` and writes `count` digests of 32 bytes
    // at `out` (gost94.cu), which this function's caller guarantees.
    unsafe { batch::launch_per_message(dev, kernel(sbox), data, offsets, out, 1, &[]) }
}
