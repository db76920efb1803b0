//! The encoder: the combined and outboard encodings of content in memory.

use super::{
    left_len, read_full, read_windows, subtree_offset, Error, Hash, Node, Options, Tree, HEADER_LEN, PARENT_LEN,
};
use crate::blake3::{
    chunks_job, compress_chunks_parallel, compress_parents_parallel, fill_prefix, join, with_pool, CacheLines, CvBytes,
    LaneLevels, CHUNK_LEN, IV, OUT_LEN, PARENT,
};
use core::mem::MaybeUninit;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::mpsc::sync_channel;

/// Subtrees of a power-of-two number of chunks up to this many are hashed in one go: every
/// chunk in one kernel call, then each level of parents in one call (the way the plain hash
/// hashes them), and their nodes are then copied into pre-order.
const BATCH_CHUNKS: usize = 128;

/// With threads, subtrees from this size on are split between them (a batch is 128 KiB, so
/// each piece offered is at least one batch).
const PAR_GRAIN: u64 = 256 * 1024;

/// How much of a file [`Options::encode_file`] maps at a time: its pages count in the
/// resident set while mapped, so half of `any::MMAP_WINDOW_LEN`, which keeps a combined
/// encode (the span, plus the window's encoding) well under 64 MiB.
#[cfg(all(feature = "mmap", target_os = "linux"))]
const MAP_SPAN: u64 = 32 << 20;

/// The `bao` crate's combined encoding of `data` on one thread: (root hash, encoding).
pub fn encode(data: &[u8]) -> (Hash, Vec<u8>) {
    Options::default().encode(data)
}

/// The `bao` crate's outboard encoding of `data` on one thread: (root hash, outboard).
pub fn encode_outboard(data: &[u8]) -> (Hash, Vec<u8>) {
    Options::default().encode_outboard(data)
}

impl Options {
    /// The combined encoding of `data`: (root hash, encoding).
    ///
    /// # Panics
    ///
    /// If the encoding would not fit in memory's address space.
    pub fn encode(&self, data: &[u8]) -> (Hash, Vec<u8>) {
        let len = self.format.encoded_len(data.len() as u64).expect("the encoding's length fits a u64");
        let mut out = vec![0u8; usize::try_from(len).expect("the encoding fits in memory")];
        let root = self.encode_into(data, &mut out, true);
        (root, out)
    }

    /// The outboard encoding of `data`: (root hash, outboard).
    pub fn encode_outboard(&self, data: &[u8]) -> (Hash, Vec<u8>) {
        let len = self.format.outboard_len(data.len() as u64);
        let mut out = vec![0u8; usize::try_from(len).expect("the outboard fits in memory")];
        let root = self.encode_into(data, &mut out, false);
        (root, out)
    }

    /// Writes the combined (`combined`) or outboard encoding of `data` into `out`, which
    /// must be exactly [`super::Format::encoded_len`] or [`super::Format::outboard_len`]
    /// bytes long, and returns the root hash.
    ///
    /// # Panics
    ///
    /// If `out` has another length.
    pub fn encode_into(&self, data: &[u8], out: &mut [u8], combined: bool) -> Hash {
        let len = data.len() as u64;
        let expected = if combined { self.format.encoded_len(len) } else { Some(self.format.outboard_len(len)) };
        assert_eq!(Some(out.len() as u64), expected, "bao encode_into: output length");
        out[..HEADER_LEN].copy_from_slice(&len.to_le_bytes());
        let pool_size = self.threads.pool_size(data.len());
        let tree = self.tree(pool_size);
        with_pool(pool_size, || encode_node(&tree, data, 0, true, combined, &mut out[HEADER_LEN..]))
    }
}

