//! SSZ-style binary Merkle trees of 32-byte nodes over SHA-256, built a layer at a time
//! with the block-batch kernels.
//!
//! A parent is SHA-256 of its two children concatenated, so a layer of `2k` nodes is
//! exactly `k` 64-byte blocks, hashed in one batch call. [`merkle_layers`] hashes whole
//! layers (each call splits its blocks between the batch's threads); [`merkle_root`]
//! finishes one subtree of 4096 leaves before starting the next, so that the layers it
//! builds stay in the cache, and shares the subtrees between threads. Missing leaves are 32 zero bytes and a
//! missing subtree of height `h` is [`zero_hash`]`(h)`: `zero_hash(0)` is 32 zero bytes and
//! `zero_hash(h + 1) = SHA-256(zero_hash(h) || zero_hash(h))`, as in SSZ's `merkleize`.
//! Zero subtrees are never built: a layer with an odd number of nodes is paired with the
//! zero hash of its height.
//!
//! ```
//! use simdcrypt::sha256::{self, merkle_root, zero_hash, BlockBatch};
//!
//! let leaves = [[1u8; 32], [2u8; 32], [3u8; 32]].concat();
//! let root = merkle_root(&leaves, None, &BlockBatch::new()).unwrap();
//! let left = sha256::hash(&leaves[..64]);
//! let right = sha256::hash(&[&leaves[64..], &zero_hash(0)[..]].concat());
//! assert_eq!(root, sha256::hash(&[left, right].concat()));
//!
//! // The same leaves in a tree of 2^3 leaf slots: the right half is zero_hash(2).
//! let root3 = merkle_root(&leaves, Some(3), &BlockBatch::new()).unwrap();
//! assert_eq!(root3, sha256::hash(&[root, zero_hash(2)].concat()));
//! ```
//!
//! ## What this file holds
//!
//! SSZ-style Merkle trees of 32-byte leaves: `merkle_root`, `merkle_layers`, `zero_hash`
//! (table up to `MERKLE_MAX_DEPTH` = 64 built once); each layer's node pairs are 64-byte
//! blocks hashed by one `BlockBatch::hash_into` (its kernels and thread split), an odd last
//! node paired with the layer's zero hash (zero subtrees never built); `merkle_root` finishes
//! one subtree of 2^12 leaves at a time in a reused scratch (its layers stay in the L2 cache),
//! the subtrees split between threads with `threads::with_pool`/`join`, then builds the tree
//! over their roots; `merkle_layers` hashes whole layers

use std::sync::OnceLock;

use super::{BlockBatch, BLOCK_LEN, OUT_LEN};
use crate::threads::{join, with_pool};
use crate::Error;

/// The deepest tree accepted: 2^64 leaf slots, and the highest [`zero_hash`].
pub const MERKLE_MAX_DEPTH: u32 = 64;

/// Node size in bytes (a SHA-256 digest).
const NODE_LEN: usize = OUT_LEN;

/// `zero_hash(h)` for every `h` up to [`MERKLE_MAX_DEPTH`], computed on first use.
fn zero_hashes() -> &'static [[u8; NODE_LEN]; MERKLE_MAX_DEPTH as usize + 1] {
    static TABLE: OnceLock<[[u8; NODE_LEN]; MERKLE_MAX_DEPTH as usize + 1]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [[0u8; NODE_LEN]; MERKLE_MAX_DEPTH as usize + 1];
        for h in 1..table.len() {
            let mut block = [0u8; BLOCK_LEN];
            block[..NODE_LEN].copy_from_slice(&table[h - 1]);
            block[NODE_LEN..].copy_from_slice(&table[h - 1]);
            table[h] = super::hash(&block);
        }
        table
    })
}

/// The root of a tree of height `height` whose leaves are all 32 zero bytes:
/// `zero_hash(0)` is 32 zero bytes, `zero_hash(h + 1) = SHA-256(zero_hash(h) || zero_hash(h))`.
///
/// Panics if `height` exceeds [`MERKLE_MAX_DEPTH`] (64).
pub fn zero_hash(height: u32) -> [u8; 32] {
    assert!(height <= MERKLE_MAX_DEPTH, "zero_hash height must be at most {MERKLE_MAX_DEPTH}, got {height}");
    zero_hashes()[height as usize]
}

/// Checks the arguments; returns the number of leaves and the depth of the tree.
pub(crate) fn tree_shape(leaves: &[u8], depth: Option<u32>) -> Result<(usize, u32), Error> {
    if !leaves.len().is_multiple_of(NODE_LEN) {
        return Err(Error::InvalidArgument(format!(
            "merkle leaves must be a whole number of {NODE_LEN}-byte nodes, got {} bytes",
            leaves.len()
        )));
    }
    let n = leaves.len() / NODE_LEN;
    Ok((n, tree_depth(n, depth)?))
}

