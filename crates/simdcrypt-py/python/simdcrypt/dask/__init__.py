"""Hashing files on a Dask cluster: ``simdcrypt.dask``.

BLAKE3 files larger than one part are split into power-of-two-aligned subtrees of the
BLAKE3 tree; each worker reads its own byte range through fsspec (the data never passes
through the client) and returns a 32-byte chaining value (``simdcrypt.blake3_subtree``),
and the client merges them up the tree (``simdcrypt.blake3_merge``). The digest is the one
``b3sum`` and ``simdcrypt.blake3`` give, in every mode (hash, keyed, derive-key) and for
any output length. Hashes that cannot be split (SHA-256, Streebog, GOST R 34.11-94,
HighwayHash: each block depends on the one before) run as one task per file; small files
are grouped into tasks.

Tasks are pure and named by what they read (URL, offset, length, file size and modification
time, mode), so a lost worker costs time only: the scheduler reruns its tasks.

Needs ``dask[distributed]`` and ``fsspec``: ``pip install 'simdcrypt[dask]'``.
See docs/dask.md.

Files
-----

`python/simdcrypt/dask/` (pure Python, the `[dask]` extra): hashing files on a Dask cluster
(docs/dask.md): BLAKE3 parts hashed by the workers from their own reads (fsspec; local
files memory-mapped) and merged on the client, one task per file for the other algorithms,
checkpoints, manifests, `merkle_root`, the content-defined chunks of one file
(`chunk_file`, `xet_hash_file`: candidates per part, cuts chosen on the client, digests per
part); `__main__.py` is `python -m simdcrypt.dask sum`;
`_checkpoint.py` is the checkpoint file (identity, finished parts, written whole).
"""

from __future__ import annotations

import contextlib
import glob as _glob
import json
import mmap
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Union

try:
    import fsspec  # type: ignore[import-untyped,unused-ignore]
    import distributed as _distributed_module
    from dask.base import tokenize
    from distributed.diagnostics import progressbar as _progressbar_module
    from fsspec.implementations.local import LocalFileSystem  # type: ignore[import-untyped,unused-ignore]
except ImportError as e:  # pragma: no cover - exercised only without dask
    raise ImportError(
        f"simdcrypt.dask needs dask[distributed] and fsspec ({e}); install them with "
        "pip install 'simdcrypt[dask]'"
    ) from e

import simdcrypt

from ._checkpoint import CHUNK_LEN
from ._checkpoint import Checkpoint as _Checkpoint
from ._checkpoint import checkpoint_part_size as _checkpoint_part_size

# distributed's functions are partly untyped: used through Any.
_distributed: Any = _distributed_module
_progressbar: Any = _progressbar_module

__all__ = [
    "DEFAULT_PART_SIZE",
    "MAX_DEFAULT_PART_SIZE",
    "HashFilesError",
    "chunk_file",
    "default_part_size",
    "format_manifest",
    "hash_file",
    "hash_files",
    "merkle_root",
    "write_manifest",
    "xet_hash_file",
]

#: The smallest default part (bytes of input per task; see :func:`default_part_size`), and
#: the size of the groups of small files: a power of two, so parts are whole BLAKE3 subtrees.
DEFAULT_PART_SIZE = 64 << 20
#: The largest default part: a large file on many workers wants many parts (the last
#: round of tasks leaves workers idle), more than it wants fewer tasks.
MAX_DEFAULT_PART_SIZE = 256 << 20
#: How many parts the default part size aims at for a large file.
_DEFAULT_PARTS = 16
#: How much a task reads at a time for hashes that cannot be split.
_READ_LEN = 8 << 20
#: How much of a part a task holds in memory (reads or maps) at once:
#: a power of two of chunks, no larger than the smallest default part.
_WINDOW_LEN = 64 << 20
_FINGERPRINT_CONTEXT = "simdcrypt.dask checkpoint key fingerprint v1"

# The BSD-style labels of `simdcrypt sum --tag` (the library's registry, crates/simdcrypt/src/*/algorithm.rs).
_BSD_LABELS = {
    "blake3": "BLAKE3",
    "sha256": "SHA256",
    "highwayhash64": "HIGHWAYHASH64",
    "highwayhash128": "HIGHWAYHASH128",
    "highwayhash256": "HIGHWAYHASH256",
    "streebog256": "GOST12-256",
    "streebog512": "GOST12-512",
    "gost94": "GOST94-CRYPTOPRO",
    "gost94-test": "GOST94",
}

Url = Union[str, "os.PathLike[str]"]


class HashFilesError(Exception):
    """Some files of :func:`hash_files` could not be hashed; raised after all the others
    finished. ``results`` holds the digests that were computed, ``errors`` the exception of
    each file that failed (by the name it has in the results)."""

    def __init__(self, results: dict[str, bytes], errors: dict[str, BaseException]) -> None:
        self.results = results
        self.errors = errors
        lines = "; ".join(str(err) if name in str(err) else f"{name}: {err}" for name, err in errors.items())
        super().__init__(f"{len(errors)} of {len(errors) + len(results)} files could not be hashed: {lines}")


