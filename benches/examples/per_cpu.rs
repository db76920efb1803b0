//! One fast pass over every algorithm's headline rows: simdcrypt's public API on the
//! detected backend (so `SIMDCRYPT_DISABLE` moves it) against its peers in the same run,
//! printed as one markdown table with the CPU model and the disable list. The per-CPU
//! figures of BENCHMARKS.md come from `benches/per_cpu.sh`, which runs this at three
//! instruction-set levels and adds the command-line rows against RHash.
//!
//! `per_cpu [--quick] [--every-backend] [FILTER]`: `--quick` is a smoke run of about ten
//! seconds (its figures mean little); FILTER keeps the workloads whose name contains it.
//! `--every-backend` times, instead of the peers, every backend this CPU supports of every
//! family (BLAKE3, SHA-256, SHA-256 batches, HighwayHash, Streebog, GOST R 34.11-94,
//! Salsa20, the Gear scan of content-defined chunking), forced through the public
//! `set_platform` APIs, and lists the rows where dispatch's pick (rank order and
//! `cpu::PASS_OVER`) was not the fastest.
//!
//! Built with `--features peer-nettle,peer-libsodium` it includes Nettle and libsodium;
//! without them those peers are simply missing from the table.
//!
//! Timing: `std::time::Instant` (monotonic wall clock, one thread). Each sample is a loop of
//! calls long enough to take the sample time; the implementations of a workload take turns
//! (ours, peers, then the peers reversed and ours, ...), so a slow phase of the machine
//! falls on all of them; the per-call time is the minimum over the rounds, the median
//! is printed beside it.
//!
//! Peers are held to the level `SIMDCRYPT_DISABLE` sets where they can be: "rt, held"
//! picks at run time within the same instruction set as ours (hashtree's kernels by name,
//! highway's `SseHash`, sha2's SHA-NI, blake3 built with the bench crate's
//! `peer-blake3-no-*` features); "rt" picks from the full CPU; "fixed" is compiled code
//! (baseline x86-64 unless RUSTFLAGS or the C library's build says otherwise).

use cipher::{KeyIvInit, StreamCipher};
use highway::HighwayHash as _;
use sha2::Digest as _;
use simdcrypt::threads::Threads;
use std::hint::black_box;
use std::time::Instant;

/// How a peer chooses its code: the column that says whether it was held to the same
/// instruction set as ours at the lower levels.
#[derive(Clone, Copy)]
enum Dispatch {
    /// Picks its kernel at run time from the CPU it finds, whatever the level.
    Runtime,
    /// Picks at run time, but held to this level's instruction set (a kernel chosen by
    /// name, or the crate's cargo features): the same CPU features as ours.
    Held,
    /// One compiled code path.
    Fixed,
}

/// Whether this run's `SIMDCRYPT_DISABLE` hides `feature` (one of its comma-separated
/// names, as crates/simdcrypt/src/cpu.rs reads them) from us, and so from the peers we can
/// hold to the same level.
fn hidden(feature: &str) -> bool {
    std::env::var("SIMDCRYPT_DISABLE")
        .map(|v| v.split(',').any(|f| f.trim().eq_ignore_ascii_case(feature)))
        .unwrap_or(false)
}

/// The label of a peer that picks its kernels at run time and may use `features`: "held"
/// where this level hides some feature from us but none that the peer uses (so it runs
/// on the same instruction set as ours), plain run time otherwise.
fn runtime_using(features: &[&str]) -> Dispatch {
    let restricted = std::env::var("SIMDCRYPT_DISABLE").is_ok_and(|v| !v.trim().is_empty());
    if restricted && !features.iter().any(|f| hidden(f)) {
        Dispatch::Held
    } else {
        Dispatch::Runtime
    }
}

/// The blake3 crate's label: it uses AVX-512 and AVX2 unless the build turned them off
/// with the bench crate's `peer-blake3-no-avx512` / `peer-blake3-no-avx2` features (the
/// crate's own `no_avx512` / `no_avx2`), which benches/per_cpu.sh sets at the levels that
/// hide them from us.
fn blake3_dispatch() -> Dispatch {
    let mut uses = Vec::new();
    if !cfg!(feature = "peer-blake3-no-avx512") {
        uses.push("avx512");
    }
    if !cfg!(feature = "peer-blake3-no-avx2") {
        uses.push("avx2");
    }
    runtime_using(&uses)
}

/// One implementation of a workload: a name and one call.
struct Imp {
    name: String,
    call: Box<dyn FnMut()>,
}

/// One row of the table.
struct Workload {
    name: String,
    /// Input bytes per call, for the throughput column.
    bytes: usize,
    /// The simdcrypt backend that ran.
    backend: &'static str,
    ours: Box<dyn FnMut()>,
    peers: Vec<Imp>,
    note: Option<&'static str>,
}

fn peer(name: &str, dispatch: Dispatch, call: impl FnMut() + 'static) -> Imp {
    let tag = match dispatch {
        Dispatch::Runtime => "rt",
        Dispatch::Held => "rt, held",
        Dispatch::Fixed => "fixed",
    };
    Imp { name: format!("{name} ({tag})"), call: Box::new(call) }
}

