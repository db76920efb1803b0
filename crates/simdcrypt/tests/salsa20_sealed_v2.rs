//! Format version 2 of sealed_stream: the documented header rebuilt independently (the
//! official `blake3` crate for the MAC and the chunk key, `xsalsa20poly1305` for the
//! chunks); key files and passphrases (small Argon2id parameters: the header carries
//! them); version-1 files still read; the same bytes on any thread count; random access
//! through `SealedReader`; `SealedWriter`; the Argon2 limits; and property tests over
//! random and mutated files (always an error, never a panic). `PROPTEST_CASES` raises
//! the number of cases (default here: 64).

mod common;

use proptest::prelude::*;
use simdcrypt::salsa20::sealed_reader::{SealedReader, SealedWriter};
use simdcrypt::salsa20::sealed_stream::{
    self, Argon2Params, DecryptError, Header, KeySource, Secret, CHUNK_LEN, HEADER_V2_LEN, SEALED_CHUNK_LEN,
};
use simdcrypt::threads::Threads;
use std::io::{Cursor, Read, Seek, SeekFrom, Write};
use xsalsa20poly1305::aead::{Aead, KeyInit};

const KEY: [u8; 32] = [0x11; 32];
const NONCE: [u8; 16] = [0x22; 16];
const SALT: [u8; 16] = [0x33; 16];
/// Argon2's minimum cost: tests stay fast; the header carries the parameters.
const CHEAP: Argon2Params = Argon2Params { memory_kib: 8, iterations: 1, parallelism: 1 };

fn seal(secret: &Secret<'_>, plain: &[u8], threads: Threads) -> Vec<u8> {
    let mut out = Vec::new();
    let n = sealed_stream::encrypt_v2(secret, &NONCE, &SALT, CHEAP, plain, &mut out, threads).unwrap();
    assert_eq!(n, plain.len() as u64);
    out
}

fn open(secret: &Secret<'_>, sealed: &[u8], threads: Threads) -> Result<Vec<u8>, DecryptError> {
    let mut out = Vec::new();
    sealed_stream::decrypt_any(secret, sealed, &mut out, threads).map(|n| {
        assert_eq!(n, out.len() as u64);
        out
    })
}

fn read_all(sealed: &[u8], secret: &Secret<'_>) -> Result<Vec<u8>, DecryptError> {
    let mut r = SealedReader::open(Cursor::new(sealed), secret)?;
    let mut out = Vec::new();
    loop {
        let mut buf = [0u8; 10_000];
        match r.read_checked(&mut buf)? {
            0 => return Ok(out),
            n => out.extend_from_slice(&buf[..n]),
        }
    }
}

