//! Gear-scan backend selection and the one dispatch point into the scan kernels.
//!
//! ## What this file holds
//!
//! `Platform` (the backend of the Gear scan) and `Platform::scan`, the single place that
//! enters a scan kernel; every kernel reports exactly the candidates of `portable::scan`

use super::portable;
use super::scan::Gear;

crate::backend::kernel_kinds! {
    algorithm: "gear",
    /// A Gear-scan kernel this CPU can run: chosen once per chunking call; every scan goes
    /// through [`Platform::scan`](crate::backend::Checked), the only place that enters a kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// Plain Rust, any CPU.
        Portable = "portable",
    }
}

impl Platform {
    /// Appends to `out` the candidates (encoded as in [`super::scan`]) of positions
    /// `from..data.len()` of `data`, position `i` reported as `base + i`.
    pub(crate) fn scan(self, gear: &Gear, data: &[u8], from: usize, base: u64, out: &mut Vec<u64>) {
        match self.kind() {
            Kind::Portable => portable::scan(gear, data, from, base, out),
        }
    }
}
