//! `sum -r DIR --update MANIFEST`, `sum --tree DIR --update`, and `check -r`: the output
//! of an update is byte for byte a fresh `sum`'s, for every option that matters, after
//! every kind of change a stat-based cache can miss (same-size rewrites in the same mtime
//! tick, restored mtimes, truncate-and-rewrite, rename-over, a file replaced by a folder or
//! a link, permission errors, names that are not UTF-8); a damaged manifest is an error
//! naming its line and is left alone; a killed update leaves the old manifest; `check -r`
//! reports OK, FAILED, NEW and MISSING.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, SystemTime};

use common::{code, data, run, simdcrypt, stderr, stdout, TempDir};

const MANIFEST: &str = "m.jsonl";

fn sum(dir: &Path, args: &[&str]) -> Output {
    run(simdcrypt(dir).arg("sum").args(args).args(["-r", "d"]))
}

fn update(dir: &Path, args: &[&str]) -> Output {
    run(simdcrypt(dir).arg("sum").args(args).args(["-r", "d", "--update", MANIFEST]))
}

/// The update prints exactly what a fresh `sum -r` prints, with the same exit status.
fn assert_update_matches(dir: &Path, args: &[&str], what: &str) {
    let fresh = sum(dir, args);
    let updated = update(dir, args);
    assert_eq!(stdout(&updated), stdout(&fresh), "{what} {args:?}: stdout differs; stderr {}", stderr(&updated));
    assert_eq!(code(&updated), code(&fresh), "{what} {args:?}: status differs: {}", stderr(&updated));
}

/// A temporary folder holding an empty folder `d`, the tree each test hashes.
fn with_d(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    fs::create_dir(t.path().join("d")).unwrap();
    t
}

fn set_mtime(path: &Path, t: SystemTime) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_times(fs::FileTimes::new().set_modified(t)).unwrap();
}

fn mtime(path: &Path) -> SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

fn hour_ago() -> SystemTime {
    SystemTime::now() - Duration::from_secs(3600)
}

/// A small tree: nested folders, an empty file, a large one, an excluded one.
fn tree(t: &TempDir) {
    fs::create_dir_all(t.path().join("d/sub/deeper")).unwrap();
    t.file("d/a.txt", b"alpha\n");
    t.file("d/empty", b"");
    t.file("d/sub/big.bin", &data(3 << 20, 1));
    t.file("d/sub/deeper/c", &data(1000, 2));
    t.file("d/sub/x.skip", b"skipped");
    #[cfg(unix)]
    std::os::unix::fs::symlink("a.txt", t.path().join("d/link")).unwrap();
}

#[test]
fn update_output_matches_a_fresh_sum_for_every_option() {
    let t = with_d("manifest-options");
    tree(&t);
    let key = t.file("key", &[7u8; 32]);
    let key = key.to_str().unwrap();
    let option_sets: Vec<Vec<&str>> = vec![
        vec![],
        vec!["-a", "sha256"],
        vec!["-a", "blake3,sha256,streebog512"],
        vec!["-a", "gost94", "--gost-reverse", "--tag"],
        vec!["-l", "64"],
        vec!["--json", "-a", "blake3,highwayhash128", "--key-file", key],
        vec!["--derive-key", "ctx"],
        vec!["--no-names"],
        vec!["--exclude", "*.skip"],
        vec!["--follow-symlinks"],
        vec!["-j", "1"],
    ];
    for args in &option_sets {
        let _ = fs::remove_file(t.path().join(MANIFEST));
        assert_update_matches(t.path(), args, "first");
        assert_update_matches(t.path(), args, "cached");
        t.file("d/a.txt", b"ALPHA\n");
        assert_update_matches(t.path(), args, "after a change");
        t.file("d/a.txt", b"alpha\n");
    }
    // Switching options between runs upgrades the manifest (other algorithms, length).
    for args in &option_sets {
        assert_update_matches(t.path(), args, "switching");
    }
}

