//! Hashing by algorithm name: what the CLI's `-a ALGO`, Python's `simdcrypt.new(name)` and
//! `hash_file` share. Algorithms are found in [`crate::registry`]; nothing here names one.
//!
//! ## What this file holds
//!
//! `AnyHasher`, `HashOptions`, `hash_file`/`hash_file_with` (`FileAccess`): hashing by
//! algorithm name for the front ends. Files of 1 MiB and more are memory-mapped a 64 MiB
//! window at a time (guarded by `map_guard`) for algorithms that split input across threads,
//! on Linux, so resident memory stays bounded; the Xet hash maps its own windows
//! (`StreamingHash::update_from_mapped_file`); everything else is read in
//! `cpu::read_buffer_len()` blocks. A file that cannot be mapped (`map_read_only`) is read
//! instead, by every caller that maps.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::registry::{self, Algorithm};
use crate::streaming::StreamingHash;
use crate::threads::Threads;
use crate::Error;

/// Options a front end may pass when creating a hasher by name. Options that an algorithm
/// does not take are rejected with a message, never ignored.
#[derive(Clone, Debug, Default)]
pub struct HashOptions {
    /// A key, for keyed modes (BLAKE3: 32 bytes); HighwayHash requires one (32 bytes).
    pub key: Option<Vec<u8>>,
    /// BLAKE3's key derivation context string.
    pub derive_key_context: Option<String>,
    /// A backend name (`"portable"`, `"avx2"`, ...); `None` picks the best supported.
    pub backend: Option<String>,
    /// How many threads one large update may use.
    pub threads: Threads,
}

/// A hasher of any algorithm simdcrypt provides, chosen by name at run time.
#[derive(Clone, Debug)]
pub struct AnyHasher {
    algorithm: &'static Algorithm,
    inner: Box<dyn StreamingHash>,
}

impl AnyHasher {
    /// A hasher for `algorithm` (a name or alias from [`crate::registry`],
    /// case-insensitive).
    pub fn new(algorithm: &str, opts: &HashOptions) -> Result<Self, Error> {
        let algorithm = registry::find(algorithm)?;
        Ok(AnyHasher { algorithm, inner: (algorithm.new)(opts)? })
    }

    /// Resumes a hasher from a state written by [`AnyHasher::export`] (or by any hasher's
    /// `export`), finding the algorithm from the name the state carries. `key` is the
    /// hasher's key for a keyed state (keyed BLAKE3, HighwayHash), `None` otherwise. The
    /// hasher runs on the detected backend with one thread.
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Self, Error> {
        let (algorithm, inner) = crate::state::restore_any(blob, key)?;
        Ok(AnyHasher { algorithm, inner })
    }

    /// The unfinished hash as a state (docs/state-format.md) for [`AnyHasher::restore`].
    pub fn export(&self) -> Vec<u8> {
        self.inner.export()
    }

    /// The algorithm's description.
    pub fn descriptor(&self) -> &'static Algorithm {
        self.algorithm
    }

    /// The algorithm's name, as in [`crate::ALGORITHMS`].
    pub fn algorithm(&self) -> &'static str {
        self.algorithm.name
    }

    /// The label BSD-style (`--tag`) output uses, e.g. `BLAKE3`.
    pub fn tag_label(&self) -> &'static str {
        self.algorithm.bsd_label
    }

    /// The backend in use.
    pub fn backend_name(&self) -> &'static str {
        self.inner.backend_name()
    }

    /// The digest length when none is asked for.
    pub fn default_output_len(&self) -> usize {
        self.algorithm.digest_len
    }

    /// Whether any output length may be asked for (an extendable-output function).
    pub fn is_xof(&self) -> bool {
        self.algorithm.xof
    }

    /// The thread setting. Sequential algorithms always use one.
    pub fn threads(&self) -> Threads {
        self.inner.max_threads()
    }

    /// Adds input.
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        self.inner.update(data);
        self
    }

    /// Forgets all input, keeping the key, mode and backend.
    pub fn reset(&mut self) -> &mut Self {
        self.inner.reset();
        self
    }

    /// Adds everything `reader` yields until end of file; returns the number of bytes read.
    /// Reads [`crate::cpu::read_buffer_len`] bytes at a time (sized so that each read's copy
    /// is still in the L2 cache when it is hashed).
    pub fn update_reader(&mut self, reader: impl Read) -> io::Result<u64> {
        self.update_reader_sized(reader, crate::cpu::read_buffer_len())
    }

    /// [`Self::update_reader`] with blocks of `block` bytes (unless the hasher reads into a
    /// buffer of its own: [`StreamingHash::update_from_reader`]).
    fn update_reader_sized(&mut self, mut reader: impl Read, block: usize) -> io::Result<u64> {
        if let Some(read) = self.inner.update_from_reader(&mut reader) {
            return read;
        }
        let mut buf = vec![0u8; block];
        let mut total = 0u64;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => return Ok(total),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.update(&buf[..n]);
            total += n as u64;
        }
    }

    /// The digest of the input so far: `len` bytes, or the default length for `None`.
    /// A length other than the default is an error for fixed-length algorithms.
    pub fn finalize(&self, len: Option<usize>) -> Result<Vec<u8>, Error> {
        let len = len.unwrap_or(self.default_output_len());
        if !self.is_xof() && len != self.default_output_len() {
            return Err(Error::InvalidArgument(format!(
                "{} digests are {} bytes; a length of {len} is not available",
                self.algorithm(),
                self.default_output_len()
            )));
        }
        let mut out = vec![0u8; len];
        self.inner.finalize_into(&mut out);
        Ok(out)
    }
}

