//! Surviving a file that shrinks while it is memory-mapped (Linux).
//!
//! Touching a page of a mapping that lies past the end of its file raises SIGBUS, which
//! kills the process by default: a file truncated by another process while it is being
//! hashed would take the hasher (a CLI run over thousands of files, a Python interpreter)
//! down with it. Reading instead of mapping avoids that, but costs a copy of every byte,
//! which loses to mapping once threads share a large file. So windows are mapped with a
//! guard: each is registered here while it is being hashed, and a SIGBUS handler that
//! finds the faulting address inside a registered window maps zero pages over the rest of
//! that window (the instruction is retried and reads zeros) and marks the window. The
//! caller then reports the truncation as an I/O error and the zeros are never used. A
//! fault anywhere else is handed back to the previous handler (the default action, or
//! Rust's stack-overflow handler), which behaves as if this one were not there.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// How many windows may be guarded at once (one per file being hashed by mapping); a
/// caller that finds none free reads the file instead.
const SLOTS: usize = 64;

/// A slot is in use while its `START` is not zero; `END` is written before `START`.
static CLAIMED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static END: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static FAULTED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

/// The page size, read before the handler is installed (sysconf is not async-signal-safe).
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// The action SIGBUS had before ours, restored for faults that are not ours; `None` when
/// installing ours failed (no guard: callers read instead of mapping).
static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

/// Installs the handler once; whether it is in place.
fn install() -> bool {
    PREVIOUS
        .get_or_init(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page <= 0 {
                return None;
            }
            PAGE.store(page as usize, Ordering::Relaxed);
            // SAFETY: an all-zero sigaction is a valid value (empty mask, no flags) that is
            // filled in below before use.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: both pointers are to live, initialised sigaction values; the handler
            // only does async-signal-safe work (atomics, mmap, sigaction).
            let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: as above.
            let ok = unsafe {
                libc::sigemptyset(&mut action.sa_mask) == 0
                    && libc::sigaction(libc::SIGBUS, &action, &mut previous) == 0
            };
            ok.then_some(previous)
        })
        .is_some()
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::Relaxed);
    for slot in 0..SLOTS {
        let start = START[slot].load(Ordering::Acquire);
        let end = END[slot].load(Ordering::Acquire);
        if start != 0 && (start..end).contains(&addr) {
            let from = addr & !(page - 1);
            let len = end.next_multiple_of(page) - from;
            // Every page from the fault on is past the end of the file (it shrank to
            // before `addr`): replace them all, read-only, so that the next touch of any of
            // them does not fault again.
            // SAFETY: [from, from + len) lies inside this slot's window, a mapping its
            // owner keeps alive until it has unregistered the slot (the owner, or a thread
            // it waits for, is the one faulting here); MAP_FIXED replaces exactly those
            // pages with private zero pages, which that munmap later releases with the rest.
            let mapped = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    len,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if mapped != libc::MAP_FAILED {
                FAULTED[slot].store(true, Ordering::Release);
                return;
            }
            break;
        }
    }
    // Not ours: put the previous action back and let the fault happen again under it, or
    // call it directly if it is a handler (it may be one that expects to be called now).
    if let Some(Some(previous)) = PREVIOUS.get() {
        let handler = previous.sa_sigaction;
        if handler != libc::SIG_DFL && handler != libc::SIG_IGN && previous.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: the previous SA_SIGINFO handler, called as the kernel would call it.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            f(signal, info, context);
            return;
        }
        // SAFETY: restoring a sigaction value the kernel gave us.
        unsafe { libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut()) };
    } else {
        // SAFETY: resetting SIGBUS to its default action.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
    }
}

/// A registered window: faults inside it are survived while this lives.
#[derive(Debug)]
pub(crate) struct Guard {
    slot: usize,
}

impl Guard {
    /// Guards `window` (a live mapping, which must outlive the guard); `None` when no guard
    /// can be set up (the caller should read instead).
    pub(crate) fn new(window: &[u8]) -> Option<Guard> {
        if window.is_empty() || !install() {
            return None;
        }
        let slot = (0..SLOTS)
            .find(|&i| CLAIMED[i].compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok())?;
        let start = window.as_ptr() as usize;
        FAULTED[slot].store(false, Ordering::Relaxed);
        END[slot].store(start + window.len(), Ordering::Release);
        START[slot].store(start, Ordering::Release);
        Some(Guard { slot })
    }

    /// Whether a page of the window faulted (the file shrank): its bytes since then read
    /// as zeros and must not be used.
    pub(crate) fn faulted(&self) -> bool {
        FAULTED[self.slot].load(Ordering::Acquire)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        START[self.slot].store(0, Ordering::Release);
        END[self.slot].store(0, Ordering::Release);
        CLAIMED[self.slot].store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A window whose file shrank reads zeros past the new end, the guard says so, and the
    /// process lives; the same window read without a fault says nothing.
    #[test]
    fn a_truncated_window_faults_into_zeros() {
        let page = 4096;
        let path = std::env::temp_dir().join(format!("simdcrypt-map-guard-{}", std::process::id()));
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&vec![0xA5u8; 64 * page]).unwrap();
        let f = std::fs::File::options().read(true).write(true).open(&path).unwrap();
        // SAFETY: read-only map of a file only this test uses; its truncation is the point.
        let map = unsafe { memmap2::MmapOptions::new().len(64 * page).map(&f).unwrap() };
        {
            let guard = Guard::new(&map).unwrap();
            assert_eq!(map.iter().map(|&b| b as u64).sum::<u64>(), 0xA5 * 64 * page as u64);
            assert!(!guard.faulted());
        }
        f.set_len(10 * page as u64 + 100).unwrap();
        let guard = Guard::new(&map).unwrap();
        let sum: u64 = map.iter().map(|&b| b as u64).sum();
        assert!(guard.faulted());
        // The file's last page still holds its bytes (zero past the end, as the kernel
        // fills it); everything after is the guard's zero pages.
        assert_eq!(sum, 0xA5 * (10 * page as u64 + 100));
        drop(guard);
        drop(map);
        let _ = std::fs::remove_file(&path);
    }
}
