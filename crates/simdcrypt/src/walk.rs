//! Walking directory trees: what the CLI's `sum -r`, `sum --tree` and `check -r` list, and
//! what [`crate::manifest`] keeps a cache of (Python's `hash_tree`).
//!
//! Entries come back sorted by the bytes of their paths, so two machines holding the same
//! tree print the same manifest whatever order the file system lists directories in.
//! Symbolic links are left alone unless the walk follows them; a followed link to one of
//! its own ancestors is reported as a loop instead of being walked forever. A directory
//! that cannot be read is reported as an error entry in its sorted place and the walk
//! goes on.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Says whether an entry is skipped, given its path relative to the walked directory (a
/// skipped directory is skipped with everything under it). The CLI's `--exclude` globs are
/// one such predicate.
pub type Exclude = Box<dyn Fn(&Path) -> bool + Send + Sync>;

/// What the walk does with what it meets.
#[derive(Default)]
pub struct WalkOptions {
    /// Walk into symbolic links to directories and report links to files as files.
    pub follow_symlinks: bool,
    /// Entries for which this returns true are skipped.
    pub exclude: Option<Exclude>,
    /// Stat every file as it is found ([`Entry::meta`]): through the directory's own
    /// descriptor, which costs less than a stat of the whole path afterwards.
    pub stat_files: bool,
    /// Directories are read on up to this many threads (their entries come back in the
    /// same sorted order whatever the number).
    pub threads: crate::threads::Threads,
    /// Files left out wherever the walk meets them (a followed link to one too), by
    /// identity ([`file_identity`]): the manifest or checksum list that a command writes or
    /// checks inside the tree it walks, whose own line could never be right (RHash leaves
    /// out the file it updates or writes in the same way). Where files have no identity
    /// (not Unix) nothing is left out.
    pub skip_files: Vec<FileIdentity>,
}

/// A file's device and inode number.
pub type FileIdentity = (u64, u64);

/// The identity of the file at `path` (links followed), for [`WalkOptions::skip_files`];
/// `None` if it cannot be stat'ed, is not a regular file, or the platform has none.
pub fn file_identity(path: &Path) -> Option<FileIdentity> {
    regular_file_identity(&fs::metadata(path).ok()?)
}

/// [`file_identity`] from a stat already taken (of an open file, say).
pub fn regular_file_identity(meta: &fs::Metadata) -> Option<FileIdentity> {
    identity(meta).filter(|_| meta.is_file())
}

impl std::fmt::Debug for WalkOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkOptions")
            .field("follow_symlinks", &self.follow_symlinks)
            .field("exclude", &self.exclude.as_ref().map(|_| "Fn(&Path) -> bool"))
            .field("stat_files", &self.stat_files)
            .field("threads", &self.threads)
            .field("skip_files", &self.skip_files)
            .finish()
    }
}

impl WalkOptions {
    fn excluded(&self, rel: &Path) -> bool {
        self.exclude.as_ref().is_some_and(|skip| skip(rel))
    }

    /// Whether the file whose stat is `meta` is one of `skip_files`.
    fn skips(&self, meta: &fs::Metadata) -> bool {
        identity(meta).is_some_and(|id| self.skip_files.contains(&id))
    }

    /// Whether the regular file `item` is one of `skip_files`: its inode number comes
    /// with the directory entry, so only a file whose number matches is stat'ed.
    fn skipped(&self, item: &fs::DirEntry) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirEntryExt;
            let ino = item.ino();
            self.skip_files.iter().any(|&(_, i)| i == ino) && item.metadata().is_ok_and(|m| self.skips(&m))
        }
        #[cfg(not(unix))]
        {
            let _ = item;
            false
        }
    }
}

/// What an entry is.
#[derive(Debug)]
pub enum Kind {
    /// A regular file (or, when following links, a link to one).
    File,
    /// A directory (never the walked directory itself).
    Dir,
    /// A symbolic link that was not followed, with its target.
    Symlink(PathBuf),
    /// Something that could not be read or walked, with the reason.
    Error(io::Error),
}

