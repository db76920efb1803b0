//! Bringing a manifest up to date: the walk, the parallel stat pass that decides which
//! cached entries still hold ([`plan`]), hashing a file with its stat checked before and
//! after ([`hash_checked`]), and [`hash_tree`], the whole cycle (read, plan, hash, write
//! atomically) that Python's `simdcrypt.hash_tree` runs. The CLI runs the same pieces with
//! its own thread pool and output.

use std::fs;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use super::{now_ns, Entry, FileStat, Header, Manifest, Mode, Settings};
use crate::any::{AnyHasher, HashOptions};
use crate::threads::Threads;
use crate::walk::{self, Kind, WalkOptions};

/// What a walked entry turned out to be.
#[derive(Debug)]
pub enum ItemKind {
    /// A file whose cached entry still holds (its digests, in the new settings' order).
    Fresh(Entry),
    /// A file to hash.
    Stale,
    /// A directory (never the root).
    Dir,
    /// A symbolic link that was not followed, with its target.
    Symlink(PathBuf),
    /// Something that could not be read or walked.
    Failed(io::Error),
}

/// One walked entry.
#[derive(Debug)]
pub struct Item {
    /// The path to open: the root joined with `rel`.
    pub path: PathBuf,
    /// The path relative to the root.
    pub rel: PathBuf,
    /// What it is.
    pub kind: ItemKind,
}

/// The walk of a root, each file marked fresh or stale.
#[derive(Debug)]
pub struct Plan {
    /// Every entry, sorted by the bytes of its path.
    pub items: Vec<Item>,
    /// The time read before the walk started: the new manifest's `written_ns`.
    pub started_ns: i64,
    /// How many files the cache answered.
    pub fresh: usize,
}

/// Walks `root` and decides which files `old`'s digests still answer for `settings`.
/// Each file's stat is the one the walk took when `walk_opts.stat_files` is set (cheaper:
/// by name within its directory); otherwise, or where that stat failed, each previously
/// recorded file is stat'ed by path on up to `threads` threads. Sockets, FIFOs and devices
/// are errors when `specials_are_errors`, else skipped.
pub fn plan(
    root: &Path,
    walk_opts: &WalkOptions,
    specials_are_errors: bool,
    old: Option<&Manifest>,
    settings: &Settings,
    trust_mtime: bool,
    threads: Threads,
) -> Plan {
    let started_ns = now_ns();
    let walked = walk::walk(root, walk_opts, specials_are_errors);
    decide(walked, started_ns, old, settings, walk_opts.follow_symlinks, trust_mtime, threads)
}

/// [`plan`], with the manifest read by `load` on a thread of its own while the tree is
/// walked (reading a manifest of many files costs about as much as the walk). Returns the
/// plan and what `load` returned; an error from `load` is returned once the walk is done.
pub fn plan_loading<E: Send>(
    root: &Path,
    walk_opts: &WalkOptions,
    specials_are_errors: bool,
    load: impl FnOnce() -> Result<Option<Manifest>, E> + Send,
    settings: &Settings,
    trust_mtime: bool,
    threads: Threads,
) -> Result<(Plan, Option<Manifest>), E> {
    std::thread::scope(|scope| {
        let loader = scope.spawn(load);
        let started_ns = now_ns();
        let walked = walk::walk(root, walk_opts, specials_are_errors);
        let old = loader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let plan = decide(walked, started_ns, old.as_ref(), settings, walk_opts.follow_symlinks, trust_mtime, threads);
        Ok((plan, old))
    })
}

/// A walked file, the index of its entry in the old manifest, and the stat the walk took.
type Candidate = (Item, Option<usize>, Option<Box<fs::Metadata>>);