/// Inputs live for the whole run; leaking them lets the batch workloads keep `&[u8]` lists
/// into them inside `'static` closures.
fn input(len: usize) -> &'static [u8] {
    let v: Vec<u8> = (0..len).map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8).collect();
    Box::leak(v.into_boxed_slice())
}

fn chunks(data: &'static [u8], len: usize) -> &'static [&'static [u8]] {
    Box::leak(data.chunks_exact(len).collect::<Vec<_>>().into_boxed_slice())
}

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
const HH_KEY: [u8; 32] = *b"simdcrypt highwayhash bench key!";
const SALSA_KEY: [u8; 32] = [7; 32];
const SALSA_NONCE: [u8; 8] = [9; 8];

fn size_name(n: usize) -> String {
    match n {
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} B"),
    }
}

fn blake3_rows(out: &mut Vec<Workload>) {
    let backend = simdcrypt::blake3::Platform::detect().name();
    for size in [64, 4 * KIB, MIB] {
        let d = input(size);
        assert_eq!(&simdcrypt::blake3::hash(d), blake3::hash(d).as_bytes(), "blake3 {size}");
        out.push(Workload {
            name: format!("BLAKE3 {}", size_name(size)),
            bytes: size,
            backend,
            ours: Box::new(move || keep(simdcrypt::blake3::hash(black_box(d)))),
            peers: vec![peer("blake3", blake3_dispatch(), move || keep(blake3::hash(black_box(d))))],
            note: None,
        });
    }

    const COUNT: usize = 1024;
    let data = input(COUNT * 64);
    let msgs = chunks(data, 64);
    let batch = simdcrypt::blake3::Batch::new(simdcrypt::blake3::Mode::Hash);
    let mut ours_out = vec![0u8; COUNT * 32];
    batch.hash_into(msgs, 32, &mut ours_out).unwrap();
    let expected: Vec<u8> = msgs.iter().flat_map(|m| *blake3::hash(m).as_bytes()).collect();
    assert_eq!(ours_out, expected, "blake3 batch");

    // The crate's hidden batch kernel (`blake3::platform`, doc(hidden), whole blocks only):
    // CHUNK_START | CHUNK_END | ROOT on each one-block message makes its chaining value
    // its digest.
    const IV: [u32; 8] =
        [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];
    let arrays: &'static [&'static [u8; 64]] =
        Box::leak(msgs.iter().map(|m| <&[u8; 64]>::try_from(*m).unwrap()).collect::<Vec<_>>().into_boxed_slice());
    let kernel = blake3::platform::Platform::detect();
    let (start, end_root) = (1u8, 2u8 | 8u8);
    let mut hidden_out = vec![0u8; COUNT * 32];
    kernel.hash_many(arrays, &IV, 0, blake3::IncrementCounter::No, 0, start, end_root, &mut hidden_out);
    assert_eq!(hidden_out, expected, "the blake3 crate's hidden kernel");

    let mut loop_out = vec![0u8; COUNT * 32];
    out.push(Workload {
        name: format!("BLAKE3 batch {COUNT}×64 B"),
        bytes: COUNT * 64,
        backend,
        ours: Box::new(move || batch.hash_into(black_box(msgs), 32, &mut ours_out).unwrap()),
        peers: vec![
            peer("blake3 hash loop", blake3_dispatch(), move || {
                for (m, o) in black_box(msgs).iter().zip(loop_out.chunks_exact_mut(32)) {
                    o.copy_from_slice(blake3::hash(m).as_bytes());
                }
            }),
            peer("blake3 hidden hash_many", blake3_dispatch(), move || {
                kernel.hash_many(
                    black_box(arrays),
                    &IV,
                    0,
                    blake3::IncrementCounter::No,
                    0,
                    start,
                    end_root,
                    &mut hidden_out,
                )
            }),
        ],
        note: Some(
            "the blake3 crate has no public batch API: its peers are a loop of `blake3::hash` and its doc(hidden) `platform::hash_many` kernel",
        ),
    });

    // Messages of a few chunks: our batch hashes them as one forest (a counter per chunk).
    const LONG_COUNT: usize = 512;
    const LONG_LEN: usize = 4 * KIB + 100;
    let long_msgs = chunks(input(LONG_COUNT * LONG_LEN), LONG_LEN);
    let long_batch = simdcrypt::blake3::Batch::new(simdcrypt::blake3::Mode::Hash);
    let mut long_out = vec![0u8; LONG_COUNT * 32];
    long_batch.hash_into(long_msgs, 32, &mut long_out).unwrap();
    let long_expected: Vec<u8> = long_msgs.iter().flat_map(|m| *blake3::hash(m).as_bytes()).collect();
    assert_eq!(long_out, long_expected, "blake3 batch of long messages");
    let mut long_loop_out = vec![0u8; LONG_COUNT * 32];
    out.push(Workload {
        name: format!("BLAKE3 batch {LONG_COUNT}×{LONG_LEN} B"),
        bytes: LONG_COUNT * LONG_LEN,
        backend,
        ours: Box::new(move || long_batch.hash_into(black_box(long_msgs), 32, &mut long_out).unwrap()),
        peers: vec![peer("blake3 hash loop", blake3_dispatch(), move || {
            for (m, o) in black_box(long_msgs).iter().zip(long_loop_out.chunks_exact_mut(32)) {
                o.copy_from_slice(blake3::hash(m).as_bytes());
            }
        })],
        note: None,
    });
}

