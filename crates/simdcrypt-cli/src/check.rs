//! `simdcrypt check`: verify checksum lines, reporting like coreutils' `sha256sum -c`.
//!
//! Accepted lines (optionally starting with `\` when the name is escaped):
//! - GNU style: `HEX  NAME`, or `HEX *NAME` (binary marker);
//! - BSD style: `LABEL (NAME) = HEX`, where LABEL picks the algorithm (e.g. `BLAKE3`).
//!
//! The hex length gives the output length to compute. Lines starting with `#` are skipped.
//! GNU-style lines carry no algorithm: they use `-a` (default blake3). The hex length cannot
//! tell sha256sum's lines from b3sum's (both 64 digits), so nothing is inferred from it.
//! Result lines escape names as the algorithm's reference tool does (see `escape::Style`).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use clap::Args;
use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::registry;

use crate::escape::{check_name, unescape, Style};
use crate::hashing::{self, HashArgs, DEFAULT_ALGORITHM, MAX_OUTPUT_LEN};
use crate::output::{io_error_text, Failure, Out};

/// Arguments of `simdcrypt check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Algorithm of GNU-style lines, and the only one accepted [default: the BSD-style
    /// line's label, else blake3]
    #[arg(
        short,
        long,
        value_name = "ALGO",
        value_parser = hashing::algorithm_parser(),
        ignore_case = true
    )]
    pub algorithm: Option<String>,

    #[command(flatten)]
    pub hash: HashArgs,

    /// Don't print OK for each file that verifies
    #[arg(long)]
    pub quiet: bool,

    /// Print nothing on standard output; the exit status gives the result
    #[arg(long)]
    pub status: bool,

    /// Exit with status 1 for improperly formatted lines too
    #[arg(long)]
    pub strict: bool,

    /// Manifests to verify (output of `simdcrypt sum`, b3sum or sha256sum-style tools);
    /// - reads standard input
    #[arg(value_name = "MANIFEST", required = true)]
    pub manifests: Vec<PathBuf>,
}

/// Verifies every manifest. `Ok(false)` when anything failed to verify.
pub fn run(args: &CheckArgs, out: &mut Out) -> Result<bool, Failure> {
    if args.hash.key_from_stdin() && args.manifests.iter().any(|m| hashing::is_stdin(m)) {
        return Err(Failure::Usage(
            "--key-file - reads the key from standard input, so a manifest cannot come \
             from standard input too"
                .to_string(),
        ));
    }
    let mut checker = Checker { args, hashers: Hashers::new(&args.hash)? };
    // Build the hasher most lines will use now, so a bad key or backend stops us early.
    checker.hashers.get(checker.default_algorithm())?;

    let mut all_ok = true;
    for manifest in &args.manifests {
        all_ok &= checker.check_manifest(manifest, out)?;
    }
    Ok(all_ok)
}

/// Counts for one manifest.
#[derive(Debug, Default)]
struct Tally {
    properly_formatted: u64,
    misformatted: u64,
    unreadable: u64,
    mismatched: u64,
}

/// Hashers built from the command line's options, one per algorithm met so far.
#[derive(Debug)]
struct Hashers<'a> {
    args: &'a HashArgs,
    opts: HashOptions,
    built: Vec<AnyHasher>,
}

impl<'a> Hashers<'a> {
    fn new(args: &'a HashArgs) -> Result<Self, Failure> {
        Ok(Hashers { args, opts: args.options()?, built: Vec::new() })
    }

    fn get(&mut self, algorithm: &str) -> Result<&AnyHasher, Failure> {
        let found = self.built.iter().position(|h| h.algorithm().eq_ignore_ascii_case(algorithm));
        let index = match found {
            Some(i) => i,
            None => {
                let hasher = self.args.hasher(algorithm, &self.opts)?;
                self.built.push(hasher);
                self.built.len() - 1
            }
        };
        Ok(&self.built[index])
    }
}

#[derive(Debug)]
struct Checker<'a> {
    args: &'a CheckArgs,
    hashers: Hashers<'a>,
}

