//! HighwayHash differential: a fuzzer-chosen key, all three sizes on every backend,
//! streamed at fuzzer-chosen cuts, against the `highway` crate; ragged batches on every
//! backend and thread setting; checkpoints taken at a cut and resumed.
#![no_main]

use highway::HighwayHash as _;
use libfuzzer_sys::fuzz_target;
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size};
use simdcrypt_fuzz::{array, backends, cuts, messages, pieces, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn reference(key: &[u8; 32], data: &[u8], size: Size) -> Vec<u8> {
    let h = highway::HighwayHasher::new(highway::Key(highwayhash::key_words(key)));
    let words: Vec<u64> = match size {
        Size::Bits64 => vec![h.hash64(data)],
        Size::Bits128 => h.hash128(data).to_vec(),
        Size::Bits256 => h.hash256(data).to_vec(),
    };
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let key: [u8; 32] = array(u)?;
    let threads = threads(u)?;
    let batch_split = u.int_in_range(0..=40)?;
    let split_seed: u64 = u.arbitrary()?;
    let cut_seed: u64 = u.arbitrary()?;
    let data = stretched(u, payload)?;
    let cut_at = cuts(&mut Unstructured::new(&cut_seed.to_le_bytes()), data.len())?;
    let msgs = messages(&mut Unstructured::new(&split_seed.to_le_bytes()), &data, batch_split)?;

    for size in Size::ALL {
        let want = reference(&key, &data, size);
        let one_shot: Vec<u8> = match size {
            Size::Bits64 => highwayhash::digest64(&key, &data).to_vec(),
            Size::Bits128 => highwayhash::digest128(&key, &data).to_vec(),
            Size::Bits256 => highwayhash::digest256(&key, &data).to_vec(),
        };
        assert_eq!(one_shot, want, "one-shot {size:?}");
        let want_batch: Vec<u8> = msgs.iter().flat_map(|m| reference(&key, m, size)).collect();
        for platform in backends::<Platform>() {
            let mut h = HighwayHasher::new(&key);
            h.set_platform(platform);
            for (i, piece) in pieces(&data, &cut_at).enumerate() {
                if i == 1 {
                    // A checkpoint at the first cut, resumed on this backend.
                    let blob = h.export(size);
                    h = HighwayHasher::restore(&blob, &key, size).unwrap();
                    h.set_platform(platform);
                }
                h.update(piece);
            }
            let mut got = vec![0u8; size.len()];
            h.finalize_into(size, &mut got);
            assert_eq!(got, want, "{} {size:?} streamed at {cut_at:?}", platform.name());
            let mut out = vec![0u8; size.len() * msgs.len()];
            highwayhash::hash_many_with(platform, threads, &key, &msgs, size, &mut out).unwrap();
            assert_eq!(out, want_batch, "{} {size:?} batch of {}", platform.name(), msgs.len());
        }
    }
    Ok(())
}
