"""``python -m simdcrypt.dask sum [-a ALGO] [--scheduler ADDRESS] [--checkpoint FILE] [--tag]
URL...``: the lines ``simdcrypt sum`` prints, hashed on a Dask cluster (a LocalCluster
without --scheduler). Exit status 0 if every file was hashed, 1 if some could not be (each
reported on standard error, as ``simdcrypt sum`` does), 2 for a usage error."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from . import HashFilesError, format_manifest, hash_file, hash_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simdcrypt.dask", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sum", help="print checksums of files (fsspec URLs), as `simdcrypt sum` does")
    s.add_argument("urls", nargs="+", metavar="URL", help="files: local paths or fsspec URLs; glob patterns are expanded")
    s.add_argument("-a", "--algorithm", default="blake3", help="hash algorithm (default blake3)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler address (default: start a LocalCluster)")
    s.add_argument("--checkpoint", metavar="FILE", help="resume from / record progress in FILE (one URL only)")
    s.add_argument("--tag", action="store_true", help="BSD-style lines: LABEL (NAME) = HEX")
    s.add_argument("--key-file", metavar="FILE", help="the key (raw bytes) for keyed BLAKE3 or HighwayHash")
    s.add_argument("--length", type=int, help="BLAKE3 output length in bytes")
    s.add_argument("--part-size", type=int, help="bytes per task, a power of two (default: from the file size, 64 to 256 MiB; see docs/dask.md)")
    s.add_argument("--progress", action="store_true", help="show dask's progress bar (on standard error)")
    args = parser.parse_args(argv)

    if args.checkpoint and len(args.urls) != 1:
        parser.error("--checkpoint takes one URL")
    key = None
    if args.key_file:
        with open(args.key_file, "rb") as f:
            key = f.read()

    import distributed

    dist: Any = distributed  # partly untyped

    with contextlib.ExitStack() as stack:
        if args.scheduler:
            client: Any = stack.enter_context(dist.Client(args.scheduler))
        else:
            cluster = stack.enter_context(dist.LocalCluster(processes=True))
            client = stack.enter_context(dist.Client(cluster))
        common: dict[str, Any] = dict(
            client=client, key=key, length=args.length, part_size=args.part_size, progress=args.progress
        )
        ok = True
        with contextlib.redirect_stdout(sys.stderr):  # the progress bar; the sums go to stdout below
            try:
                if args.checkpoint:
                    url = args.urls[0]
                    results = {url: hash_file(url, args.algorithm, checkpoint=args.checkpoint, **common)}
                else:
                    results = hash_files(args.urls, args.algorithm, **common)
            except HashFilesError as e:
                results, ok = e.results, False
                for err in e.errors.values():
                    print(f"simdcrypt: {err}", file=sys.stderr)
            except (OSError, ValueError, RuntimeError) as e:
                print(f"simdcrypt: {e}", file=sys.stderr)
                return 1
    sys.stdout.write(format_manifest(results, algorithm=args.algorithm, tag=args.tag))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
