//! End-to-end tests of `simdcrypt check` on BLAKE3 manifests: what it reports for good,
//! changed, missing and malformed lines, and that `sum` output checks back.

use std::fs;

mod blake3_lines;
mod common;
use blake3_lines::*;
use common::*;

#[test]
fn check_reports_ok_failed_missing_and_malformed() {
    let dir = TempDir::new("check");
    dir.file("good1", b"one");
    dir.file("good2", b"two");
    dir.file("changed", b"new contents");
    let manifest = format!(
        "{}{}{}{}# a comment line\nnot a checksum line\n{}",
        line(&reference(Mode::Hash, b"one", 32), "good1", false),
        line(&reference(Mode::Hash, b"old contents", 32), "changed", false),
        line(&reference(Mode::Hash, b"x", 32), "missing", false),
        line(&reference(Mode::Hash, b"two", 32), "good2", true),
        "abc  odd-length-hash\n",
    );
    dir.file("MANIFEST", manifest.as_bytes());

    let o = run(simdcrypt(dir.path()).args(["check", "MANIFEST"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "good1: OK\nchanged: FAILED\nmissing: FAILED open or read\ngood2: OK\n");
    assert_eq!(
        stderr(&o),
        "simdcrypt: missing: No such file or directory\n\
         simdcrypt: WARNING: 2 lines are improperly formatted\n\
         simdcrypt: WARNING: 1 listed file could not be read\n\
         simdcrypt: WARNING: 1 computed checksum did NOT match\n"
    );

    // --quiet drops the OK lines; --status prints nothing on stdout.
    let o = run(simdcrypt(dir.path()).args(["check", "--quiet", "MANIFEST"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "changed: FAILED\nmissing: FAILED open or read\n");
    let o = run(simdcrypt(dir.path()).args(["check", "--status", "MANIFEST"]));
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());

    // Plural forms.
    dir.file("changed2", b"also new");
    let manifest = format!(
        "{}{}{}{}",
        line(&reference(Mode::Hash, b"old", 32), "changed", false),
        line(&reference(Mode::Hash, b"old", 32), "changed2", false),
        line(&reference(Mode::Hash, b"x", 32), "missing1", false),
        line(&reference(Mode::Hash, b"x", 32), "missing2", false),
    );
    dir.file("M2", manifest.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "M2"]));
    assert_eq!(code(&o), 1);
    assert_eq!(
        stderr(&o),
        "simdcrypt: missing1: No such file or directory\n\
         simdcrypt: missing2: No such file or directory\n\
         simdcrypt: WARNING: 2 listed files could not be read\n\
         simdcrypt: WARNING: 2 computed checksums did NOT match\n"
    );
}

#[test]
fn check_all_ok_exits_zero_and_malformed_alone_is_a_warning() {
    let dir = TempDir::new("checkok");
    dir.file("a", b"aaa");
    let good = line(&reference(Mode::Hash, b"aaa", 32), "a", false);
    dir.file("M", good.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "M"]));
    assert_eq!(ok(o), "a: OK\n");

    dir.file("M2", format!("{good}junk\n").as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "M2"]));
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "a: OK\n");
    assert_eq!(stderr(&o), "simdcrypt: WARNING: 1 line is improperly formatted\n");
    let o = run(simdcrypt(dir.path()).args(["check", "--strict", "M2"]));
    assert_eq!(code(&o), 1);
}

