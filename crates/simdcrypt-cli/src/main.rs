//! `simdcrypt`: b3sum/sha256sum-style hashing and checking, and file encryption, with
//! simdcrypt's SIMD backends.
//!
//! This file only parses the command line and maps outcomes to exit statuses; each
//! subcommand lives in its own module.
//!
//! ## The modules of the command line
//!
//! `main.rs` (clap definitions, exit statuses), `lazy_args.rs` (each subcommand's arguments
//! built only when that subcommand is parsed: start-up time), `sum.rs`, `check.rs`, `backends.rs` (one
//! module per subcommand), `hashing.rs` (options shared by `sum` and `check`: key file,
//! threads, hashing a file or stdin), `escape.rs` (coreutils/b3sum name escaping; `check`
//! result lines follow each algorithm's reference tool, `Style`), `output.rs` (buffered
//! stdout, error messages without Rust's "(os error N)" suffix, quiet exit on a closed pipe),
//! `chunks.rs` (`chunks`: content-defined chunks of files as lines or JSON manifests,
//! and `chunks --diff OLD.json NEW` with its manifest checks), `bao.rs` (`bao hash|encode|decode|slice|decode-slice|scrub`, the `bao` command's arguments;
//! output files through `atomic_file.rs`), `crypt.rs` (`keygen`, `encrypt`, `decrypt`: the
//! sealed_stream format, key files or passphrases (`rpassword`), `-j`, refusals of folders and
//! of IN as OUT; `getrandom` for keys, nonces and salts), `atomic_file.rs` (the one way the
//! CLI creates files, through the library's `atomic_file`; it adds the `signal-hook` thread
//! that removes named temporary files on SIGINT/SIGTERM/SIGHUP and then re-raises the signal).
//! `walk.rs` (the `--exclude` globs as the predicate of the library's `simdcrypt::walk`:
//! byte-sorted paths, symlinks skipped or followed with (dev, inode) loop detection),
//! `update.rs` (`sum -r/--tree DIR --update MANIFEST`: the library's `manifest` driven with
//! this command's pool and output), `check_manifest.rs` (`check -r` of a manifest: OK,
//! FAILED, NEW, MISSING; `--update`), `parallel.rs` (one rayon
//! pool per command; inputs run as tasks, results reordered through a bounded window so output
//! order never depends on threads), `tree.rs` (the tree digest of docs/tree-digest.md),
//! `pipes.rs` (standard input and output grown to 1 MiB where they are pipes),
//! `progress.rs` (indicatif bars on stderr, only when it is a terminal, after about a second
//! unless `--progress`: files and bytes for `sum`/`check`, one stream for
//! `encrypt`/`decrypt`), `dropin.rs` (behaving as b3sum/sha256sum when invoked under that
//! name; `b3sum -c` runs `b3sum_check.rs`, b3sum's stricter line rules and messages;
//! `scripts/test-b3sum-suite.sh` runs b3sum's own CLI tests, from its crates.io source,
//! against a `b3sum` link to our binary). Several `-a` algorithms share one read
//! (`hashing::hash_all`; large files: each hasher on its own thread over the same block).
//! `bench.rs` runs the Python benchmark harness (`python3 -m simdcrypt.bench`, below) with the
//! arguments untouched and exits with its status. `--gost-reverse` (in `hashing.rs`, shared by
//! `sum` and `check`) reverses the digests of the four GOST algorithms. The integration tests
//! (`tests/cli.rs` for BLAKE3 against b3sum, `tests/sha256.rs` against sha256sum,
//! `tests/gost.rs` against RustCrypto and `rhash`, `tests/manifest.rs` for `--update` and
//! `check -r` (output equal to a fresh `sum` after every change a stat cache can miss,
//! signals mid-run, damaged manifests), `tests/crypt.rs` for file encryption round
//! trips and tampering, `tests/crypt_safety.rs` for signals mid-run (each of SIGKILL, SIGTERM,
//! SIGINT, SIGHUP at several points, both output kinds: the folder is unchanged), passphrases,
//! version-1 files and the refusals, `tests/bench.rs` for the bench wrapper) drive the built
//! binary through the helpers in `tests/common/mod.rs`.

mod atomic_file;
mod b3sum_check;
mod backends;
mod bao;
mod bench;
mod check;
mod check_manifest;
mod chunks;
mod crypt;
mod dropin;
mod escape;
mod hashing;
mod lazy_args;
mod output;
mod parallel;
mod pipes;
mod progress;
mod sum;
mod tree;
mod update;
mod walk;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use lazy_args::Lazy;
use output::Out;