#[test]
fn tree_update_matches_a_fresh_tree_digest() {
    let t = with_d("manifest-tree");
    tree(&t);
    let fresh = |args: &[&str]| run(simdcrypt(t.path()).args(["sum", "--tree", "d"]).args(args));
    let updated =
        |args: &[&str]| run(simdcrypt(t.path()).args(["sum", "--tree", "d", "--update", MANIFEST]).args(args));
    for args in [&[][..], &["--json"], &["--exclude", "*.skip"], &["--follow-symlinks"]] {
        for _ in 0..2 {
            let (f, u) = (fresh(args), updated(args));
            assert_eq!(stdout(&u), stdout(&f), "{args:?}: {}", stderr(&u));
            assert_eq!(code(&u), 0);
        }
        t.file("d/sub/deeper/c", b"changed");
        assert_eq!(stdout(&updated(args)), stdout(&fresh(args)), "{args:?} after a change");
    }
    // The tree's manifest serves -r too (blake3, default length).
    assert_update_matches(t.path(), &[], "after --tree");
}

/// The cache is really used: with --trust-mtime, an old file rewritten with the same size
/// and its mtime put back is answered from the manifest (the stale digest is printed);
/// without it, the changed ctime sends it to be hashed again.
#[test]
fn same_size_rewrite_with_the_old_mtime() {
    let t = with_d("manifest-same-tick");
    let f = t.file("d/f", b"one");
    set_mtime(&f, hour_ago());
    let old_mtime = mtime(&f);
    let before = stdout(&update(t.path(), &[]));
    t.file("d/f", b"two");
    set_mtime(&f, old_mtime);
    assert_eq!(stdout(&update(t.path(), &["--trust-mtime"])), before, "--trust-mtime trusts size and mtime");
    assert_update_matches(t.path(), &[], "rewritten with the old mtime");
    assert_ne!(stdout(&sum(t.path(), &[])), before);
}

/// Git's racy case: a file written just before the manifest, then rewritten in the same
/// tick (same size, same mtime), is hashed again even when only size and mtime are
/// compared, because its mtime is not older than the manifest's time.
#[test]
fn racy_entries_are_hashed_again() {
    let t = with_d("manifest-racy");
    let f = t.file("d/f", b"one");
    let written = mtime(&f);
    update(t.path(), &[]);
    t.file("d/f", b"two");
    set_mtime(&f, written);
    assert_eq!(stdout(&update(t.path(), &["--trust-mtime"])), stdout(&sum(t.path(), &[])), "racy");
}

/// Nothing changed: the manifest is left as it is (same bytes, same mtime: not rewritten),
/// the output still a fresh `sum`'s. Any change writes it again, and a file rewritten with
/// its recorded size and mtime after such a run is still caught.
#[test]
fn an_unchanged_tree_leaves_the_manifest_untouched() {
    let t = with_d("manifest-untouched");
    tree(&t);
    // Entries younger than the racy slack (2 s, ctime included, which cannot be set back)
    // are hashed on every run; wait it out once.
    std::thread::sleep(Duration::from_millis(2100));
    assert_update_matches(t.path(), &[], "first");
    let m = t.path().join(MANIFEST);
    // A past mtime on the manifest shows whether it is written again.
    set_mtime(&m, hour_ago());
    let (bytes, stamp) = (fs::read(&m).unwrap(), mtime(&m));
    assert_update_matches(t.path(), &[], "unchanged");
    assert_eq!(fs::read(&m).unwrap(), bytes, "an unchanged tree rewrote the manifest");
    assert_eq!(mtime(&m), stamp, "an unchanged tree rewrote the manifest");
    // Rewritten with the recorded size and mtime: the ctime tells, and it is written again.
    let f = t.path().join("d/a.txt");
    let recorded = mtime(&f);
    t.file("d/a.txt", b"ALPHA\n");
    set_mtime(&f, recorded);
    assert_update_matches(t.path(), &[], "same size and mtime");
    assert_ne!(fs::read(&m).unwrap(), bytes, "a changed tree's manifest was not rewritten");
    // A file removed, or one added: written again.
    set_mtime(&m, hour_ago());
    let stamp = mtime(&m);
    fs::remove_file(&f).unwrap();
    assert_update_matches(t.path(), &[], "removed");
    assert_ne!(mtime(&m), stamp, "a removed file left the manifest as it was");
}

