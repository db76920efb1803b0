//! `simdcrypt keygen`, `encrypt` and `decrypt`: file encryption with XSalsa20-Poly1305 in
//! the chunked format of `simdcrypt::salsa20::sealed_stream` (docs/file-format.md),
//! version 2 (key file or Argon2id passphrase, authenticated header); version-1 files
//! still decrypt.
//!
//! Output files appear whole or not at all and nothing is left behind, even when the run
//! is killed (`atomic_file.rs`): the output is written to an unnamed file and named only
//! after all of the input was processed and synced. So decryption never leaves
//! unauthenticated (or partial) plaintext on disk. With `-o -` the output goes to stdout
//! as it is produced: each chunk is written only after it authenticates, but a truncated
//! file is only detected at its end (the exit status is then 1).

use std::fs::{self, File};
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use simdcrypt::salsa20::sealed_stream::{self, Argon2Params, DecryptError, Secret, HEADER_NONCE_LEN, SALT_LEN};
use simdcrypt::salsa20::KEY_LEN;
use simdcrypt::threads::Threads;

use crate::atomic_file;
use crate::output::{io_error_text, Failure};
use crate::progress::{Progress, ProgressArgs};

/// `simdcrypt keygen`
#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// The key file to write (32 random bytes from the OS, mode 0600); `-` writes the key
    /// to standard output (refused when that is a terminal)
    #[arg(short = 'o', long = "output", value_name = "KEYFILE")]
    output: PathBuf,
    /// Replace KEYFILE if it exists
    #[arg(long)]
    force: bool,
}

/// Options shared by `encrypt` and `decrypt`.
#[derive(Args, Debug)]
pub struct CryptArgs {
    /// The 32-byte key file made by `simdcrypt keygen`
    #[arg(short = 'k', long = "key", value_name = "KEYFILE", required_unless_present_any = ["passphrase", "passphrase_file"], conflicts_with_all = ["passphrase", "passphrase_file"])]
    key: Option<PathBuf>,
    /// Ask for a passphrase on the terminal, without echo (twice when encrypting); the key
    /// is derived from it with Argon2id
    #[arg(long, conflicts_with = "passphrase_file")]
    passphrase: bool,
    /// Read the passphrase from FILE (one trailing newline is ignored)
    #[arg(long, value_name = "FILE")]
    passphrase_file: Option<PathBuf>,
    /// The input file; `-` reads standard input
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The output file (not a folder, not IN itself); `-` writes standard output
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Replace OUT if it exists (atomically: OUT is either the old file or the new one)
    #[arg(long)]
    force: bool,
    /// Threads that seal or open chunks: a number, or `auto` (every CPU); the output is
    /// the same for any number
    #[arg(short = 'j', long = "threads", value_name = "N|auto", default_value = "auto", value_parser = parse_threads)]
    threads: Threads,
    #[command(flatten)]
    progress: ProgressArgs,
}

/// `simdcrypt encrypt`: the shared options and Argon2id's costs.
#[derive(Args, Debug)]
pub struct EncryptArgs {
    #[command(flatten)]
    common: CryptArgs,
    /// Argon2id memory in KiB, with a passphrase (default 65536 = 64 MiB; at most 1048576)
    #[arg(long, value_name = "KIB", default_value_t = Argon2Params::DEFAULT.memory_kib)]
    argon2_memory: u32,
    /// Argon2id passes, with a passphrase (default 3; at most 10)
    #[arg(long, value_name = "N", default_value_t = Argon2Params::DEFAULT.iterations)]
    argon2_iterations: u32,
    /// Argon2id lanes, with a passphrase (default 4; at most 16)
    #[arg(long, value_name = "N", default_value_t = Argon2Params::DEFAULT.parallelism)]
    argon2_parallelism: u32,
}

fn parse_threads(s: &str) -> Result<Threads, String> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(Threads::Auto);
    }
    match s.parse::<usize>() {
        Ok(1) => Ok(Threads::One),
        Ok(n) if (2..=1024).contains(&n) => Ok(Threads::Max(n)),
        _ => Err(format!("expected a number of threads from 1 to 1024 or `auto`, got {s:?}")),
    }
}

pub(crate) fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

pub(crate) fn fatal(what: &str, path: &Path, e: &io::Error) -> Failure {
    Failure::Fatal(format!("{what} {}: {}", path.display(), io_error_text(e)))
}

fn random<const N: usize>() -> Result<[u8; N], Failure> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| Failure::Fatal(format!("OS random generator: {e}")))?;
    Ok(b)
}

/// Refuses an OUT that is a folder, or that exists without `force`.
fn check_output(path: &Path, force: bool) -> Result<(), Failure> {
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(Failure::Fatal(format!(
            "{} is a directory; give the name of the file to write (e.g. {}/NAME)",
            path.display(),
            path.display()
        )));
    }
    if !force && fs::symlink_metadata(path).is_ok() {
        return Err(Failure::Fatal(format!("{} exists; use --force to replace it", path.display())));
    }
    Ok(())
}

