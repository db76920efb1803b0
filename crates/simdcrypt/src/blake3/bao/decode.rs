//! Decoding: whole encodings in memory, and a streaming [`Decoder`] that releases content
//! only once it is verified.

use super::encode::encode_node;
use super::{read_full, read_header, split_combined, Error, Hash, Node, Options, Tree, HEADER_LEN, PARENT_LEN};
use crate::blake3::{with_pool, CvBytes, OUT_LEN};
use std::io::{self, Read};

/// Decodes the `bao` crate's combined encoding, checking it against `root`.
pub fn decode(root: &Hash, encoded: &[u8]) -> Result<Vec<u8>, Error> {
    Options::default().decode(root, encoded)
}

/// Checks `data` against `root` with its outboard encoding.
pub fn decode_outboard(root: &Hash, data: &[u8], outboard: &[u8]) -> Result<(), Error> {
    Options::default().decode_outboard(root, data, outboard)
}

impl Options {
    /// Decodes a combined encoding, checking all of it against `root`; the content is
    /// returned only if everything matches, else the first bad node (in the encoding's
    /// order) is named. The encoding must end where its length header says.
    pub fn decode(&self, root: &Hash, encoded: &[u8]) -> Result<Vec<u8>, Error> {
        let len = self.read_encoding_len(encoded)?;
        let tree = self.tree(1);
        let mut data = Vec::with_capacity(len as usize);
        let mut parents = Vec::with_capacity(tree.parents_len(len) as usize);
        split_combined(&tree, &encoded[HEADER_LEN..], len, &mut data, &mut parents);
        self.verify_split(Node { start: 0, len, root: true }, &data, &parents, root, &mut Vec::new())?;
        Ok(data)
    }

    /// Checks `data` against `root` with its outboard encoding (which must describe exactly
    /// `data.len()` bytes and end where its header says).
    pub fn decode_outboard(&self, root: &Hash, data: &[u8], outboard: &[u8]) -> Result<(), Error> {
        let len = read_header(outboard, "outboard")?;
        check_lengths(self, len, data.len() as u64, outboard.len() as u64)?;
        self.verify_split(Node { start: 0, len, root: true }, data, &outboard[HEADER_LEN..], root, &mut Vec::new())
    }

    /// Checks the subtree `node` given as its content and its parents (outboard order)
    /// against `expected`: its tree is recomputed with the wide kernels (and threads) and
    /// compared whole; on a difference the nodes are walked one by one to name the first
    /// bad one. `scratch` is reused between calls.
    pub(super) fn verify_split(
        &self,
        node: Node,
        data: &[u8],
        parents: &[u8],
        expected: &CvBytes,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let pool_size = self.threads.pool_size(data.len());
        let tree = self.tree(pool_size);
        scratch.clear();
        scratch.resize(parents.len(), 0);
        let cv = with_pool(pool_size, || encode_node(&tree, data, node.start, node.root, false, scratch));
        if cv == *expected && scratch[..] == *parents {
            return Ok(());
        }
        let tree = self.tree(1);
        let mut rest = parents;
        Err(locate(&tree, node, data, &mut rest, expected).err().unwrap_or_else(|| node.mismatch(&tree)))
    }
}

/// Checks that an outboard for `len` bytes fits `data_len` bytes of data and is itself
/// `outboard_len` bytes long.
pub(super) fn check_lengths(options: &Options, len: u64, data_len: u64, outboard_len: u64) -> Result<(), Error> {
    let expected = options.format.outboard_len(len);
    if outboard_len < expected {
        return Err(Error::Truncated { what: "outboard", offset: outboard_len });
    }
    if outboard_len > expected {
        return Err(Error::TrailingBytes { what: "outboard", offset: expected });
    }
    if data_len < len {
        return Err(Error::Truncated { what: "data", offset: data_len });
    }
    if data_len > len {
        return Err(Error::TrailingBytes { what: "data", offset: len });
    }
    Ok(())
}

/// Walks the subtree `node` node by node in pre-order, as a streaming decoder reads it,
/// and fails at the first node that does not match the chaining value its parent gives.
/// `parents` is advanced past the subtree's parents.
pub(super) fn locate(
    tree: &Tree,
    node: Node,
    data: &[u8],
    parents: &mut &[u8],
    expected: &CvBytes,
) -> Result<(), Error> {
    if node.len <= tree.leaf_len {
        return if tree.leaf_cv(data, node.start, node.root) == *expected { Ok(()) } else { Err(node.mismatch(tree)) };
    }
    let (parent, rest) = parents.split_first_chunk::<PARENT_LEN>().ok_or_else(|| node.mismatch(tree))?;
    *parents = rest;
    if tree.parent_cv(parent, node.root) != *expected {
        return Err(node.mismatch(tree));
    }
    let (left, right) = node.children();
    let (left_data, right_data) = data.split_at(left.len as usize);
    locate(tree, left, left_data, parents, parent[..OUT_LEN].try_into().expect("32 bytes"))?;
    locate(tree, right, right_data, parents, parent[OUT_LEN..].try_into().expect("32 bytes"))
}

