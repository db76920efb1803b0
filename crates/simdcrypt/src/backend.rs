//! Backends as checked values.
//!
//! Each algorithm lists its kernel sets in a plain enum (its `Kind`, implementing [`Kernels`]):
//! a name, the CPU features it needs, a preference order. A kind is only a name. What reaches
//! a kernel is a [`Checked`] kind — the algorithm's `Platform` — whose field is private to
//! this module, so the only ways to get one are [`Checked::detect`], [`Checked::from_name`],
//! [`Checked::all_supported`] and [`Checked::portable`], and each of them checks this CPU
//! first. That is what makes the `SAFETY` comments at the dispatch points true: a `Platform`
//! other than the portable one exists only once its features were found.
//!
//! One policy for a backend the CPU lacks: [`Checked::from_name`] returns an
//! [`Error::UnsupportedBackend`] naming the missing features (or the architecture the
//! backend was built for); an unknown name lists the known ones.
//!
//! ## What this file holds
//!
//! backends as checked values (and `kernel_kinds!`, which declares an algorithm's `Kind`,
//! `Platform` alias and `Kernels` impl from one list): each algorithm's kernel sets are a
//! plain enum (`Kind`, implementing `Kernels`: `ALL` best first, `OTHER_ARCHITECTURES`,
//! `name`, `requires` (its CPU features), its detection cache); what reaches a kernel is
//! `Checked<Kind>` (the algorithm's `Platform`), whose field is private, made only by `detect`
//! (cached per algorithm, one atomic load), `from_name` (the one parser of user-given names:
//! an unsupported backend is `Error::UnsupportedBackend` naming the missing features or the
//! architecture it was built for; an unknown name lists the known ones), `all_supported` and
//! `portable`. `Backend` is the same surface as a trait, for generic code; `BackendReport`
//!
//! ## Detection and dispatch, end to end
//!
//! Each algorithm lists its kernel sets in one enum (`Kind`) implementing `backend::Kernels`.
//! A kind states its whole feature bundle in `requires` (BLAKE3's `avx512` = SSE4.1 + AVX +
//! AVX2 + AVX-512F + AVX-512VL, because it hands remainders to the narrower kernels). What the
//! dispatch accepts is a `Platform` = `backend::Checked<Kind>`, which exists only once the CPU
//! was found to have that bundle: `detect()` (cached), `from_name()` for an override,
//! `all_supported()`, `portable()`. So there is one policy for a backend the CPU lacks — an
//! `Err` from `from_name` that names the missing features — and no check (or panic) at any
//! dispatch point. The choice is made once, when a hasher is created, and stored in it; each
//! call dispatches once, in `Platform`'s methods, never per block.
//!
//! Each `platform.rs` declares its kinds with one `backend::kernel_kinds!` invocation: a line
//! per backend, best first (that order is `ALL`), giving its name, the one architecture it is
//! built for and the features it needs (`Avx2 = "avx2" on "x86_64" needs [Sse41, Avx, Avx2]`),
//! with a `//` comment where a feature or the rank needs a reason. The macro writes the enum
//! (each variant `cfg`'d to its architecture), `ALL`, `OTHER_ARCHITECTURES` (the same names
//! elsewhere), `name`, `requires` and the detection cache; an algorithm that overrides a
//! provided `Kernels` method puts it in the invocation's optional `impl Kernels { ... }`. A
//! new backend is that one line plus an arm in each dispatch method of the file (`Kind::X =>
//! unsafe { x::kernel(..) }`, its `SAFETY` comment saying the kind's `requires` cover the
//! kernel).
//!
//! Kernels are safe `#[target_feature(enable = "...")]` functions; an instruction outside the
//! declared features is a compile error. The crate has `#![deny(unsafe_op_in_unsafe_fn)]`;
//! `unsafe` appears only at the dispatch call (justified by the support check made when the
//! `Checked` value was constructed: its field is private to `backend.rs`) and around unaligned
//! SIMD loads and stores of slices whose lengths were checked, each with a `// SAFETY:`
//! comment; one more, in BLAKE3's `fill_prefix`, views the written front of an uninitialized
//! list of kernel inputs as a slice (filling it with empty slices first was half the tree's
//! own time). `Platform::hash_many` checks the lengths the kernels rely on and panics on a
//! violation (an internal bug, never user input). The exceptions to intrinsics-only kernels
//! are in BLAKE3. The AVX2 and SSE4.1 transposed compressions (`blake3/avx2.rs`,
//! `blake3/sse41.rs`) are one `asm!` block per block of input, touching only their register
//! operands and a buffer the kernel owns, because with 16 vector registers the compiler's
//! spills made them measurably slower than the official crate's assembly
//! (docs/tuning-history.md). The rows kernels
//! (`blake3/rows.rs`) are one `asm!` block per block's seven rounds, touching only registers
//! (the AVX2 four-block kernel also a message buffer it owns), because the compiler
//! re-associated the message additions into the dependency chain. Where the compiler's code
//! was as fast (the AVX-512 16-lane kernel, 32 registers), hand-written assembly measured
//! slower and is not used.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::cpu::{self, Feature, Features};
use crate::Error;

