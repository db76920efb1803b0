//! Benchmarks only: see benches/. This library holds what several benches share: the
//! bindings of C peers (behind opt-in features, so that checking the benches needs no
//! system library), and the timer of the examples.
//!
//! ## The benches folder
//!
//! benches/ holds the criterion benchmarks against the peers (`publish = false`);
//! benches/python/ holds three scripts for what the Python harness
//! (crates/simdcrypt-py/python/simdcrypt/bench) does not time. benches/per_cpu.sh runs
//! benches/examples/per_cpu.rs (every algorithm's headline rows against its peers in one run)
//! and the CLI against rhash, at three SIMDCRYPT_DISABLE levels; other examples race one
//! workload (gost_count, salsa_short, blake3_race) for A/B builds and callgrind; short_calls
//! repeats issue 48's short calls (BLAKE3 64 B and batches, Salsa20 new + 64 B), ours and
//! the peers', for per-call instruction counts.

#[cfg(feature = "peer-nettle")]
pub mod nettle {
    //! Nettle's Streebog and GOST R 34.11-94 (libnettle 3.8, nettle/streebog.h and
    //! nettle/gosthash94.h). The contexts are opaque here: a buffer larger and more aligned
    //! than Nettle's structs (streebog512_ctx is 260 bytes, gosthash94_ctx 112).

    use std::ffi::c_void;

    #[repr(C, align(16))]
    struct Ctx([u8; 512]);

    #[link(name = "nettle")]
    extern "C" {
        fn nettle_streebog512_init(ctx: *mut c_void);
        fn nettle_streebog256_init(ctx: *mut c_void);
        fn nettle_streebog512_update(ctx: *mut c_void, len: usize, data: *const u8);
        fn nettle_streebog512_digest(ctx: *mut c_void, len: usize, out: *mut u8);
        fn nettle_streebog256_digest(ctx: *mut c_void, len: usize, out: *mut u8);
        fn nettle_gosthash94_init(ctx: *mut c_void);
        fn nettle_gosthash94cp_update(ctx: *mut c_void, len: usize, data: *const u8);
        fn nettle_gosthash94cp_digest(ctx: *mut c_void, len: usize, out: *mut u8);
    }

    /// Nettle's Streebog-512 of `data`.
    pub fn streebog512(data: &[u8]) -> [u8; 64] {
        let mut ctx = Ctx([0; 512]);
        let mut out = [0u8; 64];
        let c = ctx.0.as_mut_ptr().cast();
        // SAFETY: `ctx` is larger and more aligned than struct streebog512_ctx; `data` and
        // `out` are valid for the lengths passed.
        unsafe {
            nettle_streebog512_init(c);
            nettle_streebog512_update(c, data.len(), data.as_ptr());
            nettle_streebog512_digest(c, out.len(), out.as_mut_ptr());
        }
        out
    }

    /// Nettle's Streebog-256 of `data` (its update is Streebog-512's).
    pub fn streebog256(data: &[u8]) -> [u8; 32] {
        let mut ctx = Ctx([0; 512]);
        let mut out = [0u8; 32];
        let c = ctx.0.as_mut_ptr().cast();
        // SAFETY: as above.
        unsafe {
            nettle_streebog256_init(c);
            nettle_streebog512_update(c, data.len(), data.as_ptr());
            nettle_streebog256_digest(c, out.len(), out.as_mut_ptr());
        }
        out
    }

    /// Nettle's GOST R 34.11-94 with the CryptoPro parameters (gosthash94cp) of `data`.
    pub fn gosthash94cp(data: &[u8]) -> [u8; 32] {
        let mut ctx = Ctx([0; 512]);
        let mut out = [0u8; 32];
        let c = ctx.0.as_mut_ptr().cast();
        // SAFETY: as above (gosthash94cp_init is a macro for gosthash94_init).
        unsafe {
            nettle_gosthash94_init(c);
            nettle_gosthash94cp_update(c, data.len(), data.as_ptr());
            nettle_gosthash94cp_digest(c, out.len(), out.as_mut_ptr());
        }
        out
    }
}

#[cfg(feature = "peer-libsodium")]
pub mod libsodium {
    //! libsodium's Salsa20/20 (`crypto_stream_salsa20_xor`, which picks its SSE2 or AVX2
    //! code at run time).

    // By its full file name: Debian's runtime package has no `libsodium.so` symlink (that
    // comes with libsodium-dev).
    #[link(name = "libsodium.so.23", kind = "dylib", modifiers = "+verbatim")]
    extern "C" {
        fn sodium_init() -> i32;
        fn crypto_stream_salsa20_xor(c: *mut u8, m: *const u8, mlen: u64, n: *const u8, k: *const u8) -> i32;
    }

    /// Initialises libsodium (its CPU detection); call once before [`salsa20_xor`].
    pub fn init() {
        // SAFETY: sodium_init takes no arguments and may be called more than once.
        assert!(unsafe { sodium_init() } >= 0, "sodium_init failed");
    }

    /// In-place Salsa20/20 from block 0 (libsodium allows c == m).
    pub fn salsa20_xor(buf: &mut [u8], nonce: &[u8; 8], key: &[u8; 32]) {
        // SAFETY: c and m point at buf.len() valid bytes (the same buffer, which libsodium
        // allows); n and k at 8 and 32 bytes.
        let rc = unsafe {
            crypto_stream_salsa20_xor(buf.as_mut_ptr(), buf.as_ptr(), buf.len() as u64, nonce.as_ptr(), key.as_ptr())
        };
        assert_eq!(rc, 0);
    }
}

/// This thread's CPU time in seconds: unlike wall time, it leaves out the time that other
/// processes on a shared machine held the CPU.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn thread_cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec (two 64-bit fields on 64-bit Linux) to a
    // valid, exclusively borrowed one.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// Elsewhere, wall time since the first call.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn thread_cpu_seconds() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}

/// `len` pseudo-random bytes (xorshift64, a fixed seed): inputs whose speed depends on
/// the content (content-defined chunking) need bytes that look random, not a pattern.
pub fn pseudo_random_bytes(len: usize) -> Vec<u8> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}
