//! `simdcrypt chunks`: content-defined chunks of files (Xet or FastCDC 2020) with a digest
//! each, as text lines or one JSON manifest per file; `chunks --diff OLD.json NEW` compares
//! a new version of a file with the manifest of an old one (chunks matched by digest).
//!
//! The chunking is the library's (`simdcrypt::chunking`), so the cuts and digests are those
//! of Python's `simdcrypt.chunks` and of `simdcrypt.dask.chunk_file`, for any `-j`. A file is
//! printed only once all of it was chunked: a file that cannot be read writes nothing to
//! stdout (its error goes to stderr, and the exit status is 1 at the end).

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Map, Value};
use simdcrypt::chunking::{self, Chunk, ChunkDigest, ChunkManifest, ChunkOptions, ChunkReader, Chunker, FastCdcParams};
use simdcrypt::threads::Threads;

use crate::escape::display_name;
use crate::hashing;
use crate::output::{io_error_text, Failure, Out};

/// Arguments of `simdcrypt chunks`.
#[derive(Args, Debug)]
pub struct ChunksArgs {
    /// The chunker: xet (the Hugging Face Hub's; sizes fixed by the protocol) or fastcdc2020
    #[arg(long, value_name = "NAME", default_value = "xet", value_parser = ["xet", "fastcdc2020"])]
    pub chunker: String,

    /// FastCDC 2020: the minimum chunk size in bytes (suffixes K and M: KiB and MiB)
    #[arg(long = "min", value_name = "BYTES", value_parser = parse_size)]
    pub min: Option<u32>,

    /// FastCDC 2020: the average (target) chunk size in bytes (default 64K); --min and --max
    /// not given are then a quarter and four times it (defaults 16K and 256K)
    #[arg(long = "avg", value_name = "BYTES", value_parser = parse_size)]
    pub avg: Option<u32>,

    /// FastCDC 2020: the maximum chunk size in bytes
    #[arg(long = "max", value_name = "BYTES", value_parser = parse_size)]
    pub max: Option<u32>,

    /// FastCDC 2020: the normalisation level, 0 to 3 (default 1)
    #[arg(long, value_name = "LEVEL", value_parser = clap::value_parser!(u8).range(0..=3))]
    pub level: Option<u8>,

    /// What each chunk is hashed with: xet (keyed BLAKE3 with the Xet data key, the Hub's
    /// chunk hashes), blake3, sha256, or none
    #[arg(long, value_name = "NAME", default_value = "xet", value_parser = ["xet", "blake3", "sha256", "none"])]
    pub digest: String,

    /// Threads for chunking and hashing one file: a number >= 1, or auto (one per CPU); the
    /// output does not depend on it
    #[arg(short = 'j', long, visible_alias = "num-threads", value_name = "N|auto", default_value = "auto", value_parser = hashing::parse_threads)]
    pub threads: Threads,

    /// Use this Gear-scan backend instead of the best one for this CPU (`simdcrypt backends`
    /// lists them under gear); the output does not depend on it
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,

    /// Print one JSON manifest per file (one line each): the chunker's parameters, the
    /// digest, the file's size, its Xet hash (xet chunker and digest) and the chunks; with
    /// --diff, the comparison as one JSON object
    #[arg(long)]
    pub json: bool,

    /// Compare NEW with OLD.json (a manifest from `chunks --json`): chunks and bytes of NEW
    /// whose digest is in OLD (reused) or not (new), and OLD's chunks NEW no longer has.
    /// NEW is chunked with OLD's chunker and digest
    #[arg(
        long,
        value_name = "OLD.json",
        conflicts_with_all = ["chunker", "min", "avg", "max", "level", "digest"]
    )]
    pub diff: Option<PathBuf>,

    /// Files to chunk; - (or no FILE) reads standard input. With --diff: the one NEW file
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// `--min 64K`: bytes, with K (KiB) or M (MiB) allowed.
fn parse_size(s: &str) -> Result<u32, String> {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1u64 << 20),
        _ => (s, 1),
    };
    let n: u64 = digits.parse().map_err(|_| format!("expected a number of bytes (e.g. 65536 or 64K), got {s:?}"))?;
    n.checked_mul(unit)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{s} is too large: sizes are at most 4 GiB - 1"))
}

