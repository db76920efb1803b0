//! Bao: verified streaming over BLAKE3's tree.
//!
//! BLAKE3 hashes 1 KiB chunks into a binary tree; keeping the tree's parent nodes next to
//! the data lets a receiver check every chunk against the root hash as it arrives, and
//! fetch any byte range with a short proof. The formats are those of the `bao` crate
//! (0.13), byte for byte (docs/bao.md):
//!
//! - the **combined encoding**: the content length as 8 little-endian bytes, then the
//!   tree's nodes in pre-order (a parent's 64 bytes, the two children's chaining values;
//!   then its left subtree, then its right subtree), chunks in place;
//! - the **outboard encoding**: the same without the chunks, which stay in the data;
//! - a **slice**: a byte range with its proof, the combined encoding less every node that
//!   does not overlap the range.
//!
//! The root hash is the plain BLAKE3 hash of the content. [`Format::chunk_groups`] makes
//! the leaves groups of 2^k chunks (iroh uses 16 KiB): the same tree with its lowest k
//! levels of parents left out, a separate format that the `bao` crate does not read.
//!
//! ```
//! use simdcrypt::blake3::{self, bao};
//!
//! let data = vec![7u8; 5000];
//! let (root, encoded) = bao::encode(&data);
//! assert_eq!(root, blake3::hash(&data));
//! assert_eq!(bao::decode(&root, &encoded).unwrap(), data);
//!
//! // Bytes 2000..2100 with their proof, checked against the root alone.
//! let slice = bao::slice(&encoded, 2000, 100).unwrap();
//! assert_eq!(bao::decode_slice(&root, &slice, 2000, 100).unwrap(), &data[2000..2100]);
//!
//! // One flipped bit is caught, and named.
//! let mut bad = encoded.clone();
//! bad[3000] ^= 1;
//! let err = bao::decode(&root, &bad).unwrap_err();
//! assert!(err.to_string().contains("content bytes"), "{err}");
//! ```
//!
//! Encoding hashes whole subtrees with the SIMD kernels (all chunks of up to 128 KiB in one
//! kernel call, then each level of parents in one call) and splits large inputs between
//! threads ([`Options::threads`]). Decoding checks the same way: a subtree of up to
//! [`BATCH_BYTES`] is read whole, its tree recomputed and compared with the parents it came
//! with, and released only if all of it matches; when something does not match, the nodes
//! are walked one by one, in the order the `bao` crate reads them, to name the first bad one.
//!
//! ## What this file holds
//!
//! Bao verified streaming (docs/bao.md): `mod.rs` (`Format`, chunk groups, `Options`, `Error`,
//! the tree's geometry and leaf/parent CVs from the hasher's internals), `encode.rs`
//! (pre-order encoding: subtrees of up to 128 power-of-two chunks hashed as the plain hash
//! does, all chunks in one kernel call and each level of parents in one, then copied into
//! place; larger ones split with `join`), `decode.rs` (in-memory decoding and the streaming
//! `Decoder`: subtrees of up to 1 MiB read whole, recomputed with the encoder and compared, a
//! node-by-node walk, `locate`, only to name the first bad node), `slice.rs` (the slice rule,
//! extraction, decoding; `slice_stream` reads only the slice's nodes of a seekable input),
//! `scrub.rs` (every damaged range, narrowed through the trusted outboard parents;
//! `scrub_stream` a window at a time). Streaming (docs/bao.md, "Memory"): `mod.rs` reads
//! windows on a reader thread (`read_windows`) and places subtrees (`subtree_offset`);
//! `encode.rs`'s `encode_stream` writes each window's encoding at its place and the parents
//! above the windows last

mod decode;
mod encode;
mod scrub;
mod slice;

pub use decode::{decode, decode_outboard, Decoder};
pub use encode::{encode, encode_outboard};
pub use scrub::{scrub, ScrubReport};
pub use slice::{decode_slice, slice, slice_len, slice_outboard};

use super::{hash_all_at_once, parent_output, ChunkState, CvBytes, Platform, CHUNK_LEN, IV, OUT_LEN};
use crate::read_full;
use crate::threads::Threads;
use std::fmt;
use std::io;

