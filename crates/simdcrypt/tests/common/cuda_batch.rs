//! What the tests of the one-thread-per-message CUDA kernels share: the lengths and batches
//! they hash, the three-way comparison (emulated kernel, CPU batch, independent oracle), and
//! the checks of the `_device` entry points (exact bytes written, offsets refused).

use rand::Rng;
use simdcrypt::cuda::{Device, DeviceBuffer, DevicePtr, Emulated, Layout};
use simdcrypt::Error;

/// A batch on the host: `(messages, out) -> Result`.
pub type HostBatch<'a> = &'a dyn Fn(&[&[u8]], &mut [u8]) -> Result<(), Error>;
/// A `_device` entry point (`streebog_many_device`, `gost94_many_device`) on the emulation,
/// `P` its parameter (bits, S-box set).
pub type DeviceBatch<P> = unsafe fn(&Emulated, DevicePtr, Layout<'_>, P, DevicePtr) -> Result<(), Error>;

/// The lengths every kernel must get right for a hash with `block`-byte blocks: the short
/// ones, block and double-block edges, a few longer ones, and 1 MiB (±1).
pub fn edge_lengths(block: usize) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4097, 65536 + 3];
    for base in [block, 2 * block, 3 * block] {
        v.extend([base - 1, base, base + 1]);
    }
    v.extend([(1 << 20) - 1, 1 << 20, (1 << 20) + 1]);
    v.sort_unstable();
    v.dedup();
    v
}

/// `count` messages of random lengths up to `max_len`, at random places in `data` (which
/// must be longer than `max_len`).
pub fn ragged<'a>(rng: &mut impl Rng, data: &'a [u8], count: usize, max_len: usize) -> Vec<&'a [u8]> {
    (0..count)
        .map(|_| {
            let len = rng.random_range(0..=max_len);
            let start = rng.random_range(0..=data.len() - len);
            &data[start..start + len]
        })
        .collect()
}

/// Hashes `messages` with the emulated kernel (`gpu`) and the CPU batch (`cpu`), and checks
/// both digests of every message against each other and against `oracle`.
pub fn check_batch(
    label: &str,
    messages: &[&[u8]],
    out_len: usize,
    gpu: HostBatch<'_>,
    cpu: HostBatch<'_>,
    oracle: &dyn Fn(&[u8]) -> Vec<u8>,
) {
    let mut got = vec![0u8; messages.len() * out_len];
    gpu(messages, &mut got).unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut expected = vec![0u8; messages.len() * out_len];
    cpu(messages, &mut expected).unwrap_or_else(|e| panic!("{label}: CPU batch: {e}"));
    for (i, m) in messages.iter().enumerate() {
        let g = &got[i * out_len..][..out_len];
        assert_eq!(g, &expected[i * out_len..][..out_len], "{label}: message {i} ({} bytes) against the CPU", m.len());
        assert_eq!(g, oracle(m), "{label}: message {i} ({} bytes) against the oracle", m.len());
    }
}

/// Runs `batch` on messages already in device memory, with the batch starting past the
/// buffer's first bytes and the digests written between guard bytes, laid out by offsets
/// and as rows of equal length (41 bytes, and empty ones): checks the digests against
/// `oracle` and that not one byte outside them changed. Returns the message count of the
/// offsets layout.
pub fn check_device_variant<P: Copy>(
    out_len: usize,
    batch: DeviceBatch<P>,
    param: P,
    oracle: &dyn Fn(&[u8]) -> Vec<u8>,
) -> usize {
    let dev = Emulated;
    let data = crate::common::random_bytes(0xDE71CE, 20_000);
    let mut rng = crate::common::rng(0xDE71CF);
    // Offsets into `data` itself: a lead of untouched bytes, messages of 0..300 bytes, some
    // empty, one of 1000.
    let mut offsets = vec![17u64];
    for i in 0..300 {
        let len = if i == 150 { 1000 } else { rng.random_range(0..=40) * (i % 3) };
        offsets.push(offsets.last().unwrap() + len as u64);
    }
    let count = offsets.len() - 1;
    let mut data_buf = dev.alloc(data.len()).unwrap();
    dev.upload(&mut data_buf, 0, &data).unwrap();
    assert!(*offsets.last().unwrap() <= data.len() as u64);
    check_written(
        out_len,
        count,
        oracle,
        |i| &data[offsets[i] as usize..offsets[i + 1] as usize],
        |out| {
            // SAFETY: `data_buf` holds every byte the offsets name (checked above), and `out` has
            // room for `count` digests of `out_len` bytes (check_written); both outlive the call,
            // which waits for the kernel.
            unsafe { batch(&dev, data_buf.ptr(), Layout::Offsets(&offsets), param, out) }
        },
    );
    for (rows, len) in [(77usize, 41usize), (5, 0)] {
        assert!(17 + rows * len <= data.len());
        let layout = Layout::Rows { count: rows as u64, len: len as u64 };
        check_written(
            out_len,
            rows,
            oracle,
            |i| &data[17 + i * len..][..len],
            |out| {
                // SAFETY: the rows lie inside `data_buf` from byte 17 (checked above), and `out`
                // has room for their digests (check_written); both outlive the call.
                unsafe { batch(&dev, data_buf.ptr() + 17, layout, param, out) }
            },
        );
    }
    count
}

