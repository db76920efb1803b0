//! Streebog differential: both sizes on every backend, streamed at fuzzer-chosen cuts and
//! one-shot, against the `streebog` crate; HMAC with a fuzzer-chosen key against `hmac`
//! over `streebog`; ragged batches on every backend and thread setting.
#![no_main]

use ::streebog::Digest;
use hmac::Mac;
use libfuzzer_sys::fuzz_target;
use simdcrypt::streebog::{self, Bits, HmacStreebog256, HmacStreebog512, Platform, Streebog256, Streebog512};
use simdcrypt_fuzz::{backends, bytes, cuts, messages, pieces, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let threads = threads(u)?;
    let key_len = u.int_in_range(0..=150)?;
    let key = bytes(u, key_len)?.to_vec();
    let batch_split = u.int_in_range(0..=20)?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;

    let want256: [u8; 32] = ::streebog::Streebog256::digest(&data).into();
    let want512: [u8; 64] = ::streebog::Streebog512::digest(&data).into();
    assert_eq!(streebog::hash256(&data), want256, "one-shot 256");
    assert_eq!(streebog::hash512(&data), want512, "one-shot 512");
    let mut r = hmac::Hmac::<::streebog::Streebog256>::new_from_slice(&key).unwrap();
    r.update(&data);
    let mac256: [u8; 32] = r.finalize().into_bytes().into();
    let mut r = hmac::Hmac::<::streebog::Streebog512>::new_from_slice(&key).unwrap();
    r.update(&data);
    let mac512: [u8; 64] = r.finalize().into_bytes().into();

    let msgs = messages(&mut Unstructured::new(&key), &data, batch_split)?;
    for platform in backends::<Platform>() {
        let name = platform.name();
        let (mut h256, mut h512) = (Streebog256::new(), Streebog512::new());
        let (mut m256, mut m512) = (HmacStreebog256::new(&key), HmacStreebog512::new(&key));
        h256.set_platform(platform);
        h512.set_platform(platform);
        m256.set_platform(platform);
        m512.set_platform(platform);
        for piece in pieces(&data, &cut_at) {
            h256.update(piece);
            h512.update(piece);
            m256.update(piece);
            m512.update(piece);
        }
        assert_eq!(h256.finalize(), want256, "{name} 256 streamed at {cut_at:?}");
        assert_eq!(h512.finalize(), want512, "{name} 512 streamed at {cut_at:?}");
        assert_eq!(m256.finalize(), mac256, "{name} HMAC-256");
        assert_eq!(m512.finalize(), mac512, "{name} HMAC-512");

        for bits in [Bits::B256, Bits::B512] {
            let n = bits.out_len();
            let mut out = vec![0u8; msgs.len() * n];
            streebog::hash_many(&msgs, bits, &mut out, platform, threads).unwrap();
            for (i, m) in msgs.iter().enumerate() {
                let want = if n == 32 {
                    ::streebog::Streebog256::digest(m).to_vec()
                } else {
                    ::streebog::Streebog512::digest(m).to_vec()
                };
                assert_eq!(out[i * n..][..n], want[..], "{name} batch message {i} of {}", msgs.len());
            }
            assert!(streebog::hash_many(&msgs, bits, &mut vec![0u8; out.len() + 1], platform, threads).is_err());
        }
    }
    Ok(())
}
