//! Gear-scan backend selection and the one dispatch point into the scan kernels.
//!
//! ## What this file holds
//!
//! `Platform` (the backend of the Gear scan) and `Platform::scan`, the single place that
//! enters a scan kernel; every kernel reports exactly the candidates of `portable::scan`

#[cfg(target_arch = "aarch64")]
use super::neon;
use super::scan::Gear;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use super::{interleaved, portable};

crate::backend::kernel_kinds! {
    algorithm: "gear",
    /// A Gear-scan kernel this CPU can run: chosen once per chunking call; every scan goes
    /// through [`Platform::scan`](crate::backend::Checked), the only place that enters a kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// x86-64 AVX-512 F: 24 segments at a time, table lookups by gather.
        Avx512 = "avx512" on "x86_64" needs [Avx2, Avx512F],
        /// x86-64 AVX2: 8 segments at a time, table lookups by gather.
        Avx2 = "avx2" on "x86_64" needs [Avx, Avx2],
        /// aarch64 NEON: 4 segments at a time.
        Neon = "neon" on "aarch64" needs [Neon],
        /// Plain Rust, any CPU: 8 segments interleaved in 64-bit registers, no gathers.
        // Above portable everywhere (independent segments keep more instructions in flight);
        // below the gather kernels, which measured faster (BENCHMARKS.md, "Content-defined
        // chunking"), and below NEON, not measured against it.
        Scalar = "scalar",
        /// Plain Rust, any CPU: one rolling hash, the reference the others are tested against.
        Portable = "portable",
    }
}

impl Platform {
    /// Appends to `out` the candidates (encoded as in [`super::scan`]) of positions
    /// `from..data.len()` of `data`, position `i` reported as `base + i`.
    pub(crate) fn scan(self, gear: &Gear, data: &[u8], from: usize, base: u64, out: &mut Vec<u64>) {
        match self.kind() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a Platform of this kind exists only once AVX-512 F was found.
            Kind::Avx512 => unsafe { avx512::scan::<3, 24>(gear, data, from, base, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a Platform of this kind exists only once AVX2 was found.
            Kind::Avx2 => unsafe { avx2::scan::<2, 8>(gear, data, from, base, out) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: a Platform of this kind exists only once NEON was found.
            Kind::Neon => unsafe { neon::scan(gear, data, from, base, out) },
            Kind::Scalar => interleaved::scan::<8>(gear, data, from, base, out),
            Kind::Portable => portable::scan(gear, data, from, base, out),
        }
    }
}