/// The chunker and digest the arguments name, checked by the library.
fn options(args: &ChunksArgs) -> Result<ChunkOptions, Failure> {
    let chunker = Chunker::from_name(&args.chunker).map_err(|e| Failure::Usage(e.to_string()))?;
    let chunker = match chunker {
        Chunker::FastCdc2020(_) => FastCdcParams::from_sizes(args.min, args.avg, args.max, args.level)
            .map(Chunker::FastCdc2020)
            .map_err(|e| Failure::Usage(e.to_string()))?,
        xet => {
            let given = [("--min", args.min.is_some()), ("--avg", args.avg.is_some()), ("--max", args.max.is_some())];
            if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
                return Err(Failure::Usage(format!(
                    "{flag} applies to --chunker fastcdc2020 only: the Xet chunker's sizes are fixed by the protocol"
                )));
            }
            if args.level.is_some() {
                return Err(Failure::Usage("--level applies to --chunker fastcdc2020 only".to_string()));
            }
            xet
        }
    };
    let digest = ChunkDigest::from_name(&args.digest).map_err(|e| Failure::Usage(e.to_string()))?;
    Ok(ChunkOptions { threads: args.threads, platform: platform(args)?, ..ChunkOptions::new(chunker, digest) })
}

/// `--backend NAME`: a Gear-scan kernel this CPU can run (the library's error says which it
/// can otherwise), or None for the best.
fn platform(args: &ChunksArgs) -> Result<Option<chunking::Platform>, Failure> {
    args.backend
        .as_deref()
        .map(|name| chunking::Platform::from_name(name).map_err(|e| Failure::Usage(e.to_string())))
        .transpose()
}

/// Runs `chunks` (or `chunks --diff`). `Ok(false)` when some file could not be read.
pub fn run(args: &ChunksArgs, out: &mut Out) -> Result<bool, Failure> {
    if let Some(old) = &args.diff {
        return run_diff(args, old, out);
    }
    let opts = options(args)?;
    let stdin = [PathBuf::from("-")];
    let files: &[PathBuf] = if args.files.is_empty() { &stdin } else { &args.files };
    let mut all_ok = true;
    for path in files {
        match chunk_input(path, &opts) {
            Ok(chunks) => {
                let text =
                    if args.json { manifest_line(path, &opts, &chunks) } else { text_lines(path, &opts, &chunks) };
                out.record(&text)?;
            }
            Err(e) => {
                all_ok = false;
                out.warn(format_args!("{e}"))?;
            }
        }
    }
    Ok(all_ok)
}

/// The chunks of a file, or of standard input for `-`; the message, naming the input.
fn chunk_input(path: &Path, opts: &ChunkOptions) -> Result<Vec<Chunk>, String> {
    let name = path.to_string_lossy();
    if hashing::is_stdin(path) {
        return ChunkReader::new(io::stdin(), *opts).collect::<Result<Vec<_>, _>>().map_err(|e| format!("{name}: {e}"));
    }
    // Opened here first, so that a missing or unreadable file (or a folder) gets the
    // system's words before any work starts.
    let meta = fs::File::open(path).and_then(|f| f.metadata()).map_err(|e| format!("{name}: {}", io_error_text(&e)))?;
    if meta.is_dir() {
        return Err(format!("{name}: Is a directory"));
    }
    chunking::chunk_file(path, opts).map_err(|e| match e {
        // The library's I/O messages name the path already.
        simdcrypt::Error::Io { message, .. } => message,
        other => format!("{name}: {other}"),
    })
}

/// `OFFSET LENGTH DIGEST  NAME` per chunk (no DIGEST with `--digest none`); a name that
/// needs escaping is escaped as in `sum`'s lines.
fn text_lines(path: &Path, opts: &ChunkOptions, chunks: &[Chunk]) -> String {
    let name = display_name(path);
    let prefix = name.line_prefix();
    let mut text = String::with_capacity(chunks.len() * (90 + name.text.len()));
    for c in chunks {
        let _ = write!(text, "{prefix}{} {}", c.offset, c.len);
        if !matches!(opts.digest, ChunkDigest::None) {
            let _ = write!(text, " {}", simdcrypt::to_hex(&c.digest));
        }
        let _ = writeln!(text, "  {}", name.text);
    }
    text
}

