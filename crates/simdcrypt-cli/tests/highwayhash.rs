//! End-to-end tests of `simdcrypt sum -a highwayhash64|128|256 --key-file K` and `check`
//! on its manifests, driving the built binary. Expected values come from the `highway`
//! crate, written as the library's byte form (each u64 word little-endian, in order).

use highway::HighwayHash as _;
use simdcrypt::highwayhash::Platform;

mod common;
use common::*;

const KEY: [u8; 32] = *b"0123456789abcdefghijklmnopqrstuv";

fn expected_hex(bits: usize, input: &[u8]) -> String {
    let key = highway::Key(simdcrypt::highwayhash::key_words(&KEY));
    let words: Vec<u64> = match bits {
        64 => vec![highway::HighwayHasher::new(key).hash64(input)],
        128 => highway::HighwayHasher::new(key).hash128(input).to_vec(),
        _ => highway::HighwayHasher::new(key).hash256(input).to_vec(),
    };
    words.iter().flat_map(|w| w.to_le_bytes()).map(|b| format!("{b:02x}")).collect()
}

fn test_files(dir: &TempDir) -> Vec<(String, Vec<u8>)> {
    let files: Vec<(String, Vec<u8>)> = [0usize, 1, 31, 32, 33, 64, 1000, 100_003]
        .iter()
        .enumerate()
        .map(|(i, &n)| (format!("f{i}"), data(n, i as u64)))
        .collect();
    for (name, bytes) in &files {
        dir.file(name, bytes);
    }
    dir.file("key", &KEY);
    files
}

#[test]
fn sum_matches_highway_crate_with_and_without_tag() {
    let dir = TempDir::new("hh-sum");
    let files = test_files(&dir);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for bits in [64, 128, 256] {
        let algo = format!("highwayhash{bits}");
        for tag in [false, true] {
            let mut cmd = simdcrypt(dir.path());
            cmd.args(["sum", "-a", &algo, "--key-file", "key"]).args(&names);
            if tag {
                cmd.arg("--tag");
            }
            let expected: String = files
                .iter()
                .map(|(n, d)| {
                    let hex = expected_hex(bits, d);
                    if tag {
                        format!("HIGHWAYHASH{bits} ({n}) = {hex}\n")
                    } else {
                        format!("{hex}  {n}\n")
                    }
                })
                .collect();
            assert_eq!(ok(run(&mut cmd)), expected, "{algo} tag {tag}");
        }
        // Standard input, and the algorithm name in upper case.
        let input = data(5000, 9);
        let upper = algo.to_uppercase();
        let out = ok(run_with_stdin(simdcrypt(dir.path()).args(["sum", "-a", &upper, "--key-file", "key"]), &input));
        assert_eq!(out, format!("{}  -\n", expected_hex(bits, &input)));
    }
}

#[test]
fn every_backend_gives_the_same_output() {
    let dir = TempDir::new("hh-backends");
    let files = test_files(&dir);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let base = ["sum", "-a", "highwayhash256", "--key-file", "key", "--backend"];
    let reference = ok_bytes(run(simdcrypt(dir.path()).args(base).arg("portable").args(&names)));
    let supported = Platform::all_supported();
    for platform in &supported {
        let o = run(simdcrypt(dir.path()).args(base).arg(platform.name()).args(&names));
        assert_eq!(ok_bytes(o), reference, "backend {}", platform.name());
    }
    let shown: Vec<&str> = supported.iter().map(|p| p.name()).collect();
    println!("every_backend_gives_the_same_output: highwayhash backends exercised: {}", shown.join(", "));
    let report = ok(run(simdcrypt(dir.path()).arg("backends")));
    assert!(report.contains("highwayhash"), "backends output lacks highwayhash:\n{report}");
}

#[test]
fn key_errors() {
    let dir = TempDir::new("hh-errors");
    dir.file("a", b"abc");
    dir.file("short", &[1u8; 31]);
    dir.file("key", &KEY);
    let cases: [(&[&str], &str); 4] = [
        (&["sum", "-a", "highwayhash64", "a"], "highwayhash64 needs a 32-byte key"),
        (&["sum", "-a", "highwayhash128", "--key-file", "short", "a"], "key must be 32 bytes, got 31"),
        (&["sum", "-a", "highwayhash64", "--key-file", "key", "--derive-key", "c", "a"], "cannot be used with"),
        (&["sum", "-a", "highwayhash64", "--key-file", "key", "-l", "16", "a"], "highwayhash64 digests are 8 bytes"),
    ];
    for (args, message) in cases {
        let o = run(simdcrypt(dir.path()).args(args));
        assert_ne!(code(&o), 0, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn sum_then_check_round_trip() {
    let dir = TempDir::new("hh-check");
    let files = test_files(&dir);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let expected_ok: String = names.iter().map(|n| format!("{n}: OK\n")).collect();
    for bits in [64, 128, 256] {
        let algo = format!("highwayhash{bits}");
        for (sum_opts, check_opts) in [(&[][..], &["-a", algo.as_str()][..]), (&["--tag"], &[])] {
            let manifest = ok_bytes(run(simdcrypt(dir.path())
                .args(["sum", "-a", &algo, "--key-file", "key"])
                .args(sum_opts)
                .args(&names)));
            dir.file("SUMS", &manifest);
            let o = run(simdcrypt(dir.path()).args(["check", "--key-file", "key"]).args(check_opts).arg("SUMS"));
            assert_eq!(ok(o), expected_ok, "{algo} {sum_opts:?}");
        }
        // Another key fails every line.
        let manifest =
            ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-a", &algo, "--key-file", "key", "--tag", "f1"])));
        dir.file("SUMS", &manifest);
        dir.file("other", &[5u8; 32]);
        let o = run(simdcrypt(dir.path()).args(["check", "--key-file", "other", "SUMS"]));
        assert_eq!(code(&o), 1);
        assert_eq!(o.stdout, b"f1: FAILED\n");
    }
}
