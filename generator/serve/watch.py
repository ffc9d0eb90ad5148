"""Watching a site's inputs for ``authorsite serve``, and nothing else.

The inputs are site.yaml and the folders content/, themes/, templates/, static/ and locale/.
Watching the site root recursively would also put inotify watches on everything the
build and the tools write (output/, .authorsite/, .venv/, node_modules/, benchmark
results): thousands of folders, and rebuilds triggered by the build's own writes.
Watching only the input folders that exist at start would miss a templates/ made
later. So the input folders are watched recursively (watchfiles), and at every step
of that watch the root's top level is checked with a few stat calls: when an input
folder appears or disappears, or site.yaml changes (an editor that saves by rename
gives it a new inode, which a watch on the file itself would lose), the watch
restarts with the new set of folders and the site is rebuilt.

A change is reported once watchfiles has seen no event for ``_STEP`` ms and the changed files'
stat (inode, size, modification time) has held for ``_STABLE`` seconds more, so a file saved in
several writes is read once, whole; an event for a file whose stat is what it was when last
reported (a chmod, the late events of a save already read) is not a change. A write after that
stat has a later modification time: the file held still for longer than the clock's tick (4 ms
at the kernel's usual 250 Hz, 10 ms at 100 Hz). After a change to the top level, the new watch
is in place before the site is rebuilt: a file written while it rebuilds is seen.

Inside the input folders, dotfiles (editor swap files, the fetch's temporary files
and raw cache), ``__pycache__`` and ``node_modules`` and backup files ending in ``~``
are not inputs.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

CONFIG = "site.yaml"
INPUT_DIRS = ("content", "themes", "templates", "static", "locale")   # locale: the site's message catalogues
_IGNORED_PARTS = frozenset({"__pycache__", "node_modules"})
_SETTLE = 0.15  # seconds after a change to the top level, for the burst (a folder copied in) to end
_STEP = 10      # ms without an event before watchfiles reports a batch (inotify reports a write in well under 1 ms)
_STABLE = 0.015  # seconds the changed files' stat must then hold
_STABLE_MAX = 0.15   # ... waiting at most this long for a file being written

Signature = tuple[tuple[tuple[str, int], ...], tuple[int, int, int] | None]


def input_dirs(root: Path) -> tuple[Path, ...]:
    """The input folders that exist now."""
    return tuple(root / name for name in INPUT_DIRS if (root / name).is_dir())


def top_signature(root: Path) -> Signature:
    """What the root's top level says about the inputs: which input folders exist (and
    their inodes, so a folder deleted and made again counts), and site.yaml's stat."""
    dirs = []
    for folder in input_dirs(root):
        try:
            dirs.append((folder.name, folder.stat().st_ino))
        except OSError:
            continue
    try:
        st = (root / CONFIG).stat()
        config = (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        config = None
    return tuple(dirs), config


def is_input(root: Path, path: str) -> bool:
    """Whether a changed path reported by the watcher is one of the site's inputs."""
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        return False
    if not parts or parts[0] not in INPUT_DIRS:
        return parts == (CONFIG,)
    return not any(p.startswith(".") or p in _IGNORED_PARTS or p.endswith("~") for p in parts)


class _Restart:
    """The ``stop_event`` given to watchfiles: set when serve stops or the top level changed."""

    def __init__(self, stop: threading.Event, root: Path, signature: Signature) -> None:
        self.stop, self.root, self.signature = stop, root, signature

    def is_set(self) -> bool:
        return self.stop.is_set() or top_signature(self.root) != self.signature


def _describe(old: Signature, new: Signature) -> list[str]:
    names = sorted({name for name, _ in old[0]} ^ {name for name, _ in new[0]})
    made = {name for name, _ in new[0]}
    what = [f"{name}/ {'made' if name in made else 'removed'}" for name in names]
    if old[1] != new[1]:
        what.append(CONFIG)
    return what or ["input folders"]


Stat = tuple[int, int, int] | None


def _stat(root: Path, rel: str) -> Stat:
    try:
        st = (root / rel).stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _settled(root: Path, rels: list[str], stop: threading.Event) -> dict[str, Stat]:
    """The files' stat once it has held for ``_STABLE`` seconds (at most ``_STABLE_MAX``)."""
    seen = {rel: _stat(root, rel) for rel in rels}
    deadline = time.monotonic() + _STABLE_MAX
    while time.monotonic() < deadline and not stop.wait(_STABLE):
        now = {rel: _stat(root, rel) for rel in rels}
        if now == seen:
            break
        seen = now
    return seen


def _watch_until_restart(root: Path, restart: _Restart, on_change: Callable[[list[str], bool], None],
                         top: list[str] | None, read: dict[str, Stat]) -> list[str] | None:
    """Report changes until the top level changes. ``top``: a change to the top level to report
    first, once the watch is in place; returned when it could not be. ``read``: each file's stat
    when its change was last reported."""
    import watchfiles

    dirs = input_dirs(root)
    if not dirs:
        if top is not None:
            on_change(top, True)
        while not restart.is_set():
            restart.stop.wait(0.1)
        return None
    try:
        # yield_on_timeout: the first (maybe empty) batch comes once the watch is in place
        for changes in watchfiles.watch(*dirs, stop_event=restart, debounce=150, step=_STEP, raise_interrupt=False,
                                        rust_timeout=100, yield_on_timeout=True,
                                        watch_filter=lambda _c, p: is_input(root, p)):
            if top is not None:
                on_change(top, True)       # read everything again: this batch's changes too
                top = None
                continue
            rels = sorted({os.path.relpath(p, root) for _, p in changes})
            if not rels or all(rel in read and read[rel] == _stat(root, rel) for rel in rels):
                continue
            read.update(_settled(root, rels, restart.stop))
            on_change(rels, False)
    except OSError as exc:  # an input folder removed while the watch was being set up
        log.debug("watch restarted: %s", exc)
        restart.stop.wait(0.1)
    return top


def watch_inputs(root: Path, on_change: Callable[[list[str], bool], None], stop: threading.Event) -> None:
    """Call ``on_change(paths, whole)`` after each change to the site's inputs, until ``stop`` is set:
    ``paths`` the changed files relative to the root, or, with ``whole``, a description of a change
    to the top level (an input folder made or removed) after which any input may differ."""
    signature = top_signature(root)
    top: list[str] | None = None
    read: dict[str, Stat] = {}
    while not stop.is_set():
        top = _watch_until_restart(root, _Restart(stop, root, signature), on_change, top, read)
        if stop.wait(_SETTLE):
            return
        new = top_signature(root)
        if new != signature:
            top, signature = [*(top or ()), *_describe(signature, new)], new
