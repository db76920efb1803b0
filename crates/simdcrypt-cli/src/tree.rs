//! One digest for a whole directory tree (`sum --tree`, checked by `check` from lines
//! labelled [`LABEL`]): the walk and the files hashed in parallel here, the encoding of
//! docs/tree-digest.md in the library's `simdcrypt::tree`.

use std::io;
use std::path::{Path, PathBuf};

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::tree::{encode_path, TreeEncoder};

use crate::hashing;
use crate::parallel::Pool;
use crate::walk::{self, Kind, WalkOptions};

/// The BSD-style label of tree lines: `BLAKE3-TREE (DIR) = HEX`.
pub const LABEL: &str = "BLAKE3-TREE";

/// The algorithm named in `--json` output for tree digests.
pub const JSON_NAME: &str = "blake3-tree";

/// The digest length of a tree line, in bytes.
pub const DIGEST_LEN: usize = simdcrypt::tree::DIGEST_LEN;

/// The algorithm that hashes file contents.
const HASH: &str = "blake3";

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

    let mut encoding = TreeEncoder::new();
    let file_hasher = [hasher];
    let result = pool.ordered(
        &keyed,
        |(_, entry)| match entry.kind {
            Kind::File => Some(hashing::hash_all(&entry.path, &file_hasher, None, no_mmap)),
            _ => None,
        },
        |(rel, entry), hashed| {
            match (&entry.kind, hashed) {
                (Kind::File, Some(Ok(d))) => {
                    let mut digest = [0u8; DIGEST_LEN];
                    digest.copy_from_slice(&d.digests[0]);
                    encoding.file(rel, d.size, &digest);
                }
                (Kind::File, Some(Err(e))) => errors.push((entry.path.clone(), e)),
                (Kind::Dir, _) => encoding.dir(rel),
                (Kind::Symlink(target), _) => encoding.symlink(rel, target),
                _ => {}
            }
            Ok(())
        },
    );
    if result.is_err() || !errors.is_empty() {
        errors.sort_by(|a, b| walk::path_bytes(&a.0).cmp(walk::path_bytes(&b.0)));
        return Err(errors);
    }
    Ok(encoding.finish())
}
