//! End-to-end tests of whole-tree work: `sum -r` (walk, order, symlinks, loops, excludes,
//! errors), files hashed in parallel (`-j`), several algorithms per read, `--json`,
//! `--tree` (checked against an independent encoding of docs/tree-digest.md), the drop-in
//! options, and that piped output never carries terminal escape codes.
//!
//! With `B3SUM=/path/to/b3sum` the `sum -r` output is compared line for line with
//! `find DIR -type f | LC_ALL=C sort | xargs b3sum` (`SIMDCRYPT_REQUIRE_B3SUM=1` makes that
//! mandatory); the same comparison with coreutils' sha256sum runs when
//! `/usr/bin/sha256sum` (or `SHA256SUM`) exists.
#![cfg(unix)]

mod common;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use sha2::Digest;

/// A tree with nested and empty directories, links to a file, to a directory and in a
/// loop, and names with a newline, a backslash and invalid UTF-8.
fn make_tree(tag: &str) -> TempDir {
    let dir = TempDir::new(tag);
    let t = dir.path().join("t");
    for d in ["sub/deeper", "empty", "sub/empty2", "a-b", "a"] {
        fs::create_dir_all(t.join(d)).unwrap();
    }
    let files: Vec<(PathBuf, usize)> = vec![
        ("top.txt".into(), 10),
        ("sub/one".into(), 0),
        ("sub/deeper/two".into(), 70_000),
        ("a-b/x".into(), 5),
        ("a/x".into(), 6),
        ("a/b".into(), 1025),
        ("new\nline".into(), 3),
        ("back\\slash".into(), 4),
        (PathBuf::from(OsString::from_vec(b"bad\xffutf8".to_vec())), 7),
    ];
    for (i, (name, len)) in files.iter().enumerate() {
        fs::write(t.join(name), data(*len, i as u64 + 1)).unwrap();
    }
    symlink("top.txt", t.join("link-to-file")).unwrap();
    symlink("sub", t.join("link-to-dir")).unwrap();
    symlink("..", t.join("sub/deeper/loop")).unwrap();
    dir
}

/// `find DIR -type f`, sorted by bytes (what `LC_ALL=C sort` does).
fn find_files(cwd: &Path, dir: &str) -> Vec<OsString> {
    let out = Command::new("find").current_dir(cwd).args([dir, "-type", "f", "-print0"]).output().unwrap();
    assert!(out.status.success());
    let mut names: Vec<Vec<u8>> = out.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()).map(<[u8]>::to_vec).collect();
    names.sort();
    names.into_iter().map(OsString::from_vec).collect()
}

fn b3sum() -> Option<PathBuf> {
    match std::env::var_os("B3SUM") {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => {
            if std::env::var("SIMDCRYPT_REQUIRE_B3SUM").is_ok_and(|v| v == "1") {
                panic!("SIMDCRYPT_REQUIRE_B3SUM=1 but B3SUM does not name a b3sum binary");
            }
            println!("NOTICE: B3SUM is not set; skipping the comparison of sum -r with b3sum");
            None
        }
    }
}

fn sha256sum() -> Option<PathBuf> {
    let path = std::env::var_os("SHA256SUM").map_or_else(|| PathBuf::from("/usr/bin/sha256sum"), PathBuf::from);
    if path.exists() {
        Some(path)
    } else {
        println!("NOTICE: {} not found; skipping the comparison of sum -r with sha256sum", path.display());
        None
    }
}

