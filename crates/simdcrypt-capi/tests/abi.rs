//! The C ABI called from Rust: results against independent implementations (the RustCrypto
//! and official BLAKE3 crates) and the official vectors, and every error path: NULL
//! pointers, bad lengths, unknown names, forged boxes, each with its status and message.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use simdcrypt_capi::*;

const OK: i32 = SimdcryptStatus::Ok as i32;

fn last_error() -> String {
    // SAFETY: the library returns a valid NUL-terminated string, alive until the next call.
    unsafe { CStr::from_ptr(simdcrypt_last_error()) }.to_string_lossy().into_owned()
}

fn vectors(name: &str) -> serde_json::Value {
    let path = format!("{}/../../test-vectors/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Deterministic test bytes: the official `blake3` crate's output stream for the seed.
fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; len];
    blake3::Hasher::new().update(&seed.to_le_bytes()).finalize_xof().fill(&mut out);
    out
}

fn hash_by_name(
    name: &str,
    opts: Option<&SimdcryptOptions>,
    data: &[u8],
    out_len: usize,
) -> Result<Vec<u8>, (i32, String)> {
    let name = CString::new(name).unwrap();
    let mut out = vec![0u8; out_len];
    let opts = opts.map_or(null(), |o| o as *const _);
    // SAFETY: valid string, options, input and output buffers of the stated lengths.
    let rc = unsafe { simdcrypt_hash_with(name.as_ptr(), opts, data.as_ptr(), data.len(), out.as_mut_ptr(), out_len) };
    if rc == OK {
        Ok(out)
    } else {
        Err((rc, last_error()))
    }
}

fn options(key: Option<&[u8]>, context: Option<&CStr>, backend: Option<&CStr>, threads: usize) -> SimdcryptOptions {
    SimdcryptOptions {
        key: key.map_or(null(), |k| k.as_ptr()),
        key_len: key.map_or(0, |k| k.len()),
        derive_key_context: context.map_or(null(), |c| c.as_ptr()),
        backend: backend.map_or(null(), |b| b.as_ptr()),
        threads,
    }
}

const LENGTHS: &[usize] = &[0, 1, 31, 32, 63, 64, 65, 127, 128, 1023, 1024, 1025, 4096, 100_000];