#[test]
fn check_without_valid_lines_or_manifest_fails() {
    let dir = TempDir::new("checkbad");
    dir.file("junk", b"hello\nworld\n");
    dir.file("empty", b"");
    for m in ["junk", "empty"] {
        let o = run(simdcrypt(dir.path()).args(["check", m]));
        assert_eq!(code(&o), 1);
        assert!(o.stdout.is_empty());
        assert_eq!(stderr(&o), format!("simdcrypt: {m}: no properly formatted checksum lines found\n"));
    }
    let o = run(simdcrypt(dir.path()).args(["check", "absent"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o), "simdcrypt: absent: No such file or directory\n");
    // No manifest at all is a usage error.
    let o = run(simdcrypt(dir.path()).arg("check"));
    assert_eq!(code(&o), 2);
}

#[test]
fn check_accepts_all_line_forms() {
    let dir = TempDir::new("forms");
    dir.file("a", b"aaa");
    dir.file("b c", b"bbb");
    let ha = reference(Mode::Hash, b"aaa", 32);
    let hb64 = reference(Mode::Hash, b"bbb", 64);
    let manifest = format!(
        "{ha}  a\n{ha} *a\n{}  a\r\nBLAKE3 (b c) = {hb64}\nblake3 (a) = {ha}\n{hb64}  b c\n",
        ha.to_uppercase()
    );
    dir.file("M", manifest.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "M"]));
    assert_eq!(ok(o), "a: OK\na: OK\na: OK\nb c: OK\na: OK\nb c: OK\n");

    // A BSD label that no algorithm has, or that disagrees with -a, is malformed.
    let manifest = format!("SHA999 (a) = {ha}\n{ha}  a\n");
    dir.file("M2", manifest.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "-a", "blake3", "M2"]));
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "a: OK\n");
    assert_eq!(stderr(&o), "simdcrypt: WARNING: 1 line is improperly formatted\n");
}

#[test]
fn sum_then_check_round_trip() {
    let (dir, files) = sized_files("roundtrip");
    let mut all: Vec<String> = names(&files).iter().map(|s| s.to_string()).collect();
    if cfg!(unix) {
        for (i, name) in ["new\nline", "back\\slash", "c\rr", "x) = y"].iter().enumerate() {
            dir.file(name, &data(i, 77));
            all.push(name.to_string());
        }
    }
    let expected_ok: String = all
        .iter()
        .map(|n| {
            let escaped = n.contains(['\\', '\n', '\r']);
            let shown = n.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r");
            format!("{}{shown}: OK\n", if escaped { "\\" } else { "" })
        })
        .collect();
    let key: [u8; 32] = data(32, 5).try_into().unwrap();
    dir.file("k", &key);
    // (sum options, check options): mode options are repeated for check; -l and --tag
    // are not, as check reads them from the lines.
    let option_sets: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["--tag"], &[]),
        (&["-l", "64"], &[]),
        (&["-l", "1", "--tag"], &[]),
        (&["-l", "100"], &["-a", "blake3"]),
        (&["--key-file", "k"], &["--key-file", "k"]),
        (&["--derive-key", "round trip", "--tag"], &["--derive-key", "round trip"]),
    ];
    for (opts, mode) in option_sets {
        let manifest = ok(run(simdcrypt(dir.path()).arg("sum").args(*opts).args(&all)));
        dir.file("SUMS", manifest.as_bytes());
        let o = run(simdcrypt(dir.path()).arg("check").args(*mode).arg("SUMS"));
        assert_eq!(ok(o), expected_ok, "options {opts:?}");
        // From stdin too.
        let o = run_with_stdin(simdcrypt(dir.path()).arg("check").args(*mode).arg("-"), manifest.as_bytes());
        assert_eq!(ok(o), expected_ok, "options {opts:?}, stdin");
    }

    // Modify one file: exactly that one fails.
    fs::write(dir.path().join("f1"), b"changed").unwrap();
    let manifest = ok(run(simdcrypt(dir.path()).arg("sum").args(names(&files))));
    let manifest = manifest.replace(&reference(Mode::Hash, b"changed", 32), &reference(Mode::Hash, &files[1].1, 32));
    dir.file("SUMS", manifest.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "--quiet", "SUMS"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "f1: FAILED\n");
    assert_eq!(stderr(&o), "simdcrypt: WARNING: 1 computed checksum did NOT match\n");
}

#[test]
fn check_with_wrong_key_fails() {
    let dir = TempDir::new("wrongkey");
    dir.file("a", b"aaa");
    dir.file("k1", &[1u8; 32]);
    dir.file("k2", &[2u8; 32]);
    let manifest = ok(run(simdcrypt(dir.path()).args(["sum", "--key-file", "k1", "a"])));
    dir.file("M", manifest.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "--key-file", "k2", "M"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "a: FAILED\n");
    let o = run(simdcrypt(dir.path()).args(["check", "M"]));
    assert_eq!(code(&o), 1);
    let o = run(simdcrypt(dir.path()).args(["check", "--key-file", "k1", "M"]));
    assert_eq!(ok(o), "a: OK\n");
}
