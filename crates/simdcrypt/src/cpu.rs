//! CPU feature detection: the only place in simdcrypt that asks the CPU what it can do.
//!
//! On x86-64 we read CPUID ourselves and check, through XGETBV, that the operating system
//! saves the wide registers on a context switch (XCR0). A CPU that reports AVX-512 under an
//! OS that does not enable the ZMM state must not run AVX-512 code, so every "has" below is
//! "the CPU has it *and* the OS lets us use it". On aarch64 we ask the standard library,
//! which reads the kernel's hwcaps.
//!
//! The result is computed once and cached. Algorithms never call CPUID themselves; they
//! build their backend lists from [`Features`].
//!
//! Setting the environment variable `SIMDCRYPT_DISABLE` to a comma-separated list of
//! feature names (for example `avx512,avx2`) hides those features, so the fallback paths can
//! be exercised on a machine that has everything. It is read once, at first detection.
//!
//! ## What this file holds
//!
//! the only CPUID/XGETBV code: `Feature`, `Features`, `features()` (cached, honours
//! `SIMDCRYPT_DISABLE`), `disable_list_problem()` (names in `SIMDCRYPT_DISABLE` that hide
//! nothing, which the front ends warn about); `identity()` (vendor, family, model) and
//! `l1d_bytes()` (the L1 data cache size), read for the few kernel choices a measurement tied
//! to them, never for correctness; `PASS_OVER`, the measured rules by which detection passes
//! over a supported backend on some CPUs (fastest, not widest)
//!
//! ## How detection is used
//!
//! `cpu::features()` reads CPUID once and checks XCR0 through XGETBV, so a feature counts only
//! when the CPU has it *and* the OS saves its registers (AVX needs XCR0 bits 1–2, AVX-512 bits
//! 5–7 too). A unit test cross-checks the result against the standard library's independent
//! detection. On aarch64 it asks the standard library (kernel hwcaps) for NEON and SHA2.

use std::fmt;
use std::sync::OnceLock;

/// Instruction-set extensions simdcrypt's kernels use.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Feature {
    /// x86-64 SSE2 (always present on x86-64).
    Sse2,
    /// x86-64 SSSE3 (`pshufb`).
    Ssse3,
    /// x86-64 SSE4.1.
    Sse41,
    /// x86-64 AVX (and the OS saves YMM state).
    Avx,
    /// x86-64 AVX2.
    Avx2,
    /// x86-64 BMI1 and BMI2.
    Bmi2,
    /// AVX-512 Foundation (and the OS saves ZMM/opmask state).
    Avx512F,
    /// AVX-512 Vector Length extensions (512-bit instructions on 128/256-bit registers).
    Avx512Vl,
    /// AVX-512 Byte and Word instructions.
    Avx512Bw,
    /// AVX-512 Doubleword and Quadword instructions.
    Avx512Dq,
    /// AVX-512 Vector Byte Manipulation Instructions (`vpermb`).
    Avx512Vbmi,
    /// SHA-NI: the SHA-1/SHA-256 extensions.
    Sha,
    /// Galois Field New Instructions (`gf2p8affineqb`).
    Gfni,
    /// Vector AES.
    Vaes,
    /// aarch64 Advanced SIMD.
    Neon,
    /// aarch64 SHA-256 instructions (FEAT_SHA256).
    Sha2,
}

impl Feature {
    /// Every feature, in display order.
    pub const ALL: [Feature; 16] = [
        Feature::Sse2,
        Feature::Ssse3,
        Feature::Sse41,
        Feature::Avx,
        Feature::Avx2,
        Feature::Bmi2,
        Feature::Avx512F,
        Feature::Avx512Vl,
        Feature::Avx512Bw,
        Feature::Avx512Dq,
        Feature::Avx512Vbmi,
        Feature::Sha,
        Feature::Gfni,
        Feature::Vaes,
        Feature::Neon,
        Feature::Sha2,
    ];

