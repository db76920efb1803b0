//! The chunk pipeline of [`sealed_stream`](super::sealed_stream): seals or opens the chunks
//! of a whole stream in batches, on the caller's thread alone or with helper threads, with
//! the same output for any thread count.
//!
//! Each batch is one buffer laid out exactly as the sealed chunks are (a 16-byte tag slot,
//! then up to 64 KiB of data, per chunk), so a chunk is sealed or opened in place: the
//! plaintext is read straight into its slot and the sealed batch is written from the same
//! buffer; no second buffer, no copy. A batch is sealed by one thread, start to end, so
//! batches need no locking while they are worked on.
//!
//! With helpers, the caller's thread (which owns the reader and the writer: they need not
//! be `Send`) reads batches into a bounded window, writes finished batches in order, and
//! seals or opens batches itself whenever it has no reading or writing to do; the helpers
//! only seal or open. So the reading and writing overlap with the sealing, and the work
//! spreads over every thread instead of a thread being left for input and output. Threads
//! wait on a condition variable (they sleep; they do not spin).
//!
//! ## What this file holds
//!
//! `seal_chunks`/`open_chunks`: batches of 16 chunks in the sealed layout, sealed or opened in
//! place by one thread each; the caller's thread reads, writes in order and works on batches
//! when it has no I/O, `threads - 1` scoped helpers only seal or open (condition variable, no
//! spinning); a window of 3 batches per thread bounds memory; the same bytes on any thread
//! count

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::{Condvar, Mutex};

use super::sealed_format::{
    open_chunk_in_place, seal_chunk_in_place, DecryptError, FileKey, CHUNK_LEN, SEALED_CHUNK_LEN,
};
use super::secretbox::TAG_LEN;
use crate::read_full;
use crate::threads::Threads;

/// Chunks per batch: the file-reading block of [`crate::cpu::read_buffer_len`] (at least
/// one chunk, at most 16): a batch is read into its buffer and then sealed or opened in
/// place, so it must still be in the core's L2 cache when the cipher reaches it; even one
/// chunk is enough work that handing a batch to a helper costs little.
fn chunks_per_batch() -> usize {
    (crate::cpu::read_buffer_len() / CHUNK_LEN).clamp(1, 16)
}

/// Batches in flight per thread (read, being worked on, or waiting to be written): a few,
/// so that no thread waits for the next batch; memory stays at this many batches a thread.
const WINDOW_PER_THREAD: usize = 3;

/// The most bytes handed to one `write` call. Linux (6.x, ext4 with large folios) was
/// measured to spend several times longer in `write` for single calls of 2 to 4 MiB into
/// the page cache than for the same bytes in calls of 1 MiB or less (it allocates folios
/// as large as the write). A syscall per 256 KiB costs nothing measurable.
const WRITE_PIECE: usize = 256 * 1024;

