//! Xet hashes: chunk hashes, the Merkle tree over them, the file hash and its text form.
//!
//! From xet-core `xet_core_structures/src/merklehash/` (`data_hash.rs`,
//! `aggregated_hashes.rs`), the code behind `hf_xet.hash_files` and the Hub's `xetHash`:
//!
//! - A chunk's hash is BLAKE3 keyed with [`DATA_KEY`] over the chunk's bytes.
//! - The tree is built level by level: a level's `(hash, size)` entries are cut into groups
//!   of 2 to 9 (after the third entry of a group, an entry whose hash, read as the
//!   little-endian `u64` of its bytes 24..32, is divisible by 4 closes the group; a group
//!   never exceeds 9; a group of the last 1 or 2 entries is allowed), and each group becomes
//!   one entry: BLAKE3 keyed with [`INTERNAL_NODE_KEY`] over the lines
//!   `"{hex} : {size}\n"` of its members, with the sum of their sizes. One entry left is the
//!   root.
//! - The file hash is BLAKE3 keyed with 32 zero bytes over the root's 32 bytes; an empty
//!   file's hash is 32 zero bytes.
//! - The text form ([`XetHash::to_hex`]) prints the 32 bytes as four little-endian `u64`s,
//!   each as 16 hex digits: every group of 8 bytes appears reversed.
//!
//! ## What this file holds
//!
//! `XetHash` (hex in Xet's order), the protocol's two keys, the chunk hashes on BLAKE3's batch
//! kernels, the Merkle tree (`xet_file_hash`)

use super::Chunk;
use crate::blake3::{self, Batch, Mode};
use crate::threads::Threads;
use crate::Error;

/// The key of chunk hashes: `DATA_KEY` in xet-core `xet_core_structures/src/merklehash/data_hash.rs`.
pub const DATA_KEY: [u8; 32] = [
    102, 151, 245, 119, 91, 149, 80, 222, 49, 53, 203, 172, 165, 151, 24, 28, 157, 228, 33, 16, 155, 235, 43, 88, 180,
    208, 176, 75, 147, 173, 242, 41,
];

/// The key of the Merkle tree's internal nodes: `INTERNAL_NODE_HASH` in xet-core
/// `xet_core_structures/src/merklehash/data_hash.rs`.
pub const INTERNAL_NODE_KEY: [u8; 32] = [
    1, 126, 197, 199, 165, 71, 41, 150, 253, 148, 102, 102, 180, 138, 2, 230, 93, 221, 83, 111, 55, 199, 109, 210, 248,
    99, 82, 230, 74, 83, 113, 63,
];

/// The mean branching of the tree: `AGGREGATED_HASHES_MEAN_TREE_BRANCHING_FACTOR` in xet-core
/// `xet_core_structures/src/merklehash/aggregated_hashes.rs`; groups have 2 to `2 * 4 + 1`.
const BRANCHING: u64 = 4;
const MAX_GROUP: usize = 2 * BRANCHING as usize + 1;

/// A Xet hash (a file hash, or any node of its tree): 32 bytes, printed in Xet's order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct XetHash(pub [u8; 32]);

impl XetHash {
    /// The text the Hub shows as `xetHash` and `hf_xet.hash_files` returns: 64 lower-case hex
    /// digits, each group of 8 bytes reversed (xet-core prints the hash as four
    /// little-endian `u64`s).
    pub fn to_hex(&self) -> String {
        let mut bytes = self.0;
        for group in bytes.chunks_exact_mut(8) {
            group.reverse();
        }
        crate::to_hex(&bytes)
    }

    /// Parses [`XetHash::to_hex`]'s text (either case).
    pub fn from_hex(s: &str) -> Result<XetHash, Error> {
        let digits = s.as_bytes();
        if digits.len() != 64 || !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(Error::InvalidArgument(format!(
                "a Xet hash must be 64 hex digits, got {:?}",
                s.chars().take(80).collect::<String>()
            )));
        }
        let nibble = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
        let mut bytes = [0u8; 32];
        for (i, pair) in digits.chunks_exact(2).enumerate() {
            bytes[i] = nibble(pair[0]) << 4 | nibble(pair[1]);
        }
        for group in bytes.chunks_exact_mut(8) {
            group.reverse();
        }
        Ok(XetHash(bytes))
    }
}

impl std::fmt::Display for XetHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Debug for XetHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "XetHash({})", self.to_hex())
    }
}

/// Writes the Xet chunk hashes of `messages` into `out` (32 bytes each), many chunks at a
/// time on BLAKE3's batch kernels, shared between up to `threads` threads by size.
pub(crate) fn chunk_hashes(messages: &[&[u8]], threads: Threads, out: &mut [u8]) {
    Batch::new(Mode::KeyedHash(&DATA_KEY))
        .set_max_threads(threads)
        .hash_into(messages, 32, out)
        .expect("the output holds 32 bytes per message");
}

/// Whether an entry closes its group: its hash's last 8 bytes, as a little-endian `u64`,
/// divisible by 4 (xet-core `is_natural_cut`, `DataHash % u64` reading `self[3]`).
fn closes_group(hash: &[u8; 32]) -> bool {
    u64::from_le_bytes(hash[24..32].try_into().expect("8 bytes")) % BRANCHING == 0
}

/// How many of `level`'s leading entries form the next group (xet-core `next_merge_cut`).
fn group_len(level: &[([u8; 32], u64)]) -> usize {
    if level.len() <= 2 {
        return level.len();
    }
    let end = MAX_GROUP.min(level.len());
    (2..end).find(|&i| closes_group(&level[i].0)).map_or(end, |i| i + 1)
}