#[test]
fn documented_v2_layout_rebuilt_independently() {
    let passphrase = b"correct horse".as_slice();
    for secret in [Secret::Key(&KEY), Secret::Passphrase(passphrase)] {
        for len in [0, 1, CHUNK_LEN, CHUNK_LEN + 1, 3 * CHUNK_LEN + 5] {
            let plain = common::random_bytes(len as u64, len);
            let sealed = seal(&secret, &plain, Threads::One);
            let h = &sealed[..HEADER_V2_LEN];
            assert_eq!(&h[..8], b"SIMDCRPT");
            assert_eq!(h[8..10], [2, 16]);
            assert_eq!(h[11..16], [0; 5]);
            assert_eq!(h[16..32], NONCE);
            assert_eq!(h[60..64], [0; 4]);
            // K: the key, or Argon2id(passphrase, salt, m, t, p) from the header's fields.
            let k: [u8; 32] = match secret {
                Secret::Key(k) => {
                    assert_eq!(h[10], 0);
                    assert_eq!(h[32..60], [0; 28]);
                    *k
                }
                Secret::Passphrase(p) => {
                    assert_eq!(h[10], 1);
                    assert_eq!(h[32..48], SALT);
                    assert_eq!(h[48..60], [8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
                    let params = argon2::Params::new(8, 1, 1, Some(32)).unwrap();
                    let mut k = [0u8; 32];
                    argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
                        .hash_password_into(p, &SALT, &mut k)
                        .unwrap();
                    k
                }
            };
            let mac_key = blake3::derive_key("simdcrypt sealed_stream v2 2026 header MAC", &k);
            assert_eq!(h[64..96], *blake3::keyed_hash(&mac_key, &h[..64]).as_bytes(), "header MAC");
            let chunk_key =
                blake3::derive_key("simdcrypt sealed_stream v2 2026 chunk key", &[&k[..], &h[..64]].concat());
            let reference = xsalsa20poly1305::XSalsa20Poly1305::new(&chunk_key.into());
            let pieces: Vec<&[u8]> = if len == 0 { vec![&[][..]] } else { plain.chunks(CHUNK_LEN).collect() };
            let mut expected = h.to_vec();
            for (i, piece) in pieces.iter().enumerate() {
                let nonce = sealed_stream::chunk_nonce(&NONCE, i as u64, i + 1 == pieces.len());
                expected.extend(reference.encrypt(nonce.as_slice().into(), *piece).unwrap());
            }
            assert!(sealed == expected, "len {len}: differs from docs/file-format.md");
            assert!(open(&secret, &sealed, Threads::One).unwrap() == plain);
            assert!(read_all(&sealed, &secret).unwrap() == plain);
        }
    }
}

#[test]
fn any_thread_count_gives_the_same_bytes() {
    let plain = common::random_bytes(7, 100 * CHUNK_LEN + 123);
    let one = seal(&Secret::Key(&KEY), &plain, Threads::One);
    for threads in [Threads::Max(2), Threads::Max(3), Threads::Auto] {
        assert!(seal(&Secret::Key(&KEY), &plain, threads) == one, "{threads:?}");
        assert!(open(&Secret::Key(&KEY), &one, threads).unwrap() == plain, "{threads:?}");
    }
    // Lengths around the batch boundaries of 1 and 2 threads (16 and 32 chunks).
    for len in [16 * CHUNK_LEN - 1, 16 * CHUNK_LEN, 16 * CHUNK_LEN + 1, 32 * CHUNK_LEN, 48 * CHUNK_LEN + 1] {
        let plain = common::random_bytes(len as u64, len);
        let one = seal(&Secret::Key(&KEY), &plain, Threads::One);
        assert!(seal(&Secret::Key(&KEY), &plain, Threads::Max(2)) == one, "len {len}");
        for threads in [Threads::One, Threads::Max(2)] {
            assert!(open(&Secret::Key(&KEY), &one, threads).unwrap() == plain, "len {len}");
            // Truncation at the last chunk boundary, found on any thread count.
            let body = one.len() - HEADER_V2_LEN;
            let last_chunk = body - (body.div_ceil(SEALED_CHUNK_LEN) - 1) * SEALED_CHUNK_LEN;
            let cut = &one[..one.len() - last_chunk];
            if cut.len() > HEADER_V2_LEN {
                assert!(
                    matches!(open(&Secret::Key(&KEY), cut, threads), Err(DecryptError::Truncated { .. })),
                    "len {len}"
                );
            }
        }
    }
}

#[test]
fn version_1_files_still_decrypt() {
    // Written by the version-1 encoder (what `simdcrypt encrypt` wrote before version 2).
    let plain = common::random_bytes(3, 2 * CHUNK_LEN + 9);
    let mut v1 = Vec::new();
    sealed_stream::encrypt(&KEY, &NONCE, &plain[..], &mut v1).unwrap();
    assert_eq!(v1[8], 1);
    for threads in [Threads::One, Threads::Max(2)] {
        assert!(open(&Secret::Key(&KEY), &v1, threads).unwrap() == plain);
    }
    assert!(read_all(&v1, &Secret::Key(&KEY)).unwrap() == plain);
    assert!(matches!(open(&Secret::Passphrase(b"x"), &v1, Threads::One), Err(DecryptError::Secret(_))));
}

#[test]
fn wrong_secrets_and_kinds_fail_before_any_chunk() {
    let plain = b"some plaintext".to_vec();
    let by_key = seal(&Secret::Key(&KEY), &plain, Threads::One);
    let by_pass = seal(&Secret::Passphrase(b"pw"), &plain, Threads::One);
    assert!(matches!(open(&Secret::Key(&[0x12; 32]), &by_key, Threads::One), Err(DecryptError::HeaderAuthentication)));
    assert!(matches!(
        open(&Secret::Passphrase(b"pW"), &by_pass, Threads::One),
        Err(DecryptError::HeaderAuthentication)
    ));
    let e = open(&Secret::Key(&KEY), &by_pass, Threads::One).unwrap_err();
    assert!(e.to_string().contains("encrypted with a passphrase"), "{e}");
    let e = open(&Secret::Passphrase(b"pw"), &by_key, Threads::One).unwrap_err();
    assert!(e.to_string().contains("encrypted with a key file"), "{e}");
    // Every bit of the header is covered: a flip anywhere fails (before any chunk).
    for at in 0..HEADER_V2_LEN {
        for bit in [0x01u8, 0x80] {
            let mut bad = by_pass.clone();
            bad[at] ^= bit;
            let mut out = Vec::new();
            assert!(sealed_stream::decrypt_any(&Secret::Passphrase(b"pw"), &bad[..], &mut out, Threads::One).is_err());
            assert!(out.is_empty(), "flip at {at}");
            assert!(read_all(&bad, &Secret::Passphrase(b"pw")).is_err());
        }
    }
}

/// A passphrase header with these parameters and a MAC that cannot match.
fn header_with(m: u32, t: u32, p: u32) -> Vec<u8> {
    let mut h = seal(&Secret::Passphrase(b"pw"), b"", Threads::One);
    h[48..52].copy_from_slice(&m.to_le_bytes());
    h[52..56].copy_from_slice(&t.to_le_bytes());
    h[56..60].copy_from_slice(&p.to_le_bytes());
    h
}

#[test]
fn argon2_limits_are_enforced_before_any_work() {
    let max = Argon2Params::MAX_MEMORY_KIB;
    for (m, t, p) in [
        (max + 1, 1, 1),
        (u32::MAX, 1, 1),
        (8, Argon2Params::MAX_ITERATIONS + 1, 1),
        (8, u32::MAX, 1),
        (8, 0, 1),
        (8, 1, 0),
        (64, 1, Argon2Params::MAX_PARALLELISM + 1),
        (15, 1, 2),
    ] {
        let bad = header_with(m, t, p);
        // Refused by the parser: a hostile header costs no Argon2 time or memory.
        let e = Header::parse(&bad[..HEADER_V2_LEN]).unwrap_err();
        assert!(matches!(e, DecryptError::Header(_)), "{m} {t} {p}: {e}");
        assert!(e.to_string().contains("outside"), "{e}");
        assert!(open(&Secret::Passphrase(b"pw"), &bad, Threads::One).is_err());
    }
    // Within the limits the header parses (and then fails its MAC, not shown here).
    let ok = header_with(max, Argon2Params::MAX_ITERATIONS, 1);
    let h = Header::parse(&ok[..HEADER_V2_LEN]).unwrap();
    assert!(matches!(h.key_source(), KeySource::Argon2id { .. }));
    assert!(Argon2Params::DEFAULT.check().is_ok());
}

#[test]
fn random_access_reads_only_what_it_needs() {
    let plain = common::random_bytes(5, 5 * CHUNK_LEN + 777);
    let mut sealed = seal(&Secret::Key(&KEY), &plain, Threads::One);
    let mut r = SealedReader::open(Cursor::new(&sealed[..]), &Secret::Key(&KEY)).unwrap();
    assert_eq!(r.len(), plain.len() as u64);
    let mut rng = common::rng(9);
    for _ in 0..200 {
        use rand::Rng;
        let at = rng.random_range(0..=plain.len() + 10);
        let want = rng.random_range(0..3 * CHUNK_LEN);
        r.seek(SeekFrom::Start(at as u64)).unwrap();
        let mut got = vec![0u8; want];
        let n = read_upto(&mut r, &mut got);
        let end = (at + want).min(plain.len()).max(at.min(plain.len()));
        assert!(got[..n] == plain[at.min(plain.len())..end], "at {at} want {want}");
    }
    assert_eq!(r.seek(SeekFrom::End(-1)).unwrap(), plain.len() as u64 - 1);
    assert!(r.seek(SeekFrom::Current(-(plain.len() as i64) - 5)).is_err());
    // A damaged chunk 2 fails only the reads that touch it; nothing of it is returned.
    sealed[HEADER_V2_LEN + 2 * SEALED_CHUNK_LEN + 100] ^= 1;
    let mut r = SealedReader::open(Cursor::new(&sealed[..]), &Secret::Key(&KEY)).unwrap();
    let mut buf = vec![0u8; CHUNK_LEN];
    r.seek(SeekFrom::Start(CHUNK_LEN as u64)).unwrap();
    r.read_exact(&mut buf).unwrap();
    assert!(buf == plain[CHUNK_LEN..2 * CHUNK_LEN]);
    let e = r.read(&mut buf).unwrap_err();
    let inner = e.get_ref().and_then(|e| e.downcast_ref::<DecryptError>());
    assert!(matches!(inner, Some(DecryptError::Authentication { chunk: 2 })), "{e}");
    r.seek(SeekFrom::Start(3 * CHUNK_LEN as u64)).unwrap();
    r.read_exact(&mut buf).unwrap();
    assert!(buf == plain[3 * CHUNK_LEN..4 * CHUNK_LEN]);
    // Truncation and extension are refused at open.
    let good = seal(&Secret::Key(&KEY), &plain, Threads::One);
    assert!(SealedReader::open(Cursor::new(&good[..good.len() - 777 - 16]), &Secret::Key(&KEY)).is_err());
    assert!(SealedReader::open(Cursor::new(&[&good[..], b"x"].concat()), &Secret::Key(&KEY)).is_err());
    assert!(SealedReader::open(Cursor::new(&good[..HEADER_V2_LEN]), &Secret::Key(&KEY)).is_err());
}

fn read_upto(r: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]).unwrap() {
            0 => break,
            k => n += k,
        }
    }
    n
}