/// The length header: the content length as a little-endian `u64`.
pub const HEADER_LEN: usize = 8;
/// A parent node: its two children's chaining values.
pub const PARENT_LEN: usize = 2 * OUT_LEN;
/// A 32-byte root hash (the BLAKE3 hash of the content).
pub type Hash = [u8; OUT_LEN];

/// Decoders read and check subtrees of up to this many bytes of content at once, with the
/// wide kernels; larger ones parent by parent.
pub const BATCH_BYTES: u64 = 1 << 20;

/// The content the streaming functions ([`Options::encode_stream`], [`Options::slice_stream`],
/// [`Options::scrub_stream`]) hold at once by default: a subtree of this many bytes is read,
/// hashed with the wide kernels (and threads) and written as one piece, so memory stays
/// bounded whatever the input's size. Two windows are in flight (one being read while the
/// other is hashed), with the window's encoding.
pub const STREAM_WINDOW: u64 = 8 << 20;

/// The largest chunk-group exponent [`Format::chunk_groups`] accepts (groups of 1 GiB).
pub const MAX_GROUP_LOG: u8 = 20;

/// The tree's leaf size: Bao's 1 KiB chunks, or groups of 2^k of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Format {
    group_log: u8,
}

impl Format {
    /// The `bao` crate's format: every chunk is a leaf.
    pub const BAO: Format = Format { group_log: 0 };

    /// Leaves of 2^`log` chunks (`log` = 4: 16 KiB, iroh's choice, whose outboard is 1/256
    /// of the data). `log` = 0 is [`Format::BAO`]; at most [`MAX_GROUP_LOG`].
    pub fn chunk_groups(log: u8) -> Result<Format, crate::Error> {
        if log > MAX_GROUP_LOG {
            return Err(crate::Error::InvalidArgument(format!(
                "chunk group exponent {log} is too large: groups are 2^k chunks of 1024 bytes, k at most {MAX_GROUP_LOG}"
            )));
        }
        Ok(Format { group_log: log })
    }

    /// The exponent k of the group size (2^k chunks).
    pub fn group_log(self) -> u8 {
        self.group_log
    }

    /// The leaf size in bytes.
    pub fn leaf_len(self) -> u64 {
        (CHUNK_LEN as u64) << self.group_log
    }

    /// How many leaves content of `len` bytes has (the empty content has one, empty).
    pub fn leaves(self, len: u64) -> u64 {
        len.div_ceil(self.leaf_len()).max(1)
    }

    /// The length of the outboard encoding of `len` bytes, header included.
    pub fn outboard_len(self, len: u64) -> u64 {
        HEADER_LEN as u64 + (self.leaves(len) - 1) * PARENT_LEN as u64
    }

    /// The length of the combined encoding of `len` bytes, header included; `None` where it
    /// would not fit in a `u64`.
    pub fn encoded_len(self, len: u64) -> Option<u64> {
        self.outboard_len(len).checked_add(len)
    }
}

/// The length of the `bao` crate's combined encoding of `len` bytes (`None` past `u64`).
pub fn encoded_len(len: u64) -> Option<u64> {
    Format::BAO.encoded_len(len)
}

/// The length of the `bao` crate's outboard encoding of `len` bytes.
pub fn outboard_len(len: u64) -> u64 {
    Format::BAO.outboard_len(len)
}

/// Which kind of node failed verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A parent node (the chaining values of two subtrees).
    Parent,
    /// A chunk, or a chunk group.
    Leaf,
}

/// What stopped a decoder, a slice extractor or a scrub.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A node did not match the hash its parent (or the root) gives for it: the content or
    /// the encoding is corrupt, or it is not the encoding of that root hash.
    Mismatch {
        /// A parent or a leaf.
        node: NodeKind,
        /// The first content byte the node covers.
        start: u64,
        /// One past the last.
        end: u64,
    },
    /// An input ended before the encoding did.
    Truncated {
        /// Which input: `"encoding"`, `"outboard"`, `"data"` or `"slice"`.
        what: &'static str,
        /// How many bytes of it there were when more were needed.
        offset: u64,
    },
    /// An input goes on after the encoding's end.
    TrailingBytes {
        /// Which input.
        what: &'static str,
        /// Where the encoding ended (the first extra byte).
        offset: u64,
    },
    /// An argument that cannot be right (e.g. a format the encoding was not made with).
    InvalidArgument(String),
    /// Reading failed.
    Io(io::Error),
    /// Writing the output of a streaming function failed.
    Output(io::Error),
    /// A streaming input's length was given up front and the input had another length
    /// (e.g. a file that changed while it was read).
    LengthChanged {
        /// The length announced.
        expected: u64,
        /// The length read (so far, where it went past the announced one).
        got: u64,
    },
}

