//! End-to-end tests of the built `simdcrypt` binary.
//!
//! Expected digests come from the `blake3` crate and expected lines are formatted here,
//! independently of the CLI's code. With `B3SUM=/path/to/b3sum` the output is also compared
//! byte for byte with the official b3sum; `SIMDCRYPT_REQUIRE_B3SUM=1` makes that mandatory.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

mod common;
use common::*;

mod blake3_lines;
use blake3_lines::*;

// ---------------------------------------------------------------------------------------
// sum
// ---------------------------------------------------------------------------------------

#[test]
fn sum_matches_reference_for_many_sizes() {
    let (dir, files) = sized_files("sizes");
    let out = ok(run(simdcrypt(dir.path()).arg("sum").args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::Hash, 32, false));

    let out = ok(run(simdcrypt(dir.path()).args(["sum", "--tag"]).args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::Hash, 32, true));

    // Explicit algorithm, any case.
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-a", "BLAKE3"]).args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::Hash, 32, false));
}

#[test]
fn sum_output_lengths() {
    let (dir, files) = sized_files("lengths");
    for len in [0usize, 1, 31, 32, 33, 64, 100, 1000] {
        for tag in [false, true] {
            let mut cmd = simdcrypt(dir.path());
            cmd.args(["sum", "-l", &len.to_string()]).args(names(&files));
            if tag {
                cmd.arg("--tag");
            }
            let out = ok(run(&mut cmd));
            assert_eq!(out, expected_lines(&files, Mode::Hash, len, tag), "-l {len} tag {tag}");
        }
    }
    // -l 0 prints an empty hash, as b3sum does.
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-l", "0", "f1"])));
    assert_eq!(out, "  f1\n");
}

#[test]
fn sum_reads_stdin() {
    let dir = TempDir::new("stdin");
    let input = data(100_000, 7);
    let digest = reference(Mode::Hash, &input, 32);
    let out = ok(run_with_stdin(simdcrypt(dir.path()).arg("sum"), &input));
    assert_eq!(out, line(&digest, "-", false));
    let out = ok(run_with_stdin(simdcrypt(dir.path()).args(["sum", "-"]), &input));
    assert_eq!(out, line(&digest, "-", false));
    let out = ok(run_with_stdin(simdcrypt(dir.path()).args(["sum", "--tag", "-l", "40", "-"]), &input));
    assert_eq!(out, line(&reference(Mode::Hash, &input, 40), "-", true));

    // `-` among files.
    dir.file("x", b"xyz");
    let out = ok(run_with_stdin(simdcrypt(dir.path()).args(["sum", "x", "-", "x"]), &input));
    let x = line(&reference(Mode::Hash, b"xyz", 32), "x", false);
    assert_eq!(out, format!("{x}{}{x}", line(&digest, "-", false)));
}

#[test]
fn sum_keyed_and_derive_key() {
    let (dir, files) = sized_files("keyed");
    let key: [u8; 32] = data(32, 99).try_into().unwrap();
    dir.file("key", &key);

    let out = ok(run(simdcrypt(dir.path()).args(["sum", "--key-file", "key"]).args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::Keyed(&key), 32, false));
    // Cross-check one against the reference one-shot function.
    let keyed = hex(blake3::keyed_hash(&key, &files[3].1).as_bytes());
    assert!(out.contains(&line(&keyed, &files[3].0, false)));

    let out =
        ok(run(simdcrypt(dir.path()).args(["sum", "--key-file", "key", "-l", "100", "--tag"]).args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::Keyed(&key), 100, true));

    // The key may come from stdin.
    let out = ok(run_with_stdin(simdcrypt(dir.path()).args(["sum", "--key-file", "-"]).args(names(&files)), &key));
    assert_eq!(out, expected_lines(&files, Mode::Keyed(&key), 32, false));

    let context = "simdcrypt-cli test 2024-01-01 derive key";
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "--derive-key", context]).args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::DeriveKey(context), 32, false));
    let derived = hex(&blake3::derive_key(context, &files[4].1));
    assert!(out.contains(&line(&derived, &files[4].0, false)));

    let out = ok(run(simdcrypt(dir.path()).args(["sum", "--derive-key", context, "-l", "64"]).args(names(&files))));
    assert_eq!(out, expected_lines(&files, Mode::DeriveKey(context), 64, false));
}

