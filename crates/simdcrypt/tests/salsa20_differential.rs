//! Every Salsa20 backend against RustCrypto's `salsa20` crate (Salsa20/20, /12, /8 and
//! XSalsa20, /12, /8) on random keys, nonces, lengths and split points; against the
//! portable backend at the 2^32-block boundary and at the end of the 2^64-block stream;
//! the `cipher` traits; and `crypto_secretbox` against the `xsalsa20poly1305` crate.

mod common;

use cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use rand::{Rng, RngCore};
use simdcrypt::blake3::Threads;
use simdcrypt::salsa20::{self, secretbox, Platform, Rounds, Salsa20, XSalsa20, STREAM_LEN};

/// The reference keystream bytes `start .. start + len` for a 32-byte key.
fn reference(rounds: Rounds, key: &[u8; 32], nonce: &[u8], start: u64, len: usize) -> Vec<u8> {
    fn run<C: KeyIvInit + StreamCipher + StreamCipherSeek>(
        key: &[u8],
        nonce: &[u8],
        start: u64,
        len: usize,
    ) -> Vec<u8> {
        let mut c = C::new_from_slices(key, nonce).unwrap();
        c.seek(start);
        let mut out = vec![0u8; len];
        c.apply_keystream(&mut out);
        out
    }
    match (nonce.len(), rounds) {
        (8, Rounds::R20) => run::<salsa20_ref::Salsa20>(key, nonce, start, len),
        (8, Rounds::R12) => run::<salsa20_ref::Salsa12>(key, nonce, start, len),
        (8, Rounds::R8) => run::<salsa20_ref::Salsa8>(key, nonce, start, len),
        (24, Rounds::R20) => run::<salsa20_ref::XSalsa20>(key, nonce, start, len),
        (24, Rounds::R12) => run::<salsa20_ref::XSalsa12>(key, nonce, start, len),
        (24, Rounds::R8) => run::<salsa20_ref::XSalsa8>(key, nonce, start, len),
        _ => unreachable!(),
    }
}

extern crate salsa20 as salsa20_ref;

enum Any {
    S(Salsa20),
    X(XSalsa20),
}

impl Any {
    fn new(key: &[u8], nonce: &[u8], rounds: Rounds, platform: Platform) -> Any {
        if nonce.len() == 8 {
            let mut c = Salsa20::with_options(key, nonce, rounds).unwrap();
            c.set_platform(platform);
            Any::S(c)
        } else {
            let mut c = XSalsa20::with_options(key, nonce, rounds).unwrap();
            c.set_platform(platform);
            Any::X(c)
        }
    }
    fn seek(&mut self, pos: u128) {
        match self {
            Any::S(c) => c.seek(pos).unwrap(),
            Any::X(c) => c.seek(pos).unwrap(),
        }
    }
    fn threads(&mut self, t: Threads) {
        match self {
            Any::S(c) => drop(c.set_max_threads(t)),
            Any::X(c) => drop(c.set_max_threads(t)),
        }
    }
    fn xor(&mut self, buf: &mut [u8]) {
        match self {
            Any::S(c) => c.xor_keystream(buf).unwrap(),
            Any::X(c) => c.xor_keystream(buf).unwrap(),
        }
    }
    fn xor_into(&mut self, i: &[u8], o: &mut [u8]) {
        match self {
            Any::S(c) => c.xor_keystream_into(i, o).unwrap(),
            Any::X(c) => c.xor_keystream_into(i, o).unwrap(),
        }
    }
    /// Into a fresh allocation that is never initialised before the call.
    fn xor_into_uninit(&mut self, i: &[u8]) -> Vec<u8> {
        let mut out: Vec<std::mem::MaybeUninit<u8>> = Vec::with_capacity(i.len());
        out.resize_with(i.len(), std::mem::MaybeUninit::uninit);
        match self {
            Any::S(c) => c.xor_keystream_uninit(i, &mut out).unwrap().to_vec(),
            Any::X(c) => c.xor_keystream_uninit(i, &mut out).unwrap().to_vec(),
        }
    }
}