/// One input of a decoder, and how far into it it has read.
#[derive(Debug)]
struct Input<R> {
    reader: R,
    what: &'static str,
    position: u64,
}

impl<R: Read> Input<R> {
    /// Reads exactly `buf.len()` bytes, or fails naming where the input ended.
    fn exact(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        let got = read_full(&mut self.reader, buf)?;
        self.position += got as u64;
        if got < buf.len() {
            return Err(Error::Truncated { what: self.what, offset: self.position });
        }
        Ok(())
    }

    /// Appends exactly `n` bytes to `out`, which grows only as bytes arrive (a lying length
    /// header cannot make it allocate more than the input holds).
    fn append(&mut self, n: u64, out: &mut Vec<u8>) -> Result<(), Error> {
        let before = out.len();
        (&mut self.reader).take(n).read_to_end(out)?;
        let got = (out.len() - before) as u64;
        self.position += got;
        if got < n {
            return Err(Error::Truncated { what: self.what, offset: self.position });
        }
        Ok(())
    }

    /// Fails if the input goes on.
    fn expect_end(&mut self) -> Result<(), Error> {
        let mut byte = [0u8];
        if read_full(&mut self.reader, &mut byte)? > 0 {
            return Err(Error::TrailingBytes { what: self.what, offset: self.position });
        }
        Ok(())
    }
}

/// A streaming decoder of a combined encoding, an outboard encoding with its data, or a
/// slice: it reads the encoding in order, verifies each node before it releases any byte of
/// it, and fails at the first corruption (with the content offset it covers). A subtree of
/// up to [`super::BATCH_BYTES`] is read and checked whole with the wide kernels; larger ones
/// parent by parent. At the end the inputs must end too (no trailing bytes).
///
/// ```
/// use std::io::Read;
/// use simdcrypt::blake3::bao;
///
/// let data = vec![1u8; 100_000];
/// let (root, encoded) = bao::encode(&data);
/// let mut out = Vec::new();
/// bao::Decoder::new(&encoded[..], root).read_to_end(&mut out).unwrap();
/// assert_eq!(out, data);
/// ```
#[derive(Debug)]
pub struct Decoder<R: Read, O: Read = R> {
    input: Input<R>,
    outboard: Option<Input<O>>,
    root: Hash,
    options: Options,
    /// Requested output bytes (a slice's range; everything otherwise).
    start: u64,
    count: u64,
    /// Nodes still to read, the next on top, with the chaining values they must have.
    stack: Vec<(Node, CvBytes)>,
    /// The nodes the encoding holds: those overlapping this content range.
    select: (u64, u64),
    /// Output range, known once the header is read.
    out_range: (u64, u64),
    started: bool,
    done: bool,
    failed: bool,
    /// Verified content of the last node, and how much of it was handed out.
    buf: Vec<u8>,
    buf_range: (usize, usize),
    raw: Vec<u8>,
    parents: Vec<u8>,
    scratch: Vec<u8>,
}

impl<R: Read> Decoder<R, R> {
    /// Decodes a combined encoding read from `input`.
    pub fn new(input: R, root: Hash) -> Self {
        Self::build(Input { reader: input, what: "encoding", position: 0 }, None, root, 0, u64::MAX)
    }

    /// Decodes a slice (from [`super::slice`]) of bytes `start..start + count`; only those
    /// bytes (those of them before the end of the content) are returned.
    pub fn new_slice(slice: R, root: Hash, start: u64, count: u64) -> Self {
        Self::build(Input { reader: slice, what: "slice", position: 0 }, None, root, start, count)
    }
}

impl<R: Read, O: Read> Decoder<R, O> {
    /// Verifies `data` with its outboard encoding, releasing the data as it is verified.
    pub fn new_outboard(data: R, outboard: O, root: Hash) -> Self {
        let outboard = Input { reader: outboard, what: "outboard", position: 0 };
        Self::build(Input { reader: data, what: "data", position: 0 }, Some(outboard), root, 0, u64::MAX)
    }

