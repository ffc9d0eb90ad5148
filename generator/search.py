"""The static search index, built by Pagefind over the finished pages.

Pagefind (PyPI ``pagefind[bin]`` ships the binary) indexes the staging folder
before it is swapped in, so the index always matches the pages. Only elements
marked ``data-pagefind-body`` are indexed (author and free pages), and each record
heading carries an id, so a hit points at the record itself.
"""

from __future__ import annotations

import importlib.util
import logging
import subprocess
from pathlib import Path

from generator.errors import SiteError

log = logging.getLogger(__name__)


def pagefind_binary() -> Path | None:
    spec = importlib.util.find_spec("pagefind_bin")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "pagefind"
    return binary if binary.is_file() else None


def build_index(site_dir: Path, language: str) -> None:
    binary = pagefind_binary()
    if binary is None:
        raise SiteError("the search index needs Pagefind, which is not installed",
                        hint="pip install 'pagefind[bin]' (make site does this)")
    # Only author and free pages carry data-pagefind-body: reading the (many, large) subject
    # pages and feeds-adjacent files would only cost time and memory.
    cmd = [str(binary), "--site", str(site_dir), "--output-subdir", "pagefind", "--silent",
           "--force-language", language or "en", "--glob", "{authors,pages}/**/index.html"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if res.returncode != 0:
        raise SiteError(f"Pagefind failed (exit {res.returncode}): {res.stderr.strip()[:2000]}")
    log.debug("search index written")
