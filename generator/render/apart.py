"""The plan of a site over the index, made in a process of its own.

Planning a site reads every author's records to digest its pages, and what it allocates on the
way stays with the process that planned: at 20,000 x 100 the build's process went from 128 MB
to 396 MB while it planned, though what the plan keeps (a path, group, weight and digest a
job) is about 60 MB of it; the rest is the plan's scraps, freed but held by Python's allocator
in pages it cannot give back. The render processes are forked from the build's process, a
chunk at a time (generator.render.remake): each started at its size, so each counted the
scraps again (docs/scale.md, session 25).

``plan_apart`` runs the plan in a forked process (``run_apart``) and takes back only its thin
jobs, as columns; the build's process remakes whatever it runs (``Remake.chunks``), as it did
for every job past the first chunk. The folder jobs (the search index's) are the caller's own,
planned in this process, whole: the plan's copies are only compared with them.
"""

from __future__ import annotations

from array import array
from typing import Callable, Sequence

from generator.core.processes import run_apart
from generator.render.jobs import Job
from generator.render.tasks import FolderTask, Task, made_again

Columns = tuple[list[str], list[str], "array[int]", list[str], list[tuple[str, str]]]


def plan_apart(plan: Callable[[], list[Job]], folders: Sequence[Job]) -> list[Job]:
    """``plan()``'s jobs, planned in a forked process and made here thin, with ``folders`` (the
    folder jobs ``plan`` puts at the end, planned already in this process) in place of its own."""
    paths, groups, weights, digests, theirs = run_apart(lambda: _columns(plan()), "the planning process")
    if theirs != [(j.rel_path, j.digest) for j in folders]:
        raise RuntimeError("the planning process planned other folder jobs than the build's "
                           f"(generator.render.apart): {theirs!r}")
    shared: dict[str, str] = {}   # (one string a group: 6 MB at 20,000 authors when each job had its own)
    planned = [Job(Task(path, made_again, shared.setdefault(group, group), weight), digest)
               for path, group, weight, digest in zip(paths, groups, weights, digests)]
    return planned + list(folders)


def _columns(planned: list[Job]) -> Columns:
    """The plan as columns to send: the file jobs' paths, groups, weights and digests, and the
    folder jobs' paths and digests (``FolderTask``s end the plan: ``plan_site``)."""
    n = sum(1 for j in planned if not isinstance(j.task, FolderTask))
    files, folders = planned[:n], planned[n:]
    if any(isinstance(j.task, FolderTask) for j in files):
        raise RuntimeError("a folder job before a file job in the plan (generator.render.apart)")
    return ([j.rel_path for j in files], [j.task.group for j in files], array("q", (j.task.weight for j in files)),
            [j.digest for j in files], [(j.rel_path, j.digest) for j in folders])
