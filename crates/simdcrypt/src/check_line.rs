//! Parsers of checksum manifest lines: the forms `simdcrypt check` reads (coreutils' GNU
//! style `HEX  NAME`, BSD/RHash style `LABEL (NAME) = HEX`) and b3sum's stricter rules.
//!
//! They live in the library, not in the CLI that uses them, so that the fuzz targets
//! (fuzz/) and any other front end reach the same code. Nothing here opens a file.
//!
//! ## What this file holds
//!
//! `parse_line` (GNU, BSD and RHash lines, leniently, as coreutils' `sha256sum -c`),
//! `parse_b3sum_line` (b3sum's rules and messages), `unescape` (names of escaped lines)

use std::path::PathBuf;

/// BLAKE3's default digest length, the only one b3sum checks.
const B3SUM_LEN: usize = crate::blake3::OUT_LEN;

/// One line of a coreutils-style manifest (GNU, BSD or RHash form), parsed.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The BSD-style label, if the line has one.
    pub label: Option<&'a [u8]>,
    /// The expected digest: an even number (at least 2) of hex digits, either case.
    pub hex: &'a [u8],
    /// The file name, unescaped.
    pub name: Vec<u8>,
}

/// Parses a line without its line ending, as `simdcrypt check` reads it: `HEX  NAME`,
/// `HEX *NAME` or `LABEL (NAME) = HEX`, optionally after blanks and a `\\` that marks an
/// escaped name. `None` if it is improperly formatted. The label is not looked up here
/// ([`crate::registry::by_bsd_label`] does that), nor is the hex length checked against an
/// algorithm.
pub fn parse_line(line: &[u8]) -> Option<Entry<'_>> {
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

/// Undoes the escaping of `simdcrypt sum` (and b3sum, coreutils) on a name read from an
/// escaped line (`\\` for a backslash, `\n`, `\r`). `None` when a backslash is
/// followed by anything but `\`, `n` or `r`, or ends the name.
pub fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        out.push(match bytes.next()? {
            b'\\' => b'\\',
            b'n' => b'\n',
            b'r' => b'\r',
            _ => return None,
        });
    }
    Some(out)
}

/// One valid line of a b3sum manifest.
#[derive(Debug, PartialEq, Eq)]
pub struct B3sumEntry {
    /// The name as the line spells it (escaped, with the leading backslash), for output.
    pub shown: String,
    /// The file to hash.
    pub path: PathBuf,
    /// The expected BLAKE3 digest.
    pub expected: [u8; B3SUM_LEN],
}

/// Parses one line of a b3sum manifest (its newline included or not) as `b3sum --check`
/// does, or says what is wrong with it in b3sum's words.
pub fn parse_b3sum_line(line: &[u8]) -> Result<B3sumEntry, &'static str> {
    let line = std::str::from_utf8(line).map_err(|_| "Invalid UTF-8 in check line")?;
    let line = line.trim_end_matches(['\r', '\n']);
    if line.is_empty() {
        return Err("Empty line");
    }
    let (escaped, body) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    // `HASH  NAME` splits at the first double space (names may contain one); the tagged
    // form at the last `) = ` (names may contain that too).
    let (hex, name) = if let Some((hex, name)) = body.split_once("  ") {
        (hex, name)
    } else if let Some((name, hex)) = body.strip_prefix("BLAKE3 (").and_then(|t| t.rsplit_once(") = ")) {
        (hex, name)
    } else {
        return Err("Invalid check line format");
    };
    if hex.len() != 2 * B3SUM_LEN {
        return Err("Invalid hash length");
    }
    let mut expected = [0u8; B3SUM_LEN];
    for (byte, pair) in expected.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = (lower_hex_digit(pair[0])? << 4) | lower_hex_digit(pair[1])?;
    }
    let path = if escaped { unescape_b3sum(name)? } else { name.to_string() };
    if path.is_empty() {
        return Err("empty file path");
    }
    if path.contains('\0') {
        return Err("Null character in path");
    }
    if path.contains('\u{FFFD}') {
        return Err("Unicode replacement character in path");
    }
    let shown = if escaped { format!("\\{name}") } else { name.to_string() };
    Ok(B3sumEntry { shown, path: PathBuf::from(path), expected })
}

/// A lowercase hex digit's value (b3sum prints lowercase and accepts nothing else).
fn lower_hex_digit(c: u8) -> Result<u8, &'static str> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err("Invalid hex"),
    }
}

/// Undoes b3sum's name escaping: `\n`, `\r` and `\\` only.
fn unescape_b3sum(name: &str) -> Result<String, &'static str> {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            _ => return Err("Invalid backslash escape"),
        }
    }
    Ok(out)
}
