//! Slices: a byte range of the content with the parents that prove it, extracted from a
//! combined or outboard encoding, and their decoding against the root hash alone.
//!
//! The rule is the `bao` crate's: a slice holds the length header and, in pre-order, every
//! node whose content overlaps `start..start + max(count, 1)`; if `start` is at or past the
//! end of the content, the last leaf instead (which proves the length). A slice of the
//! whole content is the combined encoding.

use super::decode::{check_lengths, Decoder};
use super::{read_full, read_header, Error, Hash, Node, Options, Tree, HEADER_LEN, PARENT_LEN};
use std::io::{Read, Seek, SeekFrom, Write};

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
    let _ = walk(&tree, content_len, start, count, &mut |piece| {
        total += piece.len();
        Ok(())
    });
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

/// Visits the pieces of the slice of `start..start + count` of content of `len` bytes, in
/// order, until `visit` fails.
fn walk(
    tree: &Tree,
    len: u64,
    start: u64,
    count: u64,
    visit: &mut impl FnMut(Piece) -> Result<(), Error>,
) -> Result<(), Error> {
    let select = if len == 0 {
        (0, 0)
    } else if start >= len {
        (len - 1, len)
    } else {
        (start, start.saturating_add(count.max(1)).min(len))
    };
    #[allow(clippy::too_many_arguments)]
    fn go(
        tree: &Tree,
        node: Node,
        combined: u64,
        outboard: u64,
        select: (u64, u64),
        visit: &mut impl FnMut(Piece) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let overlaps = node.root || (node.start < select.1 && select.0 < node.end());
        if !overlaps {
            return Ok(());
        }
        if node.len <= tree.leaf_len {
            return visit(Piece::Leaf { combined, start: node.start, len: node.len });
        }
        visit(Piece::Parent { combined, outboard })?;
        let (left, right) = node.children();
        let (combined, outboard) = (combined + PARENT_LEN as u64, outboard + PARENT_LEN as u64);
        go(tree, left, combined, outboard, select, visit)?;
        let left_parents = tree.parents_len(left.len);
        go(tree, right, combined + left.len + left_parents, outboard + left_parents, select, visit)
    }
    let header = HEADER_LEN as u64;
    go(tree, Node { start: 0, len, root: true }, header, header, select, visit)
}

/// Copies `len` bytes at `offset` of `input` to `out` through `buf`; `what` names the
/// input if it ends first.
fn copy_range(
    input: &mut (impl Read + Seek),
    what: &'static str,
    offset: u64,
    len: u64,
    buf: &mut [u8],
    out: &mut (impl Write + ?Sized),
) -> Result<(), Error> {
    input.seek(SeekFrom::Start(offset))?;
    let mut left = len;
    while left > 0 {
        let take = left.min(buf.len() as u64) as usize;
        let piece = &mut buf[..take];
        let got = read_full(input, piece)?;
        if got < piece.len() {
            // The lengths were checked first: the input shrank meanwhile.
            return Err(Error::Truncated { what, offset: offset + (len - left) + got as u64 });
        }
        out.write_all(piece).map_err(Error::Output)?;
        left -= got as u64;
    }
    Ok(())
}

/// The length of a seekable input (its position is then undefined).
fn stream_len(input: &mut impl Seek) -> Result<u64, Error> {
    Ok(input.seek(SeekFrom::End(0))?)
}

/// Reads the length header at the start of a seekable input of `total` bytes.
fn stream_header(input: &mut (impl Read + Seek), what: &'static str, total: u64) -> Result<u64, Error> {
    let mut header = [0u8; HEADER_LEN];
    input.seek(SeekFrom::Start(0))?;
    let got = read_full(input, &mut header)?;
    if got < HEADER_LEN {
        return Err(Error::Truncated { what, offset: total.min(got as u64) });
    }
    Ok(u64::from_le_bytes(header))
}

/// The buffer the streaming slicers copy through.
const COPY_BUF: usize = 1 << 20;

