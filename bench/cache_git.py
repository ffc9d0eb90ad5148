#!/usr/bin/env python3
"""The committed cache's size in git, and its growth per daily refresh (docs/scale.md).

  python bench/cache_git.py benchmark-results/corpus-a100-r100-s1/site [--authors 100] [--days 30]

Copies the cache folders (content/cache/<slug>/) of the site's first ``--authors`` authors into a
scratch git repository, commits them, packs (``git gc``) and reads ``git count-objects -v``
(``size-pack``: what a clone downloads and what GitHub counts). Then plays ``--days`` daily
refreshes, one commit each, as `authorsite fetch` leaves the cache: each author gets a new paper
with probability ``--rate`` a day (default: the corpus's own rate, its records per author over the
span of its dates, 100 over 11.5 years = 0.024), the record added to the author's cache file
with generator.store.cache (the whole file rewritten, records sorted by key, as a fetch writes
it), its title and abstract fresh text made the way make_corpus.py makes them; with
``--revised`` a share of authors a day also get a new version of one cached record (version + 1,
new update time). Packs again and prints the growth per refresh and per author.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "shared"))

import make_corpus  # noqa: E402   (bench/shared/make_corpus.py: the same kind of text)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def packed_kib(repo: Path) -> int:
    git(repo, "gc", "--quiet", "--prune=now")
    counts = dict(line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())
    return int(counts["size-pack"]) + int(counts["size"])


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "--allow-empty", "-m", message)


def new_record(rng: random.Random, base, name: str, day: date, n: int):  # noqa: ANN001, ANN201
    from generator.core.model import Person
    stamp = f"{day.isoformat()}T12:00:00Z"
    arxiv_id = f"{day:%y%m}.{90000 + n:05d}"
    authors = [Person(name), *(Person(make_corpus.random_name(rng)) for _ in range(rng.randint(2, 7)))]
    rng.shuffle(authors)
    return dataclasses.replace(base, key=f"arxiv:{arxiv_id}", arxiv_id=arxiv_id, version=1, year=day.year,
                               title=make_corpus.make_title(rng), authors=tuple(authors),
                               abstract=make_corpus.sentence_text(rng, make_corpus.LOREM + make_corpus.TECH,
                                                                  rng.randint(800, 1500)),
                               published=stamp, updated=stamp)


def refresh_day(repo: Path, rng: random.Random, day: date, rate: float, revised: float, counter: list[int]) -> int:
    """One day's refresh over every cache file of ``repo``; the number of files it rewrote."""
    from generator.store.cache import read_entry, write_entry
    written = 0
    for path in sorted((repo / "content" / "cache").glob("*/*.json")):
        add, bump = rng.random() < rate, rng.random() < revised
        if not (add or bump):
            continue
        entry = read_entry(path)
        records = list(entry.records)
        name = str(entry.source.get("query", "")).removeprefix("au:").strip('"')
        if add:
            counter[0] += 1
            records.append(new_record(rng, records[0], name, day, counter[0]))
        if bump:
            i = rng.randrange(len(records))
            stamp = f"{day.isoformat()}T12:00:00Z"
            records[i] = dataclasses.replace(records[i], version=(records[i].version or 1) + 1, updated=stamp)
        write_entry(path, dataclasses.replace(entry, records=tuple(sorted(records, key=lambda r: r.key)),
                                              fetched_at=f"{day.isoformat()}T06:00:00Z"))
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", type=Path, help="a bench corpus's site folder (benchmark-results/corpus-*/site)")
    ap.add_argument("--authors", type=int, default=100)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--rate", type=float, default=100 / (11.5 * 365),
                    help="new papers per author per day (default the corpus's: 100 over 11.5 years)")
    ap.add_argument("--revised", type=float, default=0.0, help="share of authors a day with a new version of a paper")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    folders = sorted(p for p in (args.site / "content" / "cache").iterdir() if p.is_dir())[: args.authors]
    if len(folders) < args.authors:
        sys.exit(f"error: {args.site} has {len(folders)} cache folders, fewer than --authors {args.authors}")
    repo = Path(tempfile.mkdtemp(prefix="cache-git-"))
    try:
        git(repo, "init", "-q")
        for f in folders:
            shutil.copytree(f, repo / "content" / "cache" / f.name)
        raw = sum(p.stat().st_size for p in (repo / "content").rglob("*.json"))
        commit(repo, "first fetch")
        first = packed_kib(repo)
        rng, counter, written = random.Random(args.seed), [0], 0
        for d in range(args.days):
            written += refresh_day(repo, rng, date(2026, 7, 2) + timedelta(days=d), args.rate, args.revised, counter)
            commit(repo, f"refresh day {d + 1}")
        after = packed_kib(repo)
        grown = after - first
        print(f"{args.authors} authors' caches: {raw / 1e6:.2f} MB of JSON, {first / 1024:.2f} MiB packed "
              f"({first / args.authors:.1f} KiB an author)")
        print(f"{args.days} daily refreshes (new paper rate {args.rate:.4f}/author/day, revised {args.revised:.4f}): "
              f"{counter[0]} new papers, {written} cache files rewritten; packed {after / 1024:.2f} MiB, "
              f"+{grown} KiB = {grown / args.days:.1f} KiB a refresh = "
              f"{grown / args.days / args.authors * 1024:.0f} bytes an author a refresh "
              f"({grown / max(counter[0], 1):.2f} KiB per new paper)")
        return 0
    finally:
        shutil.rmtree(repo, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
