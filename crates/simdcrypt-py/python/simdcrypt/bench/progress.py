"""A one-line progress display on stderr, for terminals only.

It shows which point of how many is running and what it is doing; messages printed
through ``note`` appear above it. When stderr is not a terminal (a log file, a pipe, a
test) it stays silent unless forced.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = 0
        self.done = 0
        self.prefix = ""
        self._shown = False
        self._last = 0.0
        self._start = time.monotonic()

    def begin(self, total: int) -> None:
        self.total = total
        self.done = 0

    def step(self, prefix: str) -> None:
        """Starts the next point."""
        self.done += 1
        self.prefix = prefix
        self.show("", force=True)

    def show(self, what: str, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        elapsed = int(now - self._start)
        line = f"[{self.done}/{self.total} {elapsed // 60}:{elapsed % 60:02d}] {self.prefix}{what}"
        self.stream.write("\r\x1b[K" + line[:160])
        self.stream.flush()
        self._shown = True

    def note(self, message: str) -> None:
        """Prints a line to stderr (above the progress line on a terminal)."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self._shown = False
        self.stream.write(message + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
