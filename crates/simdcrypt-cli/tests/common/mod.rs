//! Helpers shared by the CLI's integration tests: temporary directories, running the built
//! binary, reading its output, deterministic data.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!("simdcrypt-cli-test-{tag}-{}-{n}-{nanos}", std::process::id()));
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `data` to `name` inside the directory.
    pub fn file(&self, name: impl AsRef<Path>, data: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, data).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The binary, run in `dir`.
pub fn simdcrypt(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_simdcrypt"));
    cmd.current_dir(dir);
    cmd
}

/// Runs `cmd` with `stdin` as its standard input.
pub fn run_with_stdin(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // Write from another thread so a large input cannot deadlock against stdout.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

pub fn run(cmd: &mut Command) -> Output {
    run_with_stdin(cmd, b"")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("killed by a signal")
}

/// Asserts success with nothing on stderr; returns stdout as bytes.
pub fn ok_bytes(o: Output) -> Vec<u8> {
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "unexpected stderr: {}", stderr(&o));
    o.stdout
}

/// Asserts success with nothing on stderr; returns stdout as text.
pub fn ok(o: Output) -> String {
    String::from_utf8(ok_bytes(o)).unwrap()
}

/// Deterministic test data.
pub fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