/// Hashes many independent messages with the algorithm called `algorithm`: `out` holds one
/// digest per message (`out.len() / messages.len()` bytes each; any length for BLAKE3).
/// The same shape for every algorithm; each uses its batch kernels where it has them.
pub fn hash_many(algorithm: &str, opts: &HashOptions, messages: &[&[u8]], out: &mut [u8]) -> Result<(), Error> {
    (registry::find(algorithm)?.hash_many)(opts, messages, out)
}

/// How [`hash_file`] gets at a file's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum FileAccess {
    /// Memory-map regular files of at least [`MMAP_MIN_LEN`] bytes for algorithms that split
    /// one input across threads (BLAKE3; the Xet hash maps windows of its own choosing),
    /// where a file that shrinks while mapped can be
    /// survived (Linux: see `map_guard`); read otherwise. For those algorithms mapping
    /// saves the copy that reading makes, which costs about as much as their hash, whatever
    /// the thread count, and threads need the whole input at hand to share it. Sequential
    /// algorithms (SHA-256, Streebog, ...) were measured spending more time hashing from
    /// mapped pages than copying L2-sized blocks and hashing those.
    #[default]
    Auto,
    /// Always read sequentially (by request: `--no-mmap`).
    Read,
    /// Memory-map every regular file (pipes and special files are still read, and so is a
    /// file whose filesystem will not map it).
    Mmap,
}

/// Files smaller than this are read even where [`FileAccess::Auto`] would map them: below
/// it the mapping's system calls cost more than the copy they save (measured for the whole
/// `simdcrypt sum` process: docs/tuning-history.md, issue #40).
pub const MMAP_MIN_LEN: u64 = 1 << 20;

/// Files are mapped this much at a time, so resident memory stays bounded however large the
/// file (mapping a whole file grows the process's resident set to the file's size). A power
/// of two, so each window is a whole subtree that threads can split evenly.
pub const MMAP_WINDOW_LEN: u64 = 64 << 20;

/// Hashes a whole file with a fresh copy of `hasher`; returns `len` bytes of digest (the
/// default length for `None`). Errors opening or reading the file come back as `io::Error`;
/// an unavailable length comes back as `io::ErrorKind::InvalidInput`.
pub fn hash_file(path: &Path, hasher: &AnyHasher, len: Option<usize>) -> io::Result<Vec<u8>> {
    hash_file_with(path, hasher, len, FileAccess::Auto)
}

