#!/usr/bin/env python3
"""The table of `make bench-scale` (issue 42): bench/run.py's JSON of each size, side by side.

  python bench/scale_table.py benchmark-results/scale-a5000-r100.json benchmark-results/scale-a20000-r100.json

Prints a Markdown table, one row per measurement and one column per corpus (wall seconds, CPU
seconds, peak memory of the process tree), the cold build's wall and CPU per author-record, and
the growth from the first file's corpus to the last's; ready to paste into bench/README.md
("At scale"). Medians over the repeats done (`make bench-scale` does one).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROWS = ("ours_cold", "ours_noop", "ours_author", "ours_record", "ours_ci", "shard_cold", "shard_merge", "shard_ci",
        "shard_ci_merge")


def load(path: Path) -> dict[str, Any]:
    rep = json.loads(path.read_text(encoding="utf-8"))
    if "rows" not in rep or "params" not in rep:
        sys.exit(f"error: {path} is not a bench/run.py result (no 'rows' or 'params'); run make bench-scale first")
    return rep


def cell(row: dict[str, Any] | None) -> str:
    if not row:
        return "not run"
    return (f"{row['wall']['median']:.2f} s / {row['cpu']['median']:.1f} s CPU / "
            f"{row['peak_mb']['median']:,.0f} MB")


def growth(first: dict[str, Any] | None, last: dict[str, Any] | None) -> str:
    if not first or not last or not first["wall"]["median"] or not first["peak_mb"]["median"]:
        return ""
    return (f"{last['wall']['median'] / first['wall']['median']:.2f}x / "
            f"{last['peak_mb']['median'] / first['peak_mb']['median']:.2f}x")


def per_record(rep: dict[str, Any]) -> str:
    row = rep["rows"].get("ours_cold")
    n = rep["params"]["authors"] * rep["params"]["records"]
    if not row or not n:
        return ""
    return f"{row['wall']['median'] / n * 1e3:.3f} ms wall / {row['cpu']['median'] / n * 1e3:.3f} ms CPU"


def table(reps: list[dict[str, Any]]) -> str:
    names = [f"{r['params']['authors']:,} x {r['params']['records']}" for r in reps]
    span = f"growth {names[0]} -> {names[-1]} (wall / peak)" if len(reps) > 1 else ""
    head = ["measurement (wall / CPU / peak memory)", *names, *([span] if span else [])]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in ROWS:
        rows = [r["rows"].get(key) for r in reps]
        label = next((x["label"] for x in rows if x), key)
        extra = [growth(rows[0], rows[-1])] if span else []
        lines.append("| " + " | ".join([label, *(cell(x) for x in rows), *extra]) + " |")
    lines.append("| cold build per author-record | " + " | ".join(per_record(r) for r in reps)
                 + (" | |" if span else " |"))
    sizes = [r.get("sizes", {}).get("ours") for r in reps]
    lines.append("| output (cold build) | " + " | ".join(
        f"{s['bytes'] / 1e9:.2f} GB in {s['files']:,} files" if s else "" for s in sizes) + (" | |" if span else " |"))
    return "\n".join(lines)


def notes(reps: list[dict[str, Any]]) -> str:
    out = []
    for r in reps:
        load = (r.get("machine") or {}).get("load1_at_start_of_runs") or {}
        changed = r.get("code", {}).get("changed_during_run")
        out.append(f"- {r['params']['authors']:,} x {r['params']['records']}: {r['when']}, commit "
                   f"{r.get('git', {}).get('commit', '?')[:10]}, {r['repeats_done']} repeat(s), "
                   f"{r['corpus'].get('unique_records', '?'):,} unique records, load average at run starts "
                   f"{load.get('median', float('nan')):.1f} (median){'; CODE CHANGED DURING THE RUN' if changed else ''}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    paths = [Path(a) for a in (argv if argv is not None else sys.argv[1:])]
    if not paths:
        sys.exit("usage: python bench/scale_table.py RESULT.json [RESULT.json ...]")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        sys.exit(f"error: no such result file: {', '.join(missing)}; run make bench-scale first")
    reps = [load(p) for p in paths]
    print(table(reps))
    print()
    print(notes(reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
