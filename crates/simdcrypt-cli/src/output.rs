//! Standard output and error: one locked, buffered stdout; messages on stderr that never
//! panic; and the ways a subcommand can fail as a whole.

use std::fmt;
use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};
use std::process::ExitCode;

/// The program name used in messages: `simdcrypt`, or the tool it imitates (`b3sum`).
static PROG: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Sets the program name for messages; only the first call counts.
pub fn set_program_name(name: &'static str) {
    let _ = PROG.set(name);
}

/// Whether I/O errors keep Rust's ` (os error N)` suffix (b3sum prints it).
static KEEP_OS_ERROR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`io_error_text`] keep the ` (os error N)` suffix, as b3sum's messages do.
pub fn keep_os_error_codes() {
    KEEP_OS_ERROR.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn program_name() -> &'static str {
    PROG.get().copied().unwrap_or("simdcrypt")
}

/// Why a subcommand stopped before finishing its work.
#[derive(Debug)]
pub enum Failure {
    /// An option value was rejected (key file, backend, length, ...): exit status 1.
    Fatal(String),
    /// Options that cannot be combined, found after parsing: exit status 2.
    Usage(String),
    /// Writing to standard output failed (a closed pipe is reported silently): exit 1.
    Stdout(io::Error),
}

impl Failure {
    /// Prints the message (if any) and gives the exit status.
    pub fn report(self) -> ExitCode {
        match self {
            Failure::Fatal(msg) => {
                warn(format_args!("{msg}"));
                ExitCode::from(1)
            }
            Failure::Usage(msg) => {
                warn(format_args!("{msg}"));
                ExitCode::from(2)
            }
            // The reader went away (`simdcrypt sum * | head -1`): nothing to say.
            Failure::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(1),
            Failure::Stdout(e) => {
                warn(format_args!("write error: {}", io_error_text(&e)));
                ExitCode::from(1)
            }
        }
    }
}

/// Writes `simdcrypt: MESSAGE` (or the imitated tool's name) to stderr. Errors writing stderr are ignored: there is
/// nowhere left to report them.
pub fn warn(msg: fmt::Arguments<'_>) {
    crate::progress::suspend(|| {
        let _ = writeln!(io::stderr().lock(), "{}: {msg}", program_name());
    });
}

/// An I/O error's text without Rust's ` (os error N)` suffix, as coreutils prints it:
/// `No such file or directory`, `Is a directory`, `Permission denied` (with the suffix
/// after [`keep_os_error_codes`]).
pub fn io_error_text(e: &io::Error) -> String {
    let text = e.to_string();
    if KEEP_OS_ERROR.load(std::sync::atomic::Ordering::Relaxed) {
        return text;
    }
    if let Some(code) = e.raw_os_error() {
        if let Some(stripped) = text.strip_suffix(&format!(" (os error {code})")) {
            return stripped.to_string();
        }
    }
    text
}

/// Buffered, locked standard output.
///
/// Everything written to stderr goes through [`Out::warn`], which flushes stdout first so
/// that a terminal shows both streams in order. When stdout is a terminal each record is
/// flushed as soon as it is complete, so progress is visible.
#[derive(Debug)]
pub struct Out {
    writer: BufWriter<StdoutLock<'static>>,
    interactive: bool,
}

impl Out {
    /// Takes the stdout lock for the rest of the program.
    pub fn new() -> Self {
        let stdout = io::stdout();
        let interactive = stdout.is_terminal();
        Out { writer: BufWriter::with_capacity(64 * 1024, stdout.lock()), interactive }
    }

    /// Writes one complete output record (normally a line, newline included).
    pub fn record(&mut self, text: &str) -> Result<(), Failure> {
        self.record_bytes(text.as_bytes())
    }

    /// [`Out::record`] for bytes that need not be text (`sum --raw`).
    pub fn record_bytes(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.writer.write_all(bytes).map_err(Failure::Stdout)?;
        if self.interactive {
            // A progress bar on the same terminal is lifted while the line appears.
            let writer = &mut self.writer;
            crate::progress::suspend(|| writer.flush()).map_err(Failure::Stdout)?;
        }
        Ok(())
    }

    /// Flushes stdout, then writes `simdcrypt: MESSAGE` to stderr.
    pub fn warn(&mut self, msg: fmt::Arguments<'_>) -> Result<(), Failure> {
        self.writer.flush().map_err(Failure::Stdout)?;
        warn(msg);
        Ok(())
    }

    /// Flushes everything written so far.
    pub fn finish(&mut self) -> Result<(), Failure> {
        self.writer.flush().map_err(Failure::Stdout)
    }
}