impl Options {
    /// Streams the combined (`combined`) or outboard encoding of the content read from
    /// `input` into `output`, and returns (root hash, content length). Memory stays bounded
    /// whatever the input's size: the content is read a window at a time
    /// ([`Options::stream_window`]), each window (a subtree) encoded with the wide kernels
    /// and threads and written where it belongs, and the few parents above the windows
    /// written at the end. The output is byte for byte what [`Options::encode`] gives.
    ///
    /// `len`: the content's length, if known up front (a file's size); the input must then
    /// have exactly that length ([`Error::LengthChanged`] otherwise), and every window goes
    /// straight to its place. Without it (a pipe) the windows are written one after another
    /// and moved to their places once the length is known, from the last one back (each
    /// moves towards the end, so none overwrites one not yet moved): an extra read and
    /// write of the output. `output` must be empty or ready to be overwritten from its
    /// start; write errors are [`Error::Output`], read errors [`Error::Io`].
    pub fn encode_stream<R, W>(
        &self,
        input: R,
        len: Option<u64>,
        output: W,
        combined: bool,
    ) -> Result<(Hash, u64), Error>
    where
        R: Read + Send + 'static,
        W: Read + Write + Seek + Send,
    {
        let window = self.window_len() as usize;
        self.encode_windows(len, output, combined, |each| read_windows(input, window, each))
    }

    /// [`Options::encode_stream`] of a regular file: with threads (and the `mmap` feature, on
    /// Linux) each window is memory-mapped in turn instead of read, as `any::hash_file` does
    /// for large files: the kernel's copy into a read buffer cost more than hashing the window
    /// on two threads, and the threads fault their pages in in parallel. Only one span is
    /// mapped at a time, so the resident set stays bounded. Otherwise the file is read as
    /// [`Options::encode_stream`] reads. A file found longer or shorter than at the start
    /// fails with [`Error::LengthChanged`], also when it is truncated while mapped: the
    /// mapping is guarded (`map_guard`), so the lost pages read as zeros, never used, instead
    /// of raising SIGBUS.
    pub fn encode_file<W>(&self, file: std::fs::File, output: W, combined: bool) -> Result<(Hash, u64), Error>
    where
        W: Read + Write + Seek + Send,
    {
        let meta = file.metadata()?;
        let len = meta.is_file().then_some(meta.len());
        #[cfg(all(feature = "mmap", target_os = "linux"))]
        if let Some(len) = len {
            let pool_size = self.threads.pool_size(usize::try_from(len).unwrap_or(usize::MAX));
            if pool_size > 1 {
                // The outboard of a window is a sixteenth of it (or less): its windows are
                // four times as large (32 MiB by default, one span), each hashed in one go by
                // the pool and written in one piece, as the plain hash hashes its mapped
                // windows. With 8 MiB windows the pool went idle and was woken again, and a
                // buffer went to the writer thread, four times as often (issue 48: a quarter
                // more time than hashing, its threads waiting). Not `any::hash_file`'s 64 MiB:
                // the span and two windows' outboards stay within tests/bao_memory.rs's
                // bound. The combined encoding keeps its windows: its output is a copy of
                // the content.
                let options = if combined { *self } else { self.stream_window(self.window_len().saturating_mul(4)) };
                let window = options.window_len();
                // Mapped in spans of several windows: each unmap of a span that the pool's
                // threads touched interrupts them all (TLB shootdown), so fewer and larger
                // ones. The span's pages count in the resident set while it is mapped.
                let span = window.max(MAP_SPAN);
                return options.encode_windows(Some(len), output, combined, |each| {
                    let mut start = 0;
                    loop {
                        let n = span.min(len - start) as usize;
                        if n == 0 {
                            // The content ends on a window's end (or is empty).
                            each(start / window, &[])?;
                            return Ok(len);
                        }
                        // SAFETY: the map is read-only and lives only for this iteration. A
                        // concurrent truncation is caught by the guard below (the lost
                        // pages become zeros, and the encode fails); concurrent writes can
                        // only change the output, which reading would not prevent either.
                        let map = unsafe { crate::any::map_read_only(&file, start, n, false) }.ok();
                        let guard = map.as_ref().and_then(|map| {
                            // Only a hint: failure changes nothing.
                            let _ = map.advise(memmap2::Advice::Sequential);
                            crate::map_guard::Guard::new(map)
                        });
                        let read;
                        let data: &[u8] = if let (Some(map), Some(_)) = (&map, &guard) {
                            // Paged in up front by the pool's threads, each over its share, as
                            // `any::hash_file` does: a page fault every few pages during the
                            // hash cost more (under a hypervisor most of all).
                            crate::any::populate_in_parallel(map, pool_size);
                            map
                        } else {
                            // Not mappable (`any::map_read_only`), or no guard to be had
                            // (every slot busy): read this span instead.
                            use std::os::unix::fs::FileExt;
                            let mut buf = vec![0u8; n];
                            file.read_exact_at(&mut buf, start)?;
                            read = buf;
                            &read
                        };
                        let truncated = || guard.as_ref().is_some_and(|g| g.faulted());
                        for (i, piece) in data.chunks(window as usize).enumerate() {
                            each(start / window + i as u64, piece)?;
                            if truncated() {
                                let got = file.metadata().map_or(start, |m| m.len());
                                return Err(Error::LengthChanged { expected: len, got });
                            }
                            if (piece.len() as u64) < window {
                                return Ok(len);
                            }
                        }
                        start += n as u64;
                    }
                });
            }
        }
        self.encode_stream(file, len, output, combined)
    }