# --- what runs on the workers: pure functions of their arguments ----------------------


def _file_identity(fs: Any, path: str) -> tuple[int, str]:
    """The size and a version token (the modification time, or the file system's own
    version key) of a file; FileNotFoundError naming it if it is missing."""
    info = fs.info(path)
    if info.get("type") == "directory":
        raise IsADirectoryError(f"{path}: is a directory")
    size = int(info["size"])
    for field in ("mtime", "LastModified", "last_modified", "ETag", "etag", "created"):
        if field in info:
            return size, f"{field}={info[field]}"
    return size, f"ukey={fs.ukey(path)}"


def _checked_fs(url: str, size: int, version: str, storage_options: Mapping[str, Any]) -> tuple[Any, str]:
    """The file system and path of ``url``, after checking it is still the file the plan
    was made for (its size and version)."""
    fs, path = fsspec.core.url_to_fs(url, **storage_options)
    if _file_identity(fs, path) != (size, version):
        raise RuntimeError(f"{url}: the file changed while it was being read (size or modification time)")
    return fs, path


def _open_checked(url: str, size: int, version: str, storage_options: Mapping[str, Any]) -> Any:
    """Opens ``url`` after checking it is still the file the plan was made for."""
    fs, path = _checked_fs(url, size, version, storage_options)
    return fs.open(path, "rb")


@contextlib.contextmanager
def _read_range(
    url: str, offset: int, length: int, size: int, version: str, storage_options: Mapping[str, Any]
) -> Iterator[Any]:
    """The bytes ``offset .. offset + length`` of the file, as a buffer valid inside the
    ``with``. A local file is memory-mapped (hashed straight from the page cache: reading a
    64 MiB part into a new bytes object cost several times the hashing); other file systems
    are read."""
    fs, path = _checked_fs(url, size, version, storage_options)
    if length and isinstance(fs, LocalFileSystem) and offset % mmap.ALLOCATIONGRANULARITY == 0:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), length, offset=offset, access=mmap.ACCESS_READ) as m:
            yield m
        return
    yield _read_at(fs, path, url, offset, length)


def _windows(
    url: str, offset: int, length: int, size: int, version: str, storage_options: Mapping[str, Any]
) -> Iterator[tuple[int, Any]]:
    """The bytes ``offset .. offset + length`` as (offset, buffer) pairs, each buffer valid
    until the next is asked for, in windows of ``_WINDOW_LEN`` bytes, so that a large part
    never sits in a worker's memory whole. A local file is memory-mapped a window at a time
    (no copy: the pages are the page cache's, but a mapped page counts in the worker's
    resident set, so a part mapped whole made the worker's peak follow the part size, which
    grows with the file: docs/memory.md); other file systems are read. A window is a power
    of two of chunks, aligned like the part: a whole subtree."""
    fs, path = _checked_fs(url, size, version, storage_options)
    end = offset + length
    if length and isinstance(fs, LocalFileSystem) and offset % mmap.ALLOCATIONGRANULARITY == 0:
        with open(path, "rb") as f:
            at = offset
            while at < end:
                n = min(_WINDOW_LEN, end - at)
                with mmap.mmap(f.fileno(), n, offset=at, access=mmap.ACCESS_READ) as m:
                    yield at, m
                at += n
        return
    at = offset
    while True:
        n = min(_WINDOW_LEN, end - at)
        data = _read_at(fs, path, url, at, n)
        yield at, data
        at += n
        if at >= end:
            return


def _read_at(fs: Any, path: str, url: str, offset: int, length: int) -> bytes:
    """``length`` bytes at ``offset``: a ranged read (``cat_file``: one request on object
    stores; no file position shared with other tasks, as an open memory:// file is)."""
    data = fs.cat_file(path, start=offset, end=offset + length) if length else b""
    if len(data) != length:
        raise RuntimeError(f"{url}: expected {length} bytes at offset {offset}, read {len(data)}")
    return bytes(data)


def _subtree_task(
    url: str, offset: int, length: int, size: int, version: str, mode: dict[str, Any], storage_options: Mapping[str, Any]
) -> bytes:
    """The chaining value of one part of a BLAKE3 input: of its windows' subtrees merged
    (a window is a whole subtree; see _windows)."""
    cvs = [
        simdcrypt.blake3_subtree(data, offset=at, **mode)
        for at, data in _windows(url, offset, length, size, version, storage_options)
    ]
    return cvs[0] if len(cvs) == 1 else _merge_parts(cvs, mode, 32, root=False)