/// Runs `run(out)` with `out` the device address of room for `count` digests of `out_len`
/// bytes between guard bytes, then checks digest `i` against `oracle(message(i))` and that
/// the guard bytes are intact.
fn check_written<'m>(
    out_len: usize,
    count: usize,
    oracle: &dyn Fn(&[u8]) -> Vec<u8>,
    message: impl Fn(usize) -> &'m [u8],
    run: impl FnOnce(DevicePtr) -> Result<(), Error>,
) {
    let dev = Emulated;
    const GUARD: usize = 40;
    let mut out_buf = dev.alloc(GUARD + count * out_len + GUARD).unwrap();
    let sentinel = vec![0xA5u8; out_buf.len()];
    dev.upload(&mut out_buf, 0, &sentinel).unwrap();
    run(out_buf.ptr() + GUARD as u64).unwrap();
    let mut out = vec![0u8; out_buf.len()];
    dev.download(&out_buf, 0, &mut out).unwrap();
    assert!(out[..GUARD].iter().all(|&b| b == 0xA5), "bytes before the digests written");
    assert!(out[GUARD + count * out_len..].iter().all(|&b| b == 0xA5), "bytes after the digests written");
    for i in 0..count {
        let msg = message(i);
        assert_eq!(out[GUARD + i * out_len..][..out_len], oracle(msg), "message {i} ({} bytes)", msg.len());
    }
}

/// The `_device` entry point refuses offsets that describe no batch, before launching
/// anything, and a batch of no messages writes nothing.
pub fn check_offsets_refused<P: Copy>(batch: DeviceBatch<P>, param: P) {
    let dev = Emulated;
    let data_buf = dev.alloc(64).unwrap();
    let mut out_buf = dev.alloc(64).unwrap();
    dev.upload(&mut out_buf, 0, &[0xA5; 64]).unwrap();
    // SAFETY: every offset below is at most 10, inside the 64 bytes of `data_buf`, and the one
    // batch that is not refused has no messages, so writes no digest to `out_buf`; both
    // buffers outlive the calls.
    let run = |offsets: &[u64]| unsafe { batch(&dev, data_buf.ptr(), Layout::Offsets(offsets), param, out_buf.ptr()) };
    let err = run(&[]).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(err.to_string().contains("one entry more than the batch has messages"), "{err}");
    let err = run(&[0, 10, 9]).unwrap_err();
    assert!(err.to_string().contains("non-decreasing, but offsets[1] = 10 > offsets[2] = 9"), "{err}");
    run(&[5]).unwrap();
    // Rows whose bytes would run past the end of the address space.
    // SAFETY: refused before anything is launched.
    let err =
        unsafe { batch(&dev, data_buf.ptr(), Layout::Rows { count: u64::MAX / 2, len: 4 }, param, out_buf.ptr()) }
            .unwrap_err();
    assert!(err.to_string().contains("more bytes than an address holds"), "{err}");
    // SAFETY: no rows: nothing is read or written.
    unsafe { batch(&dev, data_buf.ptr(), Layout::Rows { count: 0, len: 4 }, param, out_buf.ptr()) }.unwrap();
    let mut out = [0u8; 64];
    dev.download(&out_buf, 0, &mut out).unwrap();
    assert_eq!(out, [0xA5; 64], "a batch of no messages wrote");
}

/// The host batch refuses an output buffer of the wrong size with the CPU batch's error.
pub fn check_out_len_refused(out_len: usize, gpu: HostBatch<'_>, cpu: HostBatch<'_>) {
    let msgs: [&[u8]; 3] = [b"a", b"", b"abc"];
    for wrong in [0, 3 * out_len - 1, 3 * out_len + 1] {
        let mut out = vec![0u8; wrong];
        let err = gpu(&msgs, &mut out).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        assert_eq!(err.to_string(), cpu(&msgs, &mut out).unwrap_err().to_string());
    }
    // No messages, no output: nothing to do, not an error.
    gpu(&[], &mut []).unwrap();
}
