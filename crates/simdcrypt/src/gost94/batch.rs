//! Many messages at once: a scheduler that keeps [`LANES`] messages in the lanes of a
//! multi-message kernel, one step per message per call, and refills a lane with the next
//! message as soon as its digest is out, so ragged lengths cost no idle lanes until the
//! queue runs dry.

use super::{add256, Platform, SBox, Tables, BLOCK_LEN, OUT_LEN};

/// Messages per multi-message kernel call.
pub(crate) const LANES: usize = 16;

/// States or message blocks of all lanes, word-major: `[k][lane]` is 32-bit word k of the
/// lane's 256-bit value (word 2i is the low half of 64-bit word i).
pub(crate) type Lanes = [[u32; LANES]; 8];

/// Below this many busy lanes with nothing left to refill them, the remaining messages
/// finish one at a time: a multi-message step costs about as much as a few one-message
/// steps whatever the number of busy lanes.
const MIN_BUSY: usize = 3;

/// Where one message is in its sequence of steps: its blocks (the last one zero-padded),
/// then the bit length, then the checksum Σ.
struct Cursor {
    index: usize,
    step: usize,
    sigma: [u64; 4],
}

impl Cursor {
    fn new(index: usize) -> Self {
        Cursor { index, step: 0, sigma: [0; 4] }
    }

    /// The next step's M, or `None` when the message is done.
    fn next_m(&mut self, msg: &[u8]) -> Option<[u64; 4]> {
        let blocks = msg.len().div_ceil(BLOCK_LEN);
        let m = if self.step < blocks {
            let start = self.step * BLOCK_LEN;
            let rest = &msg[start..msg.len().min(start + BLOCK_LEN)];
            let m = if rest.len() == BLOCK_LEN {
                // A whole block straight from the message (the copy below was a `memcpy`
                // call per block).
                super::load_block(rest)
            } else {
                let mut block = [0u8; BLOCK_LEN];
                block[..rest.len()].copy_from_slice(rest);
                super::load_block(&block)
            };
            add256(&mut self.sigma, &m);
            m
        } else if self.step == blocks {
            let bits = (msg.len() as u128) * 8;
            [bits as u64, (bits >> 64) as u64, 0, 0]
        } else if self.step == blocks + 1 {
            self.sigma
        } else {
            return None;
        };
        self.step += 1;
        Some(m)
    }

    fn done(&self, msg: &[u8]) -> bool {
        self.step == msg.len().div_ceil(BLOCK_LEN) + 2
    }
}

fn write_digest(out: &mut [u8], index: usize, h: [u64; 4]) {
    for (bytes, word) in out[OUT_LEN * index..OUT_LEN * (index + 1)].chunks_exact_mut(8).zip(h) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
}

/// Finishes one message from state `h` with one-message steps.
fn finish_one(platform: Platform, t: &Tables, msg: &[u8], mut cursor: Cursor, mut h: [u64; 4], out: &mut [u8]) {
    while let Some(m) = cursor.next_m(msg) {
        h = platform.step(t, h, m);
    }
    write_digest(out, cursor.index, h);
}

/// Writes the digest of `msgs[i]` at `out[32 * i..]` on this thread.
pub(crate) fn hash_serial(platform: Platform, sbox: SBox, msgs: &[&[u8]], out: &mut [u8]) {
    let t = sbox.tables();
    let mut hs: Lanes = [[0; LANES]; 8];
    let ms: Lanes = [[0; LANES]; 8];
    if msgs.len() < MIN_BUSY || !platform.step_lanes(t, &mut hs, &ms) {
        for (i, msg) in msgs.iter().enumerate() {
            let mut h = super::Gost94::new(sbox);
            h.set_platform(platform);
            out[OUT_LEN * i..OUT_LEN * (i + 1)].copy_from_slice(&h.update(msg).finalize());
        }
        return;
    }
    let mut lanes: [Option<Cursor>; LANES] = core::array::from_fn(|_| None);
    let mut next = 0;
    let mut ms: Lanes = [[0; LANES]; 8];
    loop {
        // Refill idle lanes, H = 0.
        for (l, lane) in lanes.iter_mut().enumerate() {
            if lane.is_none() && next < msgs.len() {
                *lane = Some(Cursor::new(next));
                next += 1;
                hs.iter_mut().for_each(|row| row[l] = 0);
            }
        }
        let busy = lanes.iter().filter(|c| c.is_some()).count();
        if busy == 0 {
            return;
        }
        if busy < MIN_BUSY {
            for (l, lane) in lanes.iter_mut().enumerate() {
                if let Some(cursor) = lane.take() {
                    let h = core::array::from_fn(|i| hs[2 * i][l] as u64 | (hs[2 * i + 1][l] as u64) << 32);
                    finish_one(platform, t, msgs[cursor.index], cursor, h, out);
                }
            }
            return;
        }
        for (l, lane) in lanes.iter_mut().enumerate() {
            let m = match lane {
                Some(cursor) => cursor.next_m(msgs[cursor.index]).expect("a busy lane has a step left"),
                None => [0; 4],
            };
            for (i, word) in m.into_iter().enumerate() {
                ms[2 * i][l] = word as u32;
                ms[2 * i + 1][l] = (word >> 32) as u32;
            }
        }
        platform.step_lanes(t, &mut hs, &ms);
        for (l, lane) in lanes.iter_mut().enumerate() {
            if lane.as_ref().is_some_and(|c| c.done(msgs[c.index])) {
                let cursor = lane.take().expect("checked above");
                let h = core::array::from_fn(|i| hs[2 * i][l] as u64 | (hs[2 * i + 1][l] as u64) << 32);
                write_digest(out, cursor.index, h);
            }
        }
    }
}
