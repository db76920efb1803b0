//! Streebog-256 and -512 batches on a device (`streebog.cu`), in one of two schemes
//! ([`StreebogScheme`]): one thread per message, or eight, each holding one word of its state.

use super::batch::{self, Layout};
use super::device::{Device, DevicePtr};
use super::{Kernel, Module};
use crate::streebog::Bits;
use crate::Error;

/// How a batch is spread over the GPU's threads (the two schemes of streebog.cu).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreebogScheme {
    /// One thread per message, carrying the whole state: fastest once the batch alone fills
    /// the GPU.
    OnePerThread,
    /// Eight threads per message, one state word each, exchanging words through shared
    /// memory: eight times the threads, for batches too small to fill the GPU one a thread.
    EightPerMessage,
}

/// Messages per multiprocessor from which [`StreebogScheme::OnePerThread`] is chosen: three
/// warps of messages an SM. Measured on an H200 (132 SMs; docs/gpu.md): 8,192 messages (two
/// warps an SM) ran faster eight threads a message, 16,384 (four) and more one a thread.
const ONE_PER_THREAD_FROM: u64 = 3 * 32;

impl StreebogScheme {
    /// The scheme for a batch of `count` messages on a GPU of `sms` multiprocessors.
    pub fn for_batch(count: u64, sms: u32) -> StreebogScheme {
        if count >= ONE_PER_THREAD_FROM * u64::from(sms.max(1)) {
            StreebogScheme::OnePerThread
        } else {
            StreebogScheme::EightPerMessage
        }
    }

    /// [`StreebogScheme::for_batch`], unless `SIMDCRYPT_CUDA_SCHEME` forces a scheme (`one` or
    /// `lanes`; batch.rs): the choice of the functions that take no scheme.
    pub(crate) fn chosen(count: u64, sms: u32) -> StreebogScheme {
        batch::forced_or(StreebogScheme::OnePerThread, StreebogScheme::EightPerMessage, || {
            StreebogScheme::for_batch(count, sms)
        })
    }

    /// Threads per message.
    fn lanes(self) -> u32 {
        match self {
            StreebogScheme::OnePerThread => 1,
            StreebogScheme::EightPerMessage => 8,
        }
    }
}

fn kernel(bits: Bits, scheme: StreebogScheme) -> Kernel {
    let name = match (bits, scheme) {
        (Bits::B256, StreebogScheme::OnePerThread) => "sc_streebog_256",
        (Bits::B512, StreebogScheme::OnePerThread) => "sc_streebog_512",
        (Bits::B256, StreebogScheme::EightPerMessage) => "sc_streebog_256_x8",
        (Bits::B512, StreebogScheme::EightPerMessage) => "sc_streebog_512_x8",
    };
    Kernel { module: Module::Streebog, name }
}

/// Writes the Streebog digest of `messages[i]` at `out[i * bits.out_len()..]`, computed on
/// `dev`; `out` must be exactly `messages.len() * bits.out_len()` bytes, as for
/// [`crate::streebog::hash_many`], which gives the same digests.
/// The scheme is [`StreebogScheme::for_batch`]'s unless
/// `SIMDCRYPT_CUDA_SCHEME` forces one (`one` or `lanes`).
pub fn streebog_many<D: Device>(dev: &D, messages: &[&[u8]], bits: Bits, out: &mut [u8]) -> Result<(), Error> {
    let scheme = StreebogScheme::chosen(messages.len() as u64, dev.multiprocessors());
    streebog_many_scheme(dev, messages, bits, scheme, out)
}

/// [`streebog_many`] in the given scheme (the same digests in either).
pub fn streebog_many_scheme<D: Device>(
    dev: &D,
    messages: &[&[u8]],
    bits: Bits,
    scheme: StreebogScheme,
    out: &mut [u8],
) -> Result<(), Error> {
    batch::hash_host_batch(dev, kernel(bits, scheme), messages, bits.out_len(), out, scheme.lanes(), &[])
}

/// Streebog of messages already on the device, laid out at `data` as `layout` says
/// ([`Layout`]: offsets, which an error refuses unless they never decrease, or rows of
/// equal length; a `&[u64]` of offsets converts): digest `i` goes to
/// `out + i * bits.out_len()`. Returns once the digests are written. The scheme is
/// [`StreebogScheme::for_batch`]'s.
///
/// # Safety
///
/// `data` and `out` must be memory of `dev`: every message's bytes at `data` readable, and
/// `count * bits.out_len()` bytes at `out` writable, where `count` is the number of messages.
pub unsafe fn streebog_many_device<'a, D: Device>(
    dev: &D,
    data: DevicePtr,
    layout: impl Into<Layout<'a>>,
    bits: Bits,
    out: DevicePtr,
) -> Result<(), Error> {
    let layout = layout.into();
    let count = layout.check()?;
    let scheme = StreebogScheme::chosen(count, dev.multiprocessors());
    // SAFETY: this function's contract is streebog_many_device_scheme's.
    unsafe { streebog_many_device_scheme(dev, data, layout, bits, scheme, out) }
}

/// [`streebog_many_device`] in the given scheme (the same digests in either).
///
/// # Safety
///
/// As for [`streebog_many_device`].
pub unsafe fn streebog_many_device_scheme<'a, D: Device>(
    dev: &D,
    data: DevicePtr,
    layout: impl Into<Layout<'a>>,
    bits: Bits,
    scheme: StreebogScheme,
    out: DevicePtr,
) -> Result<(), Error> {
    let (kernel, lanes) = (kernel(bits, scheme), scheme.lanes());
    // SAFETY: either kernel reads the messages at `data` and writes `count` digests of
    // `bits.out_len()` bytes at `out` (streebog.cu), which this function's caller guarantees.
    unsafe { batch::launch_per_message(dev, kernel, data, layout.into(), out, lanes, &[]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_batches_get_eight_threads_a_message() {
        assert_eq!(StreebogScheme::for_batch(8192, 132), StreebogScheme::EightPerMessage);
        assert_eq!(StreebogScheme::for_batch(65_536, 132), StreebogScheme::OnePerThread);
        assert_eq!(StreebogScheme::for_batch(1, 0), StreebogScheme::EightPerMessage);
        assert_eq!(StreebogScheme::for_batch(16_384, 132), StreebogScheme::OnePerThread);
        assert_eq!(StreebogScheme::for_batch(96, 1), StreebogScheme::OnePerThread);
    }
}