/// One entry found by [`walk`].
#[derive(Debug)]
pub struct Entry {
    /// The path to open: the walked directory joined with `rel`.
    pub path: PathBuf,
    /// The path relative to the walked directory.
    pub rel: PathBuf,
    /// What the entry is.
    pub kind: Kind,
    /// A file's metadata, when [`WalkOptions::stat_files`] asked for it and the stat
    /// succeeded (the target's, for a followed link); `None` otherwise.
    pub meta: Option<Box<fs::Metadata>>,
}

/// Every entry under `root` (not `root` itself), sorted by the bytes of their paths.
/// Sockets, FIFOs and devices are reported as errors when `specials_are_errors`, else
/// skipped (as `find -type f` skips them).
pub fn walk(root: &Path, opts: &WalkOptions, specials_are_errors: bool) -> Vec<Entry> {
    let mut ancestors = Vec::new();
    if let Some(id) = fs::metadata(root).ok().and_then(|meta| identity(&meta)) {
        ancestors.push(id);
    }
    let parallel = cfg!(feature = "rayon") && opts.threads.job_threads() > 1;
    let mut walker = Walker { opts, specials_are_errors, parallel, out: Vec::new(), ancestors };
    crate::threads::with_pool(opts.threads.job_threads(), || walker.dir(root, Path::new("")));
    sorted(walker.out)
}

/// `entries` sorted by the bytes of their paths, stably (a directory that could not be
/// read keeps its error right after its own entry). The indices are sorted, not the
/// entries, which are large enough that moving them would cost more than comparing.
fn sorted(entries: Vec<Entry>) -> Vec<Entry> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| path_bytes(&entries[a].path).cmp(path_bytes(&entries[b].path)));
    let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

struct Walker<'a> {
    opts: &'a WalkOptions,
    specials_are_errors: bool,
    /// Subdirectories are walked as tasks of the current rayon pool.
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
    parallel: bool,
    out: Vec<Entry>,
    /// Identities of the directories from the root down to the current one.
    ancestors: Vec<(u64, u64)>,
}

/// A subdirectory found in a directory, walked after the directory's other entries.
struct Subdir {
    path: PathBuf,
    rel: PathBuf,
    id: Option<(u64, u64)>,
}

