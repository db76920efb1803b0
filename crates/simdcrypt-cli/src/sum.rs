//! `simdcrypt sum`: print checksums, byte-for-byte like b3sum for BLAKE3 and like coreutils'
//! sha256sum for SHA-256; recursively, many files at a time, several algorithms per read.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use clap::Args;
use simdcrypt::any::AnyHasher;

use crate::escape::display_name;
use crate::hashing::{self, Digests, HashArgs, ProgressArgs, WalkArgs, DEFAULT_ALGORITHM, MAX_OUTPUT_LEN};
use crate::output::{io_error_text, Failure, Out};
use crate::parallel::Pool;
use crate::progress::{self, Progress};
use crate::tree;
use crate::walk::{self, Kind};

/// Arguments of `simdcrypt sum`.
#[derive(Args, Debug)]
pub struct SumArgs {
    /// Hash algorithm, or several separated by commas (each file is read once and one
    /// BSD-style line is printed per algorithm, e.g. -a blake3,sha256)
    #[arg(
        short,
        long,
        value_name = "ALGO[,ALGO...]",
        default_value = DEFAULT_ALGORITHM,
        value_parser = hashing::algorithm_list_parser,
    )]
    pub algorithm: String,

    /// Output length in bytes, before hex encoding (extendable-output algorithms such as
    /// BLAKE3 take any length; others only their digest length)
    #[arg(
        short,
        long,
        value_name = "LENGTH",
        value_parser = clap::value_parser!(u64).range(0..=MAX_OUTPUT_LEN)
    )]
    pub length: Option<u64>,

    /// Start the output this many bytes into the extendable output (BLAKE3), as b3sum's
    /// --seek: `--seek 32 -l 32` prints bytes 32..64 of `-l 64`
    #[arg(long, value_name = "SEEK", default_value_t = 0, conflicts_with = "tree")]
    pub seek: u64,

    /// Print BSD-style lines: BLAKE3 (FILE) = HASH, SHA256 (FILE) = HASH, GOST12-256 (FILE) = HASH
    #[arg(long)]
    pub tag: bool,

    /// Hash every regular file under each directory FILE, printed in the byte order of
    /// their paths (symbolic links skipped unless --follow-symlinks)
    #[arg(short, long)]
    pub recursive: bool,

    /// Print one digest for each directory FILE as a whole: `BLAKE3-TREE (DIR) = HASH`,
    /// over its sorted relative paths, entry types, contents and link targets
    /// (docs/tree-digest.md)
    #[arg(long, conflicts_with_all = ["length", "recursive", "tag", "raw"])]
    pub tree: bool,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// Print one JSON object per line: {"path", "algorithm", "digest", "size"}, or
    /// {"path", "error"} for an input that could not be read
    #[arg(long, conflicts_with_all = ["tag", "no_names", "raw"])]
    pub json: bool,

    /// Print only the digests, without file names (b3sum --no-names)
    #[arg(long, conflicts_with = "tag")]
    pub no_names: bool,

    /// Write the digest's raw bytes, not hex, for a single input (b3sum --raw)
    #[arg(long, conflicts_with_all = ["tag", "no_names", "recursive"])]
    pub raw: bool,

    #[command(flatten)]
    pub hash: HashArgs,

    #[command(flatten)]
    pub progress: ProgressArgs,

    /// Keep MANIFEST current (with -r DIR or --tree DIR, one directory): re-hash only
    /// the files whose size, mtime, ctime, inode or device differ from MANIFEST's record
    /// (or that changed too close to its writing), print exactly what the command prints
    /// without it, and write MANIFEST back atomically (docs/manifest-format.md). A plain
    /// checksum list as MANIFEST is read as all stale, and replaced by a manifest
    #[arg(long, value_name = "MANIFEST", conflicts_with_all = ["raw", "seek"])]
    pub update: Option<PathBuf>,

    /// With --update: trust a file's size and mtime alone, skipping the ctime, inode and
    /// device comparisons (faster on file systems whose ctimes change spuriously; misses a
    /// rewrite that restores the old mtime)
    #[arg(long, requires = "update")]
    pub trust_mtime: bool,

    /// Files to hash; with no FILE, or when FILE is -, read standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// One thing to report, in output order.
