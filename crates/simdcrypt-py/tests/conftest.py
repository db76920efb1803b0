"""Shared fixtures of the simdcrypt Python tests.

- Any test taking a ``backend`` argument runs once per BLAKE3 backend this CPU supports;
  one taking ``<algorithm>_backend`` (e.g. ``sha256_backend``) once per backend of that
  algorithm.
- Hashers for such tests come from the ``make_hasher`` (BLAKE3) and ``make_sha256``
  fixtures, which check that the backend really is in use and record it; other uses call
  ``record_backend(name, algorithm)``. At the end of the session the exercised backends
  of every algorithm are printed, and the run fails if a supported backend was never
  exercised.
- Shared inputs: ``BUFFER_KINDS`` (every kind of C-contiguous buffer) and
  ``NON_CONTIGUOUS`` (buffers that must be refused), ``random_splits``, ``random_data``.
"""

from __future__ import annotations

import array
import json
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pytest

import simdcrypt

VECTORS_PATH = (Path(__file__).resolve().parent / "../../../test-vectors/blake3.json").resolve()

# Every algorithm's supported backends, best first (the CPU's: the "cuda" entry is the GPU
# backend of the batch functions, tested in test_cuda.py).
SUPPORTED: dict[str, list[str]] = {
    name: info["supported"] for name, info in simdcrypt.backends().items() if name != "cuda"
}
SUPPORTED_BACKENDS: list[str] = SUPPORTED["blake3"]

# (algorithm, backend) pairs that hashed something during this session.
_EXERCISED: set[tuple[str, str]] = set()
# (algorithm, backend) pairs the selected tests are parametrized with (filled after collection).
_EXPECTED: set[tuple[str, str]] = set()


def _backend_param(fixture: str) -> str | None:
    """The algorithm whose backends parametrize ``fixture``: ``backend`` is BLAKE3's,
    ``<algorithm>_backend`` that algorithm's."""
    if fixture == "backend":
        return "blake3"
    algorithm = fixture.removesuffix("_backend")
    return algorithm if fixture.endswith("_backend") and algorithm in SUPPORTED else None

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
    for fixture in metafunc.fixturenames:
        algorithm = _backend_param(fixture)
        if algorithm is not None:
            metafunc.parametrize(fixture, SUPPORTED[algorithm])


def _maker(cls: Callable[..., Any], algorithm: str, backend: str) -> Callable[..., Any]:
    """``make(data=b"", **kwargs)``: a ``cls`` object on ``backend``, checked to use it and
    recorded as exercised."""

    def make(data: Any = b"", **kwargs: Any) -> Any:
        h = cls(data, backend=backend, **kwargs)
        assert h.backend == backend
        _EXERCISED.add((algorithm, backend))
        return h

    return make


@pytest.fixture
def make_hasher(backend: str) -> Callable[..., simdcrypt.blake3]:
    """``make_hasher(data=b"", **kwargs)``: a simdcrypt.blake3 on the test's backend."""
    return _maker(simdcrypt.blake3, "blake3", backend)


@pytest.fixture
def make_sha256(sha256_backend: str) -> Callable[..., simdcrypt.sha256]:
    """``make_sha256(data=b"", **kwargs)``: a simdcrypt.sha256 on the test's backend."""
    return _maker(simdcrypt.sha256, "sha256", sha256_backend)


def record_backend(name: str, algorithm: str = "blake3") -> None:
    """Records a backend exercised other than through ``make_hasher``/``make_sha256``
    (e.g. hash_file)."""
    assert name in SUPPORTED[algorithm]
    _EXERCISED.add((algorithm, name))


def payload(n: int) -> bytes:
    return bytes((i * 7 + 3) % 256 for i in range(n))


# Every kind of C-contiguous buffer, built from the bytes to hash.
BUFFER_KINDS: dict[str, Callable[[bytes], Any]] = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "memoryview_slice": lambda b: memoryview(b"xyz" + b + b"xyz")[3 : 3 + len(b)],
    "readonly_memoryview_of_bytearray": lambda b: memoryview(bytearray(b)).toreadonly(),
    "array_B": lambda b: array.array("B", b),
    "numpy_uint8": lambda b: np.frombuffer(b, dtype=np.uint8).copy(),
    "numpy_uint8_readonly": lambda b: np.frombuffer(b, dtype=np.uint8),
}

# Buffers that are not C-contiguous: hashing one raises BufferError.
NON_CONTIGUOUS: dict[str, Callable[[], Any]] = {
    "memoryview_step": lambda: memoryview(bytes(range(100)))[::2],
    "memoryview_negative_step": lambda: memoryview(bytes(range(100)))[::-1],
    "memoryview_of_strided_numpy": lambda: memoryview(np.zeros((10, 10), dtype=np.uint8)[:, ::3]),
    "numpy_step": lambda: np.arange(100, dtype=np.uint8)[::2],
    "numpy_column_slice": lambda: np.zeros((10, 10), dtype=np.uint8)[:, :5],
    "numpy_fortran": lambda: np.asfortranarray(np.zeros((10, 10), dtype=np.uint8)),
    "numpy_transpose": lambda: np.arange(100, dtype=np.uint8).reshape(10, 10).T,
}