impl Error {
    /// The content offset where verification failed, for a mismatch.
    pub fn content_offset(&self) -> Option<u64> {
        match self {
            Error::Mismatch { start, .. } => Some(*start),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Mismatch { node, start, end } => {
                let what = match node {
                    NodeKind::Parent => "parent node over",
                    NodeKind::Leaf => "chunk at",
                };
                write!(
                    f,
                    "verification failed at content offset {start}: the {what} content bytes {start}..{end} does \
                     not match the root hash (corrupt data or encoding, or a different root)"
                )
            }
            Error::Truncated { what, offset } => {
                write!(f, "the {what} is truncated: it ends after {offset} bytes, where the length header needs more")
            }
            Error::TrailingBytes { what, offset } => {
                write!(f, "the {what} goes on past its end at byte {offset} (extended, or a wrong length header)")
            }
            Error::InvalidArgument(msg) => f.write_str(msg),
            Error::Io(e) => write!(f, "{e}"),
            Error::Output(e) => write!(f, "cannot write the output: {e}"),
            Error::LengthChanged { expected, got } => write!(
                f,
                "the input changed while it was read: it was {expected} bytes long when reading began, then {got} \
                 bytes were read"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) | Error::Output(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<Error> for io::Error {
    /// Verification failures become `InvalidData`, truncation `UnexpectedEof`; the
    /// [`Error`] is the payload (`io::Error::get_ref`).
    fn from(e: Error) -> Self {
        match e {
            Error::Io(e) | Error::Output(e) => e,
            Error::Truncated { .. } => io::Error::new(io::ErrorKind::UnexpectedEof, e),
            Error::InvalidArgument(_) => io::Error::new(io::ErrorKind::InvalidInput, e),
            _ => io::Error::new(io::ErrorKind::InvalidData, e),
        }
    }
}

/// How to encode and decode: the format, threads and kernels.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    format: Format,
    threads: Threads,
    platform: Platform,
    window: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { format: Format::BAO, threads: Threads::One, platform: Platform::detect(), window: STREAM_WINDOW }
    }
}

impl Options {
    /// The `bao` crate's format on one thread with the detected kernels.
    pub fn new() -> Self {
        Self::default()
    }

    /// The leaf size (default [`Format::BAO`]).
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// How many threads may encode or check one input (default [`Threads::One`]).
    pub fn threads(mut self, threads: Threads) -> Self {
        self.threads = threads;
        self
    }

    /// The kernels (default [`Platform::detect`]); the output never depends on them.
    pub fn platform(mut self, platform: Platform) -> Self {
        self.platform = platform;
        self
    }

    /// The content the streaming functions hold at once (default [`STREAM_WINDOW`]),
    /// rounded up to a power-of-two number of chunks; at least two leaves, whatever is
    /// asked ([`Options::encode_file`]'s outboard with threads maps windows four times as
    /// large, whose outboard is a quarter of a window). The output never depends on it.
    pub fn stream_window(mut self, bytes: u64) -> Self {
        self.window = bytes.max(2 * CHUNK_LEN as u64).checked_next_power_of_two().unwrap_or(1 << 62);
        self
    }

    /// The format in use.
    pub fn get_format(&self) -> Format {
        self.format
    }

    /// The window in bytes: a power-of-two number of chunks, and at least two leaves so that
    /// a whole window always has a top parent. Every window but the last is a subtree of
    /// the content's tree whatever its length (an aligned power-of-two run of chunks), and
    /// the last one is the rest.
    fn window_len(&self) -> u64 {
        self.window.max(2 * self.format.leaf_len())
    }

    fn tree(&self, pool_size: usize) -> Tree {
        Tree { leaf_len: self.format.leaf_len(), platform: self.platform, par: pool_size > 1 }
    }
}

/// The fixed facts of one walk over a tree: the leaf size, the kernels, and whether joins
/// may run on other threads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tree {
    leaf_len: u64,
    platform: Platform,
    par: bool,
}

impl Tree {
    /// How many leaves a subtree of `len` bytes has.
    fn leaves(&self, len: u64) -> u64 {
        len.div_ceil(self.leaf_len).max(1)
    }