    /// The encoding of a file written front to back to `out`, which need not seek (a pipe,
    /// standard output). The root's parent comes first and depends on all of the content,
    /// so the file is read twice: once to hash its windows (their chaining values, 32 bytes
    /// each, and the parents above them are kept), once to encode each window again and
    /// write it with the parents that precede it. Memory as [`Options::encode_stream`]'s; a
    /// file that changes between the passes fails ([`Error::LengthChanged`], or
    /// [`Error::InvalidArgument`] if only its content changed) after part of the encoding
    /// was written.
    pub fn encode_file_to_writer(
        &self,
        file: &std::fs::File,
        out: &mut (impl Write + ?Sized),
        combined: bool,
    ) -> Result<(Hash, u64), Error> {
        let len = file.metadata()?.len();
        let window = self.window_len();
        let reopen = || -> Result<std::fs::File, Error> {
            let mut f = file.try_clone()?;
            f.seek(SeekFrom::Start(0))?;
            Ok(f)
        };
        if len <= window {
            // One window: the whole content is at most a window, held as it is anyway.
            let mut data = Vec::new();
            reopen()?.take(window + 1).read_to_end(&mut data)?;
            if data.len() as u64 != len {
                return Err(Error::LengthChanged { expected: len, got: data.len() as u64 });
            }
            let (root, encoded) = if combined { self.encode(&data) } else { self.encode_outboard(&data) };
            out.write_all(&encoded).map_err(Error::Output)?;
            return Ok((root, len));
        }
        let pool_size = self.threads.pool_size(usize::try_from(len).unwrap_or(usize::MAX));
        let tree = self.tree(pool_size);
        let check_len = |start: u64, n: u64| -> Result<(), Error> {
            if start + n > len || (n < window && start + n != len) {
                return Err(Error::LengthChanged { expected: len, got: start + n });
            }
            Ok(())
        };
        // Pass 1: the windows' chaining values.
        let mut scratch = vec![0u8; node_out_len(&tree, window, false)];
        let mut cvs: Vec<CvBytes> = Vec::new();
        read_windows(reopen()?, window as usize, |index, data| {
            let (start, n) = (index * window, data.len() as u64);
            check_len(start, n)?;
            if n > 0 {
                let parents = &mut scratch[..node_out_len(&tree, n, false)];
                cvs.push(with_pool(pool_size, || encode_node(&tree, data, start, false, false, parents)));
            }
            Ok(())
        })?;
        let mut parents = Vec::new();
        let root = upper_tree(&tree, Node { start: 0, len, root: true }, window, &cvs, 0, combined, &mut parents);
        parents.sort_by_key(|(at, _)| *at);
        // Pass 2: front to back, each window preceded by the parents above it.
        out.write_all(&len.to_le_bytes()).map_err(Error::Output)?;
        let mut buf = vec![0u8; node_out_len(&tree, window, combined)];
        let mut next_parent = parents.iter().peekable();
        read_windows(reopen()?, window as usize, |index, data| {
            let (start, n) = (index * window, data.len() as u64);
            check_len(start, n)?;
            if n == 0 {
                return Ok(());
            }
            let node = Node { start, len: n, root: false };
            let at = subtree_offset(&tree, len, node, combined);
            while let Some((_, parent)) = next_parent.next_if(|(p, _)| *p < at) {
                out.write_all(parent).map_err(Error::Output)?;
            }
            let used = node_out_len(&tree, n, combined);
            let encoded = &mut buf[..used];
            let cv = with_pool(pool_size, || encode_node(&tree, data, start, false, combined, encoded));
            if cv != cvs[index as usize] {
                return Err(Error::InvalidArgument(format!(
                    "the input changed while it was read: bytes {start}..{} differ between the two passes",
                    start + n
                )));
            }
            out.write_all(encoded).map_err(Error::Output)
        })?;
        debug_assert!(next_parent.next().is_none(), "every parent precedes a window");
        out.flush().map_err(Error::Output)?;
        Ok((root, len))
    }