#[test]
fn the_writer_writes_what_encrypt_v2_writes() {
    for len in [0, 1, CHUNK_LEN, CHUNK_LEN + 1, 3 * CHUNK_LEN + 11] {
        let plain = common::random_bytes(len as u64 + 1, len);
        let expected = seal(&Secret::Key(&KEY), &plain, Threads::One);
        let (header, key) = Header::new_v2(&Secret::Key(&KEY), &NONCE, &SALT, CHEAP).unwrap();
        let mut w = SealedWriter::new(&header, key, Vec::new()).unwrap();
        for piece in plain.chunks(7919) {
            w.write_all(piece).unwrap();
        }
        assert!(w.finish().unwrap() == expected, "len {len}");
    }
}

/// A sealed file's mutations: what `kind` does at `at` (scaled into range).
fn mutate(sealed: &[u8], kind: u8, at: usize, byte: u8) -> Vec<u8> {
    let mut bad = sealed.to_vec();
    let body = sealed.len() - HEADER_V2_LEN;
    let chunks = body.div_ceil(SEALED_CHUNK_LEN);
    match kind % 5 {
        0 => bad[at % sealed.len()] ^= byte.max(1),
        1 => bad.truncate(at % sealed.len()),
        2 => bad.push(byte),
        3 => {
            // Swap two whole chunks (or a chunk with itself shifted: duplication).
            let i = at % chunks;
            let j = (at / 7) % chunks;
            let piece = |k: usize| {
                sealed[HEADER_V2_LEN + k * SEALED_CHUNK_LEN..][..SEALED_CHUNK_LEN.min(body - k * SEALED_CHUNK_LEN)]
                    .to_vec()
            };
            let mut v = sealed[..HEADER_V2_LEN].to_vec();
            for k in 0..chunks {
                v.extend(piece(if k == i {
                    j
                } else if k == j {
                    i
                } else {
                    k
                }));
            }
            if i == j {
                v.extend(piece(i));
            }
            bad = v;
        }
        _ => {
            // Header fields, Argon2 parameters included.
            let field = 8 + at % 56;
            bad[field] = bad[field].wrapping_add(byte.max(1));
        }
    }
    bad
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)))]

    #[test]
    fn random_bytes_never_decrypt(data in proptest::collection::vec(any::<u8>(), 0..400), magic in any::<bool>()) {
        let mut data = data;
        if magic && data.len() >= 10 {
            data[..8].copy_from_slice(b"SIMDCRPT");
            data[8] = 2;
            data[9] = 16;
        }
        prop_assert!(open(&Secret::Key(&KEY), &data, Threads::One).is_err());
        prop_assert!(open(&Secret::Passphrase(b"pw"), &data, Threads::Max(2)).is_err());
        prop_assert!(read_all(&data, &Secret::Key(&KEY)).is_err());
    }

    #[test]
    fn mutated_files_always_fail(len in 0usize..4 * CHUNK_LEN, kind in any::<u8>(), at in any::<usize>(), byte in any::<u8>(), pass in any::<bool>()) {
        let plain = common::random_bytes(len as u64, len);
        let secret = if pass { Secret::Passphrase(b"pw") } else { Secret::Key(&KEY) };
        let sealed = seal(&secret, &plain, Threads::One);
        let bad = mutate(&sealed, kind, at, byte);
        prop_assume!(bad != sealed);
        let mut out = Vec::new();
        let r = sealed_stream::decrypt_any(&secret, &bad[..], &mut out, Threads::Max(2));
        prop_assert!(r.is_err(), "kind {} at {}", kind % 5, at);
        // What was written is at most a prefix of the plaintext (whole authenticated chunks).
        prop_assert!(out.len() % CHUNK_LEN == 0 && plain.starts_with(&out));
        prop_assert!(read_all(&bad, &secret).is_err());
    }
}

#[test]
fn truncation_at_every_boundary_fails() {
    for secret in [Secret::Key(&KEY), Secret::Passphrase(b"pw")] {
        let plain = common::random_bytes(11, 3 * CHUNK_LEN + 100);
        let sealed = seal(&secret, &plain, Threads::One);
        let mut cuts: Vec<usize> = (0..=HEADER_V2_LEN + 20).collect();
        for i in 1..=3 {
            let b = HEADER_V2_LEN + i * SEALED_CHUNK_LEN;
            cuts.extend([b - 17, b - 16, b - 15, b - 1, b, b + 1, b + 15, b + 16, b + 17]);
        }
        cuts.extend(sealed.len() - 20..sealed.len());
        for cut in cuts {
            let mut out = Vec::new();
            let r = sealed_stream::decrypt_any(&secret, &sealed[..cut], &mut out, Threads::Max(2));
            assert!(r.is_err(), "cut at {cut}");
            assert!(
                out.len() % CHUNK_LEN == 0 && plain.starts_with(&out),
                "cut at {cut}: only whole authenticated chunks"
            );
            assert!(read_all(&sealed[..cut], &secret).is_err(), "reader, cut at {cut}");
        }
    }
}
