//! The tree manifest (`simdcrypt::manifest`): the format's round trip and its refusals
//! (random, mutated and truncated input never panic and are never trusted; errors name
//! their line), the staleness rule, hashing that notices a file changing under it, and
//! `hash_tree`'s cache and tree digest against an independent encoding with the `blake3`
//! crate.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use simdcrypt::manifest::{self, update, Entry, FileStat, Header, Manifest, Mode, Settings, TreeOptions};

fn temp_dir(tag: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("simdcrypt-manifest-{tag}-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn header(algorithms: &[&str], length: Option<usize>) -> Header {
    Header {
        written_ns: 1_700_000_000_000_000_000,
        root: PathBuf::from("data"),
        settings: Settings { algorithms: algorithms.iter().map(|s| s.to_string()).collect(), length, mode: Mode::Hash },
    }
}

fn sample() -> Manifest {
    let mut entries = Vec::new();
    for (i, name) in ["a", "b c", "dir/x", "dir/y\"q", "z\u{e9}"].iter().enumerate() {
        entries.push(Entry {
            path: PathBuf::from(name),
            stat: FileStat { size: i as u64, mtime_ns: -5 + i as i64, ctime_ns: 7, ino: 9, dev: u64::MAX },
            digests: vec![vec![i as u8; 32], vec![0xa5; 32]],
        });
    }
    Manifest { header: header(&["blake3", "sha256"], None), entries }
}

fn bytes_of(m: &Manifest) -> Vec<u8> {
    let mut out = Vec::new();
    m.write_to(&mut out).unwrap();
    out
}

#[test]
fn round_trip() {
    let m = sample();
    let bytes = bytes_of(&m);
    assert_eq!(Manifest::parse(&bytes).unwrap(), m);
}

#[cfg(unix)]
#[test]
fn non_utf8_paths_round_trip() {
    use std::os::unix::ffi::OsStrExt;
    let mut m = sample();
    m.entries.push(Entry {
        path: Path::new(std::ffi::OsStr::from_bytes(b"\xff\xfe")).to_path_buf(),
        stat: FileStat::default(),
        digests: vec![vec![1; 32], vec![2; 32]],
    });
    let bytes = bytes_of(&m);
    assert!(String::from_utf8_lossy(&bytes).contains("\"path_hex\":\"fffe\""));
    assert_eq!(Manifest::parse(&bytes).unwrap(), m);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = bytes_of(&sample());
    for cut in 0..bytes.len() {
        assert!(
            Manifest::parse(&bytes[..cut]).is_err(),
            "a manifest cut at {cut} of {} bytes was accepted",
            bytes.len()
        );
    }
}

/// The line of each kind of damage is the one named.
#[test]
fn errors_name_the_line() {
    let text = String::from_utf8(bytes_of(&sample())).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let with = |n: usize, new: &str| {
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        l[n - 1] = new.to_string();
        format!("{}\n", l.join("\n"))
    };
    let cases = [
        (3, lines[2].replace("\"size\":1", "\"size\":\"1\""), "malformed"),
        (4, lines[3].replace("dir/x", "../x"), "relative"),
        (3, lines[2].replace("\"b c\"", "\"a\""), "out of order or repeated"),
        (5, lines[4].replace("digests\":[\"", "digests\":[\"0"), "hex"),
        (3, lines[2].replace("\"ino\":9", "\"ino\":9,\"extra\":1"), "malformed"),
        (1, lines[0].replace("\"version\":1", "\"version\":2"), "newer"),
        (1, lines[0].replace("blake3\"", "nope\""), "unknown algorithm"),
        (7, lines[6].replace("\"entries\":5", "\"entries\":4"), "entries"),
        (4, lines[3].replace("\"size\":2", "\"size\":3"), ""),
    ];
    for (line, replaced, words) in cases {
        let err = Manifest::parse(with(line, &replaced).as_bytes()).unwrap_err();
        // A change that still parses line by line is caught by the end line's checksum.
        let expected = if words.is_empty() { lines.len() as u64 } else { line as u64 };
        assert_eq!(err.line, expected, "{err}");
        assert!(err.to_string().contains(words), "{err} should say {words:?}");
        assert!(err.to_string().starts_with(&format!("line {expected}: ")), "{err}");
    }
    let extra = format!("{text}{{}}\n");
    assert_eq!(Manifest::parse(extra.as_bytes()).unwrap_err().line, lines.len() as u64 + 1);
    let not = Manifest::parse(b"0123abcd  file\n").unwrap_err();
    assert!(not.not_a_manifest && not.line == 1, "{not}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary bytes never panic the parser.
    #[test]
    fn arbitrary_bytes_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = Manifest::parse(&bytes);
    }

    /// A valid manifest with bytes changed, inserted or removed is refused, or (a change
    /// that means the same, such as the case of the checksum's hex) reads as the original.
    #[test]
    fn mutated_manifests_are_never_trusted(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4)
    ) {
        let original = sample();
        let mut bytes = bytes_of(&original);
        for (at, byte, op) in edits {
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.remove(i); }
            }
        }
        if let Ok(m) = Manifest::parse(&bytes) {
            prop_assert_eq!(m, original);
        }
    }

    /// Written entries with any paths, stats and digests read back as they were.
    #[test]
    fn random_manifests_round_trip(
        names in proptest::collection::btree_set("[a-z\u{e9}\" \\\\]{1,6}(/[a-z0-9]{1,4}){0,2}", 0..12),
        stats in proptest::collection::vec((any::<u64>(), any::<i64>(), any::<i64>(), any::<u64>(), any::<u64>()), 12),
        length in proptest::option::of(1usize..80),
    ) {
        let mut entries = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let (size, mtime_ns, ctime_ns, ino, dev) = stats[i];
            entries.push(Entry {
                path: PathBuf::from(name),
                stat: FileStat { size, mtime_ns, ctime_ns, ino, dev },
                digests: vec![vec![i as u8; length.unwrap_or(32)]],
            });
        }
        // The writer sorts nothing: sort as the walk does, by bytes.
        entries.sort_by(|a, b| a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes()));
        let m = Manifest { header: header(&["blake3"], length), entries };
        prop_assert_eq!(Manifest::parse(&bytes_of(&m)).unwrap(), m);
    }
}