#[test]
fn matches_rustcrypto_on_random_inputs() {
    let mut rng = common::rng(0x5a15a20);
    let lengths: Vec<usize> = common::edge_lengths(64, 1024).into_iter().filter(|&l| l <= 200_000).collect();
    for platform in common::supported_backends::<Platform>("matches_rustcrypto_on_random_inputs") {
        for rounds in [Rounds::R20, Rounds::R12, Rounds::R8] {
            for nonce_len in [8usize, 24] {
                for (i, &len) in lengths.iter().enumerate() {
                    let mut key = [0u8; 32];
                    rng.fill_bytes(&mut key);
                    let mut nonce = vec![0u8; nonce_len];
                    rng.fill_bytes(&mut nonce);
                    let start: u64 = if i % 3 == 0 { 0 } else { rng.random_range(0..1u64 << 40) };
                    let data = common::random_bytes(i as u64, len);
                    let ks = reference(rounds, &key, &nonce, start, len);
                    let expected: Vec<u8> = data.iter().zip(&ks).map(|(a, b)| a ^ b).collect();
                    let label = format!(
                        "{} rounds {} nonce {nonce_len} len {len} start {start}",
                        platform.name(),
                        rounds.count()
                    );

                    // In place, in random pieces.
                    let mut c = Any::new(&key, &nonce, rounds, platform);
                    c.seek(u128::from(start));
                    let mut got = data.clone();
                    let mut at = 0;
                    while at < len {
                        let n = if rng.random_bool(0.5) {
                            rng.random_range(0..=(len - at).min(300))
                        } else {
                            rng.random_range(0..=len - at)
                        };
                        c.xor(&mut got[at..at + n]);
                        at += n;
                    }
                    assert_eq!(got, expected, "{label} pieces");

                    // Buffer to buffer, in one call, on two threads.
                    let mut c = Any::new(&key, &nonce, rounds, platform);
                    c.threads(Threads::Max(2));
                    c.seek(u128::from(start));
                    let mut out = vec![0u8; len];
                    c.xor_into(&data, &mut out);
                    assert_eq!(out, expected, "{label} b2b threads");

                    // Into uninitialised memory, in two calls (the second unaligned).
                    let mut c = Any::new(&key, &nonce, rounds, platform);
                    c.seek(u128::from(start));
                    let split = len / 3;
                    let mut got = c.xor_into_uninit(&data[..split]);
                    got.extend(c.xor_into_uninit(&data[split..]));
                    assert_eq!(got, expected, "{label} uninit");
                }
            }
        }
    }
}

/// Keystream of a cipher at `pos`, `len` bytes, with the given platform.
fn keystream(key: &[u8], platform: Platform, pos: u128, len: usize) -> Vec<u8> {
    let mut c = Salsa20::with_options(key, &[9, 8, 7, 6, 5, 4, 3, 2], Rounds::R20).unwrap();
    c.set_platform(platform);
    c.seek(pos).unwrap();
    let mut out = vec![0u8; len];
    c.fill_keystream(&mut out).unwrap();
    out
}

