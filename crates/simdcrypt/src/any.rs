//! Hashing by algorithm name: what the CLI's `-a ALGO`, Python's `simdcrypt.new(name)` and
//! `hash_file` share. Each algorithm adds one variant here; front ends need no change.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::backend::{Checked, Kernels};
use crate::blake3;
use crate::gost94::{self, Gost94};
use crate::highwayhash::{self, HighwayHasher};
use crate::sha256;
use crate::streebog::{self, Streebog256, Streebog512};
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

/// A hasher of any algorithm simdcrypt provides.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AnyHasher {
    /// BLAKE3 in any of its modes.
    Blake3(blake3::Hasher),
    /// SHA-256.
    Sha256(sha256::Sha256),
    /// Streebog-256 (GOST R 34.11-2012).
    Streebog256(Streebog256),
    /// Streebog-512 (GOST R 34.11-2012).
    Streebog512(Streebog512),
    /// GOST R 34.11-94 with either parameter set (`gost94`: CryptoPro, `gost94-test`: test).
    Gost94(Gost94),
    /// HighwayHash with the result size it will finalize to.
    HighwayHash(HighwayHasher, highwayhash::Size),
}

/// How much `update_reader` reads at a time: large enough for the widest SIMD kernels and
/// for threads to have whole subtrees to share.
const READ_BUF_LEN: usize = 1 << 20;

impl AnyHasher {
    /// A hasher for `algorithm` (a name from [`crate::ALGORITHMS`], case-insensitive).
    pub fn new(algorithm: &str, opts: &HashOptions) -> Result<Self, Error> {
        match algorithm.to_ascii_lowercase().as_str() {
            "blake3" => Ok(AnyHasher::Blake3(new_blake3(opts)?)),
            "sha256" => Ok(AnyHasher::Sha256(new_sha256(opts)?)),
            "streebog256" => {
                let mut h = Streebog256::new();
                if let Some(p) = unkeyed_backend::<streebog::Kind>("streebog256", opts)? {
                    h.set_platform(p);
                }
                Ok(AnyHasher::Streebog256(h))
            }
            "streebog512" => {
                let mut h = Streebog512::new();
                if let Some(p) = unkeyed_backend::<streebog::Kind>("streebog512", opts)? {
                    h.set_platform(p);
                }
                Ok(AnyHasher::Streebog512(h))
            }
            name @ ("gost94" | "gost94-test") => {
                let sbox = if name == "gost94" { gost94::SBox::CryptoPro } else { gost94::SBox::Test };
                let mut h = Gost94::new(sbox);
                if let Some(p) = unkeyed_backend::<gost94::Kind>(name, opts)? {
                    h.set_platform(p);
                }
                Ok(AnyHasher::Gost94(h))
            }
            "highwayhash64" => new_highwayhash(opts, highwayhash::Size::Bits64),
            "highwayhash128" => new_highwayhash(opts, highwayhash::Size::Bits128),
            "highwayhash256" => new_highwayhash(opts, highwayhash::Size::Bits256),
            _ => Err(Error::InvalidArgument(format!(
                "unknown algorithm {algorithm:?}; available: {}",
                crate::ALGORITHMS.join(", ")
            ))),
        }
    }

