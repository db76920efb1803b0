//! `simdcrypt bao`: verified streaming (simdcrypt::blake3::bao) with the arguments of the
//! `bao` command, plus `scrub`, which reports every damaged range of a stored file.
//!
//! An absent or `-` INPUT is standard input, an absent or `-` OUTPUT standard output.
//! Output files appear whole or not at all (a temporary file in the same folder, synced
//! and renamed on success, removed on failure); decoding to standard output writes each
//! piece only once it is verified, and stops with exit status 1 at the first bad one.
//!
//! Memory does not grow with the input (docs/memory.md): encoding streams a window at a
//! time into the output file (from a file or a pipe), slicing reads only the slice's nodes
//! of a file, scrubbing reads the file once a window at a time, decoding streams. Encoding
//! to standard output needs the root's parent, which depends on all the content, before
//! anything else: an outboard is then encoded into an unnamed scratch file in the temporary
//! folder and copied out, a combined encoding (as large as the content) is read twice
//! (hashed, then encoded front to back), as is an outboard where no scratch file can be
//! written; only standard input to standard output is encoded in memory.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use simdcrypt::blake3::bao::{self, Decoder, Format, Options};
use simdcrypt::blake3::{self, Threads};

use crate::atomic_file;
use crate::crypt::{fatal, is_dash};
use crate::output::{io_error_text, Failure, Out};

/// `simdcrypt bao`
#[derive(Args, Debug)]
pub struct BaoArgs {
    #[command(subcommand)]
    command: BaoCommand,
    /// Leaves of 2^K chunks (K = 4: 16 KiB, iroh's choice): a separate format that the bao
    /// command does not read (docs/bao.md)
    #[arg(long = "chunk-group-log", value_name = "K", default_value_t = 0, global = true)]
    group_log: u8,
    /// Threads for encoding and checking (default: all CPUs for large inputs)
    #[arg(short = 'j', long = "threads", value_name = "N", global = true)]
    threads: Option<usize>,
}

#[derive(Subcommand, Debug)]
enum BaoCommand {
    /// Print the root hash (the BLAKE3 hash) of each input
    Hash {
        /// Files; none or `-` is standard input
        inputs: Vec<PathBuf>,
    },
    /// Write the combined encoding to OUTPUT, or the outboard encoding to --outboard
    Encode {
        input: PathBuf,
        output: Option<PathBuf>,
        /// Write the outboard encoding (the tree without the data) here instead
        #[arg(long, value_name = "FILE")]
        outboard: Option<PathBuf>,
    },
    /// Verify an encoding (or INPUT with its --outboard) against HASH and write the content
    Decode {
        hash: String,
        input: Option<PathBuf>,
        output: Option<PathBuf>,
        /// INPUT is the data itself and FILE its outboard encoding
        #[arg(long, value_name = "FILE")]
        outboard: Option<PathBuf>,
        /// Write content from this offset on (verifying only what leads there)
        #[arg(long, value_name = "OFFSET")]
        start: Option<u64>,
        /// Write at most this many bytes
        #[arg(long, value_name = "COUNT")]
        count: Option<u64>,
    },
    /// Extract bytes START..START+COUNT with their proof from an encoding (or outboard)
    Slice {
        start: u64,
        count: u64,
        input: Option<PathBuf>,
        output: Option<PathBuf>,
        /// INPUT is the data itself and FILE its outboard encoding
        #[arg(long, value_name = "FILE")]
        outboard: Option<PathBuf>,
    },
    /// Verify a slice against HASH and write its bytes
    DecodeSlice { hash: String, start: u64, count: u64, input: Option<PathBuf>, output: Option<PathBuf> },
    /// Check a whole file against HASH and its outboard; list every damaged byte range
    ///
    /// Exit status 1 if anything is damaged (in the file or in the outboard).
    Scrub {
        hash: String,
        input: PathBuf,
        /// The file's outboard encoding (`simdcrypt bao encode FILE --outboard OB`)
        #[arg(long, value_name = "FILE")]
        outboard: PathBuf,
    },
}

fn stdin_or(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| !is_dash(p))
}

