"""What site.yaml's ``search: {abstracts: true}`` costs (issue 45), at a bench corpus's size.

    python bench/search_abstracts.py [--authors 1000] [--records 100] [--seed 1] [--repeat 1]

On bench/run.py's corpus (made, or reused, as run.py makes it), two sites of the same inputs
(``content/`` hard-linked) side by side in the corpus's folder: abstracts off and on. For each,
per repeat: a cold build (``authorsite -q build`` after removing all but the inputs; wall, CPU
and peak memory as bench/run.py's ``measure`` takes them) and the search index step alone
(``generator.write.search.build_index`` over that build's output, the model loaded first, as
run.py's "search index step alone"); then, once, the index (MB, files, the largest term shard)
and the header's search in Chromium (bench/search_queries.py's ``ours``: the query typed into
the home page's box), with the requests and bytes of the index it fetched for each query. The
queries are search_queries.py's and two words only the corpus's abstracts hold. Prints a table
and writes ``benchmark-results/search-abstracts-<timestamp>.json``. The machine should be quiet:
the JSON keeps the load average at the start of each build.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import run  # noqa: E402   (bench/run.py: the corpus, measure, our command)
import search_queries  # noqa: E402

QUERIES = (*search_queries.QUERIES, "euismod", "adipiscing tempor")   # the last two: in abstracts alone


def make_site(corpus: run.Corpus, abstracts: bool) -> Path:
    """The corpus's inputs as a site of their own, with abstracts off or on (content/ linked)."""
    site = corpus.dir / f"site-abstracts-{'on' if abstracts else 'off'}"
    if site.exists():
        shutil.rmtree(site)
    shutil.copytree(corpus.site / "content", site / "content", copy_function=os.link)
    text = (corpus.site / "site.yaml").read_text("utf-8")
    (site / "site.yaml").write_text(text + ("\nsearch:\n  abstracts: true\n" if abstracts else ""), "utf-8")
    return site


def index_alone(site: Path, timeout: float) -> run.Run:
    """run.py's search step alone, over a hard-linked copy of ``site``'s output."""
    scratch = Path(tempfile.mkdtemp(prefix="search-", dir=site.parent))
    try:
        copy = scratch / "site"
        shutil.copytree(site / "output", copy, copy_function=os.link)
        shutil.rmtree(copy.joinpath(*run.SEARCH_INDEX), ignore_errors=True)
        seconds = scratch / "seconds"
        r = run.measure([sys.executable, "-c", run.SEARCH_SNIPPET, str(copy), "en", str(seconds), str(site)],
                        timeout=timeout)
        r.wall = float(seconds.read_text())
        return r
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def index_stats(output: Path) -> dict[str, Any]:
    folder = output.joinpath(*run.SEARCH_INDEX)
    files = [p for p in folder.rglob("*") if p.is_file()]
    shards = [p.stat().st_size for p in (folder / "t").iterdir()]
    return {"bytes": sum(p.stat().st_size for p in files), "files": len(files), "term_shards": len(shards),
            "largest_shard_bytes": max(shards, default=0)}


def queries(output: Path, words: list[str]) -> list[dict[str, Any]]:
    """search_queries.ours for each query, with the bytes of the index's files it fetched."""
    from browser_util import chromium_browser
    from quality_util import static_server

    rows = []
    with chromium_browser() as browser, static_server(output, "/") as base:
        search_queries.ours(browser, base, words[0])   # warm the server and the disk cache
        for q in words:
            row = search_queries.ours(browser, base, q)
            row["index_bytes"] = sum((output / rel).stat().st_size for rel in row["index_files"])
            rows.append(row)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--authors", type=int, default=1000)
    ap.add_argument("--records", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600.0)
    ap.add_argument("--queries-only", action="store_true", help="no builds: the queries over the outputs built last")
    args = ap.parse_args()
    corpus = run.prepare_corpus(args.authors, args.records, args.seed, False)
    sites = {flag: corpus.dir / f"site-abstracts-{'on' if flag else 'off'}" for flag in (False, True)}
    if not args.queries_only:
        sites = {flag: make_site(corpus, flag) for flag in (False, True)}
    builds: dict[bool, list[run.Run]] = {False: [], True: []}
    alone: dict[bool, list[run.Run]] = {False: [], True: []}
    for i in range(0 if args.queries_only else args.repeat):
        for flag in ((False, True) if i % 2 == 0 else (True, False)):   # which goes first alternates
            run.clean_site(sites[flag])
            builds[flag].append(run.measure(run.our_command(sites[flag]), timeout=args.timeout))
            alone[flag].append(index_alone(sites[flag], args.timeout))
            b, s = builds[flag][-1], alone[flag][-1]
            print(f"abstracts {'on ' if flag else 'off'}: cold build {b.wall:6.1f} s wall {b.cpu:6.1f} s cpu "
                  f"{b.peak_mb:6.0f} MB (load {b.load1:.1f}); index alone {s.wall:5.1f} s {s.peak_mb:5.0f} MB",
                  flush=True)
    report: dict[str, Any] = {"params": corpus.params, "counts": corpus.counts, "repeats": args.repeat, "rows": {}}
    for flag in (False, True):
        output = sites[flag] / "output"
        rows = queries(output, list(QUERIES))
        report["rows"]["on" if flag else "off"] = {
            "cold_build": [vars(r) for r in builds[flag]], "index_alone": [vars(r) for r in alone[flag]],
            "index": index_stats(output), "queries": rows}
    print_report(report)
    out = run.RESULTS / f"search-abstracts-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {out.relative_to(run.REPO)}")
    return 0


def print_report(report: dict[str, Any]) -> None:
    med = statistics.median
    print(f"\nsearch.abstracts at {report['params']['authors']} authors x {report['params']['records']} records "
          f"({report['counts'].get('unique_records', '?')} papers), {report['repeats']} repeat(s), medians:")
    print(f"{'abstracts':<10} {'build s':>8} {'cpu s':>7} {'peak MB':>8} {'index s':>8} {'index MB':>9} {'files':>6} "
          f"{'max shard KB':>13} {'requests':>9} {'index KB/query':>15}")
    for name, row in report["rows"].items():
        b, s, ix, qs = row["cold_build"], row["index_alone"], row["index"], row["queries"]
        built = (f"{med(r['wall'] for r in b):8.1f} {med(r['cpu'] for r in b):7.1f} "
                 f"{med(max(r['tree_peak_mb'], r['maxrss_mb']) for r in b):8.0f} {med(r['wall'] for r in s):8.1f}"
                 if b else f"{'(not built)':>35}")
        print(f"{name:<10} {built} "
              f"{ix['bytes'] / 1e6:9.1f} {ix['files']:6d} {ix['largest_shard_bytes'] / 1e3:13.0f} "
              f"{min(q['requests'] for q in qs):>4}-{max(q['requests'] for q in qs):<4} "
              f"{med(q['index_bytes'] for q in qs) / 1e3:8.0f} (max {max(q['index_bytes'] for q in qs) / 1e3:.0f})")
    for name, row in report["rows"].items():
        for q in row["queries"]:
            print(f"  {name:<4} {q['query']!r:22} {q['after_last_key_ms']:6d} ms after the last key "
                  f"{q['requests']:3d} requests {q['index_bytes'] / 1e3:7.0f} KB of index  {q['count']}")


if __name__ == "__main__":
    sys.exit(main())