#[derive(Debug)]
enum Job {
    /// Hash this input.
    Hash(PathBuf),
    /// The walk could not read this entry.
    Failed(PathBuf, io::Error),
}

/// Hashes every input and prints one line each. `Ok(false)` when some input failed.
pub fn run(args: &SumArgs, out: &mut Out) -> Result<bool, Failure> {
    let stdin_name = [PathBuf::from("-")];
    let files: &[PathBuf] = if args.files.is_empty() { &stdin_name } else { &args.files };
    if args.hash.key_from_stdin() && files.iter().any(|f| hashing::is_stdin(f)) {
        return Err(Failure::Usage(
            "--key-file - reads the key from standard input, so standard input cannot \
             also be hashed; name the files to hash"
                .to_string(),
        ));
    }
    if args.hash.backend.as_deref().is_some_and(|b| b.eq_ignore_ascii_case("cuda")) {
        return run_cuda(args, files, out);
    }

    let opts = args.hash.options()?;
    let names = hashing::algorithm_list(&args.algorithm);
    let hashers = names.iter().map(|name| args.hash.hasher(name, &opts)).collect::<Result<Vec<_>, _>>()?;
    if args.hash.gost_reverse && !hashers.iter().any(hashing::is_gost) {
        return Err(Failure::Usage(format!(
            "--gost-reverse applies to streebog256, streebog512, gost94 and gost94-test, not {}",
            names.join(",")
        )));
    }
    let len = args.length.map(|l| l as usize);
    if args.seek > 0 {
        if let Some(fixed) = hashers.iter().find(|h| !h.is_xof()) {
            return Err(Failure::Usage(format!(
                "--seek needs an extendable-output algorithm, not {}",
                fixed.algorithm()
            )));
        }
    }
    // With --seek the first SEEK bytes are computed and dropped (see `skip_seek`).
    let len = match (args.seek, len) {
        (0, len) => len,
        (seek, len) => {
            let want = len.unwrap_or(simdcrypt::blake3::OUT_LEN) as u64;
            match seek.checked_add(want).filter(|&end| end <= MAX_OUTPUT_LEN) {
                Some(end) => Some(end as usize),
                None => {
                    return Err(Failure::Fatal(format!(
                        "--seek {seek} with length {want} reaches past the {MAX_OUTPUT_LEN} bytes of output this \
                         command computes"
                    )))
                }
            }
        }
    };
    // Reject an unavailable length before reading any input. (Only fixed-length
    // algorithms can refuse one, and their digests are short.)
    for hasher in hashers.iter().filter(|h| !h.is_xof()) {
        hasher.finalize(len).map_err(|e| Failure::Fatal(e.to_string()))?;
    }
    if let Some(manifest) = &args.update {
        return crate::update::run(args, files, &hashers, len, &opts, manifest, out);
    }
    if args.tree {
        return run_tree(args, files, &opts, &Pool::new(args.hash.threads), out);
    }
    if args.raw {
        return run_raw(args, files, &hashers, len, out);
    }

    let jobs = jobs(args, files)?;

    // One input gets no pool: its threads would only be started and stopped (a large file
    // still shares its work, through the hasher's own threads).
    let pool = Pool::new(if jobs.len() > 1 { args.hash.threads } else { simdcrypt::threads::Threads::One });
    let mode = args.progress.mode();
    let total_bytes = if progress::wanted(mode) { total_size(&jobs) } else { 0 };
    let progress = Progress::new(jobs.len() as u64, total_bytes, mode);
    let style = line_style(args, hashers.len() > 1);
    let mut failures = 0u64;
    let hashers = &hashers;
    let no_mmap = args.hash.no_mmap;
    pool.ordered(
        &jobs,
        |job| match job {
            Job::Hash(path) => Some(hashing::hash_all(path, hashers, len, no_mmap).map(|d| skip_seek(d, args.seek))),
            Job::Failed(..) => None,
        },
        |job, result| {
            let (path, result) = match (job, result) {
                (Job::Hash(path), Some(r)) => (path, r),
                (Job::Failed(path, e), _) => (path, Err(io::Error::new(e.kind(), io_error_text(e)))),
                (Job::Hash(path), None) => (path, Err(io::Error::other("not hashed"))),
            };
            match result {
                Ok(Digests { digests, size }) => {
                    progress.inc(size);
                    print_digests(args, hashers, style, path, &digests, size, out)?;
                }
                Err(e) => {
                    progress.inc(0);
                    failures += 1;
                    print_failure(args, path, &e, out)?;
                }
            }
            Ok(())
        },
    )?;
    progress.finish();
    warn_failures(args, failures, out)?;
    Ok(failures == 0)
}

