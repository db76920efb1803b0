//! Checkpoints: the state of an unfinished hash as bytes, to resume later (in another
//! process, on another machine: the state is the same on every backend and CPU).
//!
//! [`HighwayHasher::export`] writes simdcrypt's state format version 2, the container every
//! streaming hasher shares ([`crate::state`], docs/state-format.md): name
//! `highwayhash64`/`128`/`256`, no params, fields = input length (u64), the state (v0, v1,
//! mul0, mul1: sixteen u64), the buffered bytes (a length byte and 32 bytes, zero-padded);
//! the checksum is keyed from the hash's key. [`HighwayHasher::restore`] also reads the
//! version-1 checkpoints of earlier builds:
//!
//! # Format, version 1 (200 bytes, integers little-endian; read only)
//!
//! | offset | size | content |
//! | --- | --- | --- |
//! | 0 | 4 | magic `SCCP` (simdcrypt checkpoint) |
//! | 4 | 2 | format version, 1 |
//! | 6 | 16 | algorithm and output size, ASCII, NUL-padded: `highwayhash64`, `highwayhash128` or `highwayhash256` |
//! | 22 | 1 | bytes buffered of an incomplete packet, 0 to 31 |
//! | 23 | 1 | reserved, 0 |
//! | 24 | 8 | input length so far (modulo 2^64) |
//! | 32 | 128 | the state: v0, v1, mul0, mul1, four u64 each |
//! | 160 | 32 | the buffered bytes, zero-padded |
//! | 192 | 8 | checksum: HighwayHash-64, under the hash's own key, of bytes 0 to 191 |
//!
//! Restoring checks the magic, the version, the algorithm and size, the lengths and the
//! checksum, and says which failed. The checksum detects damage; because it is keyed, a
//! blob also fails to restore under a different key. A checkpoint reveals as much as the
//! key (the state is the key mixed with the input so far): keep it as secret.
//!
//! ## What this file holds
//!
//! `export` / `restore`: HighwayHash's fields in the shared state format (`state.rs`), and the
//! version-1 checkpoints of earlier builds (magic, version, algorithm+size name, counts,
//! state, buffer, keyed HighwayHash-64 checksum), still read

use super::algorithm::SizedHighwayHasher;
use super::{HighwayHasher, Platform, Size, State, KEY_LEN, PACKET_LEN};
use crate::block_buffer::BlockBuffer;
use crate::state::{self, Writer};
use crate::Error;

/// The length of a version-1 checkpoint (the format earlier builds wrote), in bytes.
pub const CHECKPOINT_LEN: usize = 200;

const MAGIC: &[u8; 4] = b"SCCP";
const VERSION_1: u16 = 1;
const NAME_AT: usize = 6;
const NAME_LEN: usize = 16;
const BUFFERED_AT: usize = 22;
const COUNT_AT: usize = 24;
const STATE_AT: usize = 32;
const BUF_AT: usize = 160;
const SUM_AT: usize = 192;

fn checksum(key: &[u8; KEY_LEN], body: &[u8]) -> u64 {
    let state = Platform::detect().hash(key, body, Size::Bits64.rounds());
    let mut out = [0u64; 1];
    state.output(Size::Bits64, &mut out);
    out[0]
}

fn size_of_name(name: &str) -> Option<Size> {
    [Size::Bits64, Size::Bits128, Size::Bits256].into_iter().find(|s| s.name() == name)
}

impl HighwayHasher {
    /// The unfinished state as a checkpoint for the `size` result, in simdcrypt's state
    /// format (version 2, docs/state-format.md). [`HighwayHasher::restore`] with the same
    /// key and size resumes it.
    pub fn export(&self, size: Size) -> Vec<u8> {
        let s = &self.state;
        let mut fields = Writer::default();
        fields.u64s(&[self.buf.total()]).u64s(&s.v0).u64s(&s.v1).u64s(&s.mul0).u64s(&s.mul1).pending(&self.buf);
        state::seal(size.name(), &[], &fields.bytes, Some(&self.key))
    }

    /// The key (what [`HighwayHasher::restore`] needs with a checkpoint).
    pub fn key(&self) -> [u8; KEY_LEN] {
        self.key
    }

