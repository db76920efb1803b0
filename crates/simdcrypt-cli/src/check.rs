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
use simdcrypt::check_line::{parse_line, Entry};
use simdcrypt::registry;

use crate::escape::{check_name, Style};
use crate::hashing::{self, HashArgs, ProgressArgs, WalkArgs, DEFAULT_ALGORITHM, MAX_OUTPUT_LEN};
use crate::output::{io_error_text, Failure, Out};
use crate::parallel::Pool;
use crate::progress::Progress;
use crate::tree;
use crate::walk::{path_from_bytes, WalkOptions};

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

    /// Warn about each improperly formatted line
    #[arg(short, long)]
    pub warn: bool,

    /// Don't fail or report status for files that do not exist
    #[arg(long)]
    pub ignore_missing: bool,

    /// How directories of `BLAKE3-TREE` lines (and the directory of -r) are walked: give
    /// the options `sum` had
    #[command(flatten)]
    pub walk: WalkArgs,

    /// Also report the files under the listed directory that the list lacks (NEW) and the
    /// listed files that are gone (MISSING). MANIFEST is a manifest of `sum --update`
    /// (which names its directory), or a checksum list with --root DIR
    #[arg(short, long)]
    pub recursive: bool,

    /// With -r: the directory the list describes [default: a manifest's own]
    #[arg(long, value_name = "DIR", requires = "recursive")]
    pub root: Option<PathBuf>,

    /// With -r and a manifest: files whose stat is unchanged since the manifest was
    /// written count as OK without being read (as `sum --update`), and the manifest is
    /// written back with the stats of the files verified now (never their digests)
    #[arg(long, requires = "recursive")]
    pub update: bool,

    /// With --update: trust a file's size and mtime alone (no ctime, inode or device
    /// comparison)
    #[arg(long, requires = "update")]
    pub trust_mtime: bool,

    /// Print one JSON object per result line: {"path", "status"}, status being OK, FAILED,
    /// MISSING, NEW or ERROR (then with "error")
    #[arg(long, conflicts_with = "status")]
    pub json: bool,

    #[command(flatten)]
    pub progress: ProgressArgs,

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
    let mut walk = args.walk.options()?;
    // A list inside the directory it lists is not one of its files (nor NEW).
    walk.skip_files.extend(
        args.manifests.iter().filter(|m| !hashing::is_stdin(m)).filter_map(|m| simdcrypt::walk::file_identity(m)),
    );
    let mut checker = Checker {
        args,
        hashers: Hashers::new(&args.hash)?,
        pool: Pool::new(args.hash.threads),
        walk: simdcrypt::walk::WalkOptions {
            // `check -r --update` trusts a manifest entry after a stat, taken during the walk.
            stat_files: args.update,
            threads: args.hash.threads,
            ..walk
        },
    };
    // Build the hasher most lines will use now, so a bad key or backend stops us early.
    checker.hashers.get(checker.default_algorithm())?;

    let mut all_ok = true;
    for manifest in &args.manifests {
        if args.recursive && args.root.is_none() && !crate::check_manifest::is_manifest(manifest) {
            return Err(Failure::Usage(format!(
                "{}: check -r with a checksum list needs --root DIR, the directory it lists (a manifest of \
                 `sum --update` names its own)",
                manifest.display()
            )));
        }
        all_ok &= if args.recursive && crate::check_manifest::is_manifest(manifest) {
            crate::check_manifest::run(args, manifest, &checker.pool, &checker.walk, out)?
        } else {
            checker.check_manifest(manifest, out)?
        };
    }
    Ok(all_ok)
}

/// What one result line says.
#[derive(Debug)]
pub(crate) enum Status<'a> {
    /// The digest matched.
    Ok,
    /// The digest did not match.
    Failed,
    /// The file could not be read, with why.
    Unreadable(&'a str),
    /// A listed file that is gone (-r).
    Missing,
    /// A file the list lacks (-r).
    New,
}

