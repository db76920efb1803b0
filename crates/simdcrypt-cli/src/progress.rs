//! A progress bar on stderr for long work (indicatif), shown only when stderr is a
//! terminal, so no escape code ever reaches a file or a pipe. Shared by the subcommands
//! that read large inputs (`encrypt`, `decrypt`; `sum` and `check` can use it too).

use std::io::{self, IsTerminal, Read};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs at least this long get a bar without `--progress`: shorter work ends before a
/// bar would help.
pub const AUTO_MIN_BYTES: u64 = 64 << 20;

/// `--progress` / `--no-progress`, for any subcommand (`#[command(flatten)]`).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ProgressArgs {
    /// Show a progress bar on stderr whatever the input size (only when stderr is a
    /// terminal; by default inputs of 64 MiB or more get one)
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    /// Never show a progress bar
    #[arg(long, overrides_with = "progress")]
    no_progress: bool,
}

/// A bar, or nothing (not a terminal, or not wanted).
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for work over `total` bytes (unknown: a byte counter), labelled `what`, if
    /// `args` and the terminal allow it.
    pub fn new(args: &ProgressArgs, total: Option<u64>, what: &str) -> Progress {
        let wanted = !args.no_progress && (args.progress || total.is_some_and(|t| t >= AUTO_MIN_BYTES));
        if !wanted || !io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = match total {
            Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
                    .expect("a valid template")
                    .progress_chars("=> "),
            ),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                .with_style(ProgressStyle::with_template("{msg} {bytes} {bytes_per_sec}").expect("a valid template")),
        };
        bar.set_message(what.to_string());
        Progress { bar: Some(bar) }
    }

    /// `reader`, advancing the bar by what it reads.
    pub fn reader<R: Read>(&self, reader: R) -> ProgressReader<R> {
        ProgressReader { inner: reader, bar: self.bar.clone() }
    }

    /// Removes the bar (at the end, or before an error message).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A reader that advances a progress bar.
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