/// Shown at the end of `simdcrypt --help`.
const TOP_EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  the command failed: a file could not be read or written, a checksum did not
     match, a file did not decrypt, an option value was rejected at run time (each
     command's --help lists its cases)
  2  command-line usage error (unknown option, invalid value, conflicting options)";

/// Shown at the end of the hashing subcommands' help.
const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  a file could not be read, a checksum did not match, a manifest had no valid
     lines, an option value was rejected at run time (key file, length),
     or standard output was closed early
  2  command-line usage error (unknown option, invalid value, conflicting options,
     a backend this CPU or build does not have)";

/// Shown at the end of `simdcrypt chunks --help`.
const CHUNKS_EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  a file could not be read, OLD.json is not a valid manifest (the message names
     the field), or standard output was closed early
  2  command-line usage error (unknown option, invalid value, conflicting options,
     chunker parameters out of range)";

/// Shown at the end of `simdcrypt keygen --help`.
const KEYGEN_EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  KEYFILE exists and --force was not given, the operating system gave no random
     bytes, or KEYFILE could not be written
  2  command-line usage error (unknown option, invalid value, conflicting options)";

/// Shown at the end of the encryption subcommands' help.
const CRYPT_EXIT_STATUS_HELP: &str = "\
Exit status:
  0  success
  1  the key file or the input could not be read or is not valid (a key must be 32
     bytes; decrypt: the input was modified, truncated or made with another key),
     OUT exists and --force was not given, or the output could not be written
  2  command-line usage error (unknown option, invalid value, conflicting options)";

/// Fast, verified hashing and encryption with SIMD kernels chosen for this CPU at run time:
/// BLAKE3, SHA-256, HighwayHash-64/128/256, Streebog-256/512, GOST R 34.11-94 and
/// XSalsa20-Poly1305.
///
/// `sum` prints checksums in the format of b3sum, sha256sum and RHash, and `check` verifies
/// them (algorithms: blake3, sha256, highwayhash64, highwayhash128, highwayhash256,
/// streebog256, streebog512, gost94, gost94-test, xet). `chunks` lists content-defined
/// chunks (Xet, FastCDC 2020) and compares a file with an old chunk manifest. `keygen` writes a key file, `encrypt` and
/// `decrypt` protect files with it (XSalsa20-Poly1305 in authenticated chunks). `backends`
/// shows what this CPU can run, `bench` compares simdcrypt with other libraries here.
#[derive(Parser, Debug)]
#[command(name = "simdcrypt", version, after_help = TOP_EXIT_STATUS_HELP)]
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
    /// words, each little-endian, in hex (label `HIGHWAYHASH64` with --tag); Streebog and
    /// GOST R 34.11-94 (`-a streebog256`, `streebog512`, `gost94`, `gost94-test`) print
    /// RHash's byte order and labels (`--gost-reverse`: the standard's order). A name with a
    /// backslash, newline or carriage return is escaped (`\\`, `\n`, `\r`) and its line
    /// starts with a backslash. A file that cannot be read is reported on stderr and the
    /// others are still hashed.
    #[command(after_help = EXIT_STATUS_HELP)]
    Sum(Lazy<sum::SumArgs>),

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
    Check(Lazy<check::CheckArgs>),

    /// List content-defined chunks of files (Xet, FastCDC 2020), or compare a file with an old manifest
    ///
    /// Prints `OFFSET LENGTH DIGEST  NAME` for each chunk of each FILE, or with --json one
    /// manifest per file (one line: path, size, chunker parameters, digest, the Xet file
    /// hash for the xet chunker and digest, the chunks). The Xet chunker (the default) and
    /// its digest give the Hugging Face Hub's chunks and chunk hashes; `--chunker
    /// fastcdc2020` takes --min, --avg, --max and --level. The cuts and digests do not
    /// depend on -j. `--diff OLD.json NEW` chunks NEW with OLD.json's chunker and reports
    /// how many of its chunks and bytes OLD.json already has (matched by digest), how many
    /// are new, and how many of OLD's are gone. A file that cannot be read is reported on
    /// stderr and nothing is printed for it.
    #[command(after_help = CHUNKS_EXIT_STATUS_HELP)]
    Chunks(Lazy<chunks::ChunksArgs>),

    /// Show CPU features and the backend each algorithm uses
    ///
    /// Lists the CPU features found, the ones left usable when SIMDCRYPT_DISABLE (a comma
    /// list of features to hide, e.g. avx2,avx512) hides some, and for each algorithm the
    /// backend selected and the backends this CPU supports.
    #[command(after_help = EXIT_STATUS_HELP)]
    Backends(Lazy<backends::BackendsArgs>),

    /// Compare simdcrypt with other libraries on this machine (runs `python3 -m simdcrypt.bench`)
    ///
    /// Every argument goes to the Python harness (`simdcrypt bench --help` shows its
    /// options). The Python is $SIMDCRYPT_PYTHON, else the active virtual environment's,
    /// else python3 from PATH; it needs the simdcrypt package. The exit status is the
    /// harness's: 0 success, 1 a verification failure (or no usable Python), 2 usage error.
    Bench(Lazy<bench::BenchArgs>),

    /// Write a new 32-byte random key file (mode 0600) for encrypt/decrypt
    ///
    /// The key comes from the operating system's random number generator. Keep the file
    /// secret: anyone who has it can decrypt, and forge, files encrypted with it.
    /// `-o -` writes the 32 raw bytes to standard output instead (refused on a terminal).
    #[command(after_help = KEYGEN_EXIT_STATUS_HELP)]
    Keygen(Lazy<crypt::KeygenArgs>),

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
    #[command(after_help = CRYPT_EXIT_STATUS_HELP)]
    Encrypt(Lazy<crypt::EncryptArgs>),

    /// Decrypt a file made by `simdcrypt encrypt` (format version 1 or 2)
    ///
    /// Any modification (of a chunk or of the header), truncation, extension, reordering,
    /// a wrong key or passphrase is an error (exit status 1) and OUT is not created: no
    /// plaintext reaches the disk unless all of it authenticated, even if the run is
    /// killed. With `-o -` each chunk is written to stdout once it has authenticated; a
    /// truncation is detected at the end. OUT may not be a folder or IN itself.
    #[command(after_help = CRYPT_EXIT_STATUS_HELP)]
    Decrypt(Lazy<crypt::CryptArgs>),

    /// Verified streaming (Bao): hash, encode, decode, slice, decode-slice, scrub
    ///
    /// The `bao` command's arguments and formats (docs/bao.md); `scrub` checks a stored
    /// file against its hash and outboard and lists every damaged byte range.
    #[command(after_help = EXIT_STATUS_HELP)]
    Bao(Lazy<bao::BaoArgs>),
}

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_default();
    let tool = dropin::detect(&argv0);
    let as_b3sum = tool.is_some_and(|t| !t.is_coreutils());
    let cli = match tool {
        // Invoked as b3sum or sha256sum: behave as that tool.
        Some(tool) => {
            output::set_program_name(tool.name);
            if as_b3sum {
                output::keep_os_error_codes();
            }
            match Cli::try_parse_from(dropin::rewrite(tool, args)) {
                Ok(cli) => cli,
                Err(e) => {
                    let _ = e.print();
                    let usage = e.use_stderr();
                    return ExitCode::from(if usage && tool.is_coreutils() { 1 } else { e.exit_code() as u8 });
                }
            }
        }
        None => Cli::parse(),
    };
    if let Some(problem) = simdcrypt::cpu::disable_list_problem() {
        output::warn(format_args!("warning: {problem}"));
    }
    pipes::widen_standard_pipes();
    let mut out = Out::new();
    let result = match &cli.command {
        Command::Sum(args) => sum::run(args, &mut out),
        // b3sum's checking rules and messages differ from coreutils' (see b3sum_check.rs).
        Command::Check(args) if as_b3sum => b3sum_check::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Chunks(args) => chunks::run(args, &mut out),
        Command::Backends(args) => backends::run(args, &mut out),
        Command::Bench(args) => return bench::run(args),
        Command::Keygen(args) => crypt::keygen(args),
        Command::Encrypt(args) => crypt::encrypt(args),
        Command::Decrypt(args) => crypt::decrypt(args),
        Command::Bao(args) => bao::run(args, &mut out),
    };
    // Flush before any final message so that stdout and stderr stay in order.
    let flushed = out.finish();
    match result.and_then(|all_ok| flushed.map(|()| all_ok)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(failure) => failure.report(),
    }
}
