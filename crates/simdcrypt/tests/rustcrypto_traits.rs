//! The `digest` traits (simdcrypt::rustcrypto) against RustCrypto's own implementations:
//! `Digest` results equal sha2 / streebog / gost94 and the official blake3 crate, HMAC via
//! `hmac::SimpleHmac` over simdcrypt equals `hmac::Hmac` over RustCrypto, HKDF likewise,
//! and the keyed hashes as `Mac` equal the `blake3` and `highway` crates. Random inputs at
//! named edge lengths, fed in two parts at random split points.
#![cfg(feature = "digest")]

mod common;

use digest::{Digest, ExtendableOutput, FixedOutputReset, Mac, Update, XofReader};
use rand::{Rng, RngCore};
use simdcrypt::rustcrypto as rc;

const LENGTHS: &[usize] = &[0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 8192, 65_537];

fn inputs() -> Vec<(Vec<u8>, usize)> {
    let mut rng = common::rng(0xd16e57);
    LENGTHS
        .iter()
        .map(|&len| {
            let mut data = vec![0u8; len];
            rng.fill_bytes(&mut data);
            let split = rng.random_range(0..=len);
            (data, split)
        })
        .collect()
}

/// Our `D` through the generic `Digest` API, fed in two parts, against `R` in one.
fn same_digest<D: Digest + FixedOutputReset + Clone, R: Digest>(name: &str) {
    for (data, split) in inputs() {
        let mut ours = D::new();
        Digest::update(&mut ours, &data[..split]);
        let copy = ours.clone();
        Digest::update(&mut ours, &data[split..]);
        let want = R::digest(&data);
        assert_eq!(ours.finalize_reset()[..], want[..], "{name} len {} split {split}", data.len());
        // After finalize_reset the hasher starts over.
        Digest::update(&mut ours, &data);
        assert_eq!(ours.finalize()[..], want[..], "{name} after reset");
        let mut copy = copy;
        Digest::update(&mut copy, &data[split..]);
        assert_eq!(copy.finalize()[..], want[..], "{name} clone");
    }
    println!("{name}: Digest equals RustCrypto on {} lengths", LENGTHS.len());
}

#[test]
fn digests_equal_rustcrypto() {
    same_digest::<rc::Sha256, sha2::Sha256>("sha256");
    same_digest::<rc::Streebog256, streebog_rc::Streebog256>("streebog256");
    same_digest::<rc::Streebog512, streebog_rc::Streebog512>("streebog512");
    same_digest::<rc::Gost94CryptoPro, gost94_rc::Gost94CryptoPro>("gost94 cryptopro");
    same_digest::<rc::Gost94Test, gost94_rc::Gost94Test>("gost94 test");
    println!(
        "backends: sha256 {}, streebog {}, gost94 {}",
        simdcrypt::sha256::Sha256::new().platform().name(),
        simdcrypt::streebog::Streebog256::new().platform().name(),
        simdcrypt::gost94::Gost94::default().platform().name()
    );
}

#[test]
fn blake3_digest_and_xof_equal_the_official_crate() {
    for (data, split) in inputs() {
        let d = rc::Blake3::digest(&data);
        assert_eq!(d[..], blake3::hash(&data).as_bytes()[..]);
        let mut h = rc::Blake3::default();
        Update::update(&mut h, &data[..split]);
        Update::update(&mut h, &data[split..]);
        let mut ours = [0u8; 200];
        ExtendableOutput::finalize_xof(h).read(&mut ours);
        let mut want = [0u8; 200];
        blake3::Hasher::new().update(&data).finalize_xof().fill(&mut want);
        assert_eq!(ours, want, "len {}", data.len());
    }
}

#[test]
fn simple_hmac_over_simdcrypt_equals_hmac_over_rustcrypto() {
    let mut rng = common::rng(77);
    for key_len in [0usize, 1, 32, 63, 64, 65, 200] {
        let mut key = vec![0u8; key_len];
        rng.fill_bytes(&mut key);
        for (data, split) in inputs() {
            let mut ours = hmac::SimpleHmac::<rc::Sha256>::new_from_slice(&key).unwrap();
            Mac::update(&mut ours, &data[..split]);
            Mac::update(&mut ours, &data[split..]);
            let mut theirs = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
            Mac::update(&mut theirs, &data);
            let want = theirs.finalize().into_bytes();
            assert_eq!(ours.finalize().into_bytes(), want, "hmac-sha256 key {key_len} len {}", data.len());

            let ours = hmac::SimpleHmac::<rc::Streebog512>::new_from_slice(&key)
                .unwrap()
                .chain_update(&data)
                .finalize()
                .into_bytes();
            assert_eq!(ours[..], simdcrypt::streebog::hmac512(&key, &data)[..], "hmac-streebog512");
            let theirs = hmac::SimpleHmac::<streebog_rc::Streebog512>::new_from_slice(&key)
                .unwrap()
                .chain_update(&data)
                .finalize()
                .into_bytes();
            assert_eq!(ours, theirs);
        }
    }
}