    /// The encoder behind [`Options::encode_stream`] and [`Options::encode_file`]: `drive`
    /// calls its argument with every window (index, bytes; the last one short, maybe
    /// empty) and returns the content's length.
    fn encode_windows<W: Read + Write + Seek + Send>(
        &self,
        len: Option<u64>,
        mut output: W,
        combined: bool,
        drive: impl FnOnce(&mut dyn FnMut(u64, &[u8]) -> Result<(), Error>) -> Result<u64, Error>,
    ) -> Result<(Hash, u64), Error> {
        let window = self.window_len();
        let pool_size = self.threads.pool_size(usize::try_from(len.unwrap_or(u64::MAX)).unwrap_or(usize::MAX));
        let tree = self.tree(pool_size);
        let window_out = node_out_len(&tree, window, combined);
        let mut cvs: Vec<CvBytes> = Vec::new();
        let mut first_top = [0u8; PARENT_LEN];
        let mut single_root = None;
        let write_at = |output: &mut W, at: u64, bytes: &[u8]| -> Result<(), Error> {
            output.seek(SeekFrom::Start(at)).map_err(Error::Output)?;
            output.write_all(bytes).map_err(Error::Output)
        };
        // A window's encoding is written on a thread of its own while the next one is
        // hashed (two buffers take turns): for the combined encoding the write is a copy as
        // large as the hashing's input, and it was serial.
        let total = std::thread::scope(|scope| -> Result<u64, Error> {
            let (full_tx, full_rx) = sync_channel::<(u64, Vec<u8>, usize)>(1);
            let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(2);
            for _ in 0..2 {
                empty_tx.send(vec![0u8; window_out]).expect("the receiver is here");
            }
            let out = &mut output;
            let writer = scope.spawn(move || -> Result<(), Error> {
                for (at, buf, n) in full_rx {
                    write_at(out, at, &buf[..n])?;
                    // Nobody wants the buffer back after the last window.
                    let _ = empty_tx.send(buf);
                }
                Ok(())
            });
            let writer_gone = || Error::Output(std::io::Error::other("the bao writer thread stopped"));
            let read = drive(&mut |index, data| {
                let start = index * window;
                let n = data.len() as u64;
                if let Some(expected) = len {
                    if start + n > expected || (n < window && start + n != expected) {
                        return Err(Error::LengthChanged { expected, got: start + n });
                    }
                }
                if index > 0 && n == 0 {
                    return Ok(());
                }
                let node = Node { start, len: n, root: index == 0 && n < window };
                let mut buf = empty_rx.recv().map_err(|_| writer_gone())?;
                let used = node_out_len(&tree, n, combined);
                let out = &mut buf[..used];
                let cv = with_pool(pool_size, || encode_node(&tree, data, start, node.root, combined, out));
                if node.root {
                    single_root = Some(cv);
                } else {
                    if index == 0 {
                        first_top.copy_from_slice(&out[..PARENT_LEN]);
                    }
                    cvs.push(cv);
                }
                let at = match len {
                    Some(len) if !node.root => subtree_offset(&tree, len, node, combined),
                    _ => index * window_out as u64,
                };
                full_tx.send((HEADER_LEN as u64 + at, buf, used)).map_err(|_| writer_gone())
            });
            drop(full_tx);
            // The writer's own error says more than "it stopped".
            writer.join().expect("the bao writer thread does not panic")?;
            read
        })?;
        let mut out = vec![0u8; if len.is_none() { window_out } else { 0 }];
        write_at(&mut output, 0, &total.to_le_bytes())?;
        if let Some(root) = single_root {
            return Ok((root, total));
        }
        if cvs.len() == 1 {
            // One whole window: its top parent is the root's.
            return Ok((tree.parent_cv(&first_top, true), total));
        }
        if len.is_none() {
            for index in (0..cvs.len() as u64).rev() {
                let start = index * window;
                let node = Node { start, len: window.min(total - start), root: false };
                let from = HEADER_LEN as u64 + index * window_out as u64;
                let to = HEADER_LEN as u64 + subtree_offset(&tree, total, node, combined);
                if from == to {
                    continue;
                }
                let piece = &mut out[..node_out_len(&tree, node.len, combined)];
                output.seek(SeekFrom::Start(from)).map_err(Error::Output)?;
                let got = read_full(&mut output, piece).map_err(Error::Output)?;
                if got < piece.len() {
                    return Err(Error::Output(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the output is shorter than what was written to it",
                    )));
                }
                write_at(&mut output, to, piece)?;
            }
        }
        let mut parents = Vec::new();
        let root =
            upper_tree(&tree, Node { start: 0, len: total, root: true }, window, &cvs, 0, combined, &mut parents);
        for (at, parent) in &parents {
            write_at(&mut output, HEADER_LEN as u64 + at, parent)?;
        }
        output.flush().map_err(Error::Output)?;
        Ok((root, total))
    }
}