    /// The bytes of a subtree's parents.
    fn parents_len(&self, len: u64) -> u64 {
        (self.leaves(len) - 1) * PARENT_LEN as u64
    }

    /// The chaining value of a leaf (a chunk, or a group of chunks) of up to `leaf_len`
    /// bytes starting at content offset `start` (a multiple of the leaf size); with `root`
    /// the root hash, which is then the whole content.
    fn leaf_cv(&self, data: &[u8], start: u64, root: bool) -> CvBytes {
        let counter = start / CHUNK_LEN as u64;
        if data.len() <= CHUNK_LEN {
            let output = ChunkState::new(&IV, counter, 0, self.platform).update(data).output();
            return if root { first_32(&output.root_output_block(0)) } else { output.chaining_value() };
        }
        if root {
            return first_32(&hash_all_at_once(data, &IV, 0, self.platform).root_output_block(0));
        }
        let node = super::compress_subtree_to_parent_node(data, &IV, counter, 0, self.platform, self.par);
        self.parent_cv(&node, false)
    }

    /// The chaining value of a parent node (with `root`, the root hash).
    fn parent_cv(&self, node: &[u8; PARENT_LEN], root: bool) -> CvBytes {
        let (left, right) = node.split_at(OUT_LEN);
        let output = parent_output(
            left.try_into().expect("32 bytes"),
            right.try_into().expect("32 bytes"),
            &IV,
            0,
            self.platform,
        );
        if root {
            first_32(&output.root_output_block(0))
        } else {
            output.chaining_value()
        }
    }
}

fn first_32(block: &[u8; 64]) -> CvBytes {
    block[..OUT_LEN].try_into().expect("64-byte block")
}

/// The size of the left subtree of `len` bytes (more than one chunk): BLAKE3's rule, the
/// largest power-of-two number of chunks that leaves at least one byte on the right. A
/// subtree larger than a leaf of 2^k chunks splits into halves of at least 2^k chunks, so
/// chunk groups keep BLAKE3's tree.
fn left_len(len: u64) -> u64 {
    super::subtree::left_subtree_len(len)
}

impl Options {
    /// The content length of a whole combined encoding in this format, from its header,
    /// checked against the encoding's own length: it must end where the header says.
    fn read_encoding_len(&self, encoded: &[u8]) -> Result<u64, Error> {
        let len = read_header(encoded, "encoding")?;
        match self.format.encoded_len(len) {
            Some(total) if total <= encoded.len() as u64 => {
                if total < encoded.len() as u64 {
                    return Err(Error::TrailingBytes { what: "encoding", offset: total });
                }
            }
            _ => return Err(Error::Truncated { what: "encoding", offset: encoded.len() as u64 }),
        }
        Ok(len)
    }
}

/// Reads `input` in windows of `window` bytes on a thread of its own (so that reading
/// overlaps hashing: two buffers take turns) and calls `each` with every window's index
/// and bytes, the last one short (empty when the input ends on a window's end). Returns
/// the input's length. The reader thread is not joined on failure: it may be blocked on a
/// pipe, and it ends once it finds its channel closed.
fn read_windows<R: io::Read + Send + 'static>(
    input: R,
    window: usize,
    mut each: impl FnMut(u64, &[u8]) -> Result<(), Error>,
) -> Result<u64, Error> {
    use std::sync::mpsc::sync_channel;
    let (full_tx, full_rx) = sync_channel::<io::Result<(Vec<u8>, usize)>>(1);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(2);
    let reader = std::thread::Builder::new().name("bao-read".into()).spawn(move || {
        let mut input = input;
        while let Ok(mut buf) = empty_rx.recv() {
            if buf.len() != window {
                // A fresh buffer from the allocator's zeroed pages, not zeroes written
                // over it (a memset of every window buffer, as large as two windows).
                buf = vec![0u8; window];
            }
            match read_full(&mut input, &mut buf) {
                Ok(n) => {
                    if full_tx.send(Ok((buf, n))).is_err() || n < window {
                        return;
                    }
                }
                Err(e) => {
                    let _ = full_tx.send(Err(e));
                    return;
                }
            }
        }
    })?;
    for _ in 0..2 {
        // A reader that has already sent a short (last) window has no use for more.
        let _ = empty_tx.send(Vec::new());
    }
    let mut total = 0u64;
    for index in 0.. {
        let (buf, n) = match full_rx.recv() {
            Ok(Ok(piece)) => piece,
            Ok(Err(e)) => return Err(Error::Io(e)),
            Err(_) => return Err(Error::Io(io::Error::other("the bao reader thread stopped"))),
        };
        each(index, &buf[..n])?;
        total += n as u64;
        if n < window {
            break;
        }
        // The reader may already have ended (a short read is its last): then nobody needs
        // the buffer back.
        let _ = empty_tx.send(buf);
    }
    let _ = reader.join();
    Ok(total)
}