#[test]
fn every_backend_and_thread_setting_gives_the_same_output() {
    let (dir, files) = sized_files("backends");
    let expected = expected_lines(&files, Mode::Hash, 32, false);
    let expected_long = expected_lines(&files, Mode::Hash, 200, true);
    let report = simdcrypt::backend_report();
    let blake3 = report.iter().find(|r| r.algorithm == "blake3").expect("blake3 in backend_report");
    let mut ran = Vec::new();
    for backend in &blake3.supported {
        for threads in ["1", "2", "auto"] {
            let out = ok(run(simdcrypt(dir.path())
                .args(["sum", "--backend", backend, "--threads", threads])
                .args(names(&files))));
            assert_eq!(out, expected, "backend {backend}, threads {threads}");
        }
        let out = ok(run(simdcrypt(dir.path())
            .args(["sum", "--backend", backend, "-l", "200", "--tag"])
            .args(names(&files))));
        assert_eq!(out, expected_long, "backend {backend}, -l 200");
        ran.push(*backend);
    }
    assert!(ran.contains(&"portable"));
    println!("backends run through the CLI: {}", ran.join(", "));
}

#[cfg(unix)]
#[test]
fn sum_escapes_special_names() {
    let dir = TempDir::new("escape");
    let names = ["new\nline", "back\\slash", "both\\\nof\\them", "cr\rname", "plain name"];
    for (i, name) in names.iter().enumerate() {
        dir.file(name, &data(i * 10, i as u64));
    }
    for tag in [false, true] {
        let mut cmd = simdcrypt(dir.path());
        cmd.arg("sum").args(names);
        if tag {
            cmd.arg("--tag");
        }
        let out = ok(run(&mut cmd));
        let expected: String = names
            .iter()
            .enumerate()
            .map(|(i, name)| line(&reference(Mode::Hash, &data(i * 10, i as u64), 32), name, tag))
            .collect();
        assert_eq!(out, expected);
    }
    // Spot-check the exact bytes of one escaped line.
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-l", "1", "back\\slash"])));
    let h = reference(Mode::Hash, &data(10, 1), 1);
    assert_eq!(out, format!("\\{h}  back\\\\slash\n"));
}

#[cfg(unix)]
#[test]
fn sum_converts_non_utf8_names_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("lossy");
    let name = OsStr::from_bytes(b"bad\xffname");
    if fs::write(dir.path().join(name), b"abc").is_err() {
        println!("filesystem rejects non-UTF-8 names; skipped");
        return;
    }
    let out = ok(run(simdcrypt(dir.path()).arg("sum").arg(name)));
    assert_eq!(out, line(&reference(Mode::Hash, b"abc", 32), "bad\u{FFFD}name", false));
}

// ---------------------------------------------------------------------------------------
// b3sum comparison
// ---------------------------------------------------------------------------------------

