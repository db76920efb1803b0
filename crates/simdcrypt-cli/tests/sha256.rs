//! End-to-end tests of `simdcrypt sum -a sha256` and `simdcrypt check` on sha256sum
//! manifests, driving the built binary.
//!
//! Expected digests come from RustCrypto's `sha2` crate. The output is also compared byte
//! for byte with coreutils' sha256sum (`SHA256SUM`, default `/usr/bin/sha256sum`); if that
//! is missing the comparison is skipped with a notice, unless `SIMDCRYPT_REQUIRE_SHA256SUM=1`.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use sha2::Digest;
use simdcrypt::sha256::Platform;

mod common;
use common::*;

fn sha256_hex(input: &[u8]) -> String {
    sha2::Sha256::digest(input).iter().map(|b| format!("{b:02x}")).collect()
}

/// A line as sha256sum formats it: names with `\`, newline or CR escaped, and the line
/// then starting with a backslash.
fn line(hex: &str, name: &str, tag: bool) -> String {
    let escaped = name.contains(['\\', '\n', '\r']);
    let shown = name.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r");
    let prefix = if escaped { "\\" } else { "" };
    if tag {
        format!("{prefix}SHA256 ({shown}) = {hex}\n")
    } else {
        format!("{prefix}{hex}  {shown}\n")
    }
}

/// Sizes around the block and padding edges, and names that need escaping (on Unix).
fn test_files(dir: &TempDir) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_003]
        .iter()
        .enumerate()
        .map(|(i, &len)| (format!("f{i}"), data(len, i as u64)))
        .collect();
    if cfg!(unix) {
        for (i, name) in
            ["new\nline", "back\\slash", "both\\\nof\\them", "cr\rname", "plain name", "x) = y"].iter().enumerate()
        {
            files.push((name.to_string(), data(100 + i, 50 + i as u64)));
        }
    }
    for (name, bytes) in &files {
        dir.file(name, bytes);
    }
    files
}

fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn sum_matches_sha2_with_and_without_tag() {
    let dir = TempDir::new("sum");
    let files = test_files(&dir);
    for tag in [false, true] {
        let mut cmd = simdcrypt(dir.path());
        cmd.args(["sum", "-a", "sha256"]).args(names(&files));
        if tag {
            cmd.arg("--tag");
        }
        let expected: String = files.iter().map(|(n, d)| line(&sha256_hex(d), n, tag)).collect();
        assert_eq!(String::from_utf8(ok_bytes(run(&mut cmd))).unwrap(), expected, "tag {tag}");
    }
    // Standard input, named "-", in either case of the algorithm name.
    let input = data(5000, 9);
    let out = ok_bytes(run_with_stdin(simdcrypt(dir.path()).args(["sum", "-a", "SHA256"]), &input));
    assert_eq!(String::from_utf8(out).unwrap(), format!("{}  -\n", sha256_hex(&input)));
}

#[test]
fn every_backend_gives_the_same_output() {
    let dir = TempDir::new("backends");
    let files = test_files(&dir);
    let reference =
        ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", "sha256", "--backend", "portable"]).args(names(&files))));
    let report = String::from_utf8(ok_bytes(run(simdcrypt(dir.path()).arg("backends")))).unwrap();
    assert!(report.contains("sha256"), "backends output lacks sha256:\n{report}");
    let supported = Platform::all_supported();
    for platform in &supported {
        let o =
            run(simdcrypt(dir.path()).args(["sum", "-a", "sha256", "--backend", platform.name()]).args(names(&files)));
        assert_eq!(ok_bytes(o), reference, "backend {}", platform.name());
    }
    let shown: Vec<&str> = supported.iter().map(|p| p.name()).collect();
    println!("every_backend_gives_the_same_output: sha256 backends exercised: {}", shown.join(", "));
}

#[test]
fn sha256_options_it_does_not_take_are_errors() {
    let dir = TempDir::new("errors");
    dir.file("a", b"abc");
    dir.file("k", &[7u8; 32]);
    for args in [
        &["sum", "-a", "sha256", "-l", "16", "a"][..],
        &["sum", "-a", "sha256", "-l", "64", "a"],
        &["sum", "-a", "sha256", "--key-file", "k", "a"],
        &["sum", "-a", "sha256", "--derive-key", "ctx", "a"],
        &["sum", "-a", "sha256", "--backend", "avx2", "a"],
    ] {
        let o = run(simdcrypt(dir.path()).args(args));
        let usage = args.contains(&"--backend");
        assert_eq!(code(&o), if usage { 2 } else { 1 }, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("sha256"), "{args:?}: {err}");
    }
    // -l 32 is the digest length itself, and fine.
    let out = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", "sha256", "-l", "32", "a"])));
    assert_eq!(String::from_utf8(out).unwrap(), format!("{}  a\n", sha256_hex(b"abc")));
}

