"""Atomic output under a hard kill (issue 7, point 2, on the demo site).

A build is started as a subprocess and SIGKILLed after a seeded random delay, many
times; after every kill, output/ must be byte-identical to the previous good build
(or to the new complete build, if the kill came after the swap), and the next build
must succeed and clean up whatever the killed one left.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "generator", "-q"]
REPO = Path(__file__).resolve().parent.parent


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        h.update(rel.encode() + b"\0")
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def test_sigkill_during_build_never_damages_output(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(REPO / "site.yaml", site / "site.yaml")
    shutil.copytree(REPO / "content", site / "content")
    subprocess.run([*CLI, "-C", str(site), "build"], check=True, capture_output=True)
    good = tree_digest(site / "output")

    # A second version of the inputs, so "new complete build" is distinguishable from the old.
    author = site / "content/authors/bin-cui.yaml"
    author.write_text(author.read_text().replace("Peking University", "Peking University (edited)"))
    new_out = tmp_path / "expected-new"
    subprocess.run([*CLI, "-C", str(site), "build", "--output", str(new_out)], check=True, capture_output=True)
    new = tree_digest(new_out)
    assert new != good

    # Measure a build so the kill points spread over its whole life.
    t0 = time.monotonic()
    subprocess.run([*CLI, "-C", str(site), "build", "--output", str(tmp_path / "timing")], check=True,
                   capture_output=True)
    span = time.monotonic() - t0

    rng = random.Random(20261130)
    outcomes = {"old": 0, "new": 0}
    for _ in range(50):
        current = tree_digest(site / "output") if (site / "output").exists() else None
        proc = subprocess.Popen([*CLI, "-C", str(site), "build"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(rng.uniform(0.0, span * 1.1))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if not (site / "output").exists():
            # Killed between the two renames of the non-atomic fallback: the next run repairs it.
            subprocess.run([*CLI, "-C", str(site), "build"], check=True, capture_output=True)
            assert tree_digest(site / "output") == new
            outcomes["new"] += 1
            continue
        after = tree_digest(site / "output")
        assert after in (current, new), "output/ is neither the previous build nor the new one"
        outcomes["old" if after == good else "new"] += 1
        if after == new:  # reset to the old build for the next round to mean something
            shutil.rmtree(site / "output")
            author.write_text(author.read_text().replace(" (edited)", ""))
            subprocess.run([*CLI, "-C", str(site), "build"], check=True, capture_output=True)
            author.write_text(author.read_text().replace("Peking University", "Peking University (edited)"))
            assert tree_digest(site / "output") == good
    # The next build after all that succeeds and leaves no staging or old folder behind.
    subprocess.run([*CLI, "-C", str(site), "build"], check=True, capture_output=True)
    assert tree_digest(site / "output") == new
    leftovers = [p.name for p in site.iterdir() if p.name.startswith("output.")]
    assert leftovers == []
    print(f"\nbuild {span:.2f} s; 50 kills: {outcomes}")