/// How many threads `threads` means here: every CPU for `Auto`. The helpers are plain
/// scoped threads (not rayon's pool), so this does not depend on the `rayon` feature.
fn thread_count(threads: Threads) -> usize {
    match threads {
        Threads::One => 1,
        Threads::Max(n) => n.max(1),
        Threads::Auto => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// One look-ahead byte: whether the input goes on after a full batch. The byte read is
/// kept for the next batch.
fn look_ahead(input: &mut impl Read, carry: &mut Option<u8>) -> io::Result<bool> {
    let mut one = [0u8; 1];
    if read_full(input, &mut one)? == 0 {
        return Ok(false);
    }
    *carry = Some(one[0]);
    Ok(true)
}

/// One batch of consecutive chunks, in the sealed layout.
#[derive(Default)]
struct Batch {
    /// Tag slot and data of each chunk, `SEALED_CHUNK_LEN` apart.
    buf: Vec<u8>,
    /// Chunks in the batch (at least 1 when sealing; 0 only for an empty sealed input).
    chunks: usize,
    /// Bytes of the batch in the sealed layout (the last chunk may be cut short when
    /// opening a damaged file).
    len: usize,
    /// The index of the first chunk.
    first: u64,
    /// Whether the batch holds the stream's final chunk.
    is_final: bool,
    /// Opening: how many chunks authenticated before the first failure, and why it failed.
    good: usize,
    error: Option<DecryptError>,
}

impl Batch {
    /// The sealed bytes of chunk `i` (tag, then data).
    fn sealed_chunk(&mut self, i: usize) -> &mut [u8] {
        let end = ((i + 1) * SEALED_CHUNK_LEN).min(self.len);
        &mut self.buf[i * SEALED_CHUNK_LEN..end]
    }

    /// The data bytes of a chunk `i` that holds at least a tag.
    fn data(&self, i: usize) -> &[u8] {
        let end = ((i + 1) * SEALED_CHUNK_LEN).min(self.len);
        &self.buf[i * SEALED_CHUNK_LEN + TAG_LEN..end]
    }
}

/// The queues the threads share: batches to work on, and finished ones by position.
struct Queues {
    todo: VecDeque<(u64, Batch)>,
    done: Vec<(u64, Batch)>,
    /// Set when the caller stops (the end, or an error): helpers then exit.
    stop: bool,
    /// Set when a helper panicked: the caller must not wait for its batch.
    helper_panicked: bool,
}

struct Shared {
    queues: Mutex<Queues>,
    /// Signalled when a batch is queued to work on, or on stop.
    work: Condvar,
    /// Signalled when a batch is finished.
    finished: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Runs `process` on each batch `fill` produces and hands the batches to `drain` in
/// order, on `threads` threads (the caller's and `threads - 1` helpers). Stops after the
/// final batch or the first error.
fn pipeline<E>(
    threads: usize,
    mut fill: impl FnMut(&mut Batch) -> Result<(), E>,
    process: impl Fn(&mut Batch) + Sync,
    mut drain: impl FnMut(&mut Batch) -> Result<(), E>,
) -> Result<(), E> {
    let mut first = Batch::default();
    fill(&mut first)?;
    if threads <= 1 || first.is_final {
        // One thread, or a stream of one batch: no helper is worth starting.
        let mut b = first;
        loop {
            process(&mut b);
            drain(&mut b)?;
            if b.is_final {
                return Ok(());
            }
            fill(&mut b)?;
        }
    }
    let shared = Shared {
        queues: Mutex::new(Queues { todo: VecDeque::new(), done: Vec::new(), stop: false, helper_panicked: false }),
        work: Condvar::new(),
        finished: Condvar::new(),
    };
    let window = WINDOW_PER_THREAD * threads;
    let (shared, process) = (&shared, &process);
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(move || helper(shared, process));
        }
        // Stops the helpers however the caller leaves, a panic included (the scope
        // waits for them).
        let _stop = StopOnDrop(shared);
        (|| {
            shared.lock().todo.push_back((0, first));
            shared.work.notify_one();
            let (mut filled, mut drained, mut more) = (1u64, 0u64, true);
            let mut spare: Vec<Batch> = Vec::new();
            loop {
                // Reading first, so that the helpers always have work.
                if more && filled - drained < window as u64 {
                    let mut b = spare.pop().unwrap_or_default();
                    fill(&mut b)?;
                    more = !b.is_final;
                    shared.lock().todo.push_back((filled, b));
                    shared.work.notify_one();
                    filled += 1;
                    continue;
                }
                if drained == filled {
                    return Ok(());
                }
                // Then writing the next batch if it is done; else working on one; else
                // waiting for the next to be done.
                let mut q = shared.lock();
                let next = loop {
                    if let Some(at) = q.done.iter().position(|(seq, _)| *seq == drained) {
                        break Some(q.done.swap_remove(at).1);
                    }
                    if let Some((seq, mut b)) = q.todo.pop_front() {
                        drop(q);
                        process(&mut b);
                        q = shared.lock();
                        q.done.push((seq, b));
                        if more {
                            // Refill the window before anything else.
                            break None;
                        }
                        continue;
                    }
                    // (The scope re-raises the helper's panic once the caller returns.)
                    assert!(!q.helper_panicked, "a sealed_stream helper thread panicked");
                    q = shared.finished.wait(q).unwrap_or_else(|e| e.into_inner());
                };
                drop(q);
                if let Some(mut b) = next {
                    drain(&mut b)?;
                    drained += 1;
                    spare.push(b);
                }
            }
        })()
    })
}

/// Tells the helpers to stop when dropped.
struct StopOnDrop<'a>(&'a Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.lock().stop = true;
        self.0.work.notify_all();
    }
}

/// Tells the caller when a helper unwinds, so that it does not wait for the batch the
/// helper held.
struct PanicNotice<'a>(&'a Shared);

impl Drop for PanicNotice<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lock().helper_panicked = true;
            self.0.finished.notify_all();
        }
    }
}

/// A helper thread: works on queued batches until the caller stops.
fn helper(shared: &Shared, process: &(impl Fn(&mut Batch) + Sync)) {
    let _notice = PanicNotice(shared);
    let mut q = shared.lock();
    loop {
        if q.stop {
            return;
        }
        if let Some((seq, mut b)) = q.todo.pop_front() {
            drop(q);
            process(&mut b);
            q = shared.lock();
            q.done.push((seq, b));
            shared.finished.notify_one();
            continue;
        }
        q = shared.work.wait(q).unwrap_or_else(|e| e.into_inner());
    }
}