/// The lines of one hashed input, one per hasher.
pub(crate) fn print_digests(
    args: &SumArgs,
    hashers: &[AnyHasher],
    style: Style,
    path: &Path,
    digests: &[Vec<u8>],
    size: u64,
    out: &mut Out,
) -> Result<(), Failure> {
    for (hasher, digest) in hashers.iter().zip(digests) {
        let digest = args.hash.present(hasher, digest.into());
        out.record(&format_line(path, hasher.descriptor().bsd_label, hasher.algorithm(), &digest, size, style))?;
    }
    Ok(())
}

/// The report of an input that could not be hashed: on stderr, and as a JSON line.
pub(crate) fn print_failure(args: &SumArgs, path: &Path, e: &io::Error, out: &mut Out) -> Result<(), Failure> {
    let text = io_error_text(e);
    if args.json {
        out.record(&json_error(path, &text))?;
    }
    out.warn(format_args!("{}: {text}", path.to_string_lossy()))
}

/// The closing warning of `-r` when entries failed.
pub(crate) fn warn_failures(args: &SumArgs, failures: u64, out: &mut Out) -> Result<(), Failure> {
    if args.recursive && failures > 0 {
        let what = if failures == 1 { "entry" } else { "entries" };
        out.warn(format_args!("WARNING: {failures} {what} could not be read"))?;
    }
    Ok(())
}

/// Drops the first `seek` bytes of each digest (computed only to be skipped: `--seek`).
fn skip_seek(mut d: Digests, seek: u64) -> Digests {
    if seek > 0 {
        for digest in &mut d.digests {
            digest.drain(..seek as usize);
        }
    }
    d
}

/// The inputs to hash, in order: each FILE, or with `-r` the files under each folder
/// (walk errors kept in place, to be reported on their line).
fn jobs(args: &SumArgs, files: &[PathBuf]) -> Result<Vec<Job>, Failure> {
    let walk_opts = args.walk.options()?;
    let mut jobs = Vec::new();
    for path in files {
        let is_dir = || fs::metadata(path).is_ok_and(|m| m.is_dir());
        if args.recursive && !hashing::is_stdin(path) && is_dir() {
            for entry in walk::walk(path, &walk_opts, false) {
                match entry.kind {
                    Kind::File => jobs.push(Job::Hash(entry.path)),
                    Kind::Error(e) => jobs.push(Job::Failed(entry.path, e)),
                    Kind::Dir | Kind::Symlink(_) => {}
                }
            }
        } else {
            jobs.push(Job::Hash(path.clone()));
        }
    }
    Ok(jobs)
}

/// The line format of `sum`: BSD-style tags when asked for, or when several algorithms
/// share the output (a bare hash would not say which one it is).
pub(crate) fn line_style(args: &SumArgs, several_algorithms: bool) -> Style {
    if args.json {
        Style::Json
    } else if args.no_names {
        Style::NoNames
    } else if args.tag || several_algorithms {
        Style::Tag
    } else {
        Style::Gnu
    }
}

