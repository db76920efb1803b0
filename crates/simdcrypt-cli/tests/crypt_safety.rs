//! `encrypt` / `decrypt` leave nothing behind and refuse unsafe targets: each of SIGKILL,
//! SIGTERM, SIGINT and SIGHUP at several points of a run (input through a slow pipe, so the
//! run is in the middle of its work) leaves the output folder exactly as it was, with the
//! unnamed O_TMPFILE output and with the named-temporary fallback; `keygen -o -`; OUT a
//! folder or IN itself; passphrases (small Argon2id parameters, carried by the header);
//! version-1 files; thread counts; progress never writes escape codes off a terminal.

mod common;

use common::*;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

const CHEAP: [&str; 6] = ["--argon2-memory", "8", "--argon2-iterations", "1", "--argon2-parallelism", "1"];

fn keygen(dir: &Path, name: &str) {
    ok(run(simdcrypt(dir).args(["keygen", "-o", name])));
}

#[test]
fn keygen_to_stdout() {
    let dir = TempDir::new("safety-keygen");
    let key = ok_bytes(run(simdcrypt(dir.path()).args(["keygen", "-o", "-"])));
    assert_eq!(key.len(), 32);
    assert!(listing(dir.path()).is_empty(), "no file named '-'");
    // The key works as a key file.
    dir.file("k", &key);
    dir.file("p", b"hello");
    ok(run(simdcrypt(dir.path()).args(["encrypt", "-k", "k", "p", "-o", "e"])));
}

#[test]
fn refuses_folders_and_the_input_itself() {
    let dir = TempDir::new("safety-targets");
    let d = dir.path();
    keygen(d, "k");
    dir.file("plain", b"precious");
    fs::create_dir(d.join("sub")).unwrap();
    for force in [false, true] {
        let mut args = vec!["encrypt", "-k", "k", "plain", "-o", "sub"];
        if force {
            args.push("--force");
        }
        let o = run(simdcrypt(d).args(&args));
        assert_eq!(code(&o), 1);
        assert!(stderr(&o).contains("sub is a directory"), "{}", stderr(&o));
        // The same file, by its name, by a hard link and by a symbolic link.
        fs::hard_link(d.join("plain"), d.join("hard")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("plain", d.join("soft")).unwrap();
        for out in ["plain", "hard", "soft"] {
            for verb in ["encrypt", "decrypt"] {
                let o = run(simdcrypt(d).args([verb, "-k", "k", "plain", "-o", out, "--force"]));
                assert_eq!(code(&o), 1, "{verb} -o {out}");
                assert!(stderr(&o).contains("are the same file"), "{}", stderr(&o));
            }
        }
        assert_eq!(fs::read(d.join("plain")).unwrap(), b"precious");
        fs::remove_file(d.join("hard")).unwrap();
        fs::remove_file(d.join("soft")).unwrap();
    }
    assert_eq!(listing(d), ["k", "plain", "sub"]);
    assert!(listing(&d.join("sub")).is_empty());
}

#[test]
fn passphrases_versions_and_threads() {
    let dir = TempDir::new("safety-pass");
    let d = dir.path();
    dir.file("pw", b"correct horse\n");
    dir.file("pw2", b"correct horse");
    dir.file("other", b"wrong horse\n");
    let plain = data(3 * 65536 + 5, 1);
    dir.file("plain", &plain);
    let mut args = vec!["encrypt", "--passphrase-file", "pw", "plain", "-o", "enc"];
    args.extend(CHEAP);
    ok(run(simdcrypt(d).args(&args)));
    let enc = fs::read(d.join("enc")).unwrap();
    assert_eq!((enc[8], enc[10]), (2, 1), "version 2, Argon2id");
    assert_eq!(enc[48..60], [8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], "the parameters are in the header");
    // One trailing newline is not part of the passphrase.
    for (pw, threads) in [("pw", "1"), ("pw2", "2"), ("pw", "auto")] {
        ok(run(simdcrypt(d).args(["decrypt", "--passphrase-file", pw, "-j", threads, "enc", "-o", "dec", "--force"])));
        assert!(fs::read(d.join("dec")).unwrap() == plain);
    }
    let o = run(simdcrypt(d).args(["decrypt", "--passphrase-file", "other", "enc", "-o", "bad"]));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("header authentication failed"), "{}", stderr(&o));
    keygen(d, "k");
    let o = run(simdcrypt(d).args(["decrypt", "-k", "k", "enc", "-o", "bad"]));
    assert!(stderr(&o).contains("encrypted with a passphrase"), "{}", stderr(&o));
    // Parameters beyond the documented limits are refused when encrypting (usage error).
    let o = run(simdcrypt(d).args([
        "encrypt",
        "--passphrase-file",
        "pw",
        "plain",
        "-o",
        "x",
        "--argon2-memory",
        "2000000",
    ]));
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("outside"), "{}", stderr(&o));
    // Neither key nor passphrase: usage error; an empty passphrase file: refused.
    assert_eq!(code(&run(simdcrypt(d).args(["encrypt", "plain", "-o", "x"]))), 2);
    dir.file("empty", b"\n");
    let o = run(simdcrypt(d).args(["encrypt", "--passphrase-file", "empty", "plain", "-o", "x"]));
    assert!(stderr(&o).contains("passphrase is empty"), "{}", stderr(&o));
    // A version-1 file written by the library's version-1 encoder still decrypts.
    let key: [u8; 32] = fs::read(d.join("k")).unwrap().try_into().unwrap();
    let mut v1 = Vec::new();
    simdcrypt::salsa20::sealed_stream::encrypt(&key, &[7; 16], &plain[..], &mut v1).unwrap();
    assert_eq!(v1[8], 1);
    dir.file("v1", &v1);
    ok(run(simdcrypt(d).args(["decrypt", "-k", "k", "v1", "-o", "dec", "--force"])));
    assert!(fs::read(d.join("dec")).unwrap() == plain);
    // Off a terminal --progress prints nothing (ok() asserts an empty stderr).
    ok(run(simdcrypt(d).args(["encrypt", "-k", "k", "plain", "-o", "e2", "--progress", "-j", "2"])));
    assert!(ok_bytes(run(simdcrypt(d).args(["decrypt", "-k", "k", "e2", "-o", "-", "--progress"]))) == plain);
    assert_eq!(listing(d), ["dec", "e2", "empty", "enc", "k", "other", "plain", "pw", "pw2", "v1"]);
}

