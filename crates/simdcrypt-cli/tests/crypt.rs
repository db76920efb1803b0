//! End-to-end tests of `simdcrypt keygen`, `encrypt` and `decrypt`: round trips of the
//! issue's sizes through files and pipes, every tampering case failing with a clear
//! message and no output file (nor temporary file) left behind, and --force.

use std::fs;
use std::path::Path;

mod common;
use common::*;

const CHUNK: usize = 65536;
const SEALED: usize = CHUNK + 16;
/// The version-2 header that `encrypt` writes (version 1 had 32 bytes).
const HEADER: usize = 96;

fn keygen(dir: &Path, name: &str) -> Vec<u8> {
    ok(run(simdcrypt(dir).args(["keygen", "-o", name])));
    let key = fs::read(dir.join(name)).unwrap();
    assert_eq!(key.len(), 32);
    key
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn keygen_makes_private_random_keys() {
    let dir = TempDir::new("crypt-keygen");
    let a = keygen(dir.path(), "a.key");
    let b = keygen(dir.path(), "b.key");
    assert_ne!(a, b);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(dir.path().join("a.key")).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let o = run(simdcrypt(dir.path()).args(["keygen", "-o", "a.key"]));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("exists; use --force"), "{}", stderr(&o));
    assert_eq!(fs::read(dir.path().join("a.key")).unwrap(), a, "not overwritten");
    ok(run(simdcrypt(dir.path()).args(["keygen", "-o", "a.key", "--force"])));
    assert_ne!(fs::read(dir.path().join("a.key")).unwrap(), a);
    assert_eq!(listing(dir.path()), ["a.key", "b.key"], "no temporary files left");
}

#[test]
fn round_trips() {
    let dir = TempDir::new("crypt-round-trips");
    keygen(dir.path(), "k");
    for (i, len) in
        [0usize, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 17, 100_000_000].into_iter().enumerate()
    {
        let plain = data(len, i as u64);
        dir.file("plain", &plain);
        ok(run(simdcrypt(dir.path()).args(["encrypt", "-k", "k", "plain", "-o", "enc", "--force"])));
        let enc = fs::read(dir.path().join("enc")).unwrap();
        let chunks = len.div_ceil(CHUNK).max(1);
        assert_eq!(enc.len(), HEADER + len + 16 * chunks, "len {len}");
        assert_eq!(&enc[..8], b"SIMDCRPT");
        ok(run(simdcrypt(dir.path()).args(["decrypt", "-k", "k", "enc", "-o", "dec", "--force"])));
        assert!(fs::read(dir.path().join("dec")).unwrap() == plain, "len {len}");
        // The same through pipes.
        if len <= 4 * CHUNK {
            let enc2 =
                ok_bytes(run_with_stdin(simdcrypt(dir.path()).args(["encrypt", "-k", "k", "-", "-o", "-"]), &plain));
            assert_ne!(enc2, enc, "a fresh random nonce per file");
            let dec2 =
                ok_bytes(run_with_stdin(simdcrypt(dir.path()).args(["decrypt", "-k", "k", "-", "-o", "-"]), &enc2));
            assert!(dec2 == plain, "pipes len {len}");
        }
    }
    assert_eq!(listing(dir.path()), ["dec", "enc", "k", "plain"]);
}

