//! Hashing many inputs at once: one rayon pool for the whole command, work stealing
//! between files and inside large ones, results handed back in input order.
//!
//! Each input is a task in the pool (at most one open file per thread); results come back
//! through a reorder buffer and are handed to the caller in input order. At most a window
//! of inputs beyond the oldest one not yet handed over is started, so memory stays bounded
//! however many inputs there are, a slow file does not stop the other threads (they go
//! on with later files, up to the window), and the output order never depends on which
//! thread finished first.

use std::collections::BTreeMap;
use std::sync::mpsc::{channel, Sender};

use rayon::prelude::*;
use simdcrypt::threads::Threads;

use crate::output::Failure;

/// Inputs per window, per thread: enough that a window's slowest file rarely leaves the
/// other threads idle for long (large files are split among threads anyway).
const WINDOW_PER_THREAD: usize = 64;

/// Inputs per task, when there are more than a window of them.
const BATCH: usize = 8;

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
        if rayon::current_thread_index().is_some() {
            // Called from one of the pool's own tasks (a tree line being checked): waiting
            // for results here would idle this thread, so use joins, window by window.
            for chunk in items.chunks(window) {
                let results: Vec<R> = pool.install(|| chunk.par_iter().map(&work).collect());
                for (item, result) in chunk.iter().zip(results) {
                    sink(item, result)?;
                }
            }
            return Ok(());
        }
        // Consecutive inputs go to a task together when there are many: fewer tasks and
        // messages per file, which matters for thousands of small files. A few inputs
        // (large files, say) each get their own task, so that they all run at once.
        let batch = if items.len() >= window { BATCH } else { 1 };
        let batches: Vec<&[T]> = items.chunks(batch).collect();
        let window = window.div_ceil(batch);
        let (tx, rx) = channel::<(usize, Option<Vec<R>>)>();
        let work = &work;
        pool.in_place_scope_fifo(|scope| {
            let mut pending = BTreeMap::new();
            let (mut started, mut done) = (0, 0);
            while done < batches.len() {
                while started < batches.len() && started < done + window {
                    let reply = Reply { tx: tx.clone(), index: started, sent: false };
                    let batch = batches[started];
                    scope.spawn_fifo(move |_| reply.send(batch.iter().map(work).collect()));
                    started += 1;
                }
                let Ok((index, results)) = rx.recv() else { break };
                // A task that panicked sends nothing useful: stop; the scope re-raises it.
                let Some(results) = results else { break };
                pending.insert(index, results);
                while let Some(results) = pending.remove(&done) {
                    for (item, result) in batches[done].iter().zip(results) {
                        sink(item, result)?;
                    }
                    done += 1;
                }
            }
            Ok(())
        })
    }
}

/// Sends a task's result back; if the task panics first, sends `None` so that the
/// receiver does not wait forever.
struct Reply<R> {
    tx: Sender<(usize, Option<R>)>,
    index: usize,
    sent: bool,
}

impl<R> Reply<R> {
    fn send(mut self, result: R) {
        self.sent = true;
        let _ = self.tx.send((self.index, Some(result)));
    }
}

impl<R> Drop for Reply<R> {
    fn drop(&mut self) {
        if !self.sent {
            let _ = self.tx.send((self.index, None));
        }
    }
}
