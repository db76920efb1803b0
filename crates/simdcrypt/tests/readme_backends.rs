//! The README's table of algorithms × backends says what this build has: for every row,
//! the backends listed for this architecture are exactly the ones the library reports as
//! built, in the same (preference) order. A backend added or removed without the README
//! being updated fails here (CI runs this on x86-64 and, under qemu, on aarch64).

use std::path::Path;

/// README row label (its first cell's start) → the backend family in `backend_report`.
const ROWS: &[(&str, &str)] = &[
    ("BLAKE3", "blake3"),
    ("SHA-256 of 64-byte blocks", "sha256-batch"),
    ("SHA-256", "sha256"),
    ("HighwayHash", "highwayhash"),
    ("Streebog", "streebog"),
    ("GOST R 34.11-94", "gost94"),
    ("Salsa20/20", "salsa20"),
    ("Xet hash", "gear"),
];

/// The table's column for this build's architecture.
fn column() -> usize {
    if cfg!(target_arch = "x86_64") {
        1
    } else if cfg!(target_arch = "aarch64") {
        2
    } else {
        usize::MAX
    }
}

#[test]
fn readme_table_lists_the_built_backends() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let text = std::fs::read_to_string(&readme).expect("README.md at the repository root");
    let report = simdcrypt::backend_report();
    let col = column();
    if col == usize::MAX {
        println!("the README has no column for this architecture; nothing to compare");
        return;
    }
    let mut checked = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        // ROWS lists "SHA-256 of 64-byte blocks" before "SHA-256": the first match wins.
        let Some(&(_, family)) = ROWS.iter().find(|(label, _)| cells[0].starts_with(label)) else {
            continue;
        };
        let listed: Vec<&str> = cells[col].split(", ").collect();
        let entry =
            report.iter().find(|r| r.algorithm == family).unwrap_or_else(|| panic!("no backend family {family}"));
        assert_eq!(listed, entry.built, "README.md's row for {family} ({}) against the library", cells[0]);
        checked.push(family);
    }
    for (_, family) in ROWS {
        assert!(checked.contains(family), "README.md's table has no row for {family}");
    }
    println!("README table checked for {checked:?}");
}