#[test]
fn counter_boundaries_match_portable_and_rustcrypto() {
    let key = [0x42u8; 32];
    let blocks = [0u128, (1 << 32) - 1, 1 << 32, (1 << 32) - 7, (1 << 33) - 3, (1u128 << 64) - 40];
    for platform in common::supported_backends::<Platform>("counter_boundaries_match_portable_and_rustcrypto") {
        for &block in &blocks {
            for offset in [0u128, 1, 63] {
                for len in [1usize, 64, 65, 1000, 2048, 2560] {
                    let pos = block * 64 + offset;
                    if pos + len as u128 > STREAM_LEN {
                        continue;
                    }
                    let got = keystream(&key, platform, pos, len);
                    assert_eq!(
                        got,
                        keystream(&key, Platform::portable(), pos, len),
                        "{} pos {pos} len {len}",
                        platform.name()
                    );
                    // RustCrypto refuses the last block of the stream; compare where it can.
                    if pos + (len as u128) < (1u128 << 64) * 64 - 64 && pos < u128::from(u64::MAX) {
                        let ks = reference(Rounds::R20, &key, &[9, 8, 7, 6, 5, 4, 3, 2], pos as u64, len);
                        assert_eq!(got, ks, "{} vs RustCrypto pos {pos} len {len}", platform.name());
                    }
                }
            }
        }
        // A seek across the 2^32-block boundary reads the same bytes as one run over it.
        let run = keystream(&key, platform, ((1 << 32) - 20) * 64, 40 * 64);
        for cut in [1usize, 64 * 19, 64 * 20, 64 * 20 + 5, 64 * 21] {
            let mut c = Salsa20::with_options(&key, &[9, 8, 7, 6, 5, 4, 3, 2], Rounds::R20).unwrap();
            c.set_platform(platform);
            c.seek(((1 << 32) - 20) * 64 + cut as u128).unwrap();
            let mut tail = vec![0u8; 40 * 64 - cut];
            c.fill_keystream(&mut tail).unwrap();
            assert_eq!(tail, run[cut..], "{} seek across 2^32 cut {cut}", platform.name());
        }
        // Two 2^32 ranges are different keystreams (the carry reached word 9).
        assert_ne!(keystream(&key, platform, 0, 64), keystream(&key, platform, (1 << 32) * 64, 64));
    }
}

#[test]
fn end_of_stream() {
    for platform in common::supported_backends::<Platform>("end_of_stream") {
        let mut c = Salsa20::new(&[1; 32], &[2; 8]);
        c.set_platform(platform);
        c.seek(STREAM_LEN - 100).unwrap();
        let mut buf = vec![0u8; 101];
        assert!(c.xor_keystream(&mut buf).is_err(), "past the end is an error");
        assert_eq!(buf, vec![0u8; 101], "nothing changed");
        assert_eq!(c.position(), STREAM_LEN - 100);
        c.xor_keystream(&mut buf[..100]).unwrap();
        let mut reference = Salsa20::new(&[1; 32], &[2; 8]);
        reference.set_platform(Platform::portable());
        reference.seek(STREAM_LEN - 100).unwrap();
        let mut expected = vec![0u8; 100];
        reference.fill_keystream(&mut expected).unwrap();
        assert_eq!(buf[..100], expected[..], "{} last 100 bytes", platform.name());
        assert_eq!(c.position(), STREAM_LEN);
        assert!(c.xor_keystream(&mut [0u8; 1]).is_err());
        c.xor_keystream(&mut []).unwrap();
        assert!(c.seek(STREAM_LEN + 1).is_err());
        c.seek(STREAM_LEN).unwrap();
    }
}

#[test]
fn short_keys_match_portable() {
    // RustCrypto has no 16-byte keys (PyCryptodome is the oracle in the Python tests).
    let key: Vec<u8> = (1..=16).collect();
    for platform in common::supported_backends::<Platform>("short_keys_match_portable") {
        for len in [0usize, 1, 64, 100, 1024, 5000] {
            for pos in [0u128, 3, (1 << 38) - 1] {
                assert_eq!(keystream(&key, platform, pos, len), keystream(&key, Platform::portable(), pos, len));
            }
        }
    }
    // 16- and 32-byte keys use different constants: k and k||k differ.
    let double = [key.clone(), key.clone()].concat();
    assert_ne!(keystream(&key, Platform::portable(), 0, 64), keystream(&double, Platform::portable(), 0, 64));
}