#[test]
fn simple_hkdf_over_simdcrypt_equals_hkdf_over_rustcrypto() {
    let mut rng = common::rng(5);
    for ikm_len in [0usize, 22, 80] {
        let mut ikm = vec![0u8; ikm_len];
        rng.fill_bytes(&mut ikm);
        for salt in [None, Some(&b"salt"[..]), Some(&[0xAB; 100][..])] {
            for okm_len in [1usize, 32, 42, 255 * 32] {
                let mut ours = vec![0u8; okm_len];
                hkdf::SimpleHkdf::<rc::Sha256>::new(salt, &ikm).expand(b"info", &mut ours).unwrap();
                let mut theirs = vec![0u8; okm_len];
                hkdf::Hkdf::<sha2::Sha256>::new(salt, &ikm).expand(b"info", &mut theirs).unwrap();
                assert_eq!(ours, theirs, "ikm {ikm_len} okm {okm_len}");
            }
        }
    }
    // RFC 5869 test case 1.
    let ikm = [0x0b; 22];
    let salt: Vec<u8> = (0..=0x0c).collect();
    let info: Vec<u8> = (0xf0..=0xf9).collect();
    let mut okm = [0u8; 42];
    hkdf::SimpleHkdf::<rc::Sha256>::new(Some(&salt), &ikm).expand(&info, &mut okm).unwrap();
    assert_eq!(
        simdcrypt::to_hex(&okm),
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    );
}

#[test]
fn keyed_hashes_as_mac() {
    use highway::HighwayHash;
    let mut rng = common::rng(9);
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let words: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(key[8 * i..8 * i + 8].try_into().unwrap()));
    for (data, split) in inputs() {
        let mut mac = <rc::Blake3Keyed as Mac>::new_from_slice(&key).unwrap();
        Mac::update(&mut mac, &data[..split]);
        Mac::update(&mut mac, &data[split..]);
        let want = blake3::keyed_hash(&key, &data);
        mac.clone().verify_slice(want.as_bytes()).unwrap();
        let mut wrong = *want.as_bytes();
        wrong[31] ^= 1;
        assert!(mac.clone().verify_slice(&wrong).is_err());
        assert_eq!(Mac::finalize_reset(&mut mac).into_bytes()[..], want.as_bytes()[..]);
        // Reset restores the keyed state, not the unkeyed one.
        Mac::update(&mut mac, &data);
        assert_eq!(mac.finalize().into_bytes()[..], want.as_bytes()[..]);

        let hw = highway::HighwayHasher::new(highway::Key(words));
        let h64 = <rc::HighwayHash64 as Mac>::new_from_slice(&key).unwrap().chain_update(&data).finalize();
        assert_eq!(h64.into_bytes()[..], hw.clone().hash64(&data).to_le_bytes());
        let h128 = <rc::HighwayHash128 as Mac>::new_from_slice(&key).unwrap().chain_update(&data).finalize();
        let want128: Vec<u8> = hw.clone().hash128(&data).iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(h128.into_bytes()[..], want128[..]);
        let mut h256 = <rc::HighwayHash256 as Mac>::new_from_slice(&key).unwrap();
        Mac::update(&mut h256, &data[..split]);
        Mac::reset(&mut h256);
        Mac::update(&mut h256, &data);
        let want256: Vec<u8> = hw.hash256(&data).iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(h256.finalize().into_bytes()[..], want256[..]);
    }
    assert!(<rc::Blake3Keyed as Mac>::new_from_slice(&[0u8; 31]).is_err());
}

#[test]
fn tags_compare_in_constant_time_and_print_hex() {
    use simdcrypt::mac::{self, Tag};
    let key = [1u8; 32];
    let t = mac::blake3_keyed(&key, b"m");
    assert_eq!(t.into_bytes(), simdcrypt::blake3::keyed_hash(&key, b"m"));
    assert!(t.verify(t.as_bytes()));
    assert!(!t.verify(&t.as_bytes()[..31]), "a shorter slice is not equal");
    for i in 0..32 {
        let mut other = t.into_bytes();
        other[i] ^= 0x80;
        assert!(!t.verify(&other));
        assert_ne!(t, Tag::from(other));
    }
    assert_eq!(t, Tag::from(simdcrypt::blake3::keyed_hash(&key, b"m")));
    assert_eq!(format!("{:?}", Tag::from([0xab, 0x01])), "Tag(ab01)");
    assert_eq!(mac::hmac_streebog256(b"k", b"d").into_bytes(), simdcrypt::streebog::hmac256(b"k", b"d"));
    assert_eq!(mac::hmac_streebog512(b"k", b"d").into_bytes(), simdcrypt::streebog::hmac512(b"k", b"d"));
    assert_eq!(mac::highwayhash64(&key, b"d").into_bytes(), simdcrypt::highwayhash::digest64(&key, b"d"));
    assert_eq!(mac::highwayhash128(&key, b"d").into_bytes(), simdcrypt::highwayhash::digest128(&key, b"d"));
    assert_eq!(mac::highwayhash256(&key, b"d").into_bytes(), simdcrypt::highwayhash::digest256(&key, b"d"));
}

/// The traits live on newtypes, so `Digest` in scope does not change what the library's
/// own `finalize` returns (an array).
#[test]
fn digest_in_scope_leaves_inherent_finalize_alone() {
    let h = simdcrypt::sha256::Sha256::new();
    let d: [u8; 32] = h.finalize();
    assert_eq!(d, simdcrypt::sha256::hash(b""));
}

/// `FixedOutputReset` on the hashes: a second message after `finalize_into_reset`.
#[test]
fn fixed_output_reset() {
    let mut h = rc::Sha256::default();
    Update::update(&mut h, b"first");
    let first = FixedOutputReset::finalize_fixed_reset(&mut h);
    assert_eq!(first[..], simdcrypt::sha256::hash(b"first"));
    Update::update(&mut h, b"second");
    assert_eq!(FixedOutputReset::finalize_fixed_reset(&mut h)[..], simdcrypt::sha256::hash(b"second"));
}
