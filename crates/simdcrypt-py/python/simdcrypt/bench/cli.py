"""``simdcrypt bench`` / ``python -m simdcrypt.bench``: the command line and the run."""

from __future__ import annotations

import argparse
import datetime
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from . import adapters, machine, report
from .adapters import ALGORITHMS, BY_NAME, Availability, Implementation
from .progress import Progress
from .runner import MiB, InputBuffer, Measurement, Runner, Settings, format_size

SCHEMA = "simdcrypt-bench/1"
# The default ladder: 8 B, 64 B, ..., 128 MiB, 1 GiB (factor 8).
LADDER = [8 << (3 * k) for k in range(10)]
QUICK_SIZES = [8, 1024, 64 * 1024, MiB, 4 * MiB]

_SUFFIXES = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gib": 1 << 30,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
}


def parse_size(text: str) -> int:
    """``4096``, ``4K``/``4KiB`` (binary), ``100MB`` (decimal), ``1G``."""
    t = text.strip().lower().replace(" ", "")
    digits = len(t) - len(t.lstrip("0123456789."))
    number, suffix = t[:digits], t[digits:]
    if not number or suffix not in _SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: expected a number with an optional suffix "
            "K, M, G (binary) or KB, MB, GB (decimal), e.g. 64K or 100MB"
        )
    value = int(float(number) * _SUFFIXES[suffix])
    if value <= 0:
        raise argparse.ArgumentTypeError(f"invalid size {text!r}: must be positive")
    return value


def parse_sizes(text: str) -> list[int]:
    return [parse_size(part) for part in text.split(",") if part.strip()]


def parse_threads(text: str) -> list[int]:
    """``1,2,4`` or a range ``1-8``."""
    counts: list[int] = []
    try:
        for part in text.split(","):
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                counts.extend(range(low, high + 1))
            elif part.strip():
                counts.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid thread counts {text!r}: expected e.g. 1,2,4 or 1-8"
        ) from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"invalid thread counts {text!r}: counts must be >= 1")
    return sorted(set(counts))


def parse_algorithms(text: str) -> list[str]:
    names = [n.strip().lower().replace("-", "_") for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown algorithm {', '.join(unknown)}; expected some of: {', '.join(BY_NAME)}"
        )
    return names


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="simdcrypt bench",
        description=(
            "Measure simdcrypt against the Python packages you would otherwise use, on this "
            "machine: the same inputs, outputs verified before timing, interleaved "
            "repetitions, median throughput, spread and the ratio to the best peer."
        ),
        epilog=(
            "Exit status: 0 success, 1 an output did not verify or an implementation failed, "
            "2 usage error. Sizes take K/M/G (binary) or KB/MB/GB (decimal) suffixes."
        ),
    )
    p.add_argument(
        "-a",
        "--algorithms",
        type=parse_algorithms,
        default=None,
        metavar="LIST",
        help=f"comma list of algorithms (default: all): {', '.join(BY_NAME)}",
    )
    p.add_argument(
        "--sizes",
        type=parse_sizes,
        default=None,
        metavar="LIST",
        help="input sizes (default: 8 B, 64 B, ... 1 GiB, factor 8)",
    )
    p.add_argument(
        "--threads",
        type=parse_threads,
        default=None,
        metavar="LIST",
        help="thread counts of the scaling run (default: 1 to the number of cores)",
    )
    p.add_argument(
        "--scaling-size",
        type=parse_size,
        default=None,
        metavar="SIZE",
        help="input size of the thread-scaling run (default 256M, --quick 8M)",
    )
    p.add_argument("--no-scaling", action="store_true", help="skip the thread-scaling run")
    p.add_argument(
        "-r",
        "--reps",
        type=int,
        default=None,
        metavar="N",
        help="repetitions per implementation and point (default 5, --quick 3)",
    )
    p.add_argument(
        "--min-time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="minimum duration of one sample (default 0.1, --quick 0.02)",
    )
    p.add_argument(
        "--max-call",
        type=float,
        default=None,
        metavar="SECONDS",
        help="skip an implementation at sizes where one call would take longer "
        "(predicted from the previous size; default 10, --quick 0.5)",
    )
    p.add_argument(
        "--memory-budget",
        type=parse_size,
        default=None,
        metavar="SIZE",
        help="skip sizes needing more memory (default: half of MemAvailable)",
    )
    p.add_argument(
        "--backends",
        action="store_true",
        help="time every backend simdcrypt supports here, not only the selected one",
    )
    p.add_argument(
        "--peers",
        default=None,
        metavar="LIST",
        help="only these peers (names as in the tables); default: all installed",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="small sizes and few repetitions: a check that runs in under a minute",
    )
    p.add_argument(
        "--paper",
        action="store_true",
        help="print the original papers' tables (BLAKE3 vs threads, BLAKE3 vs SHA-2/3, "
        "Salsa20 cycles/byte, GOST hashes) with this machine's figures",
    )
    p.add_argument(
        "--paper-scale",
        type=int,
        default=None,
        metavar="N",
        help="divide the --paper sizes by N (default 1, --quick 16)",
    )
    p.add_argument(
        "--cpu-mhz",
        type=float,
        default=None,
        metavar="MHZ",
        help="CPU clock for cycles/byte (default: /proc/cpuinfo)",
    )
    p.add_argument(
        "--json", type=Path, default=None, metavar="OUT", help="write all results as JSON"
    )
    p.add_argument(
        "--plot", type=Path, default=None, metavar="DIR", help="write PNG plots (needs matplotlib)"
    )
    progress = p.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show progress on stderr even when it is not a terminal",
    )
    progress.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress display"
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the algorithms and which implementations are available, then exit",
    )
    return p


