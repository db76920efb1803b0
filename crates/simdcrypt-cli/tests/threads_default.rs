//! The default thread count (every CPU) against one thread: the same bytes out for every
//! algorithm, file size and command; and a file truncated while the default hashes it is an
//! error for that file, never a crash.

use std::path::PathBuf;

mod common;
use common::*;

/// Sizes around the read block, the 1 MiB mapping threshold and the 64 MiB window.
const SIZES: [usize; 9] =
    [0, 1, 1023, 64 << 10, (1 << 20) - 1, (1 << 20) + 1, 3 << 20, (16 << 20) + 7, (64 << 20) + 4097];

fn files(dir: &TempDir) -> Vec<PathBuf> {
    SIZES.iter().enumerate().map(|(i, &len)| dir.file(format!("f{i}"), &data(len, i as u64 + 1))).collect()
}

#[test]
fn default_threads_print_what_one_thread_prints() {
    let dir = TempDir::new("threads-default");
    let names: Vec<String> = files(&dir).iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
    for algos in ["blake3", "sha256", "streebog256", "gost94", "blake3,sha256"] {
        for extra in [&[][..], &["--no-mmap"][..], &["-l", "100"][..]] {
            if algos != "blake3" && extra.contains(&"-l") {
                continue;
            }
            let run_with = |threads: &[&str]| {
                ok_bytes(run(simdcrypt(dir.path())
                    .arg("sum")
                    .args(["-a", algos])
                    .args(threads)
                    .args(extra)
                    .args(&names)))
            };
            let default = run_with(&[]);
            assert_eq!(default, run_with(&["-j", "1"]), "-a {algos} {extra:?}");
            assert_eq!(default, run_with(&["-j", "2"]), "-a {algos} {extra:?}");
            assert_eq!(default.iter().filter(|&&b| b == b'\n').count(), names.len() * algos.split(',').count());
        }
    }
    // check: the manifest written with one thread checks with the default, and the reverse.
    let manifest = run_with_stdin_ok(&dir, &["sum", "-j", "1"], &names);
    dir.file("m1", &manifest);
    let out = ok(run(simdcrypt(dir.path()).args(["check", "m1"])));
    assert_eq!(out.lines().filter(|l| l.ends_with(": OK")).count(), names.len(), "{out}");
    let manifest = run_with_stdin_ok(&dir, &["sum"], &names);
    dir.file("m2", &manifest);
    let out = ok(run(simdcrypt(dir.path()).args(["check", "-j", "1", "m2"])));
    assert_eq!(out.lines().filter(|l| l.ends_with(": OK")).count(), names.len(), "{out}");
}

fn run_with_stdin_ok(dir: &TempDir, args: &[&str], names: &[String]) -> Vec<u8> {
    ok_bytes(run(simdcrypt(dir.path()).args(args).args(names)))
}

/// A large file is truncated, again and again, while `sum` with the default threads (which
/// maps it) hashes it. Whenever the truncation lands, the process must exit normally: 0
/// with the digest of what it read, or 1 with a message about that file; never a signal.
#[test]
fn truncating_a_file_being_hashed_is_not_a_crash() {
    let dir = TempDir::new("threads-truncate");
    let len = 96 << 20;
    let content = data(len, 7);
    let path = dir.file("big", &content);
    for round in 0..8u64 {
        std::fs::write(&path, &content).unwrap();
        let child = simdcrypt(dir.path())
            .args(["sum", "big"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Rounds spread the truncation over the run (before, during, after the hashing);
        // which of them lands mid-hash depends on the machine, and every outcome below is
        // accepted except a crash.
        std::thread::sleep(std::time::Duration::from_millis(round * 6));
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(4096 * round).unwrap();
        let out = child.wait_with_output().unwrap();
        let status = out.status.code();
        assert!(status.is_some(), "round {round}: killed by a signal: {:?}", out.status);
        if status == Some(1) {
            let err = stderr(&out);
            assert!(err.starts_with("simdcrypt: big: "), "round {round}: {err}");
        } else {
            assert_eq!(status, Some(0), "round {round}: {}", stderr(&out));
        }
    }
}
