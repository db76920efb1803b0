//! `sum -r DIR --update MANIFEST` and `sum --tree DIR --update MANIFEST`: the library's
//! `simdcrypt::manifest` (walk, parallel stat pass, staleness rule, checked hashing, the
//! format) driven with this command's thread pool and output, so that what is printed is
//! byte for byte what the same `sum` prints without `--update`. The new manifest goes
//! through `atomic_file`: an interrupted run leaves the old one as it was.

use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::manifest::{
    self, update::hash_checked, Entry, Header, ItemKind, Manifest, ManifestError, Mode, Settings,
};
use simdcrypt::tree::{encode_path, TreeEncoder};

use crate::atomic_file;
use crate::hashing;
use crate::output::{io_error_text, Failure, Out};
use crate::parallel::Pool;
use crate::progress::Progress;
use crate::sum::{self, SumArgs};
use crate::tree;

/// Runs `sum` with `--update MANIFEST` over the one directory in `files`.
pub fn run(
    args: &SumArgs,
    files: &[PathBuf],
    hashers: &[AnyHasher],
    len: Option<usize>,
    opts: &HashOptions,
    manifest_path: &Path,
    out: &mut Out,
) -> Result<bool, Failure> {
    let [dir] = files else {
        return Err(Failure::Usage("--update keeps the manifest of one directory: give exactly one DIR".into()));
    };
    if !(args.recursive || args.tree) {
        return Err(Failure::Usage("--update works with -r DIR or --tree DIR".into()));
    }
    if !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Err(Failure::Usage(format!("--update: {} is not a directory", dir.display())));
    }
    let settings = if args.tree {
        sum::check_tree_options(args, opts)?;
        Settings { algorithms: vec!["blake3".into()], length: None, mode: Mode::Hash }
    } else {
        Settings {
            algorithms: hashers.iter().map(|h| h.algorithm().to_string()).collect(),
            length: len,
            mode: Mode::of(opts),
        }
    };
    let mut walk_opts = args.walk.options()?;
    // The manifest, should it lie inside DIR, is not a file of DIR: its line could never be
    // right.
    walk_opts.skip_files.extend(simdcrypt::walk::file_identity(manifest_path));
    walk_opts.stat_files = true;
    walk_opts.threads = args.hash.threads;
    let (plan, old) = manifest::update::plan_loading(
        dir,
        &walk_opts,
        args.tree,
        || load(manifest_path),
        &settings,
        args.trust_mtime,
        args.hash.threads,
    )?;
    // A manifest that would come out with the same entries is left untouched: no write of
    // it, and no fsync (Plan::unchanged_from says why that is safe).
    let unchanged = plan.unchanged_from(old.as_ref(), dir, &settings);
    let header = Header { written_ns: plan.started_ns, root: dir.clone(), settings };
    let mut file = if unchanged {
        None
    } else {
        Some(atomic_file::create(manifest_path).map_err(|e| cannot_write(manifest_path, &e))?)
    };
    let mut writer = match file.as_mut() {
        Some(f) => Some(manifest::Writer::new(f, &header).map_err(|e| cannot_write(manifest_path, &e))?),
        None => None,
    };

    let pool =
        Pool::new(if plan.items.len() - plan.fresh > 1 { args.hash.threads } else { simdcrypt::threads::Threads::One });
    let follow = walk_opts.follow_symlinks;
    let no_mmap = args.hash.no_mmap;
    // Counts the files to read (the cache answers the others at once).
    let progress = Progress::new((plan.items.len() - plan.fresh) as u64, 0, args.progress.mode());
    let ok = if args.tree {
        let blake3 = [AnyHasher::new("blake3", &HashOptions { threads: args.hash.threads, ..HashOptions::default() })
            .map_err(|e| Failure::Fatal(e.to_string()))?];
        let mut items = plan.items;
        items.sort_by_cached_key(|i| encode_path(&i.rel));
        let mut encoder = TreeEncoder::new();
        let mut errors = tree::TreeErrors::new();
        let mut entries = Vec::new();
        pool.ordered(
            &items,
            |item| match item.kind {
                ItemKind::Stale => {
                    let r = hash_checked(&item.path, &item.rel, follow, |p| {
                        hashing::hash_all(p, &blake3, None, no_mmap).map(|d| (d.digests, d.size))
                    });
                    progress.inc(r.as_ref().map_or(0, |e| e.stat.size));
                    Some(r)
                }
                _ => None,
            },
            |item, hashed| {
                let rel = encode_path(&item.rel);
                let mut add_file = |entry: Entry| {
                    let mut digest = [0u8; tree::DIGEST_LEN];
                    digest.copy_from_slice(&entry.digests[0]);
                    encoder.file(&rel, entry.stat.size, &digest);
                    entries.push(entry);
                };
                match (&item.kind, hashed) {
                    (ItemKind::Fresh(entry), _) => add_file(entry.clone()),
                    (ItemKind::Stale, Some(Ok(entry))) => add_file(entry),
                    (ItemKind::Stale, Some(Err(e))) | (ItemKind::Failed(_), Some(Err(e))) => {
                        errors.push((item.path.clone(), e));
                    }
                    (ItemKind::Failed(e), _) => {
                        errors.push((item.path.clone(), io::Error::new(e.kind(), io_error_text(e))))
                    }
                    (ItemKind::Dir, _) => encoder.dir(&rel),
                    (ItemKind::Symlink(target), _) => encoder.symlink(&rel, target),
                    (ItemKind::Stale, None) => errors.push((item.path.clone(), io::Error::other("not hashed"))),
                }
                Ok(())
            },
        )?;
        entries.sort_by(|a: &Entry, b: &Entry| crate::walk::path_bytes(&a.path).cmp(crate::walk::path_bytes(&b.path)));
        if let Some(w) = writer.as_mut() {
            for e in &entries {
                w.entry(e).map_err(|e| cannot_write(manifest_path, &e))?;
            }
        }
        let result = if errors.is_empty() {
            Ok(encoder.finish())
        } else {
            errors.sort_by(|a, b| crate::walk::path_bytes(&a.0).cmp(crate::walk::path_bytes(&b.0)));
            Err(errors)
        };
        sum::print_tree(args, dir, result, out)?
    } else {
        let style = sum::line_style(args, hashers.len() > 1);
        let mut failures = 0u64;
        pool.ordered(
            &plan.items,
            |item| match item.kind {
                ItemKind::Stale => {
                    let r = hash_checked(&item.path, &item.rel, follow, |p| {
                        hashing::hash_all(p, hashers, len, no_mmap).map(|d| (d.digests, d.size))
                    });
                    progress.inc(r.as_ref().map_or(0, |e| e.stat.size));
                    Some(r)
                }
                _ => None,
            },
            |item, hashed| {
                let hashed_entry;
                let entry = match (&item.kind, hashed) {
                    (ItemKind::Fresh(entry), _) => entry,
                    (ItemKind::Stale, Some(Ok(entry))) => {
                        hashed_entry = entry;
                        &hashed_entry
                    }
                    (ItemKind::Stale, Some(Err(e))) => {
                        failures += 1;
                        return sum::print_failure(args, &item.path, &e, out);
                    }
                    (ItemKind::Failed(e), _) => {
                        failures += 1;
                        let e = io::Error::new(e.kind(), io_error_text(e));
                        return sum::print_failure(args, &item.path, &e, out);
                    }
                    _ => return Ok(()),
                };
                sum::print_digests(args, hashers, style, &item.path, &entry.digests, entry.stat.size, out)?;
                writer.as_mut().map_or(Ok(()), |w| w.entry(entry)).map_err(|e| cannot_write(manifest_path, &e))
            },
        )?;
        sum::warn_failures(args, failures, out)?;
        failures == 0
    };
    progress.finish();
    writer.map(|w| w.finish()).transpose().map_err(|e| cannot_write(manifest_path, &e))?;
    if let Some(file) = file {
        file.commit(true).map_err(|e| cannot_write(manifest_path, &e))?;
    }
    Ok(ok)
}

