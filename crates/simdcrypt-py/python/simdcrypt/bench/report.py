"""Text tables for the terminal and the JSON document of a run.

The JSON document (``--json OUT``, schema ``simdcrypt-bench/1``) has: ``date``, ``command``,
``machine`` (CPU model, relevant flags, cores, memory, OS, Python, load average),
``clock`` (MHz and its source), ``settings``, ``simdcrypt`` (version, ``backends()``),
``algorithms`` (per algorithm: the implementations with versions, the unavailable ones
with the reason), ``results`` (one entry per implementation and point: ``series``
sizes/threads/paper, size, threads, every sample in seconds per call, median, spread,
MB/s, calls/s, ratio to the best peer), ``events`` (skipped points, verification failures,
errors, each with its reason) and ``paper`` (the --paper tables as header and rows).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .adapters import Availability
from .runner import Event, Measurement, format_size

# Below this input size a table also shows calls per second, the figure that matters
# for short messages.
SHORT = 4096


def format_rate(mb_per_s: float) -> str:
    if not math.isfinite(mb_per_s):
        return "inf"
    if mb_per_s >= 100:
        return f"{mb_per_s:,.0f}"
    if mb_per_s >= 1:
        return f"{mb_per_s:.1f}"
    return f"{mb_per_s:.3f}"


def format_count(per_s: float) -> str:
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if per_s >= scale:
            return f"{per_s / scale:.2f} {suffix}"
    return f"{per_s:.1f}"


def table(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None
) -> str:
    """A plain text table with columns padded to their widest cell."""
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    align = right if right is not None else [False] + [True] * (len(header) - 1)

    def line(cells: Sequence[str]) -> str:
        parts = [
            (str(c).rjust(w) if a else str(c).ljust(w)) for c, w, a in zip(cells, widths, align)
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def availability_lines(avail: Availability) -> list[str]:
    spec = avail.spec
    lines = []
    present = ", ".join(
        f"{i.label}{' ' + i.version if i.version and not i.is_simdcrypt else ''}"
        for i in avail.implementations
    )
    lines.append(f"  implementations: {present or 'none'}")
    for name, reason in avail.unavailable:
        lines.append(f"  {name}: {reason}")
    if not spec.peers:
        lines.append("  peers: none (no Python package implements it)")
    if spec.note:
        lines.append(f"  note: {spec.note}")
    return lines


def ladder_table(measurements: Sequence[Measurement]) -> str:
    rows = []
    last_size = None
    # Implementations in the order they were set up: simdcrypt's first, then the peers.
    order = {
        label: i for i, label in enumerate(dict.fromkeys(m.implementation for m in measurements))
    }
    for m in sorted(measurements, key=lambda m: (m.size, order[m.implementation])):
        rows.append(
            [
                format_size(m.size) if m.size != last_size else "",
                m.implementation,
                format_rate(m.mb_per_s),
                format_count(m.calls_per_s) if m.size < SHORT else "",
                f"{100 * m.spread:.1f}%",
                f"{m.ratio_to_best_peer:.2f}x" if m.ratio_to_best_peer is not None else "",
            ]
        )
        last_size = m.size
    return table(
        ["size", "implementation", "MB/s", "calls/s", "spread", "vs best peer"],
        rows,
        [True, False, True, True, True, True],
    )


def scaling_table(measurements: Sequence[Measurement]) -> str:
    one = {m.implementation: m.mb_per_s for m in measurements if m.threads == 1}
    rows = []
    order = {
        label: i for i, label in enumerate(dict.fromkeys(m.implementation for m in measurements))
    }
    for m in sorted(measurements, key=lambda m: (order[m.implementation], m.threads)):
        base = one.get(m.implementation)
        rows.append(
            [
                m.implementation,
                str(m.threads),
                format_rate(m.mb_per_s),
                f"{m.mb_per_s / base:.2f}x" if base else "",
                f"{100 * m.spread:.1f}%",
                f"{m.ratio_to_best_peer:.2f}x" if m.ratio_to_best_peer is not None else "",
            ]
        )
    return table(
        ["implementation", "threads", "MB/s", "vs 1 thread", "spread", "vs best peer"], rows
    )


def events_lines(events: Sequence[Event]) -> list[str]:
    lines = []
    for e in events:
        where = ", ".join(
            x
            for x in (
                format_size(e.size) if e.size is not None else "",
                f"{e.threads} threads" if e.threads and e.threads > 1 else "",
            )
            if x
        )
        lines.append(
            f"  {e.kind.upper()}: {e.algorithm} {e.implementation}{' at ' + where if where else ''}: {e.reason}"
        )
    return lines


def write_json(path: Path, document: dict[str, Any]) -> None:
    """Writes the run's JSON (whole or not at all: a temporary file renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1, allow_nan=False, default=_json_default)
        f.write("\n")
    tmp.replace(path)


def _json_default(value: object) -> object:
    raise TypeError(f"not JSON serializable: {type(value).__name__}")
