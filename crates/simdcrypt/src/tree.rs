//! The tree digest: one BLAKE3 digest for a whole directory tree (the CLI's `sum --tree`,
//! Python's `hash_tree`), over the encoding defined byte by byte in docs/tree-digest.md. It
//! depends only on the relative paths, the entry types, the file contents and the link
//! targets, never on the file system's listing order, timestamps or permissions.
//!
//! ## What this file holds
//!
//! [`TreeEncoder`], which hashes the encoding entry by entry (the caller walks and hashes
//! the files, in the order of [`encode_path`]), and [`encode_path`].

use std::path::{Component, Path};

use crate::blake3;
use crate::walk;

/// The digest length of a tree digest, in bytes.
pub const DIGEST_LEN: usize = 32;

/// What the encoding starts with, so that a tree digest never equals a file's digest of
/// the same bytes by accident of format.
const MAGIC: &[u8] = b"simdcrypt-tree-v1\n";

const TYPE_FILE: u8 = b'f';
const TYPE_DIR: u8 = b'd';
const TYPE_SYMLINK: u8 = b'l';

/// The encoding of docs/tree-digest.md being hashed. Entries must be given sorted by their
/// encoded paths ([`encode_path`]), each once; the walked directory itself is not one.
#[derive(Clone, Debug)]
pub struct TreeEncoder {
    hasher: blake3::Hasher,
}

impl Default for TreeEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl TreeEncoder {
    /// An empty encoding (its magic only).
    pub fn new() -> Self {
        let mut hasher = blake3::Hasher::new();
        hasher.update(MAGIC);
        TreeEncoder { hasher }
    }

    fn entry(&mut self, kind: u8, rel: &[u8]) {
        self.hasher.update(&[kind]);
        self.hasher.update(&(rel.len() as u64).to_le_bytes());
        self.hasher.update(rel);
    }

    /// A regular file: its encoded path, size and unkeyed 32-byte BLAKE3 digest.
    pub fn file(&mut self, rel: &[u8], size: u64, digest: &[u8; DIGEST_LEN]) {
        self.entry(TYPE_FILE, rel);
        self.hasher.update(&size.to_le_bytes());
        self.hasher.update(digest);
    }

    /// A directory, by its encoded path.
    pub fn dir(&mut self, rel: &[u8]) {
        self.entry(TYPE_DIR, rel);
    }

    /// A symbolic link that was not followed: its encoded path and its target's bytes.
    pub fn symlink(&mut self, rel: &[u8], target: &Path) {
        self.entry(TYPE_SYMLINK, rel);
        let target = walk::path_bytes(target);
        self.hasher.update(&(target.len() as u64).to_le_bytes());
        self.hasher.update(target);
    }

    /// The tree digest.
    pub fn finish(&self) -> [u8; DIGEST_LEN] {
        self.hasher.finalize()
    }
}

/// A relative path as the encoding writes it: its components' bytes joined by `/`.
pub fn encode_path(rel: &Path) -> Vec<u8> {
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
