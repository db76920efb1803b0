#![cfg(feature = "cuda-emulation")]
//! The BLAKE3 kernels (src/cuda/blake3.cu), run by the host emulation, against the CPU batch
//! and the `blake3` crate: batches in all three modes over the edge lengths (block and chunk
//! boundaries, many-chunk messages, 1 MiB), ragged batches of 1 to 10,000 messages, output
//! lengths other than 32; one large input through the chunk and tree kernels, at sizes whose
//! chunk counts are powers of two, their neighbours and odd counts; the `_device` entry
//! points on device buffers.

mod common;

use common::cuda_batch;
use simdcrypt::blake3::{Batch, Mode};
use simdcrypt::cuda::{self, Device, DeviceBuffer, DevicePtr, Emulated, Layout};
use simdcrypt::Error;

const KEY: [u8; 32] = *b"a 32-byte key for the GPU tests!";
const CONTEXT: &str = "simdcrypt 2026-11-28 cuda emulation tests";

fn modes() -> [(&'static str, Mode<'static>); 3] {
    [("hash", Mode::Hash), ("keyed", Mode::KeyedHash(&KEY)), ("derive", Mode::DeriveKey(CONTEXT))]
}

/// The `blake3` crate's hasher for a mode: the independent oracle.
fn oracle_hasher(mode: Mode<'_>) -> blake3::Hasher {
    match mode {
        Mode::Hash => blake3::Hasher::new(),
        Mode::KeyedHash(key) => blake3::Hasher::new_keyed(key),
        Mode::DeriveKey(context) => blake3::Hasher::new_derive_key(context),
    }
}

fn oracle(mode: Mode<'_>, out_len: usize, m: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; out_len];
    oracle_hasher(mode).update(m).finalize_xof().fill(&mut out);
    out
}

fn check(label: &str, msgs: &[&[u8]], mode: Mode<'_>, out_len: usize) {
    let gpu = |m: &[&[u8]], o: &mut [u8]| cuda::blake3_many(&Emulated, m, mode, out_len, o);
    let cpu = |m: &[&[u8]], o: &mut [u8]| Batch::new(mode).hash_into(m, out_len, o);
    cuda_batch::check_batch(label, msgs, out_len, &gpu, &cpu, &|m| oracle(mode, out_len, m));
}

