//! The manifest file format, version 1 (docs/manifest-format.md): JSON lines. The first
//! line is the [`Header`], then one line per file in the byte order of the paths, then an
//! end line with the number of entries and the BLAKE3 digest of every byte before it.
//!
//! Reading never trusts the file: each line is parsed strictly (unknown or missing fields,
//! bad hex, digests of the wrong length, paths that are absolute, empty or climb with `..`,
//! entries out of order are errors), the end line must be there (else the file was
//! truncated) and its checksum must match (else it was altered), and nothing may follow
//! it. Every error names its line. [`Manifest::parse`] takes arbitrary bytes and never
//! panics (property-tested here, fuzzed in `fuzz/`).

use std::borrow::Cow;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Entry, FileStat, Header, ManifestError, Mode, Settings, VERSION};
use crate::walk::{path_bytes, path_from_bytes};

/// The value of the header's `format` field.
pub const FORMAT_NAME: &str = "simdcrypt-manifest";

/// The longest line accepted, so that a damaged file cannot make the reader hold an
/// unbounded line: paths are at most a few KiB, digests at most [`MAX_DIGEST_LEN`].
const MAX_LINE_LEN: usize = 1 << 20;

/// The longest digest a manifest may hold, in bytes (its line must fit the 1 MiB line limit).
pub const MAX_DIGEST_LEN: usize = 64 * 1024;

/// A whole manifest in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The first line.
    pub header: Header,
    /// Every file, sorted by the bytes of their paths.
    pub entries: Vec<Entry>,
}

impl Manifest {
    /// Parses a whole manifest from its bytes. Any input gives a result, never a panic.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, ManifestError> {
        Self::from_reader(bytes)
    }

    /// Reads a whole manifest.
    pub fn from_reader(reader: impl BufRead) -> Result<Manifest, ManifestError> {
        let mut r = Reader::new(reader)?;
        let mut entries = Vec::new();
        while let Some(e) = r.next_entry()? {
            entries.push(e);
        }
        Ok(Manifest { header: r.header().clone(), entries })
    }

    /// The entry for `rel`, found by binary search over the sorted entries.
    pub fn get(&self, rel: &Path) -> Option<&Entry> {
        let key = path_bytes(rel);
        self.entries.binary_search_by(|e| path_bytes(&e.path).cmp(key)).ok().map(|i| &self.entries[i])
    }

    /// Writes the manifest (its entries must be sorted, each path once).
    pub fn write_to(&self, out: impl Write) -> io::Result<()> {
        let mut w = Writer::new(out, &self.header)?;
        for e in &self.entries {
            w.entry(e)?;
        }
        w.finish().map(drop)
    }
}

/// Reads a manifest line by line, checking each, so that a large one need not be held
/// whole.
#[derive(Debug)]
pub struct Reader<R> {
    input: R,
    header: Header,
    line: u64,
    digest_lens: Vec<usize>,
    checksum: Checksum,
    entries: u64,
    last_path: Option<Vec<u8>>,
    ended: bool,
    buf: Vec<u8>,
}

/// The header's JSON form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderLine {
    format: String,
    version: u64,
    written_ns: i64,
    #[serde(default)]
    root: Option<String>,
    #[serde(default)]
    root_hex: Option<String>,
    algorithms: Vec<String>,
    length: Option<u64>,
    mode: String,
    #[serde(default)]
    key_check: Option<String>,
    #[serde(default)]
    context: Option<String>,
}

/// Only the fields that tell a manifest header from anything else.
#[derive(Deserialize)]
struct Magic {
    format: String,
    version: u64,
}

/// An entry's JSON form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryLine<'a> {
    #[serde(default, borrow)]
    path: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    path_hex: Option<Cow<'a, str>>,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    ino: u64,
    dev: u64,
    #[serde(borrow)]
    digests: Vec<Cow<'a, str>>,
}

/// The end line's JSON form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndLine {
    end: End,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct End {
    entries: u64,
    blake3: String,
}