impl<'a> Checker<'a> {
    fn default_algorithm(&self) -> &'a str {
        self.args.algorithm.as_deref().unwrap_or(DEFAULT_ALGORITHM)
    }

    /// Verifies one manifest and prints its summary. `Ok(false)` when anything failed.
    fn check_manifest(&mut self, manifest: &Path, out: &mut Out) -> Result<bool, Failure> {
        let from_stdin = hashing::is_stdin(manifest);
        let shown = if from_stdin { "standard input".into() } else { manifest.to_string_lossy() };
        let mut reader: Box<dyn BufRead> = if from_stdin {
            Box::new(io::stdin().lock())
        } else {
            match File::open(manifest) {
                Ok(f) => Box::new(BufReader::new(f)),
                Err(e) => {
                    out.warn(format_args!("{shown}: {}", io_error_text(&e)))?;
                    return Ok(false);
                }
            }
        };

        let mut tally = Tally::default();
        let mut read_failed = false;
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => self.check_line(&line, from_stdin, &mut tally, out)?,
                Err(e) => {
                    out.warn(format_args!("{shown}: {}", io_error_text(&e)))?;
                    read_failed = true;
                    break;
                }
            }
        }
        self.summarize(&shown, &tally, read_failed, out)?;

        Ok(!read_failed
            && tally.properly_formatted > 0
            && tally.mismatched == 0
            && tally.unreadable == 0
            && !(self.args.strict && tally.misformatted > 0))
    }

    fn check_line(
        &mut self,
        line: &[u8],
        stdin_is_manifest: bool,
        tally: &mut Tally,
        out: &mut Out,
    ) -> Result<(), Failure> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"#") {
            return Ok(());
        }
        let Some(entry) = parse_line(line) else {
            tally.misformatted += 1;
            return Ok(());
        };
        let Some(algorithm) = self.algorithm_of(&entry) else {
            tally.misformatted += 1;
            return Ok(());
        };
        let hasher = self.hashers.get(algorithm)?;
        let len = entry.hex.len() / 2;
        let len_ok = len as u64 <= MAX_OUTPUT_LEN && (hasher.is_xof() || len == hasher.default_output_len());
        let path = match path_from_bytes(entry.name) {
            Some(path) if len_ok => path,
            _ => {
                tally.misformatted += 1;
                return Ok(());
            }
        };
        tally.properly_formatted += 1;

        let result = if stdin_is_manifest && hashing::is_stdin(&path) {
            Err(io::Error::other("standard input is the manifest being read"))
        } else {
            hashing::hash_input(&path, hasher, Some(len), self.args.hash.no_mmap)
        };
        let result = result.map(|digest| self.args.hash.present(hasher, digest));
        let name = check_name(&path, Style::of(hasher.descriptor()));
        let (prefix, name) = (name.line_prefix(), name.text);
        let quiet = self.args.status;
        match result {
            Err(e) => {
                tally.unreadable += 1;
                out.warn(format_args!("{}: {}", path.to_string_lossy(), io_error_text(&e)))?;
                if !quiet {
                    out.record(&format!("{prefix}{name}: FAILED open or read\n"))?;
                }
            }
            Ok(digest) if simdcrypt::to_hex(&digest).as_bytes().eq_ignore_ascii_case(entry.hex) => {
                if !quiet && !self.args.quiet {
                    out.record(&format!("{prefix}{name}: OK\n"))?;
                }
            }
            Ok(_) => {
                tally.mismatched += 1;
                if !quiet {
                    out.record(&format!("{prefix}{name}: FAILED\n"))?;
                }
            }
        }
        Ok(())
    }

    /// The algorithm for a line: the BSD label's, which must agree with `-a` if given;
    /// else `-a`'s or the default.
    fn algorithm_of(&self, entry: &Entry<'_>) -> Option<&'static str> {
        let wanted = self.default_algorithm();
        match entry.label {
            Some(label) => {
                let algorithm = registry::by_bsd_label(std::str::from_utf8(label).ok()?)?;
                let agrees = self.args.algorithm.is_none() || algorithm.is_named(wanted);
                agrees.then_some(algorithm.name)
            }
            None => registry::find(wanted).ok().map(|a| a.name),
        }
    }

    /// The coreutils-style warnings at the end of a manifest.
    fn summarize(&self, manifest: &str, tally: &Tally, read_failed: bool, out: &mut Out) -> Result<(), Failure> {
        if tally.properly_formatted == 0 {
            if !read_failed {
                out.warn(format_args!("{manifest}: no properly formatted checksum lines found"))?;
            }
            return Ok(());
        }
        if self.args.status {
            return Ok(());
        }
        let plural = |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
        if tally.misformatted > 0 {
            let n = tally.misformatted;
            let what = plural(n, "line is", "lines are");
            out.warn(format_args!("WARNING: {n} {what} improperly formatted"))?;
        }
        if tally.unreadable > 0 {
            let n = tally.unreadable;
            let what = plural(n, "listed file", "listed files");
            out.warn(format_args!("WARNING: {n} {what} could not be read"))?;
        }
        if tally.mismatched > 0 {
            let n = tally.mismatched;
            let what = plural(n, "computed checksum", "computed checksums");
            out.warn(format_args!("WARNING: {n} {what} did NOT match"))?;
        }
        Ok(())
    }
}