#[test]
fn algorithm_names_are_the_library_list() {
    let n = simdcrypt_algorithm_count();
    assert_eq!(n, simdcrypt::ALGORITHMS.len());
    for (i, want) in simdcrypt::ALGORITHMS.iter().enumerate() {
        // SAFETY: in range, so a static NUL-terminated string.
        assert_eq!(unsafe { CStr::from_ptr(simdcrypt_algorithm_name(i)) }.to_str().unwrap(), *want);
    }
    assert!(simdcrypt_algorithm_name(n).is_null());
    // SAFETY: a static string.
    assert_eq!(unsafe { CStr::from_ptr(simdcrypt_version()) }.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn one_shot_hashes_match_independent_implementations() {
    use sha2::Digest;
    let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
    let hw_key: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(key[8 * i..8 * i + 8].try_into().unwrap()));
    let keyed = options(Some(&key), None, None, 0);
    for &len in LENGTHS {
        let data = pseudo_random(len, len as u64);
        assert_eq!(hash_by_name("blake3", None, &data, 32).unwrap(), blake3::hash(&data).as_bytes());
        let mut xof = vec![0u8; 131];
        blake3::Hasher::new().update(&data).finalize_xof().fill(&mut xof);
        assert_eq!(hash_by_name("BLAKE3", None, &data, 131).unwrap(), xof);
        assert_eq!(
            hash_by_name("blake3", Some(&keyed), &data, 32).unwrap(),
            blake3::keyed_hash(&key, &data).as_bytes()
        );
        let ctx = c"simdcrypt capi test context";
        let derive = options(None, Some(ctx), None, 0);
        assert_eq!(
            hash_by_name("blake3", Some(&derive), &data, 32).unwrap(),
            blake3::derive_key(ctx.to_str().unwrap(), &data)
        );
        assert_eq!(hash_by_name("sha256", None, &data, 32).unwrap(), sha2::Sha256::digest(&data).as_slice());
        assert_eq!(
            hash_by_name("streebog256", None, &data, 32).unwrap(),
            streebog::Streebog256::digest(&data).as_slice()
        );
        assert_eq!(
            hash_by_name("streebog512", None, &data, 64).unwrap(),
            streebog::Streebog512::digest(&data).as_slice()
        );
        assert_eq!(hash_by_name("gost94", None, &data, 32).unwrap(), gost94::Gost94CryptoPro::digest(&data).as_slice());
        assert_eq!(hash_by_name("gost94-test", None, &data, 32).unwrap(), gost94::Gost94Test::digest(&data).as_slice());
        {
            use highway::{HighwayHash, HighwayHasher, Key};
            let h64 = HighwayHasher::new(Key(hw_key)).hash64(&data);
            assert_eq!(hash_by_name("highwayhash64", Some(&keyed), &data, 8).unwrap(), h64.to_le_bytes());
            let h128: Vec<u8> =
                HighwayHasher::new(Key(hw_key)).hash128(&data).iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(hash_by_name("highwayhash128", Some(&keyed), &data, 16).unwrap(), h128);
            let h256: Vec<u8> =
                HighwayHasher::new(Key(hw_key)).hash256(&data).iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(hash_by_name("highwayhash256", Some(&keyed), &data, 32).unwrap(), h256);
        }
    }
}

#[test]
fn official_vectors() {
    let v = vectors("blake3");
    let key = v["key"].as_str().unwrap().as_bytes().to_vec();
    let ctx = CString::new(v["context_string"].as_str().unwrap()).unwrap();
    for case in v["cases"].as_array().unwrap() {
        let len = case["input_len"].as_u64().unwrap() as usize;
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let hash = hex::decode(case["hash"].as_str().unwrap()).unwrap();
        assert_eq!(hash_by_name("blake3", None, &data, hash.len()).unwrap(), hash, "blake3 len {len}");
        let keyed = hex::decode(case["keyed_hash"].as_str().unwrap()).unwrap();
        let opts = options(Some(&key), None, None, 0);
        assert_eq!(hash_by_name("blake3", Some(&opts), &data, keyed.len()).unwrap(), keyed);
        let derived = hex::decode(case["derive_key"].as_str().unwrap()).unwrap();
        let opts = options(None, Some(&ctx), None, 0);
        assert_eq!(hash_by_name("blake3", Some(&opts), &data, derived.len()).unwrap(), derived);
    }
    for case in vectors("streebog")["cases"].as_array().unwrap() {
        let msg = hex::decode(case["message_hex"].as_str().unwrap()).unwrap();
        let digest = hex::decode(case["digest_hex"].as_str().unwrap()).unwrap();
        let name = format!("streebog{}", case["bits"].as_u64().unwrap());
        assert_eq!(hash_by_name(&name, None, &msg, digest.len()).unwrap(), digest, "{}", case["name"]);
    }
    let abc = hash_by_name("sha256", None, b"abc", 32).unwrap();
    assert_eq!(hex::encode(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

#[test]
fn streaming_handles_match_one_shot_at_every_split() {
    let data = pseudo_random(5000, 1);
    for &name in simdcrypt::ALGORITHMS.iter() {
        let key = [9u8; 32];
        let opts = options(name.starts_with("highway").then_some(&key[..]), None, None, 0);
        let cname = CString::new(name).unwrap();
        let mut h = null_mut();
        // SAFETY: valid name, options and out-pointer.
        assert_eq!(unsafe { simdcrypt_hasher_new(cname.as_ptr(), &opts, &mut h) }, OK, "{name}: {}", last_error());
        // SAFETY: a live handle.
        let out_len = unsafe { simdcrypt_hasher_output_len(h) };
        // SAFETY: a live handle; the name is a static string.
        assert_eq!(unsafe { CStr::from_ptr(simdcrypt_hasher_algorithm(h)) }.to_str().unwrap(), name);
        let want = hash_by_name(name, Some(&opts), &data, out_len).unwrap();
        for split in [0, 1, 63, 64, 65, 1024, 4999, 5000] {
            let mut out = vec![0u8; out_len];
            // SAFETY: a live handle used by this thread only; valid buffers.
            unsafe {
                assert_eq!(simdcrypt_hasher_reset(h), OK);
                assert_eq!(simdcrypt_hasher_update(h, data.as_ptr(), split), OK);
                let mut copy = null_mut();
                assert_eq!(simdcrypt_hasher_clone(h, &mut copy), OK);
                assert_eq!(simdcrypt_hasher_update(h, data[split..].as_ptr(), data.len() - split), OK);
                assert_eq!(simdcrypt_hasher_finalize(h, out.as_mut_ptr(), out_len), OK);
                assert_eq!(out, want, "{name} split {split}");
                assert_eq!(simdcrypt_hasher_update(copy, data[split..].as_ptr(), data.len() - split), OK);
                out.fill(0);
                assert_eq!(simdcrypt_hasher_finalize(copy, out.as_mut_ptr(), out_len), OK);
                assert_eq!(out, want, "{name} clone at {split}");
                simdcrypt_hasher_free(copy);
            }
        }
        // SAFETY: a live handle, freed once.
        unsafe { simdcrypt_hasher_free(h) };
    }
}

#[test]
fn sha256_many_is_hashtree_semantics() {
    use sha2::Digest;
    for count in [0usize, 1, 2, 7, 8, 15, 16, 17, 33, 1000, 5000] {
        let input = pseudo_random(64 * count, count as u64);
        let want: Vec<u8> = input.chunks(64).flat_map(|b| sha2::Sha256::digest(b).to_vec()).collect();
        let mut out = vec![0u8; 32 * count];
        // SAFETY: buffers of 64 * count and 32 * count bytes.
        unsafe { simdcrypt_sha256_many(out.as_mut_ptr(), input.as_ptr(), count as u64) };
        assert_eq!(out, want, "count {count}");
        for threads in [0, 2, SIMDCRYPT_THREADS_AUTO] {
            out.fill(0);
            // SAFETY: as above.
            let rc = unsafe { simdcrypt_sha256_many_threads(out.as_mut_ptr(), input.as_ptr(), count as u64, threads) };
            assert_eq!((rc, &out), (OK, &want), "count {count} threads {threads}");
        }
    }
    // SAFETY: NULL with count > 0 is reported, not dereferenced.
    let rc = unsafe { simdcrypt_sha256_many_threads(null_mut(), null(), 3, 1) };
    assert_eq!(rc, SimdcryptStatus::NullPointer as i32);
    assert!(last_error().contains("NULL"), "{}", last_error());
    // SAFETY: as above; the hashtree-style call reports through last_error only.
    unsafe { simdcrypt_sha256_many(null_mut(), null(), 3) };
    // SAFETY: count 0 touches nothing.
    unsafe { simdcrypt_sha256_many(null_mut(), null(), 0) };
    // SAFETY: an overflowing size is rejected before any pointer is used.
    let rc = unsafe { simdcrypt_sha256_many_threads(null_mut(), null(), u64::MAX, 1) };
    assert_eq!(rc, SimdcryptStatus::InvalidLength as i32);
}

#[test]
fn merkle_root_matches_a_plain_reference() {
    use sha2::Digest;
    fn reference(leaves: &[[u8; 32]], depth: u32) -> [u8; 32] {
        let mut layer: Vec<[u8; 32]> = leaves.to_vec();
        let mut zero = [0u8; 32];
        for _ in 0..depth {
            if layer.len() % 2 == 1 {
                layer.push(zero);
            }
            layer = layer
                .chunks(2)
                .map(|p| sha2::Sha256::new().chain_update(p[0]).chain_update(p[1]).finalize().into())
                .collect();
            zero = sha2::Sha256::new().chain_update(zero).chain_update(zero).finalize().into();
        }
        layer.first().copied().unwrap_or(zero)
    }
    for n in [0usize, 1, 2, 3, 5, 8, 100, 4097] {
        let bytes = pseudo_random(32 * n, n as u64 + 5);
        let leaves: Vec<[u8; 32]> = bytes.chunks(32).map(|c| c.try_into().unwrap()).collect();
        let min_depth = n.max(1).next_power_of_two().trailing_zeros();
        for depth in [-1, min_depth as i32, min_depth as i32 + 3] {
            let mut out = [0u8; 32];
            // SAFETY: 32 * n leaf bytes, a 32-byte output.
            let rc = unsafe { simdcrypt_merkle_root(out.as_mut_ptr(), bytes.as_ptr(), n as u64, depth, 2) };
            assert_eq!(rc, OK, "{}", last_error());
            let d = if depth < 0 { min_depth } else { depth as u32 };
            assert_eq!(out, reference(&leaves, d), "n {n} depth {depth}");
        }
    }
    let mut out = [0u8; 32];
    let leaves = [0u8; 96];
    // SAFETY: valid buffers; three leaves do not fit in a depth-1 tree.
    let rc = unsafe { simdcrypt_merkle_root(out.as_mut_ptr(), leaves.as_ptr(), 3, 1, 1) };
    assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32, "{}", last_error());
    assert!(!last_error().is_empty());
}

#[test]
fn blake3_many_matches_the_official_crate() {
    let messages: Vec<Vec<u8>> =
        [0usize, 1, 64, 1023, 1024, 1025, 5000, 70_000].iter().map(|&n| pseudo_random(n, n as u64)).collect();
    let ptrs: Vec<*const u8> = messages.iter().map(|m| if m.is_empty() { null() } else { m.as_ptr() }).collect();
    let lens: Vec<usize> = messages.iter().map(Vec::len).collect();
    let key = [3u8; 32];
    for (opts, out_len) in
        [(None, 32), (Some(options(Some(&key), None, None, 2)), 32), (Some(options(None, Some(c"ctx"), None, 0)), 77)]
    {
        let mut out = vec![0u8; messages.len() * out_len];
        let o = opts.as_ref().map_or(null(), |o| o as *const _);
        // SAFETY: arrays of `count` pointers and lengths; an output of count * out_len.
        let rc = unsafe {
            simdcrypt_blake3_many(ptrs.as_ptr(), lens.as_ptr(), messages.len(), o, out.as_mut_ptr(), out_len)
        };
        assert_eq!(rc, OK, "{}", last_error());
        for (m, got) in messages.iter().zip(out.chunks(out_len)) {
            let mut h = match &opts {
                None => blake3::Hasher::new(),
                Some(o) if !o.key.is_null() => blake3::Hasher::new_keyed(&key),
                Some(_) => blake3::Hasher::new_derive_key("ctx"),
            };
            let mut want = vec![0u8; out_len];
            h.update(m).finalize_xof().fill(&mut want);
            assert_eq!(got, want);
        }
    }
    let bad = [null::<u8>()];
    let one = [5usize];
    let mut out = [0u8; 32];
    // SAFETY: inputs[0] is NULL with a non-zero length: reported, not read.
    let rc = unsafe { simdcrypt_blake3_many(bad.as_ptr(), one.as_ptr(), 1, null(), out.as_mut_ptr(), 32) };
    assert_eq!(rc, SimdcryptStatus::NullPointer as i32);
    assert!(last_error().contains("inputs[0]"), "{}", last_error());
}

#[test]
fn errors_are_codes_with_messages() {
    let data = b"abc";
    assert_eq!(hash_by_name("md5", None, data, 16).unwrap_err().0, SimdcryptStatus::InvalidArgument as i32);
    assert!(last_error().contains("unknown algorithm"), "{}", last_error());
    let (rc, msg) = hash_by_name("sha256", None, data, 31).unwrap_err();
    assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32);
    assert!(msg.contains("32 bytes"), "{msg}");
    let (rc, msg) = hash_by_name("highwayhash64", None, data, 8).unwrap_err();
    assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32);
    assert!(msg.contains("key"), "{msg}");
    let short = [0u8; 5];
    let (rc, _) = hash_by_name("blake3", Some(&options(Some(&short), None, None, 0)), data, 32).unwrap_err();
    assert_eq!(rc, SimdcryptStatus::InvalidLength as i32);
    let (rc, msg) =
        hash_by_name("blake3", Some(&options(None, None, Some(c"no-such-backend"), 0)), data, 32).unwrap_err();
    assert_eq!(rc, SimdcryptStatus::UnsupportedBackend as i32, "{msg}");
    let (rc, _) = hash_by_name("sha256", Some(&options(Some(&[1u8; 32]), None, None, 0)), data, 32).unwrap_err();
    assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32);
    let bad_utf8 = [0xffu8, 0];
    let mut out = [0u8; 32];
    // SAFETY: a NUL-terminated (non-UTF-8) string and valid buffers.
    let rc = unsafe { simdcrypt_hash(bad_utf8.as_ptr() as *const c_char, data.as_ptr(), 3, out.as_mut_ptr(), 32) };
    assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32);
    // SAFETY: NULL pointers are checked before use.
    unsafe {
        assert_eq!(simdcrypt_hash(null(), data.as_ptr(), 3, out.as_mut_ptr(), 32), SimdcryptStatus::NullPointer as i32);
        assert_eq!(
            simdcrypt_hash(c"sha256".as_ptr(), null(), 3, out.as_mut_ptr(), 32),
            SimdcryptStatus::NullPointer as i32
        );
        assert_eq!(simdcrypt_hash(c"sha256".as_ptr(), null(), 0, out.as_mut_ptr(), 32), OK);
        assert_eq!(
            simdcrypt_hash(c"sha256".as_ptr(), data.as_ptr(), 3, null_mut(), 32),
            SimdcryptStatus::NullPointer as i32
        );
        assert_eq!(simdcrypt_hasher_update(null_mut(), data.as_ptr(), 3), SimdcryptStatus::NullPointer as i32);
        assert_eq!(simdcrypt_hasher_new(c"sha256".as_ptr(), null(), null_mut()), SimdcryptStatus::NullPointer as i32);
        let mut h = std::ptr::dangling_mut::<SimdcryptHasher>();
        assert_eq!(simdcrypt_hasher_new(c"nope".as_ptr(), null(), &mut h), SimdcryptStatus::InvalidArgument as i32);
        assert!(h.is_null(), "a failed new stores NULL");
        simdcrypt_hasher_free(null_mut());
    }
    // Messages are per thread.
    std::thread::spawn(|| assert_eq!(last_error(), "")).join().unwrap();
}

