//! `simdcrypt sum`: print checksums, byte-for-byte like b3sum for BLAKE3 and like coreutils'
//! sha256sum for SHA-256.

use std::path::{Path, PathBuf};

use clap::Args;
use simdcrypt::any::AnyHasher;

use crate::escape::display_name;
use crate::hashing::{self, HashArgs, DEFAULT_ALGORITHM, MAX_OUTPUT_LEN};
use crate::output::{io_error_text, Failure, Out};

/// Arguments of `simdcrypt sum`.
#[derive(Args, Debug)]
pub struct SumArgs {
    /// Hash algorithm
    #[arg(
        short,
        long,
        value_name = "ALGO",
        default_value = DEFAULT_ALGORITHM,
        value_parser = hashing::algorithm_parser(),
        ignore_case = true
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

    /// Print BSD-style lines: BLAKE3 (FILE) = HASH, SHA256 (FILE) = HASH, GOST12-256 (FILE) = HASH
    #[arg(long)]
    pub tag: bool,

    #[command(flatten)]
    pub hash: HashArgs,

    /// Files to hash; with no FILE, or when FILE is -, read standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
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

    let opts = args.hash.options()?;
    let hasher = args.hash.hasher(&args.algorithm, &opts)?;
    if args.hash.gost_reverse && !hashing::is_gost(&hasher) {
        return Err(Failure::Usage(format!(
            "--gost-reverse applies to streebog256, streebog512, gost94 and gost94-test, not {}",
            hasher.algorithm()
        )));
    }
    let len = args.length.map(|l| l as usize);
    // Reject an unavailable length before reading any input. (Only fixed-length
    // algorithms can refuse one, and their digests are short.)
    if !hasher.is_xof() {
        hasher.finalize(len).map_err(|e| Failure::Fatal(e.to_string()))?;
    }

    let mut all_ok = true;
    for path in files {
        match hashing::hash_input(path, &hasher, len, args.hash.no_mmap) {
            Ok(digest) => {
                let digest = args.hash.present(&hasher, digest);
                out.record(&format_line(path, &hasher, &digest, args.tag))?
            }
            Err(e) => {
                all_ok = false;
                out.warn(format_args!("{}: {}", path.to_string_lossy(), io_error_text(&e)))?;
            }
        }
    }
    Ok(all_ok)
}

/// `HEX  NAME` or, with `tag`, `LABEL (NAME) = HEX`; newline included.
fn format_line(path: &Path, hasher: &AnyHasher, digest: &[u8], tag: bool) -> String {
    let name = display_name(path);
    let hex = simdcrypt::to_hex(digest);
    let prefix = name.line_prefix();
    if tag {
        format!("{prefix}{} ({}) = {hex}\n", hasher.tag_label(), name.text)
    } else {
        format!("{prefix}{hex}  {}\n", name.text)
    }
}