impl Walker<'_> {
    fn dir(&mut self, dir: &Path, rel: &Path) {
        let reader = match fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => return self.error(dir, rel, e),
        };
        let mut subdirs = Vec::new();
        for item in reader {
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    self.error(dir, rel, e);
                    break;
                }
            };
            let name = item.file_name();
            let (path, rel) = (joined(dir, &name), joined(rel, &name));
            if self.opts.excluded(&rel) {
                continue;
            }
            match item.file_type() {
                Ok(t) if t.is_symlink() => self.symlink(path, rel, &mut subdirs),
                Ok(t) if t.is_dir() => self.subdir(path, rel, None, &mut subdirs),
                Ok(t) if t.is_file() && self.opts.skipped(&item) => {}
                Ok(t) if t.is_file() => {
                    // A regular file's lstat is its stat; DirEntry::metadata stats it by
                    // name within the open directory.
                    let meta = if self.opts.stat_files { item.metadata().ok().map(Box::new) } else { None };
                    self.out.push(Entry { path, rel, kind: Kind::File, meta });
                }
                Ok(_) => self.special(path, rel),
                Err(e) => self.error(&path, &rel, e),
            }
        }
        self.subdirs(subdirs);
    }

    /// Walks the subdirectories of one directory: as parallel tasks, each with its own
    /// output and copy of the ancestors, when the walk is parallel and there are several.
    fn subdirs(&mut self, subdirs: Vec<Subdir>) {
        #[cfg(feature = "rayon")]
        if self.parallel && subdirs.len() > 1 {
            use rayon::prelude::*;
            let (opts, specials_are_errors, ancestors) = (self.opts, self.specials_are_errors, &self.ancestors);
            let outs: Vec<Vec<Entry>> = subdirs
                .into_par_iter()
                .map(|sub| {
                    let mut walker = Walker {
                        opts,
                        specials_are_errors,
                        parallel: true,
                        out: Vec::new(),
                        ancestors: ancestors.clone(),
                    };
                    walker.enter(sub);
                    walker.out
                })
                .collect();
            self.out.extend(outs.into_iter().flatten());
            return;
        }
        for sub in subdirs {
            self.enter(sub);
        }
    }

    fn enter(&mut self, sub: Subdir) {
        if let Some(id) = sub.id {
            self.ancestors.push(id);
        }
        self.dir(&sub.path, &sub.rel);
        if sub.id.is_some() {
            self.ancestors.pop();
        }
    }

    fn symlink(&mut self, path: PathBuf, rel: PathBuf, subdirs: &mut Vec<Subdir>) {
        if !self.opts.follow_symlinks {
            match fs::read_link(&path) {
                Ok(target) => self.push(path, rel, Kind::Symlink(target)),
                Err(e) => self.error(&path, &rel, e),
            }
            return;
        }
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => self.subdir(path, rel, Some(&m), subdirs),
            Ok(m) if m.is_file() && self.opts.skips(&m) => {}
            Ok(m) if m.is_file() => {
                let meta = self.opts.stat_files.then(|| Box::new(m));
                self.out.push(Entry { path, rel, kind: Kind::File, meta });
            }
            Ok(_) => self.special(path, rel),
            Err(e) => self.error(&path, &rel, e),
        }
    }

    /// Records a directory and queues it to be walked, unless it is one of its own
    /// ancestors (a followed link back up the tree).
    fn subdir(&mut self, path: PathBuf, rel: PathBuf, meta: Option<&fs::Metadata>, subdirs: &mut Vec<Subdir>) {
        let id = match meta {
            Some(m) => identity(m),
            None => fs::metadata(&path).ok().and_then(|m| identity(&m)),
        };
        if id.is_some_and(|id| self.ancestors.contains(&id)) {
            let e = io::Error::other("file system loop detected (a link to a directory that contains it)");
            return self.error(&path, &rel, e);
        }
        self.push(path.clone(), rel.clone(), Kind::Dir);
        subdirs.push(Subdir { path, rel, id });
    }

    fn special(&mut self, path: PathBuf, rel: PathBuf) {
        if self.specials_are_errors {
            let e = io::Error::other("not a regular file, directory or symbolic link");
            self.error(&path, &rel, e);
        }
    }

    fn push(&mut self, path: PathBuf, rel: PathBuf, kind: Kind) {
        self.out.push(Entry { path, rel, kind, meta: None });
    }

    fn error(&mut self, path: &Path, rel: &Path, e: io::Error) {
        self.push(path.to_path_buf(), rel.to_path_buf(), Kind::Error(e));
    }
}

/// `dir.join(name)` in one allocation (`Path::join` copies `dir`, then grows the copy
/// for `name`: two per name, and a walk makes two paths per entry).
fn joined(dir: &Path, name: &OsStr) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
}

#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata) -> Option<FileIdentity> {
    // Without inode numbers there is no loop detection beyond the OS's own limits, and no
    // file is left out by identity.
    None
}

/// The bytes of a path, for sorting and hashing: the OS's own bytes on Unix, UTF-8
/// elsewhere (lossy, with `/` separators).
pub fn path_bytes(path: &Path) -> &[u8] {
    os_bytes(path.as_os_str())
}

#[cfg(unix)]
fn os_bytes(s: &OsStr) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    s.as_bytes()
}

#[cfg(not(unix))]
fn os_bytes(s: &OsStr) -> &[u8] {
    // Windows paths are not bytes; their UTF-8 form sorts the same way on every machine.
    s.to_str().map_or(&[], str::as_bytes)
}

/// The path whose bytes are `bytes` (the inverse of [`path_bytes`]); `None` where paths
/// are not bytes (Windows) and `bytes` is not UTF-8.
#[cfg(unix)]
pub fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(bytes).into())
}

/// The path whose bytes are `bytes` (the inverse of [`path_bytes`]); `None` where paths
/// are not bytes (Windows) and `bytes` is not UTF-8.
#[cfg(not(unix))]
pub fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(bytes).ok().map(PathBuf::from)
}