#[test]
fn staleness_rule() {
    let written = 10_000_000_000;
    let old = FileStat { size: 5, mtime_ns: 1_000, ctime_ns: 1_000, ino: 3, dev: 4 };
    assert!(old.still_fresh(&old, written, false));
    let changed = [
        FileStat { size: 6, ..old },
        FileStat { mtime_ns: 1_001, ..old },
        FileStat { ctime_ns: 1_001, ..old },
        FileStat { ino: 9, ..old },
        FileStat { dev: 9, ..old },
    ];
    for now in changed {
        assert!(!old.still_fresh(&now, written, false), "{now:?}");
    }
    // --trust-mtime ignores ctime, inode and device only.
    assert!(old.still_fresh(&FileStat { ctime_ns: 2, ino: 8, dev: 9, ..old }, written, true));
    assert!(!old.still_fresh(&FileStat { size: 6, ..old }, written, true));
    // Racy: an mtime (or ctime) not older than the manifest's time less the slack.
    let racy = FileStat { mtime_ns: written - manifest::RACY_SLACK_NS, ..old };
    assert!(!racy.still_fresh(&racy, written, true));
    let racy_ctime = FileStat { ctime_ns: written, ..old };
    assert!(!racy_ctime.still_fresh(&racy_ctime, written, false));
    let just_old = FileStat { mtime_ns: written - manifest::RACY_SLACK_NS - 1, ..old };
    assert!(just_old.still_fresh(&just_old, written, true));
}

/// A file that grows while it is hashed is an error, not an entry.
#[test]
fn change_while_hashing_is_reported() {
    let dir = temp_dir("change");
    let path = dir.join("f");
    fs::write(&path, b"before").unwrap();
    let result = update::hash_checked(&path, Path::new("f"), false, |p| {
        let data = fs::read(p)?;
        fs::OpenOptions::new().append(true).open(p)?.write_all_at_end(b" and after")?;
        Ok((vec![blake3::hash(&data).as_bytes().to_vec()], data.len() as u64))
    });
    let err = result.unwrap_err();
    assert!(err.to_string().contains("changed while it was being hashed"), "{err}");
    // Unchanged, the same call gives the entry with the stat from before.
    let entry = update::hash_checked(&path, Path::new("f"), false, |p| {
        let data = fs::read(p)?;
        Ok((vec![blake3::hash(&data).as_bytes().to_vec()], data.len() as u64))
    })
    .unwrap();
    assert_eq!(entry.stat.size, 16);
    fs::remove_dir_all(dir).unwrap();
}

trait AppendAll {
    fn write_all_at_end(&mut self, data: &[u8]) -> std::io::Result<()>;
}

impl AppendAll for fs::File {
    fn write_all_at_end(&mut self, data: &[u8]) -> std::io::Result<()> {
        std::io::Write::write_all(self, data)
    }
}