    /// The algorithm's name, as in [`crate::ALGORITHMS`].
    pub fn algorithm(&self) -> &'static str {
        match self {
            AnyHasher::Blake3(_) => "blake3",
            AnyHasher::Sha256(_) => "sha256",
            AnyHasher::Streebog256(_) => "streebog256",
            AnyHasher::Streebog512(_) => "streebog512",
            AnyHasher::Gost94(h) => match h.sbox() {
                gost94::SBox::CryptoPro => "gost94",
                gost94::SBox::Test => "gost94-test",
            },
            AnyHasher::HighwayHash(_, size) => size.name(),
        }
    }

    /// The label BSD-style (`--tag`) output uses, e.g. `BLAKE3`.
    pub fn tag_label(&self) -> &'static str {
        match self {
            AnyHasher::Blake3(_) => "BLAKE3",
            AnyHasher::Sha256(_) => "SHA256",
            // RHash's labels.
            AnyHasher::Streebog256(_) => "GOST12-256",
            AnyHasher::Streebog512(_) => "GOST12-512",
            AnyHasher::Gost94(h) => match h.sbox() {
                gost94::SBox::CryptoPro => "GOST94-CRYPTOPRO",
                gost94::SBox::Test => "GOST94",
            },
            AnyHasher::HighwayHash(_, size) => match size {
                highwayhash::Size::Bits64 => "HIGHWAYHASH64",
                highwayhash::Size::Bits128 => "HIGHWAYHASH128",
                highwayhash::Size::Bits256 => "HIGHWAYHASH256",
            },
        }
    }

    /// The backend in use.
    pub fn backend_name(&self) -> &'static str {
        match self {
            AnyHasher::Blake3(h) => h.platform().name(),
            AnyHasher::Sha256(h) => h.platform().name(),
            AnyHasher::Streebog256(h) => h.platform().name(),
            AnyHasher::Streebog512(h) => h.platform().name(),
            AnyHasher::Gost94(h) => h.platform().name(),
            AnyHasher::HighwayHash(h, _) => h.platform().name(),
        }
    }

    /// The digest length when none is asked for.
    pub fn default_output_len(&self) -> usize {
        match self {
            AnyHasher::Blake3(_) => blake3::OUT_LEN,
            AnyHasher::Sha256(_) => sha256::OUT_LEN,
            AnyHasher::Streebog256(_) => 32,
            AnyHasher::Streebog512(_) => 64,
            AnyHasher::Gost94(_) => gost94::OUT_LEN,
            AnyHasher::HighwayHash(_, size) => size.len(),
        }
    }

    /// Whether any output length may be asked for (an extendable-output function).
    pub fn is_xof(&self) -> bool {
        match self {
            AnyHasher::Blake3(_) => true,
            AnyHasher::Sha256(_)
            | AnyHasher::Streebog256(_)
            | AnyHasher::Streebog512(_)
            | AnyHasher::Gost94(_)
            | AnyHasher::HighwayHash(..) => false,
        }
    }

    /// The thread setting. Sequential algorithms (SHA-256) always use one.
    pub fn threads(&self) -> Threads {
        match self {
            AnyHasher::Blake3(h) => h.max_threads(),
            AnyHasher::Sha256(_)
            | AnyHasher::Streebog256(_)
            | AnyHasher::Streebog512(_)
            | AnyHasher::Gost94(_)
            | AnyHasher::HighwayHash(..) => Threads::One,
        }
    }

    /// Adds input.
    pub fn update(&mut self, data: &[u8]) -> &mut Self {
        match self {
            AnyHasher::Blake3(h) => {
                h.update(data);
            }
            AnyHasher::Sha256(h) => {
                h.update(data);
            }
            AnyHasher::Streebog256(h) => {
                h.update(data);
            }
            AnyHasher::Streebog512(h) => {
                h.update(data);
            }
            AnyHasher::Gost94(h) => {
                h.update(data);
            }
            AnyHasher::HighwayHash(h, _) => {
                h.update(data);
            }
        }
        self
    }

    /// Adds everything `reader` yields until end of file; returns the number of bytes read.
    pub fn update_reader(&mut self, mut reader: impl Read) -> io::Result<u64> {
        let mut buf = vec![0u8; READ_BUF_LEN];
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
        match self {
            AnyHasher::Blake3(h) => h.finalize_xof().fill(&mut out),
            AnyHasher::Sha256(h) => out.copy_from_slice(&h.finalize()),
            AnyHasher::Streebog256(h) => out.copy_from_slice(&h.finalize()),
            AnyHasher::Streebog512(h) => out.copy_from_slice(&h.finalize()),
            AnyHasher::Gost94(h) => out.copy_from_slice(&h.finalize()),
            AnyHasher::HighwayHash(h, size) => h.finalize_into(*size, &mut out),
        }
        Ok(out)
    }
}

fn new_blake3(opts: &HashOptions) -> Result<blake3::Hasher, Error> {
    let mut hasher = match (&opts.key, &opts.derive_key_context) {
        (Some(_), Some(_)) => {
            return Err(Error::InvalidArgument("blake3 takes a key or a derive_key_context, not both".to_string()))
        }
        (Some(key), None) => {
            let key: &[u8; blake3::KEY_LEN] = key.as_slice().try_into().map_err(|_| Error::InvalidLength {
                what: "blake3 key",
                expected: blake3::KEY_LEN,
                got: key.len(),
            })?;
            blake3::Hasher::new_keyed(key)
        }
        (None, Some(context)) => blake3::Hasher::new_derive_key(context),
        (None, None) => blake3::Hasher::new(),
    };
    if let Some(name) = &opts.backend {
        hasher.set_platform(blake3::Platform::from_name(name)?);
    }
    hasher.set_max_threads(opts.threads);
    Ok(hasher)
}

