//! `simdcrypt bench`: the arguments reach the Python harness untouched, its exit status is
//! passed on, and a missing Python or simdcrypt package is a clear error. (The harness
//! itself is tested in crates/simdcrypt-py/tests/test_bench.py.)

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use common::{code, run, simdcrypt, stderr, stdout, TempDir};

/// A stand-in for Python that prints the arguments after `-c CODE`, one per line, and
/// exits with status 3.
fn fake_python(dir: &TempDir) -> PathBuf {
    let path = dir.file("fake-python", b"#!/bin/sh\nshift 2\nprintf '%s\\n' \"$@\"\nexit 3\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn passes_arguments_and_exit_status_through() {
    let dir = TempDir::new("bench-args");
    let python = fake_python(&dir);
    let out = run(simdcrypt(dir.path())
        .env("SIMDCRYPT_PYTHON", &python)
        .args(["bench", "--quick", "-a", "blake3", "--help", "--json", "x y.json"]));
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_eq!(stdout(&out), "--quick\n-a\nblake3\n--help\n--json\nx y.json\n");
}

#[test]
fn missing_python_is_a_clear_error() {
    let dir = TempDir::new("bench-nopython");
    let out = run(simdcrypt(dir.path()).env("SIMDCRYPT_PYTHON", dir.path().join("no-such-python")).arg("bench"));
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("bench needs Python 3") && err.contains("SIMDCRYPT_PYTHON"), "{err}");
}

#[test]
fn missing_package_is_a_clear_error() {
    // A real Python that cannot see any installed package: -I -S (no site-packages).
    let Some(python3) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
    else {
        eprintln!("python3 not on PATH: test skipped");
        return;
    };
    let dir = TempDir::new("bench-nopackage");
    let script = format!("#!/bin/sh\nexec '{}' -I -S \"$@\"\n", python3.display());
    let wrapper = dir.file("isolated-python", script.as_bytes());
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = run(simdcrypt(dir.path()).env("SIMDCRYPT_PYTHON", &wrapper).args(["bench", "--quick"]));
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("bench needs the simdcrypt Python package"), "{err}");
}
