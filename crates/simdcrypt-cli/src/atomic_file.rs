//! Output files that appear whole or not at all: the one place the CLI creates files
//! (`keygen`, `encrypt`, `decrypt`; other subcommands that write files should use it too).
//! The file itself is `simdcrypt::atomic_file` (an unnamed `O_TMPFILE` file named with
//! `linkat` only when complete and synced; a named temporary file where that is refused),
//! shared with the Python package. What the CLI adds is the signal handling a library
//! must not install: on SIGINT, SIGTERM or SIGHUP every named temporary file is removed,
//! and the process then ends with the same signal (so the shell sees 128+signal).

use std::io;
use std::path::Path;
use std::sync::Once;

pub use simdcrypt::atomic_file::AtomicFile;

/// Starts a new file that will become `target` (see `simdcrypt::atomic_file`), with the
/// signal cleanup installed first.
pub fn create(target: &Path) -> io::Result<AtomicFile> {
    install_signal_cleanup();
    AtomicFile::create(target)
}

/// A thread that waits for termination signals, removes the named temporary files, and
/// then lets the signal end the process as it would have. (Removing files from inside a
/// signal handler would need async-signal-safe code only; a thread may lock and allocate.)
fn install_signal_cleanup() {
    static HANDLER: Once = Once::new();
    #[cfg(unix)]
    HANDLER.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Also keeps any new temporary file from being made before the end.
                simdcrypt::atomic_file::remove_temporaries_before_exit();
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                // Not reached for these signals (their default is to terminate).
                std::process::exit(128 + sig);
            }
        });
    });
    #[cfg(not(unix))]
    HANDLER.call_once(|| {});
}