    /// Resumes a hash from a checkpoint made by [`HighwayHasher::export`] (or a version-1
    /// checkpoint of an earlier build) for the `size` result under `key`, with the detected
    /// backend.
    ///
    /// Returns [`Error::InvalidArgument`] saying what is wrong if the blob is not a
    /// simdcrypt checkpoint, has another format version, belongs to another algorithm or
    /// output size, is damaged, or was made with another key.
    pub fn restore(blob: &[u8], key: &[u8; KEY_LEN], size: Size) -> Result<HighwayHasher, Error> {
        if blob.len() >= 6 && &blob[..4] == MAGIC && u16::from_le_bytes([blob[4], blob[5]]) == VERSION_1 {
            return Self::restore_v1(blob, key, size);
        }
        let opened = state::open(blob, size.name(), Some(key))?;
        opened.params.finish()?;
        let mut f = opened.fields;
        let len = f.u64()?;
        let state = State { v0: f.u64s()?, v1: f.u64s()?, mul0: f.u64s()?, mul1: f.u64s()? };
        let buf = f.pending(size.name(), len)?;
        f.finish()?;
        Ok(HighwayHasher { state, buf, key: *key, platform: Platform::detect() })
    }

    /// Reads a version-1 checkpoint (the format earlier builds wrote).
    fn restore_v1(blob: &[u8], key: &[u8; KEY_LEN], size: Size) -> Result<HighwayHasher, Error> {
        let bad = |msg: String| Err(Error::InvalidArgument(msg));
        if blob.len() < COUNT_AT || &blob[..4] != MAGIC {
            return bad(format!("not a simdcrypt checkpoint (expected {CHECKPOINT_LEN} bytes starting with \"SCCP\")"));
        }
        let version = u16::from_le_bytes([blob[4], blob[5]]);
        if version != VERSION_1 {
            return bad(format!("checkpoint format version {version} is not supported (expected {VERSION_1})"));
        }
        let name_field = &blob[NAME_AT..NAME_AT + NAME_LEN];
        let name_len = name_field.iter().position(|&c| c == 0).unwrap_or(NAME_LEN);
        let name = &name_field[..name_len];
        if name != size.name().as_bytes() {
            let printable = !name.is_empty() && name.iter().all(|c| c.is_ascii_graphic());
            return if printable {
                bad(format!("checkpoint is for {}, not {}", String::from_utf8_lossy(name), size.name()))
            } else {
                bad(format!("damaged checkpoint: unreadable algorithm name (expected {})", size.name()))
            };
        }
        if blob.len() != CHECKPOINT_LEN {
            return bad(format!(
                "damaged checkpoint: {} bytes, a version-1 checkpoint has {CHECKPOINT_LEN}",
                blob.len()
            ));
        }
        let stored = u64::from_le_bytes(blob[SUM_AT..].try_into().unwrap());
        if checksum(key, &blob[..SUM_AT]) != stored {
            return bad("checkpoint checksum mismatch: the blob is damaged or was made with another key".to_string());
        }
        let buf_len = usize::from(blob[BUFFERED_AT]);
        if buf_len >= PACKET_LEN || blob[BUFFERED_AT + 1] != 0 {
            return bad(format!("damaged checkpoint: {buf_len} buffered bytes (at most {})", PACKET_LEN - 1));
        }
        let word = |i: usize| u64::from_le_bytes(blob[STATE_AT + 8 * i..STATE_AT + 8 * i + 8].try_into().unwrap());
        let state = State {
            v0: core::array::from_fn(word),
            v1: core::array::from_fn(|i| word(4 + i)),
            mul0: core::array::from_fn(|i| word(8 + i)),
            mul1: core::array::from_fn(|i| word(12 + i)),
        };
        let total = u64::from_le_bytes(blob[COUNT_AT..COUNT_AT + 8].try_into().unwrap());
        // As in version 2 (`state::Reader::pending`): the bytes buffered are the input
        // length modulo a packet, else the hasher would export a state it cannot restore.
        if total % PACKET_LEN as u64 != buf_len as u64 {
            return bad(format!("damaged checkpoint: {buf_len} buffered bytes after {total} bytes of input"));
        }
        let buf = BlockBuffer::from_parts(&blob[BUF_AT..BUF_AT + buf_len], total).expect("checked: under a packet");
        Ok(HighwayHasher { state, buf, key: *key, platform: Platform::detect() })
    }
}

