//! BLAKE3 differential: every backend (one-shot, streamed at fuzzer-chosen cuts, threads,
//! extended output from a fuzzer-chosen seek position, ragged batches) against the
//! `blake3` crate, in all three modes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::blake3::{self, Batch, Hasher, Mode, Platform};
use simdcrypt_fuzz::{array, backends, bytes, cuts, messages, pieces, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let mode_byte: u8 = u.arbitrary()?;
    let key: [u8; 32] = array(u)?;
    let context_len = u.int_in_range(0..=40)?;
    let context = String::from_utf8_lossy(&bytes(u, context_len)?).into_owned();
    let mode = match mode_byte % 3 {
        0 => Mode::Hash,
        1 => Mode::KeyedHash(&key),
        _ => Mode::DeriveKey(&context),
    };
    let out_len = u.int_in_range(0..=300)?;
    // Any seek the 2^64-byte output stream has room for after out_len bytes.
    let seek = if u.arbitrary()? { u.int_in_range(0..=u64::MAX - out_len as u64)? } else { u.int_in_range(0..=4096)? };
    let threads = threads(u)?;
    let batch_split = u.int_in_range(0..=40)?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;

    let mut reference = match mode {
        Mode::Hash => ::blake3::Hasher::new(),
        Mode::KeyedHash(k) => ::blake3::Hasher::new_keyed(k),
        Mode::DeriveKey(c) => ::blake3::Hasher::new_derive_key(c),
    };
    reference.update(&data);
    let expected_digest: [u8; 32] = *reference.finalize().as_bytes();
    let mut expected = vec![0u8; out_len];
    let mut xof = reference.finalize_xof();
    xof.set_position(seek);
    xof.fill(&mut expected);

    let one_shot = match mode {
        Mode::Hash => blake3::hash(&data),
        Mode::KeyedHash(k) => blake3::keyed_hash(k, &data),
        Mode::DeriveKey(c) => blake3::derive_key(c, &data),
    };
    assert_eq!(one_shot, expected_digest, "one-shot");

    for platform in backends::<Platform>() {
        let mut h = Hasher::for_mode(mode);
        h.set_platform(platform).set_max_threads(threads);
        for piece in pieces(&data, &cut_at) {
            h.update(piece);
        }
        assert_eq!(h.count(), data.len() as u64);
        assert_eq!(h.finalize(), expected_digest, "{} streamed at {cut_at:?}", platform.name());
        let mut got = vec![0u8; out_len];
        let mut reader = h.finalize_xof();
        reader.set_position(seek);
        reader.fill(&mut got);
        assert_eq!(got, expected, "{} xof at {seek}", platform.name());

        // The same bytes as a ragged batch, against one message at a time.
        let mut bu = Unstructured::new(&data[..data.len().min(64)]);
        let msgs = messages(&mut bu, &data, batch_split)?;
        let batch_len = out_len.min(100);
        let mut out = vec![0u8; msgs.len() * batch_len];
        Batch::new(mode).set_platform(platform).set_max_threads(threads).hash_into(&msgs, batch_len, &mut out).unwrap();
        for (i, m) in msgs.iter().enumerate() {
            let mut r = match mode {
                Mode::Hash => ::blake3::Hasher::new(),
                Mode::KeyedHash(k) => ::blake3::Hasher::new_keyed(k),
                Mode::DeriveKey(c) => ::blake3::Hasher::new_derive_key(c),
            };
            let mut want = vec![0u8; batch_len];
            r.update(m).finalize_xof().fill(&mut want);
            assert_eq!(out[i * batch_len..][..batch_len], want[..], "{} batch message {i}", platform.name());
        }
    }
    Ok(())
}
