//! What the batch kernels share: the padding block's message schedule (every message is
//! one 64-byte block, so its second block is always the same) and the walk over whole
//! groups of lanes. The kernels import this file and the dispatcher (`batch.rs`) imports
//! the kernels, so neither imports the other.
//!
//! ## What this file holds
//!
//! what the batch kernels share: `PADDING_WK` (the padding block's schedule, computed at
//! compile time) and `for_each_group` (whole groups plus a padded remainder)

use super::{portable, BLOCK_LEN, OUT_LEN};

/// W(t) + K(t) for the padding block of a 64-byte message: W(0) = 0x80000000,
/// W(1..15) = 0, W(15) = 512 (the length in bits), extended by the FIPS 180-4 schedule.
pub(crate) const PADDING_WK: [u32; 64] = padding_wk();

const fn padding_wk() -> [u32; 64] {
    let mut words = [0u32; 16];
    words[0] = 0x8000_0000;
    words[15] = (BLOCK_LEN * 8) as u32;
    portable::schedule_wk(words)
}

/// Runs a `LANES`-wide kernel over whole groups of blocks, and once more over the last
/// group padded with zero blocks (whose digests are dropped). `out` holds a digest per block.
#[inline(always)]
pub(crate) fn for_each_group<const LANES: usize>(
    blocks: &[u8],
    out: &mut [u8],
    mut kernel: impl FnMut(&[[u8; BLOCK_LEN]; LANES], &mut [[u8; OUT_LEN]; LANES]),
) {
    let (blocks, _) = blocks.as_chunks::<BLOCK_LEN>();
    let (out, _) = out.as_chunks_mut::<OUT_LEN>();
    let mut groups_in = blocks.chunks_exact(LANES);
    let mut groups_out = out.chunks_exact_mut(LANES);
    for (group_in, group_out) in (&mut groups_in).zip(&mut groups_out) {
        kernel(group_in.try_into().expect("a whole group"), group_out.try_into().expect("a whole group"));
    }
    let (rest_in, rest_out) = (groups_in.remainder(), groups_out.into_remainder());
    if !rest_in.is_empty() {
        let n = rest_in.len().min(rest_out.len());
        let mut padded_in = [[0u8; BLOCK_LEN]; LANES];
        let mut padded_out = [[0u8; OUT_LEN]; LANES];
        padded_in[..n].copy_from_slice(&rest_in[..n]);
        kernel(&padded_in, &mut padded_out);
        rest_out[..n].copy_from_slice(&padded_out[..n]);
    }
}