impl SizedHighwayHasher {
    /// The unfinished hash as a state for its result size (see [`HighwayHasher::export`]).
    pub fn export(&self) -> Vec<u8> {
        self.hasher.export(self.size)
    }

    /// Resumes a hash from a state made by [`SizedHighwayHasher::export`] (any of the three
    /// sizes: the state names it) under `key` (required, 32 bytes).
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Self, Error> {
        let name = match v1_name(blob) {
            Some(name) => name,
            None => state::algorithm_of(blob)?,
        };
        let size = size_of_name(name)
            .ok_or_else(|| Error::InvalidArgument(format!("this is a state of {name}, expected highwayhash")))?;
        let key = key.ok_or_else(|| {
            Error::InvalidArgument(format!("this {} state is keyed: restoring it needs the same key", size.name()))
        })?;
        let key: &[u8; KEY_LEN] = key.try_into().map_err(|_| Error::InvalidLength {
            what: "highwayhash key",
            expected: KEY_LEN,
            got: key.len(),
        })?;
        Ok(SizedHighwayHasher { hasher: HighwayHasher::restore(blob, key, size)?, size })
    }
}

/// The algorithm name of a version-1 checkpoint, if it is one.
fn v1_name(blob: &[u8]) -> Option<&str> {
    if blob.len() < NAME_AT + NAME_LEN || &blob[..4] != MAGIC || u16::from_le_bytes([blob[4], blob[5]]) != VERSION_1 {
        return None;
    }
    let field = &blob[NAME_AT..NAME_AT + NAME_LEN];
    let len = field.iter().position(|&c| c == 0).unwrap_or(NAME_LEN);
    std::str::from_utf8(&field[..len]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-1 checkpoint as earlier builds wrote it (the layout in the module docs).
    fn export_v1(h: &HighwayHasher, size: Size) -> [u8; CHECKPOINT_LEN] {
        let mut b = [0u8; CHECKPOINT_LEN];
        b[..4].copy_from_slice(MAGIC);
        b[4..6].copy_from_slice(&VERSION_1.to_le_bytes());
        b[NAME_AT..NAME_AT + size.name().len()].copy_from_slice(size.name().as_bytes());
        b[BUFFERED_AT] = h.buf.pending().len() as u8;
        b[COUNT_AT..COUNT_AT + 8].copy_from_slice(&h.buf.total().to_le_bytes());
        let s = &h.state;
        let words = s.v0.iter().chain(&s.v1).chain(&s.mul0).chain(&s.mul1);
        for (chunk, w) in b[STATE_AT..BUF_AT].chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        b[BUF_AT..BUF_AT + h.buf.pending().len()].copy_from_slice(h.buf.pending());
        let sum = checksum(&h.key, &b[..SUM_AT]);
        b[SUM_AT..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    #[test]
    fn damage_anywhere_is_detected_in_both_versions() {
        let key = [3u8; 32];
        let mut h = HighwayHasher::new(&key);
        h.update(&[9u8; 45]);
        for blob in [h.export(Size::Bits128), export_v1(&h, Size::Bits128).to_vec()] {
            for i in 0..blob.len() {
                for bit in [0, 3, 7] {
                    let mut damaged = blob.clone();
                    damaged[i] ^= 1 << bit;
                    assert!(HighwayHasher::restore(&damaged, &key, Size::Bits128).is_err(), "byte {i} bit {bit}");
                }
            }
            let back = HighwayHasher::restore(&blob, &key, Size::Bits128).unwrap();
            assert_eq!(back.finalize128(), h.finalize128());
            assert_eq!(back.count(), 45);
            assert!(HighwayHasher::restore(&blob, &[4u8; 32], Size::Bits128).is_err());
            assert!(HighwayHasher::restore(&blob, &key, Size::Bits64).is_err());
            let sized = SizedHighwayHasher::restore(&blob, Some(&key)).unwrap();
            assert_eq!(sized.size, Size::Bits128);
        }
    }
}
