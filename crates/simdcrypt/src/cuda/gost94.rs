//! GOST R 34.11-94 batches on a device (`gost94.cu`), either S-box set, in one of two
//! schemes ([`Gost94Scheme`]): one thread per message, or four, each doing one of a step's
//! four encryptions.

use super::batch::{self, Layout};
use super::device::{Device, DevicePtr};
use super::{Kernel, Module};
use crate::gost94::{SBox, OUT_LEN};
use crate::Error;

/// How a batch is spread over the GPU's threads (the two schemes of gost94.cu).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gost94Scheme {
    /// One thread per message, doing a step's four encryptions one after another: fastest
    /// once the batch alone fills the GPU.
    OnePerThread,
    /// Four threads per message, one encryption of each step each, exchanging the results
    /// through shared memory: four times the threads, for batches too small to fill the GPU
    /// one a thread.
    FourPerMessage,
}

/// Messages per multiprocessor below which [`Gost94Scheme::FourPerMessage`] is chosen: none
/// yet. The four-lane kernel has passed the emulated tests and the compile check but has
/// not run on a GPU (docs/gpu.md), so batches keep the kernel that has (verified on an
/// H200) until a GPU run's `scripts/gpu_tune.py` shows where four lanes win; Streebog's
/// crossover, three warps of messages an SM (streebog.rs), is the value to expect. Until
/// then the four lanes run when asked: [`gost94_many_scheme`], or
/// `SIMDCRYPT_CUDA_SCHEME=lanes`.
const FOUR_LANES_BELOW: u64 = 0;

impl Gost94Scheme {
    /// The scheme for a batch of `count` messages on a GPU of `sms` multiprocessors: one
    /// thread a message for now, until the four lanes are measured on a GPU.
    pub fn for_batch(count: u64, sms: u32) -> Gost94Scheme {
        if count < FOUR_LANES_BELOW.saturating_mul(u64::from(sms.max(1))) {
            Gost94Scheme::FourPerMessage
        } else {
            Gost94Scheme::OnePerThread
        }
    }

    /// [`Gost94Scheme::for_batch`], unless `SIMDCRYPT_CUDA_SCHEME` forces a scheme (`one` or
    /// `lanes`; batch.rs): the choice of the functions that take no scheme.
    pub(crate) fn chosen(count: u64, sms: u32) -> Gost94Scheme {
        batch::forced_or(Gost94Scheme::OnePerThread, Gost94Scheme::FourPerMessage, || {
            Gost94Scheme::for_batch(count, sms)
        })
    }

    /// Threads per message.
    fn lanes(self) -> u32 {
        match self {
            Gost94Scheme::OnePerThread => 1,
            Gost94Scheme::FourPerMessage => 4,
        }
    }
}

fn kernel(sbox: SBox, scheme: Gost94Scheme) -> Kernel {
    let name = match (sbox, scheme) {
        (SBox::CryptoPro, Gost94Scheme::OnePerThread) => "sc_gost94_cryptopro",
        (SBox::Test, Gost94Scheme::OnePerThread) => "sc_gost94_test",
        (SBox::CryptoPro, Gost94Scheme::FourPerMessage) => "sc_gost94_cryptopro_x4",
        (SBox::Test, Gost94Scheme::FourPerMessage) => "sc_gost94_test_x4",
    };
    Kernel { module: Module::Gost94, name }
}

/// Writes the GOST R 34.11-94 digest of `messages[i]` at `out[32 * i..]`, computed on `dev`;
/// `out` must be exactly `32 * messages.len()` bytes, as for [`crate::gost94::hash_many`],
/// which gives the same digests. The scheme is [`Gost94Scheme::for_batch`]'s unless
/// `SIMDCRYPT_CUDA_SCHEME` forces one (`one` or `lanes`).
pub fn gost94_many<D: Device>(dev: &D, messages: &[&[u8]], sbox: SBox, out: &mut [u8]) -> Result<(), Error> {
    let scheme = Gost94Scheme::chosen(messages.len() as u64, dev.multiprocessors());
    gost94_many_scheme(dev, messages, sbox, scheme, out)
}

/// [`gost94_many`] in the given scheme (the same digests in either).
pub fn gost94_many_scheme<D: Device>(
    dev: &D,
    messages: &[&[u8]],
    sbox: SBox,
    scheme: Gost94Scheme,
    out: &mut [u8],
) -> Result<(), Error> {
    batch::hash_host_batch(dev, kernel(sbox, scheme), messages, OUT_LEN, out, scheme.lanes(), &[])
}

/// GOST R 34.11-94 of messages already on the device, laid out at `data` as `layout` says
/// ([`Layout`]: offsets, which an error refuses unless they never decrease, or rows of
/// equal length; a `&[u64]` of offsets converts): digest `i` goes to `out + 32 * i`. Returns
/// once the digests are written. The scheme is [`Gost94Scheme::for_batch`]'s unless
/// `SIMDCRYPT_CUDA_SCHEME` forces one (`one` or `lanes`).
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
    let layout = layout.into();
    let count = layout.check()?;
    let scheme = Gost94Scheme::chosen(count, dev.multiprocessors());
    // SAFETY: this function's contract is gost94_many_device_scheme's.
    unsafe { gost94_many_device_scheme(dev, data, layout, sbox, scheme, out) }
}

/// [`gost94_many_device`] in the given scheme (the same digests in either).
///
/// # Safety
///
/// As for [`gost94_many_device`].
pub unsafe fn gost94_many_device_scheme<'a, D: Device>(
    dev: &D,
    data: DevicePtr,
    layout: impl Into<Layout<'a>>,
    sbox: SBox,
    scheme: Gost94Scheme,
    out: DevicePtr,
) -> Result<(), Error> {
    // SAFETY: either kernel reads the messages at `data` and writes `count` digests of 32
    // bytes at `out` (gost94.cu), which this function's caller guarantees.
    unsafe { batch::launch_per_message(dev, kernel(sbox, scheme), data, layout.into(), out, scheme.lanes(), &[]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_a_message_until_four_lanes_are_measured() {
        for count in [0, 1, 8192, 12_672, 65_536] {
            assert_eq!(Gost94Scheme::for_batch(count, 132), Gost94Scheme::OnePerThread, "{count}");
        }
        assert_eq!(Gost94Scheme::for_batch(1, 0), Gost94Scheme::OnePerThread);
    }
}