/// The parents above the windows of a streamed encoding: computes the chaining value of
/// `node` from the windows' (`cvs`, window `i` at content offset `i * window`) and pushes
/// each parent with its offset in the encoding (header excluded; `at` is `node`'s).
#[allow(clippy::too_many_arguments)]
pub(super) fn upper_tree(
    tree: &Tree,
    node: Node,
    window: u64,
    cvs: &[CvBytes],
    at: u64,
    combined: bool,
    parents: &mut Vec<(u64, [u8; PARENT_LEN])>,
) -> CvBytes {
    if !node.root && node.len <= window {
        return cvs[(node.start / window) as usize];
    }
    let (left, right) = node.children();
    let right_at = at + PARENT_LEN as u64 + node_out_len(tree, left.len, combined) as u64;
    let left_cv = upper_tree(tree, left, window, cvs, at + PARENT_LEN as u64, combined, parents);
    let right_cv = upper_tree(tree, right, window, cvs, right_at, combined, parents);
    let mut parent = [0u8; PARENT_LEN];
    parent[..OUT_LEN].copy_from_slice(&left_cv);
    parent[OUT_LEN..].copy_from_slice(&right_cv);
    parents.push((at, parent));
    tree.parent_cv(&parent, node.root)
}

/// The length of a subtree's combined encoding, or of its parents alone.
pub(super) fn node_out_len(tree: &Tree, len: u64, combined: bool) -> usize {
    (tree.parents_len(len) + if combined { len } else { 0 }) as usize
}