/// The plan from a walk (sorted by path, as [`walk::walk`] returns it) and the old
/// manifest (sorted by path too): one merge pass pairs each file with its cached entry,
/// then each pair is checked against the file's stat.
fn decide(
    walked: Vec<walk::Entry>,
    started_ns: i64,
    old: Option<&Manifest>,
    settings: &Settings,
    follow: bool,
    trust_mtime: bool,
    threads: Threads,
) -> Plan {
    let reuse = old.and_then(|m| settings.reuse_from(&m.header.settings).map(|map| (m, map)));
    let cached = reuse.as_ref().map_or(&[][..], |(m, _)| &m.entries[..]);
    let mut next = 0;
    let mut candidates: Vec<Candidate> = walked
        .into_iter()
        .map(|e| {
            let kind = match e.kind {
                Kind::File => ItemKind::Stale,
                Kind::Dir => ItemKind::Dir,
                Kind::Symlink(t) => ItemKind::Symlink(t),
                Kind::Error(err) => ItemKind::Failed(err),
            };
            let mut index = None;
            if matches!(kind, ItemKind::Stale) {
                // Both lists are sorted by the bytes of the relative path (the walk's full
                // paths share the root as their prefix), so the cached entries are passed
                // over once. Were the orders ever to disagree, files would only be
                // re-hashed, never wrongly trusted.
                let key = walk::path_bytes(&e.rel);
                while next < cached.len() && walk::path_bytes(&cached[next].path) < key {
                    next += 1;
                }
                if next < cached.len() && walk::path_bytes(&cached[next].path) == key {
                    index = Some(next);
                }
            }
            (Item { path: e.path, rel: e.rel, kind }, index, e.meta)
        })
        .collect();
    let mut fresh = 0;
    if let Some((old, map)) = &reuse {
        let check = |(item, index, meta): &mut Candidate| {
            let Some(cached) = index.map(|i| &old.entries[i]) else { return };
            let now = match meta.take() {
                Some(meta) => (FileStat::of(&meta), meta.is_file()),
                None => match stat(&item.path, follow) {
                    Ok(now) => now,
                    Err(_) => return,
                },
            };
            if now.1 && cached.stat.still_fresh(&now.0, old.header.written_ns, trust_mtime) {
                let digests = map.iter().map(|&i| cached.digests[i].clone()).collect();
                item.kind = ItemKind::Fresh(Entry { path: item.rel.clone(), stat: cached.stat, digests });
            }
        };
        // Stats by path are worth threads; comparing stats the walk took is not.
        let stat_by_path = candidates.iter().any(|(_, index, meta)| index.is_some() && meta.is_none());
        par_for_each(&mut candidates, if stat_by_path { threads } else { Threads::One }, check);
        fresh = candidates.iter().filter(|c| matches!(c.0.kind, ItemKind::Fresh(_))).count();
    }
    let items = candidates.into_iter().map(|c| c.0).collect();
    Plan { items, started_ns, fresh }
}

impl Plan {
    /// Whether the manifest this walk would write holds exactly `old`'s entries: `old` has
    /// the same root and settings, every file found is answered by it (none to hash, none
    /// failed), and it has no entry beyond them (none removed). Written again it would
    /// differ only in its `written_ns`, so it is left as it is: keeping the older write
    /// time only widens the racy window (an entry modified since is caught by its stat,
    /// one within a tick of the old write is rehashed, and then the manifest is written).
    /// Call it before hashing: it looks at the plan as [`plan`] made it.
    pub fn unchanged_from(&self, old: Option<&Manifest>, root: &Path, settings: &Settings) -> bool {
        let Some(old) = old else { return false };
        if old.header.root != root || old.header.settings != *settings {
            return false;
        }
        let mut files = 0;
        for item in &self.items {
            match item.kind {
                ItemKind::Fresh(_) => files += 1,
                ItemKind::Stale | ItemKind::Failed(_) => return false,
                ItemKind::Dir | ItemKind::Symlink(_) => {}
            }
        }
        files == old.entries.len()
    }
}

/// Runs `f` on every item, on up to `threads` threads.
fn par_for_each<T: Send>(items: &mut [T], threads: Threads, f: impl Fn(&mut T) + Sync) {
    let n = threads.job_threads();
    #[cfg(feature = "rayon")]
    if n > 1 && items.len() > 64 {
        use rayon::prelude::*;
        crate::threads::with_pool(n, || items.par_iter_mut().with_min_len(32).for_each(&f));
        return;
    }
    let _ = n;
    items.iter_mut().for_each(f);
}

/// The stat of `path` (following a final symbolic link when `follow`), and whether it is a
/// regular file.
pub fn stat(path: &Path, follow: bool) -> io::Result<(FileStat, bool)> {
    let meta = if follow { fs::metadata(path)? } else { fs::symlink_metadata(path)? };
    Ok((FileStat::of(&meta), meta.is_file()))
}

