//! The chunk manifest: one file's chunks as one line of JSON, what `simdcrypt chunks --json`
//! writes and `chunks --diff OLD.json NEW` reads back (format in docs/cli.md). The writer
//! and the reader live together so that what one writes the other reads; the reader is
//! also what a fuzz target and the property tests feed arbitrary bytes.
//!
//! ## What this file holds
//!
//! `chunk_manifest_json` (the writer, given the file's path fields by the caller),
//! `parse_chunk_manifest` (the reader, which checks that the chunks tile the file),
//! `chunker_manifest_value`, `ChunkManifest` and `ChunkManifestError`.

use std::fmt::{self, Write as _};

use serde_json::{Map, Value};

use super::{xet_file_hash, Chunk, ChunkDigest, ChunkOptions, Chunker};

/// A manifest as read back: the options its chunks were made with, the file's size, and
/// each chunk (the chunks follow each other from offset 0 and cover exactly `size` bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkManifest {
    /// The chunker and the chunk digest (threads: the default).
    pub options: ChunkOptions,
    /// The file's size in bytes.
    pub size: u64,
    /// The chunks, in order.
    pub chunks: Vec<Chunk>,
}

/// What is wrong with a manifest: the field (`chunks[3].length`, `chunker.name`, ...), or
/// none where the document as a whole is wrong, and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkManifestError {
    /// The field at fault, if one is.
    pub field: Option<String>,
    /// What is wrong with it, and what is expected.
    pub problem: String,
}

impl fmt::Display for ChunkManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{field}: {}", self.problem),
            None => f.write_str(&self.problem),
        }
    }
}

impl std::error::Error for ChunkManifestError {}

fn whole(problem: impl fmt::Display) -> ChunkManifestError {
    ChunkManifestError { field: None, problem: problem.to_string() }
}

fn bad(field: &str, problem: impl fmt::Display) -> ChunkManifestError {
    ChunkManifestError { field: Some(field.to_string()), problem: problem.to_string() }
}

/// The chunker as the manifest records it: `{"name", "min", "max"}`, and for FastCDC 2020
/// also `"avg"` and `"level"` (also the `chunker` of `chunks --diff --json`'s report).
pub fn chunker_manifest_value(chunker: &Chunker) -> Value {
    let mut obj = Map::new();
    obj.insert("name".into(), chunker.name().into());
    match chunker {
        Chunker::FastCdc2020(p) => {
            obj.insert("min".into(), p.min.into());
            obj.insert("avg".into(), p.avg.into());
            obj.insert("max".into(), p.max.into());
            obj.insert("level".into(), p.level.into());
        }
        other => {
            obj.insert("min".into(), other.min_len().into());
            obj.insert("max".into(), other.max_len().into());
        }
    }
    Value::Object(obj)
}

/// The manifest of a file cut into `chunks` with `opts`, as one JSON object (no newline):
/// `size`, `chunker`, `digest`, `xet_hash` (for Xet chunks with Xet digests) and the
/// caller's `fields` (the CLI's `path`, `path_hex`), in serde_json's order, then `"chunks":
/// [{"offset", "length", ["digest"]}, ...]` last (`digest` unless the chunk digest is
/// `none`).
pub fn chunk_manifest_json(fields: Map<String, Value>, opts: &ChunkOptions, chunks: &[Chunk]) -> String {
    let size = chunks.last().map_or(0, |c| c.offset + u64::from(c.len));
    let mut head = fields;
    head.insert("size".into(), size.into());
    head.insert("chunker".into(), chunker_manifest_value(&opts.chunker));
    head.insert("digest".into(), opts.digest.name().into());
    if matches!(opts.chunker, Chunker::Xet) && matches!(opts.digest, ChunkDigest::Xet) {
        head.insert("xet_hash".into(), xet_file_hash(chunks).to_hex().into());
    }
    // The head through serde_json, the chunks written directly: a large file has tens of
    // thousands of them.
    let head = Value::Object(head).to_string();
    let mut text = String::with_capacity(head.len() + chunks.len() * 110 + 16);
    text.push_str(&head[..head.len() - 1]);
    text.push_str(",\"chunks\":[");
    for (i, c) in chunks.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(text, "{sep}{{\"offset\":{},\"length\":{}", c.offset, c.len);
        if !matches!(opts.digest, ChunkDigest::None) {
            let _ = write!(text, ",\"digest\":\"{}\"", crate::to_hex(&c.digest));
        }
        text.push('}');
    }
    text.push_str("]}");
    text
}

/// A JSON value's kind, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A non-negative integer field of `obj`.
fn uint(obj: &Map<String, Value>, field: &str, key: &str) -> Result<u64, ChunkManifestError> {
    match obj.get(key) {
        None => Err(bad(field, "missing")),
        Some(v) => v.as_u64().ok_or_else(|| bad(field, format!("expected a non-negative integer, got {v}"))),
    }
}

/// A string field of `obj`.
fn string<'a>(obj: &'a Map<String, Value>, field: &str, key: &str) -> Result<&'a str, ChunkManifestError> {
    match obj.get(key) {
        None => Err(bad(field, "missing")),
        Some(v) => v.as_str().ok_or_else(|| bad(field, format!("expected a string, got {}", kind(v)))),
    }
}