/// One parsed checksum line.
#[derive(Debug, PartialEq, Eq)]
struct Entry<'a> {
    /// The BSD-style label, if the line has one.
    label: Option<&'a [u8]>,
    /// The expected digest: an even number (at least 2) of hex digits, either case.
    hex: &'a [u8],
    /// The file name, unescaped.
    name: Vec<u8>,
}

/// Parses a line without its line ending. `None` if it is improperly formatted.
fn parse_line(line: &[u8]) -> Option<Entry<'_>> {
    let start = line.iter().position(|&b| b != b' ' && b != b'\t')?;
    let line = &line[start..];
    let (escaped, body) = match line.split_first() {
        Some((b'\\', rest)) => (true, rest),
        _ => (false, line),
    };
    let (label, hex, raw_name) = split_gnu(body).or_else(|| split_bsd(body))?;
    if hex.is_empty() || hex.len() % 2 != 0 || raw_name.is_empty() {
        return None;
    }
    let name = if escaped { unescape(raw_name)? } else { raw_name.to_vec() };
    Some(Entry { label, hex, name })
}

type Split<'a> = (Option<&'a [u8]>, &'a [u8], &'a [u8]);

/// `HEX  NAME` or `HEX *NAME`.
fn split_gnu(body: &[u8]) -> Option<Split<'_>> {
    let hex_len = body.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if hex_len == 0 {
        return None;
    }
    let (hex, rest) = body.split_at(hex_len);
    let name = rest.strip_prefix(b"  ").or_else(|| rest.strip_prefix(b" *"))?;
    Some((None, hex, name))
}

/// `LABEL (NAME) = HEX`. The name may itself contain `) = `, so split at the last one.
fn split_bsd(body: &[u8]) -> Option<Split<'_>> {
    let open = find(body, b" (")?;
    let label = &body[..open];
    if label.is_empty() || label.iter().any(u8::is_ascii_whitespace) {
        return None;
    }
    let rest = &body[open + 2..];
    let close = rfind(rest, b") = ")?;
    let (name, hex) = (&rest[..close], &rest[close + 4..]);
    if !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    Some((Some(label), hex, name))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(unix)]
fn path_from_bytes(name: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(name).into())
}

#[cfg(not(unix))]
fn path_from_bytes(name: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(name).ok().map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Option<(Option<String>, String, String)> {
        parse_line(line.as_bytes()).map(|e| {
            (
                e.label.map(|l| String::from_utf8(l.to_vec()).unwrap()),
                String::from_utf8(e.hex.to_vec()).unwrap(),
                String::from_utf8(e.name).unwrap(),
            )
        })
    }

    #[test]
    fn gnu_lines() {
        assert_eq!(parse("abcd  file"), Some((None, "abcd".into(), "file".into())));
        assert_eq!(parse("ABcd *file"), Some((None, "ABcd".into(), "file".into())));
        assert_eq!(parse("abcd   sp"), Some((None, "abcd".into(), " sp".into())));
        assert_eq!(parse("ab  a  b"), Some((None, "ab".into(), "a  b".into())));
        assert_eq!(parse("\\ab  a\\nb\\\\"), Some((None, "ab".into(), "a\nb\\".into())));
    }

    #[test]
    fn bsd_lines() {
        assert_eq!(parse("BLAKE3 (f) = abcd"), Some((Some("BLAKE3".into()), "abcd".into(), "f".into())));
        assert_eq!(parse("BLAKE3 (a) = (b) = ab"), Some((Some("BLAKE3".into()), "ab".into(), "a) = (b".into())));
        assert_eq!(parse("\\BLAKE3 (a\\rb) = ab"), Some((Some("BLAKE3".into()), "ab".into(), "a\rb".into())));
    }

    #[test]
    fn malformed_lines() {
        for line in [
            "",
            "   ",
            "abc  odd-length",
            "abcd file",
            "abcd  ",
            "  file",
            "zz  file",
            "BLAKE3 (f) = ",
            "BLAKE3 (f) = xyz1",
            "BLAKE3 () = abcd",
            "BLAKE3 f = abcd",
            "\\abcd  bad\\escape",
            "\\abcd  trailing\\",
        ] {
            assert_eq!(parse(line), None, "{line:?}");
        }
    }
}
