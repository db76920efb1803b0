"""Coverage-guided fuzzing of the extension's parsers with atheris (libFuzzer for Python).

The parsers the Rust fuzz targets (fuzz/) reach, now through the Python bindings: saved
states (every class's restore() and pickle's _restore_state), Bao decoding (combined,
outboard, slices, scrub, BaoReader), encrypted files (decrypt_file, open_encrypted) and
secretbox_open. Each must either succeed or raise what its documentation says (ValueError,
AuthenticationError, which is one, TypeError for a wrong type); anything else, a Rust
panic surfacing as pyo3's PanicException above all, is a finding and stops the run.

    .venv/bin/pip install atheris        # a manylinux wheel for CPython 3.11 on x86-64
    maturin develop -m crates/simdcrypt-py/Cargo.toml
    .venv/bin/python crates/simdcrypt-py/fuzz/fuzz_parsers.py -max_total_time=60 -print_final_stats=1

libFuzzer's guidance comes from this harness's Python branches only: the Rust code is
not instrumented (docs/testing.md, "Fuzzing", says why: the atheris wheel's libFuzzer
cannot serve an extension built with SanitizerCoverage). The Rust targets in fuzz/ are
the coverage-guided ones; this harness checks the Python boundary (no panic or
undocumented exception crosses it) on the inputs libFuzzer's mutations make.
"""

from __future__ import annotations

import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    import simdcrypt

KEY = b"the right key, thirty-two bytes!"
EXPECTED = (ValueError, TypeError)
_tmp = tempfile.mkdtemp(prefix="simdcrypt-atheris-")
_src = os.path.join(_tmp, "in.sealed")
_dst = os.path.join(_tmp, "out.plain")


def expect_documented(call, *args, **kwargs):  # type: ignore[no-untyped-def]
    """Runs call; documented exceptions are fine, anything else propagates (a finding)."""
    try:
        return call(*args, **kwargs)
    except EXPECTED:
        return None


@atheris.instrument_func
def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    which = fdp.ConsumeIntInRange(0, 5)
    key = fdp.ConsumeBytes(fdp.PickValueInList([0, 16, 32, 33]))
    blob = fdp.ConsumeBytes(fdp.remaining_bytes())
    if which == 0:
        classes = [
            simdcrypt.blake3,
            simdcrypt.sha256,
            simdcrypt.streebog256,
            simdcrypt.streebog512,
            simdcrypt.gost94,
            simdcrypt.highwayhash64,
            simdcrypt.highwayhash128,
            simdcrypt.highwayhash256,
            simdcrypt.hmac_streebog256,
            simdcrypt.hmac_streebog512,
        ]
        cls = classes[len(blob) % len(classes)]
        for k in (None, key, KEY):
            h = expect_documented(cls.restore, blob, key=k)
            if h is not None:
                h.update(b"more")
                h.export()
        expect_documented(simdcrypt._native._restore_state, blob, key or None)
    elif which == 1:
        root, encoded = blob[:32], blob[32:]
        half = len(encoded) // 2
        log = len(key) % 3
        expect_documented(simdcrypt.bao_decode, root, encoded, chunk_group_log=log)
        expect_documented(simdcrypt.bao_decode, root, encoded[:half], outboard=encoded[half:], chunk_group_log=log)
        expect_documented(simdcrypt.bao_decode_slice, root, encoded, len(key) * 100, half, chunk_group_log=log)
        expect_documented(simdcrypt.bao_slice, encoded, half, len(key), chunk_group_log=log)
        expect_documented(simdcrypt.bao_scrub, root, encoded[:half], encoded[half:], chunk_group_log=log)
        reader = expect_documented(simdcrypt.BaoReader, root, encoded, chunk_group_log=log)
        if reader is not None:
            expect_documented(reader.read)
    elif which in (2, 3):
        with open(_src, "wb") as f:
            f.write(blob)
        if which == 2:
            expect_documented(simdcrypt.decrypt_file, _src, _dst, key=KEY)
        else:
            reader = expect_documented(simdcrypt.open_encrypted, _src, key=KEY)
            if reader is not None:
                with reader:
                    expect_documented(reader.read)
                    expect_documented(reader.seek, len(blob) // 2)
                    expect_documented(reader.read, 10)
    elif which == 4:
        expect_documented(simdcrypt.secretbox_open, key, blob[:24], blob[24:])
    else:
        # A state made by the library, damaged at one byte: must not restore to a crash.
        h = simdcrypt.blake3(blob, key=KEY) if len(key) == 32 else simdcrypt.sha256(blob)
        state = bytearray(h.export())
        if blob:
            state[blob[0] % len(state)] ^= 1 + (blob[-1] % 255)
        expect_documented(type(h).restore, bytes(state), key=KEY if len(key) == 32 else None)


if __name__ == "__main__":
    argv = list(sys.argv)
    if not any(a.startswith("-artifact_prefix=") for a in argv):
        # libFuzzer writes crash-*/leak-*/timeout-* files into the working directory unless
        # told otherwise; keep them out of a checkout (fuzz/artifacts/ is git-ignored).
        repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
        artifacts = os.path.join(repo, "fuzz", "artifacts", "python")
        os.makedirs(artifacts, exist_ok=True)
        argv.append("-artifact_prefix=" + os.path.normpath(artifacts) + os.sep)
    atheris.Setup(argv, one_input)
    atheris.Fuzz()