/// A 32-bit size field of a chunker.
fn size_field(obj: &Map<String, Value>, key: &str) -> Result<u32, ChunkManifestError> {
    let field = format!("chunker.{key}");
    let n = uint(obj, &field, key)?;
    u32::try_from(n).map_err(|_| bad(&field, format!("{n} is larger than 2^32 - 1")))
}

/// 32 bytes from 64 hex digits.
fn digest_hex(s: &str) -> Option<[u8; 32]> {
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        *o = (hi * 16 + lo) as u8;
    }
    Some(out)
}

/// Reads one file's manifest (one JSON object, as [`chunk_manifest_json`] writes it, with
/// any other fields, such as the CLI's path, ignored) and checks it: a known chunker with
/// valid sizes, a digest other than `none`, and chunks that follow each other from offset
/// 0 with lengths of 1 to 2^32 - 1 bytes and 64-hex-digit digests, covering exactly `size`
/// bytes. Whitespace around the object is allowed; a second value is an error (a file of
/// several manifests holds one per line: pass one line).
pub fn parse_chunk_manifest(text: &str) -> Result<ChunkManifest, ChunkManifestError> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = match values.next() {
        None => return Err(whole("empty: expected a manifest from `simdcrypt chunks --json`")),
        Some(Err(e)) => return Err(whole(format!("not valid JSON: {e}"))),
        Some(Ok(v)) => v,
    };
    match values.next() {
        None => {}
        Some(Ok(_)) => {
            return Err(whole(
                "holds more than one manifest (one line per file); --diff compares one file: keep its line",
            ))
        }
        Some(Err(e)) => return Err(whole(format!("not valid JSON after the manifest: {e}"))),
    }
    let Value::Object(top) = value else {
        return Err(bad("the manifest", format!("expected a JSON object, got {}", kind(&value))));
    };
    let chunker = match top.get("chunker") {
        Some(Value::Object(c)) => c,
        Some(v) => return Err(bad("chunker", format!("expected an object, got {}", kind(v)))),
        None => return Err(bad("chunker", "missing")),
    };
    let name = string(chunker, "chunker.name", "name")?;
    let chunker = match Chunker::from_name(name).map_err(|e| bad("chunker.name", e))? {
        Chunker::FastCdc2020(_) => {
            let level = uint(chunker, "chunker.level", "level")?;
            let level = u8::try_from(level).map_err(|_| bad("chunker.level", format!("{level} is not 0 to 3")))?;
            Chunker::fastcdc2020(
                size_field(chunker, "min")?,
                size_field(chunker, "avg")?,
                size_field(chunker, "max")?,
                level,
            )
            .map_err(|e| bad("chunker", e))?
        }
        xet => xet,
    };
    let digest_name = string(&top, "digest", "digest")?;
    let digest = ChunkDigest::from_name(digest_name).map_err(|e| bad("digest", e))?;
    if matches!(digest, ChunkDigest::None) {
        return Err(bad("digest", "\"none\": the chunks have no digests, and --diff matches chunks by digest"));
    }
    let size = uint(&top, "size", "size")?;
    let list = match top.get("chunks") {
        Some(Value::Array(list)) => list,
        Some(v) => return Err(bad("chunks", format!("expected an array, got {}", kind(v)))),
        None => return Err(bad("chunks", "missing")),
    };
    let mut chunks = Vec::with_capacity(list.len());
    let mut end = 0u64;
    for (i, item) in list.iter().enumerate() {
        let Value::Object(c) = item else {
            return Err(bad(&format!("chunks[{i}]"), format!("expected an object, got {}", kind(item))));
        };
        let offset = uint(c, &format!("chunks[{i}].offset"), "offset")?;
        if offset != end {
            return Err(bad(
                &format!("chunks[{i}].offset"),
                format!("{offset}, expected {end} (chunks follow each other from offset 0)"),
            ));
        }
        let len = uint(c, &format!("chunks[{i}].length"), "length")?;
        let len = u32::try_from(len).ok().filter(|&l| l > 0).ok_or_else(|| {
            bad(&format!("chunks[{i}].length"), format!("{len} is not a chunk length (1 to 2^32 - 1)"))
        })?;
        let hex = string(c, &format!("chunks[{i}].digest"), "digest")?;
        let digest = digest_hex(hex)
            .ok_or_else(|| bad(&format!("chunks[{i}].digest"), format!("expected 64 hex digits, got {hex:?}")))?;
        chunks.push(Chunk { offset, len, digest });
        // Past 2^64 bytes would take 2^32 chunks of the largest length, more than memory
        // holds; checked all the same.
        end = end
            .checked_add(u64::from(len))
            .ok_or_else(|| bad(&format!("chunks[{i}].length"), "the chunks run past 2^64 bytes"))?;
    }
    if end != size {
        return Err(bad("size", format!("{size}, but the chunks cover {end} bytes")));
    }
    Ok(ChunkManifest { options: ChunkOptions::new(chunker, digest), size, chunks })
}