fn read_all(path: Option<&Path>) -> Result<Vec<u8>, Failure> {
    match stdin_or(path) {
        Some(p) => std::fs::read(p).map_err(|e| fatal("cannot read", p, &e)),
        None => {
            let mut v = Vec::new();
            io::stdin().lock().read_to_end(&mut v).map_err(|e| fatal("cannot read", Path::new("-"), &e))?;
            Ok(v)
        }
    }
}

/// Opens a file that the slicer or the scrubber reads at offsets.
fn open_file(path: &Path) -> Result<File, Failure> {
    File::open(path).map_err(|e| fatal("cannot read", path, &e))
}

fn open(path: Option<&Path>) -> Result<Box<dyn Read>, Failure> {
    Ok(match stdin_or(path) {
        Some(p) => Box::new(BufReader::with_capacity(1 << 20, File::open(p).map_err(|e| fatal("cannot read", p, &e))?)),
        None => Box::new(BufReader::with_capacity(1 << 20, io::stdin().lock())),
    })
}

/// The pieces a [`ReadAhead`] reads (two may wait while one is consumed).
const READ_AHEAD: usize = 4 << 20;

/// A reader that reads its input ahead on a thread of its own, a piece at a time.
struct ReadAhead {
    pieces: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    spare: std::sync::mpsc::SyncSender<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
    done: bool,
}

