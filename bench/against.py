"""``make bench BENCH_ARGS="--against PATH"``: another authorsite timed beside this one, in one run.

PATH is another checkout of authorsite (``git worktree add ../base 82603f8``). Its builds run with
this venv's packages (``python -m generator`` in PATH, PATH first on ``PYTHONPATH``) on a copy of
the corpus's inputs of its own (``site-against/``: its output and build state are its own), and
each of our rows that it has a twin of is measured right beside ours in the same repeat: the
cold builds, the CI clone, the rebuilds with nothing changed, one author and one record changed,
and the serve reload. Which of the two goes first alternates by repeat, and every edit is made
in both sites before either is timed. The report gains a table of ours / against per repeat
(median [min-max]), wall and CPU, and each side's peak memory: the comparison a change of the
middle of the pipeline must pass ("at most 10% slower, memory no higher"), with both sides
exposed to the same moments of a noisy machine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

# our row -> its twin, and the twin's label
TWINS = {
    "ours_cold": ("against_cold", "against: cold build"),
    "ours_cold_nosearch": ("against_cold_nosearch", "against: cold build, --no-search"),
    "ours_ci": ("against_ci", "against: CI clone, 10 records changed"),
    "ours_noop": ("against_noop", "against: rebuild, nothing changed"),
    "ours_author": ("against_author", "against: rebuild, 1 author changed"),
    "ours_record": ("against_record", "against: rebuild, 1 record changed"),
    "serve_reload": ("against_serve_reload", "against: serve, 1 author edited -> new text in the page"),
}
ROWS = [(twin, label, None, None) for twin, label in TWINS.values()]


def where(code: Path | None) -> dict[str, Any]:
    """``measure``'s cwd and env for a command of ``code`` (another checkout), or of this one ({})."""
    if code is None:
        return {}
    return {"cwd": code, "env": {**os.environ, "PYTHONPATH": str(code)}}


def build(site: Path, *extra: str) -> list[str]:
    """``authorsite -C SITE -q build EXTRA`` as another checkout runs it (with ``where(code)``)."""
    return [sys.executable, "-m", "generator", "-C", str(site), "-q", "build", *extra]


def check(code: Path) -> Path:
    """The checkout, its modules compiled as ``make bench`` compiles ours (so that neither side
    compiles its source on every run, which PYTHONDONTWRITEBYTECODE would make it do)."""
    code = code.resolve()
    if not (code / "generator" / "__main__.py").is_file():
        sys.exit(f"error: --against {code}: not an authorsite checkout (no generator/__main__.py); "
                 "make one with: git worktree add ../base COMMIT")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "generator")], check=True)
    return code


def revision(code: Path) -> str:
    r = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or "?"


def copy_inputs(site: Path, dest: Path) -> None:
    """``dest``: a fresh copy of the site's inputs (site.yaml and content/), nothing built."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    shutil.copy2(site / "site.yaml", dest / "site.yaml")
    shutil.copytree(site / "content", dest / "content")


def mirror(site: Path, dest: Path, path: Path) -> None:
    """The input file ``path`` of ``site`` copied to the same place in ``dest`` (a new file, touched)."""
    target = dest / path.relative_to(site)
    target.unlink(missing_ok=True)
    shutil.copy2(path, target)
    os.utime(target)


def report(runs: dict[str, list[Any]], code: Path) -> dict[str, Any]:
    """Ours / against per repeat, for each row measured on both sides."""
    from run import summarize   # (run imports this module)

    rows = {}
    for ours, (twin, _label) in TWINS.items():
        a, b = runs.get(ours, []), runs.get(twin, [])
        if not a or len(a) != len(b):
            continue
        ratio = [x.wall / y.wall for x, y in zip(a, b) if y.wall > 0]
        cpu = [x.cpu / y.cpu for x, y in zip(a, b) if y.cpu > 0]
        rows[ours] = {
            "ours_wall": statistics.median(x.wall for x in a), "against_wall": statistics.median(y.wall for y in b),
            "ratio": summarize(ratio), "cpu_ratio": summarize(cpu) if cpu else None,
            "ours_peak_mb": statistics.median(x.peak_mb for x in a),
            "against_peak_mb": statistics.median(y.peak_mb for y in b), "pairs": len(ratio)}
    return {"path": str(code), "commit": revision(code), "rows": rows}


def print_report(rep: dict[str, Any], labels: dict[str, str]) -> None:
    print(f"\nside by side with --against {rep['path']} ({rep['commit']}): ours / against in the same repeat, "
          "median [min-max]")
    head = f"{'measurement':<36} {'ours':>7} {'against':>7}  {'x against wall':<24} {'x cpu':>6}  {'peak MB ours/against':>20}"
    print(head)
    print("-" * len(head))
    for key, row in rep["rows"].items():
        r = row["ratio"]
        cpu = f"{row['cpu_ratio']['median']:6.2f}" if row["cpu_ratio"] else " " * 6
        mem = f"{row['ours_peak_mb']:.0f} / {row['against_peak_mb']:.0f}" if row["against_peak_mb"] else ""
        print(f"{labels[key]:<36} {row['ours_wall']:7.2f} {row['against_wall']:7.2f}  "
              f"{r['median']:.3f} [{r['min']:.3f}-{r['max']:.3f}]{'':<5} {cpu}  {mem:>20}")
