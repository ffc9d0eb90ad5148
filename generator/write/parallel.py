"""Render and write a site's files on every core.

Tasks are grouped (an author's page, feed and exports share that author's rendered record
partials) and the groups ordered by weight, heaviest first: process k starts with group k,
then each process claims the next unclaimed group whenever it is free (a counter in shared
memory), so a share that the weights misjudge, or a core another program holds, does not
leave the other processes idle at the end (a static deal by weight ended 5 s apart on a 34 s
run at 1,000 x 100). The build's own process starts with the last of the first groups, a forked
one with the heaviest (the search index's, when it runs): what a process allocates stays with
it. A build over the index forks its processes again for each chunk of its plan
(generator.render.remake), each at the size of the build's process then, so there the build's
process renders nothing (``apart``): rendering its share of each chunk grew it by 25-30 MB a
chunk at 20,000 x 100 (its caches of records and partials filling, and the allocator's scraps),
and every later fork started that much larger.
Processes are forked after the model is loaded and the GC frozen, so they share the loaded
records copy-on-write and nothing is pickled but a count.
A build enters a ``Pool`` before it loads anything: the GC tuning that makes this cheap
is the pool's business alone (see ``Pool``).
Each process writes its own files into the staging folder; which process made a
file never changes its bytes, so the output is the same for any number of workers.

Forking a process that runs threads is unsafe (a lock held by another thread stays
held in the child), so the preview server, which builds from a watcher thread,
uses one worker.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import time
from collections import defaultdict
from multiprocessing.connection import Connection, wait
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from generator.core.errors import SiteError
from generator.write.output import clear_spare, safe_rel, write_file
from generator.core.processes import enter_worker, give_back, outcome, report, signals_held
from generator.render.tasks import FolderTask, Task

if TYPE_CHECKING:
    from generator.render.remake import Remake

log = logging.getLogger(__name__)

MIN_PARALLEL_WEIGHT = 3000   # below this, forking costs more than it saves


def default_workers() -> int:
    env = os.environ.get("AUTHORSITE_WORKERS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_unique(tasks: Sequence[Task | FolderTask]) -> None:
    seen: set[str] = set()
    for t in tasks:
        if t.rel_path in seen:
            raise SiteError(f"two pages would be written to the same file '{t.rel_path}'",
                            hint="two authors, subjects or pages map to one address")
        seen.add(t.rel_path)


def group_weights(tasks: Iterable[Task | FolderTask]) -> dict[str, int]:
    """Each group's estimated cost: the weights of its tasks summed (a group is never split:
    here among the processes, and among the shards of a build, generator.write.shard)."""
    weights: dict[str, int] = defaultdict(int)
    for t in tasks:
        weights[t.group] += t.weight
    return weights


def ordered_groups(tasks: Sequence[Task | FolderTask]) -> list[list[Task | FolderTask]]:
    """The tasks by group (a group is never split), heaviest group first, then by name."""
    groups: dict[str, list[Task | FolderTask]] = defaultdict(list)
    for t in tasks:
        groups[t.group].append(t)
    weights = group_weights(tasks)
    return [groups[g] for g in sorted(groups, key=lambda g: (-weights[g], g))]


class _Claims:
    """The next group to run, shared by the processes of one run (a counter in shared memory).
    Process k runs group k first, then claims the next unclaimed one until none is left.
    ``lost`` says whether another process of the run died: one killed while it held the
    counter's lock would otherwise leave the others waiting for it for ever."""

    def __init__(self, ctx: multiprocessing.context.BaseContext, workers: int) -> None:
        self._next = ctx.Value("q", workers)

    def runs(self, groups: Sequence[Sequence[Task | FolderTask]], first: int,
             lost: Callable[[], bool]) -> Iterator[Sequence[Task | FolderTask]]:
        i = first
        while i < len(groups):
            yield groups[i]
            i = self._claim(lost)

    def started(self) -> int:
        """How many groups the processes have begun (claimed, or taken first)."""
        return int(self._next.value)

    def _claim(self, lost: Callable[[], bool]) -> int:
        lock = self._next.get_lock()
        while not lock.acquire(timeout=0.5):
            if lost():
                raise SiteError("a render process died before finishing", hint="run the build again")
        try:
            i = self._next.value
            self._next.value = i + 1
        finally:
            lock.release()
        return i


def _run(task: Task | FolderTask, dest: Path) -> int:
    if isinstance(task, FolderTask):
        clear_spare(dest / safe_rel(task.rel_path))   # a task makes its own folder
        return task.fill(dest)
    return write_file(dest, task.rel_path, task.make())


def _run_share(share: Iterable[Task | FolderTask], dest: Path) -> int:
    return sum(_run(t, dest) for t in share)


def _run_claimed(groups: Sequence[Sequence[Task | FolderTask]], claims: _Claims, first: int, dest: Path,
                 lost: Callable[[], bool], progress: Progress | None = None) -> int:
    total = 0
    for group in claims.runs(groups, first, lost):
        total += _run_share(group, dest)
        if progress is not None:
            progress.done(claims.started(), groups)
    return total


