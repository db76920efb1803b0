//! `check -r MANIFEST`, for a manifest of `sum --update` (docs/manifest-format.md): every
//! listed file is verified (`OK`, `FAILED`, `MISSING`), every file under the root that the
//! manifest lacks is reported (`NEW`), in the byte order of the paths. With `--update`,
//! files whose stat still matches the manifest's record count as OK unread (the rule of
//! `sum --update`), and the manifest is written back atomically with the stats of the
//! files verified now; its list and digests never change here, and an entry that failed
//! or is missing is written with a zero stat, so that it is read again next time.

use std::io::{self, BufReader};
use std::path::Path;

use simdcrypt::any::AnyHasher;
use simdcrypt::manifest::{self, update::hash_checked, Entry, FileStat, ItemKind, Manifest, Mode};

use crate::check::{record_status, warn_files, CheckArgs, Status};
use crate::escape::Style;
use crate::hashing;
use crate::output::{io_error_text, Failure, Out};
use crate::parallel::Pool;
use crate::walk::{path_bytes, WalkOptions};

/// Whether `path` starts like a manifest (its first line is a manifest header, valid or
/// not); standard input never counts.
pub fn is_manifest(path: &Path) -> bool {
    if hashing::is_stdin(path) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else { return false };
    match manifest::Reader::new(BufReader::new(file)) {
        Ok(_) => true,
        Err(e) => !e.not_a_manifest,
    }
}

/// One result to compute, in output order.
#[derive(Debug)]
enum Job {
    /// Manifest entry `entry`, with the walk's item for it if the walk met it.
    Listed { entry: usize, item: Option<usize> },
    /// A walked file the manifest lacks.
    New(usize),
    /// A walked entry that could not be read, which the manifest lacks.
    WalkError(usize),
}

/// What became of a listed file.
#[derive(Debug)]
enum Outcome {
    /// The stat matched (`--update`): trusted.
    Trusted,
    /// Hashed now: the entry with its new stat and digests.
    Hashed(io::Result<Entry>),
    /// Not there.
    Missing,
}

/// Verifies one manifest with -r. `Ok(false)` when anything failed, was missing or new.
pub fn run(args: &CheckArgs, path: &Path, pool: &Pool, walk: &WalkOptions, out: &mut Out) -> Result<bool, Failure> {
    let m = match manifest::update::read_manifest(path) {
        Ok(Some(m)) => m,
        Ok(None) => {
            out.warn(format_args!("{}: No such file or directory", path.display()))?;
            return Ok(false);
        }
        Err(e) => {
            out.warn(format_args!("{}: {}", path.display(), io_error_text(&e)))?;
            return Ok(false);
        }
    };
    let root = args.root.clone().unwrap_or_else(|| m.header.root.clone());
    let hashers = hashers_for(args, &m)?;
    let style = Style::of(hashers[0].descriptor());
    let settings = &m.header.settings;
    let old = args.update.then_some(&m);
    let plan = manifest::plan(&root, walk, false, old, settings, args.trust_mtime, args.hash.threads);
    let jobs = merge(&m, &plan.items);

    let follow = walk.follow_symlinks;
    let (len, no_mmap) = (settings.length, args.hash.no_mmap);
    let mut refreshed: Vec<Entry> = Vec::new();
    let (mut failed, mut unreadable, mut missing, mut new) = (0u64, 0u64, 0u64, 0u64);
    let quiet = args.status;
    pool.ordered(
        &jobs,
        |job| match *job {
            Job::Listed { entry, item } => {
                let rel = &m.entries[entry].path;
                if item.is_some_and(|i| matches!(plan.items[i].kind, ItemKind::Fresh(_))) {
                    return Some(Outcome::Trusted);
                }
                let full = root.join(rel);
                if item.is_none()
                    && std::fs::symlink_metadata(&full).is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
                {
                    return Some(Outcome::Missing);
                }
                Some(Outcome::Hashed(hash_checked(&full, rel, follow, |p| {
                    hashing::hash_all(p, &hashers, len, no_mmap).map(|d| (d.digests, d.size))
                })))
            }
            _ => None,
        },
        |job, outcome| {
            match (job, outcome) {
                (Job::Listed { entry, .. }, Some(outcome)) => {
                    let listed = &m.entries[*entry];
                    let full = root.join(&listed.path);
                    let mut keep = Entry { stat: FileStat::default(), ..listed.clone() };
                    let status = match outcome {
                        Outcome::Trusted => {
                            keep.stat = listed.stat;
                            Status::Ok
                        }
                        Outcome::Missing if args.ignore_missing => {
                            refreshed.push(keep);
                            return Ok(());
                        }
                        Outcome::Missing => Status::Missing,
                        Outcome::Hashed(Ok(now)) if now.digests == listed.digests => {
                            keep.stat = now.stat;
                            Status::Ok
                        }
                        Outcome::Hashed(Ok(_)) => Status::Failed,
                        Outcome::Hashed(Err(e)) => {
                            let text = io_error_text(&e);
                            out.warn(format_args!("{}: {text}", full.to_string_lossy()))?;
                            unreadable += 1;
                            if !quiet {
                                record_status(out, args.json, &full, style, Status::Unreadable(&text))?;
                            }
                            refreshed.push(keep);
                            return Ok(());
                        }
                    };
                    match status {
                        Status::Ok => {}
                        Status::Missing => missing += 1,
                        _ => failed += 1,
                    }
                    let show = !(quiet || args.quiet && matches!(status, Status::Ok));
                    if show {
                        record_status(out, args.json, &full, style, status)?;
                    }
                    refreshed.push(keep);
                }
                (Job::New(i), _) => {
                    new += 1;
                    if !quiet {
                        record_status(out, args.json, &plan.items[*i].path, style, Status::New)?;
                    }
                }
                (Job::WalkError(i), _) => {
                    let item = &plan.items[*i];
                    if let ItemKind::Failed(e) = &item.kind {
                        let text = io_error_text(e);
                        out.warn(format_args!("{}: {text}", item.path.to_string_lossy()))?;
                        unreadable += 1;
                        if !quiet {
                            record_status(out, args.json, &item.path, style, Status::Unreadable(&text))?;
                        }
                    }
                }
                (Job::Listed { .. }, None) => {}
            }
            Ok(())
        },
    )?;
    if args.update {
        let header = manifest::Header { written_ns: plan.started_ns, ..m.header.clone() };
        write(path, &header, &refreshed)?;
    }
    if !quiet {
        warn_files(missing, new, unreadable, failed, out)?;
    }
    Ok(failed == 0 && unreadable == 0 && missing == 0 && new == 0)
}