/// One result line: `NAME: STATUS`, the name escaped in `style`, or with `--json` an
/// object {"path", "status"} (and "error").
pub(crate) fn record_status(
    out: &mut Out,
    json: bool,
    path: &Path,
    style: Style,
    status: Status<'_>,
) -> Result<(), Failure> {
    if json {
        let mut obj = crate::sum::json_path(path);
        let word = match status {
            Status::Ok => "OK",
            Status::Failed => "FAILED",
            Status::Unreadable(text) => {
                obj.insert("error".into(), text.into());
                "ERROR"
            }
            Status::Missing => "MISSING",
            Status::New => "NEW",
        };
        obj.insert("status".into(), word.into());
        return out.record(&format!("{}\n", serde_json::Value::Object(obj)));
    }
    let word = match status {
        Status::Ok => "OK",
        Status::Failed => "FAILED",
        Status::Unreadable(_) => "FAILED open or read",
        Status::Missing => "MISSING",
        Status::New => "NEW",
    };
    let name = check_name(path, style);
    out.record(&format!("{}{}: {word}\n", name.line_prefix(), name.text))
}

/// A path as compared between a list and a walk: its normal components joined by `/`
/// (so `./d/a` and `d/a` are the same file).
pub(crate) fn path_key(path: &Path) -> Vec<u8> {
    let mut key = Vec::new();
    for c in path.components() {
        if matches!(c, std::path::Component::CurDir) {
            continue;
        }
        if !key.is_empty() && !key.ends_with(b"/") {
            key.push(b'/');
        }
        key.extend_from_slice(crate::walk::path_bytes(c.as_os_str().as_ref()));
    }
    key
}

/// The closing warnings about files: missing and new (-r), unreadable, mismatched.
pub(crate) fn warn_files(
    missing: u64,
    new: u64,
    unreadable: u64,
    mismatched: u64,
    out: &mut Out,
) -> Result<(), Failure> {
    let plural = |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    if missing > 0 {
        out.warn(format_args!("WARNING: {missing} {} missing", plural(missing, "listed file is", "listed files are")))?;
    }
    if new > 0 {
        out.warn(format_args!("WARNING: {new} {} not in the list (NEW)", plural(new, "file is", "files are")))?;
    }
    if unreadable > 0 {
        let what = plural(unreadable, "listed file", "listed files");
        out.warn(format_args!("WARNING: {unreadable} {what} could not be read"))?;
    }
    if mismatched > 0 {
        let what = plural(mismatched, "computed checksum", "computed checksums");
        out.warn(format_args!("WARNING: {mismatched} {what} did NOT match"))?;
    }
    Ok(())
}

/// Lines read and planned before their files are hashed in parallel: bounds memory
/// however long the manifest.
const BATCH_LINES: usize = 8192;

/// Counts for one manifest.
#[derive(Debug, Default)]
struct Tally {
    properly_formatted: u64,
    misformatted: u64,
    unreadable: u64,
    mismatched: u64,
    /// Files that were hashed (matched or not), for --ignore-missing.
    verified: u64,
    /// GNU-style lines (no algorithm named) that were hashed, and those that mismatched.
    gnu_verified: u64,
    gnu_mismatched: u64,
    /// The first GNU-style line that did not match: its path and expected hex.
    first_gnu_mismatch: Option<(PathBuf, Vec<u8>)>,
    /// -r: listed files that are gone, files under the root the list lacks.
    missing: u64,
    new: u64,
    /// -r: the listed paths ([`path_key`]).
    listed: std::collections::HashSet<Vec<u8>>,
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

    /// The index in `built` of the hasher for `algorithm`, built on first use.
    fn get(&mut self, algorithm: &str) -> Result<usize, Failure> {
        let found = self.built.iter().position(|h| h.algorithm().eq_ignore_ascii_case(algorithm));
        Ok(match found {
            Some(i) => i,
            None => {
                let hasher = self.args.hasher(algorithm, &self.opts)?;
                self.built.push(hasher);
                self.built.len() - 1
            }
        })
    }
}

/// What to do with one line.
#[derive(Debug)]
enum Plan {
    /// A comment.
    Skip,
    /// An improperly formatted line, with its number.
    Misformatted(u64),
    /// A file (or tree) to hash and compare.
    Verify(Verify),
}

#[derive(Debug)]
struct Verify {
    path: PathBuf,
    /// Index of the hasher; `None` for a tree line.
    hasher: Option<usize>,
    len: usize,
    hex: Vec<u8>,
    /// The line named no algorithm.
    gnu: bool,
    /// The line names standard input while standard input is the manifest.
    stdin_conflict: bool,
}