/// `touch -r`/`cp -p`: old content restored over new, with the old mtime.
#[test]
fn restored_content_with_its_old_mtime() {
    let t = with_d("manifest-restore");
    let f = t.file("d/f", b"old content");
    set_mtime(&f, hour_ago());
    let old_mtime = mtime(&f);
    assert_update_matches(t.path(), &[], "first");
    t.file("d/f", b"new content");
    assert_update_matches(t.path(), &[], "new");
    t.file("d/f", b"old content");
    set_mtime(&f, old_mtime);
    assert_update_matches(t.path(), &[], "restored");
}

#[test]
fn truncate_and_rewrite_rename_over_and_replaced_entries() {
    let t = with_d("manifest-replace");
    for name in ["a", "b", "c", "e"] {
        let f = t.file(format!("d/{name}"), name.repeat(10).as_bytes());
        set_mtime(&f, hour_ago());
    }
    assert_update_matches(t.path(), &[], "first");
    // Truncated, then rewritten to the same size with the same mtime.
    let a = t.path().join("d/a");
    let a_mtime = mtime(&a);
    fs::OpenOptions::new().write(true).truncate(true).open(&a).unwrap();
    fs::write(&a, b"AAAAAAAAAA").unwrap();
    set_mtime(&a, a_mtime);
    // Renamed over: another inode, same size and mtime.
    let b = t.path().join("d/b");
    let b_mtime = mtime(&b);
    let tmp = t.file("d/.b.new", b"BBBBBBBBBB");
    set_mtime(&tmp, b_mtime);
    fs::rename(&tmp, &b).unwrap();
    // Replaced by a folder, and by a link.
    fs::remove_file(t.path().join("d/c")).unwrap();
    fs::create_dir(t.path().join("d/c")).unwrap();
    t.file("d/c/inner", b"inner");
    #[cfg(unix)]
    {
        fs::remove_file(t.path().join("d/e")).unwrap();
        std::os::unix::fs::symlink("a", t.path().join("d/e")).unwrap();
    }
    assert_update_matches(t.path(), &[], "replaced");
    assert_update_matches(t.path(), &["--follow-symlinks"], "replaced, links followed");
    // A file deleted and its inode reused by a new file of the same size.
    fs::remove_file(&a).unwrap();
    t.file("d/a", b"ZZZZZZZZZZ");
    assert_update_matches(t.path(), &[], "recreated");
}

