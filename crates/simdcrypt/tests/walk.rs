//! The directory walk (`simdcrypt::walk`): the same entries in the same byte order on one
//! thread and on several, whatever the tree's shape (deep, wide, links, loops, names that
//! are not UTF-8, special files), and the stats it takes when asked agree with a stat of
//! each path.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use simdcrypt::threads::Threads;
use simdcrypt::walk::{self, path_bytes, Kind, WalkOptions};

fn temp_dir(tag: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("simdcrypt-walk-{tag}-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A tree with several levels of many small directories, files whose names sort around
/// `/` (`a.b`, `a-b`, `a/...`), empty directories, and on Unix links, a link loop, a FIFO
/// and a name that is not UTF-8.
fn build_tree(root: &Path) {
    for i in 0..7 {
        for j in 0..(i % 4) + 1 {
            let dir = root.join(format!("d{i}")).join(format!("sub{j}")).join("deeper");
            fs::create_dir_all(&dir).unwrap();
            for k in 0..(i + j) % 3 + 1 {
                fs::write(dir.join(format!("f{k}")), format!("{i} {j} {k}")).unwrap();
            }
            fs::write(dir.parent().unwrap().join("leaf.txt"), b"x").unwrap();
        }
    }
    fs::create_dir_all(root.join("empty")).unwrap();
    fs::create_dir_all(root.join("a")).unwrap();
    fs::write(root.join("a").join("in-a"), b"1").unwrap();
    fs::write(root.join("a.b"), b"2").unwrap();
    fs::write(root.join("a-b"), b"3").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::os::unix::fs::symlink("a.b", root.join("link-to-file")).unwrap();
        std::os::unix::fs::symlink("d1", root.join("link-to-dir")).unwrap();
        std::os::unix::fs::symlink("..", root.join("d2").join("loop")).unwrap();
        fs::write(root.join(std::ffi::OsStr::from_bytes(b"bad-\xff-name")), b"4").unwrap();
        let fifo = std::ffi::CString::new(root.join("fifo").as_os_str().as_bytes()).unwrap();
        // SAFETY: `fifo` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    }
}

/// What a walk found, comparable across runs: each path with its kind.
fn summary(entries: &[walk::Entry]) -> Vec<(Vec<u8>, String)> {
    entries
        .iter()
        .map(|e| {
            let kind = match &e.kind {
                Kind::File => "file".to_string(),
                Kind::Dir => "dir".to_string(),
                Kind::Symlink(t) => format!("link {}", t.display()),
                Kind::Error(err) => format!("error {:?}", err.kind()),
            };
            (path_bytes(&e.rel).to_vec(), kind)
        })
        .collect()
}

fn options(follow_symlinks: bool, stat_files: bool, threads: Threads) -> WalkOptions {
    WalkOptions { follow_symlinks, exclude: None, stat_files, threads, skip_files: Vec::new() }
}

#[test]
fn parallel_walks_match_the_serial_walk() {
    let root = temp_dir("parallel");
    build_tree(&root);
    for follow in [false, true] {
        for specials_are_errors in [false, true] {
            let serial = walk::walk(&root, &options(follow, false, Threads::One), specials_are_errors);
            let expected = summary(&serial);
            assert!(expected.windows(2).all(|w| w[0].0 <= w[1].0), "not sorted by path bytes");
            assert!(expected.iter().filter(|e| e.1 == "file").count() > 20, "the tree was not walked");
            if cfg!(unix) && follow {
                assert!(expected.iter().any(|e| e.1.starts_with("error")), "the link loop was not reported");
            }
            for threads in [Threads::Max(2), Threads::Max(5), Threads::Auto] {
                for _ in 0..3 {
                    let parallel = walk::walk(&root, &options(follow, false, threads), specials_are_errors);
                    assert_eq!(summary(&parallel), expected, "follow {follow}, {threads:?}");
                }
            }
        }
    }
    println!("walks compared: serial against Max(2), Max(5) and Auto threads");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn stats_taken_by_the_walk_match_a_stat_of_each_path() {
    let root = temp_dir("stats");
    build_tree(&root);
    for follow in [false, true] {
        for threads in [Threads::One, Threads::Max(3)] {
            let entries = walk::walk(&root, &options(follow, true, threads), false);
            let mut files = 0;
            for e in &entries {
                if !matches!(e.kind, Kind::File) {
                    assert!(e.meta.is_none(), "{}: a stat for a non-file", e.rel.display());
                    continue;
                }
                files += 1;
                let meta = e.meta.as_ref().expect("a file without its stat");
                let direct = fs::metadata(&e.path).unwrap();
                assert!(meta.is_file());
                assert_eq!(meta.len(), direct.len(), "{}", e.rel.display());
                assert_eq!(meta.modified().unwrap(), direct.modified().unwrap(), "{}", e.rel.display());
                #[cfg(unix)]
                {
                    use std::os::unix::fs::MetadataExt;
                    assert_eq!((meta.ino(), meta.dev()), (direct.ino(), direct.dev()), "{}", e.rel.display());
                }
            }
            assert!(files > 20);
            let unstatted = walk::walk(&root, &options(follow, false, threads), false);
            assert!(unstatted.iter().all(|e| e.meta.is_none()));
        }
    }
    fs::remove_dir_all(&root).unwrap();
}

/// `skip_files` leaves out exactly the files of those identities, wherever they are met
/// (a followed link to one too), on one thread and on several; every other entry stays.
#[cfg(unix)]
#[test]
fn skipped_files_are_left_out_by_identity() {
    let root = temp_dir("skip");
    build_tree(&root);
    // a.b is also reached through link-to-file; d3/sub0/leaf.txt has twins of that name.
    let skipped = [root.join("a.b"), root.join("d3").join("sub0").join("leaf.txt")];
    let skip_files: Vec<_> = skipped.iter().map(|p| walk::file_identity(p).unwrap()).collect();
    assert_eq!(walk::file_identity(&root), None, "a directory has no file identity");
    for follow in [false, true] {
        for threads in [Threads::One, Threads::Max(3)] {
            let all = summary(&walk::walk(&root, &options(follow, false, threads), false));
            let opts = WalkOptions { skip_files: skip_files.clone(), ..options(follow, false, threads) };
            let got = summary(&walk::walk(&root, &opts, false));
            let mut left_out: Vec<&[u8]> = vec![b"a.b", b"d3/sub0/leaf.txt"];
            if follow {
                left_out.push(b"link-to-file");
            }
            let expected: Vec<_> = all.iter().filter(|e| !left_out.contains(&&e.0[..])).cloned().collect();
            assert_eq!(all.len() - expected.len(), left_out.len(), "follow {follow}: the skipped files were walked");
            assert_eq!(got, expected, "follow {follow}, {threads:?}");
        }
    }
    fs::remove_dir_all(&root).unwrap();
}