/// The depth of the tree over `n` leaves: `depth` when it is at most 64 and holds them, the
/// smallest that does when it is `None`.
pub(crate) fn tree_depth(n: usize, depth: Option<u32>) -> Result<u32, Error> {
    match depth {
        // ceil(log2(n)), with 0 for n <= 1.
        None => Ok(usize::BITS - n.saturating_sub(1).leading_zeros()),
        Some(d) if d > MERKLE_MAX_DEPTH => {
            Err(Error::InvalidArgument(format!("merkle depth must be at most {MERKLE_MAX_DEPTH}, got {d}")))
        }
        Some(d) if n as u128 > 1u128 << d => Err(Error::InvalidArgument(format!(
            "{n} merkle leaves do not fit in a tree of depth {d} (at most 2^{d} leaves)"
        ))),
        Some(d) => Ok(d),
    }
}

/// The layer above `nodes` (at height `height`): `ceil(count / 2)` nodes written to `out`,
/// the last one paired with `zero_hash(height)` when the count is odd.
fn hash_layer(nodes: &[u8], height: u32, batch: &BlockBatch, out: &mut [u8]) -> Result<(), Error> {
    let pairs = nodes.len() / BLOCK_LEN;
    debug_assert_eq!(out.len(), nodes.len().div_ceil(BLOCK_LEN) * NODE_LEN);
    let (whole_out, last_out) = out.split_at_mut(pairs * NODE_LEN);
    batch.hash_into(&nodes[..pairs * BLOCK_LEN], whole_out)?;
    if !last_out.is_empty() {
        let mut block = [0u8; BLOCK_LEN];
        block[..NODE_LEN].copy_from_slice(&nodes[pairs * BLOCK_LEN..]);
        block[NODE_LEN..].copy_from_slice(&zero_hash(height));
        batch.hash_into(&block, last_out)?;
    }
    Ok(())
}

/// Leaves per subtree that [`merkle_root`] finishes before moving on: 2^12 leaves (128 KiB)
/// whose upper layers (64 KiB, 32 KiB, ...) stay in the L2 cache and reuse one scratch
/// buffer. Building whole layers instead wrote every layer to fresh memory: for 2^20
/// leaves 24 MiB of scratch, whose page faults cost a good share of the time
/// (docs/tuning-history.md, "SHA-256 Merkle roots, Python").
const SUBTREE_HEIGHT: u32 = 12;

/// Scratch space for [`layered_root`]: two layers, the first and second above its nodes.
struct Scratch {
    a: Vec<u8>,
    b: Vec<u8>,
}

impl Scratch {
    /// Room for the layers above `count` nodes.
    fn for_nodes(count: usize) -> Scratch {
        let first = count.div_ceil(2);
        Scratch { a: vec![0u8; first * NODE_LEN], b: vec![0u8; first.div_ceil(2) * NODE_LEN] }
    }
}

/// The root of the `levels` layers above `nodes` (at height `base`): the layers are
/// hashed one after the other, alternating between the two scratch buffers.
fn layered_root(
    nodes: &[u8],
    base: u32,
    levels: u32,
    batch: &BlockBatch,
    scratch: &mut Scratch,
) -> Result<[u8; NODE_LEN], Error> {
    if levels == 0 {
        return Ok(nodes.try_into().expect("one node when no level is left"));
    }
    let mut count = nodes.len() / NODE_LEN;
    let first = count.div_ceil(2);
    let Scratch { a, b } = scratch;
    hash_layer(nodes, base, batch, &mut a[..first * NODE_LEN])?;
    count = first;
    for height in base + 1..base + levels {
        let next = count.div_ceil(2);
        let (src, dst) = if (height - base) % 2 == 1 { (&*a, &mut *b) } else { (&*b, &mut *a) };
        hash_layer(&src[..count * NODE_LEN], height, batch, &mut dst[..next * NODE_LEN])?;
        count = next;
    }
    debug_assert_eq!(count, 1);
    let top = if levels % 2 == 1 { &a } else { &b };
    Ok(top[..NODE_LEN].try_into().expect("a 32-byte root"))
}