/// Decrypting `bad` fails with exit 1, a message containing `expect`, and no output.
fn assert_rejected(dir: &Path, bad: &[u8], key: &str, expect: &str) {
    fs::write(dir.join("bad"), bad).unwrap();
    let before = listing(dir);
    let o = run(simdcrypt(dir).args(["decrypt", "-k", key, "bad", "-o", "out"]));
    assert_eq!(code(&o), 1, "{expect}: stderr {}", stderr(&o));
    assert!(stderr(&o).contains(expect), "expected {expect:?} in {:?}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(listing(dir), before, "{expect}: no output or temporary file left");
}

#[test]
fn every_tampering_case_fails_without_output() {
    let dir = TempDir::new("crypt-tamper");
    let d = dir.path();
    keygen(d, "k");
    keygen(d, "other");
    let plain = data(3 * CHUNK + 1000, 9);
    dir.file("plain", &plain);
    ok(run(simdcrypt(d).args(["encrypt", "-k", "k", "plain", "-o", "enc"])));
    let enc = fs::read(d.join("enc")).unwrap();
    assert_eq!(enc.len(), HEADER + 4 * 16 + plain.len());
    let chunk = |i: usize| enc[HEADER + i * SEALED..(HEADER + (i + 1) * SEALED).min(enc.len())].to_vec();

    // Modification: a flipped bit in a tag, in ciphertext, in the last byte, in the nonce.
    for at in [HEADER, HEADER + 20, HEADER + SEALED + 5, enc.len() - 1, 20] {
        let mut bad = enc.clone();
        bad[at] ^= 1;
        assert_rejected(d, &bad, "k", "authentication failed");
    }
    // Header fields.
    let mut bad = enc.clone();
    bad[0] = b'X';
    assert_rejected(d, &bad, "k", "wrong magic");
    let mut bad = enc.clone();
    bad[8] = 3;
    assert_rejected(d, &bad, "k", "version 3 is not supported");
    let mut bad = enc.clone();
    bad[12] = 1;
    assert_rejected(d, &bad, "k", "corrupt header");
    assert_rejected(d, &enc[..10], "k", "shorter than the 32-byte header");
    // Truncation at a chunk boundary, inside a chunk, to the header alone.
    assert_rejected(d, &enc[..HEADER + 2 * SEALED], "k", "truncated");
    assert_rejected(d, &enc[..HEADER + SEALED + 100], "k", "authentication failed");
    assert_rejected(d, &enc[..HEADER + 8], "k", "authentication failed");
    assert_rejected(d, &enc[..HEADER], "k", "truncated");
    // Extension: a byte, a copy of the final chunk, a whole copy of the file's chunks. A
    // short final chunk then reads as a longer one and fails its tag; ...
    assert_rejected(d, &[enc.clone(), vec![0]].concat(), "k", "authentication failed at chunk 3");
    assert_rejected(d, &[enc.clone(), chunk(3)].concat(), "k", "authentication failed at chunk 3");
    assert_rejected(d, &[enc.clone(), enc[HEADER..].to_vec()].concat(), "k", "authentication failed at chunk 3");
    // ... a full final chunk is followed by data, and says so.
    dir.file("full", &plain[..2 * CHUNK]);
    ok(run(simdcrypt(d).args(["encrypt", "-k", "k", "full", "-o", "full.enc"])));
    let full = fs::read(d.join("full.enc")).unwrap();
    assert_eq!(full.len(), HEADER + 2 * SEALED);
    assert_rejected(d, &[full.clone(), vec![0]].concat(), "k", "extended");
    assert_rejected(d, &[full.clone(), full[HEADER..].to_vec()].concat(), "k", "extended");
    assert_rejected(d, &full[..HEADER + SEALED], "k", "truncated");
    // Reordering and duplication of chunks.
    let reordered = [enc[..HEADER].to_vec(), chunk(1), chunk(0), chunk(2), chunk(3)].concat();
    assert_rejected(d, &reordered, "k", "authentication failed at chunk 0");
    let duplicated = [enc[..HEADER].to_vec(), chunk(0), chunk(0), chunk(1), chunk(2), chunk(3)].concat();
    assert_rejected(d, &duplicated, "k", "authentication failed at chunk 1");
    // A wrong key: version 2 finds it at the header MAC, before any chunk (version 1
    // found it at chunk 0).
    assert_rejected(d, &enc, "other", "header authentication failed");
    // A chunk from another encryption of the same plaintext (another header nonce).
    ok(run(simdcrypt(d).args(["encrypt", "-k", "k", "plain", "-o", "enc2"])));
    let enc2 = fs::read(d.join("enc2")).unwrap();
    let spliced = [enc[..HEADER + SEALED].to_vec(), enc2[HEADER + SEALED..].to_vec()].concat();
    assert_rejected(d, &spliced, "k", "authentication failed at chunk 1");
    // The untouched file still decrypts.
    ok(run(simdcrypt(d).args(["decrypt", "-k", "k", "enc", "-o", "out"])));
    assert!(fs::read(d.join("out")).unwrap() == plain);
}

#[test]
fn refuses_to_overwrite_and_bad_keys() {
    let dir = TempDir::new("crypt-overwrite");
    let d = dir.path();
    keygen(d, "k");
    dir.file("plain", b"hello");
    dir.file("existing", b"keep me");
    let o = run(simdcrypt(d).args(["encrypt", "-k", "k", "plain", "-o", "existing"]));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("existing exists; use --force"), "{}", stderr(&o));
    assert_eq!(fs::read(d.join("existing")).unwrap(), b"keep me");
    dir.file("short.key", &[0u8; 31]);
    let o = run(simdcrypt(d).args(["encrypt", "-k", "short.key", "plain", "-o", "x"]));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("must hold exactly 32 bytes"), "{}", stderr(&o));
    let o = run(simdcrypt(d).args(["encrypt", "-k", "missing.key", "plain", "-o", "x"]));
    assert_eq!(code(&o), 1);
    let o = run(simdcrypt(d).args(["encrypt", "-k", "k", "missing", "-o", "x"]));
    assert_eq!(code(&o), 1);
    assert!(!d.join("x").exists());
    // Usage errors exit with 2.
    let o = run(simdcrypt(d).args(["encrypt", "plain", "-o", "x"]));
    assert_eq!(code(&o), 2);
    assert_eq!(listing(d), ["existing", "k", "plain", "short.key"]);
}
