//! End-to-end tests of `simdcrypt chunks` and `chunks --diff`, driving the built binary.
//!
//! The chunks printed must be the library's (`simdcrypt::chunking::chunk_slice`, itself
//! tested against hf_xet and the fastcdc crate in the library's tests) for every output
//! form, -j and standard input; chunk digests are checked against the blake3 and sha2
//! crates over the chunk's bytes. `--diff` is checked on an appended and an edited file, and
//! every malformed manifest and unreadable input must be a clear error with exit status 1
//! and nothing on stdout.

use std::fs;

use serde_json::Value;
use sha2::Digest;
use simdcrypt::chunking::{self, ChunkDigest, ChunkOptions, Chunker};

mod common;
use common::*;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn opts(chunker: Chunker, digest: ChunkDigest) -> ChunkOptions {
    ChunkOptions::new(chunker, digest)
}

/// The lines `chunks` should print for `data` named `name`.
fn expected_lines(data: &[u8], o: &ChunkOptions, name: &str) -> String {
    chunking::chunk_slice(data, o)
        .iter()
        .map(|c| match o.digest {
            ChunkDigest::None => format!("{} {}  {name}\n", c.offset, c.len),
            _ => format!("{} {} {}  {name}\n", c.offset, c.len, hex(&c.digest)),
        })
        .collect()
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn lines_are_the_library_chunks_for_every_digest_backend_thread_count_and_stdin() {
    let dir = TempDir::new("chunks-lines");
    let names: Vec<&str> = chunking::Platform::all_supported().into_iter().map(|p| p.name()).collect();
    println!("chunks --backend: gear backends exercised: {}", names.join(", "));
    // Sizes around Xet's and FastCDC's minimum and maximum chunk lengths, and several chunks.
    let fastcdc = Chunker::fastcdc2020(4096, 16384, 65536, 2).unwrap();
    for (chunker, args) in [
        (Chunker::Xet, vec![]),
        (fastcdc, vec!["--chunker", "fastcdc2020", "--min", "4K", "--avg", "16384", "--max", "64K", "--level", "2"]),
    ] {
        let sizes =
            [0, 1, chunker.min_len() as usize, chunker.max_len() as usize, chunker.max_len() as usize + 1, 700_001];
        for (i, &n) in sizes.iter().enumerate() {
            let data = data(n, i as u64 + 1);
            let name = format!("f{n}");
            dir.file(&name, &data);
            for (digest, flag) in [
                (ChunkDigest::Xet, "xet"),
                (ChunkDigest::Blake3, "blake3"),
                (ChunkDigest::Sha256, "sha256"),
                (ChunkDigest::None, "none"),
            ] {
                let want = expected_lines(&data, &opts(chunker, digest), &name);
                for j in ["1", "3"] {
                    let got = ok(run(simdcrypt(dir.path())
                        .args(["chunks", "--digest", flag, "-j", j])
                        .args(&args)
                        .arg(&name)));
                    assert_eq!(got, want, "{} {flag} -j {j} size {n}", chunker.name());
                }
                if n == 700_001 {
                    let got =
                        ok(run_with_stdin(simdcrypt(dir.path()).args(["chunks", "--digest", flag]).args(&args), &data));
                    assert_eq!(got, expected_lines(&data, &opts(chunker, digest), "-"), "stdin");
                }
            }
        }
    }
}

#[test]
fn digests_are_those_of_the_chunk_bytes() {
    let dir = TempDir::new("chunks-digests");
    let data = data(400_000, 7);
    dir.file("f", &data);
    for (flag, of) in [
        ("blake3", (|b: &[u8]| hex(blake3::hash(b).as_bytes())) as fn(&[u8]) -> String),
        ("sha256", |b: &[u8]| hex(&sha2::Sha256::digest(b))),
    ] {
        let out = ok(run(simdcrypt(dir.path()).args(["chunks", "--digest", flag, "f"])));
        let mut end = 0usize;
        for line in out.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (offset, len): (usize, usize) = (fields[0].parse().unwrap(), fields[1].parse().unwrap());
            assert_eq!(offset, end, "chunks must follow each other");
            assert_eq!(fields[2], of(&data[offset..offset + len]), "{flag} of chunk at {offset}");
            end += len;
        }
        assert_eq!(end, data.len());
    }
}