/// Writes `buf` in pieces of at most [`WRITE_PIECE`] bytes.
fn write_in_pieces(output: &mut impl Write, buf: &[u8]) -> io::Result<()> {
    for piece in buf.chunks(WRITE_PIECE) {
        output.write_all(piece)?;
    }
    Ok(())
}

/// Seals the chunks of `input` (no header) into `output` on up to `threads` threads.
/// Returns the plaintext length.
pub fn seal_chunks(key: &FileKey, mut input: impl Read, mut output: impl Write, threads: Threads) -> io::Result<u64> {
    let mut carry: Option<u8> = None;
    let mut next_index = 0u64;
    let mut total = 0u64;
    // Reads the plaintext of up to chunks_per_batch() chunks straight into their slots.
    let fill = |b: &mut Batch| -> io::Result<()> {
        let per_batch = chunks_per_batch();
        b.buf.resize(per_batch * SEALED_CHUNK_LEN, 0);
        b.first = next_index;
        b.is_final = true;
        b.chunks = 0;
        for i in 0..per_batch {
            let slot = &mut b.buf[i * SEALED_CHUNK_LEN + TAG_LEN..(i + 1) * SEALED_CHUNK_LEN];
            let mut have = 0;
            if let Some(c) = carry.take() {
                slot[0] = c;
                have = 1;
            }
            have += read_full(&mut input, &mut slot[have..])?;
            // An empty chunk only as the stream's only chunk (an empty input).
            if have > 0 || i == 0 {
                b.chunks = i + 1;
                b.len = i * SEALED_CHUNK_LEN + TAG_LEN + have;
            }
            if have < CHUNK_LEN {
                break;
            }
            if i + 1 == per_batch {
                b.is_final = !look_ahead(&mut input, &mut carry)?;
            }
        }
        next_index += b.chunks as u64;
        Ok(())
    };
    let process = |b: &mut Batch| {
        let (chunks, first, is_final) = (b.chunks, b.first, b.is_final);
        for i in 0..chunks {
            seal_chunk_in_place(key, first + i as u64, is_final && i + 1 == chunks, b.sealed_chunk(i));
        }
    };
    let drain = |b: &mut Batch| -> io::Result<()> {
        write_in_pieces(&mut output, &b.buf[..b.len])?;
        total += (b.len - b.chunks * TAG_LEN) as u64;
        Ok(())
    };
    pipeline(thread_count(threads), fill, process, drain)?;
    output.flush()?;
    Ok(total)
}

/// Opens the chunks of `input` (after the header) into `output` on up to `threads`
/// threads, writing a chunk only once it and all before it authenticated. Returns the
/// plaintext length.
pub fn open_chunks(
    key: &FileKey,
    mut input: impl Read,
    mut output: impl Write,
    threads: Threads,
) -> Result<u64, DecryptError> {
    let cap = chunks_per_batch() * SEALED_CHUNK_LEN;
    let mut carry: Option<u8> = None;
    let mut next_index = 0u64;
    let mut total = 0u64;
    let fill = |b: &mut Batch| -> Result<(), DecryptError> {
        b.buf.resize(cap, 0);
        let mut have = 0;
        if let Some(c) = carry.take() {
            b.buf[0] = c;
            have = 1;
        }
        have += read_full(&mut input, &mut b.buf[have..])?;
        b.is_final = have < cap || !look_ahead(&mut input, &mut carry)?;
        b.chunks = have.div_ceil(SEALED_CHUNK_LEN);
        b.len = have;
        b.first = next_index;
        next_index += b.chunks as u64;
        b.good = 0;
        b.error = None;
        Ok(())
    };
    let process = |b: &mut Batch| {
        if b.chunks == 0 {
            // No chunk at all after the header (a batch ends with look-ahead, so only the
            // first batch can be empty).
            b.error = Some(DecryptError::Truncated { chunks: b.first });
            return;
        }
        let (chunks, first, is_final) = (b.chunks, b.first, b.is_final);
        for i in 0..chunks {
            if let Err(e) = open_chunk_in_place(key, first + i as u64, is_final && i + 1 == chunks, b.sealed_chunk(i)) {
                b.error = Some(e);
                return;
            }
            b.good = i + 1;
        }
    };
    let drain = |b: &mut Batch| -> Result<(), DecryptError> {
        for i in 0..b.good {
            let data = b.data(i);
            output.write_all(data)?;
            total += data.len() as u64;
        }
        match b.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    };
    pipeline(thread_count(threads), fill, process, drain)?;
    output.flush()?;
    Ok(total)
}
