//! Slices: a byte range of the content with the parents that prove it, extracted from a
//! combined or outboard encoding, and their decoding against the root hash alone.
//!
//! The rule is the `bao` crate's: a slice holds the length header and, in pre-order, every
//! node whose content overlaps `start..start + max(count, 1)`; if `start` is at or past the
//! end of the content, the last leaf instead (which proves the length). A slice of the
//! whole content is the combined encoding.

use super::decode::{check_lengths, Decoder};
use super::{read_header, Error, Hash, Node, Options, Tree, HEADER_LEN, PARENT_LEN};
use std::io::Read;

/// Extracts the slice of bytes `start..start + count` from a combined encoding (the `bao`
/// crate's `bao slice`). Nothing is hashed: the slice is checked when it is decoded.
pub fn slice(encoded: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
    Options::default().slice(encoded, start, count)
}

/// Extracts the slice of bytes `start..start + count` from `data` and its outboard encoding.
pub fn slice_outboard(data: &[u8], outboard: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
    Options::default().slice_outboard(data, outboard, start, count)
}

/// Decodes a slice of bytes `start..start + count` against `root`: returns those of the
/// bytes that lie before the end of the content, once every node of the slice is verified.
pub fn decode_slice(root: &Hash, slice: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
    Options::default().decode_slice(root, slice, start, count)
}

/// The length of the slice of `start..start + count` of `content_len` bytes in the `bao`
/// crate's format.
pub fn slice_len(content_len: u64, start: u64, count: u64) -> u64 {
    let tree = Options::default().tree(1);
    let mut total = HEADER_LEN as u64;
    walk(&tree, content_len, start, count, &mut |piece| total += piece.len());
    total
}

/// A piece of a slice: a parent (at these offsets of the combined and the outboard
/// encoding, header included) or a leaf (content bytes `start..start + len`, at `combined`
/// in the combined encoding).
#[derive(Clone, Copy, Debug)]
enum Piece {
    Parent { combined: u64, outboard: u64 },
    Leaf { combined: u64, start: u64, len: u64 },
}

impl Piece {
    fn len(&self) -> u64 {
        match self {
            Piece::Parent { .. } => PARENT_LEN as u64,
            Piece::Leaf { len, .. } => *len,
        }
    }
}

/// Visits the pieces of the slice of `start..start + count` of content of `len` bytes.
fn walk(tree: &Tree, len: u64, start: u64, count: u64, visit: &mut impl FnMut(Piece)) {
    let select = if len == 0 {
        (0, 0)
    } else if start >= len {
        (len - 1, len)
    } else {
        (start, start.saturating_add(count.max(1)).min(len))
    };
    #[allow(clippy::too_many_arguments)]
    fn go(tree: &Tree, node: Node, combined: u64, outboard: u64, select: (u64, u64), visit: &mut impl FnMut(Piece)) {
        let overlaps = node.root || (node.start < select.1 && select.0 < node.end());
        if !overlaps {
            return;
        }
        if node.len <= tree.leaf_len {
            visit(Piece::Leaf { combined, start: node.start, len: node.len });
            return;
        }
        visit(Piece::Parent { combined, outboard });
        let (left, right) = node.children();
        let (combined, outboard) = (combined + PARENT_LEN as u64, outboard + PARENT_LEN as u64);
        go(tree, left, combined, outboard, select, visit);
        let left_parents = tree.parents_len(left.len);
        go(tree, right, combined + left.len + left_parents, outboard + left_parents, select, visit);
    }
    let header = HEADER_LEN as u64;
    go(tree, Node { start: 0, len, root: true }, header, header, select, visit);
}

impl Options {
    /// [`slice()`] in this format.
    pub fn slice(&self, encoded: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
        let len = self.read_encoding_len(encoded)?;
        let mut out = encoded[..HEADER_LEN].to_vec();
        walk(&self.tree(1), len, start, count, &mut |piece| {
            let from = match piece {
                Piece::Parent { combined, .. } | Piece::Leaf { combined, .. } => combined as usize,
            };
            out.extend_from_slice(&encoded[from..][..piece.len() as usize]);
        });
        Ok(out)
    }

    /// [`slice_outboard`] in this format.
    pub fn slice_outboard(&self, data: &[u8], outboard: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
        let len = read_header(outboard, "outboard")?;
        check_lengths(self, len, data.len() as u64, outboard.len() as u64)?;
        let mut out = outboard[..HEADER_LEN].to_vec();
        walk(&self.tree(1), len, start, count, &mut |piece| match piece {
            Piece::Parent { outboard: at, .. } => out.extend_from_slice(&outboard[at as usize..][..PARENT_LEN]),
            Piece::Leaf { start, len, .. } => out.extend_from_slice(&data[start as usize..][..len as usize]),
        });
        Ok(out)
    }

    /// [`decode_slice`] in this format.
    pub fn decode_slice(&self, root: &Hash, slice: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
        let mut decoder = Decoder::new_slice(slice, *root, start, count).with_options(*self);
        let mut out = Vec::new();
        while let Some(piece) = decoder.next_verified()? {
            out.extend_from_slice(piece);
        }
        Ok(out)
    }

    /// Decodes a combined encoding read from `input` into a `Vec` (streaming: the input
    /// need not be in memory).
    pub fn decode_reader(&self, root: &Hash, input: impl Read) -> Result<Vec<u8>, Error> {
        let mut decoder = Decoder::new(input, *root).with_options(*self);
        let mut out = Vec::new();
        decoder.copy_to(&mut out)?;
        Ok(out)
    }
}
