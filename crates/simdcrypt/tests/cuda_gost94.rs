#![cfg(feature = "cuda-emulation")]
//! The GOST R 34.11-94 kernels (src/cuda/gost94.cu), run by the host emulation, against the
//! CPU batch and RustCrypto's `gost94`, with both S-box sets and in both schemes (one thread
//! a message, four threads a message): the vector file, every edge length up to 1 MiB,
//! random ragged batches of 1 to 10,000 messages (block counts around the 128 threads of a
//! block); the `_device` entry point on device buffers (exactly the digests written) and
//! its offsets errors.

mod common;

use common::cuda_batch;
use digest::Digest;
use simdcrypt::blake3::Threads;
use simdcrypt::cuda::{self, DevicePtr, Emulated, Gost94Scheme, Layout};
use simdcrypt::gost94::{self, Platform, SBox, OUT_LEN};

const SCHEMES: [Gost94Scheme; 2] = [Gost94Scheme::OnePerThread, Gost94Scheme::FourPerMessage];

fn gpu(sbox: SBox, scheme: Gost94Scheme) -> impl Fn(&[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> {
    move |msgs, out| cuda::gost94_many_scheme(&Emulated, msgs, sbox, scheme, out)
}

fn cpu(sbox: SBox) -> impl Fn(&[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> {
    move |msgs, out| gost94::hash_many(msgs, sbox, out, Platform::detect(), Threads::One)
}

fn oracle(sbox: SBox) -> impl Fn(&[u8]) -> Vec<u8> {
    move |m| match sbox {
        SBox::Test => gost94_rc::Gost94Test::digest(m).to_vec(),
        SBox::CryptoPro => gost94_rc::Gost94CryptoPro::digest(m).to_vec(),
    }
}

/// The batch through both schemes against the CPU batch and the oracle.
fn check(label: &str, msgs: &[&[u8]], sbox: SBox) {
    for scheme in SCHEMES {
        let label = format!("{label} ({scheme:?})");
        cuda_batch::check_batch(&label, msgs, OUT_LEN, &gpu(sbox, scheme), &cpu(sbox), &oracle(sbox));
    }
}

#[test]
fn vectors_through_the_kernel() {
    let cases = common::vector_cases("gost94.json");
    assert_eq!(cases.len(), 9, "vector file looks truncated");
    let msgs: Vec<Vec<u8>> = cases.iter().map(common::vector_message).collect();
    // The vectors in one batch, each between other messages.
    let mut batch: Vec<&[u8]> = Vec::new();
    for m in &msgs {
        batch.extend([b"x".as_slice(), m, &[]]);
    }
    for sbox in SBox::ALL {
        let mut out = vec![0u8; batch.len() * OUT_LEN];
        cuda::gost94_many(&Emulated, &batch, sbox, &mut out).unwrap();
        for (i, case) in cases.iter().enumerate() {
            let expected = common::hex_field(case, sbox.name());
            assert_eq!(&out[(3 * i + 1) * OUT_LEN..][..OUT_LEN], expected.as_slice(), "{} vector {i}", sbox.name());
        }
        check(&format!("{} vectors", sbox.name()), &batch, sbox);
    }
    println!("vectors_through_the_kernel: {} vectors, cryptopro and test, in a batch of {}", cases.len(), batch.len());
}

#[test]
fn edge_lengths_alone_and_together() {
    let lengths = cuda_batch::edge_lengths(gost94::BLOCK_LEN);
    let max = *lengths.iter().max().unwrap();
    let data = common::random_bytes(0x6094, max);
    let ff = vec![0xffu8; max];
    let together: Vec<&[u8]> = lengths.iter().flat_map(|&l| [&data[..l], &ff[..l]]).collect();
    for sbox in SBox::ALL {
        for &len in &lengths {
            check(&format!("{} len {len} alone", sbox.name()), &[&data[..len]], sbox);
        }
        check(&format!("{} all lengths", sbox.name()), &together, sbox);
    }
    println!(
        "edge_lengths_alone_and_together: cryptopro and test, lengths {lengths:?} (random and all-0xFF bytes), alone and in one batch"
    );
}

#[test]
fn random_ragged_batches() {
    let data = common::random_bytes(0x6095, 1 << 16);
    let mut rng = common::rng(0x6096);
    let counts = [1usize, 2, 3, 127, 128, 129, 255, 256, 257, 1000, 10_000];
    for sbox in SBox::ALL {
        for &count in &counts {
            // Mostly short messages; the largest batch stays short for the time it takes.
            let max_len = if count >= 10_000 { 100 } else { 400 };
            let msgs = cuda_batch::ragged(&mut rng, &data, count, max_len);
            check(&format!("{} {count} messages", sbox.name()), &msgs, sbox);
        }
        // Very different lengths in one batch: a long message among short ones.
        let mut msgs = cuda_batch::ragged(&mut rng, &data, 300, 100);
        msgs[77] = &data[..60_000];
        msgs[200] = &data[1..];
        check(&format!("{} long among short", sbox.name()), &msgs, sbox);
    }
    println!("random_ragged_batches: cryptopro and test, counts {counts:?}, lengths 0..=400 (0..=100 at 10,000), and 64 KiB among short ones");
}

/// `gost94_many_device_scheme` with the two parameters as one, as cuda_batch's checks take.
///
/// # Safety
///
/// As for `gost94_many_device`.
unsafe fn device_scheme(
    dev: &Emulated,
    data: DevicePtr,
    layout: Layout<'_>,
    (sbox, scheme): (SBox, Gost94Scheme),
    out: DevicePtr,
) -> Result<(), simdcrypt::Error> {
    // SAFETY: the caller's contract.
    unsafe { cuda::gost94_many_device_scheme(dev, data, layout, sbox, scheme, out) }
}

/// `gost94_many_device` (its own choice of scheme) as a plain function pointer.
///
/// # Safety
///
/// As for `gost94_many_device`.
unsafe fn many_device(
    dev: &Emulated,
    data: DevicePtr,
    layout: Layout<'_>,
    sbox: SBox,
    out: DevicePtr,
) -> Result<(), simdcrypt::Error> {
    // SAFETY: the caller's contract.
    unsafe { cuda::gost94_many_device(dev, data, layout, sbox, out) }
}

#[test]
fn device_entry_point_writes_exactly_the_digests() {
    for sbox in SBox::ALL {
        let count = cuda_batch::check_device_variant(OUT_LEN, many_device, sbox, &oracle(sbox));
        cuda_batch::check_offsets_refused(many_device, sbox);
        for scheme in SCHEMES {
            cuda_batch::check_device_variant(OUT_LEN, device_scheme, (sbox, scheme), &oracle(sbox));
            cuda_batch::check_offsets_refused(device_scheme, (sbox, scheme));
        }
        println!("device_entry_point_writes_exactly_the_digests: {}: {count} messages from an offset, guard bytes intact; bad offsets refused (the chosen scheme and both forced)", sbox.name());
    }
}

#[test]
fn output_length_errors_match_the_cpu() {
    for sbox in SBox::ALL {
        for scheme in SCHEMES {
            cuda_batch::check_out_len_refused(OUT_LEN, &gpu(sbox, scheme), &cpu(sbox));
        }
    }
    println!("output_length_errors_match_the_cpu: cryptopro and test, short and long buffers refused as by hash_many");
}