#[test]
fn output_is_byte_identical_to_b3sum() {
    let b3sum = match std::env::var_os("B3SUM") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => {
            if std::env::var("SIMDCRYPT_REQUIRE_B3SUM").is_ok_and(|v| v == "1") {
                panic!("SIMDCRYPT_REQUIRE_B3SUM=1 but B3SUM does not name a b3sum binary");
            }
            eprintln!(
                "NOTICE: B3SUM is not set; skipping the byte-for-byte comparison with b3sum \
                 (set B3SUM=/path/to/b3sum to run it)"
            );
            return;
        }
    };
    let (dir, files) = sized_files("b3sum");
    let mut names: Vec<OsString> = files.iter().map(|(n, _)| n.into()).collect();
    let mut extra = vec!["with space", "dash-", "x) = y"];
    if cfg!(unix) {
        extra.extend(["new\nline", "back\\slash", "a\\b\nc\rd", "cr\rx"]);
    }
    for (i, name) in extra.iter().enumerate() {
        dir.file(name, &data(1000 + i, 500 + i as u64));
        names.push(name.into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let lossy = OsStr::from_bytes(b"not\xffutf8\n");
        if fs::write(dir.path().join(lossy), b"lossy").is_ok() {
            names.push(lossy.into());
        }
    }
    let key: [u8; 32] = data(32, 4242).try_into().unwrap();
    dir.file("the.key", &key);
    let stdin_data = data(70_000, 3);

    let compare = |b3_args: &[OsString], our_args: &[OsString], b3_stdin: &[u8], our_stdin: &[u8]| {
        let theirs = run_with_stdin(Command::new(&b3sum).current_dir(dir.path()).args(b3_args), b3_stdin);
        let ours = run_with_stdin(simdcrypt(dir.path()).arg("sum").args(our_args), our_stdin);
        assert_eq!(code(&theirs), 0, "b3sum {b3_args:?} failed: {}", stderr(&theirs));
        assert_eq!(code(&ours), 0, "sum {our_args:?}: {}", stderr(&ours));
        assert!(
            ours.stdout == theirs.stdout,
            "output differs for {our_args:?}\n--- b3sum:\n{}\n--- simdcrypt:\n{}",
            String::from_utf8_lossy(&theirs.stdout),
            String::from_utf8_lossy(&ours.stdout)
        );
    };
    // Options, then names.
    let argv = |opts: &[&str], names: &[OsString]| -> Vec<OsString> {
        opts.iter().map(OsString::from).chain(names.iter().cloned()).collect()
    };

    let option_sets: &[&[&str]] = &[
        &[],
        &["--tag"],
        &["-l", "0"],
        &["-l", "1"],
        &["-l", "64"],
        &["-l", "100", "--tag"],
        &["--derive-key", "b3sum comparison context"],
        &["--derive-key", "ctx", "-l", "77", "--tag"],
    ];
    for opts in option_sets {
        let with_names = argv(opts, &names);
        compare(&with_names, &with_names, b"", b"");
        // Standard input, implicit and explicit.
        let alone = argv(opts, &[]);
        compare(&alone, &alone, &stdin_data, &stdin_data);
        let with_dash = argv(opts, &["-".into()]);
        compare(&with_dash, &with_dash, &stdin_data, &stdin_data);
    }
    // Keyed: b3sum reads the key from stdin, we from a file.
    for opts in [&[][..], &["--tag"][..], &["-l", "50"][..]] {
        let b3 = argv(&[&["--keyed"][..], opts].concat(), &names);
        let ours = argv(&[&["--key-file", "the.key"][..], opts].concat(), &names);
        compare(&b3, &ours, &key, b"");
    }

    // A missing file among good ones: same stdout and exit status.
    let theirs = run(Command::new(&b3sum).current_dir(dir.path()).args(["f0", "missing", "f1"]));
    let ours = run(simdcrypt(dir.path()).args(["sum", "f0", "missing", "f1"]));
    assert_eq!(ours.stdout, theirs.stdout);
    assert_eq!(code(&ours), code(&theirs));
    println!("compared with {} on {} names and {} option sets", b3sum.display(), names.len(), option_sets.len() + 3);
}

// ---------------------------------------------------------------------------------------
// sum errors
// ---------------------------------------------------------------------------------------

