#!/usr/bin/env python3
"""Requests `authorsite fetch` makes for a bench corpus's authors (docs/scale.md's request figures).

  python bench/fetch_requests.py benchmark-results/corpus-a100-r100-s1 [--new 3]

Three runs of the real CLI, each in a child process, against the tests' fake arXiv on 127.0.0.1
(tests/sources/fakearxiv.py answering with tests/sources/fakesearch.py, no delay between requests;
each author's query answered with exactly the records that author's cache holds, as in
bench/refresh_row.py):

1. first fetch: the site's author files and no cache at all (a new site);
2. refresh, nothing new: the same site again right after (its cache and .authorsite/refresh.json);
3. refresh with new papers: ``--new`` authors (spread over the corpus) each get one new paper on
   the fake arXiv, newer than anything cached (as a daily refresh finds them).

Prints the requests of each (counted in the server's log), the sources, and the cache files
written; the JSON of the same with --json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "sources"))


def fetch(site: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("authorsite")
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "generator"]
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run([*cmd, "-C", str(site), "fetch"], env=env, capture_output=True, text=True, timeout=3600)


def cache_files(site: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (site / "content" / "cache").glob("*/*.json")}


def new_papers(records: list[Any], answers: dict[str, set[str]], n: int) -> list[Any]:
    """One new paper each for ``n`` authors spread over the corpus: a copy of one of their cached
    records under a new arXiv id, updated now, with the author's query answering it too."""
    from generator.core.model import Person
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    by_key = {r.key: r for r in records}
    queries = sorted(answers)
    added = []
    for k in range(n):
        query = queries[k * len(queries) // n]
        name = query.removeprefix("au:").strip('"')
        base = by_key[sorted(answers[query])[0]]
        arxiv_id = f"2612.{90000 + k:05d}"
        rec = dataclasses.replace(base, key=f"arxiv:{arxiv_id}", arxiv_id=arxiv_id, title=f"New paper {k}",
                                  authors=(Person(name), Person(f"Coauthor new {k}")), published=now, updated=now,
                                  year=int(now[:4]))
        answers[query].add(rec.key)
        added.append(rec)
    return added


def run(corpus: Path, new: int) -> dict[str, Any]:
    from fakearxiv import FakeArxiv
    from fakesearch import Search
    from refresh_row import _linked_copy, _records

    site = corpus / "site"
    records, answers = _records(site)
    search = Search(records, fixed=answers)
    server = FakeArxiv(search).start()
    scratch = Path(tempfile.mkdtemp(prefix="requests-", dir=corpus))
    out: dict[str, Any] = {"corpus": corpus.name, "authors": len(list((site / "content" / "authors").glob("*.yaml"))),
                           "records_cached": len(records), "runs": {}}
    try:
        copy = scratch / "site"
        _linked_copy(site, copy, server.url)
        shutil.rmtree(copy / "content" / "cache")

        def step(name: str) -> None:
            before, hits = cache_files(copy), len(server.hits)
            proc = fetch(copy)
            after = cache_files(copy)
            out["runs"][name] = {"requests": len(server.hits) - hits, "exit_status": proc.returncode,
                                 "cache_files_written": sum(1 for p, t in after.items() if before.get(p) != t),
                                 "stderr_tail": proc.stderr.splitlines()[-2:]}

        step("first fetch")
        step("refresh, nothing new")
        for rec in new_papers(records, answers, new):
            search.add(rec)
        step(f"refresh, {new} new papers")
        out["fake_errors"] = search.errors[:5]
        return out
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, help="a bench corpus folder (benchmark-results/corpus-a*-r*-s*)")
    ap.add_argument("--new", type=int, default=3, help="authors with one new paper in the third run (default 3)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not (args.corpus / "site" / "content" / "cache").is_dir():
        sys.exit(f"error: {args.corpus} is not a bench corpus (no site/content/cache); make one with bench/run.py")
    out = run(args.corpus.resolve(), args.new)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{out['corpus']}: {out['authors']} authors, {out['records_cached']} records cached")
    for name, r in out["runs"].items():
        print(f"  {name:<24} {r['requests']:5d} requests  {r['cache_files_written']:5d} cache files written  "
              f"exit {r['exit_status']}  {' | '.join(r['stderr_tail'])}")
    if out["fake_errors"]:
        print(f"  the fake refused queries: {out['fake_errors']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