#[derive(Debug)]
struct Checker<'a> {
    args: &'a CheckArgs,
    hashers: Hashers<'a>,
    pool: Pool,
    walk: WalkOptions,
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
        let mut line_number = 0u64;
        let progress = Progress::new(0, 0, self.args.progress.mode());
        let mut at_end = false;
        while !at_end && !read_failed {
            let mut plans = Vec::new();
            while plans.len() < BATCH_LINES {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) => {
                        at_end = true;
                        break;
                    }
                    Ok(_) => {
                        line_number += 1;
                        plans.push(self.plan(&line, line_number, from_stdin)?);
                    }
                    Err(e) => {
                        out.warn(format_args!("{shown}: {}", io_error_text(&e)))?;
                        read_failed = true;
                        break;
                    }
                }
            }
            let files = plans.iter().filter(|p| matches!(p, Plan::Verify(_))).count() as u64;
            progress.add_work(files, if progress.drawable() { planned_bytes(&plans) } else { 0 });
            self.verify_batch(&plans, &shown, &mut tally, &progress, out)?;
        }
        progress.finish();
        if self.args.recursive && !read_failed {
            self.report_new(&mut tally, out)?;
        }
        self.summarize(&shown, &tally, read_failed, out)?;

        let nothing_verified = self.args.ignore_missing && tally.verified == 0 && tally.properly_formatted > 0;
        Ok(!read_failed
            && tally.properly_formatted > 0
            && !nothing_verified
            && tally.mismatched == 0
            && tally.unreadable == 0
            && tally.missing == 0
            && tally.new == 0
            && !(self.args.strict && tally.misformatted > 0))
    }

    /// -r over a checksum list: the files under `--root` that no line named.
    fn report_new(&self, tally: &mut Tally, out: &mut Out) -> Result<(), Failure> {
        let Some(root) = &self.args.root else { return Ok(()) };
        for entry in crate::walk::walk(root, &self.walk, false) {
            if matches!(entry.kind, crate::walk::Kind::File) && !tally.listed.contains(&path_key(&entry.path)) {
                tally.new += 1;
                if !self.args.status {
                    record_status(out, self.args.json, &entry.path, Style::of(self.default_style()), Status::New)?;
                }
            }
        }
        Ok(())
    }

    /// The naming style of lines that name no algorithm.
    fn default_style(&self) -> &'static registry::Algorithm {
        registry::find(self.default_algorithm()).unwrap_or(registry::REGISTRY[0])
    }

    /// Parses one line and picks its hasher.
    fn plan(&mut self, line: &[u8], number: u64, stdin_is_manifest: bool) -> Result<Plan, Failure> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"#") {
            return Ok(Plan::Skip);
        }
        let Some(entry) = parse_line(line) else {
            return Ok(Plan::Misformatted(number));
        };
        let len = entry.hex.len() / 2;
        let is_tree = entry.label.is_some_and(|l| l == tree::LABEL.as_bytes()) && self.args.algorithm.is_none();
        let hasher = if is_tree {
            if len != tree::DIGEST_LEN {
                return Ok(Plan::Misformatted(number));
            }
            None
        } else {
            let Some(algorithm) = self.algorithm_of(&entry) else {
                return Ok(Plan::Misformatted(number));
            };
            let index = self.hashers.get(algorithm)?;
            let hasher = &self.hashers.built[index];
            let len_ok = len as u64 <= MAX_OUTPUT_LEN && (hasher.is_xof() || len == hasher.default_output_len());
            if !len_ok {
                return Ok(Plan::Misformatted(number));
            }
            Some(index)
        };
        let Some(path) = path_from_bytes(entry.name) else {
            return Ok(Plan::Misformatted(number));
        };
        let stdin_conflict = stdin_is_manifest && hashing::is_stdin(&path);
        Ok(Plan::Verify(Verify {
            path,
            hasher,
            len,
            hex: entry.hex.to_vec(),
            gnu: entry.label.is_none(),
            stdin_conflict,
        }))
    }

    /// Hashes a batch's files in parallel and reports them in the manifest's order.
    fn verify_batch(
        &mut self,
        plans: &[Plan],
        manifest: &str,
        tally: &mut Tally,
        progress: &Progress,
        out: &mut Out,
    ) -> Result<(), Failure> {
        let built = &self.hashers.built;
        let (args, walk, pool) = (self.args, &self.walk, &self.pool);
        pool.ordered(
            plans,
            |plan| match plan {
                Plan::Verify(v) => Some(compute(v, built, args, walk, pool)),
                _ => None,
            },
            |plan, result| {
                match (plan, result) {
                    (Plan::Verify(v), Some(result)) => {
                        let size = result.as_ref().map_or(0, |(_, size)| *size);
                        progress.inc(size);
                        report(v, result, built, args, tally, out)?;
                    }
                    (Plan::Misformatted(number), _) => {
                        tally.misformatted += 1;
                        if args.warn {
                            out.warn(format_args!("{manifest}: {number}: improperly formatted checksum line"))?;
                        }
                    }
                    _ => {}
                }
                Ok(())
            },
        )
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
        if self.args.ignore_missing && tally.verified == 0 {
            out.warn(format_args!("{manifest}: no file was verified"))?;
        }
        if self.args.status {
            return Ok(());
        }
        if tally.misformatted > 0 {
            let n = tally.misformatted;
            let what = if n == 1 { "line is" } else { "lines are" };
            out.warn(format_args!("WARNING: {n} {what} improperly formatted"))?;
        }
        warn_files(tally.missing, tally.new, tally.unreadable, tally.mismatched, out)?;
        self.hint(tally, out)
    }

    /// When every GNU-style line failed under the default algorithm, says which `-a`
    /// would verify the first of them, if one does.
    fn hint(&self, tally: &Tally, out: &mut Out) -> Result<(), Failure> {
        let Some((path, hex)) = &tally.first_gnu_mismatch else { return Ok(()) };
        if self.args.algorithm.is_some() || tally.gnu_mismatched != tally.gnu_verified {
            return Ok(());
        }
        let default = self.default_algorithm();
        let len = hex.len() / 2;
        let candidates = registry::REGISTRY
            .iter()
            .filter(|a| !a.is_named(default) && a.digest_len == len && !matches!(a.key, registry::KeyUse::Required(_)));
        for algorithm in candidates {
            let Ok(hasher) = AnyHasher::new(algorithm.name, &HashOptions::default()) else { continue };
            let Ok(digest) = hashing::hash_input(path, &hasher, Some(len), self.args.hash.no_mmap) else { continue };
            let matches = |d: &[u8]| simdcrypt::to_hex(d).as_bytes().eq_ignore_ascii_case(hex);
            let reversed: Vec<u8> = digest.iter().rev().copied().collect();
            let option = if matches(&digest) {
                ""
            } else if algorithm.printed_reversed && matches(&reversed) {
                " --gost-reverse"
            } else {
                continue;
            };
            return out.warn(format_args!(
                "every checksum failed as {default}, but they are {} digests: try `check -a {}{option}`",
                algorithm.name, algorithm.name
            ));
        }
        Ok(())
    }
}