#[test]
fn missing_file_and_directory_are_reported_and_skipped() {
    let dir = TempDir::new("missing");
    dir.file("a", b"aaa");
    dir.file("b", b"bbb");
    fs::create_dir(dir.path().join("subdir")).unwrap();
    let o = run(simdcrypt(dir.path()).args(["sum", "a", "nope", "b"]));
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        format!(
            "{}{}",
            line(&reference(Mode::Hash, b"aaa", 32), "a", false),
            line(&reference(Mode::Hash, b"bbb", 32), "b", false)
        )
    );
    assert_eq!(stderr(&o), "simdcrypt: nope: No such file or directory\n");

    let o = run(simdcrypt(dir.path()).args(["sum", "subdir", "a"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), line(&reference(Mode::Hash, b"aaa", 32), "a", false));
    if cfg!(unix) {
        assert_eq!(stderr(&o), "simdcrypt: subdir: Is a directory\n");
    } else {
        assert!(stderr(&o).starts_with("simdcrypt: subdir: "));
    }
    assert!(!stderr(&o).contains("os error"));
}

#[cfg(unix)]
#[test]
fn unreadable_file_reports_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("perm");
    let p = dir.file("secret", b"s");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&p).is_ok() {
        println!("running with privileges that ignore file modes; skipped");
        return;
    }
    let o = run(simdcrypt(dir.path()).args(["sum", "secret"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o), "simdcrypt: secret: Permission denied\n");
}

#[test]
fn bad_key_files_stop_before_hashing() {
    let dir = TempDir::new("badkey");
    dir.file("a", b"aaa");
    dir.file("k31", &[7u8; 31]);
    dir.file("k33", &[7u8; 33]);
    for (file, got) in [("k31", 31), ("k33", 33)] {
        let o = run(simdcrypt(dir.path()).args(["sum", "--key-file", file, "a"]));
        assert_eq!(code(&o), 1);
        assert!(o.stdout.is_empty());
        assert_eq!(stderr(&o), format!("simdcrypt: key file {file}: blake3 key must be 32 bytes, got {got}\n"));
    }
    let o = run(simdcrypt(dir.path()).args(["sum", "--key-file", "nokey", "a"]));
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
    assert_eq!(stderr(&o), "simdcrypt: key file nokey: No such file or directory\n");

    // Key and derive-key together: usage error.
    dir.file("k32", &[7u8; 32]);
    let o = run(simdcrypt(dir.path()).args(["sum", "--key-file", "k32", "--derive-key", "c", "a"]));
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));

    // The key from stdin and stdin as input: usage error.
    let o = run_with_stdin(simdcrypt(dir.path()).args(["sum", "--key-file", "-"]), &[7u8; 32]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("standard input"), "{}", stderr(&o));
}

