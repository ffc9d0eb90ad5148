"""The search index of a rebuild, made by a forked process while the build plans and renders.

A rebuild that changes a record changes the search index, the longest job there is (about 2.5 s
at 1,000 x 100, one process): run among the pages, it starts after the whole plan and ends
last. Its digest is known once the site is assembled, before planning (about 1.5 s there), so
when it differs from the last build's, a forked process makes it then, into a scratch folder
beside the output (on the output's file system); the job's turn comes, and the build takes
the folder into staging in one rename (``take``).

Only an accelerator, for rebuilds (a cold build runs every job on every core anyway): the
index is made by the same task as in the render processes, so the bytes are the same, and the
build runs the job itself whenever the helper has not made it (it failed, was killed, or the
job's digest is not the one it made). ``stop`` kills the helper and removes its folder; the
next build with a search index removes a folder that a build killed outright left (``clear``).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import time
from pathlib import Path

from generator.jobs import Job, Manifest
from generator.output import clear_spare, index_scratch_dir, safe_rel
from generator.processes import fork_helper, stop_helper

log = logging.getLogger(__name__)

# At most this share of the authors assembled anew (the others kept from the last build): a
# rebuild, where the index would otherwise run alone after the pages.
REBUILD_SHARE = 0.1


class EarlyIndex:
    """A search index job made by a forked process (``start``), taken into staging (``take``)."""

    def __init__(self, job: Job, pid: int, folder: Path) -> None:
        self.job, self.pid, self.folder = job, pid, folder

    @classmethod
    def start(cls, job: Job, manifest: Manifest | None, out_dir: Path) -> EarlyIndex | None:
        """Fork a process making ``job`` (a folder job) when the last build's ``manifest`` holds
        another digest for it; None when there is nothing to do or no fork."""
        if manifest is None or manifest.outputs.get(job.rel_path) == job.digest:
            return None
        folder = index_scratch_dir(out_dir)
        try:
            folder.mkdir(mode=0o755)
        except OSError as exc:
            log.debug("search index not made early: %s", exc)
            return None
        pid = fork_helper(functools.partial(job.task.fill, folder))   # type: ignore[union-attr]
        if pid < 0:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return cls(job, pid, folder)

    @staticmethod
    def clear(out_dir: Path) -> None:
        """Remove what a build killed outright left (never a symlink's target)."""
        folder = index_scratch_dir(out_dir)
        if folder.is_symlink() or folder.is_file():
            folder.unlink()
        elif folder.exists():
            shutil.rmtree(folder, ignore_errors=True)

    def take(self, job: Job, staging: Path) -> bool:
        """Wait for the helper; if it made ``job`` (the same path and digest), move its folder
        into ``staging`` and return True, else False (the build runs the job itself)."""
        if job.rel_path != self.job.rel_path or job.digest != self.job.digest or not self._wait():
            return False
        rel = safe_rel(job.rel_path)
        made = self.folder / rel
        if not made.is_dir():
            return False
        clear_spare(staging / rel)   # the previous build's empty folders, if any
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        os.rename(made, staging / rel)
        log.debug("search index: made meanwhile by a helper process")
        return True

    def stop(self) -> None:
        """Kill the helper if it still runs, and remove its folder."""
        stop_helper(self.pid)
        self.pid = -1
        shutil.rmtree(self.folder, ignore_errors=True)

    def _wait(self) -> bool:
        """Whether the helper finished its job (exit status 0); it is reaped."""
        if self.pid <= 0:
            return self.pid == 0
        started = time.perf_counter()
        _, status = os.waitpid(self.pid, 0)
        log.debug("waited %.2f s for the search index's helper", time.perf_counter() - started)
        self.pid = 0 if os.waitstatus_to_exitcode(status) == 0 else -1
        return self.pid == 0
