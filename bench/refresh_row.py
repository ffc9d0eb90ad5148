"""The bench row "refresh with nothing new": how many arXiv requests ``authorsite fetch`` makes.

Issue 12 (acceptance 4) asks for at most 50 requests for the 1,000-author corpus. The corpus
site is copied (author files and cache files hard-linked: a fetch replaces a cache file
atomically, never writes into it) with a ``fetch:`` section pointing at a fake arXiv on
127.0.0.1 with no delay between requests; the fake (tests/sources/fakesearch.py) answers
each author's query with that author's cached records, so nothing is new. The real CLI runs
once in a child process; the count comes from the server's request log and must equal the
one the fetch summary prints.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET = 50


def _linked_copy(site: Path, dest: Path, api: str) -> None:
    text = (site / "site.yaml").read_text("utf-8")
    dest.mkdir(parents=True)
    (dest / "site.yaml").write_text(text + f"fetch:\n  arxiv_api: {api}\n  delay_seconds: 0\n", "utf-8")
    for part in ("content/authors", "content/cache"):
        shutil.copytree(site / part, dest / part, copy_function=os.link)


def _records(site: Path) -> tuple[list[Any], dict[str, set[str]]]:
    """Every cached record once, and each cached query -> the keys its cache holds, so the fake
    answers each query exactly as the arXiv that filled the cache did.

    The synthetic corpus also puts corpus authors' names in bylines of records it did not give
    them; a real cache holds whatever arXiv's name search returned, so such a byline name would
    have brought the record into that cache (any byline name holding all the words of a query,
    as arXiv matches). Those names are served as other people's ("Coauthor N") to keep the fake world one that real caches could come from."""
    from dataclasses import replace

    from generator.store import cache
    from generator.core.model import Person
    from generator.fetch.refresh_match import fold

    unique: dict[str, Any] = {}
    answers: dict[str, set[str]] = {}
    for path in sorted((site / "content" / "cache").glob("*/*.json")):
        entry = cache.read_entry(path)
        answers.setdefault(str(entry.source.get("query", "")), set()).update(r.key for r in entry.records)
        for r in entry.records:
            unique[r.key] = r
    owners: dict[str, set[frozenset[str]]] = {}
    queried = {}
    for query, keys in answers.items():
        words = frozenset(fold(query.removeprefix("au:").strip('"')).split())
        queried[words] = query
        for k in keys:
            owners.setdefault(k, set()).add(words)

    def stranger(name: str, key: str) -> bool:   # arXiv would give this record to a query not holding it
        words = fold(name).split()
        subsets = (frozenset(c) for n in range(1, len(words) + 1) for c in itertools.combinations(words, n))
        return any(w in queried and w not in owners.get(key, ()) for w in subsets)

    records = [replace(r, authors=tuple(Person(f"Coauthor {n}") if stranger(p.name, r.key) else p
                                        for n, p in enumerate(r.authors))) for r in unique.values()]
    return records, answers


def refresh_requests(site: Path, scratch_parent: Path, timeout: float = 600) -> dict[str, Any]:
    """Run ``authorsite fetch`` once over a linked copy of ``site`` against the fake arXiv."""
    sys.path.insert(0, str(HERE.parent / "tests" / "sources"))
    from fakearxiv import FakeArxiv
    from fakesearch import Search

    records, answers = _records(site)
    search = Search(records, fixed=answers)
    server = FakeArxiv(search).start()
    scratch = Path(tempfile.mkdtemp(prefix="refresh-", dir=scratch_parent))
    try:
        copy = scratch / "site"
        _linked_copy(site, copy, server.url)
        before = {p: p.stat().st_ino for p in (copy / "content" / "cache").glob("*/*.json")}
        script = Path(sys.executable).with_name("authorsite")
        cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        t0 = time.perf_counter()
        proc = subprocess.run([*cmd, "-C", str(copy), "fetch"], env=env, capture_output=True, text=True,
                              timeout=timeout)
        wall = time.perf_counter() - t0
        printed = re.findall(r"(\d+) request\(s\)", proc.stderr)
        rewritten = sum(1 for p, ino in before.items() if p.stat().st_ino != ino)
        return {"label": "ours: refresh, nothing new (requests)", "requests": len(server.hits),
                "printed_requests": int(printed[-1]) if printed else None, "sources": len(before),
                "cache_files_rewritten": rewritten, "wall": wall, "exit_status": proc.returncode,
                "errors": search.errors[:5], "target": TARGET, "target_met": len(server.hits) <= TARGET,
                "stderr_tail": proc.stderr.splitlines()[-3:]}
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def print_row(row: dict[str, Any] | None) -> None:
    if not row:
        return
    print(f"refresh of {row['sources']} arXiv sources with nothing new (fake arXiv on loopback, delay 0): "
          f"{row['requests']} requests (summary says {row['printed_requests']}), "
          f"{row['cache_files_rewritten']} cache files rewritten, {row['wall']:.1f} s, exit {row['exit_status']}; "
          f"target <= {row['target']}: {'met' if row['target_met'] else 'MISSED'}")
