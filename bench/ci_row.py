"""The bench row "ours_ci": the build of a scheduled CI run (issue 12, acceptance 6).

The publish workflow checks the repository out afresh, restores the last run's ``output/`` and
``.authorsite/`` with actions/cache, and builds. So every input file is new (new inode, new
mtime: the stat cache ``.authorsite/inputs-stat.bin`` misses on all of them and only content
digests can reuse), while the restored folders keep their files and mtimes (a tar restore).
``ci_build`` plays that on the bench corpus right after our cold build: a fresh copy of the
site's inputs, output/ and .authorsite/ copied over with ``cp -a``, 10 records changed in 10
different authors' cache files (the newest record that only that author lists: the kind a daily
fetch brings, and each in exactly one cache file), then the build the bench times everywhere
(``our_command``), measured with ``measure``; the copy is deleted after. Target (issue 12): at
most 0.2x our cold build of the same repeat.

The copy is made in every repeat (about 1.3 GB at 1,000 x 100, untimed; ``measure`` flushes it
to disk before the build starts). The bench does not check that the result is a clean build's
bytes: that needs another cold build (35 s at 1,000 x 100), so it is left to
tests/render/test_jobs.py (``test_a_restored_clone_with_ten_records_changed...``, on a small corpus)
and to this module run on its own, which also builds the changed clone clean and compares:

  python bench/ci_row.py benchmark-results/corpus-a40-r20-s1   # a corpus a bench run made
"""

from __future__ import annotations

import argparse
import dataclasses
import filecmp
import functools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import against  # noqa: E402
from run import Corpus, Run, measure, our_command  # noqa: E402

EDITS = 10
RESTORED = ("output", ".authorsite")   # the publish workflow's actions/cache paths


