//! Output files that appear whole or not at all, and leave nothing behind when the writer
//! fails or the process is interrupted: what `simdcrypt encrypt`/`decrypt`/`keygen` and
//! Python's `encrypt_file`/`decrypt_file`/`open_encrypted(..., "wb")` write through.
//!
//! On Linux the data goes to an *unnamed* file made with `O_TMPFILE` in the target's
//! folder. It gets its name only in [`AtomicFile::commit`], after it was synced: `linkat`
//! of `/proc/self/fd/N` with `AT_SYMLINK_FOLLOW`, which fails if the target appeared
//! meanwhile (so nothing is replaced unless asked). Until then it has no name, so even
//! SIGKILL or a power cut leaves nothing: the kernel frees the file with its last
//! descriptor. To replace an existing target, the file is linked under a temporary name
//! and renamed over the target, atomically; only that short window has a named file.
//!
//! Where `O_TMPFILE` is refused (file systems without it answer EOPNOTSUPP, EISDIR or
//! EINVAL; other systems have no such flag) a named temporary file `.NAME.RANDOM.tmp` is
//! made beside the target instead, and removed by [`AtomicFile`]'s `Drop` on every error
//! path. Every named temporary file is registered while it exists: a program that handles
//! termination signals (the CLI does; a library inside Python must not) calls
//! [`remove_temporaries_before_exit`] from its handler thread. Only SIGKILL (which no
//! process can catch) can then leave one behind.
//!
//! The environment variable `SIMDCRYPT_NO_O_TMPFILE=1` skips `O_TMPFILE`, so that tests
//! can exercise the fallback on a file system that has it.
//!
//! Either way the file is synced before it is named, and the folder after, so a reported
//! success survives a crash. Large outputs are written through [`AtomicFile::write_behind`],
//! which has the kernel start writing them to the disk as they come (Linux), so that this
//! sync has little left to wait for.
//!
//! ## What this file holds
//!
//! `AtomicFile`: output files that appear whole or not at all (an unnamed `O_TMPFILE` file
//! linked with `linkat` once complete and synced; elsewhere a registered named temporary file
//! removed on drop; `--force`/replace links to a temporary name and renames);
//! `remove_temporaries_before_exit` for a program's signal handler; `WriteBehind`, the file
//! seen through a writer that starts the disk's write-back every few megabytes. Used by the
//! CLI and the Python package

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The named temporary files that exist now.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registered() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner())
}

fn register(path: &Path) {
    registered().push(path.to_path_buf());
}

fn unregister(path: &Path) {
    registered().retain(|p| p != path);
}

/// Removes every named temporary file an [`AtomicFile`] has now, and keeps any new one
/// from being made (a later `create` or `commit` blocks): for a termination-signal
/// handler's thread, right before the process ends. Never returns control to writers.
pub fn remove_temporaries_before_exit() {
    let paths = registered();
    for p in paths.iter() {
        let _ = fs::remove_file(p);
    }
    // Hold the lock for the rest of the process: no path is registered after the sweep.
    std::mem::forget(paths);
}

/// An output file being written; see the module docs. Write to it through [`Write`] (or
/// [`AtomicFile::write_behind`], or [`AtomicFile::file`], which does not start the disk's
/// write-back), then [`AtomicFile::commit`]; dropped uncommitted, it leaves nothing.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    target: PathBuf,
    dir: PathBuf,
    /// The temporary name, for a named temporary file (the fallback).
    named: Option<PathBuf>,
    /// Bytes written through [`Write`] or [`AtomicFile::write_behind`] since the disk's
    /// write-back was last started ([`WriteBehind`]).
    unsent: u64,
}

/// The folder `target` goes into (`.` for a bare name).
fn folder_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A fresh temporary name beside `target`: `.NAME.RANDOM.tmp`. The name need not be
/// secret (the file is created exclusively, and retried on a clash), only unlikely to
/// clash: the standard library's randomly keyed hasher over the time and a counter.
fn temp_name(dir: &Path, target: &Path) -> PathBuf {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    let mut name = OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".{:016x}.tmp", h.finish()));
    dir.join(name)
}

/// The error `open` gives for a folder.
fn is_a_directory() -> io::Error {
    #[cfg(unix)]
    return io::Error::from_raw_os_error(libc::EISDIR);
    #[cfg(not(unix))]
    return io::Error::new(io::ErrorKind::IsADirectory, "is a directory");
}