/// One file's manifest, one line of JSON (docs/cli.md): the path fields (`"path"`, and
/// `"path_hex"` where needed) with the library's manifest (`chunking::chunk_manifest_json`).
fn manifest_line(path: &Path, opts: &ChunkOptions, chunks: &[Chunk]) -> String {
    let mut line = chunking::chunk_manifest_json(crate::sum::json_path(path), opts, chunks);
    line.push('\n');
    line
}

/// Reads and checks OLD.json (`chunking::parse_chunk_manifest`): errors name the file.
fn read_manifest(path: &Path) -> Result<ChunkManifest, Failure> {
    let text =
        fs::read_to_string(path).map_err(|e| Failure::Fatal(format!("{}: {}", path.display(), io_error_text(&e))))?;
    chunking::parse_chunk_manifest(&text).map_err(|e| Failure::Fatal(format!("{}: {e}", path.display())))
}

/// Chunks and bytes, for the diff's report.
#[derive(Default, Clone, Copy)]
struct Tally {
    chunks: u64,
    bytes: u64,
}

impl Tally {
    fn add(&mut self, len: u32) {
        self.chunks += 1;
        self.bytes += u64::from(len);
    }
}

/// `chunks --diff OLD.json NEW`.
fn run_diff(args: &ChunksArgs, old_path: &Path, out: &mut Out) -> Result<bool, Failure> {
    let [new_path] = &args.files[..] else {
        return Err(Failure::Usage(format!(
            "--diff OLD.json compares one NEW file with it; got {} files",
            args.files.len()
        )));
    };
    let mut old = read_manifest(old_path)?;
    old.options.threads = args.threads;
    old.options.platform = platform(args)?;
    let new = chunk_input(new_path, &old.options).map_err(Failure::Fatal)?;
    let old_digests: std::collections::HashSet<[u8; 32]> = old.chunks.iter().map(|c| c.digest).collect();
    let new_digests: std::collections::HashSet<[u8; 32]> = new.iter().map(|c| c.digest).collect();
    let (mut total, mut reused, mut fresh, mut dropped) =
        (Tally::default(), Tally::default(), Tally::default(), Tally::default());
    for c in &new {
        total.add(c.len);
        if old_digests.contains(&c.digest) {
            reused.add(c.len);
        } else {
            fresh.add(c.len);
        }
    }
    for c in &old.chunks {
        if !new_digests.contains(&c.digest) {
            dropped.add(c.len);
        }
    }
    let pct = |part: u64| if total.bytes == 0 { 0.0 } else { 100.0 * part as f64 / total.bytes as f64 };
    if args.json {
        let mut obj = Map::new();
        obj.insert("old".into(), old_path.to_string_lossy().into_owned().into());
        obj.extend(crate::sum::json_path(new_path));
        obj.insert("chunker".into(), chunking::chunker_manifest_value(&old.options.chunker));
        obj.insert("digest".into(), old.options.digest.name().into());
        obj.insert("size".into(), total.bytes.into());
        obj.insert("chunks".into(), total.chunks.into());
        for (key, t) in [("reused", reused), ("new", fresh), ("dropped", dropped)] {
            obj.insert(format!("{key}_chunks"), t.chunks.into());
            obj.insert(format!("{key}_bytes"), t.bytes.into());
        }
        out.record(&format!("{}\n", Value::Object(obj)))?;
    } else {
        out.record(&format!(
            "{}: {} chunks, {} bytes ({} chunker, {} digests)\n\
             reused:  {} chunks, {} bytes ({:.1}%)\n\
             new:     {} chunks, {} bytes ({:.1}%)\n\
             dropped: {} chunks, {} bytes of {} no longer present\n",
            new_path.display(),
            total.chunks,
            total.bytes,
            old.options.chunker.name(),
            old.options.digest.name(),
            reused.chunks,
            reused.bytes,
            pct(reused.bytes),
            fresh.chunks,
            fresh.bytes,
            pct(fresh.bytes),
            dropped.chunks,
            dropped.bytes,
            old_path.display(),
        ))?;
    }
    Ok(true)
}
