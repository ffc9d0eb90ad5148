"""Files moved into and out of the preview's folder (generator.serve.live), one output at a time.

Each output is made aside (a folder next to the preview's) and moved in with ``os.replace``
(a folder: renamed in, the old one renamed out first): a request sees the old file or the
new one, never half of one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def move_in(incoming: Path, out_dir: Path, rel: str) -> None:
    """Replace ``out_dir/rel`` (a file, or a folder) by ``incoming/rel``."""
    src, dest = incoming / rel, out_dir / rel
    dest.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    if src.is_dir():
        old = incoming / f".old-{os.getpid()}"
        if dest.exists():
            os.rename(dest, old)
        os.rename(src, dest)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(src, dest)


def remove(out_dir: Path, rel: str) -> None:
    """Remove an output no longer made, and the folders it leaves empty (a clean build has none)."""
    path = out_dir / rel
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
    for parent in path.parents:
        if parent == out_dir or not parent.is_relative_to(out_dir) or any(parent.iterdir()):
            break
        parent.rmdir()
