//! Chaining values of subtrees, and merging them: hashing one input in pieces on several
//! machines. The rules match the official crate's `hazmat` module:
//!
//! - a subtree starts at a multiple of [`CHUNK_LEN`];
//! - a subtree starting at a nonzero offset is at most [`max_subtree_len`] bytes long (the
//!   largest power of two dividing the offset) and not empty;
//! - two subtrees merge only where BLAKE3's tree has a parent: the left one is a complete
//!   subtree of [`left_subtree_len`] bytes of the parent's input.
//!
//! ```
//! use simdcrypt::blake3::{self, subtree, Mode};
//!
//! let input = vec![7u8; 5000];
//! let split = subtree::left_subtree_len(input.len() as u64) as usize; // 4096
//! let left = subtree::chaining_value(Mode::Hash, &input[..split], 0).unwrap();
//! let right = subtree::chaining_value(Mode::Hash, &input[split..], split as u64).unwrap();
//! let mut digest = [0u8; 32];
//! subtree::merge_root(&left, &right, Mode::Hash).fill(&mut digest);
//! assert_eq!(digest, blake3::hash(&input));
//! ```
//!
//! ## What this file holds
//!
//! chaining values of chunk-aligned subtrees and merging them (the official crate's hazmat
//! rules, checked with clear errors)

use super::{parent_output, Hasher, Mode, OutputReader, CHUNK_LEN, OUT_LEN};
use crate::Error;

/// A subtree's or chunk's 32-byte chaining value.
pub type ChainingValue = [u8; OUT_LEN];

/// The largest subtree that may start at `offset` (a multiple of [`CHUNK_LEN`]); `None`
/// for offset 0, where any length is allowed.
pub fn max_subtree_len(offset: u64) -> Option<u64> {
    (offset != 0).then(|| offset & offset.wrapping_neg())
}

/// The length of the left child of a parent node covering `input_len` bytes (more than one
/// chunk): the largest power-of-two number of chunks that leaves at least one byte over.
pub fn left_subtree_len(input_len: u64) -> u64 {
    assert!(input_len > CHUNK_LEN as u64, "a parent node covers more than one chunk");
    let full_chunks = (input_len - 1) / CHUNK_LEN as u64;
    (1u64 << (63 - full_chunks.leading_zeros())) * CHUNK_LEN as u64
}

/// Checks that `len` bytes at `offset` can be a subtree.
pub fn check_subtree(offset: u64, len: u64) -> Result<(), Error> {
    if !offset.is_multiple_of(CHUNK_LEN as u64) {
        return Err(Error::InvalidArgument(format!(
            "subtree offset {offset} is not a multiple of the chunk length {CHUNK_LEN}"
        )));
    }
    if let Some(max) = max_subtree_len(offset) {
        if len == 0 {
            return Err(Error::InvalidArgument(format!("a subtree at offset {offset} must not be empty")));
        }
        if len > max {
            return Err(Error::InvalidArgument(format!(
                "a subtree at offset {offset} can be at most {max} bytes (the largest power of two \
                 dividing the offset), got {len}"
            )));
        }
    }
    Ok(())
}

/// The chaining value of the subtree `data` that starts `offset` bytes into the whole input.
pub fn chaining_value(mode: Mode<'_>, data: &[u8], offset: u64) -> Result<ChainingValue, Error> {
    let mut hasher = Hasher::for_mode(mode);
    hasher.set_input_offset(offset, data.len() as u64)?;
    hasher.update(data);
    Ok(hasher.finalize_non_root())
}

/// The chaining value of the parent of two subtrees (not the root).
pub fn merge_non_root(left: &ChainingValue, right: &ChainingValue, mode: Mode<'_>) -> ChainingValue {
    let (key, flags) = mode.key_and_flags();
    parent_output(left, right, &key, flags, Hasher::for_mode(mode).platform()).chaining_value()
}

/// The root output of the parent of two subtrees: the digest of the whole input, of any
/// length from any position.
pub fn merge_root(left: &ChainingValue, right: &ChainingValue, mode: Mode<'_>) -> OutputReader {
    let (key, flags) = mode.key_and_flags();
    let output = parent_output(left, right, &key, flags, Hasher::for_mode(mode).platform());
    OutputReader { output, position: 0 }
}
