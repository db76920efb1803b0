"""``simdcrypt.chunks``: content-defined chunking (Xet, FastCDC 2020) with a digest per chunk.

The work is native (``_native._chunk_table`` and ``_native._ChunkIter``, GIL released);
this module picks the path for each kind of source and shapes the result: numpy arrays
viewing the native tables without a copy when numpy is importable, lists otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
import struct
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Optional, Union, cast, overload

from . import _native

if TYPE_CHECKING:
    from typing_extensions import Buffer

    #: What chunks() and xet_hash() read: a path, a buffer, or a binary file object.
    Source = Union[str, os.PathLike[str], Buffer, _native._BinaryReader]

__all__ = ["Chunks", "chunks"]


class Chunks(NamedTuple):
    """The chunks of a path or a buffer, as returned by :func:`chunks`.

    - ``offsets``: where each chunk starts (numpy ``uint64`` array, or a list of int);
    - ``lengths``: each chunk's length in bytes (numpy ``uint32``, or a list of int);
    - ``digests``: each chunk's 32-byte digest (numpy ``uint8`` array of shape (n, 32),
      or a list of bytes), or None with ``digest=None``.

    The arrays are writable views of buffers made for this result (no copy)."""

    offsets: Any
    lengths: Any
    digests: Any


#: One chunk from the iterator: (offset, length, digest or None).
ChunkTuple = tuple[int, int, Optional[bytes]]


def _arrays(offsets: bytearray, lengths: bytearray, digests: Optional[bytearray]) -> Chunks:
    """The native packed table as numpy views, or as lists without numpy."""
    try:
        import numpy as np
    except ImportError:
        return Chunks(
            list(struct.unpack(f"<{len(offsets) // 8}Q", offsets)),
            list(struct.unpack(f"<{len(lengths) // 4}I", lengths)),
            None if digests is None else [bytes(digests[i : i + 32]) for i in range(0, len(digests), 32)],
        )
    return Chunks(
        np.frombuffer(offsets, dtype="<u8"),
        np.frombuffer(lengths, dtype="<u4"),
        None if digests is None else np.frombuffer(digests, dtype=np.uint8).reshape(-1, 32),
    )


def _iterate(offsets: bytearray, lengths: bytearray, digests: Optional[bytearray]) -> Iterator[ChunkTuple]:
    for i in range(len(offsets) // 8):
        digest = None if digests is None else bytes(digests[32 * i : 32 * i + 32])
        yield (
            int.from_bytes(offsets[8 * i : 8 * i + 8], "little"),
            int.from_bytes(lengths[4 * i : 4 * i + 4], "little"),
            digest,
        )


@overload
def chunks(
    source: Source, *, chunker: str = ..., min_size: Optional[int] = ..., avg_size: Optional[int] = ...,
    max_size: Optional[int] = ..., level: Optional[int] = ..., digest: Optional[str] = ...,
    threads: Optional[int] = ..., backend: Optional[str] = ..., as_arrays: Literal[True] = ...,
) -> Chunks: ...
@overload
def chunks(
    source: Source, *, chunker: str = ..., min_size: Optional[int] = ..., avg_size: Optional[int] = ...,
    max_size: Optional[int] = ..., level: Optional[int] = ..., digest: Optional[str] = ...,
    threads: Optional[int] = ..., backend: Optional[str] = ..., as_arrays: Literal[False],
) -> Iterator[ChunkTuple]: ...


def chunks(
    source: Source,
    *,
    chunker: str = "xet",
    min_size: Optional[int] = None,
    avg_size: Optional[int] = None,
    max_size: Optional[int] = None,
    level: Optional[int] = None,
    digest: Optional[str] = "xet",
    threads: Optional[int] = None,
    backend: Optional[str] = None,
    as_arrays: bool = True,
) -> Union[Chunks, Iterator[ChunkTuple]]:
    """Cuts ``source`` into content-defined chunks and hashes each.

    - source: a path (str or os.PathLike), a bytes-like object (bytes, bytearray,
      memoryview, mmap, numpy uint8 array), or a binary file object (anything with
      ``readinto`` or ``read``: an open file, io.BytesIO, an fsspec file), read from its
      current position to its end.
    - chunker: ``"xet"`` (the Hugging Face Hub's Gear-hash chunker; its sizes are fixed by
      the protocol) or ``"fastcdc2020"`` (FastCDC 2020, the ``fastcdc`` crate's v2020
      cut points), whose ``min_size``, ``avg_size``, ``max_size`` and normalisation
      ``level`` (0 to 3) may be set; those not given keep the library's FastCDC defaults.
    - digest: what each chunk is hashed with: ``"xet"`` (keyed BLAKE3 with the Xet data
      key: the Hub's chunk hashes), ``"blake3"``, ``"sha256"``, or None for no digests.
    - threads: None (every CPU, on large inputs) or at most that many threads; the
      result never depends on it.
    - backend: the Gear-scan kernel, a name from ``backends()["gear"]["supported"]``;
      None for the best this CPU has. The result never depends on it.
    - as_arrays: True returns a :class:`Chunks` (the table of all chunks); False returns
      an iterator of ``(offset, length, digest)`` tuples, which for a path or a file object
      reads as it goes (memory: one maximum chunk and a read window, whatever the size).

    Raises ValueError for a parameter out of range (naming it), TypeError for a source of
    another type, OSError (FileNotFoundError, ...) for a file that cannot be read, and the
    file object's own exceptions.
    """
    options: dict[str, Any] = dict(
        chunker=chunker, min_size=min_size, avg_size=avg_size, max_size=max_size,
        level=level, digest=digest, threads=threads, backend=backend,
    )  # fmt: skip
    if as_arrays:
        return _arrays(*_native._chunk_table(source, **options))
    is_path = isinstance(source, str) or hasattr(source, "__fspath__")
    if is_path or not _is_buffer(source):
        # A path or a file object (anything else is refused by _ChunkIter with TypeError).
        return _native._ChunkIter(cast("str | os.PathLike[str] | _native._BinaryReader", source), **options)
    return _iterate(*_native._chunk_table(source, **options))


def _is_buffer(source: object) -> bool:
    try:
        memoryview(source)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True
