//! Resumable state (docs/state-format.md): a hash exported at any point and restored (in
//! the same process here; the format has nothing process-specific) gives the digest of the
//! uninterrupted input, for every algorithm, mode and backend; and no blob, random, damaged
//! or forged with a valid checksum, makes `restore` panic.

mod common;

use proptest::prelude::*;
use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::blake3::{self, Hasher, Platform};
use simdcrypt::registry::{KeyUse, REGISTRY};
use simdcrypt::streebog::{HmacStreebog256, HmacStreebog512};
use simdcrypt::{state, Error};

/// Split points: every one for short inputs, else block and chunk boundaries ±1 and a few
/// in between (every split of a 40-chunk input on every backend would take minutes).
fn split_points(len: usize) -> Vec<usize> {
    if len <= 1100 {
        return (0..=len).collect();
    }
    let mut v: Vec<usize> = (0..=8).chain((len - 8)..=len).collect();
    for k in 1..=(len / 1024) {
        v.extend([k * 1024 - 1, k * 1024, k * 1024 + 1]);
    }
    v.extend((0..len).step_by(331));
    v.retain(|&p| p <= len);
    v.sort_unstable();
    v.dedup();
    v
}

fn key_for(a: &simdcrypt::registry::Algorithm) -> Option<Vec<u8>> {
    match a.key {
        KeyUse::Required(n) => Some((0..n as u8).collect()),
        _ => None,
    }
}

#[test]
fn every_split_point_every_algorithm_every_backend() {
    let lengths = [0usize, 1, 31, 32, 33, 63, 64, 65, 200, 1023, 1024, 1025, 3 * 1024 + 5];
    for a in REGISTRY {
        let report = (a.backends)();
        println!(
            "every_split_point_every_algorithm_every_backend: {} ({}) backends exercised: {}",
            a.name,
            report.algorithm,
            report.supported.join(", ")
        );
        for expected in common::expected_backends(report.algorithm) {
            assert!(report.supported.contains(&expected.as_str()), "{}: expected backend {expected}", a.name);
        }
        let key = key_for(a);
        for backend in &report.supported {
            let opts = HashOptions { key: key.clone(), backend: Some(backend.to_string()), ..Default::default() };
            for &len in &lengths {
                let data = common::random_bytes(len as u64, len);
                let mut whole = AnyHasher::new(a.name, &opts).unwrap();
                whole.update(&data);
                let expected = whole.finalize(None).unwrap();
                for split in split_points(len) {
                    let mut h = AnyHasher::new(a.name, &opts).unwrap();
                    h.update(&data[..split]);
                    let blob = h.export();
                    assert_eq!(state::algorithm_of(&blob).unwrap(), a.name);
                    let mut back = AnyHasher::restore(&blob, key.as_deref())
                        .unwrap_or_else(|e| panic!("{} {backend} len {len} split {split}: {e}", a.name));
                    assert_eq!(back.algorithm(), a.name);
                    back.update(&data[split..]);
                    assert_eq!(back.finalize(None).unwrap(), expected, "{} {backend} len {len} split {split}", a.name);
                }
            }
        }
    }
}