#[test]
fn json_manifest_has_parameters_size_xet_hash_and_chunks() {
    let dir = TempDir::new("chunks-json");
    let a = data(300_000, 3);
    let b = data(5, 4);
    dir.file("a", &a);
    dir.file("b", &b);
    let out = ok(run(simdcrypt(dir.path()).args(["chunks", "--json", "a", "b"])));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "one manifest line per file: {out}");
    for (line, (name, data)) in lines.iter().zip([("a", &a), ("b", &b)]) {
        let v = json_of(line);
        assert_eq!(v["path"], name);
        assert_eq!(v["size"], data.len() as u64);
        assert_eq!(v["chunker"]["name"], "xet");
        assert_eq!(v["chunker"]["min"], Chunker::Xet.min_len());
        assert_eq!(v["chunker"]["max"], Chunker::Xet.max_len());
        assert_eq!(v["digest"], "xet");
        let lib = chunking::chunk_slice(data, &opts(Chunker::Xet, ChunkDigest::Xet));
        assert_eq!(v["xet_hash"], chunking::xet_hash_slice(data).to_hex());
        let chunks = v["chunks"].as_array().unwrap();
        assert_eq!(chunks.len(), lib.len());
        for (c, l) in chunks.iter().zip(&lib) {
            assert_eq!(c["offset"], l.offset);
            assert_eq!(c["length"], l.len);
            assert_eq!(c["digest"], hex(&l.digest));
        }
    }
    // FastCDC: its parameters are recorded; no Xet hash for another chunker or digest.
    let out = ok(run(simdcrypt(dir.path()).args([
        "chunks",
        "--json",
        "--chunker",
        "fastcdc2020",
        "--avg",
        "32K",
        "--digest",
        "none",
        "a",
    ])));
    let v = json_of(&out);
    assert_eq!(v["chunker"]["name"], "fastcdc2020");
    assert_eq!(v["chunker"]["avg"], 32768);
    assert!(v["chunker"]["level"].is_u64() && v["chunker"]["min"].is_u64() && v["chunker"]["max"].is_u64());
    assert_eq!(v["digest"], "none");
    assert!(v.get("xet_hash").is_none());
    assert!(v["chunks"][0].get("digest").is_none());
}

/// `chunks --json FILE > OLD.json` in `dir`.
fn manifest(dir: &TempDir, file: &str, extra: &[&str]) -> String {
    let out = ok(run(simdcrypt(dir.path()).args(["chunks", "--json"]).args(extra).arg(file)));
    let path = format!("{file}.json");
    fs::write(dir.path().join(&path), &out).unwrap();
    path
}

fn diff(dir: &TempDir, old: &str, new: &str) -> Value {
    json_of(&ok(run(simdcrypt(dir.path()).args(["chunks", "--json", "--diff", old, new]))))
}

#[test]
fn diff_counts_reused_new_and_dropped_chunks() {
    let dir = TempDir::new("chunks-diff");
    let old = data(2_000_000, 11);
    let mut appended = old.clone();
    appended.extend(data(300_000, 12));
    let mut edited = old.clone();
    edited[1_000_000..1_000_100].copy_from_slice(&data(100, 13));
    dir.file("old", &old);
    dir.file("appended", &appended);
    dir.file("edited", &edited);
    for extra in [&[][..], &["--chunker", "fastcdc2020", "--digest", "sha256"][..]] {
        let m = manifest(&dir, "old", extra);
        let same = diff(&dir, &m, "old");
        assert_eq!(same["new_chunks"], 0);
        assert_eq!(same["dropped_chunks"], 0);
        assert_eq!(same["reused_bytes"], old.len() as u64);
        for (name, data) in [("appended", &appended), ("edited", &edited)] {
            let d = diff(&dir, &m, name);
            let max = d["chunker"]["max"].as_u64().unwrap();
            let (reused, fresh) = (d["reused_bytes"].as_u64().unwrap(), d["new_bytes"].as_u64().unwrap());
            assert_eq!(d["size"], data.len() as u64);
            assert_eq!(reused + fresh, data.len() as u64);
            assert_eq!(
                d["reused_chunks"].as_u64().unwrap() + d["new_chunks"].as_u64().unwrap(),
                d["chunks"].as_u64().unwrap()
            );
            // Content-defined cuts: only the chunks around the change are new.
            let changed = data.len() as u64 - old.len() as u64 + 100;
            assert!(fresh <= changed + 3 * max, "{name} {extra:?}: {d}");
            assert!(reused >= old.len() as u64 - 3 * max, "{name} {extra:?}: {d}");
        }
        let text = ok(run(simdcrypt(dir.path()).args(["chunks", "--diff", &m, "appended"])));
        assert!(text.contains("reused:") && text.contains("new:") && text.contains("dropped:"), "{text}");
    }
}