impl<R: BufRead> Reader<R> {
    /// Reads and checks the header line.
    pub fn new(mut input: R) -> Result<Self, ManifestError> {
        let mut buf = Vec::new();
        let not_manifest = |message: &str| ManifestError { line: 1, message: message.into(), not_a_manifest: true };
        read_line(&mut input, &mut buf, 1)?;
        if buf.is_empty() {
            return Err(not_manifest("empty file: not a simdcrypt manifest"));
        }
        let body = line_body(&buf, 1)?;
        let magic: Magic = serde_json::from_slice(body)
            .ok()
            .filter(|m: &Magic| m.format == FORMAT_NAME)
            .ok_or_else(|| not_manifest("not a simdcrypt manifest (its first line is not a manifest header)"))?;
        if magic.version > VERSION {
            return Err(ManifestError::at(
                1,
                format!("manifest format version {} is newer than this simdcrypt reads ({VERSION})", magic.version),
            ));
        }
        if magic.version != VERSION {
            return Err(ManifestError::at(1, format!("unknown manifest format version {}", magic.version)));
        }
        let h: HeaderLine = serde_json::from_slice(body).map_err(|e| ManifestError::at(1, json_error(&e)))?;
        let header = header_from(h)?;
        let digest_lens =
            (0..header.settings.algorithms.len()).map(|i| header.settings.digest_len(i).unwrap_or(0)).collect();
        let mut checksum = Checksum::new();
        checksum.update(&buf);
        Ok(Reader { input, header, line: 1, digest_lens, checksum, entries: 0, last_path: None, ended: false, buf })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The next entry, or `None` after the end line was read and checked.
    pub fn next_entry(&mut self) -> Result<Option<Entry>, ManifestError> {
        if self.ended {
            return Ok(None);
        }
        self.line += 1;
        let line = self.line;
        read_line(&mut self.input, &mut self.buf, line)?;
        if self.buf.is_empty() {
            return Err(ManifestError::at(line, "the manifest ends without its end line: it was truncated"));
        }
        let body = line_body(&self.buf, line)?;
        let entry = match serde_json::from_slice::<EntryLine<'_>>(body) {
            Ok(e) => e,
            Err(entry_err) => {
                let Ok(end) = serde_json::from_slice::<EndLine>(body) else {
                    return Err(ManifestError::at(line, json_error(&entry_err)));
                };
                self.end(end.end, line)?;
                return Ok(None);
            }
        };
        let entry = entry_from(entry, &self.digest_lens, line)?;
        let key = path_bytes(&entry.path);
        if self.last_path.as_deref().is_some_and(|last| last >= key) {
            return Err(ManifestError::at(line, "entries out of order or repeated (paths must increase byte by byte)"));
        }
        let last = self.last_path.get_or_insert_with(Vec::new);
        last.clear();
        last.extend_from_slice(key);
        self.checksum.update(&self.buf);
        self.entries += 1;
        Ok(Some(entry))
    }

    fn end(&mut self, end: End, line: u64) -> Result<(), ManifestError> {
        if end.entries != self.entries {
            return Err(ManifestError::at(
                line,
                format!("the end line counts {} entries, the manifest has {}", end.entries, self.entries),
            ));
        }
        if !self.checksum.hex().eq_ignore_ascii_case(&end.blake3) {
            return Err(ManifestError::at(
                line,
                "the checksum of the lines before the end line does not match: the manifest was altered or damaged",
            ));
        }
        read_line(&mut self.input, &mut self.buf, line + 1)?;
        if !self.buf.is_empty() {
            return Err(ManifestError::at(line + 1, "data after the end line"));
        }
        self.ended = true;
        Ok(())
    }
}

/// Reads one line (with its `\n`, if any) into `buf`, at most [`MAX_LINE_LEN`] bytes.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, line: u64) -> Result<(), ManifestError> {
    buf.clear();
    let limit = MAX_LINE_LEN as u64 + 1;
    match io::Read::take(&mut *input, limit).read_until(b'\n', buf) {
        Ok(_) if buf.len() > MAX_LINE_LEN => {
            Err(ManifestError::at(line, format!("line longer than {MAX_LINE_LEN} bytes")))
        }
        Ok(_) => Ok(()),
        Err(e) => Err(ManifestError::at(line, format!("read error: {e}"))),
    }
}