def _hash_stream(f: Any, algorithm: str, mode: dict[str, Any], length: int | None) -> bytes:
    h: Any = simdcrypt.new(algorithm, **mode)
    while True:
        block = f.read(_READ_LEN)
        if not block:
            break
        h.update(block)
    return bytes(h.digest(length) if length is not None else h.digest())


def _whole_files_task(
    files: list[tuple[str, int, str]], algorithm: str, mode: dict[str, Any], length: int | None, storage_options: Mapping[str, Any]
) -> list[tuple[str, bytes | None, str | None]]:
    """Hashes whole files, one after the other: (url, digest, None) or (url, None, error)."""
    out: list[tuple[str, bytes | None, str | None]] = []
    for url, size, version in files:
        try:
            with _open_checked(url, size, version, storage_options) as f:
                out.append((url, _hash_stream(f, algorithm, mode, length), None))
        except Exception as e:  # reported per file; the others still finish
            out.append((url, None, f"{type(e).__name__}: {e}"))
    return out


def _merkle_task(
    url: str, offset: int, length: int, size: int, version: str, depth: int, storage_options: Mapping[str, Any]
) -> bytes:
    with _read_range(url, offset, length, size, version, storage_options) as data:
        return simdcrypt.merkle_root(data, depth=depth)


# --- the client side --------------------------------------------------------------------


@contextlib.contextmanager
def _client(client: Any) -> Iterator[Any]:
    """The given client, else the current one, else a LocalCluster for this call."""
    if client is not None:
        yield client
        return
    try:
        yield _distributed.get_client()
        return
    except ValueError:
        pass
    with _distributed.LocalCluster(processes=True) as cluster, _distributed.Client(cluster) as local:
        yield local


def _mode(algorithm: str, key: bytes | None, derive_key_context: str | None) -> dict[str, Any]:
    mode: dict[str, Any] = {}
    if key is not None:
        mode["key"] = bytes(key)
    if derive_key_context is not None:
        mode["derive_key_context"] = derive_key_context
    simdcrypt.new(algorithm, **mode)  # the options are checked here, before any task runs
    return mode


def _mode_name(mode: Mapping[str, Any]) -> str:
    """The mode as a checkpoint records it: a keyed mode by a fingerprint of its key."""
    if "key" in mode:
        return "keyed:" + simdcrypt.blake3(mode["key"], derive_key_context=_FINGERPRINT_CONTEXT).hexdigest()[:32]
    if "derive_key_context" in mode:
        return "derive_key:" + str(mode["derive_key_context"])
    return "hash"


def _algorithm_name(algorithm: str) -> str:
    name = algorithm.lower()
    if name not in simdcrypt.algorithms_available:
        raise ValueError(f"unknown algorithm {algorithm!r}; available: {', '.join(sorted(simdcrypt.algorithms_available))}")
    return name