/// Encodes the subtree `data`, which starts `start` bytes into the content, into `out`
/// (its combined encoding with `combined`, else its parents), and returns its chaining
/// value (with `root`, the root hash).
pub(super) fn encode_node(tree: &Tree, data: &[u8], start: u64, root: bool, combined: bool, out: &mut [u8]) -> CvBytes {
    let len = data.len() as u64;
    debug_assert_eq!(out.len(), node_out_len(tree, len, combined));
    if len <= tree.leaf_len {
        if combined {
            out.copy_from_slice(data);
        }
        return tree.leaf_cv(data, start, root);
    }
    let chunks = len / CHUNK_LEN as u64;
    if len.is_multiple_of(CHUNK_LEN as u64) && chunks.is_power_of_two() && chunks <= BATCH_CHUNKS as u64 {
        let top = encode_perfect(tree, data, start, combined, out);
        return tree.parent_cv(&top, root);
    }
    let left = left_len(len);
    let (left_data, right_data) = data.split_at(left as usize);
    let (parent, rest) = out.split_at_mut(PARENT_LEN);
    let (left_out, right_out) = rest.split_at_mut(node_out_len(tree, left, combined));
    let (left_cv, right_cv) = join(
        tree.par && len >= PAR_GRAIN,
        || encode_node(tree, left_data, start, false, combined, left_out),
        || encode_node(tree, right_data, start + left, false, combined, right_out),
    );
    parent[..OUT_LEN].copy_from_slice(&left_cv);
    parent[OUT_LEN..].copy_from_slice(&right_cv);
    tree.parent_cv(&(&*parent).try_into().expect("64 bytes"), root)
}

/// Encodes a subtree of 2^m chunks (more than one leaf, at most `BATCH_CHUNKS` chunks) and
/// returns its top parent node. The chunks are hashed in one kernel call and each level of
/// parents in one more; a parent's 64 bytes are its two children side by side in the level
/// below, so writing pre-order is copying.
fn encode_perfect(tree: &Tree, data: &[u8], start: u64, combined: bool, out: &mut [u8]) -> [u8; PARENT_LEN] {
    let chunks = data.len() / CHUNK_LEN;
    let height = chunks.trailing_zeros();
    let group_log = (tree.leaf_len / CHUNK_LEN as u64).trailing_zeros();
    debug_assert!(height > group_log && chunks <= BATCH_CHUNKS);
    // Level l (0: chunks) holds chunks >> l chaining values from offsets[l]; levels up to
    // height - 1 are computed, the top node is the two values of the last.
    let mut cvs = [0u8; 2 * BATCH_CHUNKS * OUT_LEN];
    let mut offsets = [0usize; BATCH_CHUNKS.trailing_zeros() as usize + 1];
    let counter = start / CHUNK_LEN as u64;
    let (mut level, mut count) = match tree.platform.lane_levels() {
        Some(lanes) if chunks.is_multiple_of(2 * lanes.group()) => {
            levels_in_lanes(lanes, data, counter, height, &mut cvs, &mut offsets)
        }
        _ => {
            let n = compress_chunks_parallel::<BATCH_CHUNKS>(
                data,
                &IV,
                counter,
                0,
                tree.platform,
                &mut cvs[..chunks * OUT_LEN],
            );
            debug_assert_eq!(n, chunks);
            (1, chunks)
        }
    };
    // The levels left (or all of them), from the rows of the one below.
    while level < height as usize {
        let (below, above) = cvs.split_at_mut(offsets[level - 1] + count * OUT_LEN);
        offsets[level] = below.len();
        let made = compress_parents_parallel::<{ BATCH_CHUNKS / 2 }>(
            &below[offsets[level - 1]..],
            &IV,
            0,
            tree.platform,
            &mut above[..count / 2 * OUT_LEN],
        );
        debug_assert_eq!(made, count / 2);
        count /= 2;
        level += 1;
    }
    let levels = Levels { cvs: &cvs, offsets: &offsets, group_log, leaf_len: tree.leaf_len as usize, data, combined };
    levels.place(height, out);
    out[..PARENT_LEN].try_into().expect("64 bytes")
}