#[cfg(unix)]
#[test]
fn unreadable_files_are_reported_and_others_hashed() {
    use std::os::unix::fs::PermissionsExt;
    let t = with_d("manifest-perm");
    t.file("d/a", b"a");
    let locked = t.file("d/locked", b"secret");
    t.file("d/z", b"z");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&locked).is_ok() {
        println!("skipped: running with privileges that read a mode-000 file (root?), no permission error to test");
        return;
    }
    let fresh = sum(t.path(), &[]);
    let updated = update(t.path(), &[]);
    assert_eq!(stdout(&updated), stdout(&fresh));
    assert_eq!(code(&updated), 1);
    assert!(stderr(&updated).contains("d/locked: Permission denied"), "{}", stderr(&updated));
    let manifest = fs::read_to_string(t.path().join(MANIFEST)).unwrap();
    assert!(manifest.contains("\"path\":\"a\"") && manifest.contains("\"path\":\"z\""));
    assert!(!manifest.contains("locked"), "an unreadable file is not recorded");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o600)).unwrap();
    assert_update_matches(t.path(), &[], "readable again");
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let t = with_d("manifest-bytes");
    let name = std::ffi::OsStr::from_bytes(b"d/\xff\xfe name\n");
    t.file(name, b"bytes");
    t.file("d/plain", b"plain");
    for args in [&[][..], &["--json"]] {
        assert_update_matches(t.path(), args, "first");
        assert_update_matches(t.path(), args, "cached");
    }
    let manifest = fs::read_to_string(t.path().join(MANIFEST)).unwrap();
    assert!(manifest.contains("\"path_hex\":\"fffe206e616d650a\""), "{manifest}");
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A run stopped by a signal while it prints (its stdout is a pipe nobody reads, so it
/// blocks before the manifest is complete) leaves the old manifest byte for byte, and no
/// temporary file (but SIGKILL with a named temporary file, which nothing can clean).
#[cfg(unix)]
#[test]
fn interrupted_update_leaves_the_old_manifest() {
    let t = with_d("manifest-kill");
    // Long names, so that the lines (about 1.2 MB) overfill the pipe even once the command
    // has grown it to 256 KiB (pipes.rs).
    let name = |i: usize| format!("d/f{i:05}{}", "x".repeat(230));
    for i in 0..4000 {
        t.file(name(i), &[i as u8]);
    }
    assert_eq!(code(&update(t.path(), &[])), 0);
    let old = fs::read(t.path().join(MANIFEST)).unwrap();
    t.file(name(0), b"changed");
    let before = listing(t.path());
    for named in [false, true] {
        for signal in [libc::SIGKILL, libc::SIGTERM, libc::SIGINT] {
            if named && signal == libc::SIGKILL {
                continue;
            }
            let mut cmd = simdcrypt(t.path());
            cmd.args(["sum", "-r", "d", "--update", MANIFEST]).stdout(Stdio::piped()).stderr(Stdio::null());
            if named {
                cmd.env("SIMDCRYPT_NO_O_TMPFILE", "1");
            }
            let mut child = cmd.spawn().unwrap();
            std::thread::sleep(Duration::from_millis(400));
            // SAFETY: kill(2) on the pid of our own child, which we have not reaped yet.
            assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
            let status = child.wait().unwrap();
            assert!(!status.success(), "signal {signal}: the run finished before it was stopped");
            assert_eq!(fs::read(t.path().join(MANIFEST)).unwrap(), old, "signal {signal}, named {named}");
            assert_eq!(listing(t.path()), before, "signal {signal}, named {named}: something was left");
        }
    }
}

#[test]
fn damaged_manifests_are_errors_naming_the_line_and_kept() {
    let t = with_d("manifest-damaged");
    t.file("d/a", b"a");
    t.file("d/b", b"b");
    assert_eq!(code(&update(t.path(), &[])), 0);
    let good = fs::read_to_string(t.path().join(MANIFEST)).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let cases = [
        (good[..good.len() - 10].to_string(), "line 4: the line is cut short"),
        (format!("{}\n{}\n", lines[0], lines[1]), "line 3: the manifest ends without its end line"),
        (good.replacen("\"size\":1", "\"size\":2", 1), "line 4: the checksum"),
        (good.replacen("\"path\":\"b\"", "\"path\":\"/etc/b\"", 1), "line 3: the path must be relative"),
        (good.replacen("\"path\":\"b\"", "\"path\":7", 1), "line 3: malformed"),
        ("just some text\n".to_string(), "line 1: neither a simdcrypt manifest nor a checksum list"),
    ];
    for (content, message) in cases {
        fs::write(t.path().join(MANIFEST), &content).unwrap();
        let o = update(t.path(), &[]);
        assert_eq!(code(&o), 1, "{message}");
        assert!(stderr(&o).contains(message), "expected {message:?} in {}", stderr(&o));
        assert!(stdout(&o).is_empty());
        assert_eq!(fs::read_to_string(t.path().join(MANIFEST)).unwrap(), content, "left as it was");
        let c = run(simdcrypt(t.path()).args(["check", "-r", MANIFEST]));
        if !message.contains("neither") {
            assert_eq!(code(&c), 1);
            assert!(stderr(&c).contains(&message[..7]), "check: {}", stderr(&c));
        }
    }
}

/// A plain checksum list (what `sum -r` prints) is accepted as a manifest whose entries
/// are all stale, and replaced by a manifest.
#[test]
fn checksum_lists_are_read_as_all_stale() {
    let t = with_d("manifest-sumfile");
    tree(&t);
    fs::write(t.path().join(MANIFEST), sum(t.path(), &[]).stdout).unwrap();
    assert_update_matches(t.path(), &[], "from a checksum list");
    let text = fs::read_to_string(t.path().join(MANIFEST)).unwrap();
    assert!(text.starts_with('{') && text.contains("\"format\":\"simdcrypt-manifest\""));
}

#[test]
fn check_reports_new_missing_and_failed() {
    let t = with_d("manifest-check");
    tree(&t);
    for f in ["d/a.txt", "d/empty", "d/sub/big.bin", "d/sub/deeper/c", "d/sub/x.skip"] {
        set_mtime(&t.path().join(f), hour_ago());
    }
    assert_eq!(code(&update(t.path(), &["-a", "blake3,sha256"])), 0);
    let check = |args: &[&str]| run(simdcrypt(t.path()).args(["check", "-r", MANIFEST]).args(args));
    let all_ok = check(&[]);
    assert_eq!(code(&all_ok), 0, "{}", stderr(&all_ok));
    assert_eq!(stdout(&all_ok), "d/a.txt: OK\nd/empty: OK\nd/sub/big.bin: OK\nd/sub/deeper/c: OK\nd/sub/x.skip: OK\n");
    t.file("d/a.txt", b"changed\n");
    fs::remove_file(t.path().join("d/empty")).unwrap();
    t.file("d/sub/new", b"new");
    let expected =
        "d/a.txt: FAILED\nd/empty: MISSING\nd/sub/big.bin: OK\nd/sub/deeper/c: OK\nd/sub/new: NEW\nd/sub/x.skip: OK\n";
    let o = check(&[]);
    assert_eq!((code(&o), stdout(&o).as_str()), (1, expected), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("1 listed file is missing") && e.contains("1 file is not in the list (NEW)"), "{e}");
    assert!(e.contains("1 computed checksum did NOT match"), "{e}");
    // --update: the same report, from the stats where they are unchanged.
    for _ in 0..2 {
        let u = check(&["--update"]);
        assert_eq!((code(&u), stdout(&u).as_str()), (1, expected), "{}", stderr(&u));
    }
    let j = check(&["--json"]);
    let statuses: Vec<String> = stdout(&j)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses, ["FAILED", "MISSING", "OK", "OK", "NEW", "OK"]);
    let ignoring = check(&["--ignore-missing"]);
    assert!(!stdout(&ignoring).contains("MISSING") && stdout(&ignoring).contains("d/sub/new: NEW"));
    // --root: the same manifest against a copy elsewhere.
    fs::rename(t.path().join("d"), t.path().join("moved")).unwrap();
    let moved = check(&["--root", "moved"]);
    assert!(stdout(&moved).starts_with("moved/a.txt: FAILED\nmoved/empty: MISSING\n"), "{}", stdout(&moved));
}

