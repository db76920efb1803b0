//! Tree manifests (`simdcrypt::manifest`, docs/manifest-format.md): any bytes through
//! `Manifest::parse`; and the same lines with a correct end line appended (entry count,
//! BLAKE3 of every byte before it), so that the header and entry parsers are reached past
//! the checksum. A manifest that parses must write back to bytes that parse to the same
//! manifest, and find each of its entries by path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simdcrypt::manifest::Manifest;

fuzz_target!(|bytes: &[u8]| {
    let Some((&mode, body)) = bytes.split_first() else { return };
    if mode & 1 == 0 {
        check(body);
        return;
    }
    // Complete the lines with the end line the format requires.
    let mut text = body.to_vec();
    if !text.is_empty() && !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    let entries = text.iter().filter(|&&b| b == b'\n').count().saturating_sub(1);
    let sum = simdcrypt::to_hex(&simdcrypt::blake3::hash(&text));
    text.extend_from_slice(format!("{{\"end\":{{\"entries\":{entries},\"blake3\":\"{sum}\"}}}}\n").as_bytes());
    check(&text);
});

fn check(bytes: &[u8]) {
    let Ok(m) = Manifest::parse(bytes) else { return };
    let mut written = Vec::new();
    m.write_to(&mut written).expect("a parsed manifest writes");
    let again = Manifest::parse(&written).unwrap_or_else(|e| panic!("its own output does not parse: {e:?}"));
    assert_eq!(again, m, "write and parse changed the manifest");
    for e in &m.entries {
        assert_eq!(m.get(&e.path), Some(e), "entry {:?} not found by its path", e.path);
    }
}
