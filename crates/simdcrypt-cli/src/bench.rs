//! `simdcrypt bench`: runs the Python benchmark harness (`python -m simdcrypt.bench`),
//! which compares simdcrypt with the Python packages it replaces. All options are parsed
//! by the harness; this only finds a Python, passes the arguments through and exits with
//! the harness's status.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Args;

use crate::output::warn;

#[derive(Args, Debug)]
#[command(disable_help_flag = true)]
pub struct BenchArgs {
    /// Options of the harness, passed through (see `simdcrypt bench --help`)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    args: Vec<OsString>,
}

/// Runs the harness, or says clearly why it cannot: no Python, or a Python without the
/// simdcrypt package (then the exit status is 1).
const BOOTSTRAP: &str = "\
import sys
try:
    from simdcrypt.bench import main
except ImportError as error:
    sys.stderr.write(
        f'simdcrypt: bench needs the simdcrypt Python package, which {sys.executable} '
        f'cannot import ({error}); install it (pip install simdcrypt, or maturin develop '
        f'-m crates/simdcrypt-py/Cargo.toml in a checkout) or set SIMDCRYPT_PYTHON to a '
        f'Python that has it\\n'
    )
    sys.exit(1)
sys.exit(main(sys.argv[1:]))
";

/// The Python to run: $SIMDCRYPT_PYTHON, else the active virtual environment's, else
/// `python3` from PATH; with a description of where it came from.
fn python() -> (OsString, &'static str) {
    if let Some(path) = std::env::var_os("SIMDCRYPT_PYTHON").filter(|p| !p.is_empty()) {
        return (path, "from SIMDCRYPT_PYTHON");
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|p| !p.is_empty()) {
        let candidate = PathBuf::from(venv).join("bin").join("python3");
        if candidate.is_file() {
            return (candidate.into_os_string(), "the active virtual environment's");
        }
    }
    (OsString::from("python3"), "from PATH")
}

pub fn run(args: &BenchArgs) -> ExitCode {
    let (python, source) = python();
    match Command::new(&python).arg("-c").arg(BOOTSTRAP).args(&args.args).status() {
        // The harness's own status: 0, 1 (a failed verification), 2 (usage).
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => {
                warn(format_args!("bench: {} ({source}) was stopped by a signal", python.to_string_lossy()));
                ExitCode::from(1)
            }
        },
        Err(e) => {
            warn(format_args!(
                "bench needs Python 3 with the simdcrypt package: cannot run {} ({source}): {e}; \
                 set SIMDCRYPT_PYTHON to a Python that has simdcrypt installed",
                python.to_string_lossy()
            ));
            ExitCode::from(1)
        }
    }
}