    /// The lower-case name used in `simdcrypt backends` and `SIMDCRYPT_DISABLE`.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::Sse2 => "sse2",
            Feature::Ssse3 => "ssse3",
            Feature::Sse41 => "sse4.1",
            Feature::Avx => "avx",
            Feature::Avx2 => "avx2",
            Feature::Bmi2 => "bmi2",
            Feature::Avx512F => "avx512f",
            Feature::Avx512Vl => "avx512vl",
            Feature::Avx512Bw => "avx512bw",
            Feature::Avx512Dq => "avx512dq",
            Feature::Avx512Vbmi => "avx512vbmi",
            Feature::Sha => "sha",
            Feature::Gfni => "gfni",
            Feature::Vaes => "vaes",
            Feature::Neon => "neon",
            Feature::Sha2 => "sha2",
        }
    }

    const fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of usable CPU features (CPU support and OS support both checked).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Features(u32);

impl Features {
    /// The empty set: what a portable-only build may assume.
    pub const NONE: Features = Features(0);

    /// Whether `feature` is usable.
    pub const fn has(self, feature: Feature) -> bool {
        self.0 & feature.bit() != 0
    }

    /// Whether every feature in `bundle` is usable.
    pub fn has_all(self, bundle: &[Feature]) -> bool {
        bundle.iter().all(|&f| self.has(f))
    }

    /// This set plus `feature`.
    pub const fn with(self, feature: Feature) -> Features {
        Features(self.0 | feature.bit())
    }

    /// This set minus `feature`.
    pub const fn without(self, feature: Feature) -> Features {
        Features(self.0 & !feature.bit())
    }

    /// The usable features, in display order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |&f| self.has(f))
    }
}

impl fmt::Debug for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The usable features of this CPU under this OS, detected once and cached.
///
/// Honours `SIMDCRYPT_DISABLE` (see the module documentation).
pub fn features() -> Features {
    detection().0
}

/// A message naming the entries of `SIMDCRYPT_DISABLE` that are not feature names (they
/// hide nothing, which is worth saying: a typo would otherwise test the wrong fallback).
/// `None` when every entry was understood. Front ends print it as a warning.
pub fn disable_list_problem() -> Option<&'static str> {
    detection().1.as_deref()
}

fn detection() -> &'static (Features, Option<String>) {
    static CACHE: OnceLock<(Features, Option<String>)> = OnceLock::new();
    CACHE.get_or_init(|| {
        let disabled = std::env::var("SIMDCRYPT_DISABLE").unwrap_or_default();
        let (features, unknown) = apply_disable_list(detect_hardware(), &disabled);
        let problem = (!unknown.is_empty()).then(|| {
            let known: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).chain(["avx512", "sse41"]).collect();
            format!(
                "SIMDCRYPT_DISABLE names unknown features ({}), which hide nothing; known: {}",
                unknown.join(", "),
                known.join(", ")
            )
        });
        (features, problem)
    })
}

/// Removes the features named in a comma-separated list. `avx512` removes every AVX-512
/// feature; `sse4.1` may also be written `sse41`. Returns what is left and the names that
/// matched no feature.
fn apply_disable_list(mut found: Features, list: &str) -> (Features, Vec<String>) {
    let mut unknown = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let name = name.to_ascii_lowercase();
        let mut matched = false;
        for f in Feature::ALL {
            let matches = f.name() == name
                || (name == "sse41" && f == Feature::Sse41)
                || (name == "avx512" && f.name().starts_with("avx512"));
            if matches {
                found = found.without(f);
                matched = true;
            }
        }
        if !matched {
            unknown.push(name);
        }
    }
    (found, unknown)
}

/// CPUID leaf `leaf`, subleaf `sub`: the one place this module executes the instruction.
#[cfg(target_arch = "x86_64")]
fn cpuid(leaf: u32, sub: u32) -> core::arch::x86_64::CpuidResult {
    // SAFETY: CPUID exists on every x86-64 CPU and has no side effects.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::__cpuid_count(leaf, sub)
    }
}