/// Runs `chunks --diff OLD.json new` on a manifest text; returns stderr after checking the
/// exit status 1 and an empty stdout.
fn diff_error(dir: &TempDir, manifest: &str) -> String {
    fs::write(dir.path().join("bad.json"), manifest).unwrap();
    let o = run(simdcrypt(dir.path()).args(["chunks", "--diff", "bad.json", "new"]));
    assert_eq!(code(&o), 1, "{manifest}: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "{manifest}: stdout {}", stdout(&o));
    stderr(&o)
}

#[test]
fn malformed_manifests_are_refused_naming_the_field() {
    let dir = TempDir::new("chunks-bad");
    dir.file("new", &data(600_000, 5));
    let good = manifest(&dir, "new", &[]);
    let good: Value = json_of(&fs::read_to_string(dir.path().join(good)).unwrap());
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        f(&mut v);
        v.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "empty"),
        ("{\"chunker\":\n{\"name\": \"xet\",,}}".into(), "line 2"),
        ("[1, 2]".into(), "expected a JSON object"),
        (format!("{good}\n{good}"), "more than one manifest"),
        (with(&|v| drop(v.as_object_mut().unwrap().remove("chunker"))), "chunker: missing"),
        (with(&|v| v["chunker"]["name"] = "rabin".into()), "chunker.name"),
        (
            with(&|v| {
                v["chunker"] =
                    serde_json::json!({"name": "fastcdc2020", "min": 8192, "avg": 4096, "max": 65536, "level": 1})
            }),
            "chunker",
        ),
        (
            with(&|v| {
                v["chunker"] = serde_json::json!({"name": "fastcdc2020", "min": 1024, "avg": 4096, "max": 65536})
            }),
            "chunker.level: missing",
        ),
        (with(&|v| v["digest"] = "md5".into()), "digest"),
        (with(&|v| v["digest"] = "none".into()), "digest"),
        (with(&|v| v["size"] = (-1).into()), "size"),
        (with(&|v| v["size"] = 99.into()), "size: 99"),
        (with(&|v| v["chunks"] = "x".into()), "chunks: expected an array"),
        (with(&|v| v["chunks"][0]["digest"] = "zz".into()), "chunks[0].digest"),
        (with(&|v| v["chunks"][1]["offset"] = 1.into()), "chunks[1].offset"),
        (with(&|v| v["chunks"][0]["length"] = 0.into()), "chunks[0].length"),
        (with(&|v| drop(v["chunks"][1].as_object_mut().unwrap().remove("digest"))), "chunks[1].digest: missing"),
    ];
    for (text, needle) in cases {
        let err = diff_error(&dir, &text);
        assert!(err.contains("bad.json") && err.contains(needle), "{text}\n-> {err} (wanted {needle:?})");
    }
}

#[test]
fn unreadable_inputs_are_reported_and_print_nothing() {
    let dir = TempDir::new("chunks-unreadable");
    dir.file("ok", &data(50_000, 9));
    fs::create_dir(dir.path().join("folder")).unwrap();
    for target in ["missing", "folder"] {
        let o = run(simdcrypt(dir.path()).args(["chunks", target]));
        assert_eq!(code(&o), 1);
        assert!(o.stdout.is_empty(), "{target}: {}", stdout(&o));
        assert!(stderr(&o).contains(target), "{}", stderr(&o));
        // The other files are still listed.
        let o = run(simdcrypt(dir.path()).args(["chunks", "--json", target, "ok"]));
        assert_eq!(code(&o), 1);
        assert_eq!(stdout(&o).lines().count(), 1);
        // --diff: a missing NEW, or a missing OLD.json.
        let m = manifest(&dir, "ok", &[]);
        for args in [["--diff", m.as_str(), target], ["--diff", target, "ok"]] {
            let o = run(simdcrypt(dir.path()).arg("chunks").args(args));
            assert_eq!(code(&o), 1, "{args:?}");
            assert!(o.stdout.is_empty() && stderr(&o).contains(target), "{args:?}: {}", stderr(&o));
        }
    }
}