/// Refuses to write OUT over IN (the same file, through any name): the input would be
/// lost.
fn check_not_same_file(input: &Path, output: &Path) -> Result<(), Failure> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(i), Ok(o)) = (fs::metadata(input), fs::metadata(output)) {
            if i.dev() == o.dev() && i.ino() == o.ino() {
                return Err(Failure::Fatal(format!(
                    "{} and {} are the same file; write the output to another file",
                    input.display(),
                    output.display()
                )));
            }
        }
    }
    #[cfg(not(unix))]
    if let (Ok(i), Ok(o)) = (fs::canonicalize(input), fs::canonicalize(output)) {
        if i == o {
            return Err(Failure::Fatal(format!(
                "{} and {} are the same file; write the output to another file",
                input.display(),
                output.display()
            )));
        }
    }
    Ok(())
}

/// Maps an output error: a target that appeared since the check is "exists".
fn commit_error(path: &Path, e: &io::Error) -> Failure {
    if e.kind() == io::ErrorKind::AlreadyExists {
        Failure::Fatal(format!("{} exists; use --force to replace it", path.display()))
    } else {
        fatal("cannot write", path, e)
    }
}

pub fn keygen(args: &KeygenArgs) -> Result<bool, Failure> {
    let key = random::<KEY_LEN>()?;
    if is_dash(&args.output) {
        let stdout = io::stdout();
        if stdout.is_terminal() {
            return Err(Failure::Fatal(
                "refusing to print a key on a terminal; redirect standard output (keygen -o - > FILE) or give a file"
                    .into(),
            ));
        }
        let mut lock = stdout.lock();
        lock.write_all(&key).and_then(|()| lock.flush()).map_err(Failure::Stdout)?;
        return Ok(true);
    }
    check_output(&args.output, args.force)?;
    let mut out = atomic_file::create(&args.output).map_err(|e| fatal("cannot create", &args.output, &e))?;
    out.file().write_all(&key).map_err(|e| fatal("cannot write", &args.output, &e))?;
    out.commit(args.force).map_err(|e| commit_error(&args.output, &e))?;
    Ok(true)
}

fn read_key(path: &Path) -> Result<[u8; KEY_LEN], Failure> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|f| f.take(KEY_LEN as u64 + 1).read_to_end(&mut bytes))
        .map_err(|e| fatal("cannot read key file", path, &e))?;
    bytes.as_slice().try_into().map_err(|_| {
        Failure::Fatal(format!(
            "key file {} must hold exactly {KEY_LEN} bytes (made by `simdcrypt keygen`), got {}",
            path.display(),
            // Only KEY_LEN + 1 bytes are read: a longer file shows as "more".
            if bytes.len() > KEY_LEN { format!("more than {KEY_LEN}") } else { bytes.len().to_string() }
        ))
    })
}

/// Passphrase files longer than this are surely not passphrase files.
const MAX_PASSPHRASE_FILE: u64 = 64 * 1024;

/// The passphrase from `--passphrase-file` or the terminal (asked twice for encryption).
fn read_passphrase(args: &CryptArgs, confirm: bool) -> Result<Vec<u8>, Failure> {
    let mut pass = if let Some(path) = &args.passphrase_file {
        let mut bytes = Vec::new();
        File::open(path)
            .and_then(|f| f.take(MAX_PASSPHRASE_FILE + 1).read_to_end(&mut bytes))
            .map_err(|e| fatal("cannot read passphrase file", path, &e))?;
        if bytes.len() as u64 > MAX_PASSPHRASE_FILE {
            return Err(Failure::Fatal(format!(
                "passphrase file {} is longer than {MAX_PASSPHRASE_FILE} bytes",
                path.display()
            )));
        }
        if bytes.ends_with(b"\n") {
            bytes.pop();
            if bytes.ends_with(b"\r") {
                bytes.pop();
            }
        }
        bytes
    } else {
        let no_tty = |e: io::Error| {
            Failure::Fatal(format!(
                "cannot ask for a passphrase ({}): run on a terminal or use --passphrase-file",
                io_error_text(&e)
            ))
        };
        let first = rpassword::prompt_password("Passphrase: ").map_err(no_tty)?;
        if confirm {
            let second = rpassword::prompt_password("Passphrase (again): ").map_err(no_tty)?;
            if first != second {
                return Err(Failure::Fatal("the passphrases differ; nothing was written".into()));
            }
        }
        first.into_bytes()
    };
    if pass.is_empty() {
        pass.clear();
        return Err(Failure::Fatal("the passphrase is empty".into()));
    }
    Ok(pass)
}