/// hashtree's kernel signature: digests out, 64-byte blocks in, block count.
type HashtreeKernel = unsafe extern "C" fn(*mut u8, *const u8, u64);

// hashtree's kernels by name (its hashtree.h), linked from the library hashtree-rs builds;
// each needs the CPU features in its name.
extern "C" {
    fn hashtree_sha256_avx2_x8(output: *mut u8, input: *const u8, count: u64);
    fn hashtree_sha256_shani_x2(output: *mut u8, input: *const u8, count: u64);
    fn hashtree_sha256_avx_x4(output: *mut u8, input: *const u8, count: u64);
}

fn sha256_rows(out: &mut Vec<Workload>) {
    let backend = simdcrypt::sha256::Platform::detect().name();
    for size in [64, MIB] {
        let d = input(size);
        assert_eq!(simdcrypt::sha256::hash(d), <[u8; 32]>::from(sha2::Sha256::digest(d)), "sha256 {size}");
        out.push(Workload {
            name: format!("SHA-256 {}", size_name(size)),
            bytes: size,
            backend,
            ours: Box::new(move || keep(simdcrypt::sha256::hash(black_box(d)))),
            peers: vec![peer("sha2", runtime_using(&["sha"]), move || keep(sha2::Sha256::digest(black_box(d))))],
            note: None,
        });
    }

    const BLOCKS: usize = 1024;
    let data = input(BLOCKS * 64);
    let expected: Vec<u8> = data.chunks_exact(64).flat_map(|b| <[u8; 32]>::from(sha2::Sha256::digest(b))).collect();
    let mut ours_out = vec![0u8; BLOCKS * 32];
    simdcrypt::sha256::hash_blocks(data, &mut ours_out).unwrap();
    assert_eq!(ours_out, expected, "sha256 hash_blocks");
    // hashtree picks its kernel once, here. (The C function returns void, so the binding's
    // i32 result means nothing; the digests are checked below.)
    let _ = hashtree_rs::init();
    let mut ht_out = vec![0u8; BLOCKS * 32];
    // hashtree_rs::hash does not check lengths: `ht_out` is exactly BLOCKS digests.
    hashtree_rs::hash(&mut ht_out, data, BLOCKS);
    assert_eq!(ht_out, expected, "hashtree");
    let mut loop_out = vec![0u8; BLOCKS * 32];
    let mut peers = Vec::new();
    if hidden("avx512") {
        // Held to this level: hashtree's kernels by name, each where the level (and the
        // CPU) has what it needs.
        let mut kernels: Vec<(&str, HashtreeKernel)> = Vec::new();
        if !hidden("avx2") && std::arch::is_x86_feature_detected!("avx2") {
            kernels.push(("avx2_x8", hashtree_sha256_avx2_x8));
        }
        if !hidden("sha") && std::arch::is_x86_feature_detected!("sha") {
            kernels.push(("shani_x2", hashtree_sha256_shani_x2));
        }
        if std::arch::is_x86_feature_detected!("avx") {
            kernels.push(("avx_x4", hashtree_sha256_avx_x4));
        }
        for (name, kernel) in kernels {
            let mut o = vec![0u8; BLOCKS * 32];
            // SAFETY: the CPU has the features this kernel is named for (checked above);
            // `o` holds BLOCKS digests and `data` BLOCKS blocks.
            unsafe { kernel(o.as_mut_ptr(), data.as_ptr(), BLOCKS as u64) };
            assert_eq!(o, expected, "hashtree {name}");
            peers.push(peer(&format!("hashtree-rs {name}"), Dispatch::Held, move || {
                // SAFETY: as above.
                unsafe { kernel(o.as_mut_ptr(), black_box(data).as_ptr(), BLOCKS as u64) }
            }));
        }
    } else {
        peers.push(peer("hashtree-rs", Dispatch::Runtime, move || {
            hashtree_rs::hash(&mut ht_out, black_box(data), BLOCKS)
        }));
    }
    peers.push(peer("sha2 loop", runtime_using(&["sha"]), move || {
        for (b, o) in black_box(data).chunks_exact(64).zip(loop_out.chunks_exact_mut(32)) {
            o.copy_from_slice(&sha2::Sha256::digest(b));
        }
    }));
    out.push(Workload {
        name: format!("SHA-256 hash_blocks {BLOCKS}×64 B"),
        bytes: BLOCKS * 64,
        backend: simdcrypt::sha256::BatchPlatform::detect().name(),
        ours: Box::new(move || simdcrypt::sha256::hash_blocks(black_box(data), &mut ours_out).unwrap()),
        peers,
        note: None,
    });
}

