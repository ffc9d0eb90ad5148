"""The plan of a site over the index, made in a process of its own.

Planning a site reads every author's records to digest its pages, and what it allocates on the
way stays with the process that planned: at 20,000 x 100 the build's process went from 128 MB
to 396 MB while it planned, though what the plan keeps (a path, group, weight and digest a
job) is about 60 MB of it; the rest is the plan's scraps, freed but held by Python's allocator
in pages it cannot give back. The render processes are forked from the build's process, a
chunk at a time (generator.render.remake): each started at its size, so each counted the
scraps again (docs/scale.md, session 25).

``plan_apart`` runs the plan in a forked process (``run_apart``) and takes back only its thin
jobs, packed (``ThinPlan``); the build's process remakes whatever it runs (``Remake.chunks``), as
it did for every job past the first chunk. The folder jobs (the search index's) are the caller's
own, planned in this process, whole: the plan's copies are only compared with them.
"""

from __future__ import annotations

import itertools
from array import array
from typing import Callable, Iterable, Iterator, Sequence, overload

from generator.core.processes import run_apart
from generator.render.jobs import Job
from generator.render.tasks import FolderTask, Task, made_again

DIGEST = 16   # bytes of a job's digest (jobs.plan_jobs: 32 hex digits)


class ThinPlan(Sequence[Job]):
    """A plan's thin file jobs packed, then its folder jobs whole: every path in one UTF-8
    ``bytes`` with where each ends, each group as a number into the groups' names, the weights,
    and the digests 16 bytes each. A ``Job`` is made each time one is asked for; nothing holds it.
    At 20,000 x 100 the 177,570 file jobs held as Job and Task objects with their own strings
    were 52 MB of the build's process (traced), counted again by each render process it forks
    (their pages are shared, but each process maps them); packed, 14 MB (docs/scale.md,
    session 27)."""

    __slots__ = ("_paths", "_ends", "_groups", "_names", "_weights", "_digests", "_folders")

    def __init__(self, files: Sequence[Job], folders: Sequence[Job] = ()) -> None:
        encoded = [j.rel_path.encode() for j in files]
        names: dict[str, int] = {}
        self._paths = b"".join(encoded)
        self._ends = array("Q", itertools.accumulate(map(len, encoded)))
        self._groups = array("I", (names.setdefault(j.task.group, len(names)) for j in files))
        self._names = tuple(names)
        self._weights = array("q", (j.task.weight for j in files))
        self._digests = b"".join(map(_packed, (j.digest for j in files)))
        self._folders = tuple(folders)

    def with_folders(self, folders: Sequence[Job]) -> ThinPlan:
        """The same file jobs, then ``folders``."""
        plan = object.__new__(ThinPlan)
        for name in ThinPlan.__slots__:
            setattr(plan, name, getattr(self, name))
        plan._folders = tuple(folders)
        return plan

    @property
    def folders(self) -> tuple[Job, ...]:
        return self._folders

    def __len__(self) -> int:
        return len(self._ends) + len(self._folders)

    @overload
    def __getitem__(self, i: int) -> Job: ...
    @overload
    def __getitem__(self, i: slice) -> list[Job]: ...

    def __getitem__(self, i: int | slice) -> Job | list[Job]:
        if isinstance(i, slice):
            return [self[n] for n in range(*i.indices(len(self)))]
        n = len(self._ends)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        if i >= n:
            return self._folders[i - n]
        path, digest = self._file(i)
        return Job(Task(path, made_again, self._names[self._groups[i]], self._weights[i]), digest)

    def __iter__(self) -> Iterator[Job]:
        return map(self.__getitem__, range(len(self)))

    def outline(self, places: Iterable[int] | None = None) -> Iterator[tuple[str, str, bool]]:
        """(path, digest, whether a folder) of each job, or of those at ``places``, in order,
        without making the jobs (``jobs.outline``): a rebuild walks its plan several times."""
        n = len(self._ends)
        for i in range(len(self)) if places is None else places:
            if i >= n:
                job = self._folders[i - n]
                yield job.rel_path, job.digest, job.folder
            else:
                yield *self._file(i), False

    def _file(self, i: int) -> tuple[str, str]:
        """(path, digest) of the file job ``i``."""
        return (self._paths[self._ends[i - 1] if i else 0:self._ends[i]].decode(),
                self._digests[i * DIGEST:(i + 1) * DIGEST].hex())


def _packed(digest: str) -> bytes:
    try:
        packed = bytes.fromhex(digest)
    except ValueError:
        packed = b""
    if len(packed) != DIGEST or packed.hex() != digest:
        raise ValueError(f"a job's digest is not {2 * DIGEST} hex digits (generator.render.jobs): {digest!r}")
    return packed


def plan_apart(plan: Callable[[], list[Job]], folders: Sequence[Job]) -> ThinPlan:
    """``plan()``'s jobs, planned in a forked process and sent here packed, with ``folders`` (the
    folder jobs ``plan`` puts at the end, planned already in this process) in place of its own."""
    packed, theirs = run_apart(lambda: _thin(plan()), "the planning process")
    if theirs != [(j.rel_path, j.digest) for j in folders]:
        raise RuntimeError("the planning process planned other folder jobs than the build's "
                           f"(generator.render.apart): {theirs!r}")
    return packed.with_folders(folders)


def _thin(planned: list[Job]) -> tuple[ThinPlan, list[tuple[str, str]]]:
    """The plan to send: its file jobs packed, and its folder jobs' paths and digests
    (``FolderTask``s end the plan: ``plan_site``)."""
    n = sum(1 for j in planned if not isinstance(j.task, FolderTask))
    files, folders = planned[:n], planned[n:]
    if any(isinstance(j.task, FolderTask) for j in files):
        raise RuntimeError("a folder job before a file job in the plan (generator.render.apart)")
    return ThinPlan(files), [(j.rel_path, j.digest) for j in folders]