#[test]
fn check_r_with_a_checksum_list_and_root() {
    let t = with_d("manifest-check-list");
    t.file("d/a", b"a");
    t.file("d/b", b"b");
    fs::write(t.path().join("list"), sum(t.path(), &[]).stdout).unwrap();
    let check = || run(simdcrypt(t.path()).args(["check", "-r", "list", "--root", "d"]));
    assert_eq!(stdout(&check()), "d/a: OK\nd/b: OK\n");
    assert_eq!(code(&check()), 0);
    fs::remove_file(t.path().join("d/b")).unwrap();
    t.file("d/c", b"c");
    let o = check();
    assert_eq!((code(&o), stdout(&o).as_str()), (1, "d/a: OK\nd/b: MISSING\nd/c: NEW\n"));
    let no_root = run(simdcrypt(t.path()).args(["check", "-r", "list"]));
    assert_eq!(code(&no_root), 2);
    assert!(stderr(&no_root).contains("needs --root DIR"));
}

#[test]
fn usage_errors() {
    let t = with_d("manifest-usage");
    t.file("d/a", b"a");
    t.file("f", b"f");
    for args in [
        &["sum", "d", "--update", MANIFEST][..],
        &["sum", "-r", "f", "--update", MANIFEST],
        &["sum", "-r", "d", "d", "--update", MANIFEST],
        &["sum", "-r", "d", "--trust-mtime"],
        &["sum", "-r", "d", "--seek", "8", "--update", MANIFEST],
    ] {
        let o = run(simdcrypt(t.path()).args(args));
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!t.path().join(MANIFEST).exists());
    }
}

