"""Verification and timing: interleaved repetitions, median and spread.

For one point (algorithm, input size, thread count) every implementation is first run
once on the same input and its output compared with the first implementation's (the
reference: simdcrypt where it is built); an implementation whose output differs is
reported and not timed. Then each implementation gets a loop count that makes one sample
last at least ``min_time``, and the samples are taken round-robin, rotating the order in
every repetition, so that a change in machine load hits all implementations alike.
"""

from __future__ import annotations

import gc
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .adapters import Implementation, Kernel
from .progress import Progress

MiB = 1 << 20
# The input size from which one call's time predicts larger ones (setup cost negligible).
PROBE = 64 * 1024


@dataclass
class Measurement:
    """The timing of one implementation at one point."""

    algorithm: str
    implementation: str  # label: "simdcrypt (avx512)", "hashlib", ...
    name: str
    backend: str | None
    is_simdcrypt: bool
    threads: int
    size: int
    loops: int
    samples: list[float]  # seconds per call, one per repetition
    ratio_to_best_peer: float | None = None
    # Which part of the run: "sizes" (the size ladder), "threads" (the scaling run), "paper".
    series: str = "sizes"

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """(slowest - fastest) / median of the samples."""
        return (max(self.samples) - min(self.samples)) / self.median if self.median else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.size / self.median / 1e6 if self.median else math.inf

    @property
    def calls_per_s(self) -> float:
        return 1.0 / self.median if self.median else math.inf

    def to_json(self) -> dict[str, Any]:
        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "series": self.series,
            "algorithm": self.algorithm,
            "implementation": self.implementation,
            "name": self.name,
            "backend": self.backend,
            "simdcrypt": self.is_simdcrypt,
            "threads": self.threads,
            "size": self.size,
            "loops": self.loops,
            "samples_s": self.samples,
            "median_s": self.median,
            "spread": self.spread,
            "mb_per_s": finite(self.mb_per_s),
            "calls_per_s": finite(self.calls_per_s),
            "ratio_to_best_peer": self.ratio_to_best_peer,
        }


@dataclass
class Event:
    """Something the report must mention: a skipped point, a mismatch, a failure."""

    kind: str  # "skipped", "mismatch", "error"
    algorithm: str
    implementation: str
    size: int | None
    threads: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "algorithm": self.algorithm,
            "implementation": self.implementation,
            "size": self.size,
            "threads": self.threads,
            "reason": self.reason,
        }


def format_size(n: int) -> str:
    """8 B, 4 KiB, 1 GiB (binary multiples), or 100 MB, 2 GB (decimal ones)."""
    for unit, scale in (
        ("GiB", 1 << 30),
        ("GB", 10**9),
        ("MiB", 1 << 20),
        ("MB", 10**6),
        ("KiB", 1 << 10),
        ("KB", 10**3),
    ):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    if n >= 10**6:
        return f"{n / 10**6:g} MB"
    return f"{n} B"


class InputBuffer:
    """One buffer of pseudo-random bytes (fixed seed) serving every size: a size's input
    is a read-only view of its first bytes, so large sizes cost no further copies."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._buffer = bytearray(size)
        pattern = random.Random(0x5EED).randbytes(min(size, MiB + 7))
        view = memoryview(self._buffer)
        for start in range(0, size, len(pattern) or 1):
            chunk = pattern[: size - start]
            view[start : start + len(chunk)] = chunk
        self._view = view.toreadonly()

    def view(self, n: int) -> memoryview:
        if n > self.size:
            raise ValueError(f"input of {n} bytes exceeds the buffer of {self.size}")
        return self._view[:n]


def _time_loop(kernel: Kernel, arg: Any, loops: int) -> float:
    """Seconds per call over ``loops`` calls (garbage collection paused)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in itertools.repeat(None, loops):
            kernel(arg)
        return (time.perf_counter() - start) / loops
    finally:
        if enabled:
            gc.enable()


