//! Directory walks for `sum -r`, `sum --tree` and `check -r`: the library's
//! `simdcrypt::walk` (byte-sorted paths, symlinks skipped or followed with loop detection),
//! with the command line's `--exclude` globs turned into its exclusion predicate, and
//! standard output's file (when it is one) left out.

use globset::{Glob, GlobSetBuilder};
pub use simdcrypt::walk::{path_bytes, path_from_bytes, walk, Kind, WalkOptions};

use crate::output::Failure;

/// Options from the command line's `--follow-symlinks` and `--exclude GLOB`s: an entry is
/// skipped when its path relative to the walked directory, or its own name, matches.
pub fn options(follow_symlinks: bool, globs: &[String]) -> Result<WalkOptions, Failure> {
    let exclude: Option<simdcrypt::walk::Exclude> = if globs.is_empty() {
        None
    } else {
        let mut builder = GlobSetBuilder::new();
        for g in globs {
            let glob = Glob::new(g).map_err(|e| Failure::Usage(format!("--exclude {g:?}: {e}")))?;
            builder.add(glob);
        }
        let set = builder.build().map_err(|e| Failure::Usage(format!("--exclude: {e}")))?;
        Some(Box::new(move |rel: &std::path::Path| {
            set.is_match(rel) || rel.file_name().is_some_and(|n| set.is_match(n))
        }))
    };
    Ok(WalkOptions {
        follow_symlinks,
        exclude,
        skip_files: stdout_identity().into_iter().collect(),
        ..WalkOptions::default()
    })
}

/// Standard output's file, when it is a regular file: `sum -r DIR > DIR/SUMS` must not list
/// SUMS, whose digest is of a file half written (RHash leaves out its `--output` file too).
fn stdout_identity() -> Option<simdcrypt::walk::FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let file = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
        simdcrypt::walk::regular_file_identity(&file.metadata().ok()?)
    }
    #[cfg(not(unix))]
    None
}