class Progress:
    """A line every ``every`` seconds while the jobs of one run are rendered ("rendering: about
    40% of 8,952 jobs"), so long work shows it is going: a 1,000-author build renders for
    ten seconds or more, a 5,000-author one for a minute. Said by the first process only, from
    the groups claimed so far (the others' are counted as started)."""

    def __init__(self, tasks: int, every: float = 5.0, before: int = 0) -> None:
        self.tasks, self.every, self.before = tasks, every, before   # (before: run in earlier chunks)
        self._last = time.monotonic()

    def done(self, groups_started: int, groups: Sequence[Sequence[Task | FolderTask]]) -> None:
        now = time.monotonic()
        if now - self._last < self.every or groups_started >= len(groups):
            return
        self._last = now
        started = self.before + sum(len(g) for g in groups[:groups_started])
        log.info("rendering: about %d%% of %s jobs", 100 * started // max(self.tasks, 1), f"{self.tasks:,}")


def _child(groups: Sequence[Sequence[Task | FolderTask]], claims: _Claims, first: int, dest: Path,
           conn: Connection, parent: int, progress: Progress | None) -> None:
    # The parent stops its workers with SIGTERM when it fails, and the kernel does when the
    # parent dies: unwind, so that a tool a task runs is killed and its temporary folder
    # removed (subprocess.run and TemporaryDirectory clean up on the way out).
    enter_worker(parent)
    report(conn, lambda: _run_claimed(groups, claims, first, dest, lambda: os.getppid() != parent, progress))


def forks(tasks: Sequence[Task | FolderTask], workers: int) -> bool:
    """Whether ``run_tasks`` runs these tasks on forked processes (else in this one)."""
    return workers > 1 and sum(t.weight for t in tasks) >= MIN_PARALLEL_WEIGHT


def run_tasks(tasks: Sequence[Task | FolderTask], dest: Path, workers: int, progress: Progress | None = None,
              apart: bool = False) -> int:
    """Make and write every task's file under ``dest``; return the bytes written. ``apart``: this
    process renders none of them when it forks; its ``workers`` forked processes render all."""
    check_unique(tasks)
    if not forks(tasks, workers):   # by group too: a group's tasks read the same records (generator.index.lazy)
        return _run_share([t for group in ordered_groups(tasks) for t in group], dest)
    groups = ordered_groups(tasks)
    progress = progress or Progress(len(tasks))
    give_back()   # (what this process freed, the last chunk's tasks among it: not mapped by those it forks)
    ctx = multiprocessing.get_context("fork")
    children: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
    claims = _Claims(ctx, workers)
    try:
        for first in range(workers if apart else workers - 1):   # (the heaviest to a forked process: see above)
            recv, send = ctx.Pipe(duplex=False)
            said = progress if apart and first == 0 else None
            proc = ctx.Process(target=_child, args=(groups, claims, first, dest, send, os.getpid(), said), daemon=True)
            with signals_held():   # the child unblocks them once its handler is set (_child)
                proc.start()
                children.append((proc, recv))   # (before a signal held meanwhile lands: it is stopped below)
            send.close()
        total = 0 if apart else _run_claimed(groups, claims, workers - 1, dest,
                                             lambda: any(not proc.is_alive() for proc, _ in children), progress)
        return total + _outcomes([recv for _, recv in children])
    finally:
        for proc, recv in children:
            if proc.is_alive():
                proc.terminate()
            proc.join()
            recv.close()


def _outcomes(conns: list[Connection]) -> int:
    """The bytes each forked process wrote, as each says; the first that fails or dies raises
    (its siblings are stopped by the caller: one waiting for the claims' lock of a process
    killed while it held it would wait for ever)."""
    total = 0
    waiting = list(conns)
    while waiting:
        for conn in wait(waiting):
            total += outcome(conn, "a render process")  # type: ignore[arg-type]  # (wait gives back what it was given)
            waiting.remove(conn)  # type: ignore[arg-type]
    return total


class Pool:
    """The render processes of one build, entered before the model is loaded.

    The cyclic GC re-scans every loaded record object again and again while pages are
    rendered (measured in ../shared/bench: 10.4 s -> 5.5 s at 1,000 x 100). Nothing a build
    loads forms garbage cycles, so the GC is paused from ``__enter__`` (while the caller
    loads), and ``run`` freezes what was loaded before forking: the children then never
    touch those objects' GC headers, and the pages stay shared copy-on-write. ``__exit__``
    puts the GC back as it was."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = default_workers() if workers is None else workers
        self._gc_was_enabled = True
        self.remake: Remake | None = None   # how a plan kept thin makes its tasks again (render.remake)

    def __enter__(self) -> Pool:
        self._gc_was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        gc.unfreeze()
        if self._gc_was_enabled:
            gc.enable()

    def run(self, tasks: Sequence[Task | FolderTask], dest: Path) -> int:
        """``run_tasks`` on this pool's processes, once the loaded model is frozen; given a plan
        kept thin (``remake``), a chunk at a time, the processes forked again for each."""
        gc.enable()
        if self.remake is None:
            gc.freeze()
            return run_tasks(tasks, dest, self.workers)
        total = done = 0
        for chunk in self.remake.chunks(tasks):
            gc.freeze()
            total += run_tasks(chunk, dest, self.workers, Progress(len(tasks), before=done), apart=True)
            done += len(chunk)
        return total