def _calibrate(kernel: Kernel, arg: Any, first_call: float, min_time: float) -> int:
    """How many calls make one sample last about ``min_time``."""
    if first_call >= min_time:
        return 1
    loops = 1
    per_call = first_call
    # The first call may include one-off costs: re-measure with growing loop counts.
    while True:
        per_call = _time_loop(kernel, arg, loops)
        if per_call * loops >= min_time / 8 or loops >= 1 << 24:
            break
        loops *= 4
    return max(1, min(1 << 26, math.ceil(min_time / max(per_call, 1e-9))))


@dataclass
class Settings:
    reps: int = 5
    min_time: float = 0.1  # seconds per sample
    max_call: float = 10.0  # skip a size when one call would take longer than this
    memory_budget: int = 8 << 30


@dataclass
class Runner:
    settings: Settings
    buffer: InputBuffer
    progress: Progress
    measurements: list[Measurement] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # (algorithm, implementation label, threads) -> (size, seconds per call) of the last
    # size timed, to predict the next size's cost.
    _last: dict[tuple[str, str, int], tuple[int, float]] = field(default_factory=dict)
    # Called with each event as it happens (the CLI prints it).
    on_event: Callable[[Event], None] | None = None

    def event(
        self,
        kind: str,
        impl: str,
        algorithm: str,
        size: int | None,
        threads: int | None,
        reason: str,
    ) -> None:
        ev = Event(kind, algorithm, impl, size, threads, reason)
        self.events.append(ev)
        if self.on_event is not None:
            self.on_event(ev)

    def _probe(
        self, impl: Implementation, threads: int, key: tuple[str, str, int]
    ) -> tuple[int, float] | None:
        try:
            kernel = impl.make(threads)
            data = self.buffer.view(PROBE)
            arg: Any = bytes(data) if impl.needs_bytes else data
            start = time.perf_counter()
            kernel(arg)
            self._last[key] = (PROBE, time.perf_counter() - start)
        except Exception:  # noqa: BLE001 - the real call reports it
            return None
        return self._last[key]

    def memory_needed(
        self, impls: Sequence[Implementation], size: int, output_factor: float
    ) -> int:
        """Bytes needed beyond the shared input buffer while one point runs."""
        extra = max((i.memory_factor + (1.0 if i.needs_bytes else 0.0) for i in impls), default=0.0)
        return int(size * (extra + 2 * output_factor)) + (1 << 20)

    def check_kats(
        self, impls: Sequence[Implementation], kats: Sequence[tuple[bytes, str]]
    ) -> list[Implementation]:
        """The implementations that give every known answer; the others are reported."""
        good = []
        for impl in impls:
            try:
                kernel = impl.make(1)
                wrong = [
                    (message, expected, out.hex())
                    for message, expected in kats
                    if (out := kernel(message if impl.needs_bytes else memoryview(message))).hex()
                    != expected
                ]
            except Exception as error:  # noqa: BLE001 - any failure of a peer is reported
                self.event(
                    "error",
                    impl.label,
                    impl.algorithm,
                    None,
                    None,
                    f"known-answer check raised {error!r}",
                )
                continue
            if wrong:
                message, expected, got = wrong[0]
                self.event(
                    "mismatch",
                    impl.label,
                    impl.algorithm,
                    len(message),
                    1,
                    f"known answer wrong: expected {expected[:32]}..., got {got[:32]}...",
                )
                continue
            good.append(impl)
        return good

    def run_point(
        self,
        impls: Sequence[Implementation],
        algorithm: str,
        size: int,
        threads: int,
        *,
        output_factor: float = 0.0,
        max_call: float | None = None,
        label: str = "",
        series: str = "sizes",
    ) -> list[Measurement]:
        """Verifies and times ``impls`` on the first ``size`` bytes of the buffer with
        ``threads`` threads (implementations without threads run single-threaded only:
        they are left out when ``threads`` > 1)."""
        max_call = self.settings.max_call if max_call is None else max_call

        def note(kind: str, impl: Implementation, reason: str) -> None:
            self.event(kind, impl.label, algorithm, size, threads, reason)

        needed = self.memory_needed(impls, size, output_factor)
        if size + needed > self.settings.memory_budget:
            for impl in impls:
                note(
                    "skipped",
                    impl,
                    f"needs about {(size + needed) / 2**30:.1f} GiB, over the memory budget of "
                    f"{self.settings.memory_budget / 2**30:.1f} GiB (--memory-budget)",
                )
            return []
        data = self.buffer.view(size)
        runnable: list[tuple[Implementation, Kernel, Any]] = []
        for impl in impls:
            key = (algorithm, impl.label, threads)
            last = self._last.get(key)
            if last is not None:
                predicted = last[1] * size / max(last[0], 1)
                if predicted > max_call and last[0] < PROBE < size:
                    # Per-call overhead dominates small inputs: measure one call on
                    # PROBE bytes before calling an implementation too slow.
                    last = self._probe(impl, threads, key)
                    predicted = last[1] * size / PROBE if last else predicted
                if predicted > max_call:
                    note(
                        "skipped",
                        impl,
                        f"too slow: about {predicted:.1f} s per call, over the limit of {max_call:g} s",
                    )
                    continue
            try:
                kernel = impl.make(threads)
            except Exception as error:  # noqa: BLE001
                note("error", impl, f"setup raised {error!r}")
                continue
            arg: Any = bytes(data) if impl.needs_bytes else data
            runnable.append((impl, kernel, arg))

        # Verification (also the warm-up): every output equals the reference's.
        verified: list[tuple[Implementation, Kernel, Any, float]] = []
        reference: tuple[str, bytes] | None = None
        for impl, kernel, arg in runnable:
            self.progress.show(f"{label}verifying {impl.label}")
            try:
                start = time.perf_counter()
                out = kernel(arg)
                elapsed = time.perf_counter() - start
            except Exception as error:  # noqa: BLE001
                note("error", impl, f"raised {error!r}")
                continue
            self._last[(algorithm, impl.label, threads)] = (size, elapsed)
            if reference is None:
                reference = (impl.label, out)
            elif out != reference[1]:
                note(
                    "mismatch",
                    impl,
                    f"output differs from {reference[0]}'s "
                    f"({out[:16].hex()}... vs {reference[1][:16].hex()}..., "
                    f"{len(out)} vs {len(reference[1])} bytes); not timed",
                )
                continue
            del out
            verified.append((impl, kernel, arg, elapsed))
        reference = None

        loops = []
        for impl, kernel, arg, elapsed in verified:
            self.progress.show(f"{label}calibrating {impl.label}")
            loops.append(_calibrate(kernel, arg, elapsed, self.settings.min_time))
        samples: list[list[float]] = [[] for _ in verified]
        order = list(range(len(verified)))
        for rep in range(self.settings.reps):
            rotated = order[rep % len(order) :] + order[: rep % len(order)] if order else []
            for index in rotated:
                impl, kernel, arg, _ = verified[index]
                self.progress.show(f"{label}rep {rep + 1}/{self.settings.reps} {impl.label}")
                samples[index].append(_time_loop(kernel, arg, loops[index]))
        results = [
            Measurement(
                algorithm,
                impl.label,
                impl.name,
                impl.backend,
                impl.is_simdcrypt,
                threads,
                size,
                loops[index],
                samples[index],
                series=series,
            )
            for index, (impl, _, _, _) in enumerate(verified)
        ]
        best_peer = max((m.mb_per_s for m in results if not m.is_simdcrypt), default=None)
        if best_peer:
            for m in results:
                if m.is_simdcrypt:
                    m.ratio_to_best_peer = m.mb_per_s / best_peer
        self.measurements.extend(results)
        return results
