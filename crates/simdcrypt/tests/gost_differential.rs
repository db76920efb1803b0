//! Streebog and GOST R 34.11-94 on every backend against RustCrypto's `streebog` and
//! `gost94` crates (and `hmac` over `streebog` for HMAC): lengths 0..=200, around 512 and
//! 1024, several MiB, all-0xFF inputs (the checksum's carry chains), random update
//! splits, and batches against one message at a time.

mod common;

use digest::Digest;
use hmac::Mac;
use rand::Rng;
use simdcrypt::blake3::Threads;
use simdcrypt::gost94::{self, Gost94, SBox};
use simdcrypt::streebog::{self, Bits};

fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=200).collect();
    v.extend([255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 65536 + 33, (3 << 20) + 5]);
    v
}

/// Inputs: fixed-seed random bytes, and all 0xFF bytes.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let max = *lengths().iter().max().unwrap();
    vec![("random", common::random_bytes(0x57EE, max)), ("ff", vec![0xff; max])]
}

fn oracle_streebog(bits: u64, data: &[u8]) -> Vec<u8> {
    if bits == 256 {
        streebog_rc::Streebog256::digest(data).to_vec()
    } else {
        streebog_rc::Streebog512::digest(data).to_vec()
    }
}

fn oracle_gost94(sbox: SBox, data: &[u8]) -> Vec<u8> {
    match sbox {
        SBox::Test => gost94_rc::Gost94Test::digest(data).to_vec(),
        SBox::CryptoPro => gost94_rc::Gost94CryptoPro::digest(data).to_vec(),
    }
}

