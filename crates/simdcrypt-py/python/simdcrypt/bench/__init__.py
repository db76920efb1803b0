"""``simdcrypt bench``: one reproducible comparison of simdcrypt with every peer.

Run ``python -m simdcrypt.bench --help`` (or ``simdcrypt bench --help`` / the
``simdcrypt-bench`` script). Modules: ``adapters`` (one adapter per algorithm and
implementation), ``runner`` (verification, interleaved timing), ``report`` (tables, JSON),
``paper`` (--paper tables), ``plots`` (PNG, imported only with --plot), ``progress``,
``machine``.

How the harness is built
------------------------

`python -m simdcrypt.bench`, the `simdcrypt-bench` script and `simdcrypt bench` all run
`cli.main`. `adapters.py` holds one small adapter per (algorithm, implementation): an
`AlgorithmSpec` per algorithm with simdcrypt's call (as the issues specify the Python API),
its `backends()` key, known answers, and `PeerSpec`s for the peers; availability ("not
built", "missing: pip install ...") is decided there. `runner.py` verifies every output
against the first implementation's (and the known answers) before timing, calibrates loop
counts, takes interleaved repetitions with a rotating order, and skips, with a recorded
reason, sizes over the memory budget or predicted to exceed `--max-call`; one input buffer
serves every size. `report.py` (tables, JSON), `paper.py` (`--paper`), `plots.py`
(matplotlib on Agg, imported only for `--plot`), `progress.py` (stderr, terminals only),
`machine.py` (CPU, cores, clock for cycles/byte). Tests: `tests/test_bench.py`.
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