def default_part_size(file_size: int) -> int:
    """The part size used when none is given: a function of the file's size only (never of
    the cluster), so that a rerun with a checkpoint splits the file the same way.

    About ``_DEFAULT_PARTS`` parts a file, as a power of two of at least
    :data:`DEFAULT_PART_SIZE` and at most :data:`MAX_DEFAULT_PART_SIZE`: each task costs
    the scheduler and the worker a millisecond or two besides hashing, which fewer, larger
    parts spread over more bytes, while a large file still has enough parts to keep many
    workers busy."""
    target = -(-max(int(file_size), 1) // _DEFAULT_PARTS)
    size = 1 << (target - 1).bit_length()
    return min(max(size, DEFAULT_PART_SIZE), MAX_DEFAULT_PART_SIZE)


def _part_size(part_size: int | None, file_size: int = 0) -> int:
    size = default_part_size(file_size) if part_size is None else int(part_size)
    if size < CHUNK_LEN or size & (size - 1):
        raise ValueError(f"part_size must be a power of two of at least {CHUNK_LEN} bytes, got {size}")
    return size


def _for_workers(url: str) -> str:
    """The URL the workers open: a relative local path made absolute (workers do not share
    the client's working directory; a local path must be on a file system they all see)."""
    if "://" in url or os.path.isabs(url):
        return url
    return os.path.abspath(url)


def _one_file(urlpath: Url, storage_options: Mapping[str, Any]) -> tuple[str, int, str]:
    """The URL the workers open for one file, with its size and version (see
    _file_identity); FileNotFoundError naming the file if it is missing."""
    url = _for_workers(os.fspath(urlpath))
    fs, path = fsspec.core.url_to_fs(url, **storage_options)
    try:
        size, version = _file_identity(fs, path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{url}: no such file") from None
    return url, size, version


def _task_key(kind: str, *parts: Any) -> str:
    return f"simdcrypt-{kind}-{tokenize(*parts)}"


def _parts(url: str, offsets: Iterable[int], psize: int, size: int, version: str) -> list[tuple[str, int, int, int, str]]:
    """The parts at ``offsets`` of a file: (url, offset, length, size, version)."""
    return [(url, o, min(psize, size - o), size, version) for o in offsets]


def _submit_parts(
    c: Any, parts: Sequence[tuple[str, int, int, int, str]], mode: dict[str, Any], mode_name: str, opts: Mapping[str, Any]
) -> list[Any]:
    """One subtree task per part, all submitted in one message to the scheduler
    (``Client.map``: submitting them one by one costs the scheduler a graph update each)."""
    if not parts:
        return []
    k = len(parts)
    urls, offsets, lengths, sizes, versions = (list(column) for column in zip(*parts))
    keys = [_task_key("subtree", *part, mode_name) for part in parts]
    futures: list[Any] = c.map(
        _subtree_task, urls, offsets, lengths, sizes, versions, [mode] * k, [opts] * k, key=keys, pure=True
    )
    return futures


def _merge_parts(cvs: Sequence[bytes], mode: Mapping[str, Any], length: int, *, root: bool = True) -> bytes:
    """The root over the parts' chaining values: BLAKE3's left-balanced tree, whose splits
    fall on part boundaries because a part is a power-of-two number of chunks. With
    ``root=False``, the chaining value of the subtree the parts make (a part of a part)."""

    def node(lo: int, hi: int, root: bool) -> bytes:
        if hi - lo == 1:
            return cvs[lo]
        split = 1 << ((hi - lo - 1).bit_length() - 1)
        left, right = node(lo, lo + split, False), node(lo + split, hi, False)
        return simdcrypt.blake3_merge(left, right, root=root, length=length if root else 32, **mode)

    return node(0, len(cvs), root)


@contextlib.contextmanager
def _progress(futures: list[Any], enabled: bool) -> Iterator[None]:
    """dask.distributed's progress bar (on standard output, as dask draws it) in a thread,
    so that the caller can collect results (and write checkpoints) as they come."""
    if not enabled or not futures:
        yield
        return

    def show() -> None:
        with contextlib.suppress(Exception):  # a progress bar is never worth failing for
            _progressbar.progress(futures)

    thread = threading.Thread(target=show, daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join(timeout=5)


def hash_file(
    urlpath: Url,
    algorithm: str = "blake3",
    *,
    client: Any = None,
    key: bytes | None = None,
    derive_key_context: str | None = None,
    length: int | None = None,
    part_size: int | None = None,
    checkpoint: Url | None = None,
    progress: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> bytes:
    """The digest of one file (any fsspec URL: a local path, ``s3://...``, ``memory://...``)
    hashed on a Dask cluster.

    - algorithm, key, derive_key_context, length: as for :func:`simdcrypt.hash_file`.
    - client: a ``distributed.Client``; default: the current client, else a LocalCluster
      started (and closed) for this call.
    - part_size: bytes per task, a power of two; default: the part size of the existing
      ``checkpoint``, else :func:`default_part_size` of the file's size (64 to 256 MiB).
      BLAKE3 files larger than one part are split into parts hashed on the workers; other
      algorithms run as one task.
    - checkpoint: a local JSON file recording the finished parts (BLAKE3) or the result;
      a rerun hashes only what is missing. A checkpoint of another file, another version of
      it (size or modification time), another algorithm, mode, key or part size is refused
      with ValueError.
    - progress: show dask.distributed's progress bar.
    - storage_options: passed to fsspec.

    Raises FileNotFoundError (naming the file) and the errors of the tasks.
    """
    algorithm = _algorithm_name(algorithm)
    mode = _mode(algorithm, key, derive_key_context)
    _part_size(part_size)  # an invalid part size is refused before anything is read
    opts = dict(storage_options or {})
    url, size, version = _one_file(urlpath, opts)
    if part_size is None and checkpoint is not None:
        part_size = _checkpoint_part_size(checkpoint)
    psize = _part_size(part_size, size)
    out_len = 32 if length is None else int(length)
    if length is not None and algorithm != "blake3":
        raise ValueError(f"length applies to blake3 only, not {algorithm}")
    mode_name = _mode_name(mode)
    identity = {
        "url": url,
        "size": size,
        "file_version": version,
        "algorithm": algorithm,
        "mode": mode_name,
        "part_size": psize,
    }
    ckpt = _Checkpoint(checkpoint, identity) if checkpoint is not None else None

    with _client(client) as c:
        if algorithm != "blake3" or size <= psize:
            result_key = "default" if length is None else str(out_len)
            if ckpt is not None and result_key in ckpt.results:
                ckpt.save()  # hashed_this_run: 0
                return ckpt.results[result_key]
            fut = c.submit(
                _whole_files_task,
                [(url, size, version)],
                algorithm,
                mode,
                length,
                opts,
                key=_task_key("whole", url, size, version, algorithm, identity["mode"], length),
                pure=True,
            )
            with _progress([fut], progress):
                [(_, digest, error)] = fut.result()
            if error is not None:
                raise RuntimeError(f"{url}: {error}")
            assert digest is not None
            if ckpt is not None:
                ckpt.record_result(result_key, digest)
            return bytes(digest)

        offsets = list(range(0, size, psize))
        cvs = dict(ckpt.parts) if ckpt is not None else {}
        todo = [o for o in offsets if o not in cvs]
        futures = _submit_parts(c, _parts(url, todo, psize, size, version), mode, mode_name, opts)
        with _progress(futures, progress):
            if ckpt is None:
                # One request for all the results: fetching each as it finishes costs a
                # round trip through the scheduler per part, on the cores that hash.
                cvs.update(zip(todo, c.gather(futures)))
            else:
                # Results as they come, so that an interrupted run keeps what finished.
                at = {f.key: o for f, o in zip(futures, todo)}
                for batch in _distributed.as_completed(futures).batches():
                    done = {at[f.key]: cv for f, cv in zip(batch, c.gather(batch))}
                    cvs.update(done)
                    ckpt.record(done)
        if ckpt is not None and not futures:
            ckpt.save()
        return _merge_parts([cvs[o] for o in offsets], mode, out_len)


def _expand(urlpaths: str | Url | Iterable[Url], storage_options: Mapping[str, Any]) -> list[str]:
    """URLs as given, with glob patterns expanded (sorted); a pattern matching nothing is
    kept, so that it is reported as missing."""
    items = [urlpaths] if isinstance(urlpaths, (str, os.PathLike)) else list(urlpaths)
    out: list[str] = []
    for item in items:
        url = os.fspath(item)
        if not _glob.has_magic(url):
            out.append(url)
            continue
        fs, pattern = fsspec.core.url_to_fs(url, **storage_options)
        found = sorted(fs.glob(pattern))
        if not found:
            out.append(url)
        elif "://" in url:
            out.extend(fs.unstrip_protocol(p) for p in found)
        elif os.path.isabs(url):
            out.extend(found)
        else:
            out.extend(os.path.relpath(p) for p in found)
    return out


def hash_files(
    urlpaths: str | Url | Iterable[Url],
    algorithm: str = "blake3",
    *,
    client: Any = None,
    key: bytes | None = None,
    derive_key_context: str | None = None,
    length: int | None = None,
    part_size: int | None = None,
    progress: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> dict[str, bytes]:
    """The digests of many files (a list of URLs, glob patterns, or both), by URL, in the
    order given (patterns expanded in sorted order).

    BLAKE3 files larger than ``part_size`` (default: :func:`default_part_size` of each
    file) are split as in :func:`hash_file`; smaller files (and files of the other
    algorithms) are grouped into tasks of about ``part_size`` bytes (default
    :data:`DEFAULT_PART_SIZE`).
    Every file is attempted: if some cannot be hashed (missing, unreadable, changed while
    hashed), :class:`HashFilesError` is raised after all the others finished, carrying both
    the digests (``results``) and the errors by file (``errors``).
    """
    algorithm = _algorithm_name(algorithm)
    mode = _mode(algorithm, key, derive_key_context)
    psize = _part_size(part_size)
    opts = dict(storage_options or {})
    if length is not None and algorithm != "blake3":
        raise ValueError(f"length applies to blake3 only, not {algorithm}")
    out_len = 32 if length is None else int(length)
    mode_name = _mode_name(mode)
    urls = list(dict.fromkeys(_expand(urlpaths, opts)))
    errors: dict[str, BaseException] = {}
    planned: dict[str, tuple[int, str]] = {}
    for url in urls:
        fs, path = fsspec.core.url_to_fs(_for_workers(url), **opts)
        try:
            planned[url] = _file_identity(fs, path)
        except FileNotFoundError:
            errors[url] = FileNotFoundError(f"{url}: no such file")
        except OSError as e:
            errors[url] = e

    results: dict[str, bytes] = {}
    # Plan: the parts of each file to split (by the name it has in the results), and the
    # groups of whole files of about group_size bytes.
    group_size = DEFAULT_PART_SIZE if part_size is None else psize
    split: dict[str, list[tuple[str, int, int, int, str]]] = {}
    groups: list[list[tuple[str, int, str]]] = [[]]
    group_bytes = 0
    name_of: dict[str, str] = {}
    for name, (size, version) in planned.items():
        url = _for_workers(name)
        name_of[url] = name
        file_part = _part_size(part_size, size)
        if algorithm == "blake3" and size > file_part:
            split[name] = _parts(url, range(0, size, file_part), file_part, size, version)
            continue
        if groups[-1] and group_bytes + size > group_size:
            groups.append([])
            group_bytes = 0
        groups[-1].append((url, size, version))
        group_bytes += size
    groups = [g for g in groups if g]

    with _client(client) as c:
        # Two messages to the scheduler, whatever the number of files and parts.
        group_futures: list[Any] = (
            c.map(
                _whole_files_task, groups, algorithm=algorithm, mode=mode, length=length, storage_options=opts,
                key=[_task_key("whole", g, algorithm, mode_name, length) for g in groups], pure=True,
            )  # fmt: skip
            if groups
            else []
        )
        part_futures = _submit_parts(c, [p for parts in split.values() for p in parts], mode, mode_name, opts)
        everything = group_futures + part_futures
        with _progress(everything, progress):
            _distributed.wait(everything)  # failures included
            # The results in one request (a round trip through the scheduler each costs
            # the cores that hash).
            finished = [f for f in everything if f.status == "finished"]
            value = dict(zip((f.key for f in finished), c.gather(finished)))
        for g, files in zip(group_futures, groups):
            if g.key not in value:
                # The whole group's task failed (not one file in it): each file is reported.
                for target, _, _ in files:
                    errors[name_of[target]] = g.exception()
                continue
            for target, digest, error in value[g.key]:
                url = name_of[target]
                if error is not None:
                    errors[url] = RuntimeError(f"{url}: {error}")
                elif digest is not None:
                    results[url] = digest
        at = 0
        for url, parts in split.items():
            futures = part_futures[at : at + len(parts)]
            at += len(parts)
            failed = [f for f in futures if f.key not in value]
            if failed:
                errors[url] = failed[0].exception()
            else:
                results[url] = _merge_parts([value[f.key] for f in futures], mode, out_len)
    ordered = {u: results[u] for u in urls if u in results}
    if errors:
        raise HashFilesError(ordered, {u: errors[u] for u in urls if u in errors})
    return ordered


def _escape(name: str) -> tuple[str, str]:
    """b3sum's and coreutils' escaping of a name: backslash, newline and carriage return
    escaped, and the line then starts with a backslash."""
    if not any(c in name for c in "\\\n\r"):
        return "", name
    return "\\", name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def format_manifest(results: Mapping[str, bytes], *, algorithm: str = "blake3", tag: bool = False) -> str:
    """The lines ``simdcrypt sum`` prints for these digests: ``HEX  NAME`` (GNU style) or,
    with ``tag``, ``LABEL (NAME) = HEX`` (BSD style), names escaped as b3sum and coreutils
    escape them, so that ``simdcrypt check`` (and b3sum/sha256sum -c) verify them."""
    label = _BSD_LABELS[_algorithm_name(algorithm)]
    lines = []
    for name, digest in results.items():
        prefix, text = _escape(name)
        if tag:
            lines.append(f"{prefix}{label} ({text}) = {digest.hex()}\n")
        else:
            lines.append(f"{prefix}{digest.hex()}  {text}\n")
    return "".join(lines)


def write_manifest(
    results: Mapping[str, bytes], path: Url, tag: bool = False, *, algorithm: str = "blake3"
) -> None:
    """Writes :func:`format_manifest`'s lines to ``path`` (whole or not at all: a temporary
    file renamed into place)."""
    text = format_manifest(results, algorithm=algorithm, tag=tag)
    target = os.fspath(path)
    tmp = f"{target}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, target)


def _zero_hashes(levels: int) -> list[bytes]:
    zero = [bytes(32)]
    for _ in range(levels):
        zero.append(simdcrypt.sha256(zero[-1] + zero[-1]).digest())
    return zero


def merkle_root(
    urlpath: Url,
    *,
    depth: int | None = None,
    client: Any = None,
    part_size: int | None = None,
    progress: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> bytes:
    """The SSZ-style Merkle root (:func:`simdcrypt.merkle_root`) of a file of 32-byte
    leaves, split across workers: each task computes the root of a subtree of a power-of-two
    number of leaves (``part_size`` bytes), and the client combines them, padding with the
    zero hashes. Equal to ``simdcrypt.merkle_root(data, depth=depth)``."""
    psize = _part_size(part_size)
    opts = dict(storage_options or {})
    url, size, version = _one_file(urlpath, opts)
    if size % 32:
        raise ValueError(f"{url}: {size} bytes is not a whole number of 32-byte leaves")
    leaves = size // 32
    natural = 0 if leaves <= 1 else (leaves - 1).bit_length()
    d = natural if depth is None else int(depth)
    if not 0 <= d <= 64 or leaves > (1 << d):
        raise ValueError(f"depth must be 0 to 64 and hold the {leaves} leaves, got {depth}")
    sub = (psize // 32).bit_length() - 1  # leaves per part: 2**sub
    with _client(client) as c:
        if d <= sub or leaves <= (1 << sub):
            fut = c.submit(
                _merkle_task, url, 0, size, size, version, d, opts,
                key=_task_key("merkle", url, size, version, d), pure=True,
            )  # fmt: skip
            with _progress([fut], progress):
                return bytes(fut.result())
        step = 32 << sub
        offsets = list(range(0, size, step))
        lengths = [min(step, size - off) for off in offsets]
        k = len(offsets)
        futures = c.map(
            _merkle_task, [url] * k, offsets, lengths, [size] * k, [version] * k, [sub] * k, [opts] * k,
            key=[_task_key("merkle", url, off, n, size, version, sub) for off, n in zip(offsets, lengths)],
            pure=True,
        )  # fmt: skip
        with _progress(futures, progress):
            layer = [bytes(r) for r in c.gather(futures)]
    zero = _zero_hashes(d)
    for level in range(sub, d):
        if len(layer) % 2:
            layer.append(zero[level])
        layer = [simdcrypt.sha256(layer[i] + layer[i + 1]).digest() for i in range(0, len(layer), 2)]
    return layer[0]


# --- content-defined chunks of one file across workers --------------------------------
#
# Xet: phase 1, each part's worker reads its range (plus the Gear window before it) and
# returns its candidate cut points (about 8 bytes per 64 KiB); the client picks the cuts
# from all of them in one cheap sequential pass (`simdcrypt._native._chunk_select_cuts`,
# the library's `select_cuts`), exactly those of a single process; phase 2, each part's
# worker hashes the chunks that start in its range, reading up to the end of the last one.
# FastCDC 2020 cannot be split this way (its hash restarts at each chunk's minimum size):
# one worker streams the whole file.


def _chunk_windows(start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` in windows of at most ``_WINDOW_LEN`` bytes."""
    return [(at, min(at + _WINDOW_LEN, end)) for at in range(start, end, _WINDOW_LEN)] or [(start, end)]


def _candidates_task(
    url: str, start: int, end: int, size: int, version: str, storage_options: Mapping[str, Any]
) -> bytes:
    """Phase 1 on the range ``[start, end)``: its candidate cut points, packed u64, found a
    window at a time (a candidate depends only on the bytes before it within the Gear
    window, so windows with their look-back find exactly the range's candidates)."""
    fs, path = _checked_fs(url, size, version, storage_options)
    lookback = simdcrypt._native._CHUNK_PART_LOOKBACK
    out = []
    for lo, hi in _chunk_windows(start, end):
        data_offset = lo - min(lo, lookback)
        data = _read_at(fs, path, url, data_offset, hi - data_offset)
        out.append(
            simdcrypt._native._chunk_part_candidates(data, data_offset=data_offset, start=lo, end=hi, threads=1)
        )
    return b"".join(out)


def _digests_task(
    url: str, offsets: bytes, lengths: bytes, size: int, version: str, digest: str, storage_options: Mapping[str, Any]
) -> bytes:
    """Phase 2: the digests of the chunks (packed offsets and lengths, consecutive), reading
    a window of about ``_WINDOW_LEN`` bytes of whole chunks at a time."""
    fs, path = _checked_fs(url, size, version, storage_options)
    n = len(offsets) // 8
    offs = [int.from_bytes(offsets[8 * i : 8 * i + 8], "little") for i in range(n)]
    lens = [int.from_bytes(lengths[4 * i : 4 * i + 4], "little") for i in range(n)]
    out = []
    i = 0
    while i < n:
        j = i + 1
        while j < n and offs[j] + lens[j] - offs[i] <= _WINDOW_LEN:
            j += 1
        data = _read_at(fs, path, url, offs[i], offs[j - 1] + lens[j - 1] - offs[i])
        out.append(
            simdcrypt._native._chunk_digest_spans(
                data, data_offset=offs[i], offsets=offsets[8 * i : 8 * j], lengths=lengths[4 * i : 4 * j],
                digest=digest, threads=1,
            )  # fmt: skip
        )
        i = j
    return b"".join(out)


def _whole_chunks_task(
    url: str, size: int, version: str, options: Mapping[str, Any], storage_options: Mapping[str, Any]
) -> tuple[bytearray, bytearray, bytearray | None]:
    """A file chunked by one worker, streamed (FastCDC 2020)."""
    with _open_checked(url, size, version, storage_options) as f:
        return simdcrypt._native._chunk_table(f, **options)


def _chunk_part_size(part_size: int | None, size: int) -> int:
    psize = default_part_size(size) if part_size is None else int(part_size)
    if psize < 1:
        raise ValueError(f"part_size must be a positive number of bytes, got {part_size}")
    return psize


def _chunk_packed(
    urlpath: Url,
    options: dict[str, Any],
    client: Any,
    part_size: int | None,
    progress: bool,
    storage_options: Mapping[str, Any] | None,
) -> tuple[bytes, bytes, bytes | None]:
    """The packed chunk table of one file (see :func:`chunk_file`)."""
    # Every option is checked (and a bad one refused) before anything is read.
    simdcrypt._native._chunk_table(b"", **options)
    opts = dict(storage_options or {})
    url, size, version = _one_file(urlpath, opts)
    psize = _chunk_part_size(part_size, size)
    chunker, digest = options["chunker"], options["digest"]
    with _client(client) as c:
        if chunker.lower() != "xet":
            fut = c.submit(
                _whole_chunks_task, url, size, version, options, opts,
                key=_task_key("chunks-whole", url, size, version, sorted(options.items())), pure=True,
            )  # fmt: skip
            with _progress([fut], progress):
                offsets, lengths, digests = fut.result()
            return bytes(offsets), bytes(lengths), None if digests is None else bytes(digests)
        bounds = [(lo, min(lo + psize, size)) for lo in range(0, size, psize)] or [(0, 0)]
        k = len(bounds)
        futures = c.map(
            _candidates_task, [url] * k, [lo for lo, _ in bounds], [hi for _, hi in bounds], [size] * k,
            [version] * k, [opts] * k,
            key=[_task_key("chunk-candidates", url, lo, hi, size, version) for lo, hi in bounds], pure=True,
        )  # fmt: skip
        with _progress(futures, progress):
            candidates = c.gather(futures)
        offsets, lengths = simdcrypt._native._chunk_select_cuts(
            [(lo, hi, cand) for (lo, hi), cand in zip(bounds, candidates)], chunker="xet"
        )
        offsets, lengths = bytes(offsets), bytes(lengths)
        if digest is None:
            return offsets, lengths, None
        # Each part's worker hashes the chunks that start in its range.
        n = len(offsets) // 8
        starts = [int.from_bytes(offsets[8 * i : 8 * i + 8], "little") for i in range(n)]
        groups: list[tuple[int, int]] = []
        i = 0
        for _, hi in bounds:
            j = i
            while j < n and starts[j] < hi:
                j += 1
            if j > i:
                groups.append((i, j))
            i = j
        g = len(groups)
        if not g:
            return offsets, lengths, b""
        futures = c.map(
            _digests_task, [url] * g, [offsets[8 * a : 8 * b] for a, b in groups],
            [lengths[4 * a : 4 * b] for a, b in groups], [size] * g, [version] * g, [digest] * g, [opts] * g,
            key=[_task_key("chunk-digests", url, starts[a], b - a, size, version, digest) for a, b in groups],
            pure=True,
        )  # fmt: skip
        with _progress(futures, progress):
            digests = b"".join(c.gather(futures))
        return offsets, lengths, digests


def chunk_file(
    urlpath: Url,
    *,
    chunker: str = "xet",
    min_size: int | None = None,
    avg_size: int | None = None,
    max_size: int | None = None,
    level: int | None = None,
    digest: str | None = "xet",
    client: Any = None,
    part_size: int | None = None,
    progress: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> simdcrypt.Chunks:
    """The content-defined chunks of one file (any fsspec URL) computed on a Dask cluster:
    exactly :func:`simdcrypt.chunks` of the file (the same cut points and digests for any
    ``part_size`` and number of workers).

    - chunker, min_size, avg_size, max_size, level, digest: as for :func:`simdcrypt.chunks`.
      The Xet chunker is split into parts read by the workers (each part's worker reads its
      own range, a window at a time, plus 64 bytes before it, then hashes the chunks that
      start in it); FastCDC 2020 cannot be split (its hash restarts at each chunk's
      minimum size) and runs as one task that streams the file.
    - part_size: bytes per task, any positive size; default :func:`default_part_size`.
    - client, progress, storage_options: as for :func:`hash_file`.

    Returns a :class:`simdcrypt.Chunks` (numpy arrays, or lists without numpy). Raises
    ValueError for a bad parameter before any task runs, FileNotFoundError naming a missing
    file, and the errors of the tasks (a file that changed meanwhile is a RuntimeError).
    """
    options: dict[str, Any] = dict(
        chunker=chunker, min_size=min_size, avg_size=avg_size, max_size=max_size, level=level, digest=digest
    )
    offsets, lengths, digests = _chunk_packed(urlpath, options, client, part_size, progress, storage_options)
    return simdcrypt._chunking._arrays(
        bytearray(offsets), bytearray(lengths), None if digests is None else bytearray(digests)
    )


def xet_hash_file(
    urlpath: Url,
    *,
    client: Any = None,
    part_size: int | None = None,
    progress: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> str:
    """The Xet file hash (the Hugging Face Hub's ``xetHash``, :func:`simdcrypt.xet_hash`) of
    one file, chunked and hashed on a Dask cluster as in :func:`chunk_file`; the chunk
    digests are merged into the file hash on the client."""
    options: dict[str, Any] = dict(chunker="xet", digest="xet")
    _, lengths, digests = _chunk_packed(urlpath, options, client, part_size, progress, storage_options)
    assert digests is not None
    return simdcrypt._native._xet_file_hash(lengths, digests)
