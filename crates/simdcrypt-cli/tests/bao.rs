//! `simdcrypt bao`: the `bao` command's arguments against the `bao` crate's encodings,
//! stdin/stdout, whole-or-nothing output files, corruption, and `scrub`.

mod common;

use std::fs;
use std::io::{Cursor, Read};

use common::{code, data, ok, ok_bytes, run, run_with_stdin, simdcrypt, stderr, TempDir};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn encode_decode_slice_match_the_bao_crate() {
    let dir = TempDir::new("bao");
    for (i, len) in [0usize, 1, 1024, 1025, 70_000, 300_001].into_iter().enumerate() {
        let input = data(len, i as u64 + 1);
        dir.file("in.bin", &input);
        let (crate_encoded, crate_hash) = bao::encode::encode(&input);
        let (crate_ob, _) = bao::encode::outboard(&input);
        let hash = hex(crate_hash.as_bytes());

        assert_eq!(ok(run(simdcrypt(dir.path()).args(["bao", "hash", "in.bin"]))), format!("{hash}\n"));
        assert_eq!(ok(run_with_stdin(simdcrypt(dir.path()).args(["bao", "hash"]), &input)), format!("{hash}\n"));

        ok(run(simdcrypt(dir.path()).args(["bao", "encode", "in.bin", "enc"])));
        assert!(fs::read(dir.path().join("enc")).unwrap() == crate_encoded, "len {len}");
        ok(run_with_stdin(simdcrypt(dir.path()).args(["bao", "encode", "-", "--outboard", "ob"]), &input));
        assert!(fs::read(dir.path().join("ob")).unwrap() == crate_ob);

        // Decoding: a file to a file, stdin to stdout, and with the outboard.
        dir.file("crate.enc", &crate_encoded);
        ok(run(simdcrypt(dir.path()).args(["bao", "decode", &hash, "crate.enc", "out"])));
        assert!(fs::read(dir.path().join("out")).unwrap() == input);
        assert!(
            ok_bytes(run_with_stdin(simdcrypt(dir.path()).args(["bao", "decode", &hash]), &crate_encoded)) == input
        );
        assert!(
            ok_bytes(run(simdcrypt(dir.path()).args(["bao", "decode", &hash, "in.bin", "--outboard", "ob"]))) == input
        );

        // Slices, and decode with --start/--count.
        let (start, count) = (len as u64 / 3, 5000u64);
        let mut crate_slice = Vec::new();
        bao::encode::SliceExtractor::new(Cursor::new(&crate_encoded), start, count)
            .read_to_end(&mut crate_slice)
            .unwrap();
        let (s, c) = (start.to_string(), count.to_string());
        assert!(ok_bytes(run(simdcrypt(dir.path()).args(["bao", "slice", &s, &c, "enc"]))) == crate_slice);
        assert!(
            ok_bytes(run(simdcrypt(dir.path()).args(["bao", "slice", &s, &c, "in.bin", "--outboard", "ob"])))
                == crate_slice
        );
        dir.file("slice", &crate_slice);
        let want = &input[start as usize..(start + count).min(len as u64) as usize];
        let got = ok_bytes(run(simdcrypt(dir.path()).args(["bao", "decode-slice", &hash, &s, &c, "slice"])));
        assert!(got == want);
        let got = ok_bytes(run(
            simdcrypt(dir.path()).args(["bao", "decode", &hash, "enc", "-", "--start", &s, "--count", &c])
        ));
        assert!(got == want);
        let mut theirs = Vec::new();
        bao::decode::SliceDecoder::new(&crate_slice[..], &crate_hash, start, count).read_to_end(&mut theirs).unwrap();
        assert!(theirs == want);
    }
}

#[test]
fn corrupt_input_fails_and_leaves_no_output_file() {
    let dir = TempDir::new("bao-bad");
    let input = data(50_000, 9);
    let (mut encoded, hash) = bao::encode::encode(&input);
    let hash = hex(hash.as_bytes());
    encoded[8 + 64 + 64 + 64 + 64 + 64 + 3000] ^= 1;
    dir.file("bad.enc", &encoded);
    let out = run(simdcrypt(dir.path()).args(["bao", "decode", &hash, "bad.enc", "out"]));
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("verification failed at content offset"), "{}", stderr(&out));
    assert!(!dir.path().join("out").exists());
    // Only the temporary file's absence left: the folder holds the input alone.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);

    // To stdout: only verified bytes come out before the error.
    let out = run(simdcrypt(dir.path()).args(["bao", "decode", &hash, "bad.enc"]));
    assert_eq!(code(&out), 1);
    assert!(input.starts_with(&out.stdout) && out.stdout.len() < input.len());

    // A truncated or extended encoding, a bad hash argument.
    encoded[8 + 64 + 64 + 64 + 64 + 64 + 3000] ^= 1;
    dir.file("short.enc", &encoded[..encoded.len() - 1]);
    let out = run(simdcrypt(dir.path()).args(["bao", "decode", &hash, "short.enc"]));
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("truncated"), "{}", stderr(&out));
    let mut long = encoded.clone();
    long.push(0);
    dir.file("long.enc", &long);
    let out = run(simdcrypt(dir.path()).args(["bao", "decode", &hash, "long.enc"]));
    assert_eq!(code(&out), 1);
    let out = run(simdcrypt(dir.path()).args(["bao", "decode", "abc", "long.enc"]));
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("64 hexadecimal digits"));
    let out = run(simdcrypt(dir.path()).args(["bao", "encode", "long.enc"]));
    assert_eq!(code(&out), 2);
}

