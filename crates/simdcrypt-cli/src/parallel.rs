//! Hashing many inputs at once: one rayon pool for the whole command, work stealing
//! between files and inside large ones, results handed back in input order.
//!
//! Inputs are taken in windows of a bounded size: the window's inputs are hashed in
//! parallel (at most one open file per thread), their results collected, then handed to
//! the caller in order before the next window starts. Memory therefore stays bounded by
//! the window, however many inputs there are, and the output order never depends on
//! which thread finished first.

use rayon::prelude::*;
use simdcrypt::threads::Threads;

use crate::output::Failure;

/// Inputs per window, per thread: enough that a window's slowest file rarely leaves the
/// other threads idle for long (large files are split among threads anyway).
const WINDOW_PER_THREAD: usize = 64;

/// The threads that hash inputs: none of its own for `-j 1`.
#[derive(Debug)]
pub struct Pool {
    pool: Option<rayon::ThreadPool>,
}

impl Pool {
    /// A pool for `-j N` (`auto`: one thread per CPU). If the OS refuses the threads, the
    /// work runs on the calling thread.
    pub fn new(threads: Threads) -> Pool {
        let n = match threads {
            Threads::One => 1,
            Threads::Max(n) => n,
            Threads::Auto => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let pool = (n > 1).then(|| rayon::ThreadPoolBuilder::new().num_threads(n).build().ok()).flatten();
        Pool { pool }
    }

    /// Computes `work` for every item, in parallel when the pool has threads, and passes
    /// each item with its result to `sink` in the items' order. Stops at the first error
    /// `sink` returns.
    pub fn ordered<T, R, W, S>(&self, items: &[T], work: W, mut sink: S) -> Result<(), Failure>
    where
        T: Sync,
        R: Send,
        W: Fn(&T) -> R + Sync,
        S: FnMut(&T, R) -> Result<(), Failure>,
    {
        let Some(pool) = &self.pool else {
            // One thread: print each result as soon as it exists.
            for item in items {
                let result = work(item);
                sink(item, result)?;
            }
            return Ok(());
        };
        let window = WINDOW_PER_THREAD * pool.current_num_threads();
        for chunk in items.chunks(window) {
            let results: Vec<R> = pool.install(|| chunk.par_iter().map(&work).collect());
            for (item, result) in chunk.iter().zip(results) {
                sink(item, result)?;
            }
        }
        Ok(())
    }

    /// Runs `f` inside the pool, so that the library's own joins (large inputs split among
    /// threads) share its threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }
}
