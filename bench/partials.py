#!/usr/bin/env python3
"""CPU per record of what a build renders, in one process: each partial and export, per call.

  python bench/partials.py SITE_DIR [--repeat 1]

Loads the site (configuration, cache, model) as a build does, plans its tasks, then times in
this process, cold (every partial's cache empty, as in a fresh render process):
- the cache read (JSON -> records), per record;
- each record partial (full entry, brief entry, feed entry) over every record once, per record;
- BibTeX and CSL-JSON of every author, per record;
- every page and feed task, grouped by template, per file.
Numbers are CPU microseconds (``time.process_time``); nothing is written.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cpu(fn: Callable[[], Any]) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", type=Path)
    args = ap.parse_args(argv)

    from generator import pipeline as gbuild
    from generator.render.exports import to_bibtex, to_csl_json
    from generator.render.pages import plan_tasks
    from generator.core.taxonomy import load_taxonomy
    from generator.render.themes import make_environment

    gc.disable()   # as a build's render processes run (generator.write.parallel.Pool)
    root = args.site.resolve()
    config = gbuild.load_config(root, None)
    store: list[Any] = []
    read = _cpu(lambda: store.append(gbuild._read_cache(config, False)[0]))
    site = gbuild._assemble(config, store[0])
    env = make_environment(root, config.theme)
    tasks = plan_tasks(env, site, load_taxonomy(), root=root)
    g = env.globals
    records = list({id(r): r for a in site.authors for r in a.records}.values())
    per_author = sum(len(a.records) for a in site.authors)
    n_cached = sum(len(e.records) for e in store[0].entries.values())
    rows = [("read cache (per cached record)", read, n_cached)]
    # Brief and feed entries are kept per record object; the full entry is rendered for each author.
    rows.append(("record.html (author pages)", _cpu(lambda: [g["records_html"](a.records) for a in site.authors]),
                 per_author))
    rows.append(("record_brief.html", _cpu(lambda: g["records_brief"](records)), len(records)))
    rows.append(("feed_entry.xml", _cpu(lambda: g["feed_entries"](records)), len(records)))
    rows.append(("to_bibtex", _cpu(lambda: [to_bibtex(a) for a in site.authors]), per_author))
    rows.append(("to_csl_json", _cpu(lambda: [to_csl_json(a) for a in site.authors]), per_author))
    print(f"{'what (cold, one process)':40} {'cpu s':>8} {'calls':>8} {'us/call':>9}")
    for name, seconds, n in rows:
        print(f"{name:40} {seconds:8.2f} {n:8d} {seconds / max(n, 1) * 1e6:9.1f}")
    # Whole files, partials now warm (as the second page showing a record finds it).
    by_kind: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for t in tasks:
        plan = getattr(t.make, "args", (None, None))[-1]
        kind = plan.template if type(plan).__name__ == "PagePlan" else getattr(t.make, "func", t.make).__name__
        seconds = _cpu(t.make)
        by_kind[kind][0] += seconds
        by_kind[kind][1] += 1
    print(f"\n{'files (partials warm)':40} {'cpu s':>8} {'files':>8} {'us/file':>9}")
    for kind, (seconds, n) in sorted(by_kind.items(), key=lambda kv: -kv[1][0])[:12]:
        print(f"{kind:40} {seconds:8.2f} {n:8d} {seconds / n * 1e6:9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
