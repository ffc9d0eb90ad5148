"""The unit of work of a build: one output file (``Task``) or one folder (``FolderTask``).

Tasks carry a group (tasks that share work, such as an author's page, feed and
exports, which share that author's rendered record partials, or that must stay together)
and a weight (a rough cost), so ``parallel.run_tasks`` can spread them over the cores.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable


@dataclass(frozen=True, slots=True)
class Task:
    """One output file: where it goes, how to make its bytes (whole, or in pieces for a file
    too large to hold at once), and how to schedule it."""

    rel_path: str
    make: Callable[[], bytes | Iterable[bytes]]
    group: str = "site"
    weight: int = 1
    # Exactly the values the job reads (a page's template context, an author for an export):
    # generator.render.jobs digests them, with what every job reads (code, templates, site settings),
    # into the key compared against the last build's manifest.
    reads: tuple[Any, ...] = ()


    def thin(self) -> Task:
        """This task without what makes its bytes or what it read: where it goes, its group and
        weight. A plan over the index keeps its jobs so (generator.render.remake makes them
        again, a chunk at a time, to run them)."""
        return Task(self.rel_path, made_again, self.group, self.weight)

    @property
    def thinned(self) -> bool:
        return self.make is made_again


def made_again() -> bytes:
    raise RuntimeError("a thin task was run as it was planned, not made again (generator.render.remake)")


@dataclass(frozen=True, slots=True)
class FolderTask:
    """A folder of files made together (the search index, generator.write.search): ``fill`` gets the staging
    folder, creates ``rel_path`` in it, and returns the bytes it wrote. Scratch files go
    under the staging folder too, so whatever an interrupted build leaves is removed with it."""

    rel_path: str
    fill: Callable[[Path], int]
    group: str = "site"
    weight: int = 1
    reads: tuple[Any, ...] = ()   # as Task.reads

    thinned = False   # (never thin: a folder's task is kept whole)


def author_group(slug: str) -> str:
    """The group of an author's own tasks: its page, feed, exports and photo (generator.render.pages)."""
    return f"author:{slug}"


def subject_group(code: str) -> str:
    """The group of a subject's tasks: its pages and its feed (generator.render.pages)."""
    return f"subject:{code}"
