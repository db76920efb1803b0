//! The sealed_stream file format: round trips of 0 B, 1 B, chunk size ± 1 and larger;
//! the documented layout checked with an independent XSalsa20-Poly1305 (the
//! `xsalsa20poly1305` crate) and the documented nonce derivation; every tampering case
//! rejected with its error.

mod common;

use simdcrypt::salsa20::sealed_stream::{self, DecryptError, CHUNK_LEN, HEADER_LEN, SEALED_CHUNK_LEN};
use xsalsa20poly1305::aead::{Aead, KeyInit};

const KEY: [u8; 32] = [0x11; 32];
const NONCE: [u8; 16] = [0x22; 16];

fn seal(plain: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    assert_eq!(sealed_stream::encrypt(&KEY, &NONCE, plain, &mut out).unwrap(), plain.len() as u64);
    out
}

fn open(sealed: &[u8]) -> Result<Vec<u8>, DecryptError> {
    let mut out = Vec::new();
    sealed_stream::decrypt(&KEY, sealed, &mut out).map(|n| {
        assert_eq!(n, out.len() as u64);
        out
    })
}

#[test]
fn round_trips_and_documented_layout() {
    let reference = xsalsa20poly1305::XSalsa20Poly1305::new(&KEY.into());
    for len in [0, 1, CHUNK_LEN - 1, CHUNK_LEN, CHUNK_LEN + 1, 2 * CHUNK_LEN, 5 * CHUNK_LEN + 3, 20 << 20] {
        let plain = common::random_bytes(len as u64, len);
        let sealed = seal(&plain);
        assert!(open(&sealed).unwrap() == plain, "len {len}");
        // Header: magic, version 1, log2 chunk 16, six zero bytes, the nonce.
        assert_eq!(&sealed[..8], b"SIMDCRPT");
        assert_eq!(sealed[8..16], [1, 16, 0, 0, 0, 0, 0, 0]);
        assert_eq!(sealed[16..32], NONCE);
        // Chunks: secretbox(key, N || LE64(i | final << 63), piece), rebuilt independently.
        let pieces: Vec<&[u8]> = if len == 0 { vec![&[][..]] } else { plain.chunks(CHUNK_LEN).collect() };
        let mut expected = sealed[..HEADER_LEN].to_vec();
        for (i, piece) in pieces.iter().enumerate() {
            let last = i + 1 == pieces.len();
            let mut nonce = NONCE.to_vec();
            nonce.extend_from_slice(&(i as u64 | (u64::from(last) << 63)).to_le_bytes());
            assert_eq!(nonce, sealed_stream::chunk_nonce(&NONCE, i as u64, last));
            expected.extend(reference.encrypt(nonce.as_slice().into(), *piece).unwrap());
        }
        assert!(sealed == expected, "len {len}: layout differs from the documented format");
    }
}

#[test]
fn tampering_is_detected() {
    let plain = common::random_bytes(1, 3 * CHUNK_LEN);
    let sealed = seal(&plain);
    assert_eq!(sealed.len(), HEADER_LEN + 3 * SEALED_CHUNK_LEN);
    let chunk = |i: usize| sealed[HEADER_LEN + i * SEALED_CHUNK_LEN..][..SEALED_CHUNK_LEN].to_vec();
    for at in [0usize, 8, 9, 12, 16, 31, 32, 47, 48, 1000, sealed.len() - 1] {
        let mut bad = sealed.clone();
        bad[at] ^= 0x40;
        assert!(open(&bad).is_err(), "flip at {at}");
    }
    assert!(matches!(open(&sealed[..HEADER_LEN + 2 * SEALED_CHUNK_LEN]), Err(DecryptError::Truncated { chunks: 2 })));
    assert!(matches!(open(&sealed[..HEADER_LEN]), Err(DecryptError::Truncated { chunks: 0 })));
    assert!(matches!(open(&sealed[..sealed.len() - 1]), Err(DecryptError::Authentication { chunk: 2 })));
    assert!(matches!(open(&sealed[..5]), Err(DecryptError::Header(_))));
    assert!(matches!(open(&[sealed.clone(), vec![1]].concat()), Err(DecryptError::Extended { chunks: 3 })));
    let swapped = [sealed[..HEADER_LEN].to_vec(), chunk(1), chunk(0), chunk(2)].concat();
    assert!(matches!(open(&swapped), Err(DecryptError::Authentication { chunk: 0 })));
    let mut wrong_key = Vec::new();
    assert!(matches!(
        sealed_stream::decrypt(&[0x12; 32], &sealed[..], &mut wrong_key),
        Err(DecryptError::Authentication { chunk: 0 })
    ));
    assert!(wrong_key.is_empty(), "nothing written before authentication");
}