/// Hashes the regular file `path` with `hash` (which returns the digests and the bytes it
/// read) between two stats: when they differ, or the size read is not the size before,
/// the file changed while it was hashed and the result is an error, never an entry.
pub fn hash_checked<F>(path: &Path, rel: &Path, follow: bool, hash: F) -> io::Result<Entry>
where
    F: FnOnce(&Path) -> io::Result<(Vec<Vec<u8>>, u64)>,
{
    let (before, is_file) = stat(path, follow)?;
    if !is_file {
        return Err(io::Error::other("no longer a regular file (it was replaced while the tree was walked)"));
    }
    let (digests, size) = hash(path)?;
    let after = stat(path, follow).map(|s| s.0);
    if size != before.size || after.as_ref().ok() != Some(&before) {
        return Err(io::Error::other("changed while it was being hashed (not recorded; hash it again)"));
    }
    Ok(Entry { path: rel.to_path_buf(), stat: before, digests })
}

/// Reads the manifest at `path`: `Ok(None)` when there is no such file.
pub fn read_manifest(path: &Path) -> io::Result<Option<Manifest>> {
    match fs::File::open(path) {
        Ok(f) => Ok(Some(Manifest::from_reader(BufReader::with_capacity(256 * 1024, f))?)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// What [`hash_tree`] does.
#[derive(Debug, Default)]
pub struct TreeOptions {
    /// The manifest to read (if it exists) and write back; `None` hashes without a cache.
    pub manifest: Option<PathBuf>,
    /// Algorithm names (any the registry knows); empty means BLAKE3.
    pub algorithms: Vec<String>,
    /// Output length in bytes; `None` for each algorithm's default.
    pub length: Option<usize>,
    /// Key, derive-key context, backend and threads (also the files hashed at once).
    pub hash: HashOptions,
    /// Walk into symbolic links (loops are reported).
    pub follow_symlinks: bool,
    /// Skip the ctime, inode and device comparisons.
    pub trust_mtime: bool,
}

/// What [`hash_tree`] found.
#[derive(Debug)]
pub struct TreeResult {
    /// Every regular file hashed or answered by the cache, in path order.
    pub entries: Vec<Entry>,
    /// Entries that could not be read, walked or hashed (changed meanwhile, say).
    pub errors: Vec<(PathBuf, io::Error)>,
    /// The tree digest of docs/tree-digest.md, when the settings include unkeyed BLAKE3 of
    /// the default length and nothing failed.
    pub tree_digest: Option<[u8; crate::tree::DIGEST_LEN]>,
    /// Files hashed this time.
    pub hashed: usize,
    /// Files answered by the manifest without reading them.
    pub reused: usize,
    /// The canonical algorithm names, in the order of each entry's digests.
    pub algorithms: Vec<String>,
}

/// Hashes every regular file under `root` (sockets, FIFOs and devices are errors, as in
/// the tree digest; the manifest, should it lie inside, is left out by its identity, see
/// [`WalkOptions::skip_files`]), re-reading only what the manifest in `opts` cannot vouch
/// for, and writes the manifest back atomically (also when some files failed: those are
/// left out; not at all when it would hold the same entries, [`Plan::unchanged_from`]).
/// A damaged manifest is an error (`InvalidData`, naming the line) and is left as it is.
pub fn hash_tree(root: &Path, opts: &TreeOptions) -> io::Result<TreeResult> {
    let names: Vec<&str> =
        if opts.algorithms.is_empty() { vec!["blake3"] } else { opts.algorithms.iter().map(String::as_str).collect() };
    let mut hashers: Vec<AnyHasher> = Vec::new();
    for name in names {
        let h = AnyHasher::new(name, &opts.hash).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        if !hashers.iter().any(|o| o.algorithm() == h.algorithm()) {
            hashers.push(h);
        }
    }
    for h in hashers.iter().filter(|h| !h.is_xof()) {
        h.finalize(opts.length).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    }
    let settings = Settings {
        algorithms: hashers.iter().map(|h| h.algorithm().to_string()).collect(),
        length: opts.length,
        mode: Mode::of(&opts.hash),
    };
    if !fs::metadata(root)?.is_dir() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{}: not a directory", root.display())));
    }
    let threads = opts.hash.threads;
    // The manifest, should it lie inside the tree, is not a file of the tree.
    let skip_files = opts.manifest.as_deref().and_then(crate::walk::file_identity).into_iter().collect();
    let walk_opts =
        WalkOptions { follow_symlinks: opts.follow_symlinks, exclude: None, stat_files: true, threads, skip_files };
    let load = || match &opts.manifest {
        Some(path) => read_manifest(path),
        None => Ok(None),
    };
    let (mut plan, old) = plan_loading(root, &walk_opts, true, load, &settings, opts.trust_mtime, threads)?;
    let unchanged = plan.unchanged_from(old.as_ref(), root, &settings);
    let file_threads = HashOptions { threads: Threads::One, ..opts.hash.clone() };
    let file_hashers: Vec<AnyHasher> = if plan.items.len() > 1 && threads.job_threads() > 1 {
        settings
            .algorithms
            .iter()
            .map(|a| AnyHasher::new(a, &file_threads))
            .collect::<Result<_, _>>()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?
    } else {
        hashers
    };
    let follow = opts.follow_symlinks;
    par_for_each(&mut plan.items, threads, |item| {
        if matches!(item.kind, ItemKind::Stale) {
            let len = opts.length;
            let r = hash_checked(&item.path, &item.rel, follow, |p| hash_file_all(p, &file_hashers, len));
            item.kind = match r {
                Ok(entry) => ItemKind::Fresh(entry),
                Err(e) => ItemKind::Failed(e),
            };
        }
    });

    let tree_ok = settings.algorithms.first().is_some_and(|a| a == "blake3")
        && settings.length.is_none()
        && settings.mode == Mode::Hash;
    let (mut entries, mut errors) = (Vec::new(), Vec::new());
    for item in plan.items {
        match item.kind {
            ItemKind::Fresh(entry) => entries.push(entry),
            ItemKind::Failed(e) => errors.push((item.path, e)),
            ItemKind::Stale | ItemKind::Dir | ItemKind::Symlink(_) => {}
        }
    }
    let tree_walk = WalkOptions { stat_files: false, ..walk_opts };
    let tree_digest = (tree_ok && errors.is_empty()).then(|| tree_of(root, &tree_walk, &entries)).flatten();
    if let Some(path) = opts.manifest.as_ref().filter(|_| !unchanged) {
        let header = Header { written_ns: plan.started_ns, root: root.to_path_buf(), settings: settings.clone() };
        let mut file = crate::atomic_file::AtomicFile::create(path)?;
        let mut w = super::Writer::new(&mut file, &header)?;
        for e in &entries {
            w.entry(e)?;
        }
        w.finish()?;
        file.commit(true)?;
    }
    let reused = plan.fresh;
    let hashed = entries.len() - reused;
    Ok(TreeResult { entries, errors, tree_digest, hashed, reused, algorithms: settings.algorithms })
}

/// The tree digest from the entries' BLAKE3 digests (their first), walking again for the
/// directories and links: `None` if the walk now differs from what was hashed.
fn tree_of(root: &Path, walk_opts: &WalkOptions, entries: &[Entry]) -> Option<[u8; 32]> {
    let mut all: Vec<(Vec<u8>, Kind)> =
        walk::walk(root, walk_opts, true).into_iter().map(|e| (crate::tree::encode_path(&e.rel), e.kind)).collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_path: Vec<(Vec<u8>, &Entry)> = entries.iter().map(|e| (crate::tree::encode_path(&e.path), e)).collect();
    by_path.sort_by(|a, b| a.0.cmp(&b.0));
    let mut files = by_path.iter();
    let mut enc = crate::tree::TreeEncoder::new();
    for (rel, kind) in &all {
        match kind {
            Kind::File => {
                let (p, e) = files.next()?;
                if p != rel {
                    return None;
                }
                let digest: &[u8; 32] = e.digests.first()?.as_slice().try_into().ok()?;
                enc.file(rel, e.stat.size, digest);
            }
            Kind::Dir => enc.dir(rel),
            Kind::Symlink(target) => enc.symlink(rel, target),
            Kind::Error(_) => return None,
        }
    }
    files.next().is_none().then(|| enc.finish())
}

/// Every hasher's digest of one file, read once (one hasher: the library's file path,
/// which maps large files), and the bytes read.
fn hash_file_all(path: &Path, hashers: &[AnyHasher], len: Option<usize>) -> io::Result<(Vec<Vec<u8>>, u64)> {
    if let [hasher] = hashers {
        let size = fs::metadata(path)?.len();
        let d = crate::any::hash_file(path, hasher, len)?;
        return Ok((vec![d], size));
    }
    let mut file = fs::File::open(path)?;
    let mut hs = hashers.to_vec();
    let mut buf = vec![0u8; crate::cpu::read_buffer_len_for(Some(file.metadata()?.len()))];
    let mut total = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for h in &mut hs {
            h.update(&buf[..n]);
        }
        total += n as u64;
    }
    let digests = hs
        .iter()
        .map(|h| h.finalize(len).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e)))
        .collect::<io::Result<_>>()?;
    Ok((digests, total))
}