fn open_input(path: &Path) -> Result<(Box<dyn Read>, Option<u64>), Failure> {
    if is_dash(path) {
        return Ok((Box::new(io::stdin().lock()), None));
    }
    let f = File::open(path).map_err(|e| fatal("cannot read", path, &e))?;
    let meta = f.metadata().map_err(|e| fatal("cannot read", path, &e))?;
    if meta.is_dir() {
        return Err(Failure::Fatal(format!("cannot read {}: Is a directory", path.display())));
    }
    let len = meta.is_file().then_some(meta.len());
    // The chunk pipeline reads a batch of chunks at a time: no buffer needed on a file.
    Ok((Box::new(f), len))
}

/// Standard output for the chunk pipeline. On Unix, a duplicate of its descriptor written
/// directly: the standard library's handle is line-buffered, and copies every write that
/// holds a newline (ciphertext has one every 256 bytes or so) to split it at the last one.
/// Elsewhere, the locked handle. Nothing was written to `lock` before.
fn direct_stdout<'a>(lock: &'a mut io::StdoutLock<'static>) -> io::Result<Box<dyn Write + 'a>> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        lock.flush()?;
        Ok(Box::new(File::from(lock.as_fd().try_clone_to_owned()?)))
    }
    #[cfg(not(unix))]
    Ok(Box::new(lock))
}

/// Which way `run` goes.
#[derive(Clone, Copy, Debug)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

fn failure(direction: Direction, input: &Path, e: DecryptError) -> Failure {
    let (doing, verb) = match direction {
        Direction::Encrypt => ("encrypting", "encrypt"),
        Direction::Decrypt => ("decrypting", "decrypt"),
    };
    match e {
        DecryptError::Io(e) => Failure::Fatal(format!("{doing} {}: {}", input.display(), io_error_text(&e))),
        other => Failure::Fatal(format!("cannot {verb} {}: {other}", input.display())),
    }
}

pub fn encrypt(args: &EncryptArgs) -> Result<bool, Failure> {
    let params = Argon2Params {
        memory_kib: args.argon2_memory,
        iterations: args.argon2_iterations,
        parallelism: args.argon2_parallelism,
    };
    params.check().map_err(Failure::Usage)?;
    run(&args.common, Direction::Encrypt, params)
}

pub fn decrypt(args: &CryptArgs) -> Result<bool, Failure> {
    run(args, Direction::Decrypt, Argon2Params::DEFAULT)
}

fn run(args: &CryptArgs, direction: Direction, params: Argon2Params) -> Result<bool, Failure> {
    let to_stdout = is_dash(&args.output);
    if !to_stdout {
        check_output(&args.output, args.force)?;
        if !is_dash(&args.input) {
            check_not_same_file(&args.input, &args.output)?;
        }
    }
    let key;
    let pass;
    let secret = match &args.key {
        Some(path) => {
            key = read_key(path)?;
            Secret::Key(&key)
        }
        None => {
            pass = read_passphrase(args, matches!(direction, Direction::Encrypt))?;
            Secret::Passphrase(&pass)
        }
    };
    let (input, total) = open_input(&args.input)?;
    let what = match direction {
        Direction::Encrypt => "encrypting",
        Direction::Decrypt => "decrypting",
    };
    let progress = Progress::for_stream(&args.progress, total, what);
    let input = progress.reader(input);
    let process = |out: &mut dyn Write| -> Result<(), Failure> {
        let r = match direction {
            Direction::Encrypt => {
                let (nonce, salt) = (random::<HEADER_NONCE_LEN>()?, random::<SALT_LEN>()?);
                sealed_stream::encrypt_v2(&secret, &nonce, &salt, params, input, out, args.threads)
            }
            Direction::Decrypt => sealed_stream::decrypt_any(&secret, input, out, args.threads),
        };
        progress.finish();
        r.map(drop).map_err(|e| failure(direction, &args.input, e))
    };
    if to_stdout {
        let stdout = io::stdout();
        let mut lock = stdout.lock();
        // Batches of chunks are written in one call each (no copy through the buffer);
        // the buffer only gathers the header.
        let mut out = BufWriter::with_capacity(1 << 16, direct_stdout(&mut lock).map_err(Failure::Stdout)?);
        process(&mut out)?;
        out.flush().map_err(Failure::Stdout)?;
    } else {
        let mut file = atomic_file::create(&args.output).map_err(|e| fatal("cannot create", &args.output, &e))?;
        {
            // Whole batches are written in one call each; the buffer only gathers the header.
            // Through the AtomicFile itself: the disk starts writing as the batches come.
            let mut out = BufWriter::with_capacity(1 << 16, &mut file);
            process(&mut out)?;
            out.flush().map_err(|e| fatal("cannot write", &args.output, &e))?;
        }
        file.commit(args.force).map_err(|e| commit_error(&args.output, &e))?;
    }
    Ok(true)
}