/// BLAKE3's edge lengths: block and chunk boundaries, powers of two of chunks and their
/// neighbours, an odd chunk count, 1 MiB.
fn lengths() -> Vec<usize> {
    let mut v = common::edge_lengths(64, 1024);
    v.extend([
        1023,
        1024,
        1025,
        2047,
        2048,
        2049,
        3 * 1024 + 5,
        16 * 1024 - 1,
        16 * 1024 + 1,
        31 * 1024 - 1,
        31 * 1024 + 1,
    ]);
    // Around the longest message one thread hashes (256 KiB) and well past it.
    v.extend([(1 << 18) - 1, 1 << 18, (1 << 18) + 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1]);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn batches_of_edge_lengths_in_every_mode() {
    let lengths = lengths();
    let data = common::random_bytes(0xB1A4E3, *lengths.last().unwrap());
    let msgs: Vec<&[u8]> = lengths.iter().map(|&n| &data[..n]).collect();
    for (name, mode) in modes() {
        check(&format!("{name}, edge lengths"), &msgs, mode, 32);
    }
    println!(
        "cuda emulation: blake3_many over {} lengths from 0 to {} bytes, three modes",
        lengths.len(),
        lengths.last().unwrap()
    );
}

#[test]
fn ragged_batches_and_output_lengths() {
    let data = common::random_bytes(0x4A66ED, 1 << 16);
    let mut rng = common::rng(0x4A66EE);
    for (count, max_len, out_len) in
        [(1, 5000, 32), (127, 300, 1), (128, 2100, 64), (129, 4096, 65), (1000, 1100, 200), (10_000, 200, 32)]
    {
        let msgs = cuda_batch::ragged(&mut rng, &data, count, max_len);
        for (name, mode) in modes() {
            check(&format!("{name}, {count} ragged messages, {out_len}-byte outputs"), &msgs, mode, out_len);
        }
    }
    println!("cuda emulation: blake3_many ragged batches of 1 to 10000 messages, outputs of 1 to 200 bytes");
}

#[test]
fn batch_refuses_wrong_output_lengths() {
    let gpu = |m: &[&[u8]], o: &mut [u8]| cuda::blake3_many(&Emulated, m, Mode::Hash, 32, o);
    let cpu = |m: &[&[u8]], o: &mut [u8]| Batch::new(Mode::Hash).hash_into(m, 32, o);
    cuda_batch::check_out_len_refused(32, &gpu, &cpu);
    // An output length of zero writes nothing, as the CPU batch.
    cuda::blake3_many(&Emulated, &[b"abc"], Mode::Hash, 0, &mut []).unwrap();
}

#[test]
fn one_large_input_through_the_tree() {
    let sizes = [
        0usize,
        1,
        1024,
        1025,
        2048,
        2049,
        3 * 1024,
        5 * 1024 + 7,
        8 * 1024,
        8 * 1024 + 1,
        31 * 1024 + 1,
        100 * 1024,
        1 << 20,
        3 * (1 << 20) + 12_345,
    ];
    let data = common::random_bytes(0x1A26E, *sizes.iter().max().unwrap());
    for &n in &sizes {
        for (name, mode) in modes() {
            for out_len in [32usize, 1, 64, 65, 1000] {
                let got = cuda::blake3_hash(&Emulated, &data[..n], mode, out_len).unwrap();
                assert_eq!(got, oracle(mode, out_len, &data[..n]), "{name}: {n} bytes, {out_len}-byte output");
            }
        }
        let mut cpu = simdcrypt::blake3::Hasher::new();
        assert_eq!(
            cuda::blake3_hash(&Emulated, &data[..n], Mode::Hash, 32).unwrap(),
            cpu.update(&data[..n]).finalize(),
            "{n} bytes against the CPU"
        );
    }
    assert!(cuda::blake3_hash(&Emulated, &data[..5000], Mode::Hash, 0).unwrap().is_empty());
    println!("cuda emulation: blake3_hash of one input of {} sizes from 0 to {} bytes (chunks, parent layers, root), three modes", sizes.len(), sizes.last().unwrap());
}

/// `blake3_many_device` with the mode fixed by the test, in the shape the shared check takes.
unsafe fn many_device(
    dev: &Emulated,
    data: DevicePtr,
    layout: Layout<'_>,
    mode: Mode<'static>,
    out: DevicePtr,
) -> Result<(), Error> {
    // SAFETY: passed through from the caller, whose contract is blake3_many_device's.
    unsafe { cuda::blake3_many_device(dev, data, layout, mode, 32, out) }
}

#[test]
fn device_entry_points() {
    for (name, mode) in modes() {
        let count = cuda_batch::check_device_variant(32, many_device, mode, &|m| oracle(mode, 32, m));
        assert!(count > 0, "{name}");
    }
    cuda_batch::check_offsets_refused(many_device, Mode::Hash);
    let dev = Emulated;
    let data = common::random_bytes(99, 70_000);
    let mut buf = dev.alloc(data.len() + 8).unwrap();
    dev.upload(&mut buf, 8, &data).unwrap();
    for n in [0usize, 1000, 1025, 70_000] {
        // SAFETY: `buf` holds the `n` bytes from byte 8 on and outlives the call.
        let got =
            unsafe { cuda::blake3_hash_device(&dev, buf.ptr() + 8, n as u64, Mode::KeyedHash(&KEY), 40) }.unwrap();
        assert_eq!(got, oracle(Mode::KeyedHash(&KEY), 40, &data[..n]), "{n} bytes on the device");
    }
}