/// [`hash_file`] with a choice of how the file is read.
pub fn hash_file_with(path: &Path, hasher: &AnyHasher, len: Option<usize>, access: FileAccess) -> io::Result<Vec<u8>> {
    let mut h = hasher.clone();
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let map = match access {
        FileAccess::Read => false,
        FileAccess::Mmap => meta.is_file(),
        FileAccess::Auto => {
            MAP_IS_GUARDED
                && h.descriptor().threads
                && !h.inner.reads_into_own_buffer()
                && meta.is_file()
                && meta.len() >= MMAP_MIN_LEN
        }
    };
    let maps_itself = MAP_IS_GUARDED
        && access != FileAccess::Read
        && h.inner.reads_into_own_buffer()
        && meta.is_file()
        && meta.len() >= MMAP_MIN_LEN;
    if let Some(done) = maps_itself.then(|| h.inner.update_from_mapped_file(&file, meta.len())).flatten() {
        done?;
    } else if map {
        update_mapped(&mut h, &file, meta.len())?;
    } else {
        let block = crate::cpu::read_buffer_len_for(meta.is_file().then_some(meta.len()));
        h.update_reader_sized(file, block)?;
    }
    h.finalize(len).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

/// Whether [`FileAccess::Auto`] may map: only where a file truncated meanwhile is an error
/// rather than a SIGBUS that kills the process.
const MAP_IS_GUARDED: bool = cfg!(all(feature = "mmap", target_os = "linux"));

#[cfg(feature = "mmap")]
fn update_mapped(h: &mut AnyHasher, file: &File, len: u64) -> io::Result<()> {
    let mut offset = 0;
    while offset < len {
        let window = MMAP_WINDOW_LEN.min(len - offset) as usize;
        let threads = h.threads().pool_size(window);
        // SAFETY: the map lives only for this iteration. On Linux it is read only under the
        // guard below; elsewhere only an explicit `FileAccess::Mmap` comes here, taking the
        // risk every mmap-based hasher (b3sum, RHash) accepts.
        let Ok(map) = (unsafe { map_populated(file, offset, window, threads) }) else {
            // A file that cannot be mapped (sysfs's binary files refuse, for one) or an
            // address space too full for the window: read the rest instead.
            return update_from(h, file, offset);
        };
        #[cfg(target_os = "linux")]
        {
            let Some(guard) = crate::map_guard::Guard::new(&map) else {
                // No guard to be had (every slot busy): read the rest instead.
                drop(map);
                return update_from(h, file, offset);
            };
            h.update(&map);
            if guard.faulted() {
                return Err(truncated());
            }
        }
        #[cfg(not(target_os = "linux"))]
        h.update(&map);
        offset += window as u64;
    }
    Ok(())
}

/// A read-only map of `len` bytes of `file` from `offset`, for `threads` threads to read.
/// Its pages are mapped up front instead of taking a page fault every few pages during the
/// hash (faults cost most under a hypervisor): by MAP_POPULATE for one thread; for several,
/// by each thread over its share ([`populate_in_parallel`]), since MAP_POPULATE would do all
/// of it on this thread while the others wait. Pages past a truncation are left unmapped.
///
/// # Safety
///
/// If another process truncates the file while the map lives, touching the missing pages
/// raises SIGBUS: the caller reads the map only under a `map_guard::Guard` (Linux), which
/// turns that into zero pages and an error, or knowingly takes that risk. Concurrent writes
/// can only change the bytes read, which reading the file would not prevent either.
#[cfg(feature = "mmap")]
pub(crate) unsafe fn map_populated(file: &File, offset: u64, len: usize, threads: usize) -> io::Result<memmap2::Mmap> {
    // SAFETY: the truncation hazard is the caller's contract (above).
    let map = unsafe { map_read_only(file, offset, len, threads == 1)? };
    #[cfg(target_os = "linux")]
    if threads > 1 {
        populate_in_parallel(&map, threads);
    }
    Ok(map)
}

/// A read-only map of `len` bytes of `file` from `offset`, its pages mapped up front
/// (MAP_POPULATE) if `populate`. An error where the file cannot be mapped: a filesystem
/// that refuses (sysfs's binary files such as /sys/kernel/btf/vmlinux answer EACCES to a
/// file opened for reading), or an address space too full. Every caller then reads the
/// same bytes instead, so a file that can be read is never an error for being unmappable.
///
/// # Safety
///
/// As for [`map_populated`].
#[cfg(feature = "mmap")]
pub(crate) unsafe fn map_read_only(file: &File, offset: u64, len: usize, populate: bool) -> io::Result<memmap2::Mmap> {
    #[cfg(test)]
    if tests::REFUSE_MAPS.get() {
        return Err(io::Error::from_raw_os_error(19)); // ENODEV, as a filesystem without mmap says
    }
    let mut options = memmap2::MmapOptions::new();
    options.offset(offset).len(len);
    if populate {
        options.populate();
    }
    // SAFETY: a read-only map; the truncation hazard is the caller's contract.
    unsafe { options.map(file) }
}

/// Maps every page of `map` now, split among `threads` threads, instead of one page fault
/// every few pages during the hash; MAP_POPULATE would do it on one thread while the
/// others wait. Failures (an old kernel, pages past a truncation) leave the pages to
/// fault in as usual.
#[cfg(all(feature = "mmap", target_os = "linux"))]
pub(crate) fn populate_in_parallel(map: &memmap2::Mmap, threads: usize) {
    let piece = map.len().div_ceil(threads).next_multiple_of(1 << 21);
    fn split(map: &memmap2::Mmap, start: usize, end: usize, piece: usize) {
        if end - start <= piece {
            let _ = map.advise_range(memmap2::Advice::PopulateRead, start, end - start);
            return;
        }
        let mid = start + (end - start) / 2 / piece * piece;
        let mid = if mid == start { start + piece } else { mid };
        crate::threads::join(true, || split(map, start, mid, piece), || split(map, mid, end, piece));
    }
    crate::threads::with_pool(threads, || split(map, 0, map.len(), piece));
}

/// The error for a file that shrank while it was mapped.
#[cfg(all(feature = "mmap", target_os = "linux"))]
pub(crate) fn truncated() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the file was truncated while it was being read")
}

