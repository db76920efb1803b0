//! Behaving as b3sum or sha256sum when invoked through a link of that name.
//!
//! The tool's command line is rewritten into the equivalent `simdcrypt sum` or
//! `simdcrypt check` one, and messages carry the tool's name. Which names are recognised
//! comes from the registry: an algorithm whose reference tool is b3sum answers to `b3sum`,
//! one whose reference tool is coreutils to `<name>sum` (`sha256sum`).

use std::ffi::{OsStr, OsString};
use std::path::Path;

use simdcrypt::registry::{self, Algorithm, ReferenceTool};

/// The tool being imitated.
#[derive(Clone, Copy, Debug)]
pub struct DropIn {
    /// The program name for messages.
    pub name: &'static str,
    /// Its algorithm.
    pub algorithm: &'static Algorithm,
}

impl DropIn {
    /// Whether the tool is a coreutils one (usage errors exit with status 1, not 2).
    pub fn is_coreutils(&self) -> bool {
        self.algorithm.reference_tool == ReferenceTool::Coreutils
    }
}

/// The tool `argv0` names, if it is one we imitate.
pub fn detect(argv0: &OsStr) -> Option<DropIn> {
    let base = Path::new(argv0).file_name()?.to_str()?;
    let base = base.strip_suffix(".exe").unwrap_or(base);
    registry::REGISTRY.iter().find_map(|a| {
        let name = match a.reference_tool {
            ReferenceTool::B3sum => "b3sum".to_string(),
            ReferenceTool::Coreutils => format!("{}sum", a.name),
            ReferenceTool::Rhash => return None,
        };
        // The name must live as long as the program: leak the one that matched.
        (name == base).then(|| DropIn { name: Box::leak(name.into_boxed_str()), algorithm: a })
    })
}

/// The `simdcrypt` arguments (program name first) equivalent to the tool's `args` (without
/// the program name).
pub fn rewrite(tool: DropIn, args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut check = false;
    let mut threads_given = false;
    let mut rest = Vec::new();
    let mut after_dashdash = false;
    // Whether a FILE operand was given, and whether the next argument is an option's value.
    let mut operands = false;
    let mut takes_value = false;
    for arg in args {
        if after_dashdash {
            operands = true;
            rest.push(arg);
            continue;
        }
        if std::mem::take(&mut takes_value) {
            rest.push(arg);
            continue;
        }
        match arg.to_str() {
            Some("--") => {
                after_dashdash = true;
                rest.push(arg);
            }
            Some("-") => {
                operands = true;
                rest.push(arg);
            }
            Some(a) if !a.starts_with('-') => {
                operands = true;
                rest.push(arg);
            }
            Some("--derive-key" | "-l" | "--length" | "--seek") if !tool.is_coreutils() => {
                takes_value = true;
                rest.push(arg);
            }
            None => {
                operands = true;
                rest.push(arg);
            }
            Some("-c" | "--check") => check = true,
            // b3sum --keyed reads the key from standard input.
            Some("--keyed") if !tool.is_coreutils() => {
                rest.push("--key-file".into());
                rest.push("-".into());
            }
            Some(a) if a == "--num-threads" || a.starts_with("--num-threads=") => {
                threads_given = true;
                takes_value = a == "--num-threads";
                rest.push(arg);
            }
            // coreutils' binary/text modes read the same bytes on Unix.
            Some("-b" | "--binary" | "-t" | "--text") if tool.is_coreutils() => {}
            _ => rest.push(arg),
        }
    }
    let mut out: Vec<OsString> = vec![tool.name.into(), if check { "check" } else { "sum" }.into()];
    out.push("-a".into());
    out.push(tool.algorithm.name.into());
    // b3sum uses every CPU unless told otherwise.
    if !tool.is_coreutils() && !threads_given {
        out.push("-j".into());
        out.push("auto".into());
    }
    out.extend(rest);
    // Both tools read standard input when given no FILE; `simdcrypt check` wants a MANIFEST.
    if check && !operands {
        out.push("-".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: Vec<OsString>) -> Vec<String> {
        v.into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    #[test]
    fn names_come_from_the_registry() {
        assert_eq!(detect(OsStr::new("/usr/bin/b3sum")).unwrap().algorithm.name, "blake3");
        assert_eq!(detect(OsStr::new("sha256sum")).unwrap().algorithm.name, "sha256");
        assert!(detect(OsStr::new("simdcrypt")).is_none());
        assert!(detect(OsStr::new("md5sum")).is_none());
    }

    #[test]
    fn command_lines_are_rewritten() {
        let b3 = detect(OsStr::new("b3sum")).unwrap();
        let args = ["--keyed", "-c", "m", "--", "-c"].map(OsString::from);
        assert_eq!(
            strings(rewrite(b3, args)),
            ["b3sum", "check", "-a", "blake3", "-j", "auto", "--key-file", "-", "m", "--", "-c"]
        );
        // Without a FILE operand (option values are not operands), check reads stdin.
        let args = ["--check", "--num-threads", "2", "--quiet"].map(OsString::from);
        assert_eq!(
            strings(rewrite(b3, args)),
            ["b3sum", "check", "-a", "blake3", "--num-threads", "2", "--quiet", "-"]
        );
        let args = ["-c", "-"].map(OsString::from);
        assert_eq!(strings(rewrite(b3, args)), ["b3sum", "check", "-a", "blake3", "-j", "auto", "-"]);
        let sha = detect(OsStr::new("sha256sum")).unwrap();
        let args = ["-b", "--tag", "f"].map(OsString::from);
        assert_eq!(strings(rewrite(sha, args)), ["sha256sum", "sum", "-a", "sha256", "--tag", "f"]);
    }
}
