//! File names in checksum lines, escaped as b3sum (and coreutils) do.
//!
//! A name containing a backslash, newline or carriage return is written with `\` as `\\`,
//! newline as `\n` and carriage return as `\r`, and the whole line then starts with a
//! backslash to say so. b3sum escapes exactly these three characters; so do we. coreutils'
//! sha256sum (checked against 9.1, in `sum`, `--tag` and `-c` output alike) escapes the same
//! three the same way, so one rule serves every `sum` line. The tools differ on the lines
//! `check` prints (`NAME: OK`): b3sum escapes them the same way, while sha256sum -c escapes
//! a name only when it contains a newline; [`check_name`] follows the reference tool of
//! each algorithm ([`Style`]).

use std::borrow::Cow;
use std::path::Path;

use simdcrypt::registry::{Algorithm, ReferenceTool};

/// A file name as it appears in an output line (borrowed from the path when it is UTF-8
/// and needs no escaping: one line per file, many files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisplayName<'a> {
    /// The name, escaped if `escaped`.
    pub text: Cow<'a, str>,
    /// Whether the line must start with a backslash.
    pub escaped: bool,
}

impl DisplayName<'_> {
    /// What goes at the very start of the line: `\` for an escaped name, else nothing.
    pub fn line_prefix(&self) -> &'static str {
        if self.escaped {
            "\\"
        } else {
            ""
        }
    }
}

/// The name b3sum would print for `path`: lossy UTF-8, backslashes turned into slashes on
/// Windows, then escaped.
pub fn display_name(path: &Path) -> DisplayName<'_> {
    escape(shown_text(path))
}

/// `path` as lossy UTF-8, with backslashes turned into slashes on Windows.
fn shown_text(path: &Path) -> Cow<'_, str> {
    let text = path.to_string_lossy();
    if cfg!(windows) {
        Cow::Owned(text.replace('\\', "/"))
    } else {
        text
    }
}

/// Whose output rules a line follows: the reference tool of the line's algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// b3sum (BLAKE3).
    B3sum,
    /// coreutils' sha256sum and its siblings.
    Coreutils,
}

impl Style {
    /// The rules of the algorithm's reference tool (RHash follows coreutils).
    pub fn of(algorithm: &Algorithm) -> Style {
        match algorithm.reference_tool {
            ReferenceTool::B3sum => Style::B3sum,
            ReferenceTool::Coreutils | ReferenceTool::Rhash => Style::Coreutils,
        }
    }
}

/// The name in a `check` result line (`NAME: OK`, `NAME: FAILED`). b3sum escapes it as
/// `sum` does; coreutils (9.1) only when it contains a newline, and then all three
/// characters, as `sum` does.
pub fn check_name(path: &Path, style: Style) -> DisplayName<'_> {
    let text = shown_text(path);
    match style {
        Style::Coreutils if !text.contains('\n') => DisplayName { text, escaped: false },
        _ => escape(text),
    }
}

/// Escapes `\`, newline and carriage return, if there are any.
pub fn escape<'a>(name: impl Into<Cow<'a, str>>) -> DisplayName<'a> {
    let name = name.into();
    if !name.contains(['\\', '\n', '\r']) {
        return DisplayName { text: name, escaped: false };
    }
    let mut text = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        match c {
            '\\' => text.push_str("\\\\"),
            '\n' => text.push_str("\\n"),
            '\r' => text.push_str("\\r"),
            c => text.push(c),
        }
    }
    DisplayName { text: Cow::Owned(text), escaped: true }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdcrypt::check_line::unescape;

    #[test]
    fn plain_names_are_untouched() {
        let d = escape("dir/file name.txt");
        assert_eq!(d.text, "dir/file name.txt");
        assert!(!d.escaped);
        assert_eq!(d.line_prefix(), "");
    }

    #[test]
    fn special_characters_are_escaped() {
        let d = escape("a\\b\nc\rd");
        assert_eq!(d.text, "a\\\\b\\nc\\rd");
        assert!(d.escaped);
        assert_eq!(d.line_prefix(), "\\");
    }

    #[test]
    fn check_names_follow_the_reference_tool() {
        let b3 = check_name(Path::new("a\\b\rc"), Style::B3sum);
        assert_eq!((b3.text.as_ref(), b3.escaped), ("a\\\\b\\rc", true));
        let gnu = check_name(Path::new("a\\b\rc"), Style::Coreutils);
        assert_eq!((gnu.text.as_ref(), gnu.escaped), ("a\\b\rc", false));
        let gnu = check_name(Path::new("a\\b\nc\r"), Style::Coreutils);
        assert_eq!((gnu.text.as_ref(), gnu.escaped), ("a\\\\b\\nc\\r", true));
        assert_eq!(Style::of(&simdcrypt::sha256::ALGORITHM), Style::Coreutils);
        assert_eq!(Style::of(&simdcrypt::blake3::ALGORITHM), Style::B3sum);
    }

    #[test]
    fn unescape_reverses_escape() {
        for name in ["plain", "a\\b", "line\nbreak", "cr\rhere", "\\\\\n\n\\", ""] {
            let d = escape(name);
            assert_eq!(unescape(d.text.as_bytes()).unwrap(), name.as_bytes());
        }
    }

    #[test]
    fn invalid_escapes_are_rejected() {
        assert_eq!(unescape(b"trailing\\"), None);
        assert_eq!(unescape(b"bad\\t"), None);
        assert_eq!(unescape(b"ok\\\\"), Some(b"ok\\".to_vec()));
    }
}
