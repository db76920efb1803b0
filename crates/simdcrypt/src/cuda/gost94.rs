//! GOST R 34.11-94 batches on a device (`gost94.cu`), either S-box set: one message per
//! thread.

use super::batch::{self, Layout};
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

/// GOST R 34.11-94 of messages already on the device, laid out at `data` as `layout` says
/// ([`Layout`]: offsets, which an error refuses unless they never decrease, or rows of
/// equal length; a `&[u64]` of offsets converts): digest `i` goes to `out + 32 * i`. Returns
/// once the digests are written.
///
/// # Safety
///
/// `data` and `out` must be memory of `dev`: every message's bytes at `data` readable, and
/// `32 * count` bytes at `out` writable, where `count` is the number of messages.
pub unsafe fn gost94_many_device<'a, D: Device>(
    dev: &D,
    data: DevicePtr,
    layout: impl Into<Layout<'a>>,
    sbox: SBox,
    out: DevicePtr,
) -> Result<(), Error> {
    // SAFETY: the kernel reads the messages at `data` and writes `count` digests of 32 bytes
    // at `out` (gost94.cu), which this function's caller guarantees.
    unsafe { batch::launch_per_message(dev, kernel(sbox), data, layout.into(), out, 1, &[]) }
}