def releases_gil(work: Callable[[], object], attempts: int = 200) -> bool:
    """Whether ``work`` lets other Python threads run while it is still inside the call.

    ``work`` runs on a worker thread, up to ``attempts`` times, marking when it is inside
    the call; this thread polls the mark and stops the worker once it has seen it. The
    switch interval is raised meanwhile, so the interpreter never forces the GIL from one
    thread to the other: this thread can run (and see the mark set) only if ``work``
    released the GIL itself. No clock is read, and a busy machine that keeps this thread
    waiting through one call only costs another attempt, so load cannot turn one answer
    into the other. ``work`` should take a millisecond or more.
    """
    in_call = False
    seen_inside = False

    def run() -> None:
        nonlocal in_call
        for _ in range(attempts):
            if seen_inside:
                return
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
        if callspec is None:
            continue
        for fixture, value in callspec.params.items():
            algorithm = _backend_param(fixture)
            if algorithm is not None:
                _EXPECTED.add((algorithm, value))
    # A run of the whole suite must cover every supported backend of every algorithm, even
    # if the parametrization itself were broken. (A run of some files checks what they
    # are parametrized with.)
    config = session.config
    selected_subset = bool(config.option.keyword or config.option.markexpr) or any(
        "::" in str(arg) for arg in config.args
    )
    collected_files = {Path(str(item.path)).resolve() for item in session.items}
    all_files = set(Path(__file__).resolve().parent.glob("test_*.py"))
    if not selected_subset and all_files <= collected_files:
        _EXPECTED.update((algorithm, b) for algorithm, backends in SUPPORTED.items() for b in backends)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    missing = _EXPECTED - _EXERCISED
    if missing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for algorithm, backends in SUPPORTED.items():
        exercised = [b for b in backends if (algorithm, b) in _EXERCISED]
        terminalreporter.write_line(
            f"simdcrypt {algorithm} backends supported: {', '.join(backends)}; "
            f"exercised: {', '.join(exercised) or 'none'}"
        )
    missing = sorted(_EXPECTED - _EXERCISED)
    if missing:
        shown = ", ".join(f"{algorithm} {b}" for algorithm, b in missing)
        terminalreporter.write_line(f"FAILED: supported backends never exercised: {shown}", red=True)


# Every hash class (the HMAC ones included).
HASH_CLASSES: list[Any] = [
    simdcrypt.blake3,
    simdcrypt.sha256,
    simdcrypt.streebog256,
    simdcrypt.streebog512,
    simdcrypt.hmac_streebog256,
    simdcrypt.hmac_streebog512,
    simdcrypt.gost94,
    simdcrypt.highwayhash64,
    simdcrypt.highwayhash128,
    simdcrypt.highwayhash256,
]


class OtherSequence(Sequence[Any]):
    """A sequence that is neither a list nor a tuple."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: Any) -> Any:
        return self.items[i]


def update_from_threads(update: Callable[[bytes], object], piece: bytes, threads: int, rounds: int) -> None:
    """Calls ``update(piece)`` ``rounds`` times on each of ``threads`` threads at once. Every
    thread adds the same piece, so every interleaving gives the same input; a lost or torn
    update would change the digest."""

    def feed() -> None:
        for _ in range(rounds):
            update(piece)

    workers = [threading.Thread(target=feed) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()


def random_rows(n: int, length: int, seed: int) -> np.ndarray:
    """`n` random messages of `length` bytes, as the rows of a uint8 array (fixed seed)."""
    return np.random.default_rng(seed).integers(0, 256, size=(n, length), dtype=np.uint8)


# The CUDA batch functions (test_cuda.py on a GPU, test_cuda_emulated.py on the emulation):
# (name, digest length, CPU call on host messages, GPU call with any messages and out=...).
CUDA_BATCHES: list[tuple[str, int, Callable[..., Any], Callable[..., Any]]] = [
    ("streebog512", 64, lambda m: simdcrypt.streebog_many(m, bits=512),
     lambda m, **k: simdcrypt.streebog_many(m, bits=512, backend="cuda", **k)),
    ("streebog256", 32, lambda m: simdcrypt.streebog_many(m, bits=256),
     lambda m, **k: simdcrypt.streebog_many(m, bits=256, backend="cuda", **k)),
    ("gost94", 32, lambda m: simdcrypt.gost94_many(m),
     lambda m, **k: simdcrypt.gost94_many(m, backend="cuda", **k)),
    ("gost94-test", 32, lambda m: simdcrypt.gost94_many(m, sbox="test"),
     lambda m, **k: simdcrypt.gost94_many(m, sbox="test", backend="cuda", **k)),
    ("blake3", 32, lambda m: simdcrypt.blake3_many(m),
     lambda m, **k: simdcrypt.blake3_many(m, backend="cuda", **k)),
    ("blake3-derive-7", 7, lambda m: simdcrypt.blake3_many(m, derive_key_context="c", length=7),
     lambda m, **k: simdcrypt.blake3_many(m, derive_key_context="c", length=7, backend="cuda", **k)),
    ("blake3-keyed-100", 100, lambda m: simdcrypt.blake3_many(m, key=bytes(range(32)), length=100),
     lambda m, **k: simdcrypt.blake3_many(m, key=bytes(range(32)), length=100, backend="cuda", **k)),
]
