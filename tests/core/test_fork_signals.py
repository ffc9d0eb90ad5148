"""A Ctrl-C or a CI runner's SIGTERM that lands while the build forks leaves no process of the
build running. Forks hold SIGINT and SIGTERM (generator.core.processes.signals_held), so such a
signal lands as the fork ends, in the parent: the process just forked must be known by then, or
nothing stops it. A render process left so went on writing into the staging folder while the
build removed it, and the folder stayed (seen once in CI: tests/battery/test_output_kill.py,
test_d4_signal_during_build[SIGINT]).

The signal is sent here from an at-fork hook, so it lands in that window every time, in a fresh
interpreter (a hook cannot be taken back)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os, signal, sys, time
from pathlib import Path

fired = []

def signal_once():
    if not fired:
        fired.append(True)
        os.kill(os.getpid(), signal.SIGINT)

def slow():
    time.sleep(3)
    (dest / f"late-{os.getpid()}").write_text("written after the build stopped")
    return b"x"

signal.signal(signal.SIGINT, signal.default_int_handler)
case, dest = sys.argv[1], Path(sys.argv[2])
from generator.core.processes import fork_helper, run_apart
from generator.write.parallel import run_tasks
from generator.render.tasks import Task
os.register_at_fork(after_in_parent=signal_once)
try:
    if case == "render":
        run_tasks([Task(f"p{i}", slow, f"g{i}", 5000) for i in range(2)], dest, 2)
    elif case == "apart":
        run_apart(slow, "a test")
    else:
        fork_helper(slow)
    print("not interrupted")
except KeyboardInterrupt:
    try:
        left = os.waitpid(-1, os.WNOHANG)[0] == 0
    except ChildProcessError:
        left = False
    print("a process left running" if left else "none left")
"""


@pytest.mark.parametrize("case", ["render", "apart", "helper"])
def test_a_signal_held_during_a_fork_stops_what_was_forked(tmp_path: Path, case: str) -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT, case, str(tmp_path)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.stdout.strip() == "none left", (run.stdout, run.stderr)


SWALLOWED = """
import os, signal, sys, time, weakref
from generator.core.processes import enter_worker

enter_worker(os.getppid())

class Held:
    pass

def callback(_):   # as the import system's module locks have one (seen in CI: test_d4_signal_during_build)
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(100_000):   # the handler runs in here, where its exception cannot rise
        pass

held = Held()
ref = weakref.ref(held, callback)
del held
time.sleep(20)
print("went on with its work")
"""


def test_a_stop_that_lands_in_a_callback_still_ends_the_worker_with_no_traceback() -> None:
    """A worker's SIGTERM handler unwinds by raising; in a weakref callback or ``__del__`` Python prints
    such an exception as "Exception ignored" and drops it, so the worker went on and its traceback
    reached the build's output (processes.exit_when_swallowed)."""
    res = subprocess.run([sys.executable, "-c", SWALLOWED], cwd=ROOT, capture_output=True, text=True, timeout=15)
    assert (res.returncode, res.stdout) == (128 + 15, ""), (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr and "Exception ignored" not in res.stderr, res.stderr
