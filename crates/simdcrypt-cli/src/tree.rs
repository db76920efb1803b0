//! One digest for a whole directory tree (`sum --tree`, checked by `check` from lines
//! labelled [`LABEL`]). The encoding hashed is defined byte by byte in docs/tree-digest.md;
//! it depends only on the relative paths, the entry types, the file contents and the link
//! targets, never on the file system's listing order, timestamps or permissions.

use std::io;
use std::path::{Component, Path, PathBuf};

use simdcrypt::any::{AnyHasher, HashOptions};

use crate::hashing;
use crate::parallel::Pool;
use crate::walk::{self, Kind, WalkOptions};

/// The BSD-style label of tree lines: `BLAKE3-TREE (DIR) = HEX`.
pub const LABEL: &str = "BLAKE3-TREE";

/// The algorithm named in `--json` output for tree digests.
pub const JSON_NAME: &str = "blake3-tree";

/// The digest length of a tree line, in bytes.
pub const DIGEST_LEN: usize = 32;

/// What the encoding starts with, so that a tree digest never equals a file's digest of
/// the same bytes by accident of format.
const MAGIC: &[u8] = b"simdcrypt-tree-v1\n";

/// The algorithm that hashes file contents and the encoding.
const HASH: &str = "blake3";

const TYPE_FILE: u8 = b'f';
const TYPE_DIR: u8 = b'd';
const TYPE_SYMLINK: u8 = b'l';

/// Why a tree has no digest: every entry that could not be read, with the reason.
pub type TreeErrors = Vec<(PathBuf, io::Error)>;

/// The tree digest of the directory `root`.
pub fn digest(
    root: &Path,
    walk_opts: &WalkOptions,
    hash_opts: &HashOptions,
    pool: &Pool,
    no_mmap: bool,
) -> Result<[u8; DIGEST_LEN], TreeErrors> {
    let not_dir = |e: io::Error| vec![(root.to_path_buf(), e)];
    let meta = std::fs::metadata(root).map_err(not_dir)?;
    if !meta.is_dir() {
        return Err(not_dir(io::Error::other("not a directory (--tree takes directories)")));
    }
    let opts = HashOptions { threads: hash_opts.threads, ..HashOptions::default() };
    let hasher = AnyHasher::new(HASH, &opts).map_err(|e| not_dir(io::Error::other(e.to_string())))?;

    let mut entries = walk::walk(root, walk_opts, true);
    let mut errors = TreeErrors::new();
    let mut keyed = Vec::with_capacity(entries.len());
    for entry in entries.drain(..) {
        match entry.kind {
            Kind::Error(e) => errors.push((entry.path, e)),
            _ => keyed.push((encode_path(&entry.rel), entry)),
        }
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));

    let mut encoding = hasher.clone();
    encoding.update(MAGIC);
    let file_hasher = [hasher];
    let result = pool.ordered(
        &keyed,
        |(_, entry)| match entry.kind {
            Kind::File => Some(hashing::hash_all(&entry.path, &file_hasher, None, no_mmap)),
            _ => None,
        },
        |(rel, entry), hashed| {
            let (kind, tail) = match (&entry.kind, hashed) {
                (Kind::File, Some(Ok(d))) => {
                    let mut tail = d.size.to_le_bytes().to_vec();
                    tail.extend_from_slice(&d.digests[0]);
                    (TYPE_FILE, tail)
                }
                (Kind::File, Some(Err(e))) => {
                    errors.push((entry.path.clone(), e));
                    return Ok(());
                }
                (Kind::Dir, _) => (TYPE_DIR, Vec::new()),
                (Kind::Symlink(target), _) => {
                    let target = walk::path_bytes(target);
                    let mut tail = (target.len() as u64).to_le_bytes().to_vec();
                    tail.extend_from_slice(target);
                    (TYPE_SYMLINK, tail)
                }
                _ => return Ok(()),
            };
            encoding.update(&[kind]);
            encoding.update(&(rel.len() as u64).to_le_bytes());
            encoding.update(rel);
            encoding.update(&tail);
            Ok(())
        },
    );
    if result.is_err() || !errors.is_empty() {
        errors.sort_by(|a, b| walk::path_bytes(&a.0).cmp(walk::path_bytes(&b.0)));
        return Err(errors);
    }
    let digest = encoding.finalize(Some(DIGEST_LEN)).map_err(|e| not_dir(io::Error::other(e.to_string())))?;
    let mut out = [0u8; DIGEST_LEN];
    out.copy_from_slice(&digest);
    Ok(out)
}

/// A relative path as the encoding writes it: its components' bytes joined by `/`.
fn encode_path(rel: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for c in rel.components() {
        if let Component::Normal(name) = c {
            if !out.is_empty() {
                out.push(b'/');
            }
            out.extend_from_slice(walk::path_bytes(Path::new(name)));
        }
    }
    out
}