/// A line without its `\n`; a line without one is the end of a truncated file.
fn line_body(buf: &[u8], line: u64) -> Result<&[u8], ManifestError> {
    buf.strip_suffix(b"\n")
        .ok_or_else(|| ManifestError::at(line, "the line is cut short (no newline): the manifest was truncated"))
}

fn json_error(e: &serde_json::Error) -> String {
    // serde_json's own position is the column within the line.
    format!("malformed: {e}")
}

fn header_from(h: HeaderLine) -> Result<Header, ManifestError> {
    let bad = |m: String| ManifestError::at(1, m);
    if h.format != FORMAT_NAME || h.version != VERSION {
        return Err(bad(format!(
            "format {:?} version {} is not {FORMAT_NAME:?} version {VERSION}",
            h.format, h.version
        )));
    }
    let root = match (h.root, h.root_hex) {
        (Some(s), None) => PathBuf::from(s),
        (None, Some(hex)) => {
            let bytes = from_hex(&hex).ok_or_else(|| bad("root_hex is not hex".into()))?;
            path_from_bytes(bytes).ok_or_else(|| bad("root_hex is not a path on this system".into()))?
        }
        _ => return Err(bad("the header needs exactly one of root and root_hex".into())),
    };
    if h.algorithms.is_empty() {
        return Err(bad("the header names no algorithm".into()));
    }
    let mut algorithms: Vec<String> = Vec::new();
    for name in &h.algorithms {
        let a = crate::registry::find(name).map_err(|_| bad(format!("unknown algorithm {name:?}")))?;
        if a.name != name {
            return Err(bad(format!("algorithm {name:?} is not written by its canonical name {:?}", a.name)));
        }
        if algorithms.contains(name) {
            return Err(bad(format!("algorithm {name:?} is listed twice")));
        }
        algorithms.push(name.clone());
    }
    let length = match h.length {
        None => None,
        Some(n) if n as usize <= MAX_DIGEST_LEN && n > 0 => Some(n as usize),
        Some(n) => return Err(bad(format!("length {n} is outside 1..={MAX_DIGEST_LEN}"))),
    };
    if let Some(len) = length {
        for name in &algorithms {
            let a = crate::registry::find(name).map_err(|_| bad(format!("unknown algorithm {name:?}")))?;
            if !a.xof && a.digest_len != len {
                return Err(bad(format!("{name} has {}-byte digests, not {len}", a.digest_len)));
            }
        }
    }
    let mode = match (h.mode.as_str(), h.key_check, h.context) {
        ("hash", None, None) => Mode::Hash,
        ("keyed", Some(check), None) if check.len() == 32 && from_hex(&check).is_some() => {
            Mode::Keyed { key_check: check.to_ascii_lowercase() }
        }
        ("derive_key", None, Some(context)) => Mode::DeriveKey { context },
        (mode, ..) => {
            return Err(bad(format!(
                "mode {mode:?} with these fields is not one of hash, keyed (with a 32-digit key_check) or \
                 derive_key (with a context)"
            )))
        }
    };
    Ok(Header { written_ns: h.written_ns, root, settings: Settings { algorithms, length, mode } })
}

fn entry_from(e: EntryLine<'_>, digest_lens: &[usize], line: u64) -> Result<Entry, ManifestError> {
    let bad = |m: &str| ManifestError::at(line, m);
    let bytes = match (e.path, e.path_hex) {
        (Some(s), None) => s.into_owned().into_bytes(),
        (None, Some(hex)) => from_hex(&hex).ok_or_else(|| bad("path_hex is not hex"))?,
        _ => return Err(bad("an entry needs exactly one of path and path_hex")),
    };
    let path = path_from_bytes(bytes).ok_or_else(|| bad("the path is not a path on this system"))?;
    check_relative(&path).map_err(|m| bad(&m))?;
    if e.digests.len() != digest_lens.len() {
        return Err(ManifestError::at(
            line,
            format!("{} digests, the header names {} algorithms", e.digests.len(), digest_lens.len()),
        ));
    }
    let mut digests = Vec::with_capacity(digest_lens.len());
    for (hex, &len) in e.digests.iter().zip(digest_lens) {
        let d = from_hex(hex).ok_or_else(|| bad("a digest is not hex"))?;
        if d.len() != len {
            return Err(ManifestError::at(line, format!("a digest of {} bytes where {len} are expected", d.len())));
        }
        digests.push(d);
    }
    let stat = FileStat { size: e.size, mtime_ns: e.mtime_ns, ctime_ns: e.ctime_ns, ino: e.ino, dev: e.dev };
    Ok(Entry { path, stat, digests })
}