/// BLAKE3's state is a tree (chunk state and stack of subtree chaining values): every mode,
/// XOF lengths, inputs of many chunks, exported on one backend and continued on each.
#[test]
fn blake3_all_modes_and_backends_against_the_official_crate() {
    let key = [7u8; 32];
    let context = "simdcrypt state tests 2026";
    let backends = common::supported_backends::<Platform>("blake3_all_modes_and_backends_against_the_official_crate");
    for len in [0usize, 1, 1023, 1024, 1025, 2048, 4097, 17 * 1024 + 3, 40 * 1024] {
        let data = common::random_bytes(len as u64 + 1, len);
        let refs: [(blake3::Mode<'_>, ::blake3::Hasher, Option<&[u8]>); 3] = [
            (blake3::Mode::Hash, ::blake3::Hasher::new(), None),
            (blake3::Mode::KeyedHash(&key), ::blake3::Hasher::new_keyed(&key), Some(&key)),
            (blake3::Mode::DeriveKey(context), ::blake3::Hasher::new_derive_key(context), None),
        ];
        for (mode, mut reference, k) in refs {
            reference.update(&data);
            let mut expected = vec![0u8; 131];
            reference.finalize_xof().fill(&mut expected);
            for (i, split) in split_points(len).into_iter().enumerate() {
                let from = backends[i % backends.len()];
                let to = backends[(i + 1) % backends.len()];
                let mut h = Hasher::for_mode(mode);
                h.set_platform(from);
                // The first part in two updates, so the stack is built by several calls.
                h.update(&data[..split / 3]).update(&data[split / 3..split]);
                let blob = h.export();
                let mut back = Hasher::restore(&blob, k).unwrap();
                back.set_platform(to);
                back.update(&data[split..]);
                for out_len in [1usize, 32, 131] {
                    let mut out = vec![0u8; out_len];
                    back.finalize_xof().fill(&mut out);
                    assert_eq!(out, expected[..out_len], "len {len} split {split} {mode:?} {from:?}->{to:?}");
                }
            }
        }
    }
}

#[test]
fn hmac_streebog_resumes_under_its_key_only() {
    let key = b"a key of some length".to_vec();
    let data = common::random_bytes(9, 300);
    let expected256 = simdcrypt::streebog::hmac256(&key, &data);
    let expected512 = simdcrypt::streebog::hmac512(&key, &data);
    for split in split_points(data.len()) {
        let mut h = HmacStreebog256::new(&key);
        h.update(&data[..split]);
        let mut back = HmacStreebog256::restore(&h.export(), &key).unwrap();
        back.update(&data[split..]);
        assert_eq!(back.finalize(), expected256);
        let mut h = HmacStreebog512::new(&key);
        h.update(&data[..split]);
        let blob = h.export();
        let mut back = HmacStreebog512::restore(&blob, &key).unwrap();
        back.update(&data[split..]);
        assert_eq!(back.finalize(), expected512);
        let err = HmacStreebog512::restore(&blob, b"another key").unwrap_err().to_string();
        assert!(err.contains("checksum mismatch") && err.contains("another key"), "{err}");
        assert!(HmacStreebog256::restore(&blob, &key).unwrap_err().to_string().contains("expected hmac_streebog256"));
        // The key block HMAC derives from the key is an equivalent key (what pickles carry).
        let mut back = HmacStreebog512::restore(&blob, &h.key_block()).unwrap();
        back.update(&data[split..]);
        assert_eq!(back.finalize(), expected512);
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let mut h = AnyHasher::new("sha256", &HashOptions::default()).unwrap();
    h.update(b"abc");
    let blob = h.export();
    let msg = |r: Result<AnyHasher, Error>| r.unwrap_err().to_string();
    assert!(msg(AnyHasher::restore(b"", None)).contains("not a simdcrypt state"));
    assert!(msg(AnyHasher::restore(&blob[..10], None)).contains("truncated"));
    let mut v7 = blob.clone();
    v7[4] = 7;
    assert!(msg(AnyHasher::restore(&v7, None)).contains("version 7 is not supported"));
    let mut damaged = blob.clone();
    let last = damaged.len() - 40;
    damaged[last] ^= 0x10;
    assert!(msg(AnyHasher::restore(&damaged, None)).contains("checksum mismatch"));
    assert!(msg(AnyHasher::restore(&blob, Some(&[1; 32]))).contains("not keyed"));
    let err = Hasher::restore(&blob, None).unwrap_err().to_string();
    assert!(err.contains("state of sha256, expected blake3"), "{err}");

    let key = [5u8; 32];
    let keyed = Hasher::new_keyed(&key).update(b"x").export();
    assert!(msg(AnyHasher::restore(&keyed, None)).contains("needs the same key"));
    assert!(msg(AnyHasher::restore(&keyed, Some(&[6; 32]))).contains("another key"));
    assert!(AnyHasher::restore(&keyed, Some(&key)).is_ok());
    let hh = AnyHasher::new("highwayhash64", &HashOptions { key: Some(key.to_vec()), ..Default::default() }).unwrap();
    assert!(msg(AnyHasher::restore(&hh.export(), None)).contains("needs the same key"));
    assert!(msg(AnyHasher::restore(&hh.export(), Some(&[6; 32]))).contains("another key"));
    // A keyed BLAKE3 state does not contain the key (a chunk's starting chaining value is
    // the key; it is left out).
    for len in [0usize, 1, 64, 65, 1024, 1025, 3000] {
        let blob = Hasher::new_keyed(&key).update(&vec![0; len]).export();
        assert!(!blob.windows(32).any(|w| w == key), "len {len}");
    }
}

/// A state and the key it needs.
type Sample = (Vec<u8>, Option<Vec<u8>>);

/// Valid states of every algorithm, with their keys (made once for all proptest cases).
fn sample_states() -> &'static [Sample] {
    static STATES: std::sync::OnceLock<Vec<Sample>> = std::sync::OnceLock::new();
    STATES.get_or_init(make_sample_states)
}

fn make_sample_states() -> Vec<Sample> {
    let mut out = Vec::new();
    for a in REGISTRY {
        let key = key_for(a);
        for len in [0usize, 5, 64, 1500, 5000] {
            let mut h = AnyHasher::new(a.name, &HashOptions { key: key.clone(), ..Default::default() }).unwrap();
            h.update(&common::random_bytes(3, len));
            out.push((h.export(), key.clone()));
        }
    }
    let mut keyed = Hasher::new_keyed(&[1; 32]);
    keyed.update(&[2; 3000]);
    out.push((keyed.export(), Some(vec![1; 32])));
    out.push((Hasher::new_derive_key("ctx").update(&[3; 2100]).export(), None));
    out
}

/// The params and fields of a state, to forge states with valid checksums.
fn parts(blob: &[u8]) -> (String, Vec<u8>, Vec<u8>) {
    let name_len = blob[6] as usize;
    let name = String::from_utf8(blob[8..8 + name_len].to_vec()).unwrap();
    let mut at = 8 + name_len;
    let p = u16::from_le_bytes([blob[at], blob[at + 1]]) as usize;
    let params = blob[at + 2..at + 2 + p].to_vec();
    at += 2 + p;
    let f = u32::from_le_bytes(blob[at..at + 4].try_into().unwrap()) as usize;
    (name, params, blob[at + 4..at + 4 + f].to_vec())
}

/// A restored hasher must work: update and finalize without panicking.
fn exercise(h: &mut AnyHasher) {
    h.update(&[1u8; 2500]);
    let _ = h.finalize(None).unwrap();
}

// 256 cases each by default; PROPTEST_CASES=100000 for a long run.
proptest! {
    #[test]
    fn random_blobs_are_refused(blob in proptest::collection::vec(any::<u8>(), 0..400), key in proptest::option::of(proptest::collection::vec(any::<u8>(), 32))) {
        prop_assert!(AnyHasher::restore(&blob, key.as_deref()).is_err());
        let mut prefixed = b"SCCP\x02\x00".to_vec();
        prefixed.extend_from_slice(&blob);
        prop_assert!(AnyHasher::restore(&prefixed, key.as_deref()).is_err());
    }

    #[test]
    fn damaged_states_are_refused(which in any::<prop::sample::Index>(), pos in any::<prop::sample::Index>(), flip in 1u8..=255, cut in any::<prop::sample::Index>()) {
        let states = sample_states();
        let (blob, key) = &states[which.index(states.len())];
        let mut damaged = blob.clone();
        damaged[pos.index(blob.len())] ^= flip;
        prop_assert!(AnyHasher::restore(&damaged, key.as_deref()).is_err());
        let truncated = &blob[..cut.index(blob.len())];
        prop_assert!(AnyHasher::restore(truncated, key.as_deref()).is_err());
    }

    /// States whose fields are damaged but whose checksum was recomputed (what anyone can
    /// make for an unkeyed hash): refused, or restored into a hasher that works.
    #[test]
    fn forged_states_never_panic(which in any::<prop::sample::Index>(), edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6), trim in 0usize..3) {
        let states = sample_states();
        let (blob, key) = &states[which.index(states.len())];
        let (name, params, mut fields) = parts(blob);
        for (i, v) in edits {
            let at = i.index(fields.len());
            fields[at] = v;
        }
        fields.truncate(fields.len() - trim.min(fields.len()));
        // The keyed states in the sample (BLAKE3, HighwayHash) key their checksum with the
        // hasher's key itself, so a forger holding the key is simulated too.
        let forged = state::seal(&name, &params, &fields, key.as_deref());
        if let Ok(mut h) = AnyHasher::restore(&forged, key.as_deref()) {
            exercise(&mut h);
        }
    }
}

