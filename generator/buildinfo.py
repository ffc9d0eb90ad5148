"""What a build (or one preview update) reports: its result and the time each stage took."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from generator.core.errors import plural

if TYPE_CHECKING:
    from generator.write.sitesize import SiteSize

log = logging.getLogger(__name__)


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


def report_build(res: BuildResult) -> None:
    """One line of what was built (the whole output's files and size); a second when its size nears
    GitHub Pages' limit, a warning past it (generator.write.sitesize). The rest with -v."""
    from generator.write.sitesize import measure

    size = res.size or measure(res.out_dir)
    log.info("built %s, %s, %s in %.2f s: %s -> %s", plural(res.authors, "author"), plural(res.records, "record"),
             plural(res.subjects, "subject"), res.seconds, size.describe(), res.out_dir)
    log.debug("the jobs wrote %s of them (%.1f MB)", plural(res.files, "file"), res.bytes / 1e6)
    report_size(res.out_dir, size, res.host)


def report_size(out_dir: Path, size: SiteSize | None = None, host: str = "github-pages") -> None:
    """The output's size against its host's limits (site.yaml ``host``), as a build says it (a
    merge of shards says it too): a line when it nears a limit on bytes, the message past a limit
    (generator.write.sitesize)."""
    from generator.write.sitesize import limit_lines, measure

    note, warning = limit_lines(out_dir, size or measure(out_dir), host)
    if note:
        log.info("%s", note)
    if warning:
        log.warning("%s", warning)
