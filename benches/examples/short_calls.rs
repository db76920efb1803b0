//! The short-message calls of issue 48, ours and the peer's, each repeated N times, for
//! per-call instruction counts under callgrind (deterministic on a loaded machine, unlike
//! wall time): BLAKE3 of one 64-byte message against `blake3::hash`, BLAKE3 of 1024
//! messages of 64 bytes against the blake3 crate's hidden `platform::hash_many`, and
//! Salsa20/20 "new + 64 B" against libsodium (with `--features peer-libsodium`).
//!
//! Build: `cargo build --release -p simdcrypt-bench --example short_calls [--features
//! peer-libsodium,peer-blake3-no-avx512[,peer-blake3-no-avx2]]`; then, per workload,
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/short_calls WORKLOAD N`
//! at two values of N: (Ir(N2) − Ir(N1)) / (N2 − N1) is the instructions of one call, with
//! the start-up and the check (one call of each side) cancelled out.
//! `SIMDCRYPT_DISABLE=avx512` / `avx512,avx2` sets our level; the crate's is its build
//! features, as in benches/per_cpu.sh.
//!
//! WORKLOAD: `b3-ours`, `b3-crate`, `b3batch-ours`, `b3batch-crate`, `salsa-ours`,
//! `salsa-sodium`. Every run first checks that ours and the peer agree on its input.

use std::hint::black_box;

const COUNT: usize = 1024;
const IV: [u32; 8] = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];
const KEY: [u8; 32] = [7; 32];
const NONCE: [u8; 8] = [9; 8];

fn main() {
    let usage = "usage: short_calls b3-ours|b3-crate|b3batch-ours|b3batch-crate|salsa-ours|salsa-sodium N";
    let args: Vec<String> = std::env::args().collect();
    let who = args.get(1).expect(usage).as_str();
    let n: usize = args.get(2).and_then(|a| a.parse().ok()).expect(usage);
    let data: Vec<u8> = (0..COUNT * 64).map(|i| (i * 31 + 7) as u8).collect();
    let msg = &data[..64];
    let msgs: Vec<&[u8]> = data.chunks_exact(64).collect();
    let arrays: Vec<&[u8; 64]> = msgs.iter().map(|m| <&[u8; 64]>::try_from(*m).unwrap()).collect();
    let batch = simdcrypt::blake3::Batch::new(simdcrypt::blake3::Mode::Hash);
    let kernel = blake3::platform::Platform::detect();
    let mut out = vec![0u8; COUNT * 32];
    let mut buf = [0u8; 64];
    // CHUNK_START | CHUNK_END | ROOT on a one-block message: its chaining value is its digest.
    let crate_batch =
        |out: &mut [u8]| kernel.hash_many(black_box(&arrays), &IV, 0, blake3::IncrementCounter::No, 0, 1, 2 | 8, out);
    let ours_salsa = |buf: &mut [u8]| {
        simdcrypt::salsa20::Salsa20::new(black_box(&KEY), black_box(&NONCE)).xor_keystream(buf).unwrap()
    };
    match who {
        "b3-ours" | "b3-crate" => {
            assert_eq!(simdcrypt::blake3::hash(msg), *blake3::hash(msg).as_bytes());
        }
        "b3batch-ours" | "b3batch-crate" => {
            let mut theirs = vec![0u8; COUNT * 32];
            crate_batch(&mut theirs);
            batch.hash_into(&msgs, 32, &mut out).unwrap();
            assert_eq!(out, theirs);
        }
        "salsa-ours" | "salsa-sodium" => {
            #[cfg(feature = "peer-libsodium")]
            {
                simdcrypt_bench::libsodium::init();
                let mut theirs = [0u8; 64];
                simdcrypt_bench::libsodium::salsa20_xor(&mut theirs, &NONCE, &KEY);
                ours_salsa(&mut buf);
                assert_eq!(buf, theirs);
                buf = [0; 64];
            }
        }
        _ => panic!("{usage}"),
    }
    for _ in 0..n {
        match who {
            "b3-ours" => drop(black_box(simdcrypt::blake3::hash(black_box(msg)))),
            "b3-crate" => drop(black_box(blake3::hash(black_box(msg)))),
            "b3batch-ours" => batch.hash_into(black_box(&msgs), 32, &mut out).unwrap(),
            "b3batch-crate" => crate_batch(&mut out),
            "salsa-ours" => ours_salsa(black_box(&mut buf)),
            #[cfg(feature = "peer-libsodium")]
            "salsa-sodium" => {
                simdcrypt_bench::libsodium::salsa20_xor(black_box(&mut buf), black_box(&NONCE), black_box(&KEY))
            }
            _ => panic!("{who}: built without the peer-libsodium feature"),
        }
        black_box(&out);
        black_box(&buf);
    }
    println!(
        "{who} x{n}: blake3 {}, salsa20 {}",
        simdcrypt::blake3::Platform::detect().name(),
        simdcrypt::salsa20::Platform::detect().name()
    );
}
