"""Processes forked beside the build: a helper that only speeds it up, and what every fork needs.

Pure process plumbing (no site, no stage): the render pool (generator.write.parallel) forks with
``signals_held`` and ``die_with_parent``; accelerators and the config loader fork a helper with
``fork_helper`` and stop it with ``stop_helper``.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import signal
from typing import Callable, Iterator

_PR_SET_PDEATHSIG = 1        # linux/prctl.h


@functools.lru_cache(maxsize=1)
def _prctl() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):   # not Linux
        return None


def die_with_parent(sig: int) -> Callable[[], None] | None:
    """A function that asks the kernel to send ``sig`` to the calling process when the thread
    that forked it exits (Linux's PR_SET_PDEATHSIG), for a child's first act or a
    ``preexec_fn``; None where the kernel cannot. Looked up before forking, so the child only
    makes one C call. Why: a process orphaned by a build killed outright (``kill -9`` of the
    build alone) would go on writing into a staging folder that the next build recreates at
    the same path."""
    prctl = _prctl()
    if prctl is None:
        return None
    return functools.partial(prctl, _PR_SET_PDEATHSIG, sig)


HELD = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def signals_held() -> Iterator[set[signal.Signals]]:
    """SIGINT and SIGTERM held (blocked) while forking; yields the mask to restore in a child.
    A signal that lands during a fork runs its handler inside the fork's hooks (logging releases
    its lock there), where the exception it raises is printed and dropped: the build went on,
    with a traceback, after a Ctrl-C or a CI runner's SIGTERM. Held, the signal is delivered
    when the fork is done, to a parent that handles it as anywhere else."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield old
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def fork_helper(work: Callable[[], object]) -> int:
    """Fork a helper process that runs ``work`` and exits (status 0 if it returned, 1 if it
    raised), silent (logging off) and without Python's teardown, and dies with the thread that
    forked it (``die_with_parent``); returns its pid, or -1 when it cannot fork. For work that
    only speeds a build up (generator.incremental.snapshot, config.authors, incremental.prelink): the caller makes
    whatever the helper did not, and stops it with ``stop_helper``."""
    die = die_with_parent(signal.SIGKILL)
    with signals_held() as mask:
        try:
            pid = os.fork()
        except OSError:
            return -1
        if pid == 0:
            _helper(work, die, mask)
    return pid


def _helper(work: Callable[[], object], die: Callable[[], None] | None, mask: set[signal.Signals]) -> None:
    """The child of ``fork_helper``: it never returns."""
    code = 1
    try:
        if die is not None:
            die()
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        logging.disable(logging.CRITICAL)
        work()
        code = 0
    finally:
        os._exit(code)


def stop_helper(pid: int) -> None:
    """Kill and reap a helper of ``fork_helper`` that may still run (a pid <= 0 is none)."""
    if pid > 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