fn highway_rows(out: &mut Vec<Workload>) {
    let backend = simdcrypt::highwayhash::Platform::detect().name();
    let key = highway::Key(simdcrypt::highwayhash::key_words(&HH_KEY));
    for size in [64, MIB] {
        let d = input(size);
        assert_eq!(
            simdcrypt::highwayhash::hash64(&HH_KEY, d),
            highway::HighwayHasher::new(key).hash64(d),
            "highwayhash {size}"
        );
        out.push(Workload {
            name: format!("HighwayHash-64 {}", size_name(size)),
            bytes: size,
            backend,
            ours: Box::new(move || keep(simdcrypt::highwayhash::hash64(black_box(&HH_KEY), black_box(d)))),
            // The crate's AVX2 code where this level has AVX2, else its SSE4.1 code by name.
            peers: vec![if hidden("avx2") {
                peer("highway SseHash", Dispatch::Held, move || {
                    keep(highway::SseHash::new(black_box(key)).expect("the CPU has SSE4.1").hash64(black_box(d)))
                })
            } else {
                peer("highway", runtime_using(&["avx2"]), move || {
                    keep(highway::HighwayHasher::new(black_box(key)).hash64(black_box(d)))
                })
            }],
            note: None,
        });
    }
}

fn streebog_rows(out: &mut Vec<Workload>) {
    use ::streebog::Digest as _;
    use simdcrypt::streebog::{self, Bits, Platform};
    let backend = Platform::detect().name();
    for size in [64, MIB] {
        let d = input(size);
        let expected = ::streebog::Streebog512::digest(d).to_vec();
        assert_eq!(streebog::hash512(d).to_vec(), expected, "streebog512 {size}");
        #[allow(unused_mut)]
        let mut peers = vec![peer("RustCrypto streebog", Dispatch::Fixed, move || {
            keep(::streebog::Streebog512::digest(black_box(d)))
        })];
        #[cfg(feature = "peer-nettle")]
        {
            assert_eq!(simdcrypt_bench::nettle::streebog512(d).to_vec(), expected, "nettle streebog512");
            peers.push(peer("Nettle", Dispatch::Fixed, move || {
                keep(simdcrypt_bench::nettle::streebog512(black_box(d)))
            }));
        }
        out.push(Workload {
            name: format!("Streebog-512 {}", size_name(size)),
            bytes: size,
            backend,
            ours: Box::new(move || keep(streebog::hash512(black_box(d)))),
            peers,
            note: None,
        });
    }

    const COUNT: usize = 1024;
    let data = input(COUNT * 64);
    let msgs = chunks(data, 64);
    let expected: Vec<u8> = msgs.iter().flat_map(|m| ::streebog::Streebog256::digest(m).to_vec()).collect();
    let mut ours_out = vec![0u8; COUNT * 32];
    streebog::hash_many(msgs, Bits::B256, &mut ours_out, Platform::detect(), Threads::One).unwrap();
    assert_eq!(ours_out, expected, "streebog256 hash_many");
    let mut rc_out = vec![0u8; COUNT * 32];
    #[allow(unused_mut)]
    let mut peers = vec![peer("RustCrypto streebog loop", Dispatch::Fixed, move || {
        for (m, o) in black_box(msgs).iter().zip(rc_out.chunks_exact_mut(32)) {
            o.copy_from_slice(&::streebog::Streebog256::digest(m));
        }
    })];
    #[cfg(feature = "peer-nettle")]
    {
        let mut n_out = vec![0u8; COUNT * 32];
        let n: Vec<u8> = msgs.iter().flat_map(|m| simdcrypt_bench::nettle::streebog256(m)).collect();
        assert_eq!(n, expected, "nettle streebog256");
        peers.push(peer("Nettle loop", Dispatch::Fixed, move || {
            for (m, o) in black_box(msgs).iter().zip(n_out.chunks_exact_mut(32)) {
                o.copy_from_slice(&simdcrypt_bench::nettle::streebog256(m));
            }
        }));
    }
    out.push(Workload {
        name: format!("Streebog-256 hash_many {COUNT}×64 B"),
        bytes: COUNT * 64,
        backend,
        ours: Box::new(move || {
            streebog::hash_many(black_box(msgs), Bits::B256, &mut ours_out, Platform::detect(), Threads::One).unwrap()
        }),
        peers,
        note: None,
    });
}