/// Salsa20/20 (an 8-byte nonce) or XSalsa20/20 (a 24-byte nonce and a 32-byte key)
/// through the C ABI, from block `counter`.
///
/// # Safety
///
/// `input` readable and `output` writable for `len` bytes (the same, disjoint or
/// overlapping buffers).
unsafe fn salsa_xor(key: &[u8], nonce: &[u8], counter: u64, input: *const u8, output: *mut u8, len: usize) -> i32 {
    assert!(nonce.len() == 8 || (nonce.len() == 24 && key.len() == 32));
    // SAFETY: key and nonce are slices of the lengths each function reads; the buffers are
    // the caller's contract.
    unsafe {
        match nonce.len() {
            8 => simdcrypt_salsa20_xor(key.as_ptr(), key.len(), nonce.as_ptr(), 20, counter, input, output, len),
            _ => simdcrypt_xsalsa20_xor(key.as_ptr(), nonce.as_ptr(), 20, counter, input, output, len),
        }
    }
}

#[test]
fn salsa20_and_xsalsa20_match_rustcrypto() {
    use cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
    let key: [u8; 32] = std::array::from_fn(|i| i as u8);
    let nonce8 = [7u8; 8];
    let nonce24: [u8; 24] = std::array::from_fn(|i| 100 + i as u8);
    // RustCrypto's keystream from block `counter` over `buf`, by the nonce's length.
    let reference = |nonce: &[u8], counter: u64, buf: &mut [u8]| {
        if nonce.len() == 8 {
            let mut c = salsa20::Salsa20::new(&key.into(), nonce.try_into().unwrap());
            c.seek(counter * 64);
            c.apply_keystream(buf);
        } else {
            let mut c = salsa20::XSalsa20::new(&key.into(), nonce.try_into().unwrap());
            c.seek(counter * 64);
            c.apply_keystream(buf);
        }
    };
    for &len in &[0usize, 1, 63, 64, 65, 1000, 70_000] {
        let plain = pseudo_random(len, 42);
        for counter in [0u64, 1, 1 << 40] {
            for (name, nonce) in [("salsa20", &nonce8[..]), ("xsalsa20", &nonce24[..])] {
                let mut want = plain.clone();
                reference(nonce, counter, &mut want);
                let mut got = vec![0u8; len];
                // SAFETY: disjoint input and output of `len` bytes.
                let rc = unsafe { salsa_xor(&key, nonce, counter, plain.as_ptr(), got.as_mut_ptr(), len) };
                assert_eq!((rc, &got), (OK, &want), "{name} len {len} counter {counter}");
                // In place.
                let mut buf = plain.clone();
                // SAFETY: input and output are the same buffer, which the functions allow.
                let rc = unsafe { salsa_xor(&key, nonce, counter, buf.as_ptr(), buf.as_mut_ptr(), len) };
                assert_eq!((rc, &buf), (OK, &want), "{name} in place, len {len} counter {counter}");
            }
        }
    }
    // Overlapping by a shift: output = input XOR keystream, as if copied first.
    let plain = pseudo_random(300, 3);
    let mut want = plain[10..].to_vec();
    salsa20::Salsa20::new(&key.into(), &nonce8.into()).apply_keystream(&mut want);
    let mut buf = plain.clone();
    // SAFETY: both ranges lie in `buf`; overlap is allowed.
    let rc = unsafe { salsa_xor(&key, &nonce8, 0, buf.as_ptr().add(10), buf.as_mut_ptr(), 290) };
    assert_eq!((rc, &buf[..290]), (OK, &want[..]));
    // SAFETY: valid pointers; a 17-byte key and 7 rounds are rejected.
    unsafe {
        let rc = simdcrypt_salsa20_xor(key.as_ptr(), 17, nonce8.as_ptr(), 20, 0, plain.as_ptr(), buf.as_mut_ptr(), 1);
        assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32, "{}", last_error());
        let rc = simdcrypt_salsa20_xor(key.as_ptr(), 32, nonce8.as_ptr(), 7, 0, plain.as_ptr(), buf.as_mut_ptr(), 1);
        assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32);
        assert!(last_error().contains("rounds"));
    }
}