/// Writes the root of each subtree of `2^SUBTREE_HEIGHT` leaves of `leaves` (the last one
/// padded with zero leaves) to `roots`, splitting the subtrees between `threads` threads.
fn subtree_roots(leaves: &[u8], batch: &BlockBatch, roots: &mut [u8], threads: usize) -> Result<(), Error> {
    const SUBTREE_BYTES: usize = NODE_LEN << SUBTREE_HEIGHT;
    let count = roots.len() / NODE_LEN;
    if threads > 1 && count > 1 {
        let left_threads = threads / 2;
        let mid = (count * left_threads / threads).max(1);
        let (left_leaves, right_leaves) = leaves.split_at(mid * SUBTREE_BYTES);
        let (left_roots, right_roots) = roots.split_at_mut(mid * NODE_LEN);
        let (left, right) = join(
            true,
            || subtree_roots(left_leaves, batch, left_roots, left_threads),
            || subtree_roots(right_leaves, batch, right_roots, threads - left_threads),
        );
        return left.and(right);
    }
    let mut scratch = Scratch::for_nodes(leaves.len().min(SUBTREE_BYTES) / NODE_LEN);
    for (subtree, root) in leaves.chunks(SUBTREE_BYTES).zip(roots.chunks_exact_mut(NODE_LEN)) {
        root.copy_from_slice(&layered_root(subtree, 0, SUBTREE_HEIGHT, batch, &mut scratch)?);
    }
    Ok(())
}

/// The root of the SSZ-style Merkle tree over `leaves` (`n` nodes of 32 bytes, `leaves.len()`
/// a multiple of 32).
///
/// - `depth: None`: the smallest tree that holds the leaves, of depth `ceil(log2(n))`; one
///   leaf is its own root, and no leaves give `zero_hash(0)` (32 zero bytes).
/// - `depth: Some(d)`: a tree of `2^d` leaf slots (`d` at most 64, `n` at most `2^d`); the
///   slots after the leaves are zero, so `n = 0` gives `zero_hash(d)`.
///
/// The hashing uses `batch`'s kernels. Trees of more than 4096 leaves are built a subtree
/// of 4096 leaves at a time (so the layers being built stay in the cache), the subtrees
/// shared between `batch`'s threads; then the tree over their roots. Memory: scratch
/// layers of 64 and 32 KiB per thread, and one root per subtree; the smaller trees take
/// two scratch layers of `n / 2` and `n / 4` nodes (rounded up).
pub fn merkle_root(leaves: &[u8], depth: Option<u32>, batch: &BlockBatch) -> Result<[u8; 32], Error> {
    let (n, depth) = tree_shape(leaves, depth)?;
    if n == 0 {
        return Ok(zero_hash(depth));
    }
    if depth <= SUBTREE_HEIGHT || n <= 1 << SUBTREE_HEIGHT {
        return layered_root(leaves, 0, depth, batch, &mut Scratch::for_nodes(n));
    }
    let subtrees = n.div_ceil(1 << SUBTREE_HEIGHT);
    let mut roots = vec![0u8; subtrees * NODE_LEN];
    let threads = batch.pool_size(leaves.len());
    let one = batch.one_thread();
    with_pool(threads, || subtree_roots(leaves, &one, &mut roots, threads))?;
    layered_root(&roots, SUBTREE_HEIGHT, depth - SUBTREE_HEIGHT, batch, &mut Scratch::for_nodes(subtrees))
}

/// Every layer of the tree [`merkle_root`] describes (same arguments and errors), from the
/// leaves up: `depth + 1` layers, each a concatenation of 32-byte nodes.
///
/// - Layer 0 is `leaves` as given (`n` nodes, no padding).
/// - Layer `h + 1` has `ceil(len_h / 2)` nodes, where `len_h` is the node count of layer
///   `h`: node `i` is SHA-256(node `2i` || node `2i + 1`) of layer `h`, a missing right
///   node being `zero_hash(h)` (layers are padded virtually, never stored padded). So for
///   `n >= 1`, layer `h` holds `ceil(n / 2^h)` nodes.
/// - The last layer (`depth`) is one node, the root.
/// - No leaves (`n = 0`): layer 0 is empty and layer `h` for `1 <= h <= depth` is the one
///   node `zero_hash(h)`; with depth 0 the only layer is `[zero_hash(0)]`, the root, so
///   that the last layer is always the root.
pub fn merkle_layers(leaves: &[u8], depth: Option<u32>, batch: &BlockBatch) -> Result<Vec<Vec<u8>>, Error> {
    let (n, depth) = tree_shape(leaves, depth)?;
    if n == 0 {
        if depth == 0 {
            return Ok(vec![zero_hash(0).to_vec()]);
        }
        let mut layers = vec![Vec::new()];
        layers.extend((1..=depth).map(|h| zero_hash(h).to_vec()));
        return Ok(layers);
    }
    let mut layers = Vec::with_capacity(depth as usize + 1);
    layers.push(leaves.to_vec());
    for height in 0..depth {
        let below: &[u8] = &layers[height as usize];
        let mut next = vec![0u8; below.len().div_ceil(BLOCK_LEN) * NODE_LEN];
        hash_layer(below, height, batch, &mut next)?;
        layers.push(next);
    }
    Ok(layers)
}
