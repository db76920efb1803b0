//! HighwayHash checkpoints: any bytes through `HighwayHasher::restore` (each size) and
//! `SizedHighwayHasher::restore`; version-1 checkpoints (200 bytes) with fuzzer-chosen
//! fields and a valid checksum (HighwayHash-64 of the body under the key, as the format
//! defines it), and version-2 states sealed around fuzzer-chosen fields. A checkpoint that
//! restores must hash on like the hasher it describes, and its export must restore.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::highwayhash::{self, HighwayHasher, Platform, Size, SizedHighwayHasher, CHECKPOINT_LEN};
use simdcrypt::state;
use simdcrypt_fuzz::{array, backends, bytes, split, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let key: [u8; 32] = array(u)?;
    let size = Size::ALL[u.choose_index(3)?];
    let kind: u8 = u.arbitrary()?;
    let more_len = u.int_in_range(0..=100)?;
    let more = bytes(u, more_len)?.to_vec();
    let blob = match kind % 3 {
        0 => payload.to_vec(),
        1 => {
            // Version 1: "SCCP", version 1, the name (16 bytes, NUL-padded), then the rest
            // from the fuzzer, and the checksum over bytes 0..192.
            let mut b = vec![0u8; CHECKPOINT_LEN];
            b[..4].copy_from_slice(b"SCCP");
            b[4..6].copy_from_slice(&1u16.to_le_bytes());
            b[6..6 + size.name().len()].copy_from_slice(size.name().as_bytes());
            let rest = payload;
            let n = rest.len().min(192 - 22);
            b[22..22 + n].copy_from_slice(&rest[..n]);
            let sum = highwayhash::hash64(&key, &b[..192]);
            b[192..].copy_from_slice(&sum.to_le_bytes());
            b
        }
        _ => state::seal(size.name(), &[], payload, Some(&key)),
    };

    if let Ok(h) = HighwayHasher::restore(&blob, &key, size) {
        let mut expected = vec![0u8; size.len()];
        h.clone().update(&more).finalize_into(size, &mut expected);
        for platform in backends::<Platform>() {
            let mut got = vec![0u8; size.len()];
            h.clone().set_platform(platform).update(&more).finalize_into(size, &mut got);
            assert_eq!(got, expected, "{} after restore", platform.name());
        }
        let again = HighwayHasher::restore(&h.export(size), &key, size).expect("own export restores");
        let mut got = vec![0u8; size.len()];
        again.clone().update(&more).finalize_into(size, &mut got);
        assert_eq!(got, expected, "export and restore changed the hash");
        assert_eq!(again.count(), h.count());
    }
    if let Ok(h) = SizedHighwayHasher::restore(&blob, Some(&key)) {
        let again = SizedHighwayHasher::restore(&h.export(), Some(&key)).expect("own export restores");
        assert_eq!(again.export(), h.export());
    }
    let _ = SizedHighwayHasher::restore(&blob, None);
    let _ = SizedHighwayHasher::restore(&blob, Some(&key[..31]));
    Ok(())
}