impl ReadAhead {
    fn new(mut input: impl Read + Send + 'static) -> Self {
        let (tx, pieces) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
        let (spare, spares) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
        // Not joined: it ends at the input's end, on an error, or when the reader is
        // dropped (its next send fails).
        std::thread::spawn(move || loop {
            let mut buf = spares.try_recv().unwrap_or_default();
            buf.resize(READ_AHEAD, 0);
            let mut got = 0;
            let result = loop {
                match input.read(&mut buf[got..]) {
                    Ok(0) => break Ok(()),
                    Ok(n) => {
                        got += n;
                        if got == buf.len() {
                            break Ok(());
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            buf.truncate(got);
            let end = got == 0;
            match result {
                Ok(()) if tx.send(Ok(buf)).is_ok() && !end => {}
                Ok(()) => return,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        });
        ReadAhead { pieces, spare, current: Vec::new(), at: 0, done: false }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.done {
                return Ok(0);
            }
            match self.pieces.recv() {
                Ok(Ok(piece)) => {
                    self.done = piece.is_empty();
                    let used = std::mem::replace(&mut self.current, piece);
                    let _ = self.spare.try_send(used);
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        let n = out.len().min(self.current.len() - self.at);
        out[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn parse_hash(text: &str) -> Result<bao::Hash, Failure> {
    let bad = || Failure::Fatal(format!("HASH must be 64 hexadecimal digits (a BLAKE3 hash), got {text:?}"));
    if text.len() != 64 || !text.is_ascii() {
        return Err(bad());
    }
    let mut hash = [0u8; 32];
    for (i, byte) in hash.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(hash)
}

/// A streaming function's error: reading and verification as `bao_failure` names them,
/// writing as a failure to write OUTPUT.
fn stream_failure(what: &str, output: Option<&Path>, e: bao::Error) -> Failure {
    match e {
        bao::Error::Output(e) => write_failure(output, e),
        e => bao_failure(what, e),
    }
}

fn bao_failure(what: &str, e: bao::Error) -> Failure {
    match e {
        bao::Error::Io(e) => Failure::Fatal(format!("{what}: {}", io_error_text(&e))),
        other => Failure::Fatal(format!("{what}: {other}")),
    }
}

/// Runs `produce` on OUTPUT: a file that appears (replacing an older one) only once whole
/// and synced, nothing if `produce` fails or the run is killed; or stdout.
fn write_output(
    output: Option<&Path>,
    produce: impl FnOnce(&mut dyn Write) -> Result<(), Failure>,
) -> Result<(), Failure> {
    match stdin_or(output) {
        Some(path) => {
            let mut file = atomic_file::create(path).map_err(|e| fatal("cannot create", path, &e))?;
            let mut w = BufWriter::with_capacity(1 << 20, &mut file);
            produce(&mut w)?;
            w.flush().map_err(|e| fatal("cannot write", path, &e))?;
            drop(w);
            file.commit(true).map_err(|e| fatal("cannot write", path, &e))
        }
        None => {
            let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
            produce(&mut out)?;
            out.flush().map_err(Failure::Stdout)
        }
    }
}

fn write_bytes(output: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    write_output(output, |w| w.write_all(bytes).map_err(|e| write_failure(output, e)))
}

fn write_failure(output: Option<&Path>, e: io::Error) -> Failure {
    match stdin_or(output) {
        Some(p) => fatal("cannot write", p, &e),
        None => Failure::Stdout(e),
    }
}

/// The outboard encoding of a file to standard output in one pass: encoded as to a file,
/// into an unnamed scratch file in the temporary folder (a sixteenth of the content at
/// most), then copied out. Reading and hashing the file twice (`encode_file_to_writer`)
/// took three times as long as encoding to a file (issue 48). False, with nothing written,
/// where no scratch file can be made or written (the caller then takes the two passes).
fn outboard_to_stdout(options: &Options, file: &File, input: &Path) -> Result<bool, Failure> {
    let Ok(mut scratch) = atomic_file::create(&std::env::temp_dir().join("simdcrypt-bao-outboard")) else {
        return Ok(false);
    };
    let source = file.try_clone().map_err(|e| fatal("cannot read", input, &e))?;
    match options.encode_file(source, scratch.file(), false) {
        Ok(_) => {}
        Err(bao::Error::Output(_)) => return Ok(false),
        Err(e) => return Err(bao_failure(&format!("cannot encode {}", input.display()), e)),
    }
    let encoded = scratch.file();
    if encoded.seek(SeekFrom::Start(0)).is_err() {
        return Ok(false);
    }
    copy_to_stdout(encoded).map_err(Failure::Stdout)?;
    // Never committed: the scratch file goes with `scratch`.
    Ok(true)
}

/// Copies all of `file`, from its current position, to standard output.
///
/// On Linux the bytes go by `sendfile`, without passing through this process (into a pipe
/// that `main` has grown: `pipes.rs`). Where `sendfile` refuses standard output before
/// sending anything (or elsewhere), they go through a large buffer instead: standard output
/// alone is line-buffered, and an outboard's bytes hold newlines (a write every few dozen
/// bytes).
fn copy_to_stdout(file: &mut File) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.flush()?;
    #[cfg(target_os = "linux")]
    {
        use rustix::io::Errno;
        let mut offset = file.stream_position()?;
        let end = file.metadata()?.len();
        let first = offset;
        while offset < end {
            let want = usize::try_from(end - offset).unwrap_or(usize::MAX).min(1 << 30);
            match rustix::fs::sendfile(&stdout, &*file, Some(&mut offset), want) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank while it was sent")),
                Ok(_) | Err(Errno::INTR) => {}
                // Standard output is something sendfile does not write to: copy instead.
                Err(Errno::INVAL | Errno::NOSYS) if offset == first => break,
                Err(e) => return Err(e.into()),
            }
        }
        if offset == end {
            return Ok(());
        }
    }
    let mut out = BufWriter::with_capacity(1 << 20, stdout);
    io::copy(file, &mut out)?;
    out.flush()
}

pub fn run(args: &BaoArgs, out: &mut Out) -> Result<bool, Failure> {
    let format = Format::chunk_groups(args.group_log).map_err(|e| Failure::Usage(e.to_string()))?;
    let threads = match args.threads {
        Some(0) => return Err(Failure::Usage("--threads must be at least 1".to_string())),
        Some(n) => Threads::Max(n),
        None => Threads::Auto,
    };
    let options = Options::new().format(format).threads(threads);
    match &args.command {
        BaoCommand::Hash { inputs } => hash(inputs, threads, out),
        BaoCommand::Encode { input, output, outboard } => {
            let target = match (output, outboard) {
                (Some(_), Some(_)) => return Err(Failure::Usage("give OUTPUT or --outboard, not both".to_string())),
                (None, None) => return Err(Failure::Usage("give OUTPUT (combined) or --outboard FILE".to_string())),
                (Some(o), None) | (None, Some(o)) => o,
            };
            let combined = outboard.is_none();
            let Some(path) = stdin_or(Some(target)) else {
                // Standard output cannot be written out of order: a file is read twice
                // (hashed, then encoded front to back); standard input, which cannot be
                // read twice, is encoded in memory (the module docs).
                if !is_dash(input) {
                    let file = File::open(input).map_err(|e| fatal("cannot read", input, &e))?;
                    if !combined && outboard_to_stdout(&options, &file, input)? {
                        return Ok(true);
                    }
                    let mut w = BufWriter::with_capacity(1 << 20, io::stdout());
                    options
                        .encode_file_to_writer(&file, &mut w, combined)
                        .map_err(|e| stream_failure(&format!("cannot encode {}", input.display()), None, e))?;
                    return Ok(true);
                }
                let data = read_all(Some(input))?;
                let (_, encoded) = if combined { options.encode(&data) } else { options.encode_outboard(&data) };
                write_bytes(None, &encoded)?;
                return Ok(true);
            };
            let source = if is_dash(input) {
                None
            } else {
                Some(File::open(input).map_err(|e| fatal("cannot read", input, &e))?)
            };
            let mut file = atomic_file::create(path).map_err(|e| fatal("cannot create", path, &e))?;
            match source {
                Some(source) => options.encode_file(source, file.write_behind(), combined),
                None => options.encode_stream(io::stdin(), None, file.write_behind(), combined),
            }
            .map_err(|e| stream_failure(&format!("cannot encode {}", input.display()), Some(path), e))?;
            file.commit(true).map_err(|e| fatal("cannot write", path, &e))?;
            Ok(true)
        }
        BaoCommand::Decode { hash, input, output, outboard, start, count } => {
            let root = parse_hash(hash)?;
            let name = input.as_deref().map_or("-".into(), |p| p.display().to_string());
            if start.is_some() || count.is_some() {
                let (start, count) = (start.unwrap_or(0), count.unwrap_or(u64::MAX));
                // The slice alone is read (and held: it is verified whole before any of it
                // is written), not the whole input.
                let mut slice = Vec::new();
                match (stdin_or(input.as_deref()), outboard) {
                    (Some(path), Some(ob)) => {
                        options.slice_outboard_stream(open_file(path)?, open_file(ob)?, start, count, &mut slice)
                    }
                    (Some(path), None) => options.slice_stream(open_file(path)?, start, count, &mut slice),
                    (None, Some(ob)) => {
                        let data = read_all(None)?;
                        options.slice_outboard_stream(io::Cursor::new(data), open_file(ob)?, start, count, &mut slice)
                    }
                    (None, None) => options.slice_stream(io::Cursor::new(read_all(None)?), start, count, &mut slice),
                }
                .map_err(|e| bao_failure(&format!("cannot decode {name}"), e))?;
                let bytes = options
                    .decode_slice(&root, &slice, start, count)
                    .map_err(|e| bao_failure(&format!("cannot decode {name}"), e))?;
                write_bytes(output.as_deref(), &bytes)?;
                return Ok(true);
            }
            // Read ahead on a thread of its own, so that the kernel's copy of the next piece
            // overlaps checking this one.
            let input_reader: Box<dyn Read> = match stdin_or(input.as_deref()) {
                Some(p) => Box::new(ReadAhead::new(File::open(p).map_err(|e| fatal("cannot read", p, &e))?)),
                None => Box::new(ReadAhead::new(io::stdin())),
            };
            write_output(output.as_deref(), |w| {
                let result = match outboard {
                    Some(ob) => {
                        let ob_reader = open(Some(ob))?;
                        Decoder::new_outboard(input_reader, ob_reader, root).with_options(options).copy_to(w)
                    }
                    None => Decoder::new(input_reader, root).with_options(options).copy_to(w),
                };
                result.map(drop).map_err(|e| match e {
                    bao::Error::Io(e)
                        if stdin_or(output.as_deref()).is_none() && e.kind() == io::ErrorKind::BrokenPipe =>
                    {
                        Failure::Stdout(e)
                    }
                    e => bao_failure(&format!("cannot decode {name}"), e),
                })
            })?;
            Ok(true)
        }
        BaoCommand::Slice { start, count, input, output, outboard } => {
            let name = input.as_deref().map_or("-".into(), |p| p.display().to_string());
            let what = format!("cannot slice {name}");
            let output = output.as_deref();
            // A file is read at the slice's nodes only; standard input cannot seek, and is
            // read whole.
            let (encoded, ob) = match stdin_or(input.as_deref()) {
                Some(path) => (Box::new(open_file(path)?) as Box<dyn ReadSeek>, outboard),
                None => (Box::new(io::Cursor::new(read_all(None)?)) as Box<dyn ReadSeek>, outboard),
            };
            let ob = ob.as_deref().map(open_file).transpose()?;
            write_output(output, |w| {
                match ob {
                    Some(ob) => options.slice_outboard_stream(encoded, ob, *start, *count, w),
                    None => options.slice_stream(encoded, *start, *count, w),
                }
                .map(drop)
                .map_err(|e| stream_failure(&what, output, e))
            })?;
            Ok(true)
        }
        BaoCommand::DecodeSlice { hash, start, count, input, output } => {
            let root = parse_hash(hash)?;
            let name = input.as_deref().map_or("-".into(), |p| p.display().to_string());
            let reader = open(input.as_deref())?;
            write_output(output.as_deref(), |w| {
                Decoder::new_slice(reader, root, *start, *count)
                    .with_options(options)
                    .copy_to(w)
                    .map(drop)
                    .map_err(|e| bao_failure(&format!("cannot decode slice {name}"), e))
            })?;
            Ok(true)
        }
        BaoCommand::Scrub { hash, input, outboard } => {
            let root = parse_hash(hash)?;
            let report = options
                .scrub_stream(&root, open_file(input)?, open_file(outboard)?)
                .map_err(|e| bao_failure(&format!("cannot scrub {}", input.display()), e))?;
            let name = input.display();
            if report.len != report.data_len {
                out.record(&format!(
                    "{name}: length {} but the outboard says {} bytes\n",
                    report.data_len, report.len
                ))?;
            }
            for r in &report.damaged {
                out.record(&format!("{name}: damaged bytes {}..{} ({} bytes)\n", r.start, r.end, r.end - r.start))?;
            }
            for r in &report.outboard_damaged {
                out.record(&format!("{}: damaged outboard bytes {}..{}\n", outboard.display(), r.start, r.end))?;
            }
            if report.is_clean() {
                out.record(&format!("{name}: OK ({} bytes)\n", report.len))?;
            }
            Ok(report.is_clean())
        }
    }
}

/// The windows `bao hash` reads: large enough for the hasher's threads to split (memory
/// stays this, whatever the input).
const HASH_WINDOW: usize = 32 << 20;

/// Hashes all of `input` a window at a time.
fn feed(hasher: &mut blake3::Hasher, mut input: impl Read, path: &Path) -> Result<(), Failure> {
    let mut buf = vec![0u8; HASH_WINDOW];
    loop {
        let mut got = 0;
        while got < buf.len() {
            match input.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(fatal("cannot read", path, &e)),
            }
        }
        hasher.update(&buf[..got]);
        if got < buf.len() {
            return Ok(());
        }
    }
}

/// What the slicer reads from: a file, or standard input held in memory.
trait ReadSeek: Read + io::Seek {}
impl<T: Read + io::Seek> ReadSeek for T {}

fn hash(inputs: &[PathBuf], threads: Threads, out: &mut Out) -> Result<bool, Failure> {
    let hash_one = |path: Option<&Path>| -> Result<bao::Hash, Failure> {
        let mut hasher = blake3::Hasher::new();
        hasher.set_max_threads(threads);
        match stdin_or(path) {
            Some(p) => {
                let file = File::open(p).map_err(|e| fatal("cannot read", p, &e))?;
                feed(&mut hasher, file, p)?;
            }
            None => feed(&mut hasher, io::stdin().lock(), Path::new("-"))?,
        }
        Ok(hasher.finalize())
    };
    if inputs.len() <= 1 {
        let hash = hash_one(inputs.first().map(|p| p.as_path()))?;
        out.record(&format!("{}\n", simdcrypt::to_hex(&hash)))?;
        return Ok(true);
    }
    let mut all_ok = true;
    for input in inputs {
        match hash_one(Some(input)) {
            Ok(hash) => out.record(&format!("{}  {}\n", simdcrypt::to_hex(&hash), input.display()))?,
            Err(Failure::Fatal(msg)) => {
                out.warn(format_args!("{msg}"))?;
                all_ok = false;
            }
            Err(other) => return Err(other),
        }
    }
    Ok(all_ok)
}