#[test]
fn secretbox_matches_xsalsa20poly1305_and_rejects_forgeries() {
    use xsalsa20poly1305::aead::{Aead, KeyInit};
    let key = [0x42u8; 32];
    let nonce = [0x24u8; 24];
    let aead = xsalsa20poly1305::XSalsa20Poly1305::new(&key.into());
    for &len in &[0usize, 1, 16, 17, 1000, 65_536] {
        let plain = pseudo_random(len, len as u64 + 9);
        let want = aead.encrypt(&nonce.into(), plain.as_slice()).unwrap();
        let mut boxed = vec![0u8; len + 16];
        // SAFETY: valid key, nonce, plaintext and output of len + 16 bytes.
        let rc = unsafe {
            simdcrypt_secretbox_seal(boxed.as_mut_ptr(), len + 16, plain.as_ptr(), len, key.as_ptr(), nonce.as_ptr())
        };
        assert_eq!(rc, OK, "{}", last_error());
        // xsalsa20poly1305 puts the tag first too (NaCl's layout).
        assert_eq!(boxed, want, "seal len {len}");
        let mut opened = vec![0u8; len];
        // SAFETY: valid buffers of the stated lengths.
        let rc = unsafe {
            simdcrypt_secretbox_open(opened.as_mut_ptr(), len, boxed.as_ptr(), len + 16, key.as_ptr(), nonce.as_ptr())
        };
        assert_eq!((rc, &opened), (OK, &plain));
        // Sealing in place: the plaintext sits at the start of the output buffer.
        let mut buf = plain.clone();
        buf.resize(len + 16, 0);
        // SAFETY: plaintext and output overlap, which the function allows.
        let rc = unsafe {
            simdcrypt_secretbox_seal(buf.as_mut_ptr(), len + 16, buf.as_ptr(), len, key.as_ptr(), nonce.as_ptr())
        };
        assert_eq!((rc, &buf), (OK, &want));
        for flip in [0, 15, 16, len + 15].into_iter().filter(|&i| i < len + 16) {
            let mut forged = boxed.clone();
            forged[flip] ^= 1;
            let mut out = vec![0xAAu8; len];
            // SAFETY: valid buffers.
            let rc = unsafe {
                simdcrypt_secretbox_open(out.as_mut_ptr(), len, forged.as_ptr(), len + 16, key.as_ptr(), nonce.as_ptr())
            };
            assert_eq!(rc, SimdcryptStatus::AuthenticationFailed as i32);
            assert!(out.iter().all(|&b| b == 0), "a failed open zeroes the output");
        }
    }
    let mut out = [0u8; 4];
    // SAFETY: valid buffers; a box shorter than a tag and a wrong output length.
    unsafe {
        let rc = simdcrypt_secretbox_open(out.as_mut_ptr(), 0, [0u8; 15].as_ptr(), 15, key.as_ptr(), nonce.as_ptr());
        assert_eq!(rc, SimdcryptStatus::AuthenticationFailed as i32);
        let rc = simdcrypt_secretbox_seal(out.as_mut_ptr(), 4, [0u8; 5].as_ptr(), 5, key.as_ptr(), nonce.as_ptr());
        assert_eq!(rc, SimdcryptStatus::InvalidLength as i32);
        assert!(last_error().contains("21"), "{}", last_error());
    }
}

