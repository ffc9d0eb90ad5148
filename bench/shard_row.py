"""The bench rows of a build spread over machines (issue 43, acceptance 2): the publish workflow's
shard jobs and merge job, played one after another on this machine.

The workflow (generator/scaffold/github/workflows/publish.yml.jinja) runs, with ``shards: N``,
N ``shard`` jobs side by side, each on a fresh checkout with its own ``.authorsite`` restored
(actions/cache, keyed per shard), running ``authorsite build --shard K/N``; then one ``merge``
job on a fresh checkout with the N shard folders downloaded, running ``authorsite merge``.
So here, for ``N`` = 4:

  shard_cold   each shard from nothing (the site root holds only site.yaml and content/), one
               after another; the row is the slowest, which is what the matrix waits for
  shard_merge  ``authorsite merge`` of the 4 folders into a site root holding nothing else
  shard_ci     a scheduled run: a fresh copy of the inputs with 10 records changed per shard
               (``EDITS`` x N, in as many authors spread over the corpus: ci_row.edit_targets),
               each shard's ``.authorsite`` from its cold run put back; the slowest shard
  shard_ci_merge  the merge of those 4 folders, as shard_merge

Every run is measured with ``measure`` (wall, CPU, the process tree's peak memory); every
shard's run is kept in the report (``detail``). Moving a shard's state in and out is untimed
(a rename). The bench does not compare the merge with a one-machine build's bytes: the tests
do (tests/write/test_shard.py); ``python bench/shard_row.py CORPUS --verify`` does it here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from ci_row import EDITS, change_records, differing, edit_targets, fresh_clone  # noqa: E402
from run import Corpus, Run, clean_site, measure, our_command  # noqa: E402

N = 4
STATE = ".authorsite"   # what each shard job caches (actions/cache path)
ROWS = ("shard_cold", "shard_merge", "shard_ci", "shard_ci_merge")


def _tool(site: Path) -> list[str]:
    """``authorsite -C SITE -q`` (our_command without its ``build``)."""
    return our_command(site)[:-1]


def shard_command(site: Path, k: int, n: int = N) -> list[str]:
    return [*_tool(site), "build", "--shard", f"{k}/{n}"]


def merge_command(site: Path, folders: list[Path]) -> list[str]:
    return [*_tool(site), "merge", *map(str, folders)]


def _folder(state: Path, k: int, n: int) -> Path:
    """Shard ``k``'s folder inside its kept ``.authorsite`` (generator.write.shard.default_dir)."""
    return state / "shards" / f"{k}-of-{n}"


def _say(name: str, r: Run) -> None:
    print(f"  {name:<16} {r.wall:8.2f} s wall {r.cpu:8.2f} s cpu {r.peak_mb:8.0f} MB  (load {r.load1:.1f})",
          flush=True)


def _shards(site: Path, states: Path, timeout: float, n: int, fresh: bool) -> list[Run]:
    """Each shard built in ``site``, its ``.authorsite`` kept in ``states``/K between runs
    (``fresh``: from nothing; else the kept one put back first, and kept again after)."""
    runs = []
    for k in range(1, n + 1):
        kept = states / str(k)
        if fresh:
            clean_site(site)
        else:
            shutil.rmtree(site / STATE, ignore_errors=True)
            os.rename(kept, site / STATE)
        r = measure(shard_command(site, k, n), timeout=timeout)   # (raises when it fails)
        _say(f"shard {k}/{n}", r)
        shutil.rmtree(kept, ignore_errors=True)
        os.rename(site / STATE, kept)
        runs.append(r)
    return runs


def _merge(site: Path, states: Path, timeout: float, n: int) -> Run:
    """The merge job: a site root with its inputs alone, the N folders given."""
    clean_site(site)
    r = measure(merge_command(site, [_folder(states / str(k), k, n) for k in range(1, n + 1)]), timeout=timeout)
    _say("merge", r)
    return r


def shard_runs(corpus: Corpus, timeout: float, n: int = N) -> dict[str, object]:
    """The four rows (each the slowest shard, or the merge) and every shard's run. Leaves the
    corpus site holding the cold merge's output (its inputs', as a build would) and no state."""
    states = corpus.dir / "shard-states"
    shutil.rmtree(states, ignore_errors=True)
    states.mkdir()
    scratch = Path(tempfile.mkdtemp(prefix="shard-ci-", dir=corpus.dir))
    try:
        cold = _shards(corpus.site, states, timeout, n, fresh=True)
        merged = _merge(corpus.site, states, timeout, n)
        t0 = time.perf_counter()
        clone = scratch / "site"
        fresh_clone(corpus.site, clone)
        shutil.rmtree(clone / "output", ignore_errors=True)   # a shard job restores .authorsite alone
        change_records(clone, edit_targets(corpus.neutral, corpus.site, EDITS * n))
        print(f"  (shard_ci: fresh clone with {EDITS * n} records changed, made in "
              f"{time.perf_counter() - t0:.1f} s, untimed)", flush=True)
        ci = _shards(clone, states, timeout, n, fresh=False)
        ci_merged = _merge(clone, states, timeout, n)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(states, ignore_errors=True)
    slowest = max(cold, key=lambda r: r.wall)
    slowest_ci = max(ci, key=lambda r: r.wall)
    return {"rows": {"shard_cold": slowest, "shard_merge": merged, "shard_ci": slowest_ci,
                     "shard_ci_merge": ci_merged},
            "detail": {"n": n, "edits": EDITS * n, "cold": [vars(r) for r in cold], "ci": [vars(r) for r in ci]}}


def verify(corpus: Corpus, timeout: float, n: int = N) -> int:
    """The shards and merge once, then the same inputs built by one machine, and the two outputs compared."""
    found = shard_runs(corpus, timeout, n)["rows"]
    merged = Path(tempfile.mkdtemp(prefix="merged-", dir=corpus.dir))
    try:
        os.rename(corpus.site / "output", merged / "output")
        clean_site(corpus.site)   # one machine from nothing, not from what the merge left
        one = measure(our_command(corpus.site), timeout=timeout)
        diff = differing(merged / "output", corpus.site / "output")
    finally:
        shutil.rmtree(merged, ignore_errors=True)
    print(f"slowest shard {found['shard_cold'].wall:.2f} s, merge {found['shard_merge'].wall:.2f} s; "
          f"one machine {one.wall:.2f} s")
    print("merge byte-identical to one machine's build" if not diff else
          f"merge DIFFERS from one machine's build in {len(diff)} files, e.g. {diff[:10]}")
    return 1 if diff else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, help="a bench corpus folder (benchmark-results/corpus-a*-r*-s*)")
    ap.add_argument("--shards", type=int, default=N)
    ap.add_argument("--timeout", type=float, default=7200.0, help="per command, seconds")
    ap.add_argument("--verify", action="store_true", help="compare the merge with one machine's build")
    args = ap.parse_args(argv)
    corpus = Corpus(args.corpus.resolve(), {})
    if not (corpus.neutral / "records.jsonl").is_file():
        sys.exit(f"error: {args.corpus} is not a bench corpus (no corpus/records.jsonl)")
    if args.verify:
        return verify(corpus, args.timeout, args.shards)
    shard_runs(corpus, args.timeout, args.shards)
    return 0


if __name__ == "__main__":
    sys.exit(main())
