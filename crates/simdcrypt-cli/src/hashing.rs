//! What `sum` and `check` share: hashing options, building a hasher by algorithm name, and
//! hashing one input (a file, or stdin for `-`).

use std::borrow::Cow;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use clap::builder::PossibleValuesParser;
use clap::Args;
use simdcrypt::any::{hash_file_with, AnyHasher, FileAccess, HashOptions, MMAP_MIN_LEN};
use simdcrypt::registry;
use simdcrypt::threads::Threads;

use crate::output::{io_error_text, Failure};

/// The algorithm used when none is named.
pub const DEFAULT_ALGORITHM: &str = "blake3";

/// The largest `-l` accepted: the digest is built in memory (twice, counting its hex).
pub const MAX_OUTPUT_LEN: u64 = 1 << 30;

/// The parser for `-a ALGO`: any name in `simdcrypt::ALGORITHMS`, in any case.
pub fn algorithm_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(simdcrypt::ALGORITHMS.iter().copied())
}

/// The parser for `sum -a ALGO[,ALGO...]`: one or more names or aliases from the registry,
/// in any case, separated by commas.
pub fn algorithm_list_parser(s: &str) -> Result<String, String> {
    for name in s.split(',') {
        if registry::find(name.trim()).is_err() {
            return Err(format!(
                "unknown algorithm {name:?}; expected one or more of {}, separated by commas",
                simdcrypt::ALGORITHMS.join(", ")
            ));
        }
    }
    Ok(s.to_string())
}

/// The algorithms of an `-a` list checked by [`algorithm_list_parser`], canonical names,
/// each once, in the order given.
pub fn algorithm_list(s: &str) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for name in s.split(',') {
        if let Ok(a) = registry::find(name.trim()) {
            if !names.contains(&a.name) {
                names.push(a.name);
            }
        }
    }
    names
}

/// Options that choose how inputs are hashed, shared by `sum` and `check`.
#[derive(Args, Debug, Clone)]
pub struct HashArgs {
    /// Use this backend instead of the best one for this CPU
    ///
    /// `simdcrypt backends` lists the backends this CPU supports. A backend the CPU
    /// cannot run is an error (exit status 1).
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,

    /// Keyed mode: read the key from FILE (exactly the raw key bytes; 32 for BLAKE3 and
    /// HighwayHash, which requires one)
    ///
    /// FILE may be - to read the key from standard input, which then cannot also be hashed.
    #[arg(long, value_name = "FILE", conflicts_with = "derive_key")]
    pub key_file: Option<PathBuf>,

    /// Key derivation mode (BLAKE3 derive_key) with this context string
    #[arg(long, value_name = "CONTEXT")]
    pub derive_key: Option<String>,

    /// Threads: several files are hashed at once, and a large input is split among them;
    /// a number >= 1, or auto (one per CPU, the default, as b3sum)
    ///
    /// The output, its order included, does not depend on it. On Linux, regular files of
    /// 1 MiB and more are memory-mapped for BLAKE3 (a 64 MiB window at a time, so memory
    /// use stays bounded) unless --no-mmap is given; a file truncated while mapped is
    /// reported as an error. Other inputs are read in blocks sized from the CPU's L2 cache.
    #[arg(short = 'j', long, visible_alias = "num-threads", value_name = "N|auto", default_value = "auto", value_parser = parse_threads)]
    pub threads: Threads,

    /// Never memory-map files; read them sequentially
    #[arg(long)]
    pub no_mmap: bool,

    /// Streebog and GOST R 34.11-94 digests in the standards' printed byte order (the
    /// bytes reversed), as RHash's --gost-reverse; other algorithms are unaffected
    #[arg(long)]
    pub gost_reverse: bool,
}

/// Whether `--gost-reverse` applies to the hasher's algorithm (the standard prints its
/// digests reversed).
pub fn is_gost(hasher: &AnyHasher) -> bool {
    hasher.descriptor().printed_reversed
}

/// The parser of `-j N|auto`.
pub fn parse_threads(s: &str) -> Result<Threads, String> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(Threads::Auto);
    }
    match s.parse::<usize>() {
        Ok(0) | Err(_) => Err("expected a number of threads >= 1, or auto".to_string()),
        Ok(1) => Ok(Threads::One),
        Ok(n) => Ok(Threads::Max(n)),
    }
}

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

impl HashArgs {
    /// Whether the key is read from standard input.
    pub fn key_from_stdin(&self) -> bool {
        self.key_file.as_deref().is_some_and(is_stdin)
    }

