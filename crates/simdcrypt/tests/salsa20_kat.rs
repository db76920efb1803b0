//! The Salsa20 specification's core and expansion examples and the eSTREAM vectors
//! (test-vectors/salsa20.json) on every backend this CPU supports, through short calls
//! (the portable short-message path), long calls (the wide kernels), seeks and threads.

mod common;

use simdcrypt::blake3::Threads;
use simdcrypt::salsa20::{self, Platform, Rounds, Salsa20};

fn hex_field(v: &serde_json::Value, name: &str) -> Vec<u8> {
    common::unhex(v[name].as_str().unwrap_or_else(|| panic!("field {name}")))
}

#[test]
fn core_examples() {
    let v = common::load_json("salsa20.json");
    let cases = v["core"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "vector file looks truncated");
    for case in cases {
        let input: [u8; 64] = hex_field(case, "input").try_into().unwrap();
        assert_eq!(salsa20::salsa20_core(&input).to_vec(), hex_field(case, "output"));
    }
}

/// Keystream bytes `offset .. offset + len` of `cipher`'s stream, read in one long call
/// from `start` (<= offset) so that wide kernels produce them.
fn keystream_at(mut cipher: Salsa20, start: u128, offset: u128, len: usize, extra: usize) -> Vec<u8> {
    cipher.seek(start).unwrap();
    let total = (offset - start) as usize + len + extra;
    let mut ks = vec![0u8; total];
    cipher.fill_keystream(&mut ks).unwrap();
    ks[(offset - start) as usize..][..len].to_vec()
}

#[test]
fn expansion_example_on_every_backend() {
    let v = common::load_json("salsa20.json");
    let case = &v["expansion"][0];
    let key = [hex_field(case, "k0_hex"), hex_field(case, "k1_hex")].concat();
    let n = hex_field(case, "n_hex");
    let expected = hex_field(case, "output");
    let counter = u64::from_le_bytes(n[8..16].try_into().unwrap());
    for platform in common::supported_backends::<Platform>("expansion_example_on_every_backend") {
        let mut c = Salsa20::with_options(&key, &n[..8], Rounds::R20).unwrap();
        c.set_platform(platform);
        let block = u128::from(counter) * 64;
        // One block alone, then inside runs that start 0..=20 blocks earlier.
        for before in 0..=20u128 {
            for extra in [0, 64 * 11, 4096] {
                let got = keystream_at(c.clone(), block - before * 64, block, 64, extra);
                assert_eq!(got, expected, "{} before {before} extra {extra}", platform.name());
            }
        }
        // set_counter is the spec's block counter.
        let mut d = c.clone();
        d.set_counter(counter);
        let mut ks = [0u8; 64];
        d.fill_keystream(&mut ks).unwrap();
        assert_eq!(ks.to_vec(), expected, "{} set_counter", platform.name());
    }
}

#[test]
fn estream_vectors_on_every_backend() {
    let v = common::load_json("salsa20.json");
    let cases = v["estream"].as_array().unwrap();
    assert!(!cases.is_empty());
    for platform in common::supported_backends::<Platform>("estream_vectors_on_every_backend") {
        for case in cases {
            let key = hex_field(case, "key_hex");
            let iv = hex_field(case, "iv_hex");
            let mut c = Salsa20::with_options(&key, &iv, Rounds::R20).unwrap();
            c.set_platform(platform);
            for s in case["stream"].as_array().unwrap() {
                let offset = s["offset"].as_u64().unwrap() as u128;
                let expected = hex_field(s, "hex");
                let label = format!("{} {} offset {offset}", platform.name(), case["name"]);
                // Directly after a seek, within one long call from 0, and one byte at a time.
                assert_eq!(keystream_at(c.clone(), offset, offset, expected.len(), 0), expected, "{label} seek");
                assert_eq!(keystream_at(c.clone(), 0, offset, expected.len(), 8192), expected, "{label} long");
                let mut bytewise = c.clone();
                bytewise.seek(offset).unwrap();
                let got: Vec<u8> = (0..expected.len())
                    .map(|_| {
                        let mut b = [0u8];
                        bytewise.fill_keystream(&mut b).unwrap();
                        b[0]
                    })
                    .collect();
                assert_eq!(got, expected, "{label} byte at a time");
                // Threads: one 1 MiB call on two threads.
                let mut threaded = c.clone();
                threaded.set_max_threads(Threads::Max(2));
                assert_eq!(keystream_at(threaded, 0, offset, expected.len(), 1 << 20), expected, "{label} threads");
            }
        }
    }
}