/// An algorithm's set of kernels, as a plain enum: what it is called, what it needs.
pub trait Kernels: Copy + Eq + std::hash::Hash + fmt::Debug + Send + Sync + 'static {
    /// The backend family's name in [`crate::backend_report`] (e.g. `"blake3"`,
    /// `"sha256-batch"`).
    const ALGORITHM: &'static str;
    /// Every kernel set this build has for this architecture, best first; the last one is
    /// the portable code, which runs anywhere.
    const ALL: &'static [Self];
    /// Names of the backends that exist for other architectures only (`"neon"` on x86-64,
    /// `"avx2"` on aarch64), so that asking for one says "not supported", not "unknown".
    const OTHER_ARCHITECTURES: &'static [(&'static str, &'static str)];

    /// The short name users pass to select it (`"portable"`, `"avx2"`, ...).
    fn name(self) -> &'static str;

    /// The CPU features its kernels use (empty for portable code).
    fn requires(self) -> &'static [Feature];

    /// The cache of [`Checked::detect`]'s answer: one static per algorithm, so detection
    /// costs one atomic load after the first call.
    fn detected() -> &'static DetectCache;
}

/// Where [`Checked::detect`] keeps its choice: the index in [`Kernels::ALL`], plus one.
#[derive(Debug)]
pub struct DetectCache(AtomicU8);

impl DetectCache {
    /// An empty cache, for a `static`.
    pub const fn new() -> Self {
        DetectCache(AtomicU8::new(0))
    }
}

impl Default for DetectCache {
    fn default() -> Self {
        Self::new()
    }
}

