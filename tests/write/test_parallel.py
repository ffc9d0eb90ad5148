"""generator.write.parallel: groups are claimed by whichever process is free, and the output does not
depend on which process made a file. Real forked processes writing real files."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from generator.core.errors import SiteError
from generator.write.parallel import ordered_groups, run_tasks
from generator.render.tasks import Task


def _pid_after(seconds: float) -> bytes:
    time.sleep(seconds)
    return str(os.getpid()).encode()


def _slow_and_quick() -> list[Task]:
    # The slow group is the heaviest, so process 0 starts with it. A static deal by weight would
    # have given process 0 about half of the quick groups as well (200 + 150 * 10 against 150 * 10);
    # claimed as the processes get free, the other process runs all of them while it sleeps.
    slow = Task("slow", lambda: _pid_after(1.0), "a-slow", 200)
    quick = [Task(f"quick-{i:02d}", lambda: _pid_after(0.0), f"b-quick-{i:02d}", 150) for i in range(20)]
    return [*quick, slow]


def test_groups_are_ordered_heaviest_first_and_never_split() -> None:
    tasks = [Task("x1", bytes, "x", 1), Task("y", bytes, "y", 5), Task("x2", bytes, "x", 3), Task("z", bytes, "z", 4)]
    assert [[t.rel_path for t in g] for g in ordered_groups(tasks)] == [["y"], ["x1", "x2"], ["z"]]


def test_a_free_process_claims_the_groups_a_busy_one_would_have_been_dealt(tmp_path: Path) -> None:
    written = run_tasks(_slow_and_quick(), tmp_path, 2)
    pids = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert len(pids) == 21 and written == sum(len(v) for v in pids.values())
    quick = {v for k, v in pids.items() if k.startswith("quick")}
    assert len(quick) == 1 and pids["slow"] not in quick, pids


def test_one_process_runs_every_group_in_order(tmp_path: Path) -> None:
    run_tasks(_slow_and_quick(), tmp_path, 1)
    assert {p.read_text() for p in tmp_path.iterdir()} == {str(os.getpid())}


def test_a_long_run_says_how_far_it_is(caplog) -> None:  # noqa: ANN001 - pytest fixture
    """Long work shows progress: the first process says, every few seconds, about how many of the
    run's jobs have begun; never once all are."""
    from generator.write.parallel import Progress

    groups = ordered_groups([Task(f"t{i}", bytes, f"g{i}", 1) for i in range(10)])
    progress = Progress(10, every=0.0)
    with caplog.at_level("INFO", logger="generator.write.parallel"):
        progress.done(4, groups)
        progress.done(10, groups)
    assert [r.getMessage() for r in caplog.records] == ["rendering: about 40% of 10 jobs"]
    quiet = Progress(10, every=60.0)
    caplog.clear()
    quiet.done(4, groups)
    assert not caplog.records


def test_apart_the_calling_process_renders_nothing(tmp_path: Path) -> None:
    """A build over the index runs each chunk of its plan apart: its own process forks one render
    process per worker and writes no file itself, so what rendering leaves (caches, the
    allocator's scraps) never grows the process the next chunk is forked from."""
    written = run_tasks(_slow_and_quick(), tmp_path, 2, apart=True)
    pids = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert len(pids) == 21 and written == sum(len(v) for v in pids.values())
    assert str(os.getpid()) not in pids.values() and len(set(pids.values())) == 2, pids


def _die() -> bytes:
    os._exit(3)


def test_a_render_process_that_dies_stops_the_run_apart_or_not(tmp_path: Path) -> None:
    """The run says a process died, whichever process it was and whatever the others were doing
    (one waiting for a group would otherwise wait for ever), and leaves no process running."""
    tasks = [Task("dies", _die, "a-dies", 5000), *_slow_and_quick()]
    for apart in (True, False):
        with pytest.raises(SiteError, match="a render process died before finishing"):
            run_tasks(tasks, tmp_path / str(apart), 2, apart=apart)
        assert multiprocessing.active_children() == []