    /// The digest as printed: reversed for GOST algorithms under `--gost-reverse` (a copy
    /// only then).
    pub fn present<'a>(&self, hasher: &AnyHasher, mut digest: Cow<'a, [u8]>) -> Cow<'a, [u8]> {
        if self.gost_reverse && is_gost(hasher) {
            digest.to_mut().reverse();
        }
        digest
    }

    /// The library's options, reading the key file if there is one.
    pub fn options(&self) -> Result<HashOptions, Failure> {
        let key = match &self.key_file {
            None => None,
            Some(path) => Some(
                read_key(path)
                    .map_err(|e| Failure::Fatal(format!("key file {}: {}", path.display(), io_error_text(&e))))?,
            ),
        };
        Ok(HashOptions {
            key,
            derive_key_context: self.derive_key.clone(),
            backend: self.backend.clone(),
            threads: self.threads,
        })
    }

    /// A hasher for `algorithm` with `opts` (from [`HashArgs::options`]). A key of the
    /// wrong length is reported against the key file.
    pub fn hasher(&self, algorithm: &str, opts: &HashOptions) -> Result<AnyHasher, Failure> {
        AnyHasher::new(algorithm, opts).map_err(|e| match (&e, &self.key_file) {
            // The key piped in is counted in bytes, the words b3sum --keyed uses.
            (simdcrypt::Error::InvalidLength { expected, got, .. }, Some(path)) if is_stdin(path) => {
                Failure::Fatal(format!("expected {expected} key bytes from standard input, found {got}"))
            }
            (simdcrypt::Error::InvalidLength { .. }, Some(path)) => {
                Failure::Fatal(format!("key file {}: {e}", path.display()))
            }
            // A backend this build or CPU does not have is a usage error, like an unknown
            // option: the command line asked for something that cannot run here.
            (simdcrypt::Error::UnknownBackend { .. } | simdcrypt::Error::UnsupportedBackend { .. }, _) => {
                Failure::Usage(e.to_string())
            }
            _ => Failure::Fatal(e.to_string()),
        })
    }
}

fn read_key(path: &Path) -> io::Result<Vec<u8>> {
    if is_stdin(path) {
        let mut key = Vec::new();
        io::stdin().lock().read_to_end(&mut key)?;
        Ok(key)
    } else {
        fs::read(path)
    }
}

/// `len` bytes of digest (the default length for `None`) of a file, or of stdin for `-`.
pub fn hash_input(path: &Path, hasher: &AnyHasher, len: Option<usize>, no_mmap: bool) -> io::Result<Vec<u8>> {
    if is_stdin(path) {
        let mut h = hasher.clone();
        h.update_reader(io::stdin().lock())?;
        h.finalize(len).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    } else {
        let access = if no_mmap { FileAccess::Read } else { FileAccess::Auto };
        hash_file_with(path, hasher, len, access)
    }
}

/// The digests of one input under several algorithms, and its size in bytes.
#[derive(Debug)]
pub struct Digests {
    /// One digest per hasher, in the hashers' order.
    pub digests: Vec<Vec<u8>>,
    /// How many bytes were hashed.
    pub size: u64,
}

/// Inputs at least this large are read by one thread while the hashers work on the
/// previous block, each hasher on its own thread, when there are several hashers.
const PIPELINE_MIN_LEN: u64 = 8 << 20;

/// How much is read at a time for several hashers. Not sized from the L2 like
/// [`feed_sequential`]'s blocks: here each block is read on one core and hashed on others,
/// so it comes from the shared cache whatever its size, and large blocks keep the hand-overs
/// (a thread spawn per hasher and block) rare.
const BLOCK_LEN: usize = 8 << 20;

/// `len` bytes of digest (the default length for `None`) under every hasher, reading the
/// input (a file, or stdin for `-`) once.
pub fn hash_all(path: &Path, hashers: &[AnyHasher], len: Option<usize>, no_mmap: bool) -> io::Result<Digests> {
    let mut hs: Vec<AnyHasher> = hashers.to_vec();
    let size = if is_stdin(path) {
        feed_sequential(&mut hs, io::stdin().lock(), None)?
    } else {
        let file = fs::File::open(path)?;
        let meta = file.metadata()?;
        if let [hasher] = hashers {
            if !no_mmap && meta.is_file() && meta.len() >= MMAP_MIN_LEN {
                // One large input: the library's path, which maps it a window at a time
                // for BLAKE3 where a truncation can be survived (no copy; threads may share
                // it), and reads it otherwise.
                let digest = hash_input(path, hasher, len, no_mmap)?;
                return Ok(Digests { digests: vec![digest], size: meta.len() });
            }
        }
        if hs.len() > 1 && meta.is_file() && meta.len() >= PIPELINE_MIN_LEN {
            feed_pipelined(&mut hs, file)?
        } else {
            feed_sequential(&mut hs, file, meta.is_file().then_some(meta.len()))?
        }
    };
    let digests = hs
        .iter()
        .map(|h| h.finalize(len).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e)))
        .collect::<io::Result<_>>()?;
    Ok(Digests { digests, size })
}

