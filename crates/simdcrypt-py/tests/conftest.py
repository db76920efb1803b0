"""Shared fixtures of the simdcrypt Python tests.

- Any test taking a ``backend`` argument runs once per BLAKE3 backend this CPU supports.
- Hashers for such tests come from the ``make_hasher`` fixture, which checks that the
  backend really is in use and records it. At the end of the session the exercised
  backends are printed, and the run fails if a supported backend was never exercised.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import simdcrypt

VECTORS_PATH = (Path(__file__).resolve().parent / "../../../test-vectors/blake3.json").resolve()

SUPPORTED_BACKENDS: list[str] = simdcrypt.backends()["blake3"]["supported"]

# Backends that hashed something during this session.
_EXERCISED: set[str] = set()
# Backends that the selected tests are parametrized with (filled after collection).
_EXPECTED: set[str] = set()

MODES = ("hash", "keyed_hash", "derive_key")
TEST_KEY = b"whats the Elvish word for friend"
TEST_CONTEXT = "BLAKE3 2019-12-27 16:29:52 test vectors context"


def mode_kwargs(mode: str, key: bytes = TEST_KEY, context: str = TEST_CONTEXT) -> dict[str, Any]:
    """The constructor keywords selecting a BLAKE3 mode (the same for simdcrypt and blake3)."""
    if mode == "hash":
        return {}
    if mode == "keyed_hash":
        return {"key": key}
    if mode == "derive_key":
        return {"derive_key_context": context}
    raise ValueError(mode)


def random_splits(data: bytes, rng: random.Random, max_pieces: int = 8) -> list[bytes]:
    """``data`` cut at random places into 1..max_pieces pieces (empty pieces included)."""
    cuts = sorted(rng.randint(0, len(data)) for _ in range(rng.randint(0, max_pieces - 1)))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", SUPPORTED_BACKENDS)


@pytest.fixture
def make_hasher(backend: str) -> Callable[..., simdcrypt.blake3]:
    """``make_hasher(data=b"", **kwargs)``: a simdcrypt.blake3 on the test's backend."""

    def make(data: Any = b"", **kwargs: Any) -> simdcrypt.blake3:
        h = simdcrypt.blake3(data, backend=backend, **kwargs)
        assert h.backend == backend
        _EXERCISED.add(backend)
        return h

    return make


def record_backend(name: str) -> None:
    """Records a backend exercised other than through ``make_hasher`` (e.g. hash_file)."""
    assert name in SUPPORTED_BACKENDS
    _EXERCISED.add(name)


def releases_gil(work: Callable[[], object]) -> bool:
    """Whether ``work`` lets other Python threads run while it is still inside the call.

    ``work`` runs on a worker thread that marks when it is inside the call; this thread
    polls the mark. The switch interval is raised meanwhile, so the interpreter never
    forces the GIL from one thread to the other: this thread can run (and see the mark set)
    only if ``work`` released the GIL itself. No clock is read, so a slow or busy machine
    cannot turn one answer into the other. ``work`` should take some milliseconds at least.
    """
    in_call = False
    seen_inside = False

    def run() -> None:
        nonlocal in_call
        in_call = True
        work()
        in_call = False

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        while worker.is_alive():
            if in_call:
                seen_inside = True
            time.sleep(0.0005)  # releases the GIL, so the worker can enter the call
        worker.join()
    finally:
        sys.setswitchinterval(old_interval)
    return seen_inside


def resize_while(data: bytearray, work: Callable[[], object]) -> tuple[int, object]:
    """Runs ``work`` on another thread while this one keeps growing ``data`` by a byte and
    shrinking it back; returns how many resizes were refused with BufferError (because
    ``work`` held a buffer export), and what ``work`` returned. ``data`` ends as it began,
    but ``work`` may have seen it one byte longer if its export began mid-resize.
    """
    started = threading.Event()
    finished = threading.Event()
    result: list[object] = []

    def run() -> None:
        started.set()
        result.append(work())
        finished.set()

    worker = threading.Thread(target=run)
    worker.start()
    started.wait()
    refused = 0
    grown = False
    while not finished.is_set():
        try:
            if grown:
                data.pop()  # undo a growth that happened outside the export
                grown = False
            else:
                data.append(0)
                grown = True
        except BufferError:
            refused += 1
    worker.join()
    if grown:
        data.pop()
    return refused, result[0]


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    with open(VECTORS_PATH, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def vector_input(length: int) -> bytes:
    """The official vectors' input: the bytes 0, 1, ..., 250 repeated."""
    return bytes(i % 251 for i in range(length))


@pytest.fixture(scope="session")
def random_data() -> bytes:
    """3 MiB + 7 bytes from a fixed seed: every differential input is a prefix of it."""
    return random.Random(0x5EED).randbytes(3 * 1024 * 1024 + 7)


@pytest.fixture
def tmp_file(tmp_path: Path) -> Iterator[Callable[[bytes], Path]]:
    """``tmp_file(data)``: a new file holding ``data``."""
    counter = iter(range(1 << 30))

    def write(data: bytes) -> Path:
        path = tmp_path / f"input-{next(counter)}.bin"
        path.write_bytes(data)
        return path

    yield write


def pytest_collection_finish(session: pytest.Session) -> None:
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "backend" in callspec.params:
            _EXPECTED.add(callspec.params["backend"])
    # A run of the whole suite must cover every supported backend, even if the
    # parametrization itself were broken.
    config = session.config
    selected_subset = bool(config.option.keyword or config.option.markexpr) or any(
        "::" in str(arg) for arg in config.args
    )
    if not selected_subset:
        _EXPECTED.update(SUPPORTED_BACKENDS)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    missing = _EXPECTED - _EXERCISED
    if missing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    exercised = [b for b in SUPPORTED_BACKENDS if b in _EXERCISED]
    terminalreporter.write_line(
        f"simdcrypt blake3 backends supported: {', '.join(SUPPORTED_BACKENDS)}; "
        f"exercised: {', '.join(exercised) or 'none'}"
    )
    missing = sorted(_EXPECTED - _EXERCISED)
    if missing:
        terminalreporter.write_line(
            f"FAILED: supported backends never exercised: {', '.join(missing)}", red=True
        )