/// Waits until `child` has an open descriptor on a file in `dir` (its output), so that
/// a signal then comes in the middle of the run.
fn wait_for_output_open(child: &Child, dir: &Path) -> bool {
    let fds = format!("/proc/{}/fd", child.id());
    let dir = fs::canonicalize(dir).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(entries) = fs::read_dir(&fds) {
            for e in entries.flatten() {
                if let Ok(target) = fs::read_link(e.path()) {
                    if target.starts_with(&dir) {
                        return true;
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// Runs `args` with `input` fed through a pipe: `fed` bytes, then waits for the output
/// to be open, sends `signal`, and checks that the folder is as it was.
fn kill_mid_run(dir: &Path, args: &[&str], input: &[u8], fed: usize, signal: i32, named_fallback: bool) {
    let before = listing(dir);
    let mut cmd = simdcrypt(dir);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
    if named_fallback {
        cmd.env("SIMDCRYPT_NO_O_TMPFILE", "1");
    }
    let mut child: Child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(&input[..fed]).unwrap();
    assert!(wait_for_output_open(&child, dir), "{args:?}: the output was never opened");
    if named_fallback {
        assert!(listing(dir).len() > before.len(), "{args:?}: the named temporary file exists mid-run");
    }
    // Give the run a moment to work on what it has.
    std::thread::sleep(Duration::from_millis(20));
    // SAFETY: kill(2) on the pid of our own child, which we have not reaped yet.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let status = child.wait().unwrap();
    drop(pipe);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(signal), "{args:?}: ended by the signal itself ({status:?})");
    assert_eq!(listing(dir), before, "{args:?} fed {fed} killed by {signal}: the folder is as it was");
}

#[test]
#[cfg(target_os = "linux")]
fn signals_leave_nothing_behind() {
    let dir = TempDir::new("safety-signals");
    let d = dir.path();
    keygen(d, "k");
    let plain = data(4 << 20, 3);
    dir.file("plain", &plain);
    ok(run(simdcrypt(d).args(["encrypt", "-k", "k", "plain", "-o", "enc"])));
    let enc = fs::read(d.join("enc")).unwrap();
    fs::remove_file(d.join("plain")).unwrap();
    let enc_args = ["encrypt", "-k", "k", "-", "-o", "out"];
    let dec_args = ["decrypt", "-k", "k", "-", "-o", "out"];
    let mut runs = 0;
    for named_fallback in [false, true] {
        for signal in [libc::SIGKILL, libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            if named_fallback && signal == libc::SIGKILL {
                // No process can clean up after SIGKILL: that is what O_TMPFILE is for.
                continue;
            }
            // Before any input, after a few chunks, after most of the input.
            for fed in [0, 300_000, 3 << 20] {
                kill_mid_run(d, &enc_args, &plain, fed, signal, named_fallback);
                kill_mid_run(d, &dec_args, &enc, fed, signal, named_fallback);
                runs += 2;
            }
        }
    }
    println!("{runs} runs killed mid-way, folder unchanged each time");
    assert_eq!(listing(d), ["enc", "k"]);
}

#[test]
fn failed_decrypt_leaves_no_plaintext_with_either_output_kind() {
    let dir = TempDir::new("safety-fail");
    let d = dir.path();
    keygen(d, "k");
    let plain = data(40 * 65536, 4);
    dir.file("plain", &plain);
    ok(run(simdcrypt(d).args(["encrypt", "-k", "k", "plain", "-o", "enc"])));
    let mut bad = fs::read(d.join("enc")).unwrap();
    let n = bad.len();
    bad[n - 10] ^= 1;
    dir.file("bad", &bad);
    for fallback in ["0", "1"] {
        for threads in ["1", "2"] {
            let o = run(simdcrypt(d)
                .env("SIMDCRYPT_NO_O_TMPFILE", fallback)
                .args(["decrypt", "-k", "k", "-j", threads, "bad", "-o", "out"]));
            assert_eq!(code(&o), 1);
            assert!(stderr(&o).contains("authentication failed at chunk 39"), "{}", stderr(&o));
            assert_eq!(listing(d), ["bad", "enc", "k", "plain"]);
        }
    }
    // --force replaces atomically; the fallback too.
    for fallback in ["0", "1"] {
        dir.file("out", b"old");
        ok(run(simdcrypt(d)
            .env("SIMDCRYPT_NO_O_TMPFILE", fallback)
            .args(["decrypt", "-k", "k", "enc", "-o", "out", "--force"])));
        assert!(fs::read(d.join("out")).unwrap() == plain);
        fs::remove_file(d.join("out")).unwrap();
        ok(run(simdcrypt(d).env("SIMDCRYPT_NO_O_TMPFILE", fallback).args(["decrypt", "-k", "k", "enc", "-o", "out"])));
        assert!(fs::read(d.join("out")).unwrap() == plain);
        fs::remove_file(d.join("out")).unwrap();
    }
    assert_eq!(listing(d), ["bad", "enc", "k", "plain"]);
}
