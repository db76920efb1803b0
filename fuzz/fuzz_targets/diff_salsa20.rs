//! Salsa20 differential: Salsa20 and XSalsa20 at 20, 12 and 8 rounds, a fuzzer-chosen key
//! (32 bytes, or 16 for Salsa20), nonce, start position anywhere in the 2^70-byte stream,
//! thread setting and pieces, on every backend, against RustCrypto's `salsa20` (positions
//! below 2^64 bytes, 32-byte keys) and against the portable backend (all). Running past
//! the end of the stream must be an error that changes nothing. Secretbox against
//! `xsalsa20poly1305`, and a tampered box must not open.
#![no_main]

use cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use libfuzzer_sys::fuzz_target;
use simdcrypt::salsa20::{secretbox, Platform, Rounds, Salsa20, XSalsa20, STREAM_LEN};
use simdcrypt::threads::Threads;
use simdcrypt_fuzz::{array, backends, cuts, pieces, split, stretched, threads, Unstructured};
type Result<T, E = simdcrypt_fuzz::Error> = std::result::Result<T, E>;

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn reference(rounds: Rounds, key: &[u8], nonce: &[u8], start: u64, data: &[u8]) -> Vec<u8> {
    fn go<C: KeyIvInit + StreamCipher + StreamCipherSeek>(
        key: &[u8],
        nonce: &[u8],
        start: u64,
        data: &[u8],
    ) -> Vec<u8> {
        let mut c = C::new_from_slices(key, nonce).unwrap();
        c.seek(start);
        let mut out = data.to_vec();
        c.apply_keystream(&mut out);
        out
    }
    match (nonce.len(), rounds) {
        (8, Rounds::R20) => go::<salsa20::Salsa20>(key, nonce, start, data),
        (8, Rounds::R12) => go::<salsa20::Salsa12>(key, nonce, start, data),
        (8, Rounds::R8) => go::<salsa20::Salsa8>(key, nonce, start, data),
        (24, Rounds::R20) => go::<salsa20::XSalsa20>(key, nonce, start, data),
        (24, Rounds::R12) => go::<salsa20::XSalsa12>(key, nonce, start, data),
        (_, _) => go::<salsa20::XSalsa8>(key, nonce, start, data),
    }
}

enum Cipher {
    S(Salsa20),
    X(XSalsa20),
}

impl Cipher {
    fn new(key: &[u8], nonce: &[u8], rounds: Rounds, platform: Platform, threads: Threads) -> Cipher {
        if nonce.len() == 8 {
            let mut c = Salsa20::with_options(key, nonce, rounds).unwrap();
            c.set_platform(platform).set_max_threads(threads);
            Cipher::S(c)
        } else {
            let mut c = XSalsa20::with_options(key, nonce, rounds).unwrap();
            c.set_platform(platform).set_max_threads(threads);
            Cipher::X(c)
        }
    }
    fn seek(&mut self, pos: u128) -> Result<(), simdcrypt::Error> {
        match self {
            Cipher::S(c) => c.seek(pos),
            Cipher::X(c) => c.seek(pos),
        }
    }
    fn position(&self) -> u128 {
        match self {
            Cipher::S(c) => c.position(),
            Cipher::X(c) => c.position(),
        }
    }
    fn xor(&mut self, buf: &mut [u8]) -> Result<(), simdcrypt::Error> {
        match self {
            Cipher::S(c) => c.xor_keystream(buf),
            Cipher::X(c) => c.xor_keystream(buf),
        }
    }
    fn xor_into(&mut self, i: &[u8], o: &mut [u8]) -> Result<(), simdcrypt::Error> {
        match self {
            Cipher::S(c) => c.xor_keystream_into(i, o),
            Cipher::X(c) => c.xor_keystream_into(i, o),
        }
    }
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let rounds = [Rounds::R20, Rounds::R12, Rounds::R8][u.choose_index(3)?];
    let variant: u8 = u.arbitrary()?;
    let key: [u8; 32] = array(u)?;
    let nonce: [u8; 24] = array(u)?;
    let (key, nonce): (&[u8], &[u8]) = match variant % 3 {
        0 => (&key, &nonce[..8]),
        1 => (&key[..16], &nonce[..8]),
        _ => (&key, &nonce),
    };
    let start: u128 = match u.int_in_range(0u8..=3)? {
        0 => u128::from(u.int_in_range(0u32..=5000)?),
        1 => u128::from(u.arbitrary::<u64>()?),
        2 => STREAM_LEN - u128::from(u.int_in_range(0u32..=70_000)?),
        _ => u.int_in_range(0..=STREAM_LEN)?,
    };
    let threads = threads(u)?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;
    let fits = start + data.len() as u128 <= STREAM_LEN;

    let mut portable = Cipher::new(key, nonce, rounds, Platform::portable(), Threads::One);
    portable.seek(start).unwrap();
    let mut expected = data.clone();
    if !fits {
        assert!(portable.xor(&mut expected).is_err(), "past the end of the stream");
        assert_eq!(expected, data, "a refused call changed its buffer");
        assert_eq!(portable.position(), start);
        return Ok(());
    }
    portable.xor(&mut expected).unwrap();
    if key.len() == 32 && start + data.len() as u128 <= 1 << 64 {
        assert_eq!(expected, reference(rounds, key, nonce, start as u64, &data), "portable against salsa20");
    }
    for platform in backends::<Platform>() {
        let mut c = Cipher::new(key, nonce, rounds, platform, threads);
        c.seek(start).unwrap();
        let mut got = data.clone();
        for (i, piece) in pieces(&data, &cut_at).enumerate() {
            let at = cut_at[i];
            if i % 2 == 0 {
                got[at..at + piece.len()].copy_from_slice(piece);
                c.xor(&mut got[at..at + piece.len()]).unwrap();
            } else {
                c.xor_into(piece, &mut got[at..at + piece.len()]).unwrap();
            }
        }
        assert_eq!(got, expected, "{} {rounds:?} from {start} in pieces {cut_at:?}", platform.name());
        assert_eq!(c.position(), start + data.len() as u128);
    }

    // Secretbox with the same key and nonce (XSalsa20-Poly1305 needs both whole).
    if key.len() == 32 && nonce.len() == 24 {
        use xsalsa20poly1305::aead::{Aead, KeyInit};
        let (k, n): (&[u8; 32], &[u8; 24]) = (key.try_into().unwrap(), nonce.try_into().unwrap());
        let boxed = secretbox::seal(k, n, &data);
        let theirs = xsalsa20poly1305::XSalsa20Poly1305::new(k.into()).encrypt(n.into(), &data[..]).unwrap();
        assert_eq!(boxed, theirs, "secretbox against xsalsa20poly1305");
        assert_eq!(secretbox::open(k, n, &boxed).unwrap(), data);
        let mut bad = boxed.clone();
        let at = (cut_seed as usize) % bad.len();
        bad[at] ^= 1 << (cut_seed >> 61);
        assert!(secretbox::open(k, n, &bad).is_err(), "a flipped bit at {at} opened");
        assert!(secretbox::open(k, n, &boxed[..boxed.len() - 1]).is_err());
    }
    Ok(())
}
