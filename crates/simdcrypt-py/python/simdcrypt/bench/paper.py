"""``--paper``: the tables of the documents simdcrypt grew from, with this machine's figures.

1. BLAKE3 from Python against threads: seconds per hash of 100 MB, 200 MB and 1 GB with
   1 .. cores threads (the BLAKE3/PyO3 paper's table 2).
2. BLAKE3 against SHA-256 and SHA3-256: seconds for 20 MB, 100 MB, 500 MB and 2 GB
   (its table 3).
3. Salsa20/20 encrypting 1 GiB: seconds, Gbit/s and cycles/byte (the Salsa20 report).
4. GOST R 34.11-94 and Streebog: MB/s and cycles/byte, one thread (the GOST paper's
   table 1).

MB and GB are decimal (10^6, 10^9 bytes) as in the papers. ``--quick`` divides every
size by 16, ``--paper-scale N`` by N (and the titles say so). In the GOST table an
implementation too slow for the full size (a pure-Python peer) is measured on the largest
of 64 KiB, 1 MiB and the full size that fits within --max-call, and a note says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from . import machine, report
from .adapters import Availability, Implementation
from .machine import Clock
from .runner import MiB, InputBuffer, Measurement, Runner, format_size

MB = 10**6
GB = 10**9


def _seconds(m: Measurement | None) -> str:
    return f"{m.median:.4f} s" if m is not None else "-"


def _impls(avails: dict[str, list[Implementation]], algorithm: str) -> list[Implementation]:
    return avails.get(algorithm, [])


def _largest(measurements: Sequence[Measurement], label: str, threads: int) -> Measurement | None:
    found = [m for m in measurements if m.implementation == label and m.threads == threads]
    return max(found, key=lambda m: m.size) if found else None


def run(
    runner: Runner,
    ok_avails: Sequence[tuple[Availability, list[Implementation]]],
    *,
    quick: bool,
    scale: int | None,
    threads: Sequence[int] | None,
    clock: Clock,
    out: TextIO,
) -> list[dict[str, Any]]:
    scale = scale or (16 if quick else 1)
    counts = list(threads) if threads else list(range(1, machine.cores() + 1))
    top = max(counts)
    avails = {a.spec.name: impls for a, impls in ok_avails}
    missing = sorted(
        {"blake3", "sha256", "sha3_256", "salsa20", "streebog256", "streebog512", "gost94"}
        - set(avails)
    )
    sizes_1 = [100 * MB // scale, 200 * MB // scale, GB // scale]
    sizes_2 = [20 * MB // scale, 100 * MB // scale, 500 * MB // scale, 2 * GB // scale]
    salsa_size = (1 << 30) // scale
    gost_size = 64 * MiB // scale
    biggest = max(sizes_1 + sizes_2 + [salsa_size, gost_size])
    budget = runner.settings.memory_budget
    runner.buffer = InputBuffer(min(biggest, max(budget // 3, MiB)))
    tables: list[dict[str, Any]] = []
    note_quick = f" (sizes divided by {scale})" if scale != 1 else ""
    runner.progress.begin(
        3 * len(counts) + 4 + len(sizes_2) * (1 if top == 1 else 2) + 2 * len(counts) + 3 * 3
    )

    def point(
        algorithm: str, impls: list[Implementation], size: int, t: int, output_factor: float = 0.0
    ) -> list[Measurement]:
        runner.progress.step(f"paper: {algorithm} {format_size(size)} x{t}: ")
        if size > runner.buffer.size:
            for impl in impls:
                runner.event(
                    "skipped",
                    impl.label,
                    algorithm,
                    size,
                    t,
                    f"over the memory budget of {format_size(budget)} (--memory-budget)",
                )
            return []
        return runner.run_point(
            impls, algorithm, size, t, output_factor=output_factor, series="paper"
        )

    def emit(title: str, header: list[str], rows: list[list[str]], notes: list[str]) -> None:
        runner.progress.finish()
        if not rows:
            notes = ["no implementation available (see 'not in these tables' below)", *notes]
        print(f"== {title}{note_quick} ==", file=out)
        print(report.table(header, rows), file=out)
        for n in notes:
            print(f"  {n}", file=out)
        print(file=out, flush=True)
        tables.append({"title": title, "header": header, "rows": rows, "notes": notes})

    # 1. BLAKE3 against threads.
    b3 = _impls(avails, "blake3")
    timed: dict[tuple[str, int, int], Measurement] = {}
    for t in counts:
        chosen = [i for i in b3 if i.threads or t == 1]
        for size in sizes_1:
            for m in point("blake3", chosen, size, t):
                timed[(m.implementation, size, t)] = m
    rows: list[list[str]] = []
    for impl in b3:
        for t in counts if impl.threads else [1]:
            cells = [impl.label if t == counts[0] else "", f"{t}"]
            cells += [_seconds(timed.get((impl.label, size, t))) for size in sizes_1]
            rows.append(cells)
    emit(
        "BLAKE3 from Python: seconds per hash against threads",
        ["implementation", "threads", *(format_size(s) for s in sizes_1)],
        rows,
        [
            "median of the repetitions; the implementations of one thread count and size were timed interleaved"
        ],
    )

    # 2. BLAKE3 against SHA-256 and SHA3-256.
    columns: list[tuple[str, Implementation, int]] = []
    for algorithm, title in (("sha256", "SHA-256"), ("sha3_256", "SHA3-256")):
        for impl in _impls(avails, algorithm):
            columns.append((f"{title} {impl.label}", impl, 1))
    for impl in b3:
        columns.append((f"BLAKE3 {impl.label}", impl, 1))
        if impl.threads and top > 1:
            columns.append((f"BLAKE3 {impl.label} x{top}", impl, top))
    rows = []
    results: dict[tuple[str, int, int], Measurement] = {}
    for size in sizes_2:
        for algorithm in ("sha256", "sha3_256", "blake3"):
            impls = _impls(avails, algorithm)
            for m in point(algorithm, impls, size, 1):
                results[(m.implementation + algorithm, size, 1)] = m
            threaded = [i for i in impls if i.threads and top > 1]
            if threaded:
                for m in point(algorithm, threaded, size, top):
                    results[(m.implementation + algorithm, size, top)] = m
    for size in sizes_2:
        cells = [format_size(size)]
        for _, impl, t in columns:
            cells.append(_seconds(results.get((impl.label + impl.algorithm, size, t))))
        rows.append(cells)
    emit(
        "BLAKE3 against SHA-256 and SHA3-256: seconds per hash",
        ["input", *(c[0] for c in columns)],
        rows,
        ["the implementations of one row were timed interleaved on the same input"],
    )

    # 3. Salsa20/20 on 1 GiB.
    rows = []
    salsa = _impls(avails, "salsa20")
    salsa_timed: dict[tuple[str, int], Measurement] = {}
    for t in sorted({1, top}):
        chosen = [i for i in salsa if i.threads or t == 1]
        for sm in point("salsa20", chosen, salsa_size, t, output_factor=1.0) if chosen else []:
            salsa_timed[(sm.implementation, t)] = sm
    for impl in salsa:
        for t in sorted({1, top}) if impl.threads else [1]:
            found = salsa_timed.get((impl.label, t))
            cpb = clock.cycles_per_byte(found.mb_per_s) if found else None
            rows.append(
                [
                    impl.label,
                    str(t),
                    _seconds(found),
                    report.format_rate(found.mb_per_s) if found else "-",
                    f"{found.mb_per_s * 8 / 1000:.2f}" if found else "-",
                    f"{cpb:.2f}" if cpb is not None else "-",
                ]
            )
    emit(
        f"Salsa20/20 encrypting {format_size(salsa_size)}",
        ["implementation", "threads", "time", "MB/s", "Gbit/s", "cycles/byte"],
        rows,
        [f"cycles/byte = clock / throughput, clock {clock.mhz or 0:.0f} MHz from {clock.source}"],
    )

    # 4. GOST hashes, one thread.
    gost_algorithms = [
        ("gost94", "GOST R 34.11-94"),
        ("streebog256", "Streebog-256"),
        ("streebog512", "Streebog-512"),
    ]
    per_alg: dict[str, list[Measurement]] = {}
    labels: list[str] = []
    for algorithm, _ in gost_algorithms:
        impls = _impls(avails, algorithm)
        for impl in impls:
            if impl.label not in labels:
                labels.append(impl.label)
        measured: list[Measurement] = []
        for size in sorted({s for s in (64 * 1024, MiB) if s < gost_size} | {gost_size}):
            measured.extend(point(algorithm, impls, size, 1))
        per_alg[algorithm] = measured
    rows = []
    notes = [
        f"one thread; cycles/byte = clock / throughput, clock {clock.mhz or 0:.0f} MHz from {clock.source}"
    ]
    for label in labels:
        cells = [label]
        for algorithm, _ in gost_algorithms:
            gm = _largest(per_alg.get(algorithm, []), label, 1)
            if gm is None:
                cells += ["-", "-"]
                continue
            cpb = clock.cycles_per_byte(gm.mb_per_s)
            cells += [report.format_rate(gm.mb_per_s), f"{cpb:.1f}" if cpb is not None else "-"]
            if gm.size != gost_size:
                notes.append(
                    f"{label} {algorithm}: measured on {format_size(gm.size)} (too slow for "
                    f"{format_size(gost_size)} within --max-call)"
                )
        rows.append(cells)
    header = ["implementation"]
    for _, title in gost_algorithms:
        header += [f"{title} MB/s", "cycles/B"]
    emit(f"GOST hashes on {format_size(gost_size)}", header, rows, notes)
    if missing:
        print(
            f"not in these tables (not built, or no implementation available): {', '.join(missing)}",
            file=out,
        )
    return tables