/// Where the encoding of the subtree `target` starts in the encoding of `len` bytes of
/// content (header excluded): down from the root, a parent's 64 bytes, then on the left
/// or past the whole left subtree. `target` must be a node of that tree.
fn subtree_offset(tree: &Tree, len: u64, target: Node, combined: bool) -> u64 {
    let mut node = Node { start: 0, len, root: true };
    let mut at = 0;
    while node.len > target.len {
        at += PARENT_LEN as u64;
        let (left, right) = node.children();
        if target.start < right.start {
            node = left;
        } else {
            at += tree.parents_len(left.len) + if combined { left.len } else { 0 };
            node = right;
        }
    }
    debug_assert!(node.start == target.start && node.len == target.len, "{node:?} is not {target:?}");
    at
}

/// Parses the length header.
fn read_header(bytes: &[u8], what: &'static str) -> Result<u64, Error> {
    match bytes.first_chunk::<HEADER_LEN>() {
        Some(header) => Ok(u64::from_le_bytes(*header)),
        None => Err(Error::Truncated { what, offset: bytes.len() as u64 }),
    }
}

/// A node that a walk visits: content bytes `start..start + len`, `root` for the whole tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    start: u64,
    len: u64,
    root: bool,
}

impl Node {
    fn end(&self) -> u64 {
        self.start + self.len
    }

    fn mismatch(&self, tree: &Tree) -> Error {
        let node = if self.len > tree.leaf_len { NodeKind::Parent } else { NodeKind::Leaf };
        Error::Mismatch { node, start: self.start, end: self.end() }
    }

    /// The two children of a parent.
    fn children(&self) -> (Node, Node) {
        let left = left_len(self.len);
        (
            Node { start: self.start, len: left, root: false },
            Node { start: self.start + left, len: self.len - left, root: false },
        )
    }
}

/// Converts a subtree's combined encoding into its content (appended to `data`) and its
/// parents (appended to `parents`), the outboard order.
fn split_combined(tree: &Tree, encoded: &[u8], len: u64, data: &mut Vec<u8>, parents: &mut Vec<u8>) {
    fn walk(tree: &Tree, encoded: &mut &[u8], len: u64, data: &mut Vec<u8>, parents: &mut Vec<u8>) {
        if len <= tree.leaf_len {
            let (leaf, rest) = encoded.split_at(len as usize);
            data.extend_from_slice(leaf);
            *encoded = rest;
            return;
        }
        let (parent, rest) = encoded.split_at(PARENT_LEN);
        parents.extend_from_slice(parent);
        *encoded = rest;
        let left = left_len(len);
        walk(tree, encoded, left, data, parents);
        walk(tree, encoded, len - left, data, parents);
    }
    let mut rest = encoded;
    walk(tree, &mut rest, len, data, parents);
    debug_assert!(rest.is_empty());
}
