//! Tree manifests that stay current: a cache of every file's digests under a directory,
//! keyed by what a stat pass can see, so that hashing the tree again re-reads only what
//! changed (the CLI's `sum -r --update` and `check -r --update`, Python's `hash_tree`).
//!
//! The format (JSON lines, versioned, sealed by a BLAKE3 checksum in its last line) is
//! defined in docs/manifest-format.md; [`mod@format`] reads and writes it and never trusts a
//! damaged or truncated file: every error names its line.
//!
//! A cached entry is used only when the file's size, mtime and ctime (nanoseconds), inode
//! and device all equal the recorded ones, and the entry is not *racy*: its mtime (and
//! ctime) is older than the manifest's timestamp less [`RACY_SLACK_NS`]. The timestamp is
//! taken before the walk starts (git's "racily clean" rule, made stricter: git compares with
//! the time the index was written, which is later), and the slack covers file systems whose
//! timestamps are coarser than the clock (FAT keeps 2 s) and the kernel's coarse clock,
//! which may lag the one read here. `trust_mtime` drops the ctime, inode and device
//! comparisons (never the default). A file that changes while it is hashed (its stat
//! before and after differ) is an error, never recorded as good.
//!
//! ## What this file holds
//!
//! The types every part shares: [`Settings`] (what the digests were computed with),
//! [`Mode`], [`FileStat`], [`Entry`], [`Header`], [`ManifestError`]. [`mod@format`]: the
//! reader, writer and [`Manifest::parse`]; [`mod@update`]: the stat pass, the staleness rule,
//! checked hashing and [`hash_tree`], the whole cycle the Python package runs.

pub mod format;
pub mod update;

use std::fmt;
use std::fs::Metadata;
use std::io;
use std::path::PathBuf;

pub use format::{Manifest, Reader, Writer};
pub use update::{hash_tree, plan, Item, ItemKind, Plan, TreeOptions, TreeResult};

/// The format version this build writes; docs/manifest-format.md.
pub const VERSION: u64 = 1;

/// An entry is racy (re-hashed whatever its stat says) when its mtime or ctime is not at
/// least this much older than the manifest's timestamp: 2 s, FAT's timestamp granularity,
/// which also covers the lag of the kernel's coarse clock behind the one read here.
pub const RACY_SLACK_NS: i64 = 2_000_000_000;

/// How the digests of a manifest were computed: any difference makes its digests unusable
/// (every entry is then stale, and the manifest is rewritten with the new settings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Canonical algorithm names (`registry`), each once, in output order.
    pub algorithms: Vec<String>,
    /// The output length in bytes; `None` for each algorithm's default.
    pub length: Option<usize>,
    /// Plain, keyed or derive-key hashing.
    pub mode: Mode,
}

/// The hashing mode of a manifest's digests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Plain hashing.
    Hash,
    /// Keyed hashing; the key itself is never stored, only a check value of it
    /// ([`Mode::keyed`]), so that digests made with another key are never reused.
    Keyed {
        /// 32 hex digits: the first 16 bytes of BLAKE3 derive_key over the key.
        key_check: String,
    },
    /// BLAKE3 derive-key mode with this context string.
    DeriveKey {
        /// The context string.
        context: String,
    },
}

/// The context string of [`Mode::keyed`]'s key check value.
const KEY_CHECK_CONTEXT: &str = "simdcrypt 2026 manifest key check v1";

impl Mode {
    /// The keyed mode for `key`: its check value is the first 16 bytes of BLAKE3
    /// derive_key, which identifies the key without revealing it.
    pub fn keyed(key: &[u8]) -> Mode {
        let check = crate::blake3::derive_key(KEY_CHECK_CONTEXT, key);
        Mode::Keyed { key_check: crate::to_hex(&check[..16]) }
    }

    /// The mode of the library's hashing options.
    pub fn of(opts: &crate::any::HashOptions) -> Mode {
        match (&opts.key, &opts.derive_key_context) {
            (Some(key), _) => Mode::keyed(key),
            (None, Some(context)) => Mode::DeriveKey { context: context.clone() },
            (None, None) => Mode::Hash,
        }
    }
}

impl Settings {
    /// The digest length of algorithm `index`, or `None` for an unknown name.
    pub fn digest_len(&self, index: usize) -> Option<usize> {
        let algorithm = crate::registry::find(self.algorithms.get(index)?).ok()?;
        Some(self.length.unwrap_or(algorithm.digest_len))
    }

    /// For each of `self`'s algorithms, its index among `old`'s digests, when every one of
    /// them is there and was computed the same way (same length, same mode); else `None`.
    pub fn reuse_from(&self, old: &Settings) -> Option<Vec<usize>> {
        if self.length != old.length || self.mode != old.mode {
            return None;
        }
        self.algorithms.iter().map(|a| old.algorithms.iter().position(|o| o == a)).collect()
    }
}

/// What a stat pass records of a file: a change in any of these makes its entry stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FileStat {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Status change time, nanoseconds since the Unix epoch (0 where the OS has none).
    pub ctime_ns: i64,
    /// Inode number (0 where the OS has none).
    pub ino: u64,
    /// Device number (0 where the OS has none).
    pub dev: u64,
}

impl FileStat {
    /// The stat of `meta`.
    #[cfg(unix)]
    pub fn of(meta: &Metadata) -> FileStat {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        FileStat {
            size: meta.len(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }

    /// The stat of `meta`.
    #[cfg(not(unix))]
    pub fn of(meta: &Metadata) -> FileStat {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        FileStat { size: meta.len(), mtime_ns, ctime_ns: 0, ino: 0, dev: 0 }
    }

    /// Whether an entry recorded as `self` in a manifest stamped `written_ns` may be used
    /// for a file whose stat is now `now` (see the module docs).
    pub fn still_fresh(&self, now: &FileStat, written_ns: i64, trust_mtime: bool) -> bool {
        let racy_from = written_ns.saturating_sub(RACY_SLACK_NS);
        let basic = self.size == now.size && self.mtime_ns == now.mtime_ns && now.mtime_ns < racy_from;
        basic
            && (trust_mtime
                || (self.ctime_ns == now.ctime_ns
                    && self.ino == now.ino
                    && self.dev == now.dev
                    && now.ctime_ns < racy_from))
    }
}

/// One file of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The path relative to the manifest's root: normal components only, never empty.
    pub path: PathBuf,
    /// The stat taken before the file was hashed.
    pub stat: FileStat,
    /// One digest per algorithm of the manifest's [`Settings`], in their order.
    pub digests: Vec<Vec<u8>>,
}

/// The first line of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Nanoseconds since the Unix epoch, read before the walk that made the manifest
    /// started: the reference time of the racy rule.
    pub written_ns: i64,
    /// The directory walked, as it was given (relative to the working directory then).
    pub root: PathBuf,
    /// How the digests were computed.
    pub settings: Settings,
}

/// A manifest that could not be read: what was wrong and on which line (1-based; the
/// line being read when an I/O error came).
#[derive(Debug)]
pub struct ManifestError {
    /// The line number.
    pub line: u64,
    /// What was wrong there.
    pub message: String,
    /// The first line is not a manifest header at all (the file may be a plain checksum
    /// list, or something else entirely).
    pub not_a_manifest: bool,
}

impl ManifestError {
    pub(crate) fn at(line: u64, message: impl Into<String>) -> Self {
        ManifestError { line, message: message.into(), not_a_manifest: false }
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ManifestError {}

impl From<ManifestError> for io::Error {
    fn from(e: ManifestError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

/// Now, in nanoseconds since the Unix epoch.
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}
