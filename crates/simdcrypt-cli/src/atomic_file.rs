//! Output files that appear whole or not at all, and leave nothing behind when the run is
//! interrupted: the one place the CLI creates files (`keygen`, `encrypt`, `decrypt`; other
//! subcommands that write files should use it too).
//!
//! On Linux the data goes to an *unnamed* file made with `O_TMPFILE` in OUT's folder. It
//! gets its name only in [`AtomicFile::commit`], after it was synced: `linkat` of
//! `/proc/self/fd/N` with `AT_SYMLINK_FOLLOW`, which fails if OUT appeared meanwhile (so
//! nothing is replaced unless asked). Until then it has no name, so even SIGKILL or a
//! power cut leaves nothing: the kernel frees the file with its last descriptor. To
//! replace an existing OUT (`--force`), the file is linked under a temporary name and
//! renamed over OUT, atomically; only that short window has a named file, registered for
//! removal on a signal like the fallback's.
//!
//! Where `O_TMPFILE` is refused (file systems without it answer EOPNOTSUPP, EISDIR or
//! EINVAL; other systems have no such flag) a named temporary file `.NAME.RANDOM.tmp` is
//! made beside OUT instead. Its path is registered: SIGINT, SIGTERM and SIGHUP remove every
//! registered path and then end the process with the same signal (so the shell sees
//! 128+signal), and [`AtomicFile`]'s `Drop` removes it on every error path. Only SIGKILL
//! (which no process can catch) can then leave one behind.
//!
//! The environment variable `SIMDCRYPT_NO_O_TMPFILE=1` skips `O_TMPFILE`, so that the
//! tests can exercise the fallback on a file system that has it.
//!
//! Either way the file is synced before it is named, and OUT's folder after, so a
//! reported success survives a crash.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The paths to remove if a termination signal arrives.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// Registers `path` for removal on SIGINT, SIGTERM or SIGHUP (installing the handler on
/// first use).
fn register(path: &Path) {
    install_signal_cleanup();
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner()).push(path.to_path_buf());
}

fn unregister(path: &Path) {
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| p != path);
}

/// A thread that waits for termination signals, removes the registered paths, and then
/// lets the signal end the process as it would have. (Removing files from inside a signal
/// handler would need async-signal-safe code only; a thread may lock and allocate.)
fn install_signal_cleanup() {
    #[cfg(unix)]
    HANDLER.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Hold the lock to the end: no new path is registered after the sweep.
                let paths = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
                for p in paths.iter() {
                    let _ = fs::remove_file(p);
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                // Not reached for these signals (their default is to terminate).
                std::process::exit(128 + sig);
            }
        });
    });
    #[cfg(not(unix))]
    HANDLER.call_once(|| {});
}

/// An output file being written; see the module docs.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    target: PathBuf,
    dir: PathBuf,
    /// The temporary name, for a named temporary file (the fallback).
    named: Option<PathBuf>,
}

/// The folder `target` goes into (`.` for a bare name).
fn folder_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A fresh temporary name beside `target`: `.NAME.RANDOM.tmp`.
fn temp_name(dir: &Path, target: &Path) -> io::Result<PathBuf> {
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|e| io::Error::other(format!("OS random generator: {e}")))?;
    let mut name = OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".{:016x}.tmp", u64::from_le_bytes(nonce)));
    Ok(dir.join(name))
}

impl AtomicFile {
    /// Starts a new file that will become `target` (mode 0600 on Unix, less the umask).
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let dir = folder_of(target);
        #[cfg(target_os = "linux")]
        match if std::env::var_os("SIMDCRYPT_NO_O_TMPFILE").is_some_and(|v| v == "1") {
            Err(io::Error::from_raw_os_error(libc::EOPNOTSUPP))
        } else {
            unnamed_file(&dir)
        } {
            Ok(file) => return Ok(AtomicFile { file: Some(file), target: target.to_path_buf(), dir, named: None }),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)) => {}
            Err(e) => return Err(e),
        }
        for _ in 0..100 {
            let path = temp_name(&dir, target)?;
            let mut options = OpenOptions::new();
            options.write(true).read(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            // Registered before it exists, so that no signal can come between the two.
            register(&path);
            match options.open(&path) {
                Ok(file) => {
                    return Ok(AtomicFile { file: Some(file), target: target.to_path_buf(), dir, named: Some(path) })
                }
                Err(e) => {
                    unregister(&path);
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                }
            }
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary name"))
    }

    /// The file to write to.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until commit")
    }

    /// Syncs the file, gives it its name (replacing an existing `target` only if
    /// `replace`; otherwise an existing one is an `AlreadyExists` error), and syncs the
    /// folder.
    pub fn commit(mut self, replace: bool) -> io::Result<()> {
        let file = self.file.take().expect("open until commit");
        file.sync_all()?;
        match self.named.take() {
            Some(temp) => {
                let named = NamedGuard(temp);
                if replace {
                    fs::rename(&named.0, &self.target)?;
                } else {
                    // A hard link fails if the target exists: no check-then-rename race.
                    fs::hard_link(&named.0, &self.target)?;
                    fs::remove_file(&named.0)?;
                }
                unregister(&named.0);
                std::mem::forget(named);
            }
            None => {
                #[cfg(target_os = "linux")]
                {
                    if replace {
                        let temp = temp_name(&self.dir, &self.target)?;
                        register(&temp);
                        let named = NamedGuard(temp);
                        link_unnamed(&file, &named.0)?;
                        fs::rename(&named.0, &self.target)?;
                        unregister(&named.0);
                        std::mem::forget(named);
                    } else {
                        link_unnamed(&file, &self.target)?;
                    }
                }
            }
        }
        drop(file);
        sync_folder(&self.dir)
    }
}

/// Removes a registered temporary name when dropped (the error paths of `commit`).
struct NamedGuard(PathBuf);

impl Drop for NamedGuard {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
        unregister(&self.0);
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Not committed: an unnamed file vanishes with its descriptor; a named one is
        // removed here.
        self.file = None;
        if let Some(p) = self.named.take() {
            let _ = fs::remove_file(&p);
            unregister(&p);
        }
    }
}

/// Makes a folder's entries durable. Best effort: some file systems refuse to sync a
/// folder, and the data itself was synced already.
fn sync_folder(dir: &Path) -> io::Result<()> {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// An unnamed file in `dir` (`O_TMPFILE`, mode 0600).
#[cfg(target_os = "linux")]
fn unnamed_file(dir: &Path) -> io::Result<File> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::FromRawFd;
    let c_dir = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    // SAFETY: `c_dir` is a NUL-terminated string that outlives the call; open(2) reads it
    // and returns a new descriptor or -1, touching no other memory.
    let fd = unsafe { libc::open(c_dir.as_ptr(), libc::O_TMPFILE | libc::O_RDWR | libc::O_CLOEXEC, 0o600) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a freshly opened descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Gives the unnamed `file` the name `to`: linkat(2) of /proc/self/fd/N, following it.
/// Fails with `AlreadyExists` if `to` exists.
#[cfg(target_os = "linux")]
fn link_unnamed(file: &File, to: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).expect("no NUL");
    let c_to = std::ffi::CString::new(to.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    // SAFETY: both strings are NUL-terminated and outlive the call; linkat(2) only reads
    // them.
    let r =
        unsafe { libc::linkat(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, c_to.as_ptr(), libc::AT_SYMLINK_FOLLOW) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
