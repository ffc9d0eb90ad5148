"""How far a deploy is: files and MB sent, as a bar on a terminal, else a line every few seconds.

Called from the upload threads (one lock). With ``-v`` each file sent is also logged by key
(``sent KEY``), once it has landed.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import TextIO

log = logging.getLogger("generator")

EVERY = 5.0      # seconds between two progress lines off a terminal
WIDTH = 30       # the bar's width in characters


class Progress:
    def __init__(self, files: int, size: int, stream: TextIO | None = None, bar: bool | None = None) -> None:
        self.files, self.size = files, size
        self.sent_files = self.sent_bytes = 0
        self.stream = stream or sys.stderr
        self.bar = self.stream.isatty() if bar is None else bar
        self._lock = threading.Lock()
        self._shown = time.monotonic()

    def line(self) -> str:
        return (f"{self.sent_files:,} of {self.files:,} files, "
                f"{self.sent_bytes / 1e6:.1f} of {self.size / 1e6:.1f} MB")

    def sent(self, key: str, size: int) -> None:
        with self._lock:
            self.sent_files += 1
            self.sent_bytes += size
            log.debug("sent %s", key)
            now = time.monotonic()
            if self.bar and log.isEnabledFor(logging.INFO) and (now - self._shown > 0.1 or self.sent_files == self.files):
                self._shown = now
                done = self.sent_bytes / self.size if self.size else 1.0
                filled = int(done * WIDTH)
                self.stream.write(f"\r[{'#' * filled}{' ' * (WIDTH - filled)}] {self.line()}")
                self.stream.flush()
            elif not self.bar and now - self._shown > EVERY:
                self._shown = now
                log.info("deploy: %s sent", self.line())

    def close(self) -> None:
        if self.bar and self.sent_files and log.isEnabledFor(logging.INFO):
            self.stream.write("\n")
            self.stream.flush()