    fn build(input: Input<R>, outboard: Option<Input<O>>, root: Hash, start: u64, count: u64) -> Self {
        Decoder {
            input,
            outboard,
            root,
            options: Options::default(),
            start,
            count,
            stack: Vec::new(),
            select: (0, 0),
            out_range: (0, 0),
            started: false,
            done: false,
            failed: false,
            buf: Vec::new(),
            buf_range: (0, 0),
            raw: Vec::new(),
            parents: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Uses these options (format, threads, kernels); call before reading.
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The next piece of verified content, or `None` at the end (after the whole encoding
    /// was verified and found to end where it should). After an error, every call fails.
    pub fn next_verified(&mut self) -> Result<Option<&[u8]>, Error> {
        if self.failed {
            return Err(Error::InvalidArgument("the decoder already failed".to_string()));
        }
        while self.buf_range.0 == self.buf_range.1 && !self.done {
            if let Err(e) = self.step() {
                self.failed = true;
                return Err(e);
            }
        }
        let (from, to) = self.buf_range;
        self.buf_range.0 = to;
        Ok(if from == to { None } else { Some(&self.buf[from..to]) })
    }

    /// Writes all verified content to `out`; returns how many bytes. On an error, what was
    /// written before it is verified content.
    pub fn copy_to(&mut self, out: &mut (impl io::Write + ?Sized)) -> Result<u64, Error> {
        let mut total = 0;
        while let Some(piece) = self.next_verified()? {
            out.write_all(piece)?;
            total += piece.len() as u64;
        }
        Ok(total)
    }

    fn tree(&self) -> Tree {
        self.options.tree(1)
    }

    /// The largest subtree read and checked whole: [`super::BATCH_BYTES`] on one thread;
    /// with threads a streaming window, so that each check gives the pool a large piece
    /// (at 1 MiB the threads' start and the serial reading and copying around each check
    /// made decoding markedly slower than encoding).
    fn batch_bytes(&self) -> u64 {
        if self.options.threads.pool_size(usize::MAX) > 1 {
            self.options.window_len().max(super::BATCH_BYTES)
        } else {
            super::BATCH_BYTES
        }
    }

    fn header(&mut self) -> Result<(), Error> {
        let mut header = [0u8; HEADER_LEN];
        match &mut self.outboard {
            Some(outboard) => outboard.exact(&mut header)?,
            None => self.input.exact(&mut header)?,
        }
        let len = u64::from_le_bytes(header);
        let end = self.start.saturating_add(self.count);
        self.select = if len == 0 {
            (0, 0)
        } else if self.start >= len {
            (len - 1, len)
        } else {
            (self.start, self.start.saturating_add(self.count.max(1)).min(len))
        };
        self.out_range = if self.start >= len { (len, len) } else { (self.start, end.min(len)) };
        self.stack.push((Node { start: 0, len, root: true }, self.root));
        self.started = true;
        Ok(())
    }

    fn selected(&self, node: &Node) -> bool {
        node.root || (node.start < self.select.1 && self.select.0 < node.end())
    }

    /// Makes the content of `node` (verified, in `self.buf`) the next output.
    fn release(&mut self, node: Node) {
        let from = self.out_range.0.clamp(node.start, node.end()) - node.start;
        let to = self.out_range.1.clamp(node.start, node.end()) - node.start;
        self.buf_range = (from as usize, to as usize);
    }

    /// Reads and verifies the next node.
    fn step(&mut self) -> Result<(), Error> {
        if !self.started {
            return self.header();
        }
        let Some((node, expected)) = self.stack.pop() else {
            self.input.expect_end()?;
            if let Some(outboard) = &mut self.outboard {
                outboard.expect_end()?;
            }
            self.done = true;
            return Ok(());
        };
        if !self.selected(&node) {
            return Ok(());
        }
        let tree = self.tree();
        let inside = self.select.0 <= node.start && node.end() <= self.select.1;
        if node.len <= tree.leaf_len {
            self.buf.clear();
            self.input.append(node.len, &mut self.buf)?;
            if tree.leaf_cv(&self.buf, node.start, node.root) != expected {
                return Err(node.mismatch(&tree));
            }
            self.release(node);
            return Ok(());
        }
        if inside && node.len <= self.batch_bytes() {
            self.buf.clear();
            self.parents.clear();
            let parents_len = tree.parents_len(node.len);
            match &mut self.outboard {
                Some(outboard) => {
                    self.input.append(node.len, &mut self.buf)?;
                    outboard.append(parents_len, &mut self.parents)?;
                }
                None => {
                    self.raw.clear();
                    self.input.append(node.len + parents_len, &mut self.raw)?;
                    split_combined(&tree, &self.raw, node.len, &mut self.buf, &mut self.parents);
                }
            }
            self.options.verify_split(node, &self.buf, &self.parents, &expected, &mut self.scratch)?;
            self.release(node);
            return Ok(());
        }
        let mut parent = [0u8; PARENT_LEN];
        match &mut self.outboard {
            Some(outboard) => outboard.exact(&mut parent)?,
            None => self.input.exact(&mut parent)?,
        }
        if tree.parent_cv(&parent, node.root) != expected {
            return Err(node.mismatch(&tree));
        }
        let (left, right) = node.children();
        self.stack.push((right, parent[OUT_LEN..].try_into().expect("32 bytes")));
        self.stack.push((left, parent[..OUT_LEN].try_into().expect("32 bytes")));
        Ok(())
    }
}

impl<R: Read, O: Read> Read for Decoder<R, O> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.buf_range.0 == self.buf_range.1 {
            if self.failed {
                return Err(io::Error::other("the bao decoder already failed"));
            }
            while self.buf_range.0 == self.buf_range.1 && !self.done {
                if let Err(e) = self.step() {
                    self.failed = true;
                    return Err(e.into());
                }
            }
        }
        let (from, to) = self.buf_range;
        let n = (to - from).min(out.len());
        out[..n].copy_from_slice(&self.buf[from..from + n]);
        self.buf_range.0 += n;
        Ok(n)
    }
}
