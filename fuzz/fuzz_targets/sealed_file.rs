//! The sealed-file format (docs/file-format.md): any bytes through `decrypt`, `decrypt_any`
//! and `SealedReader` (header parser and chunk stream); and files made by `encrypt` /
//! `encrypt_v2` from a fuzzer-chosen plaintext, then altered at fuzzer-chosen places
//! (bits flipped, cut short, bytes appended), decrypted with the right key and a wrong
//! one. An altered file must never decrypt (authenticated encryption), an unaltered one
//! must give back the plaintext, a wrong key must fail, and what was written before an
//! error must be a prefix of the plaintext.
#![no_main]

use std::io::{Cursor, Read, Seek, SeekFrom};

use libfuzzer_sys::fuzz_target;
use simdcrypt::salsa20::sealed_reader::SealedReader;
use simdcrypt::salsa20::sealed_stream::{self, Argon2Params, Header, KeySource, Secret};
use simdcrypt_fuzz::{array, bytes, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

const KEY: [u8; 32] = *b"the right key, thirty-two bytes!";
const WRONG: [u8; 32] = *b"the wrong key, thirty-two bytes!";
const PASS: &[u8] = b"passphrase";
/// The cheapest Argon2id the format allows: the fuzzer must not pay for a real one.
const CHEAP: Argon2Params = Argon2Params { memory_kib: 8, iterations: 1, parallelism: 1 };

/// Whether a passphrase may be tried on this file: only for headers asking for little work.
fn cheap_enough(file: &[u8]) -> bool {
    let Ok(header) = Header::read(&mut Cursor::new(file)) else { return true };
    match header.key_source() {
        KeySource::KeyFile => true,
        KeySource::Argon2id { params, .. } => params.memory_kib <= 64 && params.iterations <= 2,
    }
}

/// Decrypts `file` every way the library offers; `Ok(plaintext)` only if all agree.
fn decrypt_all(file: &[u8], secret: &Secret<'_>, plain: Option<&[u8]>) -> Option<Vec<u8>> {
    let threads = if file.len().is_multiple_of(3) {
        simdcrypt::threads::Threads::Max(2)
    } else {
        simdcrypt::threads::Threads::One
    };
    let mut out = Vec::new();
    let whole = sealed_stream::decrypt_any(secret, Cursor::new(file), &mut out, threads);
    if let Some(plain) = plain {
        assert!(plain.starts_with(&out), "decrypt wrote bytes that are not the plaintext's");
    }
    let mut via_reader = None;
    if let Ok(mut r) = SealedReader::open(Cursor::new(file), secret) {
        let mut got = Vec::new();
        let mut buf = vec![0u8; 10_000];
        loop {
            match r.read_checked(&mut buf) {
                Ok(0) => {
                    via_reader = Some(got);
                    break;
                }
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(_) => break,
            }
        }
        // Random access: the last bytes again, after a seek.
        if let Some(all) = &via_reader {
            let from = all.len().saturating_sub(100);
            r.seek(SeekFrom::Start(from as u64)).unwrap();
            let mut tail = Vec::new();
            r.read_to_end(&mut tail).unwrap();
            assert_eq!(tail, all[from..], "SealedReader after a seek");
            assert_eq!(r.len(), all.len() as u64);
        }
    }
    match (whole, via_reader) {
        (Ok(n), Some(r)) => {
            assert_eq!(n, out.len() as u64);
            assert_eq!(out, r, "decrypt_any and SealedReader disagree");
            Some(out)
        }
        (Err(_), None) => None,
        (Ok(_), None) => panic!("decrypt_any accepted what SealedReader refused"),
        (Err(e), Some(_)) => panic!("SealedReader accepted what decrypt_any refused: {e}"),
    }
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    if !u.arbitrary::<bool>()? {
        // Any bytes as a file.
        let file = payload;
        let _ = sealed_stream::decrypt(&KEY, Cursor::new(file), std::io::sink());
        let _ = decrypt_all(file, &Secret::Key(&KEY), None);
        if cheap_enough(file) {
            let _ = decrypt_all(file, &Secret::Passphrase(PASS), None);
        }
        return Ok(());
    }

    let version: u8 = u.arbitrary()?;
    let nonce: [u8; 16] = array(u)?;
    let salt: [u8; 16] = array(u)?;
    let threads = threads(u)?;
    let flips: Vec<(u32, u8)> =
        (0..u.int_in_range(0..=3)?).map(|_| Ok((u.arbitrary()?, u.arbitrary()?))).collect::<Result<_>>()?;
    let cut: Option<u32> = u.arbitrary()?;
    let append_len = u.int_in_range(0..=3)?;
    let append = bytes(u, append_len)?.to_vec();
    let plain = stretched(u, payload)?;

    let secret = match version % 3 {
        0 | 1 => Secret::Key(&KEY),
        _ => Secret::Passphrase(PASS),
    };
    let mut file = Vec::new();
    if version.is_multiple_of(3) {
        sealed_stream::encrypt(&KEY, &nonce, &plain[..], &mut file).unwrap();
    } else {
        sealed_stream::encrypt_v2(&secret, &nonce, &salt, CHEAP, &plain[..], &mut file, threads).unwrap();
    }
    assert_eq!(decrypt_all(&file, &secret, Some(&plain)).as_deref(), Some(&plain[..]), "round trip");
    let wrong = match secret {
        Secret::Key(_) => Secret::Key(&WRONG),
        Secret::Passphrase(_) => Secret::Passphrase(b"wrong passphrase"),
    };
    assert_eq!(decrypt_all(&file, &wrong, Some(&plain)), None, "a wrong secret decrypted");

    let mut altered = file.clone();
    for (at, bits) in flips {
        let at = at as usize % altered.len();
        altered[at] ^= bits;
    }
    if let Some(cut) = cut {
        altered.truncate(cut as usize % (altered.len() + 1));
    }
    altered.extend_from_slice(&append);
    if altered != file {
        assert_eq!(decrypt_all(&altered, &secret, Some(&plain)), None, "an altered file decrypted");
    }
    Ok(())
}