fn cannot_write(path: &Path, e: &io::Error) -> Failure {
    Failure::Fatal(format!("{}: cannot write the manifest: {}", path.display(), io_error_text(e)))
}

/// The previous manifest at `path`: `None` when there is none, or when it is a plain
/// checksum list (all of whose entries count as stale). A damaged manifest, or a file that
/// is neither, is an error: it is neither trusted nor overwritten.
pub fn load(path: &Path) -> Result<Option<Manifest>, Failure> {
    match manifest::update::read_manifest(path) {
        Ok(m) => Ok(m),
        Err(e) => match e.get_ref().and_then(|inner| inner.downcast_ref::<ManifestError>()) {
            Some(me) if me.not_a_manifest => match checksum_list_error(path) {
                Ok(None) => Ok(None),
                Ok(Some(line)) => Err(Failure::Fatal(format!(
                    "{}: line {line}: neither a simdcrypt manifest nor a checksum list; it was left as it is",
                    path.display()
                ))),
                Err(e) => Err(Failure::Fatal(format!("{}: {}", path.display(), io_error_text(&e)))),
            },
            Some(me) => Err(Failure::Fatal(format!(
                "{}: {me}; the damaged manifest was neither used nor overwritten (remove it to start afresh)",
                path.display()
            ))),
            None => Err(Failure::Fatal(format!("{}: {}", path.display(), io_error_text(&e)))),
        },
    }
}

/// `None` if every line of the file is a checksum line `check` accepts, a comment or
/// blank; else the number of the first line that is not.
fn checksum_list_error(path: &Path) -> io::Result<Option<u64>> {
    let mut reader = BufReader::new(std::fs::File::open(path)?);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        number += 1;
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body.is_empty() || body.starts_with(b"#") {
            continue;
        }
        if simdcrypt::check_line::parse_line(body).is_none() {
            return Ok(Some(number));
        }
    }
}
