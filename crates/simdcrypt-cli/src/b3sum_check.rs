//! `b3sum --check` when invoked as b3sum: b3sum's manifest rules and messages.
//!
//! `simdcrypt check` follows coreutils (lenient about malformed lines, `FAILED open or
//! read`, per-file messages on stderr). b3sum is stricter and says other things, and
//! scripts written for it depend on them:
//! - every line must be `HASH  NAME` or `BLAKE3 (NAME) = HASH` with 64 lowercase hex
//!   digits; a line that is not (an empty one included) is reported on stderr with what
//!   is wrong and counts as a failure;
//! - a name may not contain NUL or U+FFFD (invalid UTF-8 read lossily would make
//!   different names equal), and escapes (line starting with `\`) are only `\n`, `\r`, `\\`;
//! - a file that cannot be read prints `NAME: FAILED (ERROR)` on stdout;
//! - the only summary is `WARNING: N computed checksum(s) did NOT match`, counting all of
//!   the above.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use simdcrypt::check_line::{parse_b3sum_line as parse_line, B3sumEntry as Entry};

use crate::check::CheckArgs;
use crate::hashing;
use crate::output::{io_error_text, Failure, Out};

/// BLAKE3's default digest length, the only one b3sum checks.
const LEN: usize = simdcrypt::blake3::OUT_LEN;

/// Verifies every manifest as b3sum does. `Ok(false)` when anything failed.
pub fn run(args: &CheckArgs, out: &mut Out) -> Result<bool, Failure> {
    let opts = args.hash.options()?;
    let hasher = args.hash.hasher("blake3", &opts)?;
    let mut failures = 0u64;
    for manifest in &args.manifests {
        let from_stdin = hashing::is_stdin(manifest);
        let reader: Box<dyn Read> = if from_stdin {
            Box::new(io::stdin().lock())
        } else {
            match File::open(manifest) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    out.warn(format_args!("{}: {}", manifest.to_string_lossy(), io_error_text(&e)))?;
                    failures = failures.saturating_add(1);
                    continue;
                }
            }
        };
        let mut reader = BufReader::new(reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    out.warn(format_args!("{}: {}", manifest.to_string_lossy(), io_error_text(&e)))?;
                    failures = failures.saturating_add(1);
                    break;
                }
            }
            let ok = match parse_line(&line) {
                Ok(entry) => verify(&entry, &hasher, args, from_stdin, out)?,
                Err(problem) => {
                    out.warn(format_args!("{problem}"))?;
                    false
                }
            };
            if !ok {
                failures = failures.saturating_add(1);
            }
        }
    }
    if failures > 0 {
        let s = if failures == 1 { "" } else { "s" };
        out.warn(format_args!("WARNING: {failures} computed checksum{s} did NOT match"))?;
    }
    Ok(failures == 0)
}

/// Hashes the entry's file and prints its result line; whether it matched.
fn verify(
    entry: &Entry,
    hasher: &simdcrypt::any::AnyHasher,
    args: &CheckArgs,
    manifest_is_stdin: bool,
    out: &mut Out,
) -> Result<bool, Failure> {
    let found = if manifest_is_stdin && hashing::is_stdin(&entry.path) {
        Err(io::Error::other("standard input is the manifest being read"))
    } else {
        hashing::hash_input(&entry.path, hasher, Some(LEN), args.hash.no_mmap)
    };
    let shown = &entry.shown;
    match found {
        Err(e) => {
            out.record(&format!("{shown}: FAILED ({})\n", io_error_text(&e)))?;
            Ok(false)
        }
        Ok(digest) if constant_time_eq(&digest, &entry.expected) => {
            if !args.quiet {
                out.record(&format!("{shown}: OK\n"))?;
            }
            Ok(true)
        }
        Ok(_) => {
            out.record(&format!("{shown}: FAILED\n"))?;
            Ok(false)
        }
    }
}

/// Compares digests without an early exit, so timing does not tell how much matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";

    #[test]
    fn both_line_forms_parse() {
        let gnu = parse_line(format!("{H}  a  b\n").as_bytes()).unwrap();
        assert_eq!((gnu.shown.as_str(), gnu.path.to_str().unwrap()), ("a  b", "a  b"));
        let bsd = parse_line(format!("BLAKE3 (a) = b) = {H}\r\n").as_bytes()).unwrap();
        assert_eq!(bsd, Entry { shown: "a) = b".into(), path: "a) = b".into(), ..gnu });
        // As in b3sum, the untagged form is tried first, so a tagged line whose name has a
        // double space does not parse.
        assert_eq!(parse_line(format!("BLAKE3 (a  b) = {H}").as_bytes()), Err("Invalid hash length"));
        let esc = parse_line(format!("\\{H}  x\\ny\\\\z").as_bytes()).unwrap();
        assert_eq!((esc.shown.as_str(), esc.path.to_str().unwrap()), ("\\x\\ny\\\\z", "x\ny\\z"));
    }

    #[test]
    fn malformed_lines_say_why() {
        let z = "0".repeat(64);
        for (line, why) in [
            (String::new(), "Empty line"),
            ("\r\n".into(), "Empty line"),
            ("nothing here".into(), "Invalid check line format"),
            (format!("{}  f", &z[1..]), "Invalid hash length"),
            (format!("{}A  f", &z[1..]), "Invalid hex"),
            (format!("{z}  a\0b"), "Null character in path"),
            (format!("{z}  \u{FFFD}"), "Unicode replacement character in path"),
            (format!("\\{z}  \\a"), "Invalid backslash escape"),
            (format!("\\{z}  a\\"), "Invalid backslash escape"),
            (format!("{z}  "), "empty file path"),
        ] {
            assert_eq!(parse_line(line.as_bytes()), Err(why), "{line:?}");
        }
        assert_eq!(parse_line(b"\xff  x"), Err("Invalid UTF-8 in check line"));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_lines_do_not_panic(line in proptest::collection::vec(proptest::num::u8::ANY, 0..120)) {
            let _ = parse_line(&line);
        }
    }
}