#[test]
fn hmac_streebog_matches_rustcrypto() {
    use hmac::{Mac, SimpleHmac};
    let key = b"some key of any length at all, longer than a block? no".to_vec();
    for &len in &[0usize, 1, 64, 1000] {
        let data = pseudo_random(len, 77);
        let mut out = [0u8; 64];
        // SAFETY: valid buffers of the stated lengths.
        let rc =
            unsafe { simdcrypt_hmac_streebog(512, key.as_ptr(), key.len(), data.as_ptr(), len, out.as_mut_ptr(), 64) };
        assert_eq!(rc, OK);
        let mut m = SimpleHmac::<streebog::Streebog512>::new_from_slice(&key).unwrap();
        m.update(&data);
        assert_eq!(out[..], m.finalize().into_bytes()[..]);
        // SAFETY: as above.
        let rc =
            unsafe { simdcrypt_hmac_streebog(256, key.as_ptr(), key.len(), data.as_ptr(), len, out.as_mut_ptr(), 32) };
        assert_eq!(rc, OK);
        let mut m = SimpleHmac::<streebog::Streebog256>::new_from_slice(&key).unwrap();
        m.update(&data);
        assert_eq!(out[..32], m.finalize().into_bytes()[..]);
    }
    let mut out = [0u8; 64];
    // SAFETY: valid buffers; 384 bits does not exist.
    let rc = unsafe { simdcrypt_hmac_streebog(384, null(), 0, null(), 0, out.as_mut_ptr(), 48) };
    assert_eq!(rc, SimdcryptStatus::InvalidArgument as i32);
}

