//! The Gear scan in plain Rust: the reference every SIMD kernel is tested against.
//!
//! ## What this file holds
//!
//! `scan`: one rolling Gear hash over the buffer, warmed up on the [`WINDOW`] bytes before
//! `from`, reporting every position whose hash matches either mask

use super::scan::{Gear, WINDOW};

/// Appends the candidates of positions `from..data.len()` (see [`super::scan`]).
pub(crate) fn scan(gear: &Gear, data: &[u8], from: usize, base: u64, out: &mut Vec<u64>) {
    let table = gear.table;
    let mut h = 0u64;
    for &b in &data[from.saturating_sub(WINDOW)..from] {
        h = (h << 1).wrapping_add(table[usize::from(b)]);
    }
    // A position can only match if it matches the bits both masks share.
    let both = gear.mask_a & gear.mask_b;
    for (i, &b) in data[from..].iter().enumerate() {
        h = (h << 1).wrapping_add(table[usize::from(b)]);
        if h & both == 0 {
            let flags = gear.flags(h);
            if flags != 0 {
                out.push(((base + (from + i) as u64) << 2) | flags);
            }
        }
    }
}