/// The lowest levels of a perfect subtree with the lane-form kernels (as the plain hash
/// hashes them): the chunks, then each level of parents while it pairs up by whole groups,
/// each level kept in lane form for the next and a copy of it rewritten in rows into
/// `cvs` (at `offsets[level]`). Returns the next level to compute and how many chaining
/// values the last one written has. Through `hash_many` and per-level parent calls the
/// outboard cost more than the plain hash, whose levels stay in lanes.
fn levels_in_lanes(
    lanes: LaneLevels,
    data: &[u8],
    counter: u64,
    height: u32,
    cvs: &mut [u8],
    offsets: &mut [usize],
) -> (usize, usize) {
    let mut slots = [const { MaybeUninit::<&[u8]>::uninit() }; BATCH_CHUNKS];
    let chunks = fill_prefix(&mut slots, data.chunks_exact(CHUNK_LEN));
    let mut count = chunks.len();
    let mut lane = CacheLines([0u8; BATCH_CHUNKS * OUT_LEN]);
    let mut next = CacheLines([0u8; BATCH_CHUNKS / 2 * OUT_LEN]);
    lanes.hash_many(&chunks_job(chunks, &IV, counter, 0), &mut lane.0[..count * OUT_LEN]);
    let mut level = 0;
    loop {
        let bytes = count * OUT_LEN;
        let rows = &mut cvs[offsets[level]..][..bytes];
        rows.copy_from_slice(&lane.0[..bytes]);
        lanes.to_rows(rows);
        let groups = count / lanes.group();
        if level + 1 == height as usize || groups < 2 || !groups.is_multiple_of(2) {
            return (level + 1, count);
        }
        lanes.parents(&lane.0[..bytes], &IV, PARENT, &mut next.0[..bytes / 2]);
        lane.0[..bytes / 2].copy_from_slice(&next.0[..bytes / 2]);
        count /= 2;
        offsets[level + 1] = offsets[level] + bytes;
        level += 1;
    }
}

/// The levels of a perfect subtree, to be written out in pre-order.
struct Levels<'a> {
    cvs: &'a [u8],
    offsets: &'a [usize],
    group_log: u32,
    leaf_len: usize,
    data: &'a [u8],
    combined: bool,
}

impl Levels<'_> {
    /// The bytes of the encoding of a subtree whose top is at `level`.
    fn encoded_len(&self, level: u32) -> usize {
        let leaves = 1usize << (level - self.group_log);
        (leaves - 1) * PARENT_LEN + if self.combined { leaves * self.leaf_len } else { 0 }
    }

    /// Writes the subtree whose top is the one node of level `height` into `out`, a level at
    /// a time: each node's position follows from its parent's (the left child right after
    /// it, the right child after the left child's subtree). A recursive walk cost 5% of
    /// an outboard's time.
    fn place(&self, height: u32, out: &mut [u8]) {
        let (mut a, mut b) = ([0usize; BATCH_CHUNKS], [0usize; BATCH_CHUNKS]);
        let (mut positions, mut next) = (&mut a, &mut b);
        let mut nodes = 1;
        for level in (self.group_log + 1..=height).rev() {
            let below = self.offsets[level as usize - 1];
            let child_len = self.encoded_len(level - 1);
            for (i, &at) in positions[..nodes].iter().enumerate() {
                out[at..at + PARENT_LEN].copy_from_slice(&self.cvs[below + 2 * i * OUT_LEN..][..PARENT_LEN]);
                next[2 * i] = at + PARENT_LEN;
                next[2 * i + 1] = at + PARENT_LEN + child_len;
            }
            core::mem::swap(&mut positions, &mut next); // the references, not the arrays
            nodes *= 2;
        }
        if self.combined {
            for (leaf, &at) in self.data.chunks_exact(self.leaf_len).zip(&positions[..nodes]) {
                out[at..at + self.leaf_len].copy_from_slice(leaf);
            }
        }
    }
}