#[test]
fn recursive_output_equals_sorted_find_through_b3sum_and_sha256sum() {
    let dir = make_tree("vs-tools");
    let names = find_files(dir.path(), "t");
    assert_eq!(names.len(), 9, "{names:?}");
    let ours = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-r", "t"])));
    if let Some(b3sum) = b3sum() {
        let theirs = ok_bytes(run(Command::new(&b3sum).current_dir(dir.path()).args(&names)));
        assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs));
        assert_eq!(ours, theirs, "byte for byte (b3sum prints names that are not UTF-8 lossily too)");
        let ours_tag = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-r", "--tag", "t"])));
        let theirs_tag = ok_bytes(run(Command::new(&b3sum).current_dir(dir.path()).arg("--tag").args(&names)));
        assert_eq!(ours_tag, theirs_tag);
    }
    if let Some(sha256sum) = sha256sum() {
        let ours = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-r", "-a", "sha256", "-j", "2", "t"])));
        let theirs = ok_bytes(run(Command::new(&sha256sum).current_dir(dir.path()).args(&names)));
        // Compared as lossy text: sha256sum prints a name that is not UTF-8 as raw bytes,
        // simdcrypt (like b3sum) lossily; every other byte is the same.
        assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs));
    }
    // Independently of any tool: one line per file, in the sorted order, right digests.
    let text = String::from_utf8_lossy(&ours).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), names.len());
    for (line, name) in lines.iter().zip(&names) {
        let expected = blake3::hash(&fs::read(dir.path().join(name)).unwrap()).to_hex().to_string();
        assert!(line.trim_start_matches('\\').starts_with(&expected), "{line} vs {name:?}");
    }
    assert!(text.contains("t/a-b/x") && text.find("t/a-b/x") < text.find("t/a/b"), "byte order: '-' < '/'");
    assert!(!text.contains("link-to"), "links are not followed by default");
}

#[test]
fn threads_do_not_change_the_output() {
    let dir = TempDir::new("par");
    // Enough files for several windows of the parallel pool, sizes from empty to
    // large enough to be split among threads.
    for i in 0..300u64 {
        let len = match i % 7 {
            0 => 0,
            1 => 300_000,
            _ => (i as usize * 37) % 5000,
        };
        dir.file(format!("f{i:03}"), &data(len, i));
    }
    dir.file("sub-dir-not", b"x");
    let outputs: Vec<Vec<u8>> = ["1", "2", "3", "auto"]
        .iter()
        .map(|j| ok_bytes(run(simdcrypt(dir.path()).args(["sum", "-r", "-a", "blake3,sha256", "-j", j, "."]))))
        .collect();
    for o in &outputs[1..] {
        assert_eq!(o, &outputs[0]);
    }
    let manifest = dir.file("../par-manifest", &outputs[0]);
    let checked: Vec<Vec<u8>> = ["1", "2"]
        .iter()
        .map(|j| ok_bytes(run(simdcrypt(dir.path()).args(["check", "-j", j]).arg(&manifest))))
        .collect();
    assert_eq!(checked[0], checked[1]);
    assert_eq!(String::from_utf8_lossy(&checked[0]).lines().count(), 2 * 301);
    fs::remove_file(manifest).unwrap();
}