/// The total size of a batch's files, for the progress bar.
fn planned_bytes(plans: &[Plan]) -> u64 {
    plans
        .iter()
        .map(|p| match p {
            Plan::Verify(v) if v.hasher.is_some() && !hashing::is_stdin(&v.path) => {
                std::fs::metadata(&v.path).map_or(0, |m| m.len())
            }
            _ => 0,
        })
        .sum()
}

/// The digest of one line's file or tree as printed, and the bytes hashed.
fn compute(
    v: &Verify,
    built: &[AnyHasher],
    args: &CheckArgs,
    walk: &WalkOptions,
    pool: &Pool,
) -> io::Result<(Vec<u8>, u64)> {
    if v.stdin_conflict {
        return Err(io::Error::other("standard input is the manifest being read"));
    }
    match v.hasher {
        None => {
            let opts = HashOptions { threads: args.hash.threads, ..HashOptions::default() };
            match tree::digest(&v.path, walk, &opts, pool, args.hash.no_mmap) {
                Ok(d) => Ok((d.to_vec(), 0)),
                Err(errors) => {
                    let n = errors.len();
                    let (path, e) =
                        errors.into_iter().next().unwrap_or_else(|| (v.path.clone(), io::Error::other("?")));
                    let more = if n > 1 { format!(" (and {} more)", n - 1) } else { String::new() };
                    let text = format!("{}: {}{more}", path.to_string_lossy(), io_error_text(&e));
                    // The directory itself is named by the caller's message.
                    let text = if path == v.path { io_error_text(&e) } else { text };
                    Err(io::Error::new(e.kind(), text))
                }
            }
        }
        Some(index) => {
            let hasher = &built[index];
            let d = hashing::hash_all(&v.path, std::slice::from_ref(hasher), Some(v.len), args.hash.no_mmap)?;
            let digest = d.digests.into_iter().next().unwrap_or_default();
            Ok((args.hash.present(hasher, digest.into()).into_owned(), d.size))
        }
    }
}