#[test]
fn unknown_backend_algorithm_and_bad_values() {
    let dir = TempDir::new("unknown");
    dir.file("a", b"aaa");
    let o = run(simdcrypt(dir.path()).args(["sum", "--backend", "no-such-backend", "a"]));
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.starts_with("simdcrypt: "), "{err}");
    assert!(err.contains("no-such-backend"), "{err}");
    // The default algorithm's (blake3's) backends are listed.
    for r in simdcrypt::backend_report().into_iter().filter(|r| r.algorithm == "blake3") {
        for b in r.supported {
            assert!(err.contains(b), "{err} lacks {b}");
        }
    }

    let o = run(simdcrypt(dir.path()).args(["sum", "-a", "md5", "a"]));
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.contains("md5"), "{err}");
    for a in simdcrypt::ALGORITHMS.iter() {
        assert!(err.contains(a), "{err} lacks {a}");
    }

    for bad in [&["--threads", "0"][..], &["--threads", "many"], &["-l", "-1"], &["--bogus"]] {
        let o = run(simdcrypt(dir.path()).arg("sum").args(bad).arg("a"));
        assert_eq!(code(&o), 2, "{bad:?}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn closed_stdout_exits_quietly() {
    let dir = TempDir::new("pipe");
    dir.file("a", b"aaa");
    // One huge line, and many lines: both far more than a pipe buffer (256 KiB once the
    // command has grown it: pipes.rs) and our own buffer hold.
    let manifest = line(&reference(Mode::Hash, b"aaa", 32), "a", false).repeat(250_000);
    dir.file("manifest", manifest.as_bytes());
    let cases: [&[&str]; 2] = [&["sum", "-l", "1000000", "a"], &["check", "manifest"]];
    for args in cases {
        let mut child = simdcrypt(dir.path())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = Vec::new();
        reader.read_until(b'a', &mut first).unwrap();
        drop(reader);
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("RUST_BACKTRACE"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
        // The output is far larger than the pipe can hold, so the write did fail: the
        // documented status for output closed early is 1 (a panic would give 101).
        assert_eq!(o.status.code(), Some(1), "{args:?}");
    }
}

// ---------------------------------------------------------------------------------------
// backends, help, version
// ---------------------------------------------------------------------------------------

#[test]
fn backends_lists_features_and_backends() {
    let dir = TempDir::new("backendscmd");
    let out = ok(run(simdcrypt(dir.path()).arg("backends").env_remove("SIMDCRYPT_DISABLE")));
    let hardware: Vec<&str> = simdcrypt::cpu::hardware_features().iter().map(|f| f.name()).collect();
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("cpu features: "), "{out}");
    for f in &hardware {
        assert!(first.split(' ').any(|w| w == *f), "{f} missing from {first}");
    }
    assert!(!out.contains("SIMDCRYPT_DISABLE"), "{out}");

    // Whatever this process sees (same environment) is what the binary reports.
    let env_disable = std::env::var_os("SIMDCRYPT_DISABLE");
    let out = ok(run(simdcrypt(dir.path()).arg("backends")));
    if env_disable.is_none() {
        for r in simdcrypt::backend_report() {
            let expected = format!("{}: selected {} (supported: {})", r.algorithm, r.selected, r.supported.join(", "));
            assert!(out.lines().any(|l| l == expected), "{expected} not in {out}");
            for (backend, why) in &r.passed_over {
                let line = format!("  passed over {backend}: {why}");
                assert!(out.lines().any(|l| l == line), "{line} not in {out}");
            }
        }
    }

    // Hiding a feature is reported.
    if let Some(f) = hardware.first() {
        let out = ok(run(simdcrypt(dir.path()).arg("backends").env("SIMDCRYPT_DISABLE", f)));
        assert!(out.contains("SIMDCRYPT_DISABLE"), "{out}");
    }

    let json = ok(run(simdcrypt(dir.path()).args(["backends", "--json"])));
    assert!(json.trim_start().starts_with('{') && json.trim_end().ends_with('}'));
    assert!(json.contains("\"algorithm\": \"blake3\""), "{json}");
    assert!(json.contains("\"cpu_features\""), "{json}");
}

#[test]
fn help_and_version() {
    let dir = TempDir::new("help");
    for args in [&["--help"][..], &["sum", "--help"], &["check", "--help"], &["backends", "--help"]] {
        let out = ok(run(simdcrypt(dir.path()).args(args)));
        assert!(out.contains("Usage: simdcrypt"), "{args:?}: {out}");
        assert!(out.contains("Exit status"), "{args:?}: {out}");
    }
    let out = ok(run(simdcrypt(dir.path()).arg("--version")));
    assert_eq!(out, format!("simdcrypt {}\n", env!("CARGO_PKG_VERSION")));
    // No subcommand: usage error.
    let o = run(&mut simdcrypt(dir.path()));
    assert_eq!(code(&o), 2);
}

/// Files large enough for the memory-mapped path, hashed mapped (threads) and read
/// (`--no-mmap`, one thread), under every spelling of the thread option.
#[test]
fn mapped_and_read_paths_agree_on_large_files() {
    let dir = TempDir::new("mmap");
    let files = vec![("big1".to_string(), data((17 << 20) + 3, 41)), ("big2".to_string(), data(64 << 20, 42))];
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let expected = expected_lines(&files, Mode::Hash, 32, false);
    for args in [&["-j", "2"][..], &["--num-threads", "auto"], &["--threads", "2", "--no-mmap"], &["--no-mmap"], &[]] {
        let out = ok(run(simdcrypt(dir.path()).arg("sum").args(args).args(names(&files))));
        assert_eq!(out, expected, "sum {args:?}");
    }
}

/// A large regular file that its filesystem will not map (sysfs's binary files, such as
/// /sys/kernel/btf/vmlinux, answer EACCES to mmap though they read fine): every command
/// that maps large files reads it instead, with the output of the same bytes in an
/// ordinary file. Skipped (and says so) where the kernel has no such file.
#[cfg(target_os = "linux")]
#[test]
fn files_that_cannot_be_mapped_are_read() {
    let sysfs = std::path::Path::new("/sys/kernel/btf/vmlinux");
    let Ok(bytes) = std::fs::read(sysfs) else {
        println!("skipped: {} is not readable here", sysfs.display());
        return;
    };
    if (bytes.len() as u64) < simdcrypt::any::MMAP_MIN_LEN {
        println!("skipped: {} is too small to be mapped", sysfs.display());
        return;
    }
    let dir = TempDir::new("unmappable");
    let copy = dir.file("copy", &bytes);
    for args in [&["sum"][..], &["sum", "-a", "xet"], &["sum", "-j", "1"], &["chunks", "--json"]] {
        let got = ok(run(simdcrypt(dir.path()).args(args).arg(sysfs)));
        let expected = ok(run(simdcrypt(dir.path()).args(args).arg(&copy)));
        let expected = expected.replace(&*copy.to_string_lossy(), &sysfs.to_string_lossy());
        assert_eq!(got, expected, "{args:?}");
    }
    let outboard = |input: &std::path::Path, name: &str| {
        let out = dir.path().join(name);
        ok(run(simdcrypt(dir.path()).args(["bao", "encode"]).arg(input).arg("--outboard").arg(&out)));
        std::fs::read(out).unwrap()
    };
    assert_eq!(outboard(sysfs, "sysfs.obao"), outboard(&copy, "copy.obao"));
}

/// The bytes a pipe holds (F_GETPIPE_SZ), from either end.
#[cfg(target_os = "linux")]
fn pipe_len(fd: &impl std::os::fd::AsRawFd) -> i32 {
    // SAFETY: F_GETPIPE_SZ takes no argument and only reads the descriptor's pipe; the
    // descriptor is open for the duration of the call (borrowed).
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) }
}

