"""What a build (or one preview update) reports: its result and the time each stage took."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.write.sitesize import SiteSize


@dataclass(frozen=True, slots=True)
class BuildResult:
    out_dir: Path
    files: int
    bytes: int
    authors: int
    records: int
    subjects: int
    warnings: tuple[str, ...]
    seconds: float
    stages: tuple[tuple[str, float], ...] = ()   # (stage, seconds) in order, for --verbose and the benchmark
    unchanged: bool = False                      # nothing changed: the previous build was kept as it was
    rendered: int = 0                            # jobs run (files made, the search index)
    reused: int = 0                              # jobs whose last output was kept (inputs unchanged)
    size: SiteSize | None = None                 # the whole output's files and bytes (None when unchanged)
    host: str = "github-pages"                   # site.yaml's host, whose limits the size is measured against


class Clock:
    """The stage times of one build (or of one preview update, generator.serve.live), for --verbose
    and the benchmark."""

    def __init__(self) -> None:
        self.start = self._mark = time.perf_counter()
        self.stages: list[tuple[str, float]] = []

    def stage(self, name: str) -> None:
        now = time.perf_counter()
        self.stages.append((name, now - self._mark))
        self._mark = now

    def seconds(self) -> float:
        return time.perf_counter() - self.start
