#!/usr/bin/env python3
"""Where one build's time goes: load / read cache / assemble / render + write / search.

  python bench/stages.py SITE_DIR [--incremental] [--workers N] [--no-search] [--gc-stats]

Runs ``generator.build.build`` once in this process and prints:
- the build's own stage times (``BuildResult.stages``, when the generator reports them);
- wall and CPU seconds of each step function of ``generator/build.py``'s build(), and of
  the exports and page templates in ``generator/render/pages.py`` (whichever of those names
  exist: timers are wrapped around the imported functions, nothing on disk is changed;
  work done in forked worker processes is not seen by these wrappers, so use
  ``--workers 1`` for a per-template split);
- peak RSS of this process and of its largest child (a render worker);
- with ``--gc-stats``, the time spent in the cyclic garbage collector.

By default the build is cold: the output and any build state in the site root are removed
first (everything but site.yaml and content/). ``--incremental`` keeps them.
For a function-level profile of the same build:

  AUTHORSITE_WORKERS=1 python -m cProfile -o prof.out -m generator -C SITE -q build
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import clean_site  # noqa: E402  (one definition of a cold start)

STAGES = [   # the step functions of generator/build.py's build()
    ("_load", "load config + author YAML"),
    ("_read_cache", "read cache JSON"),
    ("_assemble", "assemble model"),
    ("_plan", "plan jobs (pages, digests)"),
    ("_run", "run jobs (render, write, search index) + swap"),
]
RENDER_PARTS = ("to_bibtex", "to_csl_json", "site_json")




def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--incremental", action="store_true", help="keep the previous output and build state")
    ap.add_argument("--workers", type=int, help="sets AUTHORSITE_WORKERS for this build")
    ap.add_argument("--no-search", action="store_true")
    ap.add_argument("--gc-stats", action="store_true", help="also report time spent in the cyclic GC")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.workers:
        os.environ["AUTHORSITE_WORKERS"] = str(args.workers)
    if not args.incremental:
        clean_site(args.site)

    from generator import build as gbuild

    times: dict[str, list[float]] = {}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **k: Any) -> Any:  # noqa: ANN401
            w0, c0 = time.perf_counter(), time.process_time()
            try:
                return fn(*a, **k)
            finally:
                acc = times.setdefault(name, [0.0, 0.0])
                acc[0] += time.perf_counter() - w0
                acc[1] += time.process_time() - c0
        return timed

    for name, _ in STAGES:
        if hasattr(gbuild, name):
            setattr(gbuild, name, wrap(name, getattr(gbuild, name)))
    try:
        from generator.render import pages as grender
    except ImportError:
        grender = None
    if grender is not None:
        for name in RENDER_PARTS:
            if hasattr(grender, name):
                setattr(grender, name, wrap(name, getattr(grender, name)))
        if hasattr(grender, "_render"):
            inner = grender._render

            def by_template(env: Any, plan: Any, *a: Any, **k: Any) -> Any:  # noqa: ANN401
                name = getattr(plan, "template", None) or "?"
                return wrap(f"template {name}", inner)(env, plan, *a, **k)
            grender._render = by_template

    gc_time = [0.0, 0]
    gc_start = [0.0]
    if args.gc_stats:
        def cb(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                gc_start[0] = time.perf_counter()
            else:
                gc_time[0] += time.perf_counter() - gc_start[0]
                gc_time[1] += 1
        gc.callbacks.append(cb)

    w0, c0 = time.perf_counter(), time.process_time()
    res = gbuild.build(args.site, search=not args.no_search)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN)

    own = [{"stage": n, "wall": s} for n, s in getattr(res, "stages", ()) or ()]
    if own:
        print(f"{'build stages (BuildResult.stages)':<44} {'wall s':>8} {'% wall':>7}")
        for r in own:
            print(f"  {r['stage']:<42} {r['wall']:8.2f} {100 * r['wall'] / wall:6.1f}%")
    rows = []
    for name, label in STAGES:
        if name in times:
            rows.append({"stage": name, "label": label, "wall": times[name][0], "cpu": times[name][1]})
    for name in sorted(times):
        if name.startswith("template ") or name in RENDER_PARTS:
            rows.append({"stage": name, "label": "  render: " + name.replace("template ", ""),
                         "wall": times[name][0], "cpu": times[name][1]})
    if rows:
        print(f"\n{'timed functions (this process only)':<44} {'wall s':>8} {'cpu s':>8}")
        for r in rows:
            print(f"  {r['label']:<42} {r['wall']:8.2f} {r['cpu']:8.2f}")
    print(f"\ntotal build(): {wall:.2f} s wall, {cpu:.2f} s CPU in this process, "
          f"{children.ru_utime + children.ru_stime:.2f} s CPU in child processes (render workers)")
    print(f"BuildResult: {res.files} files, {res.bytes / 1e6:.1f} MB (the search index is built among the "
          "render tasks; bench/run.py times it alone)")
    print(f"peak RSS: this process {peak:.0f} MB, largest child {children.ru_maxrss / 1024:.0f} MB")
    if args.gc_stats:
        print(f"cyclic GC (this process): {gc_time[1]} collections, {gc_time[0]:.2f} s")
    if args.json:
        args.json.write_text(json.dumps({
            "build_stages": own, "functions": rows, "wall": wall, "cpu": cpu,
            "children_cpu": children.ru_utime + children.ru_stime, "peak_mb": peak,
            "peak_child_mb": children.ru_maxrss / 1024, "gc_seconds": gc_time[0],
            "gc_collections": gc_time[1]}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