/// Declares an algorithm's kernel sets: its `Kind` enum, the `Platform` alias for checked
/// kinds, and the [`Kernels`] implementation, from one list of variants.
///
/// The variants are written best first, and that order is [`Kernels::ALL`] (what
/// [`Checked::detect`] prefers); the last one is the portable code. Each variant names
/// its backend and, unless it runs anywhere, the one architecture it is built for and the
/// CPU features its kernels use (its whole bundle, as [`Kernels::requires`] says):
///
/// ```text
/// crate::backend::kernel_kinds! {
///     algorithm: "sha256",
///     /// What the alias is for (the macro adds how one is obtained).
///     pub type Platform = Checked<Kind>;
///     /// Optional docs of the enum (the macro writes its first line).
///     pub enum Kind {
///         /// Docs of the variant.
///         // Why it needs these features, or why it sits where it does.
///         ShaNi = "shani" on "x86_64" needs [Sha, Ssse3, Sse41],
///         /// Plain Rust, any CPU.
///         Portable = "portable",
///     }
///     // Optional: more items for the `Kernels` impl (a provided method overridden).
///     impl Kernels {}
/// }
/// ```
///
/// A variant with an architecture exists only there (`#[cfg(target_arch)]` on the variant
/// and every arm); elsewhere its name goes to [`Kernels::OTHER_ARCHITECTURES`], so that
/// asking for it says "not supported here" rather than "unknown".
macro_rules! kernel_kinds {
    (
        algorithm: $algorithm:literal,
        $(#[$alias_meta:meta])*
        $alias_vis:vis type $alias:ident = Checked<$alias_kind:ident>;
        $(#[$kind_meta:meta])*
        $kind_vis:vis enum $kind:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident = $name:literal $(on $arch:literal needs [$($feature:ident),* $(,)?])?
            ),+ $(,)?
        }
        $(impl Kernels { $($extra:tt)* })?
    ) => {
        $(#[$alias_meta])*
        ///
        /// Obtained only from `detect`, `from_name`, `all_supported` or `portable`, each of
        /// which checks this CPU (see [`crate::backend`]).
        $alias_vis type $alias = $crate::backend::Checked<$alias_kind>;

        #[doc = concat!("The names of the ", $algorithm, " kernel sets, best first; only a checked [`",
            stringify!($alias), "`] reaches a kernel.")]
        $(#[$kind_meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #[non_exhaustive]
        $kind_vis enum $kind {
            $(
                $(#[$variant_meta])*
                $(#[cfg(target_arch = $arch)])?
                $variant,
            )+
        }

        impl $crate::backend::Kernels for $kind {
            const ALGORITHM: &'static str = $algorithm;
            const ALL: &'static [Self] = &[$($(#[cfg(target_arch = $arch)])? Self::$variant,)+];
            const OTHER_ARCHITECTURES: &'static [(&'static str, &'static str)] =
                &[$($(#[cfg(not(target_arch = $arch))] ($name, $arch),)?)+];

            fn detected() -> &'static $crate::backend::DetectCache {
                static DETECTED: $crate::backend::DetectCache = $crate::backend::DetectCache::new();
                &DETECTED
            }

            fn name(self) -> &'static str {
                match self {
                    $($(#[cfg(target_arch = $arch)])? Self::$variant => $name,)+
                }
            }

            fn requires(self) -> &'static [$crate::cpu::Feature] {
                match self {
                    $(
                        $(#[cfg(target_arch = $arch)])?
                        Self::$variant => &[$($($crate::cpu::Feature::$feature),*)?],
                    )+
                }
            }

            $($($extra)*)?
        }
    };
}
pub(crate) use kernel_kinds;

/// Runs `check` on every kernel set of `K` this CPU supports, then prints which ran, so
/// that a test comparing backends says what it exercised.
#[cfg(test)]
pub(crate) fn for_each_supported<K: Kernels>(test: &str, mut check: impl FnMut(Checked<K>)) {
    let mut exercised = Vec::new();
    for platform in Checked::<K>::all_supported() {
        exercised.push(platform.name());
        check(platform);
    }
    println!("{test}: {} backends exercised: {}", K::ALGORITHM, exercised.join(", "));
}

/// A kernel set that this CPU can run: the only thing the dispatch points accept.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Checked<K>(K);

fn runs_on<K: Kernels>(kind: K, features: Features) -> bool {
    features.has_all(kind.requires())
}

/// Where detection's choice sits in [`Kernels::ALL`] for a CPU with these features and this
/// identity: the first kind the features cover that no [`cpu::PASS_OVER`] rule passes over
/// (the portable code is never passed over). A function of its arguments alone, so that a
/// rule is tested for CPUs this machine is not.
pub(crate) fn preferred_index<K: Kernels>(features: Features, cpu: cpu::Identity) -> usize {
    K::ALL
        .iter()
        .position(|&k| {
            runs_on(k, features)
                && (k.requires().is_empty() || cpu::passed_over(K::ALGORITHM, k.name(), cpu, features).is_none())
        })
        .expect("the portable kernels run anywhere")
}

impl<K: Kernels> Checked<K> {
    /// The best kernel set this CPU supports (detected once per algorithm, then cached):
    /// the first of [`Kernels::ALL`] it can run, unless a measured rule of
    /// [`cpu::PASS_OVER`] passes over that one on this CPU.
    #[inline(always)]
    pub fn detect() -> Self {
        match K::detected().0.load(Ordering::Relaxed) {
            0 => Self::detect_first(),
            n => Checked(K::ALL[usize::from(n) - 1]),
        }
    }

    #[cold]
    fn detect_first() -> Self {
        let index = preferred_index::<K>(cpu::features(), cpu::identity());
        K::detected().0.store(index as u8 + 1, Ordering::Relaxed);
        Checked(K::ALL[index])
    }

    /// The kernel sets this CPU can run, best first. Never empty: the portable code runs
    /// anywhere.
    pub fn all_supported() -> Vec<Self> {
        let features = cpu::features();
        K::ALL.iter().copied().filter(|&k| runs_on(k, features)).map(Checked).collect()
    }

    /// The portable kernels, which run on every CPU.
    pub fn portable() -> Self {
        let last = *K::ALL.last().expect("every algorithm lists its portable kernels");
        debug_assert!(last.requires().is_empty());
        Checked(last)
    }

    /// Parses a user-supplied name (case-insensitive), checking that this CPU can run it.
    ///
    /// A backend this CPU lacks is [`Error::UnsupportedBackend`], which names what is
    /// missing; a name the algorithm does not have at all is [`Error::UnknownBackend`].
    pub fn from_name(name: &str) -> Result<Self, Error> {
        let wanted = name.trim().to_ascii_lowercase();
        let supported = || Self::all_supported().into_iter().map(Self::name).collect();
        if let Some(&kind) = K::ALL.iter().find(|k| k.name() == wanted) {
            let features = cpu::features();
            if runs_on(kind, features) {
                return Ok(Checked(kind));
            }
            let missing: Vec<&str> = kind.requires().iter().filter(|&&f| !features.has(f)).map(|f| f.name()).collect();
            return Err(Error::UnsupportedBackend {
                algorithm: K::ALGORITHM,
                requested: kind.name().to_string(),
                reason: format!("this CPU lacks {}", missing.join(", ")),
                supported: supported(),
            });
        }
        if let Some(&(other, arch)) = K::OTHER_ARCHITECTURES.iter().find(|(n, _)| *n == wanted) {
            return Err(Error::UnsupportedBackend {
                algorithm: K::ALGORITHM,
                requested: other.to_string(),
                reason: format!("it is built for {arch} only, and this machine is {}", std::env::consts::ARCH),
                supported: supported(),
            });
        }
        Err(Error::UnknownBackend {
            algorithm: K::ALGORITHM,
            requested: name.to_string(),
            known: K::ALL.iter().map(|k| k.name()).chain(K::OTHER_ARCHITECTURES.iter().map(|(n, _)| *n)).collect(),
            supported: supported(),
        })
    }

    /// The short name users pass to select it.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// Which kernel set this is.
    #[inline(always)]
    pub const fn kind(self) -> K {
        self.0
    }

    /// Whether this is the portable code.
    pub fn is_portable(self) -> bool {
        self.0.requires().is_empty()
    }
}

impl<K: Kernels> fmt::Debug for Checked<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", K::ALGORITHM, self.0.name())
    }
}

impl<K: Kernels> fmt::Display for Checked<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

/// What generic code (the bindings, the tests) needs of any algorithm's `Platform`: every
/// [`Checked`] kind implements it by forwarding to the inherent methods.
pub trait Backend: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// The backend family's name, as in [`crate::backend_report`].
    const ALGORITHM: &'static str;
    /// [`Checked::detect`].
    fn detect() -> Self;
    /// [`Checked::from_name`].
    fn from_name(name: &str) -> Result<Self, Error>;
    /// [`Checked::all_supported`].
    fn all_supported() -> Vec<Self>;
    /// [`Checked::name`].
    fn name(self) -> &'static str;
}

impl<K: Kernels> Backend for Checked<K> {
    const ALGORITHM: &'static str = K::ALGORITHM;
    fn detect() -> Self {
        Checked::detect()
    }
    fn from_name(name: &str) -> Result<Self, Error> {
        Checked::from_name(name)
    }
    fn all_supported() -> Vec<Self> {
        Checked::all_supported()
    }
    fn name(self) -> &'static str {
        Checked::name(self)
    }
}

/// One algorithm's entry in the backend report: what it would pick and what it could use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendReport {
    /// The backend family's name.
    pub algorithm: &'static str,
    /// The backend picked by detection.
    pub selected: &'static str,
    /// Every backend this CPU can run, best first.
    pub supported: Vec<&'static str>,
    /// Every backend this build has for this architecture, best first.
    pub built: Vec<&'static str>,
    /// Supported backends that detection passes over on this CPU, each with why (see
    /// [`cpu::PASS_OVER`]).
    pub passed_over: Vec<(&'static str, &'static str)>,
}

