//! HighwayHash in plain Rust: the reference every SIMD kernel is tested against.
//!
//! The state is four 256-bit vectors held as `[u64; 4]` (see [`State`]); each step below is
//! the lane-wise operation the SIMD kernels do with one instruction.
//!
//! ## What this file holds
//!
//! plain Rust rounds (the zipper merge as a byte table, `ZIPPER`, shared with the kernels):
//! the reference every backend is tested against

use super::{key_words, remainder_packet, State, KEY_LEN, PACKET_LEN};

#[inline(always)]
fn load_packet(packet: &[u8]) -> [u64; 4] {
    core::array::from_fn(|i| u64::from_le_bytes(packet[8 * i..8 * i + 8].try_into().unwrap()))
}

/// ZipperMerge: the byte permutation that moves each 128-bit pair's well-mixed bytes (the
/// multiplication products' middle bytes) to where the next multiplication will use them.
/// Output byte `i` of a 16-byte pair (low word first, little-endian) is input byte
/// `ZIPPER[i]`.
pub(crate) const ZIPPER: [u8; 16] = [3, 12, 2, 5, 14, 1, 15, 0, 11, 4, 10, 13, 9, 6, 8, 7];

#[inline(always)]
fn zipper_merge(lo: u64, hi: u64) -> (u64, u64) {
    let mut src = [0u8; 16];
    src[..8].copy_from_slice(&lo.to_le_bytes());
    src[8..].copy_from_slice(&hi.to_le_bytes());
    let out: [u8; 16] = core::array::from_fn(|i| src[ZIPPER[i] as usize]);
    (u64::from_le_bytes(out[..8].try_into().unwrap()), u64::from_le_bytes(out[8..].try_into().unwrap()))
}

/// One round on a packet of four little-endian words.
#[inline(always)]
pub(crate) fn update(s: &mut State, lanes: [u64; 4]) {
    // Lane i of four arrays at once: an index reads plainer than a four-way zip.
    #[allow(clippy::needless_range_loop)]
    for i in 0..4 {
        s.v1[i] = s.v1[i].wrapping_add(s.mul0[i].wrapping_add(lanes[i]));
        s.mul0[i] ^= (s.v1[i] & 0xffff_ffff).wrapping_mul(s.v0[i] >> 32);
        s.v0[i] = s.v0[i].wrapping_add(s.mul1[i]);
        s.mul1[i] ^= (s.v0[i] & 0xffff_ffff).wrapping_mul(s.v1[i] >> 32);
    }
    for pair in [0, 2] {
        let (lo, hi) = zipper_merge(s.v1[pair], s.v1[pair + 1]);
        s.v0[pair] = s.v0[pair].wrapping_add(lo);
        s.v0[pair + 1] = s.v0[pair + 1].wrapping_add(hi);
    }
    for pair in [0, 2] {
        let (lo, hi) = zipper_merge(s.v0[pair], s.v0[pair + 1]);
        s.v1[pair] = s.v1[pair].wrapping_add(lo);
        s.v1[pair + 1] = s.v1[pair + 1].wrapping_add(hi);
    }
}

/// Hashes whole 32-byte packets.
pub(crate) fn update_packets(s: &mut State, packets: &[u8]) {
    debug_assert!(packets.len().is_multiple_of(PACKET_LEN));
    for packet in packets.chunks_exact(PACKET_LEN) {
        update(s, load_packet(packet));
    }
}

/// Hashes the final partial packet (1 to 31 bytes), then does `rounds` permute-and-update
/// rounds: the state is then ready for the output functions.
#[inline(always)]
pub(crate) fn finish(s: &mut State, remainder: &[u8], rounds: usize) {
    if !remainder.is_empty() {
        let n = remainder.len() as u64;
        for i in 0..4 {
            s.v0[i] = s.v0[i].wrapping_add((n << 32) | n);
            let lo = (s.v1[i] as u32).rotate_left(n as u32);
            let hi = ((s.v1[i] >> 32) as u32).rotate_left(n as u32);
            s.v1[i] = u64::from(lo) | (u64::from(hi) << 32);
        }
        update(s, load_packet(&remainder_packet(remainder)));
    }
    for _ in 0..rounds {
        let v0 = s.v0;
        update(s, [v0[2].rotate_left(32), v0[3].rotate_left(32), v0[0].rotate_left(32), v0[1].rotate_left(32)]);
    }
}

/// A whole message: state from the key, packets, finish.
#[inline(always)]
pub(crate) fn hash(key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
    let mut s = State::new(&key_words(key));
    let whole = data.len() - data.len() % PACKET_LEN;
    update_packets(&mut s, &data[..whole]);
    finish(&mut s, &data[whole..], rounds);
    s
}