#[test]
fn scrub_lists_every_damaged_range() {
    let dir = TempDir::new("bao-scrub");
    let mut input = data(200_000, 3);
    dir.file("f", &input);
    ok(run(simdcrypt(dir.path()).args(["bao", "encode", "f", "--outboard", "f.ob"])));
    let hash = hex(blake3::hash(&input).as_bytes());
    assert_eq!(
        ok(run(simdcrypt(dir.path()).args(["bao", "scrub", &hash, "f", "--outboard", "f.ob"]))),
        "f: OK (200000 bytes)\n"
    );
    input[10] ^= 1;
    input[150_000] ^= 1;
    input[150_001] ^= 1;
    dir.file("f", &input);
    let out = run(simdcrypt(dir.path()).args(["bao", "scrub", &hash, "f", "--outboard", "f.ob"]));
    assert_eq!(code(&out), 1);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "f: damaged bytes 0..1024 (1024 bytes)\nf: damaged bytes 149504..150528 (1024 bytes)\n"
    );
    // Chunk groups: one 16 KiB leaf each.
    ok(run(simdcrypt(dir.path()).args(["bao", "--chunk-group-log", "4", "encode", "f", "--outboard", "g.ob"])));
    let hash = hex(blake3::hash(&input).as_bytes());
    assert_eq!(
        ok(run(simdcrypt(dir.path()).args([
            "bao",
            "scrub",
            &hash,
            "f",
            "--outboard",
            "g.ob",
            "--chunk-group-log",
            "4"
        ]))),
        "f: OK (200000 bytes)\n"
    );
    assert_eq!(fs::metadata(dir.path().join("g.ob")).unwrap().len(), 8 + 12 * 64);
}

#[test]
fn a_failed_streaming_encode_leaves_no_output() {
    let dir = TempDir::new("bao-encode-fail");
    fs::create_dir(dir.path().join("sub")).unwrap();
    // A folder opens but cannot be read: the error names it, and no output appears.
    for args in [["bao", "encode", "sub", "enc"], ["bao", "encode", "sub", "--outboard=ob"]] {
        let out = run(simdcrypt(dir.path()).args(args));
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains("sub"), "{}", stderr(&out));
    }
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["sub"]);
    // A missing input, an output folder that does not exist.
    dir.file("in", &data(5000, 1));
    assert_eq!(code(&run(simdcrypt(dir.path()).args(["bao", "encode", "missing", "enc"]))), 1);
    let out = run(simdcrypt(dir.path()).args(["bao", "encode", "in", "no/such/enc"]));
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("cannot create"), "{}", stderr(&out));
}

#[test]
fn encode_to_stdout_matches_the_bao_crate() {
    let dir = TempDir::new("bao-stdout");
    // More than one 8 MiB window, so that the file is read twice and written front to back.
    let input = data((8 << 20) * 2 + 12_345, 7);
    dir.file("in", &input);
    let (crate_encoded, _) = bao::encode::encode(&input);
    let (crate_ob, _) = bao::encode::outboard(&input);
    assert!(ok_bytes(run(simdcrypt(dir.path()).args(["bao", "encode", "in", "-"]))) == crate_encoded);
    // The outboard goes through a scratch file in $TMPDIR; where none can be made, the file
    // is read twice as for the combined encoding.
    assert!(
        ok_bytes(run(simdcrypt(dir.path()).args(["bao", "-j", "2", "encode", "in", "--outboard", "-"]))) == crate_ob
    );
    let no_tmp = dir.path().join("no-such-folder");
    assert!(
        ok_bytes(run(simdcrypt(dir.path()).env("TMPDIR", &no_tmp).args(["bao", "encode", "in", "--outboard", "-"])))
            == crate_ob
    );
    // Standard output a file: sent there as into a pipe (`sendfile`); a file opened to
    // append, which `sendfile` refuses, gets the bytes copied after what it held.
    for append in [false, true] {
        let path = dir.path().join(format!("stdout-{append}"));
        fs::write(&path, b"kept\n").unwrap();
        let file = fs::OpenOptions::new().write(true).append(append).open(&path).unwrap();
        let out = simdcrypt(dir.path()).args(["bao", "encode", "in", "--outboard", "-"]).stdout(file).output().unwrap();
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let mut expected = if append { b"kept\n".to_vec() } else { Vec::new() };
        expected.extend_from_slice(&crate_ob);
        assert!(fs::read(&path).unwrap() == expected, "standard output a file, append: {append}");
    }
    // From standard input (in memory).
    let small = data(70_000, 8);
    let (crate_small, _) = bao::encode::encode(&small);
    assert!(ok_bytes(run_with_stdin(simdcrypt(dir.path()).args(["bao", "encode", "-", "-"]), &small)) == crate_small);
}