thread_local! {
    /// Each thread's read buffer, kept between files: thousands of small files would
    /// otherwise cost an allocation (and its page faults) each.
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `size`: the input's length where it is known (a regular file), for the block's size
/// (`cpu::read_buffer_len_for`); reading still goes on to the end.
fn feed_sequential(hashers: &mut [AnyHasher], mut reader: impl Read, size: Option<u64>) -> io::Result<u64> {
    // Taken out of the thread-local for the duration: while an update waits on a join,
    // this thread may steal another file's task, which then finds the slot empty and
    // allocates its own buffer.
    let mut buf = READ_BUF.with_borrow_mut(std::mem::take);
    // Sized from the L2 cache so that each block is still there when it is hashed: a larger
    // one is evicted between the read's copy and the hash. Large BLAKE3 files, the ones
    // threads share, are mapped instead (`hash_all`), so blocks need not be large enough
    // to split (under --no-mmap they are read single-threaded unless -j N splits them).
    let read_len = simdcrypt::cpu::read_buffer_len_for(size);
    if buf.len() < read_len {
        buf.resize(read_len, 0);
    }
    let block = &mut buf[..read_len];
    let mut total = 0;
    let result = loop {
        let n = match simdcrypt::read_full(&mut reader, block) {
            Ok(0) => break Ok(total),
            Ok(n) => n,
            Err(e) => break Err(e),
        };
        for h in hashers.iter_mut() {
            h.update(&block[..n]);
        }
        total += n as u64;
    };
    READ_BUF.with_borrow_mut(|slot| {
        if slot.is_empty() {
            *slot = buf;
        }
    });
    result
}

/// Each hasher on its own thread over the same block while this thread reads the next
/// one: the time is about that of the slowest hasher alone, given the cores.
fn feed_pipelined(hashers: &mut [AnyHasher], mut reader: impl Read) -> io::Result<u64> {
    let mut current = vec![0u8; BLOCK_LEN];
    let mut next = vec![0u8; BLOCK_LEN];
    let mut n = simdcrypt::read_full(&mut reader, &mut current)?;
    let mut total = 0;
    while n > 0 {
        let block = &current[..n];
        let next_n = std::thread::scope(|s| {
            for h in hashers.iter_mut() {
                s.spawn(move || {
                    h.update(block);
                });
            }
            simdcrypt::read_full(&mut reader, &mut next)
        })?;
        total += n as u64;
        n = next_n;
        std::mem::swap(&mut current, &mut next);
    }
    Ok(total)
}

/// `--progress` / `--no-progress`, shared by `sum` and `check`.
#[derive(Args, Debug, Clone)]
pub struct ProgressArgs {
    /// Draw a progress bar on standard error (files, bytes, rate, ETA) from the start, when
    /// standard error is a terminal; by default it appears when stderr is a terminal and
    /// the work lasts more than about a second. Never drawn on a pipe or file.
    #[arg(long, conflicts_with = "no_progress")]
    pub progress: bool,

    /// Never draw a progress bar
    #[arg(long)]
    pub no_progress: bool,
}

impl ProgressArgs {
    /// The mode the flags ask for.
    pub fn mode(&self) -> crate::progress::Mode {
        crate::progress::Mode::from_flags(self.progress, self.no_progress)
    }
}

/// How directories are walked (`sum -r`, `sum --tree`, and `check` for tree lines).
#[derive(Args, Debug, Clone)]
pub struct WalkArgs {
    /// Follow symbolic links while walking directories (loops are detected and reported);
    /// by default links are skipped (-r) or recorded as links (--tree)
    #[arg(long)]
    pub follow_symlinks: bool,

    /// Skip entries whose path relative to the walked directory, or whose name, matches
    /// GLOB (a directory is skipped with everything under it); may be repeated
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
}

impl WalkArgs {
    /// The walker's options; a bad glob is a usage error.
    pub fn options(&self) -> Result<crate::walk::WalkOptions, Failure> {
        crate::walk::options(self.follow_symlinks, &self.exclude)
    }
}