fn gost94_rows(out: &mut Vec<Workload>) {
    use gost94::Digest as _;
    use simdcrypt::gost94::{self as ours, Platform, SBox};
    let backend = Platform::detect().name();
    let d = input(MIB);
    let expected = gost94::Gost94CryptoPro::digest(d).to_vec();
    assert_eq!(ours::hash(SBox::CryptoPro, d).to_vec(), expected, "gost94 1 MiB");
    #[allow(unused_mut)]
    let mut peers =
        vec![peer("RustCrypto gost94", Dispatch::Fixed, move || keep(gost94::Gost94CryptoPro::digest(black_box(d))))];
    #[cfg(feature = "peer-nettle")]
    {
        assert_eq!(simdcrypt_bench::nettle::gosthash94cp(d).to_vec(), expected, "nettle gosthash94cp");
        peers.push(peer("Nettle", Dispatch::Fixed, move || keep(simdcrypt_bench::nettle::gosthash94cp(black_box(d)))));
    }
    out.push(Workload {
        name: "GOST R 34.11-94 CryptoPro 1 MiB".into(),
        bytes: MIB,
        backend,
        ours: Box::new(move || keep(ours::hash(SBox::CryptoPro, black_box(d)))),
        peers,
        note: None,
    });

    const COUNT: usize = 4096;
    let data = input(COUNT * 64);
    let msgs = chunks(data, 64);
    let expected: Vec<u8> = msgs.iter().flat_map(|m| gost94::Gost94CryptoPro::digest(m).to_vec()).collect();
    let mut ours_out = vec![0u8; COUNT * 32];
    ours::hash_many(msgs, SBox::CryptoPro, &mut ours_out, Platform::detect(), Threads::One).unwrap();
    assert_eq!(ours_out, expected, "gost94 hash_many");
    let mut rc_out = vec![0u8; COUNT * 32];
    #[allow(unused_mut)]
    let mut peers = vec![peer("RustCrypto gost94 loop", Dispatch::Fixed, move || {
        for (m, o) in black_box(msgs).iter().zip(rc_out.chunks_exact_mut(32)) {
            o.copy_from_slice(&gost94::Gost94CryptoPro::digest(m));
        }
    })];
    #[cfg(feature = "peer-nettle")]
    {
        let mut n_out = vec![0u8; COUNT * 32];
        peers.push(peer("Nettle loop", Dispatch::Fixed, move || {
            for (m, o) in black_box(msgs).iter().zip(n_out.chunks_exact_mut(32)) {
                o.copy_from_slice(&simdcrypt_bench::nettle::gosthash94cp(m));
            }
        }));
    }
    out.push(Workload {
        name: format!("GOST R 34.11-94 hash_many {COUNT}×64 B"),
        bytes: COUNT * 64,
        backend,
        ours: Box::new(move || {
            ours::hash_many(black_box(msgs), SBox::CryptoPro, &mut ours_out, Platform::detect(), Threads::One).unwrap()
        }),
        peers,
        note: None,
    });
}

/// The key and nonce as every implementation gets them: through `black_box`, as a real key
/// read at run time. Without it, a peer whose whole path inlines here folds the constant
/// key into immediates and skips its key set-up, which no real caller can do.
fn salsa_key_nonce() -> (&'static [u8; 32], &'static [u8; 8]) {
    (black_box(&SALSA_KEY), black_box(&SALSA_NONCE))
}

fn salsa20_rows(out: &mut Vec<Workload>) {
    use simdcrypt::salsa20::{Platform, Salsa20};
    #[cfg(feature = "peer-libsodium")]
    simdcrypt_bench::libsodium::init();
    let backend = Platform::detect().name();
    for size in [64, MIB] {
        let rustcrypto = |buf: &mut [u8]| {
            let (key, nonce) = salsa_key_nonce();
            salsa20::Salsa20::new(key.into(), nonce.into()).apply_keystream(buf);
        };
        let ours = |buf: &mut [u8]| {
            let (key, nonce) = salsa_key_nonce();
            Salsa20::new(key, nonce).xor_keystream(buf).unwrap();
        };
        let mut expected = vec![0u8; size];
        rustcrypto(&mut expected);
        let mut check = vec![0u8; size];
        ours(&mut check);
        assert!(check == expected, "salsa20 {size}");
        let mut rc_buf = vec![0u8; size];
        #[allow(unused_mut)]
        let mut peers = vec![peer("RustCrypto salsa20", Dispatch::Fixed, move || rustcrypto(black_box(&mut rc_buf)))];
        #[cfg(feature = "peer-libsodium")]
        {
            use simdcrypt_bench::libsodium::salsa20_xor;
            let mut s = vec![0u8; size];
            salsa20_xor(&mut s, &SALSA_NONCE, &SALSA_KEY);
            assert!(s == expected, "libsodium salsa20 {size}");
            peers.push(peer("libsodium", runtime_using(&["avx2"]), move || {
                let (key, nonce) = salsa_key_nonce();
                salsa20_xor(black_box(&mut s), nonce, key)
            }));
        }
        let mut buf = vec![0u8; size];
        out.push(Workload {
            name: format!("Salsa20/20 new + {}", size_name(size)),
            bytes: size,
            backend,
            ours: Box::new(move || ours(black_box(&mut buf))),
            peers,
            note: None,
        });
    }
}

/// Keeps a result alive (and unknown to the optimizer) without a `drop` of a `Copy` value.
fn keep<T>(x: T) {
    black_box(x);
}

/// Seconds per call of `iters` calls.
fn sample(f: &mut dyn FnMut(), iters: u64) -> f64 {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed().as_secs_f64() / iters as f64
}

