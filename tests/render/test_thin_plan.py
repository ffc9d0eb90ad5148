"""The plan over the index kept packed (generator.render.apart.ThinPlan), the views a build takes of
it (generator.render.jobs.split: ``Picked``), and the chunks its tasks are made again in
(generator.render.remake): each gives the jobs the list it replaces gave, in the same order."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from generator.render import jobs, remake
from generator.render.apart import ThinPlan, _thin
from generator.render.tasks import FolderTask, Task, made_again


def _job(path: str, group: str, weight: int, digest: str) -> jobs.Job:
    return jobs.Job(Task(path, made_again, group, weight), digest)


FILES = [
    _job("index.html", "site", 3, "0" * 32),
    _job("authors/ada/index.html", "author:ada", 120, "0123456789abcdef" * 2),
    _job("authors/ada/feed.xml", "author:ada", 40, "f" * 32),
    _job("authors/zoë-ñ/index.html", "author:zoë-ñ", 7, "a1" * 16),   # (paths are not all ASCII)
    _job("subjects/cs.LG/index.html", "subject:cs.LG", 2 ** 40, "9" * 32),
]
FOLDER = jobs.Job(FolderTask("search", lambda staging: 0), "e" * 32)


def test_a_packed_plan_gives_the_jobs_it_was_made_of_in_order() -> None:
    plan = ThinPlan(FILES).with_folders([FOLDER])
    assert len(plan) == len(FILES) + 1
    assert list(plan) == [*FILES, FOLDER]
    assert [plan[i] for i in range(-len(plan), len(plan))] == [*FILES, FOLDER] * 2
    assert plan[1:4] == FILES[1:4] and plan[::-1] == [FOLDER, *FILES[::-1]]
    assert plan.folders == (FOLDER,)
    with pytest.raises(IndexError):
        plan[len(plan)]
    # The groups' names are shared, not a string a job.
    assert plan[1].task.group is plan[2].task.group


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "list"])
def test_the_outline_of_a_plan_and_of_its_views_is_their_jobs_paths_digests_and_kinds(packed: bool) -> None:
    """``jobs.outline`` (what a rebuild walks its plan for, several times) gives what the jobs
    give, without making them from a packed plan; likewise for a view of some of them."""
    plan = ThinPlan(FILES).with_folders([FOLDER]) if packed else [*FILES, FOLDER]
    want = [(j.rel_path, j.digest, j.folder) for j in [*FILES, FOLDER]]
    assert list(jobs.outline(plan)) == want
    picked = jobs.Picked(plan, [4, 0, 5, 2])
    assert list(jobs.outline(picked)) == [want[4], want[0], want[5], want[2]]
    assert list(jobs.outline(jobs.Picked(plan, []))) == []


def test_a_packed_plan_survives_the_pipe_from_the_planning_process() -> None:
    packed, folders = _thin([*FILES, FOLDER])
    assert folders == [("search", "e" * 32)]
    again = pickle.loads(pickle.dumps(packed, pickle.HIGHEST_PROTOCOL))
    assert list(again.with_folders([FOLDER])) == [*FILES, FOLDER]


@pytest.mark.parametrize("digest", ["ABCDEF" + "0" * 26, "0" * 31, "0" * 33, "z" * 32, ""])
def test_a_digest_that_would_not_come_back_the_same_is_refused(digest: str) -> None:
    with pytest.raises(ValueError, match="hex digits"):
        ThinPlan([_job("a.html", "site", 1, digest)])


def test_a_folder_job_before_a_file_job_is_refused() -> None:
    with pytest.raises(RuntimeError, match="folder job before a file job"):
        _thin([FOLDER, *FILES])


@pytest.mark.parametrize("packed", [False, True])
def test_split_views_hold_the_jobs_a_list_would(tmp_path: Path, packed: bool) -> None:
    plan: list[jobs.Job] | ThinPlan = ThinPlan(FILES).with_folders([FOLDER]) if packed else [*FILES, FOLDER]
    for j in (FILES[0], FILES[3]):
        (tmp_path / j.rel_path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / j.rel_path).write_text("x")
    # Reused: same digest and its file there. Run: another digest, or no file, or never made.
    outputs = {FILES[0].rel_path: FILES[0].digest, FILES[3].rel_path: FILES[3].digest,
               FILES[1].rel_path: "1" * 32, FILES[2].rel_path: FILES[2].digest}
    reuse, run = jobs.split(plan, jobs.Manifest("", outputs), tmp_path)
    assert list(reuse) == [FILES[0], FILES[3]]
    assert list(run) == [FILES[1], FILES[2], FILES[4], FOLDER]
    assert len(run) == 4 and run[-1] == FOLDER and run[1:3] == [FILES[2], FILES[4]]
    tasks = run.tasks()
    assert len(tasks) == 4 and list(tasks) == [FILES[1].task, FILES[2].task, FILES[4].task, FOLDER.task]
    assert tasks[0] == FILES[1].task and tasks[2:] == [FILES[4].task, FOLDER.task]


def _whole(path: str) -> Task:
    return Task(path, lambda: b"", "site", 1)


def _remake(monkeypatch: pytest.MonkeyPatch, made: list[Task], chunk: int) -> remake.Remake:
    """A Remake whose planning again makes ``made`` (the model's tasks, in its order)."""
    monkeypatch.setattr(remake, "iter_tasks", lambda env, site, taxonomy, root: iter(made))
    monkeypatch.setattr(remake, "CHUNK", chunk)
    return remake.Remake(None, None, None, None)   # type: ignore[arg-type]


def test_remade_chunks_are_the_runs_tasks_whole_in_plan_order(monkeypatch: pytest.MonkeyPatch) -> None:
    made = [_whole(f"p{n}.html") for n in range(10)]
    again = _remake(monkeypatch, made, 3)
    wanted = [made[n] for n in (1, 2, 4, 7, 8, 9)]
    run = [FOLDER.task, *(t.thin() for t in wanted)]
    chunks = list(again.chunks(run))
    assert chunks == [[FOLDER.task, wanted[0], wanted[1]], wanted[2:5], wanted[5:]]
    assert all(not t.thinned for c in chunks for t in c)


@pytest.mark.parametrize("order", ["missing", "swapped"])
def test_a_task_not_planned_again_in_its_place_stops_the_run(monkeypatch: pytest.MonkeyPatch, order: str) -> None:
    made = [_whole(f"p{n}.html") for n in range(6)]
    thin = [made[1].thin(), made[3].thin(), made[4].thin()]
    if order == "swapped":
        thin[1], thin[2] = thin[2], thin[1]
    else:
        thin.insert(1, _whole("gone.html").thin())
    again = _remake(monkeypatch, made, 100)
    with pytest.raises(RuntimeError, match=r"of the plan's tasks were not planned again, in its order, from "
                                           r"(gone|p3)\.html on"):
        list(again.chunks(thin))