impl AtomicFile {
    /// Starts a new file that will become `target` (mode 0600 on Unix, less the umask).
    /// A `target` that is a folder is refused here (EISDIR), before any data is written.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let unnamed = std::env::var_os("SIMDCRYPT_NO_O_TMPFILE").is_none_or(|v| v != "1");
        AtomicFile::create_with(target, unnamed)
    }

    /// [`AtomicFile::create`], trying `O_TMPFILE` only if `unnamed`.
    fn create_with(target: &Path, unnamed: bool) -> io::Result<AtomicFile> {
        if fs::metadata(target).is_ok_and(|m| m.is_dir()) {
            return Err(is_a_directory());
        }
        let dir = folder_of(target);
        #[cfg(not(target_os = "linux"))]
        let _ = unnamed;
        #[cfg(target_os = "linux")]
        match if unnamed { unnamed_file(&dir) } else { Err(io::Error::from_raw_os_error(libc::EOPNOTSUPP)) } {
            Ok(file) => {
                return Ok(AtomicFile { file: Some(file), target: target.to_path_buf(), dir, named: None, unsent: 0 })
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)) => {}
            Err(e) => return Err(e),
        }
        for _ in 0..100 {
            let path = temp_name(&dir, target);
            let mut options = OpenOptions::new();
            options.write(true).read(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            // Registered before it exists, so that no signal can come between the two.
            register(&path);
            match options.open(&path) {
                Ok(file) => {
                    let named = Some(path);
                    return Ok(AtomicFile { file: Some(file), target: target.to_path_buf(), dir, named, unsent: 0 });
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

    /// The file being written.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until commit")
    }

    /// The file being written, through a writer that has the kernel start writing it to the
    /// disk every [`WRITE_BEHIND_STEP`] bytes ([`WriteBehind`]), as writing to the
    /// `AtomicFile` itself does: for large outputs that need to read or seek too, whose
    /// bytes the disk would otherwise only begin to write in [`AtomicFile::commit`]'s sync,
    /// after all the work.
    pub fn write_behind(&mut self) -> WriteBehind<'_> {
        WriteBehind { file: self.file.as_mut().expect("open until commit"), unsent: &mut self.unsent }
    }

    /// Syncs the file, gives it its name (replacing an existing target only if `replace`;
    /// otherwise an existing one is an `AlreadyExists` error, and nothing is left), and
    /// syncs the folder.
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
                        let temp = temp_name(&self.dir, &self.target);
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
        sync_folder(&self.dir);
        Ok(())
    }
}

/// Writes go through [`AtomicFile::write_behind`]: the disk starts writing as they come.
impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_behind().write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.write_behind().write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

/// Bytes written through a [`WriteBehind`] between two starts of the disk's write-back.
pub const WRITE_BEHIND_STEP: u64 = 8 << 20;