/// The tree digest per docs/tree-digest.md, computed here with the `blake3` crate.
fn independent_tree_digest(root: &Path) -> [u8; 32] {
    fn collect(root: &Path, rel: &Path, out: &mut Vec<(Vec<u8>, PathBuf)>) {
        for e in fs::read_dir(root.join(rel)).unwrap() {
            let rel = rel.join(e.unwrap().file_name());
            out.push((rel.to_str().unwrap().as_bytes().to_vec(), rel.clone()));
            if fs::symlink_metadata(root.join(&rel)).unwrap().is_dir() {
                collect(root, &rel, out);
            }
        }
    }
    let mut all = Vec::new();
    collect(root, Path::new(""), &mut all);
    all.sort();
    let mut h = blake3::Hasher::new();
    h.update(b"simdcrypt-tree-v1\n");
    for (bytes, rel) in all {
        let meta = fs::symlink_metadata(root.join(&rel)).unwrap();
        let kind = if meta.is_dir() {
            b'd'
        } else if meta.is_file() {
            b'f'
        } else {
            b'l'
        };
        h.update(&[kind]);
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
        if meta.is_file() {
            let data = fs::read(root.join(&rel)).unwrap();
            h.update(&(data.len() as u64).to_le_bytes());
            h.update(blake3::hash(&data).as_bytes());
        } else if kind == b'l' {
            let target = fs::read_link(root.join(&rel)).unwrap();
            let t = target.to_str().unwrap().as_bytes();
            h.update(&(t.len() as u64).to_le_bytes());
            h.update(t);
        }
    }
    *h.finalize().as_bytes()
}

fn set_mtime(path: &Path, t: SystemTime) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_times(fs::FileTimes::new().set_modified(t)).unwrap();
}

#[test]
fn hash_tree_caches_and_matches_independent_digests() {
    let dir = temp_dir("tree");
    let root = dir.join("data");
    fs::create_dir_all(root.join("sub/empty")).unwrap();
    fs::write(root.join("a"), b"alpha").unwrap();
    fs::write(root.join("sub/b"), vec![7u8; 3 << 20]).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("a", root.join("link")).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    set_mtime(&root.join("a"), hour_ago);
    set_mtime(&root.join("sub/b"), hour_ago);
    let manifest_path = dir.join("m.jsonl");
    let opts = TreeOptions {
        manifest: Some(manifest_path.clone()),
        algorithms: vec!["blake3".into(), "sha256".into()],
        trust_mtime: true,
        ..TreeOptions::default()
    };
    let first = manifest::hash_tree(&root, &opts).unwrap();
    assert_eq!((first.hashed, first.reused), (2, 0));
    assert!(first.errors.is_empty());
    assert_eq!(first.tree_digest, Some(independent_tree_digest(&root)));
    for e in &first.entries {
        let data = fs::read(root.join(&e.path)).unwrap();
        assert_eq!(e.digests[0], blake3::hash(&data).as_bytes().to_vec());
        assert_eq!(e.digests[1], <sha2::Sha256 as sha2::Digest>::digest(&data).to_vec());
    }
    // Nothing changed: answered by the cache (trust_mtime: the ctimes are recent).
    let second = manifest::hash_tree(&root, &opts).unwrap();
    assert_eq!((second.hashed, second.reused), (0, 2));
    assert_eq!(second.entries, first.entries);
    assert_eq!(second.tree_digest, first.tree_digest);
    // A subset of the algorithms: their digests are reused.
    let subset = TreeOptions { algorithms: vec!["sha256".into()], ..opts };
    let third = manifest::hash_tree(&root, &subset).unwrap();
    assert_eq!((third.hashed, third.reused, third.tree_digest), (0, 2, None));
    assert_eq!(third.entries[0].digests, [first.entries[0].digests[1].clone()]);
    // Another algorithm: the manifest is upgraded, re-hashing everything.
    let other = TreeOptions { algorithms: vec!["streebog256".into()], ..subset };
    let fourth = manifest::hash_tree(&root, &other).unwrap();
    assert_eq!((fourth.hashed, fourth.reused), (2, 0));
    let reread = Manifest::parse(&fs::read(&manifest_path).unwrap()).unwrap();
    assert_eq!(reread.header.settings.algorithms, ["streebog256"]);
    // A damaged manifest is an error naming its line, and stays as it was.
    let mut damaged = fs::read(&manifest_path).unwrap();
    let at = damaged.iter().position(|&b| b == b'\n').unwrap() + 12;
    damaged[at] ^= 1;
    fs::write(&manifest_path, &damaged).unwrap();
    let err = manifest::hash_tree(&root, &other).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert!(err.to_string().starts_with("line "), "{err}");
    assert_eq!(fs::read(&manifest_path).unwrap(), damaged);
    fs::remove_dir_all(dir).unwrap();
}
