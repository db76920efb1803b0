"""encrypt_file / decrypt_file write through simdcrypt::atomic_file, as the CLI does:
a decryption that fails authentication part-way leaves no file (with O_TMPFILE and with
the named fallback), and a process killed with SIGKILL in the middle of encrypt_file
leaves the folder exactly as it was (Linux: the output has no name until it is done)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import simdcrypt

KEY = bytes(range(32))
CHUNK = 65536
SEALED = CHUNK + 16
HEADER = 96


def listing(d: Path) -> list[str]:
    return sorted(os.listdir(d))


@pytest.mark.parametrize("fallback", [False, True], ids=["o_tmpfile", "named_fallback"])
@pytest.mark.parametrize("threads", [1, 2])
def test_failed_authentication_mid_file_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fallback: bool, threads: int
) -> None:
    if fallback:
        monkeypatch.setenv("SIMDCRYPT_NO_O_TMPFILE", "1")
    src = tmp_path / "src"
    enc = tmp_path / "src.enc"
    src.write_bytes(random.Random(1).randbytes(40 * CHUNK + 5))
    simdcrypt.encrypt_file(src, enc, key=KEY)
    bad = bytearray(enc.read_bytes())
    # Chunk 30 of 41: 30 chunks (two batches and more) authenticate and are written first.
    bad[HEADER + 30 * SEALED + 100] ^= 0x40
    (tmp_path / "bad.enc").write_bytes(bad)
    before = listing(tmp_path)
    with pytest.raises(simdcrypt.AuthenticationError, match="chunk 30"):
        simdcrypt.decrypt_file(tmp_path / "bad.enc", tmp_path / "out", key=KEY, max_threads=threads)
    assert listing(tmp_path) == before, "no output and no temporary file"
    # The same through an existing destination: it is kept as it was.
    (tmp_path / "out").write_bytes(b"keep me")
    with pytest.raises(simdcrypt.AuthenticationError):
        simdcrypt.decrypt_file(tmp_path / "bad.enc", tmp_path / "out", key=KEY, max_threads=threads)
    assert (tmp_path / "out").read_bytes() == b"keep me"
    assert listing(tmp_path) == sorted([*before, "out"])


CHILD = """
import sys, simdcrypt
print("ready", flush=True)
simdcrypt.encrypt_file(sys.argv[1], sys.argv[2], key=bytes(range(32)), max_threads=int(sys.argv[3]))
print("finished", flush=True)
"""


def open_outputs(pid: int, folder: Path) -> list[str]:
    """What the process has open in `folder` (an O_TMPFILE file reads `folder/#N (deleted)`)."""
    found = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder) + "/") and "fifo" not in target:
            found.append(target)
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_TMPFILE and /proc are Linux's")
@pytest.mark.parametrize("threads", [1, 2])
def test_sigkill_during_encrypt_file_leaves_the_folder_as_it_was(tmp_path: Path, threads: int) -> None:
    # The input is a FIFO that this test feeds and keeps open, so the child is surely in
    # the middle of encrypt_file (its output open, part of it written) when it is killed.
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "existing").write_bytes(b"x")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    before = listing(out_dir)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(fifo), str(out_dir / "secret.enc"), str(threads)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        with open(fifo, "wb") as feed:
            # Several batches of chunks: some are sealed and written before the kill.
            feed.write(random.Random(2).randbytes(5 * 1024 * 1024))
            feed.flush()
            deadline = time.monotonic() + 20
            opened: list[str] = []
            while time.monotonic() < deadline:
                opened = open_outputs(child.pid, out_dir)
                if opened:
                    break
                time.sleep(0.005)
            assert opened, "the child never opened its output"
            if not all(t.endswith("(deleted)") for t in opened):
                pytest.skip(f"no O_TMPFILE on this file system ({opened}); the named fallback can't survive SIGKILL")
            # Let it write what it was given.
            time.sleep(0.2)
            assert child.poll() is None, "the child must still be waiting for input"
            child.send_signal(signal.SIGKILL)
            assert child.wait(timeout=20) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert listing(out_dir) == before, "a killed encrypt_file left something behind"
    assert (out_dir / "existing").read_bytes() == b"x"
