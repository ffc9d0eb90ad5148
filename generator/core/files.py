"""File-system plumbing any stage may use: the site's lock, and hard links of finished files.

No stage's logic: ``fetch`` takes the lock as ``build`` does, and the plan's reuse (generator.render.jobs)
links the last build's files as the output step does.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from generator.core.errors import EXIT_LOCKED, EXIT_OUTPUT, SiteError
from generator.core.paths import lock_path


@contextmanager
def build_lock(root: Path, what: str = "build") -> Iterator[None]:
    """Hold an exclusive lock for the duration of a build (or a ``fetch``) of the site at ``root``."""
    path = lock_path(root, what)
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise SiteError(f"cannot create lock file: {exc.strerror}", path=str(path),
                        exit_code=EXIT_OUTPUT) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise SiteError(f"another {what} is running for this site", path=str(path),
                            hint="wait for it to finish", exit_code=EXIT_LOCKED) from exc
        yield
    finally:
        os.close(fd)


def link_file(src: str, dest: str, made: set[str]) -> None:
    """Hard-link ``src`` to ``dest`` (a copy where the file system has no hard links)."""
    parent = os.path.dirname(dest)
    if parent not in made:
        os.makedirs(parent, mode=0o755, exist_ok=True)
        made.add(parent)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)
        os.chmod(dest, 0o644)


def folders_of(rels: Iterable[str]) -> set[str]:
    """Each folder (``a/b/``) a file of ``rels`` (paths with ``/``) lies in, and every folder above it."""
    out: set[str] = set()
    for rel in rels:
        i = rel.rfind("/")
        while i > 0 and rel[:i + 1] not in out:
            out.add(rel[:i + 1])
            i = rel.rfind("/", 0, i)
    return out


def link_tree(src: Path, dest: Path, made: set[str]) -> None:
    """``link_file`` of every file of the folder ``src`` into ``dest``."""
    for dirpath, _dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        target = os.path.normpath(os.path.join(dest, rel))
        os.makedirs(target, mode=0o755, exist_ok=True)
        made.add(target)
        for name in filenames:
            link_file(os.path.join(dirpath, name), os.path.join(target, name), made)


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder, fsync, then ``os.replace`` (mode 0644)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
