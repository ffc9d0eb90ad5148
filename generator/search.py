"""The static search index, built by Pagefind over the finished pages, in shards.

Pagefind (PyPI ``pagefind[bin]`` ships the binary) indexes the staging folder
before it is swapped in, so the index always matches the pages. Only elements
marked ``data-pagefind-body`` are indexed (author and free pages), and each record
heading carries an id, so a hit points at the record itself.

The index is split into shards of about ``SHARD_AUTHORS`` authors each, chosen by a
hash of the author's slug (so adding an author does not move the others), each a
separate Pagefind bundle under ``pagefind/<n>/``; the search page merges them in the
browser (Pagefind UI's ``mergeIndex``). Why: one Pagefind run over a large site is
the longest step of a build and its largest process (21 s and 3 GB at 1,000 authors
x 100 records), and it cannot be updated in part. Shards are indexed on every core
at once, each needs a fraction of the memory, and an incremental build re-indexes
only the shards whose pages changed.
"""

from __future__ import annotations

import importlib.util
import logging
import subprocess
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from generator.errors import SiteError

log = logging.getLogger(__name__)

SHARD_AUTHORS = 50


@dataclass(frozen=True, slots=True)
class Shard:
    name: str                  # folder under pagefind/
    authors: tuple[str, ...]   # author slugs whose pages it indexes
    pages: tuple[str, ...]     # free page names (all in the first shard)

    @property
    def subdir(self) -> str:
        return f"pagefind/{self.name}"

    @property
    def files(self) -> tuple[str, ...]:
        return (*(f"authors/{s}/index.html" for s in self.authors), *(f"pages/{p}/index.html" for p in self.pages))


def plan_shards(author_slugs: Sequence[str], page_names: Sequence[str]) -> list[Shard]:
    """The shards of a site, stable for a given set of authors; empty shards are dropped."""
    count = max(1, -(-len(author_slugs) // SHARD_AUTHORS))
    members: list[list[str]] = [[] for _ in range(count)]
    for slug in sorted(author_slugs):
        members[zlib.crc32(slug.encode()) % count].append(slug)
    shards = []
    for i, slugs in enumerate(members):
        pages = tuple(sorted(page_names)) if i == 0 else ()
        if slugs or pages:
            shards.append(Shard(str(i), tuple(slugs), pages))
    return shards


def pagefind_binary() -> Path | None:
    spec = importlib.util.find_spec("pagefind_bin")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "pagefind"
    return binary if binary.is_file() else None


def _index_shard(binary: Path, site_dir: Path, language: str, shard: Shard) -> None:
    glob = "{" + ",".join(shard.files) + "}" if len(shard.files) > 1 else shard.files[0]
    cmd = [str(binary), "--site", str(site_dir), "--output-subdir", shard.subdir, "--silent",
           "--force-language", language or "en", "--glob", glob]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    if res.returncode != 0:
        raise SiteError(f"Pagefind failed on search shard {shard.name} (exit {res.returncode}): "
                        f"{res.stderr.strip()[:2000]}")


def build_index(site_dir: Path, language: str, shards: Sequence[Shard], workers: int = 1) -> None:
    """Index the given shards of the built site in ``site_dir``, up to ``workers`` at once."""
    if not shards:
        return
    binary = pagefind_binary()
    if binary is None:
        raise SiteError("the search index needs Pagefind, which is not installed",
                        hint="pip install 'pagefind[bin]' (make site does this)")
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for future in [pool.submit(_index_shard, binary, site_dir, language, s) for s in shards]:
            future.result()
    log.debug("search index written (%d shard%s)", len(shards), "" if len(shards) == 1 else "s")
