//! The checksum-line parsers of `simdcrypt check` (`simdcrypt::check_line`, moved there
//! from the CLI so that this target reaches them): GNU (`HEX  NAME`, `HEX *NAME`), BSD and
//! RHash (`LABEL (NAME) = HEX`, the label looked up in the registry), escaped names, and
//! b3sum's stricter parser. What they accept must be well formed, and a line printed from
//! what was parsed must parse back to the same thing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::check_line::{parse_b3sum_line, parse_line, unescape};
use simdcrypt::registry;

fuzz_target!(|line: &[u8]| {
    coreutils(line);
    b3sum(line);
    let _ = unescape(line);
});

fn coreutils(line: &[u8]) {
    if let Some(entry) = parse_line(line) {
        assert!(!entry.hex.is_empty() && entry.hex.len() % 2 == 0, "hex {:?}", entry.hex);
        assert!(entry.hex.iter().all(u8::is_ascii_hexdigit));
        assert!(!entry.name.is_empty());
        let mut known_label = true;
        if let Some(label) = entry.label {
            assert!(!label.is_empty() && !label.iter().any(u8::is_ascii_whitespace));
            let algorithm = std::str::from_utf8(label).ok().and_then(registry::by_bsd_label);
            if let Some(algorithm) = algorithm {
                assert!(registry::find(algorithm.name).is_ok());
            }
            known_label = algorithm.is_some();
        }
        // Printed back as `sum` prints (name escaped as it escapes names; only labels of
        // the registry, which `check` goes on to use), the line parses to the same entry.
        // (A label `check` does not know may be anything, a leading `\` included, which
        // reads back as the escape marker.)
        if !known_label {
            return;
        }
        let escaped = entry.name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r'));
        let mut name = Vec::new();
        for &b in &entry.name {
            match b {
                b'\\' => name.extend_from_slice(b"\\\\"),
                b'\n' => name.extend_from_slice(b"\\n"),
                b'\r' => name.extend_from_slice(b"\\r"),
                _ => name.push(b),
            }
        }
        assert_eq!(unescape(&name).as_deref(), Some(&entry.name[..]));
        let mut printed = Vec::new();
        if escaped {
            printed.push(b'\\');
        }
        match entry.label {
            Some(label) => {
                printed.extend_from_slice(label);
                printed.extend_from_slice(b" (");
                printed.extend_from_slice(&name);
                printed.extend_from_slice(b") = ");
                printed.extend_from_slice(entry.hex);
            }
            None => {
                printed.extend_from_slice(entry.hex);
                printed.extend_from_slice(b"  ");
                printed.extend_from_slice(&name);
            }
        }
        let again = parse_line(&printed).unwrap_or_else(|| panic!("printed line {printed:?} does not parse"));
        assert_eq!(again.hex, entry.hex);
        assert_eq!(again.name, entry.name, "printed line {printed:?}");
    }
}

fn b3sum(line: &[u8]) {
    if let Ok(entry) = parse_b3sum_line(line) {
        let text = std::str::from_utf8(line).expect("b3sum accepted invalid UTF-8");
        assert!(text.contains(&simdcrypt::to_hex(&entry.expected)));
        let path = entry.path.to_str().unwrap();
        assert!(!path.is_empty() && !path.contains('\0'));
    }
}