#[test]
fn cipher_traits_drop_in() {
    let key = [3u8; 32];
    let nonce = [4u8; 8];
    let data = common::random_bytes(7, 3000);
    let mut ours = <Salsa20 as KeyIvInit>::new(&key.into(), &nonce.into());
    let mut theirs = salsa20_ref::Salsa20::new(&key.into(), &nonce.into());
    let (mut a, mut b) = (data.clone(), data.clone());
    ours.apply_keystream(&mut a[..100]);
    theirs.apply_keystream(&mut b[..100]);
    assert_eq!(ours.current_pos::<u64>(), 100);
    StreamCipherSeek::seek(&mut ours, 1234u64);
    theirs.seek(1234u64);
    ours.apply_keystream(&mut a[100..]);
    theirs.apply_keystream(&mut b[100..]);
    assert_eq!(a, b);
    assert_eq!(ours.current_pos::<u128>(), theirs.current_pos::<u128>());
    StreamCipherSeek::seek(&mut ours, 77u32);
    theirs.seek(77u32);
    let mut out = vec![0u8; 50];
    ours.apply_keystream_b2b(&data[..50], &mut out);
    let mut expected = data[..50].to_vec();
    theirs.apply_keystream(&mut expected);
    assert_eq!(out, expected, "b2b");
    let mut x = <XSalsa20 as KeyIvInit>::new(&key.into(), &[5u8; 24].into());
    let mut y = salsa20_ref::XSalsa20::new(&key.into(), &[5u8; 24].into());
    let (mut a, mut b) = (data.clone(), data.clone());
    x.apply_keystream(&mut a);
    y.apply_keystream(&mut b);
    assert_eq!(a, b);
    // The end of the stream through the trait: an error, not a panic.
    let mut z = <Salsa20 as KeyIvInit>::new(&key.into(), &nonce.into());
    StreamCipherSeek::seek(&mut z, STREAM_LEN - 1);
    assert!(z.try_apply_keystream(&mut [0u8; 2]).is_err());
    assert!(z.try_seek(STREAM_LEN + 1).is_err());
}

#[test]
fn hsalsa20_matches_rustcrypto() {
    let mut rng = common::rng(11);
    for _ in 0..50 {
        let mut key = [0u8; 32];
        let mut input = [0u8; 16];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut input);
        let theirs = salsa20_ref::hsalsa::<cipher::consts::U10>(&key.into(), &input.into());
        assert_eq!(salsa20::hsalsa20(&key, &input).to_vec(), theirs.to_vec());
    }
}

#[test]
fn secretbox_matches_xsalsa20poly1305() {
    use xsalsa20poly1305::aead::{Aead, KeyInit};
    let mut rng = common::rng(12);
    for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000, 4096, 100_000] {
        let mut key = [0u8; 32];
        let mut nonce = [0u8; 24];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut nonce);
        let msg = common::random_bytes(len as u64, len);
        let theirs = xsalsa20poly1305::XSalsa20Poly1305::new(&key.into());
        let boxed = secretbox::seal(&key, &nonce, &msg);
        assert_eq!(boxed, theirs.encrypt(&nonce.into(), &msg[..]).unwrap(), "len {len}");
        assert_eq!(secretbox::open(&key, &nonce, &boxed).unwrap(), msg);
        // Every single-bit flip is rejected, and so is a wrong key or nonce.
        for bit in [0usize, 7, 8 * 15 + 3, 8 * 16, boxed.len() * 8 - 1].into_iter().filter(|&b| b < boxed.len() * 8) {
            let mut bad = boxed.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(secretbox::open(&key, &nonce, &bad).is_err(), "len {len} bit {bit}");
        }
        let mut other = nonce;
        other[23] ^= 1;
        assert!(secretbox::open(&key, &other, &boxed).is_err());
        key[0] ^= 1;
        assert!(secretbox::open(&key, &nonce, &boxed).is_err());
        key[0] ^= 1;
        // Detached, in place.
        let mut buf = msg.clone();
        let tag = secretbox::seal_in_place(&key, &nonce, &mut buf);
        assert_eq!(tag[..], boxed[..16]);
        assert_eq!(buf[..], boxed[16..]);
        secretbox::open_in_place(&key, &nonce, &mut buf, &tag).unwrap();
        assert_eq!(buf, msg);
    }
    assert!(secretbox::open(&[0; 32], &[0; 24], &[0u8; 15]).is_err());
}