/// Standard input and output, where they are pipes, are grown to 256 KiB (pipes.rs), which
/// the other end sees; the hash read through the grown pipe is the file's.
#[cfg(target_os = "linux")]
#[test]
fn standard_pipes_are_grown_to_256_kib() {
    let max: i32 = fs::read_to_string("/proc/sys/fs/pipe-max-size").unwrap().trim().parse().unwrap();
    if max < 256 << 10 {
        println!("standard_pipes_are_grown_to_256_kib: SKIPPED, this system's pipe-max-size is {max}");
        return;
    }
    let dir = TempDir::new("pipes");
    let content = data(3 << 20, 12);
    let mut child =
        simdcrypt(dir.path()).args(["sum", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Written while the child runs: it grows both pipes before it reads.
    let writer = std::thread::spawn(move || {
        std::io::Write::write_all(&mut stdin, &content).unwrap();
        stdin
    });
    let stdin = writer.join().unwrap();
    let (grown_in, grown_out) = (pipe_len(&stdin), pipe_len(child.stdout.as_ref().unwrap()));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{}  -\n", blake3::hash(&data(3 << 20, 12)).to_hex()));
    assert_eq!((grown_in, grown_out), (256 << 10, 256 << 10), "pipe lengths seen from this end (stdin, stdout)");
    println!("standard_pipes_are_grown_to_256_kib: stdin and stdout pipes 256 KiB");
}