#[test]
fn streebog_matches_rustcrypto_on_every_backend() {
    let lengths = lengths();
    let inputs = inputs();
    let mut rng = common::rng(0x57EF);
    for platform in common::supported_backends::<streebog::Platform>("streebog_matches_rustcrypto_on_every_backend") {
        for (kind, data) in &inputs {
            for &len in &lengths {
                let input = &data[..len];
                for bits in [256, 512] {
                    let expected = oracle_streebog(bits, input);
                    let label = format!("{} {bits} {kind} len {len}", platform.name());
                    assert_eq!(common::streebog_digest(platform, bits, &[input]), expected, "{label}");
                    if len > 0 && (len <= 1025 || bits == 512) {
                        let pieces = rng.random_range(2..8);
                        let points: Vec<usize> = (0..pieces).map(|_| rng.random_range(0..=len)).collect();
                        let split = common::split_at_points(input, &points);
                        assert_eq!(
                            common::streebog_digest(platform, bits, &split),
                            expected,
                            "{label} cuts {points:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn gost94_matches_rustcrypto_on_every_backend() {
    let lengths = lengths();
    let inputs = inputs();
    let mut rng = common::rng(0x6057);
    for platform in common::supported_backends::<gost94::Platform>("gost94_matches_rustcrypto_on_every_backend") {
        for (kind, data) in &inputs {
            for &len in &lengths {
                let input = &data[..len];
                for sbox in SBox::ALL {
                    let expected = oracle_gost94(sbox, input);
                    let label = format!("{} {} {kind} len {len}", platform.name(), sbox.name());
                    let mut h = Gost94::new(sbox);
                    h.set_platform(platform);
                    assert_eq!(common::digest_pieces(&mut h.clone(), &[input]), expected, "{label}");
                    let pieces = rng.random_range(2..8);
                    let points: Vec<usize> = (0..pieces).map(|_| rng.random_range(0..=len)).collect();
                    let split = common::split_at_points(input, &points);
                    assert_eq!(common::digest_pieces(&mut h, &split), expected, "{label} cuts {points:?}");
                }
            }
        }
    }
}

#[test]
fn hmac_matches_hmac_crate_on_every_backend() {
    let data = common::random_bytes(0x4AC, 3000);
    for platform in common::supported_backends::<streebog::Platform>("hmac_matches_hmac_crate_on_every_backend") {
        for key_len in [0usize, 1, 16, 32, 63, 64, 65, 100, 200] {
            let key = &data[2000..2000 + key_len];
            for len in [0usize, 1, 63, 64, 65, 200, 1000] {
                let msg = &data[..len];
                let mut o256 = hmac::Hmac::<streebog_rc::Streebog256>::new_from_slice(key).unwrap();
                o256.update(msg);
                let mut h = streebog::HmacStreebog256::new(key);
                h.set_platform(platform).update(msg);
                assert_eq!(h.finalize().to_vec(), o256.finalize().into_bytes().to_vec(), "256 key {key_len} len {len}");
                let mut o512 = hmac::Hmac::<streebog_rc::Streebog512>::new_from_slice(key).unwrap();
                o512.update(msg);
                let mut h = streebog::HmacStreebog512::new(key);
                h.set_platform(platform).update(msg);
                assert_eq!(h.finalize().to_vec(), o512.finalize().into_bytes().to_vec(), "512 key {key_len} len {len}");
            }
        }
    }
}

/// Batches of mixed and equal lengths, counts around the lane count, with threads,
/// against one message at a time.
#[test]
fn batches_match_one_at_a_time() {
    let data = common::random_bytes(0xBA7C, 1 << 16);
    let mut rng = common::rng(0xBA7D);
    let counts = [0usize, 1, 3, 4, 5, 6, 8, 13, 30, 100];
    for platform in common::supported_backends::<streebog::Platform>("batches_match_one_at_a_time (streebog)") {
        for &count in &counts {
            for equal in [true, false] {
                let msgs: Vec<&[u8]> = (0..count)
                    .map(|_| {
                        let len = if equal { 64 } else { rng.random_range(0..600) };
                        let start = rng.random_range(0..data.len() - len);
                        &data[start..start + len]
                    })
                    .collect();
                for bits in [Bits::B256, Bits::B512] {
                    let n = bits.out_len();
                    let expected: Vec<u8> = msgs.iter().flat_map(|m| oracle_streebog(8 * n as u64, m)).collect();
                    for threads in [Threads::One, Threads::Max(3)] {
                        let mut out = vec![0u8; count * n];
                        streebog::hash_many(&msgs, bits, &mut out, platform, threads).unwrap();
                        assert_eq!(
                            out,
                            expected,
                            "{} count {count} equal {equal} {bits:?} {threads:?}",
                            platform.name()
                        );
                    }
                }
            }
        }
    }
    for platform in common::supported_backends::<gost94::Platform>("batches_match_one_at_a_time (gost94)") {
        for &count in &counts {
            let msgs: Vec<&[u8]> = (0..count).map(|i| &data[i * 7..i * 7 + rng.random_range(0..300)]).collect();
            for sbox in SBox::ALL {
                let expected: Vec<u8> = msgs.iter().flat_map(|m| oracle_gost94(sbox, m)).collect();
                let mut out = vec![0u8; count * 32];
                gost94::hash_many(&msgs, sbox, &mut out, platform, Threads::Max(2)).unwrap();
                assert_eq!(out, expected, "{} count {count} {}", platform.name(), sbox.name());
            }
        }
    }
    let mut out = vec![0u8; 63];
    assert!(
        streebog::hash_many(&[b"a", b"b"], Bits::B256, &mut out, streebog::Platform::portable(), Threads::One).is_err()
    );
    assert!(Bits::from_bits(384).unwrap_err().to_string().contains("256 or 512, got 384"));
}

/// GOST R 34.11-94 batches around the multi-message kernels' lane counts (16, in a pair of
/// ymm or four xmm registers on x86-64; the NEON kernel's quarters of 4): equal
/// lengths at the block edges, ragged lengths, and one long message among short ones (the
/// last busy lanes finish one at a time), both parameter sets, against RustCrypto.
#[test]
fn gost94_batches_around_the_lane_count() {
    let data = common::random_bytes(0x6B47, 1 << 14);
    let mut rng = common::rng(0x6B48);
    let counts = [1usize, 2, 3, 7, 8, 9, 15, 16, 17, 13, 30, 33];
    for platform in common::supported_backends::<gost94::Platform>("gost94_batches_around_the_lane_count") {
        for &count in &counts {
            let mut shapes: Vec<(String, Vec<usize>)> = [0usize, 1, 8, 31, 32, 33, 63, 64, 65, 128, 1000]
                .iter()
                .map(|&len| (format!("equal {len}"), vec![len; count]))
                .collect();
            shapes.push(("ragged".into(), (0..count).map(|_| rng.random_range(0..1100)).collect()));
            let mut long = vec![64; count];
            long[count / 2] = 5000;
            shapes.push(("one long".into(), long));
            for (shape, lens) in &shapes {
                let msgs: Vec<&[u8]> = lens
                    .iter()
                    .map(|&len| {
                        let start = rng.random_range(0..=data.len() - len);
                        &data[start..start + len]
                    })
                    .collect();
                for sbox in SBox::ALL {
                    let expected: Vec<u8> = msgs.iter().flat_map(|m| oracle_gost94(sbox, m)).collect();
                    let mut out = vec![0u8; count * 32];
                    gost94::hash_many(&msgs, sbox, &mut out, platform, Threads::One).unwrap();
                    assert_eq!(out, expected, "{} count {count} {shape} {}", platform.name(), sbox.name());
                }
            }
        }
    }
}