/// A path a manifest may hold: relative, non-empty, normal components only (no `.`, `..`,
/// root, repeated or trailing separators), no NUL, so that it always names something
/// inside the root and writes back the same bytes.
pub fn check_relative(path: &Path) -> Result<(), String> {
    let bytes = path_bytes(path);
    if bytes.is_empty() {
        return Err("empty path".into());
    }
    if bytes.contains(&0) {
        return Err("a path with a NUL byte".into());
    }
    check_components(path, bytes)
}

const NOT_RELATIVE: &str = "the path must be relative to the root, with no '.', '..' or leading '/'";
const NOT_CANONICAL: &str = "the path has repeated, trailing or non-'/' separators or '.' components";

/// Unix paths are bytes: each `/`-separated part must be a name (not empty, `.` or `..`).
/// Checked on the bytes, without building anything: a manifest holds one path per file.
#[cfg(unix)]
fn check_components(_path: &Path, bytes: &[u8]) -> Result<(), String> {
    for (i, part) in bytes.split(|&b| b == b'/').enumerate() {
        match part {
            b".." => return Err(NOT_RELATIVE.into()),
            b"" | b"." if i == 0 => return Err(NOT_RELATIVE.into()),
            b"" | b"." => return Err(NOT_CANONICAL.into()),
            _ => {}
        }
    }
    Ok(())
}

/// Elsewhere the path's own components decide (they know the OS's separators and
/// prefixes), and joining them with `/` must give back the same bytes.
#[cfg(not(unix))]
fn check_components(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut rebuilt: Vec<u8> = Vec::with_capacity(bytes.len());
    for c in path.components() {
        let std::path::Component::Normal(name) = c else {
            return Err(NOT_RELATIVE.into());
        };
        if !rebuilt.is_empty() {
            rebuilt.push(b'/');
        }
        rebuilt.extend_from_slice(path_bytes(Path::new(name)));
    }
    if rebuilt != bytes {
        return Err(NOT_CANONICAL.into());
    }
    Ok(())
}

/// The BLAKE3 checksum of the end line, fed line by line but hashed in large pieces: a
/// few hundred bytes at a time would leave the SIMD kernels, which hash several 1 KiB
/// chunks at once, with one chunk to work on.
#[derive(Debug)]
struct Checksum {
    hasher: crate::blake3::Hasher,
    pending: Vec<u8>,
}

impl Checksum {
    const BATCH: usize = 64 * 1024;

    fn new() -> Self {
        Checksum { hasher: crate::blake3::Hasher::new(), pending: Vec::with_capacity(Self::BATCH) }
    }

    fn update(&mut self, bytes: &[u8]) {
        if self.pending.len() + bytes.len() > Self::BATCH {
            self.hasher.update(&self.pending);
            self.pending.clear();
        }
        if bytes.len() >= Self::BATCH {
            self.hasher.update(bytes);
        } else {
            self.pending.extend_from_slice(bytes);
        }
    }

    fn hex(&mut self) -> String {
        self.hasher.update(&self.pending);
        self.pending.clear();
        crate::to_hex(&self.hasher.finalize())
    }
}

/// Appends the lower-case hex of `bytes`.
fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.extend_from_slice(&[DIGITS[(b >> 4) as usize], DIGITS[(b & 15) as usize]]);
    }
}

