//! `any::hash_file`: every access strategy and thread setting gives the official digest, and
//! the mapped path keeps resident memory bounded by its window, not the file size.
//! (Its own test binary, so the memory high-water mark is this test's alone.)

mod common;

use std::io::Write;
use std::path::PathBuf;

use simdcrypt::any::{hash_file, hash_file_with, AnyHasher, FileAccess, HashOptions, MMAP_WINDOW_LEN};
use simdcrypt::threads::Threads;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("simdcrypt-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn hasher(threads: Threads) -> AnyHasher {
    AnyHasher::new("blake3", &HashOptions { threads, ..Default::default() }).unwrap()
}

/// Peak resident memory of this process so far, in bytes (Linux only).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn every_access_strategy_gives_the_official_digest_with_bounded_memory() {
    let dir = TempDir::new("files");
    let data = common::random_bytes(20, (17 << 20) + 5);
    for len in [0usize, 1, 1024, (1 << 20) + 1, data.len()] {
        let path = dir.0.join(format!("f{len}"));
        std::fs::write(&path, &data[..len]).unwrap();
        let expected = blake3::hash(&data[..len]);
        for threads in [Threads::One, Threads::Max(2), Threads::Auto] {
            for access in [FileAccess::Auto, FileAccess::Read, FileAccess::Mmap] {
                let got = hash_file_with(&path, &hasher(threads), None, access).unwrap();
                assert_eq!(got, expected.as_bytes(), "len {len} {threads:?} {access:?}");
            }
        }
        let long = hash_file(&path, &hasher(Threads::One), Some(100)).unwrap();
        let mut reference = [0u8; 100];
        blake3::Hasher::new().update(&data[..len]).finalize_xof().fill(&mut reference);
        assert_eq!(long, reference);
    }
    drop(data);

    // A file several windows long, written in pieces so the test itself stays small.
    let big = dir.0.join("big");
    let piece = common::random_bytes(21, 8 << 20);
    let pieces = 5 * (MMAP_WINDOW_LEN as usize) / piece.len() + 1;
    let mut reference = blake3::Hasher::new();
    {
        let mut f = std::fs::File::create(&big).unwrap();
        for i in 0..pieces {
            let mut p = piece.clone();
            p[0] = i as u8;
            f.write_all(&p).unwrap();
            reference.update(&p);
        }
    }
    let before = peak_rss();
    let got = hash_file_with(&big, &hasher(Threads::Max(2)), None, FileAccess::Mmap).unwrap();
    assert_eq!(got, reference.finalize().as_bytes());
    if let (Some(before), Some(after)) = (before, peak_rss()) {
        let file_len = (pieces * piece.len()) as u64;
        let grew = after.saturating_sub(before);
        println!("hashing a {file_len}-byte file mapped: peak resident memory grew by {grew} bytes");
        assert!(grew < 2 * MMAP_WINDOW_LEN, "resident memory grew by {grew} bytes for a {file_len}-byte file");
    }
}

#[test]
fn missing_files_and_directories_are_io_errors() {
    let dir = TempDir::new("errors");
    let h = hasher(Threads::One);
    let err = hash_file(&dir.0.join("missing"), &h, None).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    assert!(hash_file(&dir.0, &h, None).is_err());
}

/// A file whose reported size is not its length (files under /proc say 0 bytes): read to
/// its end all the same, whatever block its reported size gave it.
#[cfg(target_os = "linux")]
#[test]
fn a_file_that_reports_no_size_is_read_to_its_end() {
    let path = std::path::Path::new("/proc/version");
    let contents = std::fs::read(path).unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().len(), 0, "/proc/version reports a size of 0");
    assert!(!contents.is_empty());
    let expected = blake3::hash(&contents);
    for access in [FileAccess::Auto, FileAccess::Read] {
        let got = hash_file_with(path, &hasher(Threads::One), None, access).unwrap();
        assert_eq!(got, expected.as_bytes(), "{access:?}");
    }
}
