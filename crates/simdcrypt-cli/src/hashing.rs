//! What `sum` and `check` share: hashing options, building a hasher by algorithm name, and
//! hashing one input (a file, or stdin for `-`).

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use clap::builder::PossibleValuesParser;
use clap::Args;
use simdcrypt::any::{hash_file_with, AnyHasher, FileAccess, HashOptions};
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

    /// Threads one large input may use: a number >= 1, or auto
    ///
    /// With more than one thread, regular files of 16 MiB and more are memory-mapped (a
    /// 64 MiB window at a time, so memory use stays bounded) unless --no-mmap is given.
    #[arg(short = 'j', long, visible_alias = "num-threads", value_name = "N|auto", default_value = "1", value_parser = parse_threads)]
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

fn parse_threads(s: &str) -> Result<Threads, String> {
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

    /// The digest as printed: reversed for GOST algorithms under `--gost-reverse`.
    pub fn present(&self, hasher: &AnyHasher, mut digest: Vec<u8>) -> Vec<u8> {
        if self.gost_reverse && is_gost(hasher) {
            digest.reverse();
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
