//! The C ABI (crates/simdcrypt-capi, include/simdcrypt.h) with fuzzer-chosen algorithm
//! names, options, lengths and buffers: every buffer allocated at exactly the length
//! passed (so AddressSanitizer sees any access past it), NULL pointers wherever the
//! header says they are checked, and lengths that do not match what a function needs.
//! No call may return SIMDCRYPT_STATUS_INTERNAL (a panic caught at the boundary); one-shot
//! and streaming hashing must agree, and so must the ciphers with the Rust API.
#![no_main]

use std::ffi::{c_char, CStr, CString};
use std::ptr;

use libfuzzer_sys::fuzz_target;
use simdcrypt_capi::*;
use simdcrypt_fuzz::{array, bytes, split, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

const INTERNAL: i32 = SimdcryptStatus::Internal as i32;

fn check(rc: i32, what: &str) -> i32 {
    assert_ne!(rc, INTERNAL, "{what}: internal error: {:?}", unsafe { CStr::from_ptr(simdcrypt_last_error()) });
    assert!((INTERNAL..=0).contains(&rc), "{what}: status {rc} is not a SimdcryptStatus");
    if rc != 0 {
        // SAFETY: the last error is a valid NUL-terminated string until the next call.
        let msg = unsafe { CStr::from_ptr(simdcrypt_last_error()) };
        assert!(!msg.to_bytes().is_empty(), "{what}: status {rc} without a message");
    }
    rc
}

/// A pointer to `v`'s bytes, or NULL (one time in eight) to exercise the NULL checks.
fn ptr_or_null(null: bool, v: &[u8]) -> *const u8 {
    if null {
        ptr::null()
    } else {
        v.as_ptr()
    }
}

fn c_string(u: &mut Unstructured<'_>, choices: &[&str]) -> Result<CString> {
    let s = if u.ratio(1, 4)? {
        let n = u.int_in_range(0..=20)?;
        bytes(u, n)?.iter().copied().filter(|&b| b != 0).collect()
    } else {
        choices[u.choose_index(choices.len())?].as_bytes().to_vec()
    };
    Ok(CString::new(s).expect("no NUL"))
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let names: Vec<&str> = (0..simdcrypt_algorithm_count())
        .map(|i| unsafe { CStr::from_ptr(simdcrypt_algorithm_name(i)) }.to_str().unwrap())
        .collect();
    assert!(simdcrypt_algorithm_name(names.len()).is_null());
    let algorithm = c_string(u, &names)?;
    let key_len = [0usize, 16, 31, 32, 32, 33][u.choose_index(6)?];
    let key = bytes(u, key_len)?.to_vec();
    let context = c_string(u, &["ctx", "simdcrypt fuzz 2026 context"])?;
    let backend =
        c_string(u, &["portable", "sse41", "avx2", "avx512", "shani", "ssse3", "sse2", "avx512-gfni", "neon"])?;
    let nulls: u8 = u.arbitrary()?;
    let opts = SimdcryptOptions {
        key: if nulls & 1 != 0 { ptr::null() } else { key.as_ptr() },
        key_len: if nulls & 1 != 0 && u.ratio(1, 2)? { 0 } else { key_len },
        derive_key_context: if nulls & 2 != 0 { context.as_ptr() } else { ptr::null() },
        backend: if nulls & 4 != 0 { backend.as_ptr() } else { ptr::null() },
        threads: [0, 1, 2, 3, SIMDCRYPT_THREADS_AUTO][u.choose_index(5)?],
    };
    let opts_ptr: *const SimdcryptOptions = if nulls & 8 != 0 { ptr::null() } else { &opts };
    let out_len = if u.ratio(1, 2)? { [8usize, 16, 32, 64][u.choose_index(4)?] } else { u.int_in_range(0..=100)? };
    let null_data = u.ratio(1, 8)?;
    let null_out = u.ratio(1, 8)?;
    let cut = u.arbitrary::<u16>()? as usize;
    let op: u8 = u.arbitrary()?;
    let data = payload.to_vec();
    let data_ptr = ptr_or_null(null_data, &data);
    let mut out = vec![0u8; out_len];
    let out_ptr = if null_out { ptr::null_mut() } else { out.as_mut_ptr() };

    match op % 6 {
        0 => {
            // One-shot by name against the streaming handle.
            // SAFETY: every pointer is NULL or valid for the length passed with it.
            let rc = check(
                unsafe { simdcrypt_hash_with(algorithm.as_ptr(), opts_ptr, data_ptr, data.len(), out_ptr, out_len) },
                "simdcrypt_hash_with",
            );
            let mut h: *mut SimdcryptHasher = ptr::null_mut();
            // SAFETY: as above; `h` is a writable pointer.
            let made = check(unsafe { simdcrypt_hasher_new(algorithm.as_ptr(), opts_ptr, &mut h) }, "hasher_new");
            if made != 0 {
                assert!(h.is_null());
                return Ok(());
            }
            let at = cut % (data.len() + 1);
            let mut streamed = vec![0u8; out_len];
            // SAFETY: `h` is live; the pieces are within `data`.
            unsafe {
                check(simdcrypt_hasher_update(h, data_ptr, if null_data { 0 } else { at }), "update");
                let mut copy: *mut SimdcryptHasher = ptr::null_mut();
                check(simdcrypt_hasher_clone(h, &mut copy), "clone");
                check(simdcrypt_hasher_update(h, data.as_ptr().add(at), data.len() - at), "update");
                let fin = check(simdcrypt_hasher_finalize(h, streamed.as_mut_ptr(), out_len), "finalize");
                if rc == 0 && !null_data {
                    assert_eq!(fin, 0, "finalize refused what the one-shot accepted");
                    assert_eq!(streamed, out, "streaming and one-shot differ");
                }
                assert!(simdcrypt_hasher_output_len(h) > 0);
                assert!(!simdcrypt_hasher_algorithm(h).is_null());
                check(simdcrypt_hasher_reset(h), "reset");
                simdcrypt_hasher_free(copy);
                simdcrypt_hasher_free(h);
                assert_eq!(simdcrypt_hasher_output_len(ptr::null()), 0);
                check(simdcrypt_hasher_update(ptr::null_mut(), data.as_ptr(), 0), "update NULL");
            }
        }
        1 => {
            // BLAKE3 batch: messages cut from the data, one NULL where its length is 0.
            let lens: Vec<usize> = data.chunks(7).map(|c| usize::from(c[0]) % 50).collect();
            let mut inputs: Vec<*const u8> = Vec::new();
            let mut lengths = Vec::new();
            let mut at = 0;
            for len in lens {
                let len = len.min(data.len() - at);
                inputs.push(if len == 0 { ptr::null() } else { data[at..].as_ptr() });
                lengths.push(len);
                at += len;
            }
            let count = inputs.len();
            let mut out = vec![0u8; count * out_len];
            // SAFETY: `inputs[i]` is valid for `lengths[i]` bytes; `out` for `count * out_len`.
            let rc = check(
                unsafe {
                    simdcrypt_blake3_many(inputs.as_ptr(), lengths.as_ptr(), count, opts_ptr, out.as_mut_ptr(), out_len)
                },
                "blake3_many",
            );
            if rc == 0 && opts_ptr.is_null() {
                let mut at = 0;
                for (i, &len) in lengths.iter().enumerate() {
                    let mut want = vec![0u8; out_len];
                    ::blake3::Hasher::new().update(&data[at..at + len]).finalize_xof().fill(&mut want);
                    assert_eq!(out[i * out_len..][..out_len], want[..], "blake3_many message {i}");
                    at += len;
                }
            }
        }
        2 => {
            // SHA-256 of 64-byte blocks, with a count that may not match the buffers only
            // where the header says it is checked (NULL pointers).
            let count = (data.len() / 64) as u64;
            let mut out = vec![0u8; 32 * count as usize];
            // SAFETY: `data` holds 64 * count bytes and `out` 32 * count.
            unsafe {
                simdcrypt_sha256_many(out.as_mut_ptr(), data.as_ptr(), count);
                check(
                    simdcrypt_sha256_many_threads(out.as_mut_ptr(), data.as_ptr(), count, opts.threads),
                    "sha256_many",
                );
                simdcrypt_sha256_many(ptr::null_mut(), ptr::null(), count.max(1));
                simdcrypt_sha256_many(out.as_mut_ptr(), ptr::null(), u64::MAX);
                check(simdcrypt_sha256_many_threads(ptr::null_mut(), ptr::null(), u64::MAX, 1), "sha256_many NULL");
            }
            for (i, block) in data.chunks_exact(64).enumerate() {
                assert_eq!(out[32 * i..][..32], simdcrypt::sha256::hash(block), "sha256_many block {i}");
            }
            let leaves = &data[..data.len() / 32 * 32];
            let depth = i32::from(nulls as i8) % 70;
            let mut root = [0u8; 32];
            // SAFETY: `leaves` holds 32 * n bytes; `root` 32.
            let rc = unsafe {
                simdcrypt_merkle_root(
                    root.as_mut_ptr(),
                    ptr_or_null(null_data, leaves),
                    (leaves.len() / 32) as u64,
                    depth,
                    1,
                )
            };
            check(rc, "merkle_root");
        }
        3 | 4 => {
            // Salsa20 / XSalsa20 with a fuzzer-chosen key length, rounds and counter, in
            // place or buffer to buffer.
            let nonce: [u8; 24] = array(&mut Unstructured::new(&key))?;
            let rounds = [20u32, 12, 8, 8, 7, 0][usize::from(nulls >> 5) % 6];
            let counter = match nulls >> 6 {
                0 => 0,
                1 => u64::from(nulls),
                2 => u64::MAX - u64::from(nulls),
                _ => u64::MAX,
            };
            let mut buf = data.clone();
            let (inp, outp) =
                if cut.is_multiple_of(2) { (buf.as_ptr(), buf.as_mut_ptr()) } else { (data_ptr, buf.as_mut_ptr()) };
            let outp = if null_out { ptr::null_mut() } else { outp };
            // SAFETY: key valid for key_len bytes, nonce for 24, input/output for data.len().
            let rc = unsafe {
                if op % 6 == 3 {
                    simdcrypt_salsa20_xor(
                        ptr_or_null(nulls & 1 != 0, &key),
                        key_len,
                        nonce.as_ptr(),
                        rounds,
                        counter,
                        inp,
                        outp,
                        data.len(),
                    )
                } else {
                    let key32: [u8; 32] = array(&mut Unstructured::new(&key))?;
                    simdcrypt_xsalsa20_xor(key32.as_ptr(), nonce.as_ptr(), rounds, counter, inp, outp, data.len())
                }
            };
            check(rc, "salsa20_xor");
            if rc != 0 {
                assert_eq!(buf, data, "a refused call wrote its output");
            }
        }
        _ => {
            // Secretbox: seal into exactly len + 16 bytes (or a wrong out_len), open back.
            let k: [u8; 32] = array(&mut Unstructured::new(&key))?;
            let n: [u8; 24] = array(&mut Unstructured::new(&data))?;
            let boxed_len = if nulls & 16 != 0 { data.len() + 16 } else { out_len };
            let mut boxed = vec![0u8; boxed_len];
            // SAFETY: `boxed` holds boxed_len bytes, `data` data.len(), keys 32 and 24.
            let rc = check(
                unsafe {
                    simdcrypt_secretbox_seal(
                        boxed.as_mut_ptr(),
                        boxed_len,
                        data_ptr,
                        data.len(),
                        k.as_ptr(),
                        n.as_ptr(),
                    )
                },
                "secretbox_seal",
            );
            if rc == 0 {
                assert_eq!(boxed, simdcrypt::salsa20::secretbox::seal(&k, &n, &data));
                let mut opened = vec![0u8; data.len()];
                // SAFETY: as above.
                let rc = unsafe {
                    simdcrypt_secretbox_open(
                        opened.as_mut_ptr(),
                        opened.len(),
                        boxed.as_ptr(),
                        boxed.len(),
                        k.as_ptr(),
                        n.as_ptr(),
                    )
                };
                assert_eq!(check(rc, "secretbox_open"), 0);
                assert_eq!(opened, data);
            }
            // Arbitrary bytes as a box, into an output of a fuzzer-chosen length.
            // SAFETY: `out` holds out_len bytes (or is NULL), `data` data.len().
            let rc =
                unsafe { simdcrypt_secretbox_open(out_ptr, out_len, data_ptr, data.len(), k.as_ptr(), n.as_ptr()) };
            check(rc, "secretbox_open of arbitrary bytes");
            let bits = [256u32, 512, 0, 384][usize::from(nulls >> 6)];
            // SAFETY: key valid for key_len, data for data.len(), out for out_len.
            let rc = unsafe {
                simdcrypt_hmac_streebog(
                    bits,
                    ptr_or_null(nulls & 1 != 0, &key),
                    key_len,
                    data_ptr,
                    data.len(),
                    out_ptr,
                    out_len,
                )
            };
            check(rc, "hmac_streebog");
        }
    }
    let _: *const c_char = simdcrypt_version();
    Ok(())
}
