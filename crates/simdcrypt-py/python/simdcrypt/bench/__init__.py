"""``simdcrypt bench``: one reproducible comparison of simdcrypt with every peer.

Run ``python -m simdcrypt.bench --help`` (or ``simdcrypt bench --help`` / the
``simdcrypt-bench`` script). Modules: ``adapters`` (one adapter per algorithm and
implementation), ``runner`` (verification, interleaved timing), ``report`` (tables, JSON),
``paper`` (--paper tables), ``plots`` (PNG, imported only with --plot), ``progress``,
``machine``.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the benchmark with the command-line arguments ``argv`` (default: sys.argv)."""
    import sys

    from .cli import main as run

    try:
        return run(argv)
    except KeyboardInterrupt:
        print("\nsimdcrypt bench: interrupted", file=sys.stderr)
        return 130