/// Reads the rest of `file` from `offset` into `h`.
#[cfg(feature = "mmap")]
fn update_from(h: &mut AnyHasher, file: &File, offset: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    h.update_reader(file).map(|_| ())
}

#[cfg(not(feature = "mmap"))]
fn update_mapped(h: &mut AnyHasher, file: &File, _len: u64) -> io::Result<()> {
    h.update_reader(file).map(|_| ())
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::chunking::{self, ChunkDigest, ChunkOptions, Chunker};
    use crate::test_rng::XorShift64;
    use crate::threads::Threads;

    thread_local! {
        /// While set, [`map_read_only`] on this thread fails as a filesystem without mmap
        /// does, so that the read fallback of every mapping caller runs.
        pub(crate) static REFUSE_MAPS: Cell<bool> = const { Cell::new(false) };
    }

    /// A file that cannot be mapped is read instead, with the digests, chunks and Bao
    /// encoding of a mapped one: hash_file (BLAKE3 and the Xet hash, which maps its own
    /// windows), chunk_file and Bao's encode_file, on one thread and on two.
    #[test]
    fn unmappable_files_are_read_instead() {
        let dir = std::env::temp_dir().join(format!("simdcrypt-unmappable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut data = vec![0u8; (3 << 20) + 17];
        XorShift64::new(48).fill(&mut data);
        std::fs::write(&path, &data).unwrap();
        assert!(MMAP_MIN_LEN < data.len() as u64, "the file must be large enough to be mapped");

        let bao_out = |threads: Threads| {
            let mut out = std::io::Cursor::new(Vec::new());
            let file = File::open(&path).unwrap();
            let options = crate::blake3::bao::Options::default().threads(threads);
            let (hash, _) = options.encode_file(file, &mut out, false).unwrap();
            (hash, out.into_inner())
        };
        for threads in [Threads::One, Threads::Max(2)] {
            let options = HashOptions { threads, ..Default::default() };
            let blake3 = AnyHasher::new("blake3", &options).unwrap();
            let xet = AnyHasher::new("xet", &options).unwrap();
            let mut chunk_options = ChunkOptions::new(Chunker::Xet, ChunkDigest::Blake3);
            chunk_options.threads = threads;
            let mapped = (
                hash_file_with(&path, &blake3, None, FileAccess::Mmap).unwrap(),
                hash_file(&path, &xet, None).unwrap(),
                chunking::chunk_file(&path, &chunk_options).unwrap(),
                bao_out(threads),
            );
            REFUSE_MAPS.set(true);
            let refused = (
                [FileAccess::Auto, FileAccess::Mmap].map(|a| hash_file_with(&path, &blake3, None, a).unwrap()),
                hash_file(&path, &xet, None).unwrap(),
                chunking::chunk_file(&path, &chunk_options).unwrap(),
                bao_out(threads),
            );
            REFUSE_MAPS.set(false);
            let read = hash_file_with(&path, &xet, None, FileAccess::Read).unwrap();
            assert_eq!(mapped.0, crate::blake3::hash(&data), "{threads:?}");
            assert_eq!(refused.0, [mapped.0.clone(), mapped.0.clone()], "{threads:?}");
            assert_eq!((&refused.1, &mapped.1), (&read, &read), "{threads:?}");
            assert_eq!(refused.2, mapped.2, "{threads:?}");
            assert_eq!(mapped.2, chunking::chunk_slice(&data, &chunk_options), "{threads:?}");
            assert_eq!(refused.3, mapped.3, "{threads:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