/// [`AtomicFile::write_behind`]: the file, read, written and sought as itself; after each
/// [`WRITE_BEHIND_STEP`] bytes written through it, the kernel is asked to start writing
/// the file's dirty pages to the disk without waiting for them (Linux:
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)` over the whole file; elsewhere nothing). The
/// disk then writes while the work goes on, and the commit's sync, which still makes the
/// file durable, waits only for the rest: `encrypt` of a 512 MiB file to disk spent half of
/// its time in that sync before (BENCHMARKS.md, "Writing to disk").
#[derive(Debug)]
pub struct WriteBehind<'a> {
    file: &'a mut File,
    /// The `AtomicFile`'s count of bytes written since the write-back was last started.
    unsent: &'a mut u64,
}

impl WriteBehind<'_> {
    fn wrote(&mut self, n: usize) {
        *self.unsent += n as u64;
        if *self.unsent >= WRITE_BEHIND_STEP {
            *self.unsent = 0;
            start_writeback(self.file);
        }
    }
}

/// Has the kernel start writing `file`'s dirty pages to its disk, without waiting. A hint:
/// where there is nothing to write back (tmpfs) or the call is refused (an old kernel, a
/// file system without it) nothing changes, and the commit's sync reports any real write
/// error.
fn start_writeback(file: &File) {
    #[cfg(test)]
    tests::WRITEBACKS.with(|n| n.set(n.get() + 1));
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: sync_file_range reads nothing from memory and takes the descriptor of a
        // file borrowed for the call; offset 0 with length 0 means the whole file, and
        // SYNC_FILE_RANGE_WRITE only starts the writes of dirty pages.
        let _ = unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

impl Write for WriteBehind<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.wrote(n);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let n = self.file.write_vectored(bufs)?;
        self.wrote(n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Read for WriteBehind<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }
}

impl Seek for WriteBehind<'_> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
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
fn sync_folder(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many times this thread started a write-back (`start_writeback`).
        pub(super) static WRITEBACKS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Writes through the file itself and through `write_behind` (with reads and seeks)
    /// count together, start the write-back once every WRITE_BEHIND_STEP bytes, and leave
    /// exactly the bytes written, in the unnamed file and the named one.
    #[test]
    fn write_behind_starts_the_write_back_every_step_and_keeps_the_bytes() {
        for unnamed in [true, false] {
            let dir = std::env::temp_dir().join(format!("simdcrypt-behind-{}-{unnamed}", std::process::id()));
            fs::create_dir_all(&dir).unwrap();
            let target = dir.join("out.bin");
            let step = WRITE_BEHIND_STEP as usize;
            let data: Vec<u8> = (0..2 * step + 12_345).map(|i| (i * 7 + i / 251) as u8).collect();
            let mut f = AtomicFile::create_with(&target, unnamed).unwrap();
            let before = WRITEBACKS.with(|n| n.get());
            f.write_all(&data[..step - 1]).unwrap();
            assert_eq!(WRITEBACKS.with(|n| n.get()), before, "one byte short of a step");
            {
                let mut w = f.write_behind();
                w.write_all(&data[step - 1..step + 100]).unwrap();
                assert_eq!(WRITEBACKS.with(|n| n.get()), before + 1, "a step written, across the two writers");
                // Read back and rewrite a piece in place: the count follows what is written.
                w.seek(SeekFrom::Start(10)).unwrap();
                let mut back = [0u8; 5];
                w.read_exact(&mut back).unwrap();
                assert_eq!(back, data[10..15]);
                w.seek(SeekFrom::Start(10)).unwrap();
                w.write_all(&back).unwrap();
                w.seek(SeekFrom::End(0)).unwrap();
                w.write_all(&data[step + 100..]).unwrap();
            }
            assert_eq!(WRITEBACKS.with(|n| n.get()), before + 2, "{} bytes in all", data.len() + 5);
            f.commit(true).unwrap();
            assert!(fs::read(&target).unwrap() == data, "unnamed: {unnamed}");
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    fn listing(dir: &Path) -> Vec<OsString> {
        let mut v: Vec<OsString> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    }

    #[test]
    fn appears_only_on_commit_and_never_on_drop() {
        // O_TMPFILE (where the system has it) and the named fallback.
        for unnamed in [true, false] {
            one_way(unnamed);
        }
    }

    fn one_way(unnamed: bool) {
        let create = |t: &Path| AtomicFile::create_with(t, unnamed);
        let dir = std::env::temp_dir().join(format!("simdcrypt-atomic-{}-{unnamed}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("out.bin");
        // Dropped without commit: nothing.
        let mut f = create(&target).unwrap();
        if !unnamed {
            // The fallback's named file exists while writing, and is registered.
            assert_eq!(listing(&dir).len(), 1);
            assert!(registered().iter().any(|p| p.starts_with(&dir)));
        }
        f.write_all(b"partial").unwrap();
        drop(f);
        assert!(listing(&dir).is_empty());
        assert!(!registered().iter().any(|p| p.starts_with(&dir)));
        // Committed: the whole file, and only it.
        let mut f = create(&target).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit(false).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"whole");
        // Not replaced unless asked; the attempt leaves nothing.
        let mut f = create(&target).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(f.commit(false).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(listing(&dir), vec![OsString::from("out.bin")]);
        let mut f = create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit(true).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(listing(&dir), vec![OsString::from("out.bin")]);
        // A folder as the target is refused before anything is written.
        assert!(create(&dir).is_err());
        assert!(!registered().iter().any(|p| p.starts_with(&dir)));
        fs::remove_dir_all(&dir).unwrap();
    }
}