#[cfg(target_arch = "x86_64")]
fn detect_hardware() -> Features {
    use core::arch::x86_64::CpuidResult;

    fn bit(reg: u32, n: u32) -> bool {
        reg >> n & 1 == 1
    }

    let max_leaf = cpuid(0, 0).eax;
    let leaf1 = cpuid(1, 0);
    let leaf7 = if max_leaf >= 7 { cpuid(7, 0) } else { CpuidResult { eax: 0, ebx: 0, ecx: 0, edx: 0 } };

    // XCR0 says which register files the OS saves. Bit 1: XMM, bit 2: YMM upper halves,
    // bits 5-7: opmask, ZMM upper halves of 0-15, ZMM 16-31.
    let osxsave = bit(leaf1.ecx, 27);
    let xcr0 = if osxsave { read_xcr0() } else { 0 };
    let os_avx = xcr0 & 0b110 == 0b110;
    let os_avx512 = os_avx && xcr0 & 0b1110_0000 == 0b1110_0000;

    let mut f = Features::NONE.with(Feature::Sse2);
    let mut add = |cond: bool, feature: Feature| {
        if cond {
            f = f.with(feature);
        }
    };
    add(bit(leaf1.ecx, 9), Feature::Ssse3);
    add(bit(leaf1.ecx, 19), Feature::Sse41);
    add(bit(leaf7.ebx, 29), Feature::Sha);
    add(bit(leaf7.ebx, 3) && bit(leaf7.ebx, 8), Feature::Bmi2);
    let avx = os_avx && bit(leaf1.ecx, 28);
    add(avx, Feature::Avx);
    add(avx && bit(leaf7.ebx, 5), Feature::Avx2);
    // GFNI's SSE encoding needs no OS support beyond XMM; our kernels use the VEX/EVEX
    // forms, which are gated by the AVX/AVX-512 bundles that use them.
    add(bit(leaf7.ecx, 8), Feature::Gfni);
    add(avx && bit(leaf7.ecx, 9), Feature::Vaes);
    let avx512f = os_avx512 && bit(leaf7.ebx, 16);
    add(avx512f, Feature::Avx512F);
    add(avx512f && bit(leaf7.ebx, 17), Feature::Avx512Dq);
    add(avx512f && bit(leaf7.ebx, 30), Feature::Avx512Bw);
    add(avx512f && bit(leaf7.ebx, 31), Feature::Avx512Vl);
    add(avx512f && bit(leaf7.ecx, 1), Feature::Avx512Vbmi);
    f
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "xsave")]
fn xgetbv0() -> u64 {
    // SAFETY: only called after CPUID reported OSXSAVE, so XGETBV is available and
    // XCR0 (register 0) is readable at any privilege level.
    unsafe { core::arch::x86_64::_xgetbv(0) }
}

#[cfg(target_arch = "x86_64")]
fn read_xcr0() -> u64 {
    // SAFETY: the caller checked CPUID.1:ECX.OSXSAVE, which implies XSAVE support.
    unsafe { xgetbv0() }
}

#[cfg(target_arch = "aarch64")]
fn detect_hardware() -> Features {
    let mut f = Features::NONE;
    if std::arch::is_aarch64_feature_detected!("neon") {
        f = f.with(Feature::Neon);
    }
    if std::arch::is_aarch64_feature_detected!("sha2") {
        f = f.with(Feature::Sha2);
    }
    f
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect_hardware() -> Features {
    Features::NONE
}

/// Features as the hardware reports them, ignoring `SIMDCRYPT_DISABLE` (for `backends`).
pub fn hardware_features() -> Features {
    static CACHE: OnceLock<Features> = OnceLock::new();
    *CACHE.get_or_init(detect_hardware)
}

/// The CPU's maker, for the few choices that depend on the microarchitecture rather than
/// on the instruction sets (see [`identity`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Vendor {
    /// "GenuineIntel".
    Intel,
    /// "AuthenticAMD".
    Amd,
    /// Any other, or not x86-64.
    Other,
}

/// Vendor, family and model as CPUID leaf 1 reports them (the family and model with their
/// extended fields added, as both vendors define them).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Identity {
    /// The maker.
    pub vendor: Vendor,
    /// The display family (AMD Zen 4 is 0x19, Zen 5 is 0x1A; Intel's big cores are 6).
    pub family: u32,
    /// The display model.
    pub model: u32,
}

