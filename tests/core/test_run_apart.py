"""Work run in a process of its own (generator.core.processes.run_apart: the plan over the index,
generator.render.apart) hands back its value, or the very error it raised, and never outlives
the build that forked it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.core.errors import SiteError
from generator.core.processes import run_apart

ROOT = Path(__file__).resolve().parents[2]


def test_the_value_comes_back_from_another_process() -> None:
    assert run_apart(lambda: (os.getpid(), list(range(100_000))), "a test") [1] == list(range(100_000))
    assert run_apart(os.getpid, "a test") != os.getpid()


def _site_error() -> None:
    raise SiteError("two pages would be written to the same file 'a/index.html'", path="content/pages/a.md",
                    line=3, hint="rename one", exit_code=2)


def test_a_site_error_arrives_as_itself() -> None:
    with pytest.raises(SiteError) as caught:
        run_apart(_site_error, "the planning process")
    exc = caught.value
    assert (exc.message, exc.path, exc.line, exc.hint, exc.exit_code) == (
        "two pages would be written to the same file 'a/index.html'", "content/pages/a.md", 3, "rename one", 2)


def _disk_full() -> None:
    raise OSError(28, "No space left on device", "/out/x.html")


def _bug() -> None:
    raise KeyError("no such author")


def test_a_write_failure_and_a_bug_arrive_as_what_they_are() -> None:
    with pytest.raises(OSError) as caught:
        run_apart(_disk_full, "the planning process")
    assert (caught.value.errno, caught.value.filename) == (28, "/out/x.html")
    with pytest.raises(RuntimeError, match=r"(?s)the planning process failed:.*KeyError: 'no such author'"):
        run_apart(_bug, "the planning process")


def test_a_process_that_dies_says_so() -> None:
    with pytest.raises(SiteError, match="the planning process died before finishing"):
        run_apart(lambda: os._exit(3), "the planning process")


_ORPHAN = """
import os, sys, time
from generator.core.processes import run_apart
def work():
    open(sys.argv[1], "w").write(str(os.getpid()))
    time.sleep(600)
run_apart(work, "a test")
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:   # (a zombie is dead, waiting to be reaped by init)
        return f.read().split(") ", 1)[1][0] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_process_apart_dies_with_the_build(tmp_path: Path, sig: int) -> None:
    pidfile = tmp_path / "pid"
    build = subprocess.Popen([sys.executable, "-c", _ORPHAN, str(pidfile)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        for _ in range(300):
            if pidfile.is_file() and pidfile.read_text():
                break
            time.sleep(0.05)
        child = int(pidfile.read_text())
        build.send_signal(sig)
        build.wait(timeout=60)
        for _ in range(600):   # (a liveness bound, not a timing: the kernel signals it at once)
            if not _alive(child):
                break
            time.sleep(0.05)
        assert not _alive(child), "the process apart outlived the build"
    finally:
        build.kill()
        build.wait()
