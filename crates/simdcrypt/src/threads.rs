//! Threads for one large input: the [`Threads`] setting every parallel API takes, its
//! size thresholds, and the cached rayon pools that run the work (never one per call).
//!
//! The thresholds were measured with BLAKE3 (docs/tuning-history.md, "Thread policy") and apply
//! to every algorithm that splits one input: what they guard against is the cost of
//! waking a second thread, which does not depend on the algorithm.
//!
//! ## What this file holds
//!
//! `Threads` (One / Max(n) / Auto), the size thresholds of the thread policy, the cached rayon
//! pools (`with_pool`) and `join`; shared by every API that splits one input; `check_out_len`
//! and `split_messages`, the size-balanced split of a batch of whole messages that Streebog
//! and GOST R 34.11-94 share

/// `Threads::Auto` gives each thread at least this much input, so it splits only subtrees
/// of 32 MiB and more. Measured on a 2-core VM (docs/tuning-history.md, "Thread policy"): with the
/// pool's workers awake a second thread pays from 256 KiB, but a worker that has slept for
/// a few milliseconds takes on the order of a millisecond to start, and then two threads
/// are slower than one up to 16 MiB. AUTO must never be slower than one thread, so it
/// waits until each half outlasts that start-up; `Threads::Max(n)` splits much smaller
/// inputs for callers that keep the pool busy.
pub const AUTO_MIN_BYTES_PER_THREAD: usize = 16 << 20;

/// Even an explicit `Threads::Max(n)` leaves inputs smaller than twice this to one thread:
/// below 256 KiB a second thread measured slower than none about as often as faster
/// (docs/tuning-history.md, "Thread policy"). Once an input is split, BLAKE3 offers pieces down to
/// 32 KiB, so that the threads finish together.
pub const MIN_BYTES_PER_THREAD: usize = 128 * 1024;

/// The number of CPUs this process may run on, read once: the standard library's answer
/// reads the cgroup limits on Linux on every call (docs/tuning-history.md, "Thread policy").
fn available_cpus() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How many threads may hash one input.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Threads {
    /// One thread: the caller's.
    #[default]
    One,
    /// At most this many threads, for inputs of 256 KiB and more (twice
    /// [`MIN_BYTES_PER_THREAD`]); smaller ones stay on the caller's thread. A pool of `n`
    /// threads is created the first time `n` is used, and kept (rayon's global pool serves
    /// any `n` at least as large as it).
    Max(usize),
    /// Every CPU, for inputs of 32 MiB and more (twice [`AUTO_MIN_BYTES_PER_THREAD`]); the
    /// caller's thread below that. Chosen so that AUTO is never slower than one thread,
    /// even when the pool has gone to sleep.
    Auto,
}

impl Threads {
    /// How many threads many independent small jobs (a stat pass, whole files) may use,
    /// whatever their sizes: 1, n, or every CPU.
    pub(crate) fn job_threads(self) -> usize {
        match self {
            Threads::One => 1,
            Threads::Max(n) => n.max(1),
            Threads::Auto => available_cpus(),
        }
    }

    /// How many threads hashing `len` bytes may use: 1 (the caller's thread only) below the
    /// policy's threshold, otherwise the size of the pool that runs it.
    pub(crate) fn pool_size(self, len: usize) -> usize {
        let n = match self {
            Threads::One => 1,
            Threads::Max(n) if len >= 2 * MIN_BYTES_PER_THREAD => n,
            Threads::Max(_) => 1,
            Threads::Auto if len >= 2 * AUTO_MIN_BYTES_PER_THREAD => available_cpus(),
            Threads::Auto => 1,
        };
        if cfg!(feature = "rayon") {
            n.max(1)
        } else {
            1
        }
    }
}