/// Calls per sample so that one sample takes about `target` seconds (at least one call);
/// the growing trial loops are the warm-up.
fn calibrate(f: &mut dyn FnMut(), target: f64) -> u64 {
    let mut n = 1u64;
    loop {
        let t = sample(f, n);
        if t * n as f64 >= target / 8.0 || n >= 1 << 32 {
            return ((target / t).ceil() as u64).max(1);
        }
        n *= 4;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// (minimum, median) seconds per call of each implementation, ours first.
fn measure(w: &mut Workload, rounds: usize, target: f64) -> Vec<(f64, f64)> {
    let mut calls: Vec<&mut dyn FnMut()> = vec![&mut *w.ours];
    calls.extend(w.peers.iter_mut().map(|p| &mut *p.call as &mut dyn FnMut()));
    measure_calls(calls, rounds, target)
}

/// (min, median) seconds per call of each of `calls`, taking turns over `rounds` rounds.
fn measure_calls(mut calls: Vec<&mut dyn FnMut()>, rounds: usize, target: f64) -> Vec<(f64, f64)> {
    let iters: Vec<u64> = calls.iter_mut().map(|f| calibrate(&mut **f, target)).collect();
    let mut times = vec![Vec::with_capacity(rounds); calls.len()];
    for round in 0..rounds {
        let order: Vec<usize> =
            if round % 2 == 0 { (0..calls.len()).collect() } else { (0..calls.len()).rev().collect() };
        for i in order {
            times[i].push(sample(&mut *calls[i], iters[i]));
        }
    }
    times
        .iter_mut()
        .map(|t| {
            let min = t.iter().copied().fold(f64::INFINITY, f64::min);
            (min, median(t))
        })
        .collect()
}

fn fmt_time(s: f64) -> String {
    match s {
        s if s < 1e-6 => format!("{:.1} ns", s * 1e9),
        s if s < 1e-3 => format!("{:.2} µs", s * 1e6),
        s => format!("{:.2} ms", s * 1e3),
    }
}

/// A field of `lscpu`'s output, if lscpu runs.
fn lscpu_field(text: &str, field: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        (key.trim() == field).then(|| value.trim().to_string())
    })
}

/// The run's header; `peers`: the peer table's notes (not for `--every-backend`).
fn header(quick: bool, rounds: usize, target: f64, peers: bool) {
    let lscpu = std::process::Command::new("lscpu")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = lscpu_field(&lscpu, "Model name").unwrap_or_else(|| "unknown (no lscpu)".into());
    let family = lscpu_field(&lscpu, "CPU family").unwrap_or_else(|| "?".into());
    let model_no = lscpu_field(&lscpu, "Model").unwrap_or_else(|| "?".into());
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags"))
        .map(|f| f.trim_start_matches([' ', '\t', ':']).split(' ').collect())
        .unwrap_or_default();
    let flag_summary: Vec<String> = ["avx512f", "avx512vbmi", "gfni", "sha_ni", "avx2"]
        .iter()
        .map(|f| format!("{f} {}", if flags.contains(f) { "yes" } else { "no" }))
        .collect();
    let disable = std::env::var("SIMDCRYPT_DISABLE").map(|v| format!("`{v}`")).unwrap_or_else(|_| "unset".into());
    let seen: Vec<&str> = simdcrypt::cpu::features().iter().map(|f| f.name()).collect();
    println!("### simdcrypt per-CPU run{}", if quick { " (--quick: smoke run, not a result)" } else { "" });
    println!();
    println!("- CPU: {model} (family {family}, model {model_no}); flags: {}", flag_summary.join(", "));
    println!("- SIMDCRYPT_DISABLE: {disable}; simdcrypt uses: {}", seen.join(" "));
    if let Some(problem) = simdcrypt::cpu::disable_list_problem() {
        println!("- WARNING: {problem}");
    }
    println!(
        "- timing: `Instant` (wall clock), one thread; per call = min over {rounds} interleaved rounds of ~{:.0} ms samples (median in parentheses); {}",
        target * 1e3,
        if peers { "ratio = best peer's min / ours" } else { "ratio = the fastest backend's min / this one's" }
    );
    if !peers {
        println!();
        return;
    }
    println!(
        "- peers: (rt, held) = picks its kernels at run time within this level's instruction set (as ours); (rt) = picks from the full CPU, ignoring SIMDCRYPT_DISABLE; (fixed) = compiled code, no run-time dispatch"
    );
    #[cfg(not(feature = "peer-nettle"))]
    println!("- built without `peer-nettle`: no Nettle rows");
    #[cfg(not(feature = "peer-libsodium"))]
    println!("- built without `peer-libsodium`: no libsodium rows");
    println!();
}

/// One workload of `--every-backend`: the same call on each backend this CPU supports.
struct BackendRow {
    family: &'static str,
    name: String,
    bytes: usize,
    /// The backend dispatch picks on this CPU (`Platform::detect`).
    picked: &'static str,
    /// Each supported backend (best first, as `all_supported` lists them) and its call.
    calls: Vec<Imp>,
}

