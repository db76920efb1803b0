//! `simdcrypt keygen`, `encrypt` and `decrypt`: file encryption with XSalsa20-Poly1305 in
//! the chunked format of `simdcrypt::salsa20::sealed_stream` (docs/file-format.md).
//!
//! Output files appear whole or not at all: they are written to a new temporary file in
//! the same folder (mode 0600), flushed to disk, and renamed over OUT only on success; on
//! any failure the temporary file is removed. So decryption never leaves unauthenticated
//! (or partial) plaintext at OUT. With `-o -` the output goes to stdout as it is produced:
//! each chunk is written only after it authenticates, but a truncated file is only
//! detected at its end (the exit status is then 1).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use simdcrypt::salsa20::sealed_stream::{self, HEADER_NONCE_LEN};
use simdcrypt::salsa20::KEY_LEN;

use crate::output::{io_error_text, Failure};

/// `simdcrypt keygen`
#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// The key file to write (32 random bytes from the OS, mode 0600)
    #[arg(short = 'o', long = "output", value_name = "KEYFILE")]
    output: PathBuf,
    /// Replace KEYFILE if it exists
    #[arg(long)]
    force: bool,
}

/// `simdcrypt encrypt` / `simdcrypt decrypt`
#[derive(Args, Debug)]
pub struct CryptArgs {
    /// The 32-byte key file made by `simdcrypt keygen`
    #[arg(short = 'k', long = "key", value_name = "KEYFILE")]
    key: PathBuf,
    /// The input file; `-` reads standard input
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The output file; `-` writes standard output
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Replace OUT if it exists
    #[arg(long)]
    force: bool,
}

pub(crate) fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

pub(crate) fn fatal(what: &str, path: &Path, e: &io::Error) -> Failure {
    Failure::Fatal(format!("{what} {}: {}", path.display(), io_error_text(e)))
}

/// A new file next to `target`, removed on drop unless `commit` renamed it over `target`
/// (shared with `bao`).
pub(crate) struct TempOutput {
    path: PathBuf,
    file: Option<BufWriter<File>>,
}

impl TempOutput {
    pub(crate) fn create(target: &Path) -> Result<TempOutput, Failure> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for attempt in 0..100u32 {
            let mut nonce = [0u8; 4];
            getrandom::fill(&mut nonce).map_err(|e| Failure::Fatal(format!("OS random generator: {e}")))?;
            let path = dir.join(format!(".{name}.{}.{attempt}.tmp", u32::from_le_bytes(nonce)));
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&path) {
                Ok(f) => return Ok(TempOutput { path, file: Some(BufWriter::with_capacity(1 << 20, f)) }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(fatal("cannot create a temporary file in", &dir, &e)),
            }
        }
        Err(Failure::Fatal(format!("cannot create a temporary file in {}", dir.display())))
    }

    pub(crate) fn writer(&mut self) -> &mut BufWriter<File> {
        self.file.as_mut().expect("open until commit")
    }

    /// Flushes, syncs to disk and renames over `target`.
    pub(crate) fn commit(mut self, target: &Path) -> Result<(), Failure> {
        let file = self.file.take().expect("open until commit");
        let file = file.into_inner().map_err(|e| fatal("cannot write", target, e.error()))?;
        file.sync_all().map_err(|e| fatal("cannot write", target, &e))?;
        drop(file);
        fs::rename(&self.path, target).map_err(|e| fatal("cannot replace", target, &e))?;
        self.path = PathBuf::new();
        // Make the rename itself durable (best effort: not every file system allows it).
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Drop for TempOutput {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            self.file = None;
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn check_overwrite(path: &Path, force: bool) -> Result<(), Failure> {
    if !force && fs::symlink_metadata(path).is_ok() {
        return Err(Failure::Fatal(format!("{} exists; use --force to replace it", path.display())));
    }
    Ok(())
}

pub fn keygen(args: &KeygenArgs) -> Result<bool, Failure> {
    check_overwrite(&args.output, args.force)?;
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| Failure::Fatal(format!("OS random generator: {e}")))?;
    let mut tmp = TempOutput::create(&args.output)?;
    tmp.writer().write_all(&key).map_err(|e| fatal("cannot write", &args.output, &e))?;
    tmp.commit(&args.output)?;
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

fn open_input(path: &Path) -> Result<Box<dyn Read>, Failure> {
    if is_dash(path) {
        return Ok(Box::new(BufReader::with_capacity(1 << 20, io::stdin().lock())));
    }
    let f = File::open(path).map_err(|e| fatal("cannot read", path, &e))?;
    Ok(Box::new(BufReader::with_capacity(1 << 20, f)))
}

/// Which way `run` goes.
#[derive(Clone, Copy, Debug)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

pub fn run(args: &CryptArgs, direction: Direction) -> Result<bool, Failure> {
    let key = read_key(&args.key)?;
    let to_stdout = is_dash(&args.output);
    if !to_stdout {
        check_overwrite(&args.output, args.force)?;
    }
    let input = open_input(&args.input)?;
    let process = |out: &mut dyn Write| -> Result<(), Failure> {
        match direction {
            Direction::Encrypt => {
                let mut nonce = [0u8; HEADER_NONCE_LEN];
                getrandom::fill(&mut nonce).map_err(|e| Failure::Fatal(format!("OS random generator: {e}")))?;
                sealed_stream::encrypt(&key, &nonce, input, out)
                    .map(drop)
                    .map_err(|e| Failure::Fatal(format!("encrypting {}: {}", args.input.display(), io_error_text(&e))))
            }
            Direction::Decrypt => sealed_stream::decrypt(&key, input, out).map(drop).map_err(|e| match e {
                sealed_stream::DecryptError::Io(e) => {
                    Failure::Fatal(format!("decrypting {}: {}", args.input.display(), io_error_text(&e)))
                }
                other => Failure::Fatal(format!("cannot decrypt {}: {other}", args.input.display())),
            }),
        }
    };
    if to_stdout {
        let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
        process(&mut out)?;
        out.flush().map_err(Failure::Stdout)?;
    } else {
        let mut tmp = TempOutput::create(&args.output)?;
        process(tmp.writer())?;
        tmp.commit(&args.output)?;
    }
    Ok(true)
}