/// One internal node: the keyed hash of its members' `"{hex} : {size}\n"` lines.
fn merge(group: &[([u8; 32], u64)]) -> ([u8; 32], u64) {
    let mut text = String::with_capacity(group.len() * 88);
    let mut size = 0u64;
    for (hash, len) in group {
        text.push_str(&XetHash(*hash).to_hex());
        text.push_str(" : ");
        text.push_str(&len.to_string());
        text.push('\n');
        size += len;
    }
    (blake3::keyed_hash(&INTERNAL_NODE_KEY, text.as_bytes()), size)
}

/// The root of the tree over `(hash, size)` leaves (xet-core `aggregated_node_hash`, which
/// is also a xorb's hash); all zeros for none.
pub fn xet_merkle_root(leaves: &[([u8; 32], u64)]) -> XetHash {
    if leaves.is_empty() {
        return XetHash::default();
    }
    let mut level = leaves.to_vec();
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len() / 2 + 1);
        let mut rest = &level[..];
        while !rest.is_empty() {
            let n = group_len(rest);
            next.push(merge(&rest[..n]));
            rest = &rest[n..];
        }
        level = next;
    }
    XetHash(level[0].0)
}

/// One entry of a tree level: a hash and the bytes under it.
pub(crate) type Entry = ([u8; 32], u64);

/// The Merkle tree built as leaves arrive, holding one unfinished group per level
/// (`O(log n)` entries whatever the file size): a group's end depends only on its own
/// entries, and the last, unfinished group of a level is exactly the tail group the
/// level-by-level rule would form, so the root is [`xet_merkle_root`]'s.
#[derive(Clone, Debug, Default)]
pub(crate) struct XetTree {
    /// Per level: how many entries it has received, and its unfinished group.
    pub(crate) levels: Vec<(u64, Vec<Entry>)>,
}

impl XetTree {
    /// Adds the next leaf (chunk hash and length).
    pub(crate) fn push_leaf(&mut self, hash: [u8; 32], len: u64) {
        self.push(0, (hash, len));
    }

    fn push(&mut self, level: usize, entry: ([u8; 32], u64)) {
        if self.levels.len() == level {
            self.levels.push((0, Vec::new()));
        }
        let (count, group) = &mut self.levels[level];
        *count += 1;
        group.push(entry);
        if (group.len() >= 3 && closes_group(&entry.0)) || group.len() == MAX_GROUP {
            let node = merge(group);
            group.clear();
            self.push(level + 1, node);
        }
    }

    /// The root (zeros without leaves).
    pub(crate) fn root(&self) -> XetHash {
        let mut tree = self.clone();
        let mut level = 0;
        while level < tree.levels.len() {
            let (count, group) = &mut tree.levels[level];
            if *count == 1 {
                return XetHash(group[0].0);
            }
            if !group.is_empty() {
                let node = merge(group);
                group.clear();
                tree.push(level + 1, node);
            }
            level += 1;
        }
        XetHash::default()
    }

    /// The file hash (zeros without leaves).
    pub(crate) fn file_hash(&self) -> XetHash {
        if self.levels.is_empty() {
            return XetHash::default();
        }
        XetHash(blake3::keyed_hash(&[0u8; 32], &self.root().0))
    }
}

/// The file hash from the file's chunks, in order, each hashed with
/// [`ChunkDigest::Xet`](super::ChunkDigest::Xet): what `hf_xet.hash_files` computes.
pub fn xet_file_hash(chunks: &[Chunk]) -> XetHash {
    let leaves: Vec<([u8; 32], u64)> = chunks.iter().map(|c| (c.digest, u64::from(c.len))).collect();
    file_hash_of_leaves(&leaves)
}

/// The file hash over `(chunk hash, chunk length)` leaves (xet-core `file_hash`: the root
/// hashed again, keyed with zeros; zeros for an empty file).
pub(crate) fn file_hash_of_leaves(leaves: &[([u8; 32], u64)]) -> XetHash {
    if leaves.is_empty() {
        return XetHash::default();
    }
    XetHash(blake3::keyed_hash(&[0u8; 32], &xet_merkle_root(leaves).0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift64;

    /// The streaming tree against the level-by-level rule, on leaf counts around every
    /// group size and level, with hashes that close groups often and rarely.
    #[test]
    fn streaming_tree_equals_level_by_level() {
        let mut rng = XorShift64::new(5);
        for count in (0..120).chain([242, 729, 730, 1000]) {
            for closing in [0u64, 1, 3] {
                let leaves: Vec<([u8; 32], u64)> = (0..count)
                    .map(|_| {
                        let mut h = [0u8; 32];
                        rng.fill(&mut h);
                        // closing 0: never a natural cut; 3: one in four; 1: one in two.
                        h[24] = match closing {
                            0 => h[24] | 1,
                            1 => h[24] & !2,
                            _ => h[24],
                        };
                        (h, rng.next_u64() % 200_000)
                    })
                    .collect();
                let mut tree = XetTree::default();
                for &(h, len) in &leaves {
                    tree.push_leaf(h, len);
                }
                assert_eq!(tree.root(), xet_merkle_root(&leaves), "{count} leaves, closing {closing}");
                assert_eq!(tree.file_hash(), file_hash_of_leaves(&leaves), "{count} leaves");
            }
        }
    }
}