/// Runs `f`, whose joins may then use up to `pool_size` threads: rayon's global pool when
/// that has enough threads, else a pool of exactly `pool_size` threads, created the first
/// time that size is asked for and kept for the life of the process (never one per call).
pub(crate) fn with_pool<R: Send>(pool_size: usize, f: impl FnOnce() -> R + Send) -> R {
    #[cfg(not(feature = "rayon"))]
    let _ = pool_size;
    #[cfg(feature = "rayon")]
    if pool_size > 1 && pool_size < rayon::current_num_threads() {
        if let Some(pool) = sized_pool(pool_size) {
            return pool.install(f);
        }
    }
    f()
}

#[cfg(feature = "rayon")]
fn sized_pool(threads: usize) -> Option<&'static rayon::ThreadPool> {
    use std::sync::Mutex;
    static POOLS: Mutex<Vec<(usize, &'static rayon::ThreadPool)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(pool);
    }
    // A pool that cannot be built (the OS refuses threads) means hashing on one thread.
    let pool: &'static rayon::ThreadPool =
        Box::leak(Box::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok()?));
    pools.push((threads, pool));
    Some(pool)
}

/// Runs `a` and `b`, offering `b` to another thread of the current pool when `par` is set.
/// rayon runs `b` on the caller's thread after `a` if no other thread has taken it by
/// then, so a late-waking pool costs little.
pub(crate) fn join<A, B, RA, RB>(par: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    #[cfg(feature = "rayon")]
    if par {
        return rayon::join(a, b);
    }
    let _ = par;
    (a(), b())
}

// The thread split of batches of whole messages (Streebog, GOST R 34.11-94): contiguous
// ranges balanced by size, each hashed on one thread.

/// An error unless `out_len` is `count * per_message`: the output of a batch of messages.
pub(crate) fn check_out_len(count: usize, per_message: usize, out_len: usize) -> Result<(), crate::Error> {
    if count.checked_mul(per_message) != Some(out_len) {
        return Err(crate::Error::InvalidArgument(format!(
            "output buffer must be {count} messages x {per_message} bytes, got {out_len} bytes"
        )));
    }
    Ok(())
}

/// Hashes some messages on one thread, writing their digests in order.
pub(crate) type SerialHash<'a> = dyn Fn(&[&[u8]], &mut [u8]) + Sync + 'a;

/// Shares the messages out between up to `threads` threads by total size (each message
/// counted as at least `min_cost` bytes), and runs `serial` on each part.
pub(crate) fn split_messages(
    messages: &[&[u8]],
    out: &mut [u8],
    out_len: usize,
    threads: Threads,
    min_cost: usize,
    serial: &SerialHash<'_>,
) {
    if messages.is_empty() {
        return;
    }
    // The total size only matters for the thread policy: one thread skips the pass over
    // the lengths, a visible share of a call on short messages (docs/tuning-history.md,
    // "blake3/batch.rs").
    let pool_size = match threads {
        Threads::One => 1,
        threads => threads.pool_size(messages.iter().map(|m| m.len().max(min_cost)).sum()),
    };
    with_pool(pool_size, || split(messages, out, out_len, pool_size, min_cost, serial));
}

fn split(messages: &[&[u8]], out: &mut [u8], out_len: usize, threads: usize, min_cost: usize, serial: &SerialHash<'_>) {
    if threads <= 1 || messages.len() < 2 {
        return serial(messages, out);
    }
    let total: usize = messages.iter().map(|m| m.len().max(min_cost)).sum();
    let left_threads = threads / 2;
    let target = total / threads * left_threads;
    let (mut acc, mut mid) = (0, 0);
    while mid < messages.len() - 1 && acc < target {
        acc += messages[mid].len().max(min_cost);
        mid += 1;
    }
    let mid = mid.max(1);
    let (left_out, right_out) = out.split_at_mut(mid * out_len);
    join(
        true,
        || split(&messages[..mid], left_out, out_len, left_threads, min_cost, serial),
        || split(&messages[mid..], right_out, out_len, threads - left_threads, min_cost, serial),
    );
}
