//! Many messages at once: a scheduler that keeps [`LANES`] messages in the lanes of a
//! multi-message kernel, one step per message per call, and refills a lane with the next
//! message as soon as its digest is out, so ragged lengths cost no idle lanes until the
//! queue runs dry.
//!
//! ## What this file holds
//!
//! `hash_many`'s scheduler: 16 messages in the lanes, a lane refilled as soon as its message
//! finishes (ragged lengths), the last few finished one at a time

use super::{add256, Platform, SBox, Tables, BLOCK_LEN, OUT_LEN};

/// Messages per multi-message kernel call.
pub(crate) const LANES: usize = 16;

/// States or message blocks of all lanes, word-major: `[k][lane]` is 32-bit word k of the
/// lane's 256-bit value (word 2i is the low half of 64-bit word i).
pub(crate) type Lanes = [[u32; LANES]; 8];

/// Lane `l`'s 256-bit value as four 64-bit words.
pub(crate) fn lane_words(v: &Lanes, l: usize) -> [u64; 4] {
    core::array::from_fn(|i| v[2 * i][l] as u64 | (v[2 * i + 1][l] as u64) << 32)
}

/// Sets lane `l`'s 256-bit value from four 64-bit words.
pub(crate) fn set_lane_words(v: &mut Lanes, l: usize, words: [u64; 4]) {
    for (i, word) in words.into_iter().enumerate() {
        v[2 * i][l] = word as u32;
        v[2 * i + 1][l] = (word >> 32) as u32;
    }
}

/// Below this many busy lanes with nothing left to refill them, the remaining messages
/// finish one at a time: a multi-message step costs about as much as a few one-message
/// steps whatever the number of busy lanes.
const MIN_BUSY: usize = 3;

/// Where one message is in its sequence of steps: its blocks (the last one zero-padded),
/// then the bit length, then the checksum Σ.
struct Cursor<'m> {
    msg: &'m [u8],
    /// The message's place in the batch (where its digest goes).
    index: usize,
    /// The next step.
    step: usize,
    /// How many blocks the message has (the last one possibly partial).
    blocks: usize,
    sigma: [u64; 4],
}

impl<'m> Cursor<'m> {
    fn new(index: usize, msg: &'m [u8]) -> Self {
        Cursor { msg, index, step: 0, blocks: msg.len().div_ceil(BLOCK_LEN), sigma: [0; 4] }
    }

    /// The next step's M, or `None` when the message is done.
    fn next_m(&mut self) -> Option<[u64; 4]> {
        let m = if self.step < self.blocks {
            let start = self.step * BLOCK_LEN;
            let m = match self.msg.get(start..start + BLOCK_LEN) {
                // A whole block straight from the message (a copy into a padded block was a
                // `memcpy` call per block).
                Some(block) => super::load_block(block),
                None => {
                    let rest = &self.msg[start..];
                    let mut block = [0u8; BLOCK_LEN];
                    block[..rest.len()].copy_from_slice(rest);
                    super::load_block(&block)
                }
            };
            add256(&mut self.sigma, &m);
            m
        } else if self.step == self.blocks {
            let bits = (self.msg.len() as u128) * 8;
            [bits as u64, (bits >> 64) as u64, 0, 0]
        } else if self.step == self.blocks + 1 {
            self.sigma
        } else {
            return None;
        };
        self.step += 1;
        Some(m)
    }

    fn done(&self) -> bool {
        self.step == self.blocks + 2
    }
}

fn write_digest(out: &mut [u8], index: usize, h: [u64; 4]) {
    for (bytes, word) in out[OUT_LEN * index..OUT_LEN * (index + 1)].chunks_exact_mut(8).zip(h) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
}

/// Finishes one message from state `h` with one-message steps.
fn finish_one(platform: Platform, t: &Tables, mut cursor: Cursor<'_>, mut h: [u64; 4], out: &mut [u8]) {
    while let Some(m) = cursor.next_m() {
        h = platform.step(t, h, m);
    }
    write_digest(out, cursor.index, h);
}

/// Writes the digest of `msgs[i]` at `out[32 * i..]` on this thread.
pub(crate) fn hash_serial(platform: Platform, sbox: SBox, msgs: &[&[u8]], out: &mut [u8]) {
    let t = sbox.tables();
    if msgs.len() < MIN_BUSY || !platform.has_lanes() {
        for (i, msg) in msgs.iter().enumerate() {
            let mut h = super::Gost94::new(sbox);
            h.set_platform(platform);
            out[OUT_LEN * i..OUT_LEN * (i + 1)].copy_from_slice(&h.update(msg).finalize());
        }
        return;
    }
    // Every lane starts from H = 0, with a message (or stays empty when there are fewer).
    let mut hs: Lanes = [[0; LANES]; 8];
    let mut next = msgs.len().min(LANES);
    let mut lanes: [Option<Cursor<'_>>; LANES] = core::array::from_fn(|l| msgs.get(l).map(|m| Cursor::new(l, m)));
    let mut busy = next;
    let mut ms: Lanes = [[0; LANES]; 8];
    loop {
        if busy < MIN_BUSY {
            for (l, lane) in lanes.iter_mut().enumerate() {
                if let Some(cursor) = lane.take() {
                    finish_one(platform, t, cursor, lane_words(&hs, l), out);
                }
            }
            return;
        }
        for (l, lane) in lanes.iter_mut().enumerate() {
            let m = match lane {
                Some(cursor) => cursor.next_m().expect("a busy lane has a step left"),
                None => [0; 4],
            };
            set_lane_words(&mut ms, l, m);
        }
        platform.step_lanes(t, &mut hs, &ms);
        // Finished lanes give their digest and take the next message (H = 0), in one pass.
        for (l, lane) in lanes.iter_mut().enumerate() {
            let Some(cursor) = lane.as_ref().filter(|c| c.done()) else { continue };
            write_digest(out, cursor.index, lane_words(&hs, l));
            if let Some(msg) = msgs.get(next) {
                *lane = Some(Cursor::new(next, msg));
                next += 1;
                hs.iter_mut().for_each(|row| row[l] = 0);
            } else {
                *lane = None;
                busy -= 1;
            }
        }
    }
}