#[test]
fn usage_errors_exit_2_before_reading() {
    let dir = TempDir::new("chunks-usage");
    for args in [
        &["chunks", "--min", "4096", "missing"][..],
        &["chunks", "--level", "1", "missing"],
        &["chunks", "--chunker", "fastcdc2020", "--level", "4", "missing"],
        &["chunks", "--chunker", "fastcdc2020", "--min", "70000", "--avg", "65536", "missing"],
        &["chunks", "--chunker", "fastcdc2020", "--max", "9999999999", "missing"],
        &["chunks", "--chunker", "rabin", "missing"],
        &["chunks", "--digest", "md5", "missing"],
        &["chunks", "--backend", "nope", "missing"],
        &["chunks", "--diff", "missing.json", "a", "b"],
        &["chunks", "--diff", "missing.json", "--chunker", "xet", "a"],
    ] {
        let o = run(simdcrypt(dir.path()).args(args));
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert!(!stderr(&o).contains("missing:"), "{args:?} read a file: {}", stderr(&o));
    }
}

// --- sum -a xet / check: the Hub's file hash ------------------------------------------

#[test]
fn sum_a_xet_prints_the_library_xet_hash_and_check_verifies_it() {
    let dir = TempDir::new("sum-xet");
    let sizes = [0usize, 1, 8191, 8192, 131_072, 131_073, 1_000_000];
    let names: Vec<String> = sizes.iter().map(|n| format!("x{n}")).collect();
    let mut want = String::new();
    let mut tagged = String::new();
    for (i, (n, name)) in sizes.iter().zip(&names).enumerate() {
        let data = data(*n, 100 + i as u64);
        dir.file(name, &data);
        let hex = chunking::xet_hash_slice(&data).to_hex();
        if *n == 0 {
            // hf_xet's hash of an empty file.
            assert_eq!(hex, "0".repeat(64));
        }
        want.push_str(&format!("{hex}  {name}\n"));
        tagged.push_str(&format!("XET ({name}) = {hex}\n"));
    }
    for j in ["1", "4"] {
        assert_eq!(ok(run(simdcrypt(dir.path()).args(["sum", "-a", "xet", "-j", j]).args(&names))), want, "-j {j}");
    }
    assert_eq!(ok(run(simdcrypt(dir.path()).args(["sum", "-a", "xet", "--tag"]).args(&names))), tagged);
    let big = fs::read(dir.path().join("x1000000")).unwrap();
    let stdin = ok(run_with_stdin(simdcrypt(dir.path()).args(["sum", "-a", "xet"]), &big));
    assert_eq!(stdin, format!("{}  -\n", chunking::xet_hash_slice(&big).to_hex()));
    let json = json_of(&ok(run(simdcrypt(dir.path()).args(["sum", "-a", "xet", "--json", "x1000000"]))));
    assert_eq!(json["algorithm"], "xet");
    assert_eq!(json["digest"], chunking::xet_hash_slice(&big).to_hex());
    // chunks --json records the same file hash.
    let manifest = json_of(&ok(run(simdcrypt(dir.path()).args(["chunks", "--json", "x1000000"]))));
    assert_eq!(manifest["xet_hash"], json["digest"]);

    // check: GNU lines with -a xet, BSD lines by their label; a changed file FAILS.
    fs::write(dir.path().join("gnu.txt"), &want).unwrap();
    fs::write(dir.path().join("bsd.txt"), &tagged).unwrap();
    let all_ok: String = names.iter().map(|n| format!("{n}: OK\n")).collect();
    assert_eq!(ok(run(simdcrypt(dir.path()).args(["check", "-a", "xet", "gnu.txt"]))), all_ok);
    assert_eq!(ok(run(simdcrypt(dir.path()).args(["check", "bsd.txt"]))), all_ok);
    let mut changed = big.clone();
    changed[500_000] ^= 1;
    fs::write(dir.path().join("x1000000"), &changed).unwrap();
    let o = run(simdcrypt(dir.path()).args(["check", "bsd.txt"]));
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("x1000000: FAILED"), "{}", stdout(&o));
    // -r: every file under a folder.
    let o = ok(run(simdcrypt(dir.path()).args(["sum", "-a", "xet", "-r", "."])));
    assert!(o.contains(&format!("{}  ./x1000000", chunking::xet_hash_slice(&changed).to_hex())), "{o}");
}
