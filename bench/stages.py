#!/usr/bin/env python3
"""Where one build's time goes: load / read cache / assemble / render / write / search.

  python bench/stages.py SITE_DIR [--no-search] [--gc-stats]

Runs ``generator.build.build`` once in this process, with a timer wrapped around each
stage function that ``generator/build.py`` calls by name (whichever of them exist), and
prints wall and CPU seconds per stage plus the peak RSS. Diagnostic only: nothing in
the generator is changed, the wrappers are installed on the imported module.
Nested stages (search runs inside write) are reported as they are, and "write (excl.
search)" subtracts the nested search time.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any, Callable

STAGES = [
    ("load_site", "load config + author YAML"),
    ("load_taxonomy", "load taxonomy"),
    ("read_caches", "read cache JSON"),
    ("assemble", "assemble model"),
    ("make_environment", "jinja environment"),
    ("render_site", "render pages + exports"),
    ("write_site", "write output (incl. search)"),
    ("build_index", "search index (Pagefind)"),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--no-search", action="store_true")
    ap.add_argument("--gc-stats", action="store_true", help="also report time spent in the cyclic GC")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

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
    peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    rows = []
    for name, label in STAGES:
        if name in times:
            rows.append({"stage": name, "label": label, "wall": times[name][0], "cpu": times[name][1]})
    if "write_site" in times and "build_index" in times:
        rows.append({"stage": "write_only", "label": "write (excl. search)",
                     "wall": times["write_site"][0] - times["build_index"][0],
                     "cpu": times["write_site"][1] - times["build_index"][1]})
    print(f"{'stage':<32} {'wall s':>8} {'cpu s':>8} {'% wall':>7}")
    for r in rows:
        print(f"{r['label']:<32} {r['wall']:8.2f} {r['cpu']:8.2f} {100 * r['wall'] / wall:6.1f}%")
    print(f"{'total build()':<32} {wall:8.2f} {cpu:8.2f}")
    print(f"BuildResult: {res.files} files, {res.bytes / 1e6:.1f} MB, seconds {res.seconds:.2f}, "
          f"search_seconds {res.search_seconds:.2f}")
    print(f"peak RSS: this process {peak:.0f} MB, largest child (Pagefind) {peak_children:.0f} MB")
    if args.gc_stats:
        print(f"cyclic GC: {gc_time[1]} collections, {gc_time[0]:.2f} s wall")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "wall": wall, "cpu": cpu, "peak_mb": peak,
                                         "peak_child_mb": peak_children, "gc_seconds": gc_time[0],
                                         "gc_collections": gc_time[1]}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