/// SHA-256 takes no key or context. A thread count is accepted: it is an upper bound, and
/// SHA-256, being sequential, always stays within it by using one thread.
fn new_sha256(opts: &HashOptions) -> Result<sha256::Sha256, Error> {
    if opts.key.is_some() || opts.derive_key_context.is_some() {
        return Err(Error::InvalidArgument(
            "sha256 takes no key or derive_key_context (it has no keyed or key derivation mode)".to_string(),
        ));
    }
    let mut hasher = sha256::Sha256::new();
    if let Some(name) = &opts.backend {
        hasher.set_platform(sha256::Platform::from_name(name)?);
    }
    Ok(hasher)
}

/// The backend for an unkeyed hash (Streebog, GOST R 34.11-94): a key or context is an
/// error; a thread count is accepted as an upper bound (these hashes are sequential).
fn unkeyed_backend<K: Kernels>(algorithm: &str, opts: &HashOptions) -> Result<Option<Checked<K>>, Error> {
    if opts.key.is_some() || opts.derive_key_context.is_some() {
        return Err(Error::InvalidArgument(format!(
            "{algorithm} takes no key or derive_key_context (use the HMAC functions for a keyed hash)"
        )));
    }
    opts.backend.as_deref().map(Checked::<K>::from_name).transpose()
}

/// HighwayHash needs a 32-byte key; it has no key derivation mode. Being sequential, it
/// uses one thread whatever the thread setting.
fn new_highwayhash(opts: &HashOptions, size: highwayhash::Size) -> Result<AnyHasher, Error> {
    let name = size.name();
    if opts.derive_key_context.is_some() {
        return Err(Error::InvalidArgument(format!(
            "{name} takes no derive_key_context (it has no key derivation mode)"
        )));
    }
    let Some(key) = &opts.key else {
        return Err(Error::InvalidArgument(format!("{name} needs a 32-byte key (none was given)")));
    };
    let key: &[u8; highwayhash::KEY_LEN] = key.as_slice().try_into().map_err(|_| Error::InvalidLength {
        what: "highwayhash key",
        expected: highwayhash::KEY_LEN,
        got: key.len(),
    })?;
    let mut hasher = HighwayHasher::new(key);
    if let Some(backend) = &opts.backend {
        hasher.set_platform(highwayhash::Platform::from_name(backend)?);
    }
    Ok(AnyHasher::HighwayHash(hasher, size))
}

/// How [`hash_file`] gets at a file's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum FileAccess {
    /// Memory-map regular files of at least [`MMAP_MIN_LEN`] bytes when the hasher may use
    /// more than one thread (threads need the whole input at hand); read otherwise.
    #[default]
    Auto,
    /// Always read sequentially (by request: `--no-mmap`).
    Read,
    /// Memory-map every regular file (pipes and special files are still read).
    Mmap,
}

/// Files smaller than this are read even when threads are allowed: mapping costs more
/// than it saves.
pub const MMAP_MIN_LEN: u64 = 16 << 20;

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
        FileAccess::Auto => meta.is_file() && meta.len() >= MMAP_MIN_LEN && h.threads() != Threads::One,
    };
    if map {
        update_mapped(&mut h, &file, meta.len())?;
    } else {
        h.update_reader(file)?;
    }
    h.finalize(len).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

#[cfg(feature = "mmap")]
fn update_mapped(h: &mut AnyHasher, file: &File, len: u64) -> io::Result<()> {
    let mut offset = 0;
    while offset < len {
        let window = MMAP_WINDOW_LEN.min(len - offset) as usize;
        // SAFETY: the map is read-only and lives only for this iteration. If another process
        // truncates the file meanwhile, touching the missing pages raises SIGBUS: the risk
        // every mmap-based hasher (b3sum, RHash) accepts. Concurrent writes can only change
        // the digest, which reading the file would not prevent either.
        let map = unsafe { memmap2::MmapOptions::new().offset(offset).len(window).map(file)? };
        // Only a hint: failure changes nothing.
        let _ = map.advise(memmap2::Advice::Sequential);
        h.update(&map);
        offset += window as u64;
    }
    Ok(())
}

#[cfg(not(feature = "mmap"))]
fn update_mapped(h: &mut AnyHasher, file: &File, _len: u64) -> io::Result<()> {
    h.update_reader(file).map(|_| ())
}
