//! SHA-256 of 64-byte blocks and SSZ Merkle roots on a device (`sha256.cu`): one block, or
//! one parent, per thread.
//!
//! A Merkle root is built a layer at a time, one launch a layer, alternating between two
//! scratch buffers; an odd layer pairs its last node with the zero hash of its height, read
//! from a table of all 65 zero hashes uploaded once. Once a layer is down to one node, the
//! rest of the way up (pairing with zero hashes only, when `depth` asks for a taller tree)
//! is done on the host: a few compressions, not worth a launch each.

use super::batch::geometry;
use super::device::{Device, DeviceBuffer, DevicePtr};
use super::{Kernel, Module};
use crate::sha256::{self, check_blocks, tree_depth, tree_shape, zero_hash, MERKLE_MAX_DEPTH};
use crate::Error;

const BLOCKS: Kernel = Kernel { module: Module::Sha256, name: "sc_sha256_blocks" };
const LAYER: Kernel = Kernel { module: Module::Sha256, name: "sc_sha256_layer" };

const NODE_LEN: usize = 32;

/// Writes the SHA-256 digest of block `i` of `blocks` at `out[32 * i..]`, computed on `dev`:
/// the lengths and errors of [`crate::sha256::hash_blocks`], which gives the same digests.
pub fn sha256_blocks<D: Device>(dev: &D, blocks: &[u8], out: &mut [u8]) -> Result<(), Error> {
    let count = check_blocks(blocks.len(), out.len())?;
    if count == 0 {
        return Ok(());
    }
    let mut input = dev.alloc(blocks.len())?;
    dev.upload(&mut input, 0, blocks)?;
    let output = dev.alloc(out.len())?;
    // SAFETY: `input` holds the `count` blocks and `output` their `count` digests, both alive
    // until the download below, which waits for the launch.
    unsafe { sha256_blocks_device(dev, input.ptr(), count as u64, output.ptr())? };
    dev.download(&output, 0, out)
}

/// SHA-256 of `count` 64-byte blocks already on the device: block `i` at `blocks + 64 i`, its
/// digest to `out + 32 i`. Returns once the digests are written.
///
/// # Safety
///
/// `blocks` must be `64 * count` readable bytes and `out` `32 * count` writable bytes of
/// `dev`'s memory, not overlapping.
pub unsafe fn sha256_blocks_device<D: Device>(
    dev: &D,
    blocks: DevicePtr,
    count: u64,
    out: DevicePtr,
) -> Result<(), Error> {
    if count == 0 {
        return Ok(());
    }
    let (grid, block) = geometry(dev, count)?;
    // SAFETY: sc_sha256_blocks reads 64 * count bytes at `blocks` and writes 32 * count at
    // `out`, which the caller guarantees.
    unsafe { dev.launch(BLOCKS, grid, block, &[blocks, count, out])? };
    dev.synchronize()
}

/// The root of the SSZ Merkle tree over `leaves`, computed on `dev`: the semantics and
/// errors of [`crate::sha256::merkle_root`], which gives the same root.
pub fn merkle_root<D: Device>(dev: &D, leaves: &[u8], depth: Option<u32>) -> Result<[u8; 32], Error> {
    let (n, depth) = tree_shape(leaves, depth)?;
    if n <= 1 {
        // No layer to hash on the device: the zero tree, or one leaf paired with zero hashes.
        return Ok(climb(leaves.try_into().unwrap_or_else(|_| zero_hash(0)), 0, depth));
    }
    let mut input = dev.alloc(leaves.len())?;
    dev.upload(&mut input, 0, leaves)?;
    // SAFETY: `input` holds the `n` leaves and lives until the call returns.
    unsafe { merkle_root_device(dev, input.ptr(), n as u64, Some(depth)) }
}

/// [`merkle_root`] of `count` 32-byte leaves already on the device, at `leaves`. The leaves
/// are only read; scratch layers are allocated by the call.
///
/// # Safety
///
/// `leaves` must be `32 * count` readable bytes of `dev`'s memory.
pub unsafe fn merkle_root_device<D: Device>(
    dev: &D,
    leaves: DevicePtr,
    count: u64,
    depth: Option<u32>,
) -> Result<[u8; 32], Error> {
    let n = usize::try_from(count)
        .ok()
        .filter(|n| n.checked_mul(NODE_LEN).is_some())
        .ok_or_else(|| Error::InvalidArgument(format!("{count} merkle leaves do not fit in this machine's memory")))?;
    let depth = tree_depth(n, depth)?;
    if n == 0 {
        return Ok(zero_hash(depth));
    }
    if n == 1 {
        let mut leaf = [0u8; NODE_LEN];
        // SAFETY: the caller guarantees 32 * count = 32 readable bytes at `leaves`.
        unsafe { dev.copy_from_device(leaves, &mut leaf)? };
        return Ok(climb(leaf, 0, depth));
    }
    let pads = upload_zero_hashes(dev)?;
    let first = n.div_ceil(2);
    let a = dev.alloc(first * NODE_LEN)?;
    let b = dev.alloc(first.div_ceil(2).max(1) * NODE_LEN)?;
    let (mut src, mut count, mut height) = (leaves, n as u64, 0u32);
    let mut dst_is_a = true;
    while count > 1 {
        let dst = if dst_is_a { a.ptr() } else { b.ptr() };
        let parents = count.div_ceil(2);
        let (grid, block) = geometry(dev, parents)?;
        let pad = pads.ptr() + u64::from(height) * NODE_LEN as u64;
        // SAFETY: sc_sha256_layer reads `count` nodes at `src` (the leaves, by the caller's
        // guarantee, or the layer written by the previous launch into a scratch buffer sized
        // for it) and 32 bytes at `pad` (zero hash `height` <= 63 of the 65 uploaded), and
        // writes `parents` nodes at `dst`, the other scratch buffer, which holds at least
        // ceil(n / 2^(height + 1)) nodes. The buffers live until the end of the call.
        unsafe { dev.launch(LAYER, grid, block, &[src, count, dst, pad])? };
        src = dst;
        count = parents;
        height += 1;
        dst_is_a = !dst_is_a;
    }
    let top = if dst_is_a { &b } else { &a };
    let mut node = [0u8; NODE_LEN];
    dev.download(top, 0, &mut node)?;
    Ok(climb(node, height, depth))
}

/// `node` at `height`, paired with zero hashes up to `depth`.
fn climb(mut node: [u8; NODE_LEN], height: u32, depth: u32) -> [u8; NODE_LEN] {
    for h in height..depth {
        node = sha256::hash(&[node, zero_hash(h)].concat());
    }
    node
}

/// The 65 zero hashes, heights 0 to 64, one after another.
fn upload_zero_hashes<D: Device>(dev: &D) -> Result<D::Buffer, Error> {
    let table: Vec<u8> = (0..=MERKLE_MAX_DEPTH).flat_map(zero_hash).collect();
    let mut buf = dev.alloc(table.len())?;
    dev.upload(&mut buf, 0, &table)?;
    Ok(buf)
}
