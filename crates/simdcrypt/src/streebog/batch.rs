//! Many independent messages at once (`streebog_many`).
//!
//! One message's compressions form a chain, each waiting on the last; the AVX-512 kernel's
//! LPS has a long latency and leaves most of the core idle. The batch runs [`LANES`]
//! messages in lock step, one compression of each per kernel call, so that the kernel
//! interleaves four independent chains. A message whose compressions are done hands its
//! lane to the next message, so messages of any lengths mix.
//!
//! ## What this file holds
//!
//! `hash_many` (`Bits`): four messages in lock step, one compression each per kernel call,
//! lanes refilled as messages finish (any lengths); the thread split shared with GOST R
//! 34.11-94

use super::{add512, digest_bytes, load_block, Platform, State, BLOCK_LEN, LANES};
use crate::threads::{check_out_len, split_messages, Threads};
use crate::Error;

/// The digest size of a batch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bits {
    /// Streebog-256: 32-byte digests.
    B256,
    /// Streebog-512: 64-byte digests.
    B512,
}

impl Bits {
    /// `256` or `512`; anything else is an error that says so.
    pub fn from_bits(bits: u32) -> Result<Self, Error> {
        match bits {
            256 => Ok(Bits::B256),
            512 => Ok(Bits::B512),
            _ => Err(Error::InvalidArgument(format!("streebog bits must be 256 or 512, got {bits}"))),
        }
    }

    /// The digest length in bytes.
    pub fn out_len(self) -> usize {
        match self {
            Bits::B256 => 32,
            Bits::B512 => 64,
        }
    }
}

/// Writes the digest of `messages[i]` at `out[i * bits.out_len()..]`; `out` must be exactly
/// `messages.len() * bits.out_len()` bytes.
pub fn hash_many(
    messages: &[&[u8]],
    bits: Bits,
    out: &mut [u8],
    platform: Platform,
    threads: Threads,
) -> Result<(), Error> {
    let out_len = bits.out_len();
    check_out_len(messages.len(), out_len, out.len())?;
    split_messages(messages, out, out_len, threads, BLOCK_LEN, &|m, o| hash_serial(m, bits, o, platform));
    Ok(())
}

/// Where one lane's message stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Whole blocks left, or the padded last block next.
    Blocks,
    /// g_0(h, N) next.
    Length,
    /// g_0(h, Σ) next, then the digest.
    Checksum,
    /// No message.
    Idle,
}

struct Lane {
    state: State,
    index: usize,
    pos: usize,
    step: Step,
}

fn hash_serial(messages: &[&[u8]], bits: Bits, out: &mut [u8], platform: Platform) {
    let out_len = bits.out_len();
    let fresh = State::new(out_len);
    let mut next = 0;
    let mut lanes: [Lane; LANES] =
        core::array::from_fn(|_| Lane { state: fresh.clone(), index: 0, pos: 0, step: Step::Idle });
    let refill = |lane: &mut Lane, next: &mut usize| {
        if *next < messages.len() {
            *lane = Lane { state: fresh.clone(), index: *next, pos: 0, step: Step::Blocks };
            *next += 1;
        } else {
            lane.step = Step::Idle;
        }
    };
    for lane in lanes.iter_mut() {
        refill(lane, &mut next);
    }
    let mut h = [[0u64; 8]; LANES];
    let mut n = [[0u64; 8]; LANES];
    let mut m = [[0u64; 8]; LANES];
    while lanes.iter().any(|l| l.step != Step::Idle) {
        for (i, lane) in lanes.iter().enumerate() {
            h[i] = lane.state.h;
            let msg = messages.get(lane.index).copied().unwrap_or(&[]);
            (n[i], m[i]) = match lane.step {
                Step::Blocks if msg.len() - lane.pos >= BLOCK_LEN => (lane.state.n, load_block(&msg[lane.pos..])),
                Step::Blocks => {
                    let rest = &msg[lane.pos..];
                    let mut last = [0u8; BLOCK_LEN];
                    last[..rest.len()].copy_from_slice(rest);
                    last[rest.len()] = 1;
                    (lane.state.n, load_block(&last))
                }
                Step::Length => ([0; 8], lane.state.n),
                Step::Checksum => ([0; 8], lane.state.sigma),
                Step::Idle => ([0; 8], [0; 8]),
            };
        }
        // Every busy lane at its message's first compression (h = IV, N = 0): the key
        // schedule is precomputed, half the work.
        let first = lanes.iter().all(|l| l.step == Step::Idle || (l.step == Step::Blocks && l.pos == 0));
        if first {
            let keys = match bits {
                Bits::B256 => &super::tables::IV_KEYS_256,
                Bits::B512 => &super::tables::IV_KEYS_512,
            };
            platform.g_keys_lanes(&mut h, keys, &m);
        } else {
            platform.g_lanes(&mut h, &n, &m);
        }
        for (i, lane) in lanes.iter_mut().enumerate() {
            lane.state.h = h[i];
            match lane.step {
                Step::Blocks => {
                    let msg = messages[lane.index];
                    let rest = msg.len() - lane.pos;
                    if rest >= BLOCK_LEN {
                        lane.state.absorb(&m[i]);
                        lane.pos += BLOCK_LEN;
                    } else {
                        add512(&mut lane.state.n, &[8 * rest as u64, 0, 0, 0, 0, 0, 0, 0]);
                        add512(&mut lane.state.sigma, &m[i]);
                        lane.step = Step::Length;
                    }
                }
                Step::Length => lane.step = Step::Checksum,
                Step::Checksum => {
                    let o = &mut out[lane.index * out_len..][..out_len];
                    match bits {
                        Bits::B256 => o.copy_from_slice(&digest_bytes::<32>(&lane.state.h)),
                        Bits::B512 => o.copy_from_slice(&digest_bytes::<64>(&lane.state.h)),
                    }
                    refill(lane, &mut next);
                }
                Step::Idle => {}
            }
        }
    }
}