/// The total size of the files to hash, for the progress bar (unreadable ones count 0).
fn total_size(jobs: &[Job]) -> u64 {
    jobs.iter()
        .map(|job| match job {
            Job::Hash(path) if !hashing::is_stdin(path) => fs::metadata(path).map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// `--raw`: the digest's bytes of the single input.
fn run_raw(
    args: &SumArgs,
    files: &[PathBuf],
    hashers: &[AnyHasher],
    len: Option<usize>,
    out: &mut Out,
) -> Result<bool, Failure> {
    let ([path], [_]) = (files, hashers) else {
        return Err(Failure::Usage("--raw takes exactly one input and one algorithm".to_string()));
    };
    match hashing::hash_all(path, hashers, len, args.hash.no_mmap).map(|d| skip_seek(d, args.seek)) {
        Ok(mut d) => {
            let digest = args.hash.present(&hashers[0], d.digests.remove(0).into());
            out.record_bytes(&digest)?;
            Ok(true)
        }
        Err(e) => {
            out.warn(format_args!("{}: {}", path.to_string_lossy(), io_error_text(&e)))?;
            Ok(false)
        }
    }
}

/// `--tree`: one digest per directory.
fn run_tree(
    args: &SumArgs,
    files: &[PathBuf],
    opts: &simdcrypt::any::HashOptions,
    pool: &Pool,
    out: &mut Out,
) -> Result<bool, Failure> {
    check_tree_options(args, opts)?;
    let walk_opts = args.walk.options()?;
    let mut all_ok = true;
    for dir in files {
        all_ok &= print_tree(args, dir, tree::digest(dir, &walk_opts, opts, pool, args.hash.no_mmap), out)?;
    }
    Ok(all_ok)
}

/// Checks that `--tree` runs with its only settings: unkeyed BLAKE3.
pub(crate) fn check_tree_options(args: &SumArgs, opts: &simdcrypt::any::HashOptions) -> Result<(), Failure> {
    if hashing::algorithm_list(&args.algorithm) != [DEFAULT_ALGORITHM]
        || opts.key.is_some()
        || opts.derive_key_context.is_some()
    {
        return Err(Failure::Usage(
            "--tree digests are unkeyed BLAKE3 (docs/tree-digest.md): -a, --key-file and --derive-key do not apply"
                .to_string(),
        ));
    }
    Ok(())
}

/// The line of one `--tree` directory, or its errors. `Ok(false)` for errors.
pub(crate) fn print_tree(
    args: &SumArgs,
    dir: &Path,
    result: Result<[u8; tree::DIGEST_LEN], tree::TreeErrors>,
    out: &mut Out,
) -> Result<bool, Failure> {
    let style = if args.json {
        Style::Json
    } else if args.no_names {
        Style::NoNames
    } else {
        Style::Tag
    };
    match result {
        Ok(digest) => {
            out.record(&format_line(dir, tree::LABEL, tree::JSON_NAME, &digest, 0, style))?;
            Ok(true)
        }
        Err(errors) => {
            for (path, e) in errors {
                print_failure(args, &path, &e, out)?;
            }
            Ok(false)
        }
    }
}

/// How result lines look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// `HEX  NAME` (b3sum, sha256sum).
    Gnu,
    /// `LABEL (NAME) = HEX` (--tag, and always for several algorithms).
    Tag,
    /// `HEX` (--no-names).
    NoNames,
    /// One JSON object.
    Json,
}

/// One output line, newline included: built in one string (a line per file, and a tree
/// can hold many small files).
fn format_line(path: &Path, label: &str, algorithm: &str, digest: &[u8], size: u64, style: Style) -> String {
    if style == Style::Json {
        let mut obj = json_path(path);
        obj.insert("algorithm".into(), algorithm.into());
        obj.insert("digest".into(), simdcrypt::to_hex(digest).into());
        if algorithm != tree::JSON_NAME {
            obj.insert("size".into(), size.into());
        }
        return format!("{}\n", serde_json::Value::Object(obj));
    }
    let mut line = String::new();
    if style == Style::NoNames {
        simdcrypt::push_hex(&mut line, digest);
        line.push('\n');
        return line;
    }
    let name = display_name(path);
    line.reserve(label.len() + 2 * digest.len() + name.text.len() + 8);
    line.push_str(name.line_prefix());
    if style == Style::Tag {
        line.push_str(label);
        line.push_str(" (");
        line.push_str(&name.text);
        line.push_str(") = ");
        simdcrypt::push_hex(&mut line, digest);
    } else {
        simdcrypt::push_hex(&mut line, digest);
        line.push_str("  ");
        line.push_str(&name.text);
    }
    line.push('\n');
    line
}

/// `{"path": ..., "error": ...}` and a newline.
fn json_error(path: &Path, text: &str) -> String {
    let mut obj = json_path(path);
    obj.insert("error".into(), text.into());
    format!("{}\n", serde_json::Value::Object(obj))
}

/// `path` as UTF-8 (lossy), and, for a name that is not UTF-8, its exact bytes in hex as
/// `path_hex`.
pub(crate) fn json_path(path: &Path) -> serde_json::Map<String, serde_json::Value> {
    let mut obj = serde_json::Map::new();
    obj.insert("path".into(), path.to_string_lossy().into_owned().into());
    if path.to_str().is_none() {
        obj.insert("path_hex".into(), simdcrypt::to_hex(walk::path_bytes(path)).into());
    }
    obj
}

/// How much file content (and digest) `--backend cuda` holds in one batch before hashing it
/// (a file larger than this is a batch of its own).
const CUDA_BATCH_BYTES: usize = 256 << 20;

/// `--backend cuda`: the files are read into batches of up to [`CUDA_BATCH_BYTES`] and each
/// batch is hashed on the GPU in one call (one message per file); the lines are those of
/// the CPU path, in the same order. One algorithm at a time: blake3 (any -l, keyed and
/// derive-key modes), streebog256, streebog512, gost94, gost94-test. Files longer than
/// [`CUDA_SEQUENTIAL_MAX`] of the sequential hashes (Streebog, GOST) go to the CPU. Without a
/// usable GPU it is a usage error (exit 2) that says why.
fn run_cuda(args: &SumArgs, files: &[PathBuf], out: &mut Out) -> Result<bool, Failure> {
    use simdcrypt::{blake3, gost94, streebog};
    use CudaKernel as Kernel;

    const SUPPORTED: &str = "blake3, streebog256, streebog512, gost94 and gost94-test";
    let names = hashing::algorithm_list(&args.algorithm);
    let [name] = names[..] else {
        return Err(Failure::Usage(format!(
            "--backend cuda hashes with one algorithm ({SUPPORTED}), not {}",
            names.join(",")
        )));
    };
    let kernel = match name {
        "blake3" => Kernel::Blake3,
        "streebog256" => Kernel::Streebog(streebog::Bits::B256),
        "streebog512" => Kernel::Streebog(streebog::Bits::B512),
        "gost94" => Kernel::Gost94(gost94::SBox::CryptoPro),
        "gost94-test" => Kernel::Gost94(gost94::SBox::Test),
        other => return Err(Failure::Usage(format!("--backend cuda supports {SUPPORTED}, not {other}"))),
    };
    if args.tree || args.raw || args.seek > 0 {
        return Err(Failure::Usage("--backend cuda does not combine with --tree, --raw or --seek".to_string()));
    }
    if files.iter().any(|f| hashing::is_stdin(f)) {
        return Err(Failure::Usage("--backend cuda hashes files, not standard input ('-')".to_string()));
    }
    // The CPU hasher of the same algorithm and mode: its checks of the key, the length and
    // the options, and its labels for the output lines.
    let mut opts = args.hash.options()?;
    opts.backend = None;
    let hasher = args.hash.hasher(name, &opts)?;
    let len = args.length.map(|l| l as usize);
    if !hasher.is_xof() {
        hasher.finalize(len).map_err(|e| Failure::Fatal(e.to_string()))?;
    }
    let out_len = len.unwrap_or(hasher.default_output_len());
    let key: Option<[u8; blake3::KEY_LEN]> = opts.key.as_deref().and_then(|k| k.try_into().ok());
    let mode = match (&key, &opts.derive_key_context) {
        (Some(key), _) => blake3::Mode::KeyedHash(key),
        (None, Some(context)) => blake3::Mode::DeriveKey(context),
        (None, None) => blake3::Mode::Hash,
    };
    let dev = CudaDevice::get()?;
    let budget = dev.batch_bytes();

    let jobs = jobs(args, files)?;
    let mode_arg = args.progress.mode();
    let total_bytes = if progress::wanted(mode_arg) { total_size(&jobs) } else { 0 };
    let progress = Progress::new(jobs.len() as u64, total_bytes, mode_arg);
    let style = line_style(args, false);
    let mut failures = 0u64;
    let mut start = 0;
    while start < jobs.len() {
        // Read the next batch: whole files, up to the budget (at least one job).
        let mut contents: Vec<Result<Vec<u8>, io::Error>> = Vec::new();
        let mut bytes = 0usize;
        let mut end = start;
        while end < jobs.len() && (end == start || bytes < budget) {
            // Its contents and its digest (BLAKE3 digests may be long) count against the budget.
            let size = match &jobs[end] {
                Job::Hash(path) => fs::metadata(path).map_or(0, |m| m.len() as usize),
                Job::Failed(..) => 0,
            }
            .saturating_add(out_len);
            if end > start && bytes.saturating_add(size) > budget {
                break;
            }
            contents.push(match &jobs[end] {
                Job::Hash(path) => fs::read(path),
                Job::Failed(_, e) => Err(io::Error::new(e.kind(), io_error_text(e))),
            });
            let read = contents.last().and_then(|c| c.as_ref().ok()).map_or(0, Vec::len);
            bytes = bytes.saturating_add(read).saturating_add(out_len);
            end += 1;
        }
        let messages: Vec<&[u8]> = contents.iter().filter_map(|c| c.as_ref().ok().map(Vec::as_slice)).collect();
        let mut digests = vec![0u8; messages.len() * out_len];
        if !messages.is_empty() && out_len > 0 {
            let result = dev.hash(kernel, mode, out_len, &messages, &mut digests);
            result.map_err(|e| Failure::Fatal(format!("--backend cuda: {e}")))?;
        }
        let mut next = digests.chunks_exact(out_len.max(1));
        for (job, content) in jobs[start..end].iter().zip(&contents) {
            let path = match job {
                Job::Hash(path) | Job::Failed(path, _) => path,
            };
            match content {
                Ok(data) => {
                    let digest = if out_len == 0 { Vec::new() } else { next.next().unwrap_or_default().to_vec() };
                    progress.inc(data.len() as u64);
                    let digest = args.hash.present(&hasher, digest.into());
                    out.record(&format_line(
                        path,
                        hasher.descriptor().bsd_label,
                        hasher.algorithm(),
                        &digest,
                        data.len() as u64,
                        style,
                    ))?;
                }
                Err(e) => {
                    progress.inc(0);
                    failures += 1;
                    let text = io_error_text(e);
                    if args.json {
                        out.record(&json_error(path, &text))?;
                    }
                    out.warn(format_args!("{}: {text}", path.to_string_lossy()))?;
                }
            }
        }
        start = end;
    }
    progress.finish();
    if args.recursive && failures > 0 {
        let what = if failures == 1 { "entry" } else { "entries" };
        out.warn(format_args!("WARNING: {failures} {what} could not be read"))?;
    }
    Ok(failures == 0)
}

/// The device of `--backend cuda`: the GPU, or (test builds with the `cuda-emulation`
/// feature, SIMDCRYPT_CUDA_EMULATION=1) the kernels' host emulation.
#[derive(Clone, Copy)]
enum CudaDevice {
    Gpu(&'static simdcrypt::cuda::Cuda),
    #[cfg(feature = "cuda-emulation")]
    Emulated,
}

impl CudaDevice {
    /// The device, or the usage error (exit 2) that says why there is none.
    fn get() -> Result<Self, Failure> {
        #[cfg(feature = "cuda-emulation")]
        if std::env::var_os("SIMDCRYPT_CUDA_EMULATION").is_some_and(|v| v == "1") {
            return Ok(CudaDevice::Emulated);
        }
        simdcrypt::cuda::Cuda::get().map(CudaDevice::Gpu).map_err(|e| Failure::Usage(format!("--backend cuda: {e}")))
    }

    /// The batch budget: [`CUDA_BATCH_BYTES`], or SIMDCRYPT_CUDA_BATCH_BYTES under the
    /// emulation (tests of the batch boundaries).
    fn batch_bytes(self) -> usize {
        #[cfg(feature = "cuda-emulation")]
        if let CudaDevice::Emulated = self {
            if let Some(n) = std::env::var("SIMDCRYPT_CUDA_BATCH_BYTES").ok().and_then(|v| v.parse().ok()) {
                return n;
            }
        }
        CUDA_BATCH_BYTES
    }

    /// Hashes `messages` into `out` with `kernel` on this device.
    fn hash(
        self,
        kernel: CudaKernel,
        mode: simdcrypt::blake3::Mode<'_>,
        out_len: usize,
        messages: &[&[u8]],
        out: &mut [u8],
    ) -> Result<(), simdcrypt::Error> {
        match self {
            CudaDevice::Gpu(gpu) => kernel.hash(gpu, mode, out_len, messages, out),
            #[cfg(feature = "cuda-emulation")]
            CudaDevice::Emulated => kernel.hash(&simdcrypt::cuda::Emulated, mode, out_len, messages, out),
        }
    }
}

/// The algorithms of `--backend cuda`.
#[derive(Clone, Copy)]
enum CudaKernel {
    Blake3,
    Streebog(simdcrypt::streebog::Bits),
    Gost94(simdcrypt::gost94::SBox),
}

impl CudaKernel {
    fn hash<D: simdcrypt::cuda::Device>(
        self,
        dev: &D,
        mode: simdcrypt::blake3::Mode<'_>,
        out_len: usize,
        messages: &[&[u8]],
        out: &mut [u8],
    ) -> Result<(), simdcrypt::Error> {
        use simdcrypt::threads::Threads;
        use simdcrypt::{cuda, gost94, streebog};
        match self {
            // Long BLAKE3 messages are spread over many GPU threads by the library itself.
            CudaKernel::Blake3 => cuda::blake3_many(dev, messages, mode, out_len, out),
            CudaKernel::Streebog(bits) => split_long(messages, out_len, out, &mut |m, o| match m {
                Long::Gpu(m) => cuda::streebog_many(dev, m, bits, o),
                Long::Cpu(m) => streebog::hash_many(m, bits, o, streebog::Platform::detect(), Threads::Auto),
            }),
            CudaKernel::Gost94(sbox) => split_long(messages, out_len, out, &mut |m, o| match m {
                Long::Gpu(m) => cuda::gost94_many(dev, m, sbox, o),
                Long::Cpu(m) => gost94::hash_many(m, sbox, o, gost94::Platform::detect(), Threads::Auto),
            }),
        }
    }
}

/// The longest file `--backend cuda` hashes with a sequential hash (Streebog, GOST R
/// 34.11-94) on the GPU. Such a hash cannot be split over threads: one GPU thread would
/// hash the whole file, far slower than a CPU core, so longer files are hashed on the CPU
/// (docs/gpu.md). BLAKE3 has no such limit: its long messages are hashed a chunk a thread.
const CUDA_SEQUENTIAL_MAX: usize = 1 << 20;

/// Which side hashes a part of a batch.
enum Long<'a, 'm> {
    /// Messages of at most [`CUDA_SEQUENTIAL_MAX`] bytes, for the GPU.
    Gpu(&'a [&'m [u8]]),
    /// Longer ones, for the CPU.
    Cpu(&'a [&'m [u8]]),
}

/// What [`split_long`] calls for each side of a batch.
type SplitHash<'f> = dyn FnMut(Long<'_, '_>, &mut [u8]) -> Result<(), simdcrypt::Error> + 'f;

/// Hashes the messages of at most [`CUDA_SEQUENTIAL_MAX`] bytes with `hash(Long::Gpu(..))`
/// and the longer ones with `hash(Long::Cpu(..))`, each digest (`out_len` bytes) to its place
/// in `out`.
fn split_long(
    messages: &[&[u8]],
    out_len: usize,
    out: &mut [u8],
    hash: &mut SplitHash<'_>,
) -> Result<(), simdcrypt::Error> {
    let (long, short): (Vec<usize>, Vec<usize>) =
        (0..messages.len()).partition(|&i| messages[i].len() > CUDA_SEQUENTIAL_MAX);
    if long.is_empty() {
        return hash(Long::Gpu(messages), out);
    }
    for (which, part) in [(true, &short), (false, &long)] {
        if part.is_empty() {
            continue;
        }
        let msgs: Vec<&[u8]> = part.iter().map(|&i| messages[i]).collect();
        let mut digests = vec![0u8; msgs.len() * out_len];
        hash(if which { Long::Gpu(&msgs) } else { Long::Cpu(&msgs) }, &mut digests)?;
        for (&i, d) in part.iter().zip(digests.chunks_exact(out_len)) {
            out[i * out_len..(i + 1) * out_len].copy_from_slice(d);
        }
    }
    Ok(())
}
