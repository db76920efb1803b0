//! Expected `simdcrypt sum` output for BLAKE3, computed with the reference `blake3` crate
//! and formatted here, independently of the CLI's code: shared by cli.rs and cli_check.rs.
#![allow(dead_code)]

use super::common::*;

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The BLAKE3 modes, computed with the reference `blake3` crate.
#[derive(Clone, Copy)]
pub enum Mode<'a> {
    Hash,
    Keyed(&'a [u8; 32]),
    DeriveKey(&'a str),
}

pub fn reference(mode: Mode<'_>, input: &[u8], len: usize) -> String {
    let mut hasher = match mode {
        Mode::Hash => blake3::Hasher::new(),
        Mode::Keyed(key) => blake3::Hasher::new_keyed(key),
        Mode::DeriveKey(context) => blake3::Hasher::new_derive_key(context),
    };
    hasher.update(input);
    let mut out = vec![0u8; len];
    hasher.finalize_xof().fill(&mut out);
    hex(&out)
}

/// A checksum line as b3sum formats it: names with `\`, newline or CR are escaped and the
/// line then starts with a backslash.
pub fn line(hex: &str, name: &str, tag: bool) -> String {
    let needs_escape = name.contains(['\\', '\n', '\r']);
    let shown = name.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r");
    let lead = if needs_escape { "\\" } else { "" };
    if tag {
        format!("{lead}BLAKE3 ({shown}) = {hex}\n")
    } else {
        format!("{lead}{hex}  {shown}\n")
    }
}

pub const SIZES: &[usize] = &[0, 1, 63, 64, 65, 1000, 1024, 1025, 4097, 31 * 1024 + 7, (1 << 20) + 1];

/// A directory holding one file per size in `SIZES`, named `f<size>`.
pub fn sized_files(tag: &str) -> (TempDir, Vec<(String, Vec<u8>)>) {
    let dir = TempDir::new(tag);
    let files: Vec<(String, Vec<u8>)> = SIZES
        .iter()
        .map(|&n| {
            let name = format!("f{n}");
            let content = data(n, n as u64 + 1);
            dir.file(&name, &content);
            (name, content)
        })
        .collect();
    (dir, files)
}

pub fn expected_lines(files: &[(String, Vec<u8>)], mode: Mode<'_>, len: usize, tag: bool) -> String {
    files.iter().map(|(name, content)| line(&reference(mode, content, len), name, tag)).collect()
}

pub fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}