impl Identity {
    /// Whether this is an AMD family 0x1A CPU (Zen 5). On the one measured (an EPYC VM,
    /// docs/tuning-history.md, "BENCHMARKS.md before issue 42"), simple vector integer instructions
    /// (`vpaddd`, `vprold`, `vpxord`, `vpshufd`) take two cycles of latency at every
    /// register width, where scalar `add`/`rol`/`xor` take one: latency-bound vector code
    /// is chosen differently there.
    pub fn is_amd_zen5(self) -> bool {
        self.vendor == Vendor::Amd && self.family == 0x1A
    }
}

impl Identity {
    /// Whether AVX-512, where this CPU has it, executes as two 256-bit halves: AMD family
    /// 0x19 (Zen 3 has no AVX-512 at all, Zen 4 double-pumps it; Zen 5, family 0x1A, runs
    /// it at full width on the server parts).
    pub fn avx512_is_half_width(self) -> bool {
        self.vendor == Vendor::Amd && self.family == 0x19
    }
}

/// A measured exception to "the widest backend wins": on the CPUs `applies_to` matches,
/// detection passes over `backend` of `algorithm` and takes the next supported one. The
/// backend stays supported: `from_name`, `all_supported` and so every test still run it.
#[derive(Debug)]
pub struct PassOver {
    /// The backend family, as in [`crate::backend_report`] (`"sha256-batch"`).
    pub algorithm: &'static str,
    /// The backend passed over (`"avx512+shani"`).
    pub backend: &'static str,
    /// The CPUs the rule is for, by identity and usable features.
    pub applies_to: fn(Identity, Features) -> bool,
    /// Why, for `simdcrypt backends` (the figures are in docs/tuning-history.md).
    pub why: &'static str,
}

/// Every rule of backend preference that depends on the microarchitecture rather than on
/// the instruction sets: the one place they are kept. Each was measured (docs/tuning-history.md,
/// "Fastest, not widest"); a rule without a measurement does not belong here.
pub const PASS_OVER: &[PassOver] = &[
    // On Zen 4 SHA-NI hashes 64-byte blocks two at a time at full speed while the 16-lane
    // AVX-512 kernel runs on half-width units: `shani` beat both AVX-512 kinds on a batch
    // of 1024 blocks and on Merkle roots.
    PassOver {
        algorithm: "sha256-batch",
        backend: "avx512+shani",
        applies_to: |cpu, _| cpu.avx512_is_half_width(),
        why: "AVX-512 is half width on this CPU (AMD family 0x19): SHA-NI measured faster",
    },
    // Plain `avx512` only where SHA-NI is there to take its place (not measured against
    // AVX2 on Zen 4, so without SHA-NI the wider kernel keeps its rank).
    PassOver {
        algorithm: "sha256-batch",
        backend: "avx512",
        applies_to: |cpu, features| cpu.avx512_is_half_width() && features.has(Feature::Sha),
        why: "AVX-512 is half width on this CPU (AMD family 0x19): SHA-NI measured faster",
    },
];

/// Why detection passes over `backend` of `algorithm` on a CPU of this identity with these
/// usable features, if it does (see [`PASS_OVER`]).
pub fn passed_over(algorithm: &str, backend: &str, cpu: Identity, features: Features) -> Option<&'static str> {
    PASS_OVER
        .iter()
        .find(|r| r.algorithm == algorithm && r.backend == backend && (r.applies_to)(cpu, features))
        .map(|r| r.why)
}

/// This CPU's vendor, family and model (read once and cached). Kernel choices use it only
/// where a measurement showed that the best kernel differs by family; never for
/// correctness, which depends on [`features`] alone.
pub fn identity() -> Identity {
    static CACHE: OnceLock<Identity> = OnceLock::new();
    *CACHE.get_or_init(read_identity)
}

