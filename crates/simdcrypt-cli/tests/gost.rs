//! End-to-end tests of `simdcrypt sum` and `check` with the GOST algorithms: digests from
//! RustCrypto's `streebog` and `gost94` crates, RHash's `--tag` labels, `--gost-reverse`,
//! and `check` reading what `sum` writes. The output is also compared byte for byte with
//! the `rhash` tool (`RHASH`, default `rhash` on PATH); if it is missing the comparison is
//! skipped with a notice, unless `SIMDCRYPT_REQUIRE_RHASH=1`.

use std::path::PathBuf;
use std::process::Command;

use sha2::Digest;

mod common;
use common::*;

/// (simdcrypt name, RHash option, RHash label).
const ALGOS: [(&str, &str, &str); 4] = [
    ("streebog256", "--gost12-256", "GOST12-256"),
    ("streebog512", "--gost12-512", "GOST12-512"),
    ("gost94", "--gost94-cryptopro", "GOST94-CRYPTOPRO"),
    ("gost94-test", "--gost94", "GOST94"),
];

fn digest(algo: &str, data: &[u8]) -> Vec<u8> {
    match algo {
        "streebog256" => streebog::Streebog256::digest(data).to_vec(),
        "streebog512" => streebog::Streebog512::digest(data).to_vec(),
        "gost94" => gost94::Gost94CryptoPro::digest(data).to_vec(),
        "gost94-test" => gost94::Gost94Test::digest(data).to_vec(),
        _ => unreachable!(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn test_files(dir: &TempDir) -> Vec<(String, Vec<u8>)> {
    let files: Vec<(String, Vec<u8>)> = [0usize, 1, 31, 32, 33, 63, 64, 65, 1000, 100_003]
        .iter()
        .enumerate()
        .map(|(i, &len)| (format!("f{i}"), data(len, 40 + i as u64)))
        .chain([("all-ff".to_string(), vec![0xff; 4096]), ("plain name".to_string(), b"abc".to_vec())])
        .collect();
    for (name, bytes) in &files {
        dir.file(name, bytes);
    }
    files
}

fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

fn expected(algo: &str, label: &str, files: &[(String, Vec<u8>)], tag: bool, reverse: bool) -> String {
    files
        .iter()
        .map(|(n, d)| {
            let mut bytes = digest(algo, d);
            if reverse {
                bytes.reverse();
            }
            if tag {
                format!("{label} ({n}) = {}\n", hex(&bytes))
            } else {
                format!("{}  {n}\n", hex(&bytes))
            }
        })
        .collect()
}

#[test]
fn sum_matches_rustcrypto_with_tags_and_reverse() {
    let dir = TempDir::new("gost-sum");
    let files = test_files(&dir);
    for (algo, _, label) in ALGOS {
        for tag in [false, true] {
            for reverse in [false, true] {
                let mut cmd = simdcrypt(dir.path());
                cmd.args(["sum", "-a", algo]).args(names(&files));
                if tag {
                    cmd.arg("--tag");
                }
                if reverse {
                    cmd.arg("--gost-reverse");
                }
                let out = String::from_utf8(ok_bytes(run(&mut cmd))).unwrap();
                assert_eq!(out, expected(algo, label, &files, tag, reverse), "{algo} tag {tag} reverse {reverse}");
            }
        }
    }
}

/// The standard prints M1's Streebog-256 digest most significant byte first.
#[test]
fn gost_reverse_prints_the_standards_order() {
    let dir = TempDir::new("gost-m1");
    dir.file("m1", b"012345678901234567890123456789012345678901234567890123456789012");
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-a", "streebog256", "--gost-reverse", "m1"])));
    assert_eq!(out, "00557be5e584fd52a449b16b0251d05d27f94ab76cbaa6da890b59d8ef1e159d  m1\n");
}

#[test]
fn check_accepts_what_sum_prints() {
    let dir = TempDir::new("gost-check");
    let files = test_files(&dir);
    for (algo, _, _) in ALGOS {
        for (sum_opts, check_opts) in [
            (&[][..], &["-a", algo][..]),
            (&["--tag"], &[]),
            (&["--gost-reverse"], &["-a", algo, "--gost-reverse"]),
            (&["--tag", "--gost-reverse"], &["--gost-reverse"]),
        ] {
            let manifest =
                ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", algo]).args(sum_opts).args(names(&files))));
            let m = dir.file("manifest", &manifest);
            let out = ok(run(simdcrypt(dir.path()).arg("check").args(check_opts).arg(&m)));
            assert_eq!(out.lines().filter(|l| l.ends_with(": OK")).count(), files.len(), "{algo} {sum_opts:?}\n{out}");
            // Read in the other byte order, every line fails.
            let mut flipped: Vec<&str> = check_opts.to_vec();
            if flipped.contains(&"--gost-reverse") {
                flipped.retain(|o| *o != "--gost-reverse");
            } else {
                flipped.push("--gost-reverse");
            }
            let o = run(simdcrypt(dir.path()).arg("check").args(&flipped).arg(&m));
            assert_eq!(code(&o), 1, "{algo} {sum_opts:?} flipped");
            // (The empty file's digest is no palindrome either, so every line fails.)
            assert_eq!(stdout(&o).lines().filter(|l| l.ends_with(": FAILED")).count(), files.len());
        }
    }
}

#[test]
fn gost_reverse_is_a_usage_error_for_other_algorithms() {
    let dir = TempDir::new("gost-usage");
    dir.file("a", b"abc");
    let o = run(simdcrypt(dir.path()).args(["sum", "-a", "blake3", "--gost-reverse", "a"]));
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--gost-reverse applies to streebog256"), "{}", stderr(&o));
}

fn rhash() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("RHASH").unwrap_or_else(|| "rhash".into()));
    match Command::new(&path).arg("--version").output() {
        Ok(o) if o.status.success() => Some(path),
        _ => {
            assert!(
                std::env::var_os("SIMDCRYPT_REQUIRE_RHASH").is_none_or(|v| v != "1"),
                "rhash is required (SIMDCRYPT_REQUIRE_RHASH=1) but {} does not run",
                path.display()
            );
            println!("NOTICE: rhash not found; byte-for-byte comparison with RHash skipped");
            None
        }
    }
}

/// Byte for byte like RHash: plain and `--bsd` lines for each algorithm, and
/// `--gost-reverse` for GOST R 34.11-94 (RHash 1.4.3 reverses only GOST R 34.11-94
/// digests; for Streebog its option has no effect, see README).
#[test]
fn output_matches_rhash() {
    let Some(rhash) = rhash() else { return };
    let dir = TempDir::new("gost-rhash");
    let files = test_files(&dir);
    for (algo, option, _) in ALGOS {
        let mut variants: Vec<(Vec<&str>, Vec<&str>)> = vec![(vec![], vec![]), (vec!["--bsd"], vec!["--tag"])];
        if algo.starts_with("gost94") {
            variants.push((vec!["--gost-reverse"], vec!["--gost-reverse"]));
        }
        for (rhash_opts, our_opts) in variants {
            let theirs = ok_bytes(run(Command::new(&rhash)
                .current_dir(dir.path())
                .arg(option)
                .args(&rhash_opts)
                .args(names(&files))));
            let ours =
                ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", algo]).args(&our_opts).args(names(&files))));
            assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap(), "{algo} {rhash_opts:?}");
        }
    }
    println!("output_matches_rhash: compared with {}", rhash.display());
}
