#![cfg(feature = "cuda-emulation")]
//! The Streebog kernels (src/cuda/streebog.cu), run by the host emulation, against the CPU
//! batch and RustCrypto's `streebog`, in both schemes (one thread a message, eight threads
//! a message): the standard's examples, every edge length up to 1 MiB, random ragged
//! batches of 1 to 10,000 messages (block counts around the 128 threads of a block), both
//! digest sizes; the `_device` entry point on device buffers (exactly the digests written)
//! and its offsets errors.

mod common;

use common::cuda_batch;
use digest::Digest;
use simdcrypt::blake3::Threads;
use simdcrypt::cuda::{self, DevicePtr, Emulated, Layout, StreebogScheme};
use simdcrypt::streebog::{self, Bits, Platform};

const SIZES: [Bits; 2] = [Bits::B256, Bits::B512];
const SCHEMES: [StreebogScheme; 2] = [StreebogScheme::OnePerThread, StreebogScheme::EightPerMessage];

fn gpu(bits: Bits, scheme: StreebogScheme) -> impl Fn(&[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> {
    move |msgs, out| cuda::streebog_many_scheme(&Emulated, msgs, bits, scheme, out)
}

/// `streebog_many_device_scheme` with the two parameters as one, as cuda_batch's checks take.
///
/// # Safety
///
/// As for `streebog_many_device`.
unsafe fn device_scheme(
    dev: &Emulated,
    data: DevicePtr,
    layout: Layout<'_>,
    (bits, scheme): (Bits, StreebogScheme),
    out: DevicePtr,
) -> Result<(), simdcrypt::Error> {
    // SAFETY: the caller's contract.
    unsafe { cuda::streebog_many_device_scheme(dev, data, layout, bits, scheme, out) }
}

/// `streebog_many_device` (its own choice of scheme) as a plain function pointer.
///
/// # Safety
///
/// As for `streebog_many_device`.
unsafe fn device_auto(
    dev: &Emulated,
    data: DevicePtr,
    layout: Layout<'_>,
    bits: Bits,
    out: DevicePtr,
) -> Result<(), simdcrypt::Error> {
    // SAFETY: the caller's contract.
    unsafe { cuda::streebog_many_device(dev, data, layout, bits, out) }
}

fn cpu(bits: Bits) -> impl Fn(&[&[u8]], &mut [u8]) -> Result<(), simdcrypt::Error> {
    move |msgs, out| streebog::hash_many(msgs, bits, out, Platform::detect(), Threads::One)
}

fn oracle(bits: Bits) -> impl Fn(&[u8]) -> Vec<u8> {
    move |m| match bits {
        Bits::B256 => streebog_rc::Streebog256::digest(m).to_vec(),
        Bits::B512 => streebog_rc::Streebog512::digest(m).to_vec(),
    }
}

/// The batch through both schemes against the CPU batch and the oracle.
fn check(label: &str, msgs: &[&[u8]], bits: Bits) {
    for scheme in SCHEMES {
        let label = format!("{label} ({scheme:?})");
        cuda_batch::check_batch(&label, msgs, bits.out_len(), &gpu(bits, scheme), &cpu(bits), &oracle(bits));
    }
}

#[test]
fn standard_examples_through_the_kernel() {
    let cases = common::vector_cases("streebog.json");
    assert_eq!(cases.len(), 5, "vector file looks truncated");
    for bits in SIZES {
        let n = 8 * bits.out_len() as u64;
        let (msgs, digests): (Vec<Vec<u8>>, Vec<Vec<u8>>) = cases
            .iter()
            .filter(|c| c["bits"].as_u64() == Some(n))
            .map(|c| (common::hex_field(c, "message_hex"), common::hex_field(c, "digest_hex")))
            .unzip();
        assert!(!msgs.is_empty());
        // The examples in one batch, each between other messages.
        let mut batch: Vec<&[u8]> = Vec::new();
        for m in &msgs {
            batch.extend([b"x".as_slice(), m, &[]]);
        }
        let mut out = vec![0u8; batch.len() * bits.out_len()];
        cuda::streebog_many(&Emulated, &batch, bits, &mut out).unwrap();
        for (i, d) in digests.iter().enumerate() {
            assert_eq!(
                &out[(3 * i + 1) * bits.out_len()..][..bits.out_len()],
                d.as_slice(),
                "Streebog-{n} example {i}"
            );
        }
        check(&format!("Streebog-{n} examples"), &batch, bits);
        println!(
            "standard_examples_through_the_kernel: Streebog-{n}: {} examples in a batch of {}",
            msgs.len(),
            batch.len()
        );
    }
}

#[test]
fn edge_lengths_alone_and_together() {
    let lengths = cuda_batch::edge_lengths(streebog::BLOCK_LEN);
    let max = *lengths.iter().max().unwrap();
    let data = common::random_bytes(0x5EB0, max);
    let ff = vec![0xffu8; max];
    let together: Vec<&[u8]> = lengths.iter().flat_map(|&l| [&data[..l], &ff[..l]]).collect();
    for bits in SIZES {
        for &len in &lengths {
            check(&format!("{bits:?} len {len} alone"), &[&data[..len]], bits);
        }
        check(&format!("{bits:?} all lengths"), &together, bits);
    }
    println!(
        "edge_lengths_alone_and_together: Streebog-256 and -512, lengths {lengths:?} (random and all-0xFF bytes), alone and in one batch"
    );
}

#[test]
fn random_ragged_batches() {
    let data = common::random_bytes(0x5EB1, 1 << 16);
    let mut rng = common::rng(0x5EB2);
    let counts = [1usize, 2, 3, 127, 128, 129, 255, 256, 257, 1000, 10_000];
    for bits in SIZES {
        for &count in &counts {
            // Mostly short messages; the largest batch stays short for the time it takes.
            let max_len = if count >= 10_000 { 200 } else { 700 };
            let msgs = cuda_batch::ragged(&mut rng, &data, count, max_len);
            check(&format!("{bits:?} {count} messages"), &msgs, bits);
        }
        // Very different lengths in one batch: a long message among short ones.
        let mut msgs = cuda_batch::ragged(&mut rng, &data, 300, 100);
        msgs[77] = &data[..60_000];
        msgs[200] = &data[1..];
        check(&format!("{bits:?} long among short"), &msgs, bits);
    }
    println!("random_ragged_batches: Streebog-256 and -512, counts {counts:?}, lengths 0..=700 (0..=200 at 10,000), and 64 KiB among short ones");
}

#[test]
fn device_entry_point_writes_exactly_the_digests() {
    for bits in SIZES {
        let count = cuda_batch::check_device_variant(bits.out_len(), device_auto, bits, &oracle(bits));
        cuda_batch::check_offsets_refused(device_auto, bits);
        for scheme in SCHEMES {
            cuda_batch::check_device_variant(bits.out_len(), device_scheme, (bits, scheme), &oracle(bits));
            cuda_batch::check_offsets_refused(device_scheme, (bits, scheme));
        }
        println!("device_entry_point_writes_exactly_the_digests: {bits:?}: {count} messages from an offset, guard bytes intact; bad offsets refused (the chosen scheme and both forced)");
    }
}

#[test]
fn output_length_errors_match_the_cpu() {
    for bits in SIZES {
        for scheme in SCHEMES {
            cuda_batch::check_out_len_refused(bits.out_len(), &gpu(bits, scheme), &cpu(bits));
        }
    }
    println!(
        "output_length_errors_match_the_cpu: Streebog-256 and -512, short and long buffers refused as by hash_many"
    );
}