/// A file appended to while `--update` runs: it is reported as changed and left out of
/// the manifest, or (if no append fell between its two stats) recorded with a size and a
/// digest that agree with its content: never a digest of one content beside another's size.
#[test]
fn a_file_growing_while_hashed_is_not_recorded_as_good() {
    let t = with_d("manifest-growing");
    let path = t.file("d/growing", &data(32 << 20, 3));
    t.file("d/other", b"other");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (stop, path) = (stop.clone(), path.clone());
        std::thread::spawn(move || {
            let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::io::Write::write_all(&mut f, b"more").unwrap();
            }
        })
    };
    let o = update(t.path(), &["-j", "1"]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    let manifest = fs::read_to_string(t.path().join(MANIFEST)).unwrap();
    let recorded = manifest.lines().find(|l| l.contains("\"path\":\"growing\""));
    match recorded {
        None => {
            assert_eq!(code(&o), 1);
            assert!(stderr(&o).contains("d/growing: changed while it was being hashed"), "{}", stderr(&o));
        }
        Some(line) => {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let size = v["size"].as_u64().unwrap() as usize;
            let content = fs::read(&path).unwrap();
            let digest = blake3::hash(&content[..size]).to_hex().to_string();
            assert_eq!(v["digests"][0].as_str().unwrap(), digest, "the recorded digest is of the recorded size");
        }
    }
    assert!(manifest.contains("\"path\":\"other\""));
    println!("growing file recorded: {}", recorded.is_some());
}

/// A manifest or checksum list inside the directory it lists is not one of its files: the
/// update neither lists nor records it (its line could never be right: it is rewritten
/// after the hash), `check -r` does not call it NEW, a `sum -r DIR > DIR/SUMS` leaves out
/// the half-written SUMS, and the tree digest is the one of the tree without it.
#[cfg(unix)]
#[test]
fn lists_inside_the_tree_they_list_are_left_out() {
    let t = with_d("manifest-inside");
    t.file("d/a", b"a");
    t.file("d/b", &data(5000, 3));
    let expected = stdout(&sum(t.path(), &[]));
    let tree_before = stdout(&run(simdcrypt(t.path()).args(["sum", "--tree", "d"])));
    for _ in 0..2 {
        let o = run(simdcrypt(t.path()).args(["sum", "-r", "d", "--update", "d/m.jsonl"]));
        assert_eq!((code(&o), stdout(&o)), (0, expected.clone()), "{}", stderr(&o));
    }
    let manifest = fs::read_to_string(t.path().join("d/m.jsonl")).unwrap();
    assert!(!manifest.contains("m.jsonl\""), "{manifest}");
    let o = run(simdcrypt(t.path()).args(["check", "-r", "d/m.jsonl"]));
    assert_eq!((code(&o), stdout(&o).as_str()), (0, "d/a: OK\nd/b: OK\n"), "{}", stderr(&o));
    fs::remove_file(t.path().join("d/m.jsonl")).unwrap();

    for _ in 0..2 {
        let o = run(simdcrypt(t.path()).args(["sum", "--tree", "d", "--update", "d/t.jsonl"]));
        assert_eq!((code(&o), stdout(&o)), (0, tree_before.clone()), "{}", stderr(&o));
    }
    fs::remove_file(t.path().join("d/t.jsonl")).unwrap();

    let sums = fs::File::create(t.path().join("d/SUMS")).unwrap();
    let status = simdcrypt(t.path()).args(["sum", "-r", "d"]).stdout(sums).status().unwrap();
    assert!(status.success());
    assert_eq!(fs::read_to_string(t.path().join("d/SUMS")).unwrap(), expected);
    for args in [&["check", "d/SUMS"][..], &["check", "-r", "d/SUMS", "--root", "d"]] {
        let o = run(simdcrypt(t.path()).args(args));
        assert_eq!((code(&o), stdout(&o).as_str()), (0, "d/a: OK\nd/b: OK\n"), "{args:?}: {}", stderr(&o));
    }
}