def _settings(args: argparse.Namespace) -> Settings:
    available = machine.memory_available()
    budget = args.memory_budget or (available // 2 if available else 4 << 30)
    return Settings(
        reps=args.reps or (3 if args.quick else 5),
        min_time=args.min_time if args.min_time is not None else (0.02 if args.quick else 0.1),
        max_call=args.max_call if args.max_call is not None else (0.5 if args.quick else 10.0),
        memory_budget=budget,
    )


def _import_simdcrypt() -> ModuleType | None:
    try:
        import simdcrypt
    except ImportError:
        return None
    return simdcrypt


def _round(size: int, unit: int) -> int:
    return max(unit, size - size % unit)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.reps is not None and args.reps < 1:
        parser.error("--reps must be at least 1")
    if args.paper_scale is not None and args.paper_scale < 1:
        parser.error("--paper-scale must be at least 1")
    if args.plot is not None:
        from . import plots

        try:
            plots.require_matplotlib()
        except ImportError as error:
            print(
                f"simdcrypt bench: --plot needs matplotlib ({error}); "
                "install it with: pip install matplotlib",
                file=sys.stderr,
            )
            return 2
    settings = _settings(args)
    progress = Progress(args.progress)
    sc = _import_simdcrypt()
    names = args.algorithms or [spec.name for spec in ALGORITHMS]
    peers = [p.strip() for p in args.peers.split(",")] if args.peers else None
    known_peers = {peer.name for spec in ALGORITHMS for peer in spec.peers}
    if peers is not None and not set(peers) <= known_peers:
        unknown = ", ".join(sorted(set(peers) - known_peers))
        parser.error(f"unknown peer {unknown}; expected some of: {', '.join(sorted(known_peers))}")
    avails = [
        adapters.available(BY_NAME[n], sc, all_backends=args.backends, peers=peers) for n in names
    ]

    out = sys.stdout
    clock = machine.clock(args.cpu_mhz)
    info = machine.describe()
    command = "python -m simdcrypt.bench " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    print(f"command: {command}", file=out)
    print(
        f"machine: {info['cpu_model']}, {info['cores']} cores, {info['os']}, "
        f"Python {info['python']}, simdcrypt {getattr(sc, '__version__', 'not installed')}",
        file=out,
    )
    print(f"cpu flags: {' '.join(info['cpu_flags']) or 'unknown'}", file=out)
    print(
        f"memory budget: {settings.memory_budget / 2**30:.1f} GiB; "
        f"reps {settings.reps}, min sample {settings.min_time:g} s, max call {settings.max_call:g} s",
        file=out,
    )
    print(file=out)
    for avail in avails:
        print(f"{avail.spec.name}: {avail.spec.title}", file=out)
        for line in report.availability_lines(avail):
            print(line, file=out)
    if args.list:
        return 0
    print(file=out, flush=True)

    runner = Runner(settings, InputBuffer(0), progress)
    runner.on_event = lambda e: progress.note("\n".join(report.events_lines([e])))
    ok_avails: list[tuple[Availability, list[Implementation]]] = []
    for avail in avails:
        if avail.spec.simdcrypt_builder is not None and not avail.simdcrypt_built:
            runner.event(
                "skipped",
                "simdcrypt",
                avail.spec.name,
                None,
                None,
                "simdcrypt is not built with this algorithm; its peers are not timed",
            )
            continue
        impls = runner.check_kats(avail.implementations, avail.spec.kats)
        if len(impls) == 1 and not avail.spec.kats:
            runner.event(
                "unverified",
                impls[0].label,
                avail.spec.name,
                None,
                None,
                "timed without verification: no peer installed and no known answer",
            )
        if impls:
            ok_avails.append((avail, impls))

    paper_tables: list[dict[str, Any]] = []
    if args.paper:
        from . import paper

        paper_tables = paper.run(
            runner,
            ok_avails,
            quick=args.quick,
            scale=args.paper_scale,
            threads=args.threads,
            clock=clock,
            out=out,
        )
    else:
        _run_ladder_and_scaling(args, runner, ok_avails, out)
    progress.finish()

    problems = [e for e in runner.events if e.kind in ("mismatch", "error")]
    skipped = [e for e in runner.events if e.kind in ("skipped", "unverified")]
    if skipped or problems:
        print("\nNot measured:" if not problems else "\nProblems and omissions:", file=out)
        for line in report.events_lines(skipped + problems):
            print(line, file=out)

    document: dict[str, Any] = {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "machine": info,
        "clock": {"mhz": clock.mhz, "source": clock.source},
        "settings": {
            "reps": settings.reps,
            "min_time_s": settings.min_time,
            "max_call_s": settings.max_call,
            "memory_budget": settings.memory_budget,
            "quick": args.quick,
            "backends": args.backends,
            "paper": args.paper,
        },
        "simdcrypt": {
            "version": getattr(sc, "__version__", None),
            "backends": sc.backends() if sc is not None else None,
        },
        "algorithms": {
            a.spec.name: {
                "title": a.spec.title,
                "implementations": [
                    {"label": i.label, "name": i.name, "backend": i.backend, "version": i.version}
                    for i in a.implementations
                ],
                "unavailable": [{"name": n, "reason": r} for n, r in a.unavailable],
                "note": a.spec.note,
            }
            for a in avails
        },
        "results": [m.to_json() for m in runner.measurements],
        "events": [e.to_json() for e in runner.events],
        "paper": paper_tables,
    }
    if args.json is not None:
        report.write_json(args.json, document)
        print(f"\nJSON: {args.json}", file=out)
    if args.plot is not None:
        from . import plots

        written = plots.write_all(args.plot, runner.measurements, avails)
        print(f"plots: {', '.join(str(p) for p in written) or 'none (nothing measured)'}", file=out)
    if problems:
        print(f"\nFAILED: {len(problems)} verification failure(s) or error(s), see above", file=out)
        return 1
    return 0


def scaling_ratios(measurements: Sequence[Measurement]) -> None:
    """Ratios to the best peer in the thread-scaling run, where a peer without a threads
    option (timed at one thread only) counts with its one-thread figure: that is what its
    users get on any number of cores."""
    peers = [m for m in measurements if not m.is_simdcrypt]
    for m in measurements:
        if not m.is_simdcrypt:
            continue
        best: dict[str, Measurement] = {}
        for p in peers:
            if p.threads <= m.threads and (
                p.implementation not in best or p.threads > best[p.implementation].threads
            ):
                best[p.implementation] = p
        if best:
            m.ratio_to_best_peer = m.mb_per_s / max(p.mb_per_s for p in best.values())


def _run_ladder_and_scaling(
    args: argparse.Namespace,
    runner: Runner,
    ok_avails: list[tuple[Availability, list[Implementation]]],
    out: Any,
) -> None:
    sizes = args.sizes or (QUICK_SIZES if args.quick else LADDER)
    threads = args.threads or list(range(1, machine.cores() + 1))
    scaling_size = args.scaling_size or (8 * MiB if args.quick else 256 * MiB)
    # (availability, implementations, size, threads, is the scaling run)
    plan: list[tuple[Availability, list[Implementation], int, int, bool]] = []
    for avail, impls in ok_avails:
        unit = avail.spec.unit
        for size in sorted({_round(s, unit) for s in sizes}):
            plan.append((avail, impls, size, 1, False))
        if avail.spec.scaling and not args.no_scaling:
            for t in threads:
                # Implementations without a threads option appear at 1 thread only.
                chosen = [i for i in impls if i.threads or t == 1]
                plan.append((avail, chosen, _round(scaling_size, unit), t, True))
    fitting = [
        p
        for p in plan
        if p[2] + runner.memory_needed(p[1], p[2], p[0].spec.output_factor)
        <= runner.settings.memory_budget
    ]
    runner.buffer = InputBuffer(max((p[2] for p in fitting), default=0))
    runner.progress.begin(len(plan))
    # Each algorithm's tables are printed as soon as its points are done.
    for avail, _ in ok_avails:
        name = avail.spec.name
        by_size: list[Measurement] = []
        scaling: list[Measurement] = []
        for _, impls, size, t, is_scaling in (p for p in plan if p[0] is avail):
            runner.progress.step(f"{name} {format_size(size)}{f' x{t} threads' if t > 1 else ''}: ")
            results = runner.run_point(
                impls,
                name,
                size,
                t,
                output_factor=avail.spec.output_factor,
                series="threads" if is_scaling else "sizes",
            )
            (scaling if is_scaling else by_size).extend(results)
        runner.progress.finish()
        scaling_ratios(scaling)
        print(f"== {avail.spec.title} [{name}], one thread ==", file=out)
        print(report.ladder_table(by_size) if by_size else "  (nothing measured)", file=out)
        if scaling:
            print(f"\n-- {name}: threads at {format_size(scaling[0].size)} --", file=out)
            print(report.scaling_table(scaling), file=out)
        print(file=out, flush=True)
