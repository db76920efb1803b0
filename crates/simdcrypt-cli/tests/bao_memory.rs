//! `simdcrypt bao` holds memory bounded whatever the input's size (issue #41,
//! docs/memory.md): encode (to a file, from a file and from a pipe), slice and scrub run on
//! a 256 MiB file and must each peak far below it. The peak is the children's maximum
//! resident set (getrusage RUSAGE_CHILDREN), so this file holds one test and runs its
//! commands one at a time: no other child of this process can raise the figure. (A child
//! started with vfork also counts the parent's peak before its exec, so the figure can only
//! be too high, never too low.)
#![cfg(target_os = "linux")]

mod common;

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::process::Stdio;

use common::{ok, run, simdcrypt, TempDir};

/// The input: four times the limit, so that a command that loads it cannot pass.
const LEN: u64 = 256 << 20;
/// What a command may peak at: the windows (two of 8 MiB being read and hashed, the
/// window's encoding), the program and its threads, with room to spare.
const LIMIT_KB: i64 = 64 * 1024;

/// The largest resident set any waited-for child has had, in KiB.
fn children_peak_kb() -> i64 {
    // SAFETY: getrusage writes one rusage, which `usage` is, and reads nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `usage` outlives the call.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0, "getrusage failed");
    usage.ru_maxrss
}

fn check(what: &str) {
    let peak = children_peak_kb();
    assert!(peak < LIMIT_KB, "{what}: peak resident set {peak} KiB, more than {LIMIT_KB} KiB for a {LEN}-byte input");
}

#[test]
fn bao_commands_stay_within_a_fixed_memory_bound() {
    let dir = TempDir::new("bao-memory");
    // Mostly a hole (reads of it cost no disk), with data written here and there.
    let big = dir.path().join("big");
    let file = File::create(&big).unwrap();
    file.set_len(LEN).unwrap();
    let piece = common::data(1 << 20, 41);
    for at in [0, 5 << 20, 100 << 20, LEN - (1 << 20)] {
        file.write_all_at(&piece, at).unwrap();
    }
    drop(file);

    let hash = ok(run(simdcrypt(dir.path()).args(["bao", "hash", "big"])));
    let hash = hash.trim();
    check("bao hash");
    ok(run(simdcrypt(dir.path()).args(["bao", "encode", "big", "--outboard", "big.ob"])));
    check("bao encode --outboard");
    ok(run(simdcrypt(dir.path()).args(["bao", "encode", "big", "big.bao"])));
    check("bao encode (combined)");
    ok(run(simdcrypt(dir.path()).args(["bao", "slice", "200000000", "1000000", "big.bao", "s1"])));
    ok(run(simdcrypt(dir.path()).args(["bao", "slice", "200000000", "1000000", "big", "--outboard", "big.ob", "s2"])));
    check("bao slice");
    assert!(fs::read(dir.path().join("s1")).unwrap() == fs::read(dir.path().join("s2")).unwrap());
    ok(run(simdcrypt(dir.path()).args(["bao", "decode-slice", hash, "200000000", "1000000", "s1", "-"])));
    assert_eq!(
        ok(run(simdcrypt(dir.path()).args(["bao", "scrub", hash, "big", "--outboard", "big.ob"]))),
        format!("big: OK ({LEN} bytes)\n")
    );
    check("bao scrub");
    let status = simdcrypt(dir.path()).args(["bao", "decode", hash, "big.bao"]).stdout(Stdio::null()).status().unwrap();
    assert!(status.success());
    check("bao decode");
    fs::remove_file(dir.path().join("big.bao")).unwrap();

    // From a pipe: the windows are written in order, then moved into place.
    let mut child = simdcrypt(dir.path())
        .args(["bao", "encode", "-", "--outboard", "pipe.ob"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut sent = 0;
    while sent < LEN {
        let at = sent;
        let chunk = if [0, 5 << 20, 100 << 20, LEN - (1 << 20)].contains(&at) { &piece } else { &zeros };
        stdin.write_all(chunk).unwrap();
        sent += chunk.len() as u64;
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    check("bao encode - --outboard");
    assert!(fs::read(dir.path().join("pipe.ob")).unwrap() == fs::read(dir.path().join("big.ob")).unwrap());
}
