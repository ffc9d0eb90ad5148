"""Processes forked beside the build: a helper that only speeds it up, and what every fork needs.

Pure process plumbing (no site, no stage): the render pool (generator.write.parallel) forks with
``signals_held`` and ``enter_worker``, and hears from its processes with ``report``/``outcome``;
``run_apart`` runs one piece of work in a process of its own (the plan over the index,
generator.render.apart); accelerators and the config loader fork a helper with ``fork_helper``
and stop it with ``stop_helper``; ``give_back`` returns freed memory to the system before a fork.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import multiprocessing
import os
import signal
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any, Callable, Iterator, TypeVar

from generator.core.errors import SiteError

T = TypeVar("T")

_PR_SET_PDEATHSIG = 1        # linux/prctl.h


@functools.lru_cache(maxsize=1)
def _prctl() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):   # not Linux
        return None


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):   # not glibc
        return None


def give_back() -> None:
    """Hand the C allocator's free pages back to the system (glibc's ``malloc_trim``), before a
    fork: what the process freed stays in its heap otherwise, counted in its resident size and in
    that of every process it forks (their pages shared, but each maps them). At 20,000 x 100 the
    build's process held 311 MB after the plan, 262 MB after it (tracemalloc on). Changes no
    byte of any output; a no-op where there is no ``malloc_trim``."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


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
    pid = -1
    try:
        with signals_held() as mask:
            try:
                pid = os.fork()
            except OSError:
                return -1
            if pid == 0:
                _helper(work, die, mask)
    except BaseException:   # a signal held during the fork, landing as the block ends: the helper
        stop_helper(pid)    # would go on until the build exits, unknown to its caller
        raise
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


def report(conn: Connection, work: Callable[[], object]) -> None:
    """In a forked process: run ``work`` and send its outcome to the parent (``outcome`` reads it):
    its value, or the error it raised as what the parent raises again (a SiteError as itself, an
    OSError such as a full disk as the write failure it is, anything else as a bug, with its
    traceback)."""
    try:
        conn.send(("ok", work()))
    except SystemExit:
        raise
    except SiteError as exc:
        conn.send(("error", exc.message, exc.path, exc.line, exc.hint, exc.exit_code))
    except OSError as exc:
        conn.send(("oserror", exc.errno, exc.strerror, exc.filename))
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("bug", traceback.format_exc()))
    finally:
        conn.close()


def outcome(conn: Connection, what: str) -> Any:  # noqa: ANN401 - whatever the work returned
    """The value ``report`` sent, or its error raised here; ``what`` names the process in the
    message when it died before saying ("a render process")."""
    try:
        result = conn.recv()
    except EOFError:
        raise SiteError(f"{what} died before finishing", hint="run the build again") from None
    if result[0] == "error":
        _, message, path, line, hint, code = result
        raise SiteError(message, path=path, line=line, hint=hint, exit_code=code)
    if result[0] == "oserror":
        raise OSError(*result[1:])
    if result[0] == "bug":
        raise RuntimeError(f"{what} failed:\n{result[1]}")
    return result[1]


class Stopped(SystemExit):
    """A forked worker's exit for a stop signal (``stop_on_term``)."""


def stop_on_term(signum: int, frame: object) -> None:
    """A forked worker's SIGTERM handler: unwind (so what it runs is killed and its scratch removed)."""
    raise Stopped(128 + signum)


def exit_when_swallowed() -> None:
    """A stop that lands while Python runs a callback it cannot raise from (a weakref's, such as
    the import system's module locks have, or a ``__del__``) is printed as "Exception ignored", with
    its traceback, and lost: the worker went on with its work. Such a stop ends the process at
    once, as a SIGKILL would; its parent, which is stopping too, removes what it leaves."""
    previous = sys.unraisablehook
    if getattr(previous, "stops", False):   # (set already: a fork inherits it)
        return

    def hook(unraisable: Any) -> None:  # noqa: ANN401   (sys.UnraisableHookArgs)
        if isinstance(unraisable.exc_value, Stopped):
            os._exit(unraisable.exc_value.code)   # type: ignore[arg-type]
        previous(unraisable)
    hook.stops = True   # type: ignore[attr-defined]
    sys.unraisablehook = hook


def exit_with(parent: int, sig: int = signal.SIGTERM) -> None:
    """In a forked worker: ``sig`` for it when ``parent`` dies (``die_with_parent``), or exit now
    when the parent died before the request took effect."""
    request = die_with_parent(sig)
    if request is None:                  # orphans finish their work and exit
        return
    request()
    if os.getppid() != parent:
        raise SystemExit(128 + sig)


def enter_worker(parent: int) -> None:
    """A forked worker's first act: unwind on SIGTERM (``stop_on_term``), take the signals the
    fork held (``signals_held``), and die with ``parent`` (``exit_with``)."""
    signal.signal(signal.SIGTERM, stop_on_term)
    exit_when_swallowed()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)
    exit_with(parent)


def run_apart(work: Callable[[], T], what: str) -> T:
    """``work()`` run in a forked process, its value sent back pickled (``report``/``outcome``):
    what it allocated on the way goes with that process. The parent waits; a signal that stops
    the parent stops it (``exit_with``)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_apart, args=(work, send, os.getpid()), daemon=True)
    try:
        with signals_held():   # (unblocked in the child once its handler is set; a signal held
            proc.start()       # meanwhile lands as the block ends, inside this try)
        send.close()
        return outcome(recv, what)   # type: ignore[no-any-return]
    finally:
        if proc.is_alive():
            proc.terminate()
        if proc.pid is not None:
            proc.join()
        recv.close()


def _apart(work: Callable[[], object], conn: Connection, parent: int) -> None:
    enter_worker(parent)
    report(conn, work)