#[test]
fn symlinks_followed_on_request_and_loops_reported() {
    let dir = make_tree("follow");
    let o = run(simdcrypt(dir.path()).args(["sum", "-r", "--follow-symlinks", "-j", "2", "t"]));
    assert_eq!(code(&o), 1, "the loop makes the exit status 1");
    let out = stdout(&o);
    assert!(out.contains("  t/link-to-file\n"), "{out}");
    assert!(out.contains("  t/link-to-dir/deeper/two\n"), "{out}");
    assert!(out.contains("  t/sub/deeper/two\n"), "{out}");
    let err = stderr(&o);
    assert!(err.contains("simdcrypt: t/sub/deeper/loop: file system loop detected"), "{err}");
    assert!(err.contains("simdcrypt: t/link-to-dir/deeper/loop: file system loop detected"), "{err}");
    // The output is still sorted and complete apart from the loops.
    let names: Vec<&str> = out.lines().map(|l| l.split_once("  ").unwrap().1).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn excludes_and_directory_without_recursion() {
    let dir = make_tree("exclude");
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-r", "--exclude", "sub", "--exclude", "*.txt", "t"])));
    assert!(!out.contains("t/sub/") && !out.contains("top.txt"), "{out}");
    assert!(out.contains("t/a/x"), "{out}");
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-r", "--exclude", "a/*", "t"])));
    assert!(!out.contains("t/a/x") && out.contains("t/a-b/x"), "{out}");
    let o = run(simdcrypt(dir.path()).args(["sum", "t", "t/top.txt"]));
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o), "simdcrypt: t: Is a directory\n");
    assert!(stdout(&o).ends_with("  t/top.txt\n"));
    let o = run(simdcrypt(dir.path()).args(["sum", "-r", "--exclude", "[", "t"]));
    assert_eq!(code(&o), 2, "a bad glob is a usage error: {}", stderr(&o));
}

/// Runs `cmd` as an unprivileged user when we are root, so that permissions apply.
/// `None` (after printing why) when that is not possible.
fn unprivileged(mut cmd: Command) -> Option<std::process::Output> {
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        cmd.uid(65534).gid(65534);
    }
    match cmd.stdin(std::process::Stdio::null()).output() {
        Ok(o) => Some(o),
        Err(e) => {
            println!("NOTICE: cannot run the CLI as an unprivileged user ({e}); skipping the unreadable-entry test");
            None
        }
    }
}

#[test]
fn unreadable_entries_are_reported_and_the_walk_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("perm");
    let t = dir.path().join("t");
    fs::create_dir_all(t.join("closed")).unwrap();
    fs::write(t.join("closed/inside"), b"x").unwrap();
    fs::write(t.join("secret"), b"y").unwrap();
    fs::write(t.join("zz-open"), b"z").unwrap();
    for p in [dir.path(), &t] {
        fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::set_permissions(t.join("closed"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(t.join("secret"), fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = simdcrypt(dir.path());
    cmd.args(["sum", "-r", "-j", "2", "t"]);
    let Some(o) = unprivileged(cmd) else { return };
    if code(&o) == 0 || String::from_utf8_lossy(&o.stderr).contains("cannot execute") {
        println!("NOTICE: permissions did not apply (privileged user); skipping the unreadable-entry test");
        return;
    }
    if stderr(&o).contains("Permission denied") && !stdout(&o).contains("zz-open") {
        // The binary itself or the temp dir was not reachable as the unprivileged user.
        println!("NOTICE: the unprivileged user cannot reach the test tree; skipping: {}", stderr(&o));
        return;
    }
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("simdcrypt: t/closed: Permission denied\n"), "{err}");
    assert!(err.contains("simdcrypt: t/secret: Permission denied\n"), "{err}");
    assert!(err.ends_with("simdcrypt: WARNING: 2 entries could not be read\n"), "{err}");
    assert!(stdout(&o).ends_with("  t/zz-open\n"), "{}", stdout(&o));
    fs::set_permissions(t.join("closed"), fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn several_algorithms_in_one_read_and_check_reads_them_back() {
    let dir = TempDir::new("multi");
    // Small, and large enough for the pipelined path (blocks hashed on their own threads).
    let small = data(1000, 1);
    let large = data((9 << 20) + 12345, 2);
    dir.file("small", &small);
    dir.file("large", &large);
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "-a", "blake3,sha256,streebog256", "small", "large"])));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6);
    for (i, (name, content)) in [("small", &small), ("large", &large)].iter().enumerate() {
        assert_eq!(lines[3 * i], format!("BLAKE3 ({name}) = {}", blake3::hash(content).to_hex()));
        assert_eq!(lines[3 * i + 1], format!("SHA256 ({name}) = {}", hex(&sha2::Sha256::digest(content))));
        let alone = ok(run(simdcrypt(dir.path()).args(["sum", "--tag", "-a", "streebog256", name])));
        assert_eq!(format!("{}\n", lines[3 * i + 2]), alone);
        assert!(lines[3 * i + 2].starts_with("GOST12-256 ("), "{}", lines[3 * i + 2]);
    }
    let manifest = dir.file("m", out.as_bytes());
    let checked = ok(run(simdcrypt(dir.path()).arg("check").arg(&manifest)));
    assert_eq!(checked, "small: OK\nsmall: OK\nsmall: OK\nlarge: OK\nlarge: OK\nlarge: OK\n");
    dir.file("small", b"changed");
    let o = run(simdcrypt(dir.path()).arg("check").arg(&manifest));
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).starts_with("small: FAILED\nsmall: FAILED\nsmall: FAILED\nlarge: OK\n"));
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn json_lines_parse() {
    let dir = make_tree("json");
    let o = run(simdcrypt(dir.path()).args(["sum", "-r", "--json", "-a", "blake3,sha256", "t", "missing"]));
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    let mut errors = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let path = v["path"].as_str().unwrap();
        if let Some(e) = v["error"].as_str() {
            assert_eq!((path, e), ("missing", "No such file or directory"));
            errors += 1;
            continue;
        }
        let bytes = match v.get("path_hex") {
            Some(h) => {
                let h = h.as_str().unwrap();
                (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
            }
            None => path.as_bytes().to_vec(),
        };
        let content = fs::read(dir.path().join(OsStr::from_bytes(&bytes))).unwrap();
        assert_eq!(v["size"].as_u64().unwrap(), content.len() as u64);
        let expected = match v["algorithm"].as_str().unwrap() {
            "blake3" => blake3::hash(&content).to_hex().to_string(),
            "sha256" => hex(&sha2::Sha256::digest(&content)),
            other => panic!("{other}"),
        };
        assert_eq!(v["digest"].as_str().unwrap(), expected);
    }
    assert_eq!(errors, 1);
    assert_eq!(text.lines().count(), 2 * 9 + 1);
    assert!(text.contains("\"path\":\"t/new\\nline\""), "JSON escapes, not the manifest's: {text}");
}

#[test]
fn piped_output_has_no_escape_codes() {
    let dir = make_tree("esc");
    for extra in [&["--progress"][..], &[], &["--no-progress"]] {
        // (Names that are not UTF-8 are printed lossily, as b3sum does, so they cannot be
        // checked back: left out here.)
        let args = ["sum", "-r", "--follow-symlinks", "--exclude", "bad*", "t", "missing"];
        let o = run(simdcrypt(dir.path()).args(args).args(extra));
        assert_eq!(code(&o), 1);
        assert!(!o.stderr.contains(&0x1b), "ESC on piped stderr: {:?}", stderr(&o));
        assert!(!o.stdout.contains(&0x1b));
        let manifest = dir.file("m", &o.stdout);
        let o = run(simdcrypt(dir.path()).arg("check").args(extra).arg(&manifest));
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(!o.stderr.contains(&0x1b) && !o.stdout.contains(&0x1b));
    }
}

/// The encoding of docs/tree-digest.md, written independently of the CLI's code, over a
/// description of the tree: (relative path, kind) where kind is file contents, a
/// directory, or a link target.
enum Node<'a> {
    File(&'a [u8]),
    Dir,
    Link(&'a str),
}

fn expected_tree_digest(entries: &[(&str, Node<'_>)]) -> String {
    let mut sorted: Vec<&(&str, Node<'_>)> = entries.iter().collect();
    sorted.sort_by_key(|(p, _)| p.as_bytes());
    let mut enc = b"simdcrypt-tree-v1\n".to_vec();
    for (path, node) in sorted {
        enc.push(match node {
            Node::File(_) => b'f',
            Node::Dir => b'd',
            Node::Link(_) => b'l',
        });
        enc.extend_from_slice(&(path.len() as u64).to_le_bytes());
        enc.extend_from_slice(path.as_bytes());
        match node {
            Node::File(c) => {
                enc.extend_from_slice(&(c.len() as u64).to_le_bytes());
                enc.extend_from_slice(blake3::hash(c).as_bytes());
            }
            Node::Link(t) => {
                enc.extend_from_slice(&(t.len() as u64).to_le_bytes());
                enc.extend_from_slice(t.as_bytes());
            }
            Node::Dir => {}
        }
    }
    blake3::hash(&enc).to_hex().to_string()
}

#[test]
fn tree_digest_follows_its_definition_and_checks() {
    let dir = TempDir::new("tree");
    let big = data(300_000, 9);
    let entries = [
        ("b", Node::File(b"bee")),
        ("a-b", Node::File(b"")),
        ("a", Node::Dir),
        ("a/x", Node::File(&big)),
        ("a/empty", Node::Dir),
        ("l", Node::Link("a/x")),
    ];
    // Created in an order unrelated to the sorted one.
    let t = dir.path().join("t");
    fs::create_dir_all(&t).unwrap();
    for (path, node) in entries.iter().rev() {
        match node {
            Node::File(c) => fs::write(t.join(path), c).unwrap(),
            Node::Dir => fs::create_dir_all(t.join(path)).unwrap(),
            Node::Link(target) => symlink(target, t.join(path)).unwrap(),
        }
    }
    let expected = expected_tree_digest(&entries);
    for j in ["1", "2"] {
        let out = ok(run(simdcrypt(dir.path()).args(["sum", "--tree", "-j", j, "t"])));
        assert_eq!(out, format!("BLAKE3-TREE (t) = {expected}\n"));
    }
    let manifest = dir.file("m", format!("BLAKE3-TREE (t) = {expected}\n").as_bytes());
    assert_eq!(ok(run(simdcrypt(dir.path()).arg("check").arg(&manifest))), "t: OK\n");
    // Tree lines checked in parallel: each tree's files are hashed from inside the pool.
    let twice =
        dir.file("m-twice", format!("BLAKE3-TREE (t) = {expected}\nBLAKE3-TREE (./t) = {expected}\n").as_bytes());
    assert_eq!(ok(run(simdcrypt(dir.path()).args(["check", "-j", "2"]).arg(&twice))), "t: OK\n./t: OK\n");

    // An empty directory more changes the digest, and check notices.
    fs::create_dir(t.join("a/empty/more")).unwrap();
    let o = run(simdcrypt(dir.path()).arg("check").arg(&manifest));
    assert_eq!((code(&o), stdout(&o).as_str()), (1, "t: FAILED\n"));
    fs::remove_dir(t.join("a/empty/more")).unwrap();
    // So does a link's target.
    fs::remove_file(t.join("l")).unwrap();
    symlink("b", t.join("l")).unwrap();
    let out = ok(run(simdcrypt(dir.path()).args(["sum", "--tree", "--no-names", "t"])));
    assert_ne!(out.trim(), expected);

    // Following links: the link becomes a copy of its target file.
    let followed = ok(run(simdcrypt(dir.path()).args(["sum", "--tree", "--follow-symlinks", "t"])));
    let as_file = [
        ("b", Node::File(b"bee")),
        ("a-b", Node::File(b"")),
        ("a", Node::Dir),
        ("a/x", Node::File(&big)),
        ("a/empty", Node::Dir),
        ("l", Node::File(b"bee")),
    ];
    assert_eq!(followed, format!("BLAKE3-TREE (t) = {}\n", expected_tree_digest(&as_file)));

    // A file is not a tree; a loop is an error, not a digest.
    let o = run(simdcrypt(dir.path()).args(["sum", "--tree", "t/b"]));
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).is_empty());
    symlink("..", t.join("a/loop")).unwrap();
    let o = run(simdcrypt(dir.path()).args(["sum", "--tree", "--follow-symlinks", "t"]));
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).is_empty() && stderr(&o).contains("t/a/loop: file system loop detected"));
    let o = run(simdcrypt(dir.path()).args(["sum", "--tree", "-a", "sha256", "t"]));
    assert_eq!(code(&o), 2);
}

#[test]
fn drop_in_options() {
    let dir = TempDir::new("dropin");
    let content = data(5000, 3);
    dir.file("f", &content);
    let raw = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "--raw", "f"])));
    assert_eq!(raw, blake3::hash(&content).as_bytes());
    let raw = ok_bytes(run(simdcrypt(dir.path()).args(["sum", "--raw", "-a", "sha256", "f"])));
    assert_eq!(raw, sha2::Sha256::digest(&content).as_slice());
    assert_eq!(code(&run(simdcrypt(dir.path()).args(["sum", "--raw", "f", "f"]))), 2);
    let names = ok(run(simdcrypt(dir.path()).args(["sum", "--no-names", "f"])));
    assert_eq!(names, format!("{}\n", blake3::hash(&content).to_hex()));

    // check: --ignore-missing, --status, coreutils' message for a missing file.
    let sha = hex(&sha2::Sha256::digest(&content));
    let manifest = dir.file("m", format!("{sha}  f\n{sha}  gone\n").as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "-a", "sha256"]).arg(&manifest));
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "f: OK\ngone: FAILED open or read\n");
    assert!(stderr(&o).starts_with("simdcrypt: gone: No such file or directory\n"), "{}", stderr(&o));
    let o = run(simdcrypt(dir.path()).args(["check", "-a", "sha256", "--ignore-missing"]).arg(&manifest));
    assert_eq!((code(&o), stdout(&o).as_str(), stderr(&o).as_str()), (0, "f: OK\n", ""));
    let only_missing = dir.file("m2", format!("{sha}  gone\n").as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "-a", "sha256", "--ignore-missing"]).arg(&only_missing));
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no file was verified"), "{}", stderr(&o));
    let o = run(simdcrypt(dir.path()).args(["check", "-a", "sha256", "--status"]).arg(&manifest));
    assert_eq!((code(&o), stdout(&o).as_str()), (1, ""));

    // A sha256sum manifest checked as BLAKE3: the hint names -a sha256.
    let manifest = dir.file("m3", format!("{sha}  f\nzz\n").as_bytes());
    let o = run(simdcrypt(dir.path()).args(["check", "--warn"]).arg(&manifest));
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("try `check -a sha256`"), "{err}");
    assert!(err.contains(": 2: improperly formatted checksum line"), "{err}");
}

#[test]
fn invoked_as_b3sum_or_sha256sum() {
    let dir = TempDir::new("argv0");
    let content = data(3000, 4);
    dir.file("f", &content);
    for tool in ["b3sum", "sha256sum"] {
        symlink(env!("CARGO_BIN_EXE_simdcrypt"), dir.path().join(tool)).unwrap();
    }
    let tool = |name: &str| {
        let mut cmd = Command::new(dir.path().join(name));
        cmd.current_dir(dir.path());
        cmd
    };
    let b3 = blake3::hash(&content).to_hex().to_string();
    let sha = hex(&sha2::Sha256::digest(&content));
    assert_eq!(ok(run(tool("b3sum").arg("f"))), format!("{b3}  f\n"));
    assert_eq!(ok(run(tool("b3sum").args(["--no-names", "f"]))), format!("{b3}\n"));
    assert_eq!(ok(run(tool("sha256sum").args(["-b", "f"]))), format!("{sha}  f\n"));
    assert_eq!(ok(run(tool("sha256sum").args(["--tag", "f"]))), format!("SHA256 (f) = {sha}\n"));
    dir.file("b3.sums", format!("{b3}  f\n").as_bytes());
    dir.file("sha.sums", format!("{sha}  f\n").as_bytes());
    assert_eq!(ok(run(tool("b3sum").args(["-c", "b3.sums"]))), "f: OK\n");
    assert_eq!(ok(run(tool("sha256sum").args(["--check", "sha.sums"]))), "f: OK\n");
    let o = run(tool("sha256sum").arg("gone"));
    assert_eq!((code(&o), stderr(&o).as_str()), (1, "sha256sum: gone: No such file or directory\n"));
    let o = run(tool("b3sum").arg("gone"));
    // b3sum keeps Rust's "(os error N)" suffix; coreutils does not.
    assert_eq!((code(&o), stderr(&o).as_str()), (1, "b3sum: gone: No such file or directory (os error 2)\n"));
    // b3sum --check: stdin without operands, its FAILED line and summary, a malformed line.
    let manifest = format!("{b3}  f\n{b3}  gone\n\n");
    let o = run_with_stdin(tool("b3sum").arg("-c"), manifest.as_bytes());
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "f: OK\ngone: FAILED (No such file or directory (os error 2))\n");
    assert_eq!(stderr(&o), "b3sum: Empty line\nb3sum: WARNING: 2 computed checksums did NOT match\n");
    // --seek: the output from that byte of the extendable output on.
    let mut xof = [0u8; 40];
    blake3::Hasher::new().update(&content).finalize_xof().fill(&mut xof);
    let o = ok(run(tool("b3sum").args(["--seek", "8", "--no-names", "f"])));
    assert_eq!(o, format!("{}\n", hex(&xof[8..])));
    // coreutils exits with status 1 on a usage error.
    assert_eq!(code(&run(tool("sha256sum").arg("--no-such-option"))), 1);
}

#[test]
fn recursion_with_keys_lengths_and_tags() {
    let dir = make_tree("keyed");
    let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
    let key_file = dir.file("key", &key);
    let out = ok(run(simdcrypt(dir.path())
        .args(["sum", "-r", "--tag", "-l", "40", "-j", "2", "--exclude", "bad*", "--key-file"])
        .arg(&key_file)
        .arg("t")));
    let mut names = find_files(dir.path(), "t");
    names.retain(|n| !n.as_bytes().starts_with(b"t/bad"));
    assert_eq!(out.lines().count(), names.len());
    for (line, name) in out.lines().zip(&names) {
        let content = fs::read(dir.path().join(name)).unwrap();
        let mut expected = [0u8; 40];
        blake3::Hasher::new_keyed(&key).update(&content).finalize_xof().fill(&mut expected);
        let shown = name.to_str().unwrap().replace('\\', "\\\\").replace('\n', "\\n");
        let prefix = if shown.len() != name.len() { "\\" } else { "" };
        assert_eq!(line, format!("{prefix}BLAKE3 ({shown}) = {}", hex(&expected)));
    }
    // A keyed algorithm that requires its key works recursively too.
    let o = run(simdcrypt(dir.path()).args(["sum", "-r", "-a", "highwayhash64", "--key-file"]).arg(&key_file).arg("t"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 9);
}
