//! A progress bar on standard error: files, bytes, rate and ETA for `sum` and `check`,
//! bytes of one stream for `encrypt` and `decrypt`.
//!
//! It is drawn only when standard error is a terminal, so a redirected or piped stderr
//! never receives an escape code, whatever the options. In `auto` mode it appears only once
//! the work has taken about a second, so quick commands print exactly what they always
//! did. Messages written to stderr while it is drawn go through [`suspend`], which lifts
//! the bar out of the way.

use std::io::{self, IsTerminal, Read};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// When to draw the bar (`--progress`, `--no-progress`, or neither).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// When stderr is a terminal and the work lasts more than about a second.
    #[default]
    Auto,
    /// From the start, when stderr is a terminal.
    Always,
    /// Never.
    Never,
}

impl Mode {
    /// The mode the two command-line flags ask for (clap makes them exclusive).
    pub fn from_flags(progress: bool, no_progress: bool) -> Mode {
        match (progress, no_progress) {
            (true, _) => Mode::Always,
            (_, true) => Mode::Never,
            _ => Mode::Auto,
        }
    }
}

/// `--progress` / `--no-progress`, for the subcommands that flatten it (`encrypt`,
/// `decrypt`).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ProgressArgs {
    /// Show a progress bar on stderr from the start (only when stderr is a terminal; by
    /// default one appears when the work takes more than about a second)
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    /// Never show a progress bar
    #[arg(long, overrides_with = "progress")]
    no_progress: bool,
}

impl ProgressArgs {
    /// The mode the flags ask for.
    pub fn mode(&self) -> Mode {
        Mode::from_flags(self.progress, self.no_progress)
    }
}

/// How long `auto` waits before drawing.
const AUTO_DELAY: Duration = Duration::from_secs(1);

/// The bar being drawn, if any, for [`suspend`].
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Progress of one command; safe to update from many threads.
#[derive(Debug)]
pub struct Progress {
    /// `None` when nothing will ever be drawn.
    bar: Option<ProgressBar>,
    total_files: AtomicU64,
    files: AtomicU64,
    start: Instant,
    /// Whether the bar was drawn / finished; shared with the thread that draws it after
    /// [`AUTO_DELAY`] when no file completes in that time (one large file).
    state: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    shown: AtomicBool,
    finished: AtomicBool,
}

impl Progress {
    /// Progress over `total_files` files of `total_bytes` bytes in all.
    pub fn new(total_files: u64, total_bytes: u64, mode: Mode) -> Progress {
        let drawable = mode != Mode::Never && io::stderr().is_terminal();
        let bar = drawable.then(|| {
            let style = ProgressStyle::with_template(
                "{msg} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta} [{wide_bar}]",
            )
            .map_or_else(|_| ProgressStyle::default_bar(), |s| s.progress_chars("=> "));
            let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden()).with_style(style);
            bar.set_message(format!("0/{total_files} files"));
            bar
        });
        let progress = Progress {
            bar,
            total_files: AtomicU64::new(total_files),
            files: AtomicU64::new(0),
            start: Instant::now(),
            state: Arc::default(),
        };
        match (&progress.bar, mode) {
            (Some(bar), Mode::Always) => show(bar, &progress.state),
            (Some(bar), Mode::Auto) => {
                let (bar, state) = (bar.clone(), progress.state.clone());
                // Detached: it sleeps once, and does nothing if the work is over by then.
                std::thread::spawn(move || {
                    std::thread::sleep(AUTO_DELAY);
                    show(&bar, &state);
                });
            }
            _ => {}
        }
        progress
    }

    /// Progress over one stream of `total` bytes (unknown: 0, and the bar shows the bytes
    /// done and the rate), labelled `what`: `encrypt`, `decrypt`.
    pub fn for_stream(args: &ProgressArgs, total: Option<u64>, what: &str) -> Progress {
        let progress = Progress::new(1, total.unwrap_or(0), args.mode());
        if let Some(bar) = &progress.bar {
            bar.set_message(what.to_string());
            if total.is_none() {
                if let Ok(style) = ProgressStyle::with_template("{msg} {binary_bytes} {binary_bytes_per_sec}") {
                    bar.set_style(style);
                }
            }
        }
        progress
    }

    /// `reader`, advancing the bar by the bytes it reads.
    pub fn reader<R: Read>(&self, reader: R) -> ProgressReader<R> {
        ProgressReader { inner: reader, bar: self.bar.clone() }
    }

    /// Whether the bar may be drawn at all (else sizes need not be measured).
    pub fn drawable(&self) -> bool {
        self.bar.is_some()
    }

    /// More work found after the start: `files` files of `bytes` bytes.
    pub fn add_work(&self, files: u64, bytes: u64) {
        let Some(bar) = &self.bar else { return };
        let total = self.total_files.fetch_add(files, Ordering::Relaxed) + files;
        bar.set_message(format!("{}/{total} files", self.files.load(Ordering::Relaxed)));
        bar.inc_length(bytes);
    }

    /// One more file done, of `bytes` bytes.
    pub fn inc(&self, bytes: u64) {
        let Some(bar) = &self.bar else { return };
        let files = self.files.fetch_add(1, Ordering::Relaxed) + 1;
        bar.set_message(format!("{files}/{} files", self.total_files.load(Ordering::Relaxed)));
        bar.inc(bytes);
        if self.start.elapsed() >= AUTO_DELAY && !self.state.shown.load(Ordering::Relaxed) {
            show(bar, &self.state);
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
            self.state.finished.store(true, Ordering::Relaxed);
            bar.finish_and_clear();
            *active = None;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Starts drawing `bar`, unless it is drawn already or finished. The [`ACTIVE`] lock
/// orders this against [`Progress::finish`], so a finished bar is never drawn again.
fn show(bar: &ProgressBar, state: &Shared) {
    let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
    if state.finished.load(Ordering::Relaxed) || state.shown.swap(true, Ordering::Relaxed) {
        return;
    }
    bar.set_draw_target(ProgressDrawTarget::stderr());
    // Rate and ETA move even while one large file is being hashed.
    bar.enable_steady_tick(Duration::from_millis(250));
    *active = Some(bar.clone());
}

/// Runs `f` (which writes to the terminal) with the bar, if one is drawn, out of the way.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let bar = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match bar {
        Some(bar) => bar.suspend(f),
        None => f(),
    }
}

/// Whether `mode` could ever draw here (stderr is a terminal and drawing is not off), so
/// that callers can skip measuring the work otherwise.
pub fn wanted(mode: Mode) -> bool {
    mode != Mode::Never && io::stderr().is_terminal()
}

/// A reader that advances a progress bar by what it reads.
#[derive(Debug)]
pub struct ProgressReader<R> {
    inner: R,
    bar: Option<ProgressBar>,
}

impl<R: Read> Read for ProgressReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}