impl Options {
    /// [`slice()`] from a seekable combined encoding (a file), written to `out`; returns
    /// the slice's length. Only the slice's own nodes are read (adjacent ones in one
    /// read), so memory and time do not grow with the encoding. Errors as [`slice()`]'s,
    /// and [`Error::Output`] when writing fails.
    pub fn slice_stream(
        &self,
        mut encoded: impl Read + Seek,
        start: u64,
        count: u64,
        out: &mut (impl Write + ?Sized),
    ) -> Result<u64, Error> {
        let total = stream_len(&mut encoded)?;
        let len = stream_header(&mut encoded, "encoding", total)?;
        match self.format.encoded_len(len) {
            Some(expected) if expected <= total => {
                if expected < total {
                    return Err(Error::TrailingBytes { what: "encoding", offset: expected });
                }
            }
            _ => return Err(Error::Truncated { what: "encoding", offset: total }),
        }
        out.write_all(&len.to_le_bytes()).map_err(Error::Output)?;
        let mut buf = vec![0u8; COPY_BUF];
        let mut written = HEADER_LEN as u64;
        // The pieces run (from, len) is the contiguous stretch not yet copied.
        let mut run = (HEADER_LEN as u64, 0u64);
        walk(&self.tree(1), len, start, count, &mut |piece| {
            let from = match piece {
                Piece::Parent { combined, .. } | Piece::Leaf { combined, .. } => combined,
            };
            if from != run.0 + run.1 {
                copy_range(&mut encoded, "encoding", run.0, run.1, &mut buf, out)?;
                written += run.1;
                run = (from, 0);
            }
            run.1 += piece.len();
            Ok(())
        })?;
        copy_range(&mut encoded, "encoding", run.0, run.1, &mut buf, out)?;
        Ok(written + run.1)
    }

    /// [`slice_outboard`] from seekable data and outboard (files), written to `out`;
    /// returns the slice's length. Only the slice's nodes are read.
    pub fn slice_outboard_stream(
        &self,
        mut data: impl Read + Seek,
        mut outboard: impl Read + Seek,
        start: u64,
        count: u64,
        out: &mut (impl Write + ?Sized),
    ) -> Result<u64, Error> {
        let outboard_total = stream_len(&mut outboard)?;
        let len = stream_header(&mut outboard, "outboard", outboard_total)?;
        let data_total = stream_len(&mut data)?;
        check_lengths(self, len, data_total, outboard_total)?;
        out.write_all(&len.to_le_bytes()).map_err(Error::Output)?;
        let mut buf = vec![0u8; COPY_BUF];
        let mut written = HEADER_LEN as u64;
        walk(&self.tree(1), len, start, count, &mut |piece| {
            match piece {
                Piece::Parent { outboard: at, .. } => {
                    copy_range(&mut outboard, "outboard", at, PARENT_LEN as u64, &mut buf, out)?
                }
                Piece::Leaf { start, len, .. } => copy_range(&mut data, "data", start, len, &mut buf, out)?,
            }
            written += piece.len();
            Ok(())
        })?;
        Ok(written)
    }
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
            Ok(())
        })?;
        Ok(out)
    }

    /// [`slice_outboard`] in this format.
    pub fn slice_outboard(&self, data: &[u8], outboard: &[u8], start: u64, count: u64) -> Result<Vec<u8>, Error> {
        let len = read_header(outboard, "outboard")?;
        check_lengths(self, len, data.len() as u64, outboard.len() as u64)?;
        let mut out = outboard[..HEADER_LEN].to_vec();
        walk(&self.tree(1), len, start, count, &mut |piece| {
            match piece {
                Piece::Parent { outboard: at, .. } => out.extend_from_slice(&outboard[at as usize..][..PARENT_LEN]),
                Piece::Leaf { start, len, .. } => out.extend_from_slice(&data[start as usize..][..len as usize]),
            }
            Ok(())
        })?;
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