/// The Xet file hash by path equals the library's, and `simdcrypt_hash("xet")` on the same
/// bytes prints the same text; a missing file and a wrong buffer length are errors.
#[test]
fn xet_hash_file_by_path() {
    let dir = std::env::temp_dir().join(format!("simdcrypt-capi-xet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for len in [0usize, 1, 70_000, 1 << 20] {
        let data = pseudo_random(len, 46);
        let path = dir.join(format!("{len}.bin"));
        std::fs::write(&path, &data).unwrap();
        let c_path = CString::new(path.to_str().unwrap()).unwrap();
        let mut hex = [1 as c_char; SIMDCRYPT_XET_HEX_LEN];
        for threads in [0, 2, SIMDCRYPT_THREADS_AUTO] {
            // SAFETY: a NUL-terminated path and a buffer of the length given.
            let rc = unsafe { simdcrypt_xet_hash_file(c_path.as_ptr(), threads, hex.as_mut_ptr(), hex.len()) };
            assert_eq!(rc, OK, "{}", last_error());
            // SAFETY: the function wrote a NUL-terminated string.
            let text = unsafe { CStr::from_ptr(hex.as_ptr()) }.to_str().unwrap().to_string();
            assert_eq!(text, simdcrypt::chunking::xet_hash_slice(&data).to_hex(), "{len} bytes");
            assert_eq!(hex::encode(hash_by_name("xet", None, &data, 32).unwrap()), text);
        }
    }
    let missing = CString::new(dir.join("missing.bin").to_str().unwrap()).unwrap();
    let mut hex = [0 as c_char; SIMDCRYPT_XET_HEX_LEN];
    // SAFETY: as above.
    let rc = unsafe { simdcrypt_xet_hash_file(missing.as_ptr(), 0, hex.as_mut_ptr(), hex.len()) };
    assert_eq!(rc, SimdcryptStatus::IoError as i32);
    assert!(last_error().contains("missing.bin"), "{}", last_error());
    // SAFETY: as above, with a shorter length than the buffer has.
    let rc = unsafe { simdcrypt_xet_hash_file(missing.as_ptr(), 0, hex.as_mut_ptr(), 64) };
    assert_eq!(rc, SimdcryptStatus::InvalidLength as i32);
    // SAFETY: NULL path, checked by the function.
    let rc = unsafe { simdcrypt_xet_hash_file(null(), 0, hex.as_mut_ptr(), hex.len()) };
    assert_eq!(rc, SimdcryptStatus::NullPointer as i32);
    std::fs::remove_dir_all(&dir).ok();
}
