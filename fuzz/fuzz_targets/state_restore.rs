//! Saved hash states (docs/state-format.md): any bytes through `state::restore_any` and
//! `AnyHasher::restore`, and states sealed with a valid checksum around fuzzer-chosen
//! params and fields for every algorithm of the registry (and HMAC-Streebog), so that each
//! algorithm's field parser is reached, not only the checksum check. A state that
//! restores must hash on, and export the same bytes, which restore to the same hasher.
//! (HMAC-Streebog states are only reached as raw bytes: their checksum key is not public;
//! their fields are Streebog's, reached through the unkeyed states.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::any::AnyHasher;
use simdcrypt::registry::REGISTRY;
use simdcrypt::state;
use simdcrypt::streaming::StreamingHash;
use simdcrypt::streebog::{HmacStreebog256, HmacStreebog512};
use simdcrypt_fuzz::{bytes, split, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

const EXTRA: &[u8] = b"more input after the restore, longer than one block of any algorithm here: \
    0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A restored hasher must take more input, and its export must restore to a hasher with
/// the same digest (an accepted state is one the library can itself produce).
fn hashes_on(h: &dyn StreamingHash, key: Option<&[u8]>, what: &str, original: &[u8]) {
    let mut a = h.clone_box();
    a.update(EXTRA);
    let mut da = vec![0u8; a.digest_len()];
    a.finalize_into(&mut da);
    let blob = h.export();
    let (_, mut b) = state::restore_any(&blob, key).unwrap_or_else(|e| panic!("{what}: own export rejected: {e}"));
    b.update(EXTRA);
    let mut db = vec![0u8; b.digest_len()];
    b.finalize_into(&mut db);
    assert_eq!(da, db, "{what}: export and restore changed the hash");
    // One state has one encoding (docs/state-format.md): what was accepted is what the
    // restored hasher writes back.
    assert_eq!(blob, original, "{what}: the restored state exports other bytes");
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let forged: bool = u.arbitrary()?;
    let key_choice: u8 = u.arbitrary()?;
    let key_len = match key_choice % 4 {
        0 => None,
        1 => Some(32),
        2 => Some(16),
        _ => Some(usize::from(key_choice / 4)),
    };
    let key = match key_len {
        Some(n) => Some(bytes(u, n)?.to_vec()),
        None => None,
    };
    let key = key.as_deref();
    let blob = if forged {
        let names: Vec<&str> =
            REGISTRY.iter().map(|a| a.name).chain(["hmac_streebog256", "hmac_streebog512"]).collect();
        let name = names[u.choose_index(names.len())?];
        let params_len = u.int_in_range(0..=8)?;
        let params = bytes(u, params_len)?.to_vec();
        let fields = payload;
        state::seal(name, &params, fields, key)
    } else {
        payload.to_vec()
    };

    if let Ok((algorithm, h)) = state::restore_any(&blob, key) {
        hashes_on(&*h, key, algorithm.name, &blob);
    }
    if let Ok(h) = AnyHasher::restore(&blob, key) {
        let mut h = h.clone();
        h.update(EXTRA);
        let _ = h.finalize(None).unwrap();
        let _ = h.finalize(Some(1));
        let _ = h.export();
    }
    if let Some(key) = key {
        if let Ok(h) = HmacStreebog256::restore(&blob, key) {
            let again = HmacStreebog256::restore(&h.export(), key).expect("own export");
            assert_eq!(h.clone().update(EXTRA).finalize(), again.clone().update(EXTRA).finalize());
        }
        if let Ok(h) = HmacStreebog512::restore(&blob, key) {
            let again = HmacStreebog512::restore(&h.export(), key).expect("own export");
            assert_eq!(h.clone().update(EXTRA).finalize(), again.clone().update(EXTRA).finalize());
        }
    }
    Ok(())
}
