"""The input files of a build, each digested once (SHA-256 of its bytes), and the code.

``read_inputs`` reads every file a build reads (``site.yaml``, ``content/``, the theme layers)
once, in a stable order, and gives the digest of each and of them all with the options: the
'nothing changed' key (``Inputs.digest``), and the content keys of the per-author snapshots
(generator.snapshot), so a cache file's bytes are never read a second time to know whether
its author changed. Contents only, never file dates: a fresh clone has new dates and the
same keys. Kept import-light: the 'nothing changed' check runs before anything else loads.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from generator.paths import PACKAGE, builtin_theme_dir

FORMAT = 4   # 4: the inputs digest is made of each file's own digest
_SKIP_DIRS = ("__pycache__",)
# The libraries whose versions can change the bytes of an output.
_LIBRARIES = ("authorsite", "jinja2", "markupsafe", "markdown", "nh3", "latex2mathml", "pyyaml", "orjson")


def files_under(top: Path) -> list[str]:
    """Every file under ``top`` (or ``top`` itself), in a stable order, as strings (Path objects
    cost half the time of digesting 2,000 files). Hidden files too: the loader refuses some of
    them (``content/authors/.git.yaml``), so they are inputs."""
    if top.is_file():
        return [str(top)]
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        out += [os.path.join(dirpath, n) for n in sorted(filenames)]
    return out


def hash_files(h: Any, tops: Iterable[Path], root: Path | None = None) -> None:  # noqa: ANN401 - a hashlib object
    """Each file's name (relative to ``root`` when under it), length and bytes."""
    prefix = str(root) + os.sep if root is not None else None
    for top in tops:
        for path in files_under(top):
            name = path[len(prefix):] if prefix and path.startswith(prefix) else path
            with open(path, "rb") as f:
                data = f.read()
            h.update(f"{name}\0{len(data)}\0".encode())
            h.update(data)


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The package's own files (contents) and the versions of Python and of the libraries that
    shape the output. Once per process: a process runs the code it loaded, whatever the disk says now."""
    h = hashlib.sha256(sys.version.encode())
    hash_files(h, [PACKAGE], PACKAGE)
    for name in _LIBRARIES:
        try:
            h.update(f"{name}={importlib.metadata.version(name)}\0".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"{name}=-\0".encode())
    return h.hexdigest()[:32]


def theme_tops(root: Path) -> list[Path]:
    return [builtin_theme_dir(), root / "themes", root / "templates", root / "static"]


@dataclass(frozen=True, slots=True)
class Inputs:
    """What ``read_inputs`` found: the digest of every input and the options, and each file's own."""

    digest: str
    files: Mapping[str, bytes]   # the file's path (as os.walk gives it) -> SHA-256 of its bytes

    def file_digest(self, path: Path) -> bytes | None:
        """The digest of ``path``'s bytes: the one read at the start of the build when it was an
        input then, else read now; None when it is not a file."""
        found = self.files.get(str(path))
        if found is not None:
            return found
        try:
            with open(path, "rb") as f:
                return hashlib.sha256(f.read()).digest()
        except OSError:
            return None


def read_inputs(root: Path, options: Mapping[str, Any]) -> Inputs:
    """Every file a build reads, by content, and the options: the 'nothing changed' key, and
    each file's digest."""
    h = hashlib.sha256()
    h.update(f"{FORMAT}\0{code_digest()}\0{json.dumps(dict(options), sort_keys=True)}\0".encode())
    prefix = str(root) + os.sep
    files: dict[str, bytes] = {}
    for top in [root / "site.yaml", root / "content", *theme_tops(root)]:
        for path in files_under(top):
            with open(path, "rb") as f:
                d = hashlib.sha256(f.read()).digest()
            files[path] = d
            name = path[len(prefix):] if path.startswith(prefix) else path
            h.update(f"{name}\0".encode() + d)
    return Inputs(h.hexdigest()[:32], files)