#[cfg(target_arch = "x86_64")]
fn read_identity() -> Identity {
    let (leaf0, leaf1) = (cpuid(0, 0), cpuid(1, 0));
    let mut name = [0u8; 12];
    name[..4].copy_from_slice(&leaf0.ebx.to_le_bytes());
    name[4..8].copy_from_slice(&leaf0.edx.to_le_bytes());
    name[8..].copy_from_slice(&leaf0.ecx.to_le_bytes());
    let vendor = match &name {
        b"GenuineIntel" => Vendor::Intel,
        b"AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    };
    let base_family = leaf1.eax >> 8 & 0xF;
    let base_model = leaf1.eax >> 4 & 0xF;
    let family = if base_family == 0xF { base_family + (leaf1.eax >> 20 & 0xFF) } else { base_family };
    let model =
        if base_family == 0xF || base_family == 6 { base_model | (leaf1.eax >> 16 & 0xF) << 4 } else { base_model };
    Identity { vendor, family, model }
}

#[cfg(not(target_arch = "x86_64"))]
fn read_identity() -> Identity {
    Identity { vendor: Vendor::Other, family: 0, model: 0 }
}

/// The size of this CPU's level-1 data cache in bytes, per core, as CPUID reports it
/// (Intel: leaf 4; AMD: leaf 0x8000_0005), read once and cached; `None` where CPUID does not
/// say or the CPU is not x86-64. Like [`identity`], only for choices a measurement tied to
/// it (the GOST R 34.11-94 tables: `gost94::portable`), never for correctness: on a hybrid
/// CPU it is the cache of the core that first asked.
pub fn l1d_bytes() -> Option<u32> {
    static CACHE: OnceLock<Option<u32>> = OnceLock::new();
    *CACHE.get_or_init(|| read_cache_bytes(1))
}

/// The size of this CPU's level-2 cache in bytes, per core, as CPUID reports it (Intel:
/// leaf 4; AMD: leaf 0x8000_0006), read once and cached; `None` where CPUID does not say or
/// the CPU is not x86-64. Only for sizing buffers ([`read_buffer_len`]), never for
/// correctness.
pub fn l2_bytes() -> Option<u32> {
    static CACHE: OnceLock<Option<u32>> = OnceLock::new();
    *CACHE.get_or_init(|| read_cache_bytes(2))
}

/// How many bytes to read from a file at a time before hashing them: an eighth of the L2
/// cache, rounded down to a power of two, between 64 KiB and 1 MiB (256 KiB where the L2
/// size is unknown).
///
/// Why the L2: a `read` copies the file's bytes from the page cache into the buffer, and
/// the hash then reads the buffer. If the source and the copy together do not fit in the
/// L2, the copy is evicted before it is hashed and every byte crosses the slower caches
/// twice. An eighth leaves room for the page-cache side of the copy, the hash's own state
/// and whatever else the core runs; buffers of a quarter of the L2 and more were measured
/// losing on a 512 KiB-L2 CPU (docs/tuning-history.md). Below 64 KiB the system calls
/// start to cost more than the cache saves; above 1 MiB nothing is gained.
///
/// `SIMDCRYPT_ASSUME_L2` (bytes, or with a `K` or `M` suffix) replaces the detected L2
/// size here, so that a benchmark can stand in for a CPU with another L2; read once.
pub fn read_buffer_len() -> usize {
    static LEN: OnceLock<usize> = OnceLock::new();
    *LEN.get_or_init(|| {
        let assumed = std::env::var("SIMDCRYPT_ASSUME_L2").ok().and_then(|v| parse_size(&v));
        buffer_len_for_l2(assumed.or(l2_bytes().map(|b| b as usize)))
    })
}

/// The read block for an input of `size` bytes where the size is known (a regular file):
/// [`read_buffer_len`], or less for a smaller input, so that a small file does not pay for
/// zeroing and faulting in a whole block. At least a page: files under /proc report a size
/// of 0 and are not empty (the reader reads on to the end whatever the size said).
pub fn read_buffer_len_for(size: Option<u64>) -> usize {
    let full = read_buffer_len();
    size.map_or(full, |size| usize::try_from(size).unwrap_or(full).clamp(4096, full.max(4096)))
}

/// [`read_buffer_len`] for an L2 of `l2` bytes.
fn buffer_len_for_l2(l2: Option<usize>) -> usize {
    const MIN: usize = 64 << 10;
    const MAX: usize = 1 << 20;
    const UNKNOWN: usize = 256 << 10;
    match l2 {
        None | Some(0) => UNKNOWN,
        Some(l2) => {
            let eighth = l2 / 8;
            let pow2 = if eighth == 0 { 0 } else { 1usize << (usize::BITS - 1 - eighth.leading_zeros()) };
            pow2.clamp(MIN, MAX)
        }
    }
}

/// `"2097152"`, `"2048K"` or `"2M"` as bytes.
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

#[cfg(target_arch = "x86_64")]
fn read_cache_bytes(level: u32) -> Option<u32> {
    // Each leaf is read only below the maximum its vendor reports (a higher one returns
    // another leaf's data).
    match identity().vendor {
        Vendor::Intel => {
            if cpuid(0, 0).eax < 4 {
                return None;
            }
            // Leaf 4 lists the caches one subleaf each until a null type: EAX[4:0] the type
            // (1 data, 3 unified), EAX[7:5] the level; size = ways × partitions × line × sets.
            for sub in 0..16 {
                let r = cpuid(4, sub);
                let kind = r.eax & 0x1F;
                if kind == 0 {
                    break;
                }
                if (kind == 1 || kind == 3) && (r.eax >> 5 & 7) == level {
                    let ways = (r.ebx >> 22) + 1;
                    let partitions = (r.ebx >> 12 & 0x3FF) + 1;
                    let line = (r.ebx & 0xFFF) + 1;
                    return Some(ways * partitions * line * (r.ecx + 1));
                }
            }
            None
        }
        Vendor::Amd => {
            let leaf = if level == 1 { 0x8000_0005 } else { 0x8000_0006 };
            if level > 2 || cpuid(0x8000_0000, 0).eax < leaf {
                return None;
            }
            // Leaf 0x8000_0005 ECX[31:24]: the L1 data cache in KiB; leaf 0x8000_0006
            // ECX[31:16]: the L2 in KiB.
            let ecx = cpuid(leaf, 0).ecx;
            let kib = if level == 1 { ecx >> 24 } else { ecx >> 16 };
            (kib > 0).then_some(kib * 1024)
        }
        Vendor::Other => None,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn read_cache_bytes(_level: u32) -> Option<u32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our CPUID/XCR0 reading must agree with the standard library's independent detection.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn agrees_with_std_detection() {
        let f = detect_hardware();
        assert_eq!(f.has(Feature::Ssse3), is_x86_feature_detected!("ssse3"));
        assert_eq!(f.has(Feature::Sse41), is_x86_feature_detected!("sse4.1"));
        assert_eq!(f.has(Feature::Avx), is_x86_feature_detected!("avx"));
        assert_eq!(f.has(Feature::Avx2), is_x86_feature_detected!("avx2"));
        assert_eq!(f.has(Feature::Avx512F), is_x86_feature_detected!("avx512f"));
        assert_eq!(f.has(Feature::Avx512Vl), is_x86_feature_detected!("avx512vl"));
        assert_eq!(f.has(Feature::Avx512Bw), is_x86_feature_detected!("avx512bw"));
        assert_eq!(f.has(Feature::Avx512Dq), is_x86_feature_detected!("avx512dq"));
        assert_eq!(f.has(Feature::Avx512Vbmi), is_x86_feature_detected!("avx512vbmi"));
        assert_eq!(f.has(Feature::Sha), is_x86_feature_detected!("sha"));
        assert_eq!(f.has(Feature::Gfni), is_x86_feature_detected!("gfni"));
        assert_eq!(f.has(Feature::Vaes), is_x86_feature_detected!("vaes"));
        let bmi = is_x86_feature_detected!("bmi1") && is_x86_feature_detected!("bmi2");
        assert_eq!(f.has(Feature::Bmi2), bmi);
    }

    /// The family and vendor as Linux reports them (the same CPUID fields, decoded by the
    /// kernel), where /proc/cpuinfo exists.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn identity_agrees_with_proc_cpuinfo() {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else { return };
        let field = |name: &str| {
            info.lines().find(|l| l.starts_with(name)).and_then(|l| l.split(':').nth(1)).map(|v| v.trim().to_string())
        };
        let id = identity();
        if let Some(family) = field("cpu family") {
            assert_eq!(family.parse::<u32>().unwrap(), id.family);
        }
        if let Some(model) = field("model\t") {
            assert_eq!(model.parse::<u32>().unwrap(), id.model);
        }
        match field("vendor_id").as_deref() {
            Some("AuthenticAMD") => assert_eq!(id.vendor, Vendor::Amd),
            Some("GenuineIntel") => assert_eq!(id.vendor, Vendor::Intel),
            _ => {}
        }
        println!("identity: {id:?}");
    }

    /// The size of the cache at `level` (the data or unified one) in sysfs, in bytes.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    fn sysfs_cache_bytes(level: u32) -> Option<u32> {
        let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
        let read = |index: &str, name: &str| std::fs::read_to_string(dir.join(index).join(name)).ok();
        let size = (0..8).map(|i| format!("index{i}")).find_map(|index| {
            let l = read(&index, "level")?;
            let kind = read(&index, "type")?;
            let kind = kind.trim();
            (l.trim() == level.to_string() && (kind == "Data" || kind == "Unified"))
                .then(|| read(&index, "size"))
                .flatten()
        })?;
        let kib: u32 = size.trim().trim_end_matches('K').parse().expect("sysfs sizes are in K");
        Some(kib * 1024)
    }

    /// The L1 data cache size against Linux's cache description (the same CPUID leaves,
    /// read by the kernel), where sysfs has it.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn l1d_agrees_with_sysfs() {
        let Some(bytes) = sysfs_cache_bytes(1) else {
            println!("l1d_agrees_with_sysfs: no L1 data cache in sysfs, not compared");
            return;
        };
        assert_eq!(l1d_bytes(), Some(bytes));
        println!("l1d_agrees_with_sysfs: {} KiB", bytes / 1024);
    }

    /// The L2 size likewise.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn l2_agrees_with_sysfs() {
        let Some(bytes) = sysfs_cache_bytes(2) else {
            println!("l2_agrees_with_sysfs: no L2 cache in sysfs, not compared");
            return;
        };
        assert_eq!(l2_bytes(), Some(bytes));
        println!("l2_agrees_with_sysfs: {} KiB", bytes / 1024);
    }

    #[test]
    fn read_buffer_follows_the_l2() {
        assert_eq!(buffer_len_for_l2(None), 256 << 10);
        assert_eq!(buffer_len_for_l2(Some(512 << 10)), 64 << 10);
        assert_eq!(buffer_len_for_l2(Some(1 << 20)), 128 << 10);
        assert_eq!(buffer_len_for_l2(Some(1280 << 10)), 128 << 10);
        assert_eq!(buffer_len_for_l2(Some(2 << 20)), 256 << 10);
        assert_eq!(buffer_len_for_l2(Some(256 << 10)), 64 << 10);
        assert_eq!(buffer_len_for_l2(Some(32 << 20)), 1 << 20);
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("x"), None);
        let len = read_buffer_len();
        assert!(len.is_power_of_two() && (64 << 10..=1 << 20).contains(&len));
        // A known size caps the block, down to a page (files in /proc report 0 bytes).
        assert_eq!(read_buffer_len_for(None), len);
        assert_eq!(read_buffer_len_for(Some(0)), 4096);
        assert_eq!(read_buffer_len_for(Some(10)), 4096);
        assert_eq!(read_buffer_len_for(Some(5000)), 5000);
        assert_eq!(read_buffer_len_for(Some(len as u64 + 1)), len);
        assert_eq!(read_buffer_len_for(Some(u64::MAX)), len);
    }

    #[test]
    fn disable_list_removes_named_features() {
        let all = Feature::ALL.iter().fold(Features::NONE, |acc, &f| acc.with(f));
        let (f, unknown) = apply_disable_list(all, " AVX512 , sse41,bogus");
        assert!(!f.has(Feature::Avx512F) && !f.has(Feature::Avx512Vbmi));
        assert!(!f.has(Feature::Sse41));
        assert!(f.has(Feature::Avx2) && f.has(Feature::Gfni));
        assert_eq!(unknown, ["bogus"]);
        assert_eq!(apply_disable_list(all, ""), (all, vec![]));
    }
}