#[test]
fn sum_then_check_round_trip() {
    let dir = TempDir::new("roundtrip");
    let files = test_files(&dir);
    // sha256sum -c escapes a name only when it has a newline.
    let expected_ok: String = files
        .iter()
        .map(|(n, _)| {
            let escaped = n.contains('\n');
            let shown =
                if escaped { n.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r") } else { n.clone() };
            format!("{}{shown}: OK\n", if escaped { "\\" } else { "" })
        })
        .collect();
    // (sum options, check options): BSD lines name their algorithm; GNU lines need -a.
    let option_sets: &[(&[&str], &[&str])] = &[
        (&[], &["-a", "sha256"]),
        (&["--tag"], &[]),
        (&["--tag"], &["-a", "sha256"]),
        (&[], &["-a", "SHA256", "--backend", "portable"]),
    ];
    for (sum_opts, check_opts) in option_sets {
        let manifest =
            ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", "sha256"]).args(*sum_opts).args(names(&files))));
        dir.file("SUMS", &manifest);
        let o = run(simdcrypt(dir.path()).arg("check").args(*check_opts).arg("SUMS"));
        assert_eq!(String::from_utf8(ok_bytes(o)).unwrap(), expected_ok, "{sum_opts:?} / {check_opts:?}");
        let o = run_with_stdin(simdcrypt(dir.path()).arg("check").args(*check_opts).arg("-"), &manifest);
        assert_eq!(String::from_utf8(ok_bytes(o)).unwrap(), expected_ok, "{sum_opts:?} / {check_opts:?}, stdin");
    }

    // GNU lines checked as BLAKE3 (no -a) fail: the same length cannot tell them apart.
    let manifest = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", "sha256", "f1"])));
    dir.file("SUMS", &manifest);
    let o = run(simdcrypt(dir.path()).args(["check", "SUMS"]));
    assert_eq!(code(&o), 1);
    assert_eq!(o.stdout, b"f1: FAILED\n");
    // SHA256 lines with -a blake3 are refused as improperly formatted.
    let manifest = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", "sha256", "--tag", "f1"])));
    dir.file("SUMS", &manifest);
    let o = run(simdcrypt(dir.path()).args(["check", "-a", "blake3", "SUMS"]));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no properly formatted checksum lines"), "{}", stderr(&o));

    // A changed file fails, alone.
    fs::write(dir.path().join("f2"), b"changed").unwrap();
    let manifest: String = files.iter().take(4).map(|(n, d)| line(&sha256_hex(d), n, true)).collect();
    dir.file("SUMS", manifest.as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "--quiet", "SUMS"]));
    assert_eq!(code(&o), 1);
    assert_eq!(o.stdout, b"f2: FAILED\n");
    assert_eq!(stderr(&o), "simdcrypt: WARNING: 1 computed checksum did NOT match\n");
}

// ---------------------------------------------------------------------------------------
// Byte-for-byte comparison with coreutils' sha256sum
// ---------------------------------------------------------------------------------------

fn sha256sum() -> Option<PathBuf> {
    let path = std::env::var_os("SHA256SUM").map_or_else(|| PathBuf::from("/usr/bin/sha256sum"), PathBuf::from);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("SIMDCRYPT_REQUIRE_SHA256SUM").is_ok_and(|v| v == "1") {
        panic!("SIMDCRYPT_REQUIRE_SHA256SUM=1 but {} is not a file", path.display());
    }
    println!("NOTICE: {} not found; skipping the byte-for-byte comparison with sha256sum", path.display());
    None
}

#[test]
fn output_is_byte_identical_to_sha256sum() {
    let Some(sha256sum) = sha256sum() else { return };
    let dir = TempDir::new("coreutils");
    let files = test_files(&dir);
    let names = names(&files);
    for tag in [false, true] {
        let tag_arg: &[&str] = if tag { &["--tag"] } else { &[] };
        let ours = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", "sha256"]).args(tag_arg).args(&names)));
        let theirs = ok_bytes(run(Command::new(&sha256sum).current_dir(dir.path()).args(tag_arg).args(&names)));
        assert_eq!(
            ours,
            theirs,
            "tag {tag}\n--- sha256sum:\n{}\n--- simdcrypt:\n{}",
            String::from_utf8_lossy(&theirs),
            String::from_utf8_lossy(&ours)
        );
    }
    // Standard input.
    let input = data(70_000, 3);
    let ours = ok_bytes(run_with_stdin(simdcrypt(dir.path()).args(["sum", "-a", "sha256"]), &input));
    let theirs = ok_bytes(run_with_stdin(Command::new(&sha256sum).current_dir(dir.path()), &input));
    assert_eq!(ours, theirs, "stdin");
    println!("compared with {} on {} names", sha256sum.display(), names.len());
}

#[test]
fn check_verifies_sha256sum_manifests_like_sha256sum() {
    let Some(sha256sum) = sha256sum() else { return };
    let dir = TempDir::new("coreutils-check");
    let files = test_files(&dir);
    let names = names(&files);
    for tag in [false, true] {
        let tag_arg: &[&str] = if tag { &["--tag"] } else { &[] };
        // sha256sum writes the manifest; both tools check it, then check it again after one
        // file changed and one disappeared.
        let manifest = ok_bytes(run(Command::new(&sha256sum).current_dir(dir.path()).args(tag_arg).args(&names)));
        dir.file("SUMS", &manifest);
        for damaged in [false, true] {
            if damaged {
                fs::write(dir.path().join("f3"), b"changed").unwrap();
                fs::remove_file(dir.path().join("f4")).unwrap();
            }
            let ours = run(simdcrypt(dir.path()).args(["check", "-a", "sha256", "SUMS"]));
            let theirs = run(Command::new(&sha256sum).current_dir(dir.path()).args(["-c", "SUMS"]));
            assert_eq!(code(&ours), code(&theirs), "tag {tag} damaged {damaged}: {}", stderr(&ours));
            assert_eq!(
                ours.stdout,
                theirs.stdout,
                "tag {tag} damaged {damaged}\n--- sha256sum -c:\n{}\n--- simdcrypt check:\n{}",
                String::from_utf8_lossy(&theirs.stdout),
                String::from_utf8_lossy(&ours.stdout)
            );
            if damaged {
                // Put the files back for the next round.
                for (n, d) in &files[3..5] {
                    dir.file(n, d);
                }
            }
        }
    }
}