impl BackendReport {
    /// The report for one algorithm's kernels.
    pub fn of<K: Kernels>() -> Self {
        BackendReport {
            algorithm: K::ALGORITHM,
            selected: Checked::<K>::detect().name(),
            supported: Checked::<K>::all_supported().into_iter().map(Checked::name).collect(),
            built: K::ALL.iter().map(|k| k.name()).collect(),
            passed_over: Checked::<K>::all_supported()
                .into_iter()
                .filter_map(|p| {
                    cpu::passed_over(K::ALGORITHM, p.name(), cpu::identity(), cpu::features())
                        .map(|why| (p.name(), why))
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    kernel_kinds! {
        algorithm: "example",
        /// A kernel set of the example.
        pub type Example = Checked<ExampleKind>;
        pub enum ExampleKind {
            /// Built for x86-64 only.
            Wide = "wide" on "x86_64" needs [Sse41, Avx2],
            /// Built for aarch64 only.
            Arm = "arm" on "aarch64" needs [Neon],
            /// Anywhere.
            Portable = "portable",
        }
        impl Kernels {}
    }

    /// What `kernel_kinds!` writes: `ALL` in the written order with this architecture's kinds
    /// only, the other architecture's names in `OTHER_ARCHITECTURES`, names and features.
    #[test]
    fn kernel_kinds_keeps_order_and_architectures() {
        let all: Vec<&str> = ExampleKind::ALL.iter().map(|k| k.name()).collect();
        let other = ExampleKind::OTHER_ARCHITECTURES;
        assert_eq!(ExampleKind::ALGORITHM, "example");
        assert_eq!(ExampleKind::Portable.requires(), &[]);
        assert_eq!(Example::portable().name(), "portable");
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(all, ["wide", "portable"]);
            assert_eq!(other, [("arm", "aarch64")]);
            assert_eq!(ExampleKind::Wide.requires(), &[Feature::Sse41, Feature::Avx2]);
        }
        #[cfg(target_arch = "aarch64")]
        {
            assert_eq!(all, ["arm", "portable"]);
            assert_eq!(other, [("wide", "x86_64")]);
            assert_eq!(ExampleKind::Arm.requires(), &[Feature::Neon]);
        }
        let elsewhere = other[0].0;
        let err = Example::from_name(elsewhere).expect_err("a backend of another architecture");
        assert!(matches!(err, Error::UnsupportedBackend { .. }), "{err:?}");
        assert!(err.to_string().contains(other[0].1), "{err}");
        assert!(matches!(Example::from_name("nonesuch"), Err(Error::UnknownBackend { .. })));
    }

    /// The fastest-not-widest rules pick by (vendor, family) for CPUs this machine is not:
    /// SHA-256 batches take SHA-NI on AMD family 0x19 with AVX-512 (Zen 4) and the AVX-512
    /// mix on Intel and on AMD family 0x1A (Zen 5); without SHA-NI a Zen 4 keeps AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn pass_over_rules_follow_the_cpu_identity() {
        use crate::cpu::{Identity, Vendor};
        use crate::sha256::BatchKind;
        let zen4 = Identity { vendor: Vendor::Amd, family: 0x19, model: 0x11 };
        let zen5 = Identity { vendor: Vendor::Amd, family: 0x1A, model: 0x02 };
        let sapphire = Identity { vendor: Vendor::Intel, family: 6, model: 0x8F };
        let all = [
            Feature::Sse41,
            Feature::Ssse3,
            Feature::Avx,
            Feature::Avx2,
            Feature::Avx512F,
            Feature::Avx512Bw,
            Feature::Avx512Vl,
            Feature::Sha,
        ]
        .into_iter()
        .fold(Features::NONE, Features::with);
        let pick = |features, cpu| BatchKind::ALL[preferred_index::<BatchKind>(features, cpu)].name();
        assert_eq!(pick(all, zen4), "shani");
        assert_eq!(pick(all, zen5), "avx512+shani");
        assert_eq!(pick(all, sapphire), "avx512+shani");
        assert_eq!(pick(all.without(Feature::Sha), sapphire), "avx512");
        assert_eq!(pick(all.without(Feature::Sha), zen4), "avx512");
        assert_eq!(pick(Features::NONE, zen4), "portable");
        // Other algorithms have no rule: the widest supported kind wins on every CPU.
        for cpu in [zen4, zen5, sapphire] {
            assert_eq!(
                crate::blake3::Kind::ALL[preferred_index::<crate::blake3::Kind>(all, cpu)].name(),
                crate::blake3::Kind::ALL.iter().find(|k| all.has_all(k.requires())).unwrap().name()
            );
        }
        // Every rule names a backend that exists (on some architecture) for its algorithm.
        for rule in crate::cpu::PASS_OVER {
            let report = crate::backend_report();
            let entry = report.iter().find(|r| r.algorithm == rule.algorithm).expect(rule.algorithm);
            assert!(entry.built.contains(&rule.backend), "{} has no backend {}", rule.algorithm, rule.backend);
        }
    }
}
