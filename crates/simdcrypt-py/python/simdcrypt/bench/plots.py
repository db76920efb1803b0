"""PNG plots (matplotlib, Agg backend): throughput against input size per algorithm,
and throughput against threads for the algorithms that scale. matplotlib is imported only
here, when --plot is given."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .adapters import Availability
from .runner import Measurement, format_size


def require_matplotlib() -> Any:
    """The pyplot module on the Agg backend; ImportError if matplotlib is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _size_label(value: float, _position: object) -> str:
    return format_size(int(value)) if value >= 1 else ""


def write_all(
    directory: Path, measurements: Sequence[Measurement], avails: Sequence[Availability]
) -> list[Path]:
    plt = require_matplotlib()
    from matplotlib.ticker import FuncFormatter

    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for avail in avails:
        name = avail.spec.name
        mine = [m for m in measurements if m.algorithm == name]
        # The size ladder: one thread, several sizes.
        ladder = [m for m in mine if m.series == "sizes" and m.threads == 1]
        labels = list(dict.fromkeys(m.implementation for m in ladder))
        if len({m.size for m in ladder}) >= 2:
            fig, ax = plt.subplots(figsize=(8, 5))
            for label in labels:
                points = sorted(
                    {m.size: m for m in ladder if m.implementation == label}.values(),
                    key=lambda m: m.size,
                )
                ax.plot(
                    [m.size for m in points],
                    [m.mb_per_s for m in points],
                    marker="o",
                    linestyle="-" if points and points[0].is_simdcrypt else "--",
                    label=label,
                )
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(_size_label))
            ax.set_xlabel("input size")
            ax.set_ylabel("MB/s (median)")
            ax.set_title(f"{avail.spec.title}: throughput, one thread")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
            fig.tight_layout()
            path = directory / f"throughput-{name}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
        # Thread scaling: sizes measured with more than one thread count.
        at = [m for m in mine if m.series == "threads"]
        if avail.spec.scaling and any(m.threads > 1 for m in at):
            size = max(m.size for m in at)
            at = [m for m in at if m.size == size]
            fig, ax = plt.subplots(figsize=(8, 5))
            top = max(m.threads for m in at)
            for label in dict.fromkeys(m.implementation for m in at):
                points = sorted(
                    (m for m in at if m.implementation == label), key=lambda m: m.threads
                )
                if len(points) == 1 and points[0].threads == 1:
                    # No threads option: its single-thread rate as a flat reference line.
                    ax.plot(
                        [1, top],
                        [points[0].mb_per_s] * 2,
                        linestyle=":",
                        label=f"{label} (1 thread)",
                    )
                else:
                    ax.plot(
                        [m.threads for m in points],
                        [m.mb_per_s for m in points],
                        marker="o",
                        label=label,
                    )
            ax.set_xlabel("threads")
            ax.set_ylabel("MB/s (median)")
            ax.set_xticks(range(1, top + 1))
            ax.set_ylim(bottom=0)
            ax.set_title(f"{avail.spec.title}: thread scaling at {format_size(size)}")
            ax.grid(True, alpha=0.3)
            ax.legend()
            fig.tight_layout()
            path = directory / f"threads-{name}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
    return written
