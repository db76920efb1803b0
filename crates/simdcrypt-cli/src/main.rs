//! `simdcrypt`: b3sum/sha256sum-style hashing and checking with simdcrypt's SIMD backends.
//!
//! This file only parses the command line and maps outcomes to exit statuses; each
//! subcommand lives in its own module.

mod atomic_file;
mod backends;
mod bench;
mod check;
mod crypt;
mod escape;
mod hashing;
mod output;
mod progress;
mod sum;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use output::Out;

/// Shown at the end of every `--help`.
const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  a file could not be read, a checksum did not match, a manifest had no valid
     lines, an option value was rejected at run time (key file, backend, length),
     or standard output was closed early
  2  command-line usage error (unknown option, invalid value, conflicting options)";

/// Fast hashing (BLAKE3, SHA-256) with SIMD kernels chosen for this CPU at run time.
///
/// `simdcrypt sum` prints checksums in the same format as b3sum/sha256sum, `simdcrypt check`
/// verifies them, and `simdcrypt backends` shows what this CPU can run.
#[derive(Parser, Debug)]
#[command(name = "simdcrypt", version, after_help = EXIT_STATUS_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print checksums (b3sum/sha256sum format)
    ///
    /// Prints `HASH  NAME` for each FILE, or `BLAKE3 (NAME) = HASH` with --tag; for BLAKE3
    /// the output is byte-for-byte what b3sum prints with the same options, for SHA-256
    /// (`-a sha256`) what coreutils' sha256sum prints; HighwayHash (`-a highwayhash64`,
    /// `highwayhash128` or `highwayhash256`, key required: `--key-file`) prints its u64
    /// words, each little-endian, in hex (label `HIGHWAYHASH64` with --tag). A name with a
    /// backslash, newline or carriage return is escaped (`\\`, `\n`, `\r`) and its line
    /// starts with a backslash. A file that cannot be read is reported on stderr and the
    /// others are still hashed.
    #[command(after_help = EXIT_STATUS_HELP)]
    Sum(sum::SumArgs),

    /// Verify checksums listed in manifests
    ///
    /// Reads lines printed by `simdcrypt sum` (GNU style `HASH  NAME` or `HASH *NAME`, or
    /// BSD style `LABEL (NAME) = HASH`, escaped or not), hashes each named file and prints
    /// `NAME: OK`, `NAME: FAILED`, or `NAME: FAILED open or read`. The length of each
    /// HASH sets the output length, so `sum -l 64` output checks as it is. GNU-style lines
    /// do not say their algorithm: they are BLAKE3 unless `-a` says otherwise (`-a sha256`
    /// for sha256sum manifests; both digests are 64 hex digits). Lines starting
    /// with `#` are ignored; warnings about failures go to stderr at the end.
    #[command(after_help = EXIT_STATUS_HELP)]
    Check(check::CheckArgs),

    /// Show CPU features and the backend each algorithm uses
    ///
    /// Lists the CPU features found, the ones left usable when SIMDCRYPT_DISABLE (a comma
    /// list of features to hide, e.g. avx2,avx512) hides some, and for each algorithm the
    /// backend selected and the backends this CPU supports.
    #[command(after_help = EXIT_STATUS_HELP)]
    Backends(backends::BackendsArgs),

    /// Compare simdcrypt with other libraries on this machine (runs `python3 -m simdcrypt.bench`)
    ///
    /// Every argument goes to the Python harness (`simdcrypt bench --help` shows its
    /// options). The Python is $SIMDCRYPT_PYTHON, else the active virtual environment's,
    /// else python3 from PATH; it needs the simdcrypt package. The exit status is the
    /// harness's: 0 success, 1 a verification failure (or no usable Python), 2 usage error.
    Bench(bench::BenchArgs),
    /// Write a new 32-byte random key file (mode 0600) for encrypt/decrypt
    ///
    /// `-o -` writes the 32 raw bytes to standard output instead (refused on a terminal).
    #[command(after_help = EXIT_STATUS_HELP)]
    Keygen(crypt::KeygenArgs),

    /// Encrypt a file (XSalsa20-Poly1305 in 64 KiB authenticated chunks)
    ///
    /// The key is a key file (-k, from `simdcrypt keygen`) or a passphrase (--passphrase,
    /// asked twice on the terminal, or --passphrase-file), stretched with Argon2id
    /// (64 MiB, 3 passes, 4 lanes unless --argon2-* say otherwise; the file records them).
    /// OUT is written unnamed and appears only when complete and synced to disk: an
    /// interrupted run (Ctrl-C, kill; on Linux even kill -9) leaves nothing behind. An existing OUT
    /// is kept unless --force (then replaced atomically); OUT may not be a folder or IN
    /// itself. Memory use does not depend on the file size. The format (version 2) is
    /// documented in docs/file-format.md.
    #[command(after_help = EXIT_STATUS_HELP)]
    Encrypt(crypt::EncryptArgs),

    /// Decrypt a file made by `simdcrypt encrypt` (format version 1 or 2)
    ///
    /// Any modification (of a chunk or of the header), truncation, extension, reordering,
    /// a wrong key or passphrase is an error (exit status 1) and OUT is not created: no
    /// plaintext reaches the disk unless all of it authenticated, even if the run is
    /// killed. With `-o -` each chunk is written to stdout once it has authenticated; a
    /// truncation is detected at the end. OUT may not be a folder or IN itself.
    #[command(after_help = EXIT_STATUS_HELP)]
    Decrypt(crypt::CryptArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = Out::new();
    let result = match &cli.command {
        Command::Sum(args) => sum::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Backends(args) => backends::run(args, &mut out),
        Command::Bench(args) => return bench::run(args),
        Command::Keygen(args) => crypt::keygen(args),
        Command::Encrypt(args) => crypt::encrypt(args),
        Command::Decrypt(args) => crypt::decrypt(args),
    };
    // Flush before any final message so that stdout and stderr stay in order.
    let flushed = out.finish();
    match result.and_then(|all_ok| flushed.map(|()| all_ok)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(failure) => failure.report(),
    }
}
