"""The checkpoint file of ``simdcrypt.dask``: the finished parts of one file (offsets and
chaining values) and the file's identity (URL, size, modification time, algorithm, mode,
part size), kept in a JSON file that is written whole. docs/dask.md says what it records."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Union

#: The smallest BLAKE3 subtree a part can be (one chunk).
CHUNK_LEN = 1024
_CHECKPOINT_FORMAT = "simdcrypt.dask checkpoint"
_CHECKPOINT_VERSION = 1

Url = Union[str, "os.PathLike[str]"]


def checkpoint_part_size(path: Url) -> int | None:
    """The part size an existing checkpoint was made with (a run that names none resumes
    with it, whatever default made it), else None; a damaged checkpoint is left for
    Checkpoint to refuse with its reason."""
    try:
        with open(os.fspath(path), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    value = doc.get("part_size") if isinstance(doc, dict) else None
    if isinstance(value, int) and value >= CHUNK_LEN and not value & (value - 1):
        return value
    return None


class Checkpoint:
    """Finished parts of one file, kept in a JSON file written whole (temp + rename)."""

    def __init__(self, path: Url, identity: dict[str, Any]) -> None:
        self.path = os.fspath(path)
        self.identity = identity
        self.parts: dict[int, bytes] = {}
        self.hashed_this_run = 0
        # Digests of the whole file by output length ("default" for the algorithm's own),
        # for inputs hashed as one task.
        self.results: dict[str, bytes] = {}
        if os.path.exists(self.path):
            self._load()

    def _load(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError(f"checkpoint {self.path}: not readable as JSON ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != _CHECKPOINT_FORMAT:
            raise ValueError(f"checkpoint {self.path}: not a simdcrypt.dask checkpoint")
        if doc.get("version") != _CHECKPOINT_VERSION:
            raise ValueError(f"checkpoint {self.path}: version {doc.get('version')!r} is not supported (expected {_CHECKPOINT_VERSION})")
        for field, what in (
            ("url", "another file"),
            ("size", "another version of the file (its size changed)"),
            ("file_version", "another version of the file (it was modified since)"),
            ("algorithm", "another algorithm"),
            ("mode", "another mode or key"),
            ("part_size", "another part size"),
        ):
            if doc.get(field) != self.identity[field]:
                raise ValueError(
                    f"checkpoint {self.path} is for {what}: {field} {doc.get(field)!r}, "
                    f"this run has {self.identity[field]!r}; delete it to start again"
                )
        parts = doc.get("parts")
        if not isinstance(parts, dict):
            raise ValueError(f"checkpoint {self.path}: damaged (no parts)")
        size, part_size = self.identity["size"], self.identity["part_size"]
        for offset_text, cv_hex in parts.items():
            try:
                offset, cv = int(offset_text), bytes.fromhex(cv_hex)
            except (TypeError, ValueError):
                raise ValueError(f"checkpoint {self.path}: damaged part {offset_text!r}") from None
            if offset % part_size or not 0 <= offset < size or len(cv) != 32:
                raise ValueError(f"checkpoint {self.path}: damaged part {offset_text!r}")
            self.parts[offset] = cv
        results = doc.get("results", {})
        try:
            self.results = {str(n): bytes.fromhex(h) for n, h in results.items()}
        except (AttributeError, TypeError, ValueError):
            raise ValueError(f"checkpoint {self.path}: damaged results") from None

    def record_result(self, length: str, digest: bytes) -> None:
        self.results[length] = digest
        self.hashed_this_run = 1
        self.save()

    def record(self, parts: Mapping[int, bytes]) -> None:
        """Records finished parts (offset: chaining value) and saves the checkpoint."""
        self.parts.update(parts)
        self.hashed_this_run += len(parts)
        self.save()

    def save(self) -> None:
        doc = dict(self.identity)
        doc.update(
            format=_CHECKPOINT_FORMAT,
            version=_CHECKPOINT_VERSION,
            hashed_this_run=self.hashed_this_run,
            parts={str(o): cv.hex() for o, cv in sorted(self.parts.items())},
            results={n: d.hex() for n, d in sorted(self.results.items())},
        )
        tmp = f"{self.path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