/// Lower- or upper-case hex to bytes.
fn from_hex(hex: &str) -> Option<Vec<u8>> {
    let hex = hex.as_bytes();
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    hex.chunks_exact(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}

/// Writes a manifest: the header first, then [`Writer::entry`] for each file in the byte
/// order of their paths, then [`Writer::finish`] for the end line.
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: BufWriter<W>,
    checksum: Checksum,
    entries: u64,
    algorithms: usize,
    last_path: Option<Vec<u8>>,
    line: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// Starts a manifest with `header`.
    pub fn new(out: W, header: &Header) -> io::Result<Self> {
        let s = &header.settings;
        let mut obj = serde_json::Map::new();
        obj.insert("format".into(), FORMAT_NAME.into());
        obj.insert("version".into(), VERSION.into());
        obj.insert("written_ns".into(), header.written_ns.into());
        match header.root.to_str() {
            Some(root) => obj.insert("root".into(), root.into()),
            None => obj.insert("root_hex".into(), crate::to_hex(path_bytes(&header.root)).into()),
        };
        obj.insert("algorithms".into(), s.algorithms.clone().into());
        obj.insert("length".into(), s.length.map_or(serde_json::Value::Null, |l| (l as u64).into()));
        match &s.mode {
            Mode::Hash => obj.insert("mode".into(), "hash".into()),
            Mode::Keyed { key_check } => {
                obj.insert("key_check".into(), key_check.clone().into());
                obj.insert("mode".into(), "keyed".into())
            }
            Mode::DeriveKey { context } => {
                obj.insert("context".into(), context.clone().into());
                obj.insert("mode".into(), "derive_key".into())
            }
        };
        let mut w = Writer {
            out: BufWriter::with_capacity(256 * 1024, out),
            checksum: Checksum::new(),
            entries: 0,
            algorithms: s.algorithms.len(),
            last_path: None,
            line: Vec::new(),
        };
        let line = format!("{}\n", serde_json::Value::Object(obj));
        w.put(line.as_bytes())?;
        Ok(w)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.checksum.update(bytes);
        self.out.write_all(bytes)
    }

    /// Adds one file. Its path must follow the previous one's in byte order and be a
    /// relative path of normal components; it must have one digest per algorithm.
    pub fn entry(&mut self, e: &Entry) -> io::Result<()> {
        let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
        check_relative(&e.path).map_err(|m| invalid(format!("{}: {m}", e.path.to_string_lossy())))?;
        let key = path_bytes(&e.path);
        if self.last_path.as_deref().is_some_and(|last| last >= key) {
            return Err(invalid(format!("{}: manifest entries out of order", e.path.to_string_lossy())));
        }
        if e.digests.len() != self.algorithms {
            return Err(invalid(format!(
                "{}: {} digests for {} algorithms",
                e.path.to_string_lossy(),
                e.digests.len(),
                self.algorithms
            )));
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        match e.path.to_str() {
            Some(p) => {
                line.extend_from_slice(b"{\"path\":");
                serde_json::to_writer(&mut line, p)?;
            }
            None => {
                line.extend_from_slice(b"{\"path_hex\":\"");
                push_hex(&mut line, key);
                line.push(b'"');
            }
        }
        let st = &e.stat;
        write!(
            line,
            ",\"size\":{},\"mtime_ns\":{},\"ctime_ns\":{},\"ino\":{},\"dev\":{},\"digests\":[",
            st.size, st.mtime_ns, st.ctime_ns, st.ino, st.dev
        )?;
        for (i, d) in e.digests.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            line.push(b'"');
            push_hex(&mut line, d);
            line.push(b'"');
        }
        line.extend_from_slice(b"]}\n");
        let result = self.put(&line);
        self.line = line;
        result?;
        let last = self.last_path.get_or_insert_with(Vec::new);
        last.clear();
        last.extend_from_slice(key);
        self.entries += 1;
        Ok(())
    }

    /// Writes the end line and flushes; returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        let end = format!("{{\"end\":{{\"entries\":{},\"blake3\":\"{}\"}}}}\n", self.entries, self.checksum.hex());
        self.out.write_all(end.as_bytes())?;
        self.out.into_inner().map_err(|e| e.into_error())
    }
}