/// The manifest's entries and the walk's items, merged by path into output order.
fn merge(m: &Manifest, items: &[manifest::Item]) -> Vec<Job> {
    let mut jobs = Vec::with_capacity(m.entries.len() + items.len());
    let relevant: Vec<usize> = (0..items.len())
        .filter(|&i| matches!(items[i].kind, ItemKind::Fresh(_) | ItemKind::Stale | ItemKind::Failed(_)))
        .collect();
    let (mut e, mut w) = (0, 0);
    while e < m.entries.len() || w < relevant.len() {
        let listed = m.entries.get(e).map(|x| path_bytes(&x.path));
        let walked = relevant.get(w).map(|&i| path_bytes(&items[i].rel));
        match (listed, walked) {
            (Some(l), Some(k)) if l == k => {
                jobs.push(Job::Listed { entry: e, item: Some(relevant[w]) });
                e += 1;
                w += 1;
            }
            (Some(l), Some(k)) if l < k => {
                jobs.push(Job::Listed { entry: e, item: None });
                e += 1;
            }
            (Some(_), None) => {
                jobs.push(Job::Listed { entry: e, item: None });
                e += 1;
            }
            (_, Some(_)) => {
                let i = relevant[w];
                jobs.push(if matches!(items[i].kind, ItemKind::Failed(_)) { Job::WalkError(i) } else { Job::New(i) });
                w += 1;
            }
            (None, None) => break,
        }
    }
    jobs
}

/// Hashers for the manifest's settings: its algorithms, length and mode, the key (if
/// keyed) from the command line and checked against the manifest's key check value.
fn hashers_for(args: &CheckArgs, m: &Manifest) -> Result<Vec<AnyHasher>, Failure> {
    let mut opts = args.hash.options()?;
    match &m.header.settings.mode {
        Mode::Hash if opts.key.is_some() || opts.derive_key_context.is_some() => {
            return Err(Failure::Usage(
                "this manifest holds unkeyed digests: --key-file and --derive-key do not apply".into(),
            ))
        }
        Mode::Hash => {}
        mode @ Mode::Keyed { .. } => {
            if opts.key.as_deref().map(Mode::keyed).as_ref() != Some(mode) {
                return Err(Failure::Fatal(
                    "this manifest holds keyed digests: give --key-file with the key it was made with".into(),
                ));
            }
        }
        Mode::DeriveKey { context } => {
            if opts.derive_key_context.as_ref().is_some_and(|c| c != context) {
                return Err(Failure::Fatal(format!("this manifest was made with --derive-key {context:?}")));
            }
            opts.derive_key_context = Some(context.clone());
        }
    }
    m.header.settings.algorithms.iter().map(|a| args.hash.hasher(a, &opts)).collect()
}

/// Writes the refreshed manifest atomically.
fn write(path: &Path, header: &manifest::Header, entries: &[Entry]) -> Result<(), Failure> {
    let fail =
        |e: io::Error| Failure::Fatal(format!("{}: cannot write the manifest: {}", path.display(), io_error_text(&e)));
    let mut file = crate::atomic_file::create(path).map_err(fail)?;
    let mut w = manifest::Writer::new(&mut file, header).map_err(fail)?;
    for e in entries {
        w.entry(e).map_err(fail)?;
    }
    w.finish().map_err(fail)?;
    file.commit(true).map_err(fail)
}
