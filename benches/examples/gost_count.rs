//! One GOST hash of a few MiB by one implementation, for instruction counts under
//! `valgrind --tool=callgrind` (deterministic where timings on a shared machine are not),
//! or a short interleaved race of the implementations with min and median per contender
//! (timed in thread CPU time on 64-bit Linux, wall time elsewhere).
//!
//! Build: `cargo build --release -p simdcrypt-bench --features peer-nettle --example gost_count`;
//! then `valgrind --tool=callgrind target/release/examples/gost_count streebog ours 4`
//! (`streebog` or `gost94`; `ours`, `nettle` or `rustcrypto`; MiB), or
//! `target/release/examples/gost_count streebog race 8 15` (MiB, rounds), or
//! `gost_count gost94 many 16384` (`hash_many` over that many 64-byte messages). `ours`
//! takes the detected backend, so `SIMDCRYPT_DISABLE=avx512,gfni` selects the fallbacks.

use std::hint::black_box;

use simdcrypt_bench::thread_cpu_seconds;

fn hash(algorithm: &str, who: &str, data: &[u8]) -> Option<Vec<u8>> {
    Some(match (algorithm, who) {
        ("streebog", "ours") => simdcrypt::streebog::Streebog512::new().update(data).finalize().to_vec(),
        ("gost94", "ours") => {
            simdcrypt::gost94::Gost94::new(simdcrypt::gost94::SBox::CryptoPro).update(data).finalize().to_vec()
        }
        ("streebog", "rustcrypto") => {
            use ::streebog::Digest;
            ::streebog::Streebog512::digest(data).to_vec()
        }
        ("gost94", "rustcrypto") => {
            use ::gost94::Digest;
            ::gost94::Gost94CryptoPro::digest(data).to_vec()
        }
        #[cfg(feature = "peer-nettle")]
        ("streebog", "nettle") => simdcrypt_bench::nettle::streebog512(data).to_vec(),
        #[cfg(feature = "peer-nettle")]
        ("gost94", "nettle") => simdcrypt_bench::nettle::gosthash94cp(data).to_vec(),
        _ => return None,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gost_count streebog|gost94 ours|nettle|rustcrypto|race MIB [ROUNDS]";
    let (algorithm, who) = (args.get(1).expect(usage), args.get(2).expect(usage));
    let mib: usize = args.get(3).and_then(|m| m.parse().ok()).expect(usage);
    let bytes = if who == "many" { mib * 64 } else { mib << 20 };
    let data: Vec<u8> = (0..bytes).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect();
    if who == "many" {
        // `gost94 many N`: hash_many over N 64-byte messages (N in place of MIB), on this
        // thread, for instruction counts of the batch path.
        let msgs: Vec<&[u8]> = data.chunks(64).collect();
        let mut out = vec![0u8; 32 * msgs.len()];
        let platform = simdcrypt::gost94::Platform::detect();
        let start = thread_cpu_seconds();
        simdcrypt::gost94::hash_many(
            &msgs,
            simdcrypt::gost94::SBox::CryptoPro,
            &mut out,
            platform,
            simdcrypt::threads::Threads::One,
        )
        .expect("hash_many");
        eprintln!("{} messages in {:.4} s thread CPU time", msgs.len(), thread_cpu_seconds() - start);
        println!("{}", out[..32].iter().map(|b| format!("{b:02x}")).collect::<String>());
        return;
    }
    if who != "race" {
        let digest = hash(algorithm, who, &data).expect(usage);
        println!("{}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>());
        return;
    }
    let rounds: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(9);
    let names = ["ours", "nettle", "rustcrypto"];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        for (name, t) in names.iter().zip(&mut times) {
            let start = thread_cpu_seconds();
            if black_box(hash(algorithm, name, &data)).is_some() {
                t.push(thread_cpu_seconds() - start);
            }
        }
    }
    println!("{algorithm}, {mib} MiB, {rounds} interleaved rounds, thread CPU time (MiB/s: best, median)");
    for (name, t) in names.iter().zip(&mut times) {
        if t.is_empty() {
            continue;
        }
        t.sort_by(f64::total_cmp);
        let (best, median) = (mib as f64 / t[0], mib as f64 / t[t.len() / 2]);
        println!("  {name:<12} {best:>8.1} {median:>8.1}");
    }
}
