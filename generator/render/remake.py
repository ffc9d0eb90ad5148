"""The tasks of a plan over the index, made again to run, a chunk at a time.

A build's processes used to hold every task of the plan at once, each with its page's context
and the closure that renders it, and its render processes, forked after the plan, held them
again: about 1.3 KB a job, 177,000 jobs at 20,000 x 100, the part of a cold build's memory that
grew with the site (docs/scale.md). Over the index (generator.index) the plan is made in a
process of its own and its jobs come back thin (``Task.thin``: where, group, weight, digest:
generator.render.apart), all but the search index's. ``Remake.chunks`` hands the run its
tasks: the whole ones, then the thin ones made again by planning the site once more
(``iter_tasks``: the same tasks in the same order, made of the same model), ``CHUNK`` at a time;
the pool forks its processes for each chunk (generator.write.parallel). Which process makes a
file never changes its bytes, so neither does the chunking.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from generator.render.pages import iter_tasks
from generator.render.tasks import FolderTask, Task

if TYPE_CHECKING:
    import jinja2

    from generator.core.model import SiteModel
    from generator.core.taxonomy import Taxonomy

CHUNK = 20_000   # tasks held at once: about 26 MB of them, in the build's process and each it forks


@dataclass(frozen=True)
class Remake:
    """How the plan's tasks were made (its Jinja environment, model, taxonomy and site root)."""

    env: jinja2.Environment
    site: SiteModel
    taxonomy: Taxonomy
    root: Path | None

    def chunks(self, tasks: Sequence[Task | FolderTask]) -> Iterator[list[Task | FolderTask]]:
        """``tasks``, made whole, at most ``CHUNK`` at a time: the whole ones as they are (the
        search index's), then the thin ones made again, in the plan's order; the whole ones share
        a chunk with the first of those (a one-record rebuild's search patch and pages run side by
        side, not one after the other)."""
        size = CHUNK
        chunk = [t for t in tasks if not t.thinned]
        while len(chunk) >= size:
            yield chunk[:size]
            chunk = chunk[size:]
        # The thin ones are in the plan's order, and iter_tasks makes the plan's tasks in that
        # order: one walk of both finds them, with nothing held (a set of their paths, each made
        # anew from the packed plan, would be about 20 MB at 20,000 x 100, in the build's
        # process and in each one it forks).
        wanted = (t.rel_path for t in tasks if t.thinned)
        next_path = next(wanted, None)
        if next_path is not None:
            for t in iter_tasks(self.env, self.site, self.taxonomy, self.root):
                if t.rel_path == next_path:
                    chunk.append(t)
                    if len(chunk) == size:
                        yield chunk
                        chunk = []
                    next_path = next(wanted, None)
                    if next_path is None:
                        break
        if next_path is not None:
            left = 1 + sum(1 for _ in wanted)
            raise RuntimeError(f"{left} of the plan's tasks were not planned again, in its order, from "
                               f"{next_path} on (generator.render.remake): the model changed between the plan and the run")
        if chunk:
            yield chunk