/// Prints one line's result and counts it.
fn report(
    v: &Verify,
    result: io::Result<(Vec<u8>, u64)>,
    built: &[AnyHasher],
    args: &CheckArgs,
    tally: &mut Tally,
    out: &mut Out,
) -> Result<(), Failure> {
    tally.properly_formatted += 1;
    if args.ignore_missing && matches!(&result, Err(e) if e.kind() == io::ErrorKind::NotFound) {
        return Ok(());
    }
    let style = match v.hasher {
        Some(index) => Style::of(built[index].descriptor()),
        None => Style::B3sum,
    };
    if args.recursive {
        tally.listed.insert(path_key(&v.path));
    }
    let quiet = args.status;
    let json = args.json;
    match result {
        Err(e) if args.recursive && e.kind() == io::ErrorKind::NotFound => {
            tally.missing += 1;
            if !quiet {
                record_status(out, json, &v.path, style, Status::Missing)?;
            }
        }
        Err(e) => {
            tally.unreadable += 1;
            let text = io_error_text(&e);
            out.warn(format_args!("{}: {text}", v.path.to_string_lossy()))?;
            if !quiet {
                record_status(out, json, &v.path, style, Status::Unreadable(&text))?;
            }
        }
        Ok((digest, _)) => {
            tally.verified += 1;
            tally.gnu_verified += u64::from(v.gnu);
            if simdcrypt::to_hex(&digest).as_bytes().eq_ignore_ascii_case(&v.hex) {
                if !quiet && !args.quiet {
                    record_status(out, json, &v.path, style, Status::Ok)?;
                }
            } else {
                tally.mismatched += 1;
                if v.gnu {
                    tally.gnu_mismatched += 1;
                    if tally.first_gnu_mismatch.is_none() {
                        tally.first_gnu_mismatch = Some((v.path.clone(), v.hex.clone()));
                    }
                }
                if !quiet {
                    record_status(out, json, &v.path, style, Status::Failed)?;
                }
            }
        }
    }
    Ok(())
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

    proptest::proptest! {
        /// Every line `sum` can print (GNU or BSD, any label of the registry or the tree
        /// label, any name, escaped as `sum` escapes it) parses back to its parts.
        #[test]
        fn printed_lines_parse_back(
            name in "(\\PC|[\\\\\n\r() =*])(\\PC|[\\\\\n\r() =*]){0,39}",
            digest in proptest::collection::vec(proptest::num::u8::ANY, 1..80),
            label_index in 0usize..20,
            bsd in proptest::bool::ANY,
        ) {
            let labels: Vec<&str> = registry::REGISTRY.iter().map(|a| a.bsd_label).chain([tree::LABEL]).collect();
            let label = labels[label_index % labels.len()];
            let shown = crate::escape::escape(&name);
            let hex = simdcrypt::to_hex(&digest);
            let line = if bsd {
                format!("{}{label} ({}) = {hex}", shown.line_prefix(), shown.text)
            } else {
                format!("{}{hex}  {}", shown.line_prefix(), shown.text)
            };
            let entry = parse_line(line.as_bytes()).expect("a printed line parses");
            proptest::prop_assert_eq!(entry.hex, hex.as_bytes());
            proptest::prop_assert_eq!(entry.name, name.as_bytes().to_vec());
            proptest::prop_assert_eq!(entry.label, bsd.then_some(label.as_bytes()));
        }

        /// Arbitrary and mutated lines never panic the parser, and what it accepts has an
        /// even, non-empty run of hex digits and a name.
        #[test]
        fn arbitrary_lines_do_not_panic(line in proptest::collection::vec(proptest::num::u8::ANY, 0..120)) {
            if let Some(entry) = parse_line(&line) {
                proptest::prop_assert!(!entry.hex.is_empty() && entry.hex.len() % 2 == 0);
                proptest::prop_assert!(entry.hex.iter().all(u8::is_ascii_hexdigit));
                proptest::prop_assert!(!entry.name.is_empty());
            }
        }
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