/// One [`BackendRow`] per size for a family whose backends are `platforms` (with their
/// names and the detected one): `run(platform, input, out)` makes one call and writes its
/// result to `out`, which must be the same on every backend (checked before timing).
fn backend_rows<P: Copy + 'static>(
    rows: &mut Vec<BackendRow>,
    family: &'static str,
    what: &str,
    (platforms, name, picked): (Vec<P>, fn(P) -> &'static str, &'static str),
    sizes: &[usize],
    run: impl Fn(P, &[u8], &mut Vec<u8>) + Copy + 'static,
) {
    for &size in sizes {
        let data = input(size);
        let mut calls = Vec::new();
        let mut expected: Option<Vec<u8>> = None;
        for &p in &platforms {
            let mut out = Vec::new();
            run(p, data, &mut out);
            match &expected {
                Some(e) => {
                    assert!(*e == out, "{family} {what} {size}: {} differs from {}", name(p), name(platforms[0]))
                }
                None => expected = Some(out.clone()),
            }
            calls.push(Imp { name: name(p).to_string(), call: Box::new(move || run(p, black_box(data), &mut out)) });
        }
        rows.push(BackendRow { family, name: format!("{what} {}", size_name(size)), bytes: size, picked, calls });
    }
}

/// What [`backend_rows`] needs of a family's `Platform` type.
macro_rules! platforms {
    ($p:ty) => {
        (<$p>::all_supported(), <$p>::name as fn($p) -> &'static str, <$p>::detect().name())
    };
}

/// `--every-backend`: every backend of every family on this CPU, forced through the public
/// `set_platform` APIs, one or two sizes each, as a table with the backend dispatch picks
/// and the fastest, so that a CPU of another kind confirms or corrects the rank order and
/// `cpu::PASS_OVER`.
fn every_backend(quick: bool, rounds: usize, target: f64, filter: Option<&str>) {
    use simdcrypt::{blake3, chunking, gost94, highwayhash, salsa20, sha256, streebog};
    let mut rows = Vec::new();
    let sizes: &[usize] = &[64, MIB];
    backend_rows(&mut rows, "blake3", "BLAKE3 Hasher", platforms!(blake3::Platform), sizes, |p, d, out| {
        *out = blake3::Hasher::new().set_platform(p).update(d).finalize().to_vec()
    });
    let msgs = chunks(input(64 * KIB), 64);
    let batch = "BLAKE3 Batch of 64-byte messages,";
    backend_rows(&mut rows, "blake3", batch, platforms!(blake3::Platform), &[64 * KIB], move |p, _, out| {
        out.resize(msgs.len() * 32, 0);
        blake3::Batch::new(blake3::Mode::Hash).set_platform(p).hash_into(black_box(msgs), 32, out).unwrap()
    });
    backend_rows(&mut rows, "sha256", "SHA-256", platforms!(sha256::Platform), sizes, |p, d, out| {
        *out = sha256::Sha256::new().set_platform(p).update(d).finalize().to_vec()
    });
    backend_rows(
        &mut rows,
        "sha256-batch",
        "SHA-256 blocks,",
        platforms!(sha256::BatchPlatform),
        &[64 * KIB],
        |p, d, out| {
            out.resize(d.len() / 2, 0);
            sha256::BlockBatch::new().set_platform(p).hash_into(d, out).unwrap()
        },
    );
    backend_rows(&mut rows, "highwayhash", "HighwayHash-256", platforms!(highwayhash::Platform), sizes, |p, d, out| {
        let words = highwayhash::HighwayHasher::new(&HH_KEY).set_platform(p).update(d).finalize256();
        *out = words.iter().flat_map(|w| w.to_le_bytes()).collect()
    });
    backend_rows(
        &mut rows,
        "streebog",
        "Streebog-256",
        platforms!(streebog::Platform),
        &[64, 64 * KIB],
        |p, d, out| *out = streebog::Streebog256::new().set_platform(p).update(d).finalize().to_vec(),
    );
    backend_rows(&mut rows, "gost94", "GOST R 34.11-94", platforms!(gost94::Platform), &[64, 64 * KIB], |p, d, out| {
        *out = gost94::Gost94::new(gost94::SBox::CryptoPro).set_platform(p).update(d).finalize().to_vec()
    });
    backend_rows(&mut rows, "salsa20", "Salsa20/20 new +", platforms!(salsa20::Platform), sizes, |p, d, out| {
        out.clear();
        out.extend_from_slice(d);
        let (key, nonce) = salsa_key_nonce();
        salsa20::Salsa20::new(key, nonce).set_platform(p).xor_keystream(out).unwrap()
    });
    // The Gear scan (content-defined chunking): Xet's cut points, no chunk digests, so that
    // the row times the scan kernel and the cut rule alone; on pseudo-random bytes, where
    // cut points fall as in real data (the patterned input would put them anywhere).
    let random: &'static [u8] = Box::leak(simdcrypt_bench::pseudo_random_bytes(16 * MIB).into_boxed_slice());
    let gear = "Xet chunk boundaries (Gear scan), random";
    backend_rows(&mut rows, "gear", gear, platforms!(chunking::Platform), &[16 * MIB], move |p, _, out| {
        let mut opts = chunking::ChunkOptions::new(chunking::Chunker::Xet, chunking::ChunkDigest::None);
        opts.platform = Some(p);
        *out = chunking::chunk_slice(black_box(random), &opts).iter().flat_map(|c| c.offset.to_le_bytes()).collect()
    });
    if let Some(f) = filter {
        rows.retain(|r| r.name.to_lowercase().contains(f) || r.family.contains(f));
    }

    header(quick, rounds, target, false);
    println!("Every backend this CPU supports, forced by `set_platform` (one thread); \"picked\" = what dispatch chooses here (rank order and `cpu::PASS_OVER`).");
    for report in simdcrypt::backend_report() {
        for (backend, why) in &report.passed_over {
            println!("- {}: passes over {backend} here: {why}", report.algorithm);
        }
    }
    println!();
    println!("| family | workload | backend | per call (median) | MB/s | fastest / this | |");
    println!("| --- | --- | --- | --- | ---: | ---: | --- |");
    let mut disagreements = Vec::new();
    for row in &mut rows {
        let times =
            measure_calls(row.calls.iter_mut().map(|c| &mut *c.call as &mut dyn FnMut()).collect(), rounds, target);
        let fastest = (0..times.len()).min_by(|&a, &b| times[a].0.total_cmp(&times[b].0)).expect("portable at least");
        for (imp, &(min, med)) in row.calls.iter().zip(&times) {
            let mut mark = Vec::new();
            if imp.name == row.picked {
                mark.push("picked");
            }
            if imp.name == row.calls[fastest].name {
                mark.push("fastest");
            }
            println!(
                "| {} | {} | {} | {} ({}) | {:.0} | {:.2}× | {} |",
                row.family,
                row.name,
                imp.name,
                fmt_time(min),
                fmt_time(med),
                row.bytes as f64 / min / 1e6,
                times[fastest].0 / min,
                mark.join(", ")
            );
        }
        let picked = row.calls.iter().position(|c| c.name == row.picked).expect("the picked backend is supported");
        if picked != fastest {
            disagreements.push(format!(
                "- {} {}: dispatch picks {} ({}), {} measured {:.2}× as fast",
                row.family,
                row.name,
                row.picked,
                fmt_time(times[picked].0),
                row.calls[fastest].name,
                times[picked].0 / times[fastest].0
            ));
        }
    }
    println!();
    if disagreements.is_empty() {
        println!("Dispatch picked the fastest backend in every row.");
    } else {
        println!("Rows where another backend measured faster than dispatch's pick (rerun on a quiet machine before changing `cpu::PASS_OVER` or a rank; a few percent is noise):");
        for d in disagreements {
            println!("{d}");
        }
    }
}

fn main() {
    let mut quick = false;
    let mut every = false;
    let mut filter = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quick" => quick = true,
            "--every-backend" => every = true,
            "-h" | "--help" => {
                println!("usage: per_cpu [--quick] [--every-backend] [FILTER]  (FILTER: keep workloads whose name contains it)");
                return;
            }
            other => filter = Some(other.to_lowercase()),
        }
    }
    let (rounds, target) = if quick { (3, 0.004) } else { (7, 0.04) };
    if every {
        let started = Instant::now();
        every_backend(quick, rounds, target, filter.as_deref());
        println!("Measured in {:.1} s.", started.elapsed().as_secs_f64());
        return;
    }

    let mut workloads = Vec::new();
    blake3_rows(&mut workloads);
    sha256_rows(&mut workloads);
    highway_rows(&mut workloads);
    streebog_rows(&mut workloads);
    gost94_rows(&mut workloads);
    salsa20_rows(&mut workloads);
    if let Some(f) = &filter {
        workloads.retain(|w| w.name.to_lowercase().contains(f.as_str()));
    }

    header(quick, rounds, target, true);
    println!("| workload | simdcrypt backend | simdcrypt per call | simdcrypt MB/s | best peer | best peer per call | best peer / ours | other peers |");
    println!("| --- | --- | --- | ---: | --- | --- | ---: | --- |");
    let started = Instant::now();
    let mut notes = Vec::new();
    for w in &mut workloads {
        let times = measure(w, rounds, target);
        let (ours_min, ours_med) = times[0];
        let best = (1..times.len()).min_by(|&a, &b| times[a].0.total_cmp(&times[b].0));
        let others: Vec<String> = (1..times.len())
            .filter(|&i| Some(i) != best)
            .map(|i| format!("{} {}", w.peers[i - 1].name, fmt_time(times[i].0)))
            .collect();
        let (best_name, best_time, ratio) = match best {
            Some(b) => (
                w.peers[b - 1].name.clone(),
                format!("{} ({})", fmt_time(times[b].0), fmt_time(times[b].1)),
                format!("{:.2}×", times[b].0 / ours_min),
            ),
            None => ("none".into(), "-".into(), "-".into()),
        };
        let mut name = w.name.clone();
        if let Some(note) = w.note {
            notes.push(note);
            name.push_str(&format!(" [{}]", notes.len()));
        }
        println!(
            "| {name} | {} | {} ({}) | {:.0} | {best_name} | {best_time} | {ratio} | {} |",
            w.backend,
            fmt_time(ours_min),
            fmt_time(ours_med),
            w.bytes as f64 / ours_min / 1e6,
            others.join("; ")
        );
    }
    println!();
    for (i, note) in notes.iter().enumerate() {
        println!("[{}] {note}", i + 1);
    }
    println!("Measured in {:.1} s.", started.elapsed().as_secs_f64());
}