/// BLAKE3 states forged at the edges of what `restore` accepts: the largest chunk counter,
/// the fullest stack, an empty or full chunk. Accepted ones keep working; the others are
/// refused.
#[test]
fn blake3_forged_edges_never_panic() {
    let forge = |counter: u64, blocks: u8, buf_len: u8, stack: usize| {
        let mut fields = Vec::new();
        fields.extend_from_slice(&0u64.to_le_bytes());
        fields.extend_from_slice(&counter.to_le_bytes());
        fields.push(blocks);
        if blocks > 0 {
            fields.extend_from_slice(&[9u8; 32]);
        }
        fields.push(buf_len);
        fields.extend((0..64u8).map(|i| if i < buf_len { i } else { 0 }));
        fields.push(stack as u8);
        fields.extend(std::iter::repeat_n(5u8, 32 * stack));
        state::seal("blake3", &[0], &fields, None)
    };
    let mut accepted = 0;
    for counter in [0u64, 1, 2, 3, (1 << 53) - 1, 1 << 53, (1 << 53) + 1, u64::MAX] {
        for (blocks, buf_len) in [(0u8, 0u8), (0, 1), (0, 64), (15, 64), (15, 63), (16, 1), (1, 0), (0, 65)] {
            for stack in [0usize, 1, 2, 54, 56, 57] {
                if let Ok(mut h) = Hasher::restore(&forge(counter, blocks, buf_len, stack), None) {
                    accepted += 1;
                    h.update(&[1u8; 5000]);
                    let mut out = [0u8; 40];
                    h.finalize_xof().fill(&mut out);
                }
            }
        }
    }
    assert!(accepted > 0);
    assert!(Hasher::restore(&forge((1 << 53) + 1, 0, 1, 1), None).is_err());
    assert!(Hasher::restore(&forge(3, 16, 1, 2), None).is_err());
    assert!(Hasher::restore(&forge(3, 0, 0, 1), None).is_err());
    assert!(Hasher::restore(&forge(0, 0, 1, 1), None).is_err());
    assert!(Hasher::restore(&forge(3, 0, 1, 57), None).is_err());
}