@functools.lru_cache(maxsize=None)
def edit_targets(neutral: Path, site: Path, n: int = EDITS) -> tuple[tuple[Path, str], ...]:
    """``n`` (cache file relative to the site, record key) pairs: for ``n`` authors spread evenly
    over the corpus, the newest record that only this author lists."""
    from convert import arxiv_query

    from generator.store.cache import cache_file
    from generator.config import ArxivSource
    authors = [json.loads(line) for line in open(neutral / "authors.jsonl", encoding="utf-8")]
    newest: dict[str, tuple[str, str]] = {}   # author id -> (published, record id)
    with open(neutral / "records.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if len(r["profiles"]) == 1 and (r["published"], r["id"]) > newest.get(r["profiles"][0], ("", "")):
                newest[r["profiles"][0]] = (r["published"], r["id"])
    picked: list[tuple[Path, str]] = []
    taken: set[str] = set()
    for k in range(n):
        i = k * len(authors) // n
        while i < len(authors) and (authors[i]["id"] in taken or authors[i]["id"] not in newest):
            i += 1
        if i == len(authors):
            raise RuntimeError(f"fewer than {n} authors with a record of their own in {neutral}")
        a = authors[i]
        taken.add(a["id"])
        path = cache_file(site / "content" / "cache", a["slug"], ArxivSource(query=arxiv_query(a["name"])))
        assert path is not None and path.is_file(), path
        picked.append((path.relative_to(site), f"arxiv:{newest[a['id']][1]}"))
    return tuple(picked)


def fresh_clone(site: Path, dest: Path) -> None:
    """``dest``: the site's inputs as a checkout makes them (new files: copied, never linked),
    then the restored output/ and .authorsite/ as actions/cache puts them back (``cp -a``: files,
    mtimes and hard links kept). Build leftovers (names beginning with a dot) are not inputs."""
    dest.mkdir()
    for p in sorted(site.iterdir()):
        if p.name in RESTORED or p.name.startswith("."):
            continue
        if p.is_dir():
            shutil.copytree(p, dest / p.name, copy_function=shutil.copy)   # new inodes and mtimes
        else:
            shutil.copy(p, dest / p.name)
    subprocess.run(["cp", "-a", *(str(site / r) for r in RESTORED if (site / r).exists()), str(dest)],
                   check=True)


def change_records(root: Path, targets: tuple[tuple[Path, str], ...]) -> None:
    """Edit one title in each target cache file (written with generator.store.cache, so still valid)."""
    from generator.store.cache import read_entry, write_entry
    for rel, key in targets:
        path = root / rel
        entry = read_entry(path)
        records = tuple(dataclasses.replace(r, title=f"{r.title} (ci edit)") if r.key == key else r
                        for r in entry.records)
        if records == entry.records:
            raise RuntimeError(f"record {key} not in {path}")
        write_entry(path, dataclasses.replace(entry, records=records))


def _clone_with_edits(corpus: Corpus, dest: Path, site: Path | None = None) -> None:
    t0 = time.perf_counter()
    fresh_clone(site or corpus.site, dest)
    change_records(dest, edit_targets(corpus.neutral, corpus.site))
    print(f"  (ours_ci: fresh clone with output restored and {EDITS} records changed, "
          f"made in {time.perf_counter() - t0:.1f} s, untimed)", flush=True)


def ci_build(corpus: Corpus, timeout: float, site: Path | None = None, code: Path | None = None) -> Run:
    """The timed row: our build in a restored clone of ``corpus.site`` (which must hold the output
    and .authorsite/ of a build of its current inputs), then the clone is removed. ``site`` and
    ``code``: the same for another checkout's build of its copy of the corpus (bench/against.py)."""
    scratch = Path(tempfile.mkdtemp(prefix="ci-", dir=corpus.dir))
    try:
        _clone_with_edits(corpus, scratch / "site", site)
        if code is not None:
            return measure(against.build(scratch / "site"), timeout=timeout, **against.where(code))
        return measure(our_command(scratch / "site"), timeout=timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def differing(a: Path, b: Path) -> list[str]:
    """Relative paths that are in one tree only or whose bytes differ."""
    def files(root: Path) -> set[str]:
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    fa, fb = files(a), files(b)
    return sorted((fa ^ fb) | {f for f in fa & fb if not filecmp.cmp(a / f, b / f, shallow=False)})


def verify(corpus: Corpus, timeout: float) -> int:
    """The row once, then the changed clone's inputs built clean (a cold build) and compared."""
    scratch = Path(tempfile.mkdtemp(prefix="ci-verify-", dir=corpus.dir))
    try:
        clone, clean = scratch / "site", scratch / "clean"
        _clone_with_edits(corpus, clone)
        ci = measure(our_command(clone), timeout=timeout)
        clean.mkdir()
        for p in clone.iterdir():
            if p.name not in RESTORED and not p.name.startswith("."):
                (shutil.copytree if p.is_dir() else shutil.copy)(p, clean / p.name)
        cold = measure(our_command(clean), timeout=timeout)
        diff = differing(clone / "output", clean / "output")
        print(f"restored clone, {EDITS} records changed: {ci.wall:.2f} s; the same inputs built cold: "
              f"{cold.wall:.2f} s; ratio {ci.wall / cold.wall:.3f} (target <= 0.2)")
        print("output byte-identical to the clean build" if not diff else
              f"output DIFFERS from the clean build in {len(diff)} files, e.g. {diff[:10]}")
        return 1 if diff else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, help="a bench corpus folder (benchmark-results/corpus-a*-r*-s*), built")
    ap.add_argument("--timeout", type=float, default=1800.0, help="per build, seconds")
    args = ap.parse_args(argv)
    corpus = Corpus(args.corpus.resolve(), {})
    if not (corpus.neutral / "records.jsonl").is_file():
        sys.exit(f"error: {args.corpus} is not a bench corpus (no corpus/records.jsonl)")
    # a bench run leaves the output of its last edited build and the inputs restored: bring the
    # output up to date first (untimed), so the clone differs from it by the 10 records alone
    subprocess.run(our_command(corpus.site), check=True)
    return verify(corpus, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
