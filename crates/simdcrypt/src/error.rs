//! The library's one error type.
//!
//! ## What this file holds
//!
//! `Error`: unknown/unsupported backend, wrong length, invalid argument, I/O; messages say what
//! was expected

use std::fmt;

/// What went wrong, with enough detail to say what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A backend name that this algorithm does not have at all.
    UnknownBackend {
        /// The algorithm asked about, e.g. `"blake3"`.
        algorithm: &'static str,
        /// The name that was asked for.
        requested: String,
        /// Every backend name the algorithm has, on any architecture.
        known: Vec<&'static str>,
        /// The backends this CPU supports for the algorithm.
        supported: Vec<&'static str>,
    },
    /// A backend the algorithm has, but this CPU (or OS, or architecture) cannot run.
    UnsupportedBackend {
        /// The algorithm asked about.
        algorithm: &'static str,
        /// The backend that was asked for.
        requested: String,
        /// What is missing: the CPU features, or the architecture it was built for.
        reason: String,
        /// The backends this CPU supports for the algorithm.
        supported: Vec<&'static str>,
    },
    /// A key, nonce or similar fixed-size parameter of the wrong length.
    InvalidLength {
        /// What the parameter is, e.g. `"key"`.
        what: &'static str,
        /// The length required, in bytes.
        expected: usize,
        /// The length given, in bytes.
        got: usize,
    },
    /// Any other invalid argument; the message says which and why.
    InvalidArgument(String),
    /// A backend this build has, but that cannot run here for a reason other than the CPU:
    /// the GPU backend without a GPU, driver or NVRTC.
    Unavailable {
        /// The backend asked for, e.g. `"cuda"`.
        backend: &'static str,
        /// Why it cannot run, e.g. `"no CUDA driver (libcuda.so) found"`.
        reason: String,
    },
    /// A device (GPU) failed during work: the operation, and what the driver said.
    Device(String),
    /// Reading or writing a file or stream failed.
    Io {
        /// The kind of I/O error.
        kind: std::io::ErrorKind,
        /// What failed: the path where there is one, and the system's message.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownBackend { algorithm, requested, known, supported } => write!(
                f,
                "unknown {algorithm} backend {requested:?}; {algorithm} backends: {}; supported on this CPU: {}",
                known.join(", "),
                supported.join(", ")
            ),
            Error::UnsupportedBackend { algorithm, requested, reason, supported } => write!(
                f,
                "{algorithm} backend {requested:?} is not supported by this CPU ({reason}); supported: {}",
                supported.join(", ")
            ),
            Error::InvalidLength { what, expected, got } => {
                write!(f, "{what} must be {expected} bytes, got {got}")
            }
            Error::InvalidArgument(msg) => f.write_str(msg),
            Error::Unavailable { backend, reason } => write!(f, "backend {backend:?} is unavailable: {reason}"),
            Error::Device(msg) => f.write_str(msg),
            Error::Io { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
