//! GOST R 34.11-94 differential: both parameter sets on every backend, streamed at
//! fuzzer-chosen cuts and one-shot, against the `gost94` crate; ragged batches on every
//! backend and thread setting.
#![no_main]

use ::gost94::Digest;
use libfuzzer_sys::fuzz_target;
use simdcrypt::gost94::{self, Gost94, Platform, SBox};
use simdcrypt_fuzz::{backends, cuts, messages, pieces, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn reference(sbox: SBox, data: &[u8]) -> [u8; 32] {
    match sbox {
        SBox::Test => ::gost94::Gost94Test::digest(data).into(),
        SBox::CryptoPro => ::gost94::Gost94CryptoPro::digest(data).into(),
    }
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let threads = threads(u)?;
    let batch_split = u.int_in_range(0..=20)?;
    let split_seed: u64 = u.arbitrary()?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;
    let msgs = messages(&mut Unstructured::new(&split_seed.to_le_bytes()), &data, batch_split)?;

    for sbox in SBox::ALL {
        let want = reference(sbox, &data);
        assert_eq!(gost94::hash(sbox, &data), want, "one-shot {sbox:?}");
        let want_batch: Vec<u8> = msgs.iter().flat_map(|m| reference(sbox, m)).collect();
        for platform in backends::<Platform>() {
            let mut h = Gost94::new(sbox);
            h.set_platform(platform);
            for piece in pieces(&data, &cut_at) {
                h.update(piece);
            }
            assert_eq!(h.finalize(), want, "{} {sbox:?} streamed at {cut_at:?}", platform.name());
            let mut out = vec![0u8; 32 * msgs.len()];
            gost94::hash_many(&msgs, sbox, &mut out, platform, threads).unwrap();
            assert_eq!(out, want_batch, "{} {sbox:?} batch of {}", platform.name(), msgs.len());
        }
    }
    Ok(())
}
